//! Behaviour of pivot and weld joints in whole simulations, written once over the joint
//! type: [`behaviour_suite!`] instantiates every scenario for a pair of pivot and weld
//! types (the hand-written baselines here; the generated builtins can be added with one
//! more line).
//!
//! All scenes run at 60 Hz with the space's default iterations.

#[path = "support/hand_joints.rs"]
mod hand_joints;

use hand_joints::{HandPivot, HandWeld};
use nape::{Body, BodyHandle, Constraint, ConstraintSettings, Space, Vec2};

const DT: f32 = 1.0 / 60.0;

/// A two-row pivot pinning `anchor1` of body 1 to `anchor2` of body 2.
pub trait PivotLike: Constraint<2, 2> {
    /// The joint.
    fn pivot(b1: BodyHandle, b2: BodyHandle, a1: Vec2, a2: Vec2) -> Self;
}

/// A three-row weld: pivot rows plus `θ2 − θ1 = phase`.
pub trait WeldLike: Constraint<3, 2> {
    /// The joint.
    fn weld(b1: BodyHandle, b2: BodyHandle, a1: Vec2, a2: Vec2, phase: f32) -> Self;
}

impl PivotLike for HandPivot {
    fn pivot(b1: BodyHandle, b2: BodyHandle, a1: Vec2, a2: Vec2) -> Self {
        HandPivot::new(b1, b2, a1, a2)
    }
}

impl PivotLike for nape::PivotJoint {
    fn pivot(b1: BodyHandle, b2: BodyHandle, a1: Vec2, a2: Vec2) -> Self {
        nape::PivotJoint::new(b1, b2, a1, a2)
    }
}

impl WeldLike for nape::WeldJoint {
    fn weld(b1: BodyHandle, b2: BodyHandle, a1: Vec2, a2: Vec2, phase: f32) -> Self {
        nape::WeldJoint::new(b1, b2, a1, a2, phase)
    }
}

impl WeldLike for HandWeld {
    fn weld(b1: BodyHandle, b2: BodyHandle, a1: Vec2, a2: Vec2, phase: f32) -> Self {
        HandWeld::new(b1, b2, a1, a2, phase)
    }
}

fn separation(space: &Space, b1: BodyHandle, b2: BodyHandle, a1: Vec2, a2: Vec2) -> f32 {
    let p1 = space.body(b1).unwrap().world_point(a1).as_vec2();
    let p2 = space.body(b2).unwrap().world_point(a2).as_vec2();
    (p2 - p1).length()
}

/// 20 links of length 1 (mass 1, rod inertia 1/12) hung from a static body by their ends,
/// started horizontal, under gravity (0, −10) for 10 s: the largest anchor separation.
pub fn pendulum_chain<P: PivotLike>() -> f32 {
    let mut space = Space::new();
    space.gravity = Vec2::new(0.0, -10.0);
    let ground = space.add_body(Body::static_body()).unwrap();
    let (left, right) = (Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0));
    let mut joints = Vec::new();
    let mut previous = (ground, Vec2::ZERO);
    for i in 0..20 {
        let link = Body::dynamic(1.0, 1.0 / 12.0).at(Vec2::new(i as f32 + 0.5, 0.0));
        let link = space.add_body(link).unwrap();
        space
            .add_constraint(P::pivot(previous.0, link, previous.1, left))
            .unwrap();
        joints.push((previous.0, link, previous.1, left));
        previous = (link, right);
    }
    let mut worst = 0.0f32;
    let mut lowest = 0.0f32;
    for _ in 0..600 {
        space.step(DT);
        for &(b1, b2, a1, a2) in &joints {
            worst = worst.max(separation(&space, b1, b2, a1, a2));
        }
        lowest = lowest.min(space.body(previous.0).unwrap().position().as_vec2().y);
    }
    assert!(
        lowest < -10.0,
        "the chain never fell (lowest end at {lowest})"
    );
    worst
}

