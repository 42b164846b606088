//! The hash-consed expression DAG and its simplifying constructors.
//!
//! Every node is interned once, children before parents, so ascending [`Id`] order is a
//! topological order and equal sub-expressions are the same node. The constructors fold
//! constants and apply local identities (`x + 0`, `x·1`, `x·0`, `−(−x)`, `x + (−x)`),
//! sort commutative operands and pull negation outward, so no rewrite pass is needed.

use std::collections::HashMap;

/// A node of a [`Graph`]. Ids are dense and ordered by creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(u32);

impl Id {
    /// The position of the node in its graph.
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The degrees of freedom of one body slot: position x, position y and angle θ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dof {
    /// Position, x component.
    X,
    /// Position, y component.
    Y,
    /// Rotation angle.
    Angle,
}

impl Dof {
    /// The three degrees of freedom in Jacobian column order.
    pub const ALL: [Dof; 3] = [Dof::X, Dof::Y, Dof::Angle];

    /// Column offset inside a slot's block of three.
    #[must_use]
    pub fn offset(self) -> usize {
        match self {
            Dof::X => 0,
            Dof::Y => 1,
            Dof::Angle => 2,
        }
    }
}

/// The inputs an expression can read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Leaf {
    /// A body slot's position component or angle.
    Pose(u8, Dof),
    /// `cos θ` of a body slot, read from the body's cached rotation.
    Cos(u8),
    /// `sin θ` of a body slot, read from the body's cached rotation.
    Sin(u8),
    /// A body slot's velocity component (linear x, y or angular).
    Velocity(u8, Dof),
    /// A scalar parameter (struct field), by parameter index.
    Scalar(u16),
    /// The x component of a vector parameter.
    VectorX(u16),
    /// The y component of a vector parameter.
    VectorY(u16),
    /// Inverse mass of a body slot.
    InverseMass(u8),
    /// Inverse moment of inertia of a body slot.
    InverseInertia(u8),
    /// An entry of the per-step Jacobian cache.
    Cached(u16),
    /// Row `i` of a constraint-space impulse.
    Impulse(u8),
    /// A named constant the macro cannot see into (`PI` brought in by `use`, a `const` of
    /// the user's crate), by index into the model's table; its derivative is zero.
    Named(u16),
}

/// What a node computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A constant, stored as the bits of an `f64` so that nodes hash.
    Const(u64),
    /// An input.
    Leaf(Leaf),
    /// `a + b`.
    Add(Id, Id),
    /// `a · b`.
    Mul(Id, Id),
    /// `−a`.
    Neg(Id),
    /// `1 / a`.
    Recip(Id),
    /// `1 / a`, or 0 where `a` is (nearly) zero: the derivative of a length at a zero
    /// vector, so degenerate geometry gives a vanishing row instead of NaN.
    SafeRecip(Id),
    /// `√a`.
    Sqrt(Id),
    /// `sin a`.
    Sin(Id),
    /// `cos a`.
    Cos(Id),
    /// `tan a`.
    Tan(Id),
    /// `eˣ`.
    Exp(Id),
    /// `ln a`, with the argument raised to the smallest positive `f32` first, so that the
    /// value is finite (about −87.3) where the logarithm is not defined.
    Ln(Id),
    /// `asin a`, with the argument clamped to `[−1, 1]` first.
    Asin(Id),
    /// `acos a`, with the argument clamped to `[−1, 1]` first.
    Acos(Id),
    /// `atan2(y, x)`: the angle of the vector `(x, y)`, 0 at the origin.
    Atan2(Id, Id),
    /// `|a|`.
    Abs(Id),
    /// The smaller of two values.
    Min(Id, Id),
    /// The larger of two values.
    Max(Id, Id),
    /// The sign of `a`: −1, +1, and 0 at 0 (the derivative of `|a|`).
    Sign(Id),
    /// 1 where `a > 0`, 0 where `a < 0`, ½ at 0: which side of a `min` or `max` is taken,
    /// averaging the two sides' derivatives at a tie.
    Step(Id),
}

