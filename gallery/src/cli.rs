//! The gallery command (`cargo run --release --example gallery -- --help`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::html;
pub use crate::html::Summary;
use crate::scenes::{self, SCENES, SceneInfo};
use crate::svg::{self, Frame};
use crate::world::World;

/// Simulation rate.
pub const HZ: f32 = 60.0;
/// Steps per animation frame (30 frames per second).
pub const STEPS_PER_FRAME: usize = 2;

const HELP: &str = "\
Simulates every gallery scene and writes an animated SVG, a plot of error and energy, and an
index.html showing them all.

usage: cargo run --release --example gallery -- [options]

options:
  --out DIR       where to write (default target/gallery)
  --seconds S     simulated time per scene, 0 < S <= 120 (default 6)
  --scene NAME    run only this scene (repeatable; see --list)
  --list          list the scenes and exit
  --help          show this help and exit";

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub enum Command {
    /// Run these scenes.
    Run(Options),
    /// Print the scenes.
    List,
    /// Print the help.
    Help,
}

/// Options of a run.
#[derive(Debug, PartialEq)]
pub struct Options {
    /// Output directory.
    pub out: PathBuf,
    /// Simulated seconds per scene.
    pub seconds: f32,
    /// The scenes to run, in gallery order.
    pub scenes: Vec<&'static SceneInfo>,
}

impl PartialEq for SceneInfo {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// Parses the arguments (without the program name).
///
/// # Errors
/// A message saying what is wrong.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut out = PathBuf::from("target/gallery");
    let mut seconds = 6.0;
    let mut chosen: Vec<&'static str> = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .ok_or_else(|| format!("{name} needs a value (see --help)"))
        };
        match arg.as_str() {
            "--help" | "-h" => return Ok(Command::Help),
            "--list" => return Ok(Command::List),
            "--out" => out = PathBuf::from(value("--out")?),
            "--seconds" => {
                let text = value("--seconds")?;
                seconds = text
                    .parse::<f32>()
                    .ok()
                    .filter(|s| *s > 0.0 && *s <= 120.0)
                    .ok_or_else(|| {
                        format!("--seconds wants a number of seconds in (0, 120], not `{text}`")
                    })?;
            }
            "--scene" => {
                let name = value("--scene")?;
                let scene = scenes::find(&name).ok_or_else(|| {
                    let names: Vec<&str> = SCENES.iter().map(|s| s.name).collect();
                    format!("no scene `{name}`; the scenes are {}", names.join(", "))
                })?;
                chosen.push(scene.name);
            }
            other => return Err(format!("unknown option `{other}` (see --help)")),
        }
    }
    let scenes = SCENES
        .iter()
        .filter(|s| chosen.is_empty() || chosen.contains(&s.name))
        .collect();
    Ok(Command::Run(Options {
        out,
        seconds,
        scenes,
    }))
}

/// Simulates `scene` for `seconds` at [`HZ`], sampling a frame every
/// [`STEPS_PER_FRAME`] steps.
///
/// # Errors
/// If the scene cannot be built.
pub fn simulate(
    scene: &SceneInfo,
    seconds: f32,
) -> Result<(World, Vec<Frame>, Summary), nape::Error> {
    let mut world = (scene.build)()?;
    let steps = (seconds * HZ).round().max(1.0) as usize;
    let mut frames = vec![Frame::sample(&world, 0.0)];
    let mut worst = 0.0f32;
    let mut stepping = std::time::Duration::ZERO;
    for i in 1..=steps {
        let started = Instant::now();
        world.step(1.0 / HZ);
        stepping += started.elapsed();
        worst = worst.max(world.worst_violation());
        if i % STEPS_PER_FRAME == 0 {
            frames.push(Frame::sample(&world, i as f32 / HZ));
        }
    }
    let summary = Summary {
        name: scene.name,
        bodies: world.bodies.len(),
        joints: world.joint_count(),
        steps,
        worst_error: worst,
        micros_per_step: stepping.as_secs_f64() * 1e6 / steps as f64,
    };
    Ok((world, frames, summary))
}

