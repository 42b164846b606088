//! Snapshots as bytes: [`Snapshot::to_bytes`] and [`Snapshot::from_bytes`], for rollback
//! and resynchronisation across machines in networked games.
//!
//! A [`Snapshot`] holds one type-erased store per constraint type, so reading one back
//! needs to know the types: a [`SnapshotRegistry`] maps each constraint type's
//! [`Constraint::NAME`] to its codec. The seven builtin joints are registered in every
//! registry; register your own types with [`SnapshotRegistry::register`]. A type declared
//! with `#[constraint]` is ready for it (the macro implements [`SnapshotFields`] for it,
//! whatever the features); a hand-written [`Constraint`] opts in by implementing
//! [`SnapshotFields`] for itself and for its [`Constraint::Jacobian`].
//!
//! The byte form is little-endian and self-contained: a header (magic, format version,
//! length), the space's settings, its body and handle tables, the break and fault reports,
//! then every store (its type's name and shape, its slot table, and every field of every
//! entry, warm starts and per-substep caches included, as exact `f32` bit patterns), and a
//! 64-bit FNV-1a checksum. A space restored from it continues bit for bit as the space the
//! snapshot was taken from would have. Reading never panics: truncated, corrupted or
//! inconsistent input, and types the registry does not know, are [`SnapshotError`]s.
//!
//! The bytes are untrusted input (the checksum catches accidents, and anyone can
//! recompute it): every value is checked as the API checks it when it is set by hand,
//! and the first one out of range is a [`SnapshotError::InvalidValue`] naming it, before
//! anything is restored. So are the solver's state the next step reads (warm starts,
//! the last substep, a kept factor's Jacobian, which must give a finite `K`) and the
//! handle tables; a length never allocates more than the input holds.
//! A snapshot read back keeps the identity of the space it was taken from; a peer that
//! built the same scene restores it under its own handles after
//! [`Snapshot::adopt_identity_of`].
//!
//! With the `serde` feature, [`Snapshot`] implements `Serialize` and `Deserialize` (as
//! that byte form, for spaces holding builtin joints only), and
//! `SnapshotRegistry::serializable` and `SnapshotRegistry::seed` do the same for
//! spaces with constraint types of your own.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::OnceLock;

use glam::Vec2;

use crate::body::{Body, check_inertia, check_mass_alone};
use crate::constraint::Constraint;
pub(crate) use crate::encoding::{
    EntryCodec, LiveBody, check_break_values, read_len, read_list, refused, take, write_list,
};
pub use crate::encoding::{FORMAT_VERSION, SnapshotError, SnapshotFields};
use crate::error::Error;
use crate::joints::{
    AngleJoint, DistanceJoint, LineJoint, MotorJoint, PivotJoint, PulleyJoint, WeldJoint,
};
use crate::solver::{ErasedStore, Store};
use crate::space::{Snapshot, Space};
use crate::types::Pose;

/// The first bytes of every snapshot.
const MAGIC: [u8; 8] = *b"NAPESNAP";

/// Magic, version and payload length.
const HEADER_LEN: usize = 8 + 4 + 8;

struct Codec<T, const D: usize, const B: usize>(PhantomData<fn() -> T>);

fn write_as<T: SnapshotFields + 'static>(value: &dyn Any, out: &mut Vec<u8>) {
    // The store hands this codec its own `T` and `T::Jacobian`: the registry pairs them
    // by `TypeId`.
    value
        .downcast_ref::<T>()
        .expect("a store is written by its own type's codec")
        .write_snapshot(out);
}

impl<T, const D: usize, const B: usize> EntryCodec for Codec<T, D, B>
where
    T: Constraint<D, B> + SnapshotFields,
    T::Jacobian: SnapshotFields,
{
    fn write_constraint(&self, constraint: &dyn Any, out: &mut Vec<u8>) {
        write_as::<T>(constraint, out);
    }
    fn write_jacobian(&self, jacobian: &dyn Any, out: &mut Vec<u8>) {
        write_as::<T::Jacobian>(jacobian, out);
    }
    fn read_constraint(&self, input: &mut &[u8]) -> Result<Box<dyn Any>, SnapshotError> {
        let constraint = T::read_snapshot(input)?;
        constraint
            .validate()
            .map_err(SnapshotError::InvalidConstraint)?;
        Ok(Box::new(constraint))
    }
    fn read_jacobian(&self, input: &mut &[u8]) -> Result<Box<dyn Any>, SnapshotError> {
        Ok(Box::new(T::Jacobian::read_snapshot(input)?))
    }
}

