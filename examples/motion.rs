//! How faithfully bodies move, at the defaults (60 Hz): each scene of the motion laws
//! against its exact answer — a rod pendulum's energy and elliptic-integral period, a
//! whirled stone's speed, the momenta of a spinning pair (on springs, limits and motors,
//! on both paths), of a spinning loop (solved exactly, its pins stiff and soft, and against limits)
//! and of a thrown ragdoll, the energy of a pair against undamped soft limits, a body on an
//! undamped spring, and
//! chains released horizontal against Lagrange's equations in the links' angles.
//!
//! Run with `cargo run --release --example motion`.

#[path = "../tests/support/mechanics.rs"]
mod mechanics;
#[path = "common/scenes.rs"]
mod scenes;

use mechanics::*;

fn main() {
    let defaults = |_: &mut nape::Space| {};
    println!("rod pendulum (1 m, pinned at one end), 20 s:");
    for (name, amplitude) in [
        ("0.1 rad", 0.1),
        ("horizontal", std::f64::consts::FRAC_PI_2),
        ("172°", 3.0),
    ] {
        let run = swing_rod(amplitude, 20.0, defaults);
        let exact = rod_period(amplitude);
        println!(
            "  {name:>10}: energy drift {:8.4} % (at the end {:+8.4} %), period {:.5} s against {:.5} ({:+.4} %)",
            100.0 * run.energy_drift,
            100.0 * run.energy_change,
            run.period,
            exact,
            100.0 * (run.period / exact - 1.0)
        );
    }
    println!(
        "whirled stone, 10 s: speed {:+.5} %",
        100.0 * whirl_stone(10.0, defaults)
    );
    let (mut space, bodies) = spinning_pair();
    let free = run_free(&mut space, &bodies, 10.0);
    println!(
        "spinning pair, 10 s: linear momentum {:.2e}, angular momentum {:+.2e}, kinetic energy {:+.4} %",
        free.linear_change,
        free.angular_change,
        100.0 * free.kinetic_change
    );
    let swept = |space: &mut nape::Space| space.direct_solve = false;
    let paths = [
        ("exact", defaults as fn(&mut nape::Space)),
        ("swept", swept),
    ];
    for (path, configure) in paths {
        for (name, add) in pair_variants() {
            let (mut space, bodies) = spinning_pair();
            configure(&mut space);
            add(&mut space, &bodies);
            let free = run_free(&mut space, &bodies, 10.0);
            println!(
                "spinning pair, {name}, {path}, 10 s: linear momentum {:.2e}, angular momentum {:+.2e}",
                free.linear_change, free.angular_change
            );
        }
    }
    for (path, configure) in paths {
        for (limit, pinned) in undamped_soft_limits()
            .into_iter()
            .flat_map(|limit| [(limit, true), (limit, false)])
        {
            let (mut space, bodies) = bumped_pair(&limit, pinned, configure);
            let drift = energy_drift_free(&mut space, &bodies, 20.0, limit.potential);
            // Swept, the pin is a spring of the soft step, damped at `joint_damping_ratio`.
            let bodies = if pinned {
                "pinned"
            } else {
                "free but for the limit"
            };
            println!(
                "spinning pair, {bodies}, {}, {path}, 20 s: energy drift {:.3} %",
                limit.name,
                100.0 * drift
            );
        }
    }
    for (name, settings) in loop_pin_variants() {
        let (mut space, bodies) = spinning_loop(settings);
        let free = run_free(&mut space, &bodies, 10.0);
        println!(
            "spinning loop of four rods (solved exactly), pins {name}, 10 s: linear momentum {:.2e}, angular momentum {:+.2e}, kinetic energy {:+.3} %",
            free.linear_change,
            free.angular_change,
            100.0 * free.kinetic_change
        );
    }
    for (name, add) in loop_limit_variants() {
        let (mut space, bodies) = spinning_loop(nape::ConstraintSettings::default());
        add(&mut space, &bodies);
        let free = run_free(&mut space, &bodies, 10.0);
        println!(
            "spinning loop of four rods, rocking, {name}, 10 s: linear momentum {:.2e}, angular momentum {:+.2e}",
            free.linear_change, free.angular_change
        );
    }
    for (name, pivots) in scenes::ragdoll_pivot_variants() {
        let mut s = scenes::thrown_ragdoll(pivots);
        let bodies = s.bodies.clone();
        let free = run_free(&mut s.space, &bodies, 10.0);
        println!(
            "free ragdoll thrown spinning, pivots {name}, 10 s: linear momentum {:.2e}, angular momentum {:+.2e}, kinetic energy {:+.2} % (limits struck)",
            free.linear_change,
            free.angular_change,
            100.0 * free.kinetic_change
        );
    }
    for (path, configure) in paths {
        for hertz in [1.0, 2.0, 5.0] {
            let run = bounce_on_spring_in(hertz, 0.0, 20.0, configure);
            println!(
                "soft pivot {hertz} Hz, ζ = 0, {path}, 20 s: frequency {:+.3} %, energy drift {:.3} %",
                100.0 * (1.0 / (run.period * hertz) - 1.0),
                100.0 * run.energy_drift
            );
        }
    }
    println!("chains released horizontal:");
    for (links, seconds) in [(1, 10.0), (2, 10.0), (10, 5.0), (50, 5.0)] {
        let run = drop_chain(links, seconds, 12_000.0, defaults);
        println!(
            "  {links:>3} links: off the exact motion after 1 s {:.4} m, energy lost after {seconds} s {:.3} %",
            run.off_after_1s,
            100.0 * run.energy_lost
        );
    }
}
