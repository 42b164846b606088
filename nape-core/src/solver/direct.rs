//! The exact solve of acyclic islands: a sparse `LDLᵀ` of the joint system in linear time.
//!
//! The velocity update of one substep asks for impulses `μ` and velocity changes `Δv` with
//!
//! ```text
//! [  M   −Jᵀ ] [ Δv ]   [  0 ]
//! [ −J   −Γ  ] [ μ  ] = [ −r ]        r = −(J v + b) − Γ λ
//! ```
//!
//! (`Γ` is each constraint's compliance: `γ₀ K` for a soft constraint, a relative `ε K`
//! for a stiff one, which keeps redundant rows of one joint solvable). Eliminating `Δv`
//! gives `(K + Γ) μ = r`, the system every row of an island shares. Seen as a graph whose
//! nodes are bodies and constraints (constraints between the same dynamic bodies merged
//! into one *super node*), that matrix is a tree whenever the island has no loop — a
//! chain, a bridge, a ragdoll, a ball and chain — and then eliminating the leaves first
//! produces no fill at all (Baraff 1996, "Linear-time dynamics using Lagrange
//! multipliers"). Factor and solve cost a few small dense block operations per node, in
//! `f64` so that mass ratios of 1e6 and chains of hundreds of links solve to `f32`
//! precision.
//!
//! Static and kinematic bodies are not nodes: their infinite mass decouples the
//! constraints that touch them. Islands with a loop (meshes, grids) are left to the
//! iterative solver.

use std::collections::HashMap;

use crate::constraint::SharedSlots;
use crate::types::{InverseMass, Velocity};

/// The most rows a super node (all constraints between one set of dynamic bodies) may
/// have; an island with a larger one is solved iteratively.
pub(crate) const MAX_ROWS: usize = 8;

/// The most distinct dynamic bodies of one constraint (its slots).
const MAX_BODIES: usize = SharedSlots::MAX_SLOTS;

/// Largest block handled: a body (3 degrees of freedom) or a super node.
const MAX_BLOCK: usize = if MAX_ROWS > 3 { MAX_ROWS } else { 3 };

const NONE: u32 = u32::MAX;

/// One constraint as the island builder sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Link {
    /// The rows it contributes.
    pub(crate) rows: usize,
    /// The compact body index of each slot.
    pub(crate) bodies: [u32; MAX_BODIES],
    /// Number of slots.
    pub(crate) slots: usize,
}

/// Where a constraint's rows live in the direct system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DirectSlot {
    /// Its super node.
    pub(crate) node: u32,
    /// Its first row inside the super node.
    pub(crate) row: u8,
    /// For each slot, the position of its body among the super node's bodies, or
    /// `u8::MAX` for a static or kinematic body.
    pub(crate) positions: [u8; MAX_BODIES],
}

/// All constraints between one set of dynamic bodies.
#[derive(Clone, Copy, Debug)]
struct SuperNode {
    rows: usize,
    bodies: [u32; MAX_BODIES],
    body_count: usize,
    /// First row in the per-row arrays.
    row_offset: usize,
    /// Offset of its Jacobian (`rows × body_count × 3`, row-major).
    jacobian_offset: usize,
    /// Offset of its compliance block (`rows × rows`).
    gamma_offset: usize,
}

#[derive(Clone, Copy, Debug)]
enum NodeKind {
    Body(u32),
    Super(u32),
}

/// A node of the elimination tree, in elimination order (children before parents).
#[derive(Clone, Copy, Debug)]
struct TreeNode {
    kind: NodeKind,
    size: usize,
    /// Index (into `nodes`) of the parent, or `NONE` for an island's root.
    parent: u32,
    /// The position of the body of the edge to the parent among the super node's bodies.
    link: usize,
    /// Offset of this node's unknowns in `rhs` / `solution`.
    dof_offset: usize,
    /// Offset of its `size × size` blocks in `blocks` and `inverses`.
    block_offset: usize,
    /// Offset of its `parent.size × size` coupling block.
    coupling_offset: usize,
}

