//! Loops: the rows that close an island's loops, solved through the Schur complement of
//! the tree the others form.
//!
//! An island's super nodes are split when it is built into a spanning forest — each
//! joining bodies no earlier one joined — and the rest, which close its loops (a
//! four-bar's fourth pin, a ring's last, a scissor lift's crossings). The forest is
//! factorised by Baraff's elimination as any tree is; the loop-closing rows `C` then
//! take the Schur complement
//!
//! ```text
//! S = K_CC + Γ_C − K_CT (K_TT + Γ_T)⁻¹ K_TC
//! ```
//!
//! formed column by column from the tree's response to a unit impulse along each of
//! them (one tree substitution each), and factorised densely (Cholesky). A solve is the
//! tree's substitution, then the loop rows' impulses from what the tree's left them,
//! then each loop row's response added to the tree's impulses and the bodies' `Jᵀμ`:
//! the same exact solution of the whole island's system a sparse factorisation gives,
//! with its fill confined to `S` (`O(k n)` for `k` loop rows among `n`, then `O(k³)`;
//! Baraff 1996, §8). Redundant loop rows (a scissor lift's, whose crossings repeat what
//! its sides hold) make `S` singular but for the rows' relative compliance, which keeps
//! its factorisation finite and the redundant rows' shared load split between them; a
//! pivot that vanishes altogether drops its row.

use super::*;

/// One island's loop-closing rows and where their responses live.
#[derive(Clone, Debug, Default)]
struct LoopIsland {
    /// Its loop-closing super nodes' range in [`Loops::cuts`].
    cuts: std::ops::Range<usize>,
    /// Its loop rows' range in the per-loop-row arrays.
    rows: std::ops::Range<usize>,
    /// Its bodies' range in the system's `island_bodies`.
    bodies: std::ops::Range<usize>,
    /// Its tree's unknowns' range in `solution`.
    dofs: std::ops::Range<usize>,
    /// Offsets of its responses (`rows × bodies`), tree responses (`rows × dofs`) and
    /// Schur complement (`rows × rows`).
    responses_at: usize,
    tree_at: usize,
    schur_at: usize,
}

/// The loop-closing rows of every island solved exactly, and their factorisation.
#[derive(Debug, Default)]
pub(super) struct Loops {
    islands: Vec<LoopIsland>,
    /// The loop-closing super nodes, island after island.
    cuts: Vec<u32>,
    /// Per loop row: its super node and its row in it.
    pub(super) rows: Vec<(u32, usize)>,
    /// Per loop row: the position of each of its super node's bodies among its island's
    /// bodies.
    positions: Vec<[u32; MAX_BODIES]>,
    /// Per loop row: `M⁻¹ Jᵀ` on its super node's bodies, with the inverse masses of the
    /// last factorisation.
    weighted: Vec<[[f64; 3]; MAX_BODIES]>,
    /// Per loop row `j`, over its island's bodies: `Jⱼᵀ + J_Tᵀ Wⱼ`, the momentum a unit
    /// impulse along it gives each body once the tree answers it.
    responses: Vec<[f64; 3]>,
    /// Per loop row `j`, over its island's tree unknowns: `Wⱼ`, the tree's impulses that
    /// answer it.
    tree_responses: Vec<f64>,
    /// Per island, the Cholesky factor `L` of `S` (row-major, lower triangle).
    schur: Vec<f64>,
    /// Per loop row: whether its pivot vanished (it takes no impulse).
    dropped: Vec<bool>,
    /// Per loop row: its right-hand side, the impulse of the last solve, and a
    /// refinement's step towards it.
    rhs: Vec<f64>,
    pub(super) solution: Vec<f64>,
    step: Vec<f64>,
    /// Per body, the velocities `M⁻¹ Jⱼᵀ` whose tree rows a response solve reads.
    pub(super) velocity: Vec<[f64; 3]>,
    /// Scratch: the tree's impulses a solve's loop rows add, over one island's unknowns.
    correction: Vec<f64>,
}

/// A pivot of `S` below this share of its row's own diagonal is taken as zero: what the
/// rows before it leave of the row is its compliance alone (a stiff row's is 1e-9 of
/// its mass), so the row repeats what they hold. Its impulse would be what the positions'
/// rounding and curvature leave of it over that compliance — a consistent redundant row
/// needs none, an inconsistent one would be flung by it.
const VANISHING_PIVOT: f64 = 1e-6;

