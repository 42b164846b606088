//! Behaviour of the limit, motor and pulley builtins (`AngleJoint`, `DistanceJoint`,
//! `LineJoint`, `MotorJoint`, `PulleyJoint`) in whole simulations, and their parameter
//! validation.
//!
//! Every scene runs at 60 Hz with the space's default iterations and the default
//! (stiff) `ConstraintSettings` unless it says otherwise. Each test measures its constraint
//! independently of the joint code (from the bodies' poses), prints the worst figures
//! (`cargo test --test behaviour_limits -- --nocapture`) and asserts them.

use nape::{
    AngleJoint, Body, BodyHandle, Constraint, ConstraintSettings, DistanceJoint, Error, LineJoint,
    MotorJoint, PivotJoint, PulleyJoint, Space, Vec2,
};

const DT: f32 = 1.0 / 60.0;
const GRAVITY: Vec2 = Vec2::new(0.0, -10.0);
/// Largest allowed violation of a position constraint or limit.
const TOLERANCE: f32 = 1e-3;

/// How far `x` lies outside `[min, max]` (0 inside).
fn outside(x: f32, min: f32, max: f32) -> f32 {
    (min - x).max(x - max).max(0.0)
}

fn world(space: &Space, b: BodyHandle, local: Vec2) -> Vec2 {
    space.body(b).unwrap().world_point(local).as_vec2()
}

fn angle(space: &Space, b: BodyHandle) -> f32 {
    space.body(b).unwrap().angle() as f32
}

fn omega(space: &Space, b: BodyHandle) -> f32 {
    space.body(b).unwrap().angular_velocity()
}

fn velocity(space: &Space, b: BodyHandle) -> Vec2 {
    space.body(b).unwrap().velocity()
}

// ----- AngleJoint -----------------------------------------------------------------------

/// A wheel (inertia 1) joined to a static body by `AngleJoint(−0.5..=0.5)`, pushed by a
/// constant torque of +10 for 2 s, then −10 for 2 s: it must sit at each limit in turn.
#[test]
fn angle_joint_holds_its_limits_against_a_constant_torque() {
    let (min, max) = (-0.5, 0.5);
    let mut space = Space::new();
    let ground = space.add_body(Body::static_body()).unwrap();
    let wheel = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    space
        .add_constraint(AngleJoint::new(ground, wheel, min, max))
        .unwrap();
    let mut worst = 0.0f32;
    let mut at_limit = [0.0f32; 2];
    for (phase, torque) in [10.0f32, -10.0].into_iter().enumerate() {
        for _ in 0..120 {
            space.apply_torque(wheel, torque).unwrap();
            space.step(DT);
            let c = angle(&space, wheel) - angle(&space, ground);
            worst = worst.max(outside(c, min, max));
            at_limit[phase] = c;
        }
    }
    println!(
        "angle limit, static ground: worst violation {worst:.3e} rad; final angle at +torque {:.6}, at -torque {:.6}",
        at_limit[0], at_limit[1]
    );
    assert!(worst < TOLERANCE, "limit violated by {worst} rad");
    // The torque really drove the wheel into each end (it is not simply stuck somewhere).
    assert!((at_limit[0] - max).abs() < TOLERANCE, "{at_limit:?}");
    assert!((at_limit[1] - min).abs() < TOLERANCE, "{at_limit:?}");
    // Held still at the limit: the joint cancels the torque, no creeping.
    assert!(
        omega(&space, wheel).abs() < 1e-2,
        "{}",
        omega(&space, wheel)
    );
}

/// A rod on a hinge to a static hook, `AngleJoint(−0.6..=0.6)` on it, released level under
/// gravity beside a second rod hinged to its end (`AngleJoint(−0.9..=0.9)` between the two):
/// the first falls into its lower limit at about 2.5 rad/s and stops there without bouncing
/// (Nape's limits only push, so the impact is inelastic: the step after it the rod turns
/// back at under 2% of its impact speed, where sweeping the limit by Gauss–Seidel let it
/// rebound at 35% and overshoot by 4e-3 rad); the second stops at its own limit the same
/// way, and pressed into both by gravity they come to rest.
#[test]
fn angle_joint_limits_stop_an_impact_without_a_bounce() {
    let mut space = Space::new();
    space.gravity = GRAVITY;
    let hook = space.add_body(Body::static_body()).unwrap();
    let (mass, inertia) = (1.12, 1.12 * (1.6f32 * 1.6 + 0.14 * 0.14) / 12.0);
    let first = space
        .add_body(Body::dynamic(mass, inertia).at(Vec2::new(0.8, 0.0)))
        .unwrap();
    let second = space
        .add_body(Body::dynamic(mass, inertia).at(Vec2::new(2.4, 0.0)))
        .unwrap();
    let end = Vec2::new(0.8, 0.0);
    space
        .add_constraint(PivotJoint::new(hook, first, Vec2::ZERO, -end))
        .unwrap();
    space
        .add_constraint(PivotJoint::new(first, second, end, -end))
        .unwrap();
    space
        .add_constraint(AngleJoint::new(hook, first, -0.6, 0.6))
        .unwrap();
    space
        .add_constraint(AngleJoint::new(first, second, -0.9, 0.9))
        .unwrap();
    let (mut impact, mut worst) = (0.0f32, 0.0f32);
    let mut bounce = None;
    for _ in 0..180 {
        let before = omega(&space, first);
        space.step(DT);
        let (a, b) = (
            angle(&space, first),
            angle(&space, second) - angle(&space, first),
        );
        worst = worst.max(outside(a, -0.6, 0.6)).max(outside(b, -0.9, 0.9));
        if impact == 0.0 && a <= -0.6 + 1e-4 {
            impact = before;
        } else if impact != 0.0 && bounce.is_none() {
            bounce = Some(omega(&space, first) / -impact);
        }
    }
    let relative = angle(&space, second) - angle(&space, first);
    println!(
        "limited hinges: impact at {impact:.2} rad/s, turned back at {bounce:?} of it the step after; worst violation {worst:.2e} rad, final {:.5} / {relative:.5} rad",
        angle(&space, first)
    );
    assert!(impact < -2.0, "the rod hit its limit at {impact} rad/s");
    let bounce = bounce.expect("a step after the impact");
    assert!(
        bounce < 0.02,
        "the rod bounced back at {bounce} of its impact speed"
    );
    assert!(worst < TOLERANCE, "limits violated by {worst} rad");
    assert!((angle(&space, first) + 0.6).abs() < TOLERANCE);
    assert!(
        (relative + 0.9).abs() < TOLERANCE,
        "second rod at {relative} rad"
    );
    for b in [first, second] {
        assert!(omega(&space, b).abs() < 1e-3, "{}", omega(&space, b));
    }
}

