//! The derivation: from the rows of `c(q)` (or `J·v + b`) to `J`, its per-step cache, the
//! velocity error, `K = J M⁻¹ Jᵀ` with its shared-body cross terms, and the impulse.
//!
//! Pure symbolic work on the [`Graph`]; no tokens. The Jacobian entries that depend on the
//! poses are computed once per step into a cache (a hand-written joint's world anchors);
//! everything evaluated per velocity iteration reads that cache, so constant entries
//! (the ±1 of a pivot) vanish from the inner loop by simplification.

mod factoring;
#[cfg(test)]
mod tests;

use crate::model::Mode;
use crate::symbolic::{Differentiator, Dof, Graph, Id, Leaf, Node};
use factoring::{
    Signed, canonical_sum, collect_factors, factored_sum, flatten_sum, share_cache_products,
};

/// Everything derived from one constraint's rows.
pub struct Derivation {
    /// Number of rows.
    pub dim: usize,
    /// Number of body slots.
    pub bodies: usize,
    /// The pose-dependent values computed per step (`Leaf::Cached(k)` is `cache[k]`).
    pub cache: Vec<Id>,
    /// `J` over cached values, parameters and constants: `jacobian[i][3s + d]`.
    pub jacobian: Vec<Vec<Id>>,
    /// For a velocity-only constraint, the constant part `b` of each row.
    pub bias: Vec<Id>,
    /// What `velocity_bias` returns: `b` of each row, a `b` that depends on the poses read
    /// from the Jacobian's per-step cache.
    pub velocity_bias: Vec<Id>,
    /// `J·v` per row over `Leaf::Velocity`.
    pub velocity_error: Vec<Id>,
    /// `K` without shared bodies, upper triangle: `effective_mass[i][j]` for `i <= j`.
    pub effective_mass: Vec<Vec<Id>>,
    /// Cross terms `(s, t, [(i, j, term)])` added when slots `s < t` hold the same body.
    pub shared_terms: Vec<SharedTerms>,
    /// `Jᵀλ` per slot and degree of freedom over `Leaf::Impulse`: `impulse[s][d]`.
    pub impulse: Vec<[Id; 3]>,
    /// Of a positional constraint, per slot, the geometric stiffness of the force `f`
    /// (`Leaf::Impulse`) its rows carry: `[|∂²(fᵀc)/∂θ²|, ρ(∂²(fᵀc)/∂x²)]` over the slot's
    /// own angle and position (`ρ` the spectral radius of the 2×2 Hessian). Empty for a
    /// velocity-only constraint.
    pub geometric_stiffness: Vec<[Id; 2]>,
    /// Which winding the raw angles (`Leaf::Pose(s, Dof::Angle)`) are read from.
    pub winding: Winding,
    /// Where every row is affine in the raw angles (see [`turn_terms`]), each row's
    /// `(slot, ∂c/∂θ_s)` over the slots whose raw angle it reads: `c` is then computed
    /// from the principal angles, and `2π·Σ_s (∂c/∂θ_s)·turns_s` added in `f64`.
    pub turn_terms: Option<Vec<Vec<(usize, Id)>>>,
    /// Whether every row is unchanged when all bodies move by the same vector
    /// (`Σ_s ∂c/∂x_s ≡ 0` and `Σ_s ∂c/∂y_s ≡ 0`): then the solver may give the rows
    /// positions relative to a body of theirs (`Constraint::translation_invariant`).
    pub translation_invariant: bool,
}

/// Whether `rows` are identically unchanged by a uniform shift of every body's position.
fn translation_invariant(graph: &mut Graph, rows: &[Id]) -> bool {
    [Dof::X, Dof::Y].into_iter().all(|dof| {
        let mut shift = Differentiator::uniform_shift(dof);
        rows.iter().all(|&row| {
            let sum = shift.derive(graph, row);
            graph.is_const(sum, 0.0)
        })
    })
}

