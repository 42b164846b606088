//! A constraint implemented by hand (Nape's UserConstraint route) and simulated, plus
//! numeric checks of the hand-written Jacobians and effective masses; and the generated
//! builtins against hand-derived references (`support/hand_builtins.rs`): the same `J`,
//! `K`, impulses and validation on random states, and the same scenes stepped with either
//! staying together for ten seconds.

#[path = "support/derivation_check.rs"]
mod derivation_check;
#[path = "support/hand_builtins.rs"]
mod hand_builtins;
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
        let length = (b.position().as_vec2() - anchor).length();
        assert!((length - 1.0).abs() < 1e-3, "pendulum length {length}");
        lowest = lowest.min(b.position().as_vec2().y);
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
        let len = space.body(bob).unwrap().position().as_vec2().length();
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
        .set_velocity(Vec2::new(0.0, 5.0))
        .unwrap();
    space.gravity = Vec2::ZERO;
    space.step(1.0 / 60.0);
    let v = space.body(bob).unwrap().velocity();
    assert!((v.y - 5.0).abs() < 1e-4, "velocity {v}");
}

// ---------------------------------------------------------------------------------------
// Generated builtins against the hand-derived references.

use derivation_check::{Rng, check_state, handles, random_state};
use hand_builtins::{HandAngle, HandDistance, HandLine, HandMotor, HandPulley};
use nape::{
    AngleJoint, ConstraintHandle, ConstraintSettings, DistanceJoint, LineJoint, MotorJoint,
    PivotJoint, PulleyJoint,
};

const STATES: usize = 200;

fn magnitude(m: &[Vec<f32>]) -> f32 {
    m.iter().flatten().fold(0.0f32, |a, &b| a.max(b.abs()))
}

fn assert_close(what: &str, a: &[Vec<f32>], b: &[Vec<f32>]) {
    let e = max_abs_difference(a, b);
    let scale = 1.0 + magnitude(a).max(magnitude(b));
    assert!(
        e <= 2e-5 * scale,
        "{what}: generated {a:?} vs hand-written {b:?}"
    );
}

/// The generated joint and its reference agree at one state: `c`, `J`, `K` for every
/// arrangement of shared slots in `arrangements`, and the impulse's effect on velocities.
/// The reference's `J` is also checked against finite differences.
fn compare_at<G, H, const D: usize, const B: usize>(
    generated: &G,
    hand: &H,
    rng: &mut Rng,
    index: usize,
    arrangements: &[[usize; B]],
) where
    G: Constraint<D, B>,
    H: Constraint<D, B>,
{
    let (mut poses, masses) = random_state::<B>(rng, index);
    let name = G::NAME;
    assert_close(
        &format!("{name} c"),
        &[generated.position_error(&poses).to_vec()],
        &[hand.position_error(&poses).to_vec()],
    );
    assert_eq!(generated.bounds(), hand.bounds(), "{name} bounds");
    assert_eq!(
        generated.velocity_bias(&generated.jacobian(&poses)),
        hand.velocity_bias(&hand.jacobian(&poses)),
        "{name} bias"
    );
    assert_close(
        &format!("{name} J"),
        &dense_jacobian(generated, &poses),
        &dense_jacobian(hand, &poses),
    );
    if !H::VELOCITY_ONLY {
        let distinct: [usize; B] = std::array::from_fn(|s| s);
        check_state(hand, &poses, &masses, &distinct);
    }

    for slot_bodies in arrangements {
        // Slots on one body share its pose and mass.
        let mut masses = masses;
        for s in 0..B {
            poses[s] = poses[slot_bodies[s]];
            masses[s] = masses[slot_bodies[s]];
        }
        assert_close(
            &format!("{name} K {slot_bodies:?}"),
            &effective_mass(generated, &poses, &masses, slot_bodies),
            &effective_mass(hand, &poses, &masses, slot_bodies),
        );
        // v += M⁻¹ Jᵀ λ through each, on the same starting velocities.
        let start: Vec<Velocity> = (0..B)
            .map(|_| Velocity {
                linear: rng.vec2(2.0),
                angular: rng.range(-2.0, 2.0),
            })
            .collect();
        let lambda: [f32; D] = std::array::from_fn(|_| rng.range(-3.0, 3.0));
        let after = |apply: &dyn Fn(&mut Vec<Velocity>)| {
            let mut v = start.clone();
            apply(&mut v);
            vec![
                v.iter()
                    .flat_map(|v| [v.linear.x, v.linear.y, v.angular])
                    .collect::<Vec<f32>>(),
            ]
        };
        let (gj, hj) = (generated.jacobian(&poses), hand.jacobian(&poses));
        assert_close(
            &format!("{name} impulse {slot_bodies:?}"),
            &after(&|v| generated.apply_impulse(&gj, &lambda, &masses, slot_bodies, v)),
            &after(&|v| hand.apply_impulse(&hj, &lambda, &masses, slot_bodies, v)),
        );
        assert_close(
            &format!("{name} J·v {slot_bodies:?}"),
            &[generated.velocity_error(&gj, slot_bodies, &start).to_vec()],
            &[hand.velocity_error(&hj, slot_bodies, &start).to_vec()],
        );
    }
}

