//! The solver's scene list: every scene of the solver issue with a documented bound, at
//! 60 Hz, gravity (0, −10) and the space's defaults (5 substeps, 8 for the exact solves of acyclic
//! islands), bodies with mass and inertia set directly.
//!
//! Each test prints what it measured (`cargo test --test scenes -- --nocapture`). The
//! ordinary run is sized to stay fast in debug builds; `NAPE_LONG=1` runs the long
//! versions (the 100,000-step soak, every grid size up to 100 × 100, longer runs).
//! `cargo run --release --example solver_scenes -- soak` runs the soak in release.

#[path = "../examples/common/scenes.rs"]
mod scenes;

use nape::{BodyHandle, DistanceJoint, LineJoint, MotorJoint, PivotJoint, Vec2};
use scenes::{Ragdoll, Scene};

const DT: f32 = 1.0 / 60.0;

/// Whether the long versions run (`NAPE_LONG=1`).
fn long() -> bool {
    std::env::var("NAPE_LONG").is_ok_and(|v| v == "1")
}

/// What a run measured.
#[derive(Debug, Default)]
struct Run {
    /// Largest anchor separation (pivots and welds) after any step.
    max_error: f32,
    /// Largest weld angle error after any step.
    max_weld_angle: f32,
    /// Largest angle-limit violation after any step.
    max_limit_violation: f32,
    /// Largest body speed after any step.
    max_speed: f32,
    /// Largest energy rise above the initial energy after any step.
    max_energy_rise: f64,
}

/// Steps `scene` `steps` times at `dt`, asserting every pose and velocity stays finite.
fn run(scene: &mut Scene, steps: usize, dt: f32) -> Run {
    let initial = scene.energy();
    let mut r = Run::default();
    for step in 0..steps {
        scene.space.step(dt);
        assert!(scene.finite(), "non-finite state after step {step}");
        r.max_error = r.max_error.max(scene.error().0);
        r.max_weld_angle = r.max_weld_angle.max(scene.weld_angle_error());
        r.max_limit_violation = r.max_limit_violation.max(scene.limit_violation());
        r.max_speed = r.max_speed.max(scene.max_speed());
        r.max_energy_rise = r.max_energy_rise.max(scene.energy() - initial);
    }
    r
}

// ----- pendulum chains ----------------------------------------------------------------

const CHAIN_SIZES: [usize; 4] = [20, 50, 100, 200];

/// Hanging at rest, every chain stays at rest with its joints closed: anchor separation
/// ≤ 1 mm at the end and over the whole run, speeds ≤ 1 mm/s.
#[test]
fn hanging_chains_stay_closed_and_at_rest() {
    let steps = if long() { 600 } else { 120 };
    for links in CHAIN_SIZES {
        let mut s = scenes::chain(links, true);
        let r = run(&mut s, steps, DT);
        let (max, mean) = s.error();
        println!(
            "chain_hang {links:>3} links, {steps} steps: final max {max:.2e} mean {mean:.2e}, \
             run max {:.2e}, max speed {:.2e}",
            r.max_error, r.max_speed
        );
        assert!(max <= 1e-3, "{links} links: final error {max}");
        assert!(
            r.max_error <= 1e-3,
            "{links} links: run max {}",
            r.max_error
        );
        assert!(r.max_speed <= 1e-3, "{links} links: speed {}", r.max_speed);
    }
}

/// A resting chain takes one exact substep, its loaded links weighted (the diagonal
/// geometric stiffness); kicked, it leaves rest at once. Each chain hangs 1 s (after the
/// first step, which has no load to read, every step one substep), then its lowest link
/// is set moving at 5 m/s: from the next step on its joints stay within 2 cm, and the
/// energy never rises above the energy just after the kick (the weighting can only remove
/// energy, and only while the chain rests).
#[test]
fn a_resting_chain_takes_one_substep_until_kicked() {
    for links in [20, 200, 800] {
        let mut s = scenes::chain(links, true);
        s.space.step(DT);
        for step in 1..60 {
            s.space.step(DT);
            assert_eq!(
                s.space.exact_substeps_taken(),
                [1],
                "{links} links at rest, step {step}"
            );
        }
        let tip = *s.bodies.last().expect("tip");
        s.space
            .body_mut(tip)
            .expect("tip")
            .set_velocity(Vec2::new(5.0, 0.0))
            .expect("velocity");
        let kicked = s.energy();
        let (mut max_error, mut max_rise) = (0.0f32, f64::NEG_INFINITY);
        let mut fewest = u32::MAX;
        for _ in 0..120 {
            s.space.step(DT);
            assert!(s.finite(), "{links} links: non-finite");
            fewest = fewest.min(s.space.exact_substeps_taken()[0]);
            max_error = max_error.max(s.error().0);
            max_rise = max_rise.max(s.energy() - kicked);
        }
        println!(
            "{links} links rested, then kicked: fewest substeps {fewest} in the first 2 s, run \
             max error {max_error:.2e}, energy rise {max_rise:.2e} J"
        );
        assert!(max_error <= 2e-2, "{links} links: run max {max_error}");
        assert!(max_rise <= 1e-3, "{links} links: energy rose by {max_rise}");
    }
}

