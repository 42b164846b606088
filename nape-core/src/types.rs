//! The shared types every layer uses: handles, poses, velocities, inverse masses and the
//! events a step reports. Nothing here depends on the solver or the space, so both build
//! on it without importing each other.

use glam::{DVec2, Vec2};

const TAU64: f64 = std::f64::consts::TAU;

/// The most body slots one constraint may have ([`SharedSlots::MAX_SLOTS`](crate::SharedSlots::MAX_SLOTS)):
/// here, below the error that names it and the constraint layer that checks it.
pub(crate) const MAX_SLOTS: usize = 8;

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

    /// A handle of no space for slot `slot`: what a constraint holds when its bodies are
    /// named elsewhere (e.g. by the entities of a host engine such as Bevy's), so that its
    /// `body1 != body2` rules and shared slots still compare. Every [`Space`](crate::Space)
    /// rejects it.
    #[must_use]
    pub const fn detached(slot: u32) -> Self {
        Self {
            space: u32::MAX,
            index: slot,
            generation: 0,
        }
    }
}

/// A body's placement in the world during a step: its position, its rotation as a unit
/// vector `(cos, sin)`, and the number of whole turns it has wound (so constraint code
/// never calls trigonometric functions to rotate, and the angle never drifts from the
/// rotation).
///
/// The rotation is the state: the angle is derived from it, `atan2(sin, cos)` in
/// `(−π, π]` plus `2π·turns`, so a body's angle and the rotation its points are drawn
/// with agree however far it has turned. A body that has wound many turns still has its
/// rotation to `f32` precision; [`angle_from`](Self::angle_from) reads an angle relative
/// to another winding, exact to that precision whatever the two bodies' turns.
///
/// The position is `P`: a [`WorldPose`] (`Pose<DVec2>`) holds a body's absolute position
/// in `f64`, as bodies, the solver and snapshots keep it, exact to 1e-9 m a thousand km
/// out; a `Pose` (`Pose<Vec2>`) is what constraints read, in `f32`, in the frame the
/// solver gives them: relative to their first body where
/// [`Constraint::translation_invariant`](crate::Constraint::translation_invariant) says
/// they may be read so, so that joints stay exact to `f32` precision of their own size
/// however far from the origin they are, else in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose<P: Position = Vec2> {
    /// Position of the body's origin (its centre of mass), in m: absolute in a
    /// [`WorldPose`], each coordinate within
    /// [`MAX_COORDINATE`](crate::limits::MAX_COORDINATE) for a body in a space; in a
    /// constraint's frame in a `Pose`.
    pub position: P,
    /// `cos θ`: with [`sin`](Self::sin) a unit vector, to a few ulps.
    pub cos: f32,
    /// `sin θ`.
    pub sin: f32,
    /// How many times the rotation has crossed the branch cut at ±π, counter-clockwise
    /// positive: the angle is `atan2(sin, cos) + 2π·turns`. Within
    /// [`MAX_TURNS`](crate::limits::MAX_TURNS) in magnitude for a body in a space.
    pub turns: i32,
}

/// A body's pose in the world: its position in `f64`.
pub type WorldPose = Pose<DVec2>;

/// A coordinate pair a [`Pose`] holds: `Vec2` in a constraint's frame, `DVec2` in the
/// world.
pub trait Position: Copy + PartialEq + Default + std::fmt::Debug {
    /// The position moved by `d` (m).
    #[must_use]
    fn offset(self, d: Vec2) -> Self;
}

impl Position for Vec2 {
    #[inline(always)]
    fn offset(self, d: Vec2) -> Self {
        self + d
    }
}

impl Position for DVec2 {
    #[inline(always)]
    fn offset(self, d: Vec2) -> Self {
        self + d.as_dvec2()
    }
}

