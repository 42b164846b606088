//! Infix text of expressions, for the derivations written into rustdoc.

use super::graph::{Graph, Id, Leaf, Node};

const SUM: u8 = 1;
const PRODUCT: u8 = 2;
const PREFIX: u8 = 3;
const ATOM: u8 = 4;

/// Most nodes one expression's text spells out; beyond it a sub-expression is written `…`.
/// Text is a tree and the graph a DAG: a sub-expression used twice is written twice, so
/// without a limit the text of `let` chains (`t₂ = t₁·t₁`) doubles with each binding.
pub const INFIX_NODE_LIMIT: usize = 400;

/// Writes `root` as infix text, naming leaves with `name`; at most [`INFIX_NODE_LIMIT`]
/// nodes are written.
#[must_use]
pub fn to_infix(graph: &Graph, root: Id, name: &impl Fn(Leaf) -> String) -> String {
    let mut budget = INFIX_NODE_LIMIT;
    write(graph, root, name, &mut budget).0
}

fn write(
    graph: &Graph,
    id: Id,
    name: &impl Fn(Leaf) -> String,
    budget: &mut usize,
) -> (String, u8) {
    if *budget == 0 {
        return ("…".to_owned(), ATOM);
    }
    *budget -= 1;
    let mut wrap = |child: Id, min: u8| {
        let (text, precedence) = write(graph, child, name, budget);
        if precedence < min {
            format!("({text})")
        } else {
            text
        }
    };
    match graph.node(id) {
        Node::Const(bits) => {
            let value = f64::from_bits(bits);
            let text = format_number(value);
            let precedence = if value < 0.0 { PREFIX } else { ATOM };
            (text, precedence)
        }
        Node::Leaf(leaf) => (name(leaf), ATOM),
        Node::Add(a, b) => {
            let text = match (graph.node(a), graph.node(b)) {
                (_, Node::Neg(nb)) => format!("{} - {}", wrap(a, SUM), wrap(nb, PRODUCT)),
                (Node::Neg(na), _) => format!("{} - {}", wrap(b, SUM), wrap(na, PRODUCT)),
                _ => format!("{} + {}", wrap(a, SUM), wrap(b, SUM)),
            };
            (text, SUM)
        }
        Node::Mul(a, b) => {
            let text = match graph.node(b) {
                Node::Recip(denominator) => {
                    format!("{} / {}", wrap(a, PRODUCT), wrap(denominator, PREFIX))
                }
                _ => format!("{}·{}", wrap(a, PRODUCT), wrap(b, PRODUCT)),
            };
            (text, PRODUCT)
        }
        Node::Neg(a) => (format!("-{}", wrap(a, PREFIX)), PREFIX),
        Node::Recip(a) => (format!("1 / {}", wrap(a, PREFIX)), PRODUCT),
        Node::SafeRecip(a) => (format!("1 / {}", wrap(a, PREFIX)), PRODUCT),
        Node::Sqrt(a) => (format!("√{}", wrap(a, ATOM)), PREFIX),
        Node::Abs(a) => (format!("|{}|", write(graph, a, name, budget).0), ATOM),
        node => {
            let function = node
                .function_name()
                .expect("every other node is a function");
            let operands: Vec<String> = graph
                .children(id)
                .into_iter()
                .map(|a| write(graph, a, name, budget).0)
                .collect();
            (format!("{function}({})", operands.join(", ")), ATOM)
        }
    }
}

fn format_number(value: f64) -> String {
    if value.is_infinite() {
        return if value > 0.0 {
            "∞".into()
        } else {
            "-∞".into()
        };
    }
    let text = format!("{value}");
    text
}