/// Which winding generated code reads the bodies' raw angles from: each slot's angle is
/// read as `2π·(turns_s − reference) + atan2(sin_s, cos_s)`. The rows are unchanged when
/// every raw angle is shifted by the same `2πk` exactly when `Σ_s ∂c/∂θ_s ≡ 0` over the
/// raw angles (cosines and sines are periodic); then a reference body's winding can be
/// taken out of every angle, and what is left, the relative turns and the principal
/// angles, keeps `f32` precision after any number of turns. Otherwise the angles are read
/// whole. Either way `c` has the same value; only its rounding differs.
#[derive(Clone, Debug, PartialEq)]
pub enum Winding {
    /// No raw angle is read (cosines and sines read the rotation itself).
    Unread,
    /// From winding 0, the whole angles: a uniform turn of the bodies changes the rows.
    Absolute,
    /// From the winding of this slot (the first whose raw angle is read): the rows are
    /// unchanged under a uniform turn.
    Relative(usize),
    /// From the winding of `slot` where every one of `tests` (expressions of the
    /// parameters alone, a row's `Σ_s ∂c/∂θ_s`) is exactly 0 at run time, else from 0:
    /// an angle joint's `ratio·θ₂ − θ₁` is relative for a ratio of 1.
    Conditional {
        /// The reference slot.
        slot: usize,
        /// The rows' sums that are not identically 0.
        tests: Vec<Id>,
    },
}

/// Which winding `rows` may read their raw angles from (see [`Winding`]): each row
/// differentiated by a uniform turn of the raw angles.
fn winding(graph: &mut Graph, rows: &[Id]) -> Winding {
    let first = graph
        .reachable(rows)
        .into_iter()
        .filter_map(|id| match graph.node(id) {
            Node::Leaf(Leaf::Pose(s, Dof::Angle)) => Some(usize::from(s)),
            _ => None,
        })
        .min();
    let Some(slot) = first else {
        return Winding::Unread;
    };
    let mut turn = Differentiator::uniform_turn();
    let mut tests = Vec::new();
    for &row in rows {
        let sum = turn.derive(graph, row);
        if graph.is_const(sum, 0.0) {
            continue;
        }
        let varies = graph.as_const(sum).is_some()
            || graph.depends_on(sum, |leaf| {
                matches!(
                    leaf,
                    Leaf::Pose(..) | Leaf::Cos(_) | Leaf::Sin(_) | Leaf::Velocity(..)
                )
            });
        if varies {
            return Winding::Absolute;
        }
        tests.push(sum);
    }
    if tests.is_empty() {
        Winding::Relative(slot)
    } else {
        Winding::Conditional { slot, tests }
    }
}

/// The additions to `K` when two slots hold the same body.
pub struct SharedTerms {
    /// First slot.
    pub first: usize,
    /// Second slot.
    pub second: usize,
    /// Non-zero additions `(i, j, term)` with `i <= j`.
    pub terms: Vec<(usize, usize, Id)>,
}

/// Why a derivation is impossible.
#[derive(Debug, PartialEq, Eq)]
pub enum DeriveError {
    /// A velocity-only row whose `J` depends on velocities; the row index.
    NonLinearVelocity(usize),
}

fn slot(s: usize) -> u8 {
    u8::try_from(s).expect("at most 8 body slots")
}

fn column_variable(mode: Mode, s: usize, dof: Dof) -> Leaf {
    match mode {
        Mode::Position => Leaf::Pose(slot(s), dof),
        Mode::Velocity => Leaf::Velocity(slot(s), dof),
    }
}

fn inverse_mass_leaf(s: usize, dof: Dof) -> Leaf {
    match dof {
        Dof::X | Dof::Y => Leaf::InverseMass(slot(s)),
        Dof::Angle => Leaf::InverseInertia(slot(s)),
    }
}

fn depends_on_pose(graph: &Graph, id: Id) -> bool {
    graph.depends_on(id, |leaf| {
        matches!(leaf, Leaf::Pose(..) | Leaf::Cos(_) | Leaf::Sin(_))
    })
}