impl<P: Position> Pose<P> {
    /// The pose at `position` (m) rotated by `angle` radians (CCW): `angle` split into
    /// whole turns and a rotation in `(−π, π]`, computed in `f64`. An angle that is not
    /// finite, or whose turns do not fit an `i32`, gives a NaN rotation, which no space
    /// accepts.
    #[must_use]
    #[allow(clippy::cast_possible_truncation)]
    pub fn new(position: P, angle: f64) -> Self {
        let turns = (angle / TAU64).round();
        if turns.is_nan() || turns.abs() > f64::from(i32::MAX) {
            return Self {
                position,
                cos: f32::NAN,
                sin: f32::NAN,
                turns: 0,
            };
        }
        // The product's rounding is within an ulp of the angle, all an `f64` angle holds.
        let (sin, cos) = (angle - turns * TAU64).sin_cos();
        Self {
            position,
            cos: cos as f32,
            sin: sin as f32,
            turns: turns as i32,
        }
    }

    /// The principal angle of the rotation, `atan2(sin, cos)`, in `[−π, π]` (`−π` for a
    /// sine of `−0`, as `atan2` has it).
    #[must_use]
    #[inline]
    pub fn principal_angle(&self) -> f32 {
        self.sin.atan2(self.cos)
    }

    /// The angle counted from the winding `reference`: `2π·(turns − reference) +
    /// atan2(sin, cos)`, in `f32`. Two bodies' angles read from the same reference
    /// differ by their relative turn to `f32` precision however many turns both have
    /// wound, where their [`angle`](Self::angle)s lose a bit of it with every doubling
    /// of the turns.
    #[must_use]
    #[inline]
    pub fn angle_from(&self, reference: i32) -> f32 {
        #[allow(clippy::cast_precision_loss)]
        let turns = self.turns.wrapping_sub(reference) as f32;
        std::f32::consts::TAU * turns + self.principal_angle()
    }

    /// The angle in radians (CCW), `2π·turns + atan2(sin, cos)`, in `f32`: what
    /// constraint code that reads a body's whole angle computes.
    #[must_use]
    #[inline]
    pub fn angle(&self) -> f32 {
        self.angle_from(0)
    }

    /// The angle in radians (CCW) in `f64`: `2π·turns + atan2(sin, cos)`, exact to the
    /// rotation's `f32` precision for every winding.
    #[must_use]
    pub fn total_angle(&self) -> f64 {
        let principal = f64::from(self.sin).atan2(f64::from(self.cos));
        f64::from(self.turns) * TAU64 + principal
    }

    /// `R(θ)·local`: a body-local vector expressed in world axes.
    #[must_use]
    pub fn rotate(&self, local: Vec2) -> Vec2 {
        Vec2::new(
            self.cos * local.x - self.sin * local.y,
            self.sin * local.x + self.cos * local.y,
        )
    }

    /// The pose turned by the rotation `(cos, sin)` of at most a quarter turn, its
    /// winding counted: a turn that small changes the sine's sign while the cosine is
    /// negative only across the cut at ±π (across 0 the cosine is positive). The sign
    /// bits are compared, as `atan2` reads `(−1, +0)` as π and `(−1, −0)` as −π.
    #[must_use]
    #[inline(always)]
    fn turned(self, cos: f32, sin: f32) -> Self {
        let (c, s) = (
            self.cos * cos - self.sin * sin,
            self.sin * cos + self.cos * sin,
        );
        Self {
            position: self.position,
            cos: c,
            sin: s,
            turns: self.turns.wrapping_add(crossing(self.sin, s, c)),
        }
    }

    /// The pose turned by `(cos, sin)`, a rotation by at most a quarter turn (as
    /// [`turned`](Self::turned)), e.g. a probe of a small turn.
    #[must_use]
    pub(crate) fn turned_by(&self, cos: f32, sin: f32) -> Self {
        self.turned(cos, sin)
    }

    /// The pose turned by the rotation `(cos, sin)` (a unit vector), that is by its
    /// principal angle in `[−π, π]`, the winding counted: for a host engine that keeps a
    /// body's rotation and its change over a step as rotations.
    #[must_use]
    pub fn rotated(&self, cos: f32, sin: f32) -> Self {
        if cos >= 0.0 {
            return self.turned(cos, sin);
        }
        // Beyond a quarter turn: a quarter turn towards it, exact (it swaps and negates),
        // then what is left, each counting its own crossing of ±π by sign bits rather than
        // by three arctangents (a host turns every body of every joint each substep).
        let quarter = if sin.is_sign_negative() { -1.0 } else { 1.0 };
        self.turned(0.0, quarter)
            .turned(sin * quarter, -cos * quarter)
    }