/// A soft limit is a spring beyond its bound: a wheel (inertia 1) pressed by a torque of 10
/// into `AngleJoint(−0.5..=0.5)` with `ConstraintSettings::soft(2.0, 1.0)` settles where the
/// spring holds the torque, `10 / (2π·2)²` = 0.0633 rad past the bound (Nape's spring is
/// relative to the effective mass, here the wheel's inertia).
#[test]
fn a_soft_angle_limit_settles_where_its_spring_holds_the_torque() {
    let mut space = Space::new();
    let ground = space.add_body(Body::static_body()).unwrap();
    let wheel = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    space
        .add_constraint_with(
            AngleJoint::new(ground, wheel, -0.5, 0.5),
            ConstraintSettings::soft(2.0, 1.0),
        )
        .unwrap();
    for _ in 0..240 {
        space.apply_torque(wheel, 10.0).unwrap();
        space.step(DT);
    }
    let stretch = angle(&space, wheel) - 0.5;
    let expected = 10.0 / (std::f32::consts::TAU * 2.0).powi(2);
    println!(
        "soft angle limit: {stretch:.5} rad past the bound (spring: {expected:.5}), spin {:.2e}",
        omega(&space, wheel)
    );
    assert!(
        (stretch - expected).abs() < 1e-3,
        "{stretch} against {expected}"
    );
    assert!(omega(&space, wheel).abs() < 1e-3);
    // Solved exactly with its compliance, the limit leaves the island its adaptive
    // substeps (swept by Gauss–Seidel, it took all 8).
    let taken = space.exact_substeps_taken();
    assert!(taken.iter().all(|&n| n < 8), "{taken:?}");
}

/// Two dynamic wheels geared by `ratio = 2`: `AngleJoint(−0.3..=0.4)` on `2·θ₂ − θ₁`, with a
/// constant torque on wheel 2 and the opposite torque on wheel 1.
#[test]
fn angle_joint_with_a_ratio_between_two_dynamic_bodies_holds_its_limit() {
    let (min, max, ratio) = (-0.3, 0.4, 2.0);
    let mut space = Space::new();
    let a = space.add_body(Body::dynamic(1.0, 2.0)).unwrap();
    let b = space
        .add_body(Body::dynamic(1.0, 0.5).at(Vec2::new(2.0, 0.0)))
        .unwrap();
    space
        .add_constraint(AngleJoint {
            ratio,
            ..AngleJoint::new(a, b, min, max)
        })
        .unwrap();
    let mut worst = 0.0f32;
    let mut last = 0.0f32;
    for _ in 0..180 {
        space.apply_torque(b, 3.0).unwrap();
        space.apply_torque(a, -3.0).unwrap();
        space.step(DT);
        last = ratio * angle(&space, b) - angle(&space, a);
        worst = worst.max(outside(last, min, max));
    }
    println!(
        "angle limit, ratio 2, two dynamic bodies: worst violation {worst:.3e} rad, final {last:.6}"
    );
    assert!(worst < TOLERANCE, "limit violated by {worst} rad");
    assert!(
        (last - max).abs() < TOLERANCE,
        "not at the upper limit: {last}"
    );
}

/// Inside its range the joint does nothing: a wheel spinning slowly (0.2 rad/s, range
/// ±1 rad, 4 s) moves exactly like a free twin.
#[test]
fn angle_joint_is_free_inside_its_range() {
    let mut space = Space::new();
    // The free twin is swept, the joined body solved exactly: the same substeps for both.
    space.substeps = space.exact_substeps;
    space.adaptive_substeps = false;
    let ground = space.add_body(Body::static_body()).unwrap();
    let spin = Body::dynamic(1.0, 1.0).with_angular_velocity(0.2);
    let wheel = space.add_body(spin.clone()).unwrap();
    let twin = space.add_body(spin.at(Vec2::new(3.0, 0.0))).unwrap();
    space
        .add_constraint(AngleJoint::new(ground, wheel, -1.0, 1.0))
        .unwrap();
    let (mut dw, mut da) = (0.0f32, 0.0f32);
    for _ in 0..240 {
        space.step(DT);
        dw = dw.max((omega(&space, wheel) - omega(&space, twin)).abs());
        da = da.max((angle(&space, wheel) - angle(&space, twin)).abs());
    }
    let turned = angle(&space, wheel);
    println!(
        "angle joint inside its range: turned {turned:.4} rad; |Δω| vs free twin {dw:.3e}, |Δθ| {da:.3e}, ω = {}",
        omega(&space, wheel)
    );
    assert!(
        turned > 0.7 && turned < 1.0,
        "the scene left the range: {turned}"
    );
    assert!(
        dw <= 1e-6,
        "the joint slowed the wheel inside its range: {dw}"
    );
    assert!(
        da <= 1e-6,
        "the joint moved the wheel inside its range: {da}"
    );
    assert!((omega(&space, wheel) - 0.2).abs() <= 1e-6);
}

// ----- DistanceJoint --------------------------------------------------------------------

