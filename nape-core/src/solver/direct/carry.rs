//! Carries: factors and impulses kept from one step to the next, and the claims that keep them.

use super::*;

impl DirectSystem {
    /// What island `k` carries into the next step.
    #[cfg(test)]
    pub(crate) fn island_carry(&self, k: usize) -> Carry {
        self.carry[k]
    }

    /// Whether some island keeps its factor for the next step.
    pub(crate) fn any_kept(&self) -> bool {
        self.carry.contains(&Carry::Kept)
    }

    /// What the island of the constraint at `slot` carries into this step.
    pub(crate) fn carry_of(&self, slot: &DirectSlot) -> Carry {
        self.carry[self.island_of[slot.node as usize] as usize]
    }

    /// After a rebuild, each constraint of an acyclic island says whether it was
    /// `carried`; an island all of whose constraints were becomes [`Carry::Restored`]
    /// ([`settle_claims`](Self::settle_claims)), in whatever order they say so.
    pub(crate) fn claim_carry(&mut self, slot: &DirectSlot, carried: bool) {
        let carry = &mut self.carry[self.island_of[slot.node as usize] as usize];
        *carry = match (*carry, carried) {
            (_, false) | (Carry::Vetoed, _) => Carry::Vetoed,
            _ => Carry::Restored,
        };
    }

    /// What every island carries into this step, for
    /// [`restart_carries`](Self::restart_carries).
    pub(crate) fn carries(&self, out: &mut Vec<Carry>) {
        out.clone_from(&self.carry);
    }

    /// The islands `retaken` flags start their step again from what they carried into it
    /// (`start`, of [`carries`](Self::carries)): a kept factor is gone by now (the step
    /// factorised again), so it is rebuilt from the rows its constraints kept, bit for bit
    /// ([`Carry::Restored`]).
    pub(crate) fn restart_carries(&mut self, start: &[Carry], retaken: &[bool]) {
        for ((carry, &kept), &retake) in self.carry.iter_mut().zip(start).zip(retaken) {
            if retake {
                *carry = match kept {
                    Carry::Kept | Carry::Restored => Carry::Restored,
                    Carry::None | Carry::Vetoed => Carry::None,
                };
            }
        }
    }

    /// Ends the claims of [`claim_carry`](Self::claim_carry).
    pub(crate) fn settle_claims(&mut self) {
        for carry in &mut self.carry {
            if *carry == Carry::Vetoed {
                *carry = Carry::None;
            }
        }
    }

    /// A constraint of the island of `slot` does not start from its carried rows: the
    /// island is factorised anew.
    pub(crate) fn veto_carry(&mut self, slot: &DirectSlot) {
        let k = self.island_of[slot.node as usize] as usize;
        if self.carry[k] != Carry::None {
            self.carry[k] = Carry::Vetoed;
        }
    }

    /// Keeps the factor of every active island for which `keep` holds (by island index),
    /// with the inverse masses it was built with (`inverse_masses`, which the carried
    /// solve applies its impulses with: a body's weights change from step to step, and
    /// applied with others the impulses would miss the rows by that change); forgets it
    /// for the other active islands.
    pub(crate) fn keep_factors(
        &mut self,
        keep: impl Fn(usize) -> bool,
        inverse_masses: &[InverseMass],
    ) {
        for k in 0..self.islands.len() {
            if !self.active[k] {
                continue;
            }
            self.carry[k] = if keep(k) { Carry::Kept } else { Carry::None };
            if self.carry[k] == Carry::Kept {
                for &b in &self.island_bodies[self.island_body_ranges[k].clone()] {
                    self.carried_masses[b as usize] = inverse_masses[b as usize];
                }
            }
        }
    }

    /// Forgets the carried factors of the active islands (also a veto's).
    pub(crate) fn drop_carries(&mut self) {
        for (carry, &active) in self.carry.iter_mut().zip(&self.active) {
            if active {
                *carry = Carry::None;
            }
        }
    }

