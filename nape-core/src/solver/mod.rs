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

mod decoded;
pub(crate) mod direct;
pub(crate) mod step;

use std::any::Any;

use crate::constraint::{Bounds, Constraint, SharedSlots};
use crate::math::{clamp_length, invert_active, length_squared, mul_vec};
use crate::settings::ConstraintSettings;
use crate::types::{BreakCause, BreakEvent, ConstraintId, InverseMass, Pose, Velocity};
use direct::{Carry, DirectSlot, DirectSystem, ExactRows, Link};

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

/// A row's soft update `Δλ = −mass_scale·K⁻¹(J v + bias_rate·C) − impulse_scale·λ`
/// (Box2D v3's `b2Softness`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Softness {
    pub(crate) bias_rate: f32,
    pub(crate) mass_scale: f32,
    pub(crate) impulse_scale: f32,
}

impl Softness {
    /// Rigid: no bias, full mass.
    pub(crate) const RIGID: Self = Self {
        bias_rate: 0.0,
        mass_scale: 1.0,
        impulse_scale: 0.0,
    };

    /// A spring of `hertz` and damping ratio `zeta` over a substep `h`, relative to the
    /// row's own effective mass (so independent of the bodies' masses).
    pub(crate) fn spring(hertz: f32, zeta: f32, h: f32) -> Self {
        if hertz <= 0.0 {
            return Self {
                bias_rate: 0.0,
                mass_scale: 0.0,
                impulse_scale: 1.0,
            };
        }
        let omega = std::f32::consts::TAU * hertz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Self {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
            impulse_scale: a3,
        }
    }

    /// The compliance `γ₀` relative to `K` that gives the same update in an exact solve:
    /// `(K + γ₀ K) Δλ = −(J v + bias) − γ₀ K λ`.
    fn relative_compliance(self) -> f32 {
        if self.mass_scale > 0.0 {
            self.impulse_scale / self.mass_scale
        } else {
            f32::INFINITY
        }
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
    pub(crate) poses: &'a [Pose],
    /// Where the refreshed entries' warm starts go, added to the velocities when the
    /// coming substep has integrated its forces: applied at once they would change
    /// what the rest of this sweep solves.
    pub(crate) warm_starts: &'a mut [Velocity],
}

/// One constraint and what the solver reads of it in every substep; what it reads
/// seldom is in the store's parallel [`ColdEntry`].
///
/// The fields are laid out (`repr(C)`) by how often the solver reads them: first what
/// every Gauss–Seidel update reads and writes (128 bytes, two cache lines, for a pivot
/// joint), then what a swept constraint's later substeps refresh from and the step totals
/// the last sweep adds to. A sweep over a mesh of tens of thousands of joints streams its
/// entries from memory, lines it does not read among them (the hardware fetches ahead):
/// splitting off what a substep does not read made the 100 × 100 joint grid's step a
/// fifth faster (ARCHITECTURE.md, "Where the time goes").
#[derive(Clone)]
#[repr(C)]
pub(crate) struct Entry<T: Constraint<D, B>, const D: usize, const B: usize> {
    // ----- read by every sweep update
    /// Index of each slot's body in the compact body arrays.
    pub(crate) bodies: [usize; B],
    jacobian: T::Jacobian,
    /// `K'⁻¹` on the active equality rows (rigid).
    k_inv: [[f32; D]; D],
    /// Per pass (biased, relax): bias velocity, mass scale and impulse scale of each row.
    bias: [[f32; D]; 2],
    mass_scale: [[f32; D]; 2],
    impulse_scale: [[f32; D]; 2],
    /// Accumulated impulse of the current substep in weighted space (`λ'`).
    impulse: [f32; D],
    max_impulse: f32,
    /// Prepared this substep with at least one active row.
    solving: bool,
    /// What the later substeps of this step refresh instead of preparing in full,
    /// decided from this line of the entry alone (see [`Refresh`]).
    refresh: Refresh,
    /// `clamp_force` or `break_under_force`: whether an update must look at the length
    /// of the impulse at all (a copy of the settings' flag, so the sweep need not read
    /// the settings).
    force_checked: bool,
    /// Whether any active row is an inequality.
    limited: bool,
    /// Inverse masses of the slots, gathered at prepare.
    inverse_masses: [InverseMass; B],
    // ----- read by a swept constraint's refresh and by the last sweep of a substep
    pub(crate) constraint: T,
    /// The settings' `stiff`, copied at the full preparation for the refresh.
    stiff: bool,
    /// For each slot, the first slot holding the same body (a byte: slots are few).
    local: [u8; B],
    /// The previous substep's `h`, or 0 when there is no impulse to warm start from.
    previous_h: f32,
    weights: [f32; D],
    /// `Σ w∘λ'` over the substeps of the last step: the physical impulse it applied.
    step_impulse: [f32; D],
    /// `Σ Jᵀ(w∘λ')` per slot over the substeps of the last step (aliased slots summed in
    /// their first slot).
    step_body_impulse: [Velocity; B],
}

/// What the solver reads of a constraint seldom: at its full preparation, in the exact
/// solve, for limits and force limits, breaking and the queries. Kept apart from
/// [`Entry`] (at the same index of the store) so that the sweeps over a mesh stream only
/// what they read.
#[derive(Clone)]
pub(crate) struct ColdEntry<const D: usize, const B: usize> {
    pub(crate) settings: ConstraintSettings,
    /// Set when the constraint breaks; acted on (and reported) at the end of the step.
    broken: Option<Break>,
    /// Where the rows live in the exact solve of an acyclic island, if they do.
    direct: Option<DirectSlot>,
    /// Pairs of slots holding the same body.
    shared: SharedSlots,
    /// The sparse slot that owns this entry (for swap-removal and ids).
    slot: u32,
    /// `1 / K'_ii` of each active inequality row, solved one row at a time so that a
    /// clamped row's target never leaks into the others through the coupled inverse.
    row_mass: [f32; D],
    /// The part of this substep's `w∘λ'` already in `step_body_impulse`, counted through
    /// an earlier `J` when the rows were rebased within the substep; `accumulate` adds the
    /// rest through the current `J`. Zero between substeps (and so between steps: not
    /// snapshotted).
    rebased_impulse: [f32; D],
    /// The compliance of the exact rows relative to `K` (stiff, or a linear step's spring).
    direct_compliance: f32,
    /// A RATTLE spring's compliance relative to `k̄ I`, `k̄` the mean of `K`'s diagonal: a
    /// spring of one stiffness in every direction, so that its force on two anchors lies
    /// along their separation and keeps the island's angular momentum (relative to `K`,
    /// the force leans towards the stiffer direction and turns the island).
    spring_compliance: f32,
    /// Rows handed to the exact solve this substep.
    direct_rows: [bool; D],
    /// Rows clamped to push only: inequalities, violated or speculative.
    inequality: [bool; D],
    /// A direct entry with a row that cannot act (a singular effective mass), left to the
    /// sweeps; its limits and force limit are in the exact solve's active set instead.
    sweep: bool,
    /// Whether its island takes part in the current run of exact substeps (islands with
    /// different substep counts run one after the other).
    in_run: bool,
    /// A force limit clamps the impulse (soft or velocity-only with a finite `max_force`).
    clamp_force: bool,
    /// What this substep's limit corrections added to the swept rows' impulses (RATTLE
    /// islands), for the guard to take back if it undoes the substep's corrections.
    limit_impulse: [f32; D],
    /// Whether its rows and `J` are those its island's last finishing substep factorised,
    /// and that factor was kept for the next step ([`direct::Carry`]): what a rebuilt
    /// system restores the factor from.
    carried: bool,
}

impl<T: Constraint<D, B>, const D: usize, const B: usize> Entry<T, D, B> {
    /// Sets the slots' body indices and the derived aliasing tables.
    pub(crate) fn set_body_indices(&mut self, cold: &mut ColdEntry<D, B>, bodies: [usize; B]) {
        self.bodies = bodies;
        cold.shared = SharedSlots::find(&bodies);
        self.local = std::array::from_fn(|s| {
            let first = (0..=s).find(|&t| bodies[t] == bodies[s]).unwrap_or(s);
            u8::try_from(first).expect("at most 8 body slots")
        });
    }

    /// Forgets the accumulated impulse: no warm start at the next step, and the impulse
    /// queries read zero until the constraint is stepped again.
    pub(crate) fn clear_warm_start(&mut self, cold: &mut ColdEntry<D, B>) {
        self.impulse = [0.0; D];
        self.previous_h = 0.0;
        self.solving = false;
        self.clear_step_totals();
        cold.rebased_impulse = [0.0; D];
    }

    /// Forgets the last step's totals.
    fn clear_step_totals(&mut self) {
        self.step_impulse = [0.0; D];
        self.step_body_impulse = [Velocity::default(); B];
    }

    /// The physical (unweighted) impulse `λ` applied during the last step, all substeps
    /// together.
    pub(crate) fn unweighted_impulse(&self) -> [f32; D] {
        self.step_impulse
    }

    /// `Jᵀλ` per slot, through the constraint's own `apply_impulse` with unit inverse
    /// masses: exact for any implementation. Slots with the same entry in `indices` share
    /// one result (their terms add).
    fn transpose_times(
        &self,
        jacobian: &T::Jacobian,
        impulse: &[f32; D],
        indices: &[usize; B],
    ) -> [Velocity; B] {
        let mut scratch = [Velocity::default(); B];
        add_transpose(&self.constraint, jacobian, impulse, indices, &mut scratch);
        scratch
    }

    /// Whether the impulse `λ'` exceeds `max_force·h` with `break_under_force` set; if so,
    /// records the break (acted on at the end of the step).
    fn breaks_under(&mut self, cold: &mut ColdEntry<D, B>, impulse: &[f32; D]) -> bool {
        if !cold.settings.break_under_force {
            return false;
        }
        let impulse_squared = length_squared(impulse);
        let breaks = impulse_squared > self.max_impulse * self.max_impulse;
        if breaks {
            // The next substep takes the full preparation, which idles it.
            self.refresh = Refresh::Full;
            // The impulse stands for `max_impulse / max_force` of time (`Substep::span`).
            cold.broken = Some(Break::force(
                impulse_squared,
                self.max_impulse / cold.settings.max_force,
                cold.settings.max_force,
            ));
        }
        breaks
    }

    /// The world impulse `Jᵀλ` of the last step on each distinct body, as (compact body
    /// index, linear, angular), in slot order; slots holding the same body are summed.
    pub(crate) fn body_impulses(&self) -> Vec<(usize, Velocity)> {
        (0..B)
            .filter(|&s| self.first_of_its_body(s))
            .map(|s| (self.bodies[s], self.step_body_impulse[s]))
            .collect()
    }

    /// Adds this substep's impulse to the step's totals: `w∘λ'` and, per slot, `Jᵀ(w∘λ')`
    /// with this substep's `J`.
    #[inline]
    fn accumulate(&mut self) {
        let impulse = self.weighted_impulse();
        for (total, x) in self.step_impulse.iter_mut().zip(impulse) {
            *total += x;
        }
        self.count_body_impulse(&impulse);
    }

    /// [`accumulate`](Self::accumulate) for an entry of the exact solve, whose rows may
    /// have been rebased within the substep: only what the rebase did not count goes in
    /// through the current `J`. (Swept entries, never rebased, take the plain one: their
    /// last sweep is a hot loop.)
    fn accumulate_direct(&mut self, cold: &mut ColdEntry<D, B>) {
        let impulse = self.weighted_impulse();
        for (total, x) in self.step_impulse.iter_mut().zip(impulse) {
            *total += x;
        }
        let uncounted: [f32; D] = std::array::from_fn(|i| impulse[i] - cold.rebased_impulse[i]);
        self.count_body_impulse(&uncounted);
        cold.rebased_impulse = [0.0; D];
    }

    /// Moves the entry to the Jacobian `jacobian` within a substep: what its impulse so
    /// far applied through the old one goes into the step's body impulses now (the rest
    /// follows through the new one in [`accumulate_direct`](Self::accumulate_direct)).
    fn rebase(&mut self, cold: &mut ColdEntry<D, B>, jacobian: T::Jacobian) {
        let impulse = self.weighted_impulse();
        let uncounted: [f32; D] = std::array::from_fn(|i| impulse[i] - cold.rebased_impulse[i]);
        self.count_body_impulse(&uncounted);
        cold.rebased_impulse = impulse;
        self.jacobian = jacobian;
    }

    /// Adds `Jᵀ·impulse` to the step's body impulses through the current `J` (straight
    /// into the totals, the slots' local indices standing in for bodies).
    fn count_body_impulse(&mut self, impulse: &[f32; D]) {
        add_transpose(
            &self.constraint,
            &self.jacobian,
            impulse,
            &self.local_indices(),
            &mut self.step_body_impulse,
        );
    }

    /// `local` as indices.
    fn local_indices(&self) -> [usize; B] {
        self.local.map(usize::from)
    }

    /// Whether slot `s` is the first holding its body.
    fn first_of_its_body(&self, s: usize) -> bool {
        usize::from(self.local[s]) == s
    }

    /// `v += M⁻¹Jᵀ·impulse` on the entry's bodies (`impulse` weighted, `w∘λ'`), through
    /// the constraint's own compact Jacobian.
    #[inline]
    fn apply(&self, impulse: &[f32; D], velocities: &mut [Velocity]) {
        self.constraint.apply_impulse(
            &self.jacobian,
            impulse,
            &self.inverse_masses,
            &self.bodies,
            velocities,
        );
    }

    /// Row `i`'s weight `w_i`; without limits every weight is 1 and the weighting is
    /// compiled out.
    #[inline]
    fn weight(&self, i: usize) -> f32 {
        if T::HAS_LIMITS { self.weights[i] } else { 1.0 }
    }

