//! A warmed-up step allocates nothing: chain, joint grid and ragdoll scenes (every solver
//! path: the exact solve of acyclic islands, Gauss–Seidel sweeps of meshes, limits and
//! welds, a moving chain coming to rest) are stepped a few times, then further steps must
//! not touch the allocator.
//! This file installs a counting global allocator ([`stats_alloc`]), so it is a test
//! binary of its own, and one without libtest's harness (`harness = false`): the counter
//! is global, and the harness's own thread, still setting up while the test's runs on a
//! loaded machine, allocated inside the measured steps.

#[path = "../examples/common/scenes.rs"]
mod scenes;

use std::alloc::System;

use nape::Vec2;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() {
    warmed_up_steps_allocate_nothing();
}

fn warmed_up_steps_allocate_nothing() {
    let mut chain = scenes::chain(50, false);
    let mut grid = scenes::joint_grid(8);
    let mut ragdolls = scenes::Scene::new();
    let doll = ragdolls.add_ragdoll(Vec2::ZERO);
    ragdolls.set_rigid_motion(&doll.bodies, Vec2::ZERO, Vec2::new(3.0, 5.0), 4.0);
    // A hanging 200-link chain rests (one substep a step, its top links weighted) from its
    // second step on, which the warm-up leaves to the measured steps.
    let mut resting = scenes::chain(200, true);
    let mut all = [&mut chain, &mut grid, &mut ragdolls, &mut resting];
    for (i, scene) in all.iter_mut().enumerate() {
        let warm_up = if i == 3 { 1 } else { 5 };
        for _ in 0..warm_up {
            scene.space.step(1.0 / 60.0);
        }
    }
    let region = Region::new(GLOBAL);
    for scene in all.iter_mut() {
        for _ in 0..20 {
            scene.space.step(1.0 / 60.0);
        }
    }
    let stats = region.change();
    println!(
        "80 warmed-up steps: {} allocations, {} reallocations, {} bytes",
        stats.allocations, stats.reallocations, stats.bytes_allocated
    );
    assert_eq!(stats.allocations, 0, "{stats:?}");
    assert_eq!(stats.reallocations, 0, "{stats:?}");
    let finite: Vec<bool> = all.iter().map(|s| s.finite()).collect();
    assert_eq!(
        finite, [true; 4],
        "chain, grid, ragdolls, resting chain finite"
    );
    assert_eq!(resting.space.exact_substeps_taken(), [1], "the chain rests");
}