/// A rope `DistanceJoint(0.5..=2.0)` from a static hook to a weight thrown up towards the
/// hook under gravity: it reaches the short end (pushed away), falls back, catches on the
/// long end and swings. The distance must stay in `[0.5, 2.0]` throughout.
#[test]
fn distance_rope_keeps_the_weight_between_its_limits() {
    let (min, max) = (0.5, 2.0);
    let mut space = Space::new();
    space.gravity = GRAVITY;
    let hook = space.add_body(Body::static_body()).unwrap();
    let weight = space
        .add_body(
            Body::circle(0.1, 100.0)
                .at(Vec2::new(0.3, -1.5))
                .with_velocity(Vec2::new(0.5, 7.0)),
        )
        .unwrap();
    let anchor2 = Vec2::new(0.05, 0.0);
    space
        .add_constraint(DistanceJoint::new(
            hook,
            weight,
            Vec2::ZERO,
            anchor2,
            min,
            max,
        ))
        .unwrap();
    let (mut worst, mut shortest, mut longest) = (0.0f32, f32::INFINITY, 0.0f32);
    for _ in 0..300 {
        space.step(DT);
        let d = (world(&space, weight, anchor2) - world(&space, hook, Vec2::ZERO)).length();
        worst = worst.max(outside(d, min, max));
        shortest = shortest.min(d);
        longest = longest.max(d);
    }
    println!(
        "distance rope 0.5..=2.0 under gravity: worst violation {worst:.3e}, distance range seen [{shortest:.6}, {longest:.6}]"
    );
    assert!(worst < TOLERANCE, "rope limits violated by {worst}");
    // Both ends were actually reached.
    assert!(
        shortest - min < 1e-2,
        "never reached the short end: {shortest}"
    );
    assert!(
        max - longest < 1e-2,
        "never reached the long end: {longest}"
    );
}

/// A weight hanging at rest on a rope (at its long end, 2.0) stays at rest for 2 s: the
/// limit must stop the velocity, not only the position, and carry the weight (its impulse
/// per step is `m·g·dt`).
#[test]
fn distance_rope_holds_a_hanging_weight_at_rest() {
    let mut space = Space::new();
    space.gravity = GRAVITY;
    let hook = space.add_body(Body::static_body()).unwrap();
    let weight = space
        .add_body(Body::dynamic(2.0, 1.0).at(Vec2::new(0.0, -2.0)))
        .unwrap();
    let h = space
        .add_constraint(DistanceJoint::new(
            hook,
            weight,
            Vec2::ZERO,
            Vec2::ZERO,
            0.5,
            2.0,
        ))
        .unwrap();
    let (mut worst, mut fastest) = (0.0f32, 0.0f32);
    for _ in 0..120 {
        space.step(DT);
        let d = space.body(weight).unwrap().position().as_vec2().length();
        worst = worst.max(outside(d, 0.5, 2.0));
        fastest = fastest.max(velocity(&space, weight).length());
    }
    let impulse = space.impulse(h).unwrap()[0];
    let expected = 2.0 * 10.0 * DT;
    println!(
        "distance rope, hanging weight: worst violation {worst:.3e}, fastest speed {fastest:.3e}, impulse per step {impulse:.6} (m·g·dt = {expected:.6})"
    );
    assert!(worst < TOLERANCE, "rope limit violated by {worst}");
    assert!(fastest < 1e-3, "the resting weight moves at {fastest}");
    assert!(
        (impulse.abs() - expected).abs() < 0.01 * expected,
        "the rope does not carry the weight: impulse {impulse}"
    );
}

/// Slack inside the range, 1: a weight released at distance 1 under a hook falls as a free
/// body does (`p = p₀ + g t²/2`, `v = g t`, which the step's velocity Verlet meets at every
/// step) until the rope (max 2) catches it.
#[test]
fn distance_rope_is_slack_while_falling_inside_its_range() {
    let (min, max) = (0.5, 2.0);
    let mut space = Space::new();
    space.gravity = GRAVITY;
    let hook = space.add_body(Body::static_body()).unwrap();
    let start = Vec2::new(1.0, 0.0);
    let weight = space.add_body(Body::dynamic(1.0, 1.0).at(start)).unwrap();
    space
        .add_constraint(DistanceJoint::new(
            hook,
            weight,
            Vec2::ZERO,
            Vec2::ZERO,
            min,
            max,
        ))
        .unwrap();
    let (mut free_steps, mut dv, mut dp) = (0, 0.0f32, 0.0f32);
    let mut caught = false;
    for step in 1..=120 {
        space.step(DT);
        let d = space.body(weight).unwrap().position().as_vec2().length();
        if d < max - 1e-4 && !caught {
            free_steps += 1;
            let t = step as f32 * DT;
            dv = dv.max((velocity(&space, weight) - GRAVITY * t).length());
            let free = start + 0.5 * GRAVITY * t * t;
            dp = dp.max((space.body(weight).unwrap().position().as_vec2() - free).length());
        } else {
            caught = true;
        }
    }
    println!(
        "distance rope slack while falling: {free_steps} free steps; |Δv| vs free fall {dv:.3e}, |Δp| {dp:.3e}"
    );
    // Free fall from distance 1 reaches distance 2 after about 0.59 s (35 steps).
    assert!(free_steps >= 30, "only {free_steps} free steps");
    assert!(caught, "the rope never caught the weight");
    assert!(dv <= 1e-5, "the slack rope changed the velocity by {dv}");
    assert!(dp <= 1e-5, "the slack rope moved the weight by {dp}");
}

#[test]
fn distance_rope_between_two_moving_bodies_is_slack_inside_its_range() {
    let (min, max) = (0.5, 2.0);
    let mut space = Space::new();
    let (v1, w1, v2, w2) = (Vec2::new(-0.2, 0.1), 0.5, Vec2::new(0.2, -0.05), -0.7);
    let a = space
        .add_body(
            Body::rectangle(0.4, 0.2, 1.0)
                .with_velocity(v1)
                .with_angular_velocity(w1),
        )
        .unwrap();
    let b = space
        .add_body(
            Body::circle(0.2, 1.0)
                .at(Vec2::new(0.8, 0.0))
                .with_velocity(v2)
                .with_angular_velocity(w2),
        )
        .unwrap();
    let (a1, a2) = (Vec2::new(0.1, 0.05), Vec2::new(-0.1, 0.0));
    space
        .add_constraint(DistanceJoint::new(a, b, a1, a2, min, max))
        .unwrap();
    let (mut dv, mut dw, mut lo, mut hi) = (0.0f32, 0.0f32, f32::INFINITY, 0.0f32);
    for _ in 0..120 {
        space.step(DT);
        let d = (world(&space, b, a2) - world(&space, a, a1)).length();
        lo = lo.min(d);
        hi = hi.max(d);
        dv = dv
            .max((velocity(&space, a) - v1).length())
            .max((velocity(&space, b) - v2).length());
        dw = dw
            .max((omega(&space, a) - w1).abs())
            .max((omega(&space, b) - w2).abs());
    }
    println!(
        "distance rope slack between moving bodies: distance in [{lo:.4}, {hi:.4}]; |Δv| {dv:.3e}, |Δω| {dw:.3e}"
    );
    assert!(
        lo > min && hi < max,
        "the scene left the range: [{lo}, {hi}]"
    );
    assert!(hi - lo > 0.5, "the bodies barely moved apart: [{lo}, {hi}]");
    assert!(dv <= 1e-6 && dw <= 1e-6, "the slack rope acted: {dv}, {dw}");
}

