//! Energy inside Avian, issue 30's bounds: a pendulum, a two-link chain and a whirled
//! stone on nape joints. The energy is read from the velocities users read at a step's
//! end, with the plugin's default `StepEndVelocity::Synchronized`; with `Integrated`
//! (Avian's own velocities), Avian's integrator conserves `E − (h/2)·m·g·v_y` instead.

mod support;

use avian2d::prelude::*;
use bevy::prelude::*;
use nape::{DistanceJoint, PivotJoint};
use nape_avian::{NapeJoint, NapeJointState, StepEndVelocity, slots};
use support::*;

/// An app whose jointed bodies show `velocity` between steps.
fn app_showing(velocity: StepEndVelocity) -> App {
    app_with(|app| {
        app.insert_resource(velocity);
    })
}

/// Kinetic and potential energy of `bodies`, each `(entity, mass, inertia)`.
fn energy(app: &App, bodies: &[(Entity, f32, f32)]) -> f32 {
    bodies
        .iter()
        .map(|&(body, mass, inertia)| {
            let (v, w) = velocity(app, body);
            0.5 * mass * v.length_squared()
                + 0.5 * inertia * w * w
                + mass * G * position(app, body).y
        })
        .sum()
}

/// A 1 kg bob at `length` m along +x from a pivot at the origin. Returns (bob, joint).
fn pendulum(app: &mut App, length: f32, inertia: f32) -> (Entity, Entity) {
    let ground = anchor(app, Vec2::ZERO);
    let bob = point_mass(app, Vec2::new(length, 0.0), 1.0, inertia);
    let [a, b] = slots();
    let pivot = PivotJoint::new(a, b, nape::Vec2::ZERO, nape::Vec2::new(-length, 0.0));
    let joint = app
        .world_mut()
        .spawn(NapeJoint::new(pivot, [ground, bob]))
        .id();
    (bob, joint)
}

#[test]
fn pendulum_keeps_its_anchors_and_energy() {
    let (mass, inertia, length) = (1.0, 0.01, 1.0);
    let mut synchronized = app_showing(StepEndVelocity::Synchronized);
    let mut integrated = app_showing(StepEndVelocity::Integrated);
    let (bob, joint) = pendulum(&mut synchronized, length, inertia);
    pendulum(&mut integrated, length, inertia);
    let body = [(bob, mass, inertia)];
    let h = DT / synchronized.world().resource::<SubstepCount>().0 as f32;
    let conserved = |app: &App| energy(app, &body) - 0.5 * h * mass * G * velocity(app, bob).0.y;
    let start = energy(&synchronized, &body);
    let conserved_start = conserved(&integrated);
    let (mut worst_anchor, mut worst_off, mut worst_drift, mut worst_integrated) =
        (0.0f32, 0.0f32, 0.0f32, 0.0f32);
    let mut lowest = 0.0f32;
    let swing = mass * G * length;
    for _ in 0..1200 {
        step(&mut synchronized, 1);
        step(&mut integrated, 1);
        let rotation = *synchronized.world().get::<Rotation>(bob).unwrap();
        let anchor = position(&synchronized, bob) + rotation * Vec2::new(-length, 0.0);
        worst_anchor = worst_anchor.max(anchor.length());
        worst_off = worst_off.max((energy(&synchronized, &body) - start).abs());
        worst_integrated = worst_integrated.max((energy(&integrated, &body) - start).abs());
        worst_drift = worst_drift.max((conserved(&integrated) - conserved_start).abs());
        lowest = lowest.min(position(&synchronized, bob).y);
    }
    let state = synchronized
        .world()
        .get::<NapeJointState<PivotJoint, 2, 2>>(joint)
        .unwrap();
    println!(
        "anchor error {worst_anchor:e} m; over 20 s, E off by {:.4} % of the swing at worst \
         ({:.4} % from Avian's own velocities), Avian's conserved energy by {:.4} %; joint error {:e}",
        worst_off / swing * 100.0,
        worst_integrated / swing * 100.0,
        worst_drift / swing * 100.0,
        state.error()
    );
    assert!(lowest < -0.99 * length, "it swings down: lowest {lowest}");
    assert!(worst_anchor <= 1e-4, "anchor error {worst_anchor} m");
    // Issue 30's bound, 0.05 % of the swing over 20 s, on the energy users read.
    assert!(worst_off <= 5e-4 * swing, "energy off by {worst_off} J");
    // With Avian's own velocities, on the energy its integrator conserves.
    assert!(
        worst_drift <= 5e-4 * swing,
        "conserved energy drift {worst_drift} J"
    );
    // ... while `E` itself swings by (h/2)·m·g·v_y, 0.39 % of the swing.
    assert!(worst_integrated > 2e-3 * swing && worst_integrated <= 5e-3 * swing);
}

