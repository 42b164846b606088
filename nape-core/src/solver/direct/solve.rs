//! Factorisation and the velocity solve of the marked or all islands.

use super::*;

impl DirectSystem {
    /// Factorises the system of every acyclic island for the rows written this substep,
    /// except those that start from a carried factor ([`Carry`]).
    pub(crate) fn factor(&mut self, which: Islands, inverse_masses: &[InverseMass]) {
        // Once here, so that the kernels index it unchecked (`kernels::item`).
        assert!(
            inverse_masses.len() >= self.body_span,
            "an inverse mass per body"
        );
        self.factorisations += 1;
        for k in 0..self.islands.len() {
            if !self.covers(which, k) || matches!(self.carry[k], Carry::Kept | Carry::Restored) {
                continue;
            }
            self.factor_island(k, inverse_masses);
        }
    }

    /// Factorises island `k` for the rows written.
    pub(super) fn factor_island(&mut self, k: usize, inverse_masses: &[InverseMass]) {
        // Every block of the island is complete before a child subtracts from it.
        let runs = self.island_runs[k].clone();
        for r in runs.clone() {
            kernels::diagonal(self, r, inverse_masses);
        }
        for r in runs {
            kernels::eliminate(self, r, inverse_masses);
        }
        self.factor_loops(k, inverse_masses);
    }

    /// One exact velocity pass (`pass` 0: biased, 1: relax): solves for `μ`, adds `Δv` to
    /// the velocities and `μ` to the accumulated impulses.
    pub(crate) fn solve(
        &mut self,
        pass: usize,
        which: Islands,
        inverse_masses: &[InverseMass],
        velocities: &mut [Velocity],
    ) {
        // Once here, so that the kernels index it unchecked (`kernels::item`).
        assert!(velocities.len() >= self.body_span, "a velocity per body");
        for k in 0..self.islands.len() {
            if !self.covers(which, k) {
                continue;
            }
            self.solve_island(k, pass, inverse_masses, velocities);
        }
    }

    /// [`solve`](Self::solve) of island `k`.
    fn solve_island(
        &mut self,
        k: usize,
        pass: usize,
        inverse_masses: &[InverseMass],
        velocities: &mut [Velocity],
    ) {
        let rows = kernels::VelocityRows { pass, velocities };
        self.substitute(k, &rows, true);
        if pass == 0 && self.carry[k] == Carry::Kept {
            // With the inverse masses of the carried factor.
            let masses = std::mem::take(&mut self.carried_masses);
            self.apply_velocities(k, &masses, velocities, false);
            self.carried_masses = masses;
        } else {
            self.apply_velocities(k, inverse_masses, velocities, false);
        }
    }

    /// `v += M⁻¹ Σ Jᵀμ` for island `k`, from `delta` or (`paired`) `paired_delta`.
    fn apply_velocities(
        &mut self,
        k: usize,
        inverse_masses: &[InverseMass],
        velocities: &mut [Velocity],
        paired: bool,
    ) {
        // Taken out while `apply` reads `self`.
        let mut rounding = std::mem::take(&mut self.velocity_rounding);
        self.apply(
            k,
            inverse_masses,
            paired,
            |b,
             dv: [f64; 3],
             (velocities, rounding): &mut (&mut [Velocity], &mut [KeptRounding])| {
                add_kept(&mut velocities[b], &mut rounding[b], dv);
            },
            &mut (velocities, &mut rounding[..]),
        );
        self.velocity_rounding = rounding;
    }

