//! The expression language's functions against the numbers: `J` against central finite
//! differences of `c`, `K` against `J M⁻¹ Jᵀ` (shared slots merged) and the impulse, on
//! 200 random states per constraint, on states exactly at the non-smooth points (where
//! central differences give the mean of the two one-sided slopes, which is the macro's
//! documented choice) and just beside them; and the documented values where no derivative
//! exists (atan2 at the origin, asin/acos at ±1, ln at 0): finite, and a row that does
//! nothing.

#[path = "support/derivation_check.rs"]
mod derivation_check;

use derivation_check::{
    Rng, check_derivation, check_geometric_stiffness, check_random, check_state, handles,
    random_state,
};
use nape::inspect::dense_jacobian;
use nape::{Body, BodyHandle, Constraint, Pose, Space, Vec2, constraint};
use std::f32::consts::PI;

const STATES: usize = 200;

/// Every piecewise function: `abs`, `min`, `max`, `clamp`, with `hypot` and `distance`
/// (one row: at a kink, rows of several such terms are easily linearly dependent).
#[constraint(position = {
    let d = body2.position - body1.position;
    d.x.abs() - d.y.abs().min(gap) + d.x.max(d.y) + body1.angle.clamp(low, high)
        + f32::hypot(d.x, length) - body2.position.distance(body1.world_point(anchor)).min(length)
        + f32::max(body2.angle, 0.0)
})]
#[derive(Clone, Copy, Debug)]
struct Kinks {
    body1: BodyHandle,
    body2: BodyHandle,
    anchor: Vec2,
    gap: f32,
    low: f32,
    high: f32,
    length: f32,
}

/// Every smooth function, on arguments inside their domains for random states; three slots,
/// the outer two may be one body.
#[constraint(position = {
    let d = body2.world_point(anchor) - body1.position;
    let (s, c) = body3.angle.sin_cos();
    (
        (0.3 * d.x.sin()).tan() + (0.1 * d.y).exp() + (d.length_squared() + offset).ln(),
        (0.9 * body1.angle.sin()).asin() + f32::acos(0.9 * c) + s * d.x,
        (d.y.atan2(d.x) - body1.angle).sin() + (body3.position - body2.position).to_angle().cos(),
        Vec2::X.angle_to(body3.rotate(anchor)).sin() * body3.angle.sin_cos().0 + f32::sqrt(d.x * d.x + 1.0),
    )
})]
#[derive(Clone, Copy, Debug)]
struct Smooth {
    body1: BodyHandle,
    body2: BodyHandle,
    body3: BodyHandle,
    anchor: Vec2,
    offset: f32,
}

/// The functions at their singular points: each row's argument reaches the point when the
/// two bodies coincide (and `body2` is level with `body1` for `asin`).
#[constraint(position = {
    let d = body2.position - body1.position;
    (d.y.atan2(d.x), (d.x + d.y).ln(), d.x.asin(), (d.x * d.x + d.y * d.y).ln())
})]
#[derive(Clone, Copy, Debug)]
struct Singular {
    body1: BodyHandle,
    body2: BodyHandle,
}

/// A velocity-only constraint whose constant part reads a pose: `ω = −gain·θ`.
#[constraint(velocity = body.angular_velocity + gain * body.angle)]
#[derive(Clone, Copy, Debug)]
struct AngleDamper {
    body: BodyHandle,
    gain: f32,
}

/// A value on the grid of eighths: sums and differences of such values are exact in
/// `f32`, so a state built from them sits exactly on a kink.
fn eighths(value: f32) -> f32 {
    (value * 8.0).round() / 8.0
}

fn kinks(rng: &mut Rng, [body1, body2]: [BodyHandle; 2]) -> Kinks {
    let low = eighths(rng.range(-2.0, 0.0));
    Kinks {
        body1,
        body2,
        anchor: Vec2::ZERO,
        gap: eighths(rng.range(0.25, 3.0)),
        low,
        high: low + eighths(rng.range(0.5, 3.0)),
        length: eighths(rng.range(0.5, 6.0)),
    }
}

/// The arguments whose sign switches a branch of `Kinks` at these poses.
fn kink_arguments(c: &Kinks, poses: &[Pose; 2]) -> [f32; 8] {
    let d = poses[1].position - poses[0].position;
    [
        d.x,
        d.y,
        d.y.abs() - c.gap,
        d.x - d.y,
        poses[0].angle() - c.low,
        poses[0].angle() - c.high,
        d.length() - c.length,
        poses[1].angle(),
    ]
}