/// An arena of interned nodes.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    nodes: Vec<Node>,
    lookup: HashMap<Node, Id>,
}

impl Graph {
    /// An empty graph.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The node behind an id.
    #[must_use]
    pub fn node(&self, id: Id) -> Node {
        self.nodes[id.index()]
    }

    /// How many nodes exist.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    fn intern(&mut self, node: Node) -> Id {
        if let Some(&id) = self.lookup.get(&node) {
            return id;
        }
        let id = Id(u32::try_from(self.nodes.len()).expect("expression graph too large"));
        self.nodes.push(node);
        self.lookup.insert(node, id);
        id
    }

    /// The constant `value`.
    pub fn constant(&mut self, value: f64) -> Id {
        // One zero: -0.0 and 0.0 must intern to the same node.
        let value = if value == 0.0 { 0.0 } else { value };
        self.intern(Node::Const(value.to_bits()))
    }

    /// The input `leaf`.
    pub fn leaf(&mut self, leaf: Leaf) -> Id {
        self.intern(Node::Leaf(leaf))
    }

    /// The constant value of a node, if it is one.
    #[must_use]
    pub fn as_const(&self, id: Id) -> Option<f64> {
        match self.node(id) {
            Node::Const(bits) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    /// Whether the node is the constant `value`.
    #[must_use]
    pub fn is_const(&self, id: Id, value: f64) -> bool {
        self.as_const(id) == Some(value)
    }

    /// Commutative operands in canonical order: constants first, then by id.
    fn ordered(&self, a: Id, b: Id) -> (Id, Id) {
        let key = |id: Id| (self.as_const(id).is_none(), id);
        if key(a) <= key(b) { (a, b) } else { (b, a) }
    }

    /// `a + b`.
    pub fn add(&mut self, a: Id, b: Id) -> Id {
        match (self.as_const(a), self.as_const(b)) {
            (Some(x), Some(y)) => return self.constant(x + y),
            (Some(0.0), None) => return b,
            (None, Some(0.0)) => return a,
            _ => {}
        }
        match (self.node(a), self.node(b)) {
            (Node::Neg(x), _) if x == b => return self.constant(0.0),
            (_, Node::Neg(y)) if y == a => return self.constant(0.0),
            _ if a == b => {
                let two = self.constant(2.0);
                return self.mul(two, a);
            }
            // −x + −y = −(x + y): keeps negations outermost, where the printer folds them
            // into subtractions.
            (Node::Neg(x), Node::Neg(y)) => {
                let sum = self.add(x, y);
                return self.neg(sum);
            }
            _ => {}
        }
        let (a, b) = self.ordered(a, b);
        self.intern(Node::Add(a, b))
    }

    /// `a − b`.
    pub fn sub(&mut self, a: Id, b: Id) -> Id {
        let minus_b = self.neg(b);
        self.add(a, minus_b)
    }

    /// `a · b`.
    pub fn mul(&mut self, a: Id, b: Id) -> Id {
        match (self.as_const(a), self.as_const(b)) {
            (Some(x), Some(y)) => return self.constant(x * y),
            (Some(0.0), _) | (_, Some(0.0)) => return self.constant(0.0),
            (Some(1.0), None) => return b,
            (None, Some(1.0)) => return a,
            (Some(-1.0), None) => return self.neg(b),
            (None, Some(-1.0)) => return self.neg(a),
            (Some(x), None) if x < 0.0 => {
                let positive = self.constant(-x);
                let product = self.mul(positive, b);
                return self.neg(product);
            }
            (None, Some(y)) if y < 0.0 => {
                let positive = self.constant(-y);
                let product = self.mul(a, positive);
                return self.neg(product);
            }
            _ => {}
        }
        match (self.node(a), self.node(b)) {
            (Node::Neg(x), _) => {
                let product = self.mul(x, b);
                return self.neg(product);
            }
            (_, Node::Neg(y)) => {
                let product = self.mul(a, y);
                return self.neg(product);
            }
            _ => {}
        }
        // c₁·(c₂·x) = (c₁c₂)·x
        let (a, b) = self.ordered(a, b);
        if let (Some(x), Node::Mul(inner_a, inner_b)) = (self.as_const(a), self.node(b))
            && let Some(y) = self.as_const(inner_a)
        {
            let factor = self.constant(x * y);
            return self.mul(factor, inner_b);
        }
        self.intern(Node::Mul(a, b))
    }

    /// `a / b`.
    pub fn div(&mut self, a: Id, b: Id) -> Id {
        let inverse = self.recip(b);
        self.mul(a, inverse)
    }

    /// `−a`.
    pub fn neg(&mut self, a: Id) -> Id {
        match self.node(a) {
            Node::Neg(x) => x,
            _ => self.unary(a, Node::Neg),
        }
    }

    /// `1 / a`.
    pub fn recip(&mut self, a: Id) -> Id {
        match self.node(a) {
            Node::Recip(x) => x,
            _ => self.odd(a, Node::Recip),
        }
    }

    /// `1 / a`, or 0 where `a` is (nearly) zero.
    pub fn safe_recip(&mut self, a: Id) -> Id {
        self.odd(a, Node::SafeRecip)
    }

    /// `√a`.
    pub fn sqrt(&mut self, a: Id) -> Id {
        self.unary(a, Node::Sqrt)
    }

    /// `sin a`; the sine of a body's angle is read from its cached rotation.
    pub fn sin(&mut self, a: Id) -> Id {
        match self.node(a) {
            Node::Leaf(Leaf::Pose(slot, Dof::Angle)) => self.leaf(Leaf::Sin(slot)),
            _ => self.odd(a, Node::Sin),
        }
    }

    /// `cos a`; the cosine of a body's angle is read from its cached rotation.
    pub fn cos(&mut self, a: Id) -> Id {
        match self.node(a) {
            Node::Leaf(Leaf::Pose(slot, Dof::Angle)) => self.leaf(Leaf::Cos(slot)),
            Node::Neg(x) => self.cos(x),
            _ => self.unary(a, Node::Cos),
        }
    }

    /// `tan a`.
    pub fn tan(&mut self, a: Id) -> Id {
        self.odd(a, Node::Tan)
    }

    /// `eᵃ`.
    pub fn exp(&mut self, a: Id) -> Id {
        self.unary(a, Node::Exp)
    }

    /// `ln a` (see [`Node::Ln`] for `a ≤ 0`).
    pub fn ln(&mut self, a: Id) -> Id {
        self.unary(a, Node::Ln)
    }

    /// `asin a`, the argument clamped to `[−1, 1]`.
    pub fn asin(&mut self, a: Id) -> Id {
        self.odd(a, Node::Asin)
    }

    /// `acos a`, the argument clamped to `[−1, 1]`.
    pub fn acos(&mut self, a: Id) -> Id {
        self.unary(a, Node::Acos)
    }

    /// `atan2(y, x)`.
    pub fn atan2(&mut self, y: Id, x: Id) -> Id {
        self.binary(y, x, Node::Atan2)
    }

    /// `|a|`.
    pub fn abs(&mut self, a: Id) -> Id {
        match self.node(a) {
            Node::Neg(x) => self.abs(x),
            Node::Abs(_) => a,
            _ => self.unary(a, Node::Abs),
        }
    }

    /// The smaller of `a` and `b`.
    pub fn min(&mut self, a: Id, b: Id) -> Id {
        self.extremum(a, b, Node::Min)
    }

    /// The larger of `a` and `b`.
    pub fn max(&mut self, a: Id, b: Id) -> Id {
        self.extremum(a, b, Node::Max)
    }

    /// The sign of `a`, 0 at 0.
    pub fn sign(&mut self, a: Id) -> Id {
        self.odd(a, Node::Sign)
    }

    /// 1 above 0, 0 below, ½ at 0.
    pub fn step(&mut self, a: Id) -> Id {
        self.unary(a, Node::Step)
    }

    /// `operation(a)`, folded to its value when `a` is a constant.
    fn unary(&mut self, a: Id, operation: fn(Id) -> Node) -> Id {
        let node = operation(a);
        match self.as_const(a) {
            Some(x) => self.constant(node.unary_value(x)),
            None => self.intern(node),
        }
    }

    /// [`Self::unary`] for an odd function: `f(−x) = −f(x)` keeps the negation outermost,
    /// where the printer and the emitter fold it into a subtraction.
    fn odd(&mut self, a: Id, operation: fn(Id) -> Node) -> Id {
        match self.node(a) {
            Node::Neg(x) => {
                // Through the operation's own constructor, which may know more of `x`.
                let inner = self.rebuild_unary(operation(x), x);
                self.neg(inner)
            }
            _ => self.unary(a, operation),
        }
    }

    /// `operation(a, b)`, folded to its value when both are constants.
    fn binary(&mut self, a: Id, b: Id, operation: fn(Id, Id) -> Node) -> Id {
        let node = operation(a, b);
        match (self.as_const(a), self.as_const(b)) {
            (Some(x), Some(y)) => self.constant(node.binary_value(x, y)),
            _ => self.intern(node),
        }
    }

    /// `min` or `max`: `a` itself when both sides are one node, operands in canonical order.
    fn extremum(&mut self, a: Id, b: Id, operation: fn(Id, Id) -> Node) -> Id {
        if a == b {
            return a;
        }
        let (a, b) = self.ordered(a, b);
        self.binary(a, b, operation)
    }

    /// The sum of `terms` (0 when empty).
    pub fn sum(&mut self, terms: impl IntoIterator<Item = Id>) -> Id {
        let zero = self.constant(0.0);
        terms
            .into_iter()
            .fold(zero, |acc, term| self.add(acc, term))
    }

    /// The children of a node.
    #[must_use]
    pub fn children(&self, id: Id) -> Vec<Id> {
        match self.node(id) {
            Node::Const(_) | Node::Leaf(_) => Vec::new(),
            Node::Add(a, b)
            | Node::Mul(a, b)
            | Node::Atan2(a, b)
            | Node::Min(a, b)
            | Node::Max(a, b) => vec![a, b],
            Node::Neg(a)
            | Node::Recip(a)
            | Node::SafeRecip(a)
            | Node::Sqrt(a)
            | Node::Sin(a)
            | Node::Cos(a)
            | Node::Tan(a)
            | Node::Exp(a)
            | Node::Ln(a)
            | Node::Asin(a)
            | Node::Acos(a)
            | Node::Abs(a)
            | Node::Sign(a)
            | Node::Step(a) => vec![a],
        }
    }

    /// Every node reachable from `roots`, in ascending (topological) order.
    #[must_use]
    pub fn reachable(&self, roots: &[Id]) -> Vec<Id> {
        let mut seen = vec![false; self.len()];
        let mut stack: Vec<Id> = roots.to_vec();
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut seen[id.index()], true) {
                continue;
            }
            stack.extend(self.children(id));
        }
        (0..self.len())
            .filter(|&i| seen[i])
            .map(|i| Id(u32::try_from(i).expect("graph size fits u32")))
            .collect()
    }

    /// Whether any leaf reachable from `id` satisfies `predicate`.
    #[must_use]
    pub fn depends_on(&self, id: Id, predicate: impl Fn(Leaf) -> bool) -> bool {
        self.reachable(&[id])
            .into_iter()
            .any(|n| match self.node(n) {
                Node::Leaf(leaf) => predicate(leaf),
                _ => false,
            })
    }

    /// `id` with every leaf for which `replace` answers `Some` replaced, re-simplified.
    pub fn substitute(&mut self, id: Id, replace: &impl Fn(Leaf) -> Option<f64>) -> Id {
        let mut memo = HashMap::new();
        self.substitute_memo(id, replace, &mut memo)
    }

    fn substitute_memo(
        &mut self,
        id: Id,
        replace: &impl Fn(Leaf) -> Option<f64>,
        memo: &mut HashMap<Id, Id>,
    ) -> Id {
        if let Some(&done) = memo.get(&id) {
            return done;
        }
        let mut child = |graph: &mut Self, c: Id| graph.substitute_memo(c, replace, memo);
        let result = match self.node(id) {
            Node::Const(_) => id,
            Node::Leaf(leaf) => match replace(leaf) {
                Some(value) => self.constant(value),
                None => id,
            },
            node => match self.children(id)[..] {
                [a] => {
                    let a = child(self, a);
                    self.rebuild_unary(node, a)
                }
                [a, b] => {
                    let (a, b) = (child(self, a), child(self, b));
                    self.rebuild_binary(node, a, b)
                }
                _ => unreachable!("operations have one or two operands"),
            },
        };
        memo.insert(id, result);
        result
    }
}