    /// The pose at `position` with the rotation `(cos, sin)` (a unit vector), wound as the
    /// nearest angle to this pose's: the pose of a body that has turned by less than half
    /// a turn since it was at this one, read from a host engine that keeps rotations only.
    #[must_use]
    pub fn with_rotation(&self, position: P, cos: f32, sin: f32) -> Self {
        let whole = (self.principal_angle() - sin.atan2(cos)) / std::f32::consts::TAU;
        #[allow(clippy::cast_possible_truncation)]
        let crossed = whole.round() as i32;
        Self {
            position,
            cos,
            sin,
            turns: self.turns.wrapping_add(crossed),
        }
    }

    /// The pose after moving with velocity `v` for `h` seconds. The rotation by `ω·h`
    /// is composed with a series exact to `f32` precision up to [`Pose::SERIES_TURN`]
    /// (the most a body turns in one substep once the solver has limited its spin), which
    /// spares a `sin_cos` per body and substep; a larger turn starts again from the
    /// angle, in `f64`, its whole turns counted from it.
    #[must_use]
    #[inline]
    pub fn integrate(&self, v: Velocity, h: f32) -> Self {
        let position = self.position.offset(v.linear * h);
        let delta = v.angular * h;
        if delta == 0.0 {
            return Self { position, ..*self };
        }
        if delta.abs() > Self::SERIES_TURN {
            return Self::new(position, self.total_angle() + f64::from(delta));
        }
        // The rotation it starts from is renormalised, so that rounding does not
        // accumulate over substeps: `c² + s²` is 1 to within a few ulps, where one Newton
        // step for `1/√x` from 1, `(3 − x)/2`, is exact to an ulp, without the square root
        // and division that were a third of the drift's time. Renormalising the start
        // rather than the result leaves the same few ulps, and the two chains of dependent
        // operations (the norm, the series) run side by side instead of one after the
        // other: the drift and the projection are bound by that chain's latency.
        let norm = 1.5 - 0.5 * (self.cos * self.cos + self.sin * self.sin);
        let start = Self {
            position,
            cos: self.cos * norm,
            sin: self.sin * norm,
            turns: self.turns,
        };
        let (sin, cos) = turn_series(delta);
        start.turned(cos, sin)
    }

    /// The pose moved by a small correction `d` (a displacement, not a velocity), as
    /// [`integrate`](Self::integrate) for one second moves it, to `f32` precision. A
    /// position projection moves bodies by a fraction of their substep's motion: a turn
    /// of at most [`Pose::SMALL_TURN`] is taken by the series' first terms, and the
    /// rotation is not renormalised (the next drift renormalises it); the projection's
    /// pass over its bodies is bound by that chain's latency.
    #[must_use]
    #[inline]
    pub(crate) fn nudge(&self, d: Velocity) -> Self {
        let delta = d.angular;
        if delta.abs() > Self::SMALL_TURN {
            return self.integrate(d, 1.0);
        }
        // Omitted: `δ⁴/24` and `δ⁵/120`, below 5e-10 at `SMALL_TURN`.
        let d2 = delta * delta;
        let (sin, cos) = (delta - delta * d2 * (1.0 / 6.0), 1.0 - 0.5 * d2);
        Self {
            position: self.position.offset(d.linear),
            ..self.turned(cos, sin)
        }
    }

    /// The largest turn (radians) that [`Pose::nudge`] takes by its short series.
    pub(crate) const SMALL_TURN: f32 = 0.01;

    /// The largest turn (radians) that [`Pose::integrate`] takes by its series: a quarter
    /// of a half turn, where the series' first omitted terms are below 2e-9.
    pub const SERIES_TURN: f32 = 0.25 * std::f32::consts::PI;

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
}

impl Pose {
    /// The position (m) of a body-local point (m), in the pose's frame.
    #[must_use]
    pub fn world_point(&self, local: Vec2) -> Vec2 {
        self.position + self.rotate(local)
    }
}

impl WorldPose {
    /// The world position (m) of a body-local point (m).
    #[must_use]
    pub fn world_point(&self, local: Vec2) -> DVec2 {
        self.position + self.rotate(local).as_dvec2()
    }

