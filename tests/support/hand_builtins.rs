//! REFERENCE CODE: hand-derived, for differential tests and benchmarks only.
//!
//! Hand-written [`Constraint`] implementations of five builtins that `#[constraint]`
//! generates (`AngleJoint`, `DistanceJoint`, `LineJoint`, `MotorJoint`, `PulleyJoint`), with
//! the same rows, bounds, parameters and validation rules. They exist so that
//! `tests/hand_written.rs` can step the same scene with both and compare, and so that
//! `benches/joints.rs` can hold the generated code to the speed of careful hand work.
//!
//! "Careful" means what a person writing Box2D- or Nape-style joints would write: world
//! anchors and directions computed once per step, the velocity iterations reading only
//! those, no redundant work, shared-slot cross terms only when some slot is shared. It
//! also means no knowledge the generator could not have: a normalised vector's squared
//! length is computed, not assumed to be 1 (a degenerate direction makes it 0), and the
//! direction of a `LineJoint` is normalised every step because it is a public field.
//!
//! Include with `#[path = "support/hand_builtins.rs"] mod hand_builtins;`.
#![allow(dead_code)]

use nape_core::{
    BodyHandle, Bounds, Constraint, InvalidParameter, InverseMass, Pose, PulleyJoint, SharedSlots,
    Vec2, Velocity,
};

/// `1 / x`, or 0 where `x` is too close to zero to mean anything: the same threshold as the
/// generated code's runtime helper, so a zero-length segment goes slack in both.
#[inline]
fn safe_recip(x: f32) -> f32 {
    if x.abs() > 1e-6 { 1.0 / x } else { 0.0 }
}

fn invalid(constraint: &'static str, rule: &str, value: String) -> InvalidParameter {
    InvalidParameter {
        constraint,
        rule: rule.into(),
        value,
    }
}

fn not_nan(name: &'static str, field: &str, value: f32) -> Result<(), InvalidParameter> {
    if value.is_nan() {
        return Err(invalid(
            name,
            &format!("{field} is not NaN"),
            format!("{value:?}"),
        ));
    }
    Ok(())
}

fn finite(name: &'static str, field: &str, value: f32) -> Result<(), InvalidParameter> {
    if !value.is_finite() {
        return Err(invalid(
            name,
            &format!("{field} is finite"),
            format!("{value:?}"),
        ));
    }
    Ok(())
}

fn finite_vector(name: &'static str, field: &str, value: Vec2) -> Result<(), InvalidParameter> {
    if !value.is_finite() {
        return Err(invalid(
            name,
            &format!("{field} is finite"),
            format!("{value:?}"),
        ));
    }
    Ok(())
}

fn distinct(
    name: &'static str,
    rule: &str,
    a: BodyHandle,
    b: BodyHandle,
) -> Result<(), InvalidParameter> {
    if a == b {
        return Err(invalid(name, rule, format!("both are {a:?}")));
    }
    Ok(())
}

/// The rule every limited row obeys: `min <= max`, and an equality is finite.
fn row_bounds(name: &'static str, row: usize, min: f32, max: f32) -> Result<(), InvalidParameter> {
    if !(min <= max && (min != max || min.is_finite())) {
        return Err(invalid(
            name,
            &format!("row {row}: min <= max, and equal bounds are finite"),
            format!("min = {min:?}, max = {max:?}"),
        ));
    }
    Ok(())
}

/// `joint_min >= 0.0` (a NaN is rejected before, by [`not_nan`]).
fn non_negative_min(name: &'static str, min: f32) -> Result<(), InvalidParameter> {
    if min < 0.0 {
        return Err(invalid(name, "joint_min >= 0.0", format!("{min:?}")));
    }
    Ok(())
}

/// `K` of one angular row `ratio·ω₂ − ω₁` (Angle and Motor).
#[inline]
fn gear_mass(ratio: f32, m: &[InverseMass; 2], shared: SharedSlots) -> [[f32; 1]; 1] {
    if shared.contains(0, 1) {
        let w = ratio - 1.0;
        return [[m[0].inertia * w * w]];
    }
    [[m[0].inertia + ratio * ratio * m[1].inertia]]
}

