//! The rows of the joint system: Jacobians, compliance, errors and impulses, written per constraint.

use super::*;

impl DirectSystem {
    /// Makes every row inactive (no Jacobian, unit compliance, so its impulse stays zero)
    /// until its constraint writes it. A rebuild leaves the rows so; within a step each
    /// constraint clears its own rows before it writes them ([`clear_rows`](Self::clear_rows)),
    /// where they are in cache anyway, instead of a pass over every array.
    pub(crate) fn reset_rows(&mut self) {
        self.jacobian.fill(0.0);
        self.gamma.fill(0.0);
        self.mass.fill(0.0);
        for b in &mut self.bias {
            b.fill(0.0);
        }
        self.lambda.fill(0.0);
        for s in &self.supers {
            for r in 0..s.rows {
                self.gamma[s.gamma_offset + r * s.rows + r] = 1.0;
            }
        }
    }

    /// Writes one active row `row` of the constraint at `slot`: its Jacobian on each slot
    /// (`[x, y, θ]`, already weighted), the biases of both passes, and its accumulated
    /// impulse, with no compliance; the super node's block is then formed from `J`. Slots
    /// holding the same body add.
    pub(crate) fn set_row(
        &mut self,
        slot: &DirectSlot,
        row: usize,
        jacobian: &[[f32; 3]],
        bias: [f32; 2],
        lambda: f32,
    ) {
        // Rows written by `J` alone: the block comes from `J` too.
        self.supers[slot.node as usize].from_mass = false;
        let s = &self.supers[slot.node as usize];
        let r = slot.row as usize + row;
        let stride = s.body_count * 3;
        let at = s.jacobian_offset + r * stride;
        // Summed in registers and stored once: adding into the stored zeros waited on
        // each store of them.
        let mut row_jacobian = [0.0; 3 * MAX_BODIES];
        for (j, &p) in jacobian.iter().zip(&slot.positions) {
            if p == u8::MAX {
                continue;
            }
            let p = p as usize * 3;
            for (t, j) in row_jacobian[p..p + 3].iter_mut().zip(j) {
                *t += f64::from(*j);
            }
        }
        self.jacobian[at..at + stride].copy_from_slice(&row_jacobian[..stride]);
        let at = s.row_offset + r;
        self.bias[0][at] = f64::from(bias[0]);
        self.bias[1][at] = f64::from(bias[1]);
        self.lambda[at] = f64::from(lambda);
        self.gamma[s.gamma_offset + r * s.rows + r] = 0.0;
    }

    /// Writes every row of the constraint at `slot`: those `rows` marks written as
    /// [`set_row`](Self::set_row) does one by one, with the compliance between them, and
    /// the others inactive, as [`clear_rows`](Self::clear_rows) leaves them. Every row's
    /// projection error is cleared (the projection measures it when it runs). Only the
    /// columns of the constraint's own slots are written: the others stay zero from the
    /// rebuild.
    #[inline]
    pub(crate) fn set_rows<const D: usize, const B: usize>(
        &mut self,
        slot: &DirectSlot,
        rows: &ExactRows<D, B>,
    ) {
        let Self {
            supers,
            jacobian,
            gamma,
            mass,
            bias,
            lambda,
            ..
        } = self;
        let s = &supers[slot.node as usize];
        let first = slot.row as usize;
        let stride = s.body_count * 3;
        let at = s.jacobian_offset + first * stride;
        let jacobian = &mut jacobian[at..at + D * stride];
        let at = s.row_offset + first;
        let [biased, relaxed, projected] = bias;
        let (biased, relaxed) = (&mut biased[at..at + D], &mut relaxed[at..at + D]);
        let (projected, lambda) = (&mut projected[at..at + D], &mut lambda[at..at + D]);
        for i in 0..D {
            let written = rows.written[i];
            let row = &mut jacobian[i * stride..(i + 1) * stride];
            for ((j, &p), &first_slot) in rows.jacobian[i]
                .iter()
                .zip(&slot.positions)
                .zip(&rows.first_slot)
            {
                if p == u8::MAX {
                    continue;
                }
                let p = p as usize * 3;
                let target = &mut row[p..p + 3];
                let j = if written { *j } else { [0.0; 3] };
                if first_slot {
                    target.copy_from_slice(&j);
                } else {
                    target.iter_mut().zip(&j).for_each(|(t, j)| *t += j);
                }
            }
            let (b, l) = if written {
                (rows.bias[i].map(f64::from), f64::from(rows.lambda[i]))
            } else {
                ([0.0; 2], 0.0)
            };
            biased[i] = b[0];
            relaxed[i] = b[1];
            projected[i] = 0.0;
            lambda[i] = l;
        }
        let at = s.gamma_offset + first * s.rows + first;
        for i in 0..D {
            let row = &mut gamma[at + i * s.rows..at + i * s.rows + D];
            let masses = &mut mass[at + i * s.rows..at + i * s.rows + D];
            for (j, (g, k)) in row.iter_mut().zip(masses).enumerate() {
                let both = rows.written[i] && rows.written[j];
                *g = if both {
                    f64::from(rows.compliance[i][j])
                } else if i == j {
                    1.0
                } else {
                    0.0
                };
                *k = if both {
                    f64::from(rows.mass[i][j])
                } else {
                    0.0
                };
            }
        }
    }

