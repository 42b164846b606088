//! Snapshots through bytes (docs/guarantees.md): a space with every builtin joint
//! and constraint types of the user's own, written as bytes and read back with a fresh
//! registry, continues bit for bit; so it does through serde; bytes that are truncated,
//! corrupted or name an unknown type are typed errors, never panics.

#[path = "support/every_joint.rs"]
mod every_joint;

#[path = "support/hand_level.rs"]
mod hand_level;

use every_joint::{break_and_free_slots, every_joint, plank};
use hand_level::HandLevel;
use nape::snapshot::{FORMAT_VERSION, SnapshotError, SnapshotFields, SnapshotRegistry};
use nape::{
    AngleJoint, Body, BodyHandle, Constraint, ConstraintSettings, InverseMass, PivotJoint, Pose,
    SharedSlots, Snapshot, Space, Vec2, Velocity, constraint,
};
use serde::de::DeserializeSeed;

const DT: f32 = 1.0 / 60.0;

/// The anchor of `middle` stays at the midpoint of two other anchors, its angle at the mean
/// of theirs (three rows, three bodies): a `#[constraint]` type of the user's own.
#[constraint(position = (
    middle.world_point(anchor) - (left.world_point(left_anchor) + right.world_point(right_anchor)) * 0.5,
    middle.angle - (left.angle + right.angle) / 2.0,
))]
#[derive(Clone, Copy, Debug)]
struct Midpoint {
    left: BodyHandle,
    middle: BodyHandle,
    right: BodyHandle,
    anchor: Vec2,
    left_anchor: Vec2,
    right_anchor: Vec2,
}

/// A soft rope of at most `length`, as a user's `#[constraint]` with limits.
#[constraint(position = (body2.position - body1.position).length(), limits = [..=length])]
#[derive(Clone, Copy, Debug)]
struct Rope {
    body1: BodyHandle,
    body2: BodyHandle,
    length: f32,
}

/// A registry that knows the scene's own types (built afresh each time: nothing carries
/// over from the registry that wrote the bytes).
fn registry() -> SnapshotRegistry {
    let mut registry = SnapshotRegistry::new();
    registry
        .register::<Midpoint, 3, 3>()
        .register::<Rope, 1, 2>()
        .register::<HandLevel, 1, 2>();
    registry
}

/// Every builtin joint, the user's types, soft and inactive constraints, a constraint that
/// breaks, and removed bodies and constraints (so the handle tables have free slots).
fn scene() -> Space {
    let mut space = Space::new();
    let (ground, [a, _, c, d, e, f]) = every_joint(&mut space);
    let doomed = plank(&mut space, 9.0, 9.0);
    let g = plank(&mut space, 4.0, 0.0);
    let h = plank(&mut space, 5.0, 0.5);
    let k = plank(&mut space, 6.0, 0.0);
    space
        .add_constraint(PivotJoint::new(ground, g, Vec2::new(4.0, 1.0), Vec2::ZERO))
        .unwrap();
    space
        .add_constraint(Midpoint {
            left: g,
            middle: h,
            right: k,
            anchor: Vec2::ZERO,
            left_anchor: Vec2::new(0.5, 0.0),
            right_anchor: Vec2::new(-0.5, 0.0),
        })
        .unwrap();
    space
        .add_constraint_with(
            Rope {
                body1: ground,
                body2: k,
                length: 7.0,
            },
            ConstraintSettings::soft(2.0, 0.3),
        )
        .unwrap();
    space
        .add_constraint(HandLevel {
            body1: e,
            body2: f,
            offset: 0.0,
        })
        .unwrap();
    // Inactive: kept, simulated not at all.
    space
        .add_constraint_with(
            AngleJoint::new(d, e, 0.0, 0.0),
            ConstraintSettings {
                active: false,
                ..ConstraintSettings::default()
            },
        )
        .unwrap();
    break_and_free_slots(&mut space, [a, c, f], doomed);
    space
}

fn step(space: &mut Space, n: usize) {
    for _ in 0..n {
        space.step(DT);
    }
}

/// The scene stepped 100 times, its bytes, and its hash 200 steps later.
fn stepped_scene() -> (Space, Vec<u8>, u64) {
    let mut space = scene();
    step(&mut space, 100);
    let bytes = space.snapshot().to_bytes(&registry()).unwrap();
    step(&mut space, 200);
    let hash = space.state_hash();
    (space, bytes, hash)
}