#[test]
fn piecewise_functions_on_random_states() {
    // Random states, redrawn while a kink lies within reach of the finite-difference
    // step (there the differences blend both sides); the kinks themselves are the next
    // test's.
    let mut rng = Rng::new(11);
    let handles = handles::<2>();
    let mut checked = 0;
    let mut index = 0;
    while checked < STATES {
        index += 1;
        let c = kinks(&mut rng, handles);
        let (poses, masses) = random_state::<2>(&mut rng, index);
        if kink_arguments(&c, &poses).iter().any(|a| a.abs() < 0.05) {
            continue;
        }
        check_state(&c, &poses, &masses, &[0, 1]);
        checked += 1;
    }
    assert!(
        index < 2 * STATES,
        "most random states are away from the kinks: {index}"
    );
}

#[test]
fn piecewise_functions_at_and_beside_their_kinks() {
    let mut rng = Rng::new(12);
    let distinct = [0, 1];
    let mut at_a_kink = 0;
    for index in 0..2 * STATES {
        let mut c = kinks(&mut rng, handles::<2>());
        let (poses, masses) = random_state::<2>(&mut rng, index);
        let base = Pose::new(poses[0].position.map(eighths), poses[0].total_angle());
        // Beside a kink: farther than the finite-difference step (1e-2), so the one-sided
        // derivative is what the differences see.
        let beside = eighths(rng.range(0.125, 0.5)) * if index % 2 == 0 { 1.0 } else { -1.0 };
        let t = eighths(rng.range(0.5, 3.0)) * if index % 3 == 0 { 1.0 } else { -1.0 };
        let offsets = [
            Vec2::new(0.0, t),               // |d.x| at 0
            Vec2::new(t, 0.0),               // |d.y| at 0
            Vec2::new(t, t),                 // max(d.x, d.y) at a tie
            Vec2::new(beside, t),            // beside |d.x|
            Vec2::new(t, t + beside),        // beside the tie
            Vec2::new(t, c.gap.copysign(t)), // min(|d.y|, gap) at a tie
            Vec2::new(c.length, 0.0),        // min(distance, length) at a tie
        ];
        let offset = offsets[index % offsets.len()];
        // clamp at its bounds and beside one, max(body2.angle, 0) at its tie.
        let angle = match index % 4 {
            0 => f64::from(c.low),
            1 => f64::from(c.high),
            2 => f64::from(c.low - beside.abs()),
            _ => base.total_angle(),
        };
        let angle2 = if index % 3 == 0 {
            0.0
        } else {
            poses[1].total_angle()
        };
        let state = [
            Pose::new(base.position, angle),
            Pose::new(base.position + offset, angle2),
        ];
        // A body's angle is read from its rotation, an ulp or so from the angle it was
        // set to: the bound moves to it, so that the state is exactly at the kink.
        match index % 4 {
            0 => c.low = state[0].angle(),
            1 => c.high = state[0].angle(),
            _ => {}
        }
        let arguments = kink_arguments(&c, &state);
        // Other kinks that happen to lie within the step: not this state.
        if arguments.iter().any(|a| *a != 0.0 && a.abs() < 0.05) {
            continue;
        }
        if arguments.contains(&0.0) {
            at_a_kink += 1;
        } else {
            // Beside every kink by more than the differences' step: one-sided second
            // derivatives.
            check_geometric_stiffness(&c, &state);
        }
        check_derivation(&c, &state, &masses, &distinct);
    }
    assert!(at_a_kink >= STATES, "{at_a_kink} states exactly at a kink");
}

fn smooth(rng: &mut Rng, [body1, body2, body3]: [BodyHandle; 3]) -> Smooth {
    Smooth {
        body1,
        body2,
        body3,
        anchor: rng.vec2(1.0),
        offset: rng.range(0.5, 2.0),
    }
}

#[test]
fn smooth_functions_on_random_states() {
    check_random(13, STATES, smooth);
}

#[test]
fn smooth_functions_with_shared_slots() {
    let mut rng = Rng::new(14);
    let [a, b] = handles::<2>();
    for index in 0..STATES {
        let c = smooth(&mut rng, [a, b, a]);
        let (poses, masses) = random_state::<3>(&mut rng, index + 1);
        // body2 kept away from body1 (= body3): atan2 of their difference is smooth there.
        let away = Vec2::from_angle(rng.angle()) * rng.range(1.0, 4.0);
        let poses = [
            poses[0],
            Pose::new(poses[0].position + away, poses[1].total_angle()),
            poses[0],
        ];
        let masses = [masses[0], masses[1], masses[0]];
        check_state(&c, &poses, &masses, &[0, 1, 0]);
    }
}

