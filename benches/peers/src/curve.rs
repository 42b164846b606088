//! The honest curve (`--curve`): for each engine setting, in one run, what a step costs on
//! scene `chain` (instructions by callgrind with `--instructions`, and time) beside how
//! well it moves: the 200-link chain's joint error, and on chains of 10 and 50 links
//! released horizontal the distance from the exact motion after 1 s and the energy lost
//! after 5 s (`trajectories.rs`). nape's settings, rapier2d's iteration counts and
//! Box2D v3's substep counts (its harness, `--box2d`) are measured alike.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::box2d::{self, Replay};
use crate::scenes::{Scene, horizontal_chain};
use crate::trajectories::{
    CASES, ChainCase, HZ, ReferenceMotion, follow_chain, reference_motion, run_chain,
};
use crate::{BOX2D, Config, Engine, callgrind, child_args, report, run_isolated};

/// The nape and rapier2d settings on the curve, by label: nape's default, its exact path
/// at fixed substep counts and by Gauss–Seidel sweeps alone; rapier2d's substep counts.
pub const SETTINGS: [(Engine, &str); 12] = [
    (Engine::Nape, "default"),
    (Engine::Nape, "fixed 1"),
    (Engine::Nape, "fixed 2"),
    (Engine::Nape, "fixed 4"),
    (Engine::Nape, "fixed 8"),
    (Engine::Nape, "fixed 16"),
    (Engine::Nape, "GS"),
    (Engine::Rapier, "it 1"),
    (Engine::Rapier, "it 2"),
    (Engine::Rapier, "it 4 (default)"),
    (Engine::Rapier, "it 8"),
    (Engine::Rapier, "it 16"),
];

/// The chains whose motion the curve measures (their cases in [`CASES`]: 5 s each).
pub const CURVE_LINKS: [usize; 2] = [10, 50];

/// How far one setting's chain of `links` is from the exact motion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainFigures {
    /// Links in the chain.
    pub links: usize,
    /// Largest distance of a link's centre from the exact one after 1 s (m).
    pub off_after_1s: f64,
    /// Energy lost at the end of the case, a share of the swing's energy.
    pub energy_lost: f64,
    /// Seconds the chain was followed.
    pub seconds: f64,
}

/// One engine setting's point on the curve.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveRow {
    /// Engine name.
    pub engine: String,
    /// The setting's label.
    pub settings: String,
    /// Mean time of steps 2..600 of scene `chain`, one run in a fresh process, ms.
    pub ms_per_step: f64,
    /// Instructions per step of the same run (scene built, every step), if counted.
    pub instructions: Option<f64>,
    /// Scene `chain`'s largest anchor separation over the run, m.
    pub joint_error: f64,
    /// The chains of [`CURVE_LINKS`].
    pub chains: Vec<ChainFigures>,
}

/// What one `--curve` run measured and under which load.
pub struct Curve {
    /// One row per setting: nape's, rapier2d's, then Box2D's.
    pub rows: Vec<CurveRow>,
    /// `uptime` before the first measurement.
    pub load_before: String,
    /// `uptime` after the last.
    pub load_after: String,
    /// Wall time of the whole run.
    pub wall: Duration,
}

/// The chains of [`CURVE_LINKS`] and their exact motions.
fn chain_cases() -> Vec<(ChainCase, ReferenceMotion)> {
    CASES
        .into_iter()
        .filter(|case| CURVE_LINKS.contains(&case.links))
        .map(|case| (case, reference_motion(case.links)))
        .collect()
}

fn figures(case: ChainCase, row: &crate::trajectories::TrajectoryRow) -> ChainFigures {
    ChainFigures {
        links: case.links,
        off_after_1s: row.off_after_1s,
        energy_lost: row.energy_lost,
        seconds: case.seconds,
    }
}

/// One nape or rapier2d setting: `chain` timed in a fresh process (and counted under
/// callgrind when `instructions`), the chains' motion in this one.
fn measure(
    config: Config,
    cases: &[(ChainCase, ReferenceMotion)],
    instructions: bool,
) -> Result<CurveRow, String> {
    let scene = Scene::Chain;
    let record = run_isolated(config, scene, 1, false)?;
    let instructions = if instructions {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        // The error once, at the end: callgrind counts the whole process.
        let args = child_args(config, scene, usize::MAX, false);
        Some(callgrind::count(&exe, &args)? as f64 / scene.steps() as f64)
    } else {
        None
    };
    let chains = cases
        .iter()
        .map(|(case, reference)| figures(*case, &run_chain(config, *case, reference)))
        .collect();
    Ok(CurveRow {
        engine: config.engine().name().to_owned(),
        settings: config.label().to_owned(),
        ms_per_step: record.per_step.as_secs_f64() * 1e3,
        instructions,
        joint_error: record.run_max,
        chains,
    })
}