#[test]
fn avians_integrator_alone_moves_the_step_end_energy_by_half_a_substep_of_gravity_work() {
    let mut app = app();
    let mass = 2.0;
    // No joint: the plugin leaves the body's velocity as Avian's integrator left it.
    let body = point_mass(&mut app, Vec2::ZERO, mass, 0.1);
    let h = DT / app.world().resource::<SubstepCount>().0 as f32;
    step(&mut app, 60);
    let v_y = velocity(&app, body).0.y;
    let predicted = 0.5 * h * mass * G * v_y;
    let energy = energy(&app, &[(body, mass, 0.1)]);
    println!("free fall: energy changed by {energy} J, (h/2)·m·g·v_y = {predicted} J");
    assert!((energy - predicted).abs() <= 1e-3 * predicted.abs());
}

/// The worst |E − E₀| over 10 s of two uniform 1 m, 1 kg rods pinned end to end and
/// released horizontal, as a fraction of their swing (the centres drop 0.5 m and 1.5 m).
fn two_link_chain_energy_off(shown: StepEndVelocity) -> f32 {
    let (mass, inertia) = (1.0, 1.0 / 12.0);
    let mut app = app_showing(shown);
    let ground = anchor(&mut app, Vec2::ZERO);
    let first = point_mass(&mut app, Vec2::new(0.5, 0.0), mass, inertia);
    let second = point_mass(&mut app, Vec2::new(1.5, 0.0), mass, inertia);
    let [a, b] = slots();
    let (left, right) = (nape::Vec2::new(-0.5, 0.0), nape::Vec2::new(0.5, 0.0));
    for (bodies, anchor1) in [
        ([ground, first], nape::Vec2::ZERO),
        ([first, second], right),
    ] {
        app.world_mut()
            .spawn(NapeJoint::new(PivotJoint::new(a, b, anchor1, left), bodies));
    }
    let bodies = [(first, mass, inertia), (second, mass, inertia)];
    let start = energy(&app, &bodies);
    let mut worst = 0.0f32;
    for _ in 0..600 {
        step(&mut app, 1);
        worst = worst.max((energy(&app, &bodies) - start).abs());
    }
    worst / (2.0 * mass * G)
}

#[test]
fn two_link_chain_keeps_its_energy() {
    let synchronized = two_link_chain_energy_off(StepEndVelocity::Synchronized);
    let integrated = two_link_chain_energy_off(StepEndVelocity::Integrated);
    println!(
        "two-link chain: E off by {:.4} % of the swing at worst over 10 s ({:.4} % from Avian's own velocities)",
        synchronized * 100.0,
        integrated * 100.0
    );
    assert!(
        synchronized <= 5e-3,
        "energy off by {synchronized} of the swing"
    );
}

#[test]
fn whirled_stone_keeps_its_speed_and_angular_momentum() {
    let mut app = app_with(|app| {
        app.insert_resource(Gravity(Vec2::ZERO));
    });
    let ground = anchor(&mut app, Vec2::ZERO);
    let stone = point_mass(&mut app, Vec2::new(1.0, 0.0), 1.0, 0.01);
    let speed = std::f32::consts::TAU;
    app.world_mut()
        .entity_mut(stone)
        .insert(LinearVelocity(Vec2::new(0.0, speed)));
    let [a, b] = slots();
    let rope = DistanceJoint::new(a, b, nape::Vec2::ZERO, nape::Vec2::ZERO, 1.0, 1.0);
    app.world_mut().spawn(NapeJoint::new(rope, [ground, stone]));
    let momentum = |app: &App| position(app, stone).perp_dot(velocity(app, stone).0);
    let initial_momentum = momentum(&app);
    step(&mut app, 1);
    // The poses show the last substep's drift off the circle, (v·h)²/2 = 1.5e-4 m, and
    // the speed is the angular momentum over that radius: 0.015 % below the start.
    let first = velocity(&app, stone).0.length();
    let (mut worst_speed, mut worst_momentum) = (0.0f32, 0.0f32);
    for _ in 0..600 {
        step(&mut app, 1);
        worst_speed = worst_speed.max((velocity(&app, stone).0.length() / first - 1.0).abs());
        worst_momentum = worst_momentum.max((momentum(&app) / initial_momentum - 1.0).abs());
    }
    let radius = position(&app, stone).length();
    println!(
        "whirled stone: speed {:.4} % below the start after one step, then off by {:.5} % at worst \
         over 10 s; angular momentum off by {worst_momentum:e}; radius {radius}",
        (1.0 - first / speed) * 100.0,
        worst_speed * 100.0
    );
    assert!((radius - 1.0).abs() < 2e-4, "radius {radius}");
    assert!(worst_speed <= 1e-4, "speed drifted by {worst_speed}");
    assert!(
        worst_momentum <= 1e-5,
        "angular momentum off by {worst_momentum}"
    );
}
