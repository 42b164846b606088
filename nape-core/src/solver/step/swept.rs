//! One velocity pass: the exact solve of acyclic islands and the Gauss–Seidel sweeps of
//! the others, the last one preparing the coming substep.

use super::*;

impl Solver {
    /// One velocity pass (0: biased, 1: relax): the exact solve of acyclic islands (in the
    /// biased pass with its limit rows' active set), then the Gauss–Seidel sweeps.
    pub(super) fn solve_pass(
        &mut self,
        stores: &mut Stores,
        pass: usize,
        sweeps: u32,
        group: Group,
        ahead: Option<&Substep>,
    ) {
        // Exact rows have no positional bias (the projection corrects positions; a
        // speculative limit's allowance is the same in both passes), so after the biased
        // pass they already hold for the relax pass, except in the islands whose rows
        // the sweeps touched: only those are solved again.
        let direct = group == Group::Exact;
        if direct && pass == 0 {
            self.exact_solve(stores, pass, Islands::All);
            self.settle_active_set(stores, pass);
        }
        let swept = direct && {
            self.direct.clear_marks();
            for &s in &self.store_order {
                stores[s].push_direct(&mut self.direct);
            }
            self.direct.promote()
        };
        if direct && pass != 0 && swept {
            self.exact_solve(stores, pass, Islands::Marked);
        }
        for k in 0..sweeps {
            let last = pass == 1 && k + 1 == sweeps;
            if let (true, Some(substep)) = (last, ahead) {
                let mut ahead = Ahead {
                    substep,
                    poses: &self.poses,
                    warm_starts: &mut self.deferred_warm_starts,
                };
                for &s in &self.store_order {
                    stores[s].sweep_ahead(&mut self.velocities, &mut ahead, k == 0);
                }
                continue;
            }
            // The relax pass's first sweep of the swept group takes `J` where the bodies
            // now are (see `ErasedStore::sweep`).
            let relinearize_at =
                (pass == 1 && k == 0 && group == Group::Swept).then_some(self.poses.as_slice());
            for &s in &self.store_order {
                stores[s].sweep(pass, &mut self.velocities, last, group, relinearize_at);
            }
        }
        if swept && sweeps > 0 {
            // The limits pushed those islands' equality rows off: solve them exactly again
            // against the limits' impulses (block Gauss–Seidel).
            self.exact_solve(stores, pass, Islands::Marked);
        }
    }
}
