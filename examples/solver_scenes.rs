//! The solver's reference scenes at the defaults: `chain`, `chain_hang` (200 links) and
//! `joint_grid` (100 × 100), with ms/step and the anchor error, as reference/scenes.md
//! measures them, and the energy the run gained (negative: lost); `ball` is the swinging ball and chain of the scene tests (40 links, a
//! ball of 800 times a link's mass) and `ragdolls` five ragdolls (`--dolls N`) hand in hand
//! hung by one hand (their angle limits reached and left; the largest limit overshoot is printed too),
//! neither run unless named. `cargo run --release --example
//! solver_scenes -- [chain|chain_hang|grid|ball|ragdolls]
//! [--links N] [--grid N] [--dolls N] [--substeps N] [--exact-substeps N] [--iterations N] [--relax N]
//! [--hertz HZ] [--zeta Z] [--no-direct] [--no-adapt]`. `--substeps` sets the substeps of
//! the islands swept by Gauss–Seidel (the grid, and every island with `--no-direct`),
//! `--exact-substeps` those of the islands solved exactly (chains, the ball), all of them
//! with `--no-adapt` (otherwise the most each island may take).
//!
//! `--digest` adds a digest of every body's final pose and velocity bits: two builds that
//! step bit for bit alike print the same (a check for refactors of the solver).
//!
//! `-- soak [--steps N] [--links N]` runs the soak of the scene tests in release: the
//! chain released horizontally for N steps (default 100,000), reporting the largest energy
//! rise above the start, the largest anchor error, and the step's time and the substeps
//! taken over the first and the last minute of simulated time; then it steps those two
//! minutes again from the states they started from, in turns, for their times on the
//! same machine (this shared machine's speed level can change within a long run).

#[path = "common/scenes.rs"]
mod scenes;

use std::time::Instant;

/// `n:count` for every substep count `n` some island-step took (`-` if none).
fn histogram(taken: &[usize]) -> String {
    let used: Vec<String> = taken
        .iter()
        .enumerate()
        .filter(|&(_, &count)| count > 0)
        .map(|(n, count)| format!("{n}:{count}"))
        .collect();
    if used.is_empty() {
        "-".to_string()
    } else {
        used.join(" ")
    }
}

/// FNV-1a over the bits of every body's position, rotation, winding and velocities.
fn digest(scene: &scenes::Scene) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for &handle in &scene.bodies {
        let body = scene.space.body(handle).expect("the scene's bodies stay");
        let (pose, velocity) = (body.pose(), body.velocity());
        for x in [
            pose.position.x.to_bits(),
            pose.position.y.to_bits(),
            u64::from(pose.cos.to_bits()),
            u64::from(pose.sin.to_bits()),
            u64::from(pose.turns.cast_unsigned()),
            u64::from(velocity.x.to_bits()),
            u64::from(velocity.y.to_bits()),
            u64::from(body.angular_velocity().to_bits()),
        ] {
            for byte in x.to_le_bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    hash
}

/// The value after `--name` in `args`, parsed.
fn option<T: std::str::FromStr>(args: &[String], name: &str) -> Option<T> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
}

/// The solver settings the command line gives, applied to `space`.
fn apply_settings(space: &mut nape::Space, args: &[String]) {
    let flag = |name: &str| args.iter().any(|a| a == name);
    if let Some(n) = option(args, "--substeps") {
        space.substeps = n;
    }
    if let Some(n) = option(args, "--exact-substeps") {
        space.exact_substeps = n;
    }
    if flag("--no-adapt") {
        space.adaptive_substeps = false;
    }
    if let Some(n) = option(args, "--iterations") {
        space.velocity_iterations = n;
    }
    if let Some(n) = option(args, "--relax") {
        space.relax_iterations = n;
    }
    if let Some(x) = option(args, "--hertz") {
        space.joint_hertz = x;
    }
    if let Some(x) = option(args, "--zeta") {
        space.joint_damping_ratio = x;
    }
    if flag("--no-direct") {
        space.direct_solve = false;
    }
}

