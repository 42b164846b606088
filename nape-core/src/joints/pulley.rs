use glam::Vec2;

use crate::body::BodyHandle;
use crate::constraint;

/// A pulley (Nape's PulleyJoint): `|p₂ − p₁| + ratio·|p₄ − p₃|` stays between `joint_min`
/// and `joint_max`, where `pᵢ` is `anchorᵢ` of `bodyᵢ`. One row over four body slots,
/// which may hold the same body (a 3- or 2-body pulley; `body1 ≠ body2` and
/// `body3 ≠ body4`): the effective mass then gains the cross terms of the shared slots,
/// decided when the joint is prepared.
///
/// When one pair's anchors coincide, that pair's direction is undefined and it contributes
/// nothing for the step (Nape reused the previous direction).
#[constraint(
    position = (body2.world_point(anchor2) - body1.world_point(anchor1)).length()
        + ratio * (body4.world_point(anchor4) - body3.world_point(anchor3)).length(),
    limits = [joint_min..=joint_max],
    validate = [joint_min >= 0.0, body1 != body2, body3 != body4],
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PulleyJoint {
    /// First body of the first rope segment.
    pub body1: BodyHandle,
    /// Second body of the first rope segment.
    pub body2: BodyHandle,
    /// First body of the second rope segment.
    pub body3: BodyHandle,
    /// Second body of the second rope segment.
    pub body4: BodyHandle,
    /// Anchor on `body1`, in its local coordinates, in m (finite).
    pub anchor1: Vec2,
    /// Anchor on `body2`, in its local coordinates, in m (finite).
    pub anchor2: Vec2,
    /// Anchor on `body3`, in its local coordinates, in m (finite).
    pub anchor3: Vec2,
    /// Anchor on `body4`, in its local coordinates, in m (finite).
    pub anchor4: Vec2,
    /// Shortest total length `|p₂ − p₁| + ratio·|p₄ − p₃|`, in m (≥ 0, ≤ `joint_max`).
    pub joint_min: f32,
    /// Longest total length, in m (may be infinite).
    pub joint_max: f32,
    /// Weight of the second segment (finite). Nape's default is 1.
    pub ratio: f32,
}
