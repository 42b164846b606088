//! The sequential-impulse solver's per-type storage.
//!
//! Constraints of one type `T: Constraint<D, B>` live together in a `Store<T, D, B>`: a
//! dense `Vec` of entries (the constraint, its settings, its slots' body indices and every
//! per-step cache), addressed through generational slots. The [`Space`](crate::Space)
//! keeps one boxed `ErasedStore` per type and calls one method per store and solver
//! phase, so dynamic dispatch happens once per constraint type per phase; the loops over
//! constraints inside a store are monomorphic.
//!
//! # Rows and weights
//!
//! Every row `i` has a weight `w_i ∈ {−1, 0, +1}` from `c = position_error(q)` and its
//! bounds: equality `w = 1, C' = c − min`; below `min`: `w = −1, C' = min − c`; above
//! `max`: `w = 1, C' = c − max`; inside: `w = 0` (row inactive), except that a stiff row
//! resting within a small margin of a bound counts as touching it and takes part in the
//! velocity iterations as a speculative limit (it may close its gap this step, no more;
//! see `touch_bounds`). The solver works in the weighted space `J' = diag(w) J`,
//! `K' = diag(w) K diag(w)`, in which the accumulated impulse `λ'` of an inequality row is
//! clamped to `≤ 0` (push only). Constraints reporting `HAS_LIMITS = false` skip all of
//! this: every row is the equality `c = 0`.
//!
//! # Position stage
//!
//! Each position iteration first tries the global projection
//! ([`Space::global_projection`](crate::Space::global_projection)); the per-type
//! Gauss–Seidel sweep (`solve_positions`) runs when it is off or the system is too large.

use std::any::Any;

use crate::constraint::{Bounds, Constraint, InverseMass, Pose, SharedSlots, Velocity};
use crate::math::{clamp_length, invert_active, length_squared, mul_vec};
use crate::projection::PositionSystem;
use crate::settings::ConstraintSettings;
use crate::space::{BreakCause, BreakEvent, ConstraintId};

/// Why and by how much a constraint broke during the step (reported at its end).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Break {
    cause: BreakCause,
    value: f32,
    limit: f32,
}

