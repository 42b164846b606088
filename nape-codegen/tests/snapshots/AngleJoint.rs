///
///# Derivation
///
///Derived at compile time by `#[constraint]` (`q` = each body's `x, y, θ`).
///
///```text
///position constraint c(q):
///  c0 = ratio·body2.θ - body1.θ
///limits:
///  joint_min ≤ c0 ≤ joint_max
///
///per-step values (computed once per step from the poses):
///  (none: J is constant)
///
///Jacobian J (non-zero entries):
///  ∂c0/∂body1.θ = -1
///  ∂c0/∂body2.θ = ratio
///
///velocity constraint V = J·v:
///  V0 = ratio·body2.ω - body1.ω
///
///effective mass K = J M⁻¹ Jᵀ (symmetric):
///  K00 = I⁻¹(body1) + ratio·ratio·I⁻¹(body2)
///  when body1 and body2 are the same body:
///    K00 -= I⁻¹(body1)·2·ratio
///```
/// Keeps `ratio·θ₂ − θ₁` between `joint_min` and `joint_max` (Nape's AngleJoint). One row;
/// with `joint_min == joint_max` an equality, otherwise a limit that acts only at its ends.
/// The bounds may be infinite (an open end), never NaN.
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
    /// Gear ratio applied to `body2`'s angle. Nape's default is 1.
    pub ratio: f32,
}
#[automatically_derived]
#[allow(clippy::all, clippy::pedantic, clippy::nursery)]
impl ::nape::__private::Constraint<1, 2> for AngleJoint {
    type Jacobian = ::nape::__private::JacobianCache<0>;
    const NAME: &'static str = "AngleJoint";
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
                constraint: "AngleJoint",
                rule: ::std::string::String::from("joint_min is not NaN"),
                value: ::std::format!("{:?}", self.joint_min),
            });
        }
        if !(!self.joint_max.is_nan()) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "AngleJoint",
                rule: ::std::string::String::from("joint_max is not NaN"),
                value: ::std::format!("{:?}", self.joint_max),
            });
        }
        if !(self.ratio.is_finite()) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "AngleJoint",
                rule: ::std::string::String::from("ratio is finite"),
                value: ::std::format!("{:?}", self.ratio),
            });
        }
        if self.body1 == self.body2 {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "AngleJoint",
                rule: ::std::string::String::from("body1 != body2"),
                value: ::std::format!("both are {:?}", self.body1),
            });
        }
        if !(self.joint_min <= self.joint_max) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "AngleJoint",
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
        [self.ratio * __poses[1].angle - __poses[0].angle]
    }
    #[inline]
    fn jacobian(&self, __poses: &[::nape::__private::Pose; 2]) -> Self::Jacobian {
        ::nape::__private::JacobianCache([])
    }
    #[inline]
    fn effective_mass(
        &self,
        __jacobian: &Self::Jacobian,
        __inverse_masses: &[::nape::__private::InverseMass; 2],
        __shared: ::nape::__private::SharedSlots,
    ) -> [[f32; 1]; 1] {
        let mut __k0_0: f32 = __inverse_masses[0].inertia
            + self.ratio * self.ratio * __inverse_masses[1].inertia;
        if __shared.contains(0, 1) {
            __k0_0 -= (__inverse_masses[0].inertia * (2f32 * self.ratio));
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
        [self.ratio * __velocity1.angular - __velocity0.angular]
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
        {
            let __body = &mut __velocities[__bodies[0]];
            __body.angular -= __inverse_masses[0].inertia * __impulse[0];
        }
        {
            let __body = &mut __velocities[__bodies[1]];
            __body.angular += __inverse_masses[1].inertia * (self.ratio * __impulse[0]);
        }
    }
}
