//! nape's per-joint settings inside Avian: soft rows, limits on wound angles, motors,
//! `max_force`, breaking, dominance, a `#[constraint]` of the user's own, and the
//! schedules with every joint type at once.

mod support;

use avian2d::prelude::*;
use bevy::prelude::*;
use nape::{
    AngleJoint, BodyHandle, BreakCause, ConstraintSettings, DistanceJoint, LineJoint, MotorJoint,
    PivotJoint, PulleyJoint, WeldJoint, constraint,
};
use nape_avian::{JointBroken, NapeJoint, NapeJointsAppExt, slots};
use support::*;

/// A bob of 1 kg hung 1 m below a static anchor by a pivot with `settings`.
fn hang(app: &mut App, settings: ConstraintSettings) -> (Entity, Entity) {
    let ground = anchor(app, Vec2::ZERO);
    let bob = point_mass(app, Vec2::new(0.0, -1.0), 1.0, 0.01);
    let [a, b] = slots();
    let pivot = PivotJoint::new(a, b, nape::Vec2::ZERO, nape::Vec2::new(0.0, 1.0));
    let joint = app
        .world_mut()
        .spawn(NapeJoint::new(pivot, [ground, bob]).with_settings(settings))
        .id();
    (bob, joint)
}

/// Every `JointBroken` message, gathered after each update.
#[derive(Resource, Default)]
struct Broken(Vec<JointBroken>);

fn gather_breaks(app: &mut App) {
    app.init_resource::<Broken>();
    app.add_systems(
        PostUpdate,
        |mut reader: MessageReader<JointBroken>, mut broken: ResMut<Broken>| {
            broken.0.extend(reader.read().copied());
        },
    );
}

#[test]
fn a_soft_pivot_stretches_by_its_load_over_its_stiffness() {
    let mut app = app();
    let frequency = 2.0;
    let (bob, _) = hang(&mut app, ConstraintSettings::soft(frequency, 1.0));
    step(&mut app, 240);
    let stretch = -1.0 - position(&app, bob).y;
    // The stiffness is the row's effective mass (1 kg) times ω².
    let expected = G / (std::f32::consts::TAU * frequency).powi(2);
    println!("soft pivot: stretch {stretch} m, expected {expected} m");
    assert!((stretch - expected).abs() <= 0.03 * expected);
}

#[test]
fn max_force_lets_a_soft_joint_slip() {
    let mut app = app();
    let settings = ConstraintSettings {
        max_force: 0.5 * G,
        ..ConstraintSettings::soft(10.0, 1.0)
    };
    let (bob, _) = hang(&mut app, settings);
    step(&mut app, 60);
    let fallen = -1.0 - position(&app, bob).y;
    // Half the weight held: it falls at about g/2 (the spring's own stretch aside).
    let half_g = 0.5 * 0.5 * G;
    println!("max_force: fell {fallen} m in 1 s, g/2 gives {half_g} m");
    assert!((fallen - half_g).abs() < 0.1 * half_g);
}

#[test]
fn a_joint_breaks_under_force_and_is_removed_or_disabled() {
    for remove_on_break in [true, false] {
        let mut app = app();
        gather_breaks(&mut app);
        let settings = ConstraintSettings {
            max_force: 0.5 * G,
            break_under_force: true,
            remove_on_break,
            ..ConstraintSettings::default()
        };
        let (bob, joint) = hang(&mut app, settings);
        step(&mut app, 10);
        let broken = &app.world().resource::<Broken>().0;
        assert_eq!(broken.len(), 1, "{broken:?}");
        assert_eq!(
            (broken[0].joint, broken[0].cause),
            (joint, BreakCause::Force)
        );
        assert!(broken[0].value > broken[0].limit);
        let entity = app.world().get_entity(joint).ok();
        if remove_on_break {
            assert!(entity.is_none(), "despawned");
        } else {
            assert!(entity.unwrap().contains::<JointDisabled>());
        }
        step(&mut app, 20);
        assert!(position(&app, bob).y < -1.2, "falls free");
    }
}

#[test]
fn a_rope_limit_holds_at_its_length() {
    let mut app = app();
    let ground = anchor(&mut app, Vec2::ZERO);
    let bob = point_mass(&mut app, Vec2::new(0.0, -0.5), 1.0, 0.01);
    let [a, b] = slots();
    let mut rope = DistanceJoint::new(a, b, nape::Vec2::ZERO, nape::Vec2::ZERO, 0.0, 1.0);
    rope.joint_min = 0.0;
    app.world_mut().spawn(NapeJoint::new(rope, [ground, bob]));
    let mut longest = 0.0f32;
    for _ in 0..120 {
        step(&mut app, 1);
        longest = longest.max(position(&app, bob).length());
    }
    println!(
        "rope: longest {longest} m, at rest {}",
        position(&app, bob).length()
    );
    assert!(longest <= 1.0 + 1e-3, "stretched to {longest}");
    assert!((position(&app, bob).length() - 1.0).abs() < 1e-3);
}