// ----- LineJoint ------------------------------------------------------------------------

/// `(perpendicular offset, position along the line)` of a line joint, from the poses.
fn line_errors(space: &Space, j: &LineJoint) -> (f32, f32) {
    let b1 = space.body(j.body1).unwrap();
    let d = world(space, j.body2, j.anchor2) - b1.world_point(j.anchor1).as_vec2();
    let n = b1.pose().rotate(j.direction.normalize());
    (n.perp_dot(d), n.dot(d))
}

/// Runs `steps` steps (calling `before` before each) and returns the worst perpendicular
/// error, the worst range violation and the smallest and largest position along the line.
fn run_line(
    space: &mut Space,
    j: &LineJoint,
    steps: usize,
    mut before: impl FnMut(&mut Space),
) -> (f32, f32, f32, f32) {
    let (mut perp, mut range, mut lo, mut hi) = (0.0f32, 0.0f32, f32::INFINITY, f32::NEG_INFINITY);
    for _ in 0..steps {
        before(space);
        space.step(DT);
        let (p, along) = line_errors(space, j);
        perp = perp.max(p.abs());
        range = range.max(outside(along, j.joint_min, j.joint_max));
        lo = lo.min(along);
        hi = hi.max(along);
    }
    (perp, range, lo, hi)
}

/// A slider on a static, tilted rail (direction (2, −1), range −1..=1.5) under gravity,
/// also pushed sideways: it slides down to the far end and stays there; then a force
/// drives it back up to the near end.
#[test]
fn line_joint_on_a_static_rail_holds_the_line_and_the_range() {
    let mut space = Space::new();
    space.gravity = GRAVITY;
    let rail = space
        .add_body(Body::static_body().at(Vec2::new(0.0, 1.0)).with_angle(0.3))
        .unwrap();
    let slider = space
        .add_body(Body::rectangle(0.3, 0.2, 10.0).at(Vec2::new(0.1, 1.2)))
        .unwrap();
    let joint = LineJoint::new(
        rail,
        slider,
        Vec2::new(0.0, 0.2),
        Vec2::new(0.1, 0.0),
        Vec2::new(2.0, -1.0),
        -1.0,
        1.5,
    );
    // Put the slider exactly on the line to start.
    {
        let (p, along) = line_errors(&space, &joint);
        assert!(along > -1.0 && along < 1.5);
        let n = space
            .body(rail)
            .unwrap()
            .pose()
            .rotate(joint.direction.normalize());
        let mut b = space.body_mut(slider).unwrap();
        let at = b.position().as_vec2() - p * n.perp();
        b.set_position(at).unwrap();
    }
    space.add_constraint(joint).unwrap();
    // Down the rail under gravity, with a sideways push.
    let (perp1, range1, _, hi) = run_line(&mut space, &joint, 180, |s| {
        s.apply_force(slider, Vec2::new(3.0, 4.0)).unwrap();
    });
    let (_, end1) = line_errors(&space, &joint);
    // Back up the rail: a force along −direction stronger than gravity's component.
    let up = -space
        .body(rail)
        .unwrap()
        .pose()
        .rotate(joint.direction.normalize())
        * 30.0;
    let (perp2, range2, lo, _) = run_line(&mut space, &joint, 180, |s| {
        s.apply_force(slider, up).unwrap();
    });
    let (_, end2) = line_errors(&space, &joint);
    let (perp, range) = (perp1.max(perp2), range1.max(range2));
    println!(
        "line joint, static rail: worst perpendicular error {perp:.3e}, worst range violation {range:.3e}; ends at {end1:.5} (max 1.5), then {end2:.5} (min -1); seen [{lo:.5}, {hi:.5}]"
    );
    assert!(perp < TOLERANCE, "off the line by {perp}");
    assert!(range < TOLERANCE, "out of range by {range}");
    assert!(
        (end1 - 1.5).abs() < TOLERANCE,
        "did not slide to the far end: {end1}"
    );
    assert!(
        (end2 + 1.0).abs() < TOLERANCE,
        "was not pushed to the near end: {end2}"
    );
}

/// A slider on an arm of a kinematic body spinning at 2 rad/s (no gravity): the
/// centrifugal effect throws it out to the end of its range (0.5..=2.0), where the joint
/// must hold it on the rotating line.
#[test]
fn line_joint_on_a_spinning_kinematic_body() {
    let mut space = Space::new();
    let arm = space
        .add_body(
            Body::kinematic()
                .at(Vec2::new(1.0, -1.0))
                .with_angular_velocity(2.0),
        )
        .unwrap();
    let slider = space
        .add_body(
            Body::circle(0.1, 1.0)
                .at(Vec2::new(1.8, -1.0))
                .with_velocity(Vec2::new(0.0, 1.6)),
        )
        .unwrap();
    let joint = LineJoint::new(arm, slider, Vec2::ZERO, Vec2::ZERO, Vec2::X, 0.5, 2.0);
    space.add_constraint(joint).unwrap();
    let (perp, range, lo, hi) = run_line(&mut space, &joint, 300, |_| {});
    let turned = angle(&space, arm);
    let (_, end) = line_errors(&space, &joint);
    // Carried round at the end of the arm: speed ω·r = 4, no radial velocity.
    let speed = velocity(&space, slider).length();
    println!(
        "line joint, kinematic arm at 2 rad/s: turned {turned:.2} rad; worst perpendicular error {perp:.3e}, worst range violation {range:.3e}; along in [{lo:.5}, {hi:.5}], final {end:.5}, speed {speed:.5} (ω·r = 4)"
    );
    assert!(
        (speed - 4.0).abs() < 0.01 * 4.0,
        "speed {speed}, expected 4"
    );
    assert!(turned > 9.0, "the arm did not spin: {turned}");
    assert!(perp < TOLERANCE, "off the line by {perp}");
    assert!(range < TOLERANCE, "out of range by {range}");
    assert!(
        (end - 2.0).abs() < TOLERANCE,
        "not thrown to the end: {end}"
    );
}

