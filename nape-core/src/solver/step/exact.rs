//! The exact path: RATTLE's SHAKE position solve and closing velocity projection, the
//! linearly implicit step's projections, the guard that keeps only projections that
//! helped, and Levenberg–Marquardt on the islands they made worse.

use super::*;

impl Solver {
    /// SHAKE's position solve of a moving island's substep: the correction
    /// [`DirectSystem::project_as_impulse`] applies (an impulse through the substep
    /// start's rows, the bodies moved as far as it changes their velocities over the
    /// substep), repeated with the start's factor while an island's summed squared error
    /// is above [`SHAKE_SETTLED`] and its rounding floor and each correction at least halves
    /// it, at most [`SHAKE_ITERATIONS`] times (each shrinks the error by about the turn of
    /// the substep). Returns whether it moved anything.
    pub(super) fn project_as_impulses(&mut self, stores: &mut Stores, h: f32) -> bool {
        // Kept for the guard, which may undo the corrections.
        self.direct.save_impulses();
        self.measure_rounding_floors(stores, h);
        let mut moved = false;
        for iteration in 0..SHAKE_ITERATIONS {
            let unsettled = self.mark_unsettled_where(|islands, k| {
                islands.island_errors[k] > SHAKE_SETTLED.max(islands.island_floor[k])
            });
            if !unsettled {
                break;
            }
            if iteration > 0 && !self.mark_converging() {
                break;
            }
            self.islands
                .errors_last
                .clone_from(&self.islands.island_errors);
            self.direct.project_as_impulse(
                Islands::Marked,
                &self.inverse_masses,
                &mut self.poses,
                &mut self.velocities,
                h,
            );
            #[cfg(test)]
            {
                self.islands.shake_corrections += 1;
            }
            moved = true;
            self.measure_island_errors(stores, true);
        }
        if moved {
            self.pull_impulses(stores);
        }
        moved
    }

    /// Each acyclic island's rounding floor at the current poses
    /// (`IslandState::island_floor`): its rows' errors are computed in `f32` from the
    /// positions of their constraints' frames (relative to a joint's first body), so
    /// they round with those lengths, not with the distance from the origin. Below
    /// [`FLOOR_SUBSTEP`], the floor shrinks with the substep `h`.
    fn measure_rounding_floors(&mut self, stores: &Stores, h: f32) {
        let islands = &mut self.islands;
        islands.island_floor.clear();
        islands
            .island_floor
            .resize(islands.island_errors.len(), 0.0);
        for &s in &self.store_order {
            stores[s].rounding_scales(&self.poses, &self.direct, &mut islands.island_floor);
        }
        let share = SHAKE_FLOOR_SHARE * (h / FLOOR_SUBSTEP).min(1.0);
        for floor in &mut islands.island_floor {
            *floor *= share * f32::EPSILON * f32::EPSILON;
        }
    }

    /// Removes the joint errors an island starts its step with (a constraint created apart,
    /// a body moved by hand, what the last step's position solve left), by a projection
    /// that moves no velocity, guarded like every projection: RATTLE's position solve
    /// (`project_as_impulses`) turns what it corrects into velocity, which is right for
    /// the drift of the substep and wrong for an error that was there before it.
    pub(super) fn project_start_errors(&mut self, stores: &mut Stores) {
        self.measure_island_errors(stores, true);
        if !self.mark_unsettled(RELINEARIZED_SETTLED) {
            return;
        }
        self.project_marked_without_velocity(stores);
    }

    /// One guarded projection of the marked islands, errors measured with the right-hand
    /// side: bodies moved by `M⁻¹Jᵀμ`, no velocity changed, no impulse counted.
    pub(super) fn project_marked_without_velocity(&mut self, stores: &mut Stores) {
        self.direct.forget_saved_impulses();
        self.islands.projection_start.clone_from(&self.poses);
        self.islands.velocity_start.clone_from(&self.velocities);
        self.islands
            .errors_before
            .clone_from(&self.islands.island_errors);
        self.direct
            .project(Islands::Marked, &self.inverse_masses, &mut self.poses);
        self.keep_projections_that_helped(stores, false);
    }

