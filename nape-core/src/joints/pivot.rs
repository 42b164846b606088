use glam::Vec2;

use crate::body::BodyHandle;
use crate::constraint;

/// Locks a point of one body to a point of another: `anchor1` (local to `body1`) and
/// `anchor2` (local to `body2`) share one world position. Two rows.
#[constraint(
    position = body2.world_point(anchor2) - body1.world_point(anchor1),
    validate = [body1 != body2],
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PivotJoint {
    /// The first body.
    pub body1: BodyHandle,
    /// The second body.
    pub body2: BodyHandle,
    /// The pivot in `body1`'s local coordinates, in m (finite).
    pub anchor1: Vec2,
    /// The pivot in `body2`'s local coordinates, in m (finite).
    pub anchor2: Vec2,
}

impl PivotJoint {
    /// A pivot joining `anchor1` of `body1` to `anchor2` of `body2`.
    #[must_use]
    pub fn new(body1: BodyHandle, body2: BodyHandle, anchor1: Vec2, anchor2: Vec2) -> Self {
        Self {
            body1,
            body2,
            anchor1,
            anchor2,
        }
    }
}
