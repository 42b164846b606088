//! The gallery's scenes and their rendering, shared by `cargo run --example gallery` (the
//! animated SVG gallery, [`cli`]) and the interactive page in `web/` (a canvas, compiled
//! for `wasm32-unknown-unknown`).
//!
//! * [`joints`]: the custom joints, each a few lines of `#[constraint]` expression, and the
//!   soft [`joints::MouseJoint`] the interactive page drags bodies with;
//! * [`scenes`]: one scene per builtin joint and per custom joint;
//! * [`world`]: a running scene ([`World`]): its space, what each body looks like, its
//!   joints' pictures and errors, its controls and traced points, the mouse;
//! * [`svg`], [`html`]: the animated SVG of a run, its plots and the index page;
//! * [`cli`]: the gallery command;
//! * [`workbench`]: the interactive page's joint editor, a constraint written as text
//!   joining a hook and a plank;
//! * [`soak`]: a scene run for minutes or an hour, and what it did.
#![warn(missing_docs)]

pub mod cli;
pub mod html;
pub mod joints;
pub mod scenes;
pub mod soak;
pub mod svg;
pub mod workbench;
pub mod world;

pub use scenes::{SCENES, SceneInfo};
pub use world::{Shape, World};