/// One registered constraint type.
struct Registered {
    name: &'static str,
    /// `TypeId` of its `Store<T, D, B>` (the key of `Space::store_of`).
    store_type: TypeId,
    dim: usize,
    bodies: usize,
    codec: Box<dyn EntryCodec>,
    new_store: fn(u32, u32) -> Box<dyn ErasedStore>,
}

fn new_store<T: Constraint<D, B>, const D: usize, const B: usize>(
    space: u32,
    store: u32,
) -> Box<dyn ErasedStore> {
    Box::new(Store::<T, D, B>::new(space, store))
}

/// The constraint types a [`Snapshot`] may be written with and read back with (see the
/// [module docs](self)). [`new`](Self::new) has the seven builtin joints registered.
pub struct SnapshotRegistry {
    types: Vec<Registered>,
    by_name: HashMap<&'static str, usize>,
    by_store: HashMap<TypeId, usize>,
}

impl Default for SnapshotRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for SnapshotRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.types.iter().map(|t| t.name))
            .finish()
    }
}

impl SnapshotRegistry {
    /// A registry of the seven builtin joints.
    #[must_use]
    pub fn new() -> Self {
        let mut registry = Self {
            types: Vec::new(),
            by_name: HashMap::new(),
            by_store: HashMap::new(),
        };
        registry
            .register::<AngleJoint, 1, 2>()
            .register::<DistanceJoint, 1, 2>()
            .register::<LineJoint, 2, 2>()
            .register::<MotorJoint, 1, 2>()
            .register::<PivotJoint, 2, 2>()
            .register::<PulleyJoint, 1, 4>()
            .register::<WeldJoint, 3, 2>();
        registry
    }

