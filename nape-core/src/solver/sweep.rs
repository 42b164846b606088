//! The Gauss–Seidel update of one entry: limited rows and the commit of a new impulse.

use super::*;

impl<T: Constraint<D, B>, const D: usize, const B: usize> Store<T, D, B> {
    /// [`solve_entry`](Self::solve_entry) for an entry with active inequality rows: the
    /// equality rows as one block, then each inequality row alone, clamped to push only.
    pub(super) fn solve_limited(
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

    /// [`commit`](Self::commit) with the difference `delta = new − old` (weighted space)
    /// already known, so that applying it need not wait for `new`.
    #[inline(always)]
    pub(super) fn commit_delta(
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
        if e.reads_cold {
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