#[inline]
fn gear_impulse(
    ratio: f32,
    impulse: f32,
    m: &[InverseMass; 2],
    bodies: &[usize; 2],
    v: &mut [Velocity],
) {
    v[bodies[0]].angular -= m[0].inertia * impulse;
    v[bodies[1]].angular += m[1].inertia * ratio * impulse;
}

/// `joint_min ≤ ratio·θ₂ − θ₁ ≤ joint_max`: the reference for `AngleJoint`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandAngle {
    /// First body.
    pub body1: BodyHandle,
    /// Second body.
    pub body2: BodyHandle,
    /// Lower bound.
    pub joint_min: f32,
    /// Upper bound.
    pub joint_max: f32,
    /// Gear ratio on `body2`'s angle.
    pub ratio: f32,
}

impl Constraint<1, 2> for HandAngle {
    type Jacobian = ();
    const NAME: &'static str = "HandAngle";
    const HAS_LIMITS: bool = true;

    fn bodies(&self) -> [BodyHandle; 2] {
        [self.body1, self.body2]
    }
    fn set_bodies(&mut self, bodies: [BodyHandle; 2]) {
        [self.body1, self.body2] = bodies;
    }
    fn validate(&self) -> Result<(), InvalidParameter> {
        not_nan(Self::NAME, "joint_min", self.joint_min)?;
        not_nan(Self::NAME, "joint_max", self.joint_max)?;
        finite(Self::NAME, "ratio", self.ratio)?;
        distinct(Self::NAME, "body1 != body2", self.body1, self.body2)?;
        row_bounds(Self::NAME, 0, self.joint_min, self.joint_max)
    }
    fn bounds(&self) -> [Bounds; 1] {
        [Bounds::new(self.joint_min, self.joint_max)]
    }
    #[inline]
    fn position_error(&self, poses: &[Pose; 2]) -> [f32; 1] {
        [self.ratio * poses[1].angle() - poses[0].angle()]
    }
    #[inline]
    fn jacobian(&self, _: &[Pose; 2]) {}
    #[inline]
    fn effective_mass(&self, _: &(), m: &[InverseMass; 2], shared: SharedSlots) -> [[f32; 1]; 1] {
        gear_mass(self.ratio, m, shared)
    }
    #[inline]
    fn velocity_error(&self, _: &(), bodies: &[usize; 2], v: &[Velocity]) -> [f32; 1] {
        [self.ratio * v[bodies[1]].angular - v[bodies[0]].angular]
    }
    #[inline]
    fn apply_impulse(
        &self,
        _: &(),
        impulse: &[f32; 1],
        m: &[InverseMass; 2],
        bodies: &[usize; 2],
        v: &mut [Velocity],
    ) {
        gear_impulse(self.ratio, impulse[0], m, bodies, v);
    }
}

/// Drives `ratio·ω₂ − ω₁` to `rate`: the reference for `MotorJoint`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandMotor {
    /// First body.
    pub body1: BodyHandle,
    /// Second body.
    pub body2: BodyHandle,
    /// Target of `ratio·ω₂ − ω₁`.
    pub rate: f32,
    /// Gear ratio on `body2`'s angular velocity.
    pub ratio: f32,
}

impl Constraint<1, 2> for HandMotor {
    type Jacobian = ();
    const NAME: &'static str = "HandMotor";
    const VELOCITY_ONLY: bool = true;

