//! The symbolic engine: a hash-consed expression DAG over scalars, its derivative rules,
//! numeric evaluation, CSE planning and infix printing.
//!
//! Nothing here knows about `proc_macro` or `syn`: 2D vectors are lowered to component
//! pairs before they reach the graph, and code generation reads the graph through
//! [`Schedule`]. That keeps the mathematics testable as plain library code.

mod diff;
#[cfg(test)]
mod eval;
mod graph;
mod print;
mod schedule;

pub use diff::Differentiator;
#[cfg(test)]
pub use diff::derivative;
#[cfg(test)]
pub use eval::evaluate;
pub use graph::{Dof, Graph, Id, Leaf, Node};
pub use print::to_infix;
pub use schedule::Schedule;

#[cfg(test)]
mod tests;
