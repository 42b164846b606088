//! The derivation: from the rows of `c(q)` (or `J·v + b`) to `J`, its per-step cache, the
//! velocity error, `K = J M⁻¹ Jᵀ` with its shared-body cross terms, and the impulse.
//!
//! Pure symbolic work on the [`Graph`]; no tokens. The Jacobian entries that depend on the
//! poses are computed once per step into a cache (a hand-written joint's world anchors);
//! everything evaluated per velocity iteration reads that cache, so constant entries
//! (the ±1 of a pivot) vanish from the inner loop by simplification.

use std::collections::{HashMap, HashSet};

use crate::model::Mode;
use crate::symbolic::{Differentiator, Dof, Graph, Id, Leaf, Node};

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
    let mut groups: Vec<(Id, Vec<(Id, bool)>)> = Vec::new();
    for &(coefficient, variable) in terms {
        let (base, negated) = match (graph.node(coefficient), graph.as_const(coefficient)) {
            (_, Some(0.0)) => continue,
            (_, Some(value)) if value < 0.0 => (graph.constant(-value), true),
            (Node::Neg(inner), _) => (inner, true),
            _ => (coefficient, false),
        };
        match groups.iter_mut().find(|(b, _)| *b == base) {
            Some((_, variables)) => variables.push((variable, negated)),
            None => groups.push((base, vec![(variable, negated)])),
        }
    }
    let products: Vec<Id> = groups
        .into_iter()
        .map(|(base, variables)| {
            // The first variable (by id) enters positively, so the rows of a slider share
            // `v₁ − v₂` instead of computing it and its negation. (The other choice,
            // `v₂ − v₁`, made the pivot's and weld's velocity iteration twice as slow: the
            // compiler then loads both velocity components at once, which the previous
            // joint's separate stores cannot forward to.)
            let flip = variables.iter().min().is_some_and(|&(_, negated)| negated);
            let sum = flipped_sum(graph, variables, flip);
            let product = graph.mul(base, sum);
            if flip { graph.neg(product) } else { product }
        })
        .collect();
    graph.sum(products)
}

/// `id` with common factors of its sum's products taken out, greedily, most frequent
/// first: `n·d + n·r` becomes `n·(d + r)`. A slider's body-1 lever `n·(d + r₁)` then costs
/// what a hand-written one does, and the two rows share `d + r₁`.
///
/// Each round takes at least one term out of the sum, so there are at most as many rounds
/// as terms, and the sum holds at most [`FLATTEN_LIMIT`] terms.
fn collect_factors(graph: &mut Graph, id: Id) -> Id {
    collect_factors_within(graph, id, FLATTEN_LIMIT)
}

fn collect_factors_within(graph: &mut Graph, id: Id, rounds: usize) -> Id {
    let mut terms = Vec::new();
    flatten_sum(graph, id, false, &mut terms);
    if terms.len() < 2 || rounds == 0 {
        return id;
    }
    // A product term as (factor, cofactor), in both orders.
    let factors = |graph: &Graph, term: Id| -> Vec<(Id, Id)> {
        match graph.node(term) {
            Node::Mul(a, b) if graph.as_const(a).is_none() => vec![(a, b), (b, a)],
            _ => Vec::new(),
        }
    };
    let all_factors = terms
        .iter()
        .flat_map(|&(term, _)| factors(graph, term))
        .map(|(factor, _)| factor);
    let Some(common) = most_repeated(all_factors) else {
        return id;
    };
    let mut grouped = Vec::new();
    let mut rest = Vec::new();
    for (term, negated) in terms {
        let cofactor = factors(graph, term)
            .into_iter()
            .find(|&(f, _)| f == common)
            .map(|(_, c)| c);
        let target = if cofactor.is_some() {
            &mut grouped
        } else {
            &mut rest
        };
        let value = cofactor.unwrap_or(term);
        target.push(if negated { graph.neg(value) } else { value });
    }
    let inner = cancelling_sum(graph, &grouped);
    let product = graph.mul(common, inner);
    let remainder = graph.sum(rest);
    let remainder = collect_factors_within(graph, remainder, rounds - 1);
    graph.add(product, remainder)
}

