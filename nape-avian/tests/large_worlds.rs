//! Large worlds inside Avian's `f64` build (`cargo test --no-default-features --features
//! f64 --test large_worlds`): Avian holds positions in `f64`, and the plugin hands each
//! joint its bodies' positions relative to its first body's, so a chain 10,000 km from the
//! origin keeps its pins as it does at the origin. Without the `f64` feature this file
//! holds no test (Avian's `f32` positions cannot place a body 100 km out closer than 8 mm).
#![cfg(feature = "f64")]

use avian2d::math::Vector;
use avian2d::physics_transform::PhysicsTransformConfig;
use avian2d::prelude::*;
use bevy::prelude::*;
use nape::PivotJoint;
use nape_avian::{NapeJoint, headless_app, slots};

/// Bevy's `Transform` is `f32`, so far out Avian must not read positions back from it
/// (`transform_to_position`): at 10,000 km its rounding is a metre.
fn far_out(app: &mut App) {
    app.insert_resource(PhysicsTransformConfig {
        transform_to_position: false,
        ..default()
    });
}

/// Links of the chain, each 1 m long, 0.25 kg.
const LINKS: usize = 20;
const LINK_MASS: f32 = 0.25;
/// A thin rod's inertia about its centre, `m L² / 12`.
const LINK_INERTIA: f32 = LINK_MASS / 12.0;
const G: f64 = 9.81;

/// The worst pin gap (m), measured in `f64` from Avian's own positions and rotations, over
/// 600 steps of a chain of [`LINKS`] links pinned to a static body at `origin` and released
/// horizontal, and its energy change as a share of its swing's energy `m g L N² / 2`
/// (heights relative to `origin`).
fn chain_at(origin: Vector) -> (f64, f64) {
    let mut app = headless_app(1.0 / 60.0);
    app.insert_resource(Gravity(Vector::new(0.0, -G)));
    far_out(&mut app);
    app.finish();
    app.update();
    let ground = app
        .world_mut()
        .spawn((RigidBody::Static, Position(origin)))
        .id();
    let links: Vec<Entity> = (0..LINKS)
        .map(|i| {
            app.world_mut()
                .spawn((
                    RigidBody::Dynamic,
                    Position(origin + Vector::new(i as f64 + 0.5, 0.0)),
                    Mass(LINK_MASS),
                    AngularInertia(LINK_INERTIA),
                ))
                .id()
        })
        .collect();
    let [a, b] = slots();
    // The pins: (body1, its anchor, body2, its anchor), anchors from the centres.
    let mut pins = vec![(ground, Vector::ZERO, links[0], Vector::new(-0.5, 0.0))];
    for pair in links.windows(2) {
        pins.push((
            pair[0],
            Vector::new(0.5, 0.0),
            pair[1],
            Vector::new(-0.5, 0.0),
        ));
    }
    for &(body1, anchor1, body2, anchor2) in &pins {
        let pivot = PivotJoint::new(
            a,
            b,
            nape::Vec2::new(anchor1.x as f32, anchor1.y as f32),
            nape::Vec2::new(anchor2.x as f32, anchor2.y as f32),
        );
        app.world_mut().spawn(NapeJoint::new(pivot, [body1, body2]));
    }
    let world_point = |app: &App, body: Entity, anchor: Vector| {
        let world = app.world();
        let position = world.get::<Position>(body).unwrap().0;
        let rotation = *world.get::<Rotation>(body).unwrap();
        position + rotation * anchor
    };
    let energy = |app: &App| -> f64 {
        links
            .iter()
            .map(|&link| {
                let world = app.world();
                let v = world.get::<LinearVelocity>(link).unwrap().0;
                let w = world.get::<AngularVelocity>(link).unwrap().0;
                let y = world.get::<Position>(link).unwrap().0.y - origin.y;
                0.5 * f64::from(LINK_MASS) * v.length_squared()
                    + 0.5 * f64::from(LINK_INERTIA) * w * w
                    + f64::from(LINK_MASS) * G * y
            })
            .sum()
    };
    let start = energy(&app);
    let mut worst = 0.0f64;
    for _ in 0..600 {
        app.update();
        for &(body1, anchor1, body2, anchor2) in &pins {
            let gap = world_point(&app, body1, anchor1) - world_point(&app, body2, anchor2);
            worst = worst.max(gap.length());
        }
    }
    let swing = f64::from(LINK_MASS) * G * (LINKS * LINKS) as f64 / 2.0;
    (worst, (energy(&app) - start) / swing)
}

/// The chain 1 km, 100 km and 10,000 km out keeps its pins and its energy as it does at
/// the origin. (What the plugin keeps there, a few mm at the chain's first whip, is its
/// own: the pins of nape-core's exact step hold to 1e-7 m; here the distance from the
/// origin adds nothing to it.)
#[test]
fn a_chain_far_from_the_origin_keeps_its_pins_inside_avian() {
    let (origin_gap, origin_energy) = chain_at(Vector::ZERO);
    println!(
        "chain at the origin: worst pin gap {origin_gap:.2e} m, energy change {:+.3} % of \
         the swing",
        100.0 * origin_energy
    );
    for (x, y) in [(1e3, 0.0), (1e5, 0.0), (1e7, 1e7)] {
        let (gap, energy) = chain_at(Vector::new(x, y));
        println!(
            "chain at ({x:e}, {y:e}): worst pin gap {gap:.2e} m, energy change {:+.3} % of \
             the swing",
            100.0 * energy
        );
        assert!(
            gap <= 1.5 * origin_gap + 1e-5,
            "{gap} m at ({x}, {y}) against {origin_gap} m at the origin"
        );
        assert!(
            (energy - origin_energy).abs() <= 5e-3,
            "energy changed by {energy} at ({x}, {y}), {origin_energy} at the origin"
        );
    }
}