    fn bodies(&self) -> [BodyHandle; 2] {
        [self.body1, self.body2]
    }
    fn set_bodies(&mut self, bodies: [BodyHandle; 2]) {
        [self.body1, self.body2] = bodies;
    }
    fn validate(&self) -> Result<(), InvalidParameter> {
        finite(Self::NAME, "rate", self.rate)?;
        finite(Self::NAME, "ratio", self.ratio)?;
        distinct(Self::NAME, "body1 != body2", self.body1, self.body2)
    }
    #[inline]
    fn position_error(&self, _: &[Pose; 2]) -> [f32; 1] {
        [0.0]
    }
    #[inline]
    fn velocity_bias(&self, _jacobian: &Self::Jacobian) -> [f32; 1] {
        [-self.rate]
    }
    #[inline]
    fn jacobian(&self, _: &[Pose; 2]) {}
    #[inline]
    fn effective_mass(&self, _: &(), m: &[InverseMass; 2], shared: SharedSlots) -> [[f32; 1]; 1] {
        gear_mass(self.ratio, m, shared)
    }
    #[inline]
    fn velocity_error(&self, _: &(), bodies: &[usize; 2], v: &[Velocity]) -> [f32; 1] {
        [self.ratio * v[bodies[1]].angular - v[bodies[0]].angular]
    }
    #[inline]
    fn apply_impulse(
        &self,
        _: &(),
        impulse: &[f32; 1],
        m: &[InverseMass; 2],
        bodies: &[usize; 2],
        v: &mut [Velocity],
    ) {
        gear_impulse(self.ratio, impulse[0], m, bodies, v);
    }
}

/// The per-step form of one rope segment's row `|p₂ − p₁|`: its unit direction `n` (zero
/// when the anchors coincide) and the lever terms `a_s = r_s × n`, so that the row is
/// `−n·v₁ − a₁ω₁ + n·v₂ + a₂ω₂`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Segment {
    /// Unit direction from anchor 1 to anchor 2, scaled by the segment's weight.
    pub n: Vec2,
    /// `r₁ × n`.
    pub a1: f32,
    /// `r₂ × n`.
    pub a2: f32,
}

impl Segment {
    /// The segment from `anchor1` of `pose1` to `anchor2` of `pose2`, weighted by `weight`.
    #[inline]
    fn new(pose1: &Pose, anchor1: Vec2, pose2: &Pose, anchor2: Vec2, weight: Option<f32>) -> Self {
        let r1 = pose1.rotate(anchor1);
        let r2 = pose2.rotate(anchor2);
        let d = pose2.position + r2 - (pose1.position + r1);
        let scale = safe_recip(d.length());
        let n = match weight {
            Some(w) => d * (w * scale),
            None => d * scale,
        };
        Self {
            n,
            a1: r1.perp_dot(n),
            a2: r2.perp_dot(n),
        }
    }
}

/// `joint_min ≤ |p₂ − p₁| ≤ joint_max`: the reference for `DistanceJoint`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandDistance {
    /// First body.
    pub body1: BodyHandle,
    /// Second body.
    pub body2: BodyHandle,
    /// Anchor on body 1, local.
    pub anchor1: Vec2,
    /// Anchor on body 2, local.
    pub anchor2: Vec2,
    /// Shortest distance.
    pub joint_min: f32,
    /// Longest distance.
    pub joint_max: f32,
}

impl Constraint<1, 2> for HandDistance {
    type Jacobian = Segment;
    const NAME: &'static str = "HandDistance";
    const HAS_LIMITS: bool = true;

    fn bodies(&self) -> [BodyHandle; 2] {
        [self.body1, self.body2]
    }
    fn set_bodies(&mut self, bodies: [BodyHandle; 2]) {
        [self.body1, self.body2] = bodies;
    }

