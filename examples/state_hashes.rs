//! Prints [`Space::state_hash`] after a fixed run of the solver's reference scenes: the
//! 20- and 200-link chains swinging and hanging, every loop mechanism, the free spinning
//! pair and the spinning four-rod loop. A change that only reorganises the solver's work
//! leaves every line as it was; diff the output before and after.
//!
//! Run with `cargo run --release --example state_hashes`.

#[path = "../tests/support/long_run.rs"]
mod long_run;
#[path = "common/loops.rs"]
mod loops;
#[path = "../tests/support/mechanics.rs"]
mod mechanics;

use std::f64::consts::FRAC_PI_2;

use nape::{ConstraintSettings, Space};

fn run(name: &str, space: &mut Space, steps: usize) {
    for _ in 0..steps {
        space.step(1.0 / 60.0);
    }
    println!("{name:<28} {:016x}", space.state_hash());
}

fn main() {
    for links in [20, 200] {
        let (mut space, _) = mechanics::chain_space(links, |_| 0.0);
        run(&format!("chain {links} swinging"), &mut space, 600);
        let (mut space, _) = mechanics::chain_space(links, |_| -FRAC_PI_2);
        run(&format!("chain {links} hanging"), &mut space, 600);
    }
    for mut mechanism in loops::all() {
        let name = mechanism.name.clone();
        run(&name, &mut mechanism.space, 600);
    }
    let (mut space, _) = long_run::spinning_pair_in_place();
    run("free spinning pair", &mut space, 6000);
    let (mut space, _) = mechanics::spinning_loop(ConstraintSettings::default());
    run("spinning loop", &mut space, 600);
}