    /// The end of a moving exact island's step (RATTLE's velocity half): the second half
    /// kick of the forces, the rows relinearised and factorised at the final poses, and
    /// the velocities made to meet them by an exact solve (an `M`-orthogonal projection,
    /// the impulses internal: momentum unchanged). The next step starts from that factor
    /// (`direct::Carry`), the poses being where it was built.
    pub(super) fn finish_moving_step(&mut self, stores: &mut Stores, h: f32) {
        for ((v, motion), &island) in self
            .velocities
            .iter_mut()
            .zip(&self.motion)
            .zip(&self.islands.body_island)
        {
            if let Motion::Free { linear, angular } = *motion
                && in_group(true, &self.islands.island_run, island)
            {
                v.linear += linear * (0.5 * h);
                v.angular += angular * (0.5 * h);
            }
        }
        self.rebase_exact_rows(stores, Some(0.5 * h));
        let relinearized = self.direct.factorisations();
        // What the position solve left above `RELINEARIZED_SETTLED` (a link that turned too
        // far in a substep for the start's factor) is taken away by one Gauss–Newton
        // projection with the factor at the final poses, moving no velocity.
        self.measure_island_errors(stores, true);
        let corrected = self.mark_unsettled(FINISHED);
        if corrected {
            self.project_marked_without_velocity(stores);
            self.project_unsettled(stores, false, FINISHED);
        }
        self.exact_solve(stores, 1, Islands::All);
        // An island's first step solves again with the same factor (iterative
        // refinement): its effective masses are `f32`, which holds a light body's
        // `1/m` plus a heavy one's only to their ratio times 1e-7, and a light body holding
        // a heavy one at rest (1 kg and 1,000 t) left 2 mm/s of the heavy load's impulse in
        // its velocities. From the next step the loads are known and such an island rests
        // on weighted masses (`weigh_exact_bodies`).
        if self.mark_unsettled_where(|islands, k| islands.island_unloaded.get(k) == Some(&true)) {
            for _ in 0..REFINEMENTS {
                self.exact_solve(stores, 1, Islands::Marked);
            }
        }
        self.settle_active_set(stores, 1);
        if self.direct.factored_since(relinearized) {
            self.direct.drop_carries();
        } else if corrected {
            let errors = &self.islands.errors_before;
            self.direct
                .keep_factors(|k| errors[k] <= CARRY_SETTLED, &self.inverse_masses);
        } else {
            self.direct.keep_factors(|_| true, &self.inverse_masses);
        }
    }

    /// The end of the last substep of a moving exact island that RATTLE does not step
    /// (one with limits, springs, motors or force limits): the velocities made to meet the
    /// rows relinearised at the drifted poses (an exact solve, an `M`-orthogonal
    /// projection: it adds no kinetic energy), so the reported velocity moves along the
    /// joints from where the bodies are; the factor kept for the next step where the
    /// projection moved the bodies little (`direct::Carry`), not where the guard or the
    /// active set factorised again.
    pub(super) fn finish_linear_step(
        &mut self,
        stores: &mut Stores,
        paired_solve: Option<u64>,
        relinearized: Option<u64>,
    ) {
        match paired_solve {
            Some(count) if !self.direct.factored_since(count) => {
                self.pull_impulses(stores);
            }
            Some(_) => {
                self.velocities.clone_from(&self.islands.velocity_start);
                self.exact_solve(stores, 1, Islands::All);
            }
            None => self.exact_solve(stores, 1, Islands::All),
        }
        self.settle_active_set(stores, 1);
        match relinearized {
            Some(count) if !self.direct.factored_since(count) => {
                let errors = &self.islands.errors_before;
                self.direct
                    .keep_factors(|k| errors[k] <= CARRY_SETTLED, &self.inverse_masses);
            }
            _ => self.direct.drop_carries(),
        }
    }

    /// The step's last position correction, in every island whose summed squared error is
    /// still above `settled` (`measured`: the direct system holds the errors at the
    /// current poses as its right-hand side, nothing having moved since), guarded like
    /// the first. A resting island's factor is from the substep's start, so one
    /// projection leaves an error of order ω·h times the one it removed, and where the
    /// user sees the poses a second one takes away what is left;
    /// a moving island's last projection was relinearised where it corrects, and only
    /// an error that large (a chain created apart, a hard pull) is worth a second one.
    pub(super) fn project_unsettled(&mut self, stores: &mut Stores, measured: bool, settled: f32) {
        if !self.mark_unsettled(settled) {
            return;
        }
        self.islands.projection_start.clone_from(&self.poses);
        if !measured {
            self.measure_island_errors(stores, true);
        }
        self.islands
            .errors_before
            .clone_from(&self.islands.island_errors);
        self.direct
            .project(Islands::Marked, &self.inverse_masses, &mut self.poses);
        self.keep_projections_that_helped(stores, false);
    }

