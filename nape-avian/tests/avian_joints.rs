//! Avian's own joint components solved by nape ([`AvianJointsPlugin`]): Avian is built
//! here without `xpbd_joints`, so nape is their only solver.

mod support;

use avian2d::prelude::*;
use bevy::prelude::*;
use nape_avian::AvianJointsPlugin;
use support::*;

fn app() -> App {
    app_with(|app| {
        app.add_plugins(AvianJointsPlugin);
    })
}

/// Without gravity: a static ground at the origin and a body of `mass` kg (0.1 kg·m²)
/// there.
fn weightless(mass: f32) -> (App, Entity, Entity) {
    let mut app = app();
    app.insert_resource(Gravity(Vec2::ZERO));
    let ground = anchor(&mut app, Vec2::ZERO);
    let body = point_mass(&mut app, Vec2::ZERO, mass, 0.1);
    (app, ground, body)
}

/// A motor model of pure velocity control: it drives the joint's rate only.
const VELOCITY_CONTROL: MotorModel = MotorModel::AccelerationBased {
    stiffness: 0.0,
    damping: 1.0,
};

/// The world distance between `local1` on `body1` and `local2` on `body2`.
fn gap(app: &App, body1: Entity, local1: Vec2, body2: Entity, local2: Vec2) -> f32 {
    let world = |body: Entity, local: Vec2| {
        position(app, body) + *app.world().get::<Rotation>(body).unwrap() * local
    };
    (world(body1, local1) - world(body2, local2)).length()
}

#[test]
fn a_revolute_pendulum_keeps_its_anchors() {
    let mut app = app();
    let ground = anchor(&mut app, Vec2::ZERO);
    let bob = point_mass(&mut app, Vec2::new(1.0, 0.0), 1.0, 0.01);
    let hinge = Vec2::new(-1.0, 0.0);
    app.world_mut()
        .spawn(RevoluteJoint::new(ground, bob).with_local_anchor2(hinge));
    let (mut worst, mut lowest) = (0.0f32, 0.0f32);
    for _ in 0..300 {
        step(&mut app, 1);
        worst = worst.max(gap(&app, ground, Vec2::ZERO, bob, hinge));
        lowest = lowest.min(position(&app, bob).y);
    }
    println!("revolute: anchor error {worst:e} m");
    assert!(lowest < -0.99, "swings down");
    assert!(worst <= 1e-4, "{worst}");
}

#[test]
fn a_revolute_motor_and_limit_stop_a_wheel_past_half_a_turn() {
    let (mut app, ground, wheel) = weightless(1.0);
    let motor = AngularMotor::new(VELOCITY_CONTROL)
        .with_target_velocity(3.0)
        .with_max_torque(1.0);
    app.world_mut().spawn(
        RevoluteJoint::new(ground, wheel)
            .with_angle_limits(-1.0, 4.0)
            .with_motor(motor),
    );
    let mut peak_spin = 0.0f32;
    for _ in 0..240 {
        step(&mut app, 1);
        peak_spin = peak_spin.max(velocity(&app, wheel).1);
    }
    let stopped_at = angle(&app, wheel) + std::f32::consts::TAU;
    println!("revolute motor: peak spin {peak_spin} rad/s, stopped at {stopped_at} rad");
    assert!((peak_spin - 3.0).abs() < 1e-3, "motor speed {peak_spin}");
    assert!(
        (stopped_at - 4.0).abs() < 1e-3,
        "limit beyond π: {stopped_at}"
    );
}