const PAIR: &[[usize; 2]] = &[[0, 1], [0, 0]];

#[test]
fn angle_reference_matches_the_generated_joint() {
    let mut rng = Rng::new(11);
    let [a, b] = handles::<2>();
    for index in 0..STATES {
        let (min, max) = (rng.range(-2.0, 0.0), rng.range(0.0, 2.0));
        let ratio = rng.range(-3.0, 3.0);
        let generated = AngleJoint {
            ratio,
            ..AngleJoint::new(a, b, min, max)
        };
        let hand = HandAngle {
            body1: a,
            body2: b,
            joint_min: min,
            joint_max: max,
            ratio,
        };
        compare_at(&generated, &hand, &mut rng, index, PAIR);
    }
}

#[test]
fn motor_reference_matches_the_generated_joint() {
    let mut rng = Rng::new(12);
    let [a, b] = handles::<2>();
    for index in 0..STATES {
        let rate = rng.range(-5.0, 5.0);
        let ratio = rng.range(-3.0, 3.0);
        let generated = MotorJoint {
            ratio,
            ..MotorJoint::new(a, b, rate)
        };
        let hand = HandMotor {
            body1: a,
            body2: b,
            rate,
            ratio,
        };
        compare_at(&generated, &hand, &mut rng, index, PAIR);
    }
}

#[test]
fn distance_reference_matches_the_generated_joint() {
    let mut rng = Rng::new(13);
    let [a, b] = handles::<2>();
    for index in 0..STATES {
        let (a1, a2) = (rng.vec2(1.0), rng.vec2(1.0));
        let (min, max) = (rng.range(0.0, 1.0), rng.range(1.0, 3.0));
        let generated = DistanceJoint::new(a, b, a1, a2, min, max);
        let hand = HandDistance {
            body1: a,
            body2: b,
            anchor1: a1,
            anchor2: a2,
            joint_min: min,
            joint_max: max,
        };
        compare_at(&generated, &hand, &mut rng, index, PAIR);
    }
}

#[test]
fn line_reference_matches_the_generated_joint() {
    let mut rng = Rng::new(14);
    let [a, b] = handles::<2>();
    for index in 0..STATES {
        let (a1, a2) = (rng.vec2(1.0), rng.vec2(1.0));
        let mut direction = rng.vec2(2.0);
        if direction.length() < 0.1 {
            direction = Vec2::X;
        }
        let (min, max) = (rng.range(-2.0, 0.0), rng.range(0.0, 2.0));
        let generated = LineJoint::new(a, b, a1, a2, direction, min, max);
        let hand = HandLine {
            body1: a,
            body2: b,
            anchor1: a1,
            anchor2: a2,
            direction,
            joint_min: min,
            joint_max: max,
        };
        compare_at(&generated, &hand, &mut rng, index, PAIR);
    }
}

