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
    let mut app = app();
    app.insert_resource(Gravity(Vec2::ZERO));
    let ground = anchor(&mut app, Vec2::ZERO);
    let wheel = point_mass(&mut app, Vec2::ZERO, 1.0, 0.1);
    let motor = AngularMotor::new(MotorModel::AccelerationBased {
        stiffness: 0.0,
        damping: 1.0,
    })
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
    let mut app = app();
    app.insert_resource(Gravity(Vec2::ZERO));
    let ground = anchor(&mut app, Vec2::ZERO);
    let slider = point_mass(&mut app, Vec2::ZERO, 1.0, 0.1);
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