    /// The pose in the frame whose origin is `origin`: its position `self.position −
    /// origin` in `f32`, exact to `f32` precision of that difference.
    #[must_use]
    #[inline(always)]
    pub fn relative_to(&self, origin: DVec2) -> Pose {
        self.with_position((self.position - origin).as_vec2())
    }

    /// The pose in world coordinates rounded to `f32`: what a constraint that is not
    /// translation invariant, and debug drawing, read.
    #[must_use]
    #[inline(always)]
    pub fn to_f32(&self) -> Pose {
        self.with_position(self.position.as_vec2())
    }
}

impl<P: Position> Pose<P> {
    /// The same rotation and winding at `position`.
    #[must_use]
    #[inline(always)]
    pub fn with_position<Q: Position>(&self, position: Q) -> Pose<Q> {
        Pose {
            position,
            cos: self.cos,
            sin: self.sin,
            turns: self.turns,
        }
    }
}

/// The poses of `bodies` (indices into `poses`) as a constraint reads them: relative to
/// the first body's position where `relative` (a translation-invariant constraint), else
/// in world coordinates rounded to `f32`.
#[must_use]
#[inline(always)]
pub(crate) fn frame_poses<const B: usize>(
    poses: &[WorldPose],
    bodies: &[usize; B],
    relative: bool,
) -> [Pose; B] {
    in_frame(&std::array::from_fn(|s| poses[bodies[s]]), relative)
}

/// World poses in a constraint's frame (see [`frame_poses`]).
#[must_use]
#[inline(always)]
pub(crate) fn in_frame<const B: usize>(world: &[WorldPose; B], relative: bool) -> [Pose; B] {
    if relative {
        let origin = world[0].position;
        std::array::from_fn(|s| world[s].relative_to(origin))
    } else {
        std::array::from_fn(|s| world[s].to_f32())
    }
}

/// Below this magnitude a velocity component, a position correction or an impulse that
/// the exact solve computes is its rounding noise (a link of a chain falling flat gets
/// 1e-20 rad/s where it should not turn at all), and the solver stores it as zero. Kept,
/// such values make the arithmetic that uses them underflow into subnormal numbers (the
/// turn of a substep squared, a rotation composed with it), and on x86 every operation
/// that produces or reads one is a microcode assist of about a hundred cycles: a 200-link
/// chain released horizontally spent a fifth of its step on them. Products of two values
/// at least this large (or zero) stay normal in `f32`, so what is computed from stored
/// values (poses, Jacobians, the turn series) stays normal too.
pub(crate) const NEGLIGIBLE: f32 = 1e-12;

/// `x` in `f32`, or zero where it is [`NEGLIGIBLE`]: tested in `f64`, so that a value
/// below `f32`'s range is not first converted into a subnormal one.
#[inline(always)]
pub(crate) fn settle(x: f64) -> f32 {
    if x.abs() < f64::from(NEGLIGIBLE) {
        0.0
    } else {
        x as f32
    }
}

/// The change of the winding count when a rotation's sine goes from `before` to `after`
/// in a turn of at most a quarter turn, the cosine then `cos`: +1 from `+` to `−` with the
/// cosine negative (counter-clockwise across ±π), −1 the other way, 0 otherwise. Signs
/// are sign bits, so a sine of `−0` is on the side `atan2` puts it (`atan2(−0, −1) = −π`).
#[inline(always)]
fn crossing(before: f32, after: f32, cos: f32) -> i32 {
    let negative = |x: f32| (x.to_bits() >> 31) as i32;
    (negative(after) - negative(before)) * i32::from(cos < 0.0)
}