/// Derives everything from `rows`.
///
/// # Errors
/// A velocity-only row that is not linear in the velocities.
pub fn derive(
    graph: &mut Graph,
    rows: &[Id],
    mode: Mode,
    bodies: usize,
) -> Result<Derivation, DeriveError> {
    let dim = rows.len();
    let columns = 3 * bodies;

    let mut exact = vec![Vec::with_capacity(columns); dim];
    for s in 0..bodies {
        for dof in Dof::ALL {
            let mut differentiator = Differentiator::new(column_variable(mode, s, dof));
            for (i, &row) in rows.iter().enumerate() {
                exact[i].push(differentiator.derive(graph, row));
            }
        }
    }

    let mut bias = Vec::new();
    if mode == Mode::Velocity {
        for (i, entries) in exact.iter().enumerate() {
            if entries
                .iter()
                .any(|&e| graph.depends_on(e, |leaf| matches!(leaf, Leaf::Velocity(..))))
            {
                return Err(DeriveError::NonLinearVelocity(i));
            }
        }
        for &row in rows {
            bias.push(graph.substitute(row, &|leaf| {
                matches!(leaf, Leaf::Velocity(..)).then_some(0.0)
            }));
        }
    }

    // Cache each distinct pose-dependent entry once, up to sign, in the order the values
    // are computed (by id): a direction's x before its y, as a hand-written joint lays out
    // its per-step values, so the compiler needs no shuffles to fill the cache.
    let split = |graph: &mut Graph, entry: Id| {
        let (base, negated) = match graph.node(entry) {
            Node::Neg(inner) => (inner, true),
            _ => (entry, false),
        };
        depends_on_pose(graph, base).then(|| (collect_factors(graph, base), negated))
    };
    let splits: Vec<Vec<Option<Signed>>> = exact
        .iter()
        .map(|entries| entries.iter().map(|&entry| split(graph, entry)).collect())
        .collect();
    let mut cache: Vec<Id> = splits
        .iter()
        .flatten()
        .flatten()
        .map(|&(base, _)| base)
        .collect();
    cache.sort();
    cache.dedup();
    let mut jacobian = vec![Vec::with_capacity(columns); dim];
    for (i, (entries, splits)) in exact.iter().zip(&splits).enumerate() {
        for (&entry, &split) in entries.iter().zip(splits) {
            let cached = match split {
                Some((base, negated)) => {
                    let k = cache.binary_search(&base).expect("cached above");
                    let leaf = graph.leaf(Leaf::Cached(u16::try_from(k).expect("cache fits u16")));
                    if negated { graph.neg(leaf) } else { leaf }
                }
                None => entry,
            };
            jacobian[i].push(cached);
        }
    }

    share_cache_products(graph, &mut cache);

    // A velocity-only row whose constant part reads the poses: cached per step with `J`.
    let mut velocity_bias = Vec::new();
    for &b in &bias {
        if depends_on_pose(graph, b) {
            cache.push(b);
            let k = u16::try_from(cache.len() - 1).expect("cache fits u16");
            velocity_bias.push(graph.leaf(Leaf::Cached(k)));
        } else {
            velocity_bias.push(b);
        }
    }

    let velocity_error = (0..dim)
        .map(|i| {
            let terms: Vec<(Id, Id)> = (0..bodies)
                .flat_map(|s| Dof::ALL.map(|dof| (s, dof)))
                .map(|(s, dof)| {
                    let velocity = graph.leaf(Leaf::Velocity(slot(s), dof));
                    (jacobian[i][3 * s + dof.offset()], velocity)
                })
                .collect();
            factored_sum(graph, &terms)
        })
        .collect();

    let mut effective_mass = vec![Vec::new(); dim];
    for i in 0..dim {
        for j in 0..dim {
            if j < i {
                effective_mass[i].push(graph.constant(0.0));
                continue;
            }
            // Σ_s m_s (J_i,sx J_j,sx + J_i,sy J_j,sy) + Σ_s i_s J_i,sθ J_j,sθ: the mass
            // terms first, and slots with the same factor share it, so a pivot's diagonal
            // has one `m₁ + m₂` and a distance row's one `|n|²·(m₁ + m₂)`.
            let linear = (0..bodies).map(|s| {
                let (x, y) = (3 * s, 3 * s + 1);
                let xx = graph.mul(jacobian[i][x], jacobian[j][x]);
                let yy = graph.mul(jacobian[i][y], jacobian[j][y]);
                (graph.add(xx, yy), graph.leaf(Leaf::InverseMass(slot(s))))
            });
            let mut terms: Vec<(Id, Id)> = linear.collect();
            for s in 0..bodies {
                let theta = 3 * s + 2;
                let product = graph.mul(jacobian[i][theta], jacobian[j][theta]);
                terms.push((product, graph.leaf(Leaf::InverseInertia(slot(s)))));
            }
            effective_mass[i].push(factored_sum(graph, &terms));
        }
    }

    let mut shared_terms = Vec::new();
    for first in 0..bodies {
        for second in first + 1..bodies {
            let mut terms = Vec::new();
            for i in 0..dim {
                for j in i..dim {
                    // On the diagonal both orders are one product: J_s M⁻¹ J_tᵀ, doubled
                    // once at the end rather than per component.
                    let [x, y, theta] = Dof::ALL.map(|dof| {
                        let (a, b) = (3 * first + dof.offset(), 3 * second + dof.offset());
                        let forward = graph.mul(jacobian[i][a], jacobian[j][b]);
                        if i == j {
                            return forward;
                        }
                        let backward = graph.mul(jacobian[i][b], jacobian[j][a]);
                        graph.add(forward, backward)
                    });
                    // One inverse mass for both linear components.
                    let linear = graph.add(x, y);
                    let inverse_mass = graph.leaf(inverse_mass_leaf(first, Dof::X));
                    let inverse_inertia = graph.leaf(inverse_mass_leaf(first, Dof::Angle));
                    let linear = graph.mul(linear, inverse_mass);
                    let angular = graph.mul(theta, inverse_inertia);
                    let mut term = graph.add(linear, angular);
                    if i == j {
                        let two = graph.constant(2.0);
                        term = graph.mul(two, term);
                    }
                    if !graph.is_const(term, 0.0) {
                        terms.push((i, j, term));
                    }
                }
            }
            if !terms.is_empty() {
                shared_terms.push(SharedTerms {
                    first,
                    second,
                    terms,
                });
            }
        }
    }

    let impulse = (0..bodies)
        .map(|s| {
            Dof::ALL.map(|dof| {
                let terms: Vec<Id> = (0..dim)
                    .map(|i| {
                        let lambda =
                            graph.leaf(Leaf::Impulse(u8::try_from(i).expect("rows fit u8")));
                        graph.mul(jacobian[i][3 * s + dof.offset()], lambda)
                    })
                    .collect();
                // Canonical sign, so that opposite slots share `Jᵀλ` and differ only by
                // `+=` and `-=`, as a hand-written impulse does.
                let mut signed = Vec::new();
                for term in terms {
                    flatten_sum(graph, term, false, &mut signed);
                }
                canonical_sum(graph, signed)
            })
        })
        .collect();

    let winding = winding(graph, rows);
    let turn_terms = match mode {
        Mode::Position => turn_terms(graph, rows),
        Mode::Velocity => None,
    };
    let translation_invariant = translation_invariant(graph, rows);

    let geometric_stiffness = match mode {
        Mode::Position => (0..bodies)
            .map(|s| slot_stiffness(graph, &exact, s))
            .collect(),
        Mode::Velocity => Vec::new(),
    };

    Ok(Derivation {
        dim,
        bodies,
        cache,
        jacobian,
        bias,
        velocity_bias,
        velocity_error,
        effective_mass,
        shared_terms,
        impulse,
        geometric_stiffness,
        winding,
        turn_terms,
        translation_invariant,
    })
}

