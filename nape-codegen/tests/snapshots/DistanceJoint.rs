///
///# Derivation
///
///Derived at compile time by `#[constraint]` (`q` = each body's `x, y, θ`).
///
///```text
///position constraint c(q):
///  c0 = √((anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)) + (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)))
///limits:
///  joint_min ≤ c0 ≤ joint_max
///
///per-step values (computed once per step from the poses):
///  j0 = 2·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·0.5·1 / √((anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)) + (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)))
///  j1 = 0.5·1 / √((anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)) + (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)))·2·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))
///  j2 = 0.5·1 / √((anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)) + (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)))·(2·(anchor1.x·sin body1.θ + anchor1.y·cos body1.θ)·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)) - 2·(anchor1.x·cos body1.θ - anchor1.y·sin body1.θ)·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)))
///  j3 = 0.5·1 / √((anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)) + (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)))·(2·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ)·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)) - 2·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ)·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)))
///
///Jacobian J (non-zero entries):
///  ∂c0/∂body1.x = -j0
///  ∂c0/∂body1.y = -j1
///  ∂c0/∂body1.θ = j2
///  ∂c0/∂body2.x = j0
///  ∂c0/∂body2.y = j1
///  ∂c0/∂body2.θ = j3
///
///velocity constraint V = J·v:
///  V0 = j3·body2.ω + j1·body2.vy + j0·body2.vx + j2·body1.ω - (j0·body1.vx + j1·body1.vy)
///
///effective mass K = J M⁻¹ Jᵀ (symmetric):
///  K00 = j3·j3·I⁻¹(body2) + j1·j1·m⁻¹(body2) + j0·j0·m⁻¹(body2) + j2·j2·I⁻¹(body1) + j0·j0·m⁻¹(body1) + m⁻¹(body1)·j1·j1
///  when body1 and body2 are the same body:
///    K00 += I⁻¹(body1)·2·j2·j3 - (m⁻¹(body1)·2·j0·j0 + m⁻¹(body1)·2·j1·j1)
///```
/// Keeps the distance between two anchors between `joint_min` and `joint_max` (Nape's
/// DistanceJoint): a rope when `joint_min` is 0, a rod when they are equal (then both
/// directions are held; Nape clamped one of them). One row.
///
/// When the anchors coincide the direction is undefined: the row's Jacobian is zero for
/// that step and the joint does nothing (Nape makes it slack too). Prefer a `PivotJoint`
/// for a zero-length joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceJoint {
    /// The first body.
    pub body1: BodyHandle,
    /// The second body.
    pub body2: BodyHandle,
    /// The anchor in `body1`'s local coordinates.
    pub anchor1: Vec2,
    /// The anchor in `body2`'s local coordinates.
    pub anchor2: Vec2,
    /// Shortest allowed distance (≥ 0).
    pub joint_min: f32,
    /// Longest allowed distance (may be infinite).
    pub joint_max: f32,
}
#[automatically_derived]
#[allow(clippy::all, clippy::pedantic, clippy::nursery)]
impl ::nape::__private::Constraint<1, 2> for DistanceJoint {
    type Jacobian = ::nape::__private::JacobianCache<4>;
    const NAME: &'static str = "DistanceJoint";
    const VELOCITY_ONLY: bool = false;
    const HAS_LIMITS: bool = true;
    #[inline]
    fn bodies(&self) -> [::nape::__private::BodyHandle; 2] {
        [self.body1, self.body2]
    }
    #[inline]
    fn set_bodies(&mut self, __bodies: [::nape::__private::BodyHandle; 2]) {
        [self.body1, self.body2] = __bodies;
    }
    fn validate(
        &self,
    ) -> ::core::result::Result<(), ::nape::__private::InvalidParameter> {
        if !(!self.joint_min.is_nan()) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "DistanceJoint",
                rule: ::std::string::String::from("joint_min is not NaN"),
                value: ::std::format!("{:?}", self.joint_min),
            });
        }
        if !(!self.joint_max.is_nan()) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "DistanceJoint",
                rule: ::std::string::String::from("joint_max is not NaN"),
                value: ::std::format!("{:?}", self.joint_max),
            });
        }
        if !self.anchor1.is_finite() {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "DistanceJoint",
                rule: ::std::string::String::from("anchor1 is finite"),
                value: ::std::format!("{:?}", self.anchor1),
            });
        }
        if !self.anchor2.is_finite() {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "DistanceJoint",
                rule: ::std::string::String::from("anchor2 is finite"),
                value: ::std::format!("{:?}", self.anchor2),
            });
        }
        if self.body1 == self.body2 {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "DistanceJoint",
                rule: ::std::string::String::from("body1 != body2"),
                value: ::std::format!("both are {:?}", self.body1),
            });
        }
        if !(self.joint_min >= 0f32) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "DistanceJoint",
                rule: ::std::string::String::from("joint_min >= 0.0"),
                value: ::std::format!(
                    "{} = {:?}, {} = {:?}", ::core::stringify!(self.joint_min), self
                    .joint_min, ::core::stringify!(0f32), 0f32
                ),
            });
        }
        if !(self.joint_min <= self.joint_max) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "DistanceJoint",
                rule: ::std::string::String::from("joint_min <= joint_max"),
                value: ::std::format!(
                    "{} = {:?}, {} = {:?}", ::core::stringify!(self.joint_min), self
                    .joint_min, ::core::stringify!(self.joint_max), self.joint_max
                ),
            });
        }
        ::core::result::Result::Ok(())
    }
    #[inline]
    fn bounds(&self) -> [::nape::__private::Bounds; 1] {
        [::nape::__private::Bounds::new(self.joint_min, self.joint_max)]
    }
    #[inline]
    fn position_error(&self, __poses: &[::nape::__private::Pose; 2]) -> [f32; 1] {
        let __t31: f32 = self.anchor2.x * __poses[1].cos
            - self.anchor2.y * __poses[1].sin + __poses[1].position.x
            - (self.anchor1.x * __poses[0].cos - self.anchor1.y * __poses[0].sin
                + __poses[0].position.x);
        let __t33: f32 = self.anchor2.x * __poses[1].sin
            + self.anchor2.y * __poses[1].cos + __poses[1].position.y
            - (self.anchor1.x * __poses[0].sin + self.anchor1.y * __poses[0].cos
                + __poses[0].position.y);
        [(__t31 * __t31 + __t33 * __t33).sqrt()]
    }
    #[inline]
    fn jacobian(&self, __poses: &[::nape::__private::Pose; 2]) -> Self::Jacobian {
        let __t9: f32 = self.anchor2.x * __poses[1].cos
            - self.anchor2.y * __poses[1].sin;
        let __t10: f32 = self.anchor2.x * __poses[1].sin
            + self.anchor2.y * __poses[1].cos;
        let __t24: f32 = self.anchor1.x * __poses[0].cos
            - self.anchor1.y * __poses[0].sin;
        let __t25: f32 = self.anchor1.x * __poses[0].sin
            + self.anchor1.y * __poses[0].cos;
        let __t31: f32 = __t9 + __poses[1].position.x - (__t24 + __poses[0].position.x);
        let __t33: f32 = __t10 + __poses[1].position.y - (__t25 + __poses[0].position.y);
        let __t49: f32 = 0.5f32
            * ::nape::__private::safe_recip((__t31 * __t31 + __t33 * __t33).sqrt());
        ::nape::__private::JacobianCache([
            2f32 * __t31 * __t49,
            __t49 * (2f32 * __t33),
            __t49 * (2f32 * (__t25 * __t31) - 2f32 * (__t24 * __t33)),
            __t49 * (2f32 * (__t9 * __t33) - 2f32 * (__t10 * __t31)),
        ])
    }
    #[inline]
    fn effective_mass(
        &self,
        __jacobian: &Self::Jacobian,
        __inverse_masses: &[::nape::__private::InverseMass; 2],
        __shared: ::nape::__private::SharedSlots,
    ) -> [[f32; 1]; 1] {
        let __t108: f32 = __jacobian.0[0] * __jacobian.0[0];
        let __t112: f32 = __jacobian.0[1] * __jacobian.0[1];
        let mut __k0_0: f32 = __jacobian.0[3] * __jacobian.0[3]
            * __inverse_masses[1].inertia + __t112 * __inverse_masses[1].mass
            + __t108 * __inverse_masses[1].mass
            + __jacobian.0[2] * __jacobian.0[2] * __inverse_masses[0].inertia
            + __t108 * __inverse_masses[0].mass + __inverse_masses[0].mass * __t112;
        if __shared.contains(0, 1) {
            __k0_0
                += (__inverse_masses[0].inertia
                    * (2f32 * (__jacobian.0[2] * __jacobian.0[3]))
                    - (__inverse_masses[0].mass * (2f32 * __t108)
                        + __inverse_masses[0].mass * (2f32 * __t112)));
        }
        [[__k0_0]]
    }
    #[inline]
    fn velocity_error(
        &self,
        __jacobian: &Self::Jacobian,
        __bodies: &[usize; 2],
        __velocities: &[::nape::__private::Velocity],
    ) -> [f32; 1] {
        let __velocity0 = __velocities[__bodies[0]];
        let __velocity1 = __velocities[__bodies[1]];
        [
            __jacobian.0[3] * __velocity1.angular
                + __jacobian.0[1] * __velocity1.linear.y
                + __jacobian.0[0] * __velocity1.linear.x
                + __jacobian.0[2] * __velocity0.angular
                - (__jacobian.0[0] * __velocity0.linear.x
                    + __jacobian.0[1] * __velocity0.linear.y),
        ]
    }
    #[inline]
    fn apply_impulse(
        &self,
        __jacobian: &Self::Jacobian,
        __impulse: &[f32; 1],
        __inverse_masses: &[::nape::__private::InverseMass; 2],
        __bodies: &[usize; 2],
        __velocities: &mut [::nape::__private::Velocity],
    ) {
        let __t144: f32 = __jacobian.0[0] * __impulse[0];
        let __t146: f32 = __jacobian.0[1] * __impulse[0];
        {
            let __body = &mut __velocities[__bodies[0]];
            __body.linear.x -= __inverse_masses[0].mass * __t144;
            __body.linear.y -= __inverse_masses[0].mass * __t146;
            __body.angular
                += __inverse_masses[0].inertia * (__jacobian.0[2] * __impulse[0]);
        }
        {
            let __body = &mut __velocities[__bodies[1]];
            __body.linear.x += __inverse_masses[1].mass * __t144;
            __body.linear.y += __inverse_masses[1].mass * __t146;
            __body.angular
                += __inverse_masses[1].inertia * (__jacobian.0[3] * __impulse[0]);
        }
    }
}