/// Steps the first and the last minute of the soak again from the states they started
/// from, in turns (`REPLAY_ROUNDS` rounds, the order alternating), and prints the median
/// times and their ratio: within one long run the machine's speed level can change
/// between the two minutes, in turns both see the same machine. The last minute must end
/// where the soak did (`final_hash`), bit for bit.
fn replay_minutes(first: &nape::Snapshot, last: &nape::Snapshot, minute: usize, final_hash: u64) {
    const REPLAY_ROUNDS: usize = 5;
    let time = |snapshot: &nape::Snapshot| {
        let mut space = nape::Space::from_snapshot(snapshot);
        let start = Instant::now();
        for _ in 0..minute {
            space.step(1.0 / 60.0);
        }
        (
            start.elapsed().as_secs_f64() * 1e3 / minute as f64,
            space.state_hash(),
        )
    };
    let (mut firsts, mut lasts) = (Vec::new(), Vec::new());
    for round in 0..REPLAY_ROUNDS {
        let order = if round % 2 == 0 {
            [true, false]
        } else {
            [false, true]
        };
        for is_first in order {
            if is_first {
                firsts.push(time(first).0);
            } else {
                let (ms, hash) = time(last);
                assert_eq!(
                    hash, final_hash,
                    "the replayed last minute ends where the soak did"
                );
                lasts.push(ms);
            }
        }
    }
    let median = |times: &mut Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let (first_ms, last_ms) = (median(&mut firsts), median(&mut lasts));
    println!(
        "replayed in turns, {REPLAY_ROUNDS} rounds: {first_ms:.3} ms a step over the first \
         minute, {last_ms:.3} over the last (medians), {:.2} times; the last minute ends \
         bit for bit where the soak did",
        last_ms / first_ms
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| option::<usize>(&args, name);
    let links = value("--links").unwrap_or(200);
    if args.iter().any(|a| a == "soak") {
        let mut scene = scenes::chain(links, false);
        apply_settings(&mut scene.space, &args);
        let steps = value("--steps").unwrap_or(100_000);
        let initial = scene.energy();
        let (mut max_rise, mut max_error, mut worst_step) = (f64::NEG_INFINITY, 0.0f32, 0);
        let start = Instant::now();
        // The step's time over the first minute of simulated time and over the last.
        let minute = 3600.min(steps);
        let (mut first_minute, mut last_minute) = (0.0f64, 0.0f64);
        // The substeps the chain took over each: the work the times follow, without the
        // machine's noise.
        let (mut first_substeps, mut last_substeps) = (0u64, 0u64);
        // The states the two minutes start from, stepped again below in turns.
        let first_start = scene.space.snapshot();
        let mut last_start = None;
        for step in 0..steps {
            if step == steps - minute {
                last_start = Some(scene.space.snapshot());
            }
            let stepped = Instant::now();
            scene.space.step(1.0 / 60.0);
            let elapsed = stepped.elapsed().as_secs_f64();
            let substeps: u64 = scene
                .space
                .exact_substeps_taken()
                .iter()
                .map(|&n| u64::from(n))
                .sum();
            if step < minute {
                first_minute += elapsed;
                first_substeps += substeps;
            }
            if step >= steps - minute {
                last_minute += elapsed;
                last_substeps += substeps;
            }
            max_rise = max_rise.max(scene.energy() - initial);
            let e = scene.error().0;
            if e > max_error {
                (max_error, worst_step) = (e, step + 1);
            }
            if !scene.finite() {
                println!("soak: non-finite state after step {}", step + 1);
                std::process::exit(1);
            }
        }
        println!(
            "soak {links} links, {steps} steps in {:.1} s: max energy rise {max_rise:.3e} J, \
             final energy change {:.1} J, run max error {max_error:.3e} (step {worst_step}); \
             {:.3} ms a step over the first minute, {:.3} over the last; {:.1} and {:.1} \
             substeps a step",
            start.elapsed().as_secs_f64(),
            scene.energy() - initial,
            first_minute * 1e3 / minute as f64,
            last_minute * 1e3 / minute as f64,
            first_substeps as f64 / minute as f64,
            last_substeps as f64 / minute as f64
        );
        let last_start = last_start.expect("the last minute starts inside the run");
        replay_minutes(&first_start, &last_start, minute, scene.space.state_hash());
        return;
    }
    let grid = value("--grid").unwrap_or(100);
    let which: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| ["chain", "chain_hang", "grid", "ball", "ragdolls"].contains(a))
        .collect();
    let which = if which.is_empty() {
        vec!["chain", "chain_hang", "grid"]
    } else {
        which
    };
    println!(
        "{:<11} {:>9} {:>10} {:>11} {:>11} {:>11} {:>11}  exact substeps: steps",
        "scene", "steps", "ms/step", "final max", "final mean", "run max", "energy Δ"
    );
    for name in which {
        let (mut scene, steps) = match name {
            "chain" => (scenes::chain(links, false), 600),
            "chain_hang" => (scenes::chain(links, true), 600),
            "ball" => (scenes::ball_and_chain(40, false), 300),
            "ragdolls" => (scenes::hung_ragdolls(value("--dolls").unwrap_or(5)), 300),
            _ => (scenes::joint_grid(grid), 300),
        };
        apply_settings(&mut scene.space, &args);
        let initial_energy = scene.energy();
        let mut timed = 0.0f64;
        // How many island-steps took each number of exact substeps.
        let mut taken = [0usize; nape::limits::MAX_SUBSTEPS as usize + 1];
        let (mut run_max, mut overshoot) = (0.0f32, 0.0f32);
        for step in 0..steps {
            let start = Instant::now();
            scene.space.step(1.0 / 60.0);
            let elapsed = start.elapsed().as_secs_f64();
            if step > 0 {
                timed += elapsed;
            }
            run_max = run_max.max(scene.error().0);
            overshoot = overshoot.max(scene.limit_violation());
            for &n in scene.space.exact_substeps_taken() {
                taken[n as usize] += 1;
            }
        }
        let (max, mean) = scene.error();
        println!(
            "{:<11} {:>9} {:>10.4} {:>11.5} {:>11.5} {:>11.5} {:>11.4e}  {}",
            name,
            steps,
            timed * 1e3 / (steps - 1) as f64,
            max,
            mean,
            run_max,
            scene.energy() - initial_energy,
            histogram(&taken)
        );
        if !scene.limits.is_empty() {
            println!("{name:<11} largest limit overshoot {overshoot:.2e} rad");
        }
        if args.iter().any(|a| a == "--digest") {
            println!("{:<11} digest {:016x}", name, digest(&scene));
        }
    }
}