/// Each row's coefficients on the whole turns of the raw angles it reads, where every row
/// is affine in them: `∂c/∂θ_s` over the raw angle alone (the cosines and sines held
/// fixed) reading no raw angle itself. Then `c` at angles `k_s` turns further is
/// `c + 2π·Σ_s k_s·∂c/∂θ_s` exactly, so `c` can be computed from the principal angles in
/// `(−π, π]`, which keep `f32` precision, and the turns added in `f64`: a gear's
/// `ratio·θ₂ − θ₁` or a differential's `θ₁ + θ₂ − 2θ₃` between wheels that wind apart
/// holds to `f32` precision of the rows, not of the angles. `None` where no raw angle is
/// read, or a row reads one other than linearly.
fn turn_terms(graph: &mut Graph, rows: &[Id]) -> Option<Vec<Vec<(usize, Id)>>> {
    let is_raw = |leaf: Leaf| matches!(leaf, Leaf::Pose(_, Dof::Angle));
    let mut slots: Vec<u8> = graph
        .reachable(rows)
        .into_iter()
        .filter_map(|id| match graph.node(id) {
            Node::Leaf(Leaf::Pose(s, Dof::Angle)) => Some(s),
            _ => None,
        })
        .collect();
    slots.sort_unstable();
    slots.dedup();
    if slots.is_empty() {
        return None;
    }
    let mut turns: Vec<Differentiator> = slots
        .iter()
        .map(|&s| Differentiator::slot_turn(s))
        .collect();
    let mut terms = Vec::with_capacity(rows.len());
    for &row in rows {
        let mut row_terms = Vec::new();
        for (&s, turn) in slots.iter().zip(&mut turns) {
            let coefficient = turn.derive(graph, row);
            if graph.is_const(coefficient, 0.0) {
                continue;
            }
            if graph.depends_on(coefficient, is_raw) {
                return None;
            }
            row_terms.push((usize::from(s), coefficient));
        }
        terms.push(row_terms);
    }
    Some(terms)
}