#[test]
fn a_snapshot_read_back_from_bytes_continues_bit_for_bit() {
    let mut space = scene();
    step(&mut space, 100);
    let at_snapshot = space.state_hash();
    let bytes = space.snapshot().to_bytes(&registry()).unwrap();
    step(&mut space, 200);
    let expected = space.state_hash();
    assert_ne!(expected, at_snapshot, "the scene must move");
    assert!(
        space.constraints().any(|c| c.type_name == "Midpoint"),
        "the user's constraint is still there"
    );

    let snapshot = Snapshot::from_bytes(&bytes, &registry()).unwrap();
    // Every field written is read back exactly: writing the result again gives the
    // same bytes.
    assert_eq!(snapshot.to_bytes(&registry()).unwrap(), bytes);
    let mut restored = Space::from_snapshot(&snapshot);
    assert_eq!(restored.state_hash(), at_snapshot);
    step(&mut restored, 200);
    assert_eq!(restored.state_hash(), expected);

    // Restoring into the original space (the usual rollback) too.
    space.restore(&snapshot);
    assert_eq!(space.state_hash(), at_snapshot);
    step(&mut space, 200);
    assert_eq!(space.state_hash(), expected);
}

#[test]
fn a_snapshot_read_back_through_serde_continues_bit_for_bit() {
    let (_, bytes, expected) = stepped_scene();
    let registry = registry();
    let snapshot = Snapshot::from_bytes(&bytes, &registry).unwrap();
    let json = serde_json::to_string(&registry.serializable(&snapshot)).unwrap();
    let read = registry
        .seed()
        .deserialize(&mut serde_json::Deserializer::from_str(&json))
        .unwrap();
    let mut restored = Space::from_snapshot(&read);
    step(&mut restored, 200);
    assert_eq!(restored.state_hash(), expected);

    // The plain `Serialize` impl knows the builtin joints only, and says which type it
    // does not know.
    let err = serde_json::to_string(&snapshot).unwrap_err().to_string();
    assert!(err.contains("is not registered"), "{err}");
}

#[test]
fn a_space_of_builtin_joints_round_trips_through_the_plain_serde_impls() {
    let mut space = Space::new();
    space.gravity = Vec2::new(0.0, -10.0);
    let ground = space.add_body(Body::static_body()).unwrap();
    let bob = space
        .add_body(Body::dynamic(1.0, 0.1).at(Vec2::new(1.0, 0.0)))
        .unwrap();
    space
        .add_constraint(PivotJoint::new(
            ground,
            bob,
            Vec2::ZERO,
            Vec2::new(-1.0, 0.0),
        ))
        .unwrap();
    step(&mut space, 100);
    let json = serde_json::to_vec(&space.snapshot()).unwrap();
    step(&mut space, 200);
    let mut restored = Space::from_snapshot(&serde_json::from_slice::<Snapshot>(&json).unwrap());
    step(&mut restored, 200);
    assert_eq!(restored.state_hash(), space.state_hash());
}

#[test]
fn truncated_bytes_are_typed_errors() {
    let (_, bytes, _) = stepped_scene();
    for len in 0..bytes.len() {
        let err = Snapshot::from_bytes(&bytes[..len], &registry()).unwrap_err();
        let expected = if len < 8 {
            SnapshotError::NotASnapshot
        } else {
            SnapshotError::Truncated
        };
        assert_eq!(err, expected, "{len} of {} bytes", bytes.len());
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        Snapshot::from_bytes(&longer, &registry()).unwrap_err(),
        SnapshotError::TrailingBytes
    );
}

