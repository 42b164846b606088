//! The velocities shown between steps (`StepEndVelocity`): Avian's poses are the same bit
//! for bit either way, a velocity the user sets carries into the next step, and islands
//! touching contacts keep Avian's own velocities (a ragdoll at rest on the ground reads
//! zero and falls asleep).

mod support;

use avian2d::prelude::*;
use bevy::prelude::*;
use nape::{AngleJoint, ConstraintSettings, PivotJoint};
use nape_avian::{NapeJoint, StepEndVelocity, slots};
use support::*;

fn app_showing(velocity: StepEndVelocity) -> App {
    app_with(|app| {
        app.insert_resource(velocity);
    })
}

/// Pins `child`'s `on_child` to `parent`'s `on_parent`.
fn pin(app: &mut App, parent: Entity, child: Entity, on_parent: Vec2, on_child: Vec2) -> Entity {
    let [a, b] = slots();
    let pivot = PivotJoint::new(a, b, nv(on_parent), nv(on_child));
    app.world_mut()
        .spawn((
            NapeJoint::new(pivot, [parent, child]),
            JointCollisionDisabled,
        ))
        .id()
}

/// A dynamic body with `collider` at `at`.
fn part(app: &mut App, at: Vec2, collider: Collider) -> Entity {
    app.world_mut()
        .spawn((RigidBody::Dynamic, Position(at), collider))
        .id()
}

/// Every path of the plugin at once: a pendulum and a three-link chain (exact), a soft
/// pendulum and an angle-limited pair (Gauss–Seidel), and a chain of capsules falling onto
/// a box (contacts). Returns the pendulum's bob and the capsules.
fn every_path(app: &mut App) -> (Entity, Vec<Entity>) {
    let ground = anchor(app, Vec2::ZERO);
    let bob = point_mass(app, Vec2::new(1.0, 0.0), 1.0, 0.01);
    pin(app, ground, bob, Vec2::ZERO, Vec2::new(-1.0, 0.0));
    let mut previous = ground;
    for i in 0..3 {
        let link = point_mass(app, Vec2::new(-0.5 - i as f32, 0.0), 1.0, 0.1);
        let on_previous = if i == 0 {
            Vec2::ZERO
        } else {
            Vec2::new(-0.5, 0.0)
        };
        pin(app, previous, link, on_previous, Vec2::new(0.5, 0.0));
        previous = link;
    }
    let soft_bob = point_mass(app, Vec2::new(0.0, -1.0), 1.0, 0.01);
    let soft = pin(
        app,
        ground,
        soft_bob,
        Vec2::new(0.0, -0.5),
        Vec2::new(0.0, 0.5),
    );
    app.world_mut()
        .get_mut::<NapeJoint<PivotJoint, 2, 2>>(soft)
        .unwrap()
        .settings = ConstraintSettings::soft(3.0, 0.1);
    let arm = point_mass(app, Vec2::new(3.5, 0.0), 1.0, 0.1);
    let forearm = point_mass(app, Vec2::new(4.5, 0.0), 1.0, 0.1);
    let shoulder = anchor(app, Vec2::new(3.0, 0.0));
    pin(app, shoulder, arm, Vec2::ZERO, Vec2::new(-0.5, 0.0));
    pin(app, arm, forearm, Vec2::new(0.5, 0.0), Vec2::new(-0.5, 0.0));
    let [a, b] = slots();
    app.world_mut().spawn(NapeJoint::new(
        AngleJoint::new(a, b, -0.5, 0.5),
        [arm, forearm],
    ));
    app.world_mut().spawn((
        RigidBody::Static,
        Position(Vec2::new(8.0, -2.0)),
        Collider::rectangle(4.0, 1.0),
    ));
    // Capsules lying along +x (their axis is their local y).
    let capsules: Vec<Entity> = (0..6)
        .map(|i| {
            app.world_mut()
                .spawn((
                    RigidBody::Dynamic,
                    Position(Vec2::new(7.0 + 0.4 * i as f32, -0.5)),
                    Rotation::degrees(90.0),
                    Collider::capsule(0.05, 0.3),
                ))
                .id()
        })
        .collect();
    for pair in capsules.windows(2) {
        pin(
            app,
            pair[0],
            pair[1],
            Vec2::new(0.0, -0.2),
            Vec2::new(0.0, 0.2),
        );
    }
    (bob, capsules)
}

/// The bits of every body's pose.
fn pose_bits(app: &mut App) -> Vec<[u32; 4]> {
    let mut query = app
        .world_mut()
        .query_filtered::<(Entity, &Position, &Rotation), With<RigidBody>>();
    let mut poses: Vec<(Entity, [u32; 4])> = query
        .iter(app.world())
        .map(|(e, p, r)| (e, [p.x, p.y, r.cos, r.sin].map(f32::to_bits)))
        .collect();
    poses.sort_by_key(|&(e, _)| e);
    poses.into_iter().map(|(_, bits)| bits).collect()
}

#[test]
fn avians_poses_are_bit_identical_with_and_without_synchronized_velocities() {
    let mut synchronized = app_showing(StepEndVelocity::Synchronized);
    let mut integrated = app_showing(StepEndVelocity::Integrated);
    let (bob, capsules) = every_path(&mut synchronized);
    every_path(&mut integrated);
    let (mut bob_differs, mut capsules_touched_equal) = (false, false);
    for n in 0..240 {
        step(&mut synchronized, 1);
        step(&mut integrated, 1);
        assert_eq!(
            pose_bits(&mut synchronized),
            pose_bits(&mut integrated),
            "poses differ after step {}",
            n + 1
        );
        bob_differs |= velocity(&synchronized, bob) != velocity(&integrated, bob);
        if n >= 200 {
            // At rest on the box: the capsules' island touches contacts.
            let same = capsules
                .iter()
                .all(|&c| velocity(&synchronized, c) == velocity(&integrated, c));
            assert!(same, "a capsule on the box shows Avian's velocity");
            capsules_touched_equal = true;
        }
    }
    assert!(bob_differs, "the pendulum's velocity was synchronized");
    assert!(capsules_touched_equal);
    assert!(
        position(&synchronized, capsules[0]).y > -1.6,
        "the capsules rest on the box"
    );
}

