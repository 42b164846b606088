//! One constraint's hot and cold parts, and the row helpers that prepare them.

use super::*;

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
    pub(super) jacobian: T::Jacobian,
    /// `K'⁻¹` on the active equality rows (rigid).
    pub(super) k_inv: [[f32; D]; D],
    /// Per pass (biased, relax): bias velocity, mass scale and impulse scale of each row.
    pub(super) bias: [[f32; D]; 2],
    pub(super) mass_scale: [[f32; D]; 2],
    pub(super) impulse_scale: [[f32; D]; 2],
    /// Accumulated impulse of the current substep in weighted space (`λ'`).
    pub(super) impulse: [f32; D],
    pub(super) max_impulse: f32,
    /// Prepared this substep with at least one active row.
    pub(super) solving: bool,
    /// What the later substeps of this step refresh instead of preparing in full,
    /// decided from this line of the entry alone (see [`Refresh`]).
    pub(super) refresh: Refresh,
    /// Whether an update reads the [`ColdEntry`]: `clamp_force` or `break_under_force`
    /// (it checks the length of the impulse), or a RATTLE spring's `damper_spin`. A flag
    /// here, so that the sweep reads no more of the others.
    pub(super) reads_cold: bool,
    /// Whether any active row is an inequality.
    pub(super) limited: bool,
    /// Inverse masses of the slots, gathered at prepare.
    pub(super) inverse_masses: [InverseMass; B],
    // ----- read by a swept constraint's refresh and by the last sweep of a substep
    pub(crate) constraint: T,
    /// The settings' `stiff`, copied at the full preparation for the refresh.
    pub(super) stiff: bool,
    /// For each slot, the first slot holding the same body (a byte: slots are few).
    pub(super) local: [u8; B],
    /// The previous substep's `h`, or 0 when there is no impulse to warm start from.
    pub(super) previous_h: f32,
    pub(super) weights: [f32; D],
    /// `Σ w∘λ'` over the substeps of the last step: the physical impulse it applied.
    pub(super) step_impulse: [f32; D],
    /// `Σ Jᵀ(w∘λ')` per slot over the substeps of the last step (aliased slots summed in
    /// their first slot).
    pub(super) step_body_impulse: [Velocity; B],
}

