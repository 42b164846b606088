//! The symbolic engine: a hash-consed expression DAG over scalars, its derivative rules,
//! numeric evaluation, CSE planning and infix printing.
//!
//! Nothing here knows about `proc_macro` or `syn`: 2D vectors are lowered to component
//! pairs before they reach the graph, and code generation reads the graph through
//! [`Schedule`]. That keeps the mathematics testable as plain library code.

mod diff;
mod eval;
mod graph;
mod print;
mod schedule;

pub use diff::{Differentiator, derivative};
pub use eval::evaluate;
pub use graph::{Dof, Graph, Id, Leaf, Node, SAFE_RECIP_EPSILON};
pub use print::to_infix;
pub use schedule::Schedule;

#[cfg(test)]
mod tests;