/// Released horizontally (the free end whips through at tens of m/s), every chain keeps
/// its joints within 2 cm over the run and 5 mm at the end, and gains no energy.
#[test]
fn horizontal_chains_keep_their_joints() {
    let steps = if long() { 600 } else { 240 };
    for links in CHAIN_SIZES {
        let mut s = scenes::chain(links, false);
        let r = run(&mut s, steps, DT);
        let (max, mean) = s.error();
        let scale = chain_energy_scale(links);
        println!(
            "chain {links:>3} links, {steps} steps: final max {max:.2e} mean {mean:.2e}, \
             run max {:.2e}, max speed {:.1} m/s, energy rise {:.2e} of {scale:.0} J",
            r.max_error, r.max_speed, r.max_energy_rise
        );
        assert!(max <= 5e-3, "{links} links: final error {max}");
        assert!(
            r.max_error <= 2e-2,
            "{links} links: run max {}",
            r.max_error
        );
        assert!(
            r.max_energy_rise <= 1e-4 * scale,
            "{links} links: energy rose by {}",
            r.max_energy_rise
        );
    }
}

/// The potential energy a horizontal chain of reference links releases when it hangs
/// straight down: `m g L / 2` with `m` its mass, `L` its length.
fn chain_energy_scale(links: usize) -> f64 {
    let (m, l) = (f64::from(scenes::LINK_MASS) * links as f64, links as f64);
    m * 10.0 * l / 2.0
}

// ----- ball and chain -----------------------------------------------------------------

/// Hanging at rest (40 links of 5 kg holding a 4 t ball): the ball stays where the chain's
/// length puts it, its centre within 1 mm of (0, −48), joints within 1 mm.
#[test]
fn ball_and_chain_hangs_where_physics_says() {
    let steps = if long() { 600 } else { 240 };
    let mut s = scenes::ball_and_chain(40, true);
    let r = run(&mut s, steps, DT);
    let ball = *s.bodies.last().expect("ball");
    let centre = s.space.body(ball).expect("ball").position().as_vec2();
    let rest = Vec2::new(0.0, -(40.0 + scenes::BALL_RADIUS));
    println!(
        "ball and chain hanging, {steps} steps: ball at {centre:?} ({:.2e} m from rest), \
         run max error {:.2e}, max speed {:.2e}",
        centre.distance(rest),
        r.max_error,
        r.max_speed
    );
    assert!(centre.distance(rest) <= 1e-3, "ball at {centre:?}");
    assert!(r.max_error <= 1e-3, "run max {}", r.max_error);
    assert!(r.max_speed <= 1e-2, "speed {}", r.max_speed);
}

/// Released horizontally, the ball swings down: joints stay within 1 cm, the ball never
/// gets farther from the anchor than the chain allows (48 m + 1 cm), never rises above
/// its start, and the system gains no energy.
#[test]
fn ball_and_chain_swings_on_its_chain() {
    let steps = if long() { 1200 } else { 300 };
    let mut s = scenes::ball_and_chain(40, false);
    let ball = *s.bodies.last().expect("ball");
    let scale = 20.0 * std::f64::consts::PI * 64.0 * 10.0 * 48.0;
    let initial = s.energy();
    let mut max_reach = 0.0f32;
    let mut max_height = f32::NEG_INFINITY;
    let mut max_error = 0.0f32;
    let mut max_rise = 0.0f64;
    for step in 0..steps {
        s.space.step(DT);
        assert!(s.finite(), "non-finite after step {step}");
        let p = s.space.body(ball).expect("ball").position().as_vec2();
        max_reach = max_reach.max(p.length());
        max_height = max_height.max(p.y);
        max_error = max_error.max(s.error().0);
        max_rise = max_rise.max(s.energy() - initial);
    }
    let p = s.space.body(ball).expect("ball").position().as_vec2();
    println!(
        "ball and chain swinging, {steps} steps: ball ends at {p:?}, max reach {max_reach:.4} \
         m, max height {max_height:.4} m, run max error {max_error:.2e}, energy rise \
         {max_rise:.2e} of {scale:.2e} J"
    );
    assert!(max_error <= 1e-2, "run max {max_error}");
    assert!(max_reach <= 48.01, "reach {max_reach}");
    assert!(max_height <= 0.01, "height {max_height}");
    assert!(max_rise <= 0.1 * scale, "energy rose by {max_rise}");
}

// ----- stretched chain ----------------------------------------------------------------

/// 40 links created 2 m apart (every joint open by 1 m) close within a second and stay
/// closed (≤ 1 mm from then on) with speeds bounded by what the fall allows.
#[test]
fn stretched_chain_pulls_together() {
    let mut s = scenes::stretched_chain(40);
    let initial = s.error().0;
    let mut closed_at = None;
    let mut max_speed = 0.0f32;
    let mut max_after = 0.0f32;
    for step in 0..180 {
        s.space.step(DT);
        assert!(s.finite(), "non-finite after step {step}");
        let e = s.error().0;
        max_speed = max_speed.max(s.max_speed());
        if closed_at.is_none() && e <= 1e-3 {
            closed_at = Some(step + 1);
        }
        if step >= 60 {
            max_after = max_after.max(e);
        }
    }
    println!(
        "stretched chain: initial error {initial:.3} m, closed (≤ 1 mm) after {closed_at:?} \
         steps, max error after 1 s {max_after:.2e}, max speed {max_speed:.1} m/s"
    );
    assert!(
        closed_at.is_some_and(|s| s <= 60),
        "closed at {closed_at:?}"
    );
    assert!(max_after <= 1e-3, "error after 1 s {max_after}");
    // Links fall at most ~80 m (the chain's stretched length) in 3 s: √(2·10·80) = 40 m/s,
    // plus the whip of a free end; anything far beyond is an explosion.
    assert!(max_speed <= 100.0, "max speed {max_speed}");
}

// ----- rope ---------------------------------------------------------------------------

