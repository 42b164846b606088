//! A per-type constraint store: generational slots over dense entries, and their preparation.

use super::*;
use crate::types::{WorldPose, frame_poses};

#[derive(Clone, Copy)]
pub(super) struct Slot {
    pub(super) generation: u32,
    /// Index into `entries`, or `u32::MAX` when free.
    pub(super) dense: u32,
}

pub(super) const FREE: u32 = u32::MAX;

/// All constraints of type `T` in one space.
#[derive(Clone)]
pub(crate) struct Store<T: Constraint<D, B>, const D: usize, const B: usize> {
    pub(super) space: u32,
    pub(super) store: u32,
    pub(super) slots: Vec<Slot>,
    pub(super) free: Vec<u32>,
    pub(super) entries: Vec<Entry<T, D, B>>,
    /// The seldom read part of each entry, at the same index.
    pub(super) cold: Vec<ColdEntry<D, B>>,
    /// How many entries the exact solve holds (set with the islands).
    pub(super) direct_entries: usize,
    /// Whether an exactly solved entry of the current run of exact substeps has rows the
    /// sweeps handle (limits, force clamps); set by each exact prepare.
    pub(super) direct_swept: bool,
    /// Whether one has limits or a force limit in the exact solve's active set (so
    /// `update_active_rows` has anything to look at); set by each exact prepare.
    pub(super) direct_active_set: bool,
    /// Whether the last sweep of the substep before left every swept entry
    /// [`Refresh::Ready`], so that the coming swept prepare has nothing to do.
    pub(super) ready_ahead: bool,
    /// Whether an entry may break (or is broken): otherwise no break is looked for.
    pub(super) breakable: bool,
    /// Whether an entry may be [`ColdEntry::carried`]: otherwise, and with no island
    /// keeping its factor, the end of a substep has no carry to mark.
    pub(super) carried_entries: bool,
    /// Where the entries swept through a damper's rows begin (springs, and the stiff
    /// entries of a mesh with a limit): `order_sweeps` puts them after every other entry,
    /// and the sweeps take them in a loop of their own (their counter-spin), so that the
    /// loop over the others carries no branch for them.
    pub(super) spin_free: usize,
    /// The exactly solved entries as the exact group's step started, indexed as `entries`
    /// and `cold` (others stale): what a retaken step starts from (`Solver::retake`).
    pub(super) step_start: Vec<Entry<T, D, B>>,
    pub(super) step_start_cold: Vec<ColdEntry<D, B>>,
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
            spin_free: 0,
            step_start: Vec::new(),
            step_start_cold: Vec::new(),
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
    pub(super) fn remove_dense(&mut self, d: usize) -> Entry<T, D, B> {
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
    pub(super) fn id_of(&self, d: usize) -> ConstraintId {
        let slot = self.cold[d].slot;
        ConstraintId {
            space: self.space,
            store: self.store,
            index: slot,
            generation: self.slots[slot as usize].generation,
        }
    }

    /// Whether a constraint of `settings` is an undamped spring without bounds or a force
    /// limit: in a RATTLE island, its kicks are impulses of their own (`explicit_kick`),
    /// its rows outside the exact solve.
    pub(super) fn kicks_undamped(settings: &ConstraintSettings) -> bool {
        !T::HAS_LIMITS
            && !T::VELOCITY_ONLY
            && !settings.stiff
            && settings.damping == 0.0
            && !settings.max_force.is_finite()
    }

    /// Prepares one entry for a substep.
    pub(super) fn prepare_entry(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        substep: &Substep,
        poses: &[WorldPose],
        inverse: &[InverseMass],
        velocities: &[Velocity],
        direct: &mut DirectSystem,
    ) {
        e.refresh = Refresh::Full;
        e.solving = false;
        c.direct_rows = [false; D];
        c.set_spin(None);
        if !c.settings.active || c.broken.is_some() {
            // Applies nothing: nothing to report, nothing to warm start from.
            e.idle();
            return;
        }
        let h = substep.h;
        let slot_poses: [Pose; B] =
            frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
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
        // The error, `J` and `K` in one call where all three are needed (one compiled
        // function for a runtime constraint).
        let error_needed = !(T::VELOCITY_ONLY || error_unused);
        let (mut position, mut k) = ([0.0; D], [[0.0; D]; D]);
        if error_needed {
            e.constraint.linearize(
                &slot_poses,
                &e.inverse_masses,
                c.shared,
                &mut position,
                &mut e.jacobian,
                &mut k,
            );
        } else {
            e.jacobian = e.constraint.jacobian(&slot_poses);
            k = e
                .constraint
                .effective_mass(&e.jacobian, &e.inverse_masses, c.shared);
        }
        let (w, error, inequality, speculative) = if error_needed {
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
        } else {
            ([1.0; D], [0.0; D], [false; D], [false; D])
        };
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
        // A soft limit's kick split at its bound (`bumpers`), where its spring is a kick of
        // velocity Verlet (RATTLE's, and the sweeps' up to `ω·h` = 0.5): half a substep
        // opening this one, the rest closing the one before.
        let verlet = || {
            if in_direct {
                substep.rattle
            } else {
                kicks_explicitly(&s, h)
            }
        };
        let error = if T::HAS_LIMITS && !T::VELOCITY_ONLY && !s.stiff && verlet() {
            // A swept step's first kick is half (`kicks_in_halves`), as a RATTLE step's is.
            let halves = !in_direct && substep.first;
            let kick = if halves { 0.5 * h } else { substep.kick };
            let open = 0.5 * h;
            Self::split_kick(e, c, &position, &w, &k, error, kick - open, open)
        } else {
            error
        };
        let (spring, soft_bias) = if T::VELOCITY_ONLY || s.stiff {
            (None, [0.0; D])
        } else if substep.rattle && c.direct.is_some() {
            let (spring, bias) = verlet_spring(&s, &error, substep.kick);
            (Some(spring), bias)
        } else if c.direct.is_none() {
            let (spring, mut bias) = swept_spring(&s, &error, h);
            if substep.first && Self::kicks_in_halves(&s, h) {
                // Velocity Verlet: the step's first kick is half, the other half closes
                // the step before (`finish_swept_springs`).
                bias = bias.map(|b| 0.5 * b);
            }
            (Some(spring), bias)
        } else {
            let (spring, bias) = spring_bias(&s, &error, h);
            (Some(spring), bias)
        };
        // An undamped spring of a RATTLE island is velocity Verlet's kick alone, applied as
        // the impulse it is (`explicit_kick`) outside the exact solve.
        let explicit = (in_direct && substep.rattle && Self::kicks_undamped(&s))
            .then(|| explicit_kick(&s, &error, substep.kick, &k));
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
            } else if T::HAS_LIMITS && inequality[i] {
                // A violated limit in a mesh stops getting worse (rigid, pushing only), and
                // its position correction after the drift (`correct_limits`) puts it back:
                // pushed back by the soft step's bias as well, a limit that contradicts
                // the mesh's other joints (bounds off by a turn) flung its bodies at
                // 70,000 rad/s.
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
        e.reads_cold = clamp_force || s.break_under_force;
        e.max_impulse = s.max_force * substep.span;

        // Re-weight the warm-start impulse; rows that are inactive, dropped as singular, or
        // (inequalities) on the wrong side start from zero.
        for i in 0..D {
            let mut l = explicit.map_or(w[i] * previous[i], |kick| kick[i]);
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
            if explicit.is_some() {
                (c.direct_compliance, c.spring_compliance) = (0.0, 0.0);
            } else if spring.is_some() && substep.rattle {
                (c.direct_compliance, c.spring_compliance) = (0.0, gamma0);
                c.set_spin(Self::damper_spin_at(e, c, &e.jacobian, poses));
                e.reads_cold |= c.spin().is_some();
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
            let managed = |i: usize| {
                w[i] != 0.0 && usable(i) && (c.inequality[i] || c.clamp_force || explicit.is_some())
            };
            let exact_row = |i: usize| {
                w[i] != 0.0
                    && usable(i)
                    && explicit.is_none()
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
                c.spin(),
                velocities,
                direct,
            );
        } else if (spring.is_some() || c.in_limited_mesh)
            && e.solving
            && w.iter().all(|&x| x == 1.0)
        {
            Self::prepare_swept_spring(e, c, &k, &active, poses);
        }
    }

    /// A spring's error at `position` for its rows as prepared (their weights): past its
    /// bound for a limit row (0 once back inside: a soft limit pulls only from outside),
    /// from its value for an equality row.
    pub(super) fn spring_error(e: &Entry<T, D, B>, position: &[f32; D]) -> [f32; D] {
        if !T::HAS_LIMITS {
            return *position;
        }
        let bounds = e.constraint.bounds();
        std::array::from_fn(|i| {
            let Bounds { min, max } = bounds[i];
            let error = if min == max {
                position[i] - min
            } else if e.weights[i] > 0.0 {
                (position[i] - max).max(0.0)
            } else if e.weights[i] < 0.0 {
                (min - position[i]).max(0.0)
            } else {
                0.0
            };
            if error.is_finite() { error } else { 0.0 }
        })
    }

    /// A RATTLE spring's [`RigidSpin`] for its rows `jacobian` at `poses` (its damper's
    /// rows `J_d`), or `None` where its bodies' angular momentum is not theirs to keep.
    // Out of line, so that `prepare_entry`, which every constraint takes, stays as small.
    #[cold]
    #[inline(never)]
    pub(super) fn damper_spin_at(
        e: &Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        jacobian: &T::Jacobian,
        poses: &[WorldPose],
    ) -> Option<RigidSpin<D, B>> {
        let slot_poses: [Pose; B] =
            frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
        let rows = e.constraint.jacobian_rows(jacobian);
        let distinct = c.shared == SharedSlots::NONE;
        RigidSpin::of(&rows, &slot_poses, &e.inverse_masses, distinct)
    }

    /// Writes the exact rows (`direct_rows`) of `e` at its slot into the direct system:
    /// each row's `Jᵀ` per slot from `jacobian` (weighted), its biases with the kinematic
    /// bodies' share, its impulse, and the rows' compliance `compliance · K'` (`k`: `K'`).
    /// An entry outside the exact solve has no rows there, and nothing is written. A
    /// RATTLE spring's rows are its damper's (`spin`: `J_d` and `K_d`), its compliance
    /// still relative to `K`'s diagonal.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn write_direct_rows(
        e: &Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        jacobian: &T::Jacobian,
        k: &[[f32; D]; D],
        compliance: f32,
        spin: Option<&RigidSpin<D, B>>,
        velocities: &[Velocity],
        direct: &mut DirectSystem,
    ) {
        let Some(slot) = &c.direct else { return };
        let isotropic = c.spring_compliance * mean_diagonal(k);
        let compliance_of =
            |i: usize, j: usize| compliance * k[i][j] + if i == j { isotropic } else { 0.0 };
        let damper_mass;
        let k = match spin {
            Some(spin) => {
                damper_mass = spin.damper_mass(k);
                &damper_mass
            }
            None => k,
        };
        // Row `i`'s weighted `J` per slot and the kinematic bodies' share of its bias (only
        // exact rows are written, and those of a constraint without limits weigh 1).
        // A spring's damper rows in `f64` (`RigidSpin`), every other row as it is.
        let rows = e.constraint.jacobian_rows(jacobian);
        let exact_row = |i: usize| {
            let row = rows[i].map(|entries| entries.map(|j| j * e.weight(i)));
            let moving = Self::kinematic_share(e, slot, &row, velocities);
            let row = match spin {
                Some(spin) => spin.damper_row(i, &row, e.weight(i)),
                None => row.map(|entries| entries.map(f64::from)),
            };
            (row, moving)
        };
        if c.direct_rows.iter().all(|&w| w)
            && let Some(whole) = direct.whole_rows::<D, B>(slot)
        {
            // In place, each value as `set_rows` would write it.
            for (i, k) in k.iter().enumerate() {
                let (row, moving) = exact_row(i);
                let target = &mut whole.jacobian[i * B * 3..(i + 1) * B * 3];
                target.copy_from_slice(row.as_flattened());
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
    pub(super) fn linearize_at(
        e: &Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        poses: &[WorldPose],
    ) -> Option<(T::Jacobian, [[f32; D]; D])> {
        let slot_poses: [Pose; B] =
            frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
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
    pub(super) fn usable_row(e: &Entry<T, D, B>, c: &ColdEntry<D, B>, i: usize) -> bool {
        e.weights[i] != 0.0 && (e.k_inv[i][i] != 0.0 || c.row_mass[i] != 0.0)
    }

    /// The impulse one biased Gauss–Seidel update of `e` alone would leave (`v`: its
    /// `Jv`): whether a force-limited constraint fixed on its bound would come back
    /// inside it.
    pub(super) fn trial_impulse(e: &Entry<T, D, B>, c: &ColdEntry<D, B>, v: &[f32; D]) -> [f32; D] {
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

    /// A swept constraint's `J` taken at `poses`, its impulse so far counted through the
    /// old one (`Entry::rebase_swept`, which says what it returns; `last`: this sweep is
    /// the substep's last).
    #[inline]
    pub(super) fn relinearize_swept_entry(
        e: &mut Entry<T, D, B>,
        poses: &[WorldPose],
        last: bool,
    ) -> [f32; D] {
        Self::relinearize_swept_entry_at::<false>(e, poses, last).0
    }

    /// [`relinearize_swept_entry`](Self::relinearize_swept_entry), with `ERROR` the
    /// position error at the same poses too, for a refresh that follows there
    /// ([`Linearized::Both`]): taken in one place, `C` and `J` share their rotated anchors.
    #[inline(always)]
    pub(super) fn relinearize_swept_entry_at<const ERROR: bool>(
        e: &mut Entry<T, D, B>,
        poses: &[WorldPose],
        last: bool,
    ) -> ([f32; D], Linearized<D>) {
        if !e.solving {
            return ([0.0; D], Linearized::Jacobian);
        }
        let slot_poses: [Pose; B] =
            frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
        let error = (ERROR && !(T::HAS_LIMITS || T::VELOCITY_ONLY))
            .then(|| e.constraint.position_error(&slot_poses));
        let jacobian = e.constraint.jacobian(&slot_poses);
        let counted = e.rebase_swept(jacobian, last);
        (
            counted,
            error.map_or(Linearized::Jacobian, Linearized::Both),
        )
    }

    /// Within a step, a constraint solved by sweeps alone with equality rows only needs its
    /// Jacobian (the world anchors, which turn with the bodies) and its positional bias
    /// anew; its effective mass, a preconditioner of the sweep that does not change what
    /// it converges to, is kept from the step's first substep. For an entry whose full
    /// preparation this step left it [`Refresh::Swept`] and still `solving` (the caller checks;
    /// `linearized` says what is already known at `poses`);
    /// returns `false` (and does nothing) if its error is not finite, where the full
    /// preparation decides what to do.
    #[inline(always)]
    pub(super) fn refresh_entry(
        e: &mut Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        substep: &Substep,
        poses: &[WorldPose],
        linearized: Linearized<D>,
    ) -> bool {
        if T::HAS_LIMITS || T::VELOCITY_ONLY {
            return false;
        }
        let slot_poses: &[Pose; B] =
            &frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
        let error = match linearized {
            Linearized::Both(error) => error,
            _ => e.constraint.position_error(slot_poses),
        };
        if !error.iter().sum::<f32>().is_finite() {
            return false;
        }
        if linearized == Linearized::Stale {
            e.jacobian = e.constraint.jacobian(slot_poses);
        }
        if e.stiff {
            let rate = substep.joint_softness.bias_rate;
            e.bias[0] = error.map(|x| rate * x);
        } else {
            e.bias = [swept_spring(&c.settings, &error, substep.h).1; 2];
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
    pub(super) fn refresh_exact_entry(
        e: &mut Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        poses: &[WorldPose],
        inverse: &[InverseMass],
        velocities: &[Velocity],
        direct: &mut DirectSystem,
    ) -> bool {
        if T::HAS_LIMITS || T::VELOCITY_ONLY {
            return false;
        }
        let slot_poses: &[Pose; B] =
            &frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
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
            None,
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
    pub(super) fn carried_start(
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
    pub(super) fn restore_carried_rows(
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
        Self::write_direct_rows(
            e,
            c,
            &jacobian,
            &k,
            c.direct_compliance,
            None,
            velocities,
            direct,
        );
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
    pub(super) fn write_carried_bias(
        e: &mut Entry<T, D, B>,
        slot: &DirectSlot,
        poses: &[WorldPose],
        inverse: &[InverseMass],
        velocities: &[Velocity],
        direct: &mut DirectSystem,
    ) -> bool {
        let slot_poses: &[Pose; B] =
            &frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
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
    pub(super) fn warm_start(e: &Entry<T, D, B>, velocities: &mut [Velocity]) {
        if e.solving && e.impulse.iter().any(|&x| x != 0.0) {
            e.apply(&e.weighted_impulse(), velocities);
        }
    }

    /// [`warm_start`](Self::warm_start) of an entry that may be a spring: through its
    /// damper's rows (its counter-spin) where it has them.
    #[inline]
    pub(super) fn warm_start_damped(
        e: &Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        velocities: &mut [Velocity],
    ) {
        Self::warm_start(e, velocities);
        if e.solving
            && let Some(spin) = c.spin()
        {
            spin.counter_spin(&e.weighted_impulse(), &e.bodies, velocities);
        }
    }

    /// One Gauss–Seidel update of one entry.
    #[inline]
    pub(super) fn solve_entry(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        pass: usize,
        velocities: &mut [Velocity],
    ) {
        if T::HAS_LIMITS && e.limited {
            Self::solve_limited(e, c, pass, velocities);
            return;
        }
        let v = e
            .constraint
            .velocity_error(&e.jacobian, &e.bodies, velocities);
        Self::solve_velocity_error(e, c, pass, &v, velocities);
    }

    /// The update of [`solve_entry`](Self::solve_entry) for the rows' velocity error `v`
    /// (`J v`, or a spring's `J_d v`), its limits inactive.
    #[inline(always)]
    pub(super) fn solve_velocity_error(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        pass: usize,
        v: &[f32; D],
        velocities: &mut [Velocity],
    ) {
        // `Δλ' = −m∘K'⁻¹(w∘Jv + bias) − s∘λ'` (`m`, `s`: the pass's mass and impulse
        // scales), applied through the constraint's own `apply_impulse`: its compact
        // Jacobian makes that cheaper than any `M⁻¹Jᵀ` kept per row.
        let old = e.impulse;
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
