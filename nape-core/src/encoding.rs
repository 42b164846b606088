//! The byte form of single values that a [`Snapshot`](crate::Snapshot) is written in:
//! [`SnapshotFields`], the lists and lengths built of it, [`SnapshotError`], and the
//! checks a value read back passes. The solver's stores write and read their entries with
//! it, and [`snapshot`](crate::snapshot) frames the whole space with it, so it sits below
//! both.

use std::any::Any;

use glam::{DVec2, Vec2};

use crate::body::{Body, BodyHandle, BodyKind};
use crate::constraint::{InvalidParameter, JacobianCache};
use crate::error::Error;
use crate::settings::ConstraintSettings;
use crate::types::{BreakCause, BreakEvent, ConstraintId, InverseMass, Pose, Position, Velocity};

/// The version of the byte form this build writes and reads.
pub const FORMAT_VERSION: u32 = 6;

/// Why bytes could not be read back into a [`Snapshot`](crate::Snapshot), or a snapshot not written.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The bytes do not start with the snapshot magic.
    NotASnapshot,
    /// Written by a different version of the byte form.
    UnsupportedVersion {
        /// The version found in the bytes.
        found: u32,
    },
    /// The bytes end before the snapshot does.
    Truncated,
    /// More bytes follow the snapshot.
    TrailingBytes,
    /// The checksum does not match the contents: the bytes were corrupted.
    ChecksumMismatch,
    /// The bytes hold a constraint type the registry does not know (register it with
    /// [`SnapshotRegistry::register`](crate::SnapshotRegistry::register)).
    UnknownConstraintType {
        /// The type's [`Constraint::NAME`](crate::Constraint::NAME).
        name: String,
    },
    /// A registered type's rows or body slots differ from those in the bytes.
    ShapeMismatch {
        /// The type's [`Constraint::NAME`](crate::Constraint::NAME).
        name: String,
        /// `(rows, body slots)` of the registered type.
        expected: (usize, usize),
        /// `(rows, body slots)` in the bytes.
        found: (usize, usize),
    },
    /// The space holds a constraint type the registry cannot write (writing a snapshot).
    UnregisteredType {
        /// The type's [`Constraint::NAME`](crate::Constraint::NAME).
        name: &'static str,
    },
    /// Two different types were registered under one [`Constraint::NAME`](crate::Constraint::NAME).
    DuplicateName {
        /// The name.
        name: &'static str,
    },
    /// The bytes are well formed but inconsistent (a handle table, an index or a flag out
    /// of range): what was wrong.
    Malformed(&'static str),
    /// A constraint in the bytes does not pass its own [`Constraint::validate`](crate::Constraint::validate).
    InvalidConstraint(InvalidParameter),
    /// A number in the bytes is NaN, infinite or outside the range the API accepts for
    /// it (see [`limits`](crate::limits)), or a constraint has no dynamic body: what
    /// [`Space`](crate::Space) refuses when the same value is set by hand.
    InvalidValue {
        /// Where the value is, e.g. `"gravity"`, `"bodies[3].position"` (body slot 3) or
        /// `"PivotJoint[2].settings.frequency"` (the `PivotJoint` in slot 2).
        field: String,
        /// The value, formatted.
        value: String,
        /// What is accepted, in words.
        accepted: String,
    },
}

impl std::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotASnapshot => write!(f, "not a nape snapshot (bad magic)"),
            Self::UnsupportedVersion { found } => write!(
                f,
                "snapshot format version {found} is not supported (this build reads {FORMAT_VERSION})"
            ),
            Self::Truncated => write!(f, "the snapshot's bytes end early"),
            Self::TrailingBytes => write!(f, "bytes follow the end of the snapshot"),
            Self::ChecksumMismatch => write!(f, "the snapshot's checksum does not match"),
            Self::UnknownConstraintType { name } => write!(
                f,
                "constraint type `{name}` is not registered in the snapshot registry"
            ),
            Self::ShapeMismatch {
                name,
                expected,
                found,
            } => write!(
                f,
                "constraint type `{name}` has {} rows and {} bodies, the snapshot {} and {}",
                expected.0, expected.1, found.0, found.1
            ),
            Self::UnregisteredType { name } => write!(
                f,
                "constraint type `{name}` is not registered in the snapshot registry"
            ),
            Self::DuplicateName { name } => write!(
                f,
                "two different constraint types are registered as `{name}`"
            ),
            Self::Malformed(what) => write!(f, "malformed snapshot: {what}"),
            Self::InvalidConstraint(e) => write!(f, "invalid constraint in snapshot: {e}"),
            Self::InvalidValue {
                field,
                value,
                accepted,
            } => write!(
                f,
                "invalid `{field}` in snapshot: got {value}, accepted: {accepted}"
            ),
        }
    }
}