    fn weighted_impulse(&self) -> [f32; D] {
        std::array::from_fn(|i| self.weight(i) * self.impulse[i])
    }

    /// [`Constraint::geometric_stiffness`] estimated where the constraint does not give it
    /// (a hand-written one), for the slots `probed` (the others keep their poses and read
    /// zero): one probe, every such slot turned and shifted across the force on it at
    /// once; each slot's torque change gives its rotational stiffness, its force's change
    /// across it the translational one. For pivots and welds the slots' terms do
    /// not mix; for joints whose direction depends on several (distance, pulley) they
    /// may, which only shifts an estimate. Turned without renormalising and multiplied by
    /// reciprocals: divisions and square roots were most of its time.
    fn probed_stiffness(
        &self,
        base: &[Pose; B],
        force: &[f32; D],
        probed: &[bool; B],
    ) -> [[f32; 2]; B] {
        const TURN: f32 = 1e-3;
        const SHIFT: f32 = 1e-3;
        // The turn's cosine and sine by their series (exact in `f32` at this size).
        const TURN_COS: f32 = 1.0 - TURN * TURN / 2.0;
        const TURN_SIN: f32 = TURN - TURN * TURN * TURN / 6.0;
        let distinct: [usize; B] = std::array::from_fn(|s| s);
        let loads = |poses: &[Pose; B]| {
            let jacobian = self.constraint.jacobian(poses);
            self.transpose_times(&jacobian, force, &distinct)
        };
        let at_base = loads(base);
        let across: [glam::Vec2; B] =
            std::array::from_fn(|s| at_base[s].linear.perp().normalize_or_zero());
        let probe: [Pose; B] = std::array::from_fn(|s| {
            let pose = base[s];
            if !probed[s] {
                return pose;
            }
            Pose {
                position: pose.position + across[s] * SHIFT,
                angle: pose.angle + TURN,
                cos: pose.cos * TURN_COS - pose.sin * TURN_SIN,
                sin: pose.sin * TURN_COS + pose.cos * TURN_SIN,
            }
        });
        let moved = loads(&probe);
        std::array::from_fn(|s| {
            if !probed[s] {
                return [0.0; 2];
            }
            [
                ((moved[s].angular - at_base[s].angular) * (1.0 / TURN)).abs(),
                ((moved[s].linear - at_base[s].linear).dot(across[s]) * (1.0 / SHIFT)).abs(),
            ]
        })
    }

    /// Marks the entry as applying nothing this step.
    fn idle(&mut self) {
        self.solving = false;
        self.impulse = [0.0; D];
        self.previous_h = 0.0;
    }
}

/// The order a store's entries are swept in: each swept entry (`Some(bodies)`) takes the
/// smallest colour that no earlier swept entry sharing a `dynamic` body with it has, and
/// the entries are stably sorted by colour (entries that are not swept count as colour 0).
///
/// Why: in a mesh consecutive entries of the insertion order share a body, so each
/// Gauss–Seidel update waits for the velocities the one before it wrote; entries of one
/// colour are independent and their updates overlap. It is the order Box2D v3 solves its
/// constraints in. Sorting by colour is idempotent (recolouring the sorted order gives every
/// entry its colour again), so rebuilding the islands for an unrelated change does not
/// reorder an island's sweep, and the colours depend only on the order of the entries that
/// share bodies, never on unrelated ones.
fn colour_order<'a>(
    entries: impl Iterator<Item = Option<&'a [usize]>>,
    dynamic: &[bool],
) -> Vec<usize> {
    let mut used = vec![0u64; dynamic.len()];
    let mut colours = Vec::new();
    for bodies in entries {
        let Some(bodies) = bodies else {
            colours.push(0);
            continue;
        };
        let moved = || bodies.iter().copied().filter(|&b| dynamic[b]);
        let taken = moved().fold(0u64, |taken, b| taken | used[b]);
        // Past 63 colours the rest share the last one: only their overlap is lost.
        let colour = (!taken).trailing_zeros().min(63);
        for b in moved() {
            used[b] |= 1 << colour;
        }
        colours.push(colour);
    }
    let mut order: Vec<usize> = (0..colours.len()).collect();
    order.sort_by_key(|&d| colours[d]);
    order
}

/// A new constraint's entry and cold part: no rows, no impulse, prepared in full at the
/// next substep.
fn fresh_entry<T: Constraint<D, B>, const D: usize, const B: usize>(
    constraint: T,
    settings: ConstraintSettings,
    slot: u32,
    bodies: [usize; B],
) -> (Entry<T, D, B>, ColdEntry<D, B>) {
    let mut entry = Entry {
        constraint,
        stiff: settings.stiff,
        bodies,
        local: [0; B],
        inverse_masses: [InverseMass::default(); B],
        jacobian: T::Jacobian::default(),
        k_inv: [[0.0; D]; D],
        limited: false,
        impulse: [0.0; D],
        weights: [0.0; D],
        bias: [[0.0; D]; 2],
        mass_scale: [[1.0; D]; 2],
        impulse_scale: [[0.0; D]; 2],
        max_impulse: f32::INFINITY,
        refresh: Refresh::Full,
        force_checked: false,
        solving: false,
        previous_h: 0.0,
        step_impulse: [0.0; D],
        step_body_impulse: [Velocity::default(); B],
    };
    let mut cold = ColdEntry {
        settings,
        slot,
        shared: SharedSlots::NONE,
        row_mass: [0.0; D],
        inequality: [false; D],
        clamp_force: false,
        direct: None,
        direct_rows: [false; D],
        direct_compliance: STIFF_COMPLIANCE,
        spring_compliance: 0.0,
        in_run: true,
        sweep: false,
        rebased_impulse: [0.0; D],
        limit_impulse: [0.0; D],
        broken: None,
        carried: false,
    };
    entry.set_body_indices(&mut cold, bodies);
    (entry, cold)
}

/// `items` in the order `order` (a permutation of its indices) gives.
fn permuted<X>(items: Vec<X>, order: &[usize]) -> Vec<X> {
    let mut old: Vec<Option<X>> = items.into_iter().map(Some).collect();
    order
        .iter()
        .map(|&from| old[from].take().expect("a permutation"))
        .collect()
}

/// The entries solved exactly in the current run of exact substeps, with their slots.
fn exact_run<'a, T: Constraint<D, B>, const D: usize, const B: usize>(
    entries: &'a mut [Entry<T, D, B>],
    cold: &'a mut [ColdEntry<D, B>],
) -> impl Iterator<Item = (&'a mut Entry<T, D, B>, &'a mut ColdEntry<D, B>, DirectSlot)> {
    entries.iter_mut().zip(cold).filter_map(|(e, c)| {
        let slot = c.direct?;
        (c.in_run && e.solving).then_some((e, c, slot))
    })
}

/// Adds `Jᵀλ` of each slot to `out[indices[slot]]`, through the constraint's own
/// `apply_impulse` with unit inverse masses: exact for any implementation.
#[inline]
fn add_transpose<T: Constraint<D, B>, const D: usize, const B: usize>(
    constraint: &T,
    jacobian: &T::Jacobian,
    impulse: &[f32; D],
    indices: &[usize; B],
    out: &mut [Velocity],
) {
    constraint.apply_impulse(jacobian, impulse, &[InverseMass::UNIT; B], indices, out);
}

/// A soft constraint's spring over a substep of `h` and its bias `bias_rate·C`, the bias
/// clamped in length to `max_error` (a badly stretched spring does not snap back
/// violently).
fn spring_bias<const D: usize>(
    settings: &ConstraintSettings,
    error: &[f32; D],
    h: f32,
) -> (Softness, [f32; D]) {
    let spring = Softness::spring(settings.frequency, settings.damping, h);
    let mut bias = error.map(|x| spring.bias_rate * x);
    clamp_length(&mut bias, settings.max_error);
    (spring, bias)
}

/// The relative compliance standing for no damper at all in [`verlet_spring`]: the
/// damper's share of the impulse is `1/γ₀` of the row's velocity error, below rounding.
const UNDAMPED_COMPLIANCE: f32 = 1e8;

/// A soft constraint's spring as velocity Verlet takes it (a RATTLE island): the kick
/// `−kick·ω² C / k̄` of the spring force at the poses the rows are taken at (explicit, so
/// that an undamped spring keeps its energy without drift), with the damper `−2ζω J v / k̄`
/// implicit in the velocity it leaves, both relative to the constraint's effective mass as
/// Nape's springs are, taken as one mass `1/k̄` in every direction (`k̄` the mean of
/// `K`'s diagonal: `ColdEntry::spring_compliance`). In the exact solve's compliance form
/// `(K + γ₀k̄) λ = −(J v + b)` that is `γ₀ = 1/(2ζω·kick)` and `b = γ₀·kick·ω² C` (the kick
/// clamped in length to `max_error`, as `spring_bias` clamps its bias).
pub(crate) fn verlet_spring<const D: usize>(
    settings: &ConstraintSettings,
    error: &[f32; D],
    kick: f32,
) -> (Softness, [f32; D]) {
    let omega = std::f32::consts::TAU * settings.frequency;
    let damper = 2.0 * settings.damping * omega * kick;
    let gamma = if damper > 1.0 / UNDAMPED_COMPLIANCE {
        1.0 / damper
    } else {
        UNDAMPED_COMPLIANCE
    };
    let mut pull = error.map(|x| kick * omega * omega * x);
    clamp_length(&mut pull, settings.max_error);
    let spring = Softness {
        bias_rate: 0.0,
        mass_scale: 1.0 / (1.0 + gamma),
        impulse_scale: gamma / (1.0 + gamma),
    };
    (spring, pull.map(|p| gamma * p))
}

/// `(w, C', inequality)` of every row for the error `c` and the bounds.
#[inline]
fn rows<const D: usize>(c: &[f32; D], bounds: &[Bounds; D]) -> ([f32; D], [f32; D], [bool; D]) {
    let mut w = [0.0; D];
    let mut e = [0.0; D];
    let mut inequality = [false; D];
    for i in 0..D {
        let Bounds { min, max } = bounds[i];
        if min == max {
            w[i] = 1.0;
            e[i] = c[i] - min;
        } else {
            inequality[i] = true;
            if c[i] < min {
                w[i] = -1.0;
                e[i] = min - c[i];
            } else if c[i] > max {
                w[i] = 1.0;
                e[i] = c[i] - max;
            }
        }
    }
    (w, e, inequality)
}

/// Makes every inactive inequality row of a stiff constraint speculative: `w` for the
/// nearer bound and `C'` the negative gap to it. With the bias `C'/h` and push-only
/// clamping such a row applies nothing unless the bodies would cross the bound within
/// the substep, and then exactly enough to land on it. Returns which rows it changed.
#[inline]
fn speculate<const D: usize>(
    c: &[f32; D],
    bounds: &[Bounds; D],
    (w, e, inequality): &mut ([f32; D], [f32; D], [bool; D]),
) -> [bool; D] {
    let mut speculative = [false; D];
    for i in 0..D {
        if !inequality[i] || w[i] != 0.0 {
            continue;
        }
        let Bounds { min, max } = bounds[i];
        let (below, above) = (c[i] - min, max - c[i]);
        if above <= below {
            if above.is_finite() {
                w[i] = 1.0;
                e[i] = -above;
                speculative[i] = true;
            }
        } else if below.is_finite() {
            w[i] = -1.0;
            e[i] = -below;
            speculative[i] = true;
        }
    }
    speculative
}

/// Relative weight of the diagonal added to `K'` before the sweeps invert it.
const SWEEP_REGULARIZATION: f32 = 1e-3;

/// `K' + ε·diag(K')`: a sweep's inverse of a nearly singular effective mass (rows of one
/// constraint that almost repeat each other) stays bounded by `1/(ε·K'_ii)` instead of
/// sending a huge impulse along the almost-redundant direction; for a well-conditioned
/// `K'` the change is of order ε.
#[inline]
fn regularized<const D: usize>(k: &[[f32; D]; D]) -> [[f32; D]; D] {
    // Built whole rather than copied and patched on the diagonal: the patched copy went
    // through memory, and reading it back waited on the narrow store.
    std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            if i == j {
                k[i][j] * (1.0 + SWEEP_REGULARIZATION)
            } else {
                k[i][j]
            }
        })
    })
}

/// `K' = diag(w) K diag(w)` and the mask of active rows.
#[inline]
fn weighted<const D: usize>(k: &[[f32; D]; D], w: &[f32; D]) -> ([[f32; D]; D], [bool; D]) {
    let mut out = *k;
    for i in 0..D {
        for j in 0..D {
            out[i][j] *= w[i] * w[j];
        }
    }
    (out, std::array::from_fn(|i| w[i] != 0.0))
}

