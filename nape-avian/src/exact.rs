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
//!
//! The work per substep is the numbers only: bodies keep their index from substep to
//! substep (a joint remembers its bodies' indices, so a push looks nothing up), and the
//! islands, the row order, the envelope and the list of `K`'s terms ([`Plan`]) are
//! rebuilt only when the rows' pattern of bodies changes.

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

/// One substep's rows, and their pattern of bodies (what [`Plan`] depends on): per entry
/// its body index shifted left once with the body's movability in the low bit, `u32::MAX`
/// after each row.
#[derive(Default)]
struct Buffer {
    rows: Vec<Row>,
    entries: Vec<Entry>,
    pattern: Vec<u32>,
}

impl Buffer {
    fn clear(&mut self) {
        self.rows.clear();
        self.entries.clear();
        self.pattern.clear();
    }
}

/// The bodies the rows name, by index; an index stays its body's until the table is
/// compacted (when most of its bodies have left the rows).
#[derive(Default)]
struct BodyTable {
    entities: Vec<Entity>,
    index: HashMap<Entity, usize>,
    inverse_masses: Vec<InverseMass>,
    /// The generation in which each body was last pushed.
    used: Vec<u32>,
    generation: u32,
    used_this_generation: usize,
    compact_before_next_push: bool,
}

impl BodyTable {
    /// The index of `entity`, trying `hint` (its index last substep) before the map.
    fn index_of(&mut self, entity: Entity, hint: usize, inverse_mass: InverseMass) -> usize {
        let index = if self.entities.get(hint) == Some(&entity) {
            hint
        } else {
            *self.index.entry(entity).or_insert_with(|| {
                self.entities.push(entity);
                self.inverse_masses.push(inverse_mass);
                self.used.push(self.generation.wrapping_sub(1));
                self.entities.len() - 1
            })
        };
        self.inverse_masses[index] = inverse_mass;
        if self.used[index] != self.generation {
            self.used[index] = self.generation;
            self.used_this_generation += 1;
        }
        index
    }

    /// Ends a substep's pushes; the table is compacted before the next substep's first
    /// push when fewer than half its bodies were pushed in this one.
    fn end_generation(&mut self) {
        self.compact_before_next_push = self.entities.len() > 2 * self.used_this_generation + 16;
        self.generation = self.generation.wrapping_add(1);
        self.used_this_generation = 0;
    }

    fn compact_if_due(&mut self) {
        if std::mem::take(&mut self.compact_before_next_push) {
            self.entities.clear();
            self.index.clear();
            self.inverse_masses.clear();
            self.used.clear();
        }
    }
}

/// What the exact solve of one pattern of rows needs besides the numbers: the rows in
/// solve order (islands one after another, each breadth-first), the envelope, and the
/// terms of `K` (`K[k][j] += a·M⁻¹·b` over the entries `a` of row `k` and `b` of row `j`
/// on one body).
#[derive(Default)]
struct Plan {
    pattern: Vec<u32>,
    /// Row of each position.
    order: Vec<usize>,
    /// Envelope: position `k` stores columns `first[k]..=k` at `start[k]..`.
    first: Vec<usize>,
    start: Vec<usize>,
    terms: Vec<Term>,
    /// The island of each body index (`usize::MAX` for a body no row moves).
    island_of_body: Vec<usize>,
}

#[derive(Clone, Copy)]
struct Term {
    at: usize,
    a: usize,
    b: usize,
}