impl Graph {
    /// `node`'s operation on new operands, through the simplifying constructor.
    fn rebuild_binary(&mut self, node: Node, a: Id, b: Id) -> Id {
        match node {
            Node::Add(..) => self.add(a, b),
            Node::Mul(..) => self.mul(a, b),
            Node::Atan2(..) => self.atan2(a, b),
            Node::Min(..) => self.min(a, b),
            Node::Max(..) => self.max(a, b),
            other => unreachable!("{other:?} is not binary"),
        }
    }

    /// `node`'s operation on a new operand, through the simplifying constructor.
    fn rebuild_unary(&mut self, node: Node, a: Id) -> Id {
        match node {
            Node::Neg(_) => self.neg(a),
            Node::Recip(_) => self.recip(a),
            Node::SafeRecip(_) => self.safe_recip(a),
            Node::Sqrt(_) => self.sqrt(a),
            Node::Sin(_) => self.sin(a),
            Node::Cos(_) => self.cos(a),
            Node::Tan(_) => self.tan(a),
            Node::Exp(_) => self.exp(a),
            Node::Ln(_) => self.ln(a),
            Node::Asin(_) => self.asin(a),
            Node::Acos(_) => self.acos(a),
            Node::Abs(_) => self.abs(a),
            Node::Sign(_) => self.sign(a),
            Node::Step(_) => self.step(a),
            other => unreachable!("{other:?} is not unary"),
        }
    }
}

