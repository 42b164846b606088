//! Numeric checkers for [`Constraint`] implementations, generated or hand-written.
//!
//! The ground truth for a constraint is its position function `c(q)`: its Jacobian must
//! match central finite differences of `c`, and its effective mass must equal `J M⁻¹ Jᵀ`
//! with the columns of slots that hold the same body merged. Matrices are plain
//! `Vec<Vec<f32>>` (rows of columns); a Jacobian has `D` rows and `3·B` columns ordered
//! `(v_x, v_y, ω)` per slot.

use glam::Vec2;

use crate::constraint::{Constraint, InverseMass, Pose, SharedSlots, Velocity};

/// The constraint's Jacobian as a dense `D × 3B` matrix, read through the trait: calls
/// [`jacobian`](Constraint::jacobian), then [`velocity_error`](Constraint::velocity_error)
/// once per column with a unit velocity on that slot's component (slot `s` uses the
/// compact index `s`, so no two slots alias). The value at zero velocity is subtracted
/// from each column, so a hand-written constraint that folds a constant into its velocity
/// error still reads as its `J`.
#[must_use]
pub fn dense_jacobian<T, const D: usize, const B: usize>(c: &T, poses: &[Pose; B]) -> Vec<Vec<f32>>
where
    T: Constraint<D, B>,
{
    let jacobian = c.jacobian(poses);
    let bodies: [usize; B] = std::array::from_fn(|s| s);
    let mut out = vec![vec![0.0; 3 * B]; D];
    let at_rest = c.velocity_error(&jacobian, &bodies, &[Velocity::default(); B]);
    for s in 0..B {
        for k in 0..3 {
            let mut velocities = [Velocity::default(); B];
            match k {
                0 => velocities[s].linear = Vec2::X,
                1 => velocities[s].linear = Vec2::Y,
                _ => velocities[s].angular = 1.0,
            }
            let column = c.velocity_error(&jacobian, &bodies, &velocities);
            for ((row, value), rest) in out.iter_mut().zip(column).zip(at_rest) {
                row[3 * s + k] = value - rest;
            }
        }
    }
    out
}

/// The Jacobian of [`position_error`](Constraint::position_error) by central differences
/// with step `h` in each slot's `x`, `y` and `θ` (the perturbed poses are rebuilt with
/// [`Pose::new`], so their cosine and sine follow the angle). A `D × 3B` matrix.
#[must_use]
pub fn finite_difference_jacobian<T, const D: usize, const B: usize>(
    c: &T,
    poses: &[Pose; B],
    h: f32,
) -> Vec<Vec<f32>>
where
    T: Constraint<D, B>,
{
    let mut out = vec![vec![0.0; 3 * B]; D];
    for s in 0..B {
        for k in 0..3 {
            let shifted = |sign: f32| {
                let mut p = *poses;
                let base = poses[s];
                let mut position = base.position;
                let mut angle = base.total_angle();
                match k {
                    0 => position.x += sign * h,
                    1 => position.y += sign * h,
                    _ => angle += f64::from(sign * h),
                }
                p[s] = Pose::new(position, angle);
                c.position_error(&p)
            };
            let plus = shifted(1.0);
            let minus = shifted(-1.0);
            for i in 0..D {
                out[i][3 * s + k] = (plus[i] - minus[i]) / (2.0 * h);
            }
        }
    }
    out
}

/// [`Constraint::geometric_stiffness`] by central differences of `Jᵀf` (read through
/// [`dense_jacobian`]) over each slot's own angle and position, step `h`: per slot,
/// `[|∂(Jᵀf)_θ/∂θ|, ρ(∂(Jᵀf)_x/∂x)]` with `ρ` the spectral radius of the 2×2 block
/// (symmetrised, as a Hessian is). A `B`-long list of pairs.
#[must_use]
pub fn finite_difference_geometric_stiffness<T, const D: usize, const B: usize>(
    c: &T,
    poses: &[Pose; B],
    force: &[f32; D],
    h: f32,
) -> Vec<[f32; 2]>
where
    T: Constraint<D, B>,
{
    // `(Jᵀf)` of slot `s` at its pose shifted by `shift` (x, y, θ), in f64.
    let load = |s: usize, shift: [f32; 3]| -> [f64; 3] {
        let mut shifted = *poses;
        let base = poses[s];
        shifted[s] = Pose::new(
            base.position + Vec2::new(shift[0], shift[1]),
            base.total_angle() + f64::from(shift[2]),
        );
        let jacobian = dense_jacobian(c, &shifted);
        std::array::from_fn(|k| {
            jacobian
                .iter()
                .zip(force)
                .map(|(row, &f)| f64::from(row[3 * s + k]) * f64::from(f))
                .sum()
        })
    };
    let step = f64::from(h);
    (0..B)
        .map(|s| {
            // Column `variable` of the derivative of `Jᵀf` of slot `s`.
            let derivative = |variable: usize| -> [f64; 3] {
                let mut plus = [0.0; 3];
                plus[variable] = h;
                let minus = plus.map(|x| -x);
                let (up, down) = (load(s, plus), load(s, minus));
                std::array::from_fn(|k| (up[k] - down[k]) / (2.0 * step))
            };
            let (dx, dy, dtheta) = (derivative(0), derivative(1), derivative(2));
            let xy = 0.5 * (dx[1] + dy[0]);
            let half_trace = 0.5 * (dx[0] + dy[1]);
            let half_gap = 0.5 * (dx[0] - dy[1]);
            let radius = half_trace.abs() + (half_gap * half_gap + xy * xy).sqrt();
            [dtheta[2].abs() as f32, radius as f32]
        })
        .collect()
}

