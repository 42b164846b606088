//! Constraints written at run time (feature `symbolic`): [`SymbolicConstraint`], built
//! from text, derived by the same engine as `#[constraint]` and evaluated from flat
//! instruction tapes.
//!
//! The text is either the macro's own declaration,
//!
//! ```text
//! #[constraint(position = body2.world_point(anchor2) - body1.world_point(anchor1))]
//! struct Pivot { body1: BodyHandle, body2: BodyHandle, anchor1: Vec2, anchor2: Vec2 }
//! ```
//!
//! or Nape's `SymbolicConstraint` language (`body`, `scalar`, `vector`, `limit`,
//! `constraint`; see the README's grammar table). Both go through `nape-codegen`'s parse,
//! model and derive, the macro's pipeline; instead of emitting Rust, the derivation is
//! compiled to [`Tape`](nape_codegen::runtime::Tape)s: `c(q)`, the dense Jacobian `J`
//! (its per-step cache computed once and shared by every entry), the geometric stiffness
//! and the parameters' bounds and rules. `K = J M⁻¹ Jᵀ`, `J·v` and `M⁻¹Jᵀλ` are dense
//! products over the step's `J`, unrolled for the type's rows and slots.

mod constraint;
#[cfg(all(feature = "jit", target_arch = "x86_64"))]
mod native;
mod snapshot;

pub use constraint::SymbolicJacobian;

use std::sync::Arc;

use glam::Vec2;
pub use nape_codegen::runtime::Diagnostic;
use nape_codegen::runtime::{Kind, Program, closest, compile};

use crate::body::BodyHandle;
use crate::constraint::Bounds;

/// Which rows a [`SymbolicConstraint`] type holds: the solver specialises its loops on
/// this, as it does on a generated type's `HAS_LIMITS` and `VELOCITY_ONLY`.
pub trait RowKind: Copy + Send + Sync + 'static + sealed::Sealed {
    /// Whether rows may be inequalities (`limits = [...]`, Nape's `limit constraint`).
    const LIMITS: bool;
    /// Whether the rows are velocities (`velocity = ...`).
    const VELOCITY: bool;
    /// `NAMES[rows][slots]`: the type's [`Constraint::NAME`](crate::Constraint::NAME), for
    /// up to [`MAX_ROWS`] rows and [`SharedSlots::MAX_SLOTS`](crate::SharedSlots::MAX_SLOTS)
    /// slots (a type beyond them does not compile).
    const NAMES: Names;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Equalities {}
    impl Sealed for super::Limited {}
    impl Sealed for super::VelocityOnly {}
}

/// The most rows a [`SymbolicConstraint`] type may have.
pub const MAX_ROWS: usize = 16;

