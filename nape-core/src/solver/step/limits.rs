//! The exact solve's active set of limit rows and force-limited constraints.

use super::*;

impl Solver {
    /// The exact solve's active set: after the solve, limit rows whose impulse pulls leave
    /// it and rows the velocities drive across their bounds join it, force-limited
    /// constraints whose impulse came out beyond their bound are fixed on it and leave it
    /// (and rejoin when they would come back inside), and the islands that changed are
    /// factored and solved again, for up to [`ACTIVE_SET_ROUNDS`] rounds (what is left
    /// after them waits for the next substep).
    pub(super) fn settle_active_set(&mut self, stores: &mut Stores, pass: usize) {
        for _ in 0..ACTIVE_SET_ROUNDS {
            self.direct.clear_marks();
            let mut changed = false;
            for &s in &self.store_order {
                changed |= stores[s].update_active_rows(&mut self.direct, &mut self.velocities);
            }
            if !changed {
                return;
            }
            self.direct.promote();
            self.direct.factor(Islands::Marked, &self.inverse_masses);
            self.exact_solve(stores, pass, Islands::Marked);
        }
    }
}