#[test]
fn corrupted_bytes_are_typed_errors() {
    let (_, bytes, _) = stepped_scene();
    for i in 20..bytes.len() {
        let mut corrupted = bytes.clone();
        corrupted[i] ^= 0x5a;
        assert_eq!(
            Snapshot::from_bytes(&corrupted, &registry()).unwrap_err(),
            SnapshotError::ChecksumMismatch,
            "byte {i}"
        );
    }
    let mut magic = bytes.clone();
    magic[0] = b'X';
    assert_eq!(
        Snapshot::from_bytes(&magic, &registry()).unwrap_err(),
        SnapshotError::NotASnapshot
    );
    let mut version = bytes.clone();
    version[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    assert_eq!(
        Snapshot::from_bytes(&version, &registry()).unwrap_err(),
        SnapshotError::UnsupportedVersion {
            found: FORMAT_VERSION + 1
        }
    );
}

/// FNV-1a, the snapshot's checksum: recomputed below so that corrupted contents get past
/// it and reach the structural checks.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[test]
fn corrupted_contents_with_a_valid_checksum_never_panic() {
    let (_, bytes, _) = stepped_scene();
    let registry = registry();
    let body = bytes.len() - 8;
    let mut refused = 0;
    for i in 20..body {
        for flip in [0x01, 0x80, 0xff] {
            let mut corrupted = bytes.clone();
            corrupted[i] ^= flip;
            let sum = fnv1a(&corrupted[..body]);
            corrupted[body..].copy_from_slice(&sum.to_le_bytes());
            if Snapshot::from_bytes(&corrupted, &registry).is_err() {
                refused += 1;
            }
        }
    }
    // Flags, kinds, lengths, indices and handles are checked; most flips of an `f32` are
    // another valid state.
    assert!(refused > 0);
}

#[test]
fn an_unknown_or_unregistered_type_is_a_typed_error() {
    let (mut space, bytes, _) = stepped_scene();
    let builtin = SnapshotRegistry::new();
    let err = Snapshot::from_bytes(&bytes, &builtin).unwrap_err();
    assert!(
        matches!(
            &err,
            SnapshotError::UnknownConstraintType { name }
                if ["HandLevel", "Midpoint", "Rope"].contains(&name.as_str())
        ),
        "{err:?}"
    );
    assert!(matches!(
        space.snapshot().to_bytes(&builtin).unwrap_err(),
        SnapshotError::UnregisteredType { .. }
    ));

    // A different type under a registered name.
    let mut registry = registry();
    assert_eq!(
        registry.try_register::<LevelNamedPivot, 1, 2>(),
        Err(SnapshotError::DuplicateName { name: "PivotJoint" })
    );
    assert_eq!(registry.try_register::<Midpoint, 3, 3>(), Ok(()));
    space.step(DT);
}

/// [`HandLevel`] under the name of a builtin.
#[derive(Clone, Copy, Debug)]
struct LevelNamedPivot(HandLevel);

impl Constraint<1, 2> for LevelNamedPivot {
    type Jacobian = f32;
    const NAME: &'static str = "PivotJoint";

    fn bodies(&self) -> [BodyHandle; 2] {
        self.0.bodies()
    }
    fn set_bodies(&mut self, bodies: [BodyHandle; 2]) {
        self.0.set_bodies(bodies);
    }
    fn position_error(&self, poses: &[Pose; 2]) -> [f32; 1] {
        self.0.position_error(poses)
    }
    fn jacobian(&self, poses: &[Pose; 2]) -> f32 {
        self.0.jacobian(poses)
    }
    fn effective_mass(&self, j: &f32, m: &[InverseMass; 2], s: SharedSlots) -> [[f32; 1]; 1] {
        self.0.effective_mass(j, m, s)
    }
    fn velocity_error(&self, j: &f32, bodies: &[usize; 2], v: &[Velocity]) -> [f32; 1] {
        self.0.velocity_error(j, bodies, v)
    }
    fn apply_impulse(
        &self,
        j: &f32,
        impulse: &[f32; 1],
        m: &[InverseMass; 2],
        bodies: &[usize; 2],
        v: &mut [Velocity],
    ) {
        self.0.apply_impulse(j, impulse, m, bodies, v);
    }
}

impl SnapshotFields for LevelNamedPivot {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        self.0.write_snapshot(out);
    }
    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        HandLevel::read_snapshot(input).map(Self)
    }
}

#[test]
fn a_peer_restores_a_received_snapshot_under_its_own_handles() {
    // Two peers build the same scene; their spaces have different identities.
    let (_, bytes, expected) = stepped_scene();
    let mut peer = scene();
    let handles: Vec<BodyHandle> = peer.bodies().map(|(h, _)| h).collect();
    let mut snapshot = Snapshot::from_bytes(&bytes, &registry()).unwrap();
    let before = Space::from_snapshot(&snapshot).state_hash();
    snapshot.adopt_identity_of(&peer);
    assert_eq!(Space::from_snapshot(&snapshot).state_hash(), before);

    let mut other_peer = scene();
    let other_handles: Vec<BodyHandle> = other_peer.bodies().map(|(h, _)| h).collect();
    other_peer.restore(&Snapshot::from_bytes(&bytes, &registry()).unwrap());
    assert_eq!(
        other_peer.body(other_handles[1]).unwrap_err(),
        nape::Error::ForeignBody,
        "without adopting its identity, the peer's handles are foreign"
    );

    peer.restore(&snapshot);
    for &h in &handles {
        peer.body(h).unwrap();
    }
    let midpoints: Vec<_> = peer
        .constraints()
        .filter(|c| c.type_name == "Midpoint")
        .collect();
    assert_eq!(midpoints.len(), 1);
    for b in &midpoints[0].bodies {
        peer.body(*b).unwrap();
    }
    step(&mut peer, 200);
    assert_eq!(peer.state_hash(), expected);
}
