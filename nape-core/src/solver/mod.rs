//! The solver: per-type constraint stores and the phases of a substep.
//!
//! Constraints of one type `T: Constraint<D, B>` live together in a `Store<T, D, B>`: two
//! dense `Vec`s indexed alike, addressed through generational slots: the entries (the
//! constraint, its slots' body indices and what every substep reads and writes) and their
//! cold parts (settings, the exact solve's bookkeeping, limits, breaks), so that the
//! sweeps over a mesh stream no more than they use. The [`Space`](crate::Space)
//! keeps one boxed `ErasedStore` per type and calls one method per store and phase, so
//! dynamic dispatch happens once per constraint type per phase; the loops over
//! constraints inside a store are monomorphic.
//!
//! # The step
//!
//! A step of `dt` runs the "soft step" of Box2D v3 (reference/peers.md §3) in two
//! groups (`Group`) of islands that share no dynamic body, one after the other, each with its
//! own substeps of `h = dt / n`: the swept islands (`substeps`) and the acyclic islands
//! solved exactly (`exact_substeps`). Each substep of a group:
//!
//! 1. integrates gravity and forces into velocities;
//! 2. prepares every active constraint at the current poses (rows, `J`, `K`, biases) and
//!    factorises the joint system of every acyclic island (the `direct` module);
//! 3. warm starts with the impulse of the previous substep;
//! 4. **biased pass**: acyclic islands are solved exactly in one sparse solve; islands
//!    with loops (meshes) get `velocity_iterations` Gauss–Seidel sweeps, their stiff rows
//!    made soft (`joint_hertz`, `joint_damping_ratio`) so the sweeps stay stable;
//! 5. integrates velocities into poses, and projects the acyclic islands' positions onto
//!    their stiff constraints (undone or damped where it made an island worse);
//! 6. **relax pass**: the same solves without the positional bias, so the velocity that
//!    corrected the positions is removed again and reported velocities match the motion.
//!
//! # Rows and weights
//!
//! Every row `i` has a weight `w_i ∈ {−1, 0, +1}` from `c = position_error(q)` and its
//! bounds: equality `w = 1, C' = c − min`; below `min`: `w = −1, C' = min − c`; above
//! `max`: `w = 1, C' = c − max`; inside: `w = 0` (row inactive) for a soft constraint. A
//! stiff row inside its range is *speculative* (as in Box2D): it takes the nearer bound,
//! `C' = −gap`, a bias `C'/h` and only ever pushes, so it stops an approach exactly at
//! the bound and does nothing otherwise. The solver works in the weighted space
//! `J' = diag(w) J`, `K' = diag(w) K diag(w)`, in which the accumulated impulse `λ'` of an
//! inequality row is clamped to `≤ 0` (push only). Constraints reporting
//! `HAS_LIMITS = false` skip all of this: every row is the equality `c = 0`.

mod bumpers;
mod decoded;
pub(crate) mod direct;
mod dispatch;
mod entry;
mod erased;
mod hosted;
mod limits;
pub(crate) mod meshes;
mod softness;
mod spin;
pub(crate) mod step;
mod store;
mod sweep;
mod swept_springs;
#[cfg(test)]
mod tests;

use std::any::Any;

use crate::constraint::{Bounds, Constraint, SharedSlots};
use crate::math::{clamp_length, invert_active, length_squared, mul_vec};
use crate::settings::{ConstraintSettings, SoftStep};
use crate::types::{BreakCause, BreakEvent, ConstraintId, InverseMass, Pose, Velocity, WorldPose};
use direct::{Carry, DirectSlot, DirectSystem, ExactRows, Link};
use entry::*;
pub(crate) use erased::ErasedStore;
pub use hosted::ExactSolver;
use meshes::Meshes;
pub(crate) use softness::*;
use spin::RigidSpin;
pub(crate) use store::Store;
use store::{FREE, Slot};
use swept_springs::Sweep;

/// The numbers every constraint's substep needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Substep {
    /// Substep length.
    pub(crate) h: f32,
    /// Whether the islands this substep solves step by RATTLE (`Space::run_substeps`):
    /// their springs are kicks of velocity Verlet ([`verlet_spring`]).
    pub(crate) rattle: bool,
    /// The kick of the forces this substep takes (`h`, or `h/2` at a RATTLE step's first).
    pub(crate) kick: f32,
    /// The time this substep's impulses stand for: `h`, but in a moving exact island's
    /// step (velocity Verlet) the first substep carries half a kick of the load and the
    /// last one and a half (its own and the step's closing half kick), so force limits
    /// and breaking compare each substep's impulse with `max_force` times this.
    pub(crate) span: f32,
    /// Softness of stiff rows in islands with loops (Gauss–Seidel).
    pub(crate) joint_softness: Softness,
    /// Whether this is the step's first substep, where `break_under_error` is checked.
    pub(crate) first: bool,
    /// The islands this substep solves.
    pub(crate) group: Group,
    /// Whether this is the first substep of moving exact islands, whose islands may start
    /// from the factor their last step ended with ([`direct::Carry`]).
    pub(crate) carry_start: bool,
    /// `span / h` of this substep over that of the one before (a RATTLE step's first
    /// substep follows the last of the step before, which carried one and a half): the
    /// warm start's impulse stands for the time of its span, not of its `h`.
    pub(crate) span_growth: f32,
}

