//! The shared types every layer uses: handles, poses, velocities, inverse masses and the
//! events a step reports. Nothing here depends on the solver or the space, so both build
//! on it without importing each other.

use glam::Vec2;

/// Identifies a body inside one [`Space`](crate::Space). A handle of a removed body, or of
/// another space, is rejected with an error wherever it is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyHandle {
    pub(crate) space: u32,
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

impl BodyHandle {
    /// The slot index of the body in its space (also its index in the solver's compact
    /// arrays). Slots of removed bodies are reused, with a new generation.
    #[must_use]
    pub fn index(self) -> usize {
        self.index as usize
    }
}

/// A body's placement in the world during a step: position, angle and the angle's cached
/// cosine and sine (so constraint code never calls trigonometric functions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// World position of the body's origin (its centre of mass).
    pub position: Vec2,
    /// Rotation angle in radians, counter-clockwise.
    pub angle: f32,
    /// `cos(angle)`.
    pub cos: f32,
    /// `sin(angle)`.
    pub sin: f32,
}

impl Pose {
    /// The pose at `position` rotated by `angle` radians.
    #[must_use]
    pub fn new(position: Vec2, angle: f32) -> Self {
        let (sin, cos) = angle.sin_cos();
        Self {
            position,
            angle,
            cos,
            sin,
        }
    }

    /// `R(angle)·local`: a body-local vector expressed in world axes.
    #[must_use]
    pub fn rotate(&self, local: Vec2) -> Vec2 {
        Vec2::new(
            self.cos * local.x - self.sin * local.y,
            self.sin * local.x + self.cos * local.y,
        )
    }

    /// The pose after moving with velocity `v` for `h` seconds. The rotation by `ω·h`
    /// updates the cached cosine and sine with a short series where the angle is small
    /// (every substep of a normal simulation), which is exact to `f32` precision there and
    /// spares a `sin_cos` per body and substep.
    #[must_use]
    #[inline]
    pub fn integrate(&self, v: Velocity, h: f32) -> Self {
        let position = self.position + v.linear * h;
        let delta = v.angular * h;
        if delta == 0.0 {
            return Self { position, ..*self };
        }
        let angle = self.angle + delta;
        if delta.abs() > 0.05 {
            return Self::new(position, angle);
        }
        let d2 = delta * delta;
        let sin = delta * (1.0 - d2 / 6.0 * (1.0 - d2 / 20.0));
        let cos = 1.0 - d2 / 2.0 * (1.0 - d2 / 12.0);
        let (c, s) = (
            self.cos * cos - self.sin * sin,
            self.sin * cos + self.cos * sin,
        );
        // Renormalise so that rounding does not accumulate over substeps.
        let norm = (c * c + s * s).sqrt().recip();
        Self {
            position,
            angle,
            cos: c * norm,
            sin: s * norm,
        }
    }

    /// The pose moved by a position correction `d` (linear and angular displacement, not
    /// a velocity), at most `max_distance` and a quarter turn: a correction that a nearly
    /// singular constraint makes huge is cut down to what the body could move in a
    /// substep, and a non-finite one is ignored.
    #[must_use]
    pub fn displace(&self, d: Velocity, max_distance: f32) -> Self {
        if !(d.linear.is_finite() && d.angular.is_finite()) {
            return *self;
        }
        let length = d.linear.length();
        let linear = if length > max_distance {
            d.linear * (max_distance / length)
        } else {
            d.linear
        };
        let quarter = 0.25 * std::f32::consts::PI;
        let angular = d.angular.clamp(-quarter, quarter);
        self.integrate(Velocity { linear, angular }, 1.0)
    }

    /// The world position of a body-local point.
    #[must_use]
    pub fn world_point(&self, local: Vec2) -> Vec2 {
        self.position + self.rotate(local)
    }
}

impl Default for Pose {
    fn default() -> Self {
        Self::new(Vec2::ZERO, 0.0)
    }
}

/// A body's velocity: linear (world units per second) and angular (radians per second).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Velocity {
    /// Linear velocity of the centre of mass.
    pub linear: Vec2,
    /// Angular velocity, counter-clockwise positive.
    pub angular: f32,
}

/// A body's inverse mass and inverse moment of inertia as the solver sees them: zero for
/// static and kinematic bodies, which constraints cannot move.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InverseMass {
    /// `1 / mass`, or 0.
    pub mass: f32,
    /// `1 / inertia`, or 0.
    pub inertia: f32,
}

/// An untyped constraint id (space, type slot, index, generation), e.g. for events such
/// as [`Space::broken_constraints`](crate::Space::broken_constraints) and for [`Space::constraints_of`](crate::Space::constraints_of). Compare it with
/// [`ConstraintHandle::id`](crate::ConstraintHandle::id), or recover the typed handle with [`Space::typed_handle`](crate::Space::typed_handle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConstraintId {
    pub(crate) space: u32,
    pub(crate) store: u32,
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

/// Which limit a constraint exceeded when it broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BreakCause {
    /// `break_under_force`: the length of the accumulated impulse exceeded
    /// `max_force·dt` during a velocity iteration. The event's `value` is that impulse
    /// over `dt` (a force) and its `limit` is `max_force`.
    Force,
    /// `break_under_error`: the length of the positional error (of the rows that are
    /// violated) exceeded `max_error`, when a soft constraint was prepared or in a position
    /// iteration of a stiff one. The event's `value` is that error and its `limit` is
    /// `max_error`.
    Error,
}

/// A constraint broke during the last step: see [`Space::broken_constraints`](crate::Space::broken_constraints).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BreakEvent {
    /// The constraint. Its handle is stale if `remove_on_break` was set; otherwise the
    /// constraint is still in the space, with `active = false`.
    pub constraint: ConstraintId,
    /// Which limit was exceeded.
    pub cause: BreakCause,
    /// The force (`|λ|/dt`) or error (`|C|`) that exceeded the limit; `value > limit`.
    pub value: f32,
    /// `max_force` or `max_error` at the time.
    pub limit: f32,
}

/// The world impulse a constraint applied to one of its bodies during the last step:
/// `Jᵀλ` for the body's slots (summed when several slots hold the body). Over a step, the
/// body's momentum changed by exactly this much because of the constraint
/// (`m·Δv = linear`, `I·Δω = angular`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyImpulse {
    /// The body.
    pub body: BodyHandle,
    /// Linear impulse (through the body's centre of mass), world axes.
    pub linear: Vec2,
    /// Angular impulse about the body's centre of mass, counter-clockwise positive.
    pub angular: f32,
}
