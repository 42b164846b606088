//! `#[constraint]`: derives a 2D physics constraint from its positional expression.
use proc_macro::TokenStream;

mod symbolic;

/// Derives an implementation of `nape_core::Constraint` (work in progress).
#[proc_macro_attribute]
pub fn constraint(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}
