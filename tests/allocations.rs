//! A warmed-up step allocates nothing: chain, joint grid and ragdoll scenes (every solver
//! path: the exact solve of acyclic islands, Gauss–Seidel sweeps of meshes, limits and
//! welds, a moving chain coming to rest) are stepped a few times, then further steps must
//! not touch the allocator.
//! This file installs a counting global allocator ([`stats_alloc`]), so it is a test
//! binary of its own, and one without libtest's harness (`harness = false`): the counter
//! is global, and the harness's own thread, still setting up while the test's runs on a
//! loaded machine, allocated inside the measured steps.

#[path = "support/every_joint.rs"]
mod every_joint;
#[path = "../examples/common/scenes.rs"]
mod scenes;

use std::alloc::System;

use every_joint::{every_joint, plank};
use nape::{
    AngleJoint, BodyHandle, ConstraintHandle, ConstraintSettings, DistanceJoint, LineJoint,
    MotorJoint, PivotJoint, PulleyJoint, Space, Vec2, WeldJoint,
};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() {
    warmed_up_steps_allocate_nothing();
    every_builtin_allocates_nothing();
    changing_parameters_every_step_allocates_nothing();
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

/// Steps before the measured ones: the first two breaks happen in them (at about the
/// sixth and seventh step), so that the measured breaks find the break events' list and
/// the stores' free lists grown.
const WARM_UP: usize = 30;
const MEASURED: usize = 600;

/// Every builtin joint type, stiff and soft, on the swept path (`direct_solve` off) and
/// with `direct_solve` on, where the stiff set's loop is swept and the soft set and
/// `every_joint` (stiff but for its distance joint) are solved exactly, through limits
/// coming into play, motors at their force bound, islands moving and at rest, and two
/// constraints breaking in the measured steps of each space (one removed, one
/// deactivated).
///
/// A break changes the islands, and the next step rebuilds them, which allocates by
/// design (`DirectSystem::rebuild` builds the elimination tree anew). That step's
/// allocations are counted apart and only reported; every other measured step must
/// allocate nothing: the steps that break (the break events, the removal, the
/// deactivation) and every step after a rebuild (scratch arrays that only some substeps
/// fill are sized by the rebuild, not where they are first filled).
fn every_builtin_allocates_nothing() {
    let mut spaces = [every_builtin(true, true), every_builtin(false, true)];
    let mut warm_breaks = [0; 2];
    for ((space, _), breaks) in spaces.iter_mut().zip(&mut warm_breaks) {
        for _ in 0..WARM_UP {
            space.step(1.0 / 60.0);
            *breaks += space.broken_constraints().len();
        }
    }
    // Which limits pushed in some measured step (index: space, then limit).
    let mut pushed: Vec<Vec<bool>> = spaces
        .iter()
        .map(|(_, l)| vec![false; l.distances.len() + l.slides.len() + l.wide.len()])
        .collect();
    let mut breaks = [0; 2];
    let (mut rebuilds, mut rebuild_allocations) = (0, 0);
    let region = Region::new(GLOBAL);
    for (((space, limits), pushed), breaks) in spaces.iter_mut().zip(&mut pushed).zip(&mut breaks) {
        for _ in 0..MEASURED {
            let rebuilding = !space.broken_constraints().is_empty();
            let before = GLOBAL.stats();
            space.step(1.0 / 60.0);
            if rebuilding {
                let change = GLOBAL.stats() - before;
                rebuilds += 1;
                rebuild_allocations += change.allocations + change.reallocations;
            }
            *breaks += space.broken_constraints().len();
            let distances = limits
                .distances
                .iter()
                .map(|&h| space.impulse(h).unwrap()[0]);
            let slides = limits.slides.iter().map(|&h| space.impulse(h).unwrap()[1]);
            let wide = limits.wide.iter().map(|&h| space.impulse(h).unwrap()[0]);
            for (p, impulse) in pushed.iter_mut().zip(distances.chain(slides).chain(wide)) {
                *p |= impulse != 0.0;
            }
        }
    }
    let stats = region.change();
    let allocations = stats.allocations + stats.reallocations - rebuild_allocations;
    println!(
        "{} warmed-up steps of every builtin: {allocations} allocations and reallocations \
         ({rebuild_allocations} more in the {rebuilds} steps that rebuilt the islands)",
        spaces.len() * MEASURED,
    );
    assert_eq!(allocations, 0, "{stats:?}");
    assert_eq!(warm_breaks, [2; 2], "breaks in the warm-up");
    assert_eq!(breaks, [2; 2], "breaks in the measured steps");
    assert_eq!(rebuilds, 4, "one rebuild after each break");
    for ((space, limits), pushed) in spaces.iter().zip(&pushed) {
        assert!(space.bodies().all(|(_, b)| b.position().is_finite()));
        let (reached, wide) = pushed.split_at(limits.distances.len() + limits.slides.len());
        assert_eq!(reached, vec![true; reached.len()], "limits reached");
        assert_eq!(wide, vec![false; wide.len()], "limits never reached");
    }
}

/// A game that turns a motor's rate, moves a pivot's anchor and stretches a distance
/// limit every frame (`update_constraint` between steps, none of them changing bodies or
/// whether a limit's bounds are apart) keeps the islands: no step allocates, and the
/// exact island keeps solving exactly.
fn changing_parameters_every_step_allocates_nothing() {
    let mut space = Space::new();
    space.gravity = Vec2::new(0.0, -10.0);
    let ground = space.add_body(nape::Body::static_body()).unwrap();
    let crank = plank(&mut space, 0.5, 0.0);
    let bar = plank(&mut space, 1.5, 0.0);
    let hung = plank(&mut space, 2.5, 0.0);
    let pin = space
        .add_constraint(PivotJoint::new(
            ground,
            crank,
            Vec2::ZERO,
            Vec2::new(-0.5, 0.0),
        ))
        .unwrap();
    let motor = space
        .add_constraint(MotorJoint::new(ground, crank, 1.0))
        .unwrap();
    space
        .add_constraint(PivotJoint::new(
            crank,
            bar,
            Vec2::new(0.5, 0.0),
            Vec2::new(-0.5, 0.0),
        ))
        .unwrap();
    let rope = space
        .add_constraint(DistanceJoint::new(
            bar,
            hung,
            Vec2::ZERO,
            Vec2::ZERO,
            0.5,
            1.0,
        ))
        .unwrap();
    let frame = |space: &mut Space, k: usize| {
        let t = k as f32 / 60.0;
        space
            .update_constraint(motor, |m| m.rate = 2.0 * t.sin())
            .unwrap();
        space
            .update_constraint(pin, |p| p.anchor1 = Vec2::new(0.0, 0.1 * t.cos()))
            .unwrap();
        space
            .update_constraint(rope, |r| r.joint_max = 1.0 + 0.2 * t.sin())
            .unwrap();
        space.step(1.0 / 60.0);
    };
    for k in 0..WARM_UP {
        frame(&mut space, k);
    }
    let region = Region::new(GLOBAL);
    for k in WARM_UP..WARM_UP + MEASURED {
        frame(&mut space, k);
        assert!(!space.exact_substeps_taken().is_empty(), "solved exactly");
    }
    let stats = region.change();
    println!(
        "{MEASURED} steps changing a motor, an anchor and a limit each: {} allocations",
        stats.allocations + stats.reallocations
    );
    assert_eq!(stats.allocations + stats.reallocations, 0, "{stats:?}");
    assert!(space.bodies().all(|(_, b)| b.position().is_finite()));
}

/// The limits whose impulses show which bounds the measured steps reach.
#[derive(Default)]
struct Limits {
    /// Bounds the bodies are carried against within the first second.
    distances: Vec<ConstraintHandle<DistanceJoint>>,
    slides: Vec<ConstraintHandle<LineJoint>>,
    /// Bounds too wide for the bodies to reach.
    wide: Vec<ConstraintHandle<AngleJoint>>,
}

/// A space with one of every builtin joint type stiff and again soft, limits that are
/// reached and limits that are not, bounded motors and soft force limits, a resting island,
/// and constraints that break: one of each kind (removed, deactivated) in the warm-up and
/// again in the measured steps, so that the rebuilds the measured breaks cause find the
/// buffers the warm-up's grew. With `stiff_loop`, the stiff joints close a loop, so that
/// their island takes the swept path even with `direct_solve`.
fn every_builtin(direct_solve: bool, stiff_loop: bool) -> (Space, Limits) {
    let mut space = Space::new();
    space.direct_solve = direct_solve;
    let (ground, _) = every_joint(&mut space);
    let mut limits = Limits::default();
    let soft = ConstraintSettings {
        max_force: 50.0,
        ..ConstraintSettings::soft(4.0, 0.5)
    };
    let stiff = ConstraintSettings::default();
    builtins(&mut space, ground, 6.0, stiff, stiff_loop, &mut limits);
    builtins(&mut space, ground, 12.0, soft, false, &mut limits);
    resting(&mut space, ground, Vec2::new(-6.0, 0.0));
    // A break under error at a spring's stretch: a free body falls from the spring's
    // anchor and stretches it past `max_error` after about (2·max_error/g)^½.
    for (i, max_error) in [0.05, 0.06, 3.0, 3.2].into_iter().enumerate() {
        let x = -10.0 - i as f32;
        let body = plank(&mut space, x, -0.1);
        space
            .add_constraint_with(
                DistanceJoint::new(ground, body, Vec2::new(x, 0.0), Vec2::ZERO, 0.1, 0.1),
                ConstraintSettings {
                    max_error,
                    break_under_error: true,
                    remove_on_break: i % 2 == 0,
                    ..ConstraintSettings::soft(0.05, 1.0)
                },
            )
            .unwrap();
    }
    (space, limits)
}

/// Planks at `x` hung from `ground` by a pivot, then welded, held by a distance joint
/// whose upper bound the swing reaches, an angle joint whose bounds it does not, a slider
/// along a slope down to its lower bound, a motor bounded in force and a pulley, each with
/// `settings` (a motor is velocity-only whatever its settings say); with `loop_back`, a
/// pivot from the last plank back to the first closes a loop.
fn builtins(
    space: &mut Space,
    ground: BodyHandle,
    x: f32,
    settings: ConstraintSettings,
    loop_back: bool,
    limits: &mut Limits,
) {
    let a = plank(space, x, 0.0);
    let b = plank(space, x + 1.0, 0.0);
    let c = plank(space, x + 1.0, -0.6);
    let d = plank(space, x + 3.0, -1.0);
    let e = plank(space, x + 2.0, -3.0);
    let f = plank(space, x + 4.0, -3.0);
    space
        .add_constraint_with(
            PivotJoint::new(ground, a, Vec2::new(x - 0.5, 0.0), Vec2::new(-0.5, 0.0)),
            settings,
        )
        .unwrap();
    space
        .add_constraint_with(
            WeldJoint::new(a, b, Vec2::new(0.5, 0.0), Vec2::new(-0.5, 0.0), 0.0),
            settings,
        )
        .unwrap();
    let reach = space
        .add_constraint_with(
            DistanceJoint::new(b, c, Vec2::ZERO, Vec2::ZERO, 0.2, 0.65),
            settings,
        )
        .unwrap();
    let wide = space
        .add_constraint_with(AngleJoint::new(b, c, -20.0, 20.0), settings)
        .unwrap();
    let slope = Vec2::new(1.0, -1.0);
    let slide = space
        .add_constraint_with(
            LineJoint::new(
                ground,
                d,
                Vec2::new(x + 3.0, -1.0),
                Vec2::ZERO,
                slope,
                -1.0,
                0.3,
            ),
            settings,
        )
        .unwrap();
    space
        .add_constraint_with(
            MotorJoint::new(ground, d, 3.0),
            ConstraintSettings {
                max_force: 0.5,
                ..settings
            },
        )
        .unwrap();
    space
        .add_constraint_with(
            PulleyJoint {
                body1: ground,
                body2: e,
                body3: ground,
                body4: f,
                anchor1: Vec2::new(x + 2.0, -2.0),
                anchor2: Vec2::ZERO,
                anchor3: Vec2::new(x + 4.0, -2.0),
                anchor4: Vec2::ZERO,
                joint_min: 0.0,
                joint_max: 3.0,
                ratio: 2.0,
            },
            settings,
        )
        .unwrap();
    if loop_back {
        // At the planks' midpoint, so the loop closes without an error to start with.
        space
            .add_constraint_with(
                PivotJoint::new(c, a, Vec2::new(-0.5, 0.3), Vec2::new(0.5, -0.3)),
                settings,
            )
            .unwrap();
    }
    limits.distances.push(reach);
    limits.slides.push(slide);
    limits.wide.push(wide);
}

/// A plank welded to `ground` at `at` and one hanging still below it from a pivot, an angle
/// joint and a soft distance joint between them with bounds they rest well inside.
fn resting(space: &mut Space, ground: BodyHandle, at: Vec2) {
    let top = plank(space, at.x, at.y);
    let hung = plank(space, at.x, at.y - 0.2);
    space
        .add_constraint(WeldJoint::new(ground, top, at, Vec2::ZERO, 0.0))
        .unwrap();
    space
        .add_constraint(PivotJoint::new(
            top,
            hung,
            Vec2::new(0.0, -0.1),
            Vec2::new(0.0, 0.1),
        ))
        .unwrap();
    space
        .add_constraint(AngleJoint::new(top, hung, -0.3, 0.3))
        .unwrap();
    space
        .add_constraint_with(
            DistanceJoint::new(top, hung, Vec2::ZERO, Vec2::ZERO, 0.1, 0.3),
            ConstraintSettings::soft(2.0, 0.7),
        )
        .unwrap();
}