    /// The biases of the carried rows of the constraint at `slot` (its `J v − J₁ v` and
    /// the kinematic bodies' share through `J₁`), its accumulated impulse zero.
    pub(crate) fn set_carried_bias(&mut self, slot: &DirectSlot, bias: &[f32]) {
        let at = self.supers[slot.node as usize].row_offset + slot.row as usize;
        for ((target, lambda), &b) in self.bias[0][at..at + bias.len()]
            .iter_mut()
            .zip(&mut self.lambda[at..at + bias.len()])
            .zip(bias)
        {
            *target = f64::from(b);
            *lambda = 0.0;
        }
    }

    /// The inverse mass of `body` when a [`Carry::Restored`] island was factorised.
    pub(crate) fn set_carried_mass(&mut self, body: usize, inverse: InverseMass) {
        self.carried_masses[body] = inverse;
    }

    /// Factorises the [`Carry::Restored`] islands with the inverse masses their
    /// constraints kept, which makes them [`Carry::Kept`].
    pub(crate) fn factor_restored(&mut self) {
        if !self.carry.contains(&Carry::Restored) {
            return;
        }
        let masses = std::mem::take(&mut self.carried_masses);
        for k in 0..self.islands.len() {
            if self.active[k] && self.carry[k] == Carry::Restored {
                self.factor_island(k, &masses);
                self.carry[k] = Carry::Kept;
            }
        }
        self.carried_masses = masses;
    }

    /// Keeps the accumulated impulses, for [`restore_impulses`](Self::restore_impulses)
    /// to undo a [`project_as_impulse`](Self::project_as_impulse) that made an island
    /// worse.
    pub(crate) fn save_impulses(&mut self) {
        self.saved_lambda.clone_from(&self.lambda);
        self.impulses_saved = true;
    }

    /// Keeps the positional errors last measured (the projection's right-hand side) as
    /// what [`project_as_impulse`](Self::project_as_impulse) leaves.
    /// Only the islands `which` flags keep theirs; the others start from zero, their
    /// position solve taking away what is left too.
    pub(crate) fn keep_start_errors(&mut self, which: &[bool]) {
        // Taken out while the rows are read from `self`.
        let mut start_error = std::mem::take(&mut self.start_error);
        start_error.clear();
        start_error.resize(self.bias[2].len(), 0.0);
        for (k, _) in which.iter().enumerate().filter(|(_, w)| **w) {
            for rows in self.island_rows(k) {
                start_error[rows.clone()].copy_from_slice(&self.bias[2][rows]);
            }
        }
        self.start_error = start_error;
    }

    /// The ranges of island `k`'s rows in the per-row arrays, one per super node.
    fn island_rows(&self, k: usize) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        self.runs[self.island_runs[k].clone()]
            .iter()
            .flat_map(|run| &self.nodes[run.nodes.clone()])
            .filter_map(|node| match node.kind {
                NodeKind::Super(s) => {
                    let sn = &self.supers[s as usize];
                    Some(sn.row_offset..sn.row_offset + sn.rows)
                }
                NodeKind::Body(_) => None,
            })
            .chain(self.loop_rows(k))
    }

    /// Forgets what [`save_impulses`](Self::save_impulses) kept: the projection to come
    /// applies no impulse.
    pub(crate) fn forget_saved_impulses(&mut self) {
        self.impulses_saved = false;
    }

    /// Puts back the accumulated impulses [`save_impulses`](Self::save_impulses) kept, in
    /// the islands `which` flags; returns whether any were kept (they are then forgotten).
    pub(crate) fn restore_impulses(&mut self, which: &[bool]) -> bool {
        if !std::mem::take(&mut self.impulses_saved) {
            return false;
        }
        let mut lambda = std::mem::take(&mut self.lambda);
        for (k, _) in which.iter().enumerate().filter(|(_, w)| **w) {
            for rows in self.island_rows(k) {
                lambda[rows.clone()].copy_from_slice(&self.saved_lambda[rows]);
            }
        }
        self.lambda = lambda;
        true
    }
}
