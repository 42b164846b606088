//! A constraint implemented by hand (Nape's UserConstraint route) and simulated, plus
//! numeric checks of the hand-written Jacobians and effective masses.

#[path = "support/hand_joints.rs"]
mod hand_joints;

use hand_joints::{HandPivot, HandWeld};
use nape::inspect::{
    dense_jacobian, effective_mass, finite_difference_jacobian, max_abs_difference,
    numeric_effective_mass,
};
use nape::{
    Body, BodyHandle, Bounds, Constraint, InvalidParameter, InverseMass, Pose, SharedSlots, Space,
    Vec2, Velocity,
};

/// Handles for constructing joints outside a simulation (the checks below never resolve
/// them).
fn two_handles() -> (BodyHandle, BodyHandle) {
    let mut space = Space::new();
    let a = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let b = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    (a, b)
}

fn sample_poses() -> Vec<[Pose; 2]> {
    vec![
        [
            Pose::new(Vec2::ZERO, 0.0),
            Pose::new(Vec2::new(1.0, 0.0), 0.0),
        ],
        [
            Pose::new(Vec2::new(0.3, -0.2), 0.7),
            Pose::new(Vec2::new(1.5, 0.4), -1.1),
        ],
        [
            Pose::new(Vec2::new(-2.0, 1.0), 2.9),
            Pose::new(Vec2::new(0.1, 0.2), 4.0),
        ],
    ]
}

const MASSES: [InverseMass; 2] = [
    InverseMass {
        mass: 0.5,
        inertia: 2.0,
    },
    InverseMass {
        mass: 1.5,
        inertia: 0.25,
    },
];

fn check_joint<T: Constraint<D, 2>, const D: usize>(joint: &T) {
    for poses in sample_poses() {
        let dense = dense_jacobian(joint, &poses);
        let fd = finite_difference_jacobian(joint, &poses, 1e-3);
        let e = max_abs_difference(&dense, &fd);
        assert!(
            e < 2e-3,
            "{}: J differs from finite differences by {e}",
            T::NAME
        );

        for slot_bodies in [[0, 1], [0, 0]] {
            // Aliased slots hold one body: give both slots its inverse mass.
            let masses = if slot_bodies == [0, 0] {
                [MASSES[0]; 2]
            } else {
                MASSES
            };
            let expected = numeric_effective_mass(&dense, &masses, &slot_bodies);
            let k = effective_mass(joint, &poses, &masses, &slot_bodies);
            let e = max_abs_difference(&k, &expected);
            assert!(
                e < 1e-4,
                "{}: K {k:?} vs J M⁻¹ Jᵀ {expected:?} ({slot_bodies:?})",
                T::NAME
            );
        }
    }
}

#[test]
fn hand_pivot_jacobian_and_effective_mass_match_numerics() {
    let (a, b) = two_handles();
    check_joint(&HandPivot::new(
        a,
        b,
        Vec2::new(0.5, 0.25),
        Vec2::new(-0.4, 0.1),
    ));
}

#[test]
fn hand_weld_jacobian_and_effective_mass_match_numerics() {
    let (a, b) = two_handles();
    check_joint(&HandWeld::new(
        a,
        b,
        Vec2::new(0.5, 0.25),
        Vec2::new(-0.4, 0.1),
        0.3,
    ));
}

#[test]
fn apply_impulse_is_m_inverse_j_transpose() {
    // v += M⁻¹ Jᵀ λ, checked column by column against the dense Jacobian.
    let (a, b) = two_handles();
    let joint = HandWeld::new(a, b, Vec2::new(0.5, 0.25), Vec2::new(-0.4, 0.1), 0.0);
    let poses = sample_poses()[1];
    let dense = dense_jacobian(&joint, &poses);
    let jac = joint.jacobian(&poses);
    let lambda = [0.3, -1.2, 0.7];
    let mut v = [Velocity::default(); 2];
    joint.apply_impulse(&jac, &lambda, &MASSES, &[0, 1], &mut v);
    for s in 0..2 {
        let col = |k: usize| (0..3).map(|i| dense[i][3 * s + k] * lambda[i]).sum::<f32>();
        let expected = Vec2::new(col(0), col(1)) * MASSES[s].mass;
        assert!((v[s].linear - expected).length() < 1e-5);
        assert!((v[s].angular - col(2) * MASSES[s].inertia).abs() < 1e-5);
    }
}