/// A see-saw: a dynamic beam pivoted at its centre to a static body carries a slider
/// (range −2..=2) started off-centre; under gravity the beam tips, the slider slides down
/// it to the end, and the beam turns. The line is on a rotating, dynamic `body1`.
#[test]
fn line_joint_on_a_dynamic_rotating_beam() {
    let mut space = Space::new();
    space.gravity = GRAVITY;
    let ground = space.add_body(Body::static_body()).unwrap();
    let beam = space.add_body(Body::rectangle(4.0, 0.1, 1.0)).unwrap();
    space
        .add_constraint(PivotJoint::new(ground, beam, Vec2::ZERO, Vec2::ZERO))
        .unwrap();
    let slider = space
        .add_body(Body::circle(0.1, 50.0).at(Vec2::new(0.5, 0.1)))
        .unwrap();
    let joint = LineJoint::new(
        beam,
        slider,
        Vec2::new(0.0, 0.1),
        Vec2::ZERO,
        Vec2::X,
        -2.0,
        2.0,
    );
    space.add_constraint(joint).unwrap();
    let mut turned = 0.0f32;
    let (perp, range, lo, hi) = run_line(&mut space, &joint, 120, |s| {
        turned = turned.min(angle(s, beam));
    });
    let pivot = world(&space, beam, Vec2::ZERO).length();
    println!(
        "line joint on a pivoted dynamic beam: beam turned {turned:.3} rad; worst perpendicular error {perp:.3e}, worst range violation {range:.3e}; along in [{lo:.5}, {hi:.5}]; pivot separation {pivot:.3e}"
    );
    assert!(turned < -0.5, "the beam did not tip: {turned}");
    assert!(perp < TOLERANCE, "off the line by {perp}");
    assert!(range < TOLERANCE, "out of range by {range}");
    assert!(
        2.0 - hi < TOLERANCE,
        "the slider never reached the end: {hi}"
    );
}

// ----- MotorJoint -----------------------------------------------------------------------

/// A free wheel on a motor to a static body: rate 3 rad/s, reached at once with an
/// unbounded torque, and after ≈ 1.5 s with `max_force = 2` (inertia 1).
#[test]
fn motor_joint_brings_a_free_wheel_to_its_rate() {
    let rate = 3.0;
    for (max_force, steps) in [(f32::INFINITY, 60), (2.0, 150)] {
        let mut space = Space::new();
        let ground = space.add_body(Body::static_body()).unwrap();
        let wheel = space
            .add_body(Body::circle(1.0, 1.0 / std::f32::consts::PI))
            .unwrap();
        let settings = ConstraintSettings {
            max_force,
            ..ConstraintSettings::default()
        };
        space
            .add_constraint_with(MotorJoint::new(ground, wheel, rate), settings)
            .unwrap();
        let mut after_half_second = 0.0;
        for step in 1..=steps {
            space.step(DT);
            if step == 30 {
                after_half_second = omega(&space, wheel);
            }
        }
        let w = omega(&space, wheel);
        let error = (w - rate).abs() / rate;
        println!(
            "motor, static ground, max_force {max_force}: ω after 0.5 s {after_half_second:.4}, after {:.2} s {w:.6} (relative error {error:.3e})",
            steps as f32 * DT
        );
        assert!(error < 0.01, "ω = {w}, rate {rate}");
        if max_force.is_finite() {
            // Torque 2 on inertia 0.5: 4 rad/s² → 2 rad/s after 0.5 s.
            let expected = max_force / space.body(wheel).unwrap().inertia() * 0.5;
            assert!(
                (after_half_second - expected).abs() < 0.01 * expected,
                "the torque limit was not applied: {after_half_second} vs {expected}"
            );
        }
    }
}

/// Two dynamic wheels (inertias 1 and 2) on a motor with `ratio = 2`, `rate = 1`:
/// `2·ω₂ − ω₁` reaches 1 and stays there; the impulse splits as `J M⁻¹ Jᵀ` says
/// (ω₁ = −1/3, ω₂ = 1/3 from rest).
#[test]
fn motor_joint_with_a_ratio_between_two_dynamic_wheels() {
    let (rate, ratio) = (1.0, 2.0);
    let mut space = Space::new();
    let a = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let b = space
        .add_body(Body::dynamic(1.0, 2.0).at(Vec2::new(3.0, 0.0)))
        .unwrap();
    space
        .add_constraint(MotorJoint {
            ratio,
            ..MotorJoint::new(a, b, rate)
        })
        .unwrap();
    let mut worst = 0.0f32;
    for _ in 0..120 {
        space.step(DT);
        let value = ratio * omega(&space, b) - omega(&space, a);
        worst = worst.max((value - rate).abs() / rate);
    }
    let (w1, w2) = (omega(&space, a), omega(&space, b));
    println!(
        "motor, ratio 2, two dynamic wheels: worst relative error of ratio·ω₂ − ω₁ {worst:.3e}; ω₁ {w1:.6}, ω₂ {w2:.6}"
    );
    assert!(worst < 0.01, "ratio·ω₂ − ω₁ off its rate by {worst}");
    assert!((w1 + 1.0 / 3.0).abs() < 1e-3 && (w2 - 1.0 / 3.0).abs() < 1e-3);
}

// ----- PulleyJoint ----------------------------------------------------------------------

/// A pulley scene: which bodies fill the four slots.
#[derive(Clone, Copy, Debug)]
enum Pulley {
    /// Two static hooks, two weights.
    FourBodies,
    /// One static ceiling carrying both hooks (`body1 == body3`).
    ThreeBodies,
}

/// `len₁ + ratio·len₂` of a pulley, from the poses.
fn pulley_length(space: &Space, j: &PulleyJoint) -> f32 {
    let l1 = (world(space, j.body2, j.anchor2) - world(space, j.body1, j.anchor1)).length();
    let l2 = (world(space, j.body4, j.anchor4) - world(space, j.body3, j.anchor3)).length();
    l1 + j.ratio * l2
}

