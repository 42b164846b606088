//! nape and rapier2d side by side on the reference joint scenes (`chain`, `chain_hang`,
//! `joint_grid`; see docs/benchmarks.md, "Side by side with Box2D v3 and rapier2d").
//!
//! ```text
//! cargo run --release --manifest-path benches/peers/Cargo.toml -- \
//!     [--scene chain|chain_hang|joint_grid]... [--engine nape|rapier]... [--runs N] \
//!     [--err-every K] [--trace] [--markdown RESULTS.md] [--svg accuracy.svg] \
//!     [--external rows.csv] [--readme docs/benchmarks.md] [--isolate] [--box2d HARNESS]
//! cargo run --release --manifest-path benches/peers/Cargo.toml -- --curve \
//!     [--box2d HARNESS] [--instructions] [--markdown RESULTS.md] [--svg curve.svg]
//! cargo run --release --manifest-path benches/peers/Cargo.toml -- --loops \
//!     [--scene four_bar_frame|ring|scissor_lift|peaucellier]... [--engine nape|rapier]... \
//!     [--runs N] [--box2d HARNESS] [--markdown RESULTS.md] [--readme docs/benchmarks.md]
//! ```
//!
//! Configurations run round-robin (every configuration once per round, `--runs` rounds);
//! the reports quote medians over the rounds. Only the engine's step call is timed.
//! `--isolate` runs every configuration's run in a fresh child process, and `--box2d`
//! runs Box2D v3's harness (`benches/peers/box2d/run.sh --build-only` builds it) once
//! per round and scene beside them: on this machine a process's step time sits at one of
//! two levels a third apart for its whole life, for every engine alike, so only runs in
//! fresh processes, in the same rounds, compare.
//! `--trace` prints every error evaluation (step, max and mean separation) to stderr.
//! `--readme` rewrites the part of that file between the `peers:begin` and `peers:end`
//! markers with each engine's default-settings rows and the plot (linked relative to that
//! file).
//! `--trajectories` runs only the trajectory comparison (`trajectories.rs`: chains of 1 to
//! 50 links against their exact motion) and writes its section between its own markers
//! in `--markdown` and `--readme`, and its energy plot to `--svg`; the full run keeps
//! that section when it rewrites `--markdown`.
//! `--curve` measures every setting once on what a step costs (scene `chain`'s time, and
//! its instructions by callgrind with `--instructions`) and how it moves (`chain`'s joint
//! error; 10 and 50 links against their exact motion), Box2D's too with `--box2d`
//! (`curve.rs`); it writes its own section in `--markdown` and its plot to `--svg`.
//! `--loops` runs only issue 42's loop scenes (`loop_scenes.rs`: a four-bar on a welded
//! frame, a spinning ring, Box2D's scissor lift, a motor-driven Peaucellier linkage) on
//! nape's default, rapier2d at 4 and 8 substeps and, with `--box2d`, Box2D at 4 and 8,
//! every run in a fresh process (`loop_report.rs`); it writes its own section in
//! `--markdown` and `--readme`, which the other modes keep.

mod box2d;
mod callgrind;
mod curve;
mod curve_report;
mod loop_report;
mod loop_scenes;
mod nape_engine;
mod nape_scene;
mod rapier_engine;
mod report;
mod scenes;
mod sections;
mod svg;
mod trajectories;
mod trajectory_report;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use loop_scenes::LoopScene;
use nape_engine::{NAPE_CONFIGS, NAPE_CURVE_CONFIGS, NapeConfig, NapeWorld};
use rapier_engine::{RAPIER_CONFIGS, RapierConfig, RapierWorld};
use scenes::{Pose, Scene, SceneDescription, Velocity, initial_poses, joint_error};

/// A world built from a scene description, as the harness drives it.
pub trait World {
    /// One `step(DT)`; the only call that is timed.
    fn step(&mut self);
    /// Writes every body's pose, indexed like the description's bodies.
    fn read_poses(&self, poses: &mut [Pose]);
}

/// A world whose bodies' velocities can be read back: what the trajectory comparison
/// needs to measure energy.
pub trait MovingWorld: World {
    /// Writes every body's velocity, indexed like the description's bodies.
    fn read_velocities(&self, velocities: &mut [Velocity]);
}

/// The engines compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// This crate's solver.
    Nape,
    /// rapier2d from the registry.
    Rapier,
}