    // A joint between the bodies' points: the same at any common offset of them.
    fn translation_invariant(&self) -> bool {
        true
    }
    fn validate(&self) -> Result<(), InvalidParameter> {
        not_nan(Self::NAME, "joint_min", self.joint_min)?;
        not_nan(Self::NAME, "joint_max", self.joint_max)?;
        finite_vector(Self::NAME, "anchor1", self.anchor1)?;
        finite_vector(Self::NAME, "anchor2", self.anchor2)?;
        distinct(Self::NAME, "body1 != body2", self.body1, self.body2)?;
        row_bounds(Self::NAME, 0, self.joint_min, self.joint_max)?;
        non_negative_min(Self::NAME, self.joint_min)
    }
    fn bounds(&self) -> [Bounds; 1] {
        [Bounds::new(self.joint_min, self.joint_max)]
    }
    #[inline]
    fn position_error(&self, poses: &[Pose; 2]) -> [f32; 1] {
        let d = poses[1].world_point(self.anchor2) - poses[0].world_point(self.anchor1);
        [d.length()]
    }
    #[inline]
    fn jacobian(&self, poses: &[Pose; 2]) -> Segment {
        Segment::new(&poses[0], self.anchor1, &poses[1], self.anchor2, None)
    }
    #[inline]
    fn effective_mass(
        &self,
        j: &Segment,
        m: &[InverseMass; 2],
        shared: SharedSlots,
    ) -> [[f32; 1]; 1] {
        if shared.contains(0, 1) {
            // One body: the linear parts cancel, the angular ones subtract.
            let a = j.a2 - j.a1;
            return [[m[0].inertia * a * a]];
        }
        [[(m[0].mass + m[1].mass) * j.n.length_squared()
            + m[0].inertia * j.a1 * j.a1
            + m[1].inertia * j.a2 * j.a2]]
    }
    #[inline]
    fn velocity_error(&self, j: &Segment, bodies: &[usize; 2], v: &[Velocity]) -> [f32; 1] {
        let (v1, v2) = (&v[bodies[0]], &v[bodies[1]]);
        [j.n.dot(v2.linear - v1.linear) + j.a2 * v2.angular - j.a1 * v1.angular]
    }
    #[inline]
    fn apply_impulse(
        &self,
        j: &Segment,
        impulse: &[f32; 1],
        m: &[InverseMass; 2],
        bodies: &[usize; 2],
        v: &mut [Velocity],
    ) {
        let l = impulse[0];
        let p = j.n * l;
        let b1 = &mut v[bodies[0]];
        b1.linear -= p * m[0].mass;
        b1.angular -= m[0].inertia * (j.a1 * l);
        let b2 = &mut v[bodies[1]];
        b2.linear += p * m[1].mass;
        b2.angular += m[1].inertia * (j.a2 * l);
    }
}

/// A slider: `n × d = 0` and `joint_min ≤ n·d ≤ joint_max` with `n = R(θ₁)·direction/|direction|`
/// and `d = p₂ − p₁`: the reference for `LineJoint`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandLine {
    /// The body carrying the line.
    pub body1: BodyHandle,
    /// The sliding body.
    pub body2: BodyHandle,
    /// A point of the line, local to body 1.
    pub anchor1: Vec2,
    /// The sliding point, local to body 2.
    pub anchor2: Vec2,
    /// The line's direction, local to body 1.
    pub direction: Vec2,
    /// Lower bound along the line.
    pub joint_min: f32,
    /// Upper bound along the line.
    pub joint_max: f32,
}

/// The per-step form of a slider: the world direction `n` and the angular entries. The
/// rows are `c₀ = n × d` with `J₀ = (−n⊥, −s₁; n⊥, s₂)` and `c₁ = n·d` with
/// `J₁ = (−n, u₁; n, u₂)`, where `s₁ = n·(d + r₁)`, `s₂ = n·r₂`, `u₁ = n × (d + r₁)`,
/// `u₂ = r₂ × n` (body 1's lever is the world point on the line, `d + r₁`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Slider {
    /// The line's world direction.
    pub n: Vec2,
    /// `n·(d + r₁)`.
    pub s1: f32,
    /// `n·r₂`.
    pub s2: f32,
    /// `n × (d + r₁)`.
    pub u1: f32,
    /// `r₂ × n`.
    pub u2: f32,
}

impl HandLine {
    #[inline]
    fn world_direction(&self, pose1: &Pose) -> Vec2 {
        pose1.rotate(self.direction * safe_recip(self.direction.length()))
    }
}