/// `K = J M⁻¹ Jᵀ` computed numerically from a dense Jacobian (`D × 3B`), the slots'
/// inverse masses and the body each slot holds (`slot_bodies[s]`, any identifiers):
/// the columns of slots naming the same body are summed first, which is exactly how the
/// cross terms of aliased slots arise. Computed in `f64`. A `D × D` matrix.
///
/// # Panics
/// If the lengths disagree (`3·slots` columns, one inverse mass and one body per slot).
#[must_use]
pub fn numeric_effective_mass(
    dense_j: &[Vec<f32>],
    inverse_masses: &[InverseMass],
    slot_bodies: &[usize],
) -> Vec<Vec<f32>> {
    let slots = slot_bodies.len();
    assert_eq!(inverse_masses.len(), slots, "one inverse mass per slot");
    assert!(
        dense_j.iter().all(|row| row.len() == 3 * slots),
        "3 columns per slot"
    );
    let d = dense_j.len();
    // Merge aliased slots: one column triple per distinct body.
    let mut distinct: Vec<(usize, InverseMass, Vec<[f64; 3]>)> = Vec::new();
    for s in 0..slots {
        let columns: Vec<[f64; 3]> = dense_j
            .iter()
            .map(|row| std::array::from_fn(|k| f64::from(row[3 * s + k])))
            .collect();
        match distinct.iter_mut().find(|(b, _, _)| *b == slot_bodies[s]) {
            Some((_, _, merged)) => {
                for (m, c) in merged.iter_mut().zip(&columns) {
                    for k in 0..3 {
                        m[k] += c[k];
                    }
                }
            }
            None => distinct.push((slot_bodies[s], inverse_masses[s], columns)),
        }
    }
    let mut k = vec![vec![0.0f32; d]; d];
    for i in 0..d {
        for j in 0..d {
            let mut sum = 0.0f64;
            for (_, inv, cols) in &distinct {
                let m = f64::from(inv.mass);
                let r = f64::from(inv.inertia);
                sum += m * (cols[i][0] * cols[j][0] + cols[i][1] * cols[j][1]);
                sum += r * cols[i][2] * cols[j][2];
            }
            k[i][j] = sum as f32;
        }
    }
    k
}

/// The constraint's own [`effective_mass`](Constraint::effective_mass) at these poses, with
/// the [`SharedSlots`] found from `slot_bodies`, as a `Vec<Vec<f32>>` for comparison with
/// [`numeric_effective_mass`].
#[must_use]
pub fn effective_mass<T, const D: usize, const B: usize>(
    c: &T,
    poses: &[Pose; B],
    inverse_masses: &[InverseMass; B],
    slot_bodies: &[usize; B],
) -> Vec<Vec<f32>>
where
    T: Constraint<D, B>,
{
    let jacobian = c.jacobian(poses);
    let k = c.effective_mass(&jacobian, inverse_masses, SharedSlots::find(slot_bodies));
    k.iter().map(|row| row.to_vec()).collect()
}

/// The largest absolute difference between two matrices of the same shape.
///
/// # Panics
/// If the shapes differ.
#[must_use]
pub fn max_abs_difference(a: &[Vec<f32>], b: &[Vec<f32>]) -> f32 {
    assert_eq!(a.len(), b.len(), "row counts differ");
    a.iter()
        .zip(b)
        .flat_map(|(ra, rb)| {
            assert_eq!(ra.len(), rb.len(), "column counts differ");
            ra.iter().zip(rb).map(|(x, y)| (x - y).abs())
        })
        .fold(0.0, f32::max)
}
