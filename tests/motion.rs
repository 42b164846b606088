//! Bodies move as mechanics says, at the defaults (60 Hz): a rod pendulum's energy and
//! elliptic-integral period, a whirled stone's speed, momentum of free islands, and chains
//! released horizontal against Lagrange's equations in the links' angles. The bounds are
//! the motion laws' (Box2D v3 at its default 4 substeps, measured in
//! `shared/reference/fidelity.md`, for the chains).

#[path = "support/mechanics.rs"]
mod mechanics;
#[path = "../examples/common/scenes.rs"]
mod scenes;

use mechanics::*;
use nape::{Body, PivotJoint, Space, Vec2};

const HORIZONTAL: f64 = std::f64::consts::FRAC_PI_2;

#[test]
fn the_reference_chain_agrees_with_itself_at_half_its_step() {
    let mut coarse = ChainReference::horizontal(10);
    let mut fine = coarse.clone();
    let start = coarse.energy();
    coarse.advance(1.0, 1.0 / 1000.0);
    fine.advance(1.0, 1.0 / 2000.0);
    let apart = coarse
        .centres()
        .iter()
        .zip(fine.centres())
        .map(|(a, b)| (a[0] - b[0]).hypot(a[1] - b[1]))
        .fold(0.0, f64::max);
    let drift = (fine.energy() - start).abs() / swing_energy(10);
    println!("reference, 10 links, 1 s: 1 kHz and 2 kHz {apart:.2e} m apart, energy {drift:.1e}");
    assert!(apart < 1e-7, "{apart}");
    assert!(drift < 1e-9, "{drift}");
}

#[test]
fn the_elliptic_period_matches_the_closed_forms() {
    // `shared/reference/fidelity.md`, §2.
    for (amplitude, period) in [(0.1, 1.63596), (HORIZONTAL, 1.92978), (3.0, 4.20380)] {
        assert!((rod_period(amplitude) - period).abs() < 1e-5);
    }
}

#[test]
fn a_rod_pendulum_keeps_its_energy_and_its_period() {
    // (amplitude, energy bound, period bound), relative.
    for (amplitude, energy, period) in [
        (0.1, 1e-4, 1e-4),
        (HORIZONTAL, 5e-4, 5e-4),
        (3.0, 5e-3, 1e-2),
    ] {
        let run = swing_rod(amplitude, 20.0, |_| {});
        let exact = rod_period(amplitude);
        let off = run.period / exact - 1.0;
        println!(
            "rod released {amplitude:.3} rad from hanging, 20 s: energy within {:.4} %, period {:+.4} %",
            100.0 * run.energy_drift,
            100.0 * off
        );
        if amplitude > 1.0 {
            assert!(run.energy_drift <= energy, "energy {}", run.energy_drift);
        }
        assert!(off.abs() <= period, "period {off}");
    }
}

#[test]
fn a_whirled_stone_keeps_its_speed() {
    let change = whirl_stone(10.0, |_| {});
    println!("whirled stone, 10 s: speed {:+.5} %", 100.0 * change);
    assert!(change.abs() <= 1e-4, "{change}");
}

#[test]
fn a_spinning_pair_keeps_its_momenta_and_its_energy() {
    let (mut space, bodies) = spinning_pair();
    let run = run_free(&mut space, &bodies, 10.0);
    println!("spinning pair, 10 s: {run:?}");
    assert!(run.linear_change <= 1e-4, "{run:?}");
    assert!(run.angular_change.abs() <= 1e-4, "{run:?}");
    // A stiff joint does no work.
    assert!(run.kinetic_change.abs() <= 1e-3, "{run:?}");
}

#[test]
fn a_free_chain_keeps_its_momenta() {
    for links in [2, 10, 50] {
        let (mut space, bodies) = chain_space(links, |i| 0.3 * (i as f64).sin());
        // Unpinned from the static body, and thrown tumbling: every link moves with a
        // velocity of its own, which the first step makes meet the joints by internal
        // impulses alone.
        let first = space.constraints().next().unwrap().id;
        space.remove_constraint_id(first).unwrap();
        for (i, &b) in bodies.iter().enumerate() {
            let mut body = space.body_mut(b).unwrap();
            let t = i as f32;
            body.set_velocity(Vec2::new(1.0 + 0.1 * t.cos(), 0.5 * t.sin()))
                .unwrap();
            body.set_angular_velocity(2.0 - 0.05 * t).unwrap();
        }
        let run = run_free(&mut space, &bodies, 10.0);
        println!("free chain of {links}, 10 s: {run:?}");
        assert!(run.linear_change <= 1e-4, "{links} links: {run:?}");
        assert!(run.angular_change.abs() <= 1e-4, "{links} links: {run:?}");
    }
}

