//! Generated / hand-written time per joint and phase, and runtime (`nape::symbolic`) /
//! generated, measured interleaved: short runs of the two alternate 300 times and the
//! median of their ratios is printed, so load from other processes (this project's
//! machine has 2 shared cores) falls on both alike. Criterion's separate measurements
//! (`cargo bench --bench joints`, then `python3 benches/ratios.py`) drift by more than the
//! differences measured here. Last, the peer bench's `chain` scene (200 links released
//! horizontally) with runtime pivots against generated ones, step by step.
//!
//! Run with `cargo bench --bench ratios [-- builtins|runtime|chain]...` (all three
//! without arguments).

use std::time::Instant;

use nape::Constraint;

#[path = "support/kernels.rs"]
mod kernels;
use kernels::{Visit, Workload, each_builtin, each_runtime};

#[path = "support/runtime_chain.rs"]
mod runtime_chain;

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

/// One joint's median times (µs per call, the measured variant and its reference) and
/// median ratios, for `prepare` and `solve`.
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
        mut measured: Workload<G, D, B>,
        mut reference: Workload<H, D, B>,
    ) where
        G: Constraint<D, B>,
        H: Constraint<D, B>,
    {
        let mut ratios = [Vec::new(), Vec::new()];
        let mut times = [[Vec::new(), Vec::new()], [Vec::new(), Vec::new()]];
        for _ in 0..ROUNDS {
            let phases: [[f64; 2]; 2] = [
                [timed(|| measured.prepare()), timed(|| reference.prepare())],
                [timed(|| measured.solve()), timed(|| reference.solve())],
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

impl Ratios {
    /// Prints the table, its columns named after the measured variant and its reference.
    fn print(&self, [measured, reference]: [&str; 2]) {
        println!(
            "{:<10} {:<8} {:>13} {:>13} {:>6}",
            "joint",
            "phase",
            format!("{measured} µs"),
            format!("{reference} µs"),
            "ratio"
        );
        let mut all = Vec::new();
        for Row {
            name,
            prepare,
            solve,
            ratios,
        } in &self.rows
        {
            for (phase, [m, r], ratio) in
                [("prepare", prepare, ratios[0]), ("solve", solve, ratios[1])]
            {
                println!("{name:<10} {phase:<8} {m:>13.2} {r:>13.2} {ratio:>6.3}");
                all.push(ratio);
            }
        }
        let largest = all.iter().copied().fold(0.0, f64::max);
        println!(
            "median ratio {:.3}, largest {largest:.3} ({} joint-phases, {ROUNDS} interleaved rounds)\n",
            median(all.clone()),
            all.len()
        );
    }
}

fn main() {
    let chosen: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let runs = |part: &str| chosen.is_empty() || chosen.iter().any(|c| c == part);
    if runs("builtins") {
        let mut ratios = Ratios::default();
        each_builtin(&mut ratios);
        ratios.print(["generated", "hand"]);
    }
    if runs("runtime") {
        let mut ratios = Ratios::default();
        each_runtime(&mut ratios);
        ratios.print(["runtime", "generated"]);
    }
    if runs("chain") {
        runtime_chain::compare();
    }
}
