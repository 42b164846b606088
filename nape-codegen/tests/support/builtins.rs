//! The builtin joints' `#[constraint]` inputs, read from nape-core's sources so that tests
//! and benchmarks always see the real declarations.

use proc_macro2::TokenStream;
use quote::ToTokens;

/// One builtin: its name, the attribute's arguments and the struct without the attribute.
pub struct Builtin {
    pub name: String,
    pub args: TokenStream,
    pub item: TokenStream,
}

/// Every struct under `nape-core/src/joints/` that carries `#[constraint(...)]`, by name.
pub fn builtins() -> Vec<Builtin> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../nape-core/src/joints");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("nape-core's joints folder")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    let mut found = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("a readable source file");
        let file = syn::parse_file(&text).expect("nape-core's sources parse");
        for item in file.items {
            let syn::Item::Struct(mut item) = item else {
                continue;
            };
            let Some(position) = item
                .attrs
                .iter()
                .position(|a| a.path().is_ident("constraint"))
            else {
                continue;
            };
            let attr = item.attrs.remove(position);
            let syn::Meta::List(list) = attr.meta else {
                panic!("#[constraint(...)] takes arguments")
            };
            found.push(Builtin {
                name: item.ident.to_string(),
                args: list.tokens,
                item: item.to_token_stream(),
            });
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}
