//! Constraints compiled from text: the macro's language and Nape's, and their errors.
#![cfg(feature = "runtime")]

use nape_codegen::runtime::{Kind, compile};

const PIVOT: &str = "#[constraint(
    position = body2.world_point(anchor2) - body1.world_point(anchor1),
    validate = [body1 != body2],
)]
struct Pivot { body1: BodyHandle, body2: BodyHandle, anchor1: Vec2, anchor2: Vec2 }";

#[test]
fn the_macro_language_compiles() {
    let program = compile(PIVOT).expect("compiles");
    assert_eq!(program.dim, 2);
    assert_eq!(program.bodies, ["body1", "body2"]);
    assert_eq!(program.vectors, ["anchor1", "anchor2"]);
    assert_eq!(program.kind, Kind::Position);
    assert_eq!(program.jacobian.outputs(), 12);
    assert_eq!(program.distinct_bodies.len(), 1);
}

#[test]
fn a_typo_gets_the_macro_message_at_its_bytes() {
    let source = PIVOT.replace("body2.world_point(anchor2)", "body2.world_pont(anchor2)");
    let errors = compile(&source).expect_err("a typo");
    assert_eq!(errors.len(), 1, "{errors:?}");
    let start = source.find("world_pont").unwrap();
    assert_eq!(errors[0].range, start..start + "world_pont".len());
    assert!(
        errors[0].message.contains("world_point"),
        "{}",
        errors[0].message
    );
}

#[test]
fn nape_names_are_checked_with_suggestions() {
    let source = "body body1, body2\nconstraint body2.rotatino - body1.rotation";
    let errors = compile(source).expect_err("a typo");
    let start = source.find("rotatino").unwrap();
    assert_eq!(errors[0].range, start..start + 8);
    assert!(
        errors[0].message.contains("did you mean `rotation`"),
        "{}",
        errors[0].message
    );
}

mod untrusted {
    use nape_codegen::runtime::compile;
    use proptest::prelude::*;

    const SEEDS: &[&str] = &[
        super::PIVOT,
        "body body1, body2\nvector anchor1, direction\nscalar jointMin, jointMax\n\
         limit |direction| eps inf\nconstraint let dir = unit(relative body1.rotation direction) in\n\
         { dir dot (body2.position - body1.position) dir cross [body2.position] }\n\
         limit constraint { jointMin 0 } { jointMax 0 }",
    ];

    /// A seed with a span of bytes replaced by random text.
    fn mutated() -> impl Strategy<Value = String> {
        (
            0..SEEDS.len(),
            any::<prop::sample::Index>(),
            0usize..8,
            "[ -~\n]{0,6}",
        )
            .prop_map(|(seed, at, cut, insert)| {
                let seed = SEEDS[seed];
                let mut at = at.index(seed.len());
                while !seed.is_char_boundary(at) {
                    at -= 1;
                }
                let mut end = (at + cut).min(seed.len());
                while !seed.is_char_boundary(end) {
                    end -= 1;
                }
                format!("{}{insert}{}", &seed[..at], &seed[end..])
            })
    }

    proptest! {
        // `PROPTEST_CASES=100000` for a bench-length run.
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(300)
        ))]

        #[test]
        fn random_text_gives_a_program_or_diagnostics_in_range(text in "[ -~\n]{0,200}") {
            if let Err(errors) = compile(&text) {
                prop_assert!(!errors.is_empty());
                for error in errors {
                    prop_assert!(error.range.start <= error.range.end && error.range.end <= text.len());
                }
            }
        }

        #[test]
        fn mutated_sources_give_a_program_or_diagnostics_in_range(text in mutated()) {
            if let Err(errors) = compile(&text) {
                prop_assert!(!errors.is_empty());
                for error in errors {
                    prop_assert!(error.range.end <= text.len(), "{error:?} in {text:?}");
                }
            }
        }
    }

    #[test]
    fn deep_and_long_sources_are_refused_before_parsing() {
        let deep = format!(
            "body b\nconstraint {}b.rotation{}",
            "(".repeat(200),
            ")".repeat(200)
        );
        assert!(
            compile(&deep).unwrap_err()[0]
                .message
                .contains("nest deeper")
        );
        let long = format!("body b\nconstraint {}", "b.rotation + ".repeat(2000));
        assert!(compile(&long).is_err());
        let huge = "x".repeat(100_000);
        assert!(compile(&huge).unwrap_err()[0].message.contains("at most"));
        // The longest chain under the token limit still compiles on a test thread's stack.
        let chain = format!(
            "body b\nconstraint b.rotation{}",
            " - b.rotation".repeat(300)
        );
        assert!(compile(&chain).is_ok());
        let minus = format!("body b\nconstraint {}b.rotation", "- ".repeat(1000));
        let _ = compile(&minus);
    }
}
