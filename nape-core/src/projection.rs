//! The global position projection: one exact Newton step on every stiff positional row at
//! once, before the position iterations.
//!
//! Gauss–Seidel (the position iterations) removes only a few percent of the error per sweep
//! on a long chain under tension, because each joint's correction is undone by its
//! neighbours'. Solving `J' M⁻¹ J'ᵀ Δ = −C'` for all rows together removes the error in one
//! step (up to the constraints' curvature); the position iterations then polish. The matrix
//! is sparse — two rows interact only through a shared body — and is factorised in
//! envelope (skyline) form, where a chain is banded and costs O(rows).

use crate::constraint::{InverseMass, Pose};

/// One row: its error, its Jacobian entries per body, and whether it may only push.
struct Row {
    error: f32,
    inequality: bool,
    /// Range in [`PositionSystem::terms`].
    terms: std::ops::Range<usize>,
}

/// A row's coefficients on one body: `J'` entries for `x, y, θ` and the body's inverse mass.
#[derive(Clone, Copy)]
struct Term {
    body: usize,
    jacobian: [f32; 3],
    inverse_mass: InverseMass,
}

/// Below this error every row counts as satisfied and the projection stops.
const TOLERANCE: f32 = 1e-6;

/// What one projection did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Projection {
    /// Every row was already within tolerance; nothing moved.
    Converged,
    /// The bodies were moved by one exact solve.
    Applied,
    /// The factorisation would exceed the fill budget; nothing moved.
    TooLarge,
}

/// The rows of every stiff positional constraint at the current poses.
#[derive(Default)]
pub(crate) struct PositionSystem {
    rows: Vec<Row>,
    terms: Vec<Term>,
    /// Rows touching each body (indexed by compact body index), rebuilt by `solve`.
    rows_of_body: Vec<Vec<usize>>,
}

impl PositionSystem {
    pub(crate) fn clear(&mut self) {
        self.rows.clear();
        self.terms.clear();
    }

    /// Adds the row `J' Δq = −error`; `jacobian[s]` is the row on the body `bodies[s]`.
    pub(crate) fn push_row(
        &mut self,
        error: f32,
        inequality: bool,
        bodies: &[usize],
        jacobian: &[[f32; 3]],
        inverse_masses: &[InverseMass],
    ) {
        let start = self.terms.len();
        for s in 0..bodies.len() {
            let j = jacobian[s];
            let moves = inverse_masses[s].mass != 0.0 || inverse_masses[s].inertia != 0.0;
            if moves && j != [0.0; 3] {
                self.terms.push(Term {
                    body: bodies[s],
                    jacobian: j,
                    inverse_mass: inverse_masses[s],
                });
            }
        }
        let terms = start..self.terms.len();
        if !terms.is_empty() {
            self.rows.push(Row {
                error,
                inequality,
                terms,
            });
        }
    }