impl DirectSystem {
    /// Lays out the loop rows of every island (after [`build_tree`](Self::build_tree)).
    pub(super) fn build_loops(&mut self, body_count: usize) {
        let mut loops = Loops {
            velocity: vec![[0.0; 3]; body_count],
            ..Loops::default()
        };
        let mut position = vec![u32::MAX; body_count];
        let mut cuts_of: Vec<Vec<u32>> = vec![Vec::new(); self.islands.len()];
        for (s, sn) in self.supers.iter().enumerate() {
            if sn.closes_loop {
                cuts_of[self.island_of[s] as usize].push(s as u32);
            }
        }
        let (mut responses, mut tree, mut schur, mut widest) = (0, 0, 0, 0);
        for (k, nodes) in self.islands.iter().enumerate() {
            let bodies = self.island_body_ranges[k].clone();
            for (p, &b) in self.island_bodies[bodies.clone()].iter().enumerate() {
                position[b as usize] = p as u32;
            }
            let first = &self.nodes[nodes.start];
            let last = &self.nodes[nodes.end - 1];
            let dofs = first.dof_offset..last.dof_offset + last.size;
            let (cut_start, row_start) = (loops.cuts.len(), loops.rows.len());
            for &s in &cuts_of[k] {
                let sn = &self.supers[s as usize];
                let mut at = [u32::MAX; MAX_BODIES];
                for (a, &b) in at.iter_mut().zip(&sn.bodies[..sn.body_count]) {
                    *a = position[b as usize];
                }
                for r in 0..sn.rows {
                    loops.rows.push((s, r));
                    loops.positions.push(at);
                }
                loops.cuts.push(s);
            }
            let m = loops.rows.len() - row_start;
            loops.islands.push(LoopIsland {
                cuts: cut_start..loops.cuts.len(),
                rows: row_start..loops.rows.len(),
                bodies: bodies.clone(),
                dofs: dofs.clone(),
                responses_at: responses,
                tree_at: tree,
                schur_at: schur,
            });
            if m > 0 {
                responses += m * bodies.len();
                tree += m * dofs.len();
                schur += m * m;
                widest = widest.max(dofs.len());
            }
        }
        let rows = loops.rows.len();
        loops.weighted = vec![[[0.0; 3]; MAX_BODIES]; rows];
        loops.dropped = vec![false; rows];
        loops.rhs = vec![0.0; rows];
        loops.solution = vec![0.0; rows];
        loops.step = vec![0.0; rows];
        loops.responses = vec![[0.0; 3]; responses];
        loops.tree_responses = vec![0.0; tree];
        loops.schur = vec![0.0; schur];
        loops.correction = vec![0.0; widest];
        self.loops = loops;
    }

    /// Whether island `k` has loop-closing rows.
    pub(super) fn has_loops(&self, k: usize) -> bool {
        !self.loops.islands[k].rows.is_empty()
    }