/// The factorisation and the per-substep rows of every acyclic island.
#[derive(Debug, Default)]
pub(crate) struct DirectSystem {
    supers: Vec<SuperNode>,
    nodes: Vec<TreeNode>,
    /// Per row: bias of the biased and of the relax pass, accumulated impulse.
    bias: [Vec<f64>; 2],
    lambda: Vec<f64>,
    jacobian: Vec<f64>,
    gamma: Vec<f64>,
    blocks: Vec<f64>,
    inverses: Vec<f64>,
    couplings: Vec<f64>,
    rhs: Vec<f64>,
    solution: Vec<f64>,
}

impl DirectSystem {
    /// Whether any island is solved directly.
    pub(crate) fn is_empty(&self) -> bool {
        self.supers.is_empty()
    }

    /// Rebuilds the islands from every active constraint (`links`) and returns, aligned
    /// with `links`, where each constraint of an acyclic island lives (`None`: solved
    /// iteratively). Allocates; called only when the topology changed.
    pub(crate) fn rebuild(&mut self, links: &[Link], dynamic: &[bool]) -> Vec<Option<DirectSlot>> {
        *self = Self::default();
        let mut assignment = vec![None; links.len()];
        let is_dynamic = |b: u32| dynamic.get(b as usize).copied().unwrap_or(false);

        // Distinct dynamic bodies of each link, sorted (the super node key).
        let keys: Vec<([u32; MAX_BODIES], usize)> = links
            .iter()
            .map(|l| {
                let mut key = [NONE; MAX_BODIES];
                let mut n = 0;
                for &b in &l.bodies[..l.slots] {
                    if is_dynamic(b) && !key[..n].contains(&b) {
                        key[n] = b;
                        n += 1;
                    }
                }
                key[..n].sort_unstable();
                (key, n)
            })
            .collect();

        // Islands: union-find over dynamic bodies.
        let mut parent: Vec<u32> = (0..dynamic.len() as u32).collect();
        fn find(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                let up = parent[parent[x as usize] as usize];
                parent[x as usize] = up;
                x = up;
            }
            x
        }
        for (key, n) in &keys {
            for w in key[..*n].windows(2) {
                let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
                if a != b {
                    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                    parent[hi as usize] = lo;
                }
            }
        }

        // Super nodes, in order of first appearance.
        let mut super_of: HashMap<[u32; MAX_BODIES], u32> = HashMap::new();
        let mut super_links: Vec<Vec<usize>> = Vec::new();
        let mut super_keys: Vec<([u32; MAX_BODIES], usize)> = Vec::new();
        for (l, (key, n)) in keys.iter().enumerate() {
            if *n == 0 {
                continue;
            }
            let s = *super_of.entry(*key).or_insert_with(|| {
                super_links.push(Vec::new());
                super_keys.push((*key, *n));
                (super_keys.len() - 1) as u32
            });
            super_links[s as usize].push(l);
        }

        // Per island: count nodes and edges, check the sizes.
        #[derive(Default, Clone, Copy)]
        struct Census {
            bodies: usize,
            supers: usize,
            edges: usize,
            too_large: bool,
        }
        let mut census: HashMap<u32, Census> = HashMap::new();
        for (b, &d) in dynamic.iter().enumerate() {
            if d {
                let root = find(&mut parent, b as u32);
                census.entry(root).or_default().bodies += 1;
            }
        }
        for (s, (key, n)) in super_keys.iter().enumerate() {
            let root = find(&mut parent, key[0]);
            let c = census.entry(root).or_default();
            c.supers += 1;
            c.edges += n;
            let rows: usize = super_links[s].iter().map(|&l| links[l].rows).sum();
            c.too_large |= rows > MAX_ROWS;
        }
        let acyclic = |c: &Census| !c.too_large && c.supers > 0 && c.edges + 1 == c.bodies + c.supers;

