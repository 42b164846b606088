//! Snapshots as untrusted input: a scene whose snapshot holds every kind of value the byte
//! form has, a way to edit its bytes as anyone can (the checksum and the length in the
//! header recomputed), and what every accepted snapshot must do. Shared by
//! `tests/snapshot_untrusted.rs` and the fuzz target in `fuzz/`.
//!
//! Include with `#[path = "support/untrusted.rs"] mod untrusted;` (next to
//! `support/every_joint.rs`, which it includes).
#![allow(dead_code)] // each includer uses a part

#[path = "every_joint.rs"]
mod every_joint;

use nape::snapshot::SnapshotRegistry;
use nape::{Body, ConstraintSettings, DistanceJoint, Snapshot, Space, Vec2};

pub use every_joint::plank;

/// The step of the scenes.
pub const DT: f32 = 1.0 / 60.0;

/// Magic, format version and payload length, before the space's fields.
pub const HEADER_LEN: usize = 20;

/// Every builtin joint (stiff, soft, limited, a motor), a kinematic body, a constraint
/// that breaks and stays, a removed body and a removed constraint (free slots in both
/// handle tables), stepped so that warm starts, caches and reports hold values.
#[must_use]
pub fn scene() -> Space {
    let mut space = Space::new();
    let (_, [a, _, c, _, _, f]) = every_joint::every_joint(&mut space);
    let doomed = plank(&mut space, 9.0, 9.0);
    let carrier = space
        .add_body(
            Body::kinematic()
                .at(Vec2::new(-3.0, 1.0))
                .with_velocity(Vec2::new(0.2, 0.0)),
        )
        .unwrap();
    let rider = plank(&mut space, -3.0, 0.0);
    space
        .add_constraint_with(
            DistanceJoint::new(carrier, rider, Vec2::ZERO, Vec2::ZERO, 0.0, 1.0),
            ConstraintSettings::soft(3.0, 0.7),
        )
        .unwrap();
    every_joint::break_and_free_slots(&mut space, [a, c, f], doomed);
    for _ in 0..30 {
        space.step(DT);
    }
    space
}

/// The registry of the scene (the builtin joints).
#[must_use]
pub fn registry() -> &'static SnapshotRegistry {
    SnapshotRegistry::builtin()
}

/// 64-bit FNV-1a, the snapshot's checksum.
#[must_use]
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Makes edited bytes pass the header's length and the checksum, as anyone editing a
/// snapshot can: what is left to refuse them is the decoder's checks of the contents.
pub fn seal(bytes: &mut [u8]) {
    let Some(payload) = bytes.len().checked_sub(HEADER_LEN + 8) else {
        return;
    };
    bytes[12..20].copy_from_slice(&(payload as u64).to_le_bytes());
    let end = bytes.len() - 8;
    let sum = fnv1a(&bytes[..end]);
    bytes[end..].copy_from_slice(&sum.to_le_bytes());
}

/// Decodes `bytes` with `registry`; if they are accepted, restores them into a space,
/// which must pass [`Space::validate`] with every body inside the limits
/// ([`Body::validate`]), and step 60 times with every body's state finite after every
/// step. Returns whether they were accepted.
///
/// After a step, finite is all that is asked: a constraint's parameters are limited
/// only to be finite, by hand as in a snapshot, and the solver may then move a body
/// faster than the limits a body is given by hand (a `DistanceJoint` of `joint_min =
/// 7e22` pulls its body at 1e23 m/s).
///
/// # Panics
/// Where an accepted snapshot breaks that promise (or the decoder panics).
pub fn check_untrusted(bytes: &[u8], registry: &SnapshotRegistry) -> bool {
    let Ok(snapshot) = Snapshot::from_bytes(bytes, registry) else {
        return false;
    };
    let mut space = Space::from_snapshot(&snapshot);
    if let Err(e) = space.validate() {
        panic!("an accepted snapshot's settings are refused: {e}");
    }
    for (handle, body) in space.bodies() {
        if let Err(e) = body.validate() {
            panic!("an accepted snapshot's {handle:?} is refused: {e}");
        }
    }
    for step in 1..=60 {
        if let Err(e) = space.try_step(DT) {
            panic!("step {step} of an accepted snapshot is refused: {e}");
        }
        for (handle, body) in space.bodies() {
            let pose = body.pose();
            let finite = [pose.cos, pose.sin, body.angular_velocity()]
                .iter()
                .all(|x| x.is_finite())
                && pose.position.is_finite()
                && body.velocity().is_finite();
            assert!(
                finite,
                "after {step} steps of an accepted snapshot, {handle:?}: {body:?}"
            );
        }
    }
    true
}
