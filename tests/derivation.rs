//! Every generated constraint against the numbers: `J` against central finite differences
//! of its own `c`, `K` against `J M⁻¹ Jᵀ`, `K⁻¹K = I` and the impulse against `M⁻¹Jᵀλ`,
//! each on hundreds of random states; the builtins also against the seed's closed forms
//! (with the errata of DESIGN.md corrected).

#[path = "support/derivation_check.rs"]
mod derivation_check;

use derivation_check::{
    Rng, check_random, check_random_observed, check_state, handles, random_state,
};
use nape::inspect::effective_mass;
use nape::{BodyHandle, Constraint, InverseMass, PivotJoint, Pose, Vec2, WeldJoint, constraint};

const STATES: usize = 200;

/// A point of a body stays on a circle around a fixed world centre (one body, one row).
#[constraint(position = (body.world_point(anchor) - center).length() - radius)]
#[derive(Clone, Copy, Debug)]
struct PointOnCircle {
    body: BodyHandle,
    anchor: Vec2,
    center: Vec2,
    radius: f32,
}

/// Two anchors at a fixed distance (a rigid rod), written with `let` bindings.
#[constraint(position = {
    let p1 = body1.position + body1.rotate(anchor1);
    let p2 = body2.position + body2.rotate(anchor2);
    (p2 - p1).length() - length
})]
#[derive(Clone, Copy, Debug)]
struct FixedDistance {
    body1: BodyHandle,
    body2: BodyHandle,
    anchor1: Vec2,
    anchor2: Vec2,
    length: f32,
}

/// A fixed relative angle, through the rotation's cosine and sine (not the raw angles),
/// so the derivative rules of the cached rotation are exercised.
#[constraint(position = body1.rotate(Vec2::X).perp_dot(body2.rotate(Vec2::X)) - offset.sin())]
#[derive(Clone, Copy, Debug)]
struct RelativeAngle {
    body1: BodyHandle,
    body2: BodyHandle,
    offset: f32,
}

/// Three bodies: the anchor of `middle` stays at the midpoint of two other anchors, and
/// its angle at the mean of theirs (three rows).
#[constraint(position = (
    middle.world_point(anchor) - (left.world_point(left_anchor) + right.world_point(right_anchor)) * 0.5,
    middle.angle - (left.angle + right.angle) / 2.0,
))]
#[derive(Clone, Copy, Debug)]
struct Midpoint {
    left: BodyHandle,
    middle: BodyHandle,
    right: BodyHandle,
    anchor: Vec2,
    left_anchor: Vec2,
    right_anchor: Vec2,
}

/// A point of `body2` on a line through `body1` along a rotating direction (the
/// perpendicular row of a LineJoint), plus its squared distance along the line.
#[constraint(position = {
    let d = body2.world_point(anchor2) - body1.world_point(anchor1);
    let n = body1.rotate(direction).normalize();
    [n.perp_dot(d), n.dot(d).powi(2)]
})]
#[derive(Clone, Copy, Debug)]
struct OnLine {
    body1: BodyHandle,
    body2: BodyHandle,
    anchor1: Vec2,
    anchor2: Vec2,
    direction: Vec2,
}

#[test]
fn pivot_joint_jacobian_and_effective_mass() {
    check_random(1, STATES, |rng, [body1, body2]| PivotJoint {
        body1,
        body2,
        anchor1: rng.vec2(2.0),
        anchor2: rng.vec2(2.0),
    });
}

#[test]
fn weld_joint_jacobian_and_effective_mass() {
    check_random(2, STATES, |rng, [body1, body2]| WeldJoint {
        body1,
        body2,
        anchor1: rng.vec2(2.0),
        anchor2: rng.vec2(2.0),
        phase: rng.angle(),
    });
}

#[test]
fn point_on_circle() {
    check_random(3, STATES, |rng, [body]| PointOnCircle {
        body,
        anchor: rng.vec2(1.0),
        // Far from every sampled anchor, so the length is never near its singular zero.
        center: Vec2::new(20.0, rng.range(-5.0, 5.0)),
        radius: rng.range(0.5, 3.0),
    });
}

