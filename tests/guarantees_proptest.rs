//! Property tests of the guarantees (docs/guarantees.md): random spaces (dynamic, static and
//! kinematic bodies; random joints of all seven types with random valid parameters; random
//! removals, re-activations and parameter changes between steps of varying `dt`) stay
//! finite, keep every handle valid or reported removed, and keep their joint errors
//! bounded; random invalid calls mixed in are each answered with a typed error and change
//! nothing. `PROPTEST_CASES` sets the number of cases (64 by default); `NAPE_PRINT_WORST=1`
//! prints each case's worst joint error.

use nape::{
    AngleJoint, Body, BodyHandle, Constraint, ConstraintHandle, ConstraintSettings, DistanceJoint,
    Error, LineJoint, MotorJoint, PivotJoint, Pose, PulleyJoint, Space, Vec2, WeldJoint,
};
use proptest::prelude::*;

#[derive(Clone, Copy, Debug)]
enum Joint {
    Angle(ConstraintHandle<AngleJoint>),
    Distance(ConstraintHandle<DistanceJoint>),
    Line(ConstraintHandle<LineJoint>),
    Motor(ConstraintHandle<MotorJoint>),
    Pivot(ConstraintHandle<PivotJoint>),
    Pulley(ConstraintHandle<PulleyJoint>),
    Weld(ConstraintHandle<WeldJoint>),
}

/// Runs `$body` with `$h` bound to the typed handle inside `$joint`.
macro_rules! with_handle {
    ($joint:expr, $h:ident => $body:expr) => {
        match $joint {
            Joint::Angle($h) => $body,
            Joint::Distance($h) => $body,
            Joint::Line($h) => $body,
            Joint::Motor($h) => $body,
            Joint::Pivot($h) => $body,
            Joint::Pulley($h) => $body,
            Joint::Weld($h) => $body,
        }
    };
}

#[derive(Clone, Debug)]
enum Op {
    AddBody {
        kind: u8,
        at: (f32, f32),
        mass: f32,
    },
    AddJoint {
        kind: u8,
        picks: [usize; 4],
        a: f32,
        b: f32,
        soft: bool,
    },
    RemoveBody(usize),
    RemoveJoint(usize),
    ToggleActive(usize),
    ChangeParameter(usize, f32),
    Step(f32),
    Invalid(u8, usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..3, (-3.0f32..3.0, -3.0f32..3.0), 0.1f32..10.0)
            .prop_map(|(kind, at, mass)| Op::AddBody { kind, at, mass }),
        4 => (0u8..7, any::<[usize; 4]>(), -1.0f32..1.0, 0.0f32..2.0, any::<bool>())
            .prop_map(|(kind, picks, a, b, soft)| Op::AddJoint { kind, picks, a, b, soft }),
        1 => any::<usize>().prop_map(Op::RemoveBody),
        1 => any::<usize>().prop_map(Op::RemoveJoint),
        1 => any::<usize>().prop_map(Op::ToggleActive),
        1 => (any::<usize>(), -1.0f32..1.0).prop_map(|(i, x)| Op::ChangeParameter(i, x)),
        // Varying within a factor of 50. Jumps across the whole accepted range (1 µs to
        // 1 s) stay finite (`tests/guarantees.rs`), but a soft joint warm-started from a
        // step thousands of times shorter can gain energy: not a bound this test checks.
        4 => (1e-3f32..0.05).prop_map(Op::Step),
        2 => (0u8..8, any::<usize>()).prop_map(|(k, i)| Op::Invalid(k, i)),
    ]
}

struct World {
    space: Space,
    bodies: Vec<BodyHandle>,
    joints: Vec<Joint>,
    worst: f32,
}

impl World {
    /// A space under gravity (0, −10) after `ops` and one more step of 1/60 s, checked.
    fn replay(ops: &[Op]) -> Self {
        let mut world = World {
            space: Space::new(),
            bodies: Vec::new(),
            joints: Vec::new(),
            worst: 0.0,
        };
        world.space.gravity = Vec2::new(0.0, -10.0);
        for op in ops {
            world.apply(op);
        }
        world.space.try_step(1.0 / 60.0).unwrap();
        world.check();
        world
    }

