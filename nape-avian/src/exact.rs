//! The exact velocity solve of stiff equality joints, all types together: per island of
//! bodies, `K Δλ = −(J v + bias)` with `K = J M⁻¹ Jᵀ` over every row of the island,
//! factored by a skyline (envelope) Cholesky on rows ordered breadth-first, so that a
//! chain or a tree costs linear time. Gauss–Seidel, one pass per phase, cannot hold a
//! heavy body on a light one (a 1:100 weld flies apart); this solve holds it to the
//! drift of one substep (5e-5 m in the test).
//!
//! Each joint type's systems write their rows here ([`ExactRows::push`], then
//! [`ExactRows::update`] for the relax's new poses) and read their impulses back
//! ([`ExactRows::impulse`]); rows are double-buffered so a joint reads the last
//! substep's impulses while the next substep's rows are written.

// Rows, slots and envelope columns are indices into several arrays at once.
#![allow(clippy::needless_range_loop)]

use std::collections::HashMap;

use bevy::prelude::{Entity, Resource};
use nape::{InverseMass, Velocity};

/// One body's part of one row: `∂c/∂(x, y, θ)`.
#[derive(Clone, Copy, Debug)]
struct Entry {
    body: usize,
    jacobian: [f32; 3],
}

#[derive(Clone, Debug)]
struct Row {
    joint: Entity,
    entries: std::ops::Range<usize>,
    error: f32,
    impulse: f32,
}

#[derive(Default)]
struct Buffer {
    bodies: Vec<Entity>,
    body_index: HashMap<Entity, usize>,
    inverse_masses: Vec<InverseMass>,
    rows: Vec<Row>,
    entries: Vec<Entry>,
}

impl Buffer {
    fn clear(&mut self) {
        self.bodies.clear();
        self.body_index.clear();
        self.inverse_masses.clear();
        self.rows.clear();
        self.entries.clear();
    }
}

/// The rows of this substep's exactly solved joints.
#[derive(Resource, Default)]
pub(crate) struct ExactRows {
    current: Buffer,
    building: Buffer,
}

/// Where a joint's rows sit in [`ExactRows`].
pub(crate) type RowOffset = usize;

impl ExactRows {
    /// The impulse of row `i` of `joint` at `offset` in the current rows, or 0 when the
    /// rows there are not the joint's (it was not solved exactly last substep).
    pub(crate) fn impulse(&self, joint: Entity, offset: Option<RowOffset>, i: usize) -> f32 {
        offset
            .and_then(|o| self.current.rows.get(o + i))
            .filter(|row| row.joint == joint)
            .map_or(0.0, |row| row.impulse)
    }

    /// Adds `joint`'s rows to the next substep's buffer: per row, its error and impulse,
    /// and per slot its body, inverse mass and `J` entries (`jacobian[i][s]`).
    pub(crate) fn push<const D: usize, const B: usize>(
        &mut self,
        joint: Entity,
        bodies: &[Entity; B],
        inverse_masses: &[InverseMass; B],
        jacobian: &[[[f32; 3]; B]; D],
        error: &[f32; D],
        impulse: &[f32; D],
    ) -> RowOffset {
        let buffer = &mut self.building;
        let offset = buffer.rows.len();
        let slots: [usize; B] = std::array::from_fn(|s| {
            *buffer.body_index.entry(bodies[s]).or_insert_with(|| {
                buffer.bodies.push(bodies[s]);
                buffer.inverse_masses.push(inverse_masses[s]);
                buffer.bodies.len() - 1
            })
        });
        for i in 0..D {
            let start = buffer.entries.len();
            for s in 0..B {
                merge_entry(&mut buffer.entries, start, slots[s], jacobian[i][s]);
            }
            buffer.rows.push(Row {
                joint,
                entries: start..buffer.entries.len(),
                error: error[i],
                impulse: impulse[i],
            });
        }
        offset
    }