impl std::error::Error for SnapshotError {}

/// A value written field by field into a snapshot's bytes, and read back exactly (`f32`s
/// as their bit patterns).
///
/// `#[constraint]` implements it for every constraint type it declares. Implement it by
/// hand for a hand-written [`Constraint`](crate::Constraint) (and its [`Constraint::Jacobian`](crate::Constraint::Jacobian)) to register
/// it in a [`SnapshotRegistry`](crate::SnapshotRegistry): write every field with its own `write_snapshot`, read
/// them back in the same order. Implementations exist for `f32`, `u8`, `u32`, `u64`,
/// `bool`, `()`, [`Vec2`], [`BodyHandle`], arrays, pairs and triples of such values, and
/// the crate's plain data types.
pub trait SnapshotFields: Sized {
    /// Appends the value to `out`.
    fn write_snapshot(&self, out: &mut Vec<u8>);

    /// Reads a value written by [`write_snapshot`](Self::write_snapshot) from the front of
    /// `input`, advancing it.
    ///
    /// # Errors
    /// [`SnapshotError::Truncated`] when `input` ends early, [`SnapshotError::Malformed`]
    /// when the bytes cannot be such a value.
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError>;
}

pub(crate) fn take<const N: usize>(input: &mut &[u8]) -> Result<[u8; N], SnapshotError> {
    let (head, rest) = input
        .split_first_chunk::<N>()
        .ok_or(SnapshotError::Truncated)?;
    *input = rest;
    Ok(*head)
}

macro_rules! number {
    ($($t:ty),*) => {$(
        impl SnapshotFields for $t {
            fn write_snapshot(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
                take(input).map(<$t>::from_le_bytes)
            }
        }
    )*};
}

number!(u8, u32, u64, i32, f32, f64);

impl SnapshotFields for bool {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        match u8::read_snapshot(input)? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(SnapshotError::Malformed("a flag is neither 0 nor 1")),
        }
    }
}

impl SnapshotFields for () {
    fn write_snapshot(&self, _: &mut Vec<u8>) {}
    fn read_snapshot(_: &mut &[u8]) -> Result<Self, SnapshotError> {
        Ok(())
    }
}

impl<T: SnapshotFields, const N: usize> SnapshotFields for [T; N] {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        for x in self {
            x.write_snapshot(out);
        }
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        let mut items = Vec::with_capacity(N);
        for _ in 0..N {
            items.push(T::read_snapshot(input)?);
        }
        items
            .try_into()
            .map_err(|_| SnapshotError::Malformed("array length"))
    }
}

impl<A: SnapshotFields, B: SnapshotFields> SnapshotFields for (A, B) {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        self.0.write_snapshot(out);
        self.1.write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        Ok((A::read_snapshot(input)?, B::read_snapshot(input)?))
    }
}

impl<A: SnapshotFields, B: SnapshotFields, C: SnapshotFields> SnapshotFields for (A, B, C) {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        self.0.write_snapshot(out);
        self.1.write_snapshot(out);
        self.2.write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        Ok((
            A::read_snapshot(input)?,
            B::read_snapshot(input)?,
            C::read_snapshot(input)?,
        ))
    }
}

impl SnapshotFields for Vec2 {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        [self.x, self.y].write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        <[f32; 2]>::read_snapshot(input).map(Vec2::from_array)
    }
}

