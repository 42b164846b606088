///
///# Derivation
///
///Derived at compile time by `#[constraint]` (`q` = each body's `x, y, θ`).
///
///```text
///position constraint c(q):
///  c0 = √((anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)) + (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))) + ratio·√((anchor4.x·cos body4.θ - anchor4.y·sin body4.θ + body4.x - (anchor3.x·cos body3.θ - anchor3.y·sin body3.θ + body3.x))·(anchor4.x·cos body4.θ - anchor4.y·sin body4.θ + body4.x - (anchor3.x·cos body3.θ - anchor3.y·sin body3.θ + body3.x)) + (anchor4.x·sin body4.θ + anchor4.y·cos body4.θ + body4.y - (anchor3.x·sin body3.θ + anchor3.y·cos body3.θ + body3.y))·(anchor4.x·sin body4.θ + anchor4.y·cos body4.θ + body4.y - (anchor3.x·sin body3.θ + anchor3.y·cos body3.θ + body3.y)))
///limits:
///  joint_min ≤ c0 ≤ joint_max
///
///per-step values (computed once per step from the poses):
///  j0 = 2·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·0.5·1 / √((anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)) + (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)))
///  j1 = 0.5·1 / √((anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)) + (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)))·2·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))
///  j2 = 0.5·1 / √((anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)) + (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)))·(2·(anchor1.x·sin body1.θ + anchor1.y·cos body1.θ)·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)) - 2·(anchor1.x·cos body1.θ - anchor1.y·sin body1.θ)·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)))
///  j3 = 0.5·1 / √((anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x))·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)) + (anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y))·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)))·(2·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ)·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ + body2.y - (anchor1.x·sin body1.θ + anchor1.y·cos body1.θ + body1.y)) - 2·(anchor2.x·sin body2.θ + anchor2.y·cos body2.θ)·(anchor2.x·cos body2.θ - anchor2.y·sin body2.θ + body2.x - (anchor1.x·cos body1.θ - anchor1.y·sin body1.θ + body1.x)))
///  j4 = ratio·0.5·1 / √((anchor4.x·cos body4.θ - anchor4.y·sin body4.θ + body4.x - (anchor3.x·cos body3.θ - anchor3.y·sin body3.θ + body3.x))·(anchor4.x·cos body4.θ - anchor4.y·sin body4.θ + body4.x - (anchor3.x·cos body3.θ - anchor3.y·sin body3.θ + body3.x)) + (anchor4.x·sin body4.θ + anchor4.y·cos body4.θ + body4.y - (anchor3.x·sin body3.θ + anchor3.y·cos body3.θ + body3.y))·(anchor4.x·sin body4.θ + anchor4.y·cos body4.θ + body4.y - (anchor3.x·sin body3.θ + anchor3.y·cos body3.θ + body3.y)))·2·(anchor4.x·cos body4.θ - anchor4.y·sin body4.θ + body4.x - (anchor3.x·cos body3.θ - anchor3.y·sin body3.θ + body3.x))
///  j5 = ratio·0.5·1 / √((anchor4.x·cos body4.θ - anchor4.y·sin body4.θ + body4.x - (anchor3.x·cos body3.θ - anchor3.y·sin body3.θ + body3.x))·(anchor4.x·cos body4.θ - anchor4.y·sin body4.θ + body4.x - (anchor3.x·cos body3.θ - anchor3.y·sin body3.θ + body3.x)) + (anchor4.x·sin body4.θ + anchor4.y·cos body4.θ + body4.y - (anchor3.x·sin body3.θ + anchor3.y·cos body3.θ + body3.y))·(anchor4.x·sin body4.θ + anchor4.y·cos body4.θ + body4.y - (anchor3.x·sin body3.θ + anchor3.y·cos body3.θ + body3.y)))·2·(anchor4.x·sin body4.θ + anchor4.y·cos body4.θ + body4.y - (anchor3.x·sin body3.θ + anchor3.y·cos body3.θ + body3.y))
///  j6 = ratio·0.5·1 / √((anchor4.x·cos body4.θ - anchor4.y·sin body4.θ + body4.x - (anchor3.x·cos body3.θ - anchor3.y·sin body3.θ + body3.x))·(anchor4.x·cos body4.θ - anchor4.y·sin body4.θ + body4.x - (anchor3.x·cos body3.θ - anchor3.y·sin body3.θ + body3.x)) + (anchor4.x·sin body4.θ + anchor4.y·cos body4.θ + body4.y - (anchor3.x·sin body3.θ + anchor3.y·cos body3.θ + body3.y))·(anchor4.x·sin body4.θ + anchor4.y·cos body4.θ + body4.y - (anchor3.x·sin body3.θ + anchor3.y·cos body3.θ + body3.y)))·(2·(anchor3.x·sin body3.θ + anchor3.y·cos body3.θ)·(anchor4.x·cos body4.θ - anchor4.y·sin body4.θ + body4.x - (anchor3.x·cos body3.θ - anchor3.y·sin body3.θ + body3.x)) - 2·(anchor3.x·cos body3.θ - anchor3.y·sin body3.θ)·(anchor4.x·sin body4.θ + anchor4.y·cos body4.θ + body4.y - (anchor3.x·sin body3.θ + anchor3.y·cos body3.θ + body3.y)))
///  j7 = ratio·0.5·1 / √((anchor4.x·cos body4.θ - anchor4.y·sin body4.θ + body4.x - (anchor3.x·cos body3.θ - anchor3.y·sin body3.θ + body3.x))·(anchor4.x·cos body4.θ - anchor4.y·sin body4.θ + body4.x - (anchor3.x·cos body3.θ - anchor3.y·sin body3.θ + body3.x)) + (anchor4.x·sin body4.θ + anchor4.y·cos body4.θ + body4.y - (anchor3.x·sin body3.θ + anchor3.y·cos body3.θ + body3.y))·(anchor4.x·sin body4.θ + anchor4.y·cos body4.θ + body4.y - (anchor3.x·sin body3.θ + anchor3.y·cos body3.θ + body3.y)))·(2·(anchor4.x·cos body4.θ - anchor4.y·sin body4.θ)·(anchor4.x·sin body4.θ + anchor4.y·cos body4.θ + body4.y - (anchor3.x·sin body3.θ + anchor3.y·cos body3.θ + body3.y)) - 2·(anchor4.x·sin body4.θ + anchor4.y·cos body4.θ)·(anchor4.x·cos body4.θ - anchor4.y·sin body4.θ + body4.x - (anchor3.x·cos body3.θ - anchor3.y·sin body3.θ + body3.x)))
///
///Jacobian J (non-zero entries):
///  ∂c0/∂body1.x = -j0
///  ∂c0/∂body1.y = -j1
///  ∂c0/∂body1.θ = j2
///  ∂c0/∂body2.x = j0
///  ∂c0/∂body2.y = j1
///  ∂c0/∂body2.θ = j3
///  ∂c0/∂body3.x = -j4
///  ∂c0/∂body3.y = -j5
///  ∂c0/∂body3.θ = j6
///  ∂c0/∂body4.x = j4
///  ∂c0/∂body4.y = j5
///  ∂c0/∂body4.θ = j7
///
///velocity constraint V = J·v:
///  V0 = j7·body4.ω + j5·body4.vy + j4·body4.vx + j6·body3.ω + j3·body2.ω + j1·body2.vy + j0·body2.vx + j2·body1.ω - (j0·body1.vx + j1·body1.vy) - j4·body3.vx - j5·body3.vy
///
///effective mass K = J M⁻¹ Jᵀ (symmetric):
///  K00 = j7·j7·I⁻¹(body4) + j5·j5·m⁻¹(body4) + j4·j4·m⁻¹(body4) + j6·j6·I⁻¹(body3) + m⁻¹(body3)·j5·j5 + j4·j4·m⁻¹(body3) + j3·j3·I⁻¹(body2) + j1·j1·m⁻¹(body2) + j0·j0·m⁻¹(body2) + j2·j2·I⁻¹(body1) + j0·j0·m⁻¹(body1) + m⁻¹(body1)·j1·j1
///  when body1 and body2 are the same body:
///    K00 += I⁻¹(body1)·2·j2·j3 - (m⁻¹(body1)·2·j0·j0 + m⁻¹(body1)·2·j1·j1)
///  when body1 and body3 are the same body:
///    K00 += I⁻¹(body1)·2·j2·j6 + m⁻¹(body1)·2·j0·j4 + m⁻¹(body1)·2·j1·j5
///  when body1 and body4 are the same body:
///    K00 += I⁻¹(body1)·2·j2·j7 - (m⁻¹(body1)·2·j0·j4 + m⁻¹(body1)·2·j1·j5)
///  when body2 and body3 are the same body:
///    K00 += I⁻¹(body2)·2·j3·j6 - (m⁻¹(body2)·2·j0·j4 + m⁻¹(body2)·2·j1·j5)
///  when body2 and body4 are the same body:
///    K00 += m⁻¹(body2)·2·j0·j4 + m⁻¹(body2)·2·j1·j5 + I⁻¹(body2)·2·j3·j7
///  when body3 and body4 are the same body:
///    K00 += I⁻¹(body3)·2·j6·j7 - (m⁻¹(body3)·2·j4·j4 + m⁻¹(body3)·2·j5·j5)
///```
/// A pulley (Nape's PulleyJoint): `|p₂ − p₁| + ratio·|p₄ − p₃|` stays between `joint_min`
/// and `joint_max`, where `pᵢ` is `anchorᵢ` of `bodyᵢ`. One row over four body slots,
/// which may hold the same body (a 3- or 2-body pulley; `body1 ≠ body2` and
/// `body3 ≠ body4`): the effective mass then gains the cross terms of the shared slots,
/// decided when the joint is prepared.
///
/// When one pair's anchors coincide, that pair's direction is undefined and it contributes
/// nothing for the step (Nape reused the previous direction).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PulleyJoint {
    /// First body of the first rope segment.
    pub body1: BodyHandle,
    /// Second body of the first rope segment.
    pub body2: BodyHandle,
    /// First body of the second rope segment.
    pub body3: BodyHandle,
    /// Second body of the second rope segment.
    pub body4: BodyHandle,
    /// Anchor on `body1`, local.
    pub anchor1: Vec2,
    /// Anchor on `body2`, local.
    pub anchor2: Vec2,
    /// Anchor on `body3`, local.
    pub anchor3: Vec2,
    /// Anchor on `body4`, local.
    pub anchor4: Vec2,
    /// Shortest total length (≥ 0).
    pub joint_min: f32,
    /// Longest total length (may be infinite).
    pub joint_max: f32,
    /// Weight of the second segment. Nape's default is 1.
    pub ratio: f32,
}
#[automatically_derived]
#[allow(clippy::all, clippy::pedantic, clippy::nursery)]
impl ::nape::__private::Constraint<1, 4> for PulleyJoint {
    type Jacobian = ::nape::__private::JacobianCache<8>;
    const NAME: &'static str = "PulleyJoint";
    const VELOCITY_ONLY: bool = false;
    const HAS_LIMITS: bool = true;
    #[inline]
    fn bodies(&self) -> [::nape::__private::BodyHandle; 4] {
        [self.body1, self.body2, self.body3, self.body4]
    }
    #[inline]
    fn set_bodies(&mut self, __bodies: [::nape::__private::BodyHandle; 4]) {
        [self.body1, self.body2, self.body3, self.body4] = __bodies;
    }
    fn validate(
        &self,
    ) -> ::core::result::Result<(), ::nape::__private::InvalidParameter> {
        if !(!self.joint_min.is_nan()) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "PulleyJoint",
                rule: ::std::string::String::from("joint_min is not NaN"),
                value: ::std::format!("{:?}", self.joint_min),
            });
        }
        if !(!self.joint_max.is_nan()) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "PulleyJoint",
                rule: ::std::string::String::from("joint_max is not NaN"),
                value: ::std::format!("{:?}", self.joint_max),
            });
        }
        if !(self.ratio.is_finite()) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "PulleyJoint",
                rule: ::std::string::String::from("ratio is finite"),
                value: ::std::format!("{:?}", self.ratio),
            });
        }
        if !self.anchor1.is_finite() {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "PulleyJoint",
                rule: ::std::string::String::from("anchor1 is finite"),
                value: ::std::format!("{:?}", self.anchor1),
            });
        }
        if !self.anchor2.is_finite() {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "PulleyJoint",
                rule: ::std::string::String::from("anchor2 is finite"),
                value: ::std::format!("{:?}", self.anchor2),
            });
        }
        if !self.anchor3.is_finite() {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "PulleyJoint",
                rule: ::std::string::String::from("anchor3 is finite"),
                value: ::std::format!("{:?}", self.anchor3),
            });
        }
        if !self.anchor4.is_finite() {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "PulleyJoint",
                rule: ::std::string::String::from("anchor4 is finite"),
                value: ::std::format!("{:?}", self.anchor4),
            });
        }
        if self.body1 == self.body2 {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "PulleyJoint",
                rule: ::std::string::String::from("body1 != body2"),
                value: ::std::format!("both are {:?}", self.body1),
            });
        }
        if self.body3 == self.body4 {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "PulleyJoint",
                rule: ::std::string::String::from("body3 != body4"),
                value: ::std::format!("both are {:?}", self.body3),
            });
        }
        if !(self.joint_min >= 0f32) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "PulleyJoint",
                rule: ::std::string::String::from("joint_min >= 0.0"),
                value: ::std::format!(
                    "{} = {:?}, {} = {:?}", ::core::stringify!(self.joint_min), self
                    .joint_min, ::core::stringify!(0f32), 0f32
                ),
            });
        }
        if !(self.joint_min <= self.joint_max) {
            return ::core::result::Result::Err(::nape::__private::InvalidParameter {
                constraint: "PulleyJoint",
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
    fn position_error(&self, __poses: &[::nape::__private::Pose; 4]) -> [f32; 1] {
        let __t31: f32 = self.anchor2.x * __poses[1].cos
            - self.anchor2.y * __poses[1].sin + __poses[1].position.x
            - (self.anchor1.x * __poses[0].cos - self.anchor1.y * __poses[0].sin
                + __poses[0].position.x);
        let __t33: f32 = self.anchor2.x * __poses[1].sin
            + self.anchor2.y * __poses[1].cos + __poses[1].position.y
            - (self.anchor1.x * __poses[0].sin + self.anchor1.y * __poses[0].cos
                + __poses[0].position.y);
        let __t70: f32 = self.anchor4.x * __poses[3].cos
            - self.anchor4.y * __poses[3].sin + __poses[3].position.x
            - (self.anchor3.x * __poses[2].cos - self.anchor3.y * __poses[2].sin
                + __poses[2].position.x);
        let __t72: f32 = self.anchor4.x * __poses[3].sin
            + self.anchor4.y * __poses[3].cos + __poses[3].position.y
            - (self.anchor3.x * __poses[2].sin + self.anchor3.y * __poses[2].cos
                + __poses[2].position.y);
        [
            (__t31 * __t31 + __t33 * __t33).sqrt()
                + self.ratio * (__t70 * __t70 + __t72 * __t72).sqrt(),
        ]
    }
    #[inline]
    fn jacobian(&self, __poses: &[::nape::__private::Pose; 4]) -> Self::Jacobian {
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
        let __t48: f32 = self.anchor4.x * __poses[3].cos
            - self.anchor4.y * __poses[3].sin;
        let __t49: f32 = self.anchor4.x * __poses[3].sin
            + self.anchor4.y * __poses[3].cos;
        let __t63: f32 = self.anchor3.x * __poses[2].cos
            - self.anchor3.y * __poses[2].sin;
        let __t64: f32 = self.anchor3.x * __poses[2].sin
            + self.anchor3.y * __poses[2].cos;
        let __t70: f32 = __t48 + __poses[3].position.x - (__t63 + __poses[2].position.x);
        let __t72: f32 = __t49 + __poses[3].position.y - (__t64 + __poses[2].position.y);
        let __t90: f32 = 0.5f32
            * ::nape::__private::safe_recip((__t31 * __t31 + __t33 * __t33).sqrt());
        let __t94: f32 = 0.5f32
            * ::nape::__private::safe_recip((__t70 * __t70 + __t72 * __t72).sqrt());
        ::nape::__private::JacobianCache([
            2f32 * __t31 * __t90,
            __t90 * (2f32 * __t33),
            __t90 * (2f32 * (__t25 * __t31) - 2f32 * (__t24 * __t33)),
            __t90 * (2f32 * (__t9 * __t33) - 2f32 * (__t10 * __t31)),
            self.ratio * (__t94 * (2f32 * __t70)),
            self.ratio * (__t94 * (2f32 * __t72)),
            self.ratio * (__t94 * (2f32 * (__t64 * __t70) - 2f32 * (__t63 * __t72))),
            self.ratio * (__t94 * (2f32 * (__t48 * __t72) - 2f32 * (__t49 * __t70))),
        ])
    }
    #[inline]
    fn effective_mass(
        &self,
        __jacobian: &Self::Jacobian,
        __inverse_masses: &[::nape::__private::InverseMass; 4],
        __shared: ::nape::__private::SharedSlots,
    ) -> [[f32; 1]; 1] {
        let __t218: f32 = __jacobian.0[0] * __jacobian.0[0];
        let __t222: f32 = __jacobian.0[1] * __jacobian.0[1];
        let __t234: f32 = __jacobian.0[4] * __jacobian.0[4];
        let __t238: f32 = __jacobian.0[5] * __jacobian.0[5];
        let mut __k0_0: f32 = __jacobian.0[7] * __jacobian.0[7]
            * __inverse_masses[3].inertia + __t238 * __inverse_masses[3].mass
            + __t234 * __inverse_masses[3].mass
            + __jacobian.0[6] * __jacobian.0[6] * __inverse_masses[2].inertia
            + __inverse_masses[2].mass * __t238 + __t234 * __inverse_masses[2].mass
            + __jacobian.0[3] * __jacobian.0[3] * __inverse_masses[1].inertia
            + __t222 * __inverse_masses[1].mass + __t218 * __inverse_masses[1].mass
            + __jacobian.0[2] * __jacobian.0[2] * __inverse_masses[0].inertia
            + __t218 * __inverse_masses[0].mass + __inverse_masses[0].mass * __t222;
        if __shared.contains(0, 1) {
            __k0_0
                += (__inverse_masses[0].inertia
                    * (2f32 * (__jacobian.0[2] * __jacobian.0[3]))
                    - (__inverse_masses[0].mass * (2f32 * __t218)
                        + __inverse_masses[0].mass * (2f32 * __t222)));
        }
        if __shared.contains(0, 2) {
            __k0_0
                += (__inverse_masses[0].inertia
                    * (2f32 * (__jacobian.0[2] * __jacobian.0[6]))
                    + __inverse_masses[0].mass
                        * (2f32 * (__jacobian.0[0] * __jacobian.0[4]))
                    + __inverse_masses[0].mass
                        * (2f32 * (__jacobian.0[1] * __jacobian.0[5])));
        }
        if __shared.contains(0, 3) {
            __k0_0
                += (__inverse_masses[0].inertia
                    * (2f32 * (__jacobian.0[2] * __jacobian.0[7]))
                    - (__inverse_masses[0].mass
                        * (2f32 * (__jacobian.0[0] * __jacobian.0[4]))
                        + __inverse_masses[0].mass
                            * (2f32 * (__jacobian.0[1] * __jacobian.0[5]))));
        }
        if __shared.contains(1, 2) {
            __k0_0
                += (__inverse_masses[1].inertia
                    * (2f32 * (__jacobian.0[3] * __jacobian.0[6]))
                    - (__inverse_masses[1].mass
                        * (2f32 * (__jacobian.0[0] * __jacobian.0[4]))
                        + __inverse_masses[1].mass
                            * (2f32 * (__jacobian.0[1] * __jacobian.0[5]))));
        }
        if __shared.contains(1, 3) {
            __k0_0
                += (__inverse_masses[1].mass
                    * (2f32 * (__jacobian.0[0] * __jacobian.0[4]))
                    + __inverse_masses[1].mass
                        * (2f32 * (__jacobian.0[1] * __jacobian.0[5]))
                    + __inverse_masses[1].inertia
                        * (2f32 * (__jacobian.0[3] * __jacobian.0[7])));
        }
        if __shared.contains(2, 3) {
            __k0_0
                += (__inverse_masses[2].inertia
                    * (2f32 * (__jacobian.0[6] * __jacobian.0[7]))
                    - (__inverse_masses[2].mass * (2f32 * __t234)
                        + __inverse_masses[2].mass * (2f32 * __t238)));
        }
        [[__k0_0]]
    }
    #[inline]
    fn velocity_error(
        &self,
        __jacobian: &Self::Jacobian,
        __bodies: &[usize; 4],
        __velocities: &[::nape::__private::Velocity],
    ) -> [f32; 1] {
        let __velocity0 = __velocities[__bodies[0]];
        let __velocity1 = __velocities[__bodies[1]];
        let __velocity2 = __velocities[__bodies[2]];
        let __velocity3 = __velocities[__bodies[3]];
        [
            __jacobian.0[7] * __velocity3.angular
                + __jacobian.0[5] * __velocity3.linear.y
                + __jacobian.0[4] * __velocity3.linear.x
                + __jacobian.0[6] * __velocity2.angular
                + __jacobian.0[3] * __velocity1.angular
                + __jacobian.0[1] * __velocity1.linear.y
                + __jacobian.0[0] * __velocity1.linear.x
                + __jacobian.0[2] * __velocity0.angular
                - (__jacobian.0[0] * __velocity0.linear.x
                    + __jacobian.0[1] * __velocity0.linear.y)
                - __jacobian.0[4] * __velocity2.linear.x
                - __jacobian.0[5] * __velocity2.linear.y,
        ]
    }
    #[inline]
    fn apply_impulse(
        &self,
        __jacobian: &Self::Jacobian,
        __impulse: &[f32; 1],
        __inverse_masses: &[::nape::__private::InverseMass; 4],
        __bodies: &[usize; 4],
        __velocities: &mut [::nape::__private::Velocity],
    ) {
        let __t326: f32 = __jacobian.0[0] * __impulse[0];
        let __t328: f32 = __jacobian.0[1] * __impulse[0];
        let __t332: f32 = __jacobian.0[4] * __impulse[0];
        let __t334: f32 = __jacobian.0[5] * __impulse[0];
        {
            let __body = &mut __velocities[__bodies[0]];
            __body.linear.x -= __inverse_masses[0].mass * __t326;
            __body.linear.y -= __inverse_masses[0].mass * __t328;
            __body.angular
                += __inverse_masses[0].inertia * (__jacobian.0[2] * __impulse[0]);
        }
        {
            let __body = &mut __velocities[__bodies[1]];
            __body.linear.x += __inverse_masses[1].mass * __t326;
            __body.linear.y += __inverse_masses[1].mass * __t328;
            __body.angular
                += __inverse_masses[1].inertia * (__jacobian.0[3] * __impulse[0]);
        }
        {
            let __body = &mut __velocities[__bodies[2]];
            __body.linear.x -= __inverse_masses[2].mass * __t332;
            __body.linear.y -= __inverse_masses[2].mass * __t334;
            __body.angular
                += __inverse_masses[2].inertia * (__jacobian.0[6] * __impulse[0]);
        }
        {
            let __body = &mut __velocities[__bodies[3]];
            __body.linear.x += __inverse_masses[3].mass * __t332;
            __body.linear.y += __inverse_masses[3].mass * __t334;
            __body.angular
                += __inverse_masses[3].inertia * (__jacobian.0[7] * __impulse[0]);
        }
    }
}