impl Engine {
    /// The engine's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Nape => "nape",
            Engine::Rapier => "rapier2d",
        }
    }
}

/// One measured configuration: an engine and one of its settings.
#[derive(Clone, Copy)]
enum Config {
    Nape(&'static NapeConfig),
    Rapier(&'static RapierConfig),
}

impl Config {
    /// The settings the full run compares (`NAPE_CONFIGS`, `RAPIER_CONFIGS`).
    fn all(engines: &[Engine]) -> Vec<Config> {
        let mut configs = Vec::new();
        if engines.contains(&Engine::Nape) {
            configs.extend(NAPE_CONFIGS.iter().map(Config::Nape));
        }
        if engines.contains(&Engine::Rapier) {
            configs.extend(RAPIER_CONFIGS.iter().map(Config::Rapier));
        }
        configs
    }

    fn engine(self) -> Engine {
        match self {
            Config::Nape(_) => Engine::Nape,
            Config::Rapier(_) => Engine::Rapier,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Config::Nape(config) => config.label,
            Config::Rapier(config) => config.label,
        }
    }

    fn build(self, description: &SceneDescription) -> Box<dyn World> {
        match self {
            Config::Nape(config) => Box::new(NapeWorld::build(config, description)),
            Config::Rapier(config) => Box::new(RapierWorld::build(config, description)),
        }
    }

    fn build_moving(self, description: &SceneDescription) -> Box<dyn MovingWorld> {
        match self {
            Config::Nape(config) => Box::new(NapeWorld::build(config, description)),
            Config::Rapier(config) => Box::new(RapierWorld::build(config, description)),
        }
    }

    /// The setting of `engine` labelled `label`, among those the full run compares and
    /// those only `--curve` adds (`NAPE_CURVE_CONFIGS`).
    fn find(engine: Engine, label: &str) -> Option<Config> {
        match engine {
            Engine::Nape => NAPE_CONFIGS
                .iter()
                .chain(NAPE_CURVE_CONFIGS)
                .find(|config| config.label == label)
                .map(Config::Nape),
            Engine::Rapier => RAPIER_CONFIGS
                .iter()
                .find(|config| config.label == label)
                .map(Config::Rapier),
        }
    }
}

/// What one run of one configuration on one scene measured.
#[derive(Clone, Copy, Debug)]
struct RunRecord {
    first_step: Duration,
    /// Mean of steps 2..N.
    per_step: Duration,
    final_max: f64,
    final_mean: f64,
    run_max: f64,
    run_max_step: usize,
}

fn run_once(
    config: Config,
    scene: Scene,
    description: &SceneDescription,
    err_every: usize,
    trace: bool,
) -> RunRecord {
    let mut world = config.build(description);
    let mut poses = initial_poses(description);
    let steps = scene.steps();
    let mut first_step = Duration::ZERO;
    let mut later_steps = Duration::ZERO;
    let mut record = RunRecord {
        first_step,
        per_step: Duration::ZERO,
        final_max: 0.0,
        final_mean: 0.0,
        run_max: 0.0,
        run_max_step: 0,
    };
    for step in 1..=steps {
        let start = Instant::now();
        world.step();
        let elapsed = start.elapsed();
        if step == 1 {
            first_step = elapsed;
        } else {
            later_steps += elapsed;
        }
        if step % err_every == 0 || step == steps {
            world.read_poses(&mut poses);
            let error = joint_error(&description.joints, &poses);
            if trace {
                eprintln!(
                    "trace {scene} {} {} step {step}: max {:.3e} mean {:.3e}",
                    config.engine().name(),
                    config.label(),
                    error.max,
                    error.mean
                );
            }
            if error.max > record.run_max || record.run_max_step == 0 {
                record.run_max = error.max;
                record.run_max_step = step;
            }
            record.final_max = error.max;
            record.final_mean = error.mean;
        }
    }
    record.first_step = first_step;
    record.per_step = later_steps / (steps as u32 - 1);
    record
}

/// The first argument of a child process (`--isolate`, `--curve`):
/// `CHILD scene nape|rapier setting err_every trace|quiet` (`setting`: the label of one
/// of that engine's settings, as [`Config::find`] takes it, or its index in the full
/// run's list).
const CHILD: &str = "--child";

/// Box2D's engine name in reports (its harness prints it too).
pub const BOX2D: &str = "box2d v3.1.1";

fn report_round(
    round: usize,
    runs: usize,
    scene: Scene,
    engine: &str,
    label: &str,
    record: &RunRecord,
) {
    eprintln!(
        "round {round}/{runs}  {scene:<10}  {engine:<8} {label:<14}  {:>9.4} ms/step  run max err {:.2e}",
        record.per_step.as_secs_f64() * 1e3,
        record.run_max,
    );
}

/// Runs one configuration in a child process of this binary and reads its record: every
/// run then starts from a fresh process, so no engine keeps the speed one process
/// happened to get (on this machine that alone moves a run's time by a third, for Box2D's
/// C harness as much as for nape).
fn run_isolated(
    config: Config,
    scene: Scene,
    err_every: usize,
    trace: bool,
) -> Result<RunRecord, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let output = std::process::Command::new(exe)
        .args(child_args(config, scene, err_every, trace))
        // The child's trace and errors go straight to this process's stderr.
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!("child run failed ({})", output.status));
    }
    parse_record(text.trim()).ok_or_else(|| format!("child printed `{text}`"))
}