    /// Keeps marked (see [`mark_unsettled`](Self::mark_unsettled)) only the islands whose
    /// last correction took away at least half their error (the rest sit at the floor
    /// `f32` positions allow); returns whether any are left.
    pub(super) fn mark_converging(&mut self) -> bool {
        let islands = &mut self.islands;
        for ((unsettled, &error), &before) in islands
            .island_worse
            .iter_mut()
            .zip(&islands.island_errors)
            .zip(&islands.errors_last)
        {
            *unsettled &= error <= 0.5 * before;
        }
        if !islands.island_worse.iter().any(|&u| u) {
            return false;
        }
        self.direct.clear_marks();
        self.direct.mark_islands(&self.islands.island_worse);
        true
    }

    /// Marks (for [`Islands::Marked`], in `island_worse` as scratch) the acyclic islands
    /// that `which` picks; returns whether there are any.
    pub(super) fn mark_unsettled_where(
        &mut self,
        which: impl Fn(&IslandState, usize) -> bool,
    ) -> bool {
        let mut any = false;
        for k in 0..self.islands.island_worse.len() {
            let picked = which(&self.islands, k);
            self.islands.island_worse[k] = picked;
            any |= picked;
        }
        if any {
            self.direct.clear_marks();
            self.direct.mark_islands(&self.islands.island_worse);
        }
        any
    }

    /// Marks (for [`Islands::Marked`], in `island_worse` as scratch) the acyclic islands
    /// whose last measured error is above `settled`; returns whether there are any.
    pub(super) fn mark_unsettled(&mut self, settled: f32) -> bool {
        let islands = &mut self.islands;
        for (unsettled, &error) in islands.island_worse.iter_mut().zip(&islands.island_errors) {
            *unsettled = error > settled;
        }
        if !islands.island_worse.iter().any(|&u| u) {
            return false;
        }
        self.direct.clear_marks();
        self.direct.mark_islands(&self.islands.island_worse);
        true
    }

    /// The exact solve of the acyclic islands `which` selects, with the impulses the
    /// sweeps left.
    pub(super) fn exact_solve(&mut self, stores: &mut Stores, pass: usize, which: Islands) {
        self.push_impulses(stores);
        self.direct
            .solve(pass, which, &self.inverse_masses, &mut self.velocities);
        self.pull_impulses(stores);
    }

    /// Hands the impulses the sweeps changed to the exact solve (before it solves).
    pub(super) fn push_impulses(&mut self, stores: &mut Stores) {
        for &s in &self.store_order {
            stores[s].push_direct(&mut self.direct);
        }
    }

    /// Reads the exact solve's impulses back into the constraints (after it solved).
    pub(super) fn pull_impulses(&mut self, stores: &mut Stores) {
        for &s in &self.store_order {
            stores[s].pull_direct(&self.direct);
        }
    }

    /// One position projection of the acyclic islands `which` selects.
    pub(super) fn project(&mut self, stores: &mut Stores, which: Islands) {
        self.measure_island_errors(stores, true);
        self.direct
            .project(which, &self.inverse_masses, &mut self.poses);
    }

    /// Each acyclic island's summed squared error at the current poses into
    /// `island_errors`; with `rhs`, every stiff row's error also into the direct system as
    /// the projection's right-hand side (a guard's measurement after a projection needs
    /// only the sums: the rows are written again if another projection follows).
    pub(super) fn measure_island_errors(&mut self, stores: &mut Stores, rhs: bool) {
        self.islands.island_errors.clear();
        self.islands
            .island_errors
            .resize(self.direct.island_count(), 0.0);
        if rhs {
            self.direct.clear_reach();
        }
        for &s in &self.store_order {
            stores[s].position_errors(
                &self.poses,
                &mut self.direct,
                &mut self.islands.island_errors,
                rhs,
            );
        }
    }