    /// The arrays of the constraint at `slot`, to write every one of its `D` rows in place
    /// (as [`set_rows`](Self::set_rows) would), if its super node is that constraint alone
    /// with its `B` bodies in slot order (so each slot is the first holding its body).
    #[inline]
    pub(crate) fn whole_rows<const D: usize, const B: usize>(
        &mut self,
        slot: &DirectSlot,
    ) -> Option<WholeRows<'_>> {
        let s = &self.supers[slot.node as usize];
        let whole = slot.row == 0
            && s.rows == D
            && s.body_count == B
            && slot.positions[..B]
                .iter()
                .enumerate()
                .all(|(p, &q)| q as usize == p);
        if !whole {
            return None;
        }
        let (rows, blocks) = (
            s.row_offset..s.row_offset + D,
            s.gamma_offset..s.gamma_offset + D * D,
        );
        let [biased, relaxed, projected] = &mut self.bias;
        Some(WholeRows {
            jacobian: &mut self.jacobian[s.jacobian_offset..s.jacobian_offset + D * B * 3],
            biased: &mut biased[rows.clone()],
            relaxed: &mut relaxed[rows.clone()],
            projected: &mut projected[rows.clone()],
            lambda: &mut self.lambda[rows],
            compliance: &mut self.gamma[blocks.clone()],
            mass: &mut self.mass[blocks],
        })
    }

    /// Makes the `rows` rows of the constraint at `slot` inactive, as
    /// [`reset_rows`](Self::reset_rows) leaves them: before its constraint writes them for
    /// a substep, or rewrites them with another set of rows (the active set).
    pub(crate) fn clear_rows(&mut self, slot: &DirectSlot, rows: usize) {
        let s = &self.supers[slot.node as usize];
        let first = slot.row as usize;
        let stride = s.body_count * 3;
        let at = s.jacobian_offset + first * stride;
        self.jacobian[at..at + rows * stride].fill(0.0);
        let at = s.row_offset + first;
        for b in &mut self.bias {
            b[at..at + rows].fill(0.0);
        }
        self.lambda[at..at + rows].fill(0.0);
        for r in first..first + rows {
            for c in first..first + rows {
                self.gamma[s.gamma_offset + r * s.rows + c] = if r == c { 1.0 } else { 0.0 };
                self.mass[s.gamma_offset + r * s.rows + c] = 0.0;
            }
        }
    }

    /// Sets the compliance between rows `i` and `j` of the constraint at `slot`.
    #[cfg(test)]
    pub(crate) fn set_compliance(&mut self, slot: &DirectSlot, i: usize, j: usize, value: f32) {
        let s = &self.supers[slot.node as usize];
        let (i, j) = (slot.row as usize + i, slot.row as usize + j);
        self.gamma[s.gamma_offset + i * s.rows + j] = f64::from(value);
    }

    /// Sets the positional error that the projection removes from one row (0: leave it),
    /// and adds it to its island's reach.
    #[cfg(test)]
    pub(crate) fn set_position_error(&mut self, slot: &DirectSlot, row: usize, error: f32) {
        let mut errors = [0.0; 8];
        let mut written = [false; 8];
        errors[row] = error;
        written[row] = true;
        self.set_position_errors(slot, &errors[..=row], &written[..=row]);
    }

    /// Sets the biases of both passes of row `row` of the constraint at `slot`.
    pub(crate) fn set_biases(&mut self, slot: &DirectSlot, row: usize, bias: [f32; 2]) {
        let at = self.supers[slot.node as usize].row_offset + slot.row as usize + row;
        self.bias[0][at] = f64::from(bias[0]);
        self.bias[1][at] = f64::from(bias[1]);
    }

    /// Sets the positional errors that the projection removes from the rows `written` of
    /// the constraint at `slot` (row `i` takes `errors[i]`), and adds them to its island's
    /// reach, in row order. Its super node and island are looked up once.
    #[inline]
    pub(crate) fn set_position_errors(
        &mut self,
        slot: &DirectSlot,
        errors: &[f32],
        written: &[bool],
    ) {
        let at = self.supers[slot.node as usize].row_offset + slot.row as usize;
        let rhs = &mut self.bias[2][at..at + errors.len()];
        let reach = &mut self.reach[self.island_of[slot.node as usize] as usize];
        for ((target, &error), &write) in rhs.iter_mut().zip(errors).zip(written) {
            if write {
                let error = f64::from(error);
                *target = error;
                *reach += error.abs();
            }
        }
    }

    /// Starts every island's reach again from zero (before the errors are measured anew).
    pub(crate) fn clear_reach(&mut self) {
        self.reach.fill(0.0);
    }

    /// Reads the accumulated impulses of the rows `read` of the constraint at `slot` into
    /// `out` (row `i` into `out[i]`); its super node is looked up once.
    #[inline]
    pub(crate) fn read_impulses(&self, slot: &DirectSlot, read: &[bool], out: &mut [f32]) {
        let at = self.supers[slot.node as usize].row_offset + slot.row as usize;
        let lambda = &self.lambda[at..at + out.len()];
        for ((x, &l), &read) in out.iter_mut().zip(lambda).zip(read) {
            if read {
                *x = settle(l);
            }
        }
    }

    /// Sets the accumulated impulse of a row (after the iterative solver changed it).
    pub(crate) fn set_impulse(&mut self, slot: &DirectSlot, row: usize, value: f32) {
        let s = &self.supers[slot.node as usize];
        self.lambda[s.row_offset + slot.row as usize + row] = f64::from(value);
    }

    /// Adds to the accumulated impulse of a row (a correction applied outside the solve).
    pub(crate) fn add_impulse(&mut self, slot: &DirectSlot, row: usize, value: f32) {
        let s = &self.supers[slot.node as usize];
        self.lambda[s.row_offset + slot.row as usize + row] += f64::from(value);
    }
}
