//! The [`Constraint`] trait: the contract between a joint's mathematics and the solver.
//!
//! A constraint over `BODIES` body slots with `DIM` rows is a function `c(q) ∈ R^DIM` of the
//! slots' poses `q = (x, y, θ)` per slot. The solver keeps every row `i` inside its
//! [`Bounds`] (`min_i ≤ c_i ≤ max_i`; equal bounds make an equality). Everything a joint
//! must supply is pure mathematics over that function:
//!
//! | method | meaning |
//! | --- | --- |
//! | [`position_error`](Constraint::position_error) | `c(q)`, before the bounds are applied |
//! | [`jacobian`](Constraint::jacobian) | `J = ∂c/∂q`, in whatever compact form the joint likes |
//! | [`velocity_error`](Constraint::velocity_error) | `J·v` |
//! | [`effective_mass`](Constraint::effective_mass) | `K = J M⁻¹ Jᵀ`, including the cross terms of slots that hold the same body |
//! | [`apply_impulse`](Constraint::apply_impulse) | `v += M⁻¹ Jᵀ λ` |
//! | [`linearize`](Constraint::linearize) | `c`, `J` and `K` at once (by default, the three above) |
//!
//! `#[constraint]` derives all of them from the expression of `c`; a person may also
//! implement the trait by hand (Nape's `UserConstraint`). Limits, softness, warm starting,
//! clamping and position correction are the solver's, identical for every constraint.

pub use crate::error::InvalidParameter;
use crate::types::{BodyHandle, DrawPrimitive, generic_picture};
pub use crate::types::{InverseMass, Pose, Velocity};

/// The range `min ≤ c_i ≤ max` of one constraint row; `min == max` is an equality.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Lower bound, possibly `f32::NEG_INFINITY`.
    pub min: f32,
    /// Upper bound, possibly `f32::INFINITY`.
    pub max: f32,
}

impl Bounds {
    /// The equality `c_i = 0`.
    pub const ZERO: Self = Self { min: 0.0, max: 0.0 };

    /// `min ≤ c_i ≤ max`.
    #[must_use]
    pub const fn new(min: f32, max: f32) -> Self {
        Self { min, max }
    }

    /// Whether the row is an equality.
    #[must_use]
    pub fn is_equality(&self) -> bool {
        self.min == self.max
    }
}

/// Which pairs of body slots of one constraint hold the same body.
///
/// When slots `s` and `t` hold the same body, `K = J M⁻¹ Jᵀ` gains the cross terms
/// `J_s M⁻¹ J_tᵀ + J_t M⁻¹ J_sᵀ`. The solver decides this when it prepares the
/// constraint and passes it to [`Constraint::effective_mass`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SharedSlots {
    mask: u64,
}

impl SharedSlots {
    /// The most body slots one constraint may have.
    pub const MAX_SLOTS: usize = crate::types::MAX_SLOTS;

    /// No two slots share a body.
    pub const NONE: Self = Self { mask: 0 };

    /// Finds the pairs of equal entries in `bodies` (indices or handles of each slot).
    #[must_use]
    pub fn find<T: PartialEq>(bodies: &[T]) -> Self {
        assert!(
            bodies.len() <= Self::MAX_SLOTS,
            "at most {} body slots",
            Self::MAX_SLOTS
        );
        let mut shared = Self::NONE;
        for s in 0..bodies.len() {
            for t in s + 1..bodies.len() {
                if bodies[s] == bodies[t] {
                    shared = shared.with(s, t);
                }
            }
        }
        shared
    }

    /// This set plus the pair `(s, t)`.
    #[must_use]
    pub const fn with(self, s: usize, t: usize) -> Self {
        Self {
            mask: self.mask | 1 << Self::bit(s, t),
        }
    }

    /// Whether slots `s` and `t` hold the same body.
    #[must_use]
    #[inline]
    pub const fn contains(self, s: usize, t: usize) -> bool {
        self.mask >> Self::bit(s, t) & 1 != 0
    }

    /// Whether any two slots share a body.
    #[must_use]
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.mask == 0
    }

    const fn bit(s: usize, t: usize) -> usize {
        let (low, high) = if s < t { (s, t) } else { (t, s) };
        low * Self::MAX_SLOTS + high
    }
}

/// Storage for a generated constraint's per-step Jacobian entries (`Default` for any length).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JacobianCache<const N: usize>(pub [f32; N]);

impl<const N: usize> Default for JacobianCache<N> {
    fn default() -> Self {
        Self([0.0; N])
    }
}

