//! A pendulum chain hung from a static body and released horizontally, simulated for 10 s
//! at 60 Hz with the default solver. Prints, for every simulated second, the largest
//! separation of any pivot's two anchors and where the chain's tip is.
//!
//! Run with `cargo run --release --example pendulum_chain -- [links]` (default 20 links);
//! add `--gauss-seidel` to solve every island by Gauss–Seidel sweeps alone (no exact solve
//! of the chain), as most engines do.

use nape::{Body, PivotJoint, Space, Vec2};

const LINK_LENGTH: f32 = 1.0;
const HZ: f32 = 60.0;

fn main() -> Result<(), nape::Error> {
    let mut links = 20;
    let mut space = Space::new();
    space.gravity = Vec2::new(0.0, -10.0);
    for arg in std::env::args().skip(1) {
        if arg == "--gauss-seidel" {
            space.direct_solve = false;
        } else if let Ok(n) = arg.parse::<usize>() {
            links = n.max(1);
        } else {
            eprintln!("usage: pendulum_chain [links] [--gauss-seidel]");
            std::process::exit(2);
        }
    }

    let ceiling = space.add_body(Body::static_body())?;
    let mut joints = Vec::with_capacity(links);
    let mut previous = (ceiling, Vec2::ZERO);
    let mut tip = ceiling;
    for i in 0..links {
        // Links start horizontal, each a thin rod of mass 1 centred on its midpoint.
        let centre = Vec2::new((i as f32 + 0.5) * LINK_LENGTH, 0.0);
        let link = space.add_body(Body::rectangle(LINK_LENGTH, 0.1, 10.0).at(centre))?;
        let half = Vec2::new(0.5 * LINK_LENGTH, 0.0);
        joints.push(space.add_constraint(PivotJoint::new(previous.0, link, previous.1, -half))?);
        previous = (link, half);
        tip = link;
    }

    println!(
        "{links}-link pendulum chain, links of length {LINK_LENGTH}, {HZ} Hz, {} substeps, {}",
        space.substeps,
        if space.direct_solve {
            "exact solve of acyclic islands"
        } else {
            "Gauss–Seidel only"
        }
    );
    println!(
        "{:>6}  {:>22}  {:>18}",
        "time", "max anchor separation", "tip position"
    );
    let steps_per_second = HZ as usize;
    let mut worst = 0.0f32;
    for second in 1..=10 {
        let mut largest = 0.0f32;
        for _ in 0..steps_per_second {
            space.step(1.0 / HZ);
            for &joint in &joints {
                let pivot = space.constraint(joint)?;
                let p1 = space.body(pivot.body1)?.world_point(pivot.anchor1);
                let p2 = space.body(pivot.body2)?.world_point(pivot.anchor2);
                largest = largest.max(p1.distance(p2) as f32);
            }
        }
        worst = worst.max(largest);
        let end = space.body(tip)?.position();
        println!(
            "{:>5}s  {:>22.2e}  ({:>7.3}, {:>7.3})",
            second, largest, end.x, end.y
        );
    }
    println!("largest anchor separation over 10 s: {worst:.2e}");
    Ok(())
}
