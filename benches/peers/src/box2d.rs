//! Box2D v3's side: its C harness (`box2d/harness.c`, built by `box2d/run.sh
//! --build-only`) run as a child process. Its timed rounds come back as records, its
//! instruction counts from callgrind, and its chains' motion as a replay that the
//! trajectory measurement steps like any engine's world: the reference and the error
//! computation stay on this side.

use std::path::Path;
use std::time::Duration;

use crate::scenes::{Pose, Scene, SceneDescription, Velocity, initial_poses};
use crate::{MovingWorld, RunRecord, World, callgrind};

/// One round of Box2D's harness (`benches/peers/box2d/harness.c`, built by
/// `benches/peers/box2d/run.sh`) on `scene`, in its own process: a record per setting.
pub(crate) fn run_rounds(harness: &str, scene: Scene) -> Result<Vec<(String, RunRecord)>, String> {
    let output = std::process::Command::new(harness)
        .args(["1", scene.name()])
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let measured: Vec<(String, RunRecord)> = text.lines().filter_map(parse_box2d_line).collect();
    if measured.is_empty() {
        return Err(format!("printed no rows for {}", scene.name()));
    }
    Ok(measured)
}

/// A row of the harness's CSV (engine, settings, scene, then ms/step, its range, first
/// step ms, final max, final mean, run max, its step, runs) as one run's record.
pub(crate) fn parse_box2d_line(line: &str) -> Option<(String, RunRecord)> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    if fields.len() < 12 {
        return None;
    }
    let number = |i: usize| fields[i].parse::<f64>().ok();
    let millis = |ms: f64| Duration::from_secs_f64(ms / 1e3);
    Some((
        fields[1].to_owned(),
        RunRecord {
            per_step: millis(number(3)?),
            first_step: millis(number(6)?),
            final_max: number(7)?,
            final_mean: number(8)?,
            run_max: number(9)?,
            run_max_step: fields[10].parse().ok()?,
        },
    ))
}