/// Runs the scenes and writes the gallery into `options.out`, reporting progress on
/// `progress`.
///
/// # Errors
/// A scene that cannot be built, or a file that cannot be written.
pub fn write_gallery(
    options: &Options,
    progress: &mut dyn std::io::Write,
) -> Result<Vec<Summary>, String> {
    let out = &options.out;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let write = |name: &str, text: &str| {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    let mut summaries = Vec::new();
    let total = options.scenes.len();
    for (i, scene) in options.scenes.iter().enumerate() {
        let _ = write!(progress, "[{:>2}/{total}] {:<13}", i + 1, scene.name);
        let _ = progress.flush();
        let (world, frames, summary) = simulate(scene, options.seconds)
            .map_err(|e| format!("scene {} cannot be built: {e}", scene.name))?;
        let frame_seconds = STEPS_PER_FRAME as f32 / HZ;
        write(
            &format!("{}.svg", scene.name),
            &svg::animation(&world, &frames, frame_seconds),
        )?;
        write(&format!("{}-plot.svg", scene.name), &svg::plot(&frames))?;
        let _ = writeln!(
            progress,
            " {} steps, worst position error {:.2e}",
            summary.steps, summary.worst_error
        );
        summaries.push(summary);
    }
    write(
        "index.html",
        &html::index(&options.scenes, &summaries, options.seconds),
    )?;
    Ok(summaries)
}

/// The table printed at the end of a run.
#[must_use]
pub fn table(summaries: &[Summary]) -> String {
    let mut out = format!(
        "{:<13} {:>6} {:>6} {:>6} {:>12} {:>9}\n",
        "scene", "bodies", "joints", "steps", "worst error", "µs/step"
    );
    for s in summaries {
        out.push_str(&format!(
            "{:<13} {:>6} {:>6} {:>6} {:>12.2e} {:>9.1}\n",
            s.name, s.bodies, s.joints, s.steps, s.worst_error, s.micros_per_step
        ));
    }
    out
}

/// The gallery command: returns the process's exit code.
pub fn main(args: impl IntoIterator<Item = String>) -> i32 {
    match parse(args) {
        Ok(Command::Help) => {
            println!("{HELP}");
            0
        }
        Ok(Command::List) => {
            for scene in SCENES {
                println!("{:<13} {}", scene.name, scene.title);
            }
            0
        }
        Ok(Command::Run(options)) => match write_gallery(&options, &mut std::io::stdout()) {
            Ok(summaries) => {
                println!("\n{}", table(&summaries));
                println!("wrote {}", index_path(&options.out).display());
                0
            }
            Err(message) => {
                eprintln!("gallery: {message}");
                1
            }
        },
        Err(message) => {
            eprintln!("gallery: {message}");
            2
        }
    }
}

fn index_path(out: &Path) -> PathBuf {
    out.join("index.html")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn options_are_parsed() {
        let Ok(Command::Run(options)) = parse(args(&[
            "--out",
            "x",
            "--seconds",
            "2.5",
            "--scene",
            "cam",
            "--scene",
            "pivot",
        ])) else {
            panic!("not a run");
        };
        assert_eq!(options.out, PathBuf::from("x"));
        assert_eq!(options.seconds, 2.5);
        let names: Vec<&str> = options.scenes.iter().map(|s| s.name).collect();
        assert_eq!(names, ["pivot", "cam"]);
        assert_eq!(parse(args(&["--list"])), Ok(Command::List));
        assert_eq!(parse(args(&["--help"])), Ok(Command::Help));
    }

    #[test]
    fn bad_options_are_explained() {
        for (bad, says) in [
            (&["--bogus"][..], "unknown option `--bogus`"),
            (&["--seconds"], "--seconds needs a value"),
            (&["--seconds", "-1"], "not `-1`"),
            (&["--seconds", "NaN"], "not `NaN`"),
            (
                &["--scene", "nope"],
                "no scene `nope`; the scenes are pivot, weld",
            ),
        ] {
            let message = parse(args(bad)).unwrap_err();
            assert!(message.contains(says), "{bad:?}: {message}");
        }
        assert_eq!(main(args(&["--bogus"])), 2);
    }
}