    /// The ranges of island `k`'s loop-closing rows in the per-row arrays, one per super
    /// node.
    pub(super) fn loop_rows(&self, k: usize) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        self.loops.cuts[self.loops.islands[k].cuts.clone()]
            .iter()
            .map(|&s| {
                let sn = &self.supers[s as usize];
                sn.row_offset..sn.row_offset + sn.rows
            })
    }

    /// Forms and factorises island `k`'s Schur complement of its loop rows, its tree
    /// factorised already.
    pub(super) fn factor_loops(&mut self, k: usize, inverse_masses: &[InverseMass]) {
        if !self.has_loops(k) {
            return;
        }
        let island = self.loops.islands[k].clone();
        let m = island.rows.len();
        let (nb, nd) = (island.bodies.len(), island.dofs.len());
        for (j, g) in island.rows.clone().enumerate() {
            let (s, r) = self.loops.rows[g];
            let sn = self.supers[s as usize];
            let stride = sn.body_count * 3;
            let at = sn.jacobian_offset + r * stride;
            let mut weighted = [[0.0; 3]; MAX_BODIES];
            let mut any = false;
            for (p, &b) in sn.bodies[..sn.body_count].iter().enumerate() {
                let inv = inverse_masses[b as usize];
                let (mass, inertia) = (f64::from(inv.mass), f64::from(inv.inertia));
                let jac = &self.jacobian[at + p * 3..at + p * 3 + 3];
                weighted[p] = [mass * jac[0], mass * jac[1], inertia * jac[2]];
                any |= jac.iter().any(|&x| x != 0.0);
            }
            self.loops.weighted[g] = weighted;
            let responses = island.responses_at + j * nb..island.responses_at + (j + 1) * nb;
            let tree = island.tree_at + j * nd..island.tree_at + (j + 1) * nd;
            if !any {
                // An inactive row: no impulse, no response.
                self.loops.responses[responses].fill([0.0; 3]);
                self.loops.tree_responses[tree].fill(0.0);
                continue;
            }
            for (p, &b) in sn.bodies[..sn.body_count].iter().enumerate() {
                self.loops.velocity[b as usize] = weighted[p];
            }
            self.substitute_tree(k, &kernels::ResponseRows, false);
            for &b in &sn.bodies[..sn.body_count] {
                self.loops.velocity[b as usize] = [0.0; 3];
            }
            let out = &mut self.loops.responses[responses];
            for (o, &b) in out
                .iter_mut()
                .zip(&self.island_bodies[island.bodies.clone()])
            {
                *o = std::mem::take(&mut self.delta[b as usize]);
            }
            for (p, &q) in self.loops.positions[g][..sn.body_count].iter().enumerate() {
                let jac = &self.jacobian[at + p * 3..at + p * 3 + 3];
                for (o, j) in out[q as usize].iter_mut().zip(jac) {
                    *o += j;
                }
            }
            self.loops.tree_responses[tree].copy_from_slice(&self.solution[island.dofs.clone()]);
        }
        // S_ij = Γ_ij + (M⁻¹ Jᵢᵀ) · (Jⱼᵀ + J_Tᵀ Wⱼ), symmetric but for rounding.
        let loops = &mut self.loops;
        let schur = &mut loops.schur[island.schur_at..island.schur_at + m * m];
        for (i, gi) in island.rows.clone().enumerate() {
            let (si, ri) = loops.rows[gi];
            let sn = &self.supers[si as usize];
            for (j, gj) in island.rows.clone().enumerate() {
                let response = &loops.responses[island.responses_at + j * nb..][..nb];
                let mut value = 0.0;
                for (w, &q) in loops.weighted[gi]
                    .iter()
                    .zip(&loops.positions[gi][..sn.body_count])
                {
                    let e = response[q as usize];
                    value += w[0] * e[0] + w[1] * e[1] + w[2] * e[2];
                }
                let (sj, rj) = loops.rows[gj];
                if si == sj {
                    value += self.gamma[sn.gamma_offset + ri * sn.rows + rj];
                }
                schur[i * m + j] = value;
            }
        }
        for i in 0..m {
            for j in 0..i {
                let mean = 0.5 * (schur[i * m + j] + schur[j * m + i]);
                schur[i * m + j] = mean;
                schur[j * m + i] = mean;
            }
        }
        cholesky(schur, m, &mut loops.dropped[island.rows.clone()]);
    }

    /// Completes a tree substitution of island `k` (its impulses in `solution`, their
    /// `Jᵀμ` in `delta`) into the solution of the whole island's system: the loop rows'
    /// impulses `μ_C` from `S μ_C = −(q_C + J_C M⁻¹ J_Tᵀ μ_T)`, and each one's response
    /// added to the tree's impulses and the bodies' sums; then once more from what that
    /// leaves of the loop rows' own equations (`S` is formed by a subtraction, which
    /// loses the digits a mass ratio or a near-redundant loop puts in it; the tree's rows
    /// hold by construction). With `accumulate_impulses`, the change is added to the
    /// accumulated impulses as the tree's substitution added its own.
    pub(super) fn close_loops(
        &mut self,
        k: usize,
        rows: &impl kernels::RowSource,
        accumulate_impulses: bool,
    ) {
        // Every tree solve passes here: an island without loops costs one comparison.
        if !self.has_loops(k) {
            return;
        }
        let island = self.loops.islands[k].clone();
        let m = island.rows.len();
        let mut g = island.rows.start;
        for c in island.cuts.clone() {
            let s = self.loops.cuts[c] as usize;
            let n = self.supers[s].rows;
            let mut own = [0.0; MAX_ROWS];
            kernels::rows_into(self, s, rows, &mut own[..n]);
            self.loops.rhs[g..g + n].copy_from_slice(&own[..n]);
            g += n;
        }
        let (nb, nd) = (island.bodies.len(), island.dofs.len());
        let loops = &mut self.loops;
        loops.solution[island.rows.clone()].fill(0.0);
        loops.correction[..nd].fill(0.0);
        for _ in 0..2 {
            // What the loop rows' equations leave: −(q + J M⁻¹ Σ Jᵀμ + Γ μ).
            for g in island.rows.clone() {
                let (s, r) = loops.rows[g];
                let sn = &self.supers[s as usize];
                let mut left = loops.rhs[g];
                for (w, &b) in loops.weighted[g].iter().zip(&sn.bodies[..sn.body_count]) {
                    let d = self.delta[b as usize];
                    left += w[0] * d[0] + w[1] * d[1] + w[2] * d[2];
                }
                let first = g - r;
                for q in 0..sn.rows {
                    left +=
                        self.gamma[sn.gamma_offset + r * sn.rows + q] * loops.solution[first + q];
                }
                loops.step[g] = -left;
            }
            let schur = &loops.schur[island.schur_at..island.schur_at + m * m];
            let step = &mut loops.step[island.rows.clone()];
            cholesky_solve(schur, m, &loops.dropped[island.rows.clone()], step);
            for (j, &mu) in step.iter().enumerate() {
                if mu == 0.0 {
                    continue;
                }
                let response = &loops.responses[island.responses_at + j * nb..][..nb];
                for (&b, e) in self.island_bodies[island.bodies.clone()]
                    .iter()
                    .zip(response)
                {
                    let d = &mut self.delta[b as usize];
                    for (d, e) in d.iter_mut().zip(e) {
                        *d += mu * e;
                    }
                }
                let tree = &loops.tree_responses[island.tree_at + j * nd..][..nd];
                for (c, w) in loops.correction[..nd].iter_mut().zip(tree) {
                    *c += mu * w;
                }
            }
            for (x, d) in loops.solution[island.rows.clone()].iter_mut().zip(&*step) {
                *x += d;
            }
        }
        let (correction, solution) = (
            &loops.correction[..nd],
            &loops.solution[island.rows.clone()],
        );
        for (x, c) in self.solution[island.dofs.clone()]
            .iter_mut()
            .zip(correction)
        {
            *x += c;
        }
        if accumulate_impulses {
            for node in &self.nodes[self.islands[k].clone()] {
                if let NodeKind::Super(s) = node.kind {
                    let sn = &self.supers[s as usize];
                    let at = node.dof_offset - island.dofs.start;
                    for (l, c) in self.lambda[sn.row_offset..sn.row_offset + sn.rows]
                        .iter_mut()
                        .zip(&correction[at..at + sn.rows])
                    {
                        *l += c;
                    }
                }
            }
            for (g, &mu) in island.rows.clone().zip(solution) {
                let (s, r) = loops.rows[g];
                self.lambda[self.supers[s as usize].row_offset + r] += mu;
            }
        }
    }

    /// Adds `scale` times the last solve's loop-row impulses of island `k` to their
    /// accumulated impulses (as `accumulate_solution` does the tree's).
    pub(super) fn accumulate_loop_solution(&mut self, k: usize, scale: f64) {
        for g in self.loops.islands[k].rows.clone() {
            let (s, r) = self.loops.rows[g];
            self.lambda[self.supers[s as usize].row_offset + r] += scale * self.loops.solution[g];
        }
    }
}

