//! Generated joints against hand-written ones, on the solver's two hot paths, over 1024
//! joints between random bodies (`support/kernels.rs`): `prepare` (position error,
//! Jacobian and effective mass, stored, once per step) and `solve` (velocity error and
//! impulse application, once per velocity iteration); and a whole `Space::step` of a
//! 100-link chain with each (60 steps from the same state per iteration).
//!
//! Every builtin has a group per phase, `<joint>/<phase>`, with the functions `generated`
//! and `hand-written` (the references in `tests/support/hand_joints.rs` and
//! `tests/support/hand_builtins.rs`); the pulley runs with four, three and two bodies.
//!
//! The runtime (`nape::symbolic`) pivot, weld, line and pulley have groups
//! `runtime-<joint>/<phase>` with the functions `runtime` and `generated`.
//!
//! Run with `cargo bench --bench joints [-- <filter>]`; then `python3 benches/ratios.py`
//! prints generated / hand-written per joint and phase from criterion's estimates. On a
//! busy machine, `cargo bench --bench ratios` measures the same ratios interleaved.

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use nape::{Body, BodyHandle, Constraint, PivotJoint, Space, Vec2};

#[path = "support/kernels.rs"]
mod kernels;
use kernels::hand_joints::HandPivot;
use kernels::{Visit, Workload, each_builtin, each_runtime};

/// Criterion groups `<prefix><joint>/<phase>` with the functions `labels` (the measured
/// variant, then its reference).
struct Groups<'a> {
    criterion: &'a mut Criterion,
    prefix: &'static str,
    labels: [&'static str; 2],
}

impl Visit for Groups<'_> {
    fn pair<G, H, const D: usize, const B: usize>(
        &mut self,
        name: &str,
        mut measured: Workload<G, D, B>,
        mut reference: Workload<H, D, B>,
    ) where
        G: Constraint<D, B>,
        H: Constraint<D, B>,
    {
        let [first, second] = self.labels;
        let group = |phase: &str| format!("{}{name}/{phase}", self.prefix);
        let mut prepare = self.criterion.benchmark_group(group("prepare"));
        prepare.bench_function(first, |b| b.iter(|| measured.prepare()));
        prepare.bench_function(second, |b| b.iter(|| reference.prepare()));
        prepare.finish();
        let mut solve = self.criterion.benchmark_group(group("solve"));
        solve.bench_function(first, |b| b.iter(|| measured.solve()));
        solve.bench_function(second, |b| b.iter(|| reference.solve()));
        solve.finish();
    }
}

fn builtins(c: &mut Criterion) {
    each_builtin(&mut Groups {
        criterion: c,
        prefix: "",
        labels: ["generated", "hand-written"],
    });
}

/// Runtime joints against the generated ones of the same declarations.
fn runtime(c: &mut Criterion) {
    each_runtime(&mut Groups {
        criterion: c,
        prefix: "runtime-",
        labels: ["runtime", "generated"],
    });
}

/// Steps of the chain timed per iteration: its second second, from the same state each time
/// (stepped on for as long as criterion samples, one chain would swing ever further from the
/// scene it started as).
const CHAIN_STEPS: usize = 60;

/// A 100-link chain hanging from a static body, swinging: its steps from 0.5 s to 1.5 s.
fn chain_step(c: &mut Criterion) {
    fn build<T, const D: usize>(make: fn(BodyHandle, BodyHandle, Vec2, Vec2) -> T) -> Space
    where
        T: Constraint<D, 2>,
    {
        let mut space = Space::new();
        space.gravity = Vec2::new(0.0, -10.0);
        let mut previous = (
            space.add_body(Body::static_body()).expect("ceiling"),
            Vec2::ZERO,
        );
        for i in 0..100 {
            let centre = Vec2::new(i as f32 + 0.5, 0.0);
            let link = space
                .add_body(Body::rectangle(1.0, 0.1, 10.0).at(centre))
                .expect("a link");
            let joint = make(previous.0, link, previous.1, Vec2::new(-0.5, 0.0));
            space.add_constraint(joint).expect("a joint");
            previous = (link, Vec2::new(0.5, 0.0));
        }
        for _ in 0..30 {
            space.step(1.0 / 60.0);
        }
        space
    }
    let mut group = c.benchmark_group("chain of 100/60 steps");
    /// Builds one of the two chains.
    type Scene = fn() -> Space;
    let generated: Scene = || build(PivotJoint::new);
    let hand_written: Scene = || build(HandPivot::new);
    for (label, make) in [("generated", generated), ("hand-written", hand_written)] {
        group.bench_function(BenchmarkId::from_parameter(label), |b| {
            b.iter_batched(
                make,
                |mut space| {
                    for _ in 0..CHAIN_STEPS {
                        space.step(1.0 / 60.0);
                    }
                    space
                },
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, builtins, runtime, chain_step);
criterion_main!(benches);