    fn pick(&self, i: usize) -> BodyHandle {
        self.bodies[i % self.bodies.len()]
    }

    fn add_joint(&mut self, kind: u8, picks: [usize; 4], a: f32, b: f32, soft: bool) {
        let [p, q, r, s] = picks.map(|i| self.pick(i));
        let anchor = Vec2::new(a, b - 1.0);
        let settings = if soft {
            ConstraintSettings::soft(2.0 + 4.0 * b, 0.5)
        } else {
            ConstraintSettings::default()
        };
        let space = &mut self.space;
        let added = match kind {
            0 => space
                .add_constraint_with(AngleJoint::new(p, q, -b, b), settings)
                .map(Joint::Angle),
            1 => space
                .add_constraint_with(
                    DistanceJoint::new(p, q, anchor, Vec2::ZERO, b * 0.5, b + 0.5),
                    settings,
                )
                .map(Joint::Distance),
            2 => space
                .add_constraint_with(
                    LineJoint::new(p, q, anchor, Vec2::ZERO, Vec2::new(1.0, a), -b, b),
                    settings,
                )
                .map(Joint::Line),
            3 => space
                .add_constraint_with(
                    MotorJoint::new(p, q, 3.0 * a),
                    ConstraintSettings {
                        max_force: 10.0,
                        ..settings
                    },
                )
                .map(Joint::Motor),
            4 => space
                .add_constraint_with(PivotJoint::new(p, q, anchor, Vec2::ZERO), settings)
                .map(Joint::Pivot),
            5 => space
                .add_constraint_with(
                    PulleyJoint {
                        body1: p,
                        body2: q,
                        body3: r,
                        body4: s,
                        anchor1: anchor,
                        anchor2: Vec2::ZERO,
                        anchor3: -anchor,
                        anchor4: Vec2::ZERO,
                        joint_min: 0.0,
                        joint_max: 2.0 + 2.0 * b,
                        ratio: 1.0 + a * 0.5,
                    },
                    settings,
                )
                .map(Joint::Pulley),
            _ => space
                .add_constraint_with(WeldJoint::new(p, q, anchor, Vec2::ZERO, a), settings)
                .map(Joint::Weld),
        };
        match added {
            Ok(j) => self.joints.push(j),
            // Random picks may repeat a body, or join two non-dynamic ones: refused.
            Err(
                Error::InvalidParameter(_) | Error::NoDynamicBody | Error::DegenerateConstraint(_),
            ) => {}
            Err(e) => panic!("unexpected error adding a joint: {e}"),
        }
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::AddBody { kind, at, mass } => {
                let body = match kind {
                    0 => Body::static_body(),
                    // Turning in place: a kinematic body that travelled would drag
                    // conflicting joints apart without bound.
                    1 => Body::kinematic().with_angular_velocity(0.3 * at.1),
                    _ => Body::dynamic(mass, mass * 0.1),
                };
                let h = self.space.add_body(body.at(Vec2::new(at.0, at.1))).unwrap();
                self.bodies.push(h);
            }
            Op::AddJoint {
                kind,
                picks,
                a,
                b,
                soft,
            } if !self.bodies.is_empty() => {
                self.add_joint(kind, picks, a, b, soft);
            }
            Op::RemoveBody(i) if !self.bodies.is_empty() => {
                let h = self.bodies.swap_remove(i % self.bodies.len());
                let attached: Vec<_> = self.space.constraints_of(h).unwrap().collect();
                self.space.remove_body(h).unwrap();
                self.joints
                    .retain(|j| !attached.contains(&with_handle!(*j, h => h.id())));
                for id in attached {
                    assert!(
                        self.space.constraint_bodies(id).is_err(),
                        "reported removed"
                    );
                }
            }
            Op::RemoveJoint(i) if !self.joints.is_empty() => {
                let j = self.joints.swap_remove(i % self.joints.len());
                with_handle!(j, h => self.space.remove_constraint(h).map(|_| ())).unwrap();
            }
            Op::ToggleActive(i) if !self.joints.is_empty() => {
                let j = self.joints[i % self.joints.len()];
                with_handle!(j, h => {
                    let mut s = self.space.settings(h).unwrap();
                    s.active = !s.active;
                    self.space.set_settings(h, s).unwrap();
                });
            }
            Op::ChangeParameter(i, x) if !self.joints.is_empty() => {
                let j = self.joints[i % self.joints.len()];
                let space = &mut self.space;
                match j {
                    Joint::Angle(h) => {
                        space.update_constraint(h, |c| c.joint_max = c.joint_min + x.abs())
                    }
                    Joint::Distance(h) => space.update_constraint(h, |c| c.anchor1.x = x),
                    Joint::Line(h) => space.update_constraint(h, |c| c.direction.y = x),
                    Joint::Motor(h) => space.update_constraint(h, |c| c.rate = 5.0 * x),
                    Joint::Pivot(h) => space.update_constraint(h, |c| c.anchor1.y = x),
                    Joint::Pulley(h) => space.update_constraint(h, |c| c.ratio = 1.0 + 0.5 * x),
                    Joint::Weld(h) => space.update_constraint(h, |c| c.phase = x),
                }
                .unwrap();
            }
            Op::Step(dt) => {
                self.space.try_step(dt).unwrap();
                self.check();
            }
            Op::Invalid(kind, i) => self.invalid(kind, i),
            _ => {}
        }
    }

    /// One invalid call: a typed error, and the space unchanged.
    fn invalid(&mut self, kind: u8, i: usize) {
        let before = self.space.state_hash();
        let counts = (self.space.body_count(), self.space.constraint_count());
        let body = (!self.bodies.is_empty()).then(|| self.pick(i));
        let space = &mut self.space;
        let result = match (kind, body) {
            (0, _) => space.try_step([0.0, f32::NAN, 1e-45, 2.0][i % 4]),
            (1, _) => space.add_body(Body::dynamic(1e-45, 1.0)).map(|_| ()),
            (2, Some(b)) => space
                .body_mut(b)
                .and_then(|mut b| b.set_velocity(Vec2::NAN)),
            (3, Some(b)) => space
                .body_mut(b)
                .and_then(|mut b| b.set_angle(f64::INFINITY)),
            (4, Some(b)) => space.apply_force(b, Vec2::new(0.0, f32::INFINITY)),
            (5, Some(b)) => space.apply_torque(b, f32::NAN),
            (6, Some(b)) => space
                .add_constraint(PivotJoint::new(b, b, Vec2::X, Vec2::ZERO))
                .map(|_| ()),
            (7, Some(b)) => space
                .body_mut(b)
                .and_then(|mut b| b.set_mass_properties(1.0, 0.0)),
            _ => return,
        };
        assert!(result.is_err(), "invalid call {kind} accepted");
        assert_eq!(
            self.space.state_hash(),
            before,
            "invalid call {kind} changed the space"
        );
        assert_eq!(
            (self.space.body_count(), self.space.constraint_count()),
            counts
        );
    }

    fn check(&mut self) {
        assert_eq!(self.space.body_count(), self.bodies.len());
        assert_eq!(self.space.constraint_count(), self.joints.len());
        for &h in &self.bodies {
            let b = self.space.body(h).unwrap();
            assert!(b.position().is_finite() && b.angle().is_finite(), "{b:?}");
            assert!(
                b.velocity().is_finite() && b.angular_velocity().is_finite(),
                "{b:?}"
            );
        }
        for &j in &self.joints {
            let violation = with_handle!(j, h => violation(&self.space, h));
            assert!(violation.is_finite(), "{j:?}");
            self.worst = self.worst.max(violation);
        }
    }
}

