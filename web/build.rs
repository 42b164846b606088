//! The module's stack: compiling a joint's text recurses once per level of its expression
//! (up to `nape-codegen`'s 1,024 tokens on wasm), and with the linker's default 1 MiB a
//! source of 500 nested minuses overflows it.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_FAMILY").as_deref() == Ok("wasm") {
        println!("cargo:rustc-link-arg-cdylib=-zstack-size={STACK_BYTES}");
    }
}

/// Holds 1,600 nested minuses (measured in Node's V8).
const STACK_BYTES: usize = 32 << 20;
