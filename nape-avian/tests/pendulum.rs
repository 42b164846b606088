//! A pendulum on a nape pivot inside Avian: the anchors stay together and the energy
//! Avian's integrator conserves stays within issue 30's bound.

mod support;

use avian2d::prelude::*;
use bevy::prelude::*;
use nape::PivotJoint;
use nape_avian::{NapeJoint, NapeJointState, slots};
use support::*;

#[test]
fn pendulum_keeps_its_anchors_and_energy() {
    let mut app = app();
    let (mass, inertia, length) = (1.0, 0.01, 1.0);
    let ground = anchor(&mut app, Vec2::ZERO);
    let bob = point_mass(&mut app, Vec2::new(length, 0.0), mass, inertia);
    let [a, b] = slots();
    let pivot = PivotJoint::new(a, b, nape::Vec2::ZERO, nape::Vec2::new(-length, 0.0));
    let joint = app
        .world_mut()
        .spawn(NapeJoint::new(pivot, [ground, bob]))
        .id();
    let energy = |app: &App| {
        let (v, w) = velocity(app, bob);
        0.5 * mass * v.length_squared() + 0.5 * inertia * w * w + mass * G * position(app, bob).y
    };
    let h = DT / app.world().resource::<SubstepCount>().0 as f32;
    let conserved = |app: &App| energy(app) - 0.5 * h * mass * G * velocity(app, bob).0.y;
    let (start, conserved_start) = (energy(&app), conserved(&app));
    let (mut worst_anchor, mut worst_gain, mut lowest) = (0.0f32, 0.0f32, 0.0f32);
    let mut worst_drift = 0.0f32;
    let swing = mass * G * length;
    for _ in 0..1200 {
        step(&mut app, 1);
        let rotation = *app.world().get::<Rotation>(bob).unwrap();
        let anchor = position(&app, bob) + rotation * Vec2::new(-length, 0.0);
        worst_anchor = worst_anchor.max(anchor.length());
        worst_gain = worst_gain.max(energy(&app) - start);
        worst_drift = worst_drift.max((conserved(&app) - conserved_start).abs());
        lowest = lowest.min(position(&app, bob).y);
    }
    let state = app
        .world()
        .get::<NapeJointState<PivotJoint, 2, 2>>(joint)
        .unwrap();
    let lost = (start - energy(&app)) / swing;
    println!(
        "anchor error {worst_anchor:e} m, energy gain {worst_gain:e} J, lost {:.3} % of the swing in 20 s, \
         conserved energy off by {:.4} % at worst, joint error {:e}",
        lost * 100.0,
        worst_drift / swing * 100.0,
        state.error()
    );
    assert!(lowest < -0.99 * length, "it swings down: lowest {lowest}");
    assert!(worst_anchor <= 1e-4, "anchor error {worst_anchor} m");
    // Avian integrates by symplectic Euler (the kick, then `x += h·v`): the energy read at
    // a step's end swings by (h/2)·m·g·v_y about the one it conserves, 0.39 % of the swing.
    assert!(worst_gain <= 5e-3 * swing, "energy gain {worst_gain} J");
    assert!(lost.abs() <= 5e-3, "energy lost: {lost}");
    // Issue 30's bound, 0.05 % over 20 s, on the energy Avian's integrator conserves.
    assert!(
        worst_drift <= 5e-4 * swing,
        "conserved energy drift {worst_drift} J"
    );
}

#[test]
fn avians_integrator_alone_moves_the_step_end_energy_by_half_a_substep_of_gravity_work() {
    let mut app = app();
    let mass = 2.0;
    let body = point_mass(&mut app, Vec2::ZERO, mass, 0.1);
    let energy = |app: &App| {
        let v = velocity(app, body).0;
        0.5 * mass * v.length_squared() + mass * G * position(app, body).y
    };
    let h = DT / app.world().resource::<SubstepCount>().0 as f32;
    step(&mut app, 60);
    let v_y = velocity(&app, body).0.y;
    let predicted = 0.5 * h * mass * G * v_y;
    println!(
        "free fall: energy changed by {} J, (h/2)·m·g·v_y = {predicted} J",
        energy(&app)
    );
    assert!((energy(&app) - predicted).abs() <= 1e-3 * predicted.abs());
}