/// How far an active position joint is outside its bounds (0 for motors and inactive
/// joints).
fn violation<T: Constraint<D, B>, const D: usize, const B: usize>(
    space: &Space,
    h: ConstraintHandle<T>,
) -> f32 {
    if T::VELOCITY_ONLY || !space.settings(h).unwrap().active {
        return 0.0;
    }
    let joint = space.constraint(h).unwrap();
    let poses: [Pose; B] = space.constraint_poses(h).unwrap();
    let c = joint.position_error(&poses);
    let bounds = joint.bounds();
    (0..D)
        .map(|i| (bounds[i].min - c[i]).max(c[i] - bounds[i].max).max(0.0))
        .fold(0.0, f32::max)
}

/// The bound on every joint error of a random space (m or rad).
const MAX_JOINT_ERROR: f32 = 1000.0;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x6e61_7065),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_spaces_stay_finite_valid_and_bounded(ops in prop::collection::vec(op(), 1..120)) {
        let world = World::replay(&ops);
        // Every joint error is finite (checked after every step) and bounded: random joints
        // contradict each other (welds holding one body at two angles, limits a static body
        // can never meet), so errors need not vanish, but a position projection that would
        // make an island's error worse is redone as damped (Levenberg–Marquardt) steps that
        // each lower it, and speeds are limited. Bodies start within 3 m of the origin and a
        // run lasts at most a few seconds; docs/guarantees.md gives the worst error of a long
        // search (`PROPTEST_CASES`, release, `NAPE_PRINT_WORST=1`). The cases the search has
        // found beyond the bound are pinned as tests below.
        if std::env::var("NAPE_PRINT_WORST").is_ok() {
            eprintln!("worst joint error {}", world.worst);
        }
        prop_assert!(world.worst.is_finite());
        prop_assert!(world.worst <= MAX_JOINT_ERROR, "joint error {}", world.worst);
    }
}

