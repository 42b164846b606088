//! The fidelity issue's rod pendulum (1 kg at 1 m on a pivot, inertia 0.01 kg·m², released
//! horizontal, g = 9.81, 1/60 s) inside Avian for 20 s, at several of Avian's substep
//! counts: the energy `E` read at each step's end, and the energy Avian's integrator
//! conserves, `E − (h/2)·m·g·v_y` (its symplectic Euler moves a body by `h·v` after the
//! kick, so `E` itself swings by O(h) even with no joint), as fractions of the swing
//! `m·g·L`; and the worst anchor error. Run with the plugin's `StepEndVelocity`
//! `Integrated` (Avian's velocities) and `Synchronized` (the default: velocities at the
//! poses), whose trajectories are the same.
//!
//! `cargo run --manifest-path nape-avian/Cargo.toml --example pendulum_energy`

use avian2d::prelude::*;
use bevy::prelude::*;
use nape::PivotJoint;
use nape_avian::{NapeJoint, StepEndVelocity, headless_app, slots};

const DT: f32 = 1.0 / 60.0;
const STEPS: usize = 1200;
const G: f32 = 9.81;
const MASS: f32 = 1.0;
const INERTIA: f32 = 0.01;
const LENGTH: f32 = 1.0;

fn main() {
    for substeps in [6, 12, 24, 48] {
        let integrated = run(substeps, StepEndVelocity::Integrated);
        let synchronized = run(substeps, StepEndVelocity::Synchronized);
        println!(
            "{substeps:>2} substeps: E lost {:+.4} % at 20 s, {:.4} % at worst; conserved energy off by {:.4} % at worst; \
             synchronized E off by {:.4} % at worst ({:+.4} % at 20 s); anchor error {:.1e} m",
            integrated.lost_at_end * 100.0,
            integrated.worst_loss * 100.0,
            integrated.worst_conserved * 100.0,
            synchronized.worst_off * 100.0,
            synchronized.lost_at_end * 100.0,
            integrated.worst_anchor
        );
    }
}

struct Run {
    lost_at_end: f32,
    worst_loss: f32,
    worst_conserved: f32,
    /// The worst |E − E at the start|.
    worst_off: f32,
    worst_anchor: f32,
}

fn run(substeps: u32, velocity: StepEndVelocity) -> Run {
    let mut app = headless_app(DT);
    app.insert_resource(Gravity(Vec2::new(0.0, -G)))
        .insert_resource(SubstepCount(substeps))
        .insert_resource(velocity);
    app.finish();
    app.update();
    let world = app.world_mut();
    let ground = world.spawn((RigidBody::Static, Position::default())).id();
    let bob = world
        .spawn((
            RigidBody::Dynamic,
            Position::from_xy(LENGTH, 0.0),
            Mass(MASS),
            AngularInertia(INERTIA),
            SleepingDisabled,
        ))
        .id();
    let [a, b] = slots();
    let pivot = PivotJoint::new(a, b, nape::Vec2::ZERO, nape::Vec2::new(-LENGTH, 0.0));
    world.spawn(NapeJoint::new(pivot, [ground, bob]));
    let h = DT / substeps as f32;
    // (E, the integrator's conserved energy)
    let energies = |app: &App| {
        let world = app.world();
        let v = world.get::<LinearVelocity>(bob).unwrap().0;
        let w = world.get::<AngularVelocity>(bob).unwrap().0;
        let y = world.get::<Position>(bob).unwrap().0.y;
        let e = 0.5 * MASS * v.length_squared() + 0.5 * INERTIA * w * w + MASS * G * y;
        (e, e - 0.5 * h * MASS * G * v.y)
    };
    let swing = MASS * G * LENGTH;
    let start = energies(&app);
    let mut run = Run {
        lost_at_end: 0.0,
        worst_loss: 0.0,
        worst_conserved: 0.0,
        worst_off: 0.0,
        worst_anchor: 0.0,
    };
    for _ in 0..STEPS {
        app.update();
        let (e, conserved) = energies(&app);
        run.lost_at_end = (start.0 - e) / swing;
        run.worst_loss = run.worst_loss.max(run.lost_at_end);
        run.worst_off = run.worst_off.max(run.lost_at_end.abs());
        run.worst_conserved = run.worst_conserved.max((conserved - start.1).abs() / swing);
        let world = app.world();
        let at = world.get::<Position>(bob).unwrap().0
            + *world.get::<Rotation>(bob).unwrap() * Vec2::new(-LENGTH, 0.0);
        run.worst_anchor = run.worst_anchor.max(at.length());
    }
    run
}
