//! The exact solve of an island: a sparse `LDLᵀ` of the joint system, in linear time
//! on a tree.
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
//! precision. An island with loops (a linkage, a closed ring, a scissor lift) is a
//! spanning tree of its super nodes and the few that close its loops, whose rows are
//! solved through the tree's Schur complement ([`loops`]), up to [`MAX_LOOP_ROWS`] of
//! them.
//!
//! Static and kinematic bodies are not nodes: their infinite mass decouples the
//! constraints that touch them. Islands with more loop rows (meshes, grids) are left to
//! the iterative solver.

// Dense block algebra reads best with explicit indices.
#![allow(clippy::needless_range_loop)]

use std::collections::HashMap;

use crate::constraint::SharedSlots;
use crate::types::{InverseMass, Velocity, settle};

mod carry;
mod islands;
mod kernels;
mod loops;
mod projection;
mod rows;
mod solve;
#[cfg(test)]
mod tests;

/// The most rows a super node (all constraints between one set of dynamic bodies) may
/// have; an island with a larger one is solved iteratively.
pub(crate) const MAX_ROWS: usize = 6;

/// The most loop-closing rows an island solved exactly may have (see [`loops`]); an
/// island with more (a mesh) is solved iteratively. Measured on hung meshes
/// (`examples/loops.rs -- crossover`, docs/benchmarks.md): at 40 to 60 loop rows the exact
/// solve costs what the sweeps at 64 substeps do, which still leave 1e-4 m to its 1e-7,
/// and beyond it costs more, growing with the fourth power of the mesh's side.
pub(crate) const MAX_LOOP_ROWS: usize = 64;

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
    /// Each row's `Jᵀ` on each slot (`[x, y, θ]`, already weighted), in the system's `f64`.
    pub(crate) jacobian: [[[f64; 3]; B]; D],
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
    /// Whether it closes a loop: it is not in its island's tree, and its rows are solved
    /// through the tree's Schur complement ([`loops`]).
    closes_loop: bool,
    /// Whether it is its island's root, eliminated last.
    root: bool,
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
    /// Per body, what rounding its velocity to `f32` left of the `f64` sums the exact
    /// solves and SHAKE's corrections add to it this step (see [`add_kept`]); zero at a
    /// step's start ([`forget_velocity_rounding`](Self::forget_velocity_rounding)).
    velocity_rounding: Vec<KeptRounding>,
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
    /// The loop-closing rows of every island and their factorisation.
    loops: loops::Loops,
}

/// What rounding a body's velocity to `f32` left of an exact solve's `f64` sum, per
/// component, and the velocity it was rounded to: it stands for the rest of the exact
/// velocity only while the body's velocity is still that one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct KeptRounding {
    left: [f32; 3],
    of: [f32; 3],
}

/// Adds the solve's `f64` change `dv` to velocity `v`, with what the last rounding of it
/// left (`kept`, where `v` is still what that rounding gave), and keeps what this
/// rounding leaves. Within a step a body's velocity is thus held to `f64` precision across
/// the several solves and corrections of each substep, and rounded to `f32` once, where
/// the body keeps it: rounded at every update, a free spinning pair's angular momentum
/// walked off by 2.1e-4 in an hour (`long_run -- --pair-substeps 0`), kept, by 7e-5. A
/// velocity changed in between (a kick, a speed limit, a projection undone) drops what
/// was kept: it was left by a velocity the body no longer has (kept across a correction
/// taken back, it left the body of `a_limit_contradicting_a_pivot_does_not_spin_the_body`
/// spinning at up to 2,460 rad/s). A non-finite sum keeps nothing.
#[inline(always)]
fn add_kept(v: &mut Velocity, kept: &mut KeptRounding, dv: [f64; 3]) {
    #[inline(always)]
    fn add(component: &mut f32, left: &mut f32, of: &mut f32, dv: f64) {
        let carried = if *component == *of {
            f64::from(*left)
        } else {
            0.0
        };
        let exact = f64::from(*component) + carried + dv;
        *component = settle(exact);
        // What is left is below an ulp of the component: an `f32` holds it to a few ulps
        // of its own.
        let rest = (exact - f64::from(*component)) as f32;
        *left = if rest.is_finite() { rest } else { 0.0 };
        *of = *component;
    }
    let KeptRounding { left, of } = kept;
    add(&mut v.linear.x, &mut left[0], &mut of[0], dv[0]);
    add(&mut v.linear.y, &mut left[1], &mut of[1], dv[1]);
    add(&mut v.angular, &mut left[2], &mut of[2], dv[2]);
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
