//! Hand-written joints implementing [`nape_core::Constraint`] directly, the way Nape's
//! `UserConstraint` is used: the proof that the trait is implementable by a person, and the
//! baselines the generated joints are compared with (tests and benchmarks).
//!
//! Include with `#[path = "support/hand_joints.rs"] mod hand_joints;`.
#![allow(dead_code)]

use nape_core::{
    BodyHandle, Constraint, InvalidParameter, InverseMass, Pose, SharedSlots, Vec2, Velocity,
};

/// The world anchors `r1 = R(θ1)a1`, `r2 = R(θ2)a2`: all a pivot or weld needs per step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Anchors {
    /// Body 1's anchor relative to its centre, in world axes.
    pub r1: Vec2,
    /// Body 2's anchor relative to its centre, in world axes.
    pub r2: Vec2,
}

fn check_anchor(name: &'static str, field: &str, v: Vec2) -> Result<(), InvalidParameter> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(InvalidParameter {
            constraint: name,
            rule: format!("{field} is finite"),
            value: format!("{v}"),
        })
    }
}

/// `ω × r` in 2D.
#[inline]
fn cross_sv(w: f32, r: Vec2) -> Vec2 {
    Vec2::new(-w * r.y, w * r.x)
}

/// Pins a point of body 1 to a point of body 2: `C = (x2 + r2) − (x1 + r1)` (2 rows).
#[derive(Clone, Debug, PartialEq)]
pub struct HandPivot {
    /// First body.
    pub body1: BodyHandle,
    /// Second body.
    pub body2: BodyHandle,
    /// Anchor on body 1, local coordinates.
    pub anchor1: Vec2,
    /// Anchor on body 2, local coordinates.
    pub anchor2: Vec2,
}

impl HandPivot {
    /// A pivot joining `anchor1` of `body1` to `anchor2` of `body2`.
    pub fn new(body1: BodyHandle, body2: BodyHandle, anchor1: Vec2, anchor2: Vec2) -> Self {
        Self {
            body1,
            body2,
            anchor1,
            anchor2,
        }
    }
}

/// The 2×2 linear block shared by the pivot and the weld: `(m1 + m2)I + Σ i r⊥ r⊥ᵀ`, or,
/// when both slots hold one body, `i d⊥ d⊥ᵀ` with `d = r2 − r1` (the linear parts cancel).
#[inline]
fn pivot_block(a: &Anchors, m: &[InverseMass; 2], shared: SharedSlots) -> [[f32; 2]; 2] {
    let (r1, r2) = (a.r1, a.r2);
    if shared.contains(0, 1) {
        let d = r2 - r1;
        let i = m[0].inertia;
        let xy = -i * d.x * d.y;
        return [[i * d.y * d.y, xy], [xy, i * d.x * d.x]];
    }
    let (i1, i2) = (m[0].inertia, m[1].inertia);
    let lin = m[0].mass + m[1].mass;
    let k00 = lin + i1 * r1.y * r1.y + i2 * r2.y * r2.y;
    let k01 = -i1 * r1.x * r1.y - i2 * r2.x * r2.y;
    let k11 = lin + i1 * r1.x * r1.x + i2 * r2.x * r2.x;
    [[k00, k01], [k01, k11]]
}

impl Constraint<2, 2> for HandPivot {
    type Jacobian = Anchors;
    const NAME: &'static str = "HandPivot";

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
        check_anchor(Self::NAME, "anchor1", self.anchor1)?;
        check_anchor(Self::NAME, "anchor2", self.anchor2)
    }

    fn position_error(&self, poses: &[Pose; 2]) -> [f32; 2] {
        let d = poses[1].world_point(self.anchor2) - poses[0].world_point(self.anchor1);
        [d.x, d.y]
    }

    fn jacobian(&self, poses: &[Pose; 2]) -> Anchors {
        Anchors {
            r1: poses[0].rotate(self.anchor1),
            r2: poses[1].rotate(self.anchor2),
        }
    }

    fn effective_mass(
        &self,
        a: &Anchors,
        m: &[InverseMass; 2],
        shared: SharedSlots,
    ) -> [[f32; 2]; 2] {
        pivot_block(a, m, shared)
    }

    fn velocity_error(&self, a: &Anchors, bodies: &[usize; 2], v: &[Velocity]) -> [f32; 2] {
        let (v1, v2) = (v[bodies[0]], v[bodies[1]]);
        let e = v2.linear + cross_sv(v2.angular, a.r2) - v1.linear - cross_sv(v1.angular, a.r1);
        [e.x, e.y]
    }

    fn apply_impulse(
        &self,
        a: &Anchors,
        impulse: &[f32; 2],
        m: &[InverseMass; 2],
        bodies: &[usize; 2],
        v: &mut [Velocity],
    ) {
        let j = Vec2::new(impulse[0], impulse[1]);
        let b1 = &mut v[bodies[0]];
        b1.linear -= j * m[0].mass;
        b1.angular -= m[0].inertia * a.r1.perp_dot(j);
        let b2 = &mut v[bodies[1]];
        b2.linear += j * m[1].mass;
        b2.angular += m[1].inertia * a.r2.perp_dot(j);
    }
}

