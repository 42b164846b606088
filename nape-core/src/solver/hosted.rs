//! nape's exact joint solve for an engine that keeps its own bodies and joints (the
//! Bevy/Avian plugin `nape-avian`): the same sparse factorisation of `J M⁻¹ Jᵀ` that a
//! [`Space`](crate::Space) steps its acyclic and lightly looped islands with
//! (`direct::DirectSystem`), driven through rows the host writes.

use super::direct::{DirectSlot, DirectSystem, Islands, Link};
use crate::constraint::SharedSlots;
use crate::settings::SoftStep;
use crate::types::{InverseMass, Velocity};

/// The exact velocity solve of a host engine's joints.
///
/// The host declares its joints ([`set_joints`](Self::set_joints): each joint's row count
/// and its distinct bodies, indices into the host's body arrays), writes each joint's rows
/// ([`set_row`](Self::set_row): the row's `J` on each of its bodies, its bias and its
/// accumulated impulse), factorises ([`factor`](Self::factor)) and solves
/// ([`solve`](Self::solve), [`project`](Self::project)). A solve finds the impulses `Δλ`
/// with `J (v + M⁻¹ Jᵀ Δλ) = −b` on every row of the islands it covers, adds `M⁻¹ Jᵀ Δλ`
/// to the velocities and `Δλ` to the rows' impulses: one factorisation and two
/// substitutions, in linear time on a chain or a tree, in `f64`, so that a heavy body
/// hangs on a light one without stretching the joint.
///
/// Islands are the joints joined through bodies with a finite mass. One is solved
/// exactly when its joints, merged per set of bodies, form a tree or close at most
/// a few dozen loop rows (a linkage, a ring, a scissor lift), and no set of bodies carries
/// more than six rows; [`is_exact`](Self::is_exact) tells which joints are, and the host
/// solves the others itself (meshes and grids take its iterative solver, as in a
/// `Space`).
///
/// ```
/// use nape_core::{ExactSolver, InverseMass, Vec2, Velocity};
///
/// // A body hung from a static one (index 0) by a vertical row, and a second body below it.
/// let fixed = InverseMass::default();
/// let unit = InverseMass { mass: 1.0, inertia: 1.0 };
/// let masses = [fixed, unit, unit];
/// let mut solver = ExactSolver::new();
/// solver.set_joints([(1, &[0u32, 1][..]), (1, &[1, 2][..])], &masses);
/// let up = [[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]];
/// solver.set_row(0, 0, &up, 0.0, 0.0);
/// solver.set_row(1, 0, &up, 0.0, 0.0);
/// solver.factor(&masses);
/// let mut velocities = [Velocity::default(); 3];
/// velocities[2].linear = Vec2::new(0.0, -2.0);
/// solver.solve(&masses, &mut velocities, true);
/// // Both rows hold: the two bodies move as the static one does.
/// assert!(velocities[1].linear.y.abs() < 1e-6 && velocities[2].linear.y.abs() < 1e-6);
/// assert!((solver.impulse(1, 0) - 2.0).abs() < 1e-5);
/// ```
#[derive(Default)]
pub struct ExactSolver {
    direct: DirectSystem,
    /// The joints of the last rebuild.
    links: Vec<Link>,
    /// The bodies that move, as of the last rebuild.
    movable: Vec<bool>,
    /// Where each joint's rows live (`None`: not solved exactly).
    slots: Vec<Option<DirectSlot>>,
    /// Scratch of [`set_joints`](Self::set_joints): the declared joints and bodies,
    /// compared with the last rebuild's.
    declared: Vec<Link>,
    declared_movable: Vec<bool>,
    /// The island of each body, for [`body_island`](Self::body_island).
    body_islands: Vec<u32>,
    /// Each joint's first row in `bias` and `held_jacobian`.
    first_row: Vec<usize>,
    /// Each row's own bias, to which a solve adds its bodies that do not move (static or
    /// kinematic: not in the factorisation) as `J v`.
    bias: Vec<f32>,
    /// Each row's `J` on each of its joint's slots whose body does not move
    /// ([`ExactSolver::MAX_BODIES`] per row).
    held_jacobian: Vec<[f32; 3]>,
    /// The exactly solved joints with a body that does not move.
    held_joints: Vec<usize>,
    /// Every island, for [`project`](Self::project)'s restore of the impulses.
    every_island: Vec<bool>,
    /// Whether a joint's row changed since the last factorisation.
    stale: bool,
}