/// `(sin δ, cos δ)` by their Taylor series, for `|δ| ≤ π/4`: through `δ⁵` and `δ⁶` up to
/// 0.05 rad (every substep of a body turning slower than 3 rad/s at 60 substeps a second;
/// the omitted terms are below `δ⁷/7! ≈ 1.6e-13` there), through `δ⁹` and `δ¹⁰` beyond
/// (below `δ¹¹/11! ≈ 1.7e-9` at π/4).
#[inline]
fn turn_series(delta: f32) -> (f32, f32) {
    // Multiplied by the reciprocals rather than divided: a division is several times the
    // latency and a quarter the throughput of a multiplication, here for every body and
    // substep.
    let d2 = delta * delta;
    if delta.abs() <= 0.05 {
        let sin = delta * (1.0 - d2 * (1.0 / 6.0) * (1.0 - d2 * (1.0 / 20.0)));
        let cos = 1.0 - d2 * 0.5 * (1.0 - d2 * (1.0 / 12.0));
        return (sin, cos);
    }
    let sin = delta
        * (1.0
            - d2 * (1.0 / 6.0)
                * (1.0
                    - d2 * (1.0 / 20.0) * (1.0 - d2 * (1.0 / 42.0) * (1.0 - d2 * (1.0 / 72.0)))));
    let cos = 1.0
        - d2 * 0.5
            * (1.0
                - d2 * (1.0 / 12.0)
                    * (1.0
                        - d2 * (1.0 / 30.0)
                            * (1.0 - d2 * (1.0 / 56.0) * (1.0 - d2 * (1.0 / 90.0)))));
    (sin, cos)
}

impl<P: Position> Default for Pose<P> {
    fn default() -> Self {
        Self::new(P::default(), 0.0)
    }
}

/// A body's velocity: linear (m/s) and angular (rad/s); for a body in a space each is at
/// most [`MAX_SPEED`](crate::limits::MAX_SPEED) in magnitude.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Velocity {
    /// Linear velocity of the centre of mass, in m/s.
    pub linear: Vec2,
    /// Angular velocity in rad/s, counter-clockwise positive.
    pub angular: f32,
}

/// A body's inverse mass and inverse moment of inertia as the solver sees them: zero for
/// static and kinematic bodies, which constraints cannot move.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InverseMass {
    /// `1 / mass` in 1/kg, or 0; at most `1 / MIN_MASS` (1e6).
    pub mass: f32,
    /// `1 / inertia` in 1/(kg·m²), or 0; at most `1 / MIN_INERTIA` (1e9).
    pub inertia: f32,
}

impl InverseMass {
    /// Unit mass and inertia: [`Constraint::apply_impulse`](crate::Constraint::apply_impulse)
    /// with it adds `Jᵀλ` itself, which is how the solver reads a joint's `J` through its
    /// own code.
    pub const UNIT: Self = Self {
        mass: 1.0,
        inertia: 1.0,
    };
}

/// An untyped constraint id (space, type slot, index, generation), e.g. for events such
/// as [`Space::broken_constraints`](crate::Space::broken_constraints) and for
/// [`Space::constraints_of`](crate::Space::constraints_of). Compare it with
/// [`ConstraintHandle::id`](crate::ConstraintHandle::id), or recover the typed handle with
/// [`Space::typed_handle`](crate::Space::typed_handle).
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

/// A constraint broke during the last step: see
/// [`Space::broken_constraints`](crate::Space::broken_constraints).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BreakEvent {
    /// The constraint. Its handle is stale if `remove_on_break` was set; otherwise the
    /// constraint is still in the space, with `active = false`.
    pub constraint: ConstraintId,
    /// Which limit was exceeded.
    pub cause: BreakCause,
    /// The force (`|λ|/dt`: N, or N·m for angular rows) or error (`|C|`: m or rad, in the
    /// constraint's units) that exceeded the limit; `value > limit`.
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
    /// Linear impulse in N·s (through the body's centre of mass), world axes.
    pub linear: Vec2,
    /// Angular impulse about the body's centre of mass in N·m·s, counter-clockwise positive.
    pub angular: f32,
}

/// How a [`DrawPrimitive::Segment`] is meant: what it connects and whether it can slacken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SegmentStyle {
    /// A rigid part: a lever arm from a body's centre to an anchor, a rod, a needle.
    Rigid,
    /// A rope, which may be slack (a distance limit, a pulley's segment).
    Rope,
    /// A generic relation between bodies, for constraints with no picture of their own.
    Link,
}