        // Lay out the super nodes of acyclic islands.
        let mut super_index: Vec<u32> = vec![NONE; super_keys.len()];
        let (mut rows_total, mut jac_total, mut gamma_total) = (0, 0, 0);
        for (s, (key, n)) in super_keys.iter().enumerate() {
            let root = find(&mut parent, key[0]);
            if !acyclic(&census[&root]) {
                continue;
            }
            let mut row = 0usize;
            for &l in &super_links[s] {
                let mut positions = [u8::MAX; MAX_BODIES];
                for (slot, b) in links[l].bodies[..links[l].slots].iter().enumerate() {
                    if let Some(p) = key[..*n].iter().position(|k| k == b) {
                        positions[slot] = p as u8;
                    }
                }
                assignment[l] = Some(DirectSlot {
                    node: self.supers.len() as u32,
                    row: row as u8,
                    positions,
                });
                row += links[l].rows;
            }
            super_index[s] = self.supers.len() as u32;
            self.supers.push(SuperNode {
                rows: row,
                bodies: *key,
                body_count: *n,
                row_offset: rows_total,
                jacobian_offset: jac_total,
                gamma_offset: gamma_total,
            });
            rows_total += row;
            jac_total += row * n * 3;
            gamma_total += row * row;
        }
        self.bias = [vec![0.0; rows_total], vec![0.0; rows_total]];
        self.lambda = vec![0.0; rows_total];
        self.jacobian = vec![0.0; jac_total];
        self.gamma = vec![0.0; gamma_total];