/// A rope of 40 point-like beads (5 kg) joined centre to centre by rigid distance joints,
/// the first hung from a static anchor, the last holding a ball of 4,000 kg, released
/// horizontally: its transverse modes are stiffened by the tension across the beads, not
/// through their rotation, and the adaptive exact substeps must see that. Every joint
/// stays within 0.1 mm of its length over 5 s (measured 7.4e-6 m; 8.0e-6 m with all 8
/// substeps; 7.7e-4 m when the estimate probed each bead alone, 9.0e-4 m when it read
/// only rotations).
#[test]
fn rope_of_distance_joints_holds_a_heavy_ball() {
    let mut space = nape::Space::new();
    space.gravity = Vec2::new(0.0, -10.0);
    let anchor = space.add_body(nape::Body::static_body()).expect("anchor");
    let mut beads = vec![anchor];
    for i in 0..41 {
        let (mass, inertia) = if i == 40 { (4000.0, 1e5) } else { (5.0, 0.01) };
        let bead = space
            .add_body(nape::Body::dynamic(mass, inertia).at(Vec2::new(i as f32 + 1.0, 0.0)))
            .expect("bead");
        let last = *beads.last().expect("anchor first");
        space
            .add_constraint(DistanceJoint::new(
                last,
                bead,
                Vec2::ZERO,
                Vec2::ZERO,
                1.0,
                1.0,
            ))
            .expect("rope joint");
        beads.push(bead);
    }
    let mut worst = 0.0f32;
    for step in 0..300 {
        space.step(DT);
        for pair in beads.windows(2) {
            let [a, b] =
                [pair[0], pair[1]].map(|h| space.body(h).expect("bead").position().as_vec2());
            let error = ((b - a).length() - 1.0).abs();
            assert!(error.is_finite(), "non-finite after step {step}");
            worst = worst.max(error);
        }
    }
    println!("rope of 40 beads and a 4,000 kg ball, 300 steps: run max error {worst:.2e} m");
    assert!(worst <= 1e-4, "run max error {worst}");
}

// ----- bridge -------------------------------------------------------------------------

/// 160 planks hung between anchors 152 m apart (5 % slack), released straight (so the
/// last joint starts 8 m open): an inextensible chain. After 2 s of closing that gap the
/// joints end within 1 mm, and no plank ever hangs lower than the chain's length allows
/// (its V shape: `√(80² − 76²)` ≈ 25 m), and after those 2 s no joint opens by more than
/// 1 mm, even when the swinging bridge whips through an almost straight V (a nearly
/// singular configuration: the position projection there is damped, not flung; without
/// that it opened by 2.2 m). (A taut bridge, span = length, is singular with rigid joints
/// — it needs infinite tension to sag at all — so it is built with soft joints in
/// `taut_soft_bridge_sags_a_little`.)
#[test]
fn slack_bridge_hangs_within_its_length() {
    let planks = 160;
    let span = 152.0;
    let steps = if long() { 1200 } else { 600 };
    let mut s = scenes::bridge(planks, span);
    run(&mut s, 120, DT);
    let r = run(&mut s, steps - 120, DT);
    let sag = s
        .bodies
        .iter()
        .map(|&h| -s.space.body(h).expect("plank").position().as_vec2().y)
        .fold(f32::NEG_INFINITY, f32::max);
    let (max, mean) = s.error();
    let half = planks as f32 / 2.0;
    let deepest = (half * half - (span / 2.0) * (span / 2.0)).sqrt();
    println!(
        "slack bridge {planks} planks over {span} m, {steps} steps: sag {sag:.3} m (at most \
         {deepest:.3}), final max error {max:.2e} mean {mean:.2e}, run max after 2 s {:.2e}",
        r.max_error
    );
    assert!(max <= 1e-3, "final error {max}");
    assert!(r.max_error <= 1e-3, "run max error {}", r.max_error);
    assert!(sag <= deepest + 0.01, "sag {sag} > {deepest}");
}

/// Box2D's bridge, 160 planks spanning exactly their length, with soft joints (30 Hz,
/// critically damped): it sags by its joints' stretch only — a parabola of span `L` is
/// longer than `L` by `8s²/3L`, so with 161 joints each open by at most `e` the sag is at
/// most `√(3L·161e/8)` — and stays in one piece.
#[test]
fn taut_soft_bridge_sags_a_little() {
    let planks = 160;
    let mut s = scenes::bridge(planks, planks as f32);
    for &h in &s.pivots {
        s.space
            .set_settings(h, nape::ConstraintSettings::soft(30.0, 1.0))
            .expect("valid settings");
    }
    let r = run(&mut s, 300, DT);
    let sag = s
        .bodies
        .iter()
        .map(|&h| -s.space.body(h).expect("plank").position().as_vec2().y)
        .fold(f32::NEG_INFINITY, f32::max);
    println!(
        "taut soft bridge: sag {sag:.3} m, final max error {:.2e}, run max {:.2e}",
        s.error().0,
        r.max_error
    );
    let span = planks as f32;
    let bound = (3.0 * span * (planks + 1) as f32 * s.error().0 / 8.0).sqrt() * 1.1;
    assert!(s.finite());
    assert!(sag <= bound, "sag {sag} > {bound}");
    assert!(r.max_error <= 0.5, "run max error {}", r.max_error);
}

// ----- ragdolls -----------------------------------------------------------------------