#[test]
fn fixed_distance() {
    check_random(4, STATES, |rng, [body1, body2]| FixedDistance {
        body1,
        body2,
        anchor1: rng.vec2(1.0),
        anchor2: rng.vec2(1.0),
        length: rng.range(0.5, 3.0),
    });
}

#[test]
fn relative_angle() {
    check_random(5, STATES, |rng, [body1, body2]| RelativeAngle {
        body1,
        body2,
        offset: rng.angle(),
    });
}

#[test]
fn midpoint_of_three_bodies() {
    check_random(6, STATES, |rng, [left, middle, right]| Midpoint {
        left,
        middle,
        right,
        anchor: rng.vec2(1.0),
        left_anchor: rng.vec2(1.0),
        right_anchor: rng.vec2(1.0),
    });
}

#[test]
fn point_on_a_rotating_line() {
    check_random(7, STATES, |rng, [body1, body2]| OnLine {
        body1,
        body2,
        anchor1: rng.vec2(1.0),
        anchor2: rng.vec2(1.0),
        direction: Vec2::from_angle(rng.angle()) * rng.range(0.5, 2.0),
    });
}

#[test]
fn shared_bodies_add_the_cross_terms() {
    // A pivot between two points of the same body and a midpoint whose outer slots are one
    // body: K must equal J M⁻¹ Jᵀ with the aliased columns merged.
    let mut rng = Rng::new(8);
    let [a, b] = handles::<2>();
    for index in 0..STATES {
        let pivot = PivotJoint {
            body1: a,
            body2: a,
            anchor1: rng.vec2(2.0),
            anchor2: rng.vec2(2.0),
        };
        let (poses, masses) = random_state::<2>(&mut rng, index + 1);
        let same = [poses[0]; 2];
        let same_mass = [masses[1]; 2];
        check_state(&pivot, &same, &same_mass, &[0, 0]);

        let midpoint = Midpoint {
            left: a,
            middle: b,
            right: a,
            anchor: rng.vec2(1.0),
            left_anchor: rng.vec2(1.0),
            right_anchor: rng.vec2(1.0),
        };
        let (poses, masses) = random_state::<3>(&mut rng, index + 1);
        let poses = [poses[0], poses[1], poses[0]];
        let masses = [masses[0], masses[1], masses[0]];
        check_state(&midpoint, &poses, &masses, &[0, 1, 0]);
    }
}

/// Seed 000 §3.1 with the erratum corrected (the off-diagonal divides by i₁ in its first
/// term), and §3.2's garbled matrix re-derived: the third row/column is
/// `(−r₁y/i₁ − r₂y/i₂, r₁x/i₁ + r₂x/i₂, 1/i₁ + 1/i₂)` (with `1/i` written as inverse inertia).
fn seed_weld_k(r1: Vec2, r2: Vec2, m: [InverseMass; 2]) -> [[f32; 3]; 3] {
    let (m1, m2, i1, i2) = (m[0].mass, m[1].mass, m[0].inertia, m[1].inertia);
    let k00 = m1 + m2 + r1.y * r1.y * i1 + r2.y * r2.y * i2;
    let k01 = -r1.x * r1.y * i1 - r2.x * r2.y * i2;
    let k11 = m1 + m2 + r1.x * r1.x * i1 + r2.x * r2.x * i2;
    let k02 = -r1.y * i1 - r2.y * i2;
    let k12 = r1.x * i1 + r2.x * i2;
    let k22 = i1 + i2;
    [[k00, k01, k02], [k01, k11, k12], [k02, k12, k22]]
}