    /// The shared registry of the builtin joints (what the `serde` impls of [`Snapshot`]
    /// use).
    #[must_use]
    pub fn builtin() -> &'static Self {
        static BUILTIN: OnceLock<SnapshotRegistry> = OnceLock::new();
        BUILTIN.get_or_init(Self::new)
    }

    /// Registers the constraint type `T` with `D` rows and `B` body slots under its
    /// [`Constraint::NAME`]. Registering a type twice does nothing.
    ///
    /// # Panics
    /// If a different type is already registered under the same name (use
    /// [`try_register`](Self::try_register) to get an error instead).
    pub fn register<T, const D: usize, const B: usize>(&mut self) -> &mut Self
    where
        T: Constraint<D, B> + SnapshotFields,
        T::Jacobian: SnapshotFields,
    {
        if let Err(e) = self.try_register::<T, D, B>() {
            panic!("{e}");
        }
        self
    }

    /// [`register`](Self::register), refusing a second type of the same name.
    ///
    /// # Errors
    /// [`SnapshotError::DuplicateName`] if a different type has `T`'s name.
    pub fn try_register<T, const D: usize, const B: usize>(&mut self) -> Result<(), SnapshotError>
    where
        T: Constraint<D, B> + SnapshotFields,
        T::Jacobian: SnapshotFields,
    {
        let store_type = TypeId::of::<Store<T, D, B>>();
        if let Some(&i) = self.by_name.get(T::NAME) {
            return if self.types[i].store_type == store_type {
                Ok(())
            } else {
                Err(SnapshotError::DuplicateName { name: T::NAME })
            };
        }
        let i = self.types.len();
        self.types.push(Registered {
            name: T::NAME,
            store_type,
            dim: D,
            bodies: B,
            codec: Box::new(Codec::<T, D, B>(PhantomData)),
            new_store: new_store::<T, D, B>,
        });
        self.by_name.insert(T::NAME, i);
        self.by_store.insert(store_type, i);
        Ok(())
    }

    /// The names of the registered types, in registration order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.types.iter().map(|t| t.name)
    }

    /// `snapshot` as bytes (see the [module docs](self)).
    ///
    /// # Errors
    /// [`SnapshotError::UnregisteredType`] if the space holds a constraint type this
    /// registry does not know.
    pub fn encode(&self, snapshot: &Snapshot) -> Result<Vec<u8>, SnapshotError> {
        let mut body = Vec::new();
        write_space(snapshot, &mut body);
        u32::try_from(snapshot.stores.len())
            .expect("fewer than 2³² constraint types")
            .write_snapshot(&mut body);
        let mut types: Vec<(TypeId, u32)> =
            snapshot.store_of.iter().map(|(&t, &i)| (t, i)).collect();
        types.sort_by_key(|&(_, i)| i);
        for (store_type, i) in types {
            let store = &snapshot.stores[i as usize];
            let registered = self
                .by_store
                .get(&store_type)
                .map(|&r| &self.types[r])
                .ok_or(SnapshotError::UnregisteredType { name: store.name() })?;
            write_list(registered.name.as_bytes(), &mut body);
            [registered.dim as u32, registered.bodies as u32].write_snapshot(&mut body);
            let mut payload = Vec::new();
            store.encode(&mut payload, registered.codec.as_ref());
            (payload.len() as u64).write_snapshot(&mut body);
            body.extend_from_slice(&payload);
        }
        let mut out = Vec::with_capacity(HEADER_LEN + body.len() + 8);
        out.extend_from_slice(&MAGIC);
        FORMAT_VERSION.write_snapshot(&mut out);
        (body.len() as u64).write_snapshot(&mut out);
        out.extend_from_slice(&body);
        checksum(&out).write_snapshot(&mut out);
        Ok(out)
    }

    /// Reads bytes written by [`encode`](Self::encode) (by this or another registry that
    /// knows the same types).
    ///
    /// # Errors
    /// A [`SnapshotError`] for bytes that are not a whole, intact snapshot of this format
    /// version, hold a type this registry does not know, or are inconsistent.
    pub fn decode(&self, bytes: &[u8]) -> Result<Snapshot, SnapshotError> {
        let mut input = bytes;
        let magic: [u8; 8] = take(&mut input).map_err(|_| SnapshotError::NotASnapshot)?;
        if magic != MAGIC {
            return Err(SnapshotError::NotASnapshot);
        }
        let version = u32::read_snapshot(&mut input)?;
        if version != FORMAT_VERSION {
            return Err(SnapshotError::UnsupportedVersion { found: version });
        }
        let len = read_len(&mut input)?;
        let total = len
            .checked_add(HEADER_LEN + 8)
            .ok_or(SnapshotError::Truncated)?;
        match bytes.len().cmp(&total) {
            std::cmp::Ordering::Less => return Err(SnapshotError::Truncated),
            std::cmp::Ordering::Greater => return Err(SnapshotError::TrailingBytes),
            std::cmp::Ordering::Equal => {}
        }
        let (contents, mut sum) = bytes.split_at(total - 8);
        if u64::read_snapshot(&mut sum)? != checksum(contents) {
            return Err(SnapshotError::ChecksumMismatch);
        }
        let mut body = &contents[HEADER_LEN..];
        let mut snapshot = read_space(&mut body)?;
        let live: Vec<Option<LiveBody>> = snapshot
            .bodies
            .iter()
            .map(|(generation, body)| {
                body.as_ref().map(|b| LiveBody {
                    generation: *generation,
                    dynamic: b.is_dynamic(),
                })
            })
            .collect();
        let store_count = u32::read_snapshot(&mut body)?;
        for i in 0..store_count {
            let name = String::from_utf8(read_list::<u8>(&mut body)?)
                .map_err(|_| SnapshotError::Malformed("a type name is not UTF-8"))?;
            let [dim, bodies] = <[u32; 2]>::read_snapshot(&mut body)?;
            let registered = self
                .by_name
                .get(name.as_str())
                .map(|&r| &self.types[r])
                .ok_or_else(|| SnapshotError::UnknownConstraintType { name: name.clone() })?;
            let found = (dim as usize, bodies as usize);
            if found != (registered.dim, registered.bodies) {
                return Err(SnapshotError::ShapeMismatch {
                    name,
                    expected: (registered.dim, registered.bodies),
                    found,
                });
            }
            let payload_len = read_len(&mut body)?;
            if payload_len > body.len() {
                return Err(SnapshotError::Truncated);
            }
            let (mut payload, rest) = body.split_at(payload_len);
            body = rest;
            let mut store = (registered.new_store)(snapshot.id, i);
            store.decode(&mut payload, registered.codec.as_ref(), snapshot.id, &live)?;
            if !payload.is_empty() {
                return Err(SnapshotError::Malformed("a store's payload is too long"));
            }
            if snapshot.store_of.insert(registered.store_type, i).is_some() {
                return Err(SnapshotError::Malformed("a constraint type appears twice"));
            }
            snapshot.stores.push(store);
        }
        if !body.is_empty() {
            return Err(SnapshotError::Malformed("bytes after the last store"));
        }
        let reported = snapshot.broken.iter().map(|b| &b.constraint);
        if reported
            .chain(&snapshot.faulty)
            .any(|c| c.space != snapshot.id || c.store >= store_count)
        {
            return Err(SnapshotError::Malformed("a reported constraint's id"));
        }
        Ok(snapshot)
    }
}