        // Elimination trees: breadth-first from each island's lowest body, then reversed
        // so that every node comes before its parent.
        let mut supers_at: Vec<Vec<u32>> = vec![Vec::new(); dynamic.len()];
        for (i, s) in self.supers.iter().enumerate() {
            for &b in &s.bodies[..s.body_count] {
                supers_at[b as usize].push(i as u32);
            }
        }
        let mut visited_body = vec![false; dynamic.len()];
        let mut visited_super = vec![false; self.supers.len()];
        let mut order: Vec<TreeNode> = Vec::new();
        for start in 0..dynamic.len() {
            if visited_body[start] || supers_at[start].is_empty() {
                continue;
            }
            let island_start = order.len();
            visited_body[start] = true;
            order.push(TreeNode {
                kind: NodeKind::Body(start as u32),
                size: 3,
                parent: NONE,
                link: 0,
                dof_offset: 0,
                block_offset: 0,
                coupling_offset: 0,
            });
            let mut head = island_start;
            while head < order.len() {
                let node = order[head];
                match node.kind {
                    NodeKind::Body(b) => {
                        for &s in &supers_at[b as usize] {
                            if visited_super[s as usize] {
                                continue;
                            }
                            visited_super[s as usize] = true;
                            let sn = &self.supers[s as usize];
                            let link = sn.bodies[..sn.body_count]
                                .iter()
                                .position(|&x| x == b)
                                .unwrap_or(0);
                            order.push(TreeNode {
                                kind: NodeKind::Super(s),
                                size: sn.rows,
                                parent: head as u32,
                                link,
                                dof_offset: 0,
                                block_offset: 0,
                                coupling_offset: 0,
                            });
                        }
                    }
                    NodeKind::Super(s) => {
                        let sn = self.supers[s as usize];
                        for (p, &b) in sn.bodies[..sn.body_count].iter().enumerate() {
                            if visited_body[b as usize] {
                                continue;
                            }
                            visited_body[b as usize] = true;
                            order.push(TreeNode {
                                kind: NodeKind::Body(b),
                                size: 3,
                                parent: head as u32,
                                link: p,
                                dof_offset: 0,
                                block_offset: 0,
                                coupling_offset: 0,
                            });
                        }
                    }
                }
                head += 1;
            }
            // Reverse this island's segment; parents are re-pointed below.
            order[island_start..].reverse();
            let len = order.len();
            for node in &mut order[island_start..] {
                if node.parent != NONE {
                    let bfs = node.parent as usize - island_start;
                    node.parent = (len - 1 - bfs) as u32;
                }
            }
        }
        let (mut dofs, mut blocks, mut couplings) = (0, 0, 0);
        for i in 0..order.len() {
            let parent_size = if order[i].parent == NONE {
                0
            } else {
                order[order[i].parent as usize].size
            };
            let node = &mut order[i];
            node.dof_offset = dofs;
            node.block_offset = blocks;
            node.coupling_offset = couplings;
            dofs += node.size;
            blocks += node.size * node.size;
            couplings += parent_size * node.size;
        }
        self.nodes = order;
        self.blocks = vec![0.0; blocks];
        self.inverses = vec![0.0; blocks];
        self.couplings = vec![0.0; couplings];
        self.rhs = vec![0.0; dofs];
        self.solution = vec![0.0; dofs];
        for (i, s) in super_index.iter().enumerate() {
            debug_assert!(*s == NONE || (*s as usize) < self.supers.len(), "{i}");
        }
        assignment
    }

    /// Resets the rows for a new substep: every row inactive (no Jacobian, unit
    /// compliance, so its impulse stays zero) until its constraint writes it.
    pub(crate) fn begin_substep(&mut self) {
        self.jacobian.fill(0.0);
        self.gamma.fill(0.0);
        self.bias[0].fill(0.0);
        self.bias[1].fill(0.0);
        self.lambda.fill(0.0);
        for s in &self.supers {
            for r in 0..s.rows {
                self.gamma[s.gamma_offset + r * s.rows + r] = 1.0;
            }
        }
    }

    /// Writes one active row `row` of the constraint at `slot`: its Jacobian on each slot
    /// (`[x, y, θ]`, already weighted), the biases of both passes and its accumulated
    /// impulse. Slots holding the same body add up.
    pub(crate) fn set_row(
        &mut self,
        slot: &DirectSlot,
        row: usize,
        jacobian: &[[f32; 3]],
        bias: [f32; 2],
        lambda: f32,
    ) {
        let s = self.supers[slot.node as usize];
        let r = slot.row as usize + row;
        for (i, j) in jacobian.iter().enumerate() {
            let p = slot.positions[i];
            if p == u8::MAX {
                continue;
            }
            let at = s.jacobian_offset + (r * s.body_count + p as usize) * 3;
            for k in 0..3 {
                self.jacobian[at + k] += f64::from(j[k]);
            }
        }
        self.bias[0][s.row_offset + r] = f64::from(bias[0]);
        self.bias[1][s.row_offset + r] = f64::from(bias[1]);
        self.lambda[s.row_offset + r] = f64::from(lambda);
        self.gamma[s.gamma_offset + r * s.rows + r] = 0.0;
    }

    /// Sets the compliance between rows `i` and `j` of the constraint at `slot`.
    pub(crate) fn set_compliance(&mut self, slot: &DirectSlot, i: usize, j: usize, value: f32) {
        let s = self.supers[slot.node as usize];
        let (i, j) = (slot.row as usize + i, slot.row as usize + j);
        self.gamma[s.gamma_offset + i * s.rows + j] = f64::from(value);
    }

    /// The accumulated impulse of row `row` of the constraint at `slot`.
    pub(crate) fn impulse(&self, slot: &DirectSlot, row: usize) -> f32 {
        let s = self.supers[slot.node as usize];
        self.lambda[s.row_offset + slot.row as usize + row] as f32
    }

    /// Sets the accumulated impulse of a row (after the iterative solver changed it).
    pub(crate) fn set_impulse(&mut self, slot: &DirectSlot, row: usize, value: f32) {
        let s = self.supers[slot.node as usize];
        self.lambda[s.row_offset + slot.row as usize + row] = f64::from(value);
    }

    /// Factorises the system of every acyclic island for the rows written this substep.
    pub(crate) fn factor(&mut self, inverse_masses: &[InverseMass]) {
        for node in &self.nodes {
            let n = node.size;
            let block = &mut self.blocks[node.block_offset..node.block_offset + n * n];
            match node.kind {
                NodeKind::Body(b) => {
                    let inv = inverse_masses[b as usize];
                    block.fill(0.0);
                    let mass = 1.0 / f64::from(inv.mass);
                    // A body that cannot rotate has an infinite moment of inertia.
                    let inertia = if inv.inertia > 0.0 {
                        1.0 / f64::from(inv.inertia)
                    } else {
                        1e30
                    };
                    block[0] = mass;
                    block[4] = mass;
                    block[8] = inertia;
                }
                NodeKind::Super(s) => {
                    let off = self.supers[s as usize].gamma_offset;
                    for (b, g) in block.iter_mut().zip(&self.gamma[off..off + n * n]) {
                        *b = -g;
                    }
                }
            }
        }
        for i in 0..self.nodes.len() {
            let node = self.nodes[i];
            let n = node.size;
            let mut a = [0.0; MAX_BLOCK * MAX_BLOCK];
            a[..n * n].copy_from_slice(&self.blocks[node.block_offset..node.block_offset + n * n]);
            let mut inverse = [0.0; MAX_BLOCK * MAX_BLOCK];
            invert(&a[..n * n], n, &mut inverse[..n * n]);
            self.inverses[node.block_offset..node.block_offset + n * n]
                .copy_from_slice(&inverse[..n * n]);
            if node.parent == NONE {
                continue;
            }
            let parent = self.nodes[node.parent as usize];
            let m = parent.size;
            let mut c = [0.0; MAX_BLOCK * MAX_BLOCK];
            self.coupling(&node, &parent, &mut c[..m * n]);
            self.couplings[node.coupling_offset..node.coupling_offset + m * n]
                .copy_from_slice(&c[..m * n]);
            // A_parent −= C A⁻¹ Cᵀ
            let mut ca = [0.0; MAX_BLOCK * MAX_BLOCK];
            for r in 0..m {
                for k in 0..n {
                    let mut sum = 0.0;
                    for j in 0..n {
                        sum += c[r * n + j] * inverse[j * n + k];
                    }
                    ca[r * n + k] = sum;
                }
            }
            let pa = &mut self.blocks[parent.block_offset..parent.block_offset + m * m];
            for r in 0..m {
                for q in 0..m {
                    let mut sum = 0.0;
                    for k in 0..n {
                        sum += ca[r * n + k] * c[q * n + k];
                    }
                    pa[r * m + q] -= sum;
                }
            }
        }
    }

    /// The block coupling `node` to its parent (`parent.size × node.size`): `−J` of the
    /// edge's body, or its transpose.
    fn coupling(&self, node: &TreeNode, parent: &TreeNode, out: &mut [f64]) {
        match (node.kind, parent.kind) {
            (NodeKind::Body(_), NodeKind::Super(s)) => {
                // parent rows × 3, the super node's Jacobian on this body.
                let sn = &self.supers[s as usize];
                for r in 0..sn.rows {
                    let at = sn.jacobian_offset + (r * sn.body_count + node.link) * 3;
                    for k in 0..3 {
                        out[r * 3 + k] = -self.jacobian[at + k];
                    }
                }
            }
            (NodeKind::Super(s), NodeKind::Body(_)) => {
                // 3 × node rows: the transpose.
                let sn = &self.supers[s as usize];
                for r in 0..sn.rows {
                    let at = sn.jacobian_offset + (r * sn.body_count + node.link) * 3;
                    for k in 0..3 {
                        out[k * sn.rows + r] = -self.jacobian[at + k];
                    }
                }
            }
            _ => unreachable!("the elimination tree alternates bodies and super nodes"),
        }
    }

    /// One exact velocity pass (`pass` 0: biased, 1: relax): solves for `μ`, adds `Δv` to
    /// the velocities and `μ` to the accumulated impulses.
    pub(crate) fn solve(&mut self, pass: usize, velocities: &mut [Velocity]) {
        // Right-hand side: 0 for bodies, J v + b + Γ λ for super nodes.
        for node in &self.nodes {
            let rhs = &mut self.rhs[node.dof_offset..node.dof_offset + node.size];
            match node.kind {
                NodeKind::Body(_) => rhs.fill(0.0),
                NodeKind::Super(s) => {
                    let sn = &self.supers[s as usize];
                    for r in 0..sn.rows {
                        let mut value = self.bias[pass][sn.row_offset + r];
                        for (p, &b) in sn.bodies[..sn.body_count].iter().enumerate() {
                            let v = velocities[b as usize];
                            let at = sn.jacobian_offset + (r * sn.body_count + p) * 3;
                            value += self.jacobian[at] * f64::from(v.linear.x)
                                + self.jacobian[at + 1] * f64::from(v.linear.y)
                                + self.jacobian[at + 2] * f64::from(v.angular);
                        }
                        for q in 0..sn.rows {
                            value += self.gamma[sn.gamma_offset + r * sn.rows + q]
                                * self.lambda[sn.row_offset + q];
                        }
                        rhs[r] = value;
                    }
                }
            }
        }
        // Forward: y_parent −= C A⁻¹ y.
        for node in &self.nodes {
            if node.parent == NONE {
                continue;
            }
            let parent = &self.nodes[node.parent as usize];
            let (n, m) = (node.size, parent.size);
            let inverse = &self.inverses[node.block_offset..node.block_offset + n * n];
            let mut ay = [0.0; MAX_BLOCK];
            for j in 0..n {
                ay[j] = (0..n)
                    .map(|k| inverse[j * n + k] * self.rhs[node.dof_offset + k])
                    .sum();
            }
            let c = &self.couplings[node.coupling_offset..node.coupling_offset + m * n];
            for r in 0..m {
                let sum: f64 = (0..n).map(|j| c[r * n + j] * ay[j]).sum();
                self.rhs[parent.dof_offset + r] -= sum;
            }
        }
        // Backward: x = A⁻¹ (y − Cᵀ x_parent).
        for i in (0..self.nodes.len()).rev() {
            let node = self.nodes[i];
            let n = node.size;
            let mut y = [0.0; MAX_BLOCK];
            y[..n].copy_from_slice(&self.rhs[node.dof_offset..node.dof_offset + n]);
            if node.parent != NONE {
                let parent = self.nodes[node.parent as usize];
                let m = parent.size;
                let c = &self.couplings[node.coupling_offset..node.coupling_offset + m * n];
                for (j, yj) in y[..n].iter_mut().enumerate() {
                    for r in 0..m {
                        *yj -= c[r * n + j] * self.solution[parent.dof_offset + r];
                    }
                }
            }
            let inverse = &self.inverses[node.block_offset..node.block_offset + n * n];
            for j in 0..n {
                self.solution[node.dof_offset + j] = (0..n).map(|k| inverse[j * n + k] * y[k]).sum();
            }
        }
        for node in &self.nodes {
            let x = &self.solution[node.dof_offset..node.dof_offset + node.size];
            match node.kind {
                NodeKind::Body(b) => {
                    let v = &mut velocities[b as usize];
                    v.linear.x += x[0] as f32;
                    v.linear.y += x[1] as f32;
                    v.angular += x[2] as f32;
                }
                NodeKind::Super(s) => {
                    let sn = &self.supers[s as usize];
                    for (r, value) in x.iter().enumerate() {
                        self.lambda[sn.row_offset + r] += value;
                    }
                }
            }
        }
    }
}