/// A case the test above found: a line joint's limit out of the active set (its impulse
/// pulls), in a nearly singular island (a soft pulley, a weld to a kinematic body). Unless
/// the projection's guard measures every limit of the island, a projection that pushes a
/// body 2.7e8 m along the line passes as an improvement. The joints contradict each other,
/// so errors remain, but bounded.
#[test]
fn a_limit_outside_the_active_set_is_guarded() {
    let ops = vec![
        Op::AddBody {
            kind: 2,
            at: (0.0, 0.0),
            mass: 7.5861144,
        },
        Op::AddBody {
            kind: 2,
            at: (2.9905555, -1.2706059),
            mass: 2.3538723,
        },
        Op::AddBody {
            kind: 1,
            at: (2.2528145, -0.9767654),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 1,
            at: (0.883618, 2.39791),
            mass: 0.1,
        },
        Op::Step(0.011190869),
        Op::Step(0.047947884),
        Op::AddJoint {
            kind: 2,
            picks: [1758265138654078932, 3809635414781821751, 0, 0],
            a: 0.34885186,
            b: 0.22051717,
            soft: true,
        },
        Op::AddJoint {
            kind: 2,
            picks: [6389381422971199856, 3882660904714580384, 0, 0],
            a: 0.6833797,
            b: 0.8014749,
            soft: false,
        },
        Op::Step(0.011240587),
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::RemoveBody(14737781127261169910),
        Op::AddBody {
            kind: 0,
            at: (1.0388258, 1.7324555),
            mass: 0.1,
        },
        Op::AddJoint {
            kind: 6,
            picks: [14369406675706391782, 1731597435900611676, 0, 0],
            a: 0.84730303,
            b: 0.0,
            soft: false,
        },
        Op::RemoveBody(11707887642835380813),
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 2,
            at: (0.0, 0.0),
            mass: 6.0622573,
        },
        Op::ChangeParameter(10878037168320435002, 0.7753442),
        Op::Step(0.04513026),
        Op::ToggleActive(905042455668043813),
        Op::Step(0.029505407),
        Op::Step(0.027930472),
        Op::AddBody {
            kind: 1,
            at: (0.6482851, 1.5193902),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 2,
            at: (-1.249714, 0.05379528),
            mass: 3.7629867,
        },
        Op::ToggleActive(911554068019234711),
        Op::AddJoint {
            kind: 5,
            picks: [
                5556930397757379206,
                9265117796707130256,
                15363878331024479752,
                8445837453197331970,
            ],
            a: -0.36901408,
            b: 0.35001698,
            soft: true,
        },
        Op::ChangeParameter(5129911617955656158, -0.28944802),
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 2,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::Step(0.03706765),
        Op::Step(0.03194612),
        Op::AddJoint {
            kind: 0,
            picks: [1896339210252813414, 12503170421624635044, 0, 0],
            a: 0.0,
            b: 0.07384965,
            soft: false,
        },
        Op::AddJoint {
            kind: 3,
            picks: [482258748388433150, 4502445055690045419, 0, 0],
            a: 0.0,
            b: 0.0,
            soft: false,
        },
        Op::AddJoint {
            kind: 3,
            picks: [7410699026293166517, 10187975211869819656, 0, 0],
            a: 0.0,
            b: 0.0,
            soft: false,
        },
        Op::AddJoint {
            kind: 0,
            picks: [1090755861089891944, 1097466996603376486, 0, 0],
            a: 0.0,
            b: 0.0,
            soft: false,
        },
        Op::AddJoint {
            kind: 0,
            picks: [4263747402918869138, 9524568208752420973, 0, 0],
            a: 0.0,
            b: 1.290668,
            soft: false,
        },
        Op::ChangeParameter(1705933978526589656, 0.65968126),
        Op::ToggleActive(9794094698227763868),
        Op::Step(0.0024580162),
        Op::Step(0.029470181),
        Op::Step(0.017930942),
        Op::Step(0.043504596),
    ];
    let world = World::replay(&ops);
    println!("worst joint error {}", world.worst);
    assert!(world.worst < 100.0, "joint error {}", world.worst);
}