#[test]
fn pivot_and_weld_match_the_seed_closed_forms() {
    let mut rng = Rng::new(9);
    let [a, b] = handles::<2>();
    for index in 0..STATES {
        let (poses, masses): ([Pose; 2], _) = random_state(&mut rng, index);
        let (anchor1, anchor2) = (rng.vec2(2.0), rng.vec2(2.0));
        let r1 = poses[0].rotate(anchor1);
        let r2 = poses[1].rotate(anchor2);
        let seed = seed_weld_k(r1, r2, masses);
        let pivot = PivotJoint {
            body1: a,
            body2: b,
            anchor1,
            anchor2,
        };
        let weld = WeldJoint {
            body1: a,
            body2: b,
            anchor1,
            anchor2,
            phase: rng.angle(),
        };
        let k_pivot = effective_mass(&pivot, &poses, &masses, &[0, 1]);
        let k_weld = effective_mass(&weld, &poses, &masses, &[0, 1]);
        for i in 0..3 {
            for j in 0..3 {
                let tolerance = 1e-4 * (1.0 + seed[i][j].abs());
                assert!(
                    (k_weld[i][j] - seed[i][j]).abs() <= tolerance,
                    "weld K[{i}][{j}]"
                );
                if i < 2 && j < 2 {
                    assert!(
                        (k_pivot[i][j] - seed[i][j]).abs() <= tolerance,
                        "pivot K[{i}][{j}]"
                    );
                }
            }
        }
        // The seed's Jacobian: J = [−E, −[r₁]ₓ, E, [r₂]ₓ] with [r]ₓ = (−r_y, r_x).
        let jacobian = nape::inspect::dense_jacobian(&pivot, &poses);
        let expected = [
            [-1.0, 0.0, r1.y, 1.0, 0.0, -r2.y],
            [0.0, -1.0, -r1.x, 0.0, 1.0, r2.x],
        ];
        for i in 0..2 {
            for c in 0..6 {
                assert!(
                    (jacobian[i][c] - expected[i][c]).abs() < 1e-5,
                    "pivot J[{i}][{c}]"
                );
            }
        }
    }
}

#[test]
fn generated_code_reports_its_shape() {
    assert_eq!(<PivotJoint as Constraint<2, 2>>::NAME, "PivotJoint");
    const WELD_HAS_LIMITS: bool = <WeldJoint as Constraint<3, 2>>::HAS_LIMITS;
    let has_limits = std::hint::black_box(WELD_HAS_LIMITS);
    assert!(!has_limits, "a weld has only equality rows");
    let [a, b] = handles::<2>();
    let mut weld = WeldJoint {
        body1: a,
        body2: b,
        anchor1: Vec2::ZERO,
        anchor2: Vec2::ZERO,
        phase: 0.0,
    };
    assert_eq!(weld.bodies(), [a, b]);
    weld.set_bodies([b, a]);
    assert_eq!((weld.body1, weld.body2), (b, a));
    weld.phase = f32::NAN;
    let error = weld.validate().expect_err("NaN phase is rejected");
    assert_eq!(error.constraint, "WeldJoint");
    assert!(error.rule.contains("phase"));
}

// ---- The builtins with limits, velocity-only and many bodies (issue 3) ----

use nape::{AngleJoint, Bounds, DistanceJoint, LineJoint, MotorJoint, PulleyJoint, Velocity};

/// Which side of its bounds a row is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum RowState {
    Below,
    Inside,
    Above,
    Equal,
}

fn row_state(c: f32, bounds: Bounds) -> RowState {
    if bounds.min == bounds.max {
        RowState::Equal
    } else if c < bounds.min {
        RowState::Below
    } else if c > bounds.max {
        RowState::Above
    } else {
        RowState::Inside
    }
}

/// Checks a limited constraint on random states and records the states of its last row;
/// every state must have been checked.
fn check_limited<T, const D: usize, const B: usize>(
    seed: u64,
    make: impl Fn(&mut Rng, [BodyHandle; B]) -> T,
) where
    T: Constraint<D, B>,
{
    let mut seen = std::collections::HashSet::new();
    check_random_observed(seed, STATES, make, |constraint: &T, poses| {
        constraint
            .validate()
            .expect("generated parameters are valid");
        let c = constraint.position_error(poses);
        seen.insert(row_state(c[D - 1], constraint.bounds()[D - 1]));
    });
    for state in [
        RowState::Below,
        RowState::Inside,
        RowState::Above,
        RowState::Equal,
    ] {
        assert!(
            seen.contains(&state),
            "{}: no state {state:?} among {seen:?}",
            T::NAME
        );
    }
}