impl ExactSolver {
    /// The most rows one joint may have.
    pub const MAX_ROWS: usize = super::direct::MAX_ROWS;

    /// The most distinct bodies one joint may have.
    pub const MAX_BODIES: usize = SharedSlots::MAX_SLOTS;

    /// The soft step a [`Space`](crate::Space) at its defaults gives the stiff rows of an
    /// island it does not solve exactly (a mesh), for a substep of `h` seconds, one of
    /// `substeps` in the step: what the host's own solve of the joints this solver does
    /// not take ([`is_exact`](Self::is_exact)) should use for its biased pass, so that a
    /// mesh's sweeps stay stable as a `Space`'s do (a rigid row in a Gauss–Seidel sweep
    /// over a mesh overshoots).
    #[must_use]
    pub fn mesh_step(h: f32, substeps: u32) -> SoftStep {
        super::step::swept_joint_softness(
            f32::INFINITY,
            super::step::DEFAULT_JOINT_DAMPING_RATIO,
            h,
            substeps.max(1),
        )
    }

    /// A solver without joints.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares the joints the next rows, factorisations and solves are of: each joint's
    /// row count (1 to [`MAX_ROWS`](Self::MAX_ROWS)) and its distinct bodies (1 to
    /// [`MAX_BODIES`](Self::MAX_BODIES), indices into `inverse_masses`); a body moves when
    /// either of its inverse masses is positive. The islands are planned again only when
    /// the joints, their bodies or which bodies move changed; every row is then inactive
    /// until [`set_row`](Self::set_row) writes it, and every impulse zero.
    ///
    /// # Panics
    ///
    /// On a joint with no row or more than `MAX_ROWS`, with no body or more than
    /// `MAX_BODIES`, with a body twice, or with a body outside `inverse_masses`: the
    /// host's rows would not mean what it wrote.
    pub fn set_joints<'a>(
        &mut self,
        joints: impl IntoIterator<Item = (usize, &'a [u32])>,
        inverse_masses: &[InverseMass],
    ) {
        self.declared.clear();
        for (rows, bodies) in joints {
            assert!(
                (1..=Self::MAX_ROWS).contains(&rows),
                "a joint has 1 to {} rows, not {rows}",
                Self::MAX_ROWS
            );
            assert!(
                (1..=Self::MAX_BODIES).contains(&bodies.len()),
                "a joint has 1 to {} bodies, not {}",
                Self::MAX_BODIES,
                bodies.len()
            );
            let mut link = Link {
                rows,
                bodies: [0; Self::MAX_BODIES],
                slots: bodies.len(),
            };
            for (s, &b) in bodies.iter().enumerate() {
                assert!(
                    (b as usize) < inverse_masses.len(),
                    "body {b} of a joint is outside the {} bodies",
                    inverse_masses.len()
                );
                assert!(!bodies[..s].contains(&b), "body {b} is twice in one joint");
                link.bodies[s] = b;
            }
            self.declared.push(link);
        }
        self.declared_movable.clear();
        self.declared_movable.extend(
            inverse_masses
                .iter()
                .map(|m| m.mass > 0.0 || m.inertia > 0.0),
        );
        let same = self.declared_movable == self.movable
            && self.declared.len() == self.links.len()
            && self.declared.iter().zip(&self.links).all(|(a, b)| {
                a.rows == b.rows && a.slots == b.slots && a.bodies[..a.slots] == b.bodies[..b.slots]
            });
        if same {
            return;
        }
        std::mem::swap(&mut self.links, &mut self.declared);
        std::mem::swap(&mut self.movable, &mut self.declared_movable);
        self.slots = self.direct.rebuild(&self.links, &self.movable);
        self.direct.reset_rows();
        self.direct
            .body_islands(self.movable.len(), &mut self.body_islands);
        self.every_island.clear();
        self.every_island.resize(self.direct.island_count(), true);
        self.first_row.clear();
        let mut rows = 0;
        for link in &self.links {
            self.first_row.push(rows);
            rows += link.rows;
        }
        self.bias.clear();
        self.bias.resize(rows, 0.0);
        self.held_jacobian.clear();
        self.held_jacobian.resize(rows * Self::MAX_BODIES, [0.0; 3]);
        self.held_joints.clear();
        for (j, link) in self.links.iter().enumerate() {
            let holds = link.bodies[..link.slots]
                .iter()
                .any(|&b| !self.movable[b as usize]);
            if holds && self.slots[j].is_some() {
                self.held_joints.push(j);
            }
        }
        self.stale = true;
    }

