//! The exact velocity solve of stiff equality joints, all types together: per island of
//! bodies, `K Δλ = −(J v + bias)` with `K = J M⁻¹ Jᵀ` over every row of the island, by
//! nape's own exact solver ([`ExactSolver`], the sparse factorisation a `Space` steps its
//! islands with: linear time on a chain or a tree, a few loops closed through its Schur
//! complement). Gauss–Seidel, one pass per phase, cannot hold a heavy body on a light one
//! (a 1:100 weld flies apart); this solve holds it to the drift of one substep (5e-5 m in
//! the test). A joint the solver does not take (in a mesh with more loops than it closes)
//! solves itself, as a soft or limited joint does ([`ExactRows::covers`]).
//!
//! Each joint type's systems write their rows here ([`ExactRows::push`], then
//! [`ExactRows::update`] for the relax's new poses) and read their impulses back
//! ([`ExactRows::impulse`]); rows are double-buffered so a joint reads the last
//! substep's impulses while the next substep's rows are written.
//!
//! The work per substep is the numbers only: bodies keep their index from substep to
//! substep (a joint remembers its bodies' indices, so a push looks nothing up), and the
//! solver plans its islands again only when the joints or their bodies change.

use std::collections::HashMap;

use bevy::prelude::{Entity, Resource};
use nape::{ExactSolver, InverseMass, Velocity};

#[derive(Clone, Debug)]
struct Row {
    joint: Entity,
    /// Its joint's index among the buffer's joints (the solver's joint).
    index: usize,
    /// Its entries: one per distinct body of its joint, in slot order.
    entries: std::ops::Range<usize>,
    error: f32,
    impulse: f32,
}

/// One substep's rows and each joint's range of them.
#[derive(Default)]
struct Buffer {
    rows: Vec<Row>,
    joints: Vec<std::ops::Range<usize>>,
    /// Each entry's body and its part of its row, `∂c/∂(x, y, θ)`.
    entry_bodies: Vec<usize>,
    entry_jacobians: Vec<[f32; 3]>,
}

