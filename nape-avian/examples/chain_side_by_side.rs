//! The `chain` scene of the peer benchmarks (200 links released horizontally, no
//! colliders, sleeping off, gravity −10, 1/60 s, 600 steps) inside Avian, its joints
//! solved by Avian's XPBD and by nape (with the step-end velocities synchronized, the
//! default, and as Avian's integrator leaves them): anchor error and time per step.
//!
//! `cargo run --release --manifest-path nape-avian/Cargo.toml --features xpbd --example chain_side_by_side`

use std::time::{Duration, Instant};

use avian2d::prelude::*;
use bevy::prelude::*;
use nape::PivotJoint;
use nape_avian::{NapeJoint, StepEndVelocity, headless_app, slots};

const DT: f32 = 1.0 / 60.0;
const LINKS: usize = 200;
const STEPS: usize = 600;
const ROUNDS: usize = 3;

#[derive(Clone, Copy, Debug)]
enum Solver {
    Xpbd,
    Nape,
    NapeIntegratedVelocities,
}

struct Run {
    ms_per_step: f64,
    final_max: f32,
    final_mean: f32,
    run_max: f32,
}

fn main() {
    for solver in [Solver::Xpbd, Solver::Nape, Solver::NapeIntegratedVelocities] {
        let mut runs: Vec<Run> = (0..ROUNDS).map(|_| run(solver)).collect();
        runs.sort_by(|a, b| a.ms_per_step.total_cmp(&b.ms_per_step));
        let median = &runs[ROUNDS / 2];
        println!(
            "{solver:?}: {:.3} ms/step (median of {ROUNDS}), final max err {:.2e} m, final mean err {:.2e} m, run max err {:.2e} m",
            median.ms_per_step, median.final_max, median.final_mean, median.run_max
        );
    }
}

fn run(solver: Solver) -> Run {
    let mut app = headless_app(DT);
    app.insert_resource(Gravity(Vec2::new(0.0, -10.0)));
    if let Solver::NapeIntegratedVelocities = solver {
        app.insert_resource(StepEndVelocity::Integrated);
    }
    app.finish();
    app.update();
    let world = app.world_mut();
    let ground = world.spawn((RigidBody::Static, Position::default())).id();
    let (mass, inertia) = (0.25, 0.25 * (1.0 + 0.0625) / 12.0);
    let links: Vec<Entity> = (0..LINKS)
        .map(|i| {
            world
                .spawn((
                    RigidBody::Dynamic,
                    Position::from_xy(0.5 + i as f32, 0.0),
                    Mass(mass),
                    AngularInertia(inertia),
                    SleepingDisabled,
                ))
                .id()
        })
        .collect();
    let (left, right) = (Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0));
    let mut pairs = vec![(ground, Vec2::ZERO, links[0], left)];
    pairs.extend(links.windows(2).map(|w| (w[0], right, w[1], left)));
    let [a, b] = slots();
    for &(body1, anchor1, body2, anchor2) in &pairs {
        match solver {
            Solver::Xpbd => world.spawn(
                RevoluteJoint::new(body1, body2)
                    .with_local_anchor1(anchor1)
                    .with_local_anchor2(anchor2),
            ),
            Solver::Nape | Solver::NapeIntegratedVelocities => world.spawn(NapeJoint::new(
                PivotJoint::new(
                    a,
                    b,
                    nape::Vec2::new(anchor1.x, anchor1.y),
                    nape::Vec2::new(anchor2.x, anchor2.y),
                ),
                [body1, body2],
            )),
        };
    }
    let errors = |app: &App| -> Vec<f32> {
        let world = |body: Entity, local: Vec2| {
            let w = app.world();
            w.get::<Position>(body).unwrap().0 + *w.get::<Rotation>(body).unwrap() * local
        };
        pairs
            .iter()
            .map(|&(b1, a1, b2, a2)| (world(b1, a1) - world(b2, a2)).length())
            .collect()
    };
    let (mut busy, mut run_max) = (Duration::ZERO, 0.0f32);
    for step in 1..=STEPS {
        let start = Instant::now();
        app.update();
        if step > 1 {
            busy += start.elapsed();
        }
        run_max = run_max.max(errors(&app).into_iter().fold(0.0, f32::max));
    }
    let last = errors(&app);
    Run {
        ms_per_step: busy.as_secs_f64() * 1e3 / (STEPS - 1) as f64,
        final_max: last.iter().copied().fold(0.0, f32::max),
        final_mean: last.iter().sum::<f32>() / last.len() as f32,
        run_max,
    }
}