/// Rewrites the cache entries to reuse each other's products, as a hand-written joint
/// reuses its scaled direction: a factor pair common to several entries (a pulley's
/// `ratio·(1/|d|)`) is multiplied once, and an entry `f·(a·x − b·y)` whose products
/// `f·x` and `f·y` are entries too becomes `a·(f·x) − b·(f·y)` (a lever arm `r × n` from
/// the direction `n = d/|d|` instead of from `d`).
fn share_cache_products(graph: &mut Graph, cache: &mut [Id]) {
    let mut factors: Vec<Vec<Id>> = cache
        .iter()
        .map(|&entry| {
            let mut out = Vec::new();
            flatten_product(graph, entry, &mut out);
            out
        })
        .collect();
    // Every round multiplies one pair of factors that two positions of some list hold, so
    // the factors left in the eligible lists drop by at least one per round.
    let eligible = |list: &[Id]| (3..=MAX_SHARED_FACTORS).contains(&list.len());
    loop {
        let pairs = factors
            .iter()
            .filter(|list| eligible(list))
            .flat_map(|list| factor_pairs(list));
        let Some((a, b)) = most_repeated(pairs) else {
            break;
        };
        let product = graph.mul(a, b);
        for list in factors.iter_mut().filter(|list| eligible(list)) {
            if let Some((i, j)) = pair_positions(list, a, b) {
                list.remove(i.max(j));
                list.remove(i.min(j));
                list.push(product);
            }
        }
    }
    for (entry, list) in cache.iter_mut().zip(&factors) {
        if list.len() >= 2 {
            let mut product = list[0];
            for &f in &list[1..] {
                product = graph.mul(product, f);
            }
            *entry = product;
        }
    }
    let entries: HashSet<Id> = cache.iter().copied().collect();
    for entry in cache.iter_mut() {
        let Node::Mul(a, b) = graph.node(*entry) else {
            continue;
        };
        for (factor, sum) in [(a, b), (b, a)] {
            if !matches!(graph.node(sum), Node::Add(..)) {
                continue;
            }
            let mut terms = Vec::new();
            flatten_sum(graph, sum, false, &mut terms);
            let mut rewritten = Vec::new();
            for &(term, negated) in &terms {
                let Node::Mul(x, y) = graph.node(term) else {
                    break;
                };
                let reuse = [(x, y), (y, x)].into_iter().find_map(|(kept, scaled)| {
                    let product = graph.mul(factor, scaled);
                    entries.contains(&product).then_some((kept, product))
                });
                let Some((kept, product)) = reuse else {
                    break;
                };
                let value = graph.mul(kept, product);
                rewritten.push(if negated { graph.neg(value) } else { value });
            }
            if rewritten.len() == terms.len() {
                *entry = graph.sum(rewritten);
                break;
            }
        }
    }
}

/// Products with more factors than this keep their own order: the pairs of a list are
/// quadratic in its length, and hand-written joints share pairs of short products.
const MAX_SHARED_FACTORS: usize = 8;

/// Every pair of positions of `list`, as `(lower, higher)` factor: a repeated factor
/// pairs with itself (`x·x·y` gives `(x, x)` and `(x, y)` twice).
fn factor_pairs(list: &[Id]) -> impl Iterator<Item = (Id, Id)> + '_ {
    list.iter()
        .enumerate()
        .flat_map(move |(i, &a)| list[i + 1..].iter().map(move |&b| (a.min(b), a.max(b))))
}

/// Two distinct positions of `list` holding `a` and `b` (`a == b` needs two copies).
fn pair_positions(list: &[Id], a: Id, b: Id) -> Option<(usize, usize)> {
    let i = list.iter().position(|&f| f == a)?;
    let j = list
        .iter()
        .enumerate()
        .position(|(j, &f)| j != i && f == b)?;
    Some((i, j))
}

/// The most frequent of `keys` (the lowest at a tie), if it occurs at least twice.
/// Sorting makes it `k log k` in the number of keys.
fn most_repeated<T: Copy + Ord>(keys: impl IntoIterator<Item = T>) -> Option<T> {
    let mut keys: Vec<T> = keys.into_iter().collect();
    keys.sort_unstable();
    let mut best: Option<(usize, T)> = None;
    for run in keys.chunk_by(|a, b| a == b) {
        if run.len() >= 2 && best.is_none_or(|(count, _)| run.len() > count) {
            best = Some((run.len(), run[0]));
        }
    }
    best.map(|(_, key)| key)
}

/// Sums and products are flattened into at most about this many terms or factors; a node
/// met beyond that stays whole, as one term. A hash-consed sum can share its sub-sums
/// (`t + (t + c)` with `t` a sum), so its terms as a tree can be exponentially many.
const FLATTEN_LIMIT: usize = 32;

/// The factors of a product, through nested products (at most [`FLATTEN_LIMIT`] expanded).
fn flatten_product(graph: &Graph, id: Id, out: &mut Vec<Id>) {
    fn walk(graph: &Graph, id: Id, out: &mut Vec<Id>, budget: &mut usize) {
        match graph.node(id) {
            Node::Mul(a, b) if *budget > 0 => {
                *budget -= 1;
                walk(graph, a, out, budget);
                walk(graph, b, out, budget);
            }
            _ => out.push(id),
        }
    }
    let mut budget = FLATTEN_LIMIT;
    walk(graph, id, out, &mut budget);
}