impl Break {
    /// `|λ| > max_force·dt`, reported as the force `|λ| / dt` against `max_force`.
    fn force(impulse_squared: f32, dt: f32, max_force: f32) -> Self {
        Self {
            cause: BreakCause::Force,
            value: impulse_squared.sqrt() / dt,
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

/// One constraint and everything the solver caches for it.
pub(crate) struct Entry<T: Constraint<D, B>, const D: usize, const B: usize> {
    pub(crate) constraint: T,
    pub(crate) settings: ConstraintSettings,
    /// The sparse slot that owns this entry (for swap-removal and ids).
    slot: u32,
    /// Index of each slot's body in the compact body arrays.
    pub(crate) bodies: [usize; B],
    /// Pairs of slots holding the same body.
    shared: SharedSlots,
    /// For each slot, the first slot holding the same body (position-iteration scratch).
    local: [usize; B],
    /// Inverse masses of the slots, gathered at prepare.
    inverse_masses: [InverseMass; B],
    jacobian: T::Jacobian,
    /// `K'⁻¹` on the active rows (scaled by the soft mass scale).
    k_inv: [[f32; D]; D],
    /// Accumulated impulse in weighted space (`λ'`); the physical impulse is `w∘λ'`.
    impulse: [f32; D],
    weights: [f32; D],
    inequality: [bool; D],
    bias: [f32; D],
    gamma: f32,
    max_impulse: f32,
    clamp_force: bool,
    /// Prepared this step with at least one active row.
    solving: bool,
    /// The previous step's `dt` (this step's, once prepared), or 0 when there is no
    /// impulse to warm start from.
    previous_dt: f32,
    /// Set when the constraint breaks; acted on (and reported) at the end of the step.
    broken: Option<Break>,
}

impl<T: Constraint<D, B>, const D: usize, const B: usize> Entry<T, D, B> {
    /// Sets the slots' body indices and the derived aliasing tables.
    pub(crate) fn set_body_indices(&mut self, bodies: [usize; B]) {
        self.bodies = bodies;
        self.shared = SharedSlots::find(&bodies);
        self.local =
            std::array::from_fn(|s| (0..=s).find(|&t| bodies[t] == bodies[s]).unwrap_or(s));
    }

    /// Forgets the accumulated impulse: no warm start at the next step, and the impulse
    /// queries read zero until the constraint is stepped again.
    pub(crate) fn clear_warm_start(&mut self) {
        self.impulse = [0.0; D];
        self.previous_dt = 0.0;
        self.solving = false;
    }

    /// The physical (unweighted) impulse `λ = w∘λ'` applied during the last step (warm
    /// start plus velocity iterations).
    pub(crate) fn unweighted_impulse(&self) -> [f32; D] {
        std::array::from_fn(|i| self.weights[i] * self.impulse[i])
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
        const UNIT: InverseMass = InverseMass {
            mass: 1.0,
            inertia: 1.0,
        };
        let mut scratch = [Velocity::default(); B];
        self.constraint
            .apply_impulse(jacobian, impulse, &[UNIT; B], indices, &mut scratch);
        scratch
    }

    /// The world impulse `Jᵀλ` of the last step on each distinct body, as (compact body
    /// index, linear, angular), in slot order; slots holding the same body are summed.
    pub(crate) fn body_impulses(&self) -> Vec<(usize, Velocity)> {
        let scratch = self.transpose_times(&self.jacobian, &self.unweighted_impulse(), &self.local);
        (0..B)
            .filter(|&s| self.local[s] == s)
            .map(|s| (self.bodies[s], scratch[s]))
            .collect()
    }

    fn gather_poses(&self, poses: &[Pose]) -> [Pose; B] {
        std::array::from_fn(|s| poses[self.bodies[s]])
    }

    /// The rows at `poses` for the position stage — the slots' poses, `w`, `C'` and which
    /// rows are inequalities — or `None` when the error breaks the constraint (recorded).
    #[allow(clippy::type_complexity)]
    fn position_rows(
        &mut self,
        poses: &[Pose],
    ) -> Option<([Pose; B], [f32; D], [f32; D], [bool; D])> {
        let slot_poses = self.gather_poses(poses);
        let c = self.constraint.position_error(&slot_poses);
        let (w, error, inequality) = if T::HAS_LIMITS {
            rows(&c, &self.constraint.bounds())
        } else {
            equality_rows(c)
        };
        let s = &self.settings;
        let error_squared = length_squared(&error);
        if s.break_under_error && error_squared > s.max_error * s.max_error {
            self.broken = Some(Break::error(error_squared, s.max_error));
            self.solving = false;
            return None;
        }
        Some((slot_poses, w, error, inequality))
    }
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

/// How close to a bound (in the row's own units) a stiff inequality row inside its range
/// counts as touching it, and takes part in the velocity iterations as a speculative limit.
const SPECULATIVE_MARGIN: f32 = 1e-3;

/// Activates the inactive inequality rows of a stiff constraint that lie within
/// [`SPECULATIVE_MARGIN`] inside a bound: `w` for the nearer bound, and `C'` the negative
/// gap to it, from which the prepare step makes the bias `C'/dt`. Such a row only pushes
/// when the body would otherwise cross the bound during this step, and then exactly enough
/// to land on it; further inside, or moving away, it applies nothing.
///
/// Without it a body resting on a limit is never stopped: the global position projection
/// puts it exactly on the bound (not beyond), so at the next prepare the row counts as
/// inside and skips the velocity iterations, and the velocity into the limit grows step
/// after step while the projection keeps pulling the position back.
#[inline]
fn touch_bounds<const D: usize>(
    c: &[f32; D],
    bounds: &[Bounds; D],
    (w, e, inequality): &mut ([f32; D], [f32; D], [bool; D]),
) {
    for i in 0..D {
        if !inequality[i] || w[i] != 0.0 {
            continue;
        }
        let Bounds { min, max } = bounds[i];
        let (below, above) = (c[i] - min, max - c[i]);
        if above <= below && above <= SPECULATIVE_MARGIN {
            w[i] = 1.0;
            e[i] = -above;
        } else if below < above && below <= SPECULATIVE_MARGIN {
            w[i] = -1.0;
            e[i] = -below;
        }
    }
}

/// The rows of a constraint without limits: every row the equality `c = 0`.
#[inline]
fn equality_rows<const D: usize>(c: [f32; D]) -> ([f32; D], [f32; D], [bool; D]) {
    ([1.0; D], c, [false; D])
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
pub(crate) trait ErasedStore {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// Number of live constraints.
    fn len(&self) -> usize;
    /// Step phase 2: rows, `J`, `K'⁻¹`, soft terms and the rescaled warm-start impulse.
    fn prepare(&mut self, dt: f32, poses: &[Pose], inverse_masses: &[InverseMass]);
    /// Step phase 3a: apply the warm-start impulses.
    fn warm_start(&mut self, velocities: &mut [Velocity]);
    /// One velocity iteration over every constraint of the type.
    fn solve_velocities(&mut self, velocities: &mut [Velocity]);
    /// One position iteration over every stiff positional constraint of the type.
    fn solve_positions(&mut self, correction: f32, poses: &mut [Pose]);
    /// Adds the violated rows of every stiff positional constraint of the type, with their
    /// Jacobians at `poses`, to the global position projection.
    fn gather_position_rows(&mut self, poses: &[Pose], system: &mut PositionSystem);
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
}

#[derive(Clone, Copy)]
struct Slot {
    generation: u32,
    /// Index into `entries`, or `u32::MAX` when free.
    dense: u32,
}

const FREE: u32 = u32::MAX;

/// All constraints of type `T` in one space.
pub(crate) struct Store<T: Constraint<D, B>, const D: usize, const B: usize> {
    space: u32,
    store: u32,
    slots: Vec<Slot>,
    free: Vec<u32>,
    entries: Vec<Entry<T, D, B>>,
}

impl<T: Constraint<D, B>, const D: usize, const B: usize> Store<T, D, B> {
    pub(crate) fn new(space: u32, store: u32) -> Self {
        Self {
            space,
            store,
            slots: Vec::new(),
            free: Vec::new(),
            entries: Vec::new(),
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
        let mut entry = Entry {
            constraint,
            settings,
            slot,
            bodies,
            shared: SharedSlots::NONE,
            local: [0; B],
            inverse_masses: [InverseMass::default(); B],
            jacobian: T::Jacobian::default(),
            k_inv: [[0.0; D]; D],
            impulse: [0.0; D],
            weights: [0.0; D],
            inequality: [false; D],
            bias: [0.0; D],
            gamma: 0.0,
            max_impulse: f32::INFINITY,
            clamp_force: false,
            solving: false,
            previous_dt: 0.0,
            broken: None,
        };
        entry.set_body_indices(bodies);
        self.entries.push(entry);
        (slot, self.slots[slot as usize].generation)
    }

    fn dense(&self, index: u32, generation: u32) -> Option<usize> {
        let slot = self.slots.get(index as usize)?;
        (slot.generation == generation && slot.dense != FREE).then_some(slot.dense as usize)
    }

    pub(crate) fn get(&self, index: u32, generation: u32) -> Option<&Entry<T, D, B>> {
        self.dense(index, generation).map(|d| &self.entries[d])
    }

    pub(crate) fn get_mut(&mut self, index: u32, generation: u32) -> Option<&mut Entry<T, D, B>> {
        self.dense(index, generation).map(|d| &mut self.entries[d])
    }

    /// Removes the entry at dense index `d` (swap-remove), retiring its slot.
    fn remove_dense(&mut self, d: usize) -> Entry<T, D, B> {
        let entry = self.entries.swap_remove(d);
        if let Some(moved) = self.entries.get(d) {
            self.slots[moved.slot as usize].dense = d as u32;
        }
        let slot = &mut self.slots[entry.slot as usize];
        slot.dense = FREE;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(entry.slot);
        entry
    }

    pub(crate) fn remove(&mut self, index: u32, generation: u32) -> Option<T> {
        let d = self.dense(index, generation)?;
        Some(self.remove_dense(d).constraint)
    }

    fn id_of(&self, entry: &Entry<T, D, B>) -> ConstraintId {
        ConstraintId {
            space: self.space,
            store: self.store,
            index: entry.slot,
            generation: self.slots[entry.slot as usize].generation,
        }
    }

    /// Phase 2 for one entry.
    fn prepare_entry(e: &mut Entry<T, D, B>, dt: f32, poses: &[Pose], inverse: &[InverseMass]) {
        e.solving = false;
        if !e.settings.active || e.broken.is_some() {
            // Applies nothing this step: nothing to report, nothing to warm start from.
            e.impulse = [0.0; D];
            e.previous_dt = 0.0;
            return;
        }
        let slot_poses = e.gather_poses(poses);
        e.inverse_masses = std::array::from_fn(|s| inverse[e.bodies[s]]);

        // Last step's physical impulse, rescaled for the new dt (Nape: jAcc *= dt/pre_dt).
        let scale = if e.previous_dt > 0.0 {
            dt / e.previous_dt
        } else {
            0.0
        };
        let previous: [f32; D] = std::array::from_fn(|i| e.weights[i] * e.impulse[i] * scale);

        let (w, error, inequality) = if T::VELOCITY_ONLY {
            ([1.0; D], [0.0; D], [false; D])
        } else {
            let c = e.constraint.position_error(&slot_poses);
            if T::HAS_LIMITS {
                let bounds = e.constraint.bounds();
                let mut r = rows(&c, &bounds);
                if e.settings.stiff {
                    touch_bounds(&c, &bounds, &mut r);
                }
                r
            } else {
                equality_rows(c)
            }
        };
        e.jacobian = e.constraint.jacobian(&slot_poses);
        let k = e
            .constraint
            .effective_mass(&e.jacobian, &e.inverse_masses, e.shared);
        let (k, active) = weighted(&k, &w);
        e.k_inv = invert_active(&k, &active);

        let s = &e.settings;
        if T::VELOCITY_ONLY {
            e.bias = e.constraint.velocity_bias();
            e.gamma = 0.0;
        } else if s.stiff {
            // Violated rows are left to the position iterations; a row touching a bound
            // from inside may close its gap this step, no more (see `touch_bounds`).
            e.bias = std::array::from_fn(|i| {
                if inequality[i] {
                    error[i].min(0.0) / dt
                } else {
                    0.0
                }
            });
            e.gamma = 0.0;
        } else {
            let error_squared = length_squared(&error);
            if s.break_under_error && error_squared > s.max_error * s.max_error {
                // Broken before applying anything this step.
                e.broken = Some(Break::error(error_squared, s.max_error));
                e.impulse = [0.0; D];
                e.previous_dt = 0.0;
                return;
            }
            // Nape's mass-relative soft constraint (reference §2.3).
            let omega = std::f32::consts::TAU * s.frequency;
            let zeta = s.damping;
            let gamma0 = 1.0 / (dt * omega * (2.0 * zeta + omega * dt));
            let bias_coef = omega / (2.0 * zeta + omega * dt);
            let mass_scale = 1.0 / (1.0 + gamma0);
            e.gamma = gamma0 / (1.0 + gamma0);
            e.k_inv.iter_mut().flatten().for_each(|x| *x *= mass_scale);
            e.bias = error.map(|x| bias_coef * x);
            clamp_length(&mut e.bias, s.max_error);
        }
        e.clamp_force = (T::VELOCITY_ONLY || !s.stiff) && s.max_force.is_finite();
        e.max_impulse = s.max_force * dt;

        // Re-weight the warm-start impulse; rows that are inactive, dropped as singular, or
        // (inequalities) on the wrong side start from zero.
        for i in 0..D {
            let mut l = w[i] * previous[i];
            if e.k_inv[i][i] == 0.0 || (inequality[i] && l > 0.0) {
                l = 0.0;
            }
            e.impulse[i] = l;
        }
        e.weights = w;
        e.inequality = inequality;
        e.previous_dt = dt;
        e.solving = active.iter().any(|&a| a);
    }

    /// One velocity iteration of one entry.
    #[inline]
    fn solve_entry(e: &mut Entry<T, D, B>, velocities: &mut [Velocity]) {
        let v = e
            .constraint
            .velocity_error(&e.jacobian, &e.bodies, velocities);
        // Without limits every weight is 1: the weighting is compiled out.
        let weight = |i: usize| if T::HAS_LIMITS { e.weights[i] } else { 1.0 };
        let rhs: [f32; D] = std::array::from_fn(|i| weight(i) * v[i] + e.bias[i]);
        let solved = mul_vec(&e.k_inv, &rhs);
        let old = e.impulse;
        let mut new = [0.0; D];
        for i in 0..D {
            new[i] = old[i] - solved[i] - e.gamma * old[i];
            if T::HAS_LIMITS && e.inequality[i] && new[i] > 0.0 {
                new[i] = 0.0;
            }
        }
        let s = &e.settings;
        if s.break_under_force {
            let impulse_squared = length_squared(&new);
            if impulse_squared > e.max_impulse * e.max_impulse {
                // `e.impulse` keeps what was applied before the break.
                e.broken = Some(Break::force(impulse_squared, e.previous_dt, s.max_force));
                e.solving = false;
                return;
            }
        }
        if e.clamp_force {
            clamp_length(&mut new, e.max_impulse);
        }
        let delta: [f32; D] = std::array::from_fn(|i| weight(i) * (new[i] - old[i]));
        e.impulse = new;
        e.constraint.apply_impulse(
            &e.jacobian,
            &delta,
            &e.inverse_masses,
            &e.bodies,
            velocities,
        );
    }

    /// One position iteration (non-linear Gauss–Seidel) of one stiff entry.
    fn correct_entry(e: &mut Entry<T, D, B>, correction: f32, poses: &mut [Pose]) {
        let Some((slot_poses, w, error, inequality)) = e.position_rows(poses) else {
            return;
        };
        if w.iter().all(|&x| x == 0.0) {
            return;
        }
        let jacobian = e.constraint.jacobian(&slot_poses);
        let k = e
            .constraint
            .effective_mass(&jacobian, &e.inverse_masses, e.shared);
        let (k, active) = weighted(&k, &w);
        let k_inv = invert_active(&k, &active);
        let target = error.map(|x| correction * x);
        let solved = mul_vec(&k_inv, &target);
        let mut delta = [0.0; D];
        for i in 0..D {
            let mut d = -solved[i];
            if T::HAS_LIMITS && inequality[i] && d > 0.0 {
                d = 0.0;
            }
            delta[i] = w[i] * d;
        }
        // Position deltas `M⁻¹ Jᵀ Δ`, through the joint's own impulse code on a scratch
        // array with local indices (aliased slots share an index, so their deltas add).
        let mut scratch = [Velocity::default(); B];
        e.constraint
            .apply_impulse(&jacobian, &delta, &e.inverse_masses, &e.local, &mut scratch);
        for slot in 0..B {
            if e.local[slot] == slot {
                let d = scratch[slot];
                if d.linear != glam::Vec2::ZERO || d.angular != 0.0 {
                    let p = &mut poses[e.bodies[slot]];
                    *p = Pose::new(p.position + d.linear, p.angle + d.angular);
                }
            }
        }
    }
}

impl<T: Constraint<D, B>, const D: usize, const B: usize> ErasedStore for Store<T, D, B> {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn prepare(&mut self, dt: f32, poses: &[Pose], inverse_masses: &[InverseMass]) {
        for e in &mut self.entries {
            Self::prepare_entry(e, dt, poses, inverse_masses);
        }
    }

    fn warm_start(&mut self, velocities: &mut [Velocity]) {
        for e in &mut self.entries {
            if e.solving && e.impulse.iter().any(|&x| x != 0.0) {
                let delta: [f32; D] = std::array::from_fn(|i| e.weights[i] * e.impulse[i]);
                let c = &e.constraint;
                c.apply_impulse(
                    &e.jacobian,
                    &delta,
                    &e.inverse_masses,
                    &e.bodies,
                    velocities,
                );
            }
        }
    }

    fn solve_velocities(&mut self, velocities: &mut [Velocity]) {
        for e in &mut self.entries {
            if e.solving {
                Self::solve_entry(e, velocities);
            }
        }
    }

    fn solve_positions(&mut self, correction: f32, poses: &mut [Pose]) {
        if T::VELOCITY_ONLY {
            return;
        }
        for e in &mut self.entries {
            if e.settings.stiff && e.settings.active && e.broken.is_none() {
                Self::correct_entry(e, correction, poses);
            }
        }
    }

    fn gather_position_rows(&mut self, poses: &[Pose], system: &mut PositionSystem) {
        if T::VELOCITY_ONLY {
            return;
        }
        for e in &mut self.entries {
            if !(e.settings.stiff && e.settings.active && e.broken.is_none()) {
                continue;
            }
            let Some((slot_poses, w, error, inequality)) = e.position_rows(poses) else {
                continue;
            };
            let jacobian = e.constraint.jacobian(&slot_poses);
            let distinct: [usize; B] = std::array::from_fn(|s| s);
            for i in 0..D {
                let violated = !inequality[i] || error[i] > 0.0;
                if w[i] == 0.0 || !violated {
                    continue;
                }
                // Row i of J' on each slot: Jᵀ of the weighted unit impulse of row i.
                let mut unit = [0.0; D];
                unit[i] = w[i];
                let row = e
                    .transpose_times(&jacobian, &unit, &distinct)
                    .map(|v| [v.linear.x, v.linear.y, v.angular]);
                system.push_row(error[i], inequality[i], &e.bodies, &row, &e.inverse_masses);
            }
        }
    }

    fn process_broken(&mut self, broken: &mut Vec<BreakEvent>) {
        let mut d = 0;
        while d < self.entries.len() {
            let Some(Break {
                cause,
                value,
                limit,
            }) = self.entries[d].broken
            else {
                d += 1;
                continue;
            };
            broken.push(BreakEvent {
                constraint: self.id_of(&self.entries[d]),
                cause,
                value,
                limit,
            });
            if self.entries[d].settings.remove_on_break {
                self.remove_dense(d);
            } else {
                // Deactivated: the impulse it applied during this step stays readable
                // until the next step, but is never used as a warm start.
                let e = &mut self.entries[d];
                e.broken = None;
                e.settings.active = false;
                e.previous_dt = 0.0;
                e.solving = false;
                d += 1;
            }
        }
    }

    fn attached(&self, body: usize, out: &mut Vec<ConstraintId>) {
        out.extend(
            self.entries
                .iter()
                .filter(|e| e.bodies.contains(&body))
                .map(|e| self.id_of(e)),
        );
    }

    fn slot_bodies(&self, index: u32, generation: u32) -> Option<Vec<usize>> {
        self.get(index, generation).map(|e| e.bodies.to_vec())
    }

    fn body_impulses(&self, index: u32, generation: u32) -> Option<Vec<(usize, Velocity)>> {
        self.get(index, generation).map(Entry::body_impulses)
    }

    fn remove_attached(&mut self, body: usize, removed: &mut Vec<ConstraintId>) {
        let mut d = 0;
        while d < self.entries.len() {
            if self.entries[d].bodies.contains(&body) {
                removed.push(self.id_of(&self.entries[d]));
                self.remove_dense(d);
            } else {
                d += 1;
            }
        }
    }

    fn remove_id(&mut self, index: u32, generation: u32) -> bool {
        self.remove(index, generation).is_some()
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
}
