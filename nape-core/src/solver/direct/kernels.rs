//! The per-node block operations, monomorphised for the node's block size and its
//! parent's (or, per super node, its row count) so that the small dense loops unroll and
//! every slice has a length the compiler knows, which drops the bounds checks.

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
                let lambda = array_mut::<N>(&mut system.lambda, item(&system.supers, s).row_offset);
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
        let updated = subtract_in_place(array_mut::<M>(&mut system.paired_rhs, to), &update_errors);
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

/// The tree's rows seen by the velocities of a unit impulse along a loop-closing row
/// (`J v` with `v = M⁻¹ Jⱼᵀ`, from [`Loops::velocity`](super::loops::Loops)): its
/// response solve's right-hand side.
pub(super) struct ResponseRows;

impl RowSource for ResponseRows {
    const FUSED: bool = false;

    #[inline(always)]
    fn rows<const N: usize>(&self, system: &DirectSystem, s: usize) -> [f64; N] {
        let sn = item(&system.supers, s);
        let stride = sn.body_count * 3;
        let mut out = [0.0; N];
        for (p, &b) in sn.bodies[..sn.body_count].iter().enumerate() {
            let v = *item(&system.loops.velocity, b as usize);
            if v == [0.0; 3] {
                continue;
            }
            for (r, o) in out.iter_mut().enumerate() {
                let j = array::<3>(&system.jacobian, sn.jacobian_offset + r * stride + p * 3);
                *o += j[0] * v[0] + j[1] * v[1] + j[2] * v[2];
            }
        }
        out
    }
}

/// The right-hand side `rows` gives super node `s`'s rows, into `out` (as long as its
/// rows).
pub(super) fn rows_into(system: &DirectSystem, s: usize, rows: &impl RowSource, out: &mut [f64]) {
    let n = item(&system.supers, s).rows;
    by_rows!(n, rows_into_sized(system, s, rows, out))
}

fn rows_into_sized<const N: usize>(
    system: &DirectSystem,
    s: usize,
    rows: &impl RowSource,
    out: &mut [f64],
) {
    out[..N].copy_from_slice(&rows.rows::<N>(system, s));
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