impl Constraint<2, 2> for HandLine {
    type Jacobian = Slider;
    const NAME: &'static str = "HandLine";
    const HAS_LIMITS: bool = true;

    fn bodies(&self) -> [BodyHandle; 2] {
        [self.body1, self.body2]
    }
    fn set_bodies(&mut self, bodies: [BodyHandle; 2]) {
        [self.body1, self.body2] = bodies;
    }

    // A joint between the bodies' points: the same at any common offset of them.
    fn translation_invariant(&self) -> bool {
        true
    }
    fn validate(&self) -> Result<(), InvalidParameter> {
        not_nan(Self::NAME, "joint_min", self.joint_min)?;
        not_nan(Self::NAME, "joint_max", self.joint_max)?;
        finite_vector(Self::NAME, "anchor1", self.anchor1)?;
        finite_vector(Self::NAME, "anchor2", self.anchor2)?;
        finite_vector(Self::NAME, "direction", self.direction)?;
        distinct(Self::NAME, "body1 != body2", self.body1, self.body2)?;
        row_bounds(Self::NAME, 1, self.joint_min, self.joint_max)?;
        // A NaN direction is rejected above, as not finite.
        if self.direction.length() <= 1e-6 {
            return Err(invalid(
                Self::NAME,
                "direction.length() > 1e-6",
                format!("{:?}", self.direction),
            ));
        }
        Ok(())
    }
    fn bounds(&self) -> [Bounds; 2] {
        [Bounds::ZERO, Bounds::new(self.joint_min, self.joint_max)]
    }
    #[inline]
    fn position_error(&self, poses: &[Pose; 2]) -> [f32; 2] {
        let d = poses[1].world_point(self.anchor2) - poses[0].world_point(self.anchor1);
        let n = self.world_direction(&poses[0]);
        [n.perp_dot(d), n.dot(d)]
    }
    #[inline]
    fn jacobian(&self, poses: &[Pose; 2]) -> Slider {
        let r2 = poses[1].rotate(self.anchor2);
        // d + r₁ = x₂ + r₂ − x₁.
        let lever1 = poses[1].position + r2 - poses[0].position;
        let n = self.world_direction(&poses[0]);
        Slider {
            n,
            s1: n.dot(lever1),
            s2: n.dot(r2),
            u1: n.perp_dot(lever1),
            u2: r2.perp_dot(n),
        }
    }
    #[inline]
    fn effective_mass(
        &self,
        j: &Slider,
        m: &[InverseMass; 2],
        shared: SharedSlots,
    ) -> [[f32; 2]; 2] {
        if shared.contains(0, 1) {
            // One body: the linear parts cancel; the angular columns add.
            let (a, b) = (j.s2 - j.s1, j.u1 + j.u2);
            let i = m[0].inertia;
            return [[i * a * a, i * a * b], [i * a * b, i * b * b]];
        }
        let (i1, i2) = (m[0].inertia, m[1].inertia);
        // n⊥·n⊥ = n·n, and n⊥·n = 0: the rows are coupled through the angles only.
        let linear = (m[0].mass + m[1].mass) * j.n.length_squared();
        let k00 = linear + i1 * j.s1 * j.s1 + i2 * j.s2 * j.s2;
        let k01 = i2 * j.s2 * j.u2 - i1 * j.s1 * j.u1;
        let k11 = linear + i1 * j.u1 * j.u1 + i2 * j.u2 * j.u2;
        [[k00, k01], [k01, k11]]
    }
    #[inline]
    fn velocity_error(&self, j: &Slider, bodies: &[usize; 2], v: &[Velocity]) -> [f32; 2] {
        let (v1, v2) = (&v[bodies[0]], &v[bodies[1]]);
        let dv = v2.linear - v1.linear;
        [
            j.n.perp_dot(dv) + j.s2 * v2.angular - j.s1 * v1.angular,
            j.n.dot(dv) + j.u1 * v1.angular + j.u2 * v2.angular,
        ]
    }
    #[inline]
    fn apply_impulse(
        &self,
        j: &Slider,
        impulse: &[f32; 2],
        m: &[InverseMass; 2],
        bodies: &[usize; 2],
        v: &mut [Velocity],
    ) {
        let [l0, l1] = *impulse;
        let p = j.n.perp() * l0 + j.n * l1;
        let b1 = &mut v[bodies[0]];
        b1.linear -= p * m[0].mass;
        b1.angular += m[0].inertia * (j.u1 * l1 - j.s1 * l0);
        let b2 = &mut v[bodies[1]];
        b2.linear += p * m[1].mass;
        b2.angular += m[1].inertia * (j.s2 * l0 + j.u2 * l1);
    }
}

