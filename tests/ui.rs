//! Compile-fail cases of `#[constraint]`, each with its reviewed `.stderr`, and a pass case
//! that defines and simulates a joint. Regenerate with `TRYBUILD=overwrite` after review.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/fail/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}
