//! Debug drawing: every constraint describes itself as a few primitives in world
//! coordinates, and a renderer (an SVG writer, a canvas, a game's debug overlay) draws them.
//!
//! [`Constraint::debug_draw`] provides the description. Its default draws the builtin
//! joints' own pictures (pivots and their lever arms, rope segments, a slider's axis with
//! its limits, an angle joint's allowed arc) and, for any other constraint, a generic
//! picture: a mark at each slot's body and a link from each slot to the next. So a joint
//! declared with `#[constraint]` draws without any extra code; a hand-written
//! implementation may override the method.
//!
//! [`Space::debug_draw`](crate::Space::debug_draw) reads the poses of a constraint's
//! bodies and calls `debug_draw`:
//!
//! ```
//! use nape_core::{draw, Body, DistanceJoint, Space, Vec2};
//!
//! let mut space = Space::new();
//! let hook = space.add_body(Body::static_body())?;
//! let weight = space.add_body(Body::circle(0.2, 1.0).at(Vec2::new(0.0, -1.0)))?;
//! let rope = space.add_constraint(DistanceJoint::new(hook, weight, Vec2::ZERO, Vec2::ZERO, 0.0, 1.0))?;
//! let mut picture = Vec::new();
//! space.debug_draw(rope, &mut |p| picture.push(p))?;
//! assert!(picture.contains(&draw::DrawPrimitive::Segment {
//!     from: Vec2::ZERO,
//!     to: Vec2::new(0.0, -1.0),
//!     style: draw::SegmentStyle::Rope,
//! }));
//! # Ok::<(), nape_core::Error>(())
//! ```

use std::any::Any;
use std::f32::consts::PI;

use glam::Vec2;

use crate::constraint::{Constraint, Pose};
use crate::joints::{
    AngleJoint, DistanceJoint, LineJoint, MotorJoint, PivotJoint, PulleyJoint, WeldJoint,
};
pub use crate::types::{DrawPrimitive, SegmentStyle, generic_picture};

/// A constraint's picture: a builtin joint's own, or else the constraint's
/// [`Constraint::debug_draw`] (by default [`generic_picture`]).
pub fn picture<T, const D: usize, const B: usize>(
    joint: &T,
    poses: &[Pose; B],
    out: &mut dyn FnMut(DrawPrimitive),
) where
    T: Constraint<D, B>,
{
    // The builtins are declared with `#[constraint]`, which writes their whole trait
    // implementation, so their pictures are chosen here by type.
    let any: &dyn Any = joint;
    if let Some(j) = any.downcast_ref::<PivotJoint>() {
        pivot(poses[0], j.anchor1, poses[1], j.anchor2, out);
    } else if let Some(j) = any.downcast_ref::<WeldJoint>() {
        pivot(poses[0], j.anchor1, poses[1], j.anchor2, out);
        // Body 1's rotation turned by the phase: the direction body 2 is welded at.
        let welded = poses[0].rotate(Vec2::from_angle(j.phase));
        let tip = poses[1].position + 0.3 * welded;
        out(rigid(poses[1].position, tip));
    } else if let Some(j) = any.downcast_ref::<DistanceJoint>() {
        let style = if j.joint_min == j.joint_max {
            SegmentStyle::Rigid
        } else {
            SegmentStyle::Rope
        };
        rope(poses[0], j.anchor1, poses[1], j.anchor2, style, out);
    } else if let Some(j) = any.downcast_ref::<PulleyJoint>() {
        let style = SegmentStyle::Rope;
        rope(poses[0], j.anchor1, poses[1], j.anchor2, style, out);
        rope(poses[2], j.anchor3, poses[3], j.anchor4, style, out);
    } else if let Some(j) = any.downcast_ref::<LineJoint>() {
        let origin = poses[0].world_point(j.anchor1);
        out(rigid(poses[0].position, origin));
        out(DrawPrimitive::Axis {
            origin,
            direction: poses[0].rotate(j.direction.normalize_or_zero()),
            min: j.joint_min,
            max: j.joint_max,
        });
        let slider = poses[1].world_point(j.anchor2);
        out(rigid(poses[1].position, slider));
        out(DrawPrimitive::Anchor { at: slider });
    } else if let Some(j) = any.downcast_ref::<AngleJoint>() {
        // The allowed range of body 2's angle, θ₂ ∈ [(θ₁ + min) / ratio, (θ₁ + max) / ratio],
        // drawn around body 2 with a needle at its current angle.
        let (low, high) = (j.joint_min.max(-PI), j.joint_max.min(PI));
        let ratio = if j.ratio.abs() > 1e-6 { j.ratio } else { 1.0 };
        // In `f64` from body 1's whole angle, then brought within a turn: the arc is
        // drawn where it is however many turns the bodies have wound.
        let first = poses[0].total_angle();
        let ratio = f64::from(ratio);
        let (a, b) = (
            (first + f64::from(low)) / ratio,
            (first + f64::from(high)) / ratio,
        );
        #[allow(clippy::cast_possible_truncation)]
        let (start, width) = (
            a.min(b).rem_euclid(std::f64::consts::TAU) as f32,
            (a - b).abs() as f32,
        );
        let centre = poses[1].position;
        let radius = 0.35;
        out(DrawPrimitive::Arc {
            centre,
            radius,
            start,
            end: start + width,
        });
        out(rigid(centre, centre + radius * poses[1].rotate(Vec2::X)));
    } else if let Some(j) = any.downcast_ref::<MotorJoint>() {
        // Three quarters of a turn in the direction of the drive, starting at body 2's angle.
        let sweep = if j.rate * j.ratio >= 0.0 { 1.5 } else { -1.5 } * PI;
        let start = poses[1].principal_angle();
        out(DrawPrimitive::Arc {
            centre: poses[1].position,
            radius: 0.25,
            start,
            end: start + sweep,
        });
    } else {
        joint.debug_draw(poses, out);
    }
}