/// The solver phases of one constraint type, behind a trait object (see the module docs).
pub(crate) trait ErasedStore: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// The constraint type's name (orders the stores, so that no result depends on which
    /// type was added first).
    fn name(&self) -> &'static str;
    /// Number of live constraints.
    fn len(&self) -> usize;
    /// The body slots and rows of every active constraint, in dense order.
    fn links(&self, out: &mut Vec<Link>);
    /// Where each active constraint (in the order of [`links`](Self::links)) lives in
    /// the exact solve; consumes its part of `assignment`.
    fn assign(&mut self, assignment: &mut std::slice::Iter<'_, Option<DirectSlot>>);
    /// Puts the swept entries in the order of a greedy colouring (`dynamic`: which bodies
    /// a constraint's impulse moves), so that consecutive updates of a sweep share no
    /// body; see [`colour_order`].
    fn order_sweeps(&mut self, dynamic: &[bool]);
    /// Forgets last step's totals: here with `clear_totals`, else in the first swept
    /// prepare of the step, which visits every entry anyway (the caller runs one
    /// before any impulse is counted).
    fn begin_step(&mut self, clear_totals: bool);
    /// Rows, `J`, `K'⁻¹`, biases, the rescaled warm start; rows of acyclic islands are
    /// written into `direct`.
    fn prepare(
        &mut self,
        substep: &Substep,
        poses: &[Pose],
        inverse_masses: &[InverseMass],
        velocities: &mut [Velocity],
        direct: &mut DirectSystem,
    );
    /// Reads back the impulses of the exact solve (and checks them against `max_force`).
    fn pull_direct(&mut self, direct: &DirectSystem);
    /// Clears `plain[island]` for every acyclic island holding one of this store's
    /// constraints that is not a stiff equality constraint: one with limits, a velocity
    /// target, a spring, a force limit or breaking under error.
    fn unmark_plain_islands(&self, direct: &DirectSystem, plain: &mut [bool]);
    /// Moves the bodies of stiff constraints whose inequality rows are violated at `poses`
    /// back onto their bounds (one non-linear Gauss–Seidel step per constraint): a limit
    /// reached during the substep holds at its end.
    /// The first round (`first`) covers every such constraint, later ones only those of
    /// the acyclic islands marked current in `direct`; the islands of the constraints that
    /// moved are marked pending.
    /// No body moves farther than `max_distance` in one correction.
    /// In a RATTLE substep (`substep.rattle`) each correction is the impulse it is: the
    /// velocities change by the move over `h` as well.
    fn correct_limits(
        &mut self,
        poses: &mut [Pose],
        velocities: &mut [Velocity],
        direct: &mut DirectSystem,
        first: bool,
        max_distance: f32,
        substep: &Substep,
    );
    /// Takes out of the swept rows' impulses what this substep's limit corrections added
    /// to them, in the islands `undone` flags (the guard undid their corrections).
    fn undo_limit_impulses(&mut self, direct: &DirectSystem, undone: &[bool]);
    /// Adds the squares of the positional errors of every stiff row of an acyclic island
    /// at `poses` to that island's entry of `island_errors`; with `rhs`, also writes them
    /// into the exact solve for the position projection (and its islands' reach).
    fn position_errors(
        &mut self,
        poses: &[Pose],
        direct: &mut DirectSystem,
        island_errors: &mut [f32],
        rhs: bool,
    );
    /// Writes the impulses changed by Gauss–Seidel sweeps back into the exact solve and
    /// marks (pending) the islands of the swept constraints.
    fn push_direct(&mut self, direct: &mut DirectSystem);
    /// One round of the exact solve's active set, after a solve: a limit row whose impulse
    /// came out pulling leaves it (its impulse taken back out of the velocities), one the
    /// velocities now drive across its bound joins it; a force-limited constraint whose
    /// impulse came out beyond `max_force·h` is fixed on that bound (the difference taken
    /// out of the velocities) and leaves it with all its rows, and rejoins when one
    /// Gauss–Seidel step would take it back inside. Rewrites the changed constraints' rows
    /// and marks (pending) their islands; returns whether any changed.
    fn update_active_rows(
        &mut self,
        direct: &mut DirectSystem,
        velocities: &mut [Velocity],
    ) -> bool;
    /// Adds to `out[body]`, for every dynamic body of an exactly solved constraint, how
    /// fast the torque of the constraint's force on it (its last substep's impulse over
    /// that substep's length) grows as the body turns (`|∂(Jᵀf)_θ/∂θ|`, N·m/rad) and the
    /// force across it as the body moves across it (N/m): the geometric stiffness that
    /// makes a loaded chain's or rope's transverse modes fast. Bodies of a
    /// constraint with rows swept by Gauss–Seidel, which converge with the substeps, get
    /// infinity: their islands take every substep.
    /// Bodies of a constraint that acts without a last step's impulse to read (just
    /// added, or idle) get [`LOAD_UNKNOWN`] in `flags`, those of a soft one [`SPRUNG`].
    fn geometric_stiffness(&self, poses: &[Pose], out: &mut [[f32; 2]], flags: &mut [u8]);
    /// Rewrites the rows of the exact solve with `J` at `poses`, each constraint's
    /// compliance raised by `damping[island] · K` (Levenberg–Marquardt damping of a
    /// projection).
    fn relinearize(
        &mut self,
        poses: &[Pose],
        velocities: &[Velocity],
        direct: &mut DirectSystem,
        damping: &[f32],
    );
    /// Moves the exact solve's constraints to `J` at `poses` within a substep: their rows
    /// rewritten (as [`relinearize`](Self::relinearize) without damping) and their own
    /// Jacobian replaced, the step's body impulses keeping what this substep's impulse so
    /// far applied through the old one (so that the totals, summed again through the new
    /// `J` at the substep's end, still equal the momentum the constraint gave).
    /// With `spring_kick` (the closing half kick of a RATTLE step), each spring's kick is
    /// taken anew at `poses` ([`verlet_spring`]) for the velocity solve that follows.
    fn rebase_exact_rows(
        &mut self,
        poses: &[Pose],
        velocities: &[Velocity],
        direct: &mut DirectSystem,
        spring_kick: Option<f32>,
    );
    /// Writes into `out[body]` the largest `ω²` of the springs solved exactly on each
    /// body (a RATTLE island's substeps must resolve them).
    fn spring_rates(&self, out: &mut [f32]);
    /// One Gauss–Seidel sweep (`pass` 0: biased, 1: relax) over the constraints that are
    /// not solved exactly, and the limits of those that are.
    /// `last`: the substep's final sweep, which also adds the swept constraints' impulses
    /// to the step's totals (one pass over them fewer).
    /// With `relinearize_at`, each swept constraint first takes its `J` at those poses
    /// (the drifted poses, at the relax pass's first sweep), so that its impulses act where
    /// the bodies are: free of net torque about any point there, they keep the island's
    /// angular momentum (`J` from the substep's start leaked 2% of a spinning loop's in
    /// 10 s).
    fn sweep(
        &mut self,
        pass: usize,
        velocities: &mut [Velocity],
        last: bool,
        group: Group,
        relinearize_at: Option<&[Pose]>,
    );
    /// The final relax sweep of a swept substep that another follows in the step: the
    /// updates and totals of [`sweep`](Self::sweep), and each swept equality constraint
    /// refreshed for the next substep right after its update, its warm start into
    /// `ahead.warm_starts`; the next swept prepare skips the store if all were.
    /// `first`: it is also the relax pass's first sweep, which relinearises (see
    /// [`sweep`](Self::sweep)).
    fn sweep_ahead(&mut self, velocities: &mut [Velocity], ahead: &mut Ahead<'_>, first: bool);

    /// Adds this substep's impulses to the step's totals: of the exact solve's constraints,
    /// or with `all` of every constraint (when no final sweep counted them).
    fn end_substep(&mut self, all: bool, group: Group, direct: &mut DirectSystem);
    /// After a rebuild: tells `direct` which constraints carried their rows into this
    /// step ([`DirectSystem::claim_carry`]).
    fn claim_carries(&self, direct: &mut DirectSystem);
    /// Removes or deactivates the constraints that broke this step; reports them.
    fn process_broken(&mut self, broken: &mut Vec<BreakEvent>);
    /// Removes every constraint with a slot on the body at compact index `body`.
    fn remove_attached(&mut self, body: usize, removed: &mut Vec<ConstraintId>);
    /// Reports every constraint with a slot on the body at compact index `body`.
    fn attached(&self, body: usize, out: &mut Vec<ConstraintId>);
    /// The compact body index of each slot of the constraint `(index, generation)`.
    fn slot_bodies(&self, index: u32, generation: u32) -> Option<Vec<usize>>;
    /// [`Entry::body_impulses`] of the constraint `(index, generation)`.
    fn body_impulses(&self, index: u32, generation: u32) -> Option<Vec<(usize, Velocity)>>;
    /// Removes the constraint `id` names, if it is live here.
    fn remove_id(&mut self, index: u32, generation: u32) -> bool;
    /// Reports every active constraint whose arithmetic went non-finite in the last step
    /// (an effective mass that sat the last substep out, a non-finite impulse, or a
    /// non-finite error at `poses`) and clears its warm start.
    fn contain_faults(&mut self, poses: &[Pose], out: &mut Vec<ConstraintId>);
    /// A deep copy: constraints, settings, slots and every cached value.
    fn clone_box(&self) -> Box<dyn ErasedStore>;
    /// The id and slot body indices of every constraint, in dense order.
    fn list(&self, out: &mut Vec<(ConstraintId, Vec<usize>)>);
    /// Feeds the state that decides the next step (ids, settings flags, warm starts) to
    /// `out` as bits, in dense order.
    fn state_bits(&self, out: &mut dyn FnMut(u32));
    /// Writes the store for a byte snapshot: its slot table and every field of every
    /// entry (the constraint and its Jacobian through `codec`, which knows their type).
    /// `shared` and `local` are not written: [`Entry::set_body_indices`] derives them.
    fn encode(&self, out: &mut Vec<u8>, codec: &dyn crate::encoding::EntryCodec);
    /// Reads what [`encode`](Self::encode) wrote into this empty store, checking the slot
    /// table, that every slot's body is live in the snapshot's space `space`, whose
    /// body slots are `bodies` (`None`: free), and every value in range.
    fn decode(
        &mut self,
        input: &mut &[u8],
        codec: &dyn crate::encoding::EntryCodec,
        space: u32,
        bodies: &[Option<crate::encoding::LiveBody>],
    ) -> Result<(), crate::encoding::SnapshotError>;
    /// Moves the store into the space `space`: its ids and every constraint's body handles
    /// name that space from now on.
    fn set_space(&mut self, space: u32);
}

#[derive(Clone, Copy)]
struct Slot {
    generation: u32,
    /// Index into `entries`, or `u32::MAX` when free.
    dense: u32,
}

const FREE: u32 = u32::MAX;

/// All constraints of type `T` in one space.
#[derive(Clone)]
pub(crate) struct Store<T: Constraint<D, B>, const D: usize, const B: usize> {
    space: u32,
    store: u32,
    slots: Vec<Slot>,
    free: Vec<u32>,
    entries: Vec<Entry<T, D, B>>,
    /// The seldom read part of each entry, at the same index.
    cold: Vec<ColdEntry<D, B>>,
    /// How many entries the exact solve holds (set with the islands).
    direct_entries: usize,
    /// Whether an exactly solved entry of the current run of exact substeps has rows the
    /// sweeps handle (limits, force clamps); set by each exact prepare.
    direct_swept: bool,
    /// Whether one has limits or a force limit in the exact solve's active set (so
    /// `update_active_rows` has anything to look at); set by each exact prepare.
    direct_active_set: bool,
    /// Whether the last sweep of the substep before left every swept entry
    /// [`Refresh::Ready`], so that the coming swept prepare has nothing to do.
    ready_ahead: bool,
    /// Whether an entry may break (or is broken): otherwise no break is looked for.
    breakable: bool,
    /// Whether an entry may be [`ColdEntry::carried`]: otherwise, and with no island
    /// keeping its factor, the end of a substep has no carry to mark.
    carried_entries: bool,
}

impl<T: Constraint<D, B>, const D: usize, const B: usize> Store<T, D, B> {
    pub(crate) fn new(space: u32, store: u32) -> Self {
        Self {
            space,
            store,
            slots: Vec::new(),
            free: Vec::new(),
            entries: Vec::new(),
            cold: Vec::new(),
            direct_entries: 0,
            direct_swept: false,
            direct_active_set: false,
            ready_ahead: false,
            breakable: false,
            carried_entries: false,
        }
    }

    /// Adds a validated constraint; returns its `(slot, generation)`.
    pub(crate) fn insert(
        &mut self,
        constraint: T,
        settings: ConstraintSettings,
        bodies: [usize; B],
    ) -> (u32, u32) {
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    dense: FREE,
                });
                (self.slots.len() - 1) as u32
            }
        };
        self.slots[slot as usize].dense = self.entries.len() as u32;
        let (entry, cold) = fresh_entry(constraint, settings, slot, bodies);
        self.entries.push(entry);
        self.cold.push(cold);
        (slot, self.slots[slot as usize].generation)
    }

    fn dense(&self, index: u32, generation: u32) -> Option<usize> {
        let slot = self.slots.get(index as usize)?;
        (slot.generation == generation && slot.dense != FREE).then_some(slot.dense as usize)
    }

    pub(crate) fn get(
        &self,
        index: u32,
        generation: u32,
    ) -> Option<(&Entry<T, D, B>, &ColdEntry<D, B>)> {
        self.dense(index, generation)
            .map(|d| (&self.entries[d], &self.cold[d]))
    }

    pub(crate) fn get_mut(
        &mut self,
        index: u32,
        generation: u32,
    ) -> Option<(&mut Entry<T, D, B>, &mut ColdEntry<D, B>)> {
        self.dense(index, generation)
            .map(|d| (&mut self.entries[d], &mut self.cold[d]))
    }

    /// Removes the entry at dense index `d` (swap-remove), retiring its slot.
    fn remove_dense(&mut self, d: usize) -> Entry<T, D, B> {
        let entry = self.entries.swap_remove(d);
        let cold = self.cold.swap_remove(d);
        if let Some(moved) = self.cold.get(d) {
            self.slots[moved.slot as usize].dense = d as u32;
        }
        let slot = &mut self.slots[cold.slot as usize];
        slot.dense = FREE;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(cold.slot);
        entry
    }

    pub(crate) fn remove(&mut self, index: u32, generation: u32) -> Option<T> {
        let d = self.dense(index, generation)?;
        Some(self.remove_dense(d).constraint)
    }

    /// The id of the entry at dense index `d`.
    fn id_of(&self, d: usize) -> ConstraintId {
        let slot = self.cold[d].slot;
        ConstraintId {
            space: self.space,
            store: self.store,
            index: slot,
            generation: self.slots[slot as usize].generation,
        }
    }

    /// Prepares one entry for a substep.
    fn prepare_entry(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        substep: &Substep,
        poses: &[Pose],
        inverse: &[InverseMass],
        velocities: &[Velocity],
        direct: &mut DirectSystem,
    ) {
        e.refresh = Refresh::Full;
        e.solving = false;
        c.direct_rows = [false; D];
        if !c.settings.active || c.broken.is_some() {
            // Applies nothing: nothing to report, nothing to warm start from.
            e.idle();
            return;
        }
        let h = substep.h;
        let slot_poses: [Pose; B] = std::array::from_fn(|s| poses[e.bodies[s]]);
        e.inverse_masses = std::array::from_fn(|s| inverse[e.bodies[s]]);

        // Last substep's physical impulse, rescaled for a new h (Nape: jAcc *= dt/pre_dt),
        // by at most `MAX_WARM_GROWTH`: what a very short step's impulse holds beyond its
        // forces' share (a swept row's push on its error) is not a force, and scaled by
        // 1/60 s over 1 µs it flung a chain to 1,000 m/s.
        let scale = if e.previous_h > 0.0 {
            (h / e.previous_h * substep.span_growth).min(MAX_WARM_GROWTH)
        } else {
            0.0
        };
        let previous: [f32; D] = std::array::from_fn(|i| e.weights[i] * e.impulse[i] * scale);

        let s = c.settings;
        e.stiff = s.stiff;
        // A stiff constraint solved exactly needs its error only for limits and breaking:
        // the position projection measures it after the move.
        let error_unused = c.direct.is_some()
            && s.stiff
            && !T::HAS_LIMITS
            && !(s.break_under_error && substep.first);
        let (w, error, inequality, speculative) = if T::VELOCITY_ONLY || error_unused {
            ([1.0; D], [0.0; D], [false; D], [false; D])
        } else {
            let position = e.constraint.position_error(&slot_poses);
            let (mut r, speculative) = if T::HAS_LIMITS {
                let bounds = e.constraint.bounds();
                let mut r = rows(&position, &bounds);
                let speculative = if s.stiff {
                    speculate(&position, &bounds, &mut r)
                } else {
                    [false; D]
                };
                (r, speculative)
            } else {
                (([1.0; D], position, [false; D]), [false; D])
            };
            // A non-finite error (a user's constraint gone wrong) disables its rows.
            for i in 0..D {
                if !r.1[i].is_finite() {
                    r.0[i] = 0.0;
                    r.1[i] = 0.0;
                }
            }
            if s.break_under_error && substep.first {
                let violated: [f32; D] =
                    std::array::from_fn(|i| if speculative[i] { 0.0 } else { r.1[i] });
                let error_squared = length_squared(&violated);
                if error_squared > s.max_error * s.max_error {
                    c.broken = Some(Break::error(error_squared, s.max_error));
                    e.idle();
                    return;
                }
            }
            (r.0, r.1, r.2, speculative)
        };
        e.jacobian = e.constraint.jacobian(&slot_poses);
        let k = e
            .constraint
            .effective_mass(&e.jacobian, &e.inverse_masses, c.shared);
        if k.iter().flatten().any(|x| !x.is_finite()) {
            // A Jacobian gone non-finite (a user's constraint at a singular pose): the
            // constraint sits this substep out rather than spreading NaN to its bodies.
            e.idle();
            return;
        }
        let (k, active) = weighted(&k, &w);
        let limit: [bool; D] =
            std::array::from_fn(|i| active[i] && (inequality[i] || speculative[i]));
        e.limited = T::HAS_LIMITS && limit.iter().any(|&l| l);
        let clamp_force = (T::VELOCITY_ONLY || !s.stiff) && s.max_force.is_finite();
        c.row_mass = [0.0; D];
        let usable: [bool; D] = if e.limited {
            let equality: [bool; D] = std::array::from_fn(|i| active[i] && !limit[i]);
            e.k_inv = invert_active(&regularized(&k), &equality);
            c.row_mass = std::array::from_fn(|i| {
                if limit[i] && k[i][i] > 0.0 && k[i][i].is_finite() {
                    1.0 / k[i][i]
                } else {
                    0.0
                }
            });
            std::array::from_fn(|i| e.k_inv[i][i] != 0.0 || c.row_mass[i] != 0.0)
        } else if c.direct.is_none() || clamp_force {
            e.k_inv = invert_active(&regularized(&k), &active);
            std::array::from_fn(|i| e.k_inv[i][i] != 0.0)
        } else {
            // Solved exactly and never swept: no inverse needed, only which rows can act.
            std::array::from_fn(|i| active[i] && k[i][i] > 0.0 && k[i][i].is_finite())
        };
        let usable = |i: usize| usable[i];

        let in_direct = c.direct.is_some();
        let (spring, soft_bias) = if T::VELOCITY_ONLY || s.stiff {
            (None, [0.0; D])
        } else if substep.rattle && c.direct.is_some() {
            let (spring, bias) = verlet_spring(&s, &error, substep.kick);
            (Some(spring), bias)
        } else {
            let (spring, bias) = spring_bias(&s, &error, h);
            (Some(spring), bias)
        };
        let velocity_bias = if T::VELOCITY_ONLY {
            e.constraint.velocity_bias(&e.jacobian)
        } else {
            [0.0; D]
        };
        for i in 0..D {
            let (bias, rate) = if T::VELOCITY_ONLY {
                let b = velocity_bias[i];
                ([b, b], Softness::RIGID)
            } else if let Some(spring) = spring {
                ([soft_bias[i]; 2], spring)
            } else if speculative[i] {
                ([error[i] / h; 2], Softness::RIGID)
            } else if in_direct {
                // The position projection removes the error without adding velocity.
                ([0.0, 0.0], Softness::RIGID)
            } else {
                let soft = substep.joint_softness;
                ([soft.bias_rate * error[i], 0.0], soft)
            };
            e.bias[0][i] = bias[0];
            e.bias[1][i] = bias[1];
            e.mass_scale[0][i] = rate.mass_scale;
            e.impulse_scale[0][i] = rate.impulse_scale;
            // The relax pass keeps springs and speculative limits, and is rigid otherwise.
            let relax = if spring.is_some() {
                rate
            } else {
                Softness::RIGID
            };
            e.mass_scale[1][i] = relax.mass_scale;
            e.impulse_scale[1][i] = relax.impulse_scale;
        }
        c.clamp_force = clamp_force;
        e.force_checked = clamp_force || s.break_under_force;
        e.max_impulse = s.max_force * substep.span;

        // Re-weight the warm-start impulse; rows that are inactive, dropped as singular, or
        // (inequalities) on the wrong side start from zero.
        for i in 0..D {
            let mut l = w[i] * previous[i];
            if !usable(i) || ((inequality[i] || speculative[i]) && l > 0.0) {
                l = 0.0;
            }
            e.impulse[i] = l;
        }
        e.weights = w;
        c.inequality = std::array::from_fn(|i| inequality[i] || speculative[i]);
        e.previous_h = h;
        e.solving = (0..D).any(|i| active[i] && usable(i));
        if !T::HAS_LIMITS && !T::VELOCITY_ONLY && c.direct.is_none() && e.solving {
            e.refresh = Refresh::Swept;
        }
        c.sweep = false;

        if c.direct.is_some() && e.solving {
            let gamma0 = spring.map_or(STIFF_COMPLIANCE, Softness::relative_compliance);
            if spring.is_some() && substep.rattle {
                (c.direct_compliance, c.spring_compliance) = (0.0, gamma0);
            } else {
                (c.direct_compliance, c.spring_compliance) = (gamma0, 0.0);
            }
            // Limit rows join the exact solve while they push, and a force-limited
            // constraint's rows while its impulse stays within `max_force·h` (an active
            // set: `update_active_rows`): a limit from the start if violated or pushing in
            // the last substep (a soft constraint's, a spring past its bound, with its
            // compliance), a force-limited constraint unless its impulse sat on its bound
            // in the last substep (then it starts fixed there, applied by the warm start).
            let saturated =
                c.clamp_force && length_squared(&e.impulse) >= (SATURATED * e.max_impulse).powi(2);
            let managed = |i: usize| w[i] != 0.0 && usable(i) && (c.inequality[i] || c.clamp_force);
            let exact_row = |i: usize| {
                w[i] != 0.0
                    && usable(i)
                    && !saturated
                    && (!c.inequality[i] || !speculative[i] || e.impulse[i] != 0.0)
            };
            c.sweep = (0..D).any(|i| w[i] != 0.0 && !exact_row(i) && !managed(i));
            c.direct_rows = std::array::from_fn(exact_row);
            // A stiff equality constraint solved exactly with every row: its later
            // substeps need only `J`, `K` and the rows (`refresh_exact_entry`).
            if !T::HAS_LIMITS
                && !T::VELOCITY_ONLY
                && s.stiff
                && !c.clamp_force
                && c.direct_rows.iter().all(|&r| r)
            {
                e.refresh = Refresh::Exact;
                // Started cold, as `refresh_exact_entry` starts it: the exact solve finds
                // the whole impulse either way, but from a warm start it rounds
                // differently, and a space rebuilt in the middle of a motion (a restored
                // snapshot) would step apart from the one it was taken from in the last
                // bits.
                e.impulse = [0.0; D];
            }
            Self::write_direct_rows(
                e,
                c,
                &e.jacobian,
                &k,
                c.direct_compliance,
                velocities,
                direct,
            );
        }
    }

    /// Writes the exact rows (`direct_rows`) of `e` at its slot into the direct system:
    /// each row's `Jᵀ` per slot from `jacobian` (weighted), its biases with the kinematic
    /// bodies' share, its impulse, and the rows' compliance `compliance · K'` (`k`: `K'`).
    /// An entry outside the exact solve has no rows there, and nothing is written.
    #[inline]
    fn write_direct_rows(
        e: &Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        jacobian: &T::Jacobian,
        k: &[[f32; D]; D],
        compliance: f32,
        velocities: &[Velocity],
        direct: &mut DirectSystem,
    ) {
        let Some(slot) = &c.direct else { return };
        let isotropic = c.spring_compliance * (0..D).map(|i| k[i][i]).sum::<f32>() / D as f32;
        let compliance_of =
            |i: usize, j: usize| compliance * k[i][j] + if i == j { isotropic } else { 0.0 };
        // Row `i`'s weighted `J` per slot and the kinematic bodies' share of its bias (only
        // exact rows are written, and those of a constraint without limits weigh 1).
        let rows = e.constraint.jacobian_rows(jacobian);
        let exact_row = |i: usize| {
            let row = rows[i].map(|entries| entries.map(|j| j * e.weight(i)));
            (row, Self::kinematic_share(e, slot, &row, velocities))
        };
        if c.direct_rows.iter().all(|&w| w)
            && let Some(whole) = direct.whole_rows::<D, B>(slot)
        {
            // In place, each value as `set_rows` would write it.
            for (i, k) in k.iter().enumerate() {
                let (row, moving) = exact_row(i);
                let target = &mut whole.jacobian[i * B * 3..(i + 1) * B * 3];
                for (t, j) in target.iter_mut().zip(row.as_flattened()) {
                    *t = f64::from(*j);
                }
                whole.biased[i] = f64::from(e.bias[0][i] + moving);
                whole.relaxed[i] = f64::from(e.bias[1][i] + moving);
                whole.projected[i] = 0.0;
                whole.lambda[i] = f64::from(e.impulse[i]);
                for (j, &kij) in k.iter().enumerate() {
                    whole.compliance[i * D + j] = f64::from(compliance_of(i, j));
                    whole.mass[i * D + j] = f64::from(kij);
                }
            }
            return;
        }
        let mut rows = ExactRows {
            written: c.direct_rows,
            jacobian: [[[0.0; 3]; B]; D],
            bias: [[0.0; 2]; D],
            lambda: e.impulse,
            compliance: std::array::from_fn(|i| std::array::from_fn(|j| compliance_of(i, j))),
            mass: *k,
            first_slot: std::array::from_fn(|s| e.first_of_its_body(s)),
        };
        for i in 0..D {
            if !c.direct_rows[i] {
                continue;
            }
            let (row, moving) = exact_row(i);
            rows.bias[i] = [e.bias[0][i] + moving, e.bias[1][i] + moving];
            rows.jacobian[i] = row;
        }
        direct.set_rows(slot, &rows);
    }

    /// `e`'s Jacobian and weighted effective mass `K'` at `poses`, or `None` where `K` is not
    /// finite (its rows then sit out).
    #[inline]
    fn linearize_at(
        e: &Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        poses: &[Pose],
    ) -> Option<(T::Jacobian, [[f32; D]; D])> {
        let slot_poses: [Pose; B] = std::array::from_fn(|s| poses[e.bodies[s]]);
        let jacobian = e.constraint.jacobian(&slot_poses);
        let k = e
            .constraint
            .effective_mass(&jacobian, &e.inverse_masses, c.shared);
        if k.iter().flatten().any(|x| !x.is_finite()) {
            return None;
        }
        Some((jacobian, weighted(&k, &e.weights).0))
    }

    /// Whether row `i` of `e` can act: its effective mass is usable (as prepare found it).
    fn usable_row(e: &Entry<T, D, B>, c: &ColdEntry<D, B>, i: usize) -> bool {
        e.weights[i] != 0.0 && (e.k_inv[i][i] != 0.0 || c.row_mass[i] != 0.0)
    }

    /// The impulse one biased Gauss–Seidel update of `e` alone would leave (`v`: its
    /// `Jv`): whether a force-limited constraint fixed on its bound would come back
    /// inside it.
    fn trial_impulse(e: &Entry<T, D, B>, c: &ColdEntry<D, B>, v: &[f32; D]) -> [f32; D] {
        let rhs: [f32; D] = std::array::from_fn(|i| e.weights[i] * v[i] + e.bias[0][i]);
        let solved = mul_vec(&e.k_inv, &rhs);
        std::array::from_fn(|i| {
            let solved = if c.row_mass[i] != 0.0 {
                c.row_mass[i] * rhs[i]
            } else {
                solved[i]
            };
            e.impulse[i] - e.mass_scale[0][i] * solved - e.impulse_scale[0][i] * e.impulse[i]
        })
    }

    /// Kinematic bodies are not unknowns of the exact solve; their velocity, constant over
    /// the step, enters an exact row (`row`: its `Jᵀ` per slot) as a bias.
    fn kinematic_share(
        e: &Entry<T, D, B>,
        slot: &DirectSlot,
        row: &[[f32; 3]; B],
        velocities: &[Velocity],
    ) -> f32 {
        let mut share = 0.0;
        for (s, r) in row.iter().enumerate() {
            if slot.positions[s] == u8::MAX {
                let v = velocities[e.bodies[s]];
                share += r[0] * v.linear.x + r[1] * v.linear.y + r[2] * v.angular;
            }
        }
        share
    }

    /// A swept constraint's `J` taken at `poses`, what its impulse so far applied counted
    /// through the old one (`Entry::rebase`).
    #[inline]
    fn relinearize_swept_entry(e: &mut Entry<T, D, B>, c: &mut ColdEntry<D, B>, poses: &[Pose]) {
        if !e.solving {
            return;
        }
        let slot_poses: [Pose; B] = std::array::from_fn(|s| poses[e.bodies[s]]);
        let jacobian = e.constraint.jacobian(&slot_poses);
        e.rebase(c, jacobian);
    }

    /// Within a step, a constraint solved by sweeps alone with equality rows only needs its
    /// Jacobian (the world anchors, which turn with the bodies) and its positional bias
    /// anew; its effective mass, a preconditioner of the sweep that does not change what
    /// it converges to, is kept from the step's first substep. For an entry whose full
    /// preparation this step left it [`Refresh::Swept`] and still `solving` (the caller checks;
    /// `jacobian_current`: `J` is already at `poses`, only the bias is taken);
    /// returns `false` (and does nothing) if its error is not finite, where the full
    /// preparation decides what to do.
    #[inline]
    fn refresh_entry(
        e: &mut Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        substep: &Substep,
        poses: &[Pose],
        jacobian_current: bool,
    ) -> bool {
        if T::HAS_LIMITS || T::VELOCITY_ONLY {
            return false;
        }
        let slot_poses: &[Pose; B] = &std::array::from_fn(|s| poses[e.bodies[s]]);
        let error = e.constraint.position_error(slot_poses);
        if !error.iter().sum::<f32>().is_finite() {
            return false;
        }
        if !jacobian_current {
            e.jacobian = e.constraint.jacobian(slot_poses);
        }
        if e.stiff {
            let rate = substep.joint_softness.bias_rate;
            e.bias[0] = error.map(|x| rate * x);
        } else {
            e.bias = [spring_bias(&c.settings, &error, substep.h).1; 2];
        }
        true
    }

    /// A stiff equality constraint whose every row the exact solve took at its last full
    /// preparation (which left it [`Refresh::Exact`]; the caller checks it is still
    /// `solving` and in the run) needs only its Jacobian, its effective mass (the
    /// compliance and whether every row can act), its bodies' inverse masses (the step's
    /// weights) and its rows in the direct system anew: its biases (none: the projection
    /// corrects positions) and weights (all 1: no limits, every row usable) are what the
    /// full preparation would give. It starts from a zero impulse (see below) instead of
    /// its warm start, which needs `h` the same as the last substep's (the impulse
    /// rescaled by 1) only so that the full preparation's warm start would have been a
    /// no-op rescaling. Within a step that always holds; from one step to the
    /// next the caller also checks `h` and that the constraint cannot break under error
    /// (checked on a step's first substep), and anything else the full preparation reads
    /// (settings, masses, bodies) changes only with a rebuild, which makes every entry
    /// take it again ([`ErasedStore::assign`]). Returns `false` (having changed nothing) where a row can no
    /// longer act or `K` is not finite, which the full preparation handles.
    #[inline]
    fn refresh_exact_entry(
        e: &mut Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        poses: &[Pose],
        inverse: &[InverseMass],
        velocities: &[Velocity],
        direct: &mut DirectSystem,
    ) -> bool {
        if T::HAS_LIMITS || T::VELOCITY_ONLY {
            return false;
        }
        let slot_poses: &[Pose; B] = &std::array::from_fn(|s| poses[e.bodies[s]]);
        let inverse_masses = std::array::from_fn(|s| inverse[e.bodies[s]]);
        let jacobian = e.constraint.jacobian(slot_poses);
        let k = e
            .constraint
            .effective_mass(&jacobian, &inverse_masses, c.shared);
        // A finite sum has finite parts (and one that overflows comes from a `K` no row can
        // use), so the diagonal needs only its sign.
        if !(0..D).all(|i| k[i][i] > 0.0) || !k.iter().flatten().sum::<f32>().is_finite() {
            return false;
        }
        e.jacobian = jacobian;
        e.inverse_masses = inverse_masses;
        // Started cold: the exact solve finds the whole impulse of rows it alone solves
        // either way (`(K + Γ)μ = −(b + Jv + Γλ)` from `λ` and `v + M⁻¹Jᵀλ` gives the same
        // `λ + μ` as from 0 and `v`), so applying the last impulse first would be work
        // for nothing.
        e.impulse = [0.0; D];
        Self::write_direct_rows(
            e,
            c,
            &e.jacobian,
            &k,
            c.direct_compliance,
            velocities,
            direct,
        );
        true
    }

    /// How the entry starts the first substep of a moving exact island ([`Substep::carry_start`]):
    /// from its island's carried factor ([`direct::Carry`]) or anew. Only a stiff equality
    /// constraint the exact solve takes whole, at the last step's `h` and unable to break
    /// under error (what [`Self::refresh_exact_entry`] takes on a step's first substep),
    /// carries; any other vetoes its island's carry, which is then factorised anew.
    fn carried_start(
        e: &Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        slot: &DirectSlot,
        substep: &Substep,
        direct: &mut DirectSystem,
    ) -> Start {
        let carry = direct.carry_of(slot);
        if carry == Carry::None || carry == Carry::Vetoed {
            return Start::Fresh;
        }
        let eligible = !T::HAS_LIMITS
            && !T::VELOCITY_ONLY
            && e.solving
            && e.previous_h == substep.h
            && !c.settings.break_under_error;
        match carry {
            Carry::Kept if eligible && e.refresh == Refresh::Exact => Start::Carried,
            Carry::Restored if eligible && c.carried => Start::Restored,
            _ => {
                direct.veto_carry(slot);
                Start::Fresh
            }
        }
    }

    /// After its full preparation (as any after a rebuild), a constraint of a
    /// [`Carry::Restored`] island writes back the rows its island's factor was built from:
    /// its `J₁` (`jacobian`), and `K'` with the inverse masses of that factor (`masses`),
    /// which it also gives the system to factorise with; bit for bit as the finishing
    /// substep wrote them.
    fn restore_carried_rows(
        e: &mut Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        slot: &DirectSlot,
        jacobian: T::Jacobian,
        masses: [InverseMass; B],
        velocities: &[Velocity],
        direct: &mut DirectSystem,
    ) {
        let k = e.constraint.effective_mass(&jacobian, &masses, c.shared);
        let (k, _) = weighted(&k, &e.weights);
        e.jacobian = jacobian;
        Self::write_direct_rows(e, c, &jacobian, &k, c.direct_compliance, velocities, direct);
        for s in (0..B).filter(|&s| slot.positions[s] != u8::MAX) {
            direct.set_carried_mass(e.bodies[s], masses[s]);
        }
    }

    /// A carried constraint ([`direct::Carry`]) keeps the rows `J₁` of its island's factor
    /// and adds `J v − J₁ v` (`J` at `poses`, `v` the velocities after the substep's
    /// forces) to its bias, so that the solve asks the velocities to meet the rows where
    /// the bodies are; it starts cold, as every constraint the exact solve takes whole.
    /// Returns `false` (having written nothing) where `J v` is not finite: the full
    /// preparation handles that.
    fn write_carried_bias(
        e: &mut Entry<T, D, B>,
        slot: &DirectSlot,
        poses: &[Pose],
        inverse: &[InverseMass],
        velocities: &[Velocity],
        direct: &mut DirectSystem,
    ) -> bool {
        let slot_poses: &[Pose; B] = &std::array::from_fn(|s| poses[e.bodies[s]]);
        let now =
            e.constraint
                .velocity_error(&e.constraint.jacobian(slot_poses), &e.bodies, velocities);
        let then = e
            .constraint
            .velocity_error(&e.jacobian, &e.bodies, velocities);
        let mut bias: [f32; D] = std::array::from_fn(|i| e.weight(i) * (now[i] - then[i]));
        if slot.positions[..B].contains(&u8::MAX) {
            // The rows hold the dynamic bodies only; the kinematic ones' share of `J₁ v`
            // goes into the bias, as `write_direct_rows` puts it there.
            let rows = e.constraint.jacobian_rows(&e.jacobian);
            for (i, b) in bias.iter_mut().enumerate() {
                let row = rows[i].map(|entries| entries.map(|j| j * e.weight(i)));
                *b += Self::kinematic_share(e, slot, &row, velocities);
            }
        }
        if !bias.iter().all(|b| b.is_finite()) {
            return false;
        }
        e.inverse_masses = std::array::from_fn(|s| inverse[e.bodies[s]]);
        e.impulse = [0.0; D];
        direct.set_carried_bias(slot, &bias);
        true
    }

    /// Applies the entry's rescaled impulse of the last substep (its warm start).
    #[inline]
    fn warm_start(e: &Entry<T, D, B>, velocities: &mut [Velocity]) {
        if e.solving && e.impulse.iter().any(|&x| x != 0.0) {
            e.apply(&e.weighted_impulse(), velocities);
        }
    }

    /// A swept entry's part of a sweep: its update, and in the substep's last sweep its
    /// impulse into the step's totals.
    #[inline]
    fn update_swept(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        pass: usize,
        last: bool,
        velocities: &mut [Velocity],
    ) {
        if e.solving {
            Self::solve_entry(e, c, pass, velocities);
        }
        if last && (e.solving || c.broken.is_some()) {
            e.accumulate();
        }
    }

    /// One Gauss–Seidel update of one entry.
    #[inline]
    fn solve_entry(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        pass: usize,
        velocities: &mut [Velocity],
    ) {
        if T::HAS_LIMITS && e.limited {
            Self::solve_limited(e, c, pass, velocities);
            return;
        }
        // `Δλ' = −m∘K'⁻¹(w∘Jv + bias) − s∘λ'` (`m`, `s`: the pass's mass and impulse
        // scales), applied through the constraint's own `apply_impulse`: its compact
        // Jacobian makes that cheaper than any `M⁻¹Jᵀ` kept per row.
        let old = e.impulse;
        let v = e
            .constraint
            .velocity_error(&e.jacobian, &e.bodies, velocities);
        let rhs: [f32; D] = std::array::from_fn(|i| e.weight(i) * v[i] + e.bias[pass][i]);
        let solved = mul_vec(&e.k_inv, &rhs);
        let mut delta = [0.0; D];
        let mut new = [0.0; D];
        for i in 0..D {
            delta[i] = -e.mass_scale[pass][i] * solved[i] - e.impulse_scale[pass][i] * old[i];
            new[i] = old[i] + delta[i];
            if T::HAS_LIMITS && c.inequality[i] && new[i] > 0.0 {
                new[i] = 0.0;
                delta[i] = -old[i];
            }
        }
        Self::commit_delta(e, c, old, new, delta, velocities);
    }
}

