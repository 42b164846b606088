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

// Dense block algebra reads best with explicit indices.
#![allow(clippy::needless_range_loop)]

use std::collections::HashMap;

use crate::constraint::SharedSlots;
use crate::types::{InverseMass, Velocity, settle};

/// The most rows a super node (all constraints between one set of dynamic bodies) may
/// have; an island with a larger one is solved iteratively.
pub(crate) const MAX_ROWS: usize = 6;

/// The most distinct dynamic bodies of one constraint (its slots).
const MAX_BODIES: usize = SharedSlots::MAX_SLOTS;

/// Largest block handled: a body (3 degrees of freedom) or a super node.
const MAX_BLOCK: usize = if MAX_ROWS > 3 { MAX_ROWS } else { 3 };

const NONE: u32 = u32::MAX;

/// The most one position projection turns a body (rad), as a substep's integration is
/// limited to a quarter turn: rows that contradict each other, one of them with a short
/// lever arm (a limit or a distance whose anchor sits near the body's centre, against a
/// pivot holding that centre), make the projection's system nearly singular, and a
/// linearised correction would spin the body by hundreds of radians in one go.
const MAX_PROJECTION_TURN: f64 = std::f64::consts::FRAC_PI_4;

/// How far one position projection may move a body: this many times the sum of the
/// errors it removes in the body's island (`reach`), plus [`PROJECTION_SLACK`] m; a longer
/// correction is shortened, the whole island's alike (a shorter Gauss–Newton step). In a
/// tree each joint's correction moves the bodies beyond it by about its error, so a
/// solvable island stays well inside (the reference scenes step bit for bit the same with
/// 2, 4 or 10 here); rows that contradict each other make the system nearly singular, and
/// the projections of a 1 ms step of random joints (a line joint and a soft weld on one
/// body: `a_projection_moves_no_body_beyond_its_reach` in `tests/guarantees_proptest.rs`)
/// moved a body 1,300 m to remove errors of a metre, unseen by the guard, which does not
/// measure soft joints (1,194 m of weld error; 257, 113, 58 m with 10, 4, 2 here).
const PROJECTION_REACH: f64 = 4.0;
const PROJECTION_SLACK: f64 = 0.01;

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

/// One constraint's exact rows, written into the direct system in one call
/// ([`DirectSystem::set_rows`]).
pub(crate) struct ExactRows<const D: usize, const B: usize> {
    /// The rows solved exactly; the others stay inactive.
    pub(crate) written: [bool; D],
    /// Each row's `Jᵀ` on each slot (`[x, y, θ]`, already weighted).
    pub(crate) jacobian: [[[f32; 3]; B]; D],
    /// Each row's biases of both passes.
    pub(crate) bias: [[f32; 2]; D],
    /// Each row's accumulated impulse.
    pub(crate) lambda: [f32; D],
    /// The compliance between two written rows.
    pub(crate) compliance: [[f32; D]; D],
    /// The rows' effective mass `K' = J M⁻¹ Jᵀ` (weighted, with the factorisation's
    /// inverse masses), from which the block of a super node that is this constraint
    /// alone is formed without going through `J` again.
    pub(crate) mass: [[f32; D]; D],
    /// Whether each slot is the first of the constraint's slots that hold its body (the
    /// others add to its columns).
    pub(crate) first_slot: [bool; B],
}

/// The arrays of one constraint whose super node is that constraint alone
/// ([`DirectSystem::whole_rows`]): its rows' `Jᵀ` (row after row, slot after slot,
/// `[x, y, θ]`), biases of both passes, projection errors and impulses, and its compliance
/// and effective mass blocks (row-major).
pub(crate) struct WholeRows<'a> {
    pub(crate) jacobian: &'a mut [f64],
    pub(crate) biased: &'a mut [f64],
    pub(crate) relaxed: &'a mut [f64],
    pub(crate) projected: &'a mut [f64],
    pub(crate) lambda: &'a mut [f64],
    pub(crate) compliance: &'a mut [f64],
    pub(crate) mass: &'a mut [f64],
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
    /// Offset of its compliance block (`rows × rows`), and of its effective mass block.
    gamma_offset: usize,
    /// Whether its block is `−Γ − K'` of its one constraint's effective mass: it holds one
    /// constraint, and every body of it is eliminated in closed form into it (in at most
    /// two super nodes); set when the tree is built.
    from_mass: bool,
}

/// A node of the reduced elimination tree. Bodies touched by one or two super nodes are
/// eliminated first, in closed form (they only add to their super nodes' blocks and
/// couple the two); bodies shared by three or more super nodes stay nodes of their own
/// (eliminating them first would couple all their super nodes with each other).
#[derive(Clone, Copy, Debug)]
enum NodeKind {
    Body(u32),
    Super(u32),
}

/// How a node hangs from its parent.
#[derive(Clone, Copy, Debug)]
enum Edge {
    Root,
    /// Super node ↔ body node; the body's position among the super node's bodies.
    Body(usize),
    /// Super node ↔ super node through a body both touch (its positions in child and
    /// parent).
    Shared {
        body: u32,
        child: usize,
        parent: usize,
    },
}

/// A node of the elimination tree, in elimination order (children before parents).
#[derive(Clone, Copy, Debug)]
struct TreeNode {
    kind: NodeKind,
    size: usize,
    /// Index (into `nodes`) of the parent, or `NONE` for an island's root.
    parent: u32,
    edge: Edge,
    /// Offset of this node's unknowns in `rhs` / `solution`.
    dof_offset: usize,
    /// Offset of its `size × size` blocks in `blocks` and `inverses`.
    block_offset: usize,
    /// Offset of its `parent.size × size` gains block (`G = C A⁻¹`).
    coupling_offset: usize,
}

/// Consecutive nodes (in elimination order) of one island with the same block size and
/// parent block size, which one monomorphised loop handles (a chain is a single run).
#[derive(Clone, Debug)]
struct Run {
    nodes: std::ops::Range<usize>,
    size: usize,
    parent_size: usize,
}

/// The factorisation and the per-substep rows of every acyclic island.
#[derive(Debug, Default)]
pub(crate) struct DirectSystem {
    supers: Vec<SuperNode>,
    nodes: Vec<TreeNode>,
    /// Number of super nodes touching each body (0 for bodies outside acyclic islands).
    degree: Vec<u8>,
    /// Per row: bias of the biased pass, of the relax pass, and the positional error of
    /// the projection.
    bias: [Vec<f64>; 3],
    lambda: Vec<f64>,
    /// Each row's positional error at the start of a RATTLE substep, which its position
    /// solve keeps rather than turns into velocity.
    start_error: Vec<f64>,
    /// `lambda` as it was before a substep's SHAKE corrections, while `impulses_saved`.
    saved_lambda: Vec<f64>,
    impulses_saved: bool,
    jacobian: Vec<f64>,
    gamma: Vec<f64>,
    /// Per super node, its rows' effective mass `K'` as [`ExactRows::mass`] gives it (0 for
    /// rows not written), laid out as `gamma`.
    mass: Vec<f64>,
    blocks: Vec<f64>,
    inverses: Vec<f64>,
    /// `G = C A⁻¹` of each node's coupling `C` to its parent: the forward pass subtracts
    /// `G y` from the parent, the backward one `Gᵀ x = A⁻¹ Cᵀ x` from `A⁻¹ y`.
    gains: Vec<f64>,
    rhs: Vec<f64>,
    solution: Vec<f64>,
    /// `rhs`, `solution` and `delta` of the projection's errors while a velocity solve
    /// takes the same substitution ([`project_and_solve`](Self::project_and_solve)).
    paired_rhs: Vec<f64>,
    paired_solution: Vec<f64>,
    paired_delta: Vec<[f64; 3]>,
    /// How many factorisations there have been: a solve paired with a projection holds
    /// only while no factorisation came after it.
    factorisations: u64,
    /// The nodes of each island (contiguous in elimination order).
    islands: Vec<std::ops::Range<usize>>,
    /// The runs of all islands, and each island's range in them.
    runs: Vec<Run>,
    island_runs: Vec<std::ops::Range<usize>>,
    /// The island of each super node.
    island_of: Vec<u32>,
    /// The bodies of each island's super nodes, island after island, and each island's
    /// range in that list.
    island_bodies: Vec<u32>,
    island_body_ranges: Vec<std::ops::Range<usize>>,
    /// One past the largest body index a super node holds: how long the per-body arrays a
    /// factorisation or solve is given must be.
    body_span: usize,
    /// Per body, the sum of `Jᵀ μ` over its super nodes while a solve applies it (zero
    /// otherwise).
    delta: Vec<[f64; 3]>,
    /// Per island, the sum of the errors the projection removes (`|C|` of every row given
    /// one since [`clear_reach`](Self::clear_reach)), which bounds how far it moves a body.
    reach: Vec<f64>,
    /// Islands marked for the next [`Islands::Marked`] solve or projection, and those
    /// marked since (made current by [`promote`](Self::promote)).
    marked: Vec<bool>,
    pending: Vec<bool>,
    /// The islands the current substeps solve (see [`set_active`](Self::set_active)).
    active: Vec<bool>,
    /// Per island, whether the next step's first exact solve starts from the factor its
    /// last finishing substep left (see [`Carry`]).
    carry: Vec<Carry>,
    /// Per body of a carried island, the inverse mass its factor was built with (and a
    /// [`Carry::Restored`] island's is rebuilt with), which its first solve applies.
    carried_masses: Vec<InverseMass>,
}

/// Whether an island's next step may start from the factor its last step ended with.
///
/// A moving island's last substep relinearises its rows at the drifted poses and
/// factorises them; the projection then moves the bodies by what it removes. Where that
/// was little (the island's summed squared error before it at most
/// `CARRY_SETTLED`), the next step's first exact solve, which asks the velocities to
/// meet the rows where the bodies are, starts from that factor: its right-hand side is
/// `J v` with `J` at the current poses (each constraint adds `J v − J₁ v` to its bias,
/// `J₁` the rows the factor holds), and what the stale factor leaves is of the order of
/// the projection's turn times what the solve removes. The projection and the final
/// solve of that step are relinearised as always, so the step ends exact either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Carry {
    /// Factorised anew.
    #[default]
    None,
    /// The factor and rows are still those of the last step's finishing substep.
    Kept,
    /// Every constraint of the island was carried, but the system was rebuilt since (a
    /// restored snapshot, a change elsewhere in the space): its rows and factor are
    /// rebuilt from what the constraints kept (`J₁`, the inverse masses of that factor),
    /// bit for bit as they were.
    Restored,
    /// A constraint of the island was not carried: factorised anew.
    Vetoed,
}

