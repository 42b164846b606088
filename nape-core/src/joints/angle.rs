use crate::body::BodyHandle;
use crate::constraint;

/// Keeps `ratio·θ₂ − θ₁` between `joint_min` and `joint_max` (Nape's AngleJoint). One row;
/// with `joint_min == joint_max` an equality, otherwise a limit that acts only at its ends.
/// The bounds may be infinite (an open end), never NaN.
#[constraint(
    position = ratio * body2.angle - body1.angle,
    limits = [joint_min..=joint_max],
    validate = [body1 != body2],
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AngleJoint {
    /// The first body.
    pub body1: BodyHandle,
    /// The second body.
    pub body2: BodyHandle,
    /// Lower bound of `ratio·θ₂ − θ₁`, in radians.
    pub joint_min: f32,
    /// Upper bound of `ratio·θ₂ − θ₁`, in radians.
    pub joint_max: f32,
    /// Gear ratio applied to `body2`'s angle (finite; 0 with a static `body1` is refused
    /// as degenerate). Nape's default is 1.
    pub ratio: f32,
}

impl AngleJoint {
    /// `joint_min ≤ θ₂ − θ₁ ≤ joint_max` (ratio 1).
    #[must_use]
    pub fn new(body1: BodyHandle, body2: BodyHandle, joint_min: f32, joint_max: f32) -> Self {
        Self {
            body1,
            body2,
            joint_min,
            joint_max,
            ratio: 1.0,
        }
    }
}
