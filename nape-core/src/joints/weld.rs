use glam::Vec2;

use crate::body::BodyHandle;
use crate::constraint;

/// Welds two bodies: the anchors share one world position and the relative angle
/// `θ₂ − θ₁` stays at `phase`. Three rows, solved as one block (stiffer than a pivot plus an
/// angle joint).
#[constraint(
    position = (
        body2.world_point(anchor2) - body1.world_point(anchor1),
        body2.angle - body1.angle - phase,
    ),
    validate = [body1 != body2],
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeldJoint {
    /// The first body.
    pub body1: BodyHandle,
    /// The second body.
    pub body2: BodyHandle,
    /// The weld point in `body1`'s local coordinates, in m (finite).
    pub anchor1: Vec2,
    /// The weld point in `body2`'s local coordinates, in m (finite).
    pub anchor2: Vec2,
    /// The relative angle `θ₂ − θ₁` the weld holds, in radians.
    pub phase: f32,
}

impl WeldJoint {
    /// A weld joining `anchor1` of `body1` to `anchor2` of `body2` at relative angle `phase`.
    #[must_use]
    pub fn new(
        body1: BodyHandle,
        body2: BodyHandle,
        anchor1: Vec2,
        anchor2: Vec2,
        phase: f32,
    ) -> Self {
        Self {
            body1,
            body2,
            anchor1,
            anchor2,
            phase,
        }
    }
}
