//! One rotation per body: a body's angle is read from its rotation and its winding, so
//! that `Body::angle()`, what its points are drawn with and what its joints read agree
//! after any number of turns, and joints that read relative angles keep them exact.
//!
//! The hour-long runs take the full hour of 60 Hz steps in a release build (`cargo test
//! --release --test winding`) and a tenth of it in a debug one, which still winds the
//! bodies past 10,000 rad, where an `f32` angle holds only 1e-3 rad.

use std::f64::consts::{PI, TAU};
use std::time::Instant;

use nape::{
    AngleJoint, Body, BodyHandle, Constraint, MotorJoint, PivotJoint, Pose, Space, Vec2, WeldJoint,
    constraint,
};

const DT: f32 = 1.0 / 60.0;

/// Steps of an hour at 60 Hz in a release build, a tenth of that in a debug one.
const HOUR: usize = if cfg!(debug_assertions) {
    21_600
} else {
    216_000
};

/// `x` brought into `(−π, π]`.
fn wrapped(x: f64) -> f64 {
    let r = x.rem_euclid(TAU);
    if r > PI { r - TAU } else { r }
}

/// The angle of the rotation a body's points are drawn with: of its local x axis as
/// `world_point` maps it, in `f64`.
fn drawn(space: &Space, h: BodyHandle) -> f64 {
    let b = space.body(h).unwrap();
    let axis = b.world_point(Vec2::X) - b.world_point(Vec2::ZERO);
    axis.y.atan2(axis.x)
}

/// How far `Body::angle()` is from the drawn rotation, modulo whole turns.
fn angle_off_drawing(space: &Space, h: BodyHandle) -> f64 {
    wrapped(space.body(h).unwrap().angle() - drawn(space, h)).abs()
}

#[test]
fn a_free_body_spun_for_an_hour_keeps_its_angle_on_its_rotation() {
    let mut space = Space::new();
    space.gravity = Vec2::ZERO;
    let spin = 30.0f32;
    let body = space
        .add_body(Body::rectangle(1.0, 0.5, 1.0).with_angular_velocity(spin))
        .unwrap();
    let started = Instant::now();
    let mut worst = 0.0f64;
    for step in 1..=HOUR {
        space.step(DT);
        if step % 997 == 0 || step == HOUR {
            worst = worst.max(angle_off_drawing(&space, body));
        }
    }
    let elapsed = started.elapsed();
    let b = space.body(body).unwrap();
    let seconds = HOUR as f64 * f64::from(DT);
    // The steps' turns, each `ω·h` of the substeps rounded to `f32`, summed exactly.
    let exact = f64::from(b.angular_velocity()) * seconds;
    println!(
        "{HOUR} steps in {elapsed:.2?}: angle {:.6} rad, {:.2e} rad from ω·t, {worst:.2e} rad \
         from the drawn rotation at worst",
        b.angle(),
        b.angle() - exact
    );
    assert_eq!(b.angular_velocity(), spin, "a free body keeps its spin");
    assert!(b.angle() > 10_000.0, "wound past 10,000 rad: {}", b.angle());
    assert!(worst < 1e-5, "angle() off the drawn rotation by {worst:e}");
    // The series drift's rounding, about 1e-8 rad a substep, over a million substeps.
    assert!(
        (b.angle() - exact).abs() < 5e-3,
        "{} against ω·t = {exact}",
        b.angle()
    );
}