/// Every substep count Box2D's harness runs: one timed round of `chain` in its own
/// process (and one under callgrind when `instructions`), and the chains' motion as it
/// prints it.
fn measure_box2d(
    harness: &str,
    cases: &[(ChainCase, ReferenceMotion)],
    instructions: bool,
) -> Result<Vec<CurveRow>, String> {
    let scene = Scene::Chain;
    let timed = box2d::run_rounds(harness, scene)?;
    let counts = if instructions {
        let counts = box2d::instructions_per_step(harness, scene)?;
        if counts.len() != timed.len() {
            return Err(format!(
                "callgrind counted {} worlds of the harness, which timed {} settings",
                counts.len(),
                timed.len()
            ));
        }
        counts.into_iter().map(Some).collect()
    } else {
        vec![None; timed.len()]
    };
    let mut rows = Vec::new();
    for ((label, record), instructions) in timed.into_iter().zip(counts) {
        let substeps =
            box2d::substeps(&label).ok_or_else(|| format!("harness setting `{label}`"))?;
        let mut chains = Vec::new();
        for (case, reference) in cases {
            let description = horizontal_chain(case.links);
            let steps = (case.seconds * HZ as f64).round() as usize;
            let mut replay = Replay::record(harness, &description, steps, substeps)?;
            let row = follow_chain(&mut replay, (BOX2D, &label), *case, reference);
            chains.push(figures(*case, &row));
        }
        rows.push(CurveRow {
            engine: BOX2D.to_owned(),
            settings: label,
            ms_per_step: record.per_step.as_secs_f64() * 1e3,
            instructions,
            joint_error: record.run_max,
            chains,
        });
    }
    Ok(rows)
}

/// Measures every setting of `engines` in [`SETTINGS`], then Box2D's if `harness` is
/// given, one after another, each once.
pub fn measure_all(
    engines: &[Engine],
    harness: Option<&str>,
    instructions: bool,
) -> Result<Curve, String> {
    if instructions && !callgrind::available() {
        return Err("--instructions needs valgrind".to_owned());
    }
    let load_before = report::load_average();
    let started = Instant::now();
    let cases = chain_cases();
    let mut rows = Vec::new();
    for (engine, label) in SETTINGS.into_iter().filter(|(e, _)| engines.contains(e)) {
        let config = Config::find(engine, label)
            .ok_or_else(|| format!("no {} setting labelled `{label}`", engine.name()))?;
        let row = measure(config, &cases, instructions)?;
        log(&row);
        rows.push(row);
    }
    if let Some(harness) = harness {
        if !Path::new(harness).exists() {
            return Err(format!(
                "{harness}: not built (sh benches/peers/box2d/run.sh --build-only)"
            ));
        }
        for row in measure_box2d(harness, &cases, instructions)? {
            log(&row);
            rows.push(row);
        }
    }
    Ok(Curve {
        rows,
        load_before,
        load_after: report::load_average(),
        wall: started.elapsed(),
    })
}

fn log(row: &CurveRow) {
    let chains: Vec<String> = row
        .chains
        .iter()
        .map(|c| {
            format!(
                "{} links off {:.2e} m, lost {:.3} %",
                c.links,
                c.off_after_1s,
                100.0 * c.energy_lost
            )
        })
        .collect();
    eprintln!(
        "{:<12} {:<15} {:>8.4} ms/step {:>10} instr/step  joint err {:.2e}  {}",
        row.engine,
        row.settings,
        row.ms_per_step,
        row.instructions
            .map_or("-".to_owned(), |n| format!("{n:.0}")),
        row.joint_error,
        chains.join("; ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_on_the_curve_exists_and_the_chains_are_cases() {
        for (engine, label) in SETTINGS {
            assert!(Config::find(engine, label).is_some(), "{label}");
        }
        let cases = chain_cases();
        assert_eq!(cases.len(), CURVE_LINKS.len());
        assert!(cases.iter().all(|(case, _)| case.seconds == 5.0));
    }

    #[test]
    fn fewer_fixed_substeps_follow_a_chain_worse() {
        // Ten links for 1 s: the exact path at one substep per step against eight.
        let case = ChainCase {
            links: 10,
            seconds: 1.0,
        };
        let reference = reference_motion(10);
        let off = |label: &str| {
            let config = Config::find(Engine::Nape, label).unwrap();
            run_chain(config, case, &reference).off_after_1s
        };
        let (one, eight) = (off("fixed 1"), off("fixed 8"));
        assert!(eight < one, "fixed 8: {eight:e} m, fixed 1: {one:e} m");
        assert!(eight < 0.01, "{eight:e}");
    }
}