/// `[|∂²(fᵀc)/∂θ²|, ρ(∂²(fᵀc)/∂x²)]` of slot `s`, differentiating the exact Jacobian
/// `exact[i][3s + d] = ∂c_i/∂q_sd` once more: how fast the torque of the rows' force on
/// the slot turns with the body, and the largest rate at which its force changes as the
/// body moves (a rope's tension over its length, across it). For 2×2 symmetric `H`,
/// `ρ(H) = |tr H|/2 + √(((h_xx − h_yy)/2)² + h_xy²)`. A pivot's force does not depend on
/// positions, so its linear part folds to the constant 0.
fn slot_stiffness(graph: &mut Graph, exact: &[Vec<Id>], s: usize) -> [Id; 2] {
    let loaded = |graph: &mut Graph, dof: Dof, variable: Dof| {
        let mut differentiator = Differentiator::new(Leaf::Pose(slot(s), variable));
        let terms: Vec<Id> = exact
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let second = differentiator.derive(graph, row[3 * s + dof.offset()]);
                let force = graph.leaf(Leaf::Impulse(u8::try_from(i).expect("rows fit u8")));
                graph.mul(second, force)
            })
            .collect();
        graph.sum(terms)
    };
    let turn = loaded(graph, Dof::Angle, Dof::Angle);
    let xx = loaded(graph, Dof::X, Dof::X);
    let xy = loaded(graph, Dof::X, Dof::Y);
    let yy = loaded(graph, Dof::Y, Dof::Y);
    let half = graph.constant(0.5);
    let trace = graph.add(xx, yy);
    let half_trace = graph.mul(half, trace);
    let gap = graph.sub(xx, yy);
    let half_gap = graph.mul(half, gap);
    let gap_squared = graph.mul(half_gap, half_gap);
    let xy_squared = graph.mul(xy, xy);
    let radicand = graph.add(gap_squared, xy_squared);
    let spread = graph.sqrt(radicand);
    let mean = graph.abs(half_trace);
    [graph.abs(turn), graph.add(mean, spread)]
}