/// Every way a pulley's four slots may hold four, three or two bodies
/// (`body1 ≠ body2`, `body3 ≠ body4`).
const PULLEY_ARRANGEMENTS: &[[usize; 4]] = &[
    [0, 1, 2, 3],
    [0, 1, 0, 2],
    [0, 1, 2, 0],
    [0, 1, 1, 2],
    [0, 1, 2, 1],
    [0, 1, 0, 1],
    [0, 1, 1, 0],
];

fn pulley_pair(rng: &mut Rng, bodies: [BodyHandle; 4]) -> (PulleyJoint, HandPulley) {
    let anchors: [Vec2; 4] = std::array::from_fn(|_| rng.vec2(1.0));
    let (min, max) = (rng.range(0.0, 2.0), rng.range(2.0, 6.0));
    let ratio = rng.range(0.2, 3.0);
    let [body1, body2, body3, body4] = bodies;
    let [anchor1, anchor2, anchor3, anchor4] = anchors;
    let generated = PulleyJoint {
        body1,
        body2,
        body3,
        body4,
        anchor1,
        anchor2,
        anchor3,
        anchor4,
        joint_min: min,
        joint_max: max,
        ratio,
    };
    (generated, generated.into())
}

#[test]
fn pulley_reference_matches_the_generated_joint_in_every_arrangement() {
    let mut rng = Rng::new(15);
    let bodies = handles::<4>();
    for index in 0..STATES {
        let (generated, hand) = pulley_pair(&mut rng, bodies);
        compare_at(&generated, &hand, &mut rng, index, PULLEY_ARRANGEMENTS);
    }
}

/// Both accept or both reject, naming the same rule.
fn same_verdict<G: Constraint<D, B>, H: Constraint<D, B>, const D: usize, const B: usize>(
    case: &str,
    generated: &G,
    hand: &H,
) {
    let (g, h) = (generated.validate(), hand.validate());
    assert_eq!(
        g.as_ref().err().map(|e| e.rule.clone()),
        h.as_ref().err().map(|e| e.rule.clone()),
        "{}: {case}: generated {g:?}, hand-written {h:?}",
        G::NAME
    );
}