#[test]
fn smooth_functions_near_their_singular_points() {
    // Arguments close to (but farther than the step from) where ln, asin and acos lose
    // their derivative: offset small, the body angles near ±π/2.
    let mut rng = Rng::new(15);
    for index in 0..STATES {
        let mut c = smooth(&mut rng, handles::<3>());
        c.offset = rng.range(0.05, 0.1);
        let (mut poses, masses) = random_state::<3>(&mut rng, index);
        let near = PI / 2.0 - rng.range(0.05, 0.2);
        let near = f64::from(near);
        poses[0] = Pose::new(poses[0].position, if index % 2 == 0 { near } else { -near });
        poses[2] = Pose::new(
            poses[2].position,
            if index % 3 == 0 {
                0.1
            } else {
                f64::from(PI - 0.1)
            },
        );
        // d.x small (but not across zero within the step): atan2 near its origin.
        let d = Vec2::new(rng.range(0.3, 0.6), rng.range(0.3, 0.6));
        let anchor_world = poses[1].rotate(c.anchor);
        poses[1] = Pose::new(poses[0].position + d - anchor_world, poses[1].total_angle());
        check_derivation(&c, &poses, &masses, &[0, 1, 2]);
        check_geometric_stiffness(&c, &poses);
    }
}

#[test]
fn singular_points_give_finite_values_and_rows_that_do_nothing() {
    let [a, b] = handles::<2>();
    let c = Singular { body1: a, body2: b };
    let mut rng = Rng::new(16);
    for _ in 0..STATES {
        // Positions on a grid of eighths, so differences of them are exact.
        let grid = |v: Vec2| (v * 8.0).round() / 8.0;
        let base = Pose::new(grid(rng.vec2(5.0)), f64::from(rng.angle()));
        // The bodies coincide: atan2 at the origin, ln at 0, the normalised zero vector.
        let poses = [base, Pose::new(base.position, f64::from(rng.angle()))];
        let value = c.position_error(&poses);
        let j = dense_jacobian(&c, &poses);
        assert!(value.iter().all(|v| v.is_finite()), "c = {value:?}");
        assert!(j.iter().flatten().all(|v| v.is_finite()), "J = {j:?}");
        assert_eq!(value[0], 0.0, "atan2 at the origin is 0");
        assert!(
            value[1] < -87.0 && value[3] < -87.0,
            "ln at 0 is ln of the least positive f32"
        );
        for row in [0, 1, 3] {
            assert!(
                j[row].iter().all(|&v| v == 0.0),
                "row {row} does nothing: {:?}",
                j[row]
            );
        }
        // Level, to the right or left: asin of exactly ±1 or beyond, and ln of a negative
        // number to the left.
        let step = [1.0, 1.25, 2.0][rng.range(0.0, 2.99) as usize];
        for side in [1.0f32, -1.0] {
            let poses = [
                base,
                Pose::new(base.position + Vec2::new(side * step, 0.0), 0.0),
            ];
            let value = c.position_error(&poses);
            let j = dense_jacobian(&c, &poses);
            assert!(value.iter().all(|v| v.is_finite()), "c = {value:?}");
            assert!(j.iter().flatten().all(|v| v.is_finite()), "J = {j:?}");
            assert!(
                (value[2] - side * PI / 2.0).abs() < 1e-6,
                "asin(±1) = ±π/2: {}",
                value[2]
            );
            assert!(
                j[2].iter().all(|&v| v == 0.0),
                "asin at ±1 does nothing: {:?}",
                j[2]
            );
            if side < 0.0 {
                assert!(
                    j[1].iter().all(|&v| v == 0.0),
                    "ln of a negative does nothing"
                );
            }
        }
    }
}

#[test]
fn velocity_constraint_reading_a_pose() {
    let [body] = handles::<1>();
    let damper = AngleDamper { body, gain: 2.0 };
    let poses = [Pose::new(Vec2::ZERO, 0.75)];
    let cache = damper.jacobian(&poses);
    let bias = damper.velocity_bias(&cache);
    assert!(
        (bias[0] - 1.5).abs() < 1e-6,
        "bias gain·θ read from the step's poses: {bias:?}"
    );
    let at_rest = damper.velocity_error(&cache, &[0], &[nape::Velocity::default()]);
    assert_eq!(at_rest, [0.0], "J·v alone, without the bias");
    assert_eq!(dense_jacobian(&damper, &poses), vec![vec![0.0, 0.0, 1.0]]);

    // Simulated: ω = −gain·θ, so θ decays as e^(−gain·t).
    let mut space = Space::new();
    let wheel = space
        .add_body(Body::dynamic(1.0, 1.0).with_angle(1.0))
        .unwrap();
    space
        .add_constraint(AngleDamper {
            body: wheel,
            gain: 2.0,
        })
        .unwrap();
    for _ in 0..60 {
        space.step(1.0 / 60.0);
    }
    let angle = space.body(wheel).unwrap().angle();
    let expected = (-2.0f64).exp();
    assert!(
        (angle - expected).abs() < 0.02,
        "θ(1 s) = {angle}, e^-2 = {expected}"
    );
}