/// [`Constraint::linearize`]'s default, the three methods in turn, for an override to fall
/// back on.
#[inline]
pub(crate) fn linearize_each<C, const DIM: usize, const BODIES: usize>(
    constraint: &C,
    poses: &[Pose; BODIES],
    inverse_masses: &[InverseMass; BODIES],
    shared: SharedSlots,
    (error, jacobian, effective_mass): (&mut [f32; DIM], &mut C::Jacobian, &mut [[f32; DIM]; DIM]),
) where
    C: Constraint<DIM, BODIES>,
{
    *error = constraint.position_error(poses);
    *jacobian = constraint.jacobian(poses);
    *effective_mass = constraint.effective_mass(jacobian, inverse_masses, shared);
}

/// A constraint between `BODIES` body slots with `DIM` rows: see the [module docs](self).
///
/// Implemented by `#[constraint]`, or by hand. Every method is pure mathematics; the solver
/// calls them in this order each step: [`position_error`](Self::position_error) and
/// [`jacobian`](Self::jacobian) from the current poses, then
/// [`effective_mass`](Self::effective_mass) (the three through
/// [`linearize`](Self::linearize) where it needs all three), then
/// [`velocity_error`](Self::velocity_error) and [`apply_impulse`](Self::apply_impulse)
/// once per velocity iteration. Stiff
/// constraints repeat the first three and apply impulses to positions in the position
/// iterations.
///
/// `velocities` is the solver's compact array of every body's velocity and `bodies[s]` the
/// index of slot `s` in it; two slots may hold the same index.
///
/// Units: a row's `c` is in the units of its expression (m for a distance, rad for an
/// angle); `J`'s entries are that unit per m (position columns) and per rad (angle
/// columns); `J·v` is that unit per second; `K` is that unit squared per kg (through
/// `m⁻¹`, 1/kg, and `I⁻¹`, 1/(kg·m²)); an impulse `λ` is kg times that unit per second
/// (N·s for a distance row, N·m·s for an angle row). Every value must be finite.
pub trait Constraint<const DIM: usize, const BODIES: usize>: Clone + Send + Sync + 'static {
    /// The compact per-step form of `J` that [`jacobian`](Self::jacobian) computes once and
    /// the velocity iterations reuse (a hand-written joint keeps its world anchors here).
    type Jacobian: Copy + Default + Send + Sync + 'static;

    /// A short name for messages, usually the type's name.
    const NAME: &'static str;

    /// A velocity-only constraint (e.g. a motor) has no position error: its rows are
    /// `J·v + velocity_bias = 0`, and it takes no part in the position iterations.
    const VELOCITY_ONLY: bool = false;

    /// Whether any row may be an inequality; `false` lets the solver skip the bounds logic.
    const HAS_LIMITS: bool = false;

    /// The body in each slot.
    fn bodies(&self) -> [BodyHandle; BODIES];

    /// Replaces the body in each slot (used when a constraint is re-targeted).
    fn set_bodies(&mut self, bodies: [BodyHandle; BODIES]);

    /// Checks the parameters; called when the constraint is added or changed. The default
    /// accepts everything.
    ///
    /// # Errors
    /// The first rule that does not hold.
    fn validate(&self) -> Result<(), InvalidParameter> {
        Ok(())
    }

    /// The range of each row (all equalities `c_i = 0` by default).
    fn bounds(&self) -> [Bounds; DIM] {
        [Bounds::ZERO; DIM]
    }

    /// Whether `c`, and so `J` and `K`, are unchanged when every body moves by the same
    /// vector (`Σ_s ∂c/∂x_s ≡ 0` and the same in `y`), as every joint between bodies'
    /// points is. Then the solver passes every method that takes poses the positions
    /// relative to the first slot's body, so the constraint keeps `f32` precision of its
    /// own size however far from the origin it is; otherwise (the default, right for
    /// any constraint) world positions rounded to `f32`. `#[constraint]` derives it.
    fn translation_invariant(&self) -> bool {
        false
    }

    /// `c(q)` for the poses of the slots, before the bounds are applied.
    fn position_error(&self, poses: &[Pose; BODIES]) -> [f32; DIM];

    /// For a velocity-only constraint, the constant part `b` of `J·v + b`, with the
    /// Jacobian of this step's poses (a `b` that depends on the poses, such as a motor's
    /// rate through a lever, is read from the Jacobian's cache).
    fn velocity_bias(&self, jacobian: &Self::Jacobian) -> [f32; DIM] {
        let _ = jacobian;
        [0.0; DIM]
    }

    /// `J = ∂c/∂q` at these poses, in the joint's compact form.
    fn jacobian(&self, poses: &[Pose; BODIES]) -> Self::Jacobian;

    /// `K = J M⁻¹ Jᵀ` (symmetric, both halves filled), with the cross terms of every pair
    /// of slots in `shared`.
    fn effective_mass(
        &self,
        jacobian: &Self::Jacobian,
        inverse_masses: &[InverseMass; BODIES],
        shared: SharedSlots,
    ) -> [[f32; DIM]; DIM];

    /// [`position_error`](Self::position_error), [`jacobian`](Self::jacobian) and
    /// [`effective_mass`](Self::effective_mass) at the same poses, written to `error`,
    /// `jacobian` and `effective_mass`, as the solver asks for them when it prepares the
    /// constraint. The default calls the three; a constraint that computes them in one pass
    /// (a runtime constraint's compiled code) overrides it. The results go to the caller's
    /// places for them: copied out of a returned value right after compiled code wrote them,
    /// they waited for those stores to retire (a wide load of narrower stores is not
    /// forwarded).
    #[inline]
    fn linearize(
        &self,
        poses: &[Pose; BODIES],
        inverse_masses: &[InverseMass; BODIES],
        shared: SharedSlots,
        error: &mut [f32; DIM],
        jacobian: &mut Self::Jacobian,
        effective_mass: &mut [[f32; DIM]; DIM],
    ) {
        let out = (error, jacobian, effective_mass);
        linearize_each(self, poses, inverse_masses, shared, out);
    }

    /// `J·v` for the current velocities (the bias `b` of a velocity-only constraint is
    /// [`velocity_bias`](Self::velocity_bias)'s).
    fn velocity_error(
        &self,
        jacobian: &Self::Jacobian,
        bodies: &[usize; BODIES],
        velocities: &[Velocity],
    ) -> [f32; DIM];

    /// `v += M⁻¹ Jᵀ λ` for a constraint-space impulse `λ`.
    fn apply_impulse(
        &self,
        jacobian: &Self::Jacobian,
        impulse: &[f32; DIM],
        inverse_masses: &[InverseMass; BODIES],
        bodies: &[usize; BODIES],
        velocities: &mut [Velocity],
    );

    /// `J` itself, dense: `rows[i][s] = [∂c_i/∂x_s, ∂c_i/∂y_s, ∂c_i/∂θ_s]` from the compact
    /// form (the rows an exact solve of the joint system writes). `#[constraint]` emits
    /// the entries it derived; the default reads them through
    /// [`apply_impulse`](Self::apply_impulse) with unit inverse masses, one row at a time.
    fn jacobian_rows(&self, jacobian: &Self::Jacobian) -> [[[f32; 3]; BODIES]; DIM] {
        let distinct: [usize; BODIES] = std::array::from_fn(|s| s);
        std::array::from_fn(|i| {
            let mut unit = [0.0; DIM];
            unit[i] = 1.0;
            let mut row = [Velocity::default(); BODIES];
            self.apply_impulse(
                jacobian,
                &unit,
                &[InverseMass::UNIT; BODIES],
                &distinct,
                &mut row,
            );
            row.map(|v| [v.linear.x, v.linear.y, v.angular])
        })
    }

    /// The geometric stiffness of the constraint while its rows carry the force `force`
    /// (one entry per row, `f`): per slot, `[|∂²(fᵀc)/∂θ²|, ρ(∂²(fᵀc)/∂x²)]` over that
    /// slot's own angle `θ` and position `x`, with `ρ` the spectral radius of the 2×2
    /// Hessian. The first is how fast the force's torque on the body changes as the body
    /// turns (a pivot's tension times its lever along the force), the second how fast the
    /// force on it changes as it moves (a rope's tension over its length, across the
    /// rope). The solver reads them to choose substeps (a loaded chain's transverse mode).
    ///
    /// `#[constraint]` derives them from the second derivatives of `c`. The default,
    /// `None`, lets the solver estimate them from [`jacobian`](Self::jacobian) at a
    /// turned and shifted pose (two Jacobians per constraint per step).
    fn geometric_stiffness(
        &self,
        poses: &[Pose; BODIES],
        force: &[f32; DIM],
    ) -> Option<[[f32; 2]; BODIES]> {
        let _ = (poses, force);
        None
    }

    /// Describes the constraint at these poses as debug-drawing primitives (see
    /// [`crate::draw`]). The default is the generic picture: a mark at each slot's body and
    /// a link from slot to slot. (The builtins' own pictures come from
    /// [`draw::picture`](crate::draw::picture), which [`Space::debug_draw`](crate::Space::debug_draw)
    /// uses.)
    fn debug_draw(&self, poses: &[Pose; BODIES], out: &mut dyn FnMut(DrawPrimitive)) {
        generic_picture(poses, out);
    }
}