    /// Solves for every row at once and moves the bodies.
    pub(crate) fn solve(&mut self, poses: &mut [Pose]) -> Projection {
        let n = self.rows.len();
        if self.rows.iter().all(|row| row.error.abs() <= TOLERANCE) {
            return Projection::Converged;
        }
        self.rows_of_body.resize_with(poses.len(), Vec::new);
        for list in &mut self.rows_of_body {
            list.clear();
        }
        for (r, row) in self.rows.iter().enumerate() {
            for term in &self.terms[row.terms.clone()] {
                let list = &mut self.rows_of_body[term.body];
                if list.last() != Some(&r) {
                    list.push(r);
                }
            }
        }
        // Envelope of the lower triangle: row r stores columns first[r]..=r.
        let mut first: Vec<usize> = (0..n).collect();
        for list in &self.rows_of_body {
            if let Some(&lowest) = list.first() {
                for &r in list {
                    first[r] = first[r].min(lowest);
                }
            }
        }
        let mut offset = Vec::with_capacity(n + 1);
        offset.push(0usize);
        for r in 0..n {
            offset.push(offset[r] + (r - first[r] + 1));
        }
        if offset[n] > crate::Space::MAX_PROJECTION_FILL * n {
            return Projection::TooLarge;
        }
        let mut lower = vec![0.0f64; offset[n]];
        let at = |r: usize, c: usize| offset[r] + (c - first[r]);
        for (r, row) in self.rows.iter().enumerate() {
            for term in &self.terms[row.terms.clone()] {
                for &other in &self.rows_of_body[term.body] {
                    if other > r {
                        continue;
                    }
                    for term2 in &self.terms[self.rows[other].terms.clone()] {
                        if term2.body != term.body {
                            continue;
                        }
                        let m = f64::from(term.inverse_mass.mass);
                        let i = f64::from(term.inverse_mass.inertia);
                        let (a, b) = (term.jacobian, term2.jacobian);
                        lower[at(r, other)] += m
                            * (f64::from(a[0]) * f64::from(b[0])
                                + f64::from(a[1]) * f64::from(b[1]))
                            + i * f64::from(a[2]) * f64::from(b[2]);
                    }
                }
            }
        }
        // LDLᵀ in place; a vanishing pivot drops its row (a redundant or immovable row).
        let mut diagonal = vec![0.0f64; n];
        let mut dropped = vec![false; n];
        for r in 0..n {
            for c in first[r]..r {
                if dropped[c] {
                    lower[at(r, c)] = 0.0;
                    continue;
                }
                let start = first[r].max(first[c]);
                let mut sum = lower[at(r, c)];
                for k in start..c {
                    sum -= lower[at(r, k)] * lower[at(c, k)] * diagonal[k];
                }
                lower[at(r, c)] = sum / diagonal[c];
            }
            let original = lower[at(r, r)];
            let mut pivot = original;
            for k in first[r]..r {
                let l = lower[at(r, k)];
                pivot -= l * l * diagonal[k];
            }
            if pivot > 1e-9 * original.max(f64::MIN_POSITIVE) && pivot.is_finite() {
                diagonal[r] = pivot;
            } else {
                dropped[r] = true;
                diagonal[r] = 1.0;
            }
        }
        // Forward, diagonal and backward substitution for Δ = −(LDLᵀ)⁻¹ C'.
        let mut x: Vec<f64> = self.rows.iter().map(|row| -f64::from(row.error)).collect();
        for r in 0..n {
            if dropped[r] {
                x[r] = 0.0;
                continue;
            }
            for k in first[r]..r {
                x[r] -= lower[at(r, k)] * x[k];
            }
        }
        for r in 0..n {
            x[r] = if dropped[r] { 0.0 } else { x[r] / diagonal[r] };
        }
        for r in (0..n).rev() {
            for k in first[r]..r {
                let l = lower[at(r, k)];
                x[k] -= l * x[r];
            }
        }
        // Δq = M⁻¹ J'ᵀ Δ; a limit row only pushes.
        let mut moves = vec![[0.0f64; 3]; poses.len()];
        for (r, row) in self.rows.iter().enumerate() {
            let mut delta = x[r];
            if dropped[r] || (row.inequality && delta > 0.0) || !delta.is_finite() {
                continue;
            }
            if row.inequality {
                delta = delta.min(0.0);
            }
            for term in &self.terms[row.terms.clone()] {
                let m = f64::from(term.inverse_mass.mass);
                let i = f64::from(term.inverse_mass.inertia);
                let step = &mut moves[term.body];
                step[0] += m * f64::from(term.jacobian[0]) * delta;
                step[1] += m * f64::from(term.jacobian[1]) * delta;
                step[2] += i * f64::from(term.jacobian[2]) * delta;
            }
        }
        for (pose, step) in poses.iter_mut().zip(&moves) {
            if *step != [0.0; 3] {
                #[allow(clippy::cast_possible_truncation)]
                let (dx, dy, da) = (step[0] as f32, step[1] as f32, step[2] as f32);
                *pose = Pose::new(pose.position + glam::Vec2::new(dx, dy), pose.angle + da);
            }
        }
        Projection::Applied
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    const UNIT: InverseMass = InverseMass {
        mass: 1.0,
        inertia: 1.0,
    };

    fn x_row(system: &mut PositionSystem, error: f32, bodies: &[usize], signs: &[f32]) {
        let jacobian: Vec<[f32; 3]> = signs.iter().map(|&s| [s, 0.0, 0.0]).collect();
        let masses = vec![UNIT; bodies.len()];
        system.push_row(error, false, bodies, &jacobian, &masses);
    }

    #[test]
    fn a_linear_chain_is_solved_in_one_projection() {
        // x₁ = 0 and x₂ − x₁ = 1, with x₁ = 1 and x₂ = 3 now: errors 1 and 1.
        let mut poses = vec![
            Pose::new(Vec2::new(1.0, 0.0), 0.0),
            Pose::new(Vec2::new(3.0, 0.0), 0.0),
        ];
        let mut system = PositionSystem::default();
        x_row(&mut system, 1.0, &[0], &[1.0]);
        x_row(&mut system, 1.0, &[0, 1], &[-1.0, 1.0]);
        assert_eq!(system.solve(&mut poses), Projection::Applied);
        assert!((poses[0].position.x - 0.0).abs() < 1e-6, "{:?}", poses[0]);
        assert!((poses[1].position.x - 1.0).abs() < 1e-6, "{:?}", poses[1]);
        assert_eq!(poses[0].position.y, 0.0);
    }

    #[test]
    fn redundant_rows_are_dropped_not_divided_by_zero() {
        // The same row twice: the second pivot vanishes and is dropped.
        let mut poses = vec![Pose::new(Vec2::new(2.0, 0.0), 0.0)];
        let mut system = PositionSystem::default();
        x_row(&mut system, 2.0, &[0], &[1.0]);
        x_row(&mut system, 2.0, &[0], &[1.0]);
        assert_eq!(system.solve(&mut poses), Projection::Applied);
        assert!(poses[0].position.is_finite());
        assert!(poses[0].position.x.abs() < 1e-6, "{:?}", poses[0]);
    }

    #[test]
    fn a_satisfied_system_converges_and_a_limit_only_pushes() {
        let mut poses = vec![Pose::new(Vec2::ZERO, 0.0)];
        let mut system = PositionSystem::default();
        x_row(&mut system, 0.0, &[0], &[1.0]);
        assert_eq!(system.solve(&mut poses), Projection::Converged);
        // An inequality row whose solution would pull: nothing moves.
        system.clear();
        system.push_row(-1.0, true, &[0], &[[1.0, 0.0, 0.0]], &[UNIT]);
        assert_eq!(system.solve(&mut poses), Projection::Applied);
        assert_eq!(poses[0].position, Vec2::ZERO);
    }
}
