//! Expansion snapshots of the seven builtins: the pretty-printed code `#[constraint]`
//! generates for each is checked in under `tests/snapshots/` (as `<Name>.snap`), so every change to the
//! generator shows its effect in review. Regenerate with `NAPE_BLESS=1 cargo test -p
//! nape-codegen --test snapshots` and review the diff.

#[path = "support/builtins.rs"]
mod builtins;

use builtins::builtins;

#[test]
fn builtin_expansions_match_their_snapshots() {
    let bless = std::env::var_os("NAPE_BLESS").is_some();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let all = builtins();
    assert_eq!(
        all.len(),
        7,
        "seven builtins: {:?}",
        all.iter().map(|b| &b.name).collect::<Vec<_>>()
    );
    let mut stale = Vec::new();
    for builtin in all {
        let expanded = nape_codegen::expand(builtin.args, builtin.item);
        let file: syn::File = syn::parse2(expanded).expect("the expansion is valid Rust");
        let text = prettyplease::unparse(&file);
        assert!(
            !text.contains("compile_error"),
            "{} expands with an error:\n{text}",
            builtin.name
        );
        let path = dir.join(format!("{}.snap", builtin.name));
        if bless {
            std::fs::create_dir_all(&dir).expect("snapshot folder");
            std::fs::write(&path, &text).expect("snapshot written");
        } else {
            let stored = std::fs::read_to_string(&path).unwrap_or_default();
            if stored != text {
                stale.push(builtin.name);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "expansions changed for {stale:?}: review, then rerun with NAPE_BLESS=1"
    );
}

#[test]
fn expansion_is_deterministic() {
    for builtin in builtins() {
        let first = nape_codegen::expand(builtin.args.clone(), builtin.item.clone()).to_string();
        let second = nape_codegen::expand(builtin.args, builtin.item).to_string();
        assert_eq!(first, second, "{}", builtin.name);
    }
}