/// The arguments that make this binary run `config` once on `scene` as a child process.
fn child_args(config: Config, scene: Scene, err_every: usize, trace: bool) -> [String; 6] {
    let engine = match config.engine() {
        Engine::Nape => "nape",
        Engine::Rapier => "rapier",
    };
    [
        CHILD,
        scene.name(),
        engine,
        config.label(),
        &err_every.to_string(),
        if trace { "trace" } else { "quiet" },
    ]
    .map(str::to_owned)
}

/// A child's setting: by label, or by its index in the full run's list (`2` is each
/// engine's default; the commands ARCHITECTURE.md quotes name it so).
fn child_config(engine: Engine, setting: &str) -> Option<Config> {
    match setting.parse::<usize>() {
        Ok(index) => Config::all(&[engine]).get(index).copied(),
        Err(_) => Config::find(engine, setting),
    }
}

/// The child side of [`run_isolated`]: one run, its record on stdout.
fn run_child(args: &[String]) -> ExitCode {
    let parsed = (|| {
        let scene = Scene::from_name(args.first()?)?;
        let engine = match args.get(1)?.as_str() {
            "nape" => Engine::Nape,
            "rapier" => Engine::Rapier,
            _ => return None,
        };
        let config = child_config(engine, args.get(2)?)?;
        let err_every: usize = args.get(3)?.parse().ok()?;
        let trace = match args.get(4)?.as_str() {
            "trace" => true,
            "quiet" => false,
            _ => return None,
        };
        Some((scene, config, err_every, trace))
    })();
    let Some((scene, config, err_every, trace)) = parsed else {
        eprintln!("usage: nape-peers {CHILD} SCENE nape|rapier LABEL|INDEX ERR_EVERY trace|quiet");
        return ExitCode::FAILURE;
    };
    let record = run_once(config, scene, &scene.describe(), err_every, trace);
    println!("{}", format_record(&record));
    ExitCode::SUCCESS
}

/// A record as one line of text, which [`parse_record`] reads back.
fn format_record(record: &RunRecord) -> String {
    format!(
        "{} {} {:e} {:e} {:e} {}",
        record.per_step.as_nanos(),
        record.first_step.as_nanos(),
        record.final_max,
        record.final_mean,
        record.run_max,
        record.run_max_step
    )
}

/// A record as [`format_record`] wrote it.
fn parse_record(line: &str) -> Option<RunRecord> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() != 6 {
        return None;
    }
    Some(RunRecord {
        per_step: Duration::from_nanos(fields[0].parse().ok()?),
        first_step: Duration::from_nanos(fields[1].parse().ok()?),
        final_max: fields[2].parse().ok()?,
        final_mean: fields[3].parse().ok()?,
        run_max: fields[4].parse().ok()?,
        run_max_step: fields[5].parse().ok()?,
    })
}