#[test]
fn a_motor_driven_crank_with_a_welded_bar_keeps_every_angle_for_an_hour() {
    let mut space = Space::new();
    let ground = space.add_body(Body::static_body()).unwrap();
    let crank = space
        .add_body(Body::rectangle(1.0, 0.2, 2.0).at(Vec2::new(0.5, 0.0)))
        .unwrap();
    let phase = 0.75f32;
    let bar = space
        .add_body(
            Body::rectangle(1.2, 0.1, 1.0)
                .at(Vec2::new(1.0, 0.0) + 0.6 * Vec2::from_angle(phase))
                .with_angle(f64::from(phase)),
        )
        .unwrap();
    space
        .add_constraint(PivotJoint::new(
            ground,
            crank,
            Vec2::ZERO,
            Vec2::new(-0.5, 0.0),
        ))
        .unwrap();
    space
        .add_constraint(MotorJoint::new(ground, crank, std::f32::consts::TAU))
        .unwrap();
    space
        .add_constraint(WeldJoint::new(
            crank,
            bar,
            Vec2::new(0.5, 0.0),
            Vec2::new(-0.6, 0.0),
            phase,
        ))
        .unwrap();
    let started = Instant::now();
    let (mut off_drawing, mut weld, mut weld_drawn) = (0.0f64, 0.0f64, 0.0f64);
    for step in 1..=HOUR {
        space.step(DT);
        if step % 991 == 0 || step == HOUR {
            for h in [crank, bar] {
                off_drawing = off_drawing.max(angle_off_drawing(&space, h));
            }
            let angle = |h| space.body(h).unwrap().angle();
            let relative = angle(bar) - angle(crank);
            weld = weld.max((relative - f64::from(phase)).abs());
            let rotations = wrapped(drawn(&space, bar) - drawn(&space, crank));
            weld_drawn = weld_drawn.max((rotations - f64::from(phase)).abs());
        }
    }
    let turned = space.body(crank).unwrap().angle();
    println!(
        "{HOUR} steps in {:.2?}: crank at {turned:.3} rad; angle() off the drawn rotation \
         {off_drawing:.2e}, the weld's relative angle off its phase {weld:.2e} (from the \
         rotations {weld_drawn:.2e})",
        started.elapsed()
    );
    let seconds = HOUR as f64 * f64::from(DT);
    assert!(
        (turned / seconds - TAU).abs() < 1e-3 * TAU,
        "the motor turns the crank at 2π rad/s: {turned} in {seconds} s"
    );
    assert!(
        off_drawing < 1e-5,
        "angle() off the drawn rotation by {off_drawing:e}"
    );
    assert!(
        weld < 1e-6,
        "the weld's angle() difference off its phase by {weld:e}"
    );
    assert!(
        weld_drawn < 1e-6,
        "the weld's rotations off its phase by {weld_drawn:e}"
    );
}

/// A space without gravity holding two wheels on pivots 3 m apart, the first driven at
/// `rate` rad/s by a `MotorJoint`.
fn two_wheels(rate: f32) -> (Space, BodyHandle, BodyHandle) {
    let mut space = Space::new();
    space.gravity = Vec2::ZERO;
    let ground = space.add_body(Body::static_body()).unwrap();
    let wheel = |space: &mut Space, x: f32| {
        let h = space
            .add_body(Body::circle(0.5, 1.0).at(Vec2::new(x, 0.0)))
            .unwrap();
        space
            .add_constraint(PivotJoint::new(ground, h, Vec2::new(x, 0.0), Vec2::ZERO))
            .unwrap();
        h
    };
    let (driver, driven) = (wheel(&mut space, 0.0), wheel(&mut space, 3.0));
    space
        .add_constraint(MotorJoint::new(ground, driver, rate))
        .unwrap();
    (space, driver, driven)
}

#[test]
fn an_angle_limit_between_wheels_wound_past_ten_thousand_radians_holds() {
    let (mut space, driven, dragged) = two_wheels(60.0);
    let bound = 3.0 * std::f32::consts::PI;
    space
        .add_constraint(AngleJoint::new(driven, dragged, -bound, bound))
        .unwrap();
    // How far the relative angle went beyond the bound, and how far it left it once the
    // driven wheel had wound the limit tight (the limit drags the other wheel along).
    let (mut beyond, mut slack) = (0.0f64, 0.0f64);
    let mut steps = 0;
    while space.body(dragged).unwrap().angle() < 10_000.0 {
        space.step(DT);
        steps += 1;
        assert!(steps < 20_000, "the limit drags the second wheel along");
        let angle = |h| space.body(h).unwrap().angle();
        let relative = angle(dragged) - angle(driven);
        beyond = beyond.max(-f64::from(bound) - relative);
        if steps > 600 {
            slack = slack.max(relative + f64::from(bound));
        }
    }
    println!(
        "{steps} steps to 10,000 rad; the relative angle at most {beyond:.2e} rad beyond the \
         bound, at most {slack:.2e} rad inside it"
    );
    assert!(
        beyond < 1e-6,
        "the limit let the angle {beyond:e} beyond its bound"
    );
    assert!(slack < 1e-2, "the limit let go: {slack} inside its bound");
}

