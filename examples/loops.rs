//! Issue 42's closed-loop mechanisms (`examples/common/loops.rs`) at the defaults (60 Hz):
//! one line per scene with its time per step, its worst pin separation and other joint
//! error, its energy and momentum changes, its departure from the closed form (a
//! four-bar's rocker against Freudenstein's equation, rad; Peaucellier's tracer against
//! its straight line, m), the scissor lift's platform displacement, and whether its
//! islands were solved exactly (and in how many substeps) or swept.
//! `tests/loops.rs` holds the same runs to the bounds.
//!
//! Run with `cargo run --release --example loops [-- NAME...]`, NAME a part of a scene's
//! name (`ring`, `four-bar`, `scissor`, …) to run only those. `-- crossover` runs hung
//! meshes of 2 × 2 to 8 × 8 bodies ([`loops::hung_mesh`]) at the default and swept at 4,
//! 16 and 64 substeps side by side: where the exact solve's loop rows end
//! (`MAX_LOOP_ROWS`), and what each path costs and keeps there.

#[path = "common/loops.rs"]
mod loops;

fn main() {
    let names: Vec<String> = std::env::args().skip(1).collect();
    if names.iter().any(|n| n == "crossover") {
        for k in 2..=8 {
            // The default, then swept at 4, 16 and 64 substeps (Box2D's default is 4).
            for substeps in [0, 4, 16, 64] {
                let mut scene = loops::hung_mesh(k);
                let path = if substeps == 0 {
                    "default".to_string()
                } else {
                    scene.space.direct_solve = false;
                    scene.space.substeps = substeps;
                    format!("swept, {substeps} substeps")
                };
                scene.name = format!("{} ({path})", scene.name);
                let figures = scene.run();
                println!("{}", figures.line(&scene.name));
            }
        }
        return;
    }
    for mut scene in loops::all() {
        if !names.is_empty() && !names.iter().any(|n| scene.name.contains(n.as_str())) {
            continue;
        }
        let figures = scene.run();
        println!("{}", figures.line(&scene.name));
    }
}
