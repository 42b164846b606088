use glam::Vec2;

use crate::body::BodyHandle;
use crate::constraint;

/// Keeps the distance between two anchors between `joint_min` and `joint_max` (Nape's
/// DistanceJoint): a rope when `joint_min` is 0, a rod when they are equal (then both
/// directions are held; Nape clamped one of them). One row.
///
/// When the anchors coincide the direction is undefined: the row's Jacobian is zero for
/// that step and the joint does nothing (Nape makes it slack too). Prefer a `PivotJoint`
/// for a zero-length joint.
#[constraint(
    position = (body2.world_point(anchor2) - body1.world_point(anchor1)).length(),
    limits = [joint_min..=joint_max],
    validate = [joint_min >= 0.0, body1 != body2],
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceJoint {
    /// The first body.
    pub body1: BodyHandle,
    /// The second body.
    pub body2: BodyHandle,
    /// The anchor in `body1`'s local coordinates, in m (finite).
    pub anchor1: Vec2,
    /// The anchor in `body2`'s local coordinates, in m (finite).
    pub anchor2: Vec2,
    /// Shortest allowed distance, in m (≥ 0, ≤ `joint_max`).
    pub joint_min: f32,
    /// Longest allowed distance, in m (may be infinite).
    pub joint_max: f32,
}

impl DistanceJoint {
    /// `joint_min ≤ |p₂ − p₁| ≤ joint_max` between `anchor1` of `body1` and `anchor2` of `body2`.
    #[must_use]
    pub fn new(
        body1: BodyHandle,
        body2: BodyHandle,
        anchor1: Vec2,
        anchor2: Vec2,
        joint_min: f32,
        joint_max: f32,
    ) -> Self {
        Self {
            body1,
            body2,
            anchor1,
            anchor2,
            joint_min,
            joint_max,
        }
    }
}
