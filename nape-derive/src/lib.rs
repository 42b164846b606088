//! # nape-derive
//!
//! The `#[constraint]` attribute. It reads a 2D physics constraint written as a Rust
//! expression — the positional constraint `c(q)` over body positions and angles, or a
//! velocity-only constraint — differentiates it symbolically at compile time and emits an
//! implementation of the runtime's `Constraint` trait: position error, Jacobian, velocity
//! error, effective mass `K = J M⁻¹ Jᵀ` (with the cross terms of shared bodies) and impulse
//! application, as straight-line code.
//!
//! The pipeline is parse → model → derive → emit, one module each:
//!
//! - [`parse`](crate::parse): attribute arguments and the struct, spans kept;
//! - [`model`](crate::model): the expression lowered into the symbolic graph, typed;
//! - [`derive`](crate::derive): `J`, its per-step cache, `K`, the impulse;
//! - [`emit`](crate::emit): tokens and rustdoc.
//!
//! The symbolic engine ([`symbolic`](crate::symbolic)) knows nothing of `proc_macro`.
//!
//! See the `nape` crate for the expression language and examples.

use proc_macro::TokenStream;

mod derive;
mod emit;
mod errors;
mod model;
mod parse;
mod symbolic;

/// Derives a constraint from its positional (or velocity) expression.
///
/// ```text
/// #[constraint(position = body2.world_point(anchor2) - body1.world_point(anchor1))]
/// pub struct PivotJoint {
///     pub body1: BodyHandle,
///     pub body2: BodyHandle,
///     pub anchor1: Vec2,
///     pub anchor2: Vec2,
/// }
/// ```
///
/// Arguments: `position = <expr>` or `velocity = <expr>` (exactly one), `limits = [...]`
/// (one range per row), `validate = [...]` (parameter rules) and `crate = <path>` (where the
/// runtime is, `::nape` by default). The language is documented in the `nape` crate.
#[proc_macro_attribute]
pub fn constraint(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(args.into(), item.into()).into()
}

fn expand(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let mut errors = errors::Errors::default();
    let args = parse::Args::parse(args, &mut errors);
    let Some(input) = parse::Input::parse(item.clone(), &mut errors) else {
        return fallback(item, errors);
    };
    let Some(mut model) = model::build(args, &input, &mut errors) else {
        return fallback(quote::ToTokens::to_token_stream(&input.item), errors);
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
            fallback(quote::ToTokens::to_token_stream(&input.item), errors)
        }
    }
}

/// On error: the item as written (so the rest of the crate still sees the struct) and the
/// errors, each at its own tokens.
fn fallback(item: proc_macro2::TokenStream, errors: errors::Errors) -> proc_macro2::TokenStream {
    let errors = errors.combined().map(|e| e.into_compile_error());
    quote::quote! { #item #errors }
}

#[cfg(test)]
mod expansion_tests;