/// Welds two bodies: the pivot rows plus `θ2 − θ1 − phase` (3 rows, one 3×3 block).
#[derive(Clone, Debug, PartialEq)]
pub struct HandWeld {
    /// First body.
    pub body1: BodyHandle,
    /// Second body.
    pub body2: BodyHandle,
    /// Anchor on body 1, local coordinates.
    pub anchor1: Vec2,
    /// Anchor on body 2, local coordinates.
    pub anchor2: Vec2,
    /// The relative angle `θ2 − θ1` to keep.
    pub phase: f32,
}

impl HandWeld {
    /// A weld joining `anchor1` of `body1` to `anchor2` of `body2` at relative angle `phase`.
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

impl Constraint<3, 2> for HandWeld {
    type Jacobian = Anchors;
    const NAME: &'static str = "HandWeld";

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
        check_anchor(Self::NAME, "anchor1", self.anchor1)?;
        check_anchor(Self::NAME, "anchor2", self.anchor2)?;
        if self.phase.is_finite() {
            Ok(())
        } else {
            Err(InvalidParameter {
                constraint: Self::NAME,
                rule: "phase is finite".into(),
                value: self.phase.to_string(),
            })
        }
    }

    fn position_error(&self, poses: &[Pose; 2]) -> [f32; 3] {
        let d = poses[1].world_point(self.anchor2) - poses[0].world_point(self.anchor1);
        // The angles from body 1's winding, as the generated weld reads them: their
        // difference is exact however many turns both have wound.
        let winding = poses[0].turns;
        let relative = poses[1].angle_from(winding) - poses[0].principal_angle();
        [d.x, d.y, relative - self.phase]
    }

    fn jacobian(&self, poses: &[Pose; 2]) -> Anchors {
        Anchors {
            r1: poses[0].rotate(self.anchor1),
            r2: poses[1].rotate(self.anchor2),
        }
    }

    fn effective_mass(
        &self,
        a: &Anchors,
        m: &[InverseMass; 2],
        shared: SharedSlots,
    ) -> [[f32; 3]; 3] {
        let [[k00, k01], [_, k11]] = pivot_block(a, m, shared);
        let (k02, k12, k22) = if shared.contains(0, 1) {
            // One body: the angle row is identically zero.
            (0.0, 0.0, 0.0)
        } else {
            let (i1, i2) = (m[0].inertia, m[1].inertia);
            (
                -i1 * a.r1.y - i2 * a.r2.y,
                i1 * a.r1.x + i2 * a.r2.x,
                i1 + i2,
            )
        };
        [[k00, k01, k02], [k01, k11, k12], [k02, k12, k22]]
    }

    fn velocity_error(&self, a: &Anchors, bodies: &[usize; 2], v: &[Velocity]) -> [f32; 3] {
        let (v1, v2) = (v[bodies[0]], v[bodies[1]]);
        let e = v2.linear + cross_sv(v2.angular, a.r2) - v1.linear - cross_sv(v1.angular, a.r1);
        [e.x, e.y, v2.angular - v1.angular]
    }

    fn apply_impulse(
        &self,
        a: &Anchors,
        impulse: &[f32; 3],
        m: &[InverseMass; 2],
        bodies: &[usize; 2],
        v: &mut [Velocity],
    ) {
        let j = Vec2::new(impulse[0], impulse[1]);
        let b1 = &mut v[bodies[0]];
        b1.linear -= j * m[0].mass;
        b1.angular -= m[0].inertia * (a.r1.perp_dot(j) + impulse[2]);
        let b2 = &mut v[bodies[1]];
        b2.linear += j * m[1].mass;
        b2.angular += m[1].inertia * (a.r2.perp_dot(j) + impulse[2]);
    }
}
