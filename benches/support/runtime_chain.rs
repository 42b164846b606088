//! The peer bench's `chain` scene (`benches/peers/src/scenes.rs`: 200 links released
//! horizontally, 600 steps of 1/60 s) with runtime pivots against generated ones: both
//! spaces are stepped alternately, each step timed, so load from other processes falls on
//! both alike.

use std::time::Instant;

use nape::symbolic::SymbolicConstraint;
use nape::{BodyHandle, PivotJoint, Space, Vec2};

#[path = "../peers/src/scenes.rs"]
#[allow(dead_code)]
mod scenes;
use scenes::{DT, Scene, SceneDescription};

#[path = "../peers/src/nape_scene.rs"]
mod nape_scene;
use nape_scene::space_with_bodies;

/// Rounds of the whole scene, each from a fresh pair of spaces.
const ROUNDS: usize = 7;

/// `description` in a fresh space, each joint made by `join(a, b, anchor_a, anchor_b)`.
fn build(
    description: &SceneDescription,
    join: &dyn Fn(&mut Space, BodyHandle, BodyHandle, Vec2, Vec2),
) -> Space {
    let (mut space, bodies) = space_with_bodies(description, |_| {});
    for joint in &description.joints {
        let (a, b) = (bodies[joint.a], bodies[joint.b]);
        join(
            &mut space,
            a,
            b,
            joint.anchor_a.into(),
            joint.anchor_b.into(),
        );
    }
    space
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Prints the two chains' step times and their ratio (the median over rounds of the
/// runtime chain's total step time over the generated one's).
pub fn compare() {
    let source = nape_gallery::joints::declaration(
        include_str!("../../nape-core/src/joints/pivot.rs"),
        "PivotJoint",
    )
    .expect("the pivot's declaration");
    let pivot = SymbolicConstraint::<2, 2>::new(&source).expect("the pivot compiles");
    let description = Scene::Chain.describe();
    let generated = |space: &mut Space, a, b, anchor_a, anchor_b| {
        let joint = PivotJoint::new(a, b, anchor_a, anchor_b);
        space.add_constraint(joint).expect("a joint");
    };
    let runtime = |space: &mut Space, a, b, anchor_a: Vec2, anchor_b: Vec2| {
        let mut joint = pivot.clone();
        joint.set_body("body1", a).expect("body1");
        joint.set_body("body2", b).expect("body2");
        joint.set_vector("anchor1", anchor_a).expect("anchor1");
        joint.set_vector("anchor2", anchor_b).expect("anchor2");
        space.add_constraint(joint).expect("a joint");
    };
    let (mut ratios, mut per_step) = (Vec::new(), [Vec::new(), Vec::new()]);
    for _ in 0..ROUNDS {
        let mut spaces = [
            build(&description, &runtime),
            build(&description, &generated),
        ];
        let mut totals = [0.0f64; 2];
        for _ in 0..Scene::Chain.steps() {
            for (space, total) in spaces.iter_mut().zip(&mut totals) {
                let start = Instant::now();
                space.step(DT);
                *total += start.elapsed().as_secs_f64();
            }
        }
        ratios.push(totals[0] / totals[1]);
        for (times, total) in per_step.iter_mut().zip(totals) {
            times.push(total / Scene::Chain.steps() as f64 * 1e3);
        }
    }
    let [runtime_ms, generated_ms] = per_step.map(median);
    println!(
        "chain (200 links, {} steps): runtime pivots {runtime_ms:.4} ms/step, generated \
         {generated_ms:.4} ms/step, ratio {:.3} (median of {ROUNDS} interleaved rounds)",
        Scene::Chain.steps(),
        median(ratios)
    );
}