/// Two weights (masses 3 and 1) hanging 3 below hooks at x = ±1, on a pulley of ratio 1.
/// `slack` shortens the starting length below `joint_max` (both weights then fall freely
/// until the rope is taut); `equality` makes `joint_min == joint_max`. Runs 0.9 s; returns
/// the worst violation of the bounds and the heavy and light weights' vertical travel.
fn two_weights(kind: Pulley, slack: f32, equality: bool) -> (f32, f32, f32, Vec<u32>) {
    let mut space = Space::new();
    space.gravity = GRAVITY;
    let (hook1, hook2, anchor1, anchor3) = match kind {
        Pulley::FourBodies => (
            space
                .add_body(Body::static_body().at(Vec2::new(-1.0, 0.0)))
                .unwrap(),
            space
                .add_body(Body::static_body().at(Vec2::new(1.0, 0.0)))
                .unwrap(),
            Vec2::ZERO,
            Vec2::ZERO,
        ),
        Pulley::ThreeBodies => {
            let ceiling = space.add_body(Body::static_body()).unwrap();
            (ceiling, ceiling, Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0))
        }
    };
    let start = -3.0;
    let heavy = space
        .add_body(Body::dynamic(3.0, 0.1).at(Vec2::new(-1.0, start)))
        .unwrap();
    let light = space
        .add_body(Body::dynamic(1.0, 0.1).at(Vec2::new(1.0, start)))
        .unwrap();
    let mut joint = PulleyJoint {
        body1: hook1,
        body2: heavy,
        body3: hook2,
        body4: light,
        anchor1,
        anchor2: Vec2::ZERO,
        anchor3,
        anchor4: Vec2::ZERO,
        joint_min: 0.0,
        joint_max: 0.0,
        ratio: 1.0,
    };
    let length = pulley_length(&space, &joint);
    joint.joint_max = length + slack;
    joint.joint_min = if equality { joint.joint_max } else { 1.0 };
    space.add_constraint(joint).unwrap();
    let mut worst = 0.0f32;
    let mut taken = Vec::new();
    for _ in 0..ATWOOD_STEPS {
        space.step(DT);
        taken.push(space.exact_substeps_taken()[0]);
        worst = worst.max(outside(
            pulley_length(&space, &joint),
            joint.joint_min,
            joint.joint_max,
        ));
    }
    let heavy_travel = space.body(heavy).unwrap().position().as_vec2().y - start;
    let light_travel = space.body(light).unwrap().position().as_vec2().y - start;
    (worst, heavy_travel, light_travel, taken)
}

const ATWOOD_STEPS: usize = 54;

/// Distance travelled from rest under constant acceleration `a` with the space's
/// semi-implicit Euler over the substeps its exactly solved island took, `taken[k]` in
/// step `k` (`a·h²·n(n+1)/2` for `n` substeps of `h`, 1/n more than `a·t²/2`).
fn discrete_travel(a: f32, taken: &[u32]) -> f32 {
    let (mut x, mut v) = (0.0f64, 0.0f64);
    for &n in taken {
        let h = f64::from(DT) / f64::from(n);
        for _ in 0..n {
            v += f64::from(a) * h;
            x += v * h;
        }
    }
    x as f32
}

#[test]
fn pulley_with_two_unequal_weights_four_and_three_bodies() {
    // Atwood machine: a = g·(3 − 1)/(3 + 1) = 5; after 0.9 s the weights have moved ≈ 2.06.
    for kind in [Pulley::FourBodies, Pulley::ThreeBodies] {
        for (label, slack, equality) in [
            ("taut rope", 0.0, false),
            ("slack rope", 0.2, false),
            ("equality", 0.0, true),
        ] {
            let (worst, down, up, taken) = two_weights(kind, slack, equality);
            let atwood = discrete_travel(5.0, &taken);
            println!(
                "pulley {kind:?}, {label}: worst violation {worst:.3e}; heavy moved {down:.4}, light moved {up:.4} (Atwood, taut: ∓{atwood:.4})"
            );
            assert!(worst < TOLERANCE, "{kind:?} {label}: violated by {worst}");
            assert!(
                down < -1.0,
                "{kind:?} {label}: the heavy weight did not go down: {down}"
            );
            assert!(
                up > 1.0,
                "{kind:?} {label}: the light weight did not go up: {up}"
            );
            if slack == 0.0 {
                // Vertical ropes from the start: the exact Atwood motion.
                assert!(
                    (down + atwood).abs() < 0.01 * atwood && (up - atwood).abs() < 0.01 * atwood,
                    "{kind:?} {label}: not the Atwood motion: {down}, {up}"
                );
            }
        }
    }
}

/// A 3-body pulley with `ratio = 2` (a block and tackle): moving the weight on the doubled
/// segment by `ε` moves the other by `2ε`, so a mass-1.5 weight there is *lifted* by a
/// mass-1 weight on the first segment (it would need mass > 2 to win). Rope and equality
/// pulley; the travel must be 2:1 and match `a = g·(m₁ − m₂/2)/(m₁ + m₂/4)`.
#[test]
fn pulley_with_a_ratio_moves_the_way_the_ratio_says() {
    let (m1, m2, ratio) = (1.0f32, 1.5f32, 2.0f32);
    let steps = 60;
    let accel = 10.0 * (m1 - m2 / ratio) / (m1 + m2 / (ratio * ratio));
    for equality in [false, true] {
        let mut space = Space::new();
        space.gravity = GRAVITY;
        let ceiling = space.add_body(Body::static_body()).unwrap();
        let a = space
            .add_body(Body::dynamic(m1, 0.1).at(Vec2::new(-1.0, -2.0)))
            .unwrap();
        let b = space
            .add_body(Body::dynamic(m2, 0.1).at(Vec2::new(1.0, -2.0)))
            .unwrap();
        let mut joint = PulleyJoint {
            body1: ceiling,
            body2: a,
            body3: ceiling,
            body4: b,
            anchor1: Vec2::new(-1.0, 0.0),
            anchor2: Vec2::ZERO,
            anchor3: Vec2::new(1.0, 0.0),
            anchor4: Vec2::ZERO,
            joint_min: 0.0,
            joint_max: 0.0,
            ratio,
        };
        joint.joint_max = pulley_length(&space, &joint);
        joint.joint_min = if equality { joint.joint_max } else { 0.5 };
        space.add_constraint(joint).unwrap();
        let mut worst = 0.0f32;
        let mut taken = Vec::new();
        for _ in 0..steps {
            space.step(DT);
            taken.push(space.exact_substeps_taken()[0]);
            worst = worst.max(outside(
                pulley_length(&space, &joint),
                joint.joint_min,
                joint.joint_max,
            ));
        }
        let expected = discrete_travel(accel, &taken);
        let (ya, yb) = (
            space.body(a).unwrap().position().as_vec2().y + 2.0,
            space.body(b).unwrap().position().as_vec2().y + 2.0,
        );
        println!(
            "pulley 3 bodies, ratio 2, equality {equality}: worst violation {worst:.3e}; mass-1 weight moved {ya:.4} (expected -{expected:.4}), mass-1.5 weight moved {yb:.4} (expected {:.4})",
            expected / ratio
        );
        assert!(worst < TOLERANCE, "violated by {worst}");
        assert!(ya < -0.5 && yb > 0.25, "wrong way: {ya}, {yb}");
        assert!(
            (ya + expected).abs() < 0.01 * expected,
            "not the geared Atwood motion: {ya} vs -{expected}"
        );
        assert!(
            (ya + ratio * yb).abs() < 1e-3,
            "not the 2:1 travel: {ya}, {yb}"
        );
    }
}

