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
#[path = "../examples/common/scenes.rs"]
mod scenes;

use long_run::*;
use mechanics::*;

const MINUTES: f64 = 10.0;

#[test]
fn a_chain_released_horizontal_keeps_its_energy_for_ten_minutes() {
    // The mid sizes whip hardest for their swing: their joints turn fastest against
    // each other (without a limit on that, the 4- and 6-link chains left 1.0 and 1.2 %).
    for links in [2, 3, 4, 5, 6, 8, 10, 20] {
        let (excursion, level) = swinging_chain(links, MINUTES);
        println!(
            "{links}-link chain, {MINUTES} min: energy within {:.3} % of its swing, at {:+.3} % over the last minute",
            100.0 * excursion,
            100.0 * level
        );
        assert!(excursion < 0.004, "{links} links: {excursion}");
        assert!(level.abs() < 0.004, "{links} links: {level}");
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
    // Its kicks are impulses outside the exact solve (`explicit_kick`): 0.38 % with a
    // compliance standing for no damper.
    assert!(run.energy_drift < 3e-3, "{}", run.energy_drift);
}

#[test]
fn a_motor_driven_crank_keeps_its_pin_weld_and_rate_for_ten_minutes() {
    let run = motor_crank(MINUTES);
    println!("motor-driven crank, {MINUTES} min: {run:?}");
    assert!(run.pin < 1e-4 && run.weld < 1e-4, "{run:?}");
    assert!((run.spin - std::f32::consts::TAU).abs() < 1e-3, "{run:?}");
}

/// The free ragdoll of the motion tests (spinning, a forearm flung against its elbow, no
/// gravity), its pivots stiff, soft at 5 Hz and breaking under 5 N, spinning in place (its
/// centre of mass at rest: thrown at 3 m/s it would be 1.9 km out after ten minutes, where
/// the `f32` rounding of its velocities, 2e-7 m/s, moves its angular momentum about the
/// origin by 4e-4 of it a step through that lever): its momenta stay for ten minutes, and
/// its limits, inelastic, never give it energy. Broken under 5 N, its pieces fly apart,
/// and the same lever holds its angular momentum only to 2e-3: its linear momentum and
/// its energy are held.
#[test]
fn a_free_ragdoll_keeps_its_momenta_for_ten_minutes() {
    for (name, pivots) in scenes::ragdoll_pivot_variants() {
        let mut s = scenes::thrown_ragdoll(pivots);
        let bodies = s.bodies.clone();
        let (p, _) = momentum(&s.space, &bodies);
        let mass: f64 = bodies
            .iter()
            .map(|&b| f64::from(s.space.body(b).unwrap().mass()))
            .sum();
        let drift = nape::Vec2::new((p[0] / mass) as f32, (p[1] / mass) as f32);
        for &b in &bodies {
            let v = s.space.body(b).unwrap().velocity();
            s.space
                .body_mut(b)
                .unwrap()
                .set_velocity(v - drift)
                .unwrap();
        }
        let run = run_free(&mut s.space, &bodies, MINUTES * 60.0);
        println!("free ragdoll in place, pivots {name}, {MINUTES} min: {run:?}");
        assert!(run.linear_change <= 1e-4, "{name}: {run:?}");
        let angular = if name.contains("breaking") {
            5e-3
        } else {
            1e-4
        };
        assert!(run.angular_change.abs() <= angular, "{name}: {run:?}");
        assert!(run.kinetic_change <= 1e-3, "{name} gained energy: {run:?}");
    }
}
