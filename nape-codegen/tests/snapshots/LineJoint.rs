///
///# Derivation
///
///Derived at compile time by `#[constraint]` (`q` = each body's `x, y, θ`).
///
///```text
///position constraint c(q):
///  c0 = (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(cos body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) - sin body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y)) - (anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(sin body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) + cos body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y))
///  c1 = (anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(cos body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) - sin body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y)) + (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(sin body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) + cos body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y))
///limits:
///  0 ≤ c0 ≤ 0
///  joint_min ≤ c1 ≤ joint_max
///
///per-step values (computed once per step from the poses):
///  j0 = sin body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) + cos body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y)
///  j1 = cos body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) - sin body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y)
///  j2 = (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(sin body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) + cos body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y)) + (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ)·(cos body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) - sin body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y)) + (anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(cos body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) - sin body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y)) + (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ)·(sin body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) + cos body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y))
///  j3 = (anchor2.x·cos body2.θ - anchor2.y·sin body2.θ)·(cos body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) - sin body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y)) + (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ)·(sin body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) + cos body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y))
///  j4 = (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ)·(cos body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) - sin body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y)) - (anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(sin body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) + cos body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y)) + (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(cos body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) - sin body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y)) - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ)·(sin body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) + cos body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y))
///  j5 = (anchor2.x·cos body2.θ - anchor2.y·sin body2.θ)·(sin body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) + cos body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y)) - (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ)·(cos body1.θ·direction.x·1 / √(direction.x·direction.x + direction.y·direction.y) - sin body1.θ·direction.y·1 / √(direction.x·direction.x + direction.y·direction.y))
///
///Jacobian J (non-zero entries):
///  ∂c0/∂body1.x = j0
///  ∂c0/∂body1.y = -j1
///  ∂c0/∂body1.θ = -j2
///  ∂c0/∂body2.x = -j0
///  ∂c0/∂body2.y = j1
///  ∂c0/∂body2.θ = j3
///  ∂c1/∂body1.x = -j1
///  ∂c1/∂body1.y = -j0
///  ∂c1/∂body1.θ = j4
///  ∂c1/∂body2.x = j1
///  ∂c1/∂body2.y = j0
///  ∂c1/∂body2.θ = j5
///
///velocity constraint V = J·v:
///  V0 = j3·body2.ω + j1·body2.vy + j0·body1.vx - j1·body1.vy - j2·body1.ω - j0·body2.vx
///  V1 = j5·body2.ω + j0·body2.vy + j1·body2.vx + j4·body1.ω - (j1·body1.vx + j0·body1.vy)
///
///effective mass K = J M⁻¹ Jᵀ (symmetric):
///  K00 = j3·j3·I⁻¹(body2) + j1·j1·m⁻¹(body2) + j0·j0·m⁻¹(body2) + j2·j2·I⁻¹(body1) + j0·j0·m⁻¹(body1) + m⁻¹(body1)·j1·j1
///  K01 = I⁻¹(body2)·j3·j5 + m⁻¹(body2)·j0·j1 - (I⁻¹(body1)·j2·j4 + m⁻¹(body2)·j0·j1)
///  K11 = I⁻¹(body2)·j5·j5 + j0·j0·m⁻¹(body2) + j1·j1·m⁻¹(body2) + j0·j0·m⁻¹(body1) + m⁻¹(body1)·j1·j1 + I⁻¹(body1)·j4·j4
///  when body1 and body2 are the same body:
///    K00 -= I⁻¹(body1)·2·j2·j3 + m⁻¹(body1)·2·j0·j0 + m⁻¹(body1)·2·j1·j1
///    K01 += I⁻¹(body1)·(j3·j4 - j2·j5)
///    K11 += I⁻¹(body1)·2·j4·j5 - (m⁻¹(body1)·2·j0·j0 + m⁻¹(body1)·2·j1·j1)
///```
/// A slider (Nape's LineJoint): `anchor2` of `body2` stays on the line through `anchor1`
/// of `body1` along `direction` (local to `body1`, any non-zero length), at a signed
/// distance along it between `joint_min` and `joint_max`. Two rows: the perpendicular
/// offset (an equality) and the position along the line (a limit).
///
/// Body 1's lever arm is the world point on the line, `d + r₁` (the seed printed `d − r₁`);
/// the macro derives it from the expression. Unlike Nape, `joint_min == joint_max` holds
/// the position along the line in both directions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineJoint {
    /// The body that carries the line.
    pub body1: BodyHandle,
    /// The body that slides.
    pub body2: BodyHandle,
    /// A point of the line, in `body1`'s local coordinates.
    pub anchor1: Vec2,
    /// The sliding point, in `body2`'s local coordinates.
    pub anchor2: Vec2,
    /// The line's direction in `body1`'s local coordinates (normalised by the joint).
    pub direction: Vec2,
    /// Lower bound of the position along the line (may be −∞).
    pub joint_min: f32,
    /// Upper bound of the position along the line (may be +∞).
    pub joint_max: f32,
}
#[automatically_derived]
#[allow(clippy::all, clippy::pedantic, clippy::nursery)]
impl ::nape::__private::Constraint<2, 2> for LineJoint {
    type Jacobian = ::nape::__private::JacobianCache<6>;
    const NAME: &'static str = "LineJoint";
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
                constraint: "LineJoint",
                rule: ::std::string::String::from("joint_min is not NaN"),
                value: ::std::format!("{:?}", self.joint_min),
            });
        }
        if !(!self.joint_max.is_nan()) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "LineJoint",
                rule: ::std::string::String::from("joint_max is not NaN"),
                value: ::std::format!("{:?}", self.joint_max),
            });
        }
        if !self.anchor1.is_finite() {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "LineJoint",
                rule: ::std::string::String::from("anchor1 is finite"),
                value: ::std::format!("{:?}", self.anchor1),
            });
        }
        if !self.anchor2.is_finite() {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "LineJoint",
                rule: ::std::string::String::from("anchor2 is finite"),
                value: ::std::format!("{:?}", self.anchor2),
            });
        }
        if !self.direction.is_finite() {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "LineJoint",
                rule: ::std::string::String::from("direction is finite"),
                value: ::std::format!("{:?}", self.direction),
            });
        }
        if self.body1 == self.body2 {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "LineJoint",
                rule: ::std::string::String::from("body1 != body2"),
                value: ::std::format!("both are {:?}", self.body1),
            });
        }
        if !((self.direction.x * self.direction.x + self.direction.y * self.direction.y)
            .sqrt() > 0.000001f32)
        {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "LineJoint",
                rule: ::std::string::String::from("direction . length () > 1e-6"),
                value: ::std::format!(
                    "{} = {:?}, {} = {:?}", ::core::stringify!((self.direction.x * self
                    .direction.x + self.direction.y * self.direction.y).sqrt()), (self
                    .direction.x * self.direction.x + self.direction.y * self.direction
                    .y).sqrt(), ::core::stringify!(0.000001f32), 0.000001f32
                ),
            });
        }
        if !(self.joint_min <= self.joint_max) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "LineJoint",
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
    fn bounds(&self) -> [::nape::__private::Bounds; 2] {
        [
            ::nape::__private::Bounds::new(0f32, 0f32),
            ::nape::__private::Bounds::new(self.joint_min, self.joint_max),
        ]
    }
    #[inline]
    fn position_error(&self, __poses: &[::nape::__private::Pose; 2]) -> [f32; 2] {
        let __t31: f32 = self.anchor2.x * __poses[1].cos
            - self.anchor2.y * __poses[1].sin + __poses[1].position.x
            - (self.anchor1.x * __poses[0].cos - self.anchor1.y * __poses[0].sin
                + __poses[0].position.x);
        let __t33: f32 = self.anchor2.x * __poses[1].sin
            + self.anchor2.y * __poses[1].cos + __poses[1].position.y
            - (self.anchor1.x * __poses[0].sin + self.anchor1.y * __poses[0].cos
                + __poses[0].position.y);
        let __t40: f32 = ::nape::__private::safe_recip(
            (self.direction.x * self.direction.x + self.direction.y * self.direction.y)
                .sqrt(),
        );
        let __t41: f32 = self.direction.x * __t40;
        let __t42: f32 = self.direction.y * __t40;
        let __t48: f32 = __poses[0].cos * __t41 - __poses[0].sin * __t42;
        let __t49: f32 = __poses[0].sin * __t41 + __poses[0].cos * __t42;
        [__t33 * __t48 - __t31 * __t49, __t31 * __t48 + __t33 * __t49]
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
        let __t40: f32 = ::nape::__private::safe_recip(
            (self.direction.x * self.direction.x + self.direction.y * self.direction.y)
                .sqrt(),
        );
        let __t41: f32 = self.direction.x * __t40;
        let __t42: f32 = self.direction.y * __t40;
        let __t48: f32 = __poses[0].cos * __t41 - __poses[0].sin * __t42;
        let __t49: f32 = __poses[0].sin * __t41 + __poses[0].cos * __t42;
        ::nape::__private::JacobianCache([
            __t49,
            __t48,
            __t33 * __t49 + __t24 * __t48 + __t31 * __t48 + __t25 * __t49,
            __t9 * __t48 + __t10 * __t49,
            __t25 * __t48 - __t31 * __t49 + __t33 * __t48 - __t24 * __t49,
            __t9 * __t49 - __t10 * __t48,
        ])
    }
    #[inline]
    fn effective_mass(
        &self,
        __jacobian: &Self::Jacobian,
        __inverse_masses: &[::nape::__private::InverseMass; 2],
        __shared: ::nape::__private::SharedSlots,
    ) -> [[f32; 2]; 2] {
        let __t146: f32 = __jacobian.0[0] * __jacobian.0[0];
        let __t149: f32 = __jacobian.0[1] * __jacobian.0[1];
        let __t158: f32 = __t146 * __inverse_masses[1].mass;
        let __t159: f32 = __t149 * __inverse_masses[1].mass;
        let __t163: f32 = __t146 * __inverse_masses[0].mass
            + __inverse_masses[0].mass * __t149;
        let __t176: f32 = __inverse_masses[1].mass * (__jacobian.0[0] * __jacobian.0[1]);
        let mut __k0_0: f32 = __jacobian.0[3] * __jacobian.0[3]
            * __inverse_masses[1].inertia + __t159 + __t158
            + __jacobian.0[2] * __jacobian.0[2] * __inverse_masses[0].inertia + __t163;
        let mut __k0_1: f32 = __inverse_masses[1].inertia
            * (__jacobian.0[3] * __jacobian.0[5]) + __t176
            - (__inverse_masses[0].inertia * (__jacobian.0[2] * __jacobian.0[4])
                + __t176);
        let mut __k1_1: f32 = __inverse_masses[1].inertia
            * (__jacobian.0[5] * __jacobian.0[5]) + __t158 + __t159 + __t163
            + __inverse_masses[0].inertia * (__jacobian.0[4] * __jacobian.0[4]);
        if __shared.contains(0, 1) {
            let __t207: f32 = __inverse_masses[0].mass * (2f32 * __t146)
                + __inverse_masses[0].mass * (2f32 * __t149);
            __k0_0
                -= (__inverse_masses[0].inertia
                    * (2f32 * (__jacobian.0[2] * __jacobian.0[3])) + __t207);
            __k0_1
                += (__inverse_masses[0].inertia
                    * (__jacobian.0[3] * __jacobian.0[4]
                        - __jacobian.0[2] * __jacobian.0[5]));
            __k1_1
                += (__inverse_masses[0].inertia
                    * (2f32 * (__jacobian.0[4] * __jacobian.0[5])) - __t207);
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
            __jacobian.0[3] * __velocity1.angular
                + __jacobian.0[1] * __velocity1.linear.y
                + __jacobian.0[0] * __velocity0.linear.x
                - __jacobian.0[1] * __velocity0.linear.y
                - __jacobian.0[2] * __velocity0.angular
                - __jacobian.0[0] * __velocity1.linear.x,
            __jacobian.0[5] * __velocity1.angular
                + __jacobian.0[0] * __velocity1.linear.y
                + __jacobian.0[1] * __velocity1.linear.x
                + __jacobian.0[4] * __velocity0.angular
                - (__jacobian.0[1] * __velocity0.linear.x
                    + __jacobian.0[0] * __velocity0.linear.y),
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
        let __t225: f32 = __jacobian.0[0] * __impulse[0];
        let __t227: f32 = __jacobian.0[1] * __impulse[1];
        let __t234: f32 = __jacobian.0[1] * __impulse[0]
            + __jacobian.0[0] * __impulse[1];
        {
            let __body = &mut __velocities[__bodies[0]];
            __body.linear.x += __inverse_masses[0].mass * (__t225 - __t227);
            __body.linear.y -= __inverse_masses[0].mass * __t234;
            __body.angular
                += __inverse_masses[0].inertia
                    * (__jacobian.0[4] * __impulse[1] - __jacobian.0[2] * __impulse[0]);
        }
        {
            let __body = &mut __velocities[__bodies[1]];
            __body.linear.x += __inverse_masses[1].mass * (__t227 - __t225);
            __body.linear.y += __inverse_masses[1].mass * __t234;
            __body.angular
                += __inverse_masses[1].inertia
                    * (__jacobian.0[3] * __impulse[0] + __jacobian.0[5] * __impulse[1]);
        }
    }
}