fn rigid(from: Vec2, to: Vec2) -> DrawPrimitive {
    DrawPrimitive::Segment {
        from,
        to,
        style: SegmentStyle::Rigid,
    }
}

/// Two lever arms meeting at the pivot (or not quite, by the joint's error).
fn pivot(
    pose1: Pose,
    anchor1: Vec2,
    pose2: Pose,
    anchor2: Vec2,
    out: &mut dyn FnMut(DrawPrimitive),
) {
    let (p1, p2) = (pose1.world_point(anchor1), pose2.world_point(anchor2));
    out(rigid(pose1.position, p1));
    out(rigid(pose2.position, p2));
    out(DrawPrimitive::Anchor { at: p1 });
    out(DrawPrimitive::Anchor { at: p2 });
}

fn rope(
    pose1: Pose,
    anchor1: Vec2,
    pose2: Pose,
    anchor2: Vec2,
    style: SegmentStyle,
    out: &mut dyn FnMut(DrawPrimitive),
) {
    let (p1, p2) = (pose1.world_point(anchor1), pose2.world_point(anchor2));
    out(DrawPrimitive::Anchor { at: p1 });
    out(DrawPrimitive::Anchor { at: p2 });
    out(DrawPrimitive::Segment {
        from: p1,
        to: p2,
        style,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::BodyHandle;
    use crate::constraint;

    /// A joint with no picture of its own.
    #[constraint(position = body3.position - 0.5 * (body1.position + body2.position))]
    #[derive(Clone, Copy, Debug)]
    struct Midpoint {
        body1: BodyHandle,
        body2: BodyHandle,
        body3: BodyHandle,
    }

    fn handle() -> BodyHandle {
        let mut space = crate::Space::new();
        space.add_body(crate::Body::static_body()).unwrap()
    }

    fn collect<T: Constraint<D, B>, const D: usize, const B: usize>(
        joint: &T,
        poses: &[Pose; B],
    ) -> Vec<DrawPrimitive> {
        let mut picture = Vec::new();
        self::picture(joint, poses, &mut |p| picture.push(p));
        picture
    }

    #[test]
    fn a_user_joint_draws_its_bodies_and_links() {
        let h = handle();
        let joint = Midpoint {
            body1: h,
            body2: h,
            body3: h,
        };
        let (a, b, c) = (
            Vec2::new(-1.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 2.0),
        );
        let poses = [Pose::new(a, 0.0), Pose::new(b, 0.0), Pose::new(c, 0.0)];
        let picture = collect(&joint, &poses);
        let link = |from, to| DrawPrimitive::Segment {
            from,
            to,
            style: SegmentStyle::Link,
        };
        assert_eq!(
            picture,
            vec![
                DrawPrimitive::Anchor { at: a },
                DrawPrimitive::Anchor { at: b },
                DrawPrimitive::Anchor { at: c },
                link(a, b),
                link(b, c),
            ]
        );
    }

    #[test]
    fn a_pivot_draws_its_levers_to_the_world_anchors() {
        let h = handle();
        let joint = PivotJoint::new(h, h, Vec2::X, Vec2::NEG_X);
        let poses = [
            Pose::new(Vec2::ZERO, std::f64::consts::FRAC_PI_2),
            Pose::new(Vec2::new(1.0, 1.0), 0.0),
        ];
        let picture = collect(&joint, &poses);
        let anchors: Vec<Vec2> = picture
            .iter()
            .filter_map(|p| match p {
                DrawPrimitive::Anchor { at } => Some(*at),
                _ => None,
            })
            .collect();
        assert_eq!(anchors.len(), 2);
        for at in anchors {
            assert!(at.distance(Vec2::new(0.0, 1.0)) < 1e-6, "{at}");
        }
    }

    #[test]
    fn a_slider_draws_its_axis_with_its_limits() {
        let h = handle();
        let joint = LineJoint::new(h, h, Vec2::ZERO, Vec2::ZERO, Vec2::new(0.0, 2.0), -1.0, 3.0);
        let poses = [Pose::new(Vec2::ZERO, 0.0), Pose::new(Vec2::Y, 0.0)];
        let picture = collect(&joint, &poses);
        assert!(picture.contains(&DrawPrimitive::Axis {
            origin: Vec2::ZERO,
            direction: Vec2::Y,
            min: -1.0,
            max: 3.0,
        }));
    }
}