#[test]
fn references_validate_like_the_generated_joints() {
    let [a, b] = handles::<2>();
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    for (case, min, max, ratio, same) in [
        ("valid", -1.0, 1.0, 2.0, false),
        ("open ends", -inf, inf, 1.0, false),
        ("NaN min", nan, 1.0, 1.0, false),
        ("NaN max", 0.0, nan, 1.0, false),
        ("infinite ratio", 0.0, 1.0, inf, false),
        ("min above max", 1.0, 0.0, 1.0, false),
        ("infinite equality", inf, inf, 1.0, false),
        ("one body", 0.0, 1.0, 1.0, true),
    ] {
        let b = if same { a } else { b };
        let generated = AngleJoint {
            ratio,
            ..AngleJoint::new(a, b, min, max)
        };
        let hand = HandAngle {
            body1: a,
            body2: b,
            joint_min: min,
            joint_max: max,
            ratio,
        };
        same_verdict(case, &generated, &hand);
        let generated = MotorJoint {
            ratio,
            ..MotorJoint::new(a, b, min)
        };
        let hand = HandMotor {
            body1: a,
            body2: b,
            rate: min,
            ratio,
        };
        same_verdict(case, &generated, &hand);
    }
    let ok = Vec2::new(0.5, 0.25);
    for (case, min, max, anchor, direction, same) in [
        ("valid", 0.5, 2.0, ok, Vec2::X, false),
        ("rope", 0.0, inf, ok, Vec2::X, false),
        ("negative min", -0.5, 2.0, ok, Vec2::X, false),
        ("NaN max", 0.0, nan, ok, Vec2::X, false),
        ("min above max", 2.0, 1.0, ok, Vec2::X, false),
        (
            "infinite anchor",
            0.0,
            1.0,
            Vec2::new(inf, 0.0),
            Vec2::X,
            false,
        ),
        ("NaN anchor", 0.0, 1.0, Vec2::new(0.0, nan), Vec2::X, false),
        ("zero direction", 0.0, 1.0, ok, Vec2::ZERO, false),
        ("NaN direction", 0.0, 1.0, ok, Vec2::new(nan, 1.0), false),
        ("one body", 0.0, 1.0, ok, Vec2::X, true),
    ] {
        let b = if same { a } else { b };
        same_verdict(
            case,
            &DistanceJoint::new(a, b, anchor, ok, min, max),
            &HandDistance {
                body1: a,
                body2: b,
                anchor1: anchor,
                anchor2: ok,
                joint_min: min,
                joint_max: max,
            },
        );
        same_verdict(
            case,
            &LineJoint::new(a, b, ok, anchor, direction, min, max),
            &HandLine {
                body1: a,
                body2: b,
                anchor1: ok,
                anchor2: anchor,
                direction,
                joint_min: min,
                joint_max: max,
            },
        );
        let bodies = if same { [a, b, b, a] } else { [a, b, a, b] };
        let (mut generated, mut hand) = pulley_pair(&mut Rng::new(1), bodies);
        (generated.joint_min, generated.joint_max) = (min, max);
        (hand.joint_min, hand.joint_max) = (min, max);
        (generated.anchor4, hand.anchor4) = (anchor, anchor);
        same_verdict(case, &generated, &hand);
    }
    // A pulley's second segment on one body; an infinite ratio.
    let (generated, hand) = pulley_pair(&mut Rng::new(2), [a, b, b, b]);
    same_verdict("body3 == body4", &generated, &hand);
    let (mut generated, mut hand) = pulley_pair(&mut Rng::new(3), [a, b, a, b]);
    (generated.ratio, hand.ratio) = (inf, inf);
    same_verdict("infinite ratio", &generated, &hand);
}

/// Sums a constraint's last impulse, to show that it acted.
type ImpulseReader = Box<dyn Fn(&Space) -> f32>;

fn reader<T: Constraint<D, B>, const D: usize, const B: usize>(
    h: ConstraintHandle<T>,
) -> ImpulseReader {
    Box::new(move |space| {
        space
            .impulse(h)
            .expect("live")
            .iter()
            .map(|j| j.abs())
            .sum()
    })
}

/// Adds `reference` to the hand-written run, `generated` to the other, with `settings`.
fn add_either<H, G, const D: usize, const B: usize>(
    space: &mut Space,
    hand: bool,
    reference: H,
    generated: G,
    settings: ConstraintSettings,
) -> ImpulseReader
where
    H: Constraint<D, B>,
    G: Constraint<D, B>,
{
    if hand {
        reader(space.add_constraint_with(reference, settings).unwrap())
    } else {
        reader(space.add_constraint_with(generated, settings).unwrap())
    }
}

