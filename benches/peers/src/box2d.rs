//! Box2D v3's side: its C harness (`box2d/harness.c`, built by `box2d/run.sh
//! --build-only`) run as a child process. Its timed rounds come back as records, its
//! instruction counts from callgrind, and its chains' motion as a replay that the
//! trajectory measurement steps like any engine's world: the reference and the error
//! computation stay on this side. The loop scenes go to the harness as their
//! descriptions ([`description_text`]) and come back timed, with every step's state
//! ([`Replay::record_scene`]).

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

/// `description` as the lines the harness's `scene` mode reads (`box2d/harness.c`'s
/// header): gravity, bodies, then pins (each with its motor, if one drives it), welds,
/// distance joints and sliders. `f32`s print as the shortest text that reads back to the
/// same `f32`, so the harness builds exactly the description.
pub fn description_text(description: &SceneDescription) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let [gx, gy] = description.gravity;
    let _ = writeln!(out, "gravity {gx} {gy}");
    for (index, body) in description.bodies.iter().enumerate() {
        let (dynamic, (mass, inertia)) = match body.mass_inertia {
            Some(mass_inertia) => (1, mass_inertia),
            None => (0, (0.0, 0.0)),
        };
        let velocity = description.initial_velocity(index);
        let [x, y] = body.position;
        let _ = writeln!(
            out,
            "body {dynamic} {mass} {inertia} {x} {y} {} {} {} {}",
            body.angle, velocity.x as f32, velocity.y as f32, velocity.angular as f32
        );
    }
    let anchors = |a: [f32; 2], b: [f32; 2]| format!("{} {} {} {}", a[0], a[1], b[0], b[1]);
    for (index, pin) in description.joints.iter().enumerate() {
        let motor = description.motors.iter().find(|m| m.joint == index);
        let (on, speed, torque) = motor.map_or((0, 0.0, 0.0), |m| (1, m.speed, m.max_torque));
        let _ = writeln!(
            out,
            "revolute {} {} {} {on} {speed} {torque}",
            pin.a,
            pin.b,
            anchors(pin.anchor_a, pin.anchor_b)
        );
    }
    for weld in &description.welds {
        let _ = writeln!(
            out,
            "weld {} {} {} {}",
            weld.a,
            weld.b,
            anchors(weld.anchor_a, weld.anchor_b),
            weld.reference_angle
        );
    }
    for rod in &description.distances {
        let _ = writeln!(
            out,
            "distance {} {} {} {}",
            rod.a,
            rod.b,
            anchors(rod.anchor_a, rod.anchor_b),
            rod.length
        );
    }
    for line in &description.lines {
        let _ = writeln!(
            out,
            "line {} {} {} {} {}",
            line.a,
            line.b,
            anchors(line.anchor_a, line.anchor_b),
            line.axis[0],
            line.axis[1]
        );
    }
    out
}

/// One timed run of the harness on a description: the mean time of steps 2..N and the
/// first step's (the step call only, timed in the harness), and the motion it printed.
pub struct SceneRun {
    /// Mean of steps 2..N.
    pub per_step: Duration,
    /// The first step.
    pub first_step: Duration,
    /// Every step's state.
    pub replay: Replay,
}

impl Replay {
    /// Runs the harness's `scene` mode on `description` for `steps` steps at `substeps`,
    /// in its own process, and reads back its times and states.
    pub fn record_scene(
        harness: &str,
        description: &SceneDescription,
        steps: usize,
        substeps: u32,
    ) -> Result<SceneRun, String> {
        use std::io::Write as _;
        let mut child = std::process::Command::new(harness)
            .args(["scene", &steps.to_string(), &substeps.to_string()])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| format!("{harness}: {e}"))?;
        let text = description_text(description);
        child
            .stdin
            .take()
            .ok_or("the harness's stdin")?
            .write_all(text.as_bytes())
            .map_err(|e| format!("{harness}: {e}"))?;
        let output = child
            .wait_with_output()
            .map_err(|e| format!("{harness}: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "{harness} scene: {}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let (time, states) = stdout
            .split_once('\n')
            .ok_or_else(|| format!("{harness} scene printed nothing"))?;
        let times: Vec<f64> = time
            .strip_prefix("time,")
            .map(|fields| {
                fields
                    .split(',')
                    .filter_map(|f| f.trim().parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        let &[per_step, first_step] = times.as_slice() else {
            return Err(format!("{harness} scene: `{time}` is not its time line"));
        };
        let millis = |ms: f64| Duration::from_secs_f64(ms / 1e3);
        Ok(SceneRun {
            per_step: millis(per_step),
            first_step: millis(first_step),
            replay: Replay::parse(states, description, steps)?,
        })
    }

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
    fn a_description_goes_to_the_harness_line_by_line() {
        let description = crate::loop_scenes::LoopScene::Peaucellier.describe();
        let text = description_text(&description);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "gravity 0 -10");
        assert!(
            lines[1].starts_with("body 0 0 0 0 0 0 0 0 0"),
            "{}",
            lines[1]
        );
        assert_eq!(lines.len(), 1 + 8 + 10);
        // The first pin carries the crank's motor, the others none.
        assert!(lines[9].ends_with(" 1 0.2 1000"), "{}", lines[9]);
        assert!(lines[10].ends_with(" 0 0 0"), "{}", lines[10]);
        // f32s read back exactly.
        let mass: f32 = lines[2].split(' ').nth(2).unwrap().parse().unwrap();
        assert_eq!(Some(mass), description.bodies[1].mass_inertia.map(|m| m.0));
        let lift = description_text(&crate::loop_scenes::LoopScene::ScissorLift.describe());
        assert_eq!(lift.lines().filter(|l| l.starts_with("line ")).count(), 2);
        assert_eq!(
            lift.lines().filter(|l| l.starts_with("distance ")).count(),
            1
        );
        let frame = description_text(&crate::loop_scenes::LoopScene::FourBarFrame.describe());
        assert!(frame.contains("\nweld 0 1 2 0 0 0 0\n"), "{frame}");
    }

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