    /// Whether joint `joint` (its index in the last [`set_joints`](Self::set_joints)) is
    /// solved here; a joint that is not takes no impulse from a solve.
    #[must_use]
    pub fn is_exact(&self, joint: usize) -> bool {
        matches!(self.slots.get(joint), Some(Some(_)))
    }

    /// The island of `body` among the exactly solved joints, or `None` for a body none of
    /// them moves: bodies of one island move together in a solve, bodies of two never.
    #[must_use]
    pub fn body_island(&self, body: usize) -> Option<usize> {
        self.body_islands
            .get(body)
            .filter(|&&island| island != u32::MAX)
            .map(|&island| island as usize)
    }

    /// Writes row `row` of joint `joint`: its `J` on each of the joint's bodies (`[x, y,
    /// θ]`, in the order [`set_joints`](Self::set_joints) gave them), its bias `b` (the row
    /// then asks for `J v = −b`: `error / h` removes a positional error in a substep of
    /// `h`; [`project`](Self::project) asks for `J v = 0`) and its accumulated impulse
    /// (the warm start; a solve adds to it). Nothing for a joint not solved here.
    ///
    /// # Panics
    ///
    /// On a row beyond the joint's rows, or `jacobian` not one entry per body.
    pub fn set_row(
        &mut self,
        joint: usize,
        row: usize,
        jacobian: &[[f32; 3]],
        bias: f32,
        impulse: f32,
    ) {
        let link = self.links[joint];
        assert!(
            row < link.rows,
            "row {row} of a joint of {} rows",
            link.rows
        );
        assert_eq!(
            jacobian.len(),
            link.slots,
            "one J entry per body of the joint"
        );
        let Some(slot) = self.slots[joint] else {
            return;
        };
        self.direct
            .set_row(&slot, row, jacobian, [bias, 0.0], impulse);
        let at = self.first_row[joint] + row;
        self.bias[at] = bias;
        for (s, (&b, j)) in link.bodies[..link.slots].iter().zip(jacobian).enumerate() {
            if !self.movable[b as usize] {
                self.held_jacobian[at * Self::MAX_BODIES + s] = *j;
            }
        }
        self.stale = true;
    }

    /// Factorises every island's system for the rows written (with the bodies' inverse
    /// masses, one per body); [`solve`](Self::solve) and [`project`](Self::project)
    /// factorise first themselves when a row changed since.
    pub fn factor(&mut self, inverse_masses: &[InverseMass]) {
        assert_eq!(
            inverse_masses.len(),
            self.movable.len(),
            "one inverse mass per body"
        );
        self.direct.factor(Islands::All, inverse_masses);
        self.stale = false;
    }

    /// One exact velocity solve of every island: with each row's bias when `biased`, with
    /// none otherwise (a relax pass); adds the impulses to the velocities (one per body)
    /// and to the rows'.
    pub fn solve(
        &mut self,
        inverse_masses: &[InverseMass],
        velocities: &mut [Velocity],
        biased: bool,
    ) {
        if self.stale {
            self.factor(inverse_masses);
        }
        assert_eq!(
            velocities.len(),
            self.movable.len(),
            "one velocity per body"
        );
        self.add_held_velocities(velocities);
        let pass = if biased { 0 } else { 1 };
        self.direct
            .solve(pass, Islands::All, inverse_masses, velocities);
    }

    /// Makes `velocities` meet every row (`J v = 0`) without changing the rows'
    /// impulses: what the bodies' velocities are along the joints, the warm start left as
    /// it was.
    pub fn project(&mut self, inverse_masses: &[InverseMass], velocities: &mut [Velocity]) {
        self.direct.save_impulses();
        self.solve(inverse_masses, velocities, false);
        self.direct.restore_impulses(&self.every_island);
    }

    /// Adds to each row's biases what its bodies that do not move contribute to `J v`
    /// (a kinematic body's velocity), which the factorisation, of the moving bodies only,
    /// does not see.
    fn add_held_velocities(&mut self, velocities: &[Velocity]) {
        for &j in &self.held_joints {
            let (link, Some(slot)) = (self.links[j], self.slots[j]) else {
                continue;
            };
            for row in 0..link.rows {
                let at = self.first_row[j] + row;
                let mut share = 0.0;
                for (s, &b) in link.bodies[..link.slots].iter().enumerate() {
                    if !self.movable[b as usize] {
                        let (e, v) = (
                            self.held_jacobian[at * Self::MAX_BODIES + s],
                            velocities[b as usize],
                        );
                        share += e[0] * v.linear.x + e[1] * v.linear.y + e[2] * v.angular;
                    }
                }
                self.direct
                    .set_biases(&slot, row, [self.bias[at] + share, share]);
            }
        }
    }