/// Steps `scene` built with the generated joints and with the references for 600 steps
/// at 60 Hz under gravity: every body's position and angle stay within 1e-4 of each
/// other, and the joints under test act (a nonzero impulse in some step).
fn differential(name: &str, scene: impl Fn(&mut Space, bool) -> Vec<ImpulseReader>) {
    let run = |hand: bool| {
        let mut space = Space::new();
        space.gravity = Vec2::new(0.0, -10.0);
        let readers = scene(&mut space, hand);
        let mut acted = vec![false; readers.len()];
        let mut trajectory = Vec::new();
        for _ in 0..600 {
            space.step(1.0 / 60.0);
            for (acted, read) in acted.iter_mut().zip(&readers) {
                *acted |= read(&space) > 1e-4;
            }
            trajectory.push(
                space
                    .bodies()
                    .map(|(_, b)| (b.position().as_vec2(), b.angle() as f32))
                    .collect::<Vec<_>>(),
            );
        }
        (trajectory, acted)
    };
    let (generated, generated_acted) = run(false);
    let (hand, hand_acted) = run(true);
    assert!(
        generated_acted.iter().chain(&hand_acted).all(|&a| a),
        "{name}: a joint never acted (generated {generated_acted:?}, hand {hand_acted:?})"
    );
    let mut worst = 0.0f32;
    for (step, (g, h)) in generated.iter().zip(&hand).enumerate() {
        for (body, (g, h)) in g.iter().zip(h).enumerate() {
            let e = (g.0 - h.0).abs().max_element().max((g.1 - h.1).abs());
            assert!(
                e <= 1e-4,
                "{name}: body {body} at step {step}: generated {g:?}, hand-written {h:?}"
            );
            worst = worst.max(e);
        }
    }
    println!("{name}: largest difference over 600 steps {worst:.1e}");
}

fn pin(space: &mut Space, ground: BodyHandle, body: BodyHandle, at: Vec2, local: Vec2) {
    space
        .add_constraint(PivotJoint::new(ground, body, at, local))
        .unwrap();
}

#[test]
fn angle_joint_scene_matches_the_reference() {
    differential("AngleJoint", |space, hand| {
        let ground = space.add_body(Body::static_body()).unwrap();
        // A pendulum released horizontally whose swing an angle limit stops.
        let bob = space
            .add_body(Body::rectangle(1.0, 0.2, 1.0).at(Vec2::new(0.5, 0.0)))
            .unwrap();
        pin(space, ground, bob, Vec2::ZERO, Vec2::new(-0.5, 0.0));
        // Two wheels geared 2:1, one pinned off its centre so gravity drives both.
        let wheel1 = space
            .add_body(Body::circle(0.4, 1.0).at(Vec2::new(3.0, 0.0)))
            .unwrap();
        let wheel2 = space
            .add_body(Body::circle(0.3, 1.0).at(Vec2::new(5.0, 0.0)))
            .unwrap();
        pin(space, ground, wheel1, Vec2::new(3.0, 0.0), Vec2::ZERO);
        pin(
            space,
            ground,
            wheel2,
            Vec2::new(5.2, 0.0),
            Vec2::new(0.2, 0.0),
        );
        let (limit, gear) = (
            (ground, bob, -0.6, 0.3, 1.0),
            (wheel1, wheel2, 0.0, 0.0, 2.0),
        );
        [limit, gear]
            .into_iter()
            .map(|(b1, b2, min, max, ratio)| {
                let reference = HandAngle {
                    body1: b1,
                    body2: b2,
                    joint_min: min,
                    joint_max: max,
                    ratio,
                };
                let generated = AngleJoint {
                    ratio,
                    ..AngleJoint::new(b1, b2, min, max)
                };
                add_either(
                    space,
                    hand,
                    reference,
                    generated,
                    ConstraintSettings::default(),
                )
            })
            .collect()
    });
}

#[test]
fn motor_joint_scene_matches_the_reference() {
    differential("MotorJoint", |space, hand| {
        let ground = space.add_body(Body::static_body()).unwrap();
        // A wheel driven against the ground, and an unbalanced wheel driven 2:1 from it
        // by a motor too weak to hold it against gravity.
        let wheel1 = space.add_body(Body::circle(0.4, 1.0)).unwrap();
        let wheel2 = space
            .add_body(Body::circle(0.3, 1.0).at(Vec2::new(2.0, 0.0)))
            .unwrap();
        pin(space, ground, wheel1, Vec2::ZERO, Vec2::ZERO);
        pin(
            space,
            ground,
            wheel2,
            Vec2::new(2.2, 0.0),
            Vec2::new(0.2, 0.0),
        );
        let weak = ConstraintSettings {
            max_force: 2.0,
            ..ConstraintSettings::default()
        };
        let motors = [
            (ground, wheel1, 3.0, 1.0, ConstraintSettings::default()),
            (wheel1, wheel2, -1.0, 2.0, weak),
        ];
        motors
            .into_iter()
            .map(|(b1, b2, rate, ratio, settings)| {
                let reference = HandMotor {
                    body1: b1,
                    body2: b2,
                    rate,
                    ratio,
                };
                let generated = MotorJoint {
                    ratio,
                    ..MotorJoint::new(b1, b2, rate)
                };
                add_either(space, hand, reference, generated, settings)
            })
            .collect()
    });
}

