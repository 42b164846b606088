//! Common-subexpression elimination: which nodes of a set of outputs get a name.
//!
//! A node that more than one parent (or output) uses is computed once into a `let`; a node
//! used once is written inline where it is used. Leaves and constants are always inline.
//! The bindings come in ascending id order, which is topological, so the output is
//! deterministic.

use super::graph::{Graph, Id, Node};

/// The outcome of CSE for a set of outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Nodes to bind to a local, in the order to compute them.
    pub bindings: Vec<Id>,
    /// Per graph node, whether it is bound (indexed by [`Id::index`]).
    bound: Vec<bool>,
}

impl Schedule {
    /// Plans the computation of `roots`.
    #[must_use]
    pub fn plan(graph: &Graph, roots: &[Id]) -> Self {
        let reachable = graph.reachable(roots);
        let mut uses = vec![0usize; graph.len()];
        for &id in &reachable {
            for child in graph.children(id) {
                uses[child.index()] += 1;
            }
        }
        for root in roots {
            uses[root.index()] += 1;
        }
        let mut bound = vec![false; graph.len()];
        let mut bindings = Vec::new();
        for id in reachable {
            let trivial = matches!(graph.node(id), Node::Const(_) | Node::Leaf(_));
            // A negation is as cheap to repeat as to name.
            let cheap = matches!(graph.node(id), Node::Neg(_));
            if uses[id.index()] > 1 && !trivial && !cheap {
                bound[id.index()] = true;
                bindings.push(id);
            }
        }
        Self { bindings, bound }
    }

    /// Whether `id` is computed into a local.
    #[must_use]
    pub fn is_bound(&self, id: Id) -> bool {
        self.bound.get(id.index()).copied().unwrap_or(false)
    }
}