#[test]
fn chains_released_horizontal_follow_the_exact_motion() {
    // (links, seconds, distance after 1 s, energy lost at the end): at most Box2D v3's
    // distance, and half its energy loss for 1 and 2 links, its loss for 10 and 50.
    for (links, seconds, distance, lost) in [
        (1, 10.0, 0.0006, 0.0055),
        (2, 10.0, 0.004, 0.015),
        (10, 5.0, 0.014, 0.05),
        (50, 5.0, 0.08, 0.03),
    ] {
        let run = drop_chain(links, seconds, 2000.0, |_| {});
        println!(
            "{links} links: {:.5} m off the exact motion after 1 s, {:.3} % of the swing's energy lost after {seconds} s",
            run.off_after_1s,
            100.0 * run.energy_lost
        );
        assert!(run.off_after_1s <= distance, "{links} links: {run:?}");
        assert!(run.energy_lost <= lost, "{links} links: {run:?}");
        assert!(run.energy_lost >= -lost, "{links} links gained: {run:?}");
    }
}

#[test]
fn a_pendulum_swings_with_the_same_period_as_its_twin_without_joints_elsewhere() {
    // Two rods in one space, one in each of two islands: islands step independently.
    let mut space = Space::new();
    space.gravity = Vec2::new(0.0, -GRAVITY as f32);
    let mut rods = Vec::new();
    for x in [0.0f32, 5.0] {
        let pin = space
            .add_body(Body::static_body().at(Vec2::new(x, 0.0)))
            .unwrap();
        let rod = space
            .add_body(
                Body::rectangle(LINK_LENGTH as f32, LINK_WIDTH as f32, 1.0)
                    .at(Vec2::new(x + 0.5, 0.0)),
            )
            .unwrap();
        space
            .add_constraint(PivotJoint::new(pin, rod, Vec2::ZERO, Vec2::new(-0.5, 0.0)))
            .unwrap();
        rods.push(rod);
    }
    for _ in 0..300 {
        space.step((1.0 / HZ) as f32);
    }
    let a = space.body(rods[0]).unwrap().position().as_vec2();
    let b = space.body(rods[1]).unwrap().position().as_vec2() - Vec2::new(5.0, 0.0);
    assert!(a.distance(b) < 1e-4, "{a} {b}");
}

/// A change to a fresh [`Space`] before a scene is built.
type Configure = fn(&mut Space);

/// The two paths a spring takes: RATTLE's in an acyclic island, and the sweeps' in a mesh
/// (here with `direct_solve` off).
const SPRING_PATHS: [(&str, Configure); 2] = [
    ("exact", |_| {}),
    ("swept", |space| space.direct_solve = false),
];

#[test]
fn an_undamped_soft_pivot_oscillates_at_its_frequency_and_keeps_its_energy() {
    for ((path, configure), hertz) in SPRING_PATHS
        .into_iter()
        .flat_map(|path| [1.0, 2.0, 5.0].map(|hertz| (path, hertz)))
    {
        let run = bounce_on_spring_in(hertz, 0.0, 20.0, configure);
        let off = 1.0 / (run.period * hertz) - 1.0;
        println!(
            "soft pivot {hertz} Hz, ζ = 0, {path}, 20 s: frequency {:+.3} %, energy within {:.3} %",
            100.0 * off,
            100.0 * run.energy_drift
        );
        assert!(off.abs() <= 5e-3, "{hertz} Hz: frequency {off}");
        assert!(
            run.energy_drift <= 5e-3,
            "{hertz} Hz: energy {}",
            run.energy_drift
        );
    }
}