impl Plan {
    fn build(buffer: &Buffer, bodies: &BodyTable) -> Self {
        let movable_entry = |e: &Entry| movable(bodies.inverse_masses[e.body]);
        let islands = islands(buffer, bodies);
        let mut island_of_body = vec![usize::MAX; bodies.entities.len()];
        for (island, rows) in islands.iter().enumerate() {
            for &row in rows {
                for e in &buffer.entries[buffer.rows[row].entries.clone()] {
                    if movable_entry(e) {
                        island_of_body[e.body] = island;
                    }
                }
            }
        }
        let order: Vec<usize> = islands.concat();
        let n = order.len();
        let entries = |k: usize| buffer.rows[order[k]].entries.clone();
        let mut positions_of_body = vec![Vec::new(); bodies.entities.len()];
        for k in 0..n {
            for e in &buffer.entries[entries(k)] {
                if movable_entry(e) {
                    positions_of_body[e.body].push(k);
                }
            }
        }
        // Rows of different islands share no movable body, so the envelope of a position
        // stays within its island.
        let first: Vec<usize> = (0..n)
            .map(|k| {
                buffer.entries[entries(k)]
                    .iter()
                    .filter_map(|e| positions_of_body[e.body].first().copied())
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
        let mut terms = Vec::new();
        for k in 0..n {
            for a in entries(k) {
                let body = buffer.entries[a].body;
                if !movable_entry(&buffer.entries[a]) {
                    continue;
                }
                for &j in positions_of_body[body].iter().filter(|&&j| j <= k) {
                    for b in entries(j).filter(|&b| buffer.entries[b].body == body) {
                        terms.push(Term {
                            at: start[k] + j - first[k],
                            a,
                            b,
                        });
                    }
                }
            }
        }
        Self {
            pattern: buffer.pattern.clone(),
            order,
            first,
            start,
            terms,
            island_of_body,
        }
    }
}

/// The rows of this substep's exactly solved joints.
#[derive(Resource, Default)]
pub(crate) struct ExactRows {
    current: Buffer,
    building: Buffer,
    bodies: BodyTable,
    plan: Plan,
    /// Scratch of the solve: the envelope factor, its pivots' reciprocals and the
    /// right-hand side.
    factor: Vec<f64>,
    inverse_pivots: Vec<f64>,
    rhs: Vec<f64>,
    /// Whether `factor` is that of the current rows' `J` (no update or swap since).
    factored: bool,
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
    /// `body_indices` holds the bodies' indices from the joint's last push, and gets
    /// this push's.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push<const D: usize, const B: usize>(
        &mut self,
        joint: Entity,
        bodies: &[Entity; B],
        body_indices: &mut [usize; B],
        inverse_masses: &[InverseMass; B],
        jacobian: &[[[f32; 3]; B]; D],
        error: &[f32; D],
        impulse: &[f32; D],
    ) -> RowOffset {
        if self.building.rows.is_empty() {
            self.bodies.compact_if_due();
        }
        for s in 0..B {
            body_indices[s] = self
                .bodies
                .index_of(bodies[s], body_indices[s], inverse_masses[s]);
        }
        let buffer = &mut self.building;
        let offset = buffer.rows.len();
        for i in 0..D {
            let start = buffer.entries.len();
            for s in 0..B {
                merge_entry(&mut buffer.entries, start, body_indices[s], jacobian[i][s]);
            }
            for e in &buffer.entries[start..] {
                let movable = u32::from(movable(self.bodies.inverse_masses[e.body]));
                buffer.pattern.push(((e.body as u32) << 1) | movable);
            }
            buffer.pattern.push(u32::MAX);
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
        self.factored = false;
        self.building.clear();
        self.bodies.end_generation();
    }

    /// Replaces `joint`'s current `J` entries and errors (the relax's poses); the slots
    /// keep their bodies (`body_indices`, as its last push left them).
    pub(crate) fn update<const D: usize, const B: usize>(
        &mut self,
        joint: Entity,
        offset: RowOffset,
        body_indices: &[usize; B],
        jacobian: &[[[f32; 3]; B]; D],
        error: &[f32; D],
    ) {
        let buffer = &mut self.current;
        if buffer.rows.get(offset).is_none_or(|row| row.joint != joint) {
            return;
        }
        self.factored = false;
        for i in 0..D {
            let row = &mut buffer.rows[offset + i];
            row.error = error[i];
            let entries = row.entries.clone();
            for entry in &mut buffer.entries[entries.clone()] {
                entry.jacobian = [0.0; 3];
            }
            for s in 0..B {
                merge_entry(
                    &mut buffer.entries,
                    entries.start,
                    body_indices[s],
                    jacobian[i][s],
                );
            }
        }
    }

    /// The bodies of the current rows (and possibly some that have left them: their
    /// velocities go through the solve unchanged).
    pub(crate) fn bodies(&self) -> &[Entity] {
        if self.current.rows.is_empty() {
            &[]
        } else {
            &self.bodies.entities
        }
    }

    /// Solves every island of the current rows against `velocities` (one per
    /// [`bodies`](Self::bodies) entry), with the bias `error / h` when `biased`, and adds
    /// the impulses to the rows'.
    pub(crate) fn solve(&mut self, velocities: &mut [Velocity], h: f32, biased: bool) {
        self.apply_impulses(velocities, if biased { 1.0 / h } else { 0.0 });
        for (k, &row) in self.plan.order.iter().enumerate() {
            self.current.rows[row].impulse += self.rhs[k] as f32;
        }
    }

    /// Makes `velocities` meet the current rows (`J v = 0`, `J` as the last
    /// [`update`](Self::update) left it) without adding to the rows' impulses, which the
    /// next substep's warm start reads.
    pub(crate) fn project(&mut self, velocities: &mut [Velocity]) {
        self.apply_impulses(velocities, 0.0);
    }

    /// The island of body `index` among the current rows (islands joined through movable
    /// bodies), or `None` for a body no row moves. Valid after a
    /// [`solve`](Self::solve) or [`project`](Self::project) of these rows.
    pub(crate) fn island_of(&self, index: usize) -> Option<usize> {
        self.plan
            .island_of_body
            .get(index)
            .copied()
            .filter(|&island| island != usize::MAX)
    }

    /// The index of `entity` among [`bodies`](Self::bodies).
    pub(crate) fn index_of(&self, entity: Entity) -> Option<usize> {
        self.bodies.index.get(&entity).copied()
    }

    /// Solves `K x = −(J v + bias_rate·error)` per island into `self.rhs` (by solve
    /// position) and applies `x` to `velocities`.
    fn apply_impulses(&mut self, velocities: &mut [Velocity], bias_rate: f32) {
        if self.plan.pattern != self.current.pattern {
            self.plan = Plan::build(&self.current, &self.bodies);
            self.factored = false;
        }
        let (buffer, plan) = (&self.current, &self.plan);
        let inverse_masses = &self.bodies.inverse_masses;
        let n = plan.order.len();
        let (l, inverse_pivots) = (&mut self.factor, &mut self.inverse_pivots);
        if !self.factored {
            l.clear();
            l.resize(plan.start[n], 0.0);
            for t in &plan.terms {
                let (a, b) = (&buffer.entries[t.a], &buffer.entries[t.b]);
                l[t.at] += dot_through_mass(&a.jacobian, &b.jacobian, inverse_masses[a.body]);
            }
            factor(l, inverse_pivots, &plan.first, &plan.start);
            self.factored = true;
        }
        let entries = |k: usize| &buffer.entries[buffer.rows[plan.order[k]].entries.clone()];
        let x = &mut self.rhs;
        x.clear();
        x.extend((0..n).map(|k| {
            let velocity_error: f64 = entries(k)
                .iter()
                .map(|e| {
                    let v = velocities[e.body];
                    f64::from(
                        e.jacobian[0] * v.linear.x
                            + e.jacobian[1] * v.linear.y
                            + e.jacobian[2] * v.angular,
                    )
                })
                .sum();
            -(velocity_error + f64::from(bias_rate * buffer.rows[plan.order[k]].error))
        }));
        substitute(l, inverse_pivots, &plan.first, &plan.start, x);
        for k in 0..n {
            let delta = x[k] as f32;
            let row = plan.order[k];
            for e in &buffer.entries[buffer.rows[row].entries.clone()] {
                let m = inverse_masses[e.body];
                let v = &mut velocities[e.body];
                v.linear.x += m.mass * e.jacobian[0] * delta;
                v.linear.y += m.mass * e.jacobian[1] * delta;
                v.angular += m.inertia * e.jacobian[2] * delta;
            }
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
fn islands(buffer: &Buffer, bodies: &BodyTable) -> Vec<Vec<usize>> {
    let mut rows_of_body = vec![Vec::new(); bodies.entities.len()];
    for (r, row) in buffer.rows.iter().enumerate() {
        for entry in &buffer.entries[row.entries.clone()] {
            if movable(bodies.inverse_masses[entry.body]) {
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

/// `K = L Lᵀ` in place within the envelope, with the reciprocal of each pivot in
/// `inverse_pivots` (the solve multiplies instead of dividing, whose latency chains the
/// rows); a row whose pivot vanishes (redundant, or one no body can answer) gets a zero
/// reciprocal, so it takes no impulse.
fn factor(l: &mut [f64], inverse_pivots: &mut Vec<f64>, first: &[usize], start: &[usize]) {
    inverse_pivots.clear();
    inverse_pivots.resize(first.len(), 0.0);
    for k in 0..first.len() {
        for j in first[k]..=k {
            let from = first[k].max(first[j]);
            let mut sum = l[start[k] + j - first[k]];
            for c in from..j {
                sum -= l[start[k] + c - first[k]] * l[start[j] + c - first[j]];
            }
            if j < k {
                l[start[k] + j - first[k]] = sum * inverse_pivots[j];
            } else {
                let diagonal = l[start[k] + k - first[k]];
                let pivot = if sum > 1e-9 * diagonal.abs().max(f64::MIN_POSITIVE) {
                    sum.sqrt()
                } else {
                    f64::INFINITY
                };
                l[start[k] + k - first[k]] = pivot;
                inverse_pivots[k] = pivot.recip();
            }
        }
    }
}

/// `x ← (L Lᵀ)⁻¹ x`.
fn substitute(l: &[f64], inverse_pivots: &[f64], first: &[usize], start: &[usize], x: &mut [f64]) {
    for k in 0..x.len() {
        let mut sum = x[k];
        for c in first[k]..k {
            sum -= l[start[k] + c - first[k]] * x[c];
        }
        x[k] = sum * inverse_pivots[k];
    }
    for k in (0..x.len()).rev() {
        x[k] *= inverse_pivots[k];
        let xk = x[k];
        for c in first[k]..k {
            x[c] -= l[start[k] + c - first[k]] * xk;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(n: u32) -> Entity {
        Entity::from_raw_u32(n).unwrap()
    }

    const UNIT: InverseMass = InverseMass {
        mass: 1.0,
        inertia: 1.0,
    };

    /// A row holding the x velocity of `bodies[1]` equal to that of `bodies[0]`.
    fn push_rod(exact: &mut ExactRows, joint: u32, bodies: [Entity; 2], masses: [InverseMass; 2]) {
        let mut indices = [usize::MAX; 2];
        exact.push(
            entity(joint),
            &bodies,
            &mut indices,
            &masses,
            &[[[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]],
            &[0.0],
            &[0.0],
        );
    }

    fn velocities(exact: &ExactRows, x: impl Fn(Entity) -> f32) -> Vec<Velocity> {
        exact
            .bodies()
            .iter()
            .map(|&e| Velocity {
                linear: nape::Vec2::new(x(e), 0.0),
                angular: 0.0,
            })
            .collect()
    }

    fn x_of(exact: &ExactRows, velocities: &[Velocity], body: Entity) -> f32 {
        let i = exact.bodies().iter().position(|&e| e == body).unwrap();
        velocities[i].linear.x
    }

    #[test]
    fn a_changed_pattern_of_rows_is_planned_again_and_stale_bodies_are_compacted() {
        let (ground, a, b) = (entity(100), entity(101), entity(102));
        let mut exact = ExactRows::default();
        // Ground — a — b: both held to the ground's rest.
        push_rod(&mut exact, 1, [ground, a], [InverseMass::default(), UNIT]);
        push_rod(&mut exact, 2, [a, b], [UNIT, UNIT]);
        exact.swap();
        let start = |e: Entity| match e {
            e if e == a => 1.0,
            e if e == b => 3.0,
            _ => 0.0,
        };
        let mut v = velocities(&exact, start);
        exact.solve(&mut v, 1.0 / 360.0, false);
        assert!(x_of(&exact, &v, a).abs() < 1e-6 && x_of(&exact, &v, b).abs() < 1e-6);
        // The ground's rod gone: a and b share their momentum.
        for _ in 0..3 {
            push_rod(&mut exact, 2, [a, b], [UNIT, UNIT]);
            exact.swap();
        }
        let mut v = velocities(&exact, start);
        exact.solve(&mut v, 1.0 / 360.0, false);
        assert!((x_of(&exact, &v, a) - 2.0).abs() < 1e-6);
        assert!((x_of(&exact, &v, b) - 2.0).abs() < 1e-6);
        // Many bodies that left the rows: the table drops them.
        for n in 0..40 {
            push_rod(
                &mut exact,
                3 + n,
                [entity(200 + n), entity(300 + n)],
                [UNIT, UNIT],
            );
        }
        exact.swap();
        for _ in 0..2 {
            push_rod(&mut exact, 2, [a, b], [UNIT, UNIT]);
            exact.swap();
        }
        assert_eq!(exact.bodies().len(), 2);
    }
}
