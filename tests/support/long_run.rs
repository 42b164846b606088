//! The long-run scenes: each stepped at the defaults (60 Hz) for a number of simulated
//! minutes, measured as the motion tests measure it. `tests/long_run.rs` holds them to
//! bounds over ten minutes; `examples/long_run.rs` runs them for an hour.

#![allow(dead_code)]

use super::mechanics::*;
use nape::{Body, BodyHandle, MotorJoint, PivotJoint, Space, Vec2, WeldJoint};

/// The steps of `minutes` simulated minutes.
pub fn steps(minutes: f64) -> usize {
    (minutes * 60.0 * HZ).round() as usize
}

/// The largest `|E(t) − E(0)|` over `steps` steps of `bodies` in `space`, read at every
/// step, a share of `scale`; and the mean of `E(t) − E(0)` over the last tenth of the run,
/// a share of `scale` (where the level went, without the swing of one step).
pub fn energy_excursion(
    space: &mut Space,
    bodies: &[BodyHandle],
    steps: usize,
    scale: f64,
) -> (f64, f64) {
    let start = energy(space, bodies);
    let mut worst = 0.0f64;
    let (mut tail, mut count) = (0.0, 0usize);
    for k in 0..steps {
        space.step((1.0 / HZ) as f32);
        let change = energy(space, bodies) - start;
        worst = worst.max(change.abs());
        if k >= steps - steps / 10 {
            tail += change;
            count += 1;
        }
    }
    (worst / scale, tail / count.max(1) as f64 / scale)
}

/// A chain of `links` released horizontal: its energy excursion and final level, shares
/// of its swing's energy `m g L N²/2`.
pub fn swinging_chain(links: usize, minutes: f64) -> (f64, f64) {
    swinging_chain_in(links, minutes, |_| {})
}

/// [`swinging_chain`] in a space `configure` sets (its substeps, say) before the run.
pub fn swinging_chain_in(
    links: usize,
    minutes: f64,
    configure: impl FnOnce(&mut Space),
) -> (f64, f64) {
    let (mut space, bodies) = chain_space(links, |_| 0.0);
    configure(&mut space);
    energy_excursion(&mut space, &bodies, steps(minutes), swing_energy(links))
}

/// What a crank driven at 2π rad/s by a `MotorJoint` on a pivot, a bar welded to it, did:
/// its pin's and its weld's largest gaps (m) and its spin at the end (rad/s).
#[derive(Clone, Copy, Debug)]
pub struct CrankRun {
    pub pin: f32,
    pub weld: f32,
    pub spin: f32,
}

pub fn motor_crank(minutes: f64) -> CrankRun {
    let mut space = Space::new();
    let ground = space.add_body(Body::static_body()).unwrap();
    let crank = space
        .add_body(Body::rectangle(1.0, 0.2, 1.0).at(Vec2::new(0.5, 0.0)))
        .unwrap();
    let bar = space
        .add_body(Body::rectangle(2.0, 0.2, 1.0).at(Vec2::new(2.0, 0.0)))
        .unwrap();
    let half = Vec2::new(0.5, 0.0);
    let bar_end = Vec2::new(-1.0, 0.0);
    space
        .add_constraint(PivotJoint::new(ground, crank, Vec2::ZERO, -half))
        .unwrap();
    space
        .add_constraint(MotorJoint::new(ground, crank, std::f32::consts::TAU))
        .unwrap();
    space
        .add_constraint(WeldJoint::new(crank, bar, half, bar_end, 0.0))
        .unwrap();
    let (mut pin, mut weld) = (0.0f32, 0.0f32);
    for _ in 0..steps(minutes) {
        space.step((1.0 / HZ) as f32);
        let (c, b) = (space.body(crank).unwrap(), space.body(bar).unwrap());
        weld =
            weld.max((c.pose().world_point(half) - b.pose().world_point(bar_end)).length() as f32);
        pin = pin.max(c.pose().world_point(-half).length() as f32);
    }
    CrankRun {
        pin,
        weld,
        spin: space.body(crank).unwrap().angular_velocity(),
    }
}

/// [`spinning_pair`] with its centre of mass at rest (every body's velocity less the
/// centre's): it spins in place, near the origin, where `f32` positions resolve its
/// angular momentum (drifting, it is 200 m out after ten minutes).
pub fn spinning_pair_in_place() -> (Space, Vec<BodyHandle>) {
    let (mut space, bodies) = spinning_pair();
    let (p, _) = momentum(&space, &bodies);
    let mass: f64 = bodies
        .iter()
        .map(|&b| f64::from(space.body(b).unwrap().mass()))
        .sum();
    let centre = Vec2::new((p[0] / mass) as f32, (p[1] / mass) as f32);
    for &b in &bodies {
        let v = space.body(b).unwrap().velocity();
        space.body_mut(b).unwrap().set_velocity(v - centre).unwrap();
    }
    (space, bodies)
}

/// The free spinning pair with one of [`pair_variants`]' joints (a spring, a limit, a
/// motor) added: its momenta's and kinetic energy's changes.
pub fn free_pair_variant(add: PairJoint, minutes: f64) -> FreeRun {
    let (mut space, bodies) = spinning_pair_in_place();
    add(&mut space, &bodies);
    run_free(&mut space, &bodies, minutes * 60.0)
}