/// The median of a configuration's runs on one scene, as the reports show it.
#[derive(Clone, Debug)]
pub struct Row {
    /// Engine name.
    pub engine: String,
    /// The setting's label.
    pub settings: String,
    /// Scene name.
    pub scene: String,
    /// Median ms/step over the runs (steps 2..N).
    pub ms_per_step: f64,
    /// Fastest and slowest run's ms/step.
    pub ms_range: (f64, f64),
    /// Median duration of the first step, ms.
    pub first_step_ms: f64,
    /// Median max anchor separation after the last step, m.
    pub final_max: f64,
    /// Median mean anchor separation after the last step, m.
    pub final_mean: f64,
    /// Median of the runs' largest per-step max separation, m.
    pub run_max: f64,
    /// The step where the median run's largest separation happened.
    pub run_max_step: usize,
    /// How many runs the medians are over.
    pub runs: usize,
    /// Where the row was measured, if not by this binary.
    pub source: Option<String>,
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        0.5 * (values[n / 2 - 1] + values[n / 2])
    }
}

fn summarise(engine: &str, settings: &str, scene: Scene, records: &[RunRecord]) -> Row {
    let collect = |f: fn(&RunRecord) -> f64| -> Vec<f64> { records.iter().map(f).collect() };
    let mut ms = collect(|r| r.per_step.as_secs_f64() * 1e3);
    let ms_per_step = median(&mut ms);
    let ms_range = (ms[0], ms[ms.len() - 1]);
    let mut run_max = collect(|r| r.run_max);
    let run_max_median = median(&mut run_max);
    let run_max_step = records
        .iter()
        .find(|r| r.run_max == run_max_median)
        .map_or(records[0].run_max_step, |r| r.run_max_step);
    Row {
        engine: engine.to_owned(),
        settings: settings.to_owned(),
        scene: scene.name().to_owned(),
        ms_per_step,
        ms_range,
        first_step_ms: median(&mut collect(|r| r.first_step.as_secs_f64() * 1e3)),
        final_max: median(&mut collect(|r| r.final_max)),
        final_mean: median(&mut collect(|r| r.final_mean)),
        run_max: run_max_median,
        run_max_step,
        runs: records.len(),
        source: None,
    }
}

struct Options {
    scenes: Vec<Scene>,
    loop_scenes: Vec<LoopScene>,
    engines: Vec<Engine>,
    runs: usize,
    err_every: usize,
    trace: bool,
    markdown: Option<String>,
    svg: Option<String>,
    external: Option<String>,
    readme: Option<String>,
    isolate: bool,
    box2d: Option<String>,
    trajectories: bool,
    curve: bool,
    instructions: bool,
    loops: bool,
}