    /// Makes the rows pushed since the last call the current ones.
    pub(crate) fn swap(&mut self) {
        std::mem::swap(&mut self.current, &mut self.building);
        self.building.clear();
    }

    /// Replaces `joint`'s current `J` entries and errors (the relax's poses); the slots
    /// keep their bodies.
    pub(crate) fn update<const D: usize, const B: usize>(
        &mut self,
        joint: Entity,
        offset: RowOffset,
        bodies: &[Entity; B],
        jacobian: &[[[f32; 3]; B]; D],
        error: &[f32; D],
    ) {
        let buffer = &mut self.current;
        if buffer.rows.get(offset).is_none_or(|row| row.joint != joint) {
            return;
        }
        for i in 0..D {
            let row = &mut buffer.rows[offset + i];
            row.error = error[i];
            let entries = row.entries.clone();
            for entry in &mut buffer.entries[entries.clone()] {
                entry.jacobian = [0.0; 3];
            }
            for s in 0..B {
                let body = buffer.body_index[&bodies[s]];
                merge_entry(&mut buffer.entries, entries.start, body, jacobian[i][s]);
            }
        }
    }

    /// The bodies of the current rows.
    pub(crate) fn bodies(&self) -> &[Entity] {
        &self.current.bodies
    }

    /// Solves every island of the current rows against `velocities` (one per
    /// [`bodies`](Self::bodies) entry), with the bias `error / h` when `biased`.
    pub(crate) fn solve(&mut self, velocities: &mut [Velocity], h: f32, biased: bool) {
        let buffer = &mut self.current;
        for island in islands(buffer) {
            solve_island(
                buffer,
                &island,
                velocities,
                if biased { 1.0 / h } else { 0.0 },
            );
        }
    }
}

/// Adds `jacobian` to the entry of `body` among `entries[start..]`, or appends one.
fn merge_entry(entries: &mut Vec<Entry>, start: usize, body: usize, jacobian: [f32; 3]) {
    if let Some(entry) = entries[start..].iter_mut().find(|e| e.body == body) {
        for k in 0..3 {
            entry.jacobian[k] += jacobian[k];
        }
    } else {
        entries.push(Entry { body, jacobian });
    }
}

fn movable(m: InverseMass) -> bool {
    m.mass > 0.0 || m.inertia > 0.0
}

/// The rows of each island (rows joined through movable bodies), breadth-first from a
/// row with the fewest neighbours, which keeps a chain's or a tree's envelope narrow.
fn islands(buffer: &Buffer) -> Vec<Vec<usize>> {
    let mut rows_of_body = vec![Vec::new(); buffer.bodies.len()];
    for (r, row) in buffer.rows.iter().enumerate() {
        for entry in &buffer.entries[row.entries.clone()] {
            if movable(buffer.inverse_masses[entry.body]) {
                rows_of_body[entry.body].push(r);
            }
        }
    }
    let neighbours = |r: usize| {
        buffer.entries[buffer.rows[r].entries.clone()]
            .iter()
            .flat_map(|e| rows_of_body[e.body].iter().copied())
    };
    let degree: Vec<usize> = (0..buffer.rows.len())
        .map(|r| neighbours(r).count())
        .collect();
    let mut seen = vec![false; buffer.rows.len()];
    let mut by_degree: Vec<usize> = (0..buffer.rows.len()).collect();
    by_degree.sort_by_key(|&r| degree[r]);
    let mut islands = Vec::new();
    for &seed in &by_degree {
        if seen[seed] || degree[seed] == 0 {
            continue;
        }
        seen[seed] = true;
        let mut order = vec![seed];
        let mut next = 0;
        while next < order.len() {
            let r = order[next];
            next += 1;
            for n in neighbours(r) {
                if !seen[n] {
                    seen[n] = true;
                    order.push(n);
                }
            }
        }
        islands.push(order);
    }
    islands
}

fn dot_through_mass(a: &[f32; 3], b: &[f32; 3], m: InverseMass) -> f64 {
    f64::from(m.mass) * f64::from(a[0] * b[0] + a[1] * b[1]) + f64::from(m.inertia * a[2] * b[2])
}