/// Bounds around `typical` that put it below, inside or above the range, or equal bounds.
fn limits_around(rng: &mut Rng, typical: f32) -> (f32, f32) {
    match (rng.range(0.0, 4.0)) as u32 {
        0 => (typical + 1.0, typical + 2.0),
        1 => (typical - 1.0, typical + 1.0),
        2 => (typical - 2.0, typical - 1.0),
        _ => (typical, typical),
    }
}

#[test]
fn angle_joint_every_row_state() {
    check_limited(10, |rng, [body1, body2]| {
        let (joint_min, joint_max) = limits_around(rng, 0.0);
        AngleJoint {
            body1,
            body2,
            joint_min,
            joint_max,
            ratio: rng.range(-2.0, 2.0),
        }
    });
}

#[test]
fn distance_joint_every_row_state() {
    check_limited(11, |rng, [body1, body2]| {
        let (joint_min, joint_max) = limits_around(rng, 6.0);
        DistanceJoint {
            body1,
            body2,
            anchor1: rng.vec2(1.0),
            anchor2: rng.vec2(1.0),
            joint_min,
            joint_max,
        }
    });
}

#[test]
fn line_joint_every_row_state() {
    check_limited(12, |rng, [body1, body2]| {
        let (joint_min, joint_max) = limits_around(rng, 0.0);
        LineJoint {
            body1,
            body2,
            anchor1: rng.vec2(1.0),
            anchor2: rng.vec2(1.0),
            direction: Vec2::from_angle(rng.angle()) * rng.range(0.2, 3.0),
            joint_min,
            joint_max,
        }
    });
}

#[test]
fn pulley_joint_every_row_state() {
    check_limited(13, |rng, [body1, body2, body3, body4]| {
        let ratio = rng.range(0.5, 2.0);
        let (joint_min, joint_max) = limits_around(rng, 6.0 * (1.0 + ratio));
        PulleyJoint {
            body1,
            body2,
            body3,
            body4,
            anchor1: rng.vec2(1.0),
            anchor2: rng.vec2(1.0),
            anchor3: rng.vec2(1.0),
            anchor4: rng.vec2(1.0),
            joint_min: joint_min.max(0.0),
            joint_max: joint_max.max(joint_min.max(0.0)),
            ratio,
        }
    });
}

#[test]
fn motor_joint_is_velocity_only_with_rate_as_bias() {
    let mut rng = Rng::new(14);
    let [a, b] = handles::<2>();
    const MOTOR_IS_VELOCITY_ONLY: bool = <MotorJoint as Constraint<1, 2>>::VELOCITY_ONLY;
    assert!(
        std::hint::black_box(MOTOR_IS_VELOCITY_ONLY),
        "a motor has no position error"
    );
    for index in 0..STATES {
        let (rate, ratio) = (rng.range(-5.0, 5.0), rng.range(-3.0, 3.0));
        let motor = MotorJoint {
            body1: a,
            body2: b,
            rate,
            ratio,
        };
        let (poses, masses) = random_state::<2>(&mut rng, index);
        assert_eq!(motor.position_error(&poses), [0.0]);
        assert_eq!(motor.velocity_bias(&motor.jacobian(&poses)), [-rate]);
        // V = ratio·ω₂ − ω₁ − rate = J·v + b for random velocities.
        let velocities = [
            Velocity {
                linear: rng.vec2(3.0),
                angular: rng.range(-3.0, 3.0),
            },
            Velocity {
                linear: rng.vec2(3.0),
                angular: rng.range(-3.0, 3.0),
            },
        ];
        let cache = motor.jacobian(&poses);
        let v =
            motor.velocity_error(&cache, &[0, 1], &velocities)[0] + motor.velocity_bias(&cache)[0];
        let expected = ratio * velocities[1].angular - velocities[0].angular - rate;
        assert!((v - expected).abs() <= 1e-5 * (1.0 + expected.abs()));
        // Seed §3.6: K = 1/i₁ + ρ²/i₂.
        let k = effective_mass(&motor, &poses, &masses, &[0, 1]);
        let seed = masses[0].inertia + ratio * ratio * masses[1].inertia;
        assert!((k[0][0] - seed).abs() <= 1e-5 * (1.0 + seed));
    }
}

