//! Ten simulated minutes at the defaults (60 Hz, 36,000 steps): what the motion tests
//! check over seconds, held for as long as a game runs a scene. Each bound is what the
//! scene keeps with a margin (the figures are printed; `docs/guarantees.md` gives them
//! and the hour-long soak of the same scenes, `examples/long_run.rs`). A 20-link chain
//! whose steps read their substeps from their start alone lost 90 % of its swing's energy
//! in these ten minutes.

#[path = "support/long_run.rs"]
mod long_run;
#[path = "support/mechanics.rs"]
mod mechanics;

use long_run::*;
use mechanics::*;

const MINUTES: f64 = 10.0;

#[test]
fn a_chain_released_horizontal_keeps_its_energy_for_ten_minutes() {
    for links in [2, 20] {
        let (excursion, level) = swinging_chain(links, MINUTES);
        println!(
            "{links}-link chain, {MINUTES} min: energy within {:.3} % of its swing, at {:+.3} % over the last minute",
            100.0 * excursion,
            100.0 * level
        );
        assert!(excursion < 0.005, "{links} links: {excursion}");
        assert!(level.abs() < 0.005, "{links} links: {level}");
    }
}

#[test]
fn a_rod_pendulum_keeps_its_energy_and_period_for_ten_minutes() {
    let amplitude = std::f64::consts::FRAC_PI_2;
    let run = swing_rod(amplitude, MINUTES * 60.0, |_| {});
    println!(
        "rod pendulum, {MINUTES} min: energy within {:.4} %, period {:.5} s against {:.5}",
        100.0 * run.energy_drift,
        run.period,
        rod_period(amplitude)
    );
    assert!(run.energy_drift < 5e-4, "{run:?}");
    assert!(
        (run.period / rod_period(amplitude) - 1.0).abs() < 1e-3,
        "{run:?}"
    );
}

#[test]
fn a_free_spinning_pair_keeps_its_momenta_for_ten_minutes() {
    let (mut space, bodies) = spinning_pair_in_place();
    let run = run_free(&mut space, &bodies, MINUTES * 60.0);
    println!("spinning pair, {MINUTES} min: {run:?}");
    assert!(run.linear_change < 1e-4, "{run:?}");
    assert!(run.angular_change.abs() < 1e-4, "{run:?}");
    assert!(run.kinetic_change.abs() < 1e-3, "{run:?}");
}

#[test]
fn springs_limits_and_motors_keep_a_free_pair_s_momentum_for_ten_minutes() {
    for (name, add) in pair_variants() {
        let run = free_pair_variant(add, MINUTES);
        println!("spinning pair, {name}, {MINUTES} min: {run:?}");
        assert!(run.linear_change < 1e-3, "{name}: {run:?}");
        // A stiff damper (10 Hz, ζ = 1) is the worst: 2.2e-3 in ten minutes.
        assert!(run.angular_change.abs() < 5e-3, "{name}: {run:?}");
        assert!(run.kinetic_change < 1e-3, "{name} gains energy: {run:?}");
    }
}

#[test]
fn an_undamped_spring_keeps_its_energy_for_ten_minutes() {
    let run = bounce_on_spring(2.0, 0.0, MINUTES * 60.0);
    println!(
        "body on an undamped 2 Hz spring, {MINUTES} min: energy within {:.3} %",
        100.0 * run.energy_drift
    );
    assert!(run.energy_drift < 0.01, "{}", run.energy_drift);
}

#[test]
fn a_motor_driven_crank_keeps_its_pin_weld_and_rate_for_ten_minutes() {
    let run = motor_crank(MINUTES);
    println!("motor-driven crank, {MINUTES} min: {run:?}");
    assert!(run.pin < 1e-4 && run.weld < 1e-4, "{run:?}");
    assert!((run.spin - std::f32::consts::TAU).abs() < 1e-3, "{run:?}");
}
