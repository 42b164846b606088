//! The long-run scenes of `tests/long_run.rs`, the loop scenes of `tests/loops.rs`'s
//! ten-minute test and the gallery's scenes (`gallery/tests/long_run.rs`), for an hour of
//! simulated time each (or `--minutes M`), at the defaults: the soak `docs/guarantees.md`
//! reports.
//!
//! Run with `cargo run --release --example long_run [-- --minutes M]`; with
//! `--pair-substeps 2,3,4,6` it runs only the free spinning pair, at each of those fixed
//! substep counts (`0`: at the defaults); with `--chain-substeps N` only the swinging
//! chains, at N fixed substeps.

#[path = "../tests/support/long_run.rs"]
mod long_run;
#[path = "common/loops.rs"]
mod loops;
#[path = "../tests/support/mechanics.rs"]
mod mechanics;

use long_run::*;
use mechanics::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let minutes: f64 = args
        .iter()
        .position(|a| a == "--minutes")
        .and_then(|i| args.get(i + 1))
        .map_or(60.0, |m| m.parse().expect("--minutes takes a number"));
    if let Some(i) = args.iter().position(|a| a == "--pair-substeps") {
        let counts = args
            .get(i + 1)
            .expect("--pair-substeps takes a list of counts, e.g. 2,3,4,6");
        for n in counts.split(',') {
            let n = n.parse().expect("--pair-substeps takes whole numbers");
            pair_at_substeps(n, minutes);
        }
        return;
    }
    // `--chain-substeps N`: the chains alone, at N fixed substeps.
    let chain_substeps: Option<u32> = args.iter().position(|a| a == "--chain-substeps").map(|i| {
        args.get(i + 1)
            .and_then(|n| n.parse().ok())
            .expect("--chain-substeps takes a whole number")
    });
    // The sizes of the long-run test, and those between, where a chain whips differently.
    for links in [2, 3, 4, 5, 6, 8, 10, 20] {
        let started = std::time::Instant::now();
        let (excursion, level) = swinging_chain_in(links, minutes, |space| {
            if let Some(n) = chain_substeps {
                space.exact_substeps = n;
                space.adaptive_substeps = false;
            }
        });
        println!(
            "{links}-link chain{}, {minutes} min: energy within {:.3} % of its swing, at {:+.3} % over the last tenth ({:.1} s)",
            chain_substeps.map_or(String::new(), |n| format!(" at {n} substeps")),
            100.0 * excursion,
            100.0 * level,
            started.elapsed().as_secs_f64()
        );
    }
    if chain_substeps.is_some() {
        return;
    }
    let amplitude = std::f64::consts::FRAC_PI_2;
    let run = swing_rod(amplitude, minutes * 60.0, |_| {});
    println!(
        "rod pendulum, {minutes} min: energy within {:.4} %, period {:+.4} % off",
        100.0 * run.energy_drift,
        100.0 * (run.period / rod_period(amplitude) - 1.0)
    );
    let (mut space, bodies) = spinning_pair_in_place();
    let run = run_free(&mut space, &bodies, minutes * 60.0);
    println!(
        "spinning pair, {minutes} min: linear momentum {:.2e}, angular {:+.2e}, kinetic energy {:+.2e}",
        run.linear_change, run.angular_change, run.kinetic_change
    );
    for (name, add) in pair_variants() {
        let run = free_pair_variant(add, minutes);
        println!(
            "spinning pair, {name}, {minutes} min: linear momentum {:.2e}, angular {:+.2e}, kinetic energy {:+.2e}",
            run.linear_change, run.angular_change, run.kinetic_change
        );
    }
    let run = bounce_on_spring(2.0, 0.0, minutes * 60.0);
    println!(
        "body on an undamped 2 Hz spring, {minutes} min: energy within {:.3} %",
        100.0 * run.energy_drift
    );
    let run = motor_crank(minutes);
    println!(
        "motor-driven crank, {minutes} min: pin {:.1e} m, weld {:.1e} m, spin {:.6} rad/s",
        run.pin, run.weld, run.spin
    );
    for mut scene in [
        loops::ring_24(),
        loops::four_bar_frame(),
        loops::scissor_lift(),
    ] {
        scene.seconds = minutes * 60.0;
        let figures = scene.run();
        println!(
            "{}",
            figures.line(&format!("{}, {minutes} min", scene.name))
        );
    }
    // The gallery's scenes, as `gallery/tests/long_run.rs` runs them for ten minutes.
    for scene in nape_gallery::SCENES {
        let run = nape_gallery::soak::soak(scene, steps(minutes));
        println!(
            "gallery {}, {minutes} min: joints within {:.2e}, energy within {:.4} J of its \
             start (at most {:+.4} J above; the swing {:.3} J){}",
            scene.name,
            run.worst,
            run.drift,
            run.rise,
            run.swing,
            if run.finite { "" } else { "; NOT FINITE" }
        );
    }
}

/// The free spinning pair at `n` fixed substeps (`0`: adapting them, the default): the
/// worst changes of its kinetic energy and angular momentum over the run, read after every
/// step (`--pair-substeps`).
fn pair_at_substeps(n: u32, minutes: f64) {
    let (mut space, bodies) = spinning_pair_in_place();
    space.gravity = nape::Vec2::ZERO;
    if n > 0 {
        space.exact_substeps = n;
        space.adaptive_substeps = false;
    }
    let t0 = kinetic_energy(&space, &bodies);
    let (_, l0) = momentum(&space, &bodies);
    let (mut kinetic, mut angular) = (0.0f64, 0.0f64);
    for _ in 0..(minutes * 60.0 * HZ).round() as usize {
        space.step((1.0 / HZ) as f32);
        let (_, l) = momentum(&space, &bodies);
        kinetic = kinetic.max(((kinetic_energy(&space, &bodies) - t0) / t0).abs());
        angular = angular.max(((l - l0) / l0).abs());
    }
    println!(
        "spinning pair at {n} substeps, {minutes} min: kinetic energy within {kinetic:.2e}, angular momentum within {angular:.2e}"
    );
}