fn solve_island(buffer: &mut Buffer, order: &[usize], velocities: &mut [Velocity], bias_rate: f32) {
    let n = order.len();
    let entries = |k: usize| &buffer.entries[buffer.rows[order[k]].entries.clone()];
    // The envelope: row k stores columns first[k]..=k.
    let mut rows_of_body: HashMap<usize, Vec<usize>> = HashMap::new();
    for k in 0..n {
        for e in entries(k) {
            if movable(buffer.inverse_masses[e.body]) {
                rows_of_body.entry(e.body).or_default().push(k);
            }
        }
    }
    let first: Vec<usize> = (0..n)
        .map(|k| {
            entries(k)
                .iter()
                .filter_map(|e| rows_of_body.get(&e.body))
                .flat_map(|rows| rows.iter().copied())
                .min()
                .unwrap_or(k)
                .min(k)
        })
        .collect();
    let mut start = Vec::with_capacity(n + 1);
    start.push(0);
    for k in 0..n {
        start.push(start[k] + k - first[k] + 1);
    }
    let mut l = vec![0.0f64; start[n]];
    for k in 0..n {
        for a in entries(k) {
            let m = buffer.inverse_masses[a.body];
            if !movable(m) {
                continue;
            }
            for &j in &rows_of_body[&a.body] {
                if j > k {
                    continue;
                }
                for b in entries(j).iter().filter(|b| b.body == a.body) {
                    l[start[k] + j - first[k]] += dot_through_mass(&a.jacobian, &b.jacobian, m);
                }
            }
        }
    }
    // K = L Lᵀ within the envelope; a row whose pivot vanishes (redundant, or one no body
    // can answer) takes no impulse.
    for k in 0..n {
        for j in first[k]..=k {
            let from = first[k].max(first[j]);
            let mut sum = l[start[k] + j - first[k]];
            for c in from..j {
                sum -= l[start[k] + c - first[k]] * l[start[j] + c - first[j]];
            }
            if j < k {
                l[start[k] + j - first[k]] = sum / l[start[j] + j - first[j]];
            } else {
                let diagonal = l[start[k] + k - first[k]];
                l[start[k] + k - first[k]] = if sum > 1e-9 * diagonal.abs().max(f64::MIN_POSITIVE) {
                    sum.sqrt()
                } else {
                    f64::INFINITY
                };
            }
        }
    }
    let velocity_error = |k: usize, velocities: &[Velocity]| -> f64 {
        entries(k)
            .iter()
            .map(|e| {
                let v = velocities[e.body];
                f64::from(
                    e.jacobian[0] * v.linear.x
                        + e.jacobian[1] * v.linear.y
                        + e.jacobian[2] * v.angular,
                )
            })
            .sum()
    };
    let mut x: Vec<f64> = (0..n)
        .map(|k| {
            -(velocity_error(k, velocities) + f64::from(bias_rate * buffer.rows[order[k]].error))
        })
        .collect();
    for k in 0..n {
        let mut sum = x[k];
        for c in first[k]..k {
            sum -= l[start[k] + c - first[k]] * x[c];
        }
        x[k] = sum / l[start[k] + k - first[k]];
    }
    for k in (0..n).rev() {
        x[k] /= l[start[k] + k - first[k]];
        let xk = x[k];
        for c in first[k]..k {
            x[c] -= l[start[k] + c - first[k]] * xk;
        }
    }
    for k in 0..n {
        let delta = x[k] as f32;
        let row = order[k];
        buffer.rows[row].impulse += delta;
        for e in &buffer.entries[buffer.rows[row].entries.clone()] {
            let m = buffer.inverse_masses[e.body];
            let v = &mut velocities[e.body];
            v.linear.x += m.mass * e.jacobian[0] * delta;
            v.linear.y += m.mass * e.jacobian[1] * delta;
            v.angular += m.inertia * e.jacobian[2] * delta;
        }
    }
}
