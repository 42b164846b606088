//! Every builtin joint, and one defined right here with `#[constraint]`, each in a small
//! scene simulated for 5 s at 60 Hz under gravity (0, −10). For each, the quantity the
//! joint holds is measured every step and the worst value is printed next to its target.
//!
//! Run with `cargo run --release --example gallery`.

use nape::{
    AngleJoint, Body, BodyHandle, DistanceJoint, Error, LineJoint, MotorJoint, PivotJoint,
    PulleyJoint, Space, Vec2, WeldJoint, constraint,
};

const HZ: f32 = 60.0;
const SECONDS: usize = 5;

/// A user-defined joint: a bead (`body2`'s centre) on a circular wire of `radius` around
/// `body1`'s origin.
#[constraint(position = (body2.position - body1.position).length() - radius)]
#[derive(Clone, Copy, Debug)]
struct CircularWire {
    body1: BodyHandle,
    body2: BodyHandle,
    radius: f32,
}

/// Steps `space` for `SECONDS`, calling `drive` before each step, and returns the worst
/// value of `measure` over the steps.
fn run_driven(
    space: &mut Space,
    drive: impl Fn(&mut Space) -> Result<(), Error>,
    measure: impl Fn(&Space) -> Result<f32, Error>,
) -> Result<f32, Error> {
    let mut worst = 0.0f32;
    for _ in 0..SECONDS * HZ as usize {
        drive(space)?;
        space.step(1.0 / HZ);
        worst = worst.max(measure(space)?);
    }
    Ok(worst)
}

fn run(space: &mut Space, measure: impl Fn(&Space) -> Result<f32, Error>) -> Result<f32, Error> {
    run_driven(space, |_| Ok(()), measure)
}

fn world() -> Space {
    let mut space = Space::new();
    space.gravity = Vec2::new(0.0, -10.0);
    space
}

fn report(joint: &str, holds: &str, worst: f32, target: &str) {
    println!("{joint:<14} {holds:<42} {worst:>10.2e}   {target}");
}