/// A case the random search found: contradictory motors, an angle and a line joint give
/// one body a turning stiffness of 1.2e30 from the impulses of the step before; weighting
/// its inertia by 2e25 would let the projection's nearly singular system fling it 2e4 m.
/// The weights are capped (`MAX_TURN_WEIGHT`); beyond, the island takes more substeps.
#[test]
fn a_runaway_turning_stiffness_does_not_freeze_a_body() {
    let ops = vec![
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::RemoveBody(0),
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 2,
            at: (0.31485537, 0.61735),
            mass: 1.1767174,
        },
        Op::Step(0.025920581),
        Op::RemoveBody(5165820017259562866),
        Op::RemoveBody(2201967306688904001),
        Op::Step(0.014653757),
        Op::RemoveBody(4255284589154824189),
        Op::AddBody {
            kind: 2,
            at: (0.0, 0.0),
            mass: 8.906375,
        },
        Op::Step(0.03194271),
        Op::Step(0.039429218),
        Op::Step(0.044495292),
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 2,
            at: (0.0, 0.0),
            mass: 6.512882,
        },
        Op::AddJoint {
            kind: 3,
            picks: [9813991886548867852, 4291610486142686181, 0, 0],
            a: 0.34536448,
            b: 0.0,
            soft: false,
        },
        Op::Step(0.018238872),
        Op::AddJoint {
            kind: 3,
            picks: [1785865572497213570, 170185261616734427, 0, 0],
            a: 0.04803657,
            b: 0.0,
            soft: false,
        },
        Op::RemoveBody(4707720226882559027),
        Op::AddJoint {
            kind: 0,
            picks: [5178602364511225876, 5956547461093692435, 0, 0],
            a: 0.0,
            b: 1.3777323,
            soft: false,
        },
        Op::AddBody {
            kind: 0,
            at: (-1.9759257, -2.1342876),
            mass: 0.1,
        },
        Op::AddJoint {
            kind: 3,
            picks: [2639355172531102672, 4162432322797280938, 0, 0],
            a: 0.83353096,
            b: 0.0,
            soft: false,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddJoint {
            kind: 2,
            picks: [4448273186802337232, 6258202713049050142, 0, 0],
            a: 0.7641393,
            b: 0.15477046,
            soft: false,
        },
        Op::Step(0.035016768),
        Op::RemoveBody(4244782367241542029),
        Op::Step(0.028902277),
        Op::AddJoint {
            kind: 3,
            picks: [8833427116021613787, 1379162986562343784, 0, 0],
            a: 0.0,
            b: 0.0,
            soft: false,
        },
        Op::ChangeParameter(111817612935023309, 0.0),
    ];
    let world = World::replay(&ops);
    println!("worst joint error {}", world.worst);
    assert!(world.worst < 100.0, "joint error {}", world.worst);
}