/// Which islands a solve or projection covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Islands {
    All,
    /// Only those [`DirectSystem::mark`]ed since the last [`DirectSystem::clear_marks`]:
    /// work one island needs is never done on another, so no island's result depends on
    /// what else is in the space.
    Marked,
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
        let acyclic =
            |c: &Census| !c.too_large && c.supers > 0 && c.edges + 1 == c.bodies + c.supers;

        // Lay out the super nodes of acyclic islands.
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
            self.supers.push(SuperNode {
                rows: row,
                bodies: *key,
                body_count: *n,
                row_offset: rows_total,
                jacobian_offset: jac_total,
                gamma_offset: gamma_total,
                from_mass: super_links[s].len() == 1,
            });
            rows_total += row;
            jac_total += row * n * 3;
            gamma_total += row * row;
        }
        self.bias = std::array::from_fn(|_| vec![0.0; rows_total]);
        self.lambda = vec![0.0; rows_total];
        self.jacobian = vec![0.0; jac_total];
        self.gamma = vec![0.0; gamma_total];
        self.mass = vec![0.0; gamma_total];
        self.reset_rows();
        self.build_tree(dynamic.len());
        assignment
    }

    /// The elimination order of the reduced tree: breadth-first from each island's first
    /// super node, reversed so that every node comes before its parent.
    fn build_tree(&mut self, body_count: usize) {
        let mut supers_at: Vec<Vec<u32>> = vec![Vec::new(); body_count];
        for (i, s) in self.supers.iter().enumerate() {
            for &b in &s.bodies[..s.body_count] {
                supers_at[b as usize].push(i as u32);
            }
        }
        self.degree = supers_at.iter().map(|s| s.len().min(255) as u8).collect();
        for s in &mut self.supers {
            let degree = &self.degree;
            s.from_mass &= s.bodies[..s.body_count]
                .iter()
                .all(|&b| degree[b as usize] <= 2);
        }
        let position = |s: &SuperNode, b: u32| {
            s.bodies[..s.body_count]
                .iter()
                .position(|&x| x == b)
                .unwrap_or(0)
        };
        let mut visited_body = vec![false; body_count];
        let mut visited_super = vec![false; self.supers.len()];
        let mut order: Vec<TreeNode> = Vec::new();
        let node = |kind, size, parent, edge| TreeNode {
            kind,
            size,
            parent,
            edge,
            dof_offset: 0,
            block_offset: 0,
            coupling_offset: 0,
        };
        let mut islands = Vec::new();
        let (mut island_bodies, mut island_body_ranges) = (Vec::new(), Vec::new());
        for start in 0..self.supers.len() {
            if visited_super[start] {
                continue;
            }
            let island_start = order.len();
            let bodies_start = island_bodies.len();
            visited_super[start] = true;
            order.push(node(
                NodeKind::Super(start as u32),
                self.supers[start].rows,
                NONE,
                Edge::Root,
            ));
            let mut head = island_start;
            while head < order.len() {
                match order[head].kind {
                    NodeKind::Body(b) => {
                        for &s in &supers_at[b as usize] {
                            if !visited_super[s as usize] {
                                visited_super[s as usize] = true;
                                let sn = &self.supers[s as usize];
                                let edge = Edge::Body(position(sn, b));
                                order.push(node(NodeKind::Super(s), sn.rows, head as u32, edge));
                            }
                        }
                    }
                    NodeKind::Super(s) => {
                        let sn = self.supers[s as usize];
                        for (p, &b) in sn.bodies[..sn.body_count].iter().enumerate() {
                            if visited_body[b as usize] {
                                continue;
                            }
                            visited_body[b as usize] = true;
                            island_bodies.push(b);
                            match supers_at[b as usize].len() {
                                0 | 1 => {}
                                2 => {
                                    let other = supers_at[b as usize]
                                        .iter()
                                        .copied()
                                        .find(|&t| t != s)
                                        .unwrap_or(s);
                                    if !visited_super[other as usize] {
                                        visited_super[other as usize] = true;
                                        let on = &self.supers[other as usize];
                                        let edge = Edge::Shared {
                                            body: b,
                                            child: position(on, b),
                                            parent: p,
                                        };
                                        order.push(node(
                                            NodeKind::Super(other),
                                            on.rows,
                                            head as u32,
                                            edge,
                                        ));
                                    }
                                }
                                _ => order.push(node(
                                    NodeKind::Body(b),
                                    3,
                                    head as u32,
                                    Edge::Body(p),
                                )),
                            }
                        }
                    }
                }
                head += 1;
            }
            order[island_start..].reverse();
            let len = order.len();
            // Reversing [island_start, len) sends position a to island_start + len − 1 − a.
            for n in &mut order[island_start..] {
                if n.parent != NONE {
                    n.parent = (island_start + len - 1 - n.parent as usize) as u32;
                }
            }
            islands.push(island_start..len);
            island_body_ranges.push(bodies_start..island_bodies.len());
        }
        let mut island_of = vec![0u32; self.supers.len()];
        for (k, range) in islands.iter().enumerate() {
            for node in &order[range.clone()] {
                if let NodeKind::Super(sn) = node.kind {
                    island_of[sn as usize] = k as u32;
                }
            }
        }
        self.marked = vec![false; islands.len()];
        self.carry = vec![Carry::None; islands.len()];
        self.carried_masses = vec![InverseMass::default(); body_count];
        self.reach = vec![0.0; islands.len()];
        self.pending = vec![false; islands.len()];
        self.active = vec![true; islands.len()];
        self.islands = islands;
        self.island_of = island_of;
        self.body_span = island_bodies
            .iter()
            .map(|&b| b as usize + 1)
            .max()
            .unwrap_or(0);
        self.island_bodies = island_bodies;
        self.island_body_ranges = island_body_ranges;
        self.delta = vec![[0.0; 3]; body_count];
        self.paired_delta = vec![[0.0; 3]; body_count];
        debug_assert!(
            order
                .iter()
                .enumerate()
                .all(|(i, n)| n.parent == NONE || n.parent as usize > i),
            "every node is eliminated before its parent"
        );
        let (mut dofs, mut blocks, mut couplings) = (0, 0, 0);
        for i in 0..order.len() {
            let parent_size = if order[i].parent == NONE {
                0
            } else {
                order[order[i].parent as usize].size
            };
            let n = &mut order[i];
            n.dof_offset = dofs;
            n.block_offset = blocks;
            n.coupling_offset = couplings;
            dofs += n.size;
            blocks += n.size * n.size;
            couplings += parent_size * n.size;
        }
        let parent_size = |n: &TreeNode| {
            if n.parent == NONE {
                0
            } else {
                order[n.parent as usize].size
            }
        };
        let (mut runs, mut island_runs) = (Vec::<Run>::new(), Vec::new());
        for range in &self.islands {
            let first = runs.len();
            for i in range.clone() {
                let (size, parent_size) = (order[i].size, parent_size(&order[i]));
                let same = |run: &Run| run.size == size && run.parent_size == parent_size;
                match runs[first..].last_mut() {
                    Some(run) if same(run) => run.nodes.end = i + 1,
                    _ => runs.push(Run {
                        nodes: i..i + 1,
                        size,
                        parent_size,
                    }),
                }
            }
            island_runs.push(first..runs.len());
        }
        self.runs = runs;
        self.island_runs = island_runs;
        self.nodes = order;
        self.blocks = vec![0.0; blocks];
        self.inverses = vec![0.0; blocks];
        self.gains = vec![0.0; couplings];
        self.rhs = vec![0.0; dofs];
        self.solution = vec![0.0; dofs];
        self.paired_rhs = vec![0.0; dofs];
        self.paired_solution = vec![0.0; dofs];
    }

    /// What island `k` carries into the next step.
    #[cfg(test)]
    pub(crate) fn island_carry(&self, k: usize) -> Carry {
        self.carry[k]
    }

    /// Whether some island keeps its factor for the next step.
    pub(crate) fn any_kept(&self) -> bool {
        self.carry.contains(&Carry::Kept)
    }

    /// What the island of the constraint at `slot` carries into this step.
    pub(crate) fn carry_of(&self, slot: &DirectSlot) -> Carry {
        self.carry[self.island_of[slot.node as usize] as usize]
    }

    /// After a rebuild, each constraint of an acyclic island says whether it was
    /// `carried`; an island all of whose constraints were becomes [`Carry::Restored`]
    /// ([`settle_claims`](Self::settle_claims)), in whatever order they say so.
    pub(crate) fn claim_carry(&mut self, slot: &DirectSlot, carried: bool) {
        let carry = &mut self.carry[self.island_of[slot.node as usize] as usize];
        *carry = match (*carry, carried) {
            (_, false) | (Carry::Vetoed, _) => Carry::Vetoed,
            _ => Carry::Restored,
        };
    }

    /// Ends the claims of [`claim_carry`](Self::claim_carry).
    pub(crate) fn settle_claims(&mut self) {
        for carry in &mut self.carry {
            if *carry == Carry::Vetoed {
                *carry = Carry::None;
            }
        }
    }

    /// A constraint of the island of `slot` does not start from its carried rows: the
    /// island is factorised anew.
    pub(crate) fn veto_carry(&mut self, slot: &DirectSlot) {
        let k = self.island_of[slot.node as usize] as usize;
        if self.carry[k] != Carry::None {
            self.carry[k] = Carry::Vetoed;
        }
    }

    /// Keeps the factor of every active island for which `keep` holds (by island index),
    /// with the inverse masses it was built with (`inverse_masses`, which the carried
    /// solve applies its impulses with: a body's weights change from step to step, and
    /// applied with others the impulses would miss the rows by that change); forgets it
    /// for the other active islands.
    pub(crate) fn keep_factors(
        &mut self,
        keep: impl Fn(usize) -> bool,
        inverse_masses: &[InverseMass],
    ) {
        for k in 0..self.islands.len() {
            if !self.active[k] {
                continue;
            }
            self.carry[k] = if keep(k) { Carry::Kept } else { Carry::None };
            if self.carry[k] == Carry::Kept {
                for &b in &self.island_bodies[self.island_body_ranges[k].clone()] {
                    self.carried_masses[b as usize] = inverse_masses[b as usize];
                }
            }
        }
    }

    /// Forgets the carried factors of the active islands (also a veto's).
    pub(crate) fn drop_carries(&mut self) {
        for (carry, &active) in self.carry.iter_mut().zip(&self.active) {
            if active {
                *carry = Carry::None;
            }
        }
    }

    /// The biases of the carried rows of the constraint at `slot` (its `J v − J₁ v` and
    /// the kinematic bodies' share through `J₁`), its accumulated impulse zero.
    pub(crate) fn set_carried_bias(&mut self, slot: &DirectSlot, bias: &[f32]) {
        let at = self.supers[slot.node as usize].row_offset + slot.row as usize;
        for ((target, lambda), &b) in self.bias[0][at..at + bias.len()]
            .iter_mut()
            .zip(&mut self.lambda[at..at + bias.len()])
            .zip(bias)
        {
            *target = f64::from(b);
            *lambda = 0.0;
        }
    }

    /// The inverse mass of `body` when a [`Carry::Restored`] island was factorised.
    pub(crate) fn set_carried_mass(&mut self, body: usize, inverse: InverseMass) {
        self.carried_masses[body] = inverse;
    }

    /// Factorises the [`Carry::Restored`] islands with the inverse masses their
    /// constraints kept, which makes them [`Carry::Kept`].
    pub(crate) fn factor_restored(&mut self) {
        if !self.carry.contains(&Carry::Restored) {
            return;
        }
        let masses = std::mem::take(&mut self.carried_masses);
        for k in 0..self.islands.len() {
            if self.active[k] && self.carry[k] == Carry::Restored {
                self.factor_island(k, &masses);
                self.carry[k] = Carry::Kept;
            }
        }
        self.carried_masses = masses;
    }

    /// Forgets every mark.
    pub(crate) fn clear_marks(&mut self) {
        self.marked.fill(false);
        self.pending.fill(false);
    }

    /// Marks the island of the constraint at `slot` for the work after the next
    /// [`promote`](Self::promote).
    pub(crate) fn mark(&mut self, slot: &DirectSlot) {
        self.pending[self.island_of[slot.node as usize] as usize] = true;
    }

    /// Marks (current, not pending) the islands `which` flags.
    pub(crate) fn mark_islands(&mut self, which: &[bool]) {
        self.marked.copy_from_slice(which);
    }

    /// Makes the pending marks current; returns whether any island is marked.
    pub(crate) fn promote(&mut self) -> bool {
        std::mem::swap(&mut self.marked, &mut self.pending);
        self.pending.fill(false);
        self.marked.iter().any(|&m| m)
    }

    /// Whether the island of the constraint at `slot` is marked.
    pub(crate) fn is_marked(&self, slot: &DirectSlot) -> bool {
        self.marked[self.island_of[slot.node as usize] as usize]
    }

    /// The number of acyclic islands.
    pub(crate) fn island_count(&self) -> usize {
        self.islands.len()
    }

    /// The island of the constraint at `slot`.
    pub(crate) fn island(&self, slot: &DirectSlot) -> usize {
        self.island_of[slot.node as usize] as usize
    }

    /// Writes the island of every body into `out` (`u32::MAX` for a body in none).
    pub(crate) fn body_islands(&self, body_count: usize, out: &mut Vec<u32>) {
        out.clear();
        out.resize(body_count, NONE);
        for (sn, &island) in self.supers.iter().zip(&self.island_of) {
            for &b in &sn.bodies[..sn.body_count] {
                out[b as usize] = island;
            }
        }
    }

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
    /// (`[x, y, θ]`, already weighted), the biases of both passes, the error the position
    /// projection removes, and its accumulated impulse. Slots holding the same body add.
    #[cfg(test)]
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
        let target = &mut self.jacobian[at..at + stride];
        for (j, &p) in jacobian.iter().zip(&slot.positions) {
            if p == u8::MAX {
                continue;
            }
            let p = p as usize * 3;
            for (t, j) in target[p..p + 3].iter_mut().zip(j) {
                *t += f64::from(*j);
            }
        }
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
                let j = if written { j.map(f64::from) } else { [0.0; 3] };
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

    /// Factorises the system of every acyclic island for the rows written this substep,
    /// except those that start from a carried factor ([`Carry`]).
    pub(crate) fn factor(&mut self, which: Islands, inverse_masses: &[InverseMass]) {
        // Once here, so that the kernels index it unchecked (`kernels::item`).
        assert!(
            inverse_masses.len() >= self.body_span,
            "an inverse mass per body"
        );
        self.factorisations += 1;
        for k in 0..self.islands.len() {
            if !self.covers(which, k) || matches!(self.carry[k], Carry::Kept | Carry::Restored) {
                continue;
            }
            self.factor_island(k, inverse_masses);
        }
    }

    /// Factorises island `k` for the rows written.
    fn factor_island(&mut self, k: usize, inverse_masses: &[InverseMass]) {
        // Every block of the island is complete before a child subtracts from it.
        let runs = self.island_runs[k].clone();
        for r in runs.clone() {
            kernels::diagonal(self, r, inverse_masses);
        }
        for r in runs {
            kernels::eliminate(self, r, inverse_masses);
        }
    }

    /// Restricts every later factorisation, solve and projection to the islands `which`
    /// flags (all of them after a rebuild).
    pub(crate) fn set_active(&mut self, which: &[bool]) {
        self.active.copy_from_slice(which);
    }

    /// Whether the island of the constraint at `slot` is active.
    pub(crate) fn is_active(&self, slot: &DirectSlot) -> bool {
        self.active[self.island_of[slot.node as usize] as usize]
    }

    /// One exact velocity pass (`pass` 0: biased, 1: relax): solves for `μ`, adds `Δv` to
    /// the velocities and `μ` to the accumulated impulses.
    pub(crate) fn solve(
        &mut self,
        pass: usize,
        which: Islands,
        inverse_masses: &[InverseMass],
        velocities: &mut [Velocity],
    ) {
        // Once here, so that the kernels index it unchecked (`kernels::item`).
        assert!(velocities.len() >= self.body_span, "a velocity per body");
        for k in 0..self.islands.len() {
            if !self.covers(which, k) {
                continue;
            }
            self.solve_island(k, pass, inverse_masses, velocities);
        }
    }

    /// [`solve`](Self::solve) of island `k`.
    fn solve_island(
        &mut self,
        k: usize,
        pass: usize,
        inverse_masses: &[InverseMass],
        velocities: &mut [Velocity],
    ) {
        let rows = kernels::VelocityRows { pass, velocities };
        self.substitute(k, &rows, true);
        if pass == 0 && self.carry[k] == Carry::Kept {
            // With the inverse masses of the carried factor.
            let masses = std::mem::take(&mut self.carried_masses);
            self.apply_velocities(k, &masses, velocities, false);
            self.carried_masses = masses;
        } else {
            self.apply_velocities(k, inverse_masses, velocities, false);
        }
    }

    /// `v += M⁻¹ Σ Jᵀμ` for island `k`, from `delta` or (`paired`) `paired_delta`.
    fn apply_velocities(
        &mut self,
        k: usize,
        inverse_masses: &[InverseMass],
        velocities: &mut [Velocity],
        paired: bool,
    ) {
        self.apply(
            k,
            inverse_masses,
            paired,
            |b, dv: [f64; 3], velocities: &mut [Velocity]| {
                // Noise stored as zero (see `NEGLIGIBLE`): a body that should not turn
                // gets an angular velocity of 1e-20 from the rounding of the solve. Summed
                // in `f64`, so one test covers the change and what it leaves.
                let v = &mut velocities[b];
                v.linear.x = settle(f64::from(v.linear.x) + dv[0]);
                v.linear.y = settle(f64::from(v.linear.y) + dv[1]);
                v.angular = settle(f64::from(v.angular) + dv[2]);
            },
            velocities,
        );
    }

    /// The position projection of [`project`](Self::project) on the islands it marks,
    /// and in the same substitutions the exact velocity pass `pass` of [`solve`](Self::solve)
    /// on every active island (the marked ones' two right-hand sides share each
    /// substitution's loads and its chain of dependent operations; the others are solved
    /// alone). Both give what they give apart, bit for bit. Returns the count of
    /// factorisations so far: the velocities hold only while no other came after
    /// ([`factored_since`](Self::factored_since)).
    pub(crate) fn project_and_solve(
        &mut self,
        pass: usize,
        inverse_masses: &[InverseMass],
        poses: &mut [crate::types::Pose],
        velocities: &mut [Velocity],
    ) -> u64 {
        assert!(velocities.len() >= self.body_span, "a velocity per body");
        for k in 0..self.islands.len() {
            if !self.active[k] {
                continue;
            }
            if !self.marked[k] {
                self.solve_island(k, pass, inverse_masses, velocities);
                continue;
            }
            let runs = self.island_runs[k].clone();
            let rows = kernels::VelocityRows { pass, velocities };
            for r in runs.clone() {
                kernels::forward_paired(self, r, &rows);
            }
            for r in runs.rev() {
                kernels::backward_paired(self, r);
            }
            self.apply_velocities(k, inverse_masses, velocities, false);
            self.apply_projection(k, inverse_masses, poses, true);
        }
        self.factorisations
    }

    /// How many factorisations there have been (see
    /// [`factored_since`](Self::factored_since)).
    pub(crate) fn factorisations(&self) -> u64 {
        self.factorisations
    }

    /// Whether a factorisation came after the one [`project_and_solve`](Self::project_and_solve)
    /// (or [`factorisations`](Self::factorisations)) returned `count` at.
    pub(crate) fn factored_since(&self, count: u64) -> bool {
        self.factorisations != count
    }

    /// The position projection: moves the bodies of acyclic islands by `M⁻¹ Jᵀ μ` with
    /// `J Δx = −C` on every stiff row (with this substep's factor), without changing a
    /// velocity.
    pub(crate) fn project(
        &mut self,
        which: Islands,
        inverse_masses: &[InverseMass],
        poses: &mut [crate::types::Pose],
    ) {
        for k in 0..self.islands.len() {
            if !self.covers(which, k) {
                continue;
            }
            self.substitute(k, &kernels::PositionRows, false);
            self.apply_projection(k, inverse_masses, poses, false);
        }
    }

    /// The position projection of a moving island's substep as the impulse it is (SHAKE's
    /// correction): `μ` with `J M⁻¹ Jᵀ μ = −(C − C₀) / h` on every stiff row (`C₀` the
    /// error the substep started with, [`keep_start_errors`](Self::keep_start_errors),
    /// which is not the motion's to remove), added to the
    /// accumulated impulses, `v += M⁻¹ Jᵀ μ` and the poses moved by `h` times that. The
    /// bodies then sit where their velocities carried them from the substep's start, and
    /// since the rows are the start's `J`, the correction is an internal impulse applied
    /// where the start's positions were: linear and angular momentum are unchanged by it.
    pub(crate) fn project_as_impulse(
        &mut self,
        which: Islands,
        inverse_masses: &[InverseMass],
        poses: &mut [crate::types::Pose],
        velocities: &mut [Velocity],
        h: f32,
    ) {
        assert!(velocities.len() >= self.body_span, "a velocity per body");
        let rows = kernels::ScaledPositionRows(1.0 / f64::from(h));
        for k in 0..self.islands.len() {
            if !self.covers(which, k) {
                continue;
            }
            self.substitute(k, &rows, false);
            // Shortened as a whole, so that it stays an impulse `Jᵀμ`: to the island's reach,
            // and so that no body turns by more than `MAX_PROJECTION_TURN`.
            let scale = self
                .projection_scale(k, inverse_masses, false, f64::from(h))
                .min(self.turn_scale(k, inverse_masses, f64::from(h)));
            self.accumulate_solution(k, scale);
            let h = f64::from(h);
            let mut state = (&mut *poses, &mut *velocities);
            self.apply(
                k,
                inverse_masses,
                false,
                |b, dv: [f64; 3], (poses, velocities): &mut (&mut [crate::types::Pose], &mut [Velocity])| {
                    let dv = dv.map(|x| x * scale);
                    let turn = dv[2] * h;
                    let change = Velocity {
                        linear: glam::Vec2::new(settle(dv[0]), settle(dv[1])),
                        angular: settle(turn / h),
                    };
                    if !(change.linear.is_finite() && change.angular.is_finite()) {
                        return;
                    }
                    let v = &mut velocities[b];
                    v.linear.x = settle(f64::from(v.linear.x) + dv[0]);
                    v.linear.y = settle(f64::from(v.linear.y) + dv[1]);
                    v.angular = settle(f64::from(v.angular) + turn / h);
                    let moved = Velocity {
                        linear: glam::Vec2::new(settle(dv[0] * h), settle(dv[1] * h)),
                        angular: settle(turn),
                    };
                    let p = &mut poses[b];
                    *p = p.nudge(moved);
                },
                &mut state,
            );
        }
    }

    /// Keeps the accumulated impulses, for [`restore_impulses`](Self::restore_impulses)
    /// to undo a [`project_as_impulse`](Self::project_as_impulse) that made an island
    /// worse.
    pub(crate) fn save_impulses(&mut self) {
        self.saved_lambda.clone_from(&self.lambda);
        self.impulses_saved = true;
    }

    /// Keeps the positional errors last measured (the projection's right-hand side) as
    /// what [`project_as_impulse`](Self::project_as_impulse) leaves.
    /// Only the islands `which` flags keep theirs; the others start from zero, their
    /// position solve taking away what is left too.
    pub(crate) fn keep_start_errors(&mut self, which: &[bool]) {
        self.start_error.clear();
        self.start_error.resize(self.bias[2].len(), 0.0);
        for (k, _) in which.iter().enumerate().filter(|(_, w)| **w) {
            for rows in self.island_rows(k) {
                self.start_error[rows.clone()].copy_from_slice(&self.bias[2][rows]);
            }
        }
    }

    /// The ranges of island `k`'s rows in the per-row arrays, one per super node.
    fn island_rows(&self, k: usize) -> Vec<std::ops::Range<usize>> {
        let mut out = Vec::new();
        for r in self.island_runs[k].clone() {
            for i in self.runs[r].nodes.clone() {
                if let NodeKind::Super(s) = self.nodes[i].kind {
                    let sn = &self.supers[s as usize];
                    out.push(sn.row_offset..sn.row_offset + sn.rows);
                }
            }
        }
        out
    }

    /// Forgets what [`save_impulses`](Self::save_impulses) kept: the projection to come
    /// applies no impulse.
    pub(crate) fn forget_saved_impulses(&mut self) {
        self.impulses_saved = false;
    }

    /// Puts back the accumulated impulses [`save_impulses`](Self::save_impulses) kept, in
    /// the islands `which` flags; returns whether any were kept (they are then forgotten).
    pub(crate) fn restore_impulses(&mut self, which: &[bool]) -> bool {
        if !std::mem::take(&mut self.impulses_saved) {
            return false;
        }
        for (k, _) in which.iter().enumerate().filter(|(_, w)| **w) {
            for rows in self.island_rows(k) {
                self.lambda[rows.clone()].copy_from_slice(&self.saved_lambda[rows]);
            }
        }
        true
    }

    /// The factor that keeps island `k`'s largest turn (`delta` times `h`) within
    /// [`MAX_PROJECTION_TURN`]: 1 if it is.
    fn turn_scale(&self, k: usize, inverse_masses: &[InverseMass], h: f64) -> f64 {
        let largest = self.island_bodies[self.island_body_ranges[k].clone()]
            .iter()
            .map(|&b| {
                (h * f64::from(inverse_masses[b as usize].inertia) * self.delta[b as usize][2])
                    .abs()
            })
            .fold(0.0, |largest, x| if x > largest { x } else { largest });
        if largest > MAX_PROJECTION_TURN {
            MAX_PROJECTION_TURN / largest
        } else {
            1.0
        }
    }

    /// Adds `scale` times the last substitution's solution of island `k` to its rows'
    /// accumulated impulses: the impulse a shortened correction applied.
    fn accumulate_solution(&mut self, k: usize, scale: f64) {
        for r in self.island_runs[k].clone() {
            for i in self.runs[r].nodes.clone() {
                let node = &self.nodes[i];
                if let NodeKind::Super(s) = node.kind {
                    let sn = &self.supers[s as usize];
                    for j in 0..sn.rows {
                        self.lambda[sn.row_offset + j] +=
                            scale * self.solution[node.dof_offset + j];
                    }
                }
            }
        }
    }

    /// The factor that shortens island `k`'s correction (`delta` or `paired_delta` times
    /// `h`) to its reach: 1 if it is within.
    fn projection_scale(
        &self,
        k: usize,
        inverse_masses: &[InverseMass],
        paired: bool,
        h: f64,
    ) -> f64 {
        let sums = if paired {
            &self.paired_delta
        } else {
            &self.delta
        };
        // The longest move, against the island's reach: a longer one is shortened.
        let longest_squared = self.island_bodies[self.island_body_ranges[k].clone()]
            .iter()
            .map(|&b| {
                let (sum, m) = (sums[b as usize], inverse_masses[b as usize].mass);
                (h * f64::from(m)).powi(2) * (sum[0] * sum[0] + sum[1] * sum[1])
            })
            // A comparison, not `f64::max`: its NaN handling, on the chain from body to
            // body, was several operations each (a non-finite move is skipped by the
            // caller either way).
            .fold(0.0, |longest, x| if x > longest { x } else { longest });
        let allowed = PROJECTION_REACH * self.reach[k] + PROJECTION_SLACK;
        if longest_squared > allowed * allowed {
            allowed / longest_squared.sqrt()
        } else {
            1.0
        }
    }

    /// Moves island `k`'s bodies by `M⁻¹ Σ Jᵀμ` from `delta` or (`paired`)
    /// `paired_delta`, shortened to the island's reach.
    fn apply_projection(
        &mut self,
        k: usize,
        inverse_masses: &[InverseMass],
        poses: &mut [crate::types::Pose],
        paired: bool,
    ) {
        let scale = self.projection_scale(k, inverse_masses, paired, 1.0);
        self.apply(
            k,
            inverse_masses,
            paired,
            |b, dx: [f64; 3], poses: &mut [crate::types::Pose]| {
                let dx = if scale < 1.0 {
                    dx.map(|x| x * scale)
                } else {
                    dx
                };
                let v = Velocity {
                    linear: glam::Vec2::new(settle(dx[0]), settle(dx[1])),
                    angular: settle(dx[2].clamp(-MAX_PROJECTION_TURN, MAX_PROJECTION_TURN)),
                };
                if v.linear.is_finite() && v.angular.is_finite() {
                    let p = &mut poses[b];
                    *p = p.nudge(v);
                }
            },
            poses,
        );
    }

    /// Forward and backward substitution of island `k` with the right-hand side `rows`
    /// gives, into `solution`; the backward pass also sums each super node's `Jᵀ μ` into
    /// its bodies' `delta` and, with `accumulate_impulses`, adds `μ` to the accumulated
    /// impulses.
    fn substitute(&mut self, k: usize, rows: &impl kernels::RowSource, accumulate_impulses: bool) {
        let runs = self.island_runs[k].clone();
        for r in runs.clone() {
            kernels::forward(self, r, rows);
        }
        for r in runs.rev() {
            kernels::backward(self, r, accumulate_impulses);
        }
    }

    /// Whether `which` covers island `k`.
    fn covers(&self, which: Islands, k: usize) -> bool {
        self.active[k] && (which == Islands::All || self.marked[k])
    }

    /// Calls `f(body, M⁻¹ Σ Jᵀμ)` once for every body of island `k` with the sums the
    /// backward substitution left in `delta` (`paired`: in `paired_delta`), clearing them:
    /// the contributions of all of a body's super nodes are summed first, in `f64`, so a
    /// body shared by two super nodes is moved once.
    fn apply<S: ?Sized>(
        &mut self,
        k: usize,
        inverse_masses: &[InverseMass],
        paired: bool,
        mut f: impl FnMut(usize, [f64; 3], &mut S),
        state: &mut S,
    ) {
        let sums = if paired {
            &mut self.paired_delta
        } else {
            &mut self.delta
        };
        for &b in &self.island_bodies[self.island_body_ranges[k].clone()] {
            let b = b as usize;
            let sum = std::mem::take(&mut sums[b]);
            let inv = inverse_masses[b];
            let (m, i) = (f64::from(inv.mass), f64::from(inv.inertia));
            f(b, [m * sum[0], m * sum[1], i * sum[2]], state);
        }
    }
}

