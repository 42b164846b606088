//! One joint's rows within one substep, through the public [`Constraint`] methods only:
//! the soft-step scheme of Box2D v3 (warm start, a biased solve before Avian integrates
//! positions, an unbiased relax after), with nape's settings (stiff or soft rows,
//! limits, `max_force`, `max_error`, breaking).

// Rows, slots and envelope columns are indices into several arrays at once.
#![allow(clippy::needless_range_loop)]

use nape::{
    BreakCause, Constraint, ConstraintSettings, InverseMass, Pose, SharedSlots, SoftStep, Velocity,
};

/// Which side of a row's bounds the row works against this substep.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Side {
    /// `c = min = max`.
    #[default]
    Equality,
    /// `c ≥ min`: the impulse only pushes `c` up.
    Lower,
    /// `c ≤ max`: the impulse only pushes `c` down.
    Upper,
}

/// A rigid row's update: it removes its error within one substep of `h`.
fn rigid(h: f32) -> SoftStep {
    SoftStep {
        bias_rate: 1.0 / h,
        mass_scale: 1.0,
        impulse_scale: 0.0,
    }
}

/// A joint's rows prepared for one substep, and the impulse it carries between substeps
/// and steps (the warm start).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rows<J, const D: usize> {
    jacobian: J,
    mass: [[f32; D]; D],
    /// `c` minus the bound each row works against.
    error: [f32; D],
    side: [Side; D],
    velocity_bias: [f32; D],
    /// The accumulated impulse, N·s per row unit.
    pub(crate) impulse: [f32; D],
    h: f32,
    /// A break found this substep, reported once the step ends.
    pub(crate) broken: Option<(BreakCause, f32, f32)>,
}

impl<J: Default, const D: usize> Default for Rows<J, D> {
    fn default() -> Self {
        Self {
            jacobian: J::default(),
            mass: [[0.0; D]; D],
            error: [0.0; D],
            side: [Side::Equality; D],
            velocity_bias: [0.0; D],
            impulse: [0.0; D],
            h: 0.0,
            broken: None,
        }
    }
}

/// What the rows of one constraint need from their bodies this substep.
pub(crate) struct Bodies<'a, const B: usize> {
    pub(crate) poses: &'a [Pose; B],
    pub(crate) inverse_masses: &'a [InverseMass; B],
    pub(crate) slot_index: &'a [usize; B],
    pub(crate) shared: SharedSlots,
}

impl<J: Copy + Default, const D: usize> Rows<J, D> {
    /// Computes `J`, `K` and the error at this substep's poses, checks `break_under_error`,
    /// and applies the carried impulse scaled by `warm_start` (Avian's
    /// `warm_start_coefficient`).
    pub(crate) fn prepare<C, const B: usize>(
        &mut self,
        constraint: &C,
        settings: &ConstraintSettings,
        bodies: &Bodies<'_, B>,
        velocities: &mut [Velocity],
        h: f32,
        warm_start: f32,
    ) where
        C: Constraint<D, B, Jacobian = J>,
    {
        self.h = h;
        self.measure(constraint, bodies, true);
        let violated = self.violation();
        if !C::VELOCITY_ONLY && settings.break_under_error && violated > settings.max_error {
            self.broken = Some((BreakCause::Error, violated, settings.max_error));
        }
        for lambda in &mut self.impulse {
            *lambda *= warm_start;
        }
        if self.broken.is_none() {
            self.apply(constraint, bodies, &self.impulse.clone(), velocities);
        }
    }

    /// `J`, `K` and each row's error at `bodies.poses`. A row may change the side of its
    /// bounds it works against only when `choose_sides` (at a substep's start), and then
    /// starts that side without a warm start.
    pub(crate) fn measure<C, const B: usize>(
        &mut self,
        constraint: &C,
        bodies: &Bodies<'_, B>,
        choose_sides: bool,
    ) where
        C: Constraint<D, B, Jacobian = J>,
    {
        self.jacobian = constraint.jacobian(bodies.poses);
        self.mass = constraint.effective_mass(&self.jacobian, bodies.inverse_masses, bodies.shared);
        if C::VELOCITY_ONLY {
            self.velocity_bias = constraint.velocity_bias(&self.jacobian);
            return;
        }
        let c = constraint.position_error(bodies.poses);
        let bounds = constraint.bounds();
        for i in 0..D {
            let side = if !choose_sides {
                self.side[i]
            } else if bounds[i].is_equality() {
                Side::Equality
            } else if c[i] - bounds[i].min <= bounds[i].max - c[i] {
                Side::Lower
            } else {
                Side::Upper
            };
            if side != self.side[i] {
                self.impulse[i] = 0.0;
            }
            self.side[i] = side;
            self.error[i] = match side {
                Side::Equality | Side::Lower => c[i] - bounds[i].min,
                Side::Upper => c[i] - bounds[i].max,
            };
        }
    }