#[test]
fn hand_pivot_pendulum_keeps_its_length() {
    let mut space = Space::new();
    space.gravity = Vec2::new(0.0, -10.0);
    let anchor = Vec2::new(0.0, 2.0);
    let ground = space.add_body(Body::static_body().at(anchor)).unwrap();
    // A bob of mass 1 one unit to the right of the pivot, hanging on a massless arm.
    let bob = space
        .add_body(Body::dynamic(1.0, 0.1).at(anchor + Vec2::X))
        .unwrap();
    let pivot = HandPivot::new(ground, bob, Vec2::ZERO, Vec2::new(-1.0, 0.0));
    let h = space.add_constraint(pivot).unwrap();
    let mut lowest = f32::INFINITY;
    for _ in 0..300 {
        space.step(1.0 / 60.0);
        let b = space.body(bob).unwrap();
        let length = (b.position() - anchor).length();
        assert!((length - 1.0).abs() < 1e-3, "pendulum length {length}");
        lowest = lowest.min(b.position().y);
    }
    // It really swung (down to about one unit below the pivot).
    assert!(lowest < anchor.y - 0.9, "lowest point {lowest}");
    // The constraint carried the weight: a nonzero impulse.
    let j = space.impulse(h).unwrap();
    assert!(j[0].abs() + j[1].abs() > 0.0);
}

/// A one-row inequality: `min ≤ |p2 − p1| ≤ max` (a rope when `min = 0`).
#[derive(Clone, Debug)]
struct HandRope {
    body1: BodyHandle,
    body2: BodyHandle,
    max: f32,
}

#[derive(Clone, Copy, Default)]
struct RopeJacobian {
    n: Vec2,
}

impl Constraint<1, 2> for HandRope {
    type Jacobian = RopeJacobian;
    const NAME: &'static str = "HandRope";
    const HAS_LIMITS: bool = true;

    fn bodies(&self) -> [BodyHandle; 2] {
        [self.body1, self.body2]
    }
    fn set_bodies(&mut self, b: [BodyHandle; 2]) {
        [self.body1, self.body2] = b;
    }
    fn validate(&self) -> Result<(), InvalidParameter> {
        if self.max >= 0.0 {
            Ok(())
        } else {
            Err(InvalidParameter {
                constraint: Self::NAME,
                rule: "max >= 0".into(),
                value: self.max.to_string(),
            })
        }
    }
    fn bounds(&self) -> [Bounds; 1] {
        [Bounds::new(0.0, self.max)]
    }
    fn position_error(&self, p: &[Pose; 2]) -> [f32; 1] {
        [(p[1].position - p[0].position).length()]
    }
    fn jacobian(&self, p: &[Pose; 2]) -> RopeJacobian {
        RopeJacobian {
            n: (p[1].position - p[0].position).normalize_or_zero(),
        }
    }
    fn effective_mass(
        &self,
        j: &RopeJacobian,
        m: &[InverseMass; 2],
        s: SharedSlots,
    ) -> [[f32; 1]; 1] {
        let lin = if s.contains(0, 1) {
            0.0
        } else {
            m[0].mass + m[1].mass
        };
        [[lin * j.n.length_squared()]]
    }
    fn velocity_error(&self, j: &RopeJacobian, b: &[usize; 2], v: &[Velocity]) -> [f32; 1] {
        [j.n.dot(v[b[1]].linear - v[b[0]].linear)]
    }
    fn apply_impulse(
        &self,
        j: &RopeJacobian,
        l: &[f32; 1],
        m: &[InverseMass; 2],
        b: &[usize; 2],
        v: &mut [Velocity],
    ) {
        v[b[0]].linear -= j.n * l[0] * m[0].mass;
        v[b[1]].linear += j.n * l[0] * m[1].mass;
    }
}

#[test]
fn hand_rope_limit_pulls_but_never_pushes() {
    let mut space = Space::new();
    space.gravity = Vec2::new(0.0, -10.0);
    let ground = space.add_body(Body::static_body()).unwrap();
    // Starts inside the range (slack): falls freely until the rope is taut.
    let bob = space
        .add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(0.0, -0.5)))
        .unwrap();
    let rope = space
        .add_constraint(HandRope {
            body1: ground,
            body2: bob,
            max: 1.0,
        })
        .unwrap();
    space.step(1.0 / 60.0);
    assert_eq!(
        space.impulse(rope).unwrap(),
        [0.0],
        "slack rope must not act"
    );
    let mut max_len = 0.0f32;
    for _ in 0..120 {
        space.step(1.0 / 60.0);
        let len = space.body(bob).unwrap().position().length();
        max_len = max_len.max(len);
        let j = space.impulse(rope).unwrap()[0];
        assert!(j <= 0.0, "a rope only pulls (impulse {j})");
    }
    assert!(max_len < 1.0 + 1e-3, "rope stretched to {max_len}");
    assert!(
        max_len > 1.0 - 1e-3,
        "the bob never reached the end of the rope ({max_len})"
    );
    // Throw the bob towards the anchor: the rope must not push it back.
    space
        .body_mut(bob)
        .unwrap()
        .set_velocity(Vec2::new(0.0, 5.0));
    space.gravity = Vec2::ZERO;
    space.step(1.0 / 60.0);
    let v = space.body(bob).unwrap().velocity();
    assert!((v.y - 5.0).abs() < 1e-4, "velocity {v}");
}
