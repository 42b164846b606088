//! The gallery: every builtin joint and custom joints declared with `#[constraint]`, each in
//! a scene simulated at 60 Hz, written as animated SVGs, plots of error and energy, and an
//! `index.html` (in `target/gallery/` unless `--out DIR`). The scenes and the custom joints
//! are in `gallery/src/scenes.rs` and `gallery/src/joints.rs`; the interactive page in
//! `web/` runs the same scenes.
//!
//! Run with `cargo run --release --example gallery` (`-- --help` for the options).

fn main() {
    std::process::exit(nape_gallery::cli::main(std::env::args().skip(1)));
}