/// `joint_min ≤ |p₂ − p₁| + ratio·|p₄ − p₃| ≤ joint_max` over four slots that may share
/// bodies: the reference for `PulleyJoint`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandPulley {
    /// First body of the first segment.
    pub body1: BodyHandle,
    /// Second body of the first segment.
    pub body2: BodyHandle,
    /// First body of the second segment.
    pub body3: BodyHandle,
    /// Second body of the second segment.
    pub body4: BodyHandle,
    /// Anchor on body 1, local.
    pub anchor1: Vec2,
    /// Anchor on body 2, local.
    pub anchor2: Vec2,
    /// Anchor on body 3, local.
    pub anchor3: Vec2,
    /// Anchor on body 4, local.
    pub anchor4: Vec2,
    /// Shortest total length.
    pub joint_min: f32,
    /// Longest total length.
    pub joint_max: f32,
    /// Weight of the second segment.
    pub ratio: f32,
}

impl From<PulleyJoint> for HandPulley {
    /// The reference with the generated joint's slots, anchors, bounds and ratio.
    fn from(joint: PulleyJoint) -> Self {
        let PulleyJoint {
            body1,
            body2,
            body3,
            body4,
            anchor1,
            anchor2,
            anchor3,
            anchor4,
            joint_min,
            joint_max,
            ratio,
        } = joint;
        Self {
            body1,
            body2,
            body3,
            body4,
            anchor1,
            anchor2,
            anchor3,
            anchor4,
            joint_min,
            joint_max,
            ratio,
        }
    }
}

/// The per-step form of a pulley: both segments, the second scaled by the ratio.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pulley {
    /// Bodies 1 → 2.
    pub first: Segment,
    /// Bodies 3 → 4, times `ratio`.
    pub second: Segment,
}

impl Constraint<1, 4> for HandPulley {
    type Jacobian = Pulley;
    const NAME: &'static str = "HandPulley";
    const HAS_LIMITS: bool = true;

    fn bodies(&self) -> [BodyHandle; 4] {
        [self.body1, self.body2, self.body3, self.body4]
    }
    fn set_bodies(&mut self, bodies: [BodyHandle; 4]) {
        [self.body1, self.body2, self.body3, self.body4] = bodies;
    }

