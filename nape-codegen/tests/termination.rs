//! Every expansion terminates: the shapes that once sent the derivation into an endless
//! loop (a product with a repeated factor) or into exponential work (sub-expressions shared
//! through `let` chains, walked as trees) expand within a time limit.

#[path = "support/time_limit.rs"]
mod time_limit;

use std::time::Duration;

/// Generous for a debug build on a loaded machine: these expand in a few milliseconds.
const LIMIT: Duration = Duration::from_millis(2_000);

const ITEM: &str = "#[derive(Clone, Copy, Debug)] \
    pub struct T { pub body1: BodyHandle, pub body2: BodyHandle, pub a2: Vec2 }";

fn assert_expands(expression: &str) {
    let args = format!("position = {expression}");
    let (output, took) = time_limit::within(LIMIT, move || {
        // `TokenStream` is not `Send`: parsed on the expanding thread.
        let (args, item) = (args.parse().expect("tokens"), ITEM.parse().expect("tokens"));
        nape_codegen::expand(args, item).to_string()
    })
    .unwrap_or_else(|limit| panic!("no expansion within {limit:?}: {expression}"));
    assert!(
        !output.contains("compile_error"),
        "{expression} expands with an error:\n{output}"
    );
    let tokens: proc_macro2::TokenStream = output.parse().expect("the output is tokens");
    syn::parse2::<syn::File>(tokens).expect("the expansion is valid Rust");
    println!("{took:?}: {}", &expression[..expression.len().min(70)]);
}

#[test]
fn a_product_with_a_repeated_factor_expands() {
    assert_expands("(body2.position * (body1.angle * body1.angle)).perp_dot(a2)");
    assert_expands("(body1.position * body1.angle).perp_dot(body1.angle * body2.position)");
    assert_expands("(body2.position * (body1.angle * body1.angle)).x");
    assert_expands("body2.position.x * body1.angle * body1.angle");
    assert_expands(
        "(body2.position * (body1.angle * body1.angle * body1.angle * body2.angle)).perp_dot(a2)",
    );
}

/// `let t1 = t0 ∘ (t0 ∘ last); let t2 = t1 ∘ (t1 ∘ last); …`: a DAG of `2·levels` nodes
/// whose tree has `2^levels` leaves.
fn doubling_chain(operator: &str, levels: usize, first: &str, last: &str) -> String {
    let mut text = format!("{{ let t0 = {first}; ");
    for i in 1..levels {
        let p = i - 1;
        text += &format!("let t{i} = t{p} {operator} (t{p} {operator} {last}); ");
    }
    text + &format!("t{} }}", levels - 1)
}

#[test]
fn sub_expressions_shared_through_let_chains_expand() {
    let sum = doubling_chain("+", 40, "body1.angle + body2.position.x", "body2.angle");
    assert_expands(&sum);
    assert_expands(&format!("({sum}).sqrt()"));
    assert_expands(&format!("(body2.position * {sum}).perp_dot(a2)"));
    let product = doubling_chain("*", 40, "body1.angle * body2.position.x", "body2.angle");
    assert_expands(&product);
    let lever = doubling_chain("+", 30, "body2.position - body1.position", "a2");
    assert_expands(&format!("{lever}.normalize().perp_dot(a2)"));
}