#[test]
fn distance_joint_scene_matches_the_reference() {
    differential("DistanceJoint", |space, hand| {
        let ground = space.add_body(Body::static_body()).unwrap();
        // A box on a rope (9 cm slack at first, then swinging taut), and a rod between two
        // dynamic bodies.
        let bob = space
            .add_body(Body::rectangle(0.4, 0.2, 1.0).at(Vec2::new(1.0, -0.7)))
            .unwrap();
        let left = space
            .add_body(Body::circle(0.2, 1.0).at(Vec2::new(3.0, 0.0)))
            .unwrap();
        let right = space
            .add_body(Body::circle(0.2, 1.0).at(Vec2::new(4.0, -0.5)))
            .unwrap();
        pin(space, ground, left, Vec2::new(3.0, 0.0), Vec2::ZERO);
        let joints = [
            (ground, bob, Vec2::ZERO, Vec2::new(-0.1, 0.05), 0.0, 1.2),
            (left, right, Vec2::new(0.1, 0.0), Vec2::ZERO, 1.0, 1.0),
        ];
        joints
            .into_iter()
            .map(|(b1, b2, a1, a2, min, max)| {
                let reference = HandDistance {
                    body1: b1,
                    body2: b2,
                    anchor1: a1,
                    anchor2: a2,
                    joint_min: min,
                    joint_max: max,
                };
                let generated = DistanceJoint::new(b1, b2, a1, a2, min, max);
                add_either(
                    space,
                    hand,
                    reference,
                    generated,
                    ConstraintSettings::default(),
                )
            })
            .collect()
    });
}

#[test]
fn line_joint_scene_matches_the_reference() {
    differential("LineJoint", |space, hand| {
        let ground = space.add_body(Body::static_body()).unwrap();
        // A block sliding down a tilted rail until the rail's end stops it (swinging
        // about its anchor between two stops); and a bead on
        // a rail carried by a pinned bar, which the bead's weight tilts
        // (between two stops).
        let block = space
            .add_body(Body::rectangle(0.4, 0.2, 1.0).at(Vec2::new(0.2, -0.1)))
            .unwrap();
        space
            .add_constraint(AngleJoint::new(ground, block, -0.3, 0.3))
            .unwrap();
        let bar = space
            .add_body(Body::rectangle(2.0, 0.1, 1.0).at(Vec2::new(3.0, 0.0)))
            .unwrap();
        pin(space, ground, bar, Vec2::new(3.0, 0.0), Vec2::ZERO);
        space
            .add_constraint(AngleJoint::new(ground, bar, -0.4, 0.4))
            .unwrap();
        let bead = space
            .add_body(Body::circle(0.1, 1.0).at(Vec2::new(3.5, 0.1)))
            .unwrap();
        let joints = [
            (
                ground,
                block,
                Vec2::ZERO,
                Vec2::new(0.1, 0.05),
                Vec2::new(2.0, -1.0),
                -0.5,
                1.5,
            ),
            (
                bar,
                bead,
                Vec2::new(0.0, 0.1),
                Vec2::ZERO,
                Vec2::X,
                -0.8,
                0.8,
            ),
        ];
        joints
            .into_iter()
            .map(|(b1, b2, a1, a2, dir, min, max)| {
                let reference = HandLine {
                    body1: b1,
                    body2: b2,
                    anchor1: a1,
                    anchor2: a2,
                    direction: dir,
                    joint_min: min,
                    joint_max: max,
                };
                let generated = LineJoint::new(b1, b2, a1, a2, dir, min, max);
                add_either(
                    space,
                    hand,
                    reference,
                    generated,
                    ConstraintSettings::default(),
                )
            })
            .collect()
    });
}