/// Joint bounds every ragdoll scene meets: anchors within 1 cm, welds within 0.02 rad,
/// limits overshot by at most 0.05 rad (over the whole run).
fn assert_ragdoll_bounds(name: &str, r: &Run) {
    println!(
        "{name}: run max anchor error {:.2e} m, weld angle {:.2e} rad, limit overshoot \
         {:.2e} rad, max speed {:.1} m/s, energy rise {:.2e} J",
        r.max_error, r.max_weld_angle, r.max_limit_violation, r.max_speed, r.max_energy_rise
    );
    assert!(r.max_error <= 1e-2, "{name}: anchor error {}", r.max_error);
    assert!(
        r.max_weld_angle <= 2e-2,
        "{name}: weld {}",
        r.max_weld_angle
    );
    assert!(
        r.max_limit_violation <= 5e-2,
        "{name}: limit overshoot {}",
        r.max_limit_violation
    );
}

/// A ragdoll thrown at (6, 8) m/s with a forearm flung at 20 rad/s against its elbow.
#[test]
fn ragdoll_thrown() {
    let mut s = Scene::new();
    let doll = s.add_ragdoll(Vec2::ZERO);
    s.set_rigid_motion(&doll.bodies, Vec2::ZERO, Vec2::new(6.0, 8.0), 0.0);
    s.space
        .body_mut(doll.right_hand)
        .expect("hand")
        .set_angular_velocity(20.0)
        .expect("finite spin");
    let r = run(&mut s, 120, DT);
    assert_ragdoll_bounds("ragdoll thrown", &r);
    assert!(
        r.max_energy_rise <= 1e-3,
        "energy rose by {}",
        r.max_energy_rise
    );
}

/// A ragdoll spinning as one rigid body at 15 rad/s: the joints carry the centripetal
/// load without opening or bending past their limits.
#[test]
fn ragdoll_spinning() {
    let mut s = Scene::new();
    let doll = s.add_ragdoll(Vec2::ZERO);
    s.set_rigid_motion(&doll.bodies, Vec2::ZERO, Vec2::ZERO, 15.0);
    let r = run(&mut s, 120, DT);
    assert_ragdoll_bounds("ragdoll spinning", &r);
    assert!(
        r.max_energy_rise <= 1e-2,
        "energy rose by {}",
        r.max_energy_rise
    );
}

/// Five ragdolls joined hand to hand, thrown and spinning as one at 4 rad/s.
#[test]
fn five_ragdolls_hand_in_hand_thrown_and_spinning() {
    let (mut s, dolls) = scenes::ragdoll_line(5);
    let all: Vec<BodyHandle> = dolls.iter().flat_map(|d| d.bodies.clone()).collect();
    let centre = Vec2::new(2.0 * scenes::RAGDOLL_SPACING, 0.0);
    s.set_rigid_motion(&all, centre, Vec2::new(3.0, 10.0), 4.0);
    let r = run(&mut s, 120, DT);
    assert_ragdoll_bounds("five ragdolls thrown and spinning", &r);
}

/// Five ragdolls joined hand to hand, the first hung by its free hand: they fall and swing
/// as a 15 m chain of ragdolls.
#[test]
fn five_ragdolls_hand_in_hand_hung() {
    let (mut s, dolls) = scenes::ragdoll_line(5);
    hang_by_left_hand(&mut s, &dolls[0]);
    let steps = if long() { 600 } else { 180 };
    let r = run(&mut s, steps, DT);
    assert_ragdoll_bounds("five ragdolls hung", &r);
    assert!(
        r.max_energy_rise <= 1e-2,
        "energy rose by {}",
        r.max_energy_rise
    );
}

/// Limits do not cost every substep: their rows join the exact solve while they push, so
/// the island of five hung ragdolls takes only the exact substeps its motion needs (2 to
/// 5 here, then the 7 of a swing whose limbs turn fast against each other, which a moving
/// island keeps; all of them, the most allowed, were the limits swept by Gauss–Seidel).
#[test]
fn hung_ragdolls_take_only_the_substeps_their_motion_needs() {
    let mut s = scenes::hung_ragdolls(5);
    let mut taken = [0usize; 9];
    for _ in 0..180 {
        s.space.step(DT);
        for &n in s.space.exact_substeps_taken() {
            taken[n as usize] += 1;
        }
    }
    println!("five hung ragdolls, island-steps per number of exact substeps: {taken:?}");
    assert_eq!(taken.iter().sum::<usize>(), 180, "one island");
    assert_eq!(taken[8..].iter().sum::<usize>(), 0, "{taken:?}");
    let mean = taken.iter().enumerate().map(|(n, &k)| n * k).sum::<usize>() as f64 / 180.0;
    assert!(mean <= 5.0, "{mean} substeps on average: {taken:?}");
}

/// One ragdoll hung by its left hand and pushed (a 2 N·s impulse on the torso): it swings
/// within its limits.
#[test]
fn ragdoll_hung_by_a_hand_and_pushed() {
    let mut s = Scene::new();
    let doll = s.add_ragdoll(Vec2::ZERO);
    hang_by_left_hand(&mut s, &doll);
    s.space
        .apply_impulse(doll.torso, Vec2::new(2.0, 0.0))
        .expect("torso");
    let steps = if long() { 600 } else { 240 };
    let r = run(&mut s, steps, DT);
    assert_ragdoll_bounds("ragdoll hung and pushed", &r);
}

/// Pins `doll`'s left hand to a static hook where it is.
fn hang_by_left_hand(s: &mut Scene, doll: &Ragdoll) {
    let at = s
        .space
        .body(doll.left_hand)
        .expect("hand")
        .world_point(scenes::hand_point(false))
        .as_vec2();
    let hook = s.anchor(at);
    s.pin(hook, doll.left_hand, Vec2::ZERO, scenes::hand_point(false));
}

// ----- joint grids --------------------------------------------------------------------