impl SnapshotFields for DVec2 {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        [self.x, self.y].write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        <[f64; 2]>::read_snapshot(input).map(DVec2::from_array)
    }
}

impl SnapshotFields for BodyHandle {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        [self.space, self.index, self.generation].write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        let [space, index, generation] = <[u32; 3]>::read_snapshot(input)?;
        Ok(Self {
            space,
            index,
            generation,
        })
    }
}

impl<const N: usize> SnapshotFields for JacobianCache<N> {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        self.0.write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        <[f32; N]>::read_snapshot(input).map(Self)
    }
}

impl<P: Position + SnapshotFields> SnapshotFields for Pose<P> {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        (self.position, [self.cos, self.sin], self.turns).write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        let (position, [cos, sin], turns) = SnapshotFields::read_snapshot(input)?;
        Ok(Self {
            position,
            cos,
            sin,
            turns,
        })
    }
}

impl SnapshotFields for Velocity {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        (self.linear, self.angular).write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        let (linear, angular) = SnapshotFields::read_snapshot(input)?;
        Ok(Self { linear, angular })
    }
}

impl SnapshotFields for InverseMass {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        [self.mass, self.inertia].write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        let [mass, inertia] = SnapshotFields::read_snapshot(input)?;
        Ok(Self { mass, inertia })
    }
}

impl SnapshotFields for ConstraintSettings {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        [self.frequency, self.damping, self.max_force, self.max_error].write_snapshot(out);
        [
            self.stiff,
            self.break_under_force,
            self.break_under_error,
            self.remove_on_break,
            self.active,
            self.ignore,
        ]
        .write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        let [frequency, damping, max_force, max_error] = SnapshotFields::read_snapshot(input)?;
        let [
            stiff,
            break_under_force,
            break_under_error,
            remove_on_break,
            active,
            ignore,
        ] = SnapshotFields::read_snapshot(input)?;
        Ok(Self {
            stiff,
            frequency,
            damping,
            max_force,
            max_error,
            break_under_force,
            break_under_error,
            remove_on_break,
            active,
            ignore,
        })
    }
}

impl SnapshotFields for ConstraintId {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        [self.space, self.store, self.index, self.generation].write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        let [space, store, index, generation] = SnapshotFields::read_snapshot(input)?;
        Ok(Self {
            space,
            store,
            index,
            generation,
        })
    }
}

impl SnapshotFields for BreakCause {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        let code: u8 = match self {
            Self::Force => 0,
            Self::Error => 1,
        };
        code.write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        match u8::read_snapshot(input)? {
            0 => Ok(Self::Force),
            1 => Ok(Self::Error),
            _ => Err(SnapshotError::Malformed("unknown break cause")),
        }
    }
}

impl SnapshotFields for BreakEvent {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        (self.constraint, self.cause, [self.value, self.limit]).write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        let (constraint, cause, [value, limit]) = SnapshotFields::read_snapshot(input)?;
        Ok(Self {
            constraint,
            cause,
            value,
            limit,
        })
    }
}

impl SnapshotFields for BodyKind {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        let code: u8 = match self {
            Self::Dynamic => 0,
            Self::Static => 1,
            Self::Kinematic => 2,
        };
        code.write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        match u8::read_snapshot(input)? {
            0 => Ok(Self::Dynamic),
            1 => Ok(Self::Static),
            2 => Ok(Self::Kinematic),
            _ => Err(SnapshotError::Malformed("unknown body kind")),
        }
    }
}

impl SnapshotFields for Body {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        (self.kind, self.pose, self.velocity).write_snapshot(out);
        (self.force, [self.torque, self.mass, self.inertia]).write_snapshot(out);
        u32::from(self.substeps_held).write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        let (kind, pose, velocity) = SnapshotFields::read_snapshot(input)?;
        let (force, [torque, mass, inertia]) = SnapshotFields::read_snapshot(input)?;
        let mut body = Body::dynamic(mass, inertia);
        body.kind = kind;
        body.pose = pose;
        body.velocity = velocity;
        body.force = force;
        body.torque = torque;
        body.substeps_held = u32::read_snapshot(input)?
            .try_into()
            .ok()
            .filter(|&held: &u16| u32::from(held) <= crate::limits::MAX_SUBSTEPS)
            .ok_or(SnapshotError::Malformed(
                "a body's held substeps above MAX_SUBSTEPS",
            ))?;
        Ok(body)
    }
}