/// Adds a generated pulley or its reference with these slots, anchors, bounds and ratio.
fn add_pulley(
    space: &mut Space,
    hand: bool,
    bodies: [BodyHandle; 4],
    anchors: [Vec2; 4],
    length: f32,
    ratio: f32,
) -> ImpulseReader {
    add_pulley_range(space, hand, bodies, anchors, length, length, ratio)
}

/// [`add_pulley`] with the total length in `min..=max`.
fn add_pulley_range(
    space: &mut Space,
    hand: bool,
    bodies: [BodyHandle; 4],
    anchors: [Vec2; 4],
    min: f32,
    max: f32,
    ratio: f32,
) -> ImpulseReader {
    let [body1, body2, body3, body4] = bodies;
    let [anchor1, anchor2, anchor3, anchor4] = anchors;
    let generated = PulleyJoint {
        body1,
        body2,
        body3,
        body4,
        anchor1,
        anchor2,
        anchor3,
        anchor4,
        joint_min: min,
        joint_max: max,
        ratio,
    };
    let reference = HandPulley::from(generated);
    add_either(
        space,
        hand,
        reference,
        generated,
        ConstraintSettings::default(),
    )
}

/// The pulley's current total length, to start it satisfied.
fn pulley_length(space: &Space, bodies: [BodyHandle; 4], anchors: [Vec2; 4], ratio: f32) -> f32 {
    let p = |i: usize| {
        space
            .body(bodies[i])
            .unwrap()
            .world_point(anchors[i])
            .as_vec2()
    };
    (p(1) - p(0)).length() + ratio * (p(3) - p(2)).length()
}

/// Keeps `body` on a vertical rail through `(x, 0)`, between heights `min` and `max`, its
/// rotation locked (generated joints, the same in both runs).
fn rail(space: &mut Space, ground: BodyHandle, body: BodyHandle, x: f32, min: f32, max: f32) {
    let slider = LineJoint::new(
        ground,
        body,
        Vec2::new(x, 0.0),
        Vec2::ZERO,
        Vec2::Y,
        min,
        max,
    );
    space.add_constraint(slider).unwrap();
    let upright = space.body(body).unwrap().angle() as f32;
    space
        .add_constraint(AngleJoint::new(ground, body, upright, upright))
        .unwrap();
}

#[test]
fn pulley_with_four_bodies_matches_the_reference() {
    differential("PulleyJoint, 4 bodies", |space, hand| {
        // Two hooks and two weights on rails: the heavier sinks until the lighter one
        // reaches its rail's top; the rope pulls off-centre, so the lever terms matter.
        let ground = space.add_body(Body::static_body()).unwrap();
        let hook1 = space
            .add_body(Body::static_body().at(Vec2::new(-1.0, 3.0)))
            .unwrap();
        let hook2 = space
            .add_body(Body::static_body().at(Vec2::new(1.0, 3.0)))
            .unwrap();
        let light = space
            .add_body(Body::rectangle(0.3, 0.3, 1.0).at(Vec2::new(-1.0, 0.0)))
            .unwrap();
        let heavy = space
            .add_body(Body::rectangle(0.3, 0.3, 4.0).at(Vec2::new(1.0, 1.0)))
            .unwrap();
        rail(space, ground, light, -1.0, -1.0, 1.5);
        rail(space, ground, heavy, 1.0, -1.0, 1.5);
        let bodies = [hook1, light, hook2, heavy];
        let anchors = [
            Vec2::ZERO,
            Vec2::new(0.1, 0.15),
            Vec2::ZERO,
            Vec2::new(-0.05, 0.15),
        ];
        let length = pulley_length(space, bodies, anchors, 1.5);
        vec![add_pulley(space, hand, bodies, anchors, length, 1.5)]
    });
}

