use crate::body::BodyHandle;
use crate::constraint;

/// Drives `ratio·ω₂ − ω₁` to `rate` (Nape's MotorJoint). Velocity-only: it has no position
/// error, takes no part in the position iterations, and softness does not apply; bound its
/// torque with the settings' `max_force`, which (as in Nape) applies even when stiff.
#[constraint(
    velocity = ratio * body2.angular_velocity - body1.angular_velocity - rate,
    validate = [body1 != body2],
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotorJoint {
    /// The first body.
    pub body1: BodyHandle,
    /// The second body.
    pub body2: BodyHandle,
    /// Target of `ratio·ω₂ − ω₁`, in radians per second. Nape's default is 0.
    pub rate: f32,
    /// Gear ratio applied to `body2`'s angular velocity (finite; 0 with a static `body1` is refused
    /// as degenerate). Nape's default is 1.
    pub ratio: f32,
}

impl MotorJoint {
    /// A motor driving `ω₂ − ω₁` to `rate` (ratio 1).
    #[must_use]
    pub fn new(body1: BodyHandle, body2: BodyHandle, rate: f32) -> Self {
        Self {
            body1,
            body2,
            rate,
            ratio: 1.0,
        }
    }
}