/// How a constraint starts the first substep of a moving exact island
/// ([`Store::carried_start`]).
enum Start {
    /// From its island's kept factor: only its bias is written.
    Carried,
    /// From its island's factor, rebuilt from what it kept: fully prepared, then its
    /// rows written back.
    Restored,
    /// Prepared as any other substep.
    Fresh,
}

/// The two groups of islands a step solves one after the other, each with its own
/// substeps; they share no dynamic body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Group {
    /// Islands solved by Gauss–Seidel sweeps (those with loops, and all of them when the
    /// exact solve is off).
    Swept,
    /// Acyclic islands, solved exactly.
    Exact,
}

impl Group {
    /// Whether an entry solved exactly (`direct`) or not belongs to this group.
    #[inline]
    pub(crate) fn holds(self, direct: bool) -> bool {
        direct == (self == Group::Exact)
    }
}

/// A force-limited constraint whose impulse is at least this share of `max_force·h` sits
/// on its bound (`clamp_length` leaves it there up to rounding).
const SATURATED: f32 = 1.0 - 1e-5;

/// The most a warm start grows when the substep grows (`h / previous_h`): four times
/// covers a step four times as long as the last (1/240 s to 1/60 s).
const MAX_WARM_GROWTH: f32 = 4.0;

/// Relative compliance of a stiff row in an exact solve: negligible for the answer, and
/// enough to make redundant rows of one joint (a weld on top of a pivot) solvable.
const STIFF_COMPLIANCE: f32 = 1e-9;

/// Why and by how much a constraint broke during the step (reported at its end).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Break {
    cause: BreakCause,
    value: f32,
    limit: f32,
}

impl Break {
    /// `|λ| > max_force·h` in one substep, reported as the force `|λ| / h`.
    fn force(impulse_squared: f32, h: f32, max_force: f32) -> Self {
        Self {
            cause: BreakCause::Force,
            value: impulse_squared.sqrt() / h,
            limit: max_force,
        }
    }

    /// `|C| > max_error`.
    fn error(error_squared: f32, max_error: f32) -> Self {
        Self {
            cause: BreakCause::Error,
            value: error_squared.sqrt(),
            limit: max_error,
        }
    }
}

/// [`ErasedStore::geometric_stiffness`]'s flag of a body with a constraint whose load
/// the last step did not measure (just added or idle).
pub(crate) const LOAD_UNKNOWN: u8 = 1;
/// Its flag of a body with a soft constraint: the spring is relative to the masses, so
/// the weighting of a resting island would stiffen it.
pub(crate) const SPRUNG: u8 = 2;

/// What a swept entry's refresh finds already taken at the poses it refreshes at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Linearized<const D: usize> {
    /// Nothing: `J` is from earlier poses.
    Stale,
    /// `J`.
    Jacobian,
    /// `J` and the position error.
    Both([f32; D]),
}

/// Whether a constraint has a limit whose bounds are apart (an inequality row): a mesh
/// with one is swept differently, so a change of it rebuilds the islands.
pub(crate) fn limits_apart<T: Constraint<D, B>, const D: usize, const B: usize>(c: &T) -> bool {
    T::HAS_LIMITS && c.bounds().iter().any(|b| b.min < b.max)
}

/// What a constraint's later substeps of a step do instead of its full preparation, as
/// the full preparation of the step's first substep decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refresh {
    /// Prepare in full.
    Full,
    /// Swept, equality rows only: refresh `J` and the bias ([`Store::refresh_entry`]).
    Swept,
    /// [`Swept`](Self::Swept), and already refreshed for the coming substep by the last
    /// sweep of the one before, its warm start deferred ([`Ahead`]): nothing to prepare.
    Ready,
    /// Stiff, every row in the exact solve: refresh `J`, `K` and the rows
    /// ([`Store::refresh_exact_entry`]).
    Exact,
}

/// What the last sweep of a swept substep that another follows in the same step needs
/// to prepare that one ahead: a swept entry is refreshed right after its last update,
/// while its lines are in cache, instead of in a pass of its own.
pub(crate) struct Ahead<'a> {
    /// The substep (the coming one differs only in `first`, which the refresh does not
    /// read).
    pub(crate) substep: &'a Substep,
    /// The poses the coming substep starts from (the relax pass follows the drift).
    pub(crate) poses: &'a [WorldPose],
    /// Where the refreshed entries' warm starts go, added to the velocities when the
    /// coming substep has integrated its forces: applied at once they would change
    /// what the rest of this sweep solves.
    pub(crate) warm_starts: &'a mut [Velocity],
}