/// The spinning pair against an undamped soft angle limit and an undamped soft distance
/// limit (elastic bumpers): their energy, kinetic and the springs' past their bounds,
/// stays within 0.5 % over 20 s (their kicks split at the bound; a kick of half a substep
/// across it drifted by 2.1 % and 2.5 %), and their momenta stay (20 s). On both paths with
/// the pair's bodies free but for the limit; pinned, on the exact path only: in a mesh the
/// pin is a spring of the soft step damped at `joint_damping_ratio` (2), which the bumper
/// loads, and the pinned pair loses 1.1 % and 5.7 % of its energy there.
#[test]
fn an_undamped_soft_limit_keeps_its_energy_and_momenta() {
    let cases = SPRING_PATHS.into_iter().flat_map(|path| {
        undamped_soft_limits().into_iter().flat_map(move |limit| {
            let pinned = path.0 == "exact";
            [(path, limit, false), (path, limit, true)]
                .into_iter()
                .filter(move |case| pinned || !case.2)
        })
    });
    for ((path, configure), limit, pinned) in cases {
        let (mut space, bodies) = bumped_pair(&limit, pinned, configure);
        let path = if pinned {
            format!("{path}, pinned")
        } else {
            path.to_owned()
        };
        let (p0, l0) = momentum(&space, &bodies);
        let drift = energy_drift_free(&mut space, &bodies, 20.0, limit.potential);
        let (p1, l1) = momentum(&space, &bodies);
        let angular = (l1 - l0) / l0.abs();
        let linear = (p1[0] - p0[0]).hypot(p1[1] - p0[1]);
        println!(
            "spinning pair, {}, {path}, 20 s: energy within {:.3} %, angular momentum {angular:+.2e}, linear {linear:.2e} N·s",
            limit.name,
            100.0 * drift
        );
        assert!(drift <= 5e-3, "{}, {path}: energy {drift}", limit.name);
        assert!(linear <= 1e-5, "{}, {path}: {linear}", limit.name);
        // Free bodies fly tens of metres apart, where `f32` positions round their angular
        // momentum about the origin by 1e-4 in 10 s with no joint at all; pinned, they
        // stay near it.
        if pinned {
            assert!(angular.abs() <= 1e-4, "{}, {path}: {angular}", limit.name);
        }
    }
}

#[test]
fn a_damped_soft_pivot_decays_as_a_damped_oscillator() {
    for (path, configure) in SPRING_PATHS {
        decays_as_a_damped_oscillator(path, configure);
    }
}

fn decays_as_a_damped_oscillator(path: &str, configure: Configure) {
    let (hertz, zeta) = (2.0, 0.1);
    let run = bounce_on_spring_in(hertz, zeta, 3.0, configure);
    // Successive maxima of the sideways offset, and the decay between the first and the
    // last against `exp(−ζ ω t)` over the damped period `2π / (ω √(1 − ζ²))`.
    let peaks: Vec<(usize, f64)> = run
        .offsets
        .windows(3)
        .enumerate()
        .filter(|(_, w)| w[1] > w[0] && w[1] >= w[2] && w[1] > 0.0)
        .map(|(k, w)| (k + 1, w[1]))
        .collect();
    assert!(peaks.len() >= 4, "{peaks:?}");
    let omega = std::f64::consts::TAU * hertz;
    let damped_period = std::f64::consts::TAU / (omega * (1.0 - zeta * zeta).sqrt());
    let (first, last) = (peaks[0], peaks[peaks.len() - 1]);
    let periods = (peaks.len() - 1) as f64;
    let measured_period = (last.0 - first.0) as f64 / HZ / periods;
    let measured_decrement = (first.1 / last.1).ln() / periods;
    let decrement = zeta * omega * damped_period;
    println!(
        "soft pivot {hertz} Hz, ζ = {zeta}, {path}: period {measured_period:.4} s against {damped_period:.4}, \
         log decrement {measured_decrement:.4} against {decrement:.4}"
    );
    // Peaks are read at the steps (1/60 s apart): the period within a step over the run.
    assert!((measured_period - damped_period).abs() <= 1.0 / HZ / periods + 1e-3);
    assert!((measured_decrement / decrement - 1.0).abs() <= 0.05);
}

/// A free loop of four rods pinned at their ends, solved exactly (its fourth pin through
/// the tree's Schur complement) and, with `direct_solve` off, by the Gauss–Seidel sweeps
/// of a mesh, spinning and drifting with no external force, its pins stiff and soft
/// (undamped, damped, critically damped): momenta kept, and the stiff joints' work small.
#[test]
fn a_spinning_loop_keeps_its_momenta_stiff_and_soft() {
    for ((name, settings), direct) in loop_pin_variants()
        .into_iter()
        .flat_map(|v| [(v, true), (v, false)])
    {
        let (mut space, bodies) = spinning_loop(settings);
        space.direct_solve = direct;
        let run = run_free(&mut space, &bodies, 10.0);
        let name = format!("{name}, {}", if direct { "exact" } else { "swept" });
        println!("spinning loop, {name}, 10 s: {run:?}");
        assert!(run.linear_change <= 1e-4, "{name}: {run:?}");
        assert!(run.angular_change.abs() <= 1e-4, "{name}: {run:?}");
        if settings.stiff {
            assert!(run.kinetic_change.abs() <= 1e-3, "{name}: {run:?}");
        }
    }
}

