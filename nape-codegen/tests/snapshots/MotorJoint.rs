///
///# Derivation
///
///Derived at compile time by `#[constraint]` (`q` = each body's `x, y, θ`).
///
///```text
///velocity constraint J·v + b = 0, with b:
///  b0 = -rate
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
/// Drives `ratio·ω₂ − ω₁` to `rate` (Nape's MotorJoint). Velocity-only: it has no position
/// error, takes no part in the position iterations, and softness does not apply; bound its
/// torque with the settings' `max_force`, which (as in Nape) applies even when stiff.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotorJoint {
    /// The first body.
    pub body1: BodyHandle,
    /// The second body.
    pub body2: BodyHandle,
    /// Target of `ratio·ω₂ − ω₁`, in radians per second. Nape's default is 0.
    pub rate: f32,
    /// Gear ratio applied to `body2`'s angular velocity. Nape's default is 1.
    pub ratio: f32,
}
#[automatically_derived]
#[allow(clippy::all, clippy::pedantic, clippy::nursery)]
impl ::nape::__private::Constraint<1, 2> for MotorJoint {
    type Jacobian = ::nape::__private::JacobianCache<0>;
    const NAME: &'static str = "MotorJoint";
    const VELOCITY_ONLY: bool = true;
    const HAS_LIMITS: bool = false;
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
        if !(self.rate.is_finite()) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "MotorJoint",
                rule: ::std::string::String::from("rate is finite"),
                value: ::std::format!("{:?}", self.rate),
            });
        }
        if !(self.ratio.is_finite()) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "MotorJoint",
                rule: ::std::string::String::from("ratio is finite"),
                value: ::std::format!("{:?}", self.ratio),
            });
        }
        if self.body1 == self.body2 {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "MotorJoint",
                rule: ::std::string::String::from("body1 != body2"),
                value: ::std::format!("both are {:?}", self.body1),
            });
        }
        ::core::result::Result::Ok(())
    }
    #[inline]
    fn position_error(&self, __poses: &[::nape::__private::Pose; 2]) -> [f32; 1] {
        [0.0f32]
    }
    #[inline]
    fn velocity_bias(&self) -> [f32; 1] {
        [-self.rate]
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