#[test]
fn pulley_with_three_bodies_matches_the_reference() {
    differential("PulleyJoint, 3 bodies", |space, hand| {
        // Both segments end on one pinned wheel (slots 2 and 3) that may turn a little;
        // the weights hang on rails below it.
        let ground = space.add_body(Body::static_body()).unwrap();
        let wheel = space
            .add_body(Body::circle(0.5, 1.0).at(Vec2::new(0.0, 2.0)))
            .unwrap();
        pin(space, ground, wheel, Vec2::new(0.0, 2.0), Vec2::ZERO);
        space
            .add_constraint(AngleJoint::new(ground, wheel, -0.2, 0.2))
            .unwrap();
        let left = space
            .add_body(Body::circle(0.2, 1.0).at(Vec2::new(-0.5, 0.5)))
            .unwrap();
        let right = space
            .add_body(Body::circle(0.2, 2.0).at(Vec2::new(0.5, 0.0)))
            .unwrap();
        rail(space, ground, left, -0.5, -1.0, 1.2);
        rail(space, ground, right, 0.5, -1.0, 1.2);
        let bodies = [left, wheel, wheel, right];
        let anchors = [
            Vec2::new(0.0, 0.1),
            Vec2::new(-0.5, 0.0),
            Vec2::new(0.5, 0.0),
            Vec2::new(0.05, 0.1),
        ];
        let length = pulley_length(space, bodies, anchors, 1.0);
        vec![add_pulley(space, hand, bodies, anchors, length, 1.0)]
    });
}

#[test]
fn pulley_with_two_bodies_matches_the_reference() {
    differential("PulleyJoint, 2 bodies", |space, hand| {
        // Two bodies joined by both segments, in both pairings: slots (1, 3) and (2, 4) on
        // one pair, slots (1, 4) and (2, 3) on the other. The upper body is pinned and may
        // turn a little; the lower one hangs on a rail.
        let ground = space.add_body(Body::static_body()).unwrap();
        let mut readers = Vec::new();
        for (x, crossed) in [(0.0, false), (3.0, true)] {
            let upper = space
                .add_body(Body::rectangle(1.0, 0.2, 1.0).at(Vec2::new(x, 2.0)))
                .unwrap();
            pin(space, ground, upper, Vec2::new(x, 2.0), Vec2::ZERO);
            space
                .add_constraint(AngleJoint::new(ground, upper, -0.3, 0.1))
                .unwrap();
            let lower = space
                .add_body(Body::rectangle(0.6, 0.2, 1.0).at(Vec2::new(x + 0.1, 0.5)))
                .unwrap();
            rail(space, ground, lower, x + 0.1, -2.0, 1.0);
            let (bodies, anchors) = if crossed {
                (
                    [upper, lower, lower, upper],
                    [
                        Vec2::new(-0.4, 0.0),
                        Vec2::new(-0.3, 0.0),
                        Vec2::new(0.3, 0.0),
                        Vec2::new(0.4, 0.0),
                    ],
                )
            } else {
                (
                    [upper, lower, upper, lower],
                    [
                        Vec2::new(-0.4, 0.0),
                        Vec2::new(-0.3, 0.0),
                        Vec2::new(0.4, 0.0),
                        Vec2::new(0.3, 0.0),
                    ],
                )
            };
            // Slack at first: the lower body drops until the rope catches it.
            let length = pulley_length(space, bodies, anchors, 0.5) + 0.2;
            readers.push(add_pulley_range(
                space, hand, bodies, anchors, 0.0, length, 0.5,
            ));
        }
        readers
    });
}