/// The per-node block operations, monomorphised for the node's block size and its
/// parent's (or, per super node, its row count) so that the small dense loops unroll and
/// every slice has a length the compiler knows, which drops the bounds checks.
mod kernels {
    use std::ops::Range;

    use super::{DirectSystem, Edge, InverseMass, MAX_BODIES, NodeKind, SuperNode, TreeNode};
    use super::{Velocity, invert};

    macro_rules! by_rows {
        ($n:expr, $f:ident($($arg:expr),*)) => {
            match $n {
                1 => $f::<1>($($arg),*),
                2 => $f::<2>($($arg),*),
                3 => $f::<3>($($arg),*),
                4 => $f::<4>($($arg),*),
                5 => $f::<5>($($arg),*),
                6 => $f::<6>($($arg),*),
                _ => unreachable!("super nodes have at most MAX_ROWS rows"),
            }
        };
    }

    macro_rules! sized {
        ($n:expr, $m:expr, $f:ident($($arg:expr),*)) => {
            match ($n, $m) {
            (1, 0) => $f::<1, 0>($($arg),*),
            (1, 1) => $f::<1, 1>($($arg),*),
            (1, 2) => $f::<1, 2>($($arg),*),
            (1, 3) => $f::<1, 3>($($arg),*),
            (1, 4) => $f::<1, 4>($($arg),*),
            (1, 5) => $f::<1, 5>($($arg),*),
            (1, 6) => $f::<1, 6>($($arg),*),
            (2, 0) => $f::<2, 0>($($arg),*),
            (2, 1) => $f::<2, 1>($($arg),*),
            (2, 2) => $f::<2, 2>($($arg),*),
            (2, 3) => $f::<2, 3>($($arg),*),
            (2, 4) => $f::<2, 4>($($arg),*),
            (2, 5) => $f::<2, 5>($($arg),*),
            (2, 6) => $f::<2, 6>($($arg),*),
            (3, 0) => $f::<3, 0>($($arg),*),
            (3, 1) => $f::<3, 1>($($arg),*),
            (3, 2) => $f::<3, 2>($($arg),*),
            (3, 3) => $f::<3, 3>($($arg),*),
            (3, 4) => $f::<3, 4>($($arg),*),
            (3, 5) => $f::<3, 5>($($arg),*),
            (3, 6) => $f::<3, 6>($($arg),*),
            (4, 0) => $f::<4, 0>($($arg),*),
            (4, 1) => $f::<4, 1>($($arg),*),
            (4, 2) => $f::<4, 2>($($arg),*),
            (4, 3) => $f::<4, 3>($($arg),*),
            (4, 4) => $f::<4, 4>($($arg),*),
            (4, 5) => $f::<4, 5>($($arg),*),
            (4, 6) => $f::<4, 6>($($arg),*),
            (5, 0) => $f::<5, 0>($($arg),*),
            (5, 1) => $f::<5, 1>($($arg),*),
            (5, 2) => $f::<5, 2>($($arg),*),
            (5, 3) => $f::<5, 3>($($arg),*),
            (5, 4) => $f::<5, 4>($($arg),*),
            (5, 5) => $f::<5, 5>($($arg),*),
            (5, 6) => $f::<5, 6>($($arg),*),
            (6, 0) => $f::<6, 0>($($arg),*),
            (6, 1) => $f::<6, 1>($($arg),*),
            (6, 2) => $f::<6, 2>($($arg),*),
            (6, 3) => $f::<6, 3>($($arg),*),
            (6, 4) => $f::<6, 4>($($arg),*),
            (6, 5) => $f::<6, 5>($($arg),*),
            (6, 6) => $f::<6, 6>($($arg),*),
                _ => unreachable!("block sizes are bounded by MAX_ROWS"),
            }
        };
    }