impl Node {
    /// The name of the function this node applies, as both its `f32` method and its
    /// runtime helper are named (`sin`, `atan2`, `safe_recip`); `None` for constants,
    /// leaves and the arithmetic operators.
    #[must_use]
    pub fn function_name(self) -> Option<&'static str> {
        Some(match self {
            Node::Const(_) | Node::Leaf(_) | Node::Add(..) | Node::Mul(..) | Node::Neg(_) => {
                return None;
            }
            Node::Recip(_) => "recip",
            Node::SafeRecip(_) => "safe_recip",
            Node::Sqrt(_) => "sqrt",
            Node::Sin(_) => "sin",
            Node::Cos(_) => "cos",
            Node::Tan(_) => "tan",
            Node::Exp(_) => "exp",
            Node::Ln(_) => "ln",
            Node::Asin(_) => "asin",
            Node::Acos(_) => "acos",
            Node::Atan2(..) => "atan2",
            Node::Abs(_) => "abs",
            Node::Min(..) => "min",
            Node::Max(..) => "max",
            Node::Sign(_) => "sign",
            Node::Step(_) => "step",
        })
    }

    /// Whether the function has a guard that `f32`'s method of that name lacks, so that
    /// generated code calls the runtime helper instead (see [`Self::unary_value`]).
    #[must_use]
    pub fn is_guarded(self) -> bool {
        matches!(
            self,
            Node::SafeRecip(_)
                | Node::Ln(_)
                | Node::Asin(_)
                | Node::Acos(_)
                | Node::Sign(_)
                | Node::Step(_)
        )
    }

    /// The value of this one-operand operation at `x`: what constant folding and
    /// [`evaluate`](super::evaluate) compute. Generated code computes the same in `f32`:
    /// the guarded operations (`SafeRecip`, `Ln`, `Asin`, `Acos`, `Sign`, `Step`) through
    /// the runtime helpers of the same names in `nape::__private`, which must follow the
    /// rules written here (`tests/expression_functions.rs` pins them at their guards, and
    /// `symbolic::tests` pins these).
    ///
    /// # Panics
    ///
    /// On a node that does not have exactly one operand.
    #[must_use]
    pub fn unary_value(self, x: f64) -> f64 {
        match self {
            Node::Neg(_) => -x,
            Node::Recip(_) => 1.0 / x,
            Node::SafeRecip(_) if x.abs() > SAFE_RECIP_EPSILON => 1.0 / x,
            Node::SafeRecip(_) => 0.0,
            Node::Sqrt(_) => x.sqrt(),
            Node::Sin(_) => x.sin(),
            Node::Cos(_) => x.cos(),
            Node::Tan(_) => x.tan(),
            Node::Exp(_) => x.exp(),
            Node::Ln(_) => x.max(f64::from(f32::MIN_POSITIVE)).ln(),
            Node::Asin(_) => x.clamp(-1.0, 1.0).asin(),
            Node::Acos(_) => x.clamp(-1.0, 1.0).acos(),
            Node::Abs(_) => x.abs(),
            Node::Sign(_) if x > 0.0 => 1.0,
            Node::Sign(_) if x < 0.0 => -1.0,
            Node::Sign(_) => 0.0,
            Node::Step(_) if x > 0.0 => 1.0,
            Node::Step(_) if x < 0.0 => 0.0,
            Node::Step(_) => 0.5,
            other => unreachable!("{other:?} is not unary"),
        }
    }

    /// The value of this two-operand operation at `(a, b)` (see [`Self::unary_value`]).
    ///
    /// # Panics
    ///
    /// On a node that does not have exactly two operands.
    #[must_use]
    pub fn binary_value(self, a: f64, b: f64) -> f64 {
        match self {
            Node::Add(..) => a + b,
            Node::Mul(..) => a * b,
            Node::Atan2(..) => a.atan2(b),
            Node::Min(..) => a.min(b),
            Node::Max(..) => a.max(b),
            other => unreachable!("{other:?} is not binary"),
        }
    }
}