/// One element of a constraint's picture, in world coordinates (m; angles in rad).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DrawPrimitive {
    /// A point where the joint attaches to a body.
    Anchor {
        /// World position of the point.
        at: Vec2,
    },
    /// A straight segment.
    Segment {
        /// Start point.
        from: Vec2,
        /// End point.
        to: Vec2,
        /// What the segment means.
        style: SegmentStyle,
    },
    /// A line along which something slides, with its allowed range `min..=max` measured
    /// from `origin` along `direction` (a unit vector). Infinite ends are drawn by the
    /// renderer as far as it likes.
    Axis {
        /// The line's origin.
        origin: Vec2,
        /// Unit direction of the line.
        direction: Vec2,
        /// Lower end of the allowed range along the line (may be −∞).
        min: f32,
        /// Upper end of the allowed range along the line (may be +∞).
        max: f32,
    },
    /// An arc of a circle from angle `start` to angle `end` (radians, counter-clockwise
    /// from the world x axis): an angular range or a drive's direction.
    Arc {
        /// The circle's centre.
        centre: Vec2,
        /// The circle's radius.
        radius: f32,
        /// Angle where the arc starts.
        start: f32,
        /// Angle where the arc ends (may be less than `start`: the arc runs clockwise).
        end: f32,
    },
}

