///
///# Derivation
///
///Derived at compile time by `#[constraint]` (`q` = each body's `x, y, θ`).
///
///```text
///position constraint c(q):
///  c0 = anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)
///  c1 = anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)
///
///per-step values (computed once per step from the poses):
///  j0 = anchor1.x·sin body1.θ + anchor1.y·cos body1.θ
///  j1 = anchor2.x·sin body2.θ + anchor2.y·cos body2.θ
///  j2 = anchor1.x·cos body1.θ - anchor1.y·sin body1.θ
///  j3 = anchor2.x·cos body2.θ - anchor2.y·sin body2.θ
///
///Jacobian J (non-zero entries):
///  ∂c0/∂body1.x = -1
///  ∂c0/∂body1.θ = j0
///  ∂c0/∂body2.x = 1
///  ∂c0/∂body2.θ = -j1
///  ∂c1/∂body1.y = -1
///  ∂c1/∂body1.θ = -j2
///  ∂c1/∂body2.y = 1
///  ∂c1/∂body2.θ = j3
///
///velocity constraint V = J·v:
///  V0 = body2.vx + j0·body1.ω - body1.vx - j1·body2.ω
///  V1 = j3·body2.ω + body2.vy - (body1.vy + j2·body1.ω)
///
///effective mass K = J M⁻¹ Jᵀ (symmetric):
///  K00 = j1·j1·I⁻¹(body2) + m⁻¹(body2) + m⁻¹(body1) + j0·j0·I⁻¹(body1)
///  K01 = -(I⁻¹(body1)·j0·j2 + I⁻¹(body2)·j1·j3)
///  K11 = I⁻¹(body2)·j3·j3 + m⁻¹(body2) + m⁻¹(body1) + I⁻¹(body1)·j2·j2
///  when body1 and body2 are the same body:
///    K00 -= 2·m⁻¹(body1) + I⁻¹(body1)·2·j0·j1
///    K01 += I⁻¹(body1)·(j0·j3 + j1·j2)
///    K11 -= 2·m⁻¹(body1) + I⁻¹(body1)·2·j2·j3
///```
/// Locks a point of one body to a point of another: `anchor1` (local to `body1`) and
/// `anchor2` (local to `body2`) share one world position. Two rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PivotJoint {
    /// The first body.
    pub body1: BodyHandle,
    /// The second body.
    pub body2: BodyHandle,
    /// The pivot in `body1`'s local coordinates.
    pub anchor1: Vec2,
    /// The pivot in `body2`'s local coordinates.
    pub anchor2: Vec2,
}
#[automatically_derived]
#[allow(clippy::all, clippy::pedantic, clippy::nursery)]
impl ::nape::__private::Constraint<2, 2> for PivotJoint {
    type Jacobian = ::nape::__private::JacobianCache<4>;
    const NAME: &'static str = "PivotJoint";
    const VELOCITY_ONLY: bool = false;
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
        if !self.anchor1.is_finite() {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "PivotJoint",
                rule: ::std::string::String::from("anchor1 is finite"),
                value: ::std::format!("{:?}", self.anchor1),
            });
        }
        if !self.anchor2.is_finite() {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "PivotJoint",
                rule: ::std::string::String::from("anchor2 is finite"),
                value: ::std::format!("{:?}", self.anchor2),
            });
        }
        ::core::result::Result::Ok(())
    }
    #[inline]
    fn position_error(&self, __poses: &[::nape::__private::Pose; 2]) -> [f32; 2] {
        [
            self.anchor2.x * __poses[1].cos - self.anchor2.y * __poses[1].sin
                + __poses[1].position.x
                - (self.anchor1.x * __poses[0].cos - self.anchor1.y * __poses[0].sin
                    + __poses[0].position.x),
            self.anchor2.x * __poses[1].sin + self.anchor2.y * __poses[1].cos
                + __poses[1].position.y
                - (self.anchor1.x * __poses[0].sin + self.anchor1.y * __poses[0].cos
                    + __poses[0].position.y),
        ]
    }
    #[inline]
    fn jacobian(&self, __poses: &[::nape::__private::Pose; 2]) -> Self::Jacobian {
        ::nape::__private::JacobianCache([
            self.anchor1.x * __poses[0].sin + self.anchor1.y * __poses[0].cos,
            self.anchor2.x * __poses[1].sin + self.anchor2.y * __poses[1].cos,
            self.anchor1.x * __poses[0].cos - self.anchor1.y * __poses[0].sin,
            self.anchor2.x * __poses[1].cos - self.anchor2.y * __poses[1].sin,
        ])
    }
    #[inline]
    fn effective_mass(
        &self,
        __jacobian: &Self::Jacobian,
        __inverse_masses: &[::nape::__private::InverseMass; 2],
        __shared: ::nape::__private::SharedSlots,
    ) -> [[f32; 2]; 2] {
        let mut __k0_0: f32 = __jacobian.0[1] * __jacobian.0[1]
            * __inverse_masses[1].inertia + __inverse_masses[1].mass
            + __inverse_masses[0].mass
            + __jacobian.0[0] * __jacobian.0[0] * __inverse_masses[0].inertia;
        let mut __k0_1: f32 = -(__inverse_masses[0].inertia
            * (__jacobian.0[0] * __jacobian.0[2])
            + __inverse_masses[1].inertia * (__jacobian.0[1] * __jacobian.0[3]));
        let mut __k1_1: f32 = __inverse_masses[1].inertia
            * (__jacobian.0[3] * __jacobian.0[3]) + __inverse_masses[1].mass
            + __inverse_masses[0].mass
            + __inverse_masses[0].inertia * (__jacobian.0[2] * __jacobian.0[2]);
        if __shared.contains(0, 1) {
            let __t105: f32 = 2f32 * __inverse_masses[0].mass;
            __k0_0
                -= (__t105
                    + __inverse_masses[0].inertia
                        * (2f32 * (__jacobian.0[0] * __jacobian.0[1])));
            __k0_1
                += (__inverse_masses[0].inertia
                    * (__jacobian.0[0] * __jacobian.0[3]
                        + __jacobian.0[1] * __jacobian.0[2]));
            __k1_1
                -= (__t105
                    + __inverse_masses[0].inertia
                        * (2f32 * (__jacobian.0[2] * __jacobian.0[3])));
        }
        [[__k0_0, __k0_1], [__k0_1, __k1_1]]
    }
    #[inline]
    fn velocity_error(
        &self,
        __jacobian: &Self::Jacobian,
        __bodies: &[usize; 2],
        __velocities: &[::nape::__private::Velocity],
    ) -> [f32; 2] {
        let __velocity0 = __velocities[__bodies[0]];
        let __velocity1 = __velocities[__bodies[1]];
        [
            __velocity1.linear.x + __jacobian.0[0] * __velocity0.angular
                - __velocity0.linear.x - __jacobian.0[1] * __velocity1.angular,
            __jacobian.0[3] * __velocity1.angular + __velocity1.linear.y
                - (__velocity0.linear.y + __jacobian.0[2] * __velocity0.angular),
        ]
    }
    #[inline]
    fn apply_impulse(
        &self,
        __jacobian: &Self::Jacobian,
        __impulse: &[f32; 2],
        __inverse_masses: &[::nape::__private::InverseMass; 2],
        __bodies: &[usize; 2],
        __velocities: &mut [::nape::__private::Velocity],
    ) {
        {
            let __body = &mut __velocities[__bodies[0]];
            __body.linear.x -= __inverse_masses[0].mass * __impulse[0];
            __body.linear.y -= __inverse_masses[0].mass * __impulse[1];
            __body.angular
                += __inverse_masses[0].inertia
                    * (__jacobian.0[0] * __impulse[0] - __jacobian.0[2] * __impulse[1]);
        }
        {
            let __body = &mut __velocities[__bodies[1]];
            __body.linear.x += __inverse_masses[1].mass * __impulse[0];
            __body.linear.y += __inverse_masses[1].mass * __impulse[1];
            __body.angular
                += __inverse_masses[1].inertia
                    * (__jacobian.0[3] * __impulse[1] - __jacobian.0[1] * __impulse[0]);
        }
    }
}
