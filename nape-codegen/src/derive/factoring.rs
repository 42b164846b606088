//! Sums and products rewritten as a hand-written joint writes them: common factors taken
//! out, opposite terms cancelled, products the cache entries share multiplied once, and
//! signs made canonical so that `a − b` and `b − a` are one node.
//!
//! A hash-consed graph shares sub-expressions, so a sum walked as a tree can have
//! exponentially many terms (`t₂ = t₁ + (t₁ + c)`): every walk here spends a budget of
//! [`FLATTEN_LIMIT`] nodes, and every loop takes something out per round. The costs are
//! in ARCHITECTURE.md ("Bounded work").

use std::collections::{HashMap, HashSet};

use crate::symbolic::{Graph, Id, Node};

/// `Σ coefficient·variable` with the variables of equal coefficients (up to sign) summed
/// first: `c·a − c·b` becomes `c·(a − b)`, so each distinct coefficient is multiplied
/// once (a distance row's velocity error multiplies its direction by the relative
/// velocity, as a hand-written joint does). Groups keep the order of first appearance.
pub(super) fn factored_sum(graph: &mut Graph, terms: &[(Id, Id)]) -> Id {
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
pub(super) fn collect_factors(graph: &mut Graph, id: Id) -> Id {
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
pub(super) fn share_cache_products(graph: &mut Graph, cache: &mut [Id]) {
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

/// The most frequent of `keys` (the lowest at a tie), if it occurs at least twice; linear
/// in the number of keys.
fn most_repeated<T: Copy + Ord + std::hash::Hash>(keys: impl IntoIterator<Item = T>) -> Option<T> {
    let mut counts: HashMap<T, usize> = HashMap::new();
    for key in keys {
        *counts.entry(key).or_default() += 1;
    }
    counts
        .into_iter()
        .filter(|&(_, count)| count >= 2)
        .max_by_key(|&(key, count)| (count, std::cmp::Reverse(key)))
        .map(|(key, _)| key)
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
pub(super) fn canonical_sum(graph: &mut Graph, mut terms: Vec<Signed>) -> Id {
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
pub(super) type Signed = (Id, bool);

/// A sub-sum met while flattening: its node, its sign and its terms.
type SubSum = (Id, bool, Vec<Signed>);

/// The terms of a sum, through additions and negations, with their signs (at most
/// [`FLATTEN_LIMIT`] additions expanded).
pub(super) fn flatten_sum(graph: &Graph, id: Id, negated: bool, out: &mut Vec<Signed>) {
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