impl<T: Constraint<D, B>, const D: usize, const B: usize> Store<T, D, B> {
    /// [`solve_entry`](Self::solve_entry) for an entry with active inequality rows: the
    /// equality rows as one block, then each inequality row alone, clamped to push only.
    fn solve_limited(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        pass: usize,
        velocities: &mut [Velocity],
    ) {
        let old = e.impulse;
        let v = e
            .constraint
            .velocity_error(&e.jacobian, &e.bodies, velocities);
        let rhs: [f32; D] = std::array::from_fn(|i| {
            if c.row_mass[i] == 0.0 {
                e.weights[i] * v[i] + e.bias[pass][i]
            } else {
                0.0
            }
        });
        let solved = mul_vec(&e.k_inv, &rhs);
        let mut new = old;
        for i in 0..D {
            if c.row_mass[i] == 0.0 {
                new[i] =
                    old[i] - e.mass_scale[pass][i] * solved[i] - e.impulse_scale[pass][i] * old[i];
            }
        }
        Self::commit(e, c, old, new, velocities);
        for i in 0..D {
            if c.row_mass[i] == 0.0 || !e.solving {
                continue;
            }
            let v = e
                .constraint
                .velocity_error(&e.jacobian, &e.bodies, velocities);
            let old = e.impulse;
            let mut new = old;
            let target = e.weights[i] * v[i] + e.bias[pass][i];
            new[i] = (old[i]
                - e.mass_scale[pass][i] * c.row_mass[i] * target
                - e.impulse_scale[pass][i] * old[i])
                .min(0.0);
            Self::commit(e, c, old, new, velocities);
        }
    }

