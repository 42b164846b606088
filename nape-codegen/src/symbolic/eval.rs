//! Numeric evaluation of a graph, in `f64`, for tests and for checking derivations.

use super::graph::{Graph, Id, Leaf, Node, SAFE_RECIP_EPSILON, guarded_ln, sign, step};

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
            Node::Tan(a) => get(a).tan(),
            Node::Exp(a) => get(a).exp(),
            Node::Ln(a) => guarded_ln(get(a)),
            Node::Asin(a) => get(a).clamp(-1.0, 1.0).asin(),
            Node::Acos(a) => get(a).clamp(-1.0, 1.0).acos(),
            Node::Atan2(y, x) => get(y).atan2(get(x)),
            Node::Abs(a) => get(a).abs(),
            Node::Min(a, b) => get(a).min(get(b)),
            Node::Max(a, b) => get(a).max(get(b)),
            Node::Sign(a) => sign(get(a)),
            Node::Step(a) => step(get(a)),
        };
    }
    values[root.index()]
}