/// The substep count of one of the harness's settings (`sub 4 (default)` is 4).
pub fn substeps(label: &str) -> Option<u32> {
    label
        .strip_prefix("sub ")?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Instructions per step of each of the harness's settings on `scene`, in the order its
/// rows come (one world per setting, each counted from its creation to the next).
pub fn instructions_per_step(harness: &str, scene: Scene) -> Result<Vec<f64>, String> {
    let args = ["1", scene.name()].map(str::to_owned);
    let counts = callgrind::count_per_call(Path::new(harness), &args, "b2CreateWorld")?;
    Ok(counts
        .into_iter()
        .map(|count| count as f64 / scene.steps() as f64)
        .collect())
}

/// A chain's recorded motion, stepped back like a world: state `k` after `k` steps.
pub struct Replay {
    states: Vec<Vec<(Pose, Velocity)>>,
    step: usize,
}

impl Replay {
    /// Runs the harness on a horizontal chain of `links` links for `steps` steps at
    /// `substeps` and reads back what it printed; `description` is the same chain, whose
    /// starting poses the harness's must match.
    pub fn record(
        harness: &str,
        description: &SceneDescription,
        steps: usize,
        substeps: u32,
    ) -> Result<Replay, String> {
        let links = description.bodies.len() - 1;
        let output = std::process::Command::new(harness)
            .args([
                "trajectory",
                &links.to_string(),
                &steps.to_string(),
                &substeps.to_string(),
            ])
            .output()
            .map_err(|e| format!("{harness}: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "{harness} trajectory: {}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        Replay::parse(&String::from_utf8_lossy(&output.stdout), description, steps)
    }

    /// The harness's `step,body,x,y,cos,sin,vx,vy,w` lines for steps `0..=steps` of
    /// `description`'s bodies.
    fn parse(text: &str, description: &SceneDescription, steps: usize) -> Result<Replay, String> {
        let bodies = description.bodies.len();
        let mut states = vec![Vec::with_capacity(bodies); steps + 1];
        for line in text.lines() {
            let fields: Vec<f64> = line
                .split(',')
                .map(|field| field.trim().parse::<f64>())
                .collect::<Result<_, _>>()
                .map_err(|e| format!("harness line `{line}`: {e}"))?;
            let &[step, body, x, y, cos, sin, vx, vy, angular] = fields.as_slice() else {
                return Err(format!("harness line `{line}`: 9 fields expected"));
            };
            let state = states
                .get_mut(step as usize)
                .filter(|state| state.len() == body as usize)
                .ok_or_else(|| format!("harness line `{line}` out of order"))?;
            state.push((
                Pose { x, y, cos, sin },
                Velocity {
                    x: vx,
                    y: vy,
                    angular,
                },
            ));
        }
        if states.iter().any(|state| state.len() != bodies) {
            return Err(format!(
                "the harness printed fewer than {bodies} bodies for some of {steps} steps"
            ));
        }
        let start = initial_poses(description);
        let moved = states[0]
            .iter()
            .zip(&start)
            .map(|((pose, _), expected)| (pose.x - expected.x).hypot(pose.y - expected.y))
            .fold(0.0, f64::max);
        if moved > 1e-6 {
            return Err(format!(
                "the harness's chain starts {moved:e} m away from the description's"
            ));
        }
        Ok(Replay { states, step: 0 })
    }
}

impl World for Replay {
    fn step(&mut self) {
        self.step = (self.step + 1).min(self.states.len() - 1);
    }

    fn read_poses(&self, poses: &mut [Pose]) {
        for (pose, (recorded, _)) in poses.iter_mut().zip(&self.states[self.step]) {
            *pose = *recorded;
        }
    }
}

impl MovingWorld for Replay {
    fn read_velocities(&self, velocities: &mut [Velocity]) {
        for (velocity, (_, recorded)) in velocities.iter_mut().zip(&self.states[self.step]) {
            *velocity = *recorded;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes::horizontal_chain;

    #[test]
    fn harness_rows_parse() {
        let row = "box2d v3.1.1,sub 4 (default),chain_hang,0.0538,0.0531,0.0549,0.054,0.0361,0.0194,0.0519,90,1";
        let (label, run) = parse_box2d_line(row).expect("box2d row");
        assert_eq!(label, "sub 4 (default)");
        assert!((run.per_step.as_secs_f64() * 1e3 - 0.0538).abs() < 1e-9);
        assert_eq!((run.run_max, run.run_max_step), (0.0519, 90));
        assert!(parse_box2d_line("round 1 chain_hang substeps 4").is_none());
        assert_eq!(substeps(&label), Some(4));
        assert_eq!(substeps("sub 16"), Some(16));
        assert_eq!(substeps("it 4"), None);
    }

    const ONE_LINK_TWO_STEPS: &str = "0,0,0,0,1,0,0,0,0\n0,1,0.5,0,1,0,0,0,0\n\
        1,0,0,0,1,0,0,0,0\n1,1,0.499999285,-0.00112767401,0.999997795,-0.00214205962,-0.000117099204,-0.105898932,-0.211008027\n\
        2,0,0,0,1,0,0,0,0\n2,1,0.49998647,-0.00399867119,0.999969184,-0.00785665866,-0.00130105182,-0.211546585,-0.422807127\n";

    #[test]
    fn a_replay_steps_through_the_recorded_states() {
        let description = horizontal_chain(1);
        let mut replay = Replay::parse(ONE_LINK_TWO_STEPS, &description, 2).unwrap();
        let mut poses = initial_poses(&description);
        let mut velocities = vec![Velocity::default(); 2];
        replay.step();
        replay.step();
        replay.read_poses(&mut poses);
        replay.read_velocities(&mut velocities);
        assert_eq!(poses[1].y, -0.00399867119);
        assert_eq!(velocities[1].angular, -0.422807127);
        // Past the recording it stays at the last state.
        replay.step();
        replay.read_poses(&mut poses);
        assert_eq!(poses[1].y, -0.00399867119);
    }

    #[test]
    fn a_short_garbled_or_different_recording_is_an_error() {
        let description = horizontal_chain(1);
        assert!(Replay::parse(ONE_LINK_TWO_STEPS, &description, 3).is_err());
        assert!(Replay::parse("0,0,0,0,1,0,0,0\n", &description, 0).is_err());
        assert!(Replay::parse("1,0,0,0,1,0,0,0,0\n0,0,0,0,1,0,0,0,0\n", &description, 1).is_err());
        let shifted = ONE_LINK_TWO_STEPS.replacen("0,1,0.5,", "0,1,0.6,", 1);
        let error = Replay::parse(&shifted, &description, 2).err().unwrap();
        assert!(error.contains("starts"), "{error}");
    }
}