    /// `&v[at..at + N]` as an array, unchecked in release builds.
    ///
    /// The kernels index the system's arrays by offsets that `build_tree` lays out inside
    /// the arrays it sizes (and body indices below the body count it sizes `delta` for);
    /// debug builds, which every test runs (and Miri, on this module's tests), check each
    /// access. Unchecked, the swinging chain executes 11% fewer instructions a step (0.786 M
    /// against 0.700 M, `benches/peers/instructions.sh chain`), the checks having been
    /// most of what the kernels did besides arithmetic.
    #[inline(always)]
    pub(super) fn array<const N: usize>(v: &[f64], at: usize) -> &[f64; N] {
        debug_assert!(at + N <= v.len(), "{at} + {N} beyond {}", v.len());
        // SAFETY: `at + N <= v.len()` by the layout `build_tree` gives (see above), so the
        // `N` values from `at` are inside `v`, initialised and aligned as `f64`s are.
        unsafe { &*v.as_ptr().add(at).cast::<[f64; N]>() }
    }

    /// `&v[i]`, unchecked in release builds (see [`array`]): node, super node and body
    /// indices of the system's tree are below the lengths `build_tree` sizes, and the
    /// per-body arrays a factorisation or solve is given reach every body a super node holds
    /// (`body_span`, asserted once in `factor` and `solve`).
    #[inline(always)]
    fn item<T>(v: &[T], i: usize) -> &T {
        debug_assert!(i < v.len(), "{i} beyond {}", v.len());
        // SAFETY: `i < v.len()` by the tree's layout (see above).
        unsafe { v.get_unchecked(i) }
    }

    /// `&v[at..at + len]`, unchecked in release builds (see [`array`]).
    #[inline(always)]
    fn span(v: &[f64], at: usize, len: usize) -> &[f64] {
        debug_assert!(at + len <= v.len(), "{at} + {len} beyond {}", v.len());
        // SAFETY: as for `array`, with `len` for `N`.
        unsafe { std::slice::from_raw_parts(v.as_ptr().add(at), len) }
    }

    /// [`array`], mutable.
    #[inline(always)]
    fn array_mut<const N: usize>(v: &mut [f64], at: usize) -> &mut [f64; N] {
        debug_assert!(at + N <= v.len(), "{at} + {N} beyond {}", v.len());
        // SAFETY: as for `array`; the borrow of `v` is unique.
        unsafe { &mut *v.as_mut_ptr().add(at).cast::<[f64; N]>() }
    }