/// Box2D's joint grid at every size from 2 × 2 to 30 × 30 and at 40 and 50 (every size to
/// 100 × 100 with `NAPE_LONG=1`), 2 s each: never NaN, anchor error within
/// `0.006·n + 1 cm`. The loops are solved by soft Gauss–Seidel sweeps, so the joints next
/// to the pins stretch under the net's weight, which grows with `n`; Box2D v3 (the same
/// soft step) reaches 0.494 m at n = 100, rapier 0.626 m (reference/ecosystem.md), so the
/// bound is Box2D's figure scaled linearly with `n`, plus a fifth. The worst per size is
/// printed. `NAPE_GRID_SUBSTEPS=4,5,6,8` runs the sizes at each of those substep counts
/// instead of the default (the springs' stiffness, 0.3 of the substep rate, holds at each).
#[test]
fn joint_grids_of_every_size() {
    let sizes: Vec<usize> = if long() {
        (2..=100).collect()
    } else {
        (2..=30).chain([40, 50]).collect()
    };
    let substeps: Vec<Option<u32>> = match std::env::var("NAPE_GRID_SUBSTEPS") {
        Ok(list) => list
            .split(',')
            .map(|n| {
                Some(
                    n.trim()
                        .parse()
                        .expect("NAPE_GRID_SUBSTEPS: a list of counts"),
                )
            })
            .collect(),
        Err(_) => vec![None],
    };
    for substeps in substeps {
        let mut worst = Vec::new();
        for &n in &sizes {
            let mut s = scenes::joint_grid(n);
            if let Some(substeps) = substeps {
                s.space.substeps = substeps;
            }
            let r = run(&mut s, 120, DT);
            worst.push((n, r.max_error, s.error().0));
        }
        let label = substeps.map_or("default".to_string(), |n| n.to_string());
        for &(n, run_max, last) in &worst {
            println!(
                "joint_grid {n:>3} ({label} substeps): run max error {run_max:.2e}, final {last:.2e}"
            );
        }
        for &(n, run_max, _) in &worst {
            let bound = 0.006 * n as f32 + 0.01;
            assert!(
                run_max <= bound,
                "grid {n} ({label} substeps): run max {run_max} > {bound}"
            );
        }
    }
}

// ----- soak ---------------------------------------------------------------------------

/// The 200-link chain released horizontally, 3,000 steps (100,000 with `NAPE_LONG=1`):
/// the energy never rises more than 0.05 % of its swing's energy above its start, and the
/// joints hold within 2e-4 m. It whips through about step 1,160, its tip at 290 m/s and its
/// steps taking up to 50 substeps; capped at 16 it gained 1.7 % of its swing in that one
/// step, and with `f32` positions, which SHAKE's impulses turned into energy at the
/// rounding 200 m out, it gained 4.6 % by step 3,000. Over 100,000 steps it rises 0.023 %,
/// and 0.88 % with SHAKE's rounding floor the same at every substep (`FLOOR_SUBSTEP`).
#[test]
fn soak_chain_never_gains_energy() {
    let steps = if long() { 100_000 } else { 3_000 };
    let mut s = scenes::chain(200, false);
    let initial = s.energy();
    let scale = chain_energy_scale(200);
    let mut max_rise = f64::NEG_INFINITY;
    let mut max_error = 0.0f32;
    for step in 0..steps {
        s.space.step(DT);
        assert!(s.finite(), "non-finite after step {step}");
        max_rise = max_rise.max(s.energy() - initial);
        max_error = max_error.max(s.error().0);
    }
    println!(
        "soak 200 links, {steps} steps: max energy rise {max_rise:.3e} J (scale {scale:.0} \
         J), final energy {:.1} J, run max error {max_error:.2e}",
        s.energy() - initial
    );
    assert!(max_rise <= 5e-4 * scale, "energy rose by {max_rise}");
    // A chain that comes apart loses energy instead; its joints must hold too.
    assert!(max_error <= 2e-4, "run max error {max_error}");
}

// ----- mass ratios --------------------------------------------------------------------

/// A light body hanging a heavy one from a static anchor and the reverse, ratios up to
/// 1:1e6: at rest, nothing moves (every speed < 1 mm/s, joints within 1 mm).
#[test]
fn mass_ratios_at_rest_stay_at_rest() {
    for ratio in [1.0f32, 1e2, 1e4, 1e6] {
        for (upper, lower) in [(1.0, ratio), (ratio, 1.0)] {
            let mut s = scenes::two_body_hang(upper, lower);
            let r = run(&mut s, 300, DT);
            let w = s.max_angular_speed();
            println!(
                "hang {upper:e} kg above {lower:e} kg: max speed {:.2e} m/s, angular \
                 {w:.2e} rad/s, run max error {:.2e}",
                r.max_speed, r.max_error
            );
            assert!(r.max_speed < 1e-3, "{upper}/{lower}: speed {}", r.max_speed);
            assert!(w < 1e-3, "{upper}/{lower}: angular speed {w}");
            assert!(r.max_error < 1e-3, "{upper}/{lower}: error {}", r.max_error);
        }
    }
}

/// A 1e-4 kg body holding a 1e4 kg one at rest (a ratio of 1e8, past what the `f32`
/// effective mass of their joint can hold: `1e4 + 1e-4`): the first step, whose loads are
/// not known, lets the heavy body sink at 2 cm/s for a step, the stiff rows' compliance
/// being relative to the light body's effective mass; from then on nothing moves (it
/// reported 3,600 m/s, every step, while the bodies stayed where they were).
#[test]
fn a_light_body_holding_one_1e8_times_heavier_stays_at_rest() {
    let mut s = scenes::two_body_hang(1e-4, 1e4);
    s.space.step(DT);
    let first = s.max_speed();
    let r = run(&mut s, 120, DT);
    println!(
        "1e-4 kg holding 1e4 kg: first step {first:.2e} m/s, then at most {:.2e} m/s, run max error {:.2e}",
        r.max_speed, r.max_error
    );
    assert!(first < 0.05, "first step {first}");
    assert!(r.max_speed < 1e-3, "speed {}", r.max_speed);
    assert!(r.max_error < 1e-3, "error {}", r.max_error);
}