#[test]
fn an_angle_limit_counts_whole_turns_against_a_motor() {
    let mut app = app();
    app.insert_resource(Gravity(Vec2::ZERO));
    let ground = anchor(&mut app, Vec2::ZERO);
    let wheel = point_mass(&mut app, Vec2::ZERO, 1.0, 0.1);
    let [a, b] = slots();
    app.world_mut().spawn(NapeJoint::new(
        PivotJoint::new(a, b, nape::Vec2::ZERO, nape::Vec2::ZERO),
        [ground, wheel],
    ));
    let motor = MotorJoint::new(a, b, std::f32::consts::TAU);
    app.world_mut()
        .spawn(
            NapeJoint::new(motor, [ground, wheel]).with_settings(ConstraintSettings {
                max_force: 1.0,
                ..ConstraintSettings::default()
            }),
        );
    // One and a half turns: beyond Avian's (−π, π].
    let turns = 3.0 * std::f32::consts::PI;
    let limit = AngleJoint::new(a, b, f32::NEG_INFINITY, turns);
    app.world_mut()
        .spawn(NapeJoint::new(limit, [ground, wheel]));
    let mut travelled = 0.0f32;
    let mut previous = angle(&app, wheel);
    for _ in 0..300 {
        step(&mut app, 1);
        let now = angle(&app, wheel);
        let turn = now - previous;
        travelled +=
            (turn + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI;
        previous = now;
    }
    let spin = velocity(&app, wheel).1;
    println!("angle limit: travelled {travelled} rad (limit {turns}), spin {spin} rad/s");
    assert!((travelled - turns).abs() < 1e-3, "stopped at {travelled}");
    assert!(spin.abs() < 1e-3);
}

#[test]
fn a_dominant_body_is_not_moved_by_its_joint() {
    let mut app = app();
    app.insert_resource(Gravity(Vec2::ZERO));
    let leader = point_mass(&mut app, Vec2::ZERO, 1.0, 0.1);
    app.world_mut()
        .entity_mut(leader)
        .insert((Dominance(5), LinearVelocity(Vec2::new(1.0, 0.0))));
    let follower = point_mass(&mut app, Vec2::new(0.0, -1.0), 1.0, 0.1);
    let [a, b] = slots();
    let pivot = PivotJoint::new(a, b, nape::Vec2::ZERO, nape::Vec2::new(0.0, 1.0));
    app.world_mut()
        .spawn(NapeJoint::new(pivot, [leader, follower]));
    step(&mut app, 60);
    assert_eq!(velocity(&app, leader).0, Vec2::new(1.0, 0.0));
    let (leader_at, follower_at) = (position(&app, leader), position(&app, follower));
    assert!(follower_at.x > 0.1, "dragged along: {follower_at}");
    assert!(((leader_at - follower_at).length() - 1.0).abs() < 1e-3);
}

/// `body2`'s centre stays on the circle of `radius` about `body1`'s.
#[constraint(position = (body2.position - body1.position).length() - radius)]
#[derive(Clone, Copy, Debug)]
struct OnCircle {
    body1: BodyHandle,
    body2: BodyHandle,
    radius: f32,
}

#[test]
fn every_joint_type_runs_in_the_schedules_with_a_users_own() {
    let mut app = app_with(|app| {
        app.add_nape_joint::<OnCircle, _, _>();
    });
    let ground = anchor(&mut app, Vec2::ZERO);
    let bodies: Vec<Entity> = (0..5)
        .map(|i| point_mass(&mut app, Vec2::new(i as f32 + 1.0, 0.0), 1.0, 0.1))
        .collect();
    let [a, b, c, d] = slots();
    let (p, q) = (nape::Vec2::ZERO, nape::Vec2::new(-1.0, 0.0));
    let world = app.world_mut();
    world.spawn(NapeJoint::new(
        PivotJoint::new(a, b, p, q),
        [ground, bodies[0]],
    ));
    world.spawn(NapeJoint::new(
        WeldJoint::new(a, b, p, q, 0.0),
        [bodies[0], bodies[1]],
    ));
    world.spawn(NapeJoint::new(
        AngleJoint::new(a, b, -1.0, 1.0),
        [bodies[1], bodies[2]],
    ));
    world.spawn(NapeJoint::new(
        DistanceJoint::new(a, b, p, p, 0.5, 1.5),
        [bodies[1], bodies[2]],
    ));
    world.spawn(NapeJoint::new(
        LineJoint::new(a, b, p, p, nape::Vec2::X, -1.0, 1.0),
        [bodies[2], bodies[3]],
    ));
    world.spawn(NapeJoint::new(
        MotorJoint::new(a, b, 1.0),
        [bodies[2], bodies[3]],
    ));
    let pulley = PulleyJoint {
        body1: a,
        body2: b,
        body3: c,
        body4: d,
        anchor1: p,
        anchor2: p,
        anchor3: p,
        anchor4: p,
        joint_min: 0.0,
        joint_max: 10.0,
        ratio: 1.0,
    };
    world.spawn(NapeJoint::new(
        pulley,
        [ground, bodies[1], ground, bodies[3]],
    ));
    let on_circle = OnCircle {
        body1: a,
        body2: b,
        radius: 5.0,
    };
    world.spawn(NapeJoint::new(on_circle, [ground, bodies[4]]));
    // Avian builds its schedules with ambiguity errors on: a conflict panics here.
    step(&mut app, 60);
    let radius = position(&app, bodies[4]).length();
    assert!((radius - 5.0).abs() < 1e-3, "on the circle: {radius}");
    assert!(position(&app, bodies[4]).y < -1.0, "swinging");
}