    /// Run `r`'s nodes and sizes.
    fn run(system: &DirectSystem, r: usize) -> (Range<usize>, usize, usize) {
        let run = &system.runs[r];
        (run.nodes.clone(), run.size, run.parent_size)
    }

    /// The rows of super node `s` (Jacobian row stride `body_count × 3`).
    fn jacobian_of<'a>(jacobian: &'a [f64], sn: &SuperNode, rows: usize) -> &'a [f64] {
        &jacobian[sn.jacobian_offset..sn.jacobian_offset + rows * sn.body_count * 3]
    }

    /// Writes the blocks of run `r`'s nodes: a body's mass matrix, or a super node's
    /// `−Γ − Σ J_p M⁻¹ J_pᵀ` over its bodies eliminated in closed form.
    pub(super) fn diagonal(system: &mut DirectSystem, r: usize, inverse_masses: &[InverseMass]) {
        let (nodes, n, _) = run(system, r);
        by_rows!(n, diagonal_run(system, nodes, inverse_masses))
    }

    fn diagonal_run<const N: usize>(
        system: &mut DirectSystem,
        nodes: Range<usize>,
        inverse_masses: &[InverseMass],
    ) {
        for i in nodes {
            match item(&system.nodes, i).kind {
                NodeKind::Body(b) => body_block(system, i, inverse_masses[b as usize]),
                NodeKind::Super(s) => {
                    let s = s as usize;
                    match item(&system.supers, s).body_count {
                        1 => diagonal_one::<N, 1>(system, i, s, inverse_masses),
                        2 => diagonal_one::<N, 2>(system, i, s, inverse_masses),
                        _ => diagonal_one::<N, 0>(system, i, s, inverse_masses),
                    }
                }
            }
        }
    }

    fn body_block(system: &mut DirectSystem, i: usize, inv: InverseMass) {
        let at = item(&system.nodes, i).block_offset;
        let block = &mut system.blocks[at..at + 9];
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

    /// `B` as for [`velocity_rows`].
    #[inline(always)]
    fn diagonal_one<const N: usize, const B: usize>(
        system: &mut DirectSystem,
        i: usize,
        s: usize,
        inverse_masses: &[InverseMass],
    ) {
        let DirectSystem {
            supers,
            nodes,
            degree,
            jacobian,
            gamma,
            mass,
            blocks,
            ..
        } = system;
        let sn = item(supers, s);
        let at = item(nodes, i).block_offset;
        let count = if B == 0 { sn.body_count } else { B };
        if sn.from_mass && !masses_far_apart(&sn.bodies[..count], inverse_masses) {
            // Its constraint's own `K'`, which it computed for its rows anyway.
            for r in 0..N {
                let row = sn.gamma_offset + r * N;
                let (g, k) = (array::<N>(gamma, row), array::<N>(mass, row));
                let block = array_mut::<N>(blocks, at + r * N);
                for ((b, g), k) in block.iter_mut().zip(g).zip(k) {
                    *b = -g - k;
                }
            }
            return;
        }
        let block = &mut blocks[at..at + N * N];
        let gamma = &gamma[sn.gamma_offset..sn.gamma_offset + N * N];
        for (b, g) in block.iter_mut().zip(gamma) {
            *b = -g;
        }
        let stride = count * 3;
        let jac = &jacobian[sn.jacobian_offset..sn.jacobian_offset + N * stride];
        for (p, &b) in sn.bodies[..count].iter().enumerate() {
            if degree[b as usize] > 2 {
                continue;
            }
            let inv = *item(inverse_masses, b as usize);
            let (m, i) = (f64::from(inv.mass), f64::from(inv.inertia));
            let mut rows = [[0.0; 3]; N];
            for (r, row) in rows.iter_mut().enumerate() {
                row.copy_from_slice(&jac[r * stride + p * 3..r * stride + p * 3 + 3]);
            }
            // Symmetric: each product once, mirrored (the same value bit for bit, the
            // factors of a product commuting).
            for r in 0..N {
                let ja = rows[r];
                for c in r..N {
                    let jb = rows[c];
                    let product = m * (ja[0] * jb[0] + ja[1] * jb[1]) + i * ja[2] * jb[2];
                    block[r * N + c] -= product;
                    if c != r {
                        block[c * N + r] -= product;
                    }
                }
            }
        }
    }

    /// Whether the bodies' inverse masses are more than [`FAR_APART`] apart: then a
    /// constraint's own `K'`, summed in `f32`, has lost the heavier body's share (1 kg
    /// holding 1,000 t is 1 + 1e-6), which the block from `J` in `f64` keeps.
    #[inline(always)]
    fn masses_far_apart(bodies: &[u32], inverse_masses: &[InverseMass]) -> bool {
        let (mut low, mut high) = (f32::INFINITY, 0.0f32);
        for &b in bodies {
            let m = item(inverse_masses, b as usize).mass;
            if m < low {
                low = m;
            }
            if m > high {
                high = m;
            }
        }
        high > FAR_APART * low
    }

    /// The ratio of two bodies' masses beyond which [`masses_far_apart`] holds.
    const FAR_APART: f32 = 1e3;

    /// Inverts the blocks of run `r`'s nodes and, for each with a parent, forms their
    /// coupling `C` and subtracts `C A⁻¹ Cᵀ` from the parent's block.
    pub(super) fn eliminate(system: &mut DirectSystem, r: usize, inverse_masses: &[InverseMass]) {
        let (nodes, n, m) = run(system, r);
        sized!(n, m, eliminate_run(system, nodes, inverse_masses))
    }

    fn eliminate_run<const N: usize, const M: usize>(
        system: &mut DirectSystem,
        nodes: Range<usize>,
        inverse_masses: &[InverseMass],
    ) {
        for i in nodes {
            eliminate_one::<N, M>(system, i, inverse_masses);
        }
    }

    /// Forward substitution over run `r`, with the right-hand side `rows` gives: each
    /// node's `y` is its own right-hand side plus what its children subtracted (`rhs`
    /// holds only that until the node is reached, and `y` after).
    pub(super) fn forward(system: &mut DirectSystem, r: usize, rows: &impl RowSource) {
        let (nodes, n, m) = run(system, r);
        sized!(n, m, forward_run(system, nodes, rows))
    }

    fn forward_run<const N: usize, const M: usize>(
        system: &mut DirectSystem,
        nodes: Range<usize>,
        rows: &impl RowSource,
    ) {
        let fused = rows.fused();
        let own = |system: &DirectSystem, i: usize| match item(&system.nodes, i).kind {
            NodeKind::Body(_) => [0.0; N],
            NodeKind::Super(s) => rows.rows::<N>(system, s as usize),
        };
        if !fused {
            add_own_rows::<N>(system, nodes.clone(), rows, false);
        }
        let end = nodes.end;
        // Along a chain (the parent is the next node), what the next node needs is kept
        // in registers: storing and reloading it would put the stores on the critical
        // path. Fused, that is what this node subtracts from it (negated); otherwise its
        // whole right-hand side.
        let (mut carried, mut is_carried) = ([0.0; N], false);
        for i in nodes {
            let node = item(&system.nodes, i);
            let (at, parent) = (node.dof_offset, node.parent as usize);
            let y = if fused {
                let mut y = own(system, i);
                let pending = array_mut::<N>(&mut system.rhs, at);
                for (y, p) in y.iter_mut().zip(pending.iter()) {
                    *y += p;
                }
                if is_carried {
                    for (y, c) in y.iter_mut().zip(&carried) {
                        *y += c;
                    }
                }
                pending.copy_from_slice(&y);
                y
            } else if is_carried {
                carried
            } else {
                *array::<N>(&system.rhs, at)
            };
            if M == 0 {
                continue;
            }
            let update = forward_one::<N, M>(system, i, &y);
            let target = array_mut::<M>(&mut system.rhs, item(&system.nodes, parent).dof_offset);
            is_carried = M == N && parent == i + 1 && i + 1 < end;
            if fused {
                if is_carried {
                    carried.iter_mut().zip(&update).for_each(|(c, u)| *c = -u);
                } else {
                    target.iter_mut().zip(&update).for_each(|(x, u)| *x -= u);
                }
            } else {
                let updated = subtract_in_place(target, &update);
                carried.iter_mut().zip(&updated).for_each(|(c, u)| *c = *u);
            }
        }
    }

    /// Backward substitution over run `r` (in reverse), summing each super node's
    /// `Jᵀ μ` into `delta` and, with `accumulate_impulses`, `μ` into `lambda`.
    pub(super) fn backward(system: &mut DirectSystem, r: usize, accumulate_impulses: bool) {
        let (nodes, n, m) = run(system, r);
        sized!(n, m, backward_run(system, nodes, accumulate_impulses))
    }

    fn backward_run<const N: usize, const M: usize>(
        system: &mut DirectSystem,
        nodes: Range<usize>,
        accumulate_impulses: bool,
    ) {
        // The last node's solution, kept in registers for its children (along a chain,
        // the next node): reloading it would wait on the stores.
        let mut carried: Option<(usize, [f64; N])> = None;
        for i in nodes.rev() {
            let mut x = [0.0; M];
            if M > 0 {
                let parent = item(&system.nodes, i).parent as usize;
                match carried {
                    Some((j, solved)) if M == N && j == parent => {
                        x.iter_mut().zip(&solved).for_each(|(x, s)| *x = *s);
                    }
                    _ => x = *array::<M>(&system.solution, item(&system.nodes, parent).dof_offset),
                }
            }
            let mu = backward_one::<N, M>(system, i, &x);
            carried = Some((i, mu));
            if let NodeKind::Super(s) = item(&system.nodes, i).kind {
                let s = s as usize;
                let DirectSystem {
                    supers,
                    jacobian,
                    delta,
                    ..
                } = system;
                accumulate_into::<N>(supers, jacobian, delta, s, &mu);
                if accumulate_impulses {
                    let lambda =
                        array_mut::<N>(&mut system.lambda, item(&system.supers, s).row_offset);
                    for (l, m) in lambda.iter_mut().zip(&mu) {
                        *l += m;
                    }
                }
            }
        }
    }

    /// Adds each node's own right-hand side (from `rows`; a body's is 0) to what its
    /// children in earlier runs subtracted, in `rhs` or (`paired`) `paired_rhs`.
    #[inline(always)]
    fn add_own_rows<const N: usize>(
        system: &mut DirectSystem,
        nodes: Range<usize>,
        rows: &impl RowSource,
        paired: bool,
    ) {
        for i in nodes {
            let node = item(&system.nodes, i);
            let at = node.dof_offset;
            let own = match node.kind {
                NodeKind::Body(_) => [0.0; N],
                NodeKind::Super(s) => rows.rows::<N>(system, s as usize),
            };
            let target = if paired {
                &mut system.paired_rhs
            } else {
                &mut system.rhs
            };
            for (x, o) in array_mut::<N>(target, at).iter_mut().zip(&own) {
                *x += o;
            }
        }
    }

    /// `target −= update`, stored and returned (one store: the parent reads it back).
    #[inline(always)]
    fn subtract_in_place<const M: usize>(target: &mut [f64; M], update: &[f64; M]) -> [f64; M] {
        let mut updated = [0.0; M];
        for ((n, x), u) in updated.iter_mut().zip(target.iter()).zip(update) {
            *n = x - u;
        }
        target.copy_from_slice(&updated);
        updated
    }

    /// [`forward`] of the velocity rows `rows` (into `rhs`) and, in the same loop, of the
    /// projection's errors (into `paired_rhs`), each as [`forward`] alone computes it.
    pub(super) fn forward_paired(system: &mut DirectSystem, r: usize, rows: &VelocityRows) {
        let (nodes, n, m) = run(system, r);
        sized!(n, m, forward_paired_run(system, nodes, rows))
    }

    fn forward_paired_run<const N: usize, const M: usize>(
        system: &mut DirectSystem,
        nodes: Range<usize>,
        rows: &VelocityRows,
    ) {
        // The errors are not fused: their rows first, as `forward_run` takes them.
        add_own_rows::<N>(system, nodes.clone(), &PositionRows, true);
        let end = nodes.end;
        let (mut carried, mut carried_errors, mut is_carried) = ([0.0; N], [0.0; N], false);
        for i in nodes {
            let node = item(&system.nodes, i);
            let (at, parent) = (node.dof_offset, node.parent as usize);
            let mut y = match node.kind {
                NodeKind::Body(_) => [0.0; N],
                NodeKind::Super(s) => rows.rows::<N>(system, s as usize),
            };
            let pending = array_mut::<N>(&mut system.rhs, at);
            for (y, p) in y.iter_mut().zip(pending.iter()) {
                *y += p;
            }
            if is_carried {
                for (y, c) in y.iter_mut().zip(&carried) {
                    *y += c;
                }
            }
            pending.copy_from_slice(&y);
            let errors = if is_carried {
                carried_errors
            } else {
                *array::<N>(&system.paired_rhs, at)
            };
            if M == 0 {
                continue;
            }
            let update = forward_one::<N, M>(system, i, &y);
            let update_errors = forward_one::<N, M>(system, i, &errors);
            let to = item(&system.nodes, parent).dof_offset;
            is_carried = M == N && parent == i + 1 && i + 1 < end;
            if is_carried {
                carried.iter_mut().zip(&update).for_each(|(c, u)| *c = -u);
            } else {
                let target = array_mut::<M>(&mut system.rhs, to);
                target.iter_mut().zip(&update).for_each(|(x, u)| *x -= u);
            }
            let updated =
                subtract_in_place(array_mut::<M>(&mut system.paired_rhs, to), &update_errors);
            carried_errors
                .iter_mut()
                .zip(&updated)
                .for_each(|(c, u)| *c = *u);
        }
    }

    /// [`backward`] of both right-hand sides [`forward_paired`] left: the velocities'
    /// `Jᵀμ` into `delta` and `μ` into the accumulated impulses, the errors' into
    /// `paired_delta`.
    pub(super) fn backward_paired(system: &mut DirectSystem, r: usize) {
        let (nodes, n, m) = run(system, r);
        sized!(n, m, backward_paired_run(system, nodes))
    }

    fn backward_paired_run<const N: usize, const M: usize>(
        system: &mut DirectSystem,
        nodes: Range<usize>,
    ) {
        let mut carried: Option<(usize, [f64; N], [f64; N])> = None;
        for i in nodes.rev() {
            let (mut x, mut x_errors) = ([0.0; M], [0.0; M]);
            if M > 0 {
                let parent = item(&system.nodes, i).parent as usize;
                match carried {
                    Some((j, solved, solved_errors)) if M == N && j == parent => {
                        x.iter_mut().zip(&solved).for_each(|(x, s)| *x = *s);
                        x_errors
                            .iter_mut()
                            .zip(&solved_errors)
                            .for_each(|(x, s)| *x = *s);
                    }
                    _ => {
                        let at = item(&system.nodes, parent).dof_offset;
                        x = *array::<M>(&system.solution, at);
                        x_errors = *array::<M>(&system.paired_solution, at);
                    }
                }
            }
            let DirectSystem {
                supers,
                nodes: tree,
                jacobian,
                gains,
                inverses,
                rhs,
                solution,
                paired_rhs,
                paired_solution,
                delta,
                paired_delta,
                lambda,
                ..
            } = system;
            let mu = backward_into::<N, M>(tree, gains, inverses, rhs, solution, i, &x);
            let mu_errors = backward_into::<N, M>(
                tree,
                gains,
                inverses,
                paired_rhs,
                paired_solution,
                i,
                &x_errors,
            );
            carried = Some((i, mu, mu_errors));
            if let NodeKind::Super(s) = item(tree, i).kind {
                let s = s as usize;
                accumulate_into::<N>(supers, jacobian, delta, s, &mu);
                accumulate_into::<N>(supers, jacobian, paired_delta, s, &mu_errors);
                let lambda = array_mut::<N>(lambda, item(supers, s).row_offset);
                for (l, m) in lambda.iter_mut().zip(&mu) {
                    *l += m;
                }
            }
        }
    }

    /// Where the right-hand side of a super node's rows comes from (a body's is 0).
    pub(super) trait RowSource {
        /// Whether forming the rows is worth overlapping with the forward substitution's
        /// chain of dependent operations (otherwise they are written in a pass of their
        /// own first).
        const FUSED: bool;

        /// [`Self::FUSED`] of a value whose type has no name.
        fn fused(&self) -> bool {
            Self::FUSED
        }

        /// The right-hand side of super node `s`'s `N` rows.
        fn rows<const N: usize>(&self, system: &DirectSystem, s: usize) -> [f64; N];
    }

    /// The velocity pass `pass`: `bias + J v + Γ λ` per row.
    pub(super) struct VelocityRows<'a> {
        pub(super) pass: usize,
        pub(super) velocities: &'a [Velocity],
    }

    impl RowSource for VelocityRows<'_> {
        const FUSED: bool = true;

        #[inline(always)]
        fn rows<const N: usize>(&self, system: &DirectSystem, s: usize) -> [f64; N] {
            let (pass, velocities) = (self.pass, self.velocities);
            match item(&system.supers, s).body_count {
                1 => velocity_rows::<N, 1>(system, s, pass, velocities),
                2 => velocity_rows::<N, 2>(system, s, pass, velocities),
                _ => velocity_rows::<N, 0>(system, s, pass, velocities),
            }
        }
    }

    /// The projection: each row's positional error.
    pub(super) struct PositionRows;

    /// The projection as an impulse: each row's positional error beyond the substep's
    /// start's, times a scale (`1/h`).
    pub(super) struct ScaledPositionRows(pub(super) f64);

    impl RowSource for ScaledPositionRows {
        const FUSED: bool = false;

        #[inline(always)]
        fn rows<const N: usize>(&self, system: &DirectSystem, s: usize) -> [f64; N] {
            let at = item(&system.supers, s).row_offset;
            let mut out = [0.0; N];
            for (i, o) in out.iter_mut().enumerate() {
                *o = (system.bias[2][at + i] - system.start_error[at + i]) * self.0;
            }
            out
        }
    }

    impl RowSource for PositionRows {
        const FUSED: bool = false;

        #[inline(always)]
        fn rows<const N: usize>(&self, system: &DirectSystem, s: usize) -> [f64; N] {
            let at = item(&system.supers, s).row_offset;
            let mut out = [0.0; N];
            out.copy_from_slice(&system.bias[2][at..at + N]);
            out
        }
    }

    /// `B`: the super node's body count, or 0 to read it at run time.
    #[inline(always)]
    fn velocity_rows<const N: usize, const B: usize>(
        system: &DirectSystem,
        s: usize,
        pass: usize,
        velocities: &[Velocity],
    ) -> [f64; N] {
        let sn = item(&system.supers, s);
        let count = if B == 0 { sn.body_count } else { B };
        let mut v = [[0.0; 3]; MAX_BODIES];
        for (v, &b) in v.iter_mut().zip(&sn.bodies[..count]) {
            let body = *item(velocities, b as usize);
            *v = [
                f64::from(body.linear.x),
                f64::from(body.linear.y),
                f64::from(body.angular),
            ];
        }
        let stride = count * 3;
        let bias = array::<N>(&system.bias[pass], sn.row_offset);
        let lambda = array::<N>(&system.lambda, sn.row_offset);
        let mut out = [0.0; N];
        for r in 0..N {
            let mut value = bias[r];
            let row = span(&system.jacobian, sn.jacobian_offset + r * stride, stride);
            for (j, v) in row.chunks_exact(3).zip(&v[..count]) {
                value += j[0] * v[0] + j[1] * v[1] + j[2] * v[2];
            }
            let gamma = array::<N>(&system.gamma, sn.gamma_offset + r * N);
            for q in 0..N {
                value += gamma[q] * lambda[q];
            }
            out[r] = value;
        }
        out
    }

    /// Adds `Jᵀ μ` of super node `s` (`μ` its solution) to its bodies' sums in `delta`,
    /// sized for its body count.
    #[inline(always)]
    fn accumulate_into<const N: usize>(
        supers: &[SuperNode],
        jacobian: &[f64],
        delta: &mut [[f64; 3]],
        s: usize,
        mu: &[f64; N],
    ) {
        match item(supers, s).body_count {
            1 => accumulate_sized::<N, 1>(supers, jacobian, delta, s, mu),
            2 => accumulate_sized::<N, 2>(supers, jacobian, delta, s, mu),
            _ => accumulate_sized::<N, 0>(supers, jacobian, delta, s, mu),
        }
    }

    /// [`accumulate_into`] for `B` bodies (as for [`velocity_rows`]).
    #[inline(always)]
    fn accumulate_sized<const N: usize, const B: usize>(
        supers: &[SuperNode],
        jacobian: &[f64],
        delta: &mut [[f64; 3]],
        s: usize,
        mu: &[f64; N],
    ) {
        let sn = item(supers, s);
        let count = if B == 0 { sn.body_count } else { B };
        let stride = count * 3;
        for (p, &b) in sn.bodies[..count].iter().enumerate() {
            let mut sum = [0.0; 3];
            for r in 0..N {
                let j = array::<3>(jacobian, sn.jacobian_offset + r * stride + p * 3);
                for k in 0..3 {
                    sum[k] += j[k] * mu[r];
                }
            }
            debug_assert!((b as usize) < delta.len());
            // SAFETY: a super node's bodies are below the body count `delta` is sized for
            // (`build_tree`); debug builds check it above.
            let d = unsafe { delta.get_unchecked_mut(b as usize) };
            for k in 0..3 {
                d[k] += sum[k];
            }
        }
    }

    /// The inverse of a symmetric definite block as `(B, s)` with `A⁻¹ = s B`: for
    /// `N = 2` the adjugate and `1 / det`, which keeps the division off the elimination's
    /// critical path (the parent's update needs only `C B Cᵀ`, then one scaling);
    /// otherwise the inverse by elimination without pivoting and `s = 1`, falling back to
    /// the pivoting inverse when a pivot is tiny (a singular block).
    #[inline]
    fn scaled_inverse<const N: usize>(a: &[f64]) -> ([[f64; N]; N], f64) {
        let mut m = [[0.0; N]; N];
        let mut out = [[0.0; N]; N];
        for r in 0..N {
            for c in 0..N {
                m[r][c] = a[r * N + c];
            }
            out[r][r] = 1.0;
        }
        let scale = (0..N).map(|k| m[k][k].abs()).fold(0.0, f64::max);
        if N == 2 {
            // In closed form: one division on the factor's critical path instead of two
            // (the pivot test is the elimination's: both pivots, `a` and `det / a`).
            let last = N - 1;
            let (a, b, c, d) = (m[0][0], m[0][last], m[last][0], m[last][last]);
            let det = a * d - b * c;
            let tiny = scale * 1e-12;
            if a.abs() > tiny && det.abs() > a.abs() * tiny {
                out[0][0] = d;
                out[0][last] = -b;
                out[last][0] = -c;
                out[last][last] = a;
                return (out, 1.0 / det);
            }
        }
        for col in 0..N {
            let pivot = m[col][col];
            if pivot.abs().partial_cmp(&(scale * 1e-12)) != Some(std::cmp::Ordering::Greater) {
                let mut flat = [0.0; super::MAX_BLOCK * super::MAX_BLOCK];
                invert(a, N, &mut flat[..N * N]);
                for r in 0..N {
                    for c in 0..N {
                        out[r][c] = flat[r * N + c];
                    }
                }
                return (out, 1.0);
            }
            let inv = 1.0 / pivot;
            for k in 0..N {
                m[col][k] *= inv;
                out[col][k] *= inv;
            }
            for r in 0..N {
                if r != col {
                    let f = m[r][col];
                    for k in 0..N {
                        m[r][k] -= f * m[col][k];
                        out[r][k] -= f * out[col][k];
                    }
                }
            }
        }
        (out, 1.0)
    }

    /// The block coupling `node` (`N` unknowns) to its `parent` (`M`), `M × N`.
    fn coupling<const N: usize, const M: usize>(
        supers: &[SuperNode],
        jacobian: &[f64],
        node: &TreeNode,
        parent: &TreeNode,
        inverse_masses: &[InverseMass],
    ) -> [[f64; N]; M] {
        let mut c = [[0.0; N]; M];
        match (node.kind, parent.kind, node.edge) {
            // A body (N = 3) under a super node: −J of the parent's rows on it.
            (NodeKind::Body(_), NodeKind::Super(s), Edge::Body(link)) => {
                let sn = item(supers, s as usize);
                let stride = sn.body_count * 3;
                let jac = jacobian_of(jacobian, sn, M);
                for (r, row) in c.iter_mut().enumerate() {
                    let j = &jac[r * stride + link * 3..r * stride + link * 3 + N];
                    for (x, j) in row.iter_mut().zip(j) {
                        *x = -j;
                    }
                }
            }
            // A super node under a body (M = 3): the transpose.
            (NodeKind::Super(s), NodeKind::Body(_), Edge::Body(link)) => {
                let sn = item(supers, s as usize);
                let stride = sn.body_count * 3;
                let jac = jacobian_of(jacobian, sn, N);
                for r in 0..N {
                    let j = &jac[r * stride + link * 3..r * stride + link * 3 + M];
                    for k in 0..M {
                        c[k][r] = -j[k];
                    }
                }
            }
            // Two super nodes sharing a body: −J_{parent} M⁻¹ J_{node}ᵀ on that body.
            (
                NodeKind::Super(s),
                NodeKind::Super(t),
                Edge::Shared {
                    body,
                    child,
                    parent: p,
                },
            ) => {
                let (sn, tn) = (item(supers, s as usize), item(supers, t as usize));
                let inv = *item(inverse_masses, body as usize);
                let (m, i) = (f64::from(inv.mass), f64::from(inv.inertia));
                let (child_stride, parent_stride) = (sn.body_count * 3, tn.body_count * 3);
                let mut jb = [[0.0; 3]; N];
                for (q, row) in jb.iter_mut().enumerate() {
                    let at = sn.jacobian_offset + q * child_stride + child * 3;
                    *row = *array::<3>(jacobian, at);
                }
                for (r, row) in c.iter_mut().enumerate() {
                    let ja = array::<3>(jacobian, tn.jacobian_offset + r * parent_stride + p * 3);
                    for (x, jb) in row.iter_mut().zip(&jb) {
                        *x = -(m * (ja[0] * jb[0] + ja[1] * jb[1]) + i * ja[2] * jb[2]);
                    }
                }
            }
            _ => unreachable!("an edge joins a super node to a body or to a super node"),
        }
        c
    }

    #[inline(always)]
    fn eliminate_one<const N: usize, const M: usize>(
        system: &mut DirectSystem,
        i: usize,
        inverse_masses: &[InverseMass],
    ) {
        let DirectSystem {
            supers,
            nodes,
            jacobian,
            blocks,
            inverses,
            gains,
            ..
        } = system;
        let node = item(nodes, i);
        let at = node.block_offset;
        let (adjugate, scale) = scaled_inverse::<N>(span(blocks, at, N * N));
        for (r, row) in adjugate.iter().enumerate() {
            let out = array_mut::<N>(inverses, at + r * N);
            for (x, a) in out.iter_mut().zip(row) {
                *x = a * scale;
            }
        }
        if M == 0 {
            return;
        }
        let parent = item(nodes, node.parent as usize);
        let c = coupling::<N, M>(supers, jacobian, node, parent, inverse_masses);
        let co = node.coupling_offset;
        // `C B`, the gains `C A⁻¹ = s C B`, and the parent's update `s (C B) Cᵀ`.
        let mut cb = [[0.0; N]; M];
        for r in 0..M {
            for k in 0..N {
                let mut sum = 0.0;
                for j in 0..N {
                    sum += c[r][j] * adjugate[j][k];
                }
                cb[r][k] = sum;
            }
        }
        for (r, row) in cb.iter().enumerate() {
            let out = array_mut::<N>(gains, co + r * N);
            for (x, g) in out.iter_mut().zip(row) {
                *x = g * scale;
            }
        }
        let pa = parent.block_offset;
        for r in 0..M {
            let parent_row = array_mut::<M>(blocks, pa + r * M);
            for (q, x) in parent_row.iter_mut().enumerate() {
                let mut sum = 0.0;
                for k in 0..N {
                    sum += cb[r][k] * c[q][k];
                }
                *x -= sum * scale;
            }
        }
    }

    /// `G y` for node `i` (its gains times its right-hand side `y`), what it subtracts
    /// from its parent's right-hand side.
    #[inline(always)]
    fn forward_one<const N: usize, const M: usize>(
        system: &DirectSystem,
        i: usize,
        y: &[f64; N],
    ) -> [f64; M] {
        let co = item(&system.nodes, i).coupling_offset;
        let mut update = [0.0; M];
        for (r, u) in update.iter_mut().enumerate() {
            let g = array::<N>(&system.gains, co + r * N);
            let mut sum = 0.0;
            for k in 0..N {
                sum += g[k] * y[k];
            }
            *u = sum;
        }
        update
    }

    /// Node `i`'s solution `A⁻¹ (y − Cᵀ x)` given its parent's `x`; stores and returns it.
    #[inline(always)]
    fn backward_one<const N: usize, const M: usize>(
        system: &mut DirectSystem,
        i: usize,
        x: &[f64; M],
    ) -> [f64; N] {
        let DirectSystem {
            nodes,
            gains,
            inverses,
            rhs,
            solution,
            ..
        } = system;
        backward_into::<N, M>(nodes, gains, inverses, rhs, solution, i, x)
    }

    /// [`backward_one`] on the right-hand side `rhs` and into `solution`.
    #[inline(always)]
    fn backward_into<const N: usize, const M: usize>(
        nodes: &[TreeNode],
        gains: &[f64],
        inverses: &[f64],
        rhs: &mut [f64],
        solution: &mut [f64],
        i: usize,
        x: &[f64; M],
    ) -> [f64; N] {
        let node = item(nodes, i);
        let own = array_mut::<N>(rhs, node.dof_offset);
        let y = *own;
        // Zero again for the next forward pass.
        *own = [0.0; N];
        // `A⁻¹ y` does not wait on the parent; `A⁻¹ Cᵀ x = Gᵀ x` (A is symmetric) is
        // all that does.
        let at = node.block_offset;
        let mut mu = [0.0; N];
        for (r, m) in mu.iter_mut().enumerate() {
            let row = array::<N>(inverses, at + r * N);
            let mut sum = 0.0;
            for k in 0..N {
                sum += row[k] * y[k];
            }
            *m = sum;
        }
        if M > 0 {
            let g = span(gains, node.coupling_offset, M * N);
            for (k, m) in mu.iter_mut().enumerate() {
                let mut sum = 0.0;
                for r in 0..M {
                    sum += g[r * N + k] * x[r];
                }
                *m -= sum;
            }
        }
        *array_mut::<N>(solution, node.dof_offset) = mu;
        mu
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
        if !pivot.is_finite() || pivot.abs() <= tiny {
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
    #[cfg(debug_assertions)]
    #[should_panic(expected = "beyond")]
    fn an_access_beyond_an_array_is_caught_in_debug_builds() {
        let v = [0.0; 4];
        let _ = super::kernels::array::<2>(&v, 3);
    }

    #[test]
    fn inverse_of_a_small_matrix_and_of_a_singular_one() {
        let a = [4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0];
        let mut inv = [0.0; 9];
        invert(&a, 3, &mut inv);
        for i in 0..3 {
            for j in 0..3 {
                let p: f64 = (0..3).map(|k| a[i * 3 + k] * inv[k * 3 + j]).sum();
                assert!(
                    (p - f64::from(u8::from(i == j))).abs() < 1e-12,
                    "{i},{j}: {p}"
                );
            }
        }
        let singular = [1.0, 2.0, 2.0, 4.0];
        let mut out = [0.0; 4];
        invert(&singular, 2, &mut out);
        assert!(out.iter().all(|x| x.is_finite()));
    }

    /// Three islands (a lone body, a pair, a three-link chain), each row `v_y` of a body
    /// or the difference of two: after one solve every row holds exactly, whichever
    /// island the elimination visits first.
    #[test]
    fn several_islands_solve_exactly() {
        let up = |a: Option<usize>, b: usize| {
            let mut bodies = [9u32; 8];
            bodies[0] = a.map_or(9, |a| a as u32);
            bodies[1] = b as u32;
            Link {
                rows: 1,
                bodies,
                slots: 2,
            }
        };
        let links = [
            up(None, 0),
            up(None, 1),
            up(Some(1), 2),
            up(None, 3),
            up(Some(3), 4),
            up(Some(4), 5),
        ];
        let mut dynamic = [true; 10];
        dynamic[9] = false;
        let mut system = DirectSystem::default();
        let slots = system.rebuild(&links, &dynamic);
        system.reset_rows();
        for slot in &slots {
            let slot = slot.expect("acyclic");
            system.set_row(
                &slot,
                0,
                &[[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]],
                [0.0; 2],
                0.0,
            );
        }
        let inverse: Vec<InverseMass> = (0..10)
            .map(|i| InverseMass {
                mass: if i == 9 { 0.0 } else { 1.0 / (1.0 + i as f32) },
                inertia: 1.0,
            })
            .collect();
        system.factor(Islands::All, &inverse);
        let mut v: Vec<Velocity> = (0..10)
            .map(|i| Velocity {
                linear: glam::Vec2::new(0.0, -(i as f32) - 1.0),
                angular: 0.0,
            })
            .collect();
        v[9] = Velocity::default();
        system.solve(0, Islands::All, &inverse, &mut v);
        for (i, body) in v.iter().enumerate().take(6) {
            assert!(body.linear.y.abs() < 1e-5, "body {i}: {body:?}");
        }
    }

    /// Two bodies on a vertical chain from a static anchor (rows along x and y): the direct
    /// solve gives velocities with `J v = 0` exactly.
    #[test]
    fn a_chain_of_unit_rows_solves_exactly() {
        // Bodies 0, 1; link 0: (static, 0), link 1: (0, 1); one row each, along y.
        let links = [
            Link {
                rows: 1,
                bodies: [5, 0, 0, 0, 0, 0, 0, 0],
                slots: 2,
            },
            Link {
                rows: 1,
                bodies: [0, 1, 0, 0, 0, 0, 0, 0],
                slots: 2,
            },
        ];
        let dynamic = [true, true, false, false, false, false];
        let mut system = DirectSystem::default();
        let slots = system.rebuild(&links, &dynamic);
        let (s0, s1) = (slots[0].unwrap(), slots[1].unwrap());
        system.reset_rows();
        // Row 0: v0.y = 0 (the anchor is static). Row 1: v1.y − v0.y = 0.
        system.set_row(&s0, 0, &[[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]], [0.0; 2], 0.0);
        system.set_row(&s1, 0, &[[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]], [0.0; 2], 0.0);
        let inverse = [
            InverseMass {
                mass: 1.0,
                inertia: 1.0,
            },
            InverseMass {
                mass: 0.5,
                inertia: 1.0,
            },
        ];
        system.factor(Islands::All, &inverse);
        let mut v = [Velocity::default(); 2];
        v[0].linear.y = -1.0;
        v[1].linear.y = -3.0;
        system.solve(0, Islands::All, &inverse, &mut v);
        assert!(
            v[0].linear.y.abs() < 1e-6 && v[1].linear.y.abs() < 1e-6,
            "{v:?}"
        );
        // The top link carries both bodies' momentum: λ0 = 1·1 + 2·3 = 7.
        let impulse = |slot: &DirectSlot| {
            let mut out = [0.0f32];
            system.read_impulses(slot, &[true], &mut out);
            out[0]
        };
        assert!((impulse(&s0) - 7.0).abs() < 1e-5);
        assert!((impulse(&s1) - 6.0).abs() < 1e-5);
    }

    /// One link per `(bodies, rows)` of `spec`, each between two body slots.
    fn two_body_links(spec: &[([u32; 2], usize)]) -> Vec<Link> {
        spec.iter()
            .map(|&(b, rows)| {
                let mut bodies = [0u32; MAX_BODIES];
                bodies[..2].copy_from_slice(&b);
                Link {
                    rows,
                    bodies,
                    slots: 2,
                }
            })
            .collect()
    }

    /// Deterministic values spread over [−1, 1] (xorshift from `seed`).
    fn spread(mut seed: u32) -> impl FnMut() -> f32 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed % 2001) as f32 / 1000.0 - 1.0
        }
    }

    /// A tree island with every kind of node and edge (a body shared by four constraints,
    /// a super node of two constraints, a three-row one, a static anchor), stiff and
    /// soft rows and a mass ratio of 1e5: the impulses of one velocity solve,
    /// `(J M⁻¹ Jᵀ + Γ) μ = −(J v + b)`, and of one projection, `(J M⁻¹ Jᵀ + Γ) μ = −C`,
    /// match a dense solve.
    #[test]
    fn a_tree_island_matches_the_dense_solve() {
        const STATIC: u32 = 7;
        // (bodies, rows) of each constraint; the last two share bodies 4 and 5.
        let spec: [([u32; 2], usize); 8] = [
            ([STATIC, 0], 2),
            ([0, 1], 2),
            ([1, 2], 1),
            ([1, 3], 2),
            ([1, 4], 3),
            ([4, 5], 2),
            ([5, 4], 1),
            ([5, 6], 2),
        ];
        let links = two_body_links(&spec);
        let mut dynamic = [true; 8];
        dynamic[STATIC as usize] = false;
        let mut system = DirectSystem::default();
        let slots = system.rebuild(&links, &dynamic);
        let inverse: Vec<InverseMass> = (0..8)
            .map(|i| match i {
                7 => InverseMass {
                    mass: 0.0,
                    inertia: 0.0,
                },
                3 => InverseMass {
                    mass: 1e-5,
                    inertia: 2e-5,
                },
                _ => InverseMass {
                    mass: 1.0 / (1.0 + i as f32),
                    inertia: 3.0 / (1.0 + i as f32),
                },
            })
            .collect();
        // Deterministic, well-spread entries.
        let mut next = spread(0x2545_f491);
        let velocities: Vec<Velocity> = (0..8)
            .map(|i| Velocity {
                linear: glam::Vec2::new(next(), next()),
                angular: if i == 7 { 0.0 } else { next() },
            })
            .collect();
        // Dense J (rows × 3 per dynamic body), Γ and b, written alongside.
        let total: usize = spec.iter().map(|s| s.1).sum();
        let mut jacobian = vec![[0.0f64; 21]; total];
        let (mut gamma, mut bias) = (vec![0.0f64; total], vec![0.0f64; total]);
        let mut error = vec![0.0f64; total];
        system.reset_rows();
        let mut row = 0;
        for (l, slot) in slots.iter().enumerate() {
            let slot = slot.expect("acyclic");
            for r in 0..spec[l].1 {
                let j = [[next(), next(), next()], [next(), next(), next()]];
                let b = next();
                system.set_row(&slot, r, &j, [b, 0.0], 0.0);
                let e = next();
                system.set_position_error(&slot, r, e);
                let compliance = if l % 2 == 0 { 1e-3 } else { 1e-7 };
                system.set_compliance(&slot, r, r, compliance);
                for (k, &body) in spec[l].0.iter().enumerate() {
                    if body != STATIC {
                        for d in 0..3 {
                            jacobian[row][body as usize * 3 + d] += f64::from(j[k][d]);
                        }
                    }
                }
                gamma[row] = f64::from(compliance);
                bias[row] = f64::from(b);
                error[row] = f64::from(e);
                row += 1;
            }
        }
        system.factor(Islands::All, &inverse);
        let mut v = velocities.clone();
        system.solve(0, Islands::All, &inverse, &mut v);

        let weight = |c: usize| {
            let inv = inverse[c / 3];
            f64::from(if c % 3 == 2 { inv.inertia } else { inv.mass })
        };
        let speed = |c: usize| {
            let v = velocities[c / 3];
            f64::from([v.linear.x, v.linear.y, v.angular][c % 3])
        };
        let mut matrix = vec![vec![0.0f64; total]; total];
        for r in 0..total {
            for q in 0..total {
                matrix[r][q] = (0..21)
                    .map(|c| jacobian[r][c] * weight(c) * jacobian[q][c])
                    .sum::<f64>();
            }
            matrix[r][r] += gamma[r];
        }
        let velocity_rhs: Vec<f64> = (0..total)
            .map(|r| -(bias[r] + (0..21).map(|c| jacobian[r][c] * speed(c)).sum::<f64>()))
            .collect();
        let position_rhs: Vec<f64> = error.iter().map(|e| -e).collect();
        // The impulses per row, in constraint order, from per-row values of a super node.
        let per_row = |system: &DirectSystem, values: &dyn Fn(&SuperNode, usize) -> f64| {
            let mut out = Vec::new();
            for (l, slot) in slots.iter().enumerate() {
                let slot = slot.expect("acyclic");
                let sn = &system.supers[slot.node as usize];
                for r in 0..spec[l].1 {
                    out.push(values(sn, slot.row as usize + r));
                }
            }
            out
        };
        let impulses = per_row(&system, &|sn, r| system.lambda[sn.row_offset + r]);
        check_dense_solve("velocity", &matrix, &velocity_rhs, &impulses);

        let mut poses = vec![crate::types::Pose::default(); 8];
        system.project(Islands::All, &inverse, &mut poses);
        let dof = |sn: &SuperNode| {
            let node = system
                .nodes
                .iter()
                .find(|n| matches!(n.kind, NodeKind::Super(s) if std::ptr::eq(&system.supers[s as usize], sn)))
                .expect("every super node is a node");
            node.dof_offset
        };
        let projection = per_row(&system, &|sn, r| system.solution[dof(sn) + r]);
        check_dense_solve("projection", &matrix, &position_rhs, &projection);
    }

    /// `got` solves `matrix · x = rhs` to a normwise residual below 1e-10 and matches a
    /// dense pivoting solve to 1e-8 of the largest component. (The tree elimination does
    /// not pivot; on the stiff, ill-conditioned island above both measure ≈ 1e-11 and
    /// ≈ 1e-9 relative on the worst row, as before the kernels were specialised.)
    fn check_dense_solve(name: &str, matrix: &[Vec<f64>], rhs: &[f64], got: &[f64]) {
        let n = rhs.len();
        let mut a: Vec<Vec<f64>> = matrix
            .iter()
            .zip(rhs)
            .map(|(row, b)| row.iter().copied().chain([*b]).collect())
            .collect();
        for col in 0..n {
            let pivot = (col..n)
                .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
                .unwrap();
            a.swap(col, pivot);
            for r in 0..n {
                if r != col {
                    let f = a[r][col] / a[col][col];
                    for c in col..=n {
                        a[r][c] -= f * a[col][c];
                    }
                }
            }
        }
        let expected: Vec<f64> = (0..n).map(|r| a[r][n] / a[r][r]).collect();
        let largest = |x: &[f64]| x.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let matrix_norm = matrix
            .iter()
            .map(|row| row.iter().map(|x| x.abs()).sum::<f64>())
            .fold(0.0, f64::max);
        let residual: Vec<f64> = matrix
            .iter()
            .zip(rhs)
            .map(|(row, b)| row.iter().zip(got).map(|(m, x)| m * x).sum::<f64>() - b)
            .collect();
        let backward_error = largest(&residual) / (matrix_norm * largest(got) + largest(rhs));
        assert!(
            backward_error < 1e-10,
            "{name}: residual {backward_error:e}"
        );
        for (row, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert!(
                (g - e).abs() <= 1e-8 * largest(&expected),
                "{name}, row {row}: {g} against {e}"
            );
        }
    }

    #[test]
    fn a_paired_projection_and_solve_equal_the_two_apart_bit_for_bit() {
        // Two islands: a chain of three bodies from a static one, and a tree of four.
        const STATIC: u32 = 7;
        let spec: [([u32; 2], usize); 6] = [
            ([STATIC, 0], 2),
            ([0, 1], 2),
            ([1, 2], 1),
            ([3, 4], 2),
            ([3, 5], 3),
            ([3, 6], 2),
        ];
        let links = two_body_links(&spec);
        let mut dynamic = [true; 8];
        dynamic[STATIC as usize] = false;
        let inverse: Vec<InverseMass> = (0..8)
            .map(|i| InverseMass {
                mass: if i == 7 { 0.0 } else { 1.0 / (1.0 + i as f32) },
                inertia: if i == 7 { 0.0 } else { 2.0 / (1.0 + i as f32) },
            })
            .collect();
        let build = || {
            let mut next = spread(0x1b87_3593);
            let mut system = DirectSystem::default();
            let slots = system.rebuild(&links, &dynamic);
            system.reset_rows();
            for (l, slot) in slots.iter().enumerate() {
                let slot = slot.expect("acyclic");
                for r in 0..spec[l].1 {
                    let j = [[next(), next(), next()], [next(), next(), next()]];
                    system.set_row(&slot, r, &j, [next(), next()], 0.0);
                    system.set_position_error(&slot, r, next());
                    system.set_compliance(&slot, r, r, if l % 2 == 0 { 1e-3 } else { 0.0 });
                }
            }
            system.factor(Islands::All, &inverse);
            let velocities: Vec<Velocity> = (0..8)
                .map(|_| Velocity {
                    linear: glam::Vec2::new(next(), next()),
                    angular: next(),
                })
                .collect();
            (system, velocities)
        };
        // Only the tree is projected: the chain's velocities are solved alone.
        let marks = |system: &mut DirectSystem| {
            system.clear_marks();
            let tree = system.island_of[system.supers.len() - 1] as usize;
            let mut which = vec![false; system.island_count()];
            which[tree] = true;
            system.mark_islands(&which);
        };
        let (mut apart, mut v_apart) = build();
        let mut poses_apart = vec![crate::types::Pose::default(); 8];
        marks(&mut apart);
        apart.project(Islands::Marked, &inverse, &mut poses_apart);
        apart.solve(1, Islands::All, &inverse, &mut v_apart);

        let (mut paired, mut v_paired) = build();
        let mut poses_paired = vec![crate::types::Pose::default(); 8];
        marks(&mut paired);
        let count = paired.project_and_solve(1, &inverse, &mut poses_paired, &mut v_paired);
        assert!(!paired.factored_since(count));

        let bits = |v: &[Velocity]| -> Vec<u32> {
            v.iter()
                .flat_map(|v| [v.linear.x, v.linear.y, v.angular].map(f32::to_bits))
                .collect()
        };
        assert_eq!(bits(&v_paired), bits(&v_apart));
        assert!(v_paired.iter().zip(&build().1).any(|(a, b)| a != b));
        let pose_bits = |p: &[crate::types::Pose]| -> Vec<u32> {
            p.iter()
                .flat_map(|p| [p.position.x, p.position.y, p.angle].map(f32::to_bits))
                .collect()
        };
        assert_eq!(pose_bits(&poses_paired), pose_bits(&poses_apart));
        assert!(poses_paired[4] != crate::types::Pose::default());
        assert_eq!(poses_paired[1], crate::types::Pose::default());
        let lambda_bits =
            |s: &DirectSystem| s.lambda.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(lambda_bits(&paired), lambda_bits(&apart));
        paired.factor(Islands::All, &inverse);
        assert!(paired.factored_since(count));
    }
}