    /// Projects the violated inequality rows of one entry at `poses` onto their bounds;
    /// returns the correction in weighted space (`w∘δ`, as impulses are kept), if any.
    fn correct_entry(
        e: &mut Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        poses: &mut [Pose],
        velocities: &mut [Velocity],
        max_distance: f32,
        as_impulse: Option<f32>,
    ) -> Option<[f32; D]> {
        let slot_poses: [Pose; B] = std::array::from_fn(|s| poses[e.bodies[s]]);
        let position = e.constraint.position_error(&slot_poses);
        let (w, error, inequality) = rows(&position, &e.constraint.bounds());
        let violated: [bool; D] = std::array::from_fn(|i| {
            inequality[i] && w[i] != 0.0 && error[i] > 0.0 && error[i].is_finite()
        });
        if !violated.iter().any(|&v| v) {
            return None;
        }
        // RATTLE's corrections are impulses through the substep start's rows, as SHAKE's
        // are, so that the step's totals (summed through those rows) hold them.
        let jacobian = if as_impulse.is_some() {
            e.jacobian
        } else {
            e.constraint.jacobian(&slot_poses)
        };
        let k = e
            .constraint
            .effective_mass(&jacobian, &e.inverse_masses, c.shared);
        let (k, _) = weighted(&k, &w);
        let k_inv = invert_active(&k, &violated);
        let solved = mul_vec(&k_inv, &error);
        let delta: [f32; D] = std::array::from_fn(|i| {
            if violated[i] {
                -w[i] * solved[i].max(0.0)
            } else {
                0.0
            }
        });
        if delta.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let mut scratch = [Velocity::default(); B];
        e.constraint.apply_impulse(
            &jacobian,
            &delta,
            &e.inverse_masses,
            &e.local_indices(),
            &mut scratch,
        );
        for slot in 0..B {
            if e.first_of_its_body(slot) {
                let d = scratch[slot];
                if d.linear != glam::Vec2::ZERO || d.angular != 0.0 {
                    let p = &mut poses[e.bodies[slot]];
                    *p = p.displace(d, max_distance);
                    if let Some(h) = as_impulse {
                        let v = &mut velocities[e.bodies[slot]];
                        v.linear += d.linear / h;
                        v.angular += d.angular / h;
                    }
                }
            }
        }
        Some(std::array::from_fn(|i| w[i] * delta[i]))
    }