/// Two wheels on pivots, the first driven at `rate` rad/s, geared by an `AngleJoint` of
/// `ratio` (`ratio·θ₂ = θ₁`), for `steps` steps: the largest `|ratio·θ₂ − θ₁|` over the
/// run, from the bodies' `f64` angles, and the first wheel's angle at the end.
fn geared_wheels(rate: f32, ratio: f32, steps: usize) -> (f64, f64) {
    let (mut space, driver, driven) = two_wheels(rate);
    let mut gear = AngleJoint::new(driver, driven, 0.0, 0.0);
    gear.ratio = ratio;
    space.add_constraint(gear).unwrap();
    let mut worst = 0.0f64;
    for _ in 0..steps {
        space.step(DT);
        let angle = |h| space.body(h).unwrap().angle();
        worst = worst.max((f64::from(ratio) * angle(driven) - angle(driver)).abs());
    }
    (worst, space.body(driver).unwrap().angle())
}

/// A gear reads whole angles (`ratio·θ₂ − θ₁` changes when both wheels turn by a whole
/// turn), and its wheels wind apart: computed from the principal angles with the turns
/// added in `f64`, it holds them to the `f32` precision of the row, where the whole
/// angles in `f32` held them to an ulp of the wound angle (1e-3 at 10,000 rad).
#[test]
fn a_gear_between_fast_wheels_holds_past_ten_thousand_radians() {
    for ratio in [2.0, -1.5, 0.3] {
        let (worst, wound) = geared_wheels(30.0, ratio, HOUR);
        println!(
            "gear of ratio {ratio}, the driver wound to {wound:.0} rad: ratio·θ₂ − θ₁ within {worst:.2e} rad"
        );
        assert!(wound > 1e4, "the driver turned only {wound} rad");
        assert!(worst < 1e-5, "ratio {ratio}: {worst:e}");
    }
}

/// A user's joint of an angle difference: read from body1's winding, exact at any turns.
#[constraint(position = body2.angle - body1.angle - offset)]
#[derive(Clone)]
struct Relative {
    body1: BodyHandle,
    body2: BodyHandle,
    offset: f32,
}

/// A user's joint of one body's whole angle: affine in it, its value is the whole angle's,
/// rounded once.
#[constraint(position = body1.angle - target)]
#[derive(Clone)]
struct Absolute {
    body1: BodyHandle,
    target: f32,
}

fn handles<const B: usize>() -> [BodyHandle; B] {
    std::array::from_fn(|s| BodyHandle::detached(s as u32))
}

#[test]
fn a_generated_angle_difference_is_exact_at_ten_thousand_turns() {
    let [body1, body2] = handles();
    let c = Relative {
        body1,
        body2,
        offset: 0.25,
    };
    let wound = 1e4 * TAU;
    for (a, b) in [
        (0.3, 0.55 + 1e-6),
        (3.1, -3.0),
        (-3.1, 3.0 + 2.0 * TAU),
        (0.0, -1e-6),
    ] {
        let poses = [
            Pose::new(Vec2::ZERO, wound + a),
            Pose::new(Vec2::X, wound + b),
        ];
        let exact = (poses[1].total_angle() - poses[0].total_angle()) - 0.25;
        let value = f64::from(c.position_error(&poses)[0]);
        assert!(
            (value - exact).abs() < 1e-6,
            "({a}, {b}): {value} against {exact}"
        );
        // J is the derivative of the difference, whatever the turns.
        let j = nape::inspect::dense_jacobian(&c, &poses);
        assert_eq!(j[0][2], -1.0);
        assert_eq!(j[0][5], 1.0);
    }
}

#[test]
fn a_generated_whole_angle_is_rounded_once() {
    let [body1] = handles();
    let c = Absolute { body1, target: 1.5 };
    for angle in [0.2, -3.0, 7.0, 1e4 + 0.5, -123.25] {
        let pose = Pose::new(Vec2::ZERO, angle);
        let value = c.position_error(&[pose])[0];
        // The whole angle's value, rounded once: the principal angle's `f32` rounding and
        // half an ulp of the result.
        let exact = pose.total_angle() - 1.5;
        let ulp = f64::from(value.abs().max(f32::MIN_POSITIVE)) * f64::from(f32::EPSILON);
        assert!(
            (f64::from(value) - exact).abs() <= 0.5 * ulp + 1e-6,
            "{angle}: {value} against {exact}"
        );
    }
}
