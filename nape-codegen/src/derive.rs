//! The derivation: from the rows of `c(q)` (or `J·v + b`) to `J`, its per-step cache, the
//! velocity error, `K = J M⁻¹ Jᵀ` with its shared-body cross terms, and the impulse.
//!
//! Pure symbolic work on the [`Graph`]; no tokens. The Jacobian entries that depend on the
//! poses are computed once per step into a cache (a hand-written joint's world anchors);
//! everything evaluated per velocity iteration reads that cache, so constant entries
//! (the ±1 of a pivot) vanish from the inner loop by simplification.

use crate::model::Mode;
use crate::symbolic::{Differentiator, Dof, Graph, Id, Leaf};

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
    /// `J·v` per row over `Leaf::Velocity`.
    pub velocity_error: Vec<Id>,
    /// `K` without shared bodies, upper triangle: `effective_mass[i][j]` for `i <= j`.
    pub effective_mass: Vec<Vec<Id>>,
    /// Cross terms `(s, t, [(i, j, term)])` added when slots `s < t` hold the same body.
    pub shared_terms: Vec<SharedTerms>,
    /// `Jᵀλ` per slot and degree of freedom over `Leaf::Impulse`: `impulse[s][d]`.
    pub impulse: Vec<[Id; 3]>,
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

/// `Σ coefficient·variable` with the variables of equal coefficients (up to sign) summed
/// first: `c·a − c·b` becomes `c·(a − b)`, so each distinct coefficient is multiplied
/// once (a distance row's velocity error multiplies its direction by the relative
/// velocity, as a hand-written joint does). Groups keep the order of first appearance.
fn factored_sum(graph: &mut Graph, terms: &[(Id, Id)]) -> Id {
    let mut groups: Vec<(Id, Vec<Id>)> = Vec::new();
    for &(coefficient, variable) in terms {
        let (base, negated) = match (graph.node(coefficient), graph.as_const(coefficient)) {
            (_, Some(0.0)) => continue,
            (_, Some(value)) if value < 0.0 => (graph.constant(-value), true),
            (crate::symbolic::Node::Neg(inner), _) => (inner, true),
            _ => (coefficient, false),
        };
        let signed = if negated {
            graph.neg(variable)
        } else {
            variable
        };
        match groups.iter_mut().find(|(b, _)| *b == base) {
            Some((_, variables)) => variables.push(signed),
            None => groups.push((base, vec![signed])),
        }
    }
    let products: Vec<Id> = groups
        .into_iter()
        .map(|(base, variables)| {
            let sum = graph.sum(variables);
            graph.mul(base, sum)
        })
        .collect();
    graph.sum(products)
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

    // Cache each distinct pose-dependent entry once, up to sign.
    let mut cache: Vec<Id> = Vec::new();
    let mut jacobian = vec![Vec::with_capacity(columns); dim];
    for (i, entries) in exact.iter().enumerate() {
        for &entry in entries {
            let (base, negated) = match graph.node(entry) {
                crate::symbolic::Node::Neg(inner) => (inner, true),
                _ => (entry, false),
            };
            let cached = if depends_on_pose(graph, base) {
                let k = cache.iter().position(|&c| c == base).unwrap_or_else(|| {
                    cache.push(base);
                    cache.len() - 1
                });
                let leaf = graph.leaf(Leaf::Cached(u16::try_from(k).expect("cache fits u16")));
                if negated { graph.neg(leaf) } else { leaf }
            } else {
                entry
            };
            jacobian[i].push(cached);
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
                    let [x, y, theta] = Dof::ALL.map(|dof| {
                        let (a, b) = (3 * first + dof.offset(), 3 * second + dof.offset());
                        let forward = graph.mul(jacobian[i][a], jacobian[j][b]);
                        let backward = graph.mul(jacobian[i][b], jacobian[j][a]);
                        graph.add(forward, backward)
                    });
                    // One inverse mass for both linear components.
                    let linear = graph.add(x, y);
                    let inverse_mass = graph.leaf(inverse_mass_leaf(first, Dof::X));
                    let inverse_inertia = graph.leaf(inverse_mass_leaf(first, Dof::Angle));
                    let linear = graph.mul(linear, inverse_mass);
                    let angular = graph.mul(theta, inverse_inertia);
                    let term = graph.add(linear, angular);
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
                graph.sum(terms)
            })
        })
        .collect();

    Ok(Derivation {
        dim,
        bodies,
        cache,
        jacobian,
        bias,
        velocity_error,
        effective_mass,
        shared_terms,
        impulse,
    })
}