    /// The accumulated impulse of row `row` of joint `joint` (0 for a joint not solved
    /// here).
    #[must_use]
    pub fn impulse(&self, joint: usize, row: usize) -> f32 {
        let mut out = [0.0; Self::MAX_ROWS];
        self.impulses(joint, &mut out[..=row]);
        out[row]
    }

    /// The accumulated impulses of the first `out.len()` rows of joint `joint` into
    /// `out` (zeros for a joint not solved here).
    ///
    /// # Panics
    ///
    /// On more rows than the joint has.
    pub fn impulses(&self, joint: usize, out: &mut [f32]) {
        assert!(
            out.len() <= self.links[joint].rows,
            "{} rows of a joint of {}",
            out.len(),
            self.links[joint].rows
        );
        let Some(slot) = self.slots[joint] else {
            out.fill(0.0);
            return;
        };
        let read = [true; Self::MAX_ROWS];
        self.direct.read_impulses(&slot, &read[..out.len()], out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    const ROD: InverseMass = InverseMass {
        mass: 0.5,
        inertia: 1.5,
    };

    /// A pivot's rows: per row, `J` on each of its two bodies.
    type PivotRows = [[[f32; 3]; 2]; 2];

    /// A pivot's two rows between bodies whose anchors sit `r1` and `r2` from their
    /// centres: `C = x₂ + r₂ − x₁ − r₁`.
    fn pivot_rows(r1: Vec2, r2: Vec2) -> PivotRows {
        [
            [[-1.0, 0.0, r1.y], [1.0, 0.0, -r2.y]],
            [[0.0, -1.0, -r1.x], [0.0, 1.0, r2.x]],
        ]
    }

    /// Four 2 m rods pinned end to end into a square (a loop among moving bodies), each
    /// rod's centre on its side, drifting and turning at random.
    fn square() -> (ExactSolver, Vec<PivotRows>, Vec<Velocity>) {
        let sides = [Vec2::X, Vec2::Y, -Vec2::X, -Vec2::Y];
        let joints: Vec<(usize, [u32; 2])> = (0..4)
            .map(|i| (2, [i as u32, ((i + 1) % 4) as u32]))
            .collect();
        let mut solver = ExactSolver::new();
        solver.set_joints(joints.iter().map(|(n, b)| (*n, &b[..])), &[ROD; 4]);
        let rows: Vec<_> = (0..4)
            .map(|i| pivot_rows(sides[i], -sides[(i + 1) % 4]))
            .collect();
        let velocities = (0..4)
            .map(|i| Velocity {
                linear: Vec2::new(0.3 * i as f32 - 0.4, 1.0 - 0.7 * i as f32),
                angular: 0.9 - 0.5 * i as f32,
            })
            .collect();
        (solver, rows, velocities)
    }

    fn write(solver: &mut ExactSolver, rows: &[PivotRows], impulse: f32) {
        for (j, joint) in rows.iter().enumerate() {
            for (r, row) in joint.iter().enumerate() {
                solver.set_row(j, r, row, 0.0, impulse);
            }
        }
    }

    fn worst_row_velocity(rows: &[PivotRows], v: &[Velocity]) -> f32 {
        let mut worst = 0.0f32;
        for (j, joint) in rows.iter().enumerate() {
            let bodies = [j, (j + 1) % 4];
            for row in joint {
                let jv: f32 = row
                    .iter()
                    .zip(bodies)
                    .map(|(e, b)| e[0] * v[b].linear.x + e[1] * v[b].linear.y + e[2] * v[b].angular)
                    .sum();
                worst = worst.max(jv.abs());
            }
        }
        worst
    }

    fn momentum(v: &[Velocity]) -> Vec2 {
        v.iter().map(|v| v.linear / ROD.mass).sum()
    }

    #[test]
    fn a_closed_loop_is_solved_exactly_and_keeps_its_momentum() {
        let (mut solver, rows, mut v) = square();
        assert!((0..4).all(|j| solver.is_exact(j)));
        assert!((0..4).all(|b| solver.body_island(b) == Some(0)));
        write(&mut solver, &rows, 0.0);
        let before = momentum(&v);
        assert!(worst_row_velocity(&rows, &v) > 0.5);
        solver.solve(&[ROD; 4], &mut v, true);
        assert!(
            worst_row_velocity(&rows, &v) < 1e-5,
            "{}",
            worst_row_velocity(&rows, &v)
        );
        assert!((momentum(&v) - before).length() < 1e-5);
        assert!((0..4).any(|j| solver.impulse(j, 0) != 0.0));
    }

    #[test]
    fn a_projection_meets_the_rows_and_keeps_the_impulses() {
        let (mut solver, rows, mut v) = square();
        write(&mut solver, &rows, 0.25);
        solver.project(&[ROD; 4], &mut v);
        assert!(worst_row_velocity(&rows, &v) < 1e-5);
        assert!((0..4).all(|j| solver.impulse(j, 1) == 0.25));
        // The same joints declared again plan nothing anew: the impulses stay.
        let joints: Vec<[u32; 2]> = (0..4).map(|i| [i, (i + 1) % 4]).collect();
        solver.set_joints(joints.iter().map(|b| (2, &b[..])), &[ROD; 4]);
        assert_eq!(solver.impulse(3, 0), 0.25);
    }

    #[test]
    fn a_bias_is_the_velocity_error_a_row_is_left_with() {
        let (mut solver, rows, mut v) = square();
        write(&mut solver, &rows, 0.0);
        solver.set_row(0, 0, &rows[0][0], 0.5, 0.0);
        solver.solve(&[ROD; 4], &mut v, true);
        let [a, b] = rows[0][0];
        let jv =
            a[0] * v[0].linear.x + a[2] * v[0].angular + b[0] * v[1].linear.x + b[2] * v[1].angular;
        assert!((jv + 0.5).abs() < 1e-5, "{jv}");
        // The relax pass takes no bias.
        solver.solve(&[ROD; 4], &mut v, false);
        assert!(worst_row_velocity(&rows, &v) < 1e-5);
    }

    #[test]
    fn joints_a_body_set_cannot_hold_are_left_to_the_host() {
        // Four pivots between one pair: eight rows on three degrees of freedom of
        // relative motion, more than a set of bodies carries.
        let mut solver = ExactSolver::new();
        let pair = [0u32, 1];
        solver.set_joints((0..4).map(|_| (2, &pair[..])), &[ROD; 2]);
        assert!((0..4).all(|j| !solver.is_exact(j)));
        assert_eq!(solver.body_island(0), None);
        let rows = pivot_rows(Vec2::X, -Vec2::X);
        solver.set_row(0, 0, &rows[0], 0.0, 0.0);
        let mut v = [Velocity {
            linear: Vec2::X,
            angular: 0.0,
        }; 2];
        v[1].linear = -Vec2::X;
        solver.solve(&[ROD; 2], &mut v, true);
        assert_eq!(v[1].linear, -Vec2::X);
        assert_eq!(solver.impulse(0, 0), 0.0);
    }

    #[test]
    fn a_kinematic_body_carries_the_bodies_jointed_to_it() {
        // A rod hung from a kinematic carrier moving at 1 m/s (a body that does not move
        // under impulses: not in the factorisation, its velocity in the rows' bias).
        let masses = [InverseMass::default(), ROD];
        let mut solver = ExactSolver::new();
        solver.set_joints([(2, &[0u32, 1][..])], &masses);
        assert!(solver.is_exact(0));
        assert_eq!(solver.body_island(0), None);
        let rows = pivot_rows(Vec2::ZERO, Vec2::Y);
        for (r, row) in rows.iter().enumerate() {
            solver.set_row(0, r, row, 0.0, 0.0);
        }
        let mut v = [Velocity::default(); 2];
        v[0].linear = Vec2::X;
        for biased in [true, false] {
            solver.solve(&masses, &mut v, biased);
            for row in &rows {
                let jv: f32 = row
                    .iter()
                    .zip(&v)
                    .map(|(e, v)| e[0] * v.linear.x + e[1] * v.linear.y + e[2] * v.angular)
                    .sum();
                assert!(jv.abs() < 1e-6, "{jv}");
            }
        }
        assert_eq!(v[0].linear, Vec2::X);
        assert!(v[1].linear.x > 0.1);
    }

    #[test]
    #[should_panic(expected = "twice in one joint")]
    fn a_body_twice_in_one_joint_is_refused() {
        ExactSolver::new().set_joints([(1, &[1u32, 1][..])], &[ROD; 2]);
    }
}