impl Buffer {
    fn clear(&mut self) {
        self.rows.clear();
        self.joints.clear();
        self.entry_bodies.clear();
        self.entry_jacobians.clear();
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

/// The rows of this substep's exactly solved joints, solved by nape's exact solver
/// ([`ExactSolver`]), the one a `Space` steps its islands with.
#[derive(Resource, Default)]
pub(crate) struct ExactRows {
    current: Buffer,
    building: Buffer,
    bodies: BodyTable,
    solver: ExactSolver,
    /// Scratch of a declaration: each joint's row count and range of `joint_bodies`.
    joint_spans: Vec<(usize, std::ops::Range<usize>)>,
    joint_bodies: Vec<u32>,
    /// Whether the solver holds the current rows' `J` (no update or swap since).
    written: bool,
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

    /// Whether the current rows at `offset` are `joint`'s and solved here; the rows of a
    /// joint the exact solver does not take (a mesh's, with more loops than it closes)
    /// are the joint's own to solve.
    pub(crate) fn covers(&self, joint: Entity, offset: Option<RowOffset>) -> bool {
        offset
            .and_then(|o| self.current.rows.get(o))
            .is_some_and(|row| row.joint == joint && self.solver.is_exact(row.index))
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
        let index = buffer.joints.len();
        buffer.joints.push(offset..offset + D);
        for i in 0..D {
            let start = buffer.entry_bodies.len();
            for s in 0..B {
                buffer.merge_entry(start, body_indices[s], jacobian[i][s]);
            }
            buffer.rows.push(Row {
                joint,
                index,
                entries: start..buffer.entry_bodies.len(),
                error: error[i],
                impulse: impulse[i],
            });
        }
        offset
    }

    /// Makes the rows pushed since the last call the current ones, and the solver's
    /// joints theirs (which it plans again only when they or their bodies changed).
    pub(crate) fn swap(&mut self) {
        std::mem::swap(&mut self.current, &mut self.building);
        self.written = false;
        self.building.clear();
        self.bodies.end_generation();
        let Self {
            current,
            joint_spans,
            joint_bodies,
            ..
        } = self;
        joint_spans.clear();
        joint_bodies.clear();
        // A row's entries are its joint's distinct bodies, in slot order.
        for rows in &current.joints {
            let first = joint_bodies.len();
            let entries = current.rows[rows.start].entries.clone();
            joint_bodies.extend(current.entry_bodies[entries].iter().map(|&b| b as u32));
            joint_spans.push((rows.len(), first..joint_bodies.len()));
        }
        let bodies = &self.joint_bodies;
        self.solver.set_joints(
            self.joint_spans
                .iter()
                .map(|(rows, span)| (*rows, &bodies[span.clone()])),
            &self.bodies.inverse_masses,
        );
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
        self.written = false;
        for i in 0..D {
            let row = &mut buffer.rows[offset + i];
            row.error = error[i];
            let entries = row.entries.clone();
            buffer.entry_jacobians[entries.clone()].fill([0.0; 3]);
            for s in 0..B {
                buffer.merge_entry(entries.start, body_indices[s], jacobian[i][s]);
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
        self.write_rows(1.0 / h);
        self.solver
            .solve(&self.bodies.inverse_masses, velocities, biased);
        let Self {
            current, solver, ..
        } = self;
        let mut impulses = [0.0; ExactSolver::MAX_ROWS];
        for (joint, rows) in current.joints.iter().enumerate() {
            let impulses = &mut impulses[..rows.len()];
            solver.impulses(joint, impulses);
            for (row, &impulse) in current.rows[rows.clone()].iter_mut().zip(impulses.iter()) {
                row.impulse = impulse;
            }
        }
    }

    /// Makes `velocities` meet the current rows (`J v = 0`, `J` as the last
    /// [`update`](Self::update) left it) without adding to the rows' impulses, which the
    /// next substep's warm start reads.
    pub(crate) fn project(&mut self, velocities: &mut [Velocity]) {
        self.write_rows(0.0);
        self.solver.project(&self.bodies.inverse_masses, velocities);
    }

    /// The island of body `index` among the current rows' exactly solved joints (islands
    /// joined through movable bodies), or `None` for a body none of them moves.
    pub(crate) fn island_of(&self, index: usize) -> Option<usize> {
        self.solver.body_island(index)
    }

    /// The index of `entity` among [`bodies`](Self::bodies).
    pub(crate) fn index_of(&self, entity: Entity) -> Option<usize> {
        self.bodies.index.get(&entity).copied()
    }

    /// Writes every current row into the solver (its `J` per body, the bias
    /// `bias_rate · error` and its impulse) unless it holds them already.
    fn write_rows(&mut self, bias_rate: f32) {
        if std::mem::replace(&mut self.written, true) {
            return;
        }
        let Self {
            current, solver, ..
        } = self;
        for rows in &current.joints {
            for (i, r) in current.rows[rows.clone()].iter().enumerate() {
                let jacobian = &current.entry_jacobians[r.entries.clone()];
                solver.set_row(r.index, i, jacobian, bias_rate * r.error, r.impulse);
            }
        }
    }
}

impl Buffer {
    /// Adds `jacobian` to the entry of `body` among the entries from `start`, or appends
    /// one.
    fn merge_entry(&mut self, start: usize, body: usize, jacobian: [f32; 3]) {
        match self.entry_bodies[start..].iter().position(|&b| b == body) {
            Some(k) => {
                let entry = &mut self.entry_jacobians[start + k];
                for (e, j) in entry.iter_mut().zip(jacobian) {
                    *e += j;
                }
            }
            None => {
                self.entry_bodies.push(body);
                self.entry_jacobians.push(jacobian);
            }
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
