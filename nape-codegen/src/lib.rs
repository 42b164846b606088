//! # nape-codegen
//!
//! The compiler behind `#[constraint]` (the `nape-derive` crate is a thin shell around
//! [`expand`]). It takes the attribute's arguments and the struct, and returns the struct
//! with its derivation in rustdoc and an implementation of the runtime's `Constraint` trait.
//! Working on `proc_macro2` tokens, it runs in ordinary tests and benchmarks.
//!
//! The pipeline is parse → model → derive → emit, one module each:
//!
//! - `parse`: attribute arguments and the struct, spans kept;
//! - `model`: the expression lowered into the symbolic graph, typed, names resolved;
//! - `derive`: `J`, its per-step cache, the velocity error, `K` and its shared-body cross
//!   terms, the impulse;
//! - `emit`: tokens and rustdoc.
//!
//! The symbolic engine (`symbolic`: hash-consed DAG, simplifying constructors, derivative
//! rules, CSE planning) knows nothing of `syn` or tokens.

#![warn(missing_docs)]

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

mod derive;
mod emit;
mod errors;
mod model;
mod parse;
#[cfg(feature = "runtime")]
pub mod runtime;
mod symbolic;

/// Expands `#[constraint(<args>)] <item>`. Never panics: every mistake becomes a
/// `compile_error!` at its tokens, next to the struct as written and, where the struct is
/// usable, a placeholder implementation so that code using it reports nothing further.
#[must_use]
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = errors::Errors::default();
    let args = parse::Args::parse(args, &mut errors);
    let krate = args
        .krate
        .as_ref()
        .map_or_else(|| quote!(::nape), |k| k.value.to_token_stream());
    let Some(input) = parse::Input::parse(item.clone(), &mut errors) else {
        return fallback(item, errors, None);
    };
    if input.generic {
        return fallback(input.item.to_token_stream(), errors, Some((&input, &krate)));
    }
    let Some(mut model) = model::build(args, &input, &mut errors) else {
        return fallback(input.item.to_token_stream(), errors, Some((&input, &krate)));
    };
    let rows = model.rows.clone();
    match derive::derive(&mut model.graph, &rows, model.mode, model.bodies.len()) {
        Ok(derivation) => emit::constraint(&model, &derivation, &input.item),
        Err(derive::DeriveError::NonLinearVelocity(row)) => {
            errors.push(syn::Error::new_spanned(
                &model.source,
                format!(
                    "row {row} of the velocity constraint is not linear in the body velocities; \
                     a velocity-only constraint must be `J·v + b` with `J` and `b` free of \
                     velocities"
                ),
            ));
            fallback(input.item.to_token_stream(), errors, Some((&input, &krate)))
        }
    }
}

/// On error: the item as written (so the rest of the crate still sees the struct), the
/// errors, each at its own tokens, and a placeholder implementation when the struct is
/// usable, so `space.add_constraint(..)` on it adds no error of its own.
fn fallback(
    item: TokenStream,
    errors: errors::Errors,
    usable: Option<(&parse::Input, &TokenStream)>,
) -> TokenStream {
    let errors = errors.combined().map(|e| e.into_compile_error());
    // The trait requires `Clone`: without it a placeholder would add an error of its own.
    let placeholder = usable
        .filter(|(input, _)| derives_clone(&input.item))
        .map(|(input, krate)| emit::placeholder(input, krate));
    quote! { #item #errors #placeholder }
}

fn derives_clone(item: &syn::ItemStruct) -> bool {
    item.attrs.iter().any(|attr| {
        attr.path().is_ident("derive")
            && attr
                .meta
                .to_token_stream()
                .into_iter()
                .any(|tree| match tree {
                    proc_macro2::TokenTree::Group(group) => {
                        group.stream().into_iter().any(|t| t.to_string() == "Clone")
                    }
                    _ => false,
                })
    })
}