/// Factorises the symmetric `m × m` matrix `a` (row-major) in place into its Cholesky
/// factor `L` (lower triangle). A pivot that vanishes (a row redundant to rounding, or
/// one that is not finite) is marked `dropped`, its column of `L` zero: the row takes no
/// impulse.
fn cholesky(a: &mut [f64], m: usize, dropped: &mut [bool]) {
    for j in 0..m {
        let own = a[j * m + j];
        let mut d = own;
        for k in 0..j {
            d -= a[j * m + k] * a[j * m + k];
        }
        dropped[j] = !(d.is_finite() && d > own * VANISHING_PIVOT);
        if dropped[j] {
            for i in j..m {
                a[i * m + j] = 0.0;
            }
            a[j * m + j] = 1.0;
            continue;
        }
        let root = d.sqrt();
        a[j * m + j] = root;
        for i in j + 1..m {
            let mut x = a[i * m + j];
            for k in 0..j {
                x -= a[i * m + k] * a[j * m + k];
            }
            a[i * m + j] = x / root;
        }
    }
}

/// Solves `L Lᵀ x = b` in place (`x` given as `b`), the dropped rows' `x` zero.
fn cholesky_solve(l: &[f64], m: usize, dropped: &[bool], x: &mut [f64]) {
    for i in 0..m {
        if dropped[i] {
            x[i] = 0.0;
            continue;
        }
        let mut v = x[i];
        for k in 0..i {
            v -= l[i * m + k] * x[k];
        }
        x[i] = v / l[i * m + i];
    }
    for i in (0..m).rev() {
        if dropped[i] {
            x[i] = 0.0;
            continue;
        }
        let mut v = x[i];
        for k in i + 1..m {
            v -= l[k * m + i] * x[k];
        }
        x[i] = v / l[i * m + i];
    }
}