/// A 10-link chain solved by Gauss–Seidel alone (`direct_solve` off), stepped once by
/// 1e-4, 1e-5 and 1e-6 s between steps of 1/60 s: no faster than the fall allows (31.6
/// m/s, as below). It reached 900 to 1,300 m/s: the soft step's stiffness grew with `1/dt`
/// and the warm start of the next step scaled the short step's impulse by 1/60 s over it.
#[test]
fn a_swept_chain_takes_one_very_short_step_in_its_stride() {
    for short in [1e-4f32, 1e-5, 1e-6] {
        let mut s = scenes::chain(10, false);
        s.space.direct_solve = false;
        let mut fastest = 0.0f32;
        for step in 0..120 {
            s.space.step(if step == 60 { short } else { DT });
            assert!(s.finite(), "non-finite after step {step}");
            fastest = fastest.max(s.max_speed());
        }
        println!("swept chain, one step of {short:e} s: max speed {fastest:.2} m/s");
        assert!(fastest <= 31.6, "{short}: {fastest} m/s");
    }
}

// ----- varying dt ---------------------------------------------------------------------

/// A 10-link chain stepped with dt drawn uniformly from [1/240, 1/30] each step: joints
/// within 2 cm, speeds below what the fall allows (all 125 J the chain can release,
/// `Σ m g (i + ½)`, in one 0.25 kg link: 31.6 m/s), and no energy gained beyond what a
/// symplectic step's energy error allows: velocity Verlet's energy is that of a nearby
/// system, `O((ω·h)²)` off, and moves between levels a little each time the step length
/// changes, a random walk that stays within 0.1% of the 125 J here (0.02% measured).
#[test]
fn random_dt_changes_nothing_explosive() {
    let mut s = scenes::chain(10, false);
    let initial = s.energy();
    let mut seed = 0x2545_f491_u32;
    let (mut max_error, mut max_speed, mut max_rise) = (0.0f32, 0.0f32, f64::NEG_INFINITY);
    let (mut shortest, mut longest) = (f32::INFINITY, 0.0f32);
    for step in 0..600 {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        let u = (seed >> 8) as f32 / (1u32 << 24) as f32;
        let dt = 1.0 / 240.0 + u * (1.0 / 30.0 - 1.0 / 240.0);
        shortest = shortest.min(dt);
        longest = longest.max(dt);
        s.space.step(dt);
        assert!(s.finite(), "non-finite after step {step}");
        max_error = max_error.max(s.error().0);
        max_speed = max_speed.max(s.max_speed());
        max_rise = max_rise.max(s.energy() - initial);
    }
    println!(
        "random dt in [{shortest:.5}, {longest:.5}]: run max error {max_error:.2e}, max speed \
         {max_speed:.2} m/s, energy rise {max_rise:.2e} J"
    );
    assert!(max_error <= 2e-2, "error {max_error}");
    assert!(max_speed <= 31.6, "speed {max_speed}");
    assert!(max_rise <= 1e-3 * 125.0, "energy rose by {max_rise}");
}

/// A 1 µs step between 1/60 s steps of a swinging 10-link chain: nothing explodes. The
/// reported velocity satisfies the constraints at the poses where the last substep
/// started, so a tiny step re-projects it onto the constraints at the current poses and
/// moves it by about `ω·h·v` (not the `g·1 µs` = 10 µm/s physics asks for): asserted ≤ 2 %
/// of the fastest body's speed + 1 mm/s. Joints within 2 cm, speeds ≤ 31.6 m/s (the
/// energy bound above).
#[test]
fn a_microsecond_step_between_normal_steps() {
    let mut s = scenes::chain(10, false);
    let mut worst_jump = 0.0f32;
    let mut worst_excess = f32::NEG_INFINITY;
    let mut max_error = 0.0f32;
    let mut max_speed = 0.0f32;
    for step in 0..120 {
        s.space.step(DT);
        if step % 20 == 10 {
            let before: Vec<Vec2> = velocities(&s);
            let fastest = s.max_speed();
            s.space.step(1e-6);
            assert!(s.finite(), "non-finite after the tiny step at {step}");
            let jump = before
                .iter()
                .zip(velocities(&s))
                .map(|(a, b)| a.distance(b))
                .fold(0.0f32, f32::max);
            worst_jump = worst_jump.max(jump);
            worst_excess = worst_excess.max(jump - (0.02 * fastest + 1e-3));
        }
        assert!(s.finite(), "non-finite after step {step}");
        max_error = max_error.max(s.error().0);
        max_speed = max_speed.max(s.max_speed());
    }
    println!(
        "1 µs steps: largest velocity change across one {worst_jump:.2e} m/s (excess over the \
         bound {worst_excess:.2e}), run max error {max_error:.2e}, max speed {max_speed:.2} m/s"
    );
    assert!(worst_excess <= 0.0, "velocity jump {worst_jump}");
    assert!(max_error <= 2e-2, "error {max_error}");
    assert!(max_speed <= 31.6, "speed {max_speed}");
}

