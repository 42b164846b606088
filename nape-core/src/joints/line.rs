use glam::Vec2;

use crate::body::BodyHandle;
use crate::constraint;

/// A slider (Nape's LineJoint): `anchor2` of `body2` stays on the line through `anchor1`
/// of `body1` along `direction` (local to `body1`, of length 1e-6 to 1e9), at a signed
/// distance along it between `joint_min` and `joint_max`. Two rows: the perpendicular
/// offset (an equality) and the position along the line (a limit).
///
/// Body 1's lever arm is the world point on the line, `d + r₁` (the seed printed `d − r₁`);
/// the macro derives it from the expression. Unlike Nape, `joint_min == joint_max` holds
/// the position along the line in both directions.
#[constraint(
    position = {
        let d = body2.world_point(anchor2) - body1.world_point(anchor1);
        let n = body1.rotate(direction.normalize());
        (n.perp_dot(d), n.dot(d))
    },
    limits = [0.0, joint_min..=joint_max],
    validate = [direction.length() > 1e-6, direction.length() <= 1e9, body1 != body2],
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineJoint {
    /// The body that carries the line.
    pub body1: BodyHandle,
    /// The body that slides.
    pub body2: BodyHandle,
    /// A point of the line, in `body1`'s local coordinates, in m (finite).
    pub anchor1: Vec2,
    /// The sliding point, in `body2`'s local coordinates, in m (finite).
    pub anchor2: Vec2,
    /// The line's direction in `body1`'s local coordinates (normalised by the joint; length in
    /// `1e-6 ..= 1e9`).
    pub direction: Vec2,
    /// Lower bound of the position along the line, in m (may be −∞; ≤ `joint_max`).
    pub joint_min: f32,
    /// Upper bound of the position along the line, in m (may be +∞).
    pub joint_max: f32,
}

impl LineJoint {
    /// A slider along `direction` with the position along it in `[joint_min, joint_max]`.
    #[must_use]
    pub fn new(
        body1: BodyHandle,
        body2: BodyHandle,
        anchor1: Vec2,
        anchor2: Vec2,
        direction: Vec2,
        joint_min: f32,
        joint_max: f32,
    ) -> Self {
        Self {
            body1,
            body2,
            anchor1,
            anchor2,
            direction,
            joint_min,
            joint_max,
        }
    }
}