/// Where a pendulum's bob is 60 steps after the user added `kick` m/s along its swing
/// to the velocity they read after 30 steps.
fn kicked_pendulum(shown: StepEndVelocity, kick: f32) -> Vec2 {
    let mut app = app_showing(shown);
    let ground = anchor(&mut app, Vec2::ZERO);
    let bob = point_mass(&mut app, Vec2::new(1.0, 0.0), 1.0, 0.01);
    pin(&mut app, ground, bob, Vec2::ZERO, Vec2::new(-1.0, 0.0));
    step(&mut app, 30);
    let mut v = app.world_mut().get_mut::<LinearVelocity>(bob).unwrap();
    let along = v.0.normalize();
    v.0 += kick * along;
    step(&mut app, 60);
    position(&app, bob)
}

#[test]
fn a_velocity_the_user_sets_carries_into_the_step() {
    let synchronized = kicked_pendulum(StepEndVelocity::Synchronized, 2.0);
    let integrated = kicked_pendulum(StepEndVelocity::Integrated, 2.0);
    let unkicked = kicked_pendulum(StepEndVelocity::Synchronized, 0.0);
    let gap = (synchronized - integrated).length();
    println!(
        "the kicked pendulums end {gap:e} m apart, {} m from the unkicked one",
        (synchronized - unkicked).length()
    );
    assert!(gap < 1e-4, "the kick carried differently: {gap} m apart");
    assert!(
        (synchronized - unkicked).length() > 0.1,
        "the kick changed the swing"
    );
}

/// A limp ragdoll (pivots only, which the exact solve takes) lying on the ground.
/// Returns its parts.
fn ragdoll_on_the_ground(app: &mut App) -> Vec<Entity> {
    app.world_mut().spawn((
        RigidBody::Static,
        Position(Vec2::new(0.0, -0.5)),
        Collider::rectangle(8.0, 1.0),
    ));
    let torso = part(app, Vec2::new(0.0, 0.25), Collider::rectangle(0.5, 0.3));
    let head = part(app, Vec2::new(0.45, 0.25), Collider::circle(0.15));
    pin(
        app,
        torso,
        head,
        Vec2::new(0.25, 0.0),
        Vec2::new(-0.15, 0.0),
    );
    let mut parts = vec![torso, head];
    for side in [-0.12f32, 0.12] {
        let upper = part(app, Vec2::new(-0.4, 0.25 + side), Collider::circle(0.1));
        let lower = part(app, Vec2::new(-0.65, 0.25 + side), Collider::circle(0.1));
        pin(
            app,
            torso,
            upper,
            Vec2::new(-0.25, side),
            Vec2::new(0.15, 0.0),
        );
        pin(
            app,
            upper,
            lower,
            Vec2::new(-0.1, 0.0),
            Vec2::new(0.15, 0.0),
        );
        parts.extend([upper, lower]);
    }
    parts
}

#[test]
fn a_ragdoll_at_rest_on_the_ground_reads_avians_velocity_and_falls_asleep() {
    let mut synchronized = app_showing(StepEndVelocity::Synchronized);
    let mut integrated = app_showing(StepEndVelocity::Integrated);
    let parts = ragdoll_on_the_ground(&mut synchronized);
    ragdoll_on_the_ground(&mut integrated);
    let mut slept = None;
    for n in 0..300 {
        step(&mut synchronized, 1);
        step(&mut integrated, 1);
        if n >= 20 {
            // On the ground: Avian's own velocities, which its sleeping reads too.
            for &p in &parts {
                assert_eq!(velocity(&synchronized, p), velocity(&integrated, p));
            }
        }
        if parts
            .iter()
            .all(|&p| synchronized.world().get::<Sleeping>(p).is_some())
        {
            slept = Some(n + 1);
            break;
        }
    }
    let fastest = parts
        .iter()
        .map(|&p| velocity(&synchronized, p).0.length())
        .fold(0.0, f32::max);
    println!(
        "ragdoll at rest: asleep after {slept:?} steps, its fastest part reading {fastest} m/s"
    );
    assert!(slept.is_some(), "the ragdoll sleeps");
    // Half a substep of gravity, what the synchronized velocity would add, is 0.014 m/s.
    assert!(fastest < 5e-3, "reads {fastest} m/s at rest");
}

#[test]
fn a_bob_hanging_from_a_moving_kinematic_body_reads_its_velocity() {
    let mut app = app();
    let carrier = app
        .world_mut()
        .spawn((
            RigidBody::Kinematic,
            Position(Vec2::ZERO),
            LinearVelocity(Vec2::new(1.0, 0.0)),
        ))
        .id();
    let bob = point_mass(&mut app, Vec2::new(0.0, -1.0), 1.0, 0.01);
    app.world_mut()
        .entity_mut(bob)
        .insert(LinearVelocity(Vec2::new(1.0, 0.0)));
    pin(&mut app, carrier, bob, Vec2::ZERO, Vec2::new(0.0, 1.0));
    step(&mut app, 60);
    let (v, w) = velocity(&app, bob);
    println!("carried bob reads {v:?} m/s, {w} rad/s");
    assert!((v - Vec2::new(1.0, 0.0)).length() < 1e-4 && w.abs() < 1e-4);
}