/// Two 1×1 boxes welded side by side, falling under gravity, the first spinning at
/// 3 rad/s: the largest `(anchor separation, relative angle error)` over 5 s.
pub fn welded_pair<W: WeldLike>() -> (f32, f32) {
    let mut space = Space::new();
    space.gravity = Vec2::new(0.0, -10.0);
    let a = space
        .add_body(Body::rectangle(1.0, 1.0, 1.0).with_angular_velocity(3.0))
        .unwrap();
    let b = space
        .add_body(Body::rectangle(1.0, 1.0, 1.0).at(Vec2::new(1.0, 0.0)))
        .unwrap();
    let (a1, a2) = (Vec2::new(0.5, 0.0), Vec2::new(-0.5, 0.0));
    space.add_constraint(W::weld(a, b, a1, a2, 0.0)).unwrap();
    let (mut sep, mut angle) = (0.0f32, 0.0f64);
    let mut turned = 0.0f64;
    for _ in 0..300 {
        space.step(DT);
        sep = sep.max(separation(&space, a, b, a1, a2));
        let (ta, tb) = (
            space.body(a).unwrap().angle(),
            space.body(b).unwrap().angle(),
        );
        angle = angle.max((tb - ta).abs());
        turned = ta;
    }
    // The pair keeps spinning (angular momentum is shared with the second box): it must
    // have turned a lot.
    assert!(
        turned.abs() > 1.0,
        "the welded pair did not rotate ({turned} rad)"
    );
    (sep, angle as f32)
}

/// A soft pivot (2 Hz, no damping) between a static body and a dynamic body displaced by
/// 0.1 with no gravity: the oscillation period measured from zero crossings.
pub fn soft_pivot_period<P: PivotLike>() -> f32 {
    let mut space = Space::new();
    let ground = space.add_body(Body::static_body()).unwrap();
    let bob = space
        .add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(0.1, 0.0)))
        .unwrap();
    let joint = P::pivot(ground, bob, Vec2::ZERO, Vec2::ZERO);
    space
        .add_constraint_with(joint, ConstraintSettings::soft(2.0, 0.0))
        .unwrap();
    let mut crossings = Vec::new();
    let mut last = 0.1f32;
    for step in 1..=240 {
        space.step(DT);
        let x = space.body(bob).unwrap().position().as_vec2().x;
        if x.signum() != last.signum() {
            // Linear interpolation of the crossing time within the step.
            let t = (step as f32 - 1.0 + last / (last - x)) * DT;
            crossings.push(t);
        }
        last = x;
    }
    assert!(
        crossings.len() >= 10,
        "too few zero crossings: {crossings:?}"
    );
    let span = crossings.last().unwrap() - crossings.first().unwrap();
    2.0 * span / (crossings.len() - 1) as f32
}

macro_rules! behaviour_suite {
    ($name:ident, $pivot:ty, $weld:ty) => {
        mod $name {
            use super::*;

            #[test]
            fn pendulum_chain_stays_connected() {
                let worst = pendulum_chain::<$pivot>();
                println!(
                    "{}: chain, largest anchor separation {worst:.2e}",
                    stringify!($name)
                );
                assert!(worst < 1e-3, "largest anchor separation {worst}");
            }

            #[test]
            fn welded_pair_stays_welded() {
                let (sep, angle) = welded_pair::<$weld>();
                println!(
                    "{}: weld, separation {sep:.2e}, angle drift {angle:.2e}",
                    stringify!($name)
                );
                assert!(sep < 1e-3, "largest anchor separation {sep}");
                assert!(angle < 1e-3, "largest relative angle drift {angle}");
            }

            #[test]
            fn soft_pivot_oscillates_at_its_frequency() {
                let period = soft_pivot_period::<$pivot>();
                println!("{}: soft pivot period {period:.4} s", stringify!($name));
                assert!(
                    (period - 0.5).abs() < 0.025,
                    "period {period} s, expected 0.5 s ± 5%"
                );
            }
        }
    };
}

behaviour_suite!(hand, HandPivot, HandWeld);
behaviour_suite!(generated, nape::PivotJoint, nape::WeldJoint);
