//! A scene run for a long time at 60 Hz, and what it did: the gallery's long-run test runs
//! every scene for ten minutes, the soak (`cargo run --release --example long_run`) for an
//! hour.

use crate::scenes::SceneInfo;
use crate::world::World;

/// What a long run of a scene did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SoakRun {
    /// The largest joint error after any step ([`World::worst_violation`]).
    pub worst: f32,
    /// The largest change of total energy from the end of the first step, J.
    pub drift: f32,
    /// The largest rise of total energy above it, J.
    pub rise: f32,
    /// The most kinetic energy reached, J.
    pub swing: f32,
    /// The most kinetic energy reached over the first minute, and over the rest, J.
    pub first_minute: f32,
    /// See [`first_minute`](Self::first_minute).
    pub later: f32,
    /// Whether every body's position stayed finite.
    pub finite: bool,
}

/// Steps `scene` from its start for `steps` steps of 1/60 s and measures it after each
/// (energy counted from the end of the first step: a scene whose bodies start with
/// velocities its joints forbid loses what the joints' first impulse takes).
///
/// # Panics
/// If the scene does not build.
#[must_use]
pub fn soak(scene: &SceneInfo, steps: usize) -> SoakRun {
    const DT: f32 = 1.0 / 60.0;
    const MINUTE: usize = 3_600;
    let mut world: World = (scene.build)().expect("the scene builds");
    world.step(DT);
    let start = world.energy();
    let mut run = SoakRun {
        worst: world.worst_violation(),
        drift: 0.0,
        rise: 0.0,
        swing: 0.0,
        first_minute: 0.0,
        later: 0.0,
        finite: true,
    };
    for step in 1..steps {
        world.step(DT);
        run.worst = run.worst.max(world.worst_violation());
        let kinetic = world.kinetic_energy();
        let change = world.energy() - start;
        run.drift = run.drift.max(change.abs());
        run.rise = run.rise.max(change);
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