fn main() -> Result<(), Error> {
    println!(
        "{:<14} {:<42} {:>10}   target",
        "joint", "worst over 5 s of", "measured"
    );

    // Pivot: a pendulum.
    let mut space = world();
    let ceiling = space.add_body(Body::static_body())?;
    let bob = space.add_body(Body::circle(0.2, 10.0).at(Vec2::new(2.0, 0.0)))?;
    let pivot = space.add_constraint(PivotJoint::new(
        ceiling,
        bob,
        Vec2::ZERO,
        Vec2::new(-2.0, 0.0),
    ))?;
    let worst = run(&mut space, |s| {
        let p = s.constraint(pivot)?;
        Ok(s.body(p.body1)?
            .world_point(p.anchor1)
            .distance(s.body(p.body2)?.world_point(p.anchor2)))
    })?;
    report("PivotJoint", "anchor separation", worst, "0");

    // Weld: two boxes falling and spinning as one.
    let mut space = world();
    let a = space.add_body(Body::rectangle(1.0, 0.5, 1.0).with_angular_velocity(3.0))?;
    let b = space.add_body(Body::rectangle(1.0, 0.5, 1.0).at(Vec2::new(1.0, 0.0)))?;
    let weld = WeldJoint::new(a, b, Vec2::new(0.5, 0.0), Vec2::new(-0.5, 0.0), 0.0);
    space.add_constraint(weld)?;
    let worst = run(&mut space, |s| {
        Ok((s.body(b)?.angle() - s.body(a)?.angle()).abs())
    })?;
    report("WeldJoint", "|relative angle| (rad)", worst, "0");

    // Angle: a wheel on an axle, pushed by a torque against its limit of 0.5 rad.
    let mut space = world();
    let ground = space.add_body(Body::static_body())?;
    let wheel = space.add_body(Body::circle(0.5, 1.0))?;
    space.add_constraint(PivotJoint::new(ground, wheel, Vec2::ZERO, Vec2::ZERO))?;
    space.add_constraint(AngleJoint::new(ground, wheel, -0.5, 0.5))?;
    let push = |s: &mut Space| s.apply_torque(wheel, 5.0);
    let worst = run_driven(&mut space, push, |s| Ok(s.body(wheel)?.angle() - 0.5))?;
    let resting = format!(
        "angle past 0.5 (it rests at {:.4})",
        space.body(wheel)?.angle()
    );
    report("AngleJoint", &resting, worst.max(0.0), "≤ 0");

    // Distance: a weight on a rope of length 2, dropped from beside the anchor.
    let mut space = world();
    let hook = space.add_body(Body::static_body())?;
    let weight = space.add_body(Body::circle(0.2, 10.0).at(Vec2::new(1.0, 0.0)))?;
    space.add_constraint(DistanceJoint::new(
        hook,
        weight,
        Vec2::ZERO,
        Vec2::ZERO,
        0.0,
        2.0,
    ))?;
    let worst = run(
        &mut space,
        |s| Ok(s.body(weight)?.position().length() - 2.0),
    )?;
    report(
        "DistanceJoint",
        "rope stretch beyond length 2",
        worst.max(0.0),
        "≤ 0",
    );

    // Line: a block sliding down a rail tilted 30°, stopped at 1.5 along it.
    let mut space = world();
    let rail = space.add_body(Body::static_body())?;
    let block = space.add_body(Body::rectangle(0.4, 0.2, 5.0))?;
    let direction = Vec2::from_angle((-30.0f32).to_radians());
    space.add_constraint(LineJoint::new(
        rail,
        block,
        Vec2::ZERO,
        Vec2::ZERO,
        direction,
        -1.5,
        1.5,
    ))?;
    let worst = run(&mut space, |s| {
        let p = s.body(block)?.position();
        Ok(direction.perp_dot(p).abs().max(direction.dot(p) - 1.5))
    })?;
    report(
        "LineJoint",
        "off the rail, or past its end",
        worst.max(0.0),
        "≤ 0",
    );

    // Motor: a free wheel driven to 3 rad/s.
    let mut space = world();
    let frame = space.add_body(Body::static_body())?;
    let rotor = space.add_body(Body::circle(0.5, 1.0))?;
    space.add_constraint(PivotJoint::new(frame, rotor, Vec2::ZERO, Vec2::ZERO))?;
    space.add_constraint(MotorJoint::new(frame, rotor, 3.0))?;
    run(&mut space, |_| Ok(0.0))?;
    let error = (space.body(rotor)?.angular_velocity() - 3.0).abs();
    report("MotorJoint", "|ω − 3 rad/s| after 5 s", error, "0");

    // Pulley: weights of 1 and 2 kg over two hooks, total rope length 4.
    let mut space = world();
    let left_hook = space.add_body(Body::static_body().at(Vec2::new(-1.0, 0.0)))?;
    let right_hook = space.add_body(Body::static_body().at(Vec2::new(1.0, 0.0)))?;
    let light = space.add_body(Body::dynamic(1.0, 0.1).at(Vec2::new(-1.0, -2.0)))?;
    let heavy = space.add_body(Body::dynamic(2.0, 0.1).at(Vec2::new(1.0, -2.0)))?;
    let pulley = PulleyJoint {
        body1: left_hook,
        body2: light,
        body3: right_hook,
        body4: heavy,
        anchor1: Vec2::ZERO,
        anchor2: Vec2::ZERO,
        anchor3: Vec2::ZERO,
        anchor4: Vec2::ZERO,
        joint_min: 0.0,
        joint_max: 4.0,
        ratio: 1.0,
    };
    space.add_constraint(pulley)?;
    let worst = run(&mut space, |s| {
        let left = s.body(light)?.position().distance(Vec2::new(-1.0, 0.0));
        let right = s.body(heavy)?.position().distance(Vec2::new(1.0, 0.0));
        Ok(left + right - 4.0)
    })?;
    report(
        "PulleyJoint",
        "rope stretch beyond length 4",
        worst.max(0.0),
        "≤ 0",
    );

    // Custom: a bead on a circular wire of radius 1.5.
    let mut space = world();
    let hub = space.add_body(Body::static_body())?;
    let bead = space.add_body(Body::circle(0.1, 1.0).at(Vec2::new(1.5, 0.0)))?;
    space.add_constraint(CircularWire {
        body1: hub,
        body2: bead,
        radius: 1.5,
    })?;
    let worst = run(&mut space, |s| {
        Ok((s.body(bead)?.position().length() - 1.5).abs())
    })?;
    report(
        "CircularWire",
        "|distance from the wire| (user-defined)",
        worst,
        "0",
    );
    Ok(())
}