/// A 2-body pulley: `body1 == body4 = ceiling` (static), `body2 == body3 = block`. The rope
/// runs from hook P on the ceiling down to the block's left pin and from the block's right
/// pin up to hook Q: a block hanging in a loop of rope, free to slide along it (its pins on
/// an ellipse-like curve with foci P and Q). Released off-centre, the block swings down
/// across the middle and back. Then the same with the "ceiling" a dynamic plank pivoted at
/// its centre, which the off-centre block tips.
#[test]
fn pulley_two_bodies_a_block_riding_a_rope_loop() {
    for dynamic_ceiling in [false, true] {
        for equality in [false, true] {
            let mut space = Space::new();
            space.gravity = GRAVITY;
            let ceiling = if dynamic_ceiling {
                let ground = space.add_body(Body::static_body()).unwrap();
                let plank = space.add_body(Body::rectangle(4.0, 0.2, 2.0)).unwrap();
                space
                    .add_constraint(PivotJoint::new(ground, plank, Vec2::ZERO, Vec2::ZERO))
                    .unwrap();
                plank
            } else {
                space.add_body(Body::static_body()).unwrap()
            };
            let block = space
                .add_body(Body::rectangle(0.4, 0.2, 5.0).at(Vec2::new(-1.3, -1.0)))
                .unwrap();
            let mut joint = PulleyJoint {
                body1: ceiling,
                body2: block,
                body3: block,
                body4: ceiling,
                anchor1: Vec2::new(-1.5, 0.0),
                anchor2: Vec2::new(-0.2, 0.0),
                anchor3: Vec2::new(0.2, 0.0),
                anchor4: Vec2::new(1.5, 0.0),
                joint_min: 0.0,
                joint_max: 0.0,
                ratio: 1.0,
            };
            joint.joint_max = pulley_length(&space, &joint);
            joint.joint_min = if equality { joint.joint_max } else { 1.0 };
            space.add_constraint(joint).unwrap();
            let (mut worst, mut lowest, mut rightmost) = (0.0f32, 0.0f32, f32::NEG_INFINITY);
            for _ in 0..120 {
                space.step(DT);
                worst = worst.max(outside(
                    pulley_length(&space, &joint),
                    joint.joint_min,
                    joint.joint_max,
                ));
                let p = space.body(block).unwrap().position().as_vec2();
                lowest = lowest.min(p.y + 1.0);
                rightmost = rightmost.max(p.x);
            }
            let tipped = angle(&space, ceiling);
            println!(
                "pulley 2 bodies (ceiling {}), equality {equality}: worst violation {worst:.3e}; block dropped {lowest:.4}, rightmost x {rightmost:.4}, ceiling turned {tipped:.4}",
                if dynamic_ceiling {
                    "dynamic, pivoted"
                } else {
                    "static"
                }
            );
            assert!(worst < TOLERANCE, "violated by {worst}");
            assert!(lowest < -0.25, "the block did not go down: {lowest}");
            assert!(
                rightmost > 0.0,
                "the block did not swing across the middle: {rightmost}"
            );
            if dynamic_ceiling {
                assert!(tipped.abs() > 0.05, "the plank did not tip: {tipped}");
            }
        }
    }
}

// ----- Validation -----------------------------------------------------------------------

/// Adding `joint` fails with `InvalidParameter` naming `name`, and adds nothing.
fn rejected<T: Constraint<D, B> + std::fmt::Debug, const D: usize, const B: usize>(
    space: &mut Space,
    name: &str,
    joint: T,
) -> usize {
    let count = space.constraint_count();
    match space.add_constraint(joint.clone()) {
        Err(Error::InvalidParameter(p)) => {
            assert_eq!(p.constraint, name, "{joint:?}: {p}");
        }
        other => panic!("{joint:?} was not rejected as an invalid parameter: {other:?}"),
    }
    assert_eq!(space.constraint_count(), count);
    1
}

/// Each `change` applied with `update_constraint` fails with `InvalidParameter` and leaves
/// the constraint as it was; a valid change then succeeds.
fn update_rejected<T, const D: usize, const B: usize>(
    space: &mut Space,
    joint: T,
    changes: &[&dyn Fn(&mut T)],
    valid: impl FnOnce(&mut T),
) -> usize
where
    T: Constraint<D, B> + PartialEq + std::fmt::Debug,
{
    let h = space.add_constraint(joint.clone()).unwrap();
    for change in changes {
        let result = space.update_constraint(h, |j| change(j));
        assert!(
            matches!(result, Err(Error::InvalidParameter(_))),
            "{result:?}"
        );
        assert_eq!(
            space.constraint(h).unwrap(),
            &joint,
            "the old value was not kept"
        );
        space.step(DT);
    }
    space.update_constraint(h, valid).unwrap();
    assert_ne!(space.constraint(h).unwrap(), &joint);
    changes.len()
}

