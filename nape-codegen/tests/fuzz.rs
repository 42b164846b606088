//! The macro never panics, whatever it is given. Two generators feed `expand`:
//! random token soup from the language's vocabulary (mostly rejected by the parser), and
//! random well-typed-or-not expression trees over a random struct (reaching the model,
//! the derivation and the emitter). Every expansion must return tokens; when it reports no
//! error, the output must parse as Rust.
//!
//! Each expansion has a time limit: one that does not terminate fails the run.
//!
//! The run lasts `NAPE_FUZZ_SECONDS` seconds (default 3, so the suite stays fast); the
//! long run is `NAPE_FUZZ_SECONDS=600 cargo test --release -p nape-codegen --test fuzz`.

#[path = "support/time_limit.rs"]
mod time_limit;

use std::time::{Duration, Instant};

use proc_macro2::TokenStream;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

const WORDS: &[&str] = &[
    "body1",
    "body2",
    "body3",
    "anchor",
    "anchor1",
    "ratio",
    "min",
    "max",
    "position",
    "angle",
    "velocity",
    "angular_velocity",
    "rotate",
    "world_point",
    "dot",
    "perp_dot",
    "perp",
    "length",
    "length_squared",
    "normalize",
    "sqrt",
    "sin",
    "cos",
    "recip",
    "powi",
    "tan",
    "exp",
    "ln",
    "asin",
    "acos",
    "atan2",
    "abs",
    "min",
    "clamp",
    "hypot",
    "sin_cos",
    "distance",
    "to_angle",
    "angle_to",
    "0",
    "1",
    "2",
    "x",
    "y",
    "self",
    "let",
    "crate",
    "limits",
    "validate",
    "Vec2",
    "new",
    "vec2",
    "f32",
    "INFINITY",
    "ZERO",
    "X",
    "Y",
    "PI",
    "consts",
    "std",
    "if",
    "match",
    "undefined",
    "tan",
];
const PUNCT: &[&str] = &[
    "+", "-", "*", "/", ".", ",", "=", ";", "..", "..=", "<", "<=", ">", ">=", "!=", "==", "::",
    "!", "&", "(", ")", "[", "]", "{", "}", "(", ")",
];
const NUMBERS: &[&str] = &[
    "0.0", "1.0", "2", "-1.0", "1e-6", "3.5f32", "1e30", "0", "255u8",
];

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(WORDS).prop_map(str::to_owned),
        prop::sample::select(PUNCT).prop_map(str::to_owned),
        prop::sample::select(NUMBERS).prop_map(str::to_owned),
    ]
}

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(token(), 0..40).prop_map(|tokens| tokens.join(" "))
}

/// An expression over the struct below: bodies, vectors, scalars, calls, blocks, tuples.
fn expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        prop::sample::select(
            &[
                "body1",
                "body2",
                "anchor",
                "ratio",
                "min",
                "max",
                "self.ratio"
            ][..]
        )
        .prop_map(str::to_owned),
        prop::sample::select(
            &[
                "body1.position",
                "body2.position",
                "body1.angle",
                "body2.angle"
            ][..]
        )
        .prop_map(str::to_owned),
        prop::sample::select(&["body1.velocity", "body2.angular_velocity"][..])
            .prop_map(str::to_owned),
        prop::sample::select(NUMBERS).prop_map(str::to_owned),
        prop::sample::select(
            &[
                "Vec2::X",
                "Vec2::ZERO",
                "f32::INFINITY",
                "std::f32::consts::PI"
            ][..]
        )
        .prop_map(str::to_owned),
    ];
    leaf.prop_recursive(5, 48, 3, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop::sample::select(&["+", "-", "*", "/", "<", "%"][..]),
                inner.clone()
            )
                .prop_map(|(a, op, b)| format!("({a} {op} {b})")),
            inner.clone().prop_map(|a| format!("-{a}")),
            (
                inner.clone(),
                prop::sample::select(
                    &[
                        "length",
                        "normalize",
                        "perp",
                        "sqrt",
                        "sin",
                        "cos",
                        "recip",
                        "length_squared",
                        "tan",
                        "exp",
                        "ln",
                        "asin",
                        "acos",
                        "abs",
                        "sin_cos",
                        "to_angle"
                    ][..]
                )
            )
                .prop_map(|(a, m)| format!("{a}.{m}()")),
            (
                inner.clone(),
                prop::sample::select(
                    &[
                        "dot",
                        "perp_dot",
                        "rotate",
                        "world_point",
                        "powi",
                        "atan2",
                        "min",
                        "max",
                        "hypot",
                        "distance",
                        "angle_to"
                    ][..]
                ),
                inner.clone()
            )
                .prop_map(|(a, m, b)| format!("{a}.{m}({b})")),
            (
                inner.clone(),
                prop::sample::select(&["x", "y", "position", "angle"][..])
            )
                .prop_map(|(a, f)| format!("{a}.{f}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("Vec2::new({a}, {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{{ let t = {a}; t * {b} }}")),
            // Repeated factors and reused bindings: the shapes that once hung the derivation.
            inner.clone().prop_map(|a| format!("({a} * {a})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} * ({b} * {a}))")),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| format!("{{ let t = {a}; t * t * {b} + t }}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!(
                "{{ let (s, c): (f32, f32) = {a}.sin_cos(); s * {b} + c }}"
            )),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("f32::clamp({a}, {b}, {c})")),
            (inner.clone(), prop::sample::select(&["0", "1", "2"][..]))
                .prop_map(|(a, i)| format!("({a}, {a}).{i}")),
            inner.clone().prop_map(|a| format!("(crate::GAP * {a})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}, {b})")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("[{a}, {b}]")),
        ]
    })
}