/// Below this magnitude [`Graph::safe_recip`] yields 0; the runtime helper uses the same.
pub const SAFE_RECIP_EPSILON: f64 = 1e-6;

#[cfg(test)]
mod tests {
    use super::*;

    fn x(g: &mut Graph) -> Id {
        g.leaf(Leaf::Pose(0, Dof::X))
    }

    #[test]
    fn interning_shares_equal_nodes() {
        let mut g = Graph::new();
        let a = x(&mut g);
        let b = g.leaf(Leaf::Scalar(0));
        let s1 = g.add(a, b);
        let s2 = g.add(b, a);
        assert_eq!(s1, s2, "commutative operands are sorted");
        let p1 = g.mul(a, b);
        let p2 = g.mul(b, a);
        assert_eq!(p1, p2);
    }

    #[test]
    fn identities_fold() {
        let mut g = Graph::new();
        let a = x(&mut g);
        let zero = g.constant(0.0);
        let one = g.constant(1.0);
        let minus_one = g.constant(-1.0);
        assert_eq!(g.add(a, zero), a);
        assert_eq!(g.mul(a, one), a);
        let vanished = g.mul(a, zero);
        assert!(g.is_const(vanished, 0.0));
        let minus_a = g.neg(a);
        assert_eq!(g.mul(a, minus_one), minus_a);
        assert_eq!(g.neg(minus_a), a);
        let cancelled = g.add(a, minus_a);
        assert!(g.is_const(cancelled, 0.0));
        let negative_zero = g.constant(-0.0);
        assert_eq!(negative_zero, zero);
    }