/// What the solver reads of a constraint seldom: at its full preparation, in the exact
/// solve, for limits and force limits, breaking and the queries. Kept apart from
/// [`Entry`] (at the same index of the store) so that the sweeps over a mesh stream only
/// what they read.
#[derive(Clone)]
pub(crate) struct ColdEntry<const D: usize, const B: usize> {
    pub(crate) settings: ConstraintSettings,
    /// Set when the constraint breaks; acted on (and reported) at the end of the step.
    pub(super) broken: Option<Break>,
    /// Where the rows live in the exact solve of an acyclic island, if they do.
    pub(super) direct: Option<DirectSlot>,
    /// Pairs of slots holding the same body.
    pub(super) shared: SharedSlots,
    /// The sparse slot that owns this entry (for swap-removal and ids).
    pub(super) slot: u32,
    /// `1 / K'_ii` of each active inequality row, solved one row at a time so that a
    /// clamped row's target never leaks into the others through the coupled inverse.
    pub(super) row_mass: [f32; D],
    /// The part of this substep's `w∘λ'` already in `step_body_impulse`, counted through
    /// an earlier `J` when the rows were rebased within the substep; `accumulate` adds the
    /// rest through the current `J`. Zero between substeps (and so between steps: not
    /// snapshotted).
    pub(super) rebased_impulse: [f32; D],
    /// The compliance of the exact rows relative to `K` (stiff, or a linear step's spring).
    pub(super) direct_compliance: f32,
    /// A RATTLE spring's compliance relative to `k̄ I`, `k̄` the mean of `K`'s diagonal: a
    /// spring of one stiffness in every direction, so that its force on two anchors lies
    /// along their separation and keeps the island's angular momentum (relative to `K`,
    /// the force leans towards the stiffer direction and turns the island).
    pub(super) spring_compliance: f32,
    /// A spring's rigid spin (RATTLE's and the sweeps'): its damper's rows are
    /// `J_d = J − g wᵀ`, which keep its bodies' angular momentum ([`RigidSpin`]); taken
    /// with `J` (the entry's `jacobian`).
    /// Boxed with a soft limit's state ([`SpringState`]), and kept once made (`spin_on`
    /// says whether it holds this substep): the cold entry of every constraint stays as
    /// small as without it (a 100 × 100 joint grid, which has no spring, stepped a
    /// quarter slower with the spin inline).
    springs: Option<Box<SpringState<D, B>>>,
    spin_on: bool,
    /// Rows handed to the exact solve this substep.
    pub(super) direct_rows: [bool; D],
    /// Rows clamped to push only: inequalities, violated or speculative.
    pub(super) inequality: [bool; D],
    /// A direct entry with a row that cannot act (a singular effective mass), left to the
    /// sweeps; its limits and force limit are in the exact solve's active set instead.
    pub(super) sweep: bool,
    /// Whether its island takes part in the current run of exact substeps (islands with
    /// different substep counts run one after the other).
    pub(super) in_run: bool,
    /// A force limit clamps the impulse (soft or velocity-only with a finite `max_force`).
    pub(super) clamp_force: bool,
    /// What this substep's limit corrections added to the swept rows' impulses (RATTLE
    /// islands), for the guard to take back if it undoes the substep's corrections.
    pub(super) limit_impulse: [f32; D],
    /// Whether its rows and `J` are those its island's last finishing substep factorised,
    /// and that factor was kept for the next step ([`direct::Carry`]): what a rebuilt
    /// system restores the factor from.
    pub(super) carried: bool,
    /// A swept entry of a mesh that holds a limit (`meshes`): stiff, it sweeps through its
    /// damper's rows `J − g wᵀ`, as a spring does. Set with the sweep order.
    pub(super) in_limited_mesh: bool,
}

/// What a spring keeps in its cold entry's box: its rigid spin, and a soft limit's rows at
/// its last kick (`bumpers`).
#[derive(Clone)]
pub(crate) struct SpringState<const D: usize, const B: usize> {
    spin: Option<RigidSpin<D, B>>,
    /// Each row's signed distance past its bound (negative inside).
    pub(super) bound_sides: [f32; D],
    /// The impulse (weighted) of the kick's half that opened the substep, for the share
    /// the substep spent past the bound.
    pub(super) open_kicks: [f32; D],
}

impl<const D: usize, const B: usize> ColdEntry<D, B> {
    /// Takes every part of `source` a step changes, as [`Entry::restore_step_state`];
    /// the spring's box is reused where both have one, so a warmed-up step allocates
    /// nothing.
    pub(super) fn restore_step_state(&mut self, source: &Self) {
        let Self {
            settings: _,
            broken,
            direct: _,
            shared: _,
            slot: _,
            row_mass,
            rebased_impulse,
            direct_compliance,
            spring_compliance,
            springs,
            spin_on,
            direct_rows,
            inequality,
            sweep,
            in_run,
            clamp_force,
            limit_impulse,
            carried,
            in_limited_mesh: _,
        } = source;
        self.broken = *broken;
        self.row_mass = *row_mass;
        self.rebased_impulse = *rebased_impulse;
        self.direct_compliance = *direct_compliance;
        self.spring_compliance = *spring_compliance;
        match springs {
            Some(state) => self.springs_mut().clone_from(state),
            // Made during the step being retaken: made again if the retake needs it.
            None => self.springs = None,
        }
        self.spin_on = *spin_on;
        self.direct_rows = *direct_rows;
        self.inequality = *inequality;
        self.sweep = *sweep;
        self.in_run = *in_run;
        self.clamp_force = *clamp_force;
        self.limit_impulse = *limit_impulse;
        self.carried = *carried;
    }