    // A joint between the bodies' points: the same at any common offset of them.
    fn translation_invariant(&self) -> bool {
        true
    }
    fn validate(&self) -> Result<(), InvalidParameter> {
        not_nan(Self::NAME, "joint_min", self.joint_min)?;
        not_nan(Self::NAME, "joint_max", self.joint_max)?;
        finite(Self::NAME, "ratio", self.ratio)?;
        finite_vector(Self::NAME, "anchor1", self.anchor1)?;
        finite_vector(Self::NAME, "anchor2", self.anchor2)?;
        finite_vector(Self::NAME, "anchor3", self.anchor3)?;
        finite_vector(Self::NAME, "anchor4", self.anchor4)?;
        distinct(Self::NAME, "body1 != body2", self.body1, self.body2)?;
        distinct(Self::NAME, "body3 != body4", self.body3, self.body4)?;
        row_bounds(Self::NAME, 0, self.joint_min, self.joint_max)?;
        non_negative_min(Self::NAME, self.joint_min)
    }
    fn bounds(&self) -> [Bounds; 1] {
        [Bounds::new(self.joint_min, self.joint_max)]
    }
    #[inline]
    fn position_error(&self, poses: &[Pose; 4]) -> [f32; 1] {
        let d12 = poses[1].world_point(self.anchor2) - poses[0].world_point(self.anchor1);
        let d34 = poses[3].world_point(self.anchor4) - poses[2].world_point(self.anchor3);
        [d12.length() + self.ratio * d34.length()]
    }
    #[inline]
    fn jacobian(&self, poses: &[Pose; 4]) -> Pulley {
        Pulley {
            first: Segment::new(&poses[0], self.anchor1, &poses[1], self.anchor2, None),
            second: Segment::new(
                &poses[2],
                self.anchor3,
                &poses[3],
                self.anchor4,
                Some(self.ratio),
            ),
        }
    }
    #[inline]
    fn effective_mass(
        &self,
        j: &Pulley,
        m: &[InverseMass; 4],
        shared: SharedSlots,
    ) -> [[f32; 1]; 1] {
        let (f, s) = (&j.first, &j.second);
        let mut k = (m[0].mass + m[1].mass) * f.n.length_squared()
            + (m[2].mass + m[3].mass) * s.n.length_squared()
            + m[0].inertia * f.a1 * f.a1
            + m[1].inertia * f.a2 * f.a2
            + m[2].inertia * s.a1 * s.a1
            + m[3].inertia * s.a2 * s.a2;
        if !shared.is_empty() {
            // Slots s and t on one body add 2·J_s M⁻¹ J_tᵀ. Slot 1 and 3 rows carry
            // (−n, −a₁), slots 2 and 4 (n, a₂).
            let across = f.n.dot(s.n);
            if shared.contains(0, 1) {
                k -= 2.0 * (m[0].mass * f.n.length_squared() + m[0].inertia * f.a1 * f.a2);
            }
            if shared.contains(2, 3) {
                k -= 2.0 * (m[2].mass * s.n.length_squared() + m[2].inertia * s.a1 * s.a2);
            }
            if shared.contains(0, 2) {
                k += 2.0 * (m[0].mass * across + m[0].inertia * f.a1 * s.a1);
            }
            if shared.contains(1, 3) {
                k += 2.0 * (m[1].mass * across + m[1].inertia * f.a2 * s.a2);
            }
            if shared.contains(0, 3) {
                k -= 2.0 * (m[0].mass * across + m[0].inertia * f.a1 * s.a2);
            }
            if shared.contains(1, 2) {
                k -= 2.0 * (m[1].mass * across + m[1].inertia * f.a2 * s.a1);
            }
        }
        [[k]]
    }
    #[inline]
    fn velocity_error(&self, j: &Pulley, bodies: &[usize; 4], v: &[Velocity]) -> [f32; 1] {
        let (f, s) = (&j.first, &j.second);
        let (v1, v2, v3, v4) = (&v[bodies[0]], &v[bodies[1]], &v[bodies[2]], &v[bodies[3]]);
        [
            f.n.dot(v2.linear - v1.linear) + s.n.dot(v4.linear - v3.linear) + f.a2 * v2.angular
                - f.a1 * v1.angular
                + s.a2 * v4.angular
                - s.a1 * v3.angular,
        ]
    }
    #[inline]
    fn apply_impulse(
        &self,
        j: &Pulley,
        impulse: &[f32; 1],
        m: &[InverseMass; 4],
        bodies: &[usize; 4],
        v: &mut [Velocity],
    ) {
        let l = impulse[0];
        for (segment, first_slot) in [(&j.first, 0), (&j.second, 2)] {
            let p = segment.n * l;
            let (s, t) = (first_slot, first_slot + 1);
            let b1 = &mut v[bodies[s]];
            b1.linear -= p * m[s].mass;
            b1.angular -= m[s].inertia * (segment.a1 * l);
            let b2 = &mut v[bodies[t]];
            b2.linear += p * m[t].mass;
            b2.angular += m[t].inertia * (segment.a2 * l);
        }
    }
}