const USAGE: &str = "usage: nape-peers [--scene chain|chain_hang|joint_grid]... \
[--engine nape|rapier]... [--runs N (default 5)] [--err-every K (default 1)] [--trace] \
[--markdown PATH] [--svg PATH] [--external CSV] [--readme PATH] [--isolate] [--box2d HARNESS] \
| --trajectories [--engine nape|rapier]... [--markdown PATH] [--svg PATH] [--readme PATH] \
| --curve [--engine nape|rapier]... [--box2d HARNESS] [--instructions] [--markdown PATH] [--svg PATH] \
| --loops [--scene four_bar_frame|ring|scissor_lift|peaucellier]... [--engine nape|rapier]... [--runs N] \
[--box2d HARNESS] [--markdown PATH] [--readme PATH]";

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        scenes: Vec::new(),
        loop_scenes: Vec::new(),
        engines: Vec::new(),
        runs: 5,
        err_every: 1,
        trace: false,
        markdown: None,
        svg: None,
        external: None,
        readme: None,
        isolate: false,
        box2d: None,
        trajectories: false,
        curve: false,
        instructions: false,
        loops: false,
    };
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--scene" => {
                let name = value()?;
                if let Some(scene) = LoopScene::from_name(&name) {
                    options.loop_scenes.push(scene);
                } else {
                    options
                        .scenes
                        .push(Scene::from_name(&name).ok_or(format!("unknown scene `{name}`"))?);
                }
            }
            "--engine" => options.engines.push(match value()?.as_str() {
                "nape" => Engine::Nape,
                "rapier" | "rapier2d" => Engine::Rapier,
                other => return Err(format!("unknown engine `{other}`")),
            }),
            "--runs" => {
                options.runs = value()?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or("--runs takes a positive integer")?;
            }
            "--err-every" => {
                options.err_every = value()?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or("--err-every takes a positive integer")?;
            }
            "--trace" => options.trace = true,
            "--markdown" => options.markdown = Some(value()?),
            "--svg" => options.svg = Some(value()?),
            "--external" => options.external = Some(value()?),
            "--readme" => options.readme = Some(value()?),
            "--isolate" => options.isolate = true,
            "--box2d" => options.box2d = Some(value()?),
            "--trajectories" => options.trajectories = true,
            "--curve" => options.curve = true,
            "--instructions" => options.instructions = true,
            "--loops" => options.loops = true,
            "--help" | "-h" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    if options.loops && !options.scenes.is_empty() {
        return Err(
            "--loops runs only the loop scenes (four_bar_frame, ring, scissor_lift, \
                    peaucellier)"
                .to_owned(),
        );
    }
    if !options.loops && !options.loop_scenes.is_empty() {
        return Err("the loop scenes run with --loops".to_owned());
    }
    if options.scenes.is_empty() {
        options.scenes = Scene::ALL.to_vec();
    }
    if options.loop_scenes.is_empty() {
        options.loop_scenes = LoopScene::ALL.to_vec();
    }
    if options.engines.is_empty() {
        options.engines = vec![Engine::Nape, Engine::Rapier];
    }
    Ok(options)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(CHILD) {
        return run_child(&args[1..]);
    }
    if args.first().map(String::as_str) == Some(loop_report::LOOP_CHILD) {
        return loop_report::run_child(&args[1..]);
    }
    let options = match parse_options(&args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    };
    if options.trajectories {
        return trajectory_report::run(&options, &args);
    }
    if options.curve {
        return curve_report::run(&options, &args);
    }
    if options.loops {
        return loop_report::run(&options, &args);
    }
    let mut external_rows = Vec::new();
    if let Some(path) = &options.external {
        match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| report::parse_external(&text))
        {
            Ok(rows) => external_rows = rows,
            Err(message) => {
                eprintln!("{path}: {message}");
                return ExitCode::FAILURE;
            }
        }
    }

    let load_before = report::load_average();
    let started = Instant::now();
    let configs = Config::all(&options.engines);
    let descriptions: Vec<SceneDescription> = options.scenes.iter().map(|s| s.describe()).collect();
    let mut records = vec![vec![Vec::new(); configs.len()]; options.scenes.len()];
    // Box2D's settings per scene, in the harness's order, and their runs.
    let mut box2d: Vec<Vec<(String, Vec<RunRecord>)>> = vec![Vec::new(); options.scenes.len()];
    for round in 1..=options.runs {
        for (s, &scene) in options.scenes.iter().enumerate() {
            for (c, &config) in configs.iter().enumerate() {
                let record = if options.isolate {
                    run_isolated(config, scene, options.err_every, options.trace)
                } else {
                    Ok(run_once(
                        config,
                        scene,
                        &descriptions[s],
                        options.err_every,
                        options.trace,
                    ))
                };
                let record = match record {
                    Ok(record) => record,
                    Err(message) => {
                        eprintln!("{message}");
                        return ExitCode::FAILURE;
                    }
                };
                report_round(
                    round,
                    options.runs,
                    scene,
                    config.engine().name(),
                    config.label(),
                    &record,
                );
                records[s][c].push(record);
            }
            if let Some(harness) = &options.box2d {
                let measured = match box2d::run_rounds(harness, scene) {
                    Ok(measured) => measured,
                    Err(message) => {
                        eprintln!("{harness}: {message}");
                        return ExitCode::FAILURE;
                    }
                };
                for (label, record) in measured {
                    report_round(round, options.runs, scene, BOX2D, &label, &record);
                    match box2d[s].iter_mut().find(|(l, _)| *l == label) {
                        Some((_, runs)) => runs.push(record),
                        None => box2d[s].push((label, vec![record])),
                    }
                }
            }
        }
    }
    let load_after = report::load_average();

    let mut rows = Vec::new();
    for (s, &scene) in options.scenes.iter().enumerate() {
        for (c, &config) in configs.iter().enumerate() {
            rows.push(summarise(
                config.engine().name(),
                config.label(),
                scene,
                &records[s][c],
            ));
        }
        for (label, runs) in &box2d[s] {
            rows.push(summarise(BOX2D, label, scene, runs));
        }
        rows.extend(
            external_rows
                .iter()
                .filter(|row| row.scene == scene.name())
                .cloned(),
        );
    }

    let context = report::Context {
        args,
        runs: options.runs,
        err_every: options.err_every,
        load_before,
        load_after,
        wall: started.elapsed(),
    };
    let table = report::markdown_table(&rows);
    println!("{table}");
    if let Some(path) = &options.markdown {
        let text = report::markdown_document(&context, &rows, options.svg.as_deref());
        let old = std::fs::read_to_string(path).unwrap_or_default();
        let text = trajectory_report::SECTION.carry(&old, &text);
        let text = curve_report::SECTION.carry(&old, &text);
        let text = loop_report::SECTION.carry(&old, &text);
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if let Some(path) = &options.svg {
        let scenes: Vec<&str> = options.scenes.iter().map(|s| s.name()).collect();
        if let Err(e) = std::fs::write(path, report::svg_plot(&scenes, &rows)) {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if let Some(path) = &options.readme {
        let svg_link = options.svg.as_deref().map(|svg| relative_to(svg, path));
        let section = report::readme_section(&context, &rows, svg_link.as_deref());
        let updated = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| report::replace_readme_section(&text, &section))
            .and_then(|text| std::fs::write(path, text).map_err(|e| e.to_string()));
        if let Err(e) = updated {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Success, or the error printed and failure.
fn exit_code(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// `target` as a link from the file `from` (both relative to the working directory): the
/// path from `from`'s folder, climbing out of it with `..` where `target` is outside it.
pub(crate) fn relative_to(target: &str, from: &str) -> String {
    use std::path::{Component, Path};
    let folder: Vec<Component> = Path::new(from)
        .parent()
        .unwrap_or(Path::new(""))
        .components()
        .collect();
    let target: Vec<Component> = Path::new(target).components().collect();
    let common = folder
        .iter()
        .zip(&target)
        .take_while(|(a, b)| a == b)
        .count();
    let mut link = std::path::PathBuf::new();
    for _ in common..folder.len() {
        link.push("..");
    }
    link.extend(&target[common..]);
    link.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plot_links_are_relative_to_the_linking_file() {
        assert_eq!(
            relative_to("benches/peers/accuracy.svg", "README.md"),
            "benches/peers/accuracy.svg"
        );
        assert_eq!(
            relative_to("benches/peers/accuracy.svg", "benches/peers/RESULTS.md"),
            "accuracy.svg"
        );
        assert_eq!(
            relative_to("benches/peers/accuracy.svg", "docs/benchmarks.md"),
            "../benches/peers/accuracy.svg"
        );
    }

    #[test]
    fn records_cross_the_process_boundary() {
        let record = RunRecord {
            first_step: Duration::from_nanos(123_456),
            per_step: Duration::from_nanos(45_678),
            final_max: 7.45e-8,
            final_mean: 4.9e-8,
            run_max: 2.01e-7,
            run_max_step: 249,
        };
        let back = parse_record(&format_record(&record)).expect("record");
        assert_eq!(back.per_step, record.per_step);
        assert_eq!(back.run_max, record.run_max);
        assert_eq!(back.run_max_step, 249);
        assert!(parse_record("1 2 3").is_none());
    }

    #[test]
    fn a_child_takes_a_setting_by_label_or_by_its_place_in_the_full_run() {
        let label = |engine, setting| child_config(engine, setting).map(Config::label);
        assert_eq!(label(Engine::Nape, "2"), Some("default"));
        assert_eq!(label(Engine::Rapier, "2"), Some("it 4 (default)"));
        assert_eq!(label(Engine::Nape, "fixed 4"), Some("fixed 4"));
        assert_eq!(label(Engine::Nape, "99"), None);
        assert_eq!(label(Engine::Rapier, "fixed 4"), None);
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn both_engines_keep_a_hanging_chain_nearly_together_for_a_few_steps() {
        let scene = Scene::ChainHang;
        let description = scene.describe();
        for config in Config::all(&[Engine::Nape, Engine::Rapier]) {
            let mut world = config.build(&description);
            let mut poses = initial_poses(&description);
            for _ in 0..5 {
                world.step();
            }
            world.read_poses(&mut poses);
            let error = joint_error(&description.joints, &poses);
            // Without joints the top link would have fallen g·dt²·(1 + … + 5) ≈ 0.042 m
            // away from the pin after five steps.
            assert!(
                error.max < 0.035,
                "{} {}: {error:?}",
                config.engine().name(),
                config.label()
            );
            // The pinned top must not move.
            assert_eq!((poses[0].x, poses[0].y), (0.0, 0.0));
        }
    }
}