    /// The spring's rigid spin this substep, if it has one.
    #[inline]
    pub(super) fn spin(&self) -> Option<&RigidSpin<D, B>> {
        if self.spin_on {
            self.springs.as_deref().and_then(|s| s.spin.as_ref())
        } else {
            None
        }
    }

    /// Sets (or, with `None`, drops) the rigid spin; the box is made once and reused, so
    /// a warmed-up step allocates nothing.
    pub(super) fn set_spin(&mut self, spin: Option<RigidSpin<D, B>>) {
        self.spin_on = spin.is_some();
        if spin.is_some() {
            self.springs_mut().spin = spin;
        }
    }

    /// The spring's boxed state, made at its first use (a soft limit's first kick, which
    /// every preparation takes, so a warmed-up step allocates nothing).
    pub(super) fn springs_mut(&mut self) -> &mut SpringState<D, B> {
        self.springs.get_or_insert_with(|| {
            Box::new(SpringState {
                spin: None,
                bound_sides: [0.0; D],
                open_kicks: [0.0; D],
            })
        })
    }

    /// The soft limit's state, if it has kicked.
    pub(super) fn springs(&self) -> Option<&SpringState<D, B>> {
        self.springs.as_deref()
    }
}

impl<T: Constraint<D, B>, const D: usize, const B: usize> Entry<T, D, B> {
    /// Takes every part of `source` a step changes (all but the constraint itself, its
    /// bodies and settings): what a step retaken from its start (`Solver::retake`) starts
    /// from. Every field is named, so that one added is not forgotten here.
    pub(super) fn restore_step_state(&mut self, source: &Self) {
        let Self {
            bodies: _,
            jacobian,
            k_inv,
            bias,
            mass_scale,
            impulse_scale,
            impulse,
            max_impulse,
            solving,
            refresh,
            reads_cold,
            limited,
            inverse_masses,
            constraint: _,
            stiff: _,
            local: _,
            previous_h,
            weights,
            step_impulse,
            step_body_impulse,
        } = source;
        self.jacobian = *jacobian;
        self.k_inv = *k_inv;
        self.bias = *bias;
        self.mass_scale = *mass_scale;
        self.impulse_scale = *impulse_scale;
        self.impulse = *impulse;
        self.max_impulse = *max_impulse;
        self.solving = *solving;
        self.refresh = *refresh;
        self.reads_cold = *reads_cold;
        self.limited = *limited;
        self.inverse_masses = *inverse_masses;
        self.previous_h = *previous_h;
        self.weights = *weights;
        self.step_impulse = *step_impulse;
        self.step_body_impulse = *step_body_impulse;
    }

    /// Sets the slots' body indices and the derived aliasing tables.
    pub(crate) fn set_body_indices(&mut self, cold: &mut ColdEntry<D, B>, bodies: [usize; B]) {
        self.bodies = bodies;
        cold.shared = SharedSlots::find(&bodies);
        self.local = std::array::from_fn(|s| {
            let first = (0..=s).find(|&t| bodies[t] == bodies[s]).unwrap_or(s);
            u8::try_from(first).expect("at most 8 body slots")
        });
    }