#[test]
fn invalid_parameters_are_rejected_on_add_and_update() {
    let mut space = Space::new();
    let s = space.add_body(Body::static_body()).unwrap();
    let a = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let b = space
        .add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(1.0, 0.0)))
        .unwrap();
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let nan2 = Vec2::new(nan, 0.0);
    let mut added = 0;

    let angle = AngleJoint::new(s, a, -1.0, 1.0);
    for j in [
        AngleJoint::new(s, a, 1.0, -1.0),
        AngleJoint::new(a, a, -1.0, 1.0),
        AngleJoint::new(s, a, nan, 1.0),
        AngleJoint::new(s, a, -1.0, nan),
        AngleJoint {
            ratio: nan,
            ..angle
        },
        AngleJoint {
            ratio: inf,
            ..angle
        },
    ] {
        added += rejected(&mut space, "AngleJoint", j);
    }

    let distance = DistanceJoint::new(a, b, Vec2::ZERO, Vec2::ZERO, 0.5, 2.0);
    for j in [
        DistanceJoint {
            joint_min: 3.0,
            ..distance
        },
        DistanceJoint {
            joint_min: -0.1,
            ..distance
        },
        DistanceJoint {
            joint_min: f32::NEG_INFINITY,
            ..distance
        },
        DistanceJoint {
            joint_min: nan,
            ..distance
        },
        DistanceJoint {
            joint_max: nan,
            ..distance
        },
        DistanceJoint {
            anchor1: nan2,
            ..distance
        },
        DistanceJoint {
            anchor2: Vec2::new(0.0, nan),
            ..distance
        },
        DistanceJoint {
            anchor1: Vec2::new(inf, 0.0),
            ..distance
        },
        DistanceJoint {
            body2: a,
            ..distance
        },
    ] {
        added += rejected(&mut space, "DistanceJoint", j);
    }

    let line = LineJoint::new(s, a, Vec2::ZERO, Vec2::ZERO, Vec2::X, -1.0, 1.0);
    for j in [
        LineJoint {
            direction: Vec2::ZERO,
            ..line
        },
        LineJoint {
            direction: nan2,
            ..line
        },
        LineJoint {
            joint_min: 2.0,
            ..line
        },
        LineJoint {
            joint_min: nan,
            ..line
        },
        LineJoint {
            joint_max: nan,
            ..line
        },
        LineJoint {
            anchor1: nan2,
            ..line
        },
        LineJoint {
            anchor2: nan2,
            ..line
        },
        LineJoint { body1: a, ..line },
    ] {
        added += rejected(&mut space, "LineJoint", j);
    }

    let motor = MotorJoint::new(a, b, 1.0);
    for j in [
        MotorJoint { rate: nan, ..motor },
        MotorJoint { rate: inf, ..motor },
        MotorJoint {
            ratio: nan,
            ..motor
        },
        MotorJoint { body2: a, ..motor },
    ] {
        added += rejected(&mut space, "MotorJoint", j);
    }

    let pulley = PulleyJoint {
        body1: s,
        body2: a,
        body3: s,
        body4: b,
        anchor1: Vec2::ZERO,
        anchor2: Vec2::ZERO,
        anchor3: Vec2::X,
        anchor4: Vec2::ZERO,
        joint_min: 1.0,
        joint_max: 3.0,
        ratio: 1.0,
    };
    for j in [
        PulleyJoint {
            joint_min: 4.0,
            ..pulley
        },
        PulleyJoint {
            joint_min: -1.0,
            ..pulley
        },
        PulleyJoint {
            joint_min: nan,
            ..pulley
        },
        PulleyJoint {
            joint_max: nan,
            ..pulley
        },
        PulleyJoint {
            ratio: nan,
            ..pulley
        },
        PulleyJoint {
            anchor1: nan2,
            ..pulley
        },
        PulleyJoint {
            anchor2: nan2,
            ..pulley
        },
        PulleyJoint {
            anchor3: nan2,
            ..pulley
        },
        PulleyJoint {
            anchor4: nan2,
            ..pulley
        },
        PulleyJoint { body2: s, ..pulley },
        PulleyJoint { body3: b, ..pulley },
    ] {
        added += rejected(&mut space, "PulleyJoint", j);
    }
    assert_eq!(space.constraint_count(), 0);

    // Updates: each invalid change fails and keeps the old value (the space keeps
    // stepping with it); a valid change goes through.
    let mut updated = 0;
    updated += update_rejected(
        &mut space,
        angle,
        &[
            &|j: &mut AngleJoint| j.joint_min = 2.0,
            &|j: &mut AngleJoint| j.joint_max = nan,
            &|j: &mut AngleJoint| j.ratio = nan,
            &|j: &mut AngleJoint| j.body1 = j.body2,
        ],
        |j| j.joint_max = 2.0,
    );
    updated += update_rejected(
        &mut space,
        distance,
        &[
            &|j: &mut DistanceJoint| j.joint_min = -1.0,
            &|j: &mut DistanceJoint| j.joint_max = 0.1,
            &|j: &mut DistanceJoint| j.anchor2 = nan2,
            &|j: &mut DistanceJoint| j.body2 = j.body1,
        ],
        |j| j.joint_max = 3.0,
    );
    updated += update_rejected(
        &mut space,
        line,
        &[
            &|j: &mut LineJoint| j.direction = Vec2::ZERO,
            &|j: &mut LineJoint| j.joint_max = -2.0,
            &|j: &mut LineJoint| j.anchor1 = nan2,
        ],
        |j| j.direction = Vec2::Y,
    );
    updated += update_rejected(
        &mut space,
        motor,
        &[
            &|j: &mut MotorJoint| j.rate = nan,
            &|j: &mut MotorJoint| j.ratio = inf,
            &|j: &mut MotorJoint| j.body1 = j.body2,
        ],
        |j| j.rate = 2.0,
    );
    updated += update_rejected(
        &mut space,
        pulley,
        &[
            &|j: &mut PulleyJoint| j.joint_min = -0.5,
            &|j: &mut PulleyJoint| j.joint_min = 5.0,
            &|j: &mut PulleyJoint| j.ratio = nan,
            &|j: &mut PulleyJoint| j.body4 = j.body3,
        ],
        |j| j.ratio = 2.0,
    );
    println!(
        "validation: {added} invalid joints rejected on add, {updated} invalid updates rejected"
    );
    assert_eq!(space.constraint_count(), 5);
}