fn arguments() -> impl Strategy<Value = String> {
    let kind = prop::sample::select(&["position", "velocity", "position", "positon"][..]);
    let limits = prop_oneof![
        4 => Just(String::new()),
        1 => Just(", limits = [min..=max]".to_owned()),
        1 => Just(", limits = [min..=max, 0.0]".to_owned()),
        1 => Just(", limits = [..=max, anchor..=1.0]".to_owned()),
    ];
    let validate = prop_oneof![
        2 => Just(String::new()),
        1 => Just(", validate = [min <= max, body1 != body2]".to_owned()),
        1 => Just(", validate = [anchor.length() > 0.0, ratio]".to_owned()),
    ];
    (kind, expression(), limits, validate).prop_map(|(kind, e, limits, validate)| {
        // A second row that uses both bodies, so most expressions reach the derivation.
        let uses_both = if kind == "velocity" {
            "body1.angular_velocity - body2.angular_velocity"
        } else {
            "body1.angle - body2.angle"
        };
        format!("{kind} = ({e}, {uses_both}){limits}{validate}")
    })
}

fn structure() -> impl Strategy<Value = String> {
    let extra = prop::collection::vec(
        (
            prop::sample::select(&["body3", "other", "extra"][..]),
            prop::sample::select(&["BodyHandle", "Vec2", "f32", "f64", "T"][..]),
        ),
        0..2,
    );
    let shape = prop_oneof![8 => Just("struct S"), 1 => Just("struct S<T>"), 1 => Just("enum S")];
    (shape, extra).prop_map(|(shape, extra)| {
        let mut fields = vec![
            "body1: BodyHandle".to_owned(),
            "body2: BodyHandle".to_owned(),
            "anchor: Vec2".to_owned(),
            "ratio: f32".to_owned(),
            "min: f32".to_owned(),
            "max: f32".to_owned(),
        ];
        fields.extend(extra.iter().map(|(n, t)| format!("{n}: {t}")));
        format!("#[derive(Clone)] {shape} {{ {} }}", fields.join(", "))
    })
}

/// Far above any expansion here (milliseconds in a debug build), far below a stuck run.
const EXPANSION_LIMIT: Duration = Duration::from_secs(2);

/// Expands; `true` when the expansion derived a constraint (no error).
fn expand_never_panics(args: &str, item: &str) -> bool {
    let (Ok(_), Ok(_)) = (args.parse::<TokenStream>(), item.parse::<TokenStream>()) else {
        return false; // not even tokens: rustc would reject it before the macro runs
    };
    let (owned_args, owned_item) = (args.to_owned(), item.to_owned());
    let expanded = time_limit::within(EXPANSION_LIMIT, move || {
        // `TokenStream` is not `Send`: parsed again on the expanding thread.
        let (args, item) = (owned_args.parse(), owned_item.parse());
        let output = nape_codegen::expand(args.expect("tokens"), item.expect("tokens"));
        output.to_string()
    });
    let (text, _) =
        expanded.unwrap_or_else(|limit| panic!("no expansion within {limit:?}:\n{args}\n{item}"));
    if text.contains("compile_error") {
        return false;
    }
    let output: TokenStream = text.parse().expect("the output is tokens");
    syn::parse2::<syn::File>(output)
        .unwrap_or_else(|e| panic!("an expansion without errors must parse: {e}\n{text}"));
    true
}

fn budget() -> Duration {
    let seconds = std::env::var("NAPE_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    Duration::from_secs(seconds)
}

/// Runs `check` on generated cases for `budget`; returns (cases, cases that derived).
fn run_for<S: Strategy>(
    budget: Duration,
    strategy: &S,
    check: impl Fn(S::Value) -> bool,
) -> (u64, u64) {
    let mut runner = TestRunner::new(Config {
        failure_persistence: None,
        ..Config::default()
    });
    let start = Instant::now();
    let (mut cases, mut derived) = (0, 0);
    while start.elapsed() < budget {
        let value = strategy
            .new_tree(&mut runner)
            .expect("a generated case")
            .current();
        derived += u64::from(check(value));
        cases += 1;
    }
    (cases, derived)
}

#[test]
fn token_soup_never_panics() {
    let (cases, derived) = run_for(budget() / 2, &(soup(), soup()), |(args, item)| {
        expand_never_panics(&args, &item)
    });
    println!("token soup: {cases} cases, {derived} derived a constraint");
    assert!(cases > 0);
}

#[test]
fn random_constraints_never_panic() {
    let (cases, derived) = run_for(budget() / 2, &(arguments(), structure()), |(args, item)| {
        expand_never_panics(&args, &item)
    });
    println!("random constraints: {cases} cases, {derived} derived a constraint");
    assert!(
        derived > 0,
        "the generator must reach the derivation, not only the errors"
    );
}
