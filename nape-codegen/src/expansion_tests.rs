//! Expansion of the builtins, pretty-printed (see also the snapshot tests).

use quote::quote;

fn pretty(tokens: proc_macro2::TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("expansion parses as a file");
    prettyplease::unparse(&file)
}

#[test]
fn pivot_expands() {
    let out = crate::expand(
        quote!(position = body2.world_point(anchor2) - body1.world_point(anchor1)),
        quote!(
            pub struct PivotJoint {
                pub body1: BodyHandle,
                pub body2: BodyHandle,
                pub anchor1: Vec2,
                pub anchor2: Vec2,
            }
        ),
    );
    let text = pretty(out);
    println!("{text}");
    assert!(text.contains("impl ::nape::__private::Constraint<2, 2> for PivotJoint"));
}