    /// After its parameters changed between steps: the next step prepares it in full and
    /// does not start from its island's carried factor, whose rows were the old ones.
    pub(crate) fn parameters_changed(&mut self) {
        self.refresh = Refresh::Full;
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
    pub(super) fn clear_step_totals(&mut self) {
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
    pub(super) fn breaks_under(&mut self, cold: &mut ColdEntry<D, B>, impulse: &[f32; D]) -> bool {
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
    /// with this substep's `J`, all but `counted` (what a swept entry's rebase in this
    /// sweep counted through the old `J`).
    #[inline]
    pub(super) fn accumulate_swept(&mut self, counted: &[f32; D]) {
        let impulse = self.weighted_impulse();
        for (total, x) in self.step_impulse.iter_mut().zip(impulse) {
            *total += x;
        }
        let uncounted: [f32; D] = std::array::from_fn(|i| impulse[i] - counted[i]);
        self.count_body_impulse(&uncounted);
    }

    /// Adds an impulse applied outside the substeps (a spring's closing half kick) to the
    /// step's totals, through the current `J` and the damper's rows.
    pub(super) fn count_step_impulse(&mut self, cold: &ColdEntry<D, B>, impulse: &[f32; D]) {
        for (total, x) in self.step_impulse.iter_mut().zip(impulse) {
            *total += x;
        }
        self.count_body_impulse(impulse);
        self.count_counter_spin(cold, impulse);
    }

    /// [`accumulate_swept`](Self::accumulate_swept) of an entry that may be a spring: its
    /// damper's counter-spin too, where it has one (a spring's rebase counts the spin so
    /// far through the old rows and takes it back through the new ones at once).
    pub(super) fn accumulate_damped(&mut self, cold: &ColdEntry<D, B>, counted: &[f32; D]) {
        self.accumulate_swept(counted);
        if cold.spin().is_some() {
            let impulse = self.weighted_impulse();
            self.count_counter_spin(cold, &impulse);
        }
    }

    /// [`accumulate_swept`](Self::accumulate_swept) for an entry of the exact solve, whose rows may
    /// have been rebased within the substep: only what the rebase did not count goes in
    /// through the current `J`. (Swept entries take the plain one, their rebase having
    /// counted the difference: their last sweep is a hot loop that reads no cold part.)
    pub(super) fn accumulate_direct(&mut self, cold: &mut ColdEntry<D, B>) {
        let impulse = self.weighted_impulse();
        for (total, x) in self.step_impulse.iter_mut().zip(impulse) {
            *total += x;
        }
        let uncounted: [f32; D] = std::array::from_fn(|i| impulse[i] - cold.rebased_impulse[i]);
        self.count_body_impulse(&uncounted);
        self.count_counter_spin(cold, &uncounted);
        cold.rebased_impulse = [0.0; D];
    }

    /// Moves the entry to the Jacobian `jacobian` within a substep: what its impulse so
    /// far applied through the old one goes into the step's body impulses now (the rest
    /// follows through the new one in [`accumulate_direct`](Self::accumulate_direct)).
    pub(super) fn rebase(&mut self, cold: &mut ColdEntry<D, B>, jacobian: T::Jacobian) {
        let impulse = self.weighted_impulse();
        let uncounted: [f32; D] = std::array::from_fn(|i| impulse[i] - cold.rebased_impulse[i]);
        self.count_body_impulse(&uncounted);
        self.count_counter_spin(cold, &uncounted);
        cold.rebased_impulse = impulse;
        self.jacobian = jacobian;
    }

    /// Moves a swept entry to the Jacobian `jacobian` within a substep: its impulse so far
    /// acted through the old one, and goes into the step's body impulses through it now.
    /// Returns what the substep's [`accumulate_swept`](Self::accumulate_swept) must not
    /// count again: the impulse so far, if `last` (its sweep is the substep's last), or
    /// nothing, its count through the new `J` taken back here.
    #[inline(always)]
    pub(super) fn rebase_swept(&mut self, jacobian: T::Jacobian, last: bool) -> [f32; D] {
        let impulse = self.weighted_impulse();
        self.count_body_impulse(&impulse);
        self.jacobian = jacobian;
        if last {
            return impulse;
        }
        self.count_body_impulse(&impulse.map(|x| -x));
        [0.0; D]
    }

    /// What a spring's damper rows add to `Jᵀ·impulse` (`J_d = J − g wᵀ`: its
    /// [`RigidSpin`]) in the step's body impulses; its slots hold distinct bodies.
    pub(super) fn count_counter_spin(&mut self, cold: &ColdEntry<D, B>, impulse: &[f32; D]) {
        if let Some(spin) = cold.spin() {
            spin.add_counter_impulse(impulse, &mut self.step_body_impulse);
        }
    }

    /// `v += M⁻¹J_dᵀ·impulse`: [`apply`](Self::apply) with a RATTLE spring's counter-spin.
    #[inline]
    pub(super) fn apply_damped(
        &self,
        cold: &ColdEntry<D, B>,
        impulse: &[f32; D],
        velocities: &mut [Velocity],
    ) {
        self.apply(impulse, velocities);
        if let Some(spin) = cold.spin() {
            spin.counter_spin(impulse, &self.bodies, velocities);
        }
    }

    /// `v += M⁻¹Jᵀ·impulse` through `jacobian` (taken where the bodies now are, not the
    /// entry's own `J`), counted in the step's totals through it.
    pub(super) fn apply_through(
        &mut self,
        jacobian: &T::Jacobian,
        impulse: &[f32; D],
        velocities: &mut [Velocity],
    ) {
        self.constraint.apply_impulse(
            jacobian,
            impulse,
            &self.inverse_masses,
            &self.bodies,
            velocities,
        );
        for (total, x) in self.step_impulse.iter_mut().zip(impulse) {
            *total += x;
        }
        add_transpose(
            &self.constraint,
            jacobian,
            impulse,
            &self.local_indices(),
            &mut self.step_body_impulse,
        );
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
    pub(super) fn local_indices(&self) -> [usize; B] {
        self.local.map(usize::from)
    }

    /// Whether slot `s` is the first holding its body.
    pub(super) fn first_of_its_body(&self, s: usize) -> bool {
        usize::from(self.local[s]) == s
    }

    /// `v += M⁻¹Jᵀ·impulse` on the entry's bodies (`impulse` weighted, `w∘λ'`), through
    /// the constraint's own compact Jacobian.
    #[inline]
    pub(super) fn apply(&self, impulse: &[f32; D], velocities: &mut [Velocity]) {
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
    pub(super) fn weight(&self, i: usize) -> f32 {
        if T::HAS_LIMITS { self.weights[i] } else { 1.0 }
    }

    pub(super) fn weighted_impulse(&self) -> [f32; D] {
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
    pub(super) fn probed_stiffness(
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
                ..pose.turned_by(TURN_COS, TURN_SIN)
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
    pub(super) fn idle(&mut self) {
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
pub(super) fn colour_order<'a>(
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
pub(super) fn fresh_entry<T: Constraint<D, B>, const D: usize, const B: usize>(
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
        reads_cold: false,
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
        springs: None,
        spin_on: false,
        in_run: true,
        sweep: false,
        rebased_impulse: [0.0; D],
        limit_impulse: [0.0; D],
        broken: None,
        carried: false,
        in_limited_mesh: false,
    };
    entry.set_body_indices(&mut cold, bodies);
    (entry, cold)
}

/// `items` in the order `order` (a permutation of its indices) gives.
pub(super) fn permuted<X>(items: Vec<X>, order: &[usize]) -> Vec<X> {
    let mut old: Vec<Option<X>> = items.into_iter().map(Some).collect();
    order
        .iter()
        .map(|&from| old[from].take().expect("a permutation"))
        .collect()
}

/// The entries solved exactly in the current run of exact substeps, with their slots.
pub(super) fn exact_run<'a, T: Constraint<D, B>, const D: usize, const B: usize>(
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

/// `(w, C', inequality)` of every row for the error `c` and the bounds.
#[inline]
pub(super) fn rows<const D: usize>(
    c: &[f32; D],
    bounds: &[Bounds; D],
) -> ([f32; D], [f32; D], [bool; D]) {
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
pub(super) fn speculate<const D: usize>(
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
pub(super) fn regularized<const D: usize>(k: &[[f32; D]; D]) -> [[f32; D]; D] {
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
pub(super) fn weighted<const D: usize>(
    k: &[[f32; D]; D],
    w: &[f32; D],
) -> ([[f32; D]; D], [bool; D]) {
    let mut out = *k;
    for i in 0..D {
        for j in 0..D {
            out[i][j] *= w[i] * w[j];
        }
    }
    (out, std::array::from_fn(|i| w[i] != 0.0))
}