/// A sequence: its length as `u32`, then its items.
pub(crate) fn write_list<T: SnapshotFields>(items: &[T], out: &mut Vec<u8>) {
    u32::try_from(items.len())
        .expect("fewer than 2³² items")
        .write_snapshot(out);
    for x in items {
        x.write_snapshot(out);
    }
}

/// Reads a [`write_list`]; allocation grows with the bytes actually read, so a corrupted
/// length cannot reserve memory the input does not back.
pub(crate) fn read_list<T: SnapshotFields>(input: &mut &[u8]) -> Result<Vec<T>, SnapshotError> {
    let n = u32::read_snapshot(input)?;
    let mut items = Vec::new();
    for _ in 0..n {
        items.push(T::read_snapshot(input)?);
    }
    Ok(items)
}

/// Reads a length written as `u32`/`u64` into a `usize`.
pub(crate) fn read_len(input: &mut &[u8]) -> Result<usize, SnapshotError> {
    usize::try_from(u64::read_snapshot(input)?)
        .map_err(|_| SnapshotError::Malformed("a length does not fit in memory"))
}

/// The constraint and Jacobian of one store's entries, behind `dyn Any` (the store is
/// type-erased; its codec is not).
pub(crate) trait EntryCodec: Send + Sync {
    fn write_constraint(&self, constraint: &dyn Any, out: &mut Vec<u8>);
    fn write_jacobian(&self, jacobian: &dyn Any, out: &mut Vec<u8>);
    fn read_constraint(&self, input: &mut &[u8]) -> Result<Box<dyn Any>, SnapshotError>;
    fn read_jacobian(&self, input: &mut &[u8]) -> Result<Box<dyn Any>, SnapshotError>;
}

/// A live body slot of a snapshot being read, as its stores' decoders check their
/// constraints' bodies against it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LiveBody {
    pub(crate) generation: u32,
    pub(crate) dynamic: bool,
}

/// A break's measured value and limit: finite and not negative.
pub(crate) fn check_break_values(
    value: f32,
    limit: f32,
    prefix: impl Fn() -> String,
) -> Result<(), SnapshotError> {
    check_range(|| prefix() + "value", &[value], 0.0..=f32::MAX)?;
    check_range(|| prefix() + "limit", &[limit], 0.0..=f32::MAX)
}

/// The API's refusal of a value ([`Error::InvalidValue`], as the `check_values` of bodies
/// and settings and [`Space::validate`](crate::Space::validate) give it) as the snapshot's, its field under
/// `prefix`.
pub(crate) fn refused(prefix: String, e: Error) -> SnapshotError {
    match e {
        Error::InvalidValue { what, value, range } => SnapshotError::InvalidValue {
            field: prefix + what,
            value,
            accepted: range,
        },
        other => SnapshotError::InvalidValue {
            field: prefix.trim_end_matches('.').to_string(),
            value: other.to_string(),
            accepted: "what the space accepts".to_string(),
        },
    }
}

/// `Ok` if every one of `values` is in `accepted` (NaN never is), else a
/// [`SnapshotError::InvalidValue`] for the first that is not, at `field()`.
pub(crate) fn check_range(
    field: impl FnOnce() -> String,
    values: &[f32],
    accepted: std::ops::RangeInclusive<f32>,
) -> Result<(), SnapshotError> {
    match values.iter().find(|x| !accepted.contains(x)) {
        None => Ok(()),
        Some(x) => Err(SnapshotError::InvalidValue {
            field: field(),
            value: x.to_string(),
            accepted: if accepted == FINITE {
                "finite".to_string()
            } else {
                format!("{:e} ..= {:e}", accepted.start(), accepted.end())
            },
        }),
    }
}

/// Every finite `f32`.
pub(crate) const FINITE: std::ops::RangeInclusive<f32> = -f32::MAX..=f32::MAX;
