//! Numeric evaluation of a graph, in `f64`, for tests and for checking derivations.

use super::graph::{Graph, Id, Leaf, Node, SAFE_RECIP_EPSILON};

/// Evaluates `root` with the leaf values that `value_of` gives.
#[must_use]
pub fn evaluate(graph: &Graph, root: Id, value_of: &impl Fn(Leaf) -> f64) -> f64 {
    let order = graph.reachable(&[root]);
    let mut values = vec![0.0; graph.len()];
    for id in order {
        let get = |child: Id| values[child.index()];
        values[id.index()] = match graph.node(id) {
            Node::Const(bits) => f64::from_bits(bits),
            Node::Leaf(leaf) => value_of(leaf),
            Node::Add(a, b) => get(a) + get(b),
            Node::Mul(a, b) => get(a) * get(b),
            Node::Neg(a) => -get(a),
            Node::Recip(a) => 1.0 / get(a),
            Node::SafeRecip(a) => {
                let x = get(a);
                if x.abs() > SAFE_RECIP_EPSILON {
                    1.0 / x
                } else {
                    0.0
                }
            }
            Node::Sqrt(a) => get(a).sqrt(),
            Node::Sin(a) => get(a).sin(),
            Node::Cos(a) => get(a).cos(),
        };
    }
    values[root.index()]
}