    #[test]
    fn constants_fold() {
        let mut g = Graph::new();
        let two = g.constant(2.0);
        let three = g.constant(3.0);
        let sum = g.add(two, three);
        assert_eq!(g.as_const(sum), Some(5.0));
        let product = g.mul(two, three);
        assert_eq!(g.as_const(product), Some(6.0));
        let nine = g.constant(9.0);
        let root = g.sqrt(nine);
        assert_eq!(g.as_const(root), Some(3.0));
        let a = x(&mut g);
        let two_a = g.mul(two, a);
        let six_a = g.mul(three, two_a);
        assert_eq!(
            g.node(six_a),
            Node::Mul(product, a),
            "c₁·(c₂·x) folds to (c₁c₂)·x"
        );
    }

    #[test]
    fn negation_is_pulled_outward() {
        let mut g = Graph::new();
        let a = x(&mut g);
        let b = g.leaf(Leaf::Scalar(1));
        let minus_b = g.neg(b);
        let product = g.mul(a, minus_b);
        assert!(matches!(g.node(product), Node::Neg(_)));
        let minus_a = g.neg(a);
        let sum = g.add(minus_a, minus_b);
        assert!(matches!(g.node(sum), Node::Neg(_)));
        let minus_two = g.constant(-2.0);
        let scaled = g.mul(minus_two, a);
        assert!(matches!(g.node(scaled), Node::Neg(_)));
    }

