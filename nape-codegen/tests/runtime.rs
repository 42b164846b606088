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