    /// [`commit`](Self::commit) with the difference `delta = new − old` (weighted space)
    /// already known, so that applying it need not wait for `new`.
    #[inline]
    fn commit_delta(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        old: [f32; D],
        mut new: [f32; D],
        mut delta: [f32; D],
        velocities: &mut [Velocity],
    ) {
        // One test of the sum: finite parts have a finite sum (up to an overflow near
        // `f32::MAX`, which skips the update as well).
        if !new.iter().sum::<f32>().is_finite() {
            return;
        }
        if e.force_checked {
            if e.breaks_under(c, &new) {
                // `e.impulse` keeps what was applied before the break.
                e.solving = false;
                return;
            }
            if c.clamp_force {
                clamp_length(&mut new, e.max_impulse);
                delta = std::array::from_fn(|i| new[i] - old[i]);
            }
        }
        let delta: [f32; D] = std::array::from_fn(|i| e.weight(i) * delta[i]);
        e.impulse = new;
        e.apply(&delta, velocities);
    }

    /// Checks `new` against the force limits, clamps it, stores it and applies the
    /// difference to `old`.
    #[inline]
    fn commit(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        old: [f32; D],
        new: [f32; D],
        velocities: &mut [Velocity],
    ) {
        let delta = std::array::from_fn(|i| new[i] - old[i]);
        Self::commit_delta(e, c, old, new, delta, velocities);
    }
}

impl<T: Constraint<D, B>, const D: usize, const B: usize> ErasedStore for Store<T, D, B> {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn name(&self) -> &'static str {
        T::NAME
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn links(&self, out: &mut Vec<Link>) {
        for (e, c) in self.entries.iter().zip(&self.cold) {
            if !c.settings.active {
                continue;
            }
            let mut bodies = [0u32; SharedSlots::MAX_SLOTS];
            for (b, &x) in bodies.iter_mut().zip(&e.bodies) {
                *b = x as u32;
            }
            out.push(Link {
                rows: D,
                bodies,
                slots: B,
            });
        }
    }