/// A [`RowKind`]'s table of type names.
pub type Names = [[&'static str; 9]; MAX_ROWS + 1];

macro_rules! names {
    ($prefix:literal) => {
        names!(@rows $prefix; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    };
    (@rows $prefix:literal; $($d:literal)*) => {
        [$(names!(@slots $prefix, $d; 0 1 2 3 4 5 6 7 8)),*]
    };
    (@slots $prefix:literal, $d:literal; $($b:literal)*) => {
        [$(concat!($prefix, $d, "x", $b)),*]
    };
}

/// Positional rows, all equalities `c = 0`.
#[derive(Clone, Copy, Debug)]
pub struct Equalities;

/// Positional rows that may be inequalities.
#[derive(Clone, Copy, Debug)]
pub struct Limited;

/// Velocity rows `J·v + b = 0`.
#[derive(Clone, Copy, Debug)]
pub struct VelocityOnly;

impl RowKind for Equalities {
    const LIMITS: bool = false;
    const VELOCITY: bool = false;
    const NAMES: Names = names!("Symbolic");
}

impl RowKind for Limited {
    const LIMITS: bool = true;
    const VELOCITY: bool = false;
    const NAMES: Names = names!("SymbolicLimited");
}

impl RowKind for VelocityOnly {
    const LIMITS: bool = false;
    const VELOCITY: bool = true;
    const NAMES: Names = names!("SymbolicVelocity");
}

/// What a parameter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParameterKind {
    /// A body slot (`BodyHandle`, Nape's `body`).
    Body,
    /// A scalar (`f32`, Nape's `scalar`).
    Scalar,
    /// A vector (`Vec2`, Nape's `vector`).
    Vector,
}

/// Why a [`SymbolicConstraint`] cannot be built or changed.
#[derive(Clone, Debug, PartialEq)]
pub enum SymbolicError {
    /// The text has mistakes: each with the macro's message and its byte range.
    Source(Vec<Diagnostic>),
    /// The text declares another shape than the type's.
    Shape {
        /// `(rows, body slots, rows kind)` of the type.
        expected: (usize, usize, &'static str),
        /// `(rows, body slots, rows kind)` of the text.
        found: (usize, usize, &'static str),
    },
    /// No parameter has this name.
    UnknownParameter {
        /// The name asked for.
        name: String,
        /// The declared name closest to it, if one is near.
        suggestion: Option<String>,
    },
    /// The parameter is of another kind.
    WrongKind {
        /// The name.
        name: String,
        /// What it is.
        declared: ParameterKind,
        /// What it was used as.
        used_as: ParameterKind,
    },
}

impl std::fmt::Display for SymbolicError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Source(diagnostics) => {
                let mut first = true;
                for diagnostic in diagnostics {
                    if !first {
                        writeln!(f)?;
                    }
                    first = false;
                    write!(f, "{diagnostic}")?;
                }
                Ok(())
            }
            Self::Shape { expected, found } => write!(
                f,
                "the text declares {} rows of {} over {} body slots; this type holds {} rows \
                 of {} over {}",
                found.0, found.2, found.1, expected.0, expected.2, expected.1
            ),
            Self::UnknownParameter { name, suggestion } => {
                write!(f, "no parameter is named `{name}`")?;
                match suggestion {
                    Some(close) => write!(f, "; did you mean `{close}`?"),
                    None => Ok(()),
                }
            }
            Self::WrongKind {
                name,
                declared,
                used_as,
            } => write!(
                f,
                "`{name}` is a {declared:?} parameter, not a {used_as:?} one"
            ),
        }
    }
}

impl std::error::Error for SymbolicError {}

/// A compiled text, shared by every constraint built from it.
#[derive(Debug)]
pub(crate) struct Compiled {
    source: String,
    program: Program,
    /// The tapes as machine code, where they can be.
    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    native: native::Natives,
}

impl Compiled {
    fn new(source: String, program: Program) -> Self {
        Self {
            #[cfg(all(feature = "jit", target_arch = "x86_64"))]
            native: native::Natives::compile(&program),
            source,
            program,
        }
    }
}

/// A constraint compiled from text at run time, with `DIM` rows over `BODIES` body
/// slots; `K` says whether its rows are equalities, may be limits, or are velocities.
/// Implements [`Constraint`](crate::Constraint), so a [`Space`](crate::Space) takes it as
/// any other: stiff or soft, limits, `max_force`, `max_error`, breaking, impulses, debug
/// drawing and snapshots (with [`SnapshotRegistry::register`](crate::SnapshotRegistry::register):
/// its source and parameter values travel, and it is compiled again on restore).
///
/// ```
/// use nape_core::symbolic::SymbolicConstraint;
/// use nape_core::{Body, Space, Vec2};
///
/// let mut space = Space::new();
/// let ground = space.add_body(Body::static_body())?;
/// let ball = space.add_body(Body::circle(0.1, 1.0).at(Vec2::new(1.0, 0.0)))?;
/// // Nape's distance joint, as its manual prints it.
/// let mut rope = SymbolicConstraint::<1, 2, _>::limited(
///     "body body1, body2
///      vector anchor1, anchor2
///      scalar jointMin, jointMax
///      limit jointMin 0 jointMax
///      constraint
///        let r1 = relative body1.rotation anchor1 in
///        let r2 = relative body2.rotation anchor2 in
///        |(body2.position + r2) - (body1.position + r1)|
///      limit constraint jointMin jointMax",
/// )?;
/// rope.set_body("body1", ground)?;
/// rope.set_body("body2", ball)?;
/// rope.set_scalar("jointMax", 1.0)?;
/// space.add_constraint(rope)?;
/// for _ in 0..60 {
///     space.step(1.0 / 60.0);
/// }
/// assert!(space.body(ball)?.position().length() <= 1.0 + 1e-3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct SymbolicConstraint<const DIM: usize, const BODIES: usize, K: RowKind = Equalities> {
    compiled: Arc<Compiled>,
    bodies: [BodyHandle; BODIES],
    scalars: Vec<f32>,
    /// Vector parameters as `[x, y]`, the layout compiled tapes read.
    vectors: Vec<[f32; 2]>,
    /// The rows' bounds at the current parameters (limits only).
    bounds: [Bounds; DIM],
    kind: std::marker::PhantomData<K>,
}