/// The picture of a constraint that has none of its own: a mark at each slot's body and a
/// link from each slot to the next (slots holding the same body are drawn once).
pub fn generic_picture(poses: &[Pose], out: &mut dyn FnMut(DrawPrimitive)) {
    for (s, pose) in poses.iter().enumerate() {
        if poses[..s].iter().all(|p| p.position != pose.position) {
            out(DrawPrimitive::Anchor { at: pose.position });
        }
    }
    for pair in poses.windows(2) {
        if pair[0].position != pair[1].position {
            out(DrawPrimitive::Segment {
                from: pair[0].position,
                to: pair[1].position,
                style: SegmentStyle::Link,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_turn_series_is_sine_and_cosine_to_f32_precision_up_to_its_limit() {
        let steps = 10_000;
        for k in -steps..=steps {
            let delta = <Pose>::SERIES_TURN * k as f32 / steps as f32;
            let (sin, cos) = turn_series(delta);
            let exact = f64::from(delta);
            assert!((f64::from(sin) - exact.sin()).abs() < 2e-7, "sin {delta}");
            assert!((f64::from(cos) - exact.cos()).abs() < 2e-7, "cos {delta}");
        }
    }

    #[test]
    fn integrating_a_spin_keeps_the_rotation_on_the_angle() {
        // Turns of every size the series takes, and one beyond it, for a simulated second.
        for spin in [0.3f32, 9.0, 40.0, 180.0, 300.0, -300.0] {
            let h = 1.0 / 240.0;
            let v = Velocity {
                linear: Vec2::new(1.0, -2.0),
                angular: spin,
            };
            let mut pose = Pose::new(Vec2::ZERO, 0.4);
            for _ in 0..240 {
                pose = pose.integrate(v, h);
            }
            // The turns the drift took, each `ω·h` rounded to `f32`.
            let exact = 0.4 + 240.0 * f64::from(spin * h);
            let turned = Pose::new(pose.position, exact);
            assert!(
                (pose.cos - turned.cos).abs() < 2e-5 && (pose.sin - turned.sin).abs() < 2e-5,
                "spin {spin}: ({}, {}) against ({}, {})",
                pose.cos,
                pose.sin,
                turned.cos,
                turned.sin
            );
            assert_eq!(pose.turns, turned.turns, "spin {spin}");
            assert!((pose.total_angle() - exact).abs() < 2e-5, "spin {spin}");
            assert!((pose.position - Vec2::new(1.0, -2.0)).length() < 1e-5);
        }
    }

    /// A pose whose rotation is `(cos, sin)` exactly, at winding `turns`.
    fn rotation(cos: f32, sin: f32, turns: i32) -> Pose {
        Pose {
            position: Vec2::ZERO,
            cos,
            sin,
            turns,
        }
    }

    #[test]
    fn crossing_the_cut_counts_a_turn_each_way_and_nowhere_else() {
        let turn = |pose: Pose, angular: f32| {
            pose.integrate(
                Velocity {
                    linear: Vec2::ZERO,
                    angular,
                },
                1.0,
            )
        };
        // Counter-clockwise across π: +1, and the angle continues past π.
        let before = Pose::new(Vec2::ZERO, 3.1);
        let after = turn(before, 0.1);
        assert_eq!((before.turns, after.turns), (0, 1));
        assert!(after.principal_angle() < 0.0);
        assert!((after.total_angle() - 3.2).abs() < 1e-6);
        assert!((after.angle() - 3.2).abs() < 1e-6);
        // And back, clockwise: −1.
        let back = turn(after, -0.1);
        assert_eq!(back.turns, 0);
        assert!((back.total_angle() - 3.1).abs() < 1e-6);
        // Across 0 either way: no turn.
        let zero = Pose::new(Vec2::ZERO, 0.05);
        assert_eq!(turn(zero, -0.1).turns, 0);
        assert_eq!(turn(turn(zero, -0.1), 0.1).turns, 0);
        // From below −π clockwise: −1 at every crossing, for many turns.
        let mut pose = Pose::new(Vec2::ZERO, -3.0);
        for _ in 0..1000 {
            pose = turn(pose, -0.7);
        }
        let exact = -3.0 - 700.0;
        assert!(
            (pose.total_angle() - exact).abs() < 1e-3,
            "{}",
            pose.total_angle()
        );
        assert_eq!(pose.turns, Pose::new(Vec2::ZERO, exact).turns);
        // The nudge counts as the drift does.
        let nudged = before.nudge(Velocity {
            linear: Vec2::ZERO,
            angular: 0.009,
        });
        assert_eq!(nudged.turns, 0);
        let below = std::f64::consts::PI - 0.004;
        let nudged = Pose::new(Vec2::ZERO, below).nudge(Velocity {
            linear: Vec2::ZERO,
            angular: 0.009,
        });
        assert_eq!(nudged.turns, 1);
        assert!((nudged.total_angle() - (below + 0.009)).abs() < 1e-6);
    }

    #[test]
    fn a_signed_zero_sine_is_on_the_side_atan2_puts_it() {
        // `atan2(+0, −1) = π`, `atan2(−0, −1) = −π`: from the rotation at π (sine +0)
        // to −0 the angle must not jump, so that is a crossing; from −0 to +0 the other
        // way, −1.
        let plus = rotation(-1.0, 0.0, 0);
        let minus = rotation(-1.0, -0.0, 0);
        assert_eq!(plus.principal_angle(), std::f32::consts::PI);
        assert_eq!(minus.principal_angle(), -std::f32::consts::PI);
        assert_eq!(crossing(plus.sin, minus.sin, -1.0), 1);
        assert_eq!(crossing(minus.sin, plus.sin, -1.0), -1);
        assert_eq!(crossing(0.0, -0.0, 1.0), 0);
        // Turning by the identity keeps a signed zero and its count.
        let kept = minus.turned(1.0, 0.0);
        assert_eq!((kept.sin.to_bits(), kept.turns), ((-0.0f32).to_bits(), 0));
        // Whatever the sign of the zero, the angle read stays on the same turn's side.
        let a = plus.turned(1.0, 1e-7);
        assert_eq!(a.turns, 1);
        assert!((a.total_angle() - (std::f64::consts::PI + 1e-7)).abs() < 1e-6);
        let b = minus.turned(1.0, -1e-7);
        assert_eq!(b.turns, -1);
        assert!((b.total_angle() + (std::f64::consts::PI + 1e-7)).abs() < 1e-6);
    }

    #[test]
    fn large_turns_count_their_whole_turns() {
        for delta in [1.0f32, 3.0, 3.2, 6.3, 10.0, 100.0, -1.0, -3.2, -100.0] {
            for start in [0.0, 3.0, -3.1, 1e4] {
                let pose = Pose::new(Vec2::ZERO, start);
                let moved = pose.integrate(
                    Velocity {
                        linear: Vec2::ZERO,
                        angular: delta,
                    },
                    1.0,
                );
                let exact = start + f64::from(delta);
                assert!(
                    (moved.total_angle() - exact).abs() < 1e-6,
                    "{start} + {delta}: {}",
                    moved.total_angle()
                );
            }
        }
    }

    #[test]
    fn big_angles_round_trip_through_turns_and_rotation() {
        let pi = std::f64::consts::PI;
        for angle in [
            0.0,
            -0.0,
            1.0,
            pi,
            -pi,
            pi + 1e-9,
            3.0 * pi,
            -7.0 * pi + 0.25,
            1e4,
            -1e4 - 0.5,
            123_456.789,
            1e9,
            -1e9,
        ] {
            let pose = Pose::new(Vec2::ZERO, angle);
            // The rotation holds the remainder to `f32` precision; the turns are exact.
            let tolerance = 2e-7 + angle.abs() * 4.0 * f64::EPSILON;
            assert!(
                (pose.total_angle() - angle).abs() <= tolerance,
                "{angle}: {} ({} turns)",
                pose.total_angle(),
                pose.turns
            );
            assert!((pose.cos * pose.cos + pose.sin * pose.sin - 1.0).abs() < 1e-6);
            assert!(pose.principal_angle().abs() <= std::f32::consts::PI);
            let turns = (angle / std::f64::consts::TAU).round();
            assert_eq!(f64::from(pose.turns), turns, "{angle}");
        }
        for angle in [f64::NAN, f64::INFINITY, -f64::INFINITY, 1e300] {
            let pose = Pose::new(Vec2::ZERO, angle);
            assert!(pose.cos.is_nan() && pose.sin.is_nan(), "{angle}");
        }
    }

    #[test]
    fn angles_read_from_a_reference_winding_are_exact_after_many_turns() {
        let wound = 1e4 * std::f64::consts::TAU;
        let a = Pose::new(Vec2::ZERO, wound + 0.3);
        let b = Pose::new(Vec2::ZERO, wound + 0.3 + 2.0 * std::f64::consts::TAU + 1e-5);
        let relative = b.angle_from(a.turns) - a.angle_from(a.turns);
        let exact = 2.0 * std::f32::consts::TAU + 1e-5;
        assert!((relative - exact).abs() < 1e-6, "{relative}");
        // The absolute `f32` angles cannot hold the difference to that.
        assert!(((b.angle() - a.angle()) - exact).abs() > 1e-6);
        assert_eq!(a.angle_from(a.turns), a.principal_angle());
    }

    #[test]
    fn a_host_engines_rotations_keep_their_winding() {
        // Turned by half-turn-sized rotations, one way then the other.
        let mut pose = Pose::new(Vec2::ZERO, 0.2);
        let mut exact = 0.2f64;
        for (turn, count) in [(2.9f32, 40), (-3.1, 70), (0.4, 9)] {
            for _ in 0..count {
                pose = pose.rotated(turn.cos(), turn.sin());
                exact += f64::from(turn);
            }
            assert!((pose.total_angle() - exact).abs() < 1e-4, "{exact}");
        }
        // Read again from the rotation alone, within half a turn of the last pose.
        for turn in [3.0f64, -3.0, 0.5, -1e-3] {
            let (sin, cos) = (exact + turn).sin_cos();
            let read = pose.with_rotation(Vec2::ONE, cos as f32, sin as f32);
            assert!((read.total_angle() - (exact + turn)).abs() < 1e-4, "{turn}");
            assert_eq!(read.position, Vec2::ONE);
        }
    }

    #[test]
    fn a_host_engines_rotations_of_any_size_count_every_crossing() {
        // Turns up to a half turn either way, with the quarter and half turns themselves,
        // from starts all around: the winding follows the summed angle in `f64`.
        let mut pose = Pose::new(Vec2::ZERO, -0.7);
        let mut exact = -0.7f64;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let edges = [
            std::f32::consts::FRAC_PI_2,
            -std::f32::consts::FRAC_PI_2,
            std::f32::consts::PI,
            -std::f32::consts::PI,
        ];
        for i in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let turn = match edges.get(i % 50) {
                Some(&edge) => edge,
                None => {
                    ((seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) as f32
                        * std::f32::consts::PI
                }
            };
            pose = pose.rotated(turn.cos(), turn.sin());
            exact += f64::from(turn.sin().atan2(turn.cos()));
            assert!(
                (pose.total_angle() - exact).abs() < 1e-3,
                "turn {i}: {} against {exact}",
                pose.total_angle()
            );
        }
    }

    #[test]
    fn a_pose_stays_twenty_bytes() {
        assert_eq!(std::mem::size_of::<Pose>(), 20);
        assert_eq!(std::mem::align_of::<Pose>(), 4);
    }
}
