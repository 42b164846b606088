//! Numeric evaluation of a graph, in `f64`, for tests and for checking derivations.

use super::graph::{Graph, Id, Leaf, Node};

/// Evaluates `root` with the leaf values that `value_of` gives.
#[must_use]
pub fn evaluate(graph: &Graph, root: Id, value_of: &impl Fn(Leaf) -> f64) -> f64 {
    let order = graph.reachable(&[root]);
    let mut values = vec![0.0; graph.len()];
    for id in order {
        let get = |child: Id| values[child.index()];
        let node = graph.node(id);
        values[id.index()] = match node {
            Node::Const(bits) => f64::from_bits(bits),
            Node::Leaf(leaf) => value_of(leaf),
            _ => match graph.children(id)[..] {
                [a] => node.unary_value(get(a)),
                [a, b] => node.binary_value(get(a), get(b)),
                _ => unreachable!("operations have one or two operands"),
            },
        };
    }
    values[root.index()]
}