    /// The position projection of [`project`](Self::project) on the islands it marks,
    /// and in the same substitutions the exact velocity pass `pass` of [`solve`](Self::solve)
    /// on every active island (the marked ones' two right-hand sides share each
    /// substitution's loads and its chain of dependent operations; the others are solved
    /// alone). Both give what they give apart, bit for bit. Returns the count of
    /// factorisations so far: the velocities hold only while no other came after
    /// ([`factored_since`](Self::factored_since)).
    pub(crate) fn project_and_solve(
        &mut self,
        pass: usize,
        inverse_masses: &[InverseMass],
        poses: &mut [crate::types::WorldPose],
        velocities: &mut [Velocity],
    ) -> u64 {
        assert!(velocities.len() >= self.body_span, "a velocity per body");
        for k in 0..self.islands.len() {
            if !self.active[k] {
                continue;
            }
            if !self.marked[k] {
                self.solve_island(k, pass, inverse_masses, velocities);
                continue;
            }
            if self.has_loops(k) {
                // The loop rows take each right-hand side after its tree substitution.
                let rows = kernels::VelocityRows { pass, velocities };
                self.substitute(k, &rows, true);
                self.apply_velocities(k, inverse_masses, velocities, false);
                self.substitute(k, &kernels::PositionRows, false);
                self.apply_projection(k, inverse_masses, poses, false);
                continue;
            }
            let runs = self.island_runs[k].clone();
            let rows = kernels::VelocityRows { pass, velocities };
            for r in runs.clone() {
                kernels::forward_paired(self, r, &rows);
            }
            for r in runs.rev() {
                kernels::backward_paired(self, r);
            }
            self.apply_velocities(k, inverse_masses, velocities, false);
            self.apply_projection(k, inverse_masses, poses, true);
        }
        self.factorisations
    }

    /// Forgets what [`add_kept`] kept of the velocities' roundings: at a step's start,
    /// where the bodies hold their velocities in `f32`, so that a step from a snapshot
    /// is the step from the state it was taken of. Only the islands' bodies keep any
    /// (below `body_span`): a step of meshes alone clears nothing.
    pub(crate) fn forget_velocity_rounding(&mut self) {
        let span = self.body_span.min(self.velocity_rounding.len());
        self.velocity_rounding[..span].fill(KeptRounding::default());
    }

    /// How many factorisations there have been (see
    /// [`factored_since`](Self::factored_since)).
    pub(crate) fn factorisations(&self) -> u64 {
        self.factorisations
    }

    /// Whether a factorisation came after the one [`project_and_solve`](Self::project_and_solve)
    /// (or [`factorisations`](Self::factorisations)) returned `count` at.
    pub(crate) fn factored_since(&self, count: u64) -> bool {
        self.factorisations != count
    }

    /// The solve of island `k`'s whole system with the right-hand side `rows` gives, into
    /// `solution`, each super node's `Jᵀ μ` summed into its bodies' `delta` and, with
    /// `accumulate_impulses`, `μ` added to the accumulated impulses: the tree's
    /// substitution, then its loop rows ([`close_loops`](Self::close_loops)).
    pub(super) fn substitute(
        &mut self,
        k: usize,
        rows: &impl kernels::RowSource,
        accumulate_impulses: bool,
    ) {
        self.substitute_tree(k, rows, accumulate_impulses);
        self.close_loops(k, rows, accumulate_impulses);
    }

    /// Forward and backward substitution of island `k`'s tree with the right-hand side
    /// `rows` gives, into `solution`; the backward pass also sums each super node's `Jᵀ μ`
    /// into its bodies' `delta` and, with `accumulate_impulses`, adds `μ` to the
    /// accumulated impulses.
    pub(super) fn substitute_tree(
        &mut self,
        k: usize,
        rows: &impl kernels::RowSource,
        accumulate_impulses: bool,
    ) {
        let runs = self.island_runs[k].clone();
        for r in runs.clone() {
            kernels::forward(self, r, rows);
        }
        for r in runs.rev() {
            kernels::backward(self, r, accumulate_impulses);
        }
    }

    /// Calls `f(body, M⁻¹ Σ Jᵀμ)` once for every body of island `k` with the sums the
    /// backward substitution left in `delta` (`paired`: in `paired_delta`), clearing them:
    /// the contributions of all of a body's super nodes are summed first, in `f64`, so a
    /// body shared by two super nodes is moved once.
    pub(super) fn apply<S: ?Sized>(
        &mut self,
        k: usize,
        inverse_masses: &[InverseMass],
        paired: bool,
        mut f: impl FnMut(usize, [f64; 3], &mut S),
        state: &mut S,
    ) {
        let sums = if paired {
            &mut self.paired_delta
        } else {
            &mut self.delta
        };
        for &b in &self.island_bodies[self.island_body_ranges[k].clone()] {
            let b = b as usize;
            let sum = std::mem::take(&mut sums[b]);
            let inv = inverse_masses[b];
            let (m, i) = (f64::from(inv.mass), f64::from(inv.inertia));
            f(b, [m * sum[0], m * sum[1], i * sum[2]], state);
        }
    }
}