#[test]
fn a_fixed_joint_holds_a_hundred_times_heavier_body() {
    let mut app = app();
    let ground = anchor(&mut app, Vec2::ZERO);
    let light = point_mass(&mut app, Vec2::new(0.5, 0.0), 1.0, 0.02);
    let heavy = point_mass(&mut app, Vec2::new(1.5, 0.0), 100.0, 2.0);
    app.world_mut()
        .spawn(RevoluteJoint::new(ground, light).with_local_anchor2(Vec2::new(-0.5, 0.0)));
    app.world_mut().spawn(
        FixedJoint::new(light, heavy)
            .with_local_anchor1(Vec2::new(0.5, 0.0))
            .with_local_anchor2(Vec2::new(-0.5, 0.0)),
    );
    let mut worst = 0.0f32;
    for _ in 0..300 {
        step(&mut app, 1);
        worst = worst.max(gap(
            &app,
            light,
            Vec2::new(0.5, 0.0),
            heavy,
            Vec2::new(-0.5, 0.0),
        ));
        let turn = angle(&app, heavy) - angle(&app, light);
        let turn =
            (turn + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI;
        worst = worst.max(turn.abs());
    }
    println!("fixed 1:100: worst error {worst:e}");
    assert!(position(&app, heavy).y < -1.0, "swings");
    assert!(worst <= 1e-4, "{worst}");
}

#[test]
fn a_prismatic_joint_slides_along_its_axis_to_its_limit() {
    let (mut app, ground, slider) = weightless(1.0);
    app.world_mut()
        .entity_mut(slider)
        .insert((LinearVelocity(Vec2::new(1.0, 1.0)), AngularVelocity(2.0)));
    app.world_mut()
        .spawn(PrismaticJoint::new(ground, slider).with_limits(-0.5, 0.5));
    step(&mut app, 120);
    let at = position(&app, slider);
    println!("prismatic: at {at}, angle {}", angle(&app, slider));
    assert!((at.x - 0.5).abs() < 1e-3 && at.y.abs() < 1e-4, "{at}");
    assert!(angle(&app, slider).abs() < 1e-4);
}

#[test]
fn a_distance_joint_is_a_rope_between_its_limits() {
    let mut app = app();
    let ground = anchor(&mut app, Vec2::ZERO);
    let bob = point_mass(&mut app, Vec2::new(0.0, -0.5), 1.0, 0.01);
    app.world_mut()
        .spawn(DistanceJoint::new(ground, bob).with_limits(0.2, 1.0));
    let mut longest = 0.0f32;
    for _ in 0..120 {
        step(&mut app, 1);
        longest = longest.max(position(&app, bob).length());
    }
    println!("distance: longest {longest} m");
    assert!(longest <= 1.0 + 1e-3, "{longest}");
    assert!((position(&app, bob).length() - 1.0).abs() < 1e-3);
}

#[test]
fn a_revolute_spring_motor_reaches_its_target_angle() {
    let (mut app, ground, wheel) = weightless(1.0);
    let motor = AngularMotor::new(MotorModel::SpringDamper {
        frequency: 2.0,
        damping_ratio: 1.0,
    })
    .with_target_position(1.2);
    app.world_mut()
        .spawn(RevoluteJoint::new(ground, wheel).with_motor(motor));
    let mut overshoot = 0.0f32;
    for _ in 0..180 {
        step(&mut app, 1);
        overshoot = overshoot.max(angle(&app, wheel) - 1.2);
    }
    let (at, spin) = (angle(&app, wheel), velocity(&app, wheel).1);
    println!("revolute target: at {at} rad, spin {spin} rad/s, overshoot {overshoot} rad");
    assert!((at - 1.2).abs() < 1e-3, "{at}");
    assert!(spin.abs() < 1e-3, "{spin}");
    assert!(overshoot < 1e-3, "critically damped: {overshoot}");
}

#[test]
fn a_prismatic_velocity_motor_drives_at_its_speed_within_its_force() {
    let (mut app, ground, slider) = weightless(2.0);
    let motor = LinearMotor::new(VELOCITY_CONTROL)
        .with_target_velocity(1.5)
        .with_max_force(3.0);
    app.world_mut()
        .spawn(PrismaticJoint::new(ground, slider).with_motor(motor));
    // 3 N on 2 kg: 1.5 m/s² until the target speed, reached at 1 s.
    step(&mut app, 30);
    let half_way = velocity(&app, slider).0;
    step(&mut app, 60);
    let cruising = velocity(&app, slider).0;
    let at = position(&app, slider);
    println!("prismatic motor: {half_way} m/s at 0.5 s, {cruising} m/s at 1.5 s, at {at}");
    assert!((half_way.x - 0.75).abs() < 0.02, "force-bound: {half_way}");
    assert!((cruising.x - 1.5).abs() < 1e-3, "speed: {cruising}");
    assert!(
        at.y.abs() < 1e-4 && cruising.y.abs() < 1e-4,
        "on its axis: {at}"
    );
}

#[test]
fn a_prismatic_spring_motor_oscillates_at_its_frequency_and_decays_at_its_damping() {
    let (frequency, damping_ratio) = (1.0f32, 0.1f32);
    let (mut app, ground, slider) = weightless(1.0);
    app.world_mut()
        .entity_mut(slider)
        .insert(LinearVelocity(Vec2::new(1.0, 0.0)));
    let motor = LinearMotor::new(MotorModel::SpringDamper {
        frequency,
        damping_ratio,
    });
    app.world_mut()
        .spawn(PrismaticJoint::new(ground, slider).with_motor(motor));
    // The peaks of x(t): their spacing is the damped period, their ratio the decay.
    let mut peaks: Vec<(f32, f32)> = Vec::new();
    let mut previous = [0.0f32; 2];
    for n in 1..=300 {
        step(&mut app, 1);
        let x = position(&app, slider).x;
        if previous[1] > previous[0] && previous[1] >= x {
            peaks.push(((n - 1) as f32 * DT, previous[1]));
        }
        previous = [previous[1], x];
    }
    let omega = std::f32::consts::TAU * frequency;
    let damped = omega * (1.0 - damping_ratio * damping_ratio).sqrt();
    let period = std::f32::consts::TAU / damped;
    let exact_decay = (-damping_ratio * omega * period).exp();
    // Avian's spring-damper formula and nape's soft row are one implicit Euler step per
    // substep `h`, whose map has determinant 1/d, d = 1 + 2ζωh + ω²h²: over a period the
    // amplitude falls by d^(−T/2h), the physical decay and the scheme's own damping.
    let h = DT / app.world().resource::<SubstepCount>().0 as f32;
    let d = 1.0 + 2.0 * damping_ratio * omega * h + omega * omega * h * h;
    let decay = d.powf(-period / (2.0 * h));
    let measured_period = peaks[1].0 - peaks[0].0;
    let measured_decay = peaks[1].1 / peaks[0].1;
    println!(
        "spring motor: period {measured_period} s (want {period}), decay {measured_decay} \
         (want {decay}; {exact_decay} in continuous time)"
    );
    assert!(peaks.len() >= 3, "{peaks:?}");
    assert!(
        (measured_period / period - 1.0).abs() < 0.03,
        "{measured_period}"
    );
    assert!(
        (measured_decay / decay - 1.0).abs() < 0.01,
        "{measured_decay}"
    );
}

#[test]
fn a_motor_switched_from_spring_to_velocity_control_lets_go_of_its_target() {
    let (mut app, ground, wheel) = weightless(1.0);
    let spring = AngularMotor::new(MotorModel::SpringDamper {
        frequency: 2.0,
        damping_ratio: 1.0,
    });
    let joint = app
        .world_mut()
        .spawn(RevoluteJoint::new(ground, wheel).with_motor(spring))
        .id();
    step(&mut app, 30);
    let velocity_control = AngularMotor::new(VELOCITY_CONTROL).with_target_velocity(2.0);
    app.world_mut()
        .get_mut::<RevoluteJoint>(joint)
        .unwrap()
        .motor = velocity_control;
    step(&mut app, 60);
    let spin = velocity(&app, wheel).1;
    println!("switched motor: spin {spin} rad/s");
    assert!((spin - 2.0).abs() < 1e-3, "{spin}");
}
