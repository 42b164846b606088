//! Partial derivatives, memoised per variable.

use std::collections::HashMap;

use super::graph::{Graph, Id, Leaf, Node};

/// Differentiates nodes of a graph with respect to one leaf. The memo makes shared
/// sub-expressions differentiate once, so the cost is linear in the DAG, not exponential
/// in the product rule.
pub struct Differentiator {
    variable: Variable,
    memo: HashMap<Id, Id>,
}

/// What a [`Differentiator`] differentiates by.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variable {
    /// One leaf; a slot's angle also moves its cosine and sine.
    Leaf(Leaf),
    /// A turn `T` added to every raw angle leaf at once, the cosine and sine leaves held
    /// fixed: `Σ_s ∂/∂θ_s` over the raw angles alone.
    Turn,
    /// A turn added to one slot's raw angle leaf, its cosine and sine held fixed.
    SlotTurn(u8),
    /// A shift added to every body's position coordinate `Dof` at once: `Σ_s ∂/∂x_s`.
    Shift(super::graph::Dof),
}

impl Differentiator {
    /// Differentiation with respect to `variable` (a pose or velocity leaf).
    #[must_use]
    pub fn new(variable: Leaf) -> Self {
        Self {
            variable: Variable::Leaf(variable),
            memo: HashMap::new(),
        }
    }

    /// Differentiation by a turn `T` of every body at once as the raw angle leaves see it
    /// (`Leaf::Pose(s, Dof::Angle)` → `θ_s + T`), the cosine and sine leaves independent
    /// of it: `Σ_s ∂/∂θ_s` over the raw angles only. Where an expression's derivative by
    /// it is identically zero, the expression is unchanged when every raw angle is read
    /// shifted by the same whole number of turns (the cosines and sines are periodic).
    #[must_use]
    pub fn uniform_turn() -> Self {
        Self {
            variable: Variable::Turn,
            memo: HashMap::new(),
        }
    }

    /// Differentiation by a turn of slot `slot`'s raw angle leaf alone, the cosine and sine
    /// leaves independent of it: where the derivative reads no raw angle, the expression
    /// changes by exactly the derivative times `2πk` when the slot's raw angle is read
    /// `k` whole turns further.
    #[must_use]
    pub fn slot_turn(slot: u8) -> Self {
        Self {
            variable: Variable::SlotTurn(slot),
            memo: HashMap::new(),
        }
    }

    /// Differentiation by a shift of every body's position along `dof` (`X` or `Y`) at
    /// once: `Σ_s ∂/∂x_s`. Where an expression's derivative by both shifts is
    /// identically zero, it is unchanged when every body moves by the same vector.
    #[must_use]
    pub fn uniform_shift(dof: super::graph::Dof) -> Self {
        Self {
            variable: Variable::Shift(dof),
            memo: HashMap::new(),
        }
    }

    /// `∂node/∂variable`.
    pub fn derive(&mut self, graph: &mut Graph, node: Id) -> Id {
        if let Some(&done) = self.memo.get(&node) {
            return done;
        }
        let result = match graph.node(node) {
            Node::Const(_) => graph.constant(0.0),
            Node::Leaf(leaf) => self.derive_leaf(graph, leaf),
            Node::Add(a, b) => {
                let (da, db) = (self.derive(graph, a), self.derive(graph, b));
                graph.add(da, db)
            }
            Node::Mul(a, b) => {
                let (da, db) = (self.derive(graph, a), self.derive(graph, b));
                let left = graph.mul(da, b);
                let right = graph.mul(a, db);
                graph.add(left, right)
            }
            Node::Neg(a) => {
                let da = self.derive(graph, a);
                graph.neg(da)
            }
            // (1/a)' = −a'·(1/a)²; the safe reciprocal keeps its guard in the derivative.
            Node::Recip(a) | Node::SafeRecip(a) => {
                let da = self.derive(graph, a);
                let square = graph.mul(node, node);
                let product = graph.mul(da, square);
                graph.neg(product)
            }
            // (√a)' = a' / (2√a), guarded: the length of a zero vector has no direction.
            // The constant factor of a' meets the ½ first, so a length's derivative
            // (a' = 2·d·d') is d·d'/√a, without the 2 and the ½ a product would keep.
            Node::Sqrt(a) => {
                let da = self.derive(graph, a);
                let (scale, rest) = {
                    let mut budget = CONSTANT_FACTOR_LIMIT;
                    constant_factor(graph, da, &mut budget)
                };
                let inverse = graph.safe_recip(node);
                let half = graph.constant(0.5 * scale);
                let factor = graph.mul(half, inverse);
                graph.mul(rest, factor)
            }
            Node::Sin(a) => {
                let da = self.derive(graph, a);
                let cosine = graph.cos(a);
                graph.mul(da, cosine)
            }
            Node::Cos(a) => {
                let da = self.derive(graph, a);
                let sine = graph.sin(a);
                let product = graph.mul(da, sine);
                graph.neg(product)
            }
            // (tan a)' = a'·(1 + tan²a)
            Node::Tan(a) => {
                let da = self.derive(graph, a);
                let square = graph.mul(node, node);
                let one = graph.constant(1.0);
                let factor = graph.add(one, square);
                graph.mul(da, factor)
            }
            Node::Exp(a) => {
                let da = self.derive(graph, a);
                graph.mul(da, node)
            }
            // (ln a)' = a'/a, guarded: where the argument is (nearly) zero or below, the
            // value is clamped and the row does nothing.
            Node::Ln(a) => {
                let da = self.derive(graph, a);
                let zero = graph.constant(0.0);
                let positive = graph.max(zero, a);
                let inverse = graph.safe_recip(positive);
                graph.mul(da, inverse)
            }
            // (asin a)' = a'/√(1 − a²) = −(acos a)', guarded at ±1 and beyond, where the
            // argument is clamped.
            Node::Asin(a) | Node::Acos(a) => {
                let da = self.derive(graph, a);
                let square = graph.mul(a, a);
                let one = graph.constant(1.0);
                let zero = graph.constant(0.0);
                let gap = graph.sub(one, square);
                let gap = graph.max(zero, gap);
                let root = graph.sqrt(gap);
                let inverse = graph.safe_recip(root);
                let derivative = graph.mul(da, inverse);
                if matches!(graph.node(node), Node::Acos(_)) {
                    graph.neg(derivative)
                } else {
                    derivative
                }
            }
            // atan2(y, x)' = (x·y' − y·x') / (x² + y²), guarded at the origin.
            Node::Atan2(y, x) => {
                let (dy, dx) = (self.derive(graph, y), self.derive(graph, x));
                let (xdy, ydx) = (graph.mul(x, dy), graph.mul(y, dx));
                let numerator = graph.sub(xdy, ydx);
                let (xx, yy) = (graph.mul(x, x), graph.mul(y, y));
                let squared = graph.add(xx, yy);
                let length = graph.sqrt(squared);
                let inverse = graph.safe_recip(length);
                let inverse_squared = graph.mul(inverse, inverse);
                graph.mul(numerator, inverse_squared)
            }
            // |a|' = a'·sign a, 0 at 0 (the mean of the two sides).
            Node::Abs(a) => {
                let da = self.derive(graph, a);
                let sign = graph.sign(a);
                graph.mul(da, sign)
            }
            // The derivative of the side taken; at a tie the mean of both sides'.
            Node::Min(a, b) | Node::Max(a, b) => {
                let (da, db) = (self.derive(graph, a), self.derive(graph, b));
                let (a_over_b, b_over_a) = (graph.sub(a, b), graph.sub(b, a));
                let (take_a, take_b) = if matches!(graph.node(node), Node::Max(..)) {
                    (graph.step(a_over_b), graph.step(b_over_a))
                } else {
                    (graph.step(b_over_a), graph.step(a_over_b))
                };
                let (left, right) = (graph.mul(da, take_a), graph.mul(db, take_b));
                graph.add(left, right)
            }
            // Piecewise constant.
            Node::Sign(_) | Node::Step(_) => graph.constant(0.0),
        };
        self.memo.insert(node, result);
        result
    }

