//! # nape-difftest
//!
//! A differential test of `#[constraint]`, as a workspace member of its own so that its
//! generated code is compiled only here. The build script writes random constraint
//! expressions (every function, tuples, `let` bindings and destructuring, named
//! constants, several body slots) twice: as `#[constraint]` structs, which the macro must
//! compile into code that type-checks, and as a small prefix program that
//! `tests/differential.rs` evaluates independently in `f64` with forward-mode
//! derivatives, comparing `c`, `J` and `K = J M⁻¹ Jᵀ` (shared slots merged) on random
//! states.
//!
//! `NAPE_DIFF_EXPRESSIONS` sets how many expressions are generated (300 by default) and
//! `NAPE_DIFF_SEED` the generator's seed; changing either rebuilds the cases.