/// A case the test above found: in a step of 1 ms, the projections of an island whose line
/// joint and soft weld hold one light body against each other can move that body 1,300 m
/// to remove errors of a metre (the weld, soft, is neither projected nor measured by the
/// guard), leaving 1,194 m of weld error. A projection moves no body farther than a few times the sum of the errors it removes in its island
/// (`PROJECTION_REACH`); the joints still contradict each other, so errors remain.
#[test]
fn a_projection_moves_no_body_beyond_its_reach() {
    let ops = vec![
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 0,
            at: (-2.6255653, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 2,
            at: (1.2105199, 2.2107828),
            mass: 7.976839,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.8909793),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::Step(0.021580886),
        Op::RemoveBody(4166406513667296617),
        Op::RemoveJoint(0),
        Op::RemoveJoint(0),
        Op::RemoveBody(1067206001253819497),
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddJoint {
            kind: 0,
            picks: [4818378374610102643, 711324080827155091, 0, 0],
            a: 0.0,
            b: 0.0,
            soft: false,
        },
        Op::RemoveBody(3084556466411632493),
        Op::RemoveJoint(0),
        Op::AddJoint {
            kind: 5,
            picks: [0, 0, 0, 0],
            a: 0.0,
            b: 0.0,
            soft: false,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::RemoveBody(794428850561607901),
        Op::RemoveBody(2257499480623126),
        Op::Step(0.049124073),
        Op::RemoveJoint(0),
        Op::AddJoint {
            kind: 5,
            picks: [0, 0, 0, 0],
            a: 0.0,
            b: 0.0,
            soft: false,
        },
        Op::RemoveBody(1120724083057357595),
        Op::Step(0.04431497),
        Op::AddJoint {
            kind: 1,
            picks: [5856298979765324103, 513158014612596967, 0, 0],
            a: 0.9387916,
            b: 0.9384746,
            soft: false,
        },
        Op::Step(0.001),
        Op::ChangeParameter(0, -0.12808105),
        Op::RemoveBody(2614859401704025150),
        Op::AddJoint {
            kind: 2,
            picks: [4902118783119670480, 632249847519952171, 0, 0],
            a: -0.83716786,
            b: 1.5434375,
            soft: false,
        },
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::Step(0.001),
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::Step(0.001),
        Op::Step(0.043188572),
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
        Op::AddBody {
            kind: 2,
            at: (0.0, 1.7174128),
            mass: 0.1,
        },
        Op::Step(0.001),
        Op::AddJoint {
            kind: 2,
            picks: [2055396986159202836, 4627494784064526611, 0, 0],
            a: 0.0,
            b: 0.0,
            soft: false,
        },
        Op::AddJoint {
            kind: 6,
            picks: [3721400521001304003, 8150362172379590671, 0, 0],
            a: 0.0,
            b: 0.0,
            soft: true,
        },
        Op::Step(0.001),
        Op::AddBody {
            kind: 0,
            at: (0.0, 0.0),
            mass: 0.1,
        },
    ];
    let world = World::replay(&ops);
    assert!(world.worst < 200.0, "joint error {}", world.worst);
}
