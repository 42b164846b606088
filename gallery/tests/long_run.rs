//! Ten simulated minutes of the gallery's custom joints at the defaults (60 Hz, 36,000
//! steps), as the gallery shows them for seconds: each joint stays closed, the scenes
//! without a motor keep their energy, and the driven ones never run away from the energy
//! their first minute reached. The driven bodies turn by hundreds of radians, and the
//! differential's `θ₁ + θ₂ − 2θ₃` reads whole angles of wheels that wind apart (its right
//! wheel 1,200 rad from its left after ten minutes, where an `f32` angle holds 1.2e-4):
//! affine in them, it is computed from the principal angles with the turns added in
//! `f64`, and holds as the others do.

use nape_gallery::scenes::{SCENES, SceneInfo};
use nape_gallery::world::World;

const STEPS: usize = 36_000;
const MINUTE: usize = 3_600;

/// What ten minutes of a scene did.
#[derive(Debug)]
struct Run {
    /// The largest joint error after any step (`World::worst_violation`).
    worst: f32,
    /// The largest change of total energy from the end of the first step, and the most
    /// kinetic energy reached, over the whole run.
    drift: f32,
    swing: f32,
    /// The most kinetic energy reached over the first minute and over the rest.
    first_minute: f32,
    later: f32,
    /// Whether every pose stayed finite.
    finite: bool,
}

fn run(scene: &SceneInfo) -> Run {
    let mut world: World = (scene.build)().expect("the scene builds");
    world.step(1.0 / 60.0);
    let start = world.energy();
    let mut run = Run {
        worst: world.worst_violation(),
        drift: 0.0,
        swing: 0.0,
        first_minute: 0.0,
        later: 0.0,
        finite: true,
    };
    for step in 1..STEPS {
        world.step(1.0 / 60.0);
        run.worst = run.worst.max(world.worst_violation());
        let kinetic = world.kinetic_energy();
        run.drift = run.drift.max((world.energy() - start).abs());
        run.swing = run.swing.max(kinetic);
        if step < MINUTE {
            run.first_minute = run.first_minute.max(kinetic);
        } else {
            run.later = run.later.max(kinetic);
        }
        run.finite &= world
            .bodies
            .iter()
            .all(|b| world.pose(b.handle).position.is_finite());
    }
    run
}

/// The scenes whose bodies a motor drives: their energy is the motor's to change.
const DRIVEN: [&str; 3] = ["ellipse", "cam", "differential"];

#[test]
fn custom_joints_hold_for_ten_minutes() {
    for scene in SCENES.iter().filter(|s| s.is_custom()) {
        let name = scene.name;
        let run = run(scene);
        println!(
            "{name}, 10 min: joints within {:.2e}, energy within {:.4} J of its start (the \
             swing {:.3} J), most kinetic energy {:.3} J in the first minute and {:.3} J after",
            run.worst, run.drift, run.swing, run.first_minute, run.later
        );
        assert!(run.finite, "{name}: {run:?}");
        assert!(run.swing > 0.1, "{name} does not move");
        assert!(run.worst <= 1e-5, "{name}: {run:?}");
        if DRIVEN.contains(&name) {
            assert!(
                run.later <= 2.0 * run.first_minute,
                "{name} runs away: {run:?}"
            );
        } else {
            assert!(run.drift <= 1e-3 * run.swing, "{name}: {run:?}");
        }
    }
}