    /// Undoes this substep's position corrections in every acyclic island whose summed
    /// squared error they made worse. Constraints that contradict each other (two welds holding one
    /// body at different angles, a joint pulling a body into a static one's limit) make an
    /// island's system nearly singular, and its projection would then fling bodies by any
    /// distance; an island whose constraints can be met is never reverted, since each
    /// projection shrinks its error.
    /// It measures the errors the corrections left (`island_errors`; `measured`: they are
    /// measured already) but writes no right-hand side: a projection after it measures
    /// again.
    pub(super) fn keep_projections_that_helped(&mut self, stores: &mut Stores, measured: bool) {
        if !measured {
            self.measure_island_errors(stores, false);
        }
        if !self.mark_worse_islands() {
            return;
        }
        // Levenberg–Marquardt from the poses before, on the islands made worse: each
        // iteration relinearises at the current poses and damps each constraint by
        // `damping · K`; a step that lowers an island's error is kept and its damping
        // relaxed, one that does not is undone and the damping raised.
        self.restart_worse_islands(stores);
        let mut active = false;
        for k in 0..self.islands.island_worse.len() {
            let worse = self.islands.island_worse[k];
            self.islands.lm_error[k] = self.islands.errors_before[k];
            self.islands.lm_damping[k] = if worse { LM_INITIAL_DAMPING } else { 0.0 };
            active |= worse;
        }
        for _ in 0..LM_ITERATIONS {
            if !active {
                break;
            }
            self.islands.lm_poses.clone_from(&self.poses);
            self.relinearize(stores);
            self.measure_island_errors(stores, true);
            self.direct.mark_islands(&self.islands.island_worse);
            self.direct
                .project(Islands::Marked, &self.inverse_masses, &mut self.poses);
            self.measure_island_errors(stores, false);
            active = false;
            for k in 0..self.islands.island_worse.len() {
                if !self.islands.island_worse[k] {
                    continue;
                }
                let error = self.islands.island_errors[k];
                if error < self.islands.lm_error[k] {
                    self.islands.lm_error[k] = error;
                    self.islands.lm_damping[k] *= 0.1;
                    self.islands.island_worse[k] = error > LM_TOLERANCE;
                } else {
                    for (b, &island) in self.islands.body_island.iter().enumerate() {
                        if island as usize == k {
                            self.poses[b] = self.islands.lm_poses[b];
                        }
                    }
                    self.islands.lm_damping[k] =
                        (self.islands.lm_damping[k] * 10.0).max(LM_INITIAL_DAMPING);
                    self.islands.island_worse[k] = self.islands.lm_damping[k] <= LM_MAX_DAMPING;
                }
                active |= self.islands.island_worse[k];
            }
        }
        // Later exact solves of this substep (a finishing substep's velocity solve, the
        // relax pass) need the undamped rows, and the step's body impulses what they
        // apply through them.
        self.islands.lm_damping.fill(0.0);
        self.rebase_exact_rows(stores, None);
        // The errors at the poses kept, for whatever reads them next (a RATTLE substep's
        // start).
        self.measure_island_errors(stores, false);
    }

    /// Moves the exact solve's constraints to `J` at the current poses within a substep
    /// (`ErasedStore::rebase_exact_rows`) and refactors.
    pub(super) fn rebase_exact_rows(&mut self, stores: &mut Stores, spring_kick: Option<f32>) {
        for &s in &self.store_order {
            stores[s].rebase_exact_rows(
                &self.poses,
                &mut self.velocities,
                &mut self.direct,
                spring_kick,
            );
        }
        self.direct.factor(Islands::All, &self.inverse_masses);
    }

    /// Marks (for [`Islands::Marked`]) the acyclic islands whose error is now worse than
    /// before this substep's projection; returns whether there are any.
    pub(super) fn mark_worse_islands(&mut self) -> bool {
        self.direct.clear_marks();
        let mut any = false;
        for (k, (&after, &before)) in self
            .islands
            .island_errors
            .iter()
            .zip(&self.islands.errors_before)
            .enumerate()
        {
            // An island with a non-finite error before has nothing to measure a
            // correction against: it keeps its poses.
            let worse =
                !(before.is_finite() && after <= before * (1.0 + REVERT_MARGIN) + REVERT_FLOOR);
            self.islands.island_worse[k] = worse;
            any |= worse;
        }
        if any {
            self.direct.mark_islands(&self.islands.island_worse);
        }
        any
    }

    /// Puts the bodies of the islands marked worse back where they were before this
    /// substep's projection.
    pub(super) fn restart_worse_islands(&mut self, stores: &mut Stores) {
        for (b, &island) in self.islands.body_island.iter().enumerate() {
            if island != NONE && self.islands.island_worse[island as usize] {
                self.poses[b] = self.islands.projection_start[b];
                self.velocities[b] = self.islands.velocity_start[b];
            }
        }
        for &s in &self.store_order {
            stores[s].undo_limit_impulses(&self.direct, &self.islands.island_worse);
        }
        if self.direct.restore_impulses(&self.islands.island_worse) {
            self.pull_impulses(stores);
        }
    }

    /// Rewrites and refactors the rows of every acyclic island at the current poses, each
    /// island damped by its `lm_damping`, for a Levenberg–Marquardt iteration's projection
    /// (the constraints' own Jacobians stay; the restart ends with
    /// [`rebase_exact_rows`](Self::rebase_exact_rows)).
    pub(super) fn relinearize(&mut self, stores: &mut Stores) {
        for &s in &self.store_order {
            stores[s].relinearize(
                &self.poses,
                &self.velocities,
                &mut self.direct,
                &self.islands.lm_damping,
            );
        }
        self.direct.factor(Islands::All, &self.inverse_masses);
    }
}