    fn assign(&mut self, assignment: &mut std::slice::Iter<'_, Option<DirectSlot>>) {
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            // Settings, masses or bodies may have changed: the next preparation is full.
            e.refresh = Refresh::Full;
            c.direct = if c.settings.active {
                assignment.next().copied().flatten()
            } else {
                None
            };
        }
        self.direct_entries = self.cold.iter().filter(|c| c.direct.is_some()).count();
        // A break is only recorded under these settings (or restored with a snapshot),
        // and settings change only with a rebuild, which calls this.
        self.breakable = self.cold.iter().any(|c| {
            c.settings.break_under_force || c.settings.break_under_error || c.broken.is_some()
        });
    }

    fn order_sweeps(&mut self, dynamic: &[bool]) {
        let order = colour_order(
            self.entries.iter().zip(&self.cold).map(|(e, c)| {
                let swept = c.settings.active && c.direct.is_none();
                swept.then_some(&e.bodies[..])
            }),
            dynamic,
        );
        if order.iter().enumerate().all(|(d, &from)| d == from) {
            return;
        }
        self.entries = permuted(std::mem::take(&mut self.entries), &order);
        self.cold = permuted(std::mem::take(&mut self.cold), &order);
        for (d, c) in self.cold.iter().enumerate() {
            self.slots[c.slot as usize].dense = d as u32;
        }
    }

    fn begin_step(&mut self, clear_totals: bool) {
        self.ready_ahead = false;
        if clear_totals {
            self.entries.iter_mut().for_each(Entry::clear_step_totals);
        }
        // Only the exact solve rebases.
        if self.direct_entries > 0 {
            for c in &mut self.cold {
                c.rebased_impulse = [0.0; D];
            }
        }
    }

    fn prepare(
        &mut self,
        substep: &Substep,
        poses: &[Pose],
        inverse_masses: &[InverseMass],
        velocities: &mut [Velocity],
        direct: &mut DirectSystem,
    ) {
        if substep.group == Group::Exact {
            if self.direct_entries == 0 {
                return;
            }
            self.direct_swept = false;
            self.direct_active_set = false;
        }
        let later_swept = !substep.first && substep.group == Group::Swept;
        if later_swept && std::mem::take(&mut self.ready_ahead) {
            return;
        }
        let clear_totals = substep.first && substep.group == Group::Swept;
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            if clear_totals {
                e.clear_step_totals();
            }
            // A swept constraint's later substeps read only its first lines and the
            // constraint itself (the flags that decide so are among the first).
            if later_swept && e.solving {
                if e.refresh == Refresh::Ready {
                    continue;
                }
                if e.refresh == Refresh::Swept && Self::refresh_entry(e, c, substep, poses, false) {
                    Self::warm_start(e, velocities);
                    continue;
                }
            }
            if !substep.group.holds(c.direct.is_some()) {
                continue;
            }
            let mut restore = None;
            if let Some(slot) = c.direct {
                c.in_run = direct.is_active(&slot);
                if !c.in_run {
                    continue;
                }
                if substep.carry_start {
                    match Self::carried_start(e, c, &slot, substep, direct) {
                        Start::Carried
                            if Self::write_carried_bias(
                                e,
                                &slot,
                                poses,
                                inverse_masses,
                                velocities,
                                direct,
                            ) =>
                        {
                            continue;
                        }
                        // Its Jacobian gone non-finite: prepared anew (and contained), its
                        // island factorised anew.
                        Start::Carried => direct.veto_carry(&slot),
                        Start::Restored => restore = Some((slot, e.jacobian, e.inverse_masses)),
                        Start::Fresh => {}
                    }
                }
                if restore.is_none()
                    && e.refresh == Refresh::Exact
                    && e.solving
                    && (!substep.first
                        || (e.previous_h == substep.h && !c.settings.break_under_error))
                    && Self::refresh_exact_entry(e, c, poses, inverse_masses, velocities, direct)
                {
                    continue;
                }
            }
            Self::prepare_entry(e, c, substep, poses, inverse_masses, velocities, direct);
            if let Some((slot, jacobian, masses)) = restore {
                if e.solving && e.refresh == Refresh::Exact {
                    Self::restore_carried_rows(e, c, &slot, jacobian, masses, velocities, direct);
                    if Self::write_carried_bias(e, &slot, poses, inverse_masses, velocities, direct)
                    {
                        continue;
                    }
                }
                direct.veto_carry(&slot);
            }
            if let (Some(slot), false) = (&c.direct, e.solving) {
                // Its rows, written in an earlier substep, act no more.
                direct.clear_rows(slot, D);
            }
            if c.direct.is_some() {
                self.direct_swept |= e.solving && c.sweep;
                self.direct_active_set |= e.solving && !c.sweep && (e.limited || c.clamp_force);
            }
            // Warm start here, while the entry is in cache: preparing reads no velocity
            // an impulse can change (only kinematic bodies', which have infinite mass).
            Self::warm_start(e, velocities);
        }
    }

    fn unmark_plain_islands(&self, direct: &DirectSystem, plain: &mut [bool]) {
        if self.direct_entries == 0 {
            return;
        }
        for c in &self.cold {
            let Some(slot) = c.direct else { continue };
            let s = &c.settings;
            // A spring steps by RATTLE as a kick (`verlet_spring`), on a constraint whose
            // error is its position (no bounds) and with a frequency. Limits, motors,
            // force limits and breaking step by RATTLE too: a limit's corrections are
            // impulses (`correct_limits`), a motor's rows have no position to correct, a
            // clamped impulse is bounded in each substep by the time it stands for
            // (`Substep::span`), and an error is measured for breaking at the step's start
            // as on any step.
            let has_frequency = s.frequency > 0.0;
            let linear_spring = !s.stiff && (T::HAS_LIMITS || !has_frequency);
            if linear_spring {
                plain[direct.island(&slot)] = false;
            }
        }
    }

    fn pull_direct(&mut self, direct: &DirectSystem) {
        if self.direct_entries == 0 {
            return;
        }
        for (e, c, slot) in exact_run(&mut self.entries, &mut self.cold) {
            direct.read_impulses(&slot, &c.direct_rows, &mut e.impulse);
            if e.force_checked {
                let impulse = e.impulse;
                e.breaks_under(c, &impulse);
            }
        }
    }

    fn correct_limits(
        &mut self,
        poses: &mut [Pose],
        velocities: &mut [Velocity],
        direct: &mut DirectSystem,
        first: bool,
        max_distance: f32,
        substep: &Substep,
    ) {
        let (group, as_impulse) = (substep.group, substep.rattle.then_some(substep.h));
        if !T::HAS_LIMITS || T::VELOCITY_ONLY {
            return;
        }
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            if first {
                c.limit_impulse = [0.0; D];
            }
            if !group.holds(c.direct.is_some()) || (c.direct.is_some() && !c.in_run) {
                continue;
            }
            if !(e.solving && e.limited && c.settings.stiff) {
                continue;
            }
            let again = match &c.direct {
                Some(slot) => direct.is_marked(slot),
                None => false,
            };
            if !(first || again) {
                continue;
            }
            let Some(weighted) =
                Self::correct_entry(e, c, poses, velocities, max_distance, as_impulse)
            else {
                continue;
            };
            if let Some(h) = as_impulse {
                // The correction's impulse counts in the constraint's totals (its rows in
                // the exact solve, or its own swept impulse).
                for (i, d) in weighted.iter().enumerate() {
                    if *d == 0.0 {
                        continue;
                    }
                    match &c.direct {
                        Some(slot) if c.direct_rows[i] => direct.add_impulse(slot, i, d / h),
                        _ => {
                            e.impulse[i] += d / h;
                            c.limit_impulse[i] += d / h;
                        }
                    }
                }
            }
            if let Some(slot) = c.direct {
                direct.mark(&slot);
            }
        }
    }

    fn undo_limit_impulses(&mut self, direct: &DirectSystem, undone: &[bool]) {
        if !T::HAS_LIMITS || self.direct_entries == 0 {
            return;
        }
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            let Some(slot) = c.direct else { continue };
            if undone[direct.island(&slot)] {
                for (impulse, added) in e.impulse.iter_mut().zip(&mut c.limit_impulse) {
                    *impulse -= std::mem::take(added);
                }
            }
        }
    }

    fn position_errors(
        &mut self,
        poses: &[Pose],
        direct: &mut DirectSystem,
        island_errors: &mut [f32],
        rhs: bool,
    ) {
        if self.direct_entries == 0 {
            return;
        }
        if T::VELOCITY_ONLY {
            return;
        }
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            let Some(slot) = c.direct else { continue };
            if !c.in_run {
                continue;
            }
            if !e.solving || !c.settings.stiff {
                continue;
            }
            let slot_poses: [Pose; B] = std::array::from_fn(|s| poses[e.bodies[s]]);
            let position = e.constraint.position_error(&slot_poses);
            let bounds = if T::HAS_LIMITS {
                e.constraint.bounds()
            } else {
                [Bounds::ZERO; D]
            };
            let sum = &mut island_errors[direct.island(&slot)];
            let mut errors = [0.0; D];
            let mut written = [false; D];
            for i in 0..D {
                let Bounds { min, max } = bounds[i];
                if !c.direct_rows[i] {
                    // A limit outside the active set is not projected, but the guard
                    // measures it: a projection must not push a body across it.
                    if T::HAS_LIMITS && min < max {
                        let outside = (position[i] - max).max(min - position[i]).max(0.0);
                        *sum = if outside.is_finite() {
                            *sum + outside * outside
                        } else {
                            f32::INFINITY
                        };
                    }
                    continue;
                }
                let error = if min == max {
                    position[i] - min
                } else if e.weights[i] > 0.0 {
                    (position[i] - max).max(0.0)
                } else {
                    (min - position[i]).max(0.0)
                };
                if error.is_finite() {
                    errors[i] = error;
                    written[i] = true;
                    *sum += error * error;
                } else {
                    *sum = f32::INFINITY;
                }
            }
            if rhs {
                direct.set_position_errors(&slot, &errors, &written);
            }
        }
    }

    fn relinearize(
        &mut self,
        poses: &[Pose],
        velocities: &[Velocity],
        direct: &mut DirectSystem,
        damping: &[f32],
    ) {
        if self.direct_entries == 0 {
            return;
        }
        for (e, c, slot) in exact_run(&mut self.entries, &mut self.cold) {
            let Some((jacobian, k)) = Self::linearize_at(e, c, poses) else {
                direct.clear_rows(&slot, D);
                continue;
            };
            let compliance = c.direct_compliance + damping[direct.island(&slot)];
            Self::write_direct_rows(e, c, &jacobian, &k, compliance, velocities, direct);
        }
    }

    fn rebase_exact_rows(
        &mut self,
        poses: &[Pose],
        velocities: &[Velocity],
        direct: &mut DirectSystem,
        spring_kick: Option<f32>,
    ) {
        if self.direct_entries == 0 {
            return;
        }
        for (e, c, slot) in exact_run(&mut self.entries, &mut self.cold) {
            let Some((jacobian, k)) = Self::linearize_at(e, c, poses) else {
                direct.clear_rows(&slot, D);
                continue;
            };
            e.rebase(c, jacobian);
            if let Some(kick) = spring_kick
                && !c.settings.stiff
                && !T::VELOCITY_ONLY
            {
                let slot_poses: [Pose; B] = std::array::from_fn(|s| poses[e.bodies[s]]);
                let error = e.constraint.position_error(&slot_poses);
                let (spring, bias) = verlet_spring(&c.settings, &error, kick);
                let gamma = spring.relative_compliance();
                // The solve that follows finds `Δλ` from `(K + γ₀k̄)Δλ = −(Jv + b) − γ₀k̄λ`
                // with `λ` this substep's impulse so far, already in the velocities: the
                // kick is a new impulse, so `b` carries `−γ₀k̄λ` back out.
                let mean = (0..D).map(|i| k[i][i]).sum::<f32>() / D as f32;
                e.bias[1] = std::array::from_fn(|i| bias[i] - gamma * mean * e.impulse[i]);
                (c.direct_compliance, c.spring_compliance) = (0.0, gamma);
            }
            Self::write_direct_rows(
                e,
                c,
                &e.jacobian,
                &k,
                c.direct_compliance,
                velocities,
                direct,
            );
        }
    }

    fn spring_rates(&self, out: &mut [f32]) {
        if self.direct_entries == 0 || T::VELOCITY_ONLY {
            return;
        }
        for (e, c) in self.entries.iter().zip(&self.cold) {
            let s = &c.settings;
            if c.direct.is_none() || s.stiff || !s.active || !s.frequency.is_finite() {
                continue;
            }
            let omega = std::f32::consts::TAU * s.frequency;
            for &b in &e.bodies {
                out[b] = out[b].max(omega * omega);
            }
        }
    }

    fn geometric_stiffness(&self, poses: &[Pose], out: &mut [[f32; 2]], flags: &mut [u8]) {
        if self.direct_entries == 0 || T::VELOCITY_ONLY {
            return;
        }
        for (e, c) in self.entries.iter().zip(&self.cold) {
            let Some(slot) = c.direct else { continue };
            if e.solving && c.sweep {
                for s in 0..B {
                    if slot.positions[s] != u8::MAX {
                        out[e.bodies[s]] = [f32::INFINITY; 2];
                    }
                }
                continue;
            }
            if c.settings.active && c.broken.is_none() {
                let flag = if !e.solving || e.previous_h <= 0.0 {
                    LOAD_UNKNOWN
                } else if !c.settings.stiff {
                    SPRUNG
                } else {
                    0
                };
                for &b in &e.bodies {
                    flags[b] |= flag;
                }
            }
            if !e.solving || e.previous_h <= 0.0 {
                continue;
            }
            if e.impulse.iter().all(|&x| x == 0.0) {
                continue;
            }
            // Multiplied by a reciprocal: this runs for every constraint every step.
            let per_second = 1.0 / e.previous_h;
            let force = e.weighted_impulse().map(|x| x * per_second);
            let base: [Pose; B] = std::array::from_fn(|s| poses[e.bodies[s]]);
            // A body's own stiffness, once: dynamic (in the direct system) and the first slot
            // holding it.
            let probed: [bool; B] =
                std::array::from_fn(|s| slot.positions[s] != u8::MAX && e.first_of_its_body(s));
            let stiffness = e
                .constraint
                .geometric_stiffness(&base, &force)
                .unwrap_or_else(|| e.probed_stiffness(&base, &force, &probed));
            for s in (0..B).filter(|&s| probed[s]) {
                let k = stiffness[s];
                if k.iter().all(|x| x.is_finite()) {
                    out[e.bodies[s]][0] += k[0];
                    out[e.bodies[s]][1] += k[1];
                }
            }
        }
    }

    fn update_active_rows(
        &mut self,
        direct: &mut DirectSystem,
        velocities: &mut [Velocity],
    ) -> bool {
        if self.direct_entries == 0 || !self.direct_active_set {
            return false;
        }
        let mut any = false;
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            let Some(slot) = c.direct else { continue };
            if !(c.in_run && e.solving && (e.limited || c.clamp_force))
                || c.sweep
                || c.broken.is_some()
            {
                continue;
            }
            let v = e
                .constraint
                .velocity_error(&e.jacobian, &e.bodies, velocities);
            let mut rows = c.direct_rows;
            // The weighted impulse change the new set applies.
            let mut change = [0.0; D];
            let saturated = !rows.iter().any(|&r| r);
            if c.clamp_force && saturated {
                if length_squared(&Self::trial_impulse(e, c, &v)) < e.max_impulse * e.max_impulse {
                    rows = std::array::from_fn(|i| {
                        Self::usable_row(e, c, i) && (!c.inequality[i] || e.impulse[i] != 0.0)
                    });
                }
            } else if c.clamp_force && length_squared(&e.impulse) > e.max_impulse * e.max_impulse {
                let mut clamped = e.impulse;
                clamp_length(&mut clamped, e.max_impulse);
                change = std::array::from_fn(|i| e.weights[i] * (clamped[i] - e.impulse[i]));
                e.impulse = clamped;
                rows = [false; D];
            } else if e.limited {
                for i in 0..D {
                    // `row_mass` is non-zero exactly for the usable limit rows.
                    if !c.inequality[i] || c.row_mass[i] == 0.0 {
                        continue;
                    }
                    if rows[i] {
                        if e.impulse[i] > 0.0 {
                            rows[i] = false;
                            change[i] = -e.weights[i] * e.impulse[i];
                            e.impulse[i] = 0.0;
                        }
                    } else if e.weights[i] * v[i] + e.bias[0][i] > 0.0 {
                        rows[i] = true;
                    }
                }
            }
            if rows == c.direct_rows {
                continue;
            }
            if change.iter().any(|&x| x != 0.0) {
                e.apply(&change, velocities);
            }
            c.direct_rows = rows;
            let k = e
                .constraint
                .effective_mass(&e.jacobian, &e.inverse_masses, c.shared);
            let (k, _) = weighted(&k, &e.weights);
            Self::write_direct_rows(
                e,
                c,
                &e.jacobian,
                &k,
                c.direct_compliance,
                velocities,
                direct,
            );
            direct.mark(&slot);
            any = true;
        }
        any
    }

    fn push_direct(&mut self, direct: &mut DirectSystem) {
        if self.direct_entries == 0 || !self.direct_swept {
            return;
        }
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            let Some(slot) = c.direct else { continue };
            if !c.in_run {
                continue;
            }
            if !c.sweep || !e.solving {
                continue;
            }
            direct.mark(&slot);
            for i in 0..D {
                if c.direct_rows[i] {
                    direct.set_impulse(&slot, i, e.impulse[i]);
                }
            }
        }
    }

    fn sweep(
        &mut self,
        pass: usize,
        velocities: &mut [Velocity],
        last: bool,
        group: Group,
        relinearize_at: Option<&[Pose]>,
    ) {
        // Without exactly solved entries `direct` is `None` everywhere: not read, the
        // sweep stays on the entries' first cache lines.
        let any_direct = self.direct_entries > 0;
        if group == Group::Exact && !(any_direct && self.direct_swept) {
            return;
        }
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            if any_direct && c.direct.is_some() {
                if group == Group::Swept || !c.in_run {
                    continue;
                }
                if e.solving && c.sweep {
                    Self::solve_entry(e, c, pass, velocities);
                }
                continue;
            }
            if group == Group::Exact {
                continue;
            }
            if let Some(poses) = relinearize_at {
                Self::relinearize_swept_entry(e, c, poses);
            }
            Self::update_swept(e, c, pass, last, velocities);
        }
    }

    fn sweep_ahead(&mut self, velocities: &mut [Velocity], ahead: &mut Ahead<'_>, first: bool) {
        let any_direct = self.direct_entries > 0;
        let mut all_ready = true;
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            if any_direct && c.direct.is_some() {
                continue;
            }
            if first {
                Self::relinearize_swept_entry(e, c, ahead.poses);
            }
            Self::update_swept(e, c, 1, true, velocities);
            if e.solving && matches!(e.refresh, Refresh::Swept | Refresh::Ready) {
                // `J` is already at these poses (`relinearize_swept_entry`).
                if Self::refresh_entry(e, c, ahead.substep, ahead.poses, true) {
                    e.refresh = Refresh::Ready;
                    Self::warm_start(e, ahead.warm_starts);
                    continue;
                }
                // Its full preparation decides (the refresh is tried again there).
                e.refresh = Refresh::Swept;
            }
            all_ready = false;
        }
        self.ready_ahead = all_ready;
    }

    fn end_substep(&mut self, all: bool, group: Group, direct: &mut DirectSystem) {
        // Swept entries were counted by the last sweep, unless there was none.
        let exact = group == Group::Exact;
        if !(all || exact) || (exact && self.direct_entries == 0) {
            return;
        }
        // Islands that never keep a factor (at rest, with limits, swept) pay nothing here.
        let mark = exact && (self.carried_entries || direct.any_kept());
        let mut carried = false;
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            if mark {
                if let (true, Some(slot)) = (c.in_run, c.direct) {
                    // Only a stiff equality constraint the exact solve took whole (what
                    // the carried start refreshes) lets its island keep its factor.
                    c.carried = direct.carry_of(&slot) == Carry::Kept;
                    if c.carried && !(e.solving && e.refresh == Refresh::Exact) {
                        c.carried = false;
                        direct.veto_carry(&slot);
                    }
                }
                carried |= c.carried;
            }
            if group.holds(c.direct.is_some())
                && (c.direct.is_none() || c.in_run)
                && (e.solving || c.broken.is_some())
            {
                if c.direct.is_some() {
                    e.accumulate_direct(c);
                } else {
                    e.accumulate();
                }
            }
        }
        if mark {
            self.carried_entries = carried;
        }
    }

    fn claim_carries(&self, direct: &mut DirectSystem) {
        for (e, c) in self.entries.iter().zip(&self.cold) {
            if let Some(slot) = c.direct {
                direct.claim_carry(&slot, c.carried && e.solving);
            }
        }
    }

    fn process_broken(&mut self, broken: &mut Vec<BreakEvent>) {
        if !self.breakable {
            return;
        }
        let mut d = 0;
        while d < self.entries.len() {
            let Some(Break {
                cause,
                value,
                limit,
            }) = self.cold[d].broken
            else {
                d += 1;
                continue;
            };
            broken.push(BreakEvent {
                constraint: self.id_of(d),
                cause,
                value,
                limit,
            });
            if self.cold[d].settings.remove_on_break {
                self.remove_dense(d);
            } else {
                // Deactivated: the impulse it applied during this step stays readable
                // until the next step, but is never used as a warm start.
                let (e, c) = (&mut self.entries[d], &mut self.cold[d]);
                c.broken = None;
                c.settings.active = false;
                e.previous_h = 0.0;
                e.solving = false;
                c.direct = None;
                d += 1;
            }
        }
    }

    fn attached(&self, body: usize, out: &mut Vec<ConstraintId>) {
        out.extend(
            (0..self.entries.len())
                .filter(|&d| self.entries[d].bodies.contains(&body))
                .map(|d| self.id_of(d)),
        );
    }

    fn slot_bodies(&self, index: u32, generation: u32) -> Option<Vec<usize>> {
        self.get(index, generation).map(|(e, _)| e.bodies.to_vec())
    }

    fn body_impulses(&self, index: u32, generation: u32) -> Option<Vec<(usize, Velocity)>> {
        self.get(index, generation).map(|(e, _)| e.body_impulses())
    }

    fn remove_attached(&mut self, body: usize, removed: &mut Vec<ConstraintId>) {
        let mut d = 0;
        while d < self.entries.len() {
            if self.entries[d].bodies.contains(&body) {
                removed.push(self.id_of(d));
                self.remove_dense(d);
            } else {
                d += 1;
            }
        }
    }

    fn remove_id(&mut self, index: u32, generation: u32) -> bool {
        self.remove(index, generation).is_some()
    }

    fn contain_faults(&mut self, poses: &[Pose], out: &mut Vec<ConstraintId>) {
        for d in 0..self.entries.len() {
            let e = &self.entries[d];
            let finite = |x: &f32| x.is_finite();
            // One test of a sum: finite parts have a finite sum, and a sum that overflows
            // `f32` comes from impulses no joint can mean.
            let impulses_finite = (e.impulse.iter().sum::<f32>()
                + e.step_impulse.iter().sum::<f32>()
                + e.step_body_impulse
                    .iter()
                    .map(|v| v.linear.x + v.linear.y + v.angular)
                    .sum::<f32>())
            .is_finite();
            // Every active entry is prepared each substep and keeps `previous_h = h`,
            // except one whose effective mass was not finite (it sat the substep out).
            // Whether it is active at all is asked last: a sound entry's settings stay
            // unread.
            let faulty = (!impulses_finite
                || e.previous_h == 0.0
                || (!e.solving && !T::VELOCITY_ONLY && {
                    let slot_poses: [Pose; B] = std::array::from_fn(|s| poses[e.bodies[s]]);
                    !e.constraint.position_error(&slot_poses).iter().all(finite)
                }))
                && self.cold[d].settings.active;
            if faulty {
                out.push(self.id_of(d));
                self.entries[d].clear_warm_start(&mut self.cold[d]);
            }
        }
    }

    fn clone_box(&self) -> Box<dyn ErasedStore> {
        Box::new(self.clone())
    }

    fn list(&self, out: &mut Vec<(ConstraintId, Vec<usize>)>) {
        out.extend(
            (0..self.entries.len()).map(|d| (self.id_of(d), self.entries[d].bodies.to_vec())),
        );
    }

    fn state_bits(&self, out: &mut dyn FnMut(u32)) {
        for (d, (e, c)) in self.entries.iter().zip(&self.cold).enumerate() {
            let id = self.id_of(d);
            out(id.index);
            out(id.generation);
            out(u32::from(c.settings.active));
            out(e.previous_h.to_bits());
            for i in 0..D {
                out(e.impulse[i].to_bits());
                out(e.weights[i].to_bits());
                out(e.step_impulse[i].to_bits());
            }
        }
    }

    fn encode(&self, out: &mut Vec<u8>, codec: &dyn crate::encoding::EntryCodec) {
        use crate::encoding::SnapshotFields;
        (self.slots.len() as u32).write_snapshot(out);
        for slot in &self.slots {
            [slot.generation, slot.dense].write_snapshot(out);
        }
        (self.free.len() as u32).write_snapshot(out);
        self.free.iter().for_each(|f| f.write_snapshot(out));
        (self.direct_entries as u64).write_snapshot(out);
        (self.entries.len() as u32).write_snapshot(out);
        for (e, c) in self.entries.iter().zip(&self.cold) {
            codec.write_constraint(&e.constraint, out);
            c.settings.write_snapshot(out);
            c.slot.write_snapshot(out);
            e.bodies.map(|b| b as u32).write_snapshot(out);
            e.inverse_masses.write_snapshot(out);
            codec.write_jacobian(&e.jacobian, out);
            e.k_inv.write_snapshot(out);
            c.row_mass.write_snapshot(out);
            e.limited.write_snapshot(out);
            e.impulse.write_snapshot(out);
            e.weights.write_snapshot(out);
            c.inequality.write_snapshot(out);
            e.bias.write_snapshot(out);
            e.mass_scale.write_snapshot(out);
            e.impulse_scale.write_snapshot(out);
            e.max_impulse.write_snapshot(out);
            [c.clamp_force, e.solving].write_snapshot(out);
            e.previous_h.write_snapshot(out);
            c.direct.is_some().write_snapshot(out);
            if let Some(d) = c.direct {
                (d.node, d.row, d.positions).write_snapshot(out);
            }
            c.direct_rows.write_snapshot(out);
            c.sweep.write_snapshot(out);
            c.carried.write_snapshot(out);
            e.step_impulse.write_snapshot(out);
            e.step_body_impulse.write_snapshot(out);
            c.broken.is_some().write_snapshot(out);
            if let Some(b) = c.broken {
                (b.cause, [b.value, b.limit]).write_snapshot(out);
            }
        }
    }

    fn decode(
        &mut self,
        input: &mut &[u8],
        codec: &dyn crate::encoding::EntryCodec,
        space: u32,
        bodies: &[Option<crate::encoding::LiveBody>],
    ) -> Result<(), crate::encoding::SnapshotError> {
        use crate::encoding::{SnapshotError, SnapshotFields, read_len};
        let malformed = SnapshotError::Malformed;
        let slot_count = u32::read_snapshot(input)?;
        for _ in 0..slot_count {
            let [generation, dense] = <[u32; 2]>::read_snapshot(input)?;
            self.slots.push(Slot { generation, dense });
        }
        let free_count = u32::read_snapshot(input)?;
        for _ in 0..free_count {
            self.free.push(u32::read_snapshot(input)?);
        }
        self.direct_entries = read_len(input)?;
        let entry_count = u32::read_snapshot(input)?;
        for d in 0..entry_count {
            let constraint = *codec
                .read_constraint(input)?
                .downcast::<T>()
                .map_err(|_| malformed("a codec of another type"))?;
            let settings = ConstraintSettings::read_snapshot(input)?;
            let slot = u32::read_snapshot(input)?;
            let body_indices = <[u32; B]>::read_snapshot(input)?;
            let handles = constraint.bodies();
            for (h, &i) in handles.iter().zip(&body_indices) {
                let live = bodies.get(i as usize).copied().flatten();
                if h.space != space
                    || h.index != i
                    || live.map(|b| b.generation) != Some(h.generation)
                {
                    return Err(malformed("a constraint's body is not live in the space"));
                }
            }
            if self.slots.get(slot as usize).map(|s| s.dense) != Some(d) {
                return Err(malformed("a constraint's slot"));
            }
            let (mut entry, mut cold) =
                fresh_entry(constraint, settings, slot, body_indices.map(|i| i as usize));
            entry.inverse_masses = SnapshotFields::read_snapshot(input)?;
            entry.jacobian = *codec
                .read_jacobian(input)?
                .downcast::<T::Jacobian>()
                .map_err(|_| malformed("a codec of another type"))?;
            entry.k_inv = SnapshotFields::read_snapshot(input)?;
            // In the order `encode` writes them.
            cold.row_mass = SnapshotFields::read_snapshot(input)?;
            entry.limited = SnapshotFields::read_snapshot(input)?;
            entry.impulse = SnapshotFields::read_snapshot(input)?;
            entry.weights = SnapshotFields::read_snapshot(input)?;
            cold.inequality = SnapshotFields::read_snapshot(input)?;
            entry.bias = SnapshotFields::read_snapshot(input)?;
            entry.mass_scale = SnapshotFields::read_snapshot(input)?;
            entry.impulse_scale = SnapshotFields::read_snapshot(input)?;
            entry.max_impulse = SnapshotFields::read_snapshot(input)?;
            cold.clamp_force = SnapshotFields::read_snapshot(input)?;
            entry.solving = SnapshotFields::read_snapshot(input)?;
            entry.previous_h = SnapshotFields::read_snapshot(input)?;
            cold.direct = if bool::read_snapshot(input)? {
                let (node, row, positions) = SnapshotFields::read_snapshot(input)?;
                Some(DirectSlot {
                    node,
                    row,
                    positions,
                })
            } else {
                None
            };
            cold.direct_rows = SnapshotFields::read_snapshot(input)?;
            cold.sweep = SnapshotFields::read_snapshot(input)?;
            cold.carried = SnapshotFields::read_snapshot(input)?;
            self.carried_entries |= cold.carried;
            entry.step_impulse = SnapshotFields::read_snapshot(input)?;
            entry.step_body_impulse = SnapshotFields::read_snapshot(input)?;
            cold.broken = if bool::read_snapshot(input)? {
                let (cause, [value, limit]) = SnapshotFields::read_snapshot(input)?;
                Some(Break {
                    cause,
                    value,
                    limit,
                })
            } else {
                None
            };
            entry.force_checked = cold.clamp_force || cold.settings.break_under_force;
            decoded::check_entry(&entry, &cold, bodies)?;
            self.entries.push(entry);
            self.cold.push(cold);
        }
        // Every live slot names its own entry (checked above for the entries' slots, so
        // the live slots are exactly those), and the free list is the other slots, once.
        let live = self.slots.iter().filter(|s| s.dense != FREE).count();
        let mut listed = vec![false; self.slots.len()];
        for &f in &self.free {
            match self.slots.get(f as usize) {
                Some(s) if s.dense == FREE && !listed[f as usize] => listed[f as usize] = true,
                _ => return Err(malformed("a constraint store's free list")),
            }
        }
        if live != self.entries.len() || self.direct_entries > self.entries.len() {
            return Err(malformed("a constraint store's slot table"));
        }
        Ok(())
    }

    fn set_space(&mut self, space: u32) {
        self.space = space;
        for e in &mut self.entries {
            let bodies = e.constraint.bodies().map(|mut h| {
                h.space = space;
                h
            });
            e.constraint.set_bodies(bodies);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_weights_follow_the_bounds() {
        let bounds = [
            Bounds::new(1.0, 1.0),
            Bounds::new(0.0, 2.0),
            Bounds::new(0.0, 2.0),
            Bounds::new(0.0, 2.0),
        ];
        let (w, e, ineq) = rows(&[1.5, -0.5, 1.0, 2.5], &bounds);
        assert_eq!(w, [1.0, -1.0, 0.0, 1.0]);
        assert_eq!(e, [0.5, 0.5, 0.0, 0.5]);
        assert_eq!(ineq, [false, true, true, true]);
    }

    #[test]
    fn inside_rows_of_a_stiff_constraint_speculate_on_the_nearer_bound() {
        let bounds = [
            Bounds::new(0.0, 2.0),
            Bounds::new(0.0, 2.0),
            Bounds::new(0.0, f32::INFINITY),
        ];
        let c = [0.5, 1.75, 3.0];
        let mut r = rows(&c, &bounds);
        let speculative = speculate(&c, &bounds, &mut r);
        assert_eq!(speculative, [true, true, true]);
        assert_eq!(r.0, [-1.0, 1.0, -1.0]);
        assert_eq!(r.1, [-0.5, -0.25, -3.0]);
    }

    #[test]
    fn a_pivot_joints_sweep_reads_two_cache_lines() {
        use crate::joints::PivotJoint;
        use std::mem::{offset_of, size_of};
        type Pivot = Entry<PivotJoint, 2, 2>;
        // The fields an unclamped update reads, `bodies` to the inverse masses, fill the
        // first two lines; the refresh's and the step totals come after.
        assert_eq!(offset_of!(Pivot, bodies), 0);
        assert_eq!(
            offset_of!(Pivot, inverse_masses) + size_of::<[InverseMass; 2]>(),
            128
        );
        assert_eq!(offset_of!(Pivot, constraint), 128);
        // What a substep reads of it and no more: the sweeps over a mesh walk this array
        // (the rest, in `ColdEntry`, was 96 more bytes an entry when it was here).
        assert_eq!(size_of::<Pivot>(), 216);
        assert_eq!(size_of::<ColdEntry<2, 2>>(), 112);
    }

    #[test]
    fn sweeps_are_ordered_by_colour_and_the_order_is_stable_under_recolouring() {
        // A 4 × 4 grid of bodies, its top row static, joined as a joint grid is:
        // entries in insertion order share a body with the one before them.
        let n = 4;
        let dynamic: Vec<bool> = (0..n * n).map(|b| b % n != 0).collect();
        let mut links: Vec<[usize; 2]> = Vec::new();
        for k in 0..n {
            for i in 0..n {
                if i > 0 {
                    links.push([k * n + i - 1, k * n + i]);
                }
                if k > 0 {
                    links.push([(k - 1) * n + i, k * n + i]);
                }
            }
        }
        // One entry left to the exact solve (`None`), which stays in colour 0.
        let swept = |d: usize| d != 5;
        let order = colour_order(
            links
                .iter()
                .enumerate()
                .map(|(d, l)| swept(d).then_some(&l[..])),
            &dynamic,
        );
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            (0..links.len()).collect::<Vec<_>>(),
            "a permutation"
        );
        assert_ne!(order, sorted, "the insertion order is not already coloured");
        // Within a run of one colour no two entries share a dynamic body, so the number of
        // places where consecutive entries do is below the number of colours.
        let shares =
            |a: &[usize; 2], b: &[usize; 2]| a.iter().any(|x| dynamic[*x] && b.contains(x));
        let conflicts = |order: &[usize]| {
            order
                .windows(2)
                .filter(|w| swept(w[0]) && swept(w[1]) && shares(&links[w[0]], &links[w[1]]))
                .count()
        };
        assert!(conflicts(&sorted) >= 10, "{}", conflicts(&sorted));
        assert!(
            conflicts(&order) <= 3,
            "{} consecutive updates share a body",
            conflicts(&order)
        );
        // Recolouring the coloured order changes nothing.
        let again = colour_order(
            order.iter().map(|&d| swept(d).then_some(&links[d][..])),
            &dynamic,
        );
        assert_eq!(again, (0..links.len()).collect::<Vec<_>>());
    }

    #[test]
    fn a_rigid_spring_is_rigid_and_a_zero_hertz_spring_is_inert() {
        let h = 1.0 / 240.0;
        let stiff = Softness::spring(1e9, 1.0, h);
        assert!((stiff.mass_scale - 1.0).abs() < 1e-3 && stiff.impulse_scale < 1e-3);
        assert!((stiff.bias_rate * h - 1.0).abs() < 1e-3);
        let inert = Softness::spring(0.0, 1.0, h);
        assert_eq!((inert.mass_scale, inert.impulse_scale), (0.0, 1.0));
    }
}
