//! Generated / hand-written time per joint and phase, measured interleaved: short runs of
//! the two alternate 300 times and the median of their ratios is printed, so load from
//! other processes (this project's machine has 2 shared cores) falls on both alike.
//! Criterion's separate measurements (`cargo bench --bench joints`, then
//! `python3 benches/ratios.py`) drift by more than the differences measured here.
//!
//! Run with `cargo bench --bench ratios`.

use std::time::Instant;

use nape::Constraint;

#[path = "support/kernels.rs"]
mod kernels;
use kernels::{Visit, Workload, each_builtin};

const ROUNDS: usize = 300;
const CALLS_PER_RUN: usize = 10;

/// Seconds for `CALLS_PER_RUN` calls of `f`.
fn timed(mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..CALLS_PER_RUN {
        f();
    }
    start.elapsed().as_secs_f64()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// One joint's median times (µs per call, generated and hand-written) and median ratios,
/// for `prepare` and `solve`.
struct Row {
    name: String,
    prepare: [f64; 2],
    solve: [f64; 2],
    ratios: [f64; 2],
}

#[derive(Default)]
struct Ratios {
    rows: Vec<Row>,
}

impl Visit for Ratios {
    fn pair<G, H, const D: usize, const B: usize>(
        &mut self,
        name: &str,
        mut generated: Workload<G, D, B>,
        mut hand: Workload<H, D, B>,
    ) where
        G: Constraint<D, B>,
        H: Constraint<D, B>,
    {
        let mut ratios = [Vec::new(), Vec::new()];
        let mut times = [[Vec::new(), Vec::new()], [Vec::new(), Vec::new()]];
        for _ in 0..ROUNDS {
            let phases: [[f64; 2]; 2] = [
                [timed(|| generated.prepare()), timed(|| hand.prepare())],
                [timed(|| generated.solve()), timed(|| hand.solve())],
            ];
            for (phase, [g, h]) in phases.into_iter().enumerate() {
                ratios[phase].push(g / h);
                times[phase][0].push(g);
                times[phase][1].push(h);
            }
        }
        let per_call = |v: Vec<f64>| median(v) / CALLS_PER_RUN as f64 * 1e6;
        let [[gp, hp], [gs, hs]] = times.map(|pair| pair.map(per_call));
        let [rp, rs] = ratios.map(median);
        self.rows.push(Row {
            name: name.to_owned(),
            prepare: [gp, hp],
            solve: [gs, hs],
            ratios: [rp, rs],
        });
    }
}

fn main() {
    let mut ratios = Ratios::default();
    each_builtin(&mut ratios);
    println!(
        "{:<10} {:<8} {:>13} {:>9} {:>6}",
        "joint", "phase", "generated µs", "hand µs", "ratio"
    );
    let mut all = Vec::new();
    for Row {
        name,
        prepare,
        solve,
        ratios,
    } in &ratios.rows
    {
        for (phase, [g, h], r) in [("prepare", prepare, ratios[0]), ("solve", solve, ratios[1])] {
            println!("{name:<10} {phase:<8} {g:>13.2} {h:>9.2} {r:>6.3}");
            all.push(r);
        }
    }
    let largest = all.iter().copied().fold(0.0, f64::max);
    println!(
        "median ratio {:.3}, largest {largest:.3} ({} joint-phases, {ROUNDS} interleaved rounds)",
        median(all.clone()),
        all.len()
    );
}