fn velocities(s: &Scene) -> Vec<Vec2> {
    s.bodies
        .iter()
        .map(|&h| s.space.body(h).expect("body").velocity())
        .collect()
}

// ----- reported velocity --------------------------------------------------------------

/// For a swinging 20-link chain, the displacement over a step divided by dt is the mean
/// velocity over the step; where the velocity changes monotonically that mean lies
/// between the reported velocities before and after the step, so it differs from their
/// midpoint by at most half their difference. Where the joints' forces change within the
/// step (the whip) the mean leaves that range by a little: asserted for every body and
/// step, within `|v₁ − v₀|/2` + 3 cm/s + 2 % of the speed. The angular velocity of a whipping
/// link is not monotone over a step (measured: up to 0.18 rad/s beyond half the change),
/// so it is held to `|ω₁ − ω₀|` + 0.04 rad/s + 2 % (the whips' substeps, which follow how
/// fast the links turn against each other, leave 0.033 rad/s beyond `|ω₁ − ω₀|` + 2 %).
#[test]
fn reported_velocity_matches_motion() {
    let links = 20;
    let mut s = scenes::chain(links, false);
    let state = |s: &Scene| -> Vec<(Vec2, f32, Vec2, f32)> {
        s.bodies
            .iter()
            .map(|&h| {
                let b = s.space.body(h).expect("body");
                (
                    b.position().as_vec2(),
                    b.angle() as f32,
                    b.velocity(),
                    b.angular_velocity(),
                )
            })
            .collect()
    };
    let mut previous = state(&s);
    let (mut worst_linear, mut worst_angular) = (0.0f32, 0.0f32);
    let (mut worst_linear_excess, mut worst_angular_excess) =
        (f32::NEG_INFINITY, f32::NEG_INFINITY);
    for _ in 0..180 {
        s.space.step(DT);
        let next = state(&s);
        // The fastest spin in the chain this step: the projection's corrections spread
        // along the chain from where the curvature drift is.
        let chain_spin = next
            .iter()
            .chain(&previous)
            .map(|&(_, _, _, w)| w.abs())
            .fold(0.0f32, f32::max);
        for (&(x0, a0, v0, w0), &(x1, a1, v1, w1)) in previous.iter().zip(&next) {
            let linear = ((x1 - x0) / DT - 0.5 * (v0 + v1)).length();
            let angular = ((a1 - a0) / DT - 0.5 * (w0 + w1)).abs();
            let speed = v0.length().max(v1.length());
            let spin = w0.abs().max(w1.abs());
            worst_linear = worst_linear.max(linear);
            worst_angular = worst_angular.max(angular);
            let linear_bound = 0.5 * (v1 - v0).length() + 0.03 + 0.02 * speed;
            // Plus the position projection's share: it removes the drift a linear step
            // leaves on the curved constraint manifold, about (ω·h)²/2 per substep, i.e.
            // ω²·h/2 per second, without changing a velocity. `h` is the longest substep a
            // moving chain takes (half the step): the share the step's count may bring.
            let h = DT / 2.0;
            let angular_bound =
                (w1 - w0).abs() + 0.04 + 0.02 * spin + 0.5 * chain_spin * chain_spin * h;
            worst_linear_excess = worst_linear_excess.max(linear - linear_bound);
            worst_angular_excess = worst_angular_excess.max(angular - angular_bound);
        }
        previous = next;
    }
    println!(
        "velocity vs motion ({links} links): worst linear mismatch {worst_linear:.3e} m/s (excess over bound \
         {worst_linear_excess:.3e}), worst angular {worst_angular:.3e} rad/s (excess \
         {worst_angular_excess:.3e})"
    );
    assert!(worst_linear_excess <= 0.0, "linear mismatch {worst_linear}");
    assert!(
        worst_angular_excess <= 0.0,
        "angular mismatch {worst_angular}"
    );
}

// ----- insertion order ----------------------------------------------------------------

/// Adds a pendulum and three bodies joined by joints of other types (distance, line,
/// motor, an offset pivot), unrelated to anything else.
fn add_unrelated_joints(s: &mut Scene) {
    s.add_chain(Vec2::new(-50.0, 0.0), 1, false, 1.0, 2.0, 0.3);
    let a = s.dynamic(nape::Body::dynamic(1.0, 0.1).at(Vec2::new(0.0, 40.0)));
    let b = s.dynamic(nape::Body::dynamic(2.0, 0.2).at(Vec2::new(1.0, 41.0)));
    let c = s.dynamic(nape::Body::dynamic(0.5, 0.05).at(Vec2::new(2.0, 40.0)));
    s.space
        .add_constraint(DistanceJoint::new(a, b, Vec2::ZERO, Vec2::ZERO, 1.0, 1.5))
        .expect("distance");
    s.space
        .add_constraint(LineJoint::new(
            b,
            c,
            Vec2::ZERO,
            Vec2::ZERO,
            Vec2::X,
            -1.0,
            1.0,
        ))
        .expect("line");
    s.space
        .add_constraint(MotorJoint::new(a, c, 2.0))
        .expect("motor");
    s.space
        .add_constraint(PivotJoint::new(a, c, Vec2::ZERO, Vec2::new(-2.0, 0.0)))
        .expect("pivot");
}