#[test]
fn angle_distance_and_line_match_the_seed_closed_forms() {
    let mut rng = Rng::new(15);
    let [a, b] = handles::<2>();
    for index in 0..STATES {
        let (poses, m): ([Pose; 2], [InverseMass; 2]) = random_state(&mut rng, index);
        let close = |got: f32, want: f32, what: &str| {
            assert!(
                (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                "{what}: {got} vs seed {want}"
            );
        };
        // §3.3: K = 1/i₁ + ρ²/i₂.
        let ratio = rng.range(-2.0, 2.0);
        let angle = AngleJoint {
            body1: a,
            body2: b,
            joint_min: -1.0,
            joint_max: 1.0,
            ratio,
        };
        let k = effective_mass(&angle, &poses, &m, &[0, 1]);
        close(
            k[0][0],
            m[0].inertia + ratio * ratio * m[1].inertia,
            "angle K",
        );

        // §3.4: K = 1/m₁ + 1/m₂ + (r₁×n)²/i₁ + (r₂×n)²/i₂.
        let (anchor1, anchor2) = (rng.vec2(1.0), rng.vec2(1.0));
        let distance = DistanceJoint {
            body1: a,
            body2: b,
            anchor1,
            anchor2,
            joint_min: 0.0,
            joint_max: 1.0,
        };
        let (r1, r2) = (poses[0].rotate(anchor1), poses[1].rotate(anchor2));
        let delta = poses[1].position + r2 - poses[0].position - r1;
        let n = delta.normalize();
        let k = effective_mass(&distance, &poses, &m, &[0, 1]);
        let (c1, c2) = (r1.perp_dot(n), r2.perp_dot(n));
        close(
            k[0][0],
            m[0].mass + m[1].mass + c1 * c1 * m[0].inertia + c2 * c2 * m[1].inertia,
            "distance K",
        );

        // §3.5 with the erratum corrected: body 1's lever is d + r₁ (the point on the line).
        let direction = Vec2::from_angle(rng.angle()) * rng.range(0.2, 3.0);
        let line = LineJoint {
            body1: a,
            body2: b,
            anchor1,
            anchor2,
            direction,
            joint_min: -1.0,
            joint_max: 1.0,
        };
        let n = poses[0].rotate(direction.normalize());
        let d1 = n.dot(delta + r1);
        let c1 = n.perp_dot(delta + r1);
        let (d2, c2) = (n.dot(r2), n.perp_dot(r2));
        let k = effective_mass(&line, &poses, &m, &[0, 1]);
        let masses = m[0].mass + m[1].mass;
        close(
            k[0][0],
            masses + d1 * d1 * m[0].inertia + d2 * d2 * m[1].inertia,
            "line K00",
        );
        close(
            k[1][1],
            masses + c1 * c1 * m[0].inertia + c2 * c2 * m[1].inertia,
            "line K11",
        );
        close(
            k[0][1],
            -(d1 * c1 * m[0].inertia + d2 * c2 * m[1].inertia),
            "line K01",
        );
        // The Jacobian rows of the seed (errata corrected): the perpendicular row has
        // −d₁ and d₂ on the angles, the row along the line c₁ and −c₂.
        let jacobian = nape::inspect::dense_jacobian(&line, &poses);
        close(jacobian[0][2], -d1, "line J[0][θ₁]");
        close(jacobian[0][5], d2, "line J[0][θ₂]");
        close(jacobian[1][2], c1, "line J[1][θ₁]");
        close(jacobian[1][5], -c2, "line J[1][θ₂]");
    }
}

/// Seed §3.7's K for the 4-body pulley, plus `±2 (n_s·n_t / m + c_s c_t / i)` for every
/// pair of slots holding the same body (the errata's corrected 1 = 3 term is `c₁c₃`).
#[test]
fn pulley_matches_the_seed_in_every_arrangement() {
    let mut rng = Rng::new(16);
    let [a, b, c, d] = handles::<4>();
    // Which slots share a body: 4 bodies, and the 3- and 2-body variants.
    let arrangements: [[usize; 4]; 7] = [
        [0, 1, 2, 3],
        [0, 1, 0, 3],
        [0, 1, 2, 1],
        [0, 1, 2, 0],
        [0, 1, 1, 3],
        [0, 1, 0, 1],
        [0, 1, 1, 0],
    ];
    for index in 0..STATES {
        let slots = arrangements[index % arrangements.len()];
        let handle = |s: usize| [a, b, c, d][slots[s]];
        let ratio = rng.range(0.5, 2.0);
        let anchors = [rng.vec2(1.0), rng.vec2(1.0), rng.vec2(1.0), rng.vec2(1.0)];
        let pulley = PulleyJoint {
            body1: handle(0),
            body2: handle(1),
            body3: handle(2),
            body4: handle(3),
            anchor1: anchors[0],
            anchor2: anchors[1],
            anchor3: anchors[2],
            anchor4: anchors[3],
            joint_min: 0.0,
            joint_max: 10.0,
            ratio,
        };
        pulley.validate().expect("a valid arrangement");
        let (body_poses, body_masses) = random_state::<4>(&mut rng, index + 1);
        let poses: [Pose; 4] = std::array::from_fn(|s| body_poses[slots[s]]);
        let masses: [InverseMass; 4] = std::array::from_fn(|s| body_masses[slots[s]]);
        let r: [Vec2; 4] = std::array::from_fn(|s| poses[s].rotate(anchors[s]));
        let p: [Vec2; 4] = std::array::from_fn(|s| poses[s].position + r[s]);
        let n12 = (p[1] - p[0]).normalize();
        let n34 = ratio * (p[3] - p[2]).normalize();
        let normal = [-n12, n12, -n34, n34];
        let lever = [
            -r[0].perp_dot(n12),
            r[1].perp_dot(n12),
            -r[2].perp_dot(n34),
            r[3].perp_dot(n34),
        ];
        let mut seed: f32 = (0..4)
            .map(|s| {
                normal[s].length_squared() * masses[s].mass
                    + lever[s] * lever[s] * masses[s].inertia
            })
            .sum();
        for s in 0..4 {
            for t in s + 1..4 {
                if slots[s] == slots[t] {
                    seed += 2.0
                        * (normal[s].dot(normal[t]) * masses[s].mass
                            + lever[s] * lever[t] * masses[s].inertia);
                }
            }
        }
        let k = effective_mass(&pulley, &poses, &masses, &slots);
        assert!(
            (k[0][0] - seed).abs() <= 1e-4 * (1.0 + seed),
            "arrangement {slots:?}: K {} vs seed {seed}",
            k[0][0]
        );
        check_state(&pulley, &poses, &masses, &slots);
    }
}

#[test]
fn every_limited_row_is_validated() {
    let [a, b] = handles::<2>();
    let rope = |joint_min: f32, joint_max: f32| DistanceJoint {
        body1: a,
        body2: b,
        anchor1: Vec2::ZERO,
        anchor2: Vec2::ZERO,
        joint_min,
        joint_max,
    };
    assert!(
        rope(0.0, f32::INFINITY).validate().is_ok(),
        "an open upper end is a rope"
    );
    for (min, max) in [
        (2.0, 1.0),
        (f32::INFINITY, f32::INFINITY),
        (f32::NAN, 1.0),
        (-1.0, 1.0),
    ] {
        let error = rope(min, max).validate().expect_err("an invalid range");
        assert_eq!(error.constraint, "DistanceJoint", "{min}..={max}: {error}");
    }
    let angle = AngleJoint::new(a, b, f32::NEG_INFINITY, f32::NEG_INFINITY);
    assert!(angle.validate().unwrap_err().rule.contains("finite"));
}