/// 64-bit FNV-1a.
fn checksum(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

fn write_space(s: &Snapshot, out: &mut Vec<u8>) {
    s.id.write_snapshot(out);
    s.gravity.write_snapshot(out);
    [
        s.substeps,
        s.exact_substeps,
        s.velocity_iterations,
        s.relax_iterations,
    ]
    .write_snapshot(out);
    s.adaptive_substeps.write_snapshot(out);
    s.direct_solve.write_snapshot(out);
    [s.joint_hertz, s.joint_damping_ratio, s.max_linear_speed].write_snapshot(out);
    u32::try_from(s.bodies.len())
        .expect("body indices are u32")
        .write_snapshot(out);
    for (generation, body) in &s.bodies {
        generation.write_snapshot(out);
        body.is_some().write_snapshot(out);
        if let Some(body) = body {
            body.write_snapshot(out);
        }
    }
    write_list(&s.free_bodies, out);
    (s.body_count as u64).write_snapshot(out);
    write_list(&s.broken, out);
    write_list(&s.faulty, out);
}

/// Reads the space's part of a snapshot (everything but the stores), checking every value
/// as the API checks it and the body tables against each other.
fn read_space(input: &mut &[u8]) -> Result<Snapshot, SnapshotError> {
    let id = u32::read_snapshot(input)?;
    let gravity = Vec2::read_snapshot(input)?;
    let [
        substeps,
        exact_substeps,
        velocity_iterations,
        relax_iterations,
    ] = SnapshotFields::read_snapshot(input)?;
    let adaptive_substeps = bool::read_snapshot(input)?;
    let direct_solve = bool::read_snapshot(input)?;
    let [joint_hertz, joint_damping_ratio, max_linear_speed] =
        SnapshotFields::read_snapshot(input)?;
    let mut snapshot = Snapshot {
        id,
        gravity,
        substeps,
        exact_substeps,
        adaptive_substeps,
        velocity_iterations,
        relax_iterations,
        direct_solve,
        joint_hertz,
        joint_damping_ratio,
        max_linear_speed,
        bodies: Vec::new(),
        free_bodies: Vec::new(),
        body_count: 0,
        stores: Vec::new(),
        store_of: HashMap::new(),
        broken: Vec::new(),
        faulty: Vec::new(),
    };
    // The settings as `Space::validate` sees them (cheap while there are no bodies).
    Space::from_snapshot(&snapshot)
        .validate()
        .map_err(|e| refused(String::new(), e))?;
    let slots = u32::read_snapshot(input)?;
    for i in 0..slots {
        let generation = u32::read_snapshot(input)?;
        let body = if bool::read_snapshot(input)? {
            let body = Body::read_snapshot(input)?;
            check_body(&body).map_err(|e| refused(format!("bodies[{i}]."), e))?;
            Some(body)
        } else {
            None
        };
        snapshot.bodies.push((generation, body));
    }
    let bodies = &snapshot.bodies;
    snapshot.free_bodies = read_list(input)?;
    snapshot.body_count = read_len(input)?;
    if snapshot.body_count != bodies.iter().filter(|(_, b)| b.is_some()).count() {
        return Err(SnapshotError::Malformed("the body count"));
    }
    let mut listed = vec![false; bodies.len()];
    for &i in &snapshot.free_bodies {
        match bodies.get(i as usize) {
            Some((_, None)) if !listed[i as usize] => listed[i as usize] = true,
            _ => return Err(SnapshotError::Malformed("the free body list")),
        }
    }
    snapshot.broken = read_list(input)?;
    for (i, event) in snapshot.broken.iter().enumerate() {
        check_break_values(event.value, event.limit, || format!("broken[{i}]."))?;
    }
    snapshot.faulty = read_list(input)?;
    Ok(snapshot)
}

/// [`Body::validate`], and what a body's constructors and setters guarantee besides: the
/// mass and inertia of a static or kinematic body are in range too, or infinite (as
/// [`Body::static_body`] gives them), and the cached rotation is a unit vector.
fn check_body(body: &Body) -> Result<(), Error> {
    // The rotation first: it is the body's state, its angle read from it and its winding.
    let Pose { cos, sin, .. } = body.pose;
    // The drift renormalises the rotation to a few ulps, a projection's nudge leaves
    // a few more: far inside this. False for a NaN or infinite component.
    let unit = (cos * cos + sin * sin - 1.0).abs() <= 1e-4;
    if !unit {
        return Err(Error::InvalidValue {
            what: "rotation",
            value: format!("(cos {cos}, sin {sin})"),
            range: "a unit vector (cos² + sin² within 1e-4 of 1)".to_string(),
        });
    }
    body.check_values()?;
    if !body.is_dynamic() {
        if body.mass != f32::INFINITY {
            check_mass_alone(body.mass)?;
        }
        check_inertia(body.inertia)?;
    }
    Ok(())
}

impl Snapshot {
    /// The snapshot as bytes, written with `registry` (which must know every constraint
    /// type in the space): see [`SnapshotRegistry::encode`].
    ///
    /// # Errors
    /// [`SnapshotError::UnregisteredType`] for a constraint type `registry` does not know.
    pub fn to_bytes(&self, registry: &SnapshotRegistry) -> Result<Vec<u8>, SnapshotError> {
        registry.encode(self)
    }

    /// A snapshot read back from [`to_bytes`](Self::to_bytes)' output: see
    /// [`SnapshotRegistry::decode`].
    ///
    /// # Errors
    /// A [`SnapshotError`] for bytes that are not an intact snapshot whose constraint
    /// types `registry` knows.
    pub fn from_bytes(bytes: &[u8], registry: &SnapshotRegistry) -> Result<Self, SnapshotError> {
        registry.decode(bytes)
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    use serde::de::{DeserializeSeed, Error as _, SeqAccess, Visitor};
    use serde::ser::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{Snapshot, SnapshotRegistry};

    /// A [`Snapshot`] with the registry to write it with: `Serialize` as its byte form.
    #[derive(Clone, Copy, Debug)]
    pub struct SerializableSnapshot<'a> {
        registry: &'a SnapshotRegistry,
        snapshot: &'a Snapshot,
    }

    /// Deserializes a [`Snapshot`] from its byte form with a registry that knows its
    /// constraint types.
    #[derive(Clone, Copy, Debug)]
    pub struct SnapshotSeed<'a> {
        registry: &'a SnapshotRegistry,
    }

    impl SnapshotRegistry {
        /// `snapshot` as a `Serialize` value (its byte form), for spaces holding
        /// constraint types of your own (registered here).
        #[must_use]
        pub fn serializable<'a>(&'a self, snapshot: &'a Snapshot) -> SerializableSnapshot<'a> {
            SerializableSnapshot {
                registry: self,
                snapshot,
            }
        }

        /// A `DeserializeSeed` reading a [`Snapshot`] with this registry.
        #[must_use]
        pub fn seed(&self) -> SnapshotSeed<'_> {
            SnapshotSeed { registry: self }
        }
    }

    impl Serialize for SerializableSnapshot<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let bytes = self
                .registry
                .encode(self.snapshot)
                .map_err(S::Error::custom)?;
            serializer.serialize_bytes(&bytes)
        }
    }

    /// With the builtin registry: a space holding constraint types of your own fails
    /// with [`SnapshotError::UnregisteredType`](super::SnapshotError::UnregisteredType);
    /// use [`SnapshotRegistry::serializable`] for it.
    impl Serialize for Snapshot {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            SnapshotRegistry::builtin()
                .serializable(self)
                .serialize(serializer)
        }
    }

    /// With the builtin registry; use [`SnapshotRegistry::seed`] for spaces with
    /// constraint types of your own.
    impl<'de> Deserialize<'de> for Snapshot {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            SnapshotRegistry::builtin().seed().deserialize(deserializer)
        }
    }

    impl<'de> DeserializeSeed<'de> for SnapshotSeed<'_> {
        type Value = Snapshot;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Snapshot, D::Error> {
            deserializer.deserialize_byte_buf(self)
        }
    }

    impl<'de> Visitor<'de> for SnapshotSeed<'_> {
        type Value = Snapshot;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("the bytes of a nape snapshot")
        }

        fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Snapshot, E> {
            self.registry.decode(bytes).map_err(E::custom)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Snapshot, A::Error> {
            // The hint may be a length read from the input: trusted only up to a page,
            // past that the buffer grows with the bytes actually read.
            let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 12));
            while let Some(byte) = seq.next_element::<u8>()? {
                bytes.push(byte);
            }
            self.registry.decode(&bytes).map_err(A::Error::custom)
        }
    }
}

#[cfg(feature = "serde")]
pub use serde_impls::{SerializableSnapshot, SnapshotSeed};