    /// One velocity pass: with the position bias (`biased`, before Avian integrates
    /// positions) or without it (the relax after). Soft, speculative and velocity-only
    /// rows keep their targets in both passes. `mesh`: the soft step of a stiff joint in
    /// a mesh the exact solve does not take ([`nape::ExactSolver::mesh_step`]), for its
    /// biased pass.
    pub(crate) fn solve<C, const B: usize>(
        &mut self,
        constraint: &C,
        settings: &ConstraintSettings,
        bodies: &Bodies<'_, B>,
        velocities: &mut [Velocity],
        biased: bool,
        mesh: Option<SoftStep>,
    ) where
        C: Constraint<D, B, Jacobian = J>,
    {
        if self.broken.is_some() {
            return;
        }
        let spring = !settings.stiff && !C::VELOCITY_ONLY;
        let substep_start_error = self.error;
        if !biased {
            // Avian has integrated positions since the biased solve: the relax leaves
            // velocities that the joint's rows at the new poses accept.
            self.measure(constraint, bodies, false);
        }
        // A spring's implicit step is the biased solve's: the relax aims at the same
        // error, so that it converges to the same impulse instead of stepping again.
        let aim = if spring {
            substep_start_error
        } else {
            self.error
        };
        let softness = match mesh {
            Some(mesh) if biased && !spring => mesh,
            _ if settings.stiff || C::VELOCITY_ONLY => rigid(self.h),
            _ => settings.soft_step(self.h),
        };
        let softened = spring || (mesh.is_some() && biased);
        let mut bias = [0.0; D];
        for i in 0..D {
            bias[i] = if C::VELOCITY_ONLY {
                self.velocity_bias[i]
            } else if !is_violated(self.side[i], aim[i]) {
                // Speculative: the row may close its gap within this substep, no more.
                aim[i] / self.h
            } else if spring || biased {
                softness.bias_rate * aim[i]
            } else {
                0.0
            };
        }
        if spring {
            clamp_length(&mut bias, settings.max_error);
        }
        let (mass_scale, impulse_scale) = if softened {
            (softness.mass_scale, softness.impulse_scale)
        } else {
            (1.0, 0.0)
        };
        let velocity_error =
            constraint.velocity_error(&self.jacobian, bodies.slot_index, velocities);
        // What the bodies have received so far of the impulse.
        let applied = if self.side.iter().all(|&s| s == Side::Equality) {
            let rhs: [f32; D] = std::array::from_fn(|i| -(velocity_error[i] + bias[i]));
            let delta = solve_dense(&self.mass, rhs);
            let old = self.impulse;
            for i in 0..D {
                self.impulse[i] += mass_scale * delta[i] - impulse_scale * self.impulse[i];
            }
            old
        } else {
            self.solve_rows_one_by_one(
                constraint,
                bodies,
                velocities,
                &bias,
                mass_scale,
                impulse_scale,
            );
            self.impulse
        };
        let limit = settings.max_force * self.h;
        let length = self.impulse.iter().map(|x| x * x).sum::<f32>().sqrt();
        if settings.break_under_force && length > limit {
            self.broken = Some((BreakCause::Force, length / self.h, settings.max_force));
        }
        if spring || C::VELOCITY_ONLY {
            clamp_length(&mut self.impulse, limit);
        }
        let rest: [f32; D] = std::array::from_fn(|i| self.impulse[i] - applied[i]);
        self.apply(constraint, bodies, &rest, velocities);
    }

    /// Projected Gauss–Seidel over the rows, for constraints with inequality rows.
    fn solve_rows_one_by_one<C, const B: usize>(
        &mut self,
        constraint: &C,
        bodies: &Bodies<'_, B>,
        velocities: &mut [Velocity],
        bias: &[f32; D],
        mass_scale: f32,
        impulse_scale: f32,
    ) where
        C: Constraint<D, B, Jacobian = J>,
    {
        for i in 0..D {
            if self.mass[i][i] <= f32::EPSILON {
                continue;
            }
            let velocity_error =
                constraint.velocity_error(&self.jacobian, bodies.slot_index, velocities)[i];
            let delta = -mass_scale * (velocity_error + bias[i]) / self.mass[i][i]
                - impulse_scale * self.impulse[i];
            let old = self.impulse[i];
            self.impulse[i] = match self.side[i] {
                Side::Equality => old + delta,
                Side::Lower => (old + delta).max(0.0),
                Side::Upper => (old + delta).min(0.0),
            };
            let mut row = [0.0; D];
            row[i] = self.impulse[i] - old;
            self.apply(constraint, bodies, &row, velocities);
        }
    }

    fn apply<C, const B: usize>(
        &self,
        constraint: &C,
        bodies: &Bodies<'_, B>,
        impulse: &[f32; D],
        velocities: &mut [Velocity],
    ) where
        C: Constraint<D, B, Jacobian = J>,
    {
        constraint.apply_impulse(
            &self.jacobian,
            impulse,
            bodies.inverse_masses,
            bodies.slot_index,
            velocities,
        );
    }

