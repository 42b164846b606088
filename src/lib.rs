//! # nape
//!
//! 2D physics constraints whose Jacobians and effective masses are derived by the compiler.
//! This facade re-exports [`nape_core`] (bodies, `Space`, the solver, the builtin joints)
//! and the `#[constraint]` attribute of `nape-derive`.

pub use nape_core::*;