    fn derive_leaf(&self, graph: &mut Graph, leaf: Leaf) -> Id {
        use super::graph::Dof;
        let variable = match self.variable {
            Variable::Leaf(variable) => variable,
            Variable::Turn => {
                let raw = matches!(leaf, Leaf::Pose(_, Dof::Angle));
                return graph.constant(if raw { 1.0 } else { 0.0 });
            }
            Variable::SlotTurn(slot) => {
                let raw = leaf == Leaf::Pose(slot, Dof::Angle);
                return graph.constant(if raw { 1.0 } else { 0.0 });
            }
            Variable::Shift(dof) => {
                let moved = matches!(leaf, Leaf::Pose(_, d) if d == dof);
                return graph.constant(if moved { 1.0 } else { 0.0 });
            }
        };
        if leaf == variable {
            return graph.constant(1.0);
        }
        match (leaf, variable) {
            (Leaf::Cos(slot), Leaf::Pose(var_slot, Dof::Angle)) if slot == var_slot => {
                let sine = graph.leaf(Leaf::Sin(slot));
                graph.neg(sine)
            }
            (Leaf::Sin(slot), Leaf::Pose(var_slot, Dof::Angle)) if slot == var_slot => {
                graph.leaf(Leaf::Cos(slot))
            }
            _ => graph.constant(0.0),
        }
    }
}

/// Most nodes [`constant_factor`] looks through: a sum can share its sub-sums
/// (`t + (t + c)`), and walked as a tree it would be exponentially large.
const CONSTANT_FACTOR_LIMIT: usize = 64;

/// `id` as `c·rest` with the constant `c` taken out of products, negations and sums whose
/// terms share it up to sign (`2x − 2y` is `2·(x − y)`); `(1, id)` when there is none, or
/// when finding it would take more than `budget` nodes.
fn constant_factor(graph: &mut Graph, id: Id, budget: &mut usize) -> (f64, Id) {
    if *budget == 0 {
        return (1.0, id);
    }
    *budget -= 1;
    match graph.node(id) {
        Node::Const(bits) => (f64::from_bits(bits), graph.constant(1.0)),
        Node::Mul(a, b) => match graph.as_const(a) {
            Some(c) => (c, b),
            None => (1.0, id),
        },
        Node::Neg(a) => {
            let (c, rest) = constant_factor(graph, a, budget);
            (-c, rest)
        }
        Node::Add(a, b) => {
            let (ca, ra) = constant_factor(graph, a, budget);
            let (cb, rb) = constant_factor(graph, b, budget);
            if ca == cb && ca != 1.0 {
                (ca, graph.add(ra, rb))
            } else if ca == -cb && ca.abs() != 1.0 {
                let minus_rb = graph.neg(rb);
                (ca, graph.add(ra, minus_rb))
            } else {
                (1.0, id)
            }
        }
        _ => (1.0, id),
    }
}

/// `∂node/∂variable` without keeping the memo.
#[cfg(test)]
pub fn derivative(graph: &mut Graph, node: Id, variable: Leaf) -> Id {
    Differentiator::new(variable).derive(graph, node)
}