impl<const DIM: usize, const BODIES: usize> SymbolicConstraint<DIM, BODIES, Equalities> {
    /// Compiles `source`, whose rows are all equalities (see the [type](Self)).
    ///
    /// # Errors
    ///
    /// [`SymbolicError::Source`] for mistakes in the text, [`SymbolicError::Shape`] if it
    /// is not `DIM` positional equality rows over `BODIES` slots.
    pub fn new(source: &str) -> Result<Self, SymbolicError> {
        Self::compile(source)
    }
}

impl<const DIM: usize, const BODIES: usize> SymbolicConstraint<DIM, BODIES, Limited> {
    /// Compiles `source`, whose rows may have limits.
    ///
    /// # Errors
    ///
    /// As [`SymbolicConstraint::new`].
    pub fn limited(source: &str) -> Result<Self, SymbolicError> {
        Self::compile(source)
    }
}

impl<const DIM: usize, const BODIES: usize> SymbolicConstraint<DIM, BODIES, VelocityOnly> {
    /// Compiles `source`, a velocity-only constraint (`velocity = ...`).
    ///
    /// # Errors
    ///
    /// As [`SymbolicConstraint::new`].
    pub fn velocity(source: &str) -> Result<Self, SymbolicError> {
        Self::compile(source)
    }
}

fn kind_name(limits: bool, velocity: bool) -> &'static str {
    match (limits, velocity) {
        (_, true) => "velocity",
        (true, false) => "limited positions",
        (false, false) => "position equalities",
    }
}

/// A handle of no space: a slot not set yet, which [`Space`](crate::Space) rejects.
const UNSET: BodyHandle = BodyHandle {
    space: u32::MAX,
    index: u32::MAX,
    generation: u32::MAX,
};

impl<const DIM: usize, const BODIES: usize, K: RowKind> SymbolicConstraint<DIM, BODIES, K> {
    /// Compiles `source` for this type: see [`new`](SymbolicConstraint::new).
    ///
    /// # Errors
    ///
    /// As [`new`](SymbolicConstraint::new).
    pub fn compile(source: &str) -> Result<Self, SymbolicError> {
        let program = compile(source).map_err(SymbolicError::Source)?;
        Self::from_compiled(Arc::new(Compiled::new(source.to_owned(), program)))
    }

    fn from_compiled(compiled: Arc<Compiled>) -> Result<Self, SymbolicError> {
        let program = &compiled.program;
        let velocity = program.kind == Kind::Velocity;
        let limits = program.limits.is_some();
        // A type with limits takes rows without: its bounds are then all `0..=0`.
        let fits = program.dim == DIM
            && program.bodies.len() == BODIES
            && velocity == K::VELOCITY
            && (K::LIMITS || !limits);
        if !fits {
            return Err(SymbolicError::Shape {
                expected: (DIM, BODIES, kind_name(K::LIMITS, K::VELOCITY)),
                found: (
                    program.dim,
                    program.bodies.len(),
                    kind_name(limits, velocity),
                ),
            });
        }
        let mut constraint = Self {
            scalars: program.scalar_defaults.clone(),
            vectors: program.vector_defaults.clone(),
            compiled,
            bodies: [UNSET; BODIES],
            bounds: [Bounds::ZERO; DIM],
            kind: std::marker::PhantomData,
        };
        constraint.refresh_bounds();
        Ok(constraint)
    }

