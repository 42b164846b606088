//! A harness that checks a constraint's derivation numerically on random states:
//! `J` against central finite differences of its own `c`, `K` against `J M⁻¹ Jᵀ` computed
//! numerically (shared bodies merged), `K⁻¹K = I`, and the impulse against `M⁻¹ Jᵀ λ`.

#![allow(dead_code)]

use nape::inspect::{
    dense_jacobian, effective_mass, finite_difference_geometric_stiffness,
    finite_difference_jacobian, max_abs_difference, numeric_effective_mass,
};
use nape::{Body, BodyHandle, Constraint, InverseMass, Pose, Space, Vec2, Velocity};

/// A small deterministic generator (tests stay reproducible without a seed file).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let unit = (self.0 >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }

    pub fn vec2(&mut self, extent: f32) -> Vec2 {
        Vec2::new(self.range(-extent, extent), self.range(-extent, extent))
    }

    pub fn angle(&mut self) -> f32 {
        self.range(-std::f32::consts::PI, std::f32::consts::PI)
    }
}

/// `B` distinct body handles (from a throwaway space: the checks need no simulation).
pub fn handles<const B: usize>() -> [BodyHandle; B] {
    let mut space = Space::new();
    std::array::from_fn(|_| space.add_body(Body::dynamic(1.0, 1.0)).expect("valid body"))
}

/// One random state: poses, inverse masses (slot 0 static in every fourth state).
pub fn random_state<const B: usize>(rng: &mut Rng, index: usize) -> ([Pose; B], [InverseMass; B]) {
    let poses = std::array::from_fn(|_| Pose::new(rng.vec2(5.0), f64::from(rng.angle())));
    let inverse_masses = std::array::from_fn(|s| {
        if s == 0 && index.is_multiple_of(4) {
            InverseMass::default()
        } else {
            InverseMass {
                mass: rng.range(0.1, 2.0),
                inertia: rng.range(0.1, 3.0),
            }
        }
    });
    (poses, inverse_masses)
}

/// The largest entry, for relative tolerances.
fn magnitude(m: &[Vec<f32>]) -> f32 {
    m.iter().flatten().fold(0.0f32, |a, &b| a.max(b.abs()))
}

/// Checks one constraint at one state (its derivation, its geometric stiffness, and `K⁻¹`);
/// `slot_bodies` says which slots hold the same body. Returns the Jacobian's error
/// against finite differences.
pub fn check_state<T, const D: usize, const B: usize>(
    constraint: &T,
    poses: &[Pose; B],
    inverse_masses: &[InverseMass; B],
    slot_bodies: &[usize; B],
) -> f32
where
    T: Constraint<D, B>,
{
    let (j_error, generated, _) = check_derivation(constraint, poses, inverse_masses, slot_bodies);
    check_geometric_stiffness(constraint, poses);
    let name = T::NAME;

    // K⁻¹K = I on the rows K can move (a row with a zero diagonal is dropped). Slots that
    // share a body may make K singular (a pivot between two points of one body has rank
    // one), so the identity is checked for distinct bodies only.
    let aliased = (0..B).any(|s| (s + 1..B).any(|t| slot_bodies[s] == slot_bodies[t]));
    if aliased {
        return j_error;
    }
    let k: [[f32; D]; D] = std::array::from_fn(|i| std::array::from_fn(|j| generated[i][j]));
    let active: [bool; D] = std::array::from_fn(|i| k[i][i] > 1e-6);
    let inverse = nape::math::invert_active(&k, &active);
    for i in 0..D {
        for j in 0..D {
            let product: f32 = (0..D).map(|m| inverse[i][m] * k[m][j]).sum();
            let identity = if i == j && active[i] { 1.0 } else { 0.0 };
            let condition =
                magnitude(&generated) * magnitude(&[inverse.iter().flatten().copied().collect()]);
            if active[i] && active[j] {
                assert!(
                    (product - identity).abs() <= 1e-5 * (1.0 + condition),
                    "{name}: (K⁻¹K)[{i}][{j}] = {product}"
                );
            }
        }
    }
    j_error
}

/// The derivation alone at one state: `J` against finite differences of `c`, `K` against
/// `J M⁻¹ Jᵀ` with the given aliasing, and the impulse against `M⁻¹ Jᵀ λ` (not whether
/// `K` is invertible: rows may be dependent where a constraint is degenerate). Returns
/// the Jacobian's error, `K` and the dense `J`.
pub fn check_derivation<T, const D: usize, const B: usize>(
    constraint: &T,
    poses: &[Pose; B],
    inverse_masses: &[InverseMass; B],
    slot_bodies: &[usize; B],
) -> (f32, Vec<Vec<f32>>, Vec<Vec<f32>>)
where
    T: Constraint<D, B>,
{
    let name = T::NAME;
    let jacobian = dense_jacobian(constraint, poses);
    let numeric = finite_difference_jacobian(constraint, poses, 1e-2);
    let j_error = max_abs_difference(&jacobian, &numeric);
    let scale = 1.0 + magnitude(&jacobian);
    assert!(
        j_error <= 2e-3 * scale,
        "{name}: J differs from finite differences of c by {j_error}\nJ  = {jacobian:?}\nFD = {numeric:?}\nposes = {poses:?}"
    );

    // K against J M⁻¹ Jᵀ: both slot-distinct and with the given aliasing.
    let generated = effective_mass(constraint, poses, inverse_masses, slot_bodies);
    let expected = numeric_effective_mass(&jacobian, inverse_masses, slot_bodies);
    let k_error = max_abs_difference(&generated, &expected);
    assert!(
        k_error <= 1e-4 * (1.0 + magnitude(&expected)),
        "{name}: K differs from J M⁻¹ Jᵀ by {k_error}\nK = {generated:?}\nexpected {expected:?}"
    );

    let j_error = check_impulse(constraint, poses, inverse_masses, &jacobian, j_error);
    (j_error, generated, jacobian)
}