/// The spinning loop rocking against a stiff angle limit, and pulled by a soft angle
/// limit and a soft distance limit (`loop_limit_variants`), solved exactly and swept
/// (`direct_solve` off): swept, a mesh with a limit, whose stiff pins sweep through their
/// damper's rows (`J − g wᵀ`, which turn no island) where a limit loads them across their
/// gap. They lost 1.3e-5 to 4.8e-4 of their angular momentum in 10 s through `J`.
#[test]
fn a_spinning_loop_keeps_its_momenta_against_its_limits() {
    for ((name, add), direct) in loop_limit_variants()
        .into_iter()
        .flat_map(|v| [(v, true), (v, false)])
    {
        let (mut space, bodies) = spinning_loop(nape::ConstraintSettings::default());
        space.direct_solve = direct;
        add(&mut space, &bodies);
        let name = format!("{name}, {}", if direct { "exact" } else { "swept" });
        let run = run_free(&mut space, &bodies, 10.0);
        println!("spinning loop, {name}, 10 s: {run:?}");
        assert!(run.linear_change <= 1e-4, "{name}: {run:?}");
        assert!(run.angular_change.abs() <= 1e-4, "{name}: {run:?}");
    }
}

/// A free ragdoll (pivots with angle limits at the shoulders, elbows, hips and knees, a
/// welded head) thrown spinning with a forearm flung against its elbow, its pivots stiff,
/// soft at 5 Hz, and stiff but breaking under 5 N: no external force or torque, so its
/// momenta stay, while the limits it strikes take kinetic energy (they are inelastic).
#[test]
fn a_free_ragdoll_keeps_its_momenta_stiff_soft_and_breaking() {
    for (name, pivots) in scenes::ragdoll_pivot_variants() {
        let mut s = scenes::thrown_ragdoll(pivots);
        let bodies = s.bodies.clone();
        let run = run_free(&mut s.space, &bodies, 10.0);
        println!("free ragdoll, pivots {name}, 10 s: {run:?}");
        assert!(run.linear_change <= 1e-4, "{name}: {run:?}");
        assert!(run.angular_change.abs() <= 1e-4, "{name}: {run:?}");
        assert!(run.kinetic_change <= 1e-3, "{name} gained energy: {run:?}");
    }
}

/// The spinning pair on a soft pivot (its spring stretched by the spin at 2 Hz, and
/// stiffer at 10 Hz), with an angle limit it strikes, and with a motor between the links
/// (its torque unbounded, and bounded): each keeps its momenta.
#[test]
fn a_spinning_pair_keeps_its_momenta_on_springs_limits_and_motors() {
    for (name, add) in pair_variants() {
        let (mut space, bodies) = spinning_pair();
        add(&mut space, &bodies);
        let run = run_free(&mut space, &bodies, 10.0);
        println!("spinning pair, {name}, 10 s: {run:?}");
        assert!(run.linear_change <= 1e-4, "{name}: {run:?}");
        assert!(run.angular_change.abs() <= 1e-4, "{name}: {run:?}");
    }
}

/// The same pairs on the swept path (`direct_solve` off), as in a mesh: with a stiff
/// angle limit the pair lost 2.1e-4 of its angular momentum in 10 s and with a soft
/// distance limit 4.0e-4, its pivot opened by the limit's blow and pushing across the gap.
#[test]
fn a_swept_spinning_pair_keeps_its_momenta_on_springs_limits_and_motors() {
    for (name, add) in pair_variants() {
        let (mut space, bodies) = spinning_pair();
        space.direct_solve = false;
        add(&mut space, &bodies);
        let run = run_free(&mut space, &bodies, 10.0);
        println!("swept spinning pair, {name}, 10 s: {run:?}");
        assert!(run.linear_change <= 1e-4, "{name}: {run:?}");
        assert!(run.angular_change.abs() <= 1e-4, "{name}: {run:?}");
    }
}