    /// The world impulse of the carried `λ` on each slot, `Jᵀλ` (N·s, N·m·s).
    pub(crate) fn slot_impulses<C, const B: usize>(&self, constraint: &C) -> [Velocity; B]
    where
        C: Constraint<D, B, Jacobian = J>,
    {
        let distinct: [usize; B] = std::array::from_fn(|s| s);
        let mut out = [Velocity::default(); B];
        constraint.apply_impulse(
            &self.jacobian,
            &self.impulse,
            &[InverseMass::UNIT; B],
            &distinct,
            &mut out,
        );
        out
    }

    /// `J` dense (`rows[i][s]`) and each row's error: what the exact solve takes.
    pub(crate) fn exported<C, const B: usize>(
        &self,
        constraint: &C,
    ) -> ([[[f32; 3]; B]; D], [f32; D])
    where
        C: Constraint<D, B, Jacobian = J>,
    {
        (constraint.jacobian_rows(&self.jacobian), self.error)
    }

    /// Whether the rows are stiff equalities, which the exact island solve takes.
    pub(crate) fn is_exact<C: Constraint<D, B>, const B: usize>(
        settings: &ConstraintSettings,
        constraint: &C,
    ) -> bool {
        settings.stiff
            && !C::VELOCITY_ONLY
            && constraint.bounds().iter().all(nape::Bounds::is_equality)
    }

    /// Records a break under force if the carried impulse exceeds `max_force` (for rows
    /// whose impulse the exact solve computed).
    pub(crate) fn check_force(&mut self, settings: &ConstraintSettings) {
        let length = self.impulse.iter().map(|x| x * x).sum::<f32>().sqrt();
        if settings.break_under_force && self.h > 0.0 && length > settings.max_force * self.h {
            self.broken = Some((BreakCause::Force, length / self.h, settings.max_force));
        }
    }

    /// The substep length the rows were prepared with, in s.
    pub(crate) fn substep(&self) -> f32 {
        self.h
    }

    /// The positional error of the violated rows (m or rad, the rows' units).
    pub(crate) fn violation(&self) -> f32 {
        (0..D)
            .filter(|&i| is_violated(self.side[i], self.error[i]))
            .map(|i| self.error[i] * self.error[i])
            .sum::<f32>()
            .sqrt()
    }
}

/// Whether a row's error is outside its bounds (an equality always is, even at zero).
fn is_violated(side: Side, error: f32) -> bool {
    match side {
        Side::Equality => true,
        Side::Lower => error <= 0.0,
        Side::Upper => error >= 0.0,
    }
}

fn clamp_length<const D: usize>(v: &mut [f32; D], max: f32) {
    let length = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if length > max {
        let scale = max / length;
        for x in v {
            *x *= scale;
        }
    }
}

/// `K⁻¹·rhs` by Gaussian elimination with partial pivoting; a row whose pivot vanishes
/// (a body the joint cannot move, a degenerate direction) gets no impulse.
fn solve_dense<const D: usize>(k: &[[f32; D]; D], rhs: [f32; D]) -> [f32; D] {
    let mut a = *k;
    let mut b = rhs;
    let scale = (0..D).map(|i| k[i][i].abs()).fold(0.0, f32::max);
    let tiny = scale * 1e-7 + f32::MIN_POSITIVE;
    let mut usable = [true; D];
    for col in 0..D {
        let pivot = (col..D)
            .max_by(|&r, &s| a[r][col].abs().total_cmp(&a[s][col].abs()))
            .unwrap_or(col);
        if a[pivot][col].abs() <= tiny {
            usable[col] = false;
            continue;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for r in col + 1..D {
            let f = a[r][col] / a[col][col];
            for c in col..D {
                a[r][c] -= f * a[col][c];
            }
            b[r] -= f * b[col];
        }
    }
    let mut x = [0.0; D];
    for col in (0..D).rev() {
        if !usable[col] {
            continue;
        }
        let tail: f32 = (col + 1..D).map(|c| a[col][c] * x[c]).sum();
        x[col] = (b[col] - tail) / a[col][col];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_solve_inverts_a_symmetric_matrix() {
        let k = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]];
        let x = solve_dense(&k, [1.0, 2.0, 3.0]);
        for (row, want) in k.iter().zip([1.0, 2.0, 3.0]) {
            let got: f32 = row.iter().zip(x).map(|(a, b)| a * b).sum();
            assert!((got - want).abs() < 1e-5, "{got} vs {want}");
        }
    }

    #[test]
    fn dense_solve_gives_no_impulse_to_a_vanishing_row() {
        let x = solve_dense(&[[2.0, 0.0], [0.0, 0.0]], [4.0, 1.0]);
        assert_eq!(x, [2.0, 0.0]);
    }
}