/// The constraint's own geometric stiffness (if it gives one) against central differences
/// of `Jᵀf`, for a force that varies with the state. Not at a kink: there the second
/// derivative is a spike the differences see and the derivation (rightly) does not.
pub fn check_geometric_stiffness<T, const D: usize, const B: usize>(
    constraint: &T,
    poses: &[Pose; B],
) where
    T: Constraint<D, B>,
{
    let name = T::NAME;
    let force: [f32; D] = std::array::from_fn(|i| {
        let pose = poses[i % B];
        pose.position.x * 0.7 - pose.position.y * 0.3 + (i as f32 + 1.0) * 0.4
    });
    let Some(generated) = constraint.geometric_stiffness(poses, &force) else {
        return;
    };
    let numeric = finite_difference_geometric_stiffness(constraint, poses, &force, 3e-3);
    for s in 0..B {
        for k in 0..2 {
            let (got, expected) = (generated[s][k], numeric[s][k]);
            assert!(
                (got - expected).abs() <= 2e-3 * (1.0 + expected.abs()),
                "{name}: geometric stiffness [{s}][{k}] = {got}, finite differences of Jᵀf give {expected}\nforce = {force:?}\nposes = {poses:?}"
            );
        }
    }
}

/// Δv of slot `s` for `λ = e_i` is `M⁻¹` times row `i` of `J` restricted to `s`, and the
/// constraint's own dense rows of `J` (`jacobian_rows`) are the `J` its velocity error
/// reads.
fn check_impulse<T, const D: usize, const B: usize>(
    constraint: &T,
    poses: &[Pose; B],
    inverse_masses: &[InverseMass; B],
    jacobian: &[Vec<f32>],
    j_error: f32,
) -> f32
where
    T: Constraint<D, B>,
{
    let name = T::NAME;
    let cache = constraint.jacobian(poses);
    let rows = constraint.jacobian_rows(&cache);
    let bodies: [usize; B] = std::array::from_fn(|s| s);
    for i in 0..D {
        let mut lambda = [0.0; D];
        lambda[i] = 1.0;
        let mut velocities = [Velocity::default(); B];
        constraint.apply_impulse(&cache, &lambda, inverse_masses, &bodies, &mut velocities);
        for s in 0..B {
            let expected = [
                inverse_masses[s].mass * jacobian[i][3 * s],
                inverse_masses[s].mass * jacobian[i][3 * s + 1],
                inverse_masses[s].inertia * jacobian[i][3 * s + 2],
            ];
            let got = [
                velocities[s].linear.x,
                velocities[s].linear.y,
                velocities[s].angular,
            ];
            for k in 0..3 {
                assert!(
                    (expected[k] - got[k]).abs() <= 1e-5 * (1.0 + expected[k].abs()),
                    "{name}: impulse of row {i} on slot {s}: {got:?} vs M⁻¹Jᵀ {expected:?}"
                );
                let (entry, read) = (rows[i][s][k], jacobian[i][3 * s + k]);
                assert!(
                    (entry - read).abs() <= 1e-5 * (1.0 + read.abs()),
                    "{name}: jacobian_rows[{i}][{s}][{k}] = {entry}, J reads {read}"
                );
            }
        }
    }
    j_error
}

/// Runs [`check_state`] on `states` random states, with every slot on its own body.
pub fn check_random<T, const D: usize, const B: usize>(
    seed: u64,
    states: usize,
    make: impl Fn(&mut Rng, [BodyHandle; B]) -> T,
) where
    T: Constraint<D, B>,
{
    check_random_observed(seed, states, make, |_, _| {});
}

/// [`check_random`], also showing each checked constraint and its poses to `observe`.
pub fn check_random_observed<T, const D: usize, const B: usize>(
    seed: u64,
    states: usize,
    make: impl Fn(&mut Rng, [BodyHandle; B]) -> T,
    mut observe: impl FnMut(&T, &[Pose; B]),
) where
    T: Constraint<D, B>,
{
    let mut rng = Rng::new(seed);
    let handles = handles::<B>();
    let distinct: [usize; B] = std::array::from_fn(|s| s);
    for index in 0..states {
        let constraint = make(&mut rng, handles);
        let (poses, inverse_masses) = random_state::<B>(&mut rng, index);
        observe(&constraint, &poses);
        check_state(&constraint, &poses, &inverse_masses, &distinct);
    }
}