/// Adds a loop of four pivots (a mesh: the Gauss–Seidel path) hung by one corner, a corner
/// pushed; returns its bodies.
fn add_loop(s: &mut Scene, origin: Vec2) -> Vec<BodyHandle> {
    let corners: Vec<BodyHandle> = [(0.0, 0.0), (1.0, 0.0), (1.0, -1.0), (0.0, -1.0)]
        .iter()
        .map(|&(x, y)| s.dynamic(nape::Body::dynamic(0.5, 0.05).at(origin + Vec2::new(x, y))))
        .collect();
    for k in 0..4 {
        let (a, b) = (corners[k], corners[(k + 1) % 4]);
        let offset = s.space.body(b).expect("corner").position().as_vec2()
            - s.space.body(a).expect("corner").position().as_vec2();
        s.pin(a, b, offset * 0.5, -offset * 0.5);
    }
    let hook = s.anchor(origin);
    s.pin(hook, corners[0], Vec2::ZERO, Vec2::ZERO);
    s.space
        .body_mut(corners[2])
        .expect("corner")
        .set_velocity(Vec2::new(3.0, 0.0))
        .expect("finite velocity");
    corners
}

/// Steps the scene built alone and built after `add_others` for 120 steps; asserts the
/// watched bodies' poses are bit-identical.
fn assert_insertion_independent(
    name: &str,
    add_others: fn(&mut Scene),
    build: fn(&mut Scene) -> Vec<BodyHandle>,
) {
    let mut alone = Scene::new();
    let alone_bodies = build(&mut alone);
    let mut crowded = Scene::new();
    add_others(&mut crowded);
    let crowded_bodies = build(&mut crowded);
    for step in 0..120 {
        alone.space.step(DT);
        crowded.space.step(DT);
        assert!(
            alone.finite(),
            "{name}: alone, non-finite after step {step}"
        );
        assert!(
            crowded.finite(),
            "{name}: crowded, non-finite after step {step}"
        );
    }
    let a = alone.pose_bits(&alone_bodies);
    let b = crowded.pose_bits(&crowded_bodies);
    let differing = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    println!(
        "insertion order, {name}: {differing} of {} watched bodies differ in their pose bits",
        a.len()
    );
    assert_eq!(a, b, "{name}");
}

/// A ragdoll hung by a hand and pushed, and a loop of pivots, simulated alone and after a
/// pendulum and joints of other types were added: bit-identical poses after 120 steps.
#[test]
fn ragdoll_ignores_unrelated_bodies_added_first() {
    assert_insertion_independent("ragdoll and loop", add_unrelated_joints, |s| {
        let doll = s.add_ragdoll(Vec2::ZERO);
        hang_by_left_hand(s, &doll);
        s.space
            .apply_impulse(doll.torso, Vec2::new(2.0, 0.0))
            .expect("torso");
        let corners = add_loop(s, Vec2::new(-20.0, 0.0));
        doll.bodies.iter().chain(&corners).copied().collect()
    });
}

/// A 15-link chain and a loop of pivots, simulated alone and after another chain, a
/// pendulum and joints of other types were added: bit-identical poses after 120 steps.
#[test]
fn chain_ignores_unrelated_bodies_added_first() {
    assert_insertion_independent(
        "chain and loop",
        |s| {
            s.add_chain(
                Vec2::new(50.0, 0.0),
                12,
                false,
                1.0,
                scenes::LINK_MASS,
                scenes::LINK_INERTIA,
            );
            add_unrelated_joints(s);
        },
        |s| {
            let chain = s.add_chain(
                Vec2::new(0.0, 20.0),
                15,
                false,
                1.0,
                scenes::LINK_MASS,
                scenes::LINK_INERTIA,
            );
            let corners = add_loop(s, Vec2::new(-20.0, 0.0));
            chain.iter().chain(&corners).copied().collect()
        },
    );
}

/// A 200-link chain hanging at rest (one substep a step, its top links weighted) alone and
/// after a swinging chain (which takes 2 or more) was added: bit-identical poses. Islands
/// with different substep counts run one after the other, and the weighting must touch
/// only the resting island's own run.
#[test]
fn resting_chain_ignores_a_swinging_one_added_first() {
    assert_insertion_independent(
        "resting chain beside a swinging one",
        |s| {
            s.add_chain(
                Vec2::new(300.0, 0.0),
                30,
                false,
                1.0,
                scenes::LINK_MASS,
                scenes::LINK_INERTIA,
            );
        },
        |s| {
            s.add_chain(
                Vec2::ZERO,
                200,
                true,
                1.0,
                scenes::LINK_MASS,
                scenes::LINK_INERTIA,
            )
        },
    );
}

/// A free ragdoll and, in the same space, a chain of 10 links hung from its own anchor:
/// two unrelated acyclic islands, stepped 60 times. Joints stay within 1 cm.
#[test]
fn ragdoll_beside_a_chain() {
    let mut s = Scene::new();
    s.add_ragdoll(Vec2::ZERO);
    s.add_chain(
        Vec2::new(0.0, 20.0),
        10,
        false,
        1.0,
        scenes::LINK_MASS,
        scenes::LINK_INERTIA,
    );
    let r = run(&mut s, 60, DT);
    println!(
        "ragdoll beside a 10-link chain: run max error {:.2e}",
        r.max_error
    );
    assert!(r.max_error <= 1e-2, "error {}", r.max_error);
}

/// Two free ragdolls side by side in one space (two unrelated islands), thrown and
/// spinning, 60 steps: never NaN, joints within 1 cm.
#[test]
fn two_ragdolls_side_by_side() {
    let mut s = Scene::new();
    for k in 0..2 {
        let doll = s.add_ragdoll(Vec2::new(k as f32 * 10.0, 0.0));
        s.set_rigid_motion(&doll.bodies, Vec2::ZERO, Vec2::new(3.0, 5.0), 4.0);
    }
    let r = run(&mut s, 60, DT);
    assert_ragdoll_bounds("two ragdolls side by side", &r);
}
