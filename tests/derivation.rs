//! Every generated constraint against the numbers: `J` against central finite differences
//! of its own `c`, `K` against `J M⁻¹ Jᵀ`, `K⁻¹K = I` and the impulse against `M⁻¹Jᵀλ`,
//! each on hundreds of random states; the builtins also against the seed's closed forms
//! (with the errata of DESIGN.md corrected).

#[path = "support/derivation_check.rs"]
mod derivation_check;

use derivation_check::{Rng, check_random, check_state, handles, random_state};
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