    /// The text the constraint was compiled from.
    #[must_use]
    pub fn source(&self) -> &str {
        &self.compiled.source
    }

    /// The compiled program: names, tapes, bounds and rules.
    #[must_use]
    pub fn program(&self) -> &Program {
        &self.compiled.program
    }

    fn find(&self, name: &str, used_as: ParameterKind) -> Result<usize, SymbolicError> {
        let program = &self.compiled.program;
        let lists = [
            (ParameterKind::Body, &program.bodies),
            (ParameterKind::Scalar, &program.scalars),
            (ParameterKind::Vector, &program.vectors),
        ];
        for (declared, names) in lists {
            if let Some(k) = names.iter().position(|n| n == name) {
                return if declared == used_as {
                    Ok(k)
                } else {
                    Err(SymbolicError::WrongKind {
                        name: name.to_owned(),
                        declared,
                        used_as,
                    })
                };
            }
        }
        let all = lists
            .iter()
            .flat_map(|(_, names)| names.iter().map(String::as_str));
        Err(SymbolicError::UnknownParameter {
            name: name.to_owned(),
            suggestion: closest(name, all).map(str::to_owned),
        })
    }

    /// Sets the scalar parameter `name` (Nape's `setScalar`).
    ///
    /// # Errors
    ///
    /// An unknown name, or a name that is not a scalar.
    pub fn set_scalar(&mut self, name: &str, value: f32) -> Result<(), SymbolicError> {
        let k = self.find(name, ParameterKind::Scalar)?;
        self.scalars[k] = value;
        self.refresh_bounds();
        Ok(())
    }

    /// The scalar parameter `name`.
    ///
    /// # Errors
    ///
    /// As [`set_scalar`](Self::set_scalar).
    pub fn scalar(&self, name: &str) -> Result<f32, SymbolicError> {
        self.find(name, ParameterKind::Scalar)
            .map(|k| self.scalars[k])
    }

    /// Sets the vector parameter `name` (Nape's `setVector`).
    ///
    /// # Errors
    ///
    /// An unknown name, or a name that is not a vector.
    pub fn set_vector(&mut self, name: &str, value: Vec2) -> Result<(), SymbolicError> {
        let k = self.find(name, ParameterKind::Vector)?;
        self.vectors[k] = value.to_array();
        self.refresh_bounds();
        Ok(())
    }

    /// The vector parameter `name`.
    ///
    /// # Errors
    ///
    /// As [`set_vector`](Self::set_vector).
    pub fn vector(&self, name: &str) -> Result<Vec2, SymbolicError> {
        self.find(name, ParameterKind::Vector)
            .map(|k| Vec2::from_array(self.vectors[k]))
    }

    /// Puts `body` in the slot `name` (Nape's `setBody`).
    ///
    /// # Errors
    ///
    /// An unknown name, or a name that is not a body.
    pub fn set_body(&mut self, name: &str, body: BodyHandle) -> Result<(), SymbolicError> {
        let k = self.find(name, ParameterKind::Body)?;
        self.bodies[k] = body;
        Ok(())
    }

    /// The body in the slot `name`.
    ///
    /// # Errors
    ///
    /// As [`set_body`](Self::set_body).
    pub fn body(&self, name: &str) -> Result<BodyHandle, SymbolicError> {
        self.find(name, ParameterKind::Body).map(|k| self.bodies[k])
    }

    fn refresh_bounds(&mut self) {
        let program = &self.compiled.program;
        let Some(limits) = &program.limits else {
            return;
        };
        let mut values = vec![0.0; program.parameters.outputs()];
        self.run_parameters(&mut values);
        for (bounds, &(min, max)) in self.bounds.iter_mut().zip(limits) {
            *bounds = Bounds::new(
                min.map_or(f32::NEG_INFINITY, |k| values[k]),
                max.map_or(f32::INFINITY, |k| values[k]),
            );
        }
    }
}