/// The sum of `terms` with opposite terms cancelled: `r + (d − r)` is `d`, as a factored
/// lever `d + r₁` must be for the anchors' rotation to drop out. Sub-sums that survive
/// whole are kept as they were (still shared with other uses), and the result's sign is
/// canonical (see [`canonical_sum`]) so that `a − b` and `b − a` are one node and its
/// negation.
fn cancelling_sum(graph: &mut Graph, terms: &[Id]) -> Id {
    let mut atoms = Vec::new();
    let mut subsums = Vec::new();
    let mut budget = FLATTEN_LIMIT;
    for &term in terms {
        walk_sum(
            graph,
            term,
            false,
            &mut atoms,
            &mut Some(&mut subsums),
            &mut budget,
        );
    }
    // The kept terms as a multiset: counts make each step constant time, so the whole is
    // linear in the terms and the sub-sums' parts.
    let mut kept: HashMap<Signed, usize> = HashMap::new();
    let mut cancelled = false;
    for (atom, negated) in atoms {
        match kept.get_mut(&(atom, !negated)).filter(|n| **n > 0) {
            Some(opposite) => {
                *opposite -= 1;
                cancelled = true;
            }
            None => *kept.entry((atom, negated)).or_default() += 1,
        }
    }
    if !cancelled {
        return graph.sum(terms.iter().copied());
    }
    subsums.sort_by_key(|(_, _, parts): &SubSum| std::cmp::Reverse(parts.len()));
    for (subsum, negated, parts) in subsums {
        let mut needed: HashMap<Signed, usize> = HashMap::new();
        for &part in &parts {
            *needed.entry(part).or_default() += 1;
        }
        let whole = needed
            .iter()
            .all(|(part, &n)| kept.get(part).is_some_and(|&have| have >= n));
        if whole {
            for (part, n) in needed {
                *kept.get_mut(&part).expect("checked above") -= n;
            }
            *kept.entry((subsum, negated)).or_default() += 1;
        }
    }
    let kept = kept
        .into_iter()
        .flat_map(|(term, n)| std::iter::repeat_n(term, n))
        .collect();
    canonical_sum(graph, kept)
}

/// `Σ ±term` in a canonical sign: the highest term (by id) enters positively and the whole
/// sum is negated if need be, so a sum and its negation are one node and a `Neg` of it.
fn canonical_sum(graph: &mut Graph, mut terms: Vec<Signed>) -> Id {
    terms.sort();
    let flip = terms.last().is_some_and(|&(_, negated)| negated);
    let sum = flipped_sum(graph, terms, flip);
    if flip { graph.neg(sum) } else { sum }
}

/// `Σ ±term` with every sign flipped when `flip`: the sum that the caller negates back
/// (outermost, after any product) to choose which of a sum and its negation is the node.
fn flipped_sum(graph: &mut Graph, terms: Vec<Signed>, flip: bool) -> Id {
    let signed: Vec<Id> = terms
        .into_iter()
        .map(|(term, negated)| {
            if negated != flip {
                graph.neg(term)
            } else {
                term
            }
        })
        .collect();
    graph.sum(signed)
}

/// A term of a flattened sum and whether it enters negated.
type Signed = (Id, bool);

/// A sub-sum met while flattening: its node, its sign and its terms.
type SubSum = (Id, bool, Vec<Signed>);

/// The terms of a sum, through additions and negations, with their signs (at most
/// [`FLATTEN_LIMIT`] additions expanded).
fn flatten_sum(graph: &Graph, id: Id, negated: bool, out: &mut Vec<Signed>) {
    let mut budget = FLATTEN_LIMIT;
    walk_sum(graph, id, negated, out, &mut None, &mut budget);
}

/// [`flatten_sum`] spending `budget`, also listing every sub-sum met with its sign and
/// its terms when `subsums` is given.
fn walk_sum(
    graph: &Graph,
    id: Id,
    negated: bool,
    atoms: &mut Vec<Signed>,
    subsums: &mut Option<&mut Vec<SubSum>>,
    budget: &mut usize,
) {
    match graph.node(id) {
        Node::Add(a, b) if *budget > 0 => {
            *budget -= 1;
            let start = atoms.len();
            walk_sum(graph, a, negated, atoms, subsums, budget);
            walk_sum(graph, b, negated, atoms, subsums, budget);
            if let Some(subsums) = subsums {
                subsums.push((id, negated, atoms[start..].to_vec()));
            }
        }
        Node::Neg(a) => walk_sum(graph, a, !negated, atoms, subsums, budget),
        _ => atoms.push((id, negated)),
    }
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
    })
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