    #[test]
    fn trigonometry_of_an_angle_reads_the_cached_rotation() {
        let mut g = Graph::new();
        let angle = g.leaf(Leaf::Pose(1, Dof::Angle));
        let c = g.cos(angle);
        let s = g.sin(angle);
        assert_eq!(g.node(c), Node::Leaf(Leaf::Cos(1)));
        assert_eq!(g.node(s), Node::Leaf(Leaf::Sin(1)));
        let minus_angle = g.neg(angle);
        assert_eq!(g.cos(minus_angle), c);
        let minus_s = g.neg(s);
        assert_eq!(g.sin(minus_angle), minus_s);
    }

    #[test]
    fn safe_recip_of_zero_is_zero() {
        let mut g = Graph::new();
        let zero = g.constant(0.0);
        let guarded = g.safe_recip(zero);
        assert!(g.is_const(guarded, 0.0));
        let four = g.constant(4.0);
        let quarter = g.safe_recip(four);
        assert_eq!(g.as_const(quarter), Some(0.25));
    }

    #[test]
    fn children_precede_parents() {
        let mut g = Graph::new();
        let a = x(&mut g);
        let b = g.leaf(Leaf::Scalar(0));
        let s = g.add(a, b);
        let p = g.mul(s, s);
        let r = g.sqrt(p);
        for id in g.reachable(&[r]) {
            for child in g.children(id) {
                assert!(child < id);
            }
        }
        assert_eq!(g.reachable(&[r]), vec![a, b, s, p, r]);
    }

    #[test]
    fn substitution_resimplifies() {
        let mut g = Graph::new();
        let a = x(&mut g);
        let v = g.leaf(Leaf::Velocity(0, Dof::X));
        let term = g.mul(a, v);
        let three = g.constant(3.0);
        let sum = g.add(term, three);
        let bias = g.substitute(sum, &|leaf| {
            matches!(leaf, Leaf::Velocity(..)).then_some(0.0)
        });
        assert_eq!(g.as_const(bias), Some(3.0));
    }
}
