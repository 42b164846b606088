//! A constraint written by hand and opted in to byte snapshots, shared by the snapshot
//! tests. Its Jacobian is one `f32` (always 1), so that the layout of its entry in the
//! bytes is known to `tests/snapshot_untrusted.rs`.
//!
//! Include with `#[path = "support/hand_level.rs"] mod hand_level;`.

use nape::snapshot::{SnapshotError, SnapshotFields};
use nape::{BodyHandle, Constraint, InverseMass, Pose, SharedSlots, Velocity};

/// `y₂ − y₁ = offset`, written by hand, opted in to byte snapshots by implementing
/// [`SnapshotFields`] itself.
#[derive(Clone, Copy, Debug)]
pub struct HandLevel {
    /// The lower body.
    pub body1: BodyHandle,
    /// The upper body.
    pub body2: BodyHandle,
    /// How far above `body1` `body2` is held.
    pub offset: f32,
}

impl Constraint<1, 2> for HandLevel {
    type Jacobian = f32;
    const NAME: &'static str = "HandLevel";

    fn bodies(&self) -> [BodyHandle; 2] {
        [self.body1, self.body2]
    }

    fn set_bodies(&mut self, [body1, body2]: [BodyHandle; 2]) {
        (self.body1, self.body2) = (body1, body2);
    }

    fn position_error(&self, poses: &[Pose; 2]) -> [f32; 1] {
        [poses[1].position.y - poses[0].position.y - self.offset]
    }

    fn jacobian(&self, _: &[Pose; 2]) -> f32 {
        1.0
    }

    fn effective_mass(&self, j: &f32, m: &[InverseMass; 2], _: SharedSlots) -> [[f32; 1]; 1] {
        [[j * j * (m[0].mass + m[1].mass)]]
    }

    fn velocity_error(&self, j: &f32, bodies: &[usize; 2], v: &[Velocity]) -> [f32; 1] {
        [j * (v[bodies[1]].linear.y - v[bodies[0]].linear.y)]
    }

    fn apply_impulse(
        &self,
        j: &f32,
        impulse: &[f32; 1],
        m: &[InverseMass; 2],
        bodies: &[usize; 2],
        v: &mut [Velocity],
    ) {
        v[bodies[0]].linear.y -= j * impulse[0] * m[0].mass;
        v[bodies[1]].linear.y += j * impulse[0] * m[1].mass;
    }
}

impl SnapshotFields for HandLevel {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        (self.body1, self.body2, self.offset).write_snapshot(out);
    }

    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        let (body1, body2, offset) = SnapshotFields::read_snapshot(input)?;
        Ok(Self {
            body1,
            body2,
            offset,
        })
    }
}
