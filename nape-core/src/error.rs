//! The error type of every fallible [`Space`](crate::Space) operation.

/// Why a [`Space`](crate::Space) operation was refused. The space is unchanged whenever an
/// error is returned.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// The body handle names a body that was removed (its slot may hold a new body).
    StaleBody,
    /// The body handle belongs to another space.
    ForeignBody,
    /// The constraint handle names a constraint that was removed (or broken and removed).
    StaleConstraint,
    /// The constraint handle belongs to another space.
    ForeignConstraint,
    /// The body cannot be simulated (NaN or infinite state, bad mass or inertia).
    InvalidBody(String),
    /// The constraint's own parameters are invalid ([`Constraint::validate`]).
    ///
    /// [`Constraint::validate`]: crate::Constraint::validate
    InvalidParameter(InvalidParameter),
    /// A [`ConstraintSettings`](crate::ConstraintSettings) value is out of range.
    InvalidSettings(String),
    /// None of the constraint's bodies is dynamic, so it could never do anything.
    NoDynamicBody,
    /// The body is not one of the constraint's bodies (e.g. in
    /// [`Space::body_impulse`](crate::Space::body_impulse)).
    BodyNotInConstraint,
    /// The constraint has more body slots than [`SharedSlots::MAX_SLOTS`].
    ///
    /// [`SharedSlots::MAX_SLOTS`]: crate::SharedSlots::MAX_SLOTS
    TooManyBodies(usize),
    /// A number given to the space is NaN, infinite or outside the range the solver
    /// accepts (see [`limits`](crate::limits)): a body's velocity, a force, `dt`,
    /// `gravity`, a space setting.
    InvalidValue {
        /// What the value is, e.g. `"dt"` or `"velocity"`.
        what: &'static str,
        /// The value, formatted.
        value: String,
        /// The accepted range, in words.
        range: String,
    },
    /// The constraint could never move a dynamic body: its effective mass is zero, or not
    /// finite, at the bodies' poses and at every probe pose (e.g. an `AngleJoint` of ratio
    /// 0 whose first body is static, or anchors so far out that `K` overflows `f32`).
    DegenerateConstraint(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::StaleBody => f.write_str("the body was removed from its space"),
            Self::ForeignBody => f.write_str("the body handle belongs to another space"),
            Self::StaleConstraint => f.write_str("the constraint was removed from its space"),
            Self::ForeignConstraint => {
                f.write_str("the constraint handle belongs to another space")
            }
            Self::InvalidBody(reason) => write!(f, "invalid body: {reason}"),
            Self::InvalidParameter(p) => write!(f, "invalid constraint parameter: {p}"),
            Self::InvalidSettings(reason) => write!(f, "invalid constraint settings: {reason}"),
            Self::NoDynamicBody => f.write_str("a constraint needs at least one dynamic body"),
            Self::BodyNotInConstraint => f.write_str("the body is not one of the constraint's"),
            Self::TooManyBodies(n) => write!(
                f,
                "a constraint may have at most {} body slots (got {n})",
                crate::types::MAX_SLOTS
            ),
            Self::InvalidValue { what, value, range } => {
                write!(f, "invalid `{what}`: got {value}, accepted: {range}")
            }
            Self::DegenerateConstraint(reason) => write!(f, "degenerate constraint: {reason}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::InvalidParameter(p) => Some(p),
            _ => None,
        }
    }
}

impl From<InvalidParameter> for Error {
    fn from(p: InvalidParameter) -> Self {
        Self::InvalidParameter(p)
    }
}

/// Why a constraint's parameters cannot be simulated.
#[derive(Clone, Debug, PartialEq)]
pub struct InvalidParameter {
    /// The constraint type, e.g. `"DistanceJoint"`.
    pub constraint: &'static str,
    /// The rule or field that failed, in the words of the constraint's declaration.
    pub rule: String,
    /// The offending value(s), formatted.
    pub value: String,
}

impl std::fmt::Display for InvalidParameter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: `{}` does not hold (got {})",
            self.constraint, self.rule, self.value
        )
    }
}

impl std::error::Error for InvalidParameter {}