/// The inverse of the `n × n` matrix `a` (row-major) by Gauss–Jordan elimination with
/// partial pivoting. A pivot that vanishes (a singular block, which regularisation should
/// prevent) leaves that direction out: its row and column of the inverse are zero, so the
/// solve applies nothing along it instead of producing a non-finite value.
fn invert(a: &[f64], n: usize, out: &mut [f64]) {
    let mut m = [0.0; MAX_BLOCK * MAX_BLOCK];
    m[..n * n].copy_from_slice(a);
    out.fill(0.0);
    for i in 0..n {
        out[i * n + i] = 1.0;
    }
    let scale = (0..n).map(|i| m[i * n + i].abs()).fold(0.0, f64::max);
    let tiny = scale * 1e-14;
    let mut dropped = [false; MAX_BLOCK];
    for col in 0..n {
        let pivot_row = (col..n)
            .max_by(|&x, &y| m[x * n + col].abs().total_cmp(&m[y * n + col].abs()))
            .unwrap_or(col);
        let pivot = m[pivot_row * n + col];
        if !(pivot.abs() > tiny) || !pivot.is_finite() {
            dropped[col] = true;
            continue;
        }
        if pivot_row != col {
            for k in 0..n {
                m.swap(col * n + k, pivot_row * n + k);
                out.swap(col * n + k, pivot_row * n + k);
            }
        }
        let inv = 1.0 / pivot;
        for k in 0..n {
            m[col * n + k] *= inv;
            out[col * n + k] *= inv;
        }
        for r in 0..n {
            if r != col {
                let f = m[r * n + col];
                if f != 0.0 {
                    for k in 0..n {
                        m[r * n + k] -= f * m[col * n + k];
                        out[r * n + k] -= f * out[col * n + k];
                    }
                }
            }
        }
    }
    for (col, &d) in dropped[..n].iter().enumerate() {
        if d {
            for k in 0..n {
                out[col * n + k] = 0.0;
                out[k * n + col] = 0.0;
            }
        }
    }
    if out[..n * n].iter().any(|x| !x.is_finite()) {
        out[..n * n].fill(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_of_a_small_matrix_and_of_a_singular_one() {
        let a = [4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0];
        let mut inv = [0.0; 9];
        invert(&a, 3, &mut inv);
        for i in 0..3 {
            for j in 0..3 {
                let p: f64 = (0..3).map(|k| a[i * 3 + k] * inv[k * 3 + j]).sum();
                assert!((p - f64::from(u8::from(i == j))).abs() < 1e-12, "{i},{j}: {p}");
            }
        }
        let singular = [1.0, 2.0, 2.0, 4.0];
        let mut out = [0.0; 4];
        invert(&singular, 2, &mut out);
        assert!(out.iter().all(|x| x.is_finite()));
    }

    /// Two bodies on a vertical chain from a static anchor (rows along x and y): the direct
    /// solve gives velocities with `J v = 0` exactly.
    #[test]
    fn a_chain_of_unit_rows_solves_exactly() {
        // Bodies 0, 1; link 0: (static, 0), link 1: (0, 1); one row each, along y.
        let links = [
            Link { rows: 1, bodies: [5, 0, 0, 0, 0, 0, 0, 0], slots: 2 },
            Link { rows: 1, bodies: [0, 1, 0, 0, 0, 0, 0, 0], slots: 2 },
        ];
        let dynamic = [true, true, false, false, false, false];
        let mut system = DirectSystem::default();
        let slots = system.rebuild(&links, &dynamic);
        let (s0, s1) = (slots[0].unwrap(), slots[1].unwrap());
        system.begin_substep();
        // Row 0: v0.y = 0 (the anchor is static). Row 1: v1.y − v0.y = 0.
        system.set_row(&s0, 0, &[[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]], [0.0; 2], 0.0);
        system.set_row(&s1, 0, &[[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]], [0.0; 2], 0.0);
        let inverse = [InverseMass { mass: 1.0, inertia: 1.0 }, InverseMass { mass: 0.5, inertia: 1.0 }];
        system.factor(&inverse);
        let mut v = [Velocity::default(); 2];
        v[0].linear.y = -1.0;
        v[1].linear.y = -3.0;
        system.solve(0, &mut v);
        assert!(v[0].linear.y.abs() < 1e-6 && v[1].linear.y.abs() < 1e-6, "{v:?}");
        // The top link carries both bodies' momentum: λ0 = 1·1 + 2·3 = 7.
        assert!((system.impulse(&s0, 0) - 7.0).abs() < 1e-5);
        assert!((system.impulse(&s1, 0) - 6.0).abs() < 1e-5);
    }
}
