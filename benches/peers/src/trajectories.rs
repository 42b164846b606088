//! The trajectory comparison (`--trajectories`): chains of 1, 2, 10 and 50 of scene
//! `chain`'s links released horizontal, each engine setting against the exact motion
//! (Lagrange's equations in the links' angles, RK4 in `f64`: `tests/support/
//! chain_reference.rs`, the file nape's motion tests use). Measured per engine and chain:
//! how far a link's centre is from the exact one after 1 s, and the energy lost (a share
//! of the swing's energy `m g L N²/2`) over time. Box2D v3's figures are cited, not run.

#[path = "../../../tests/support/chain_reference.rs"]
mod chain_reference;

use chain_reference::{ChainReference, swing_energy};

use crate::scenes::{GRAVITY, Pose, SceneDescription, Velocity, horizontal_chain, initial_poses};
use crate::{Config, Engine, MovingWorld};

/// One chain of the comparison: its links and how long its energy is followed.
#[derive(Clone, Copy, Debug)]
pub struct ChainCase {
    /// Links in the chain.
    pub links: usize,
    /// Seconds stepped; the energy lost is read at the end.
    pub seconds: f64,
}

/// The chains compared: energy over 10 s for the short chains, over 5 s for the long
/// ones (chaotic within seconds, so only early positions compare).
pub const CASES: [ChainCase; 4] = [
    ChainCase {
        links: 1,
        seconds: 10.0,
    },
    ChainCase {
        links: 2,
        seconds: 10.0,
    },
    ChainCase {
        links: 10,
        seconds: 5.0,
    },
    ChainCase {
        links: 50,
        seconds: 5.0,
    },
];

/// The engine settings compared, by their labels in `NAPE_CONFIGS` and `RAPIER_CONFIGS`:
/// each engine's default, and rapier2d at twice its iterations.
pub const SETTINGS: [(Engine, &str); 3] = [
    (Engine::Nape, "default"),
    (Engine::Rapier, "it 4 (default)"),
    (Engine::Rapier, "it 8"),
];

/// Box2D v3.1.1 at its default 4 substeps, 60 Hz, on the same chains (links, distance
/// after 1 s in m, energy lost as a share): measured with Box2D's C harness for the
/// project's fidelity reference (`shared/reference/fidelity.md` §4), cited here.
pub const BOX2D_CITED: [(usize, f64, f64); 4] = [
    (1, 0.0006, 0.011),
    (2, 0.004, 0.031),
    (10, 0.014, 0.051),
    (50, 0.083, 0.031),
];

/// Box2D's engine and settings in the cited rows.
pub const BOX2D_CITED_ENGINE: (&str, &str) = ("box2d v3.1.1", "sub 4 (default)");

/// Steps per second of the reference; it is checked against itself at twice this.
pub const REFERENCE_HZ: f64 = 12_000.0;

/// Energy is plotted every this many steps.
const SAMPLE_EVERY: usize = 6;

/// Steps per second of every engine (scene `chain`'s `DT`).
pub const HZ: usize = 60;

/// One engine setting on one chain, or Box2D's cited figures.
#[derive(Clone, Debug)]
pub struct TrajectoryRow {
    /// Engine name.
    pub engine: String,
    /// The setting's label.
    pub settings: String,
    /// Links in the chain.
    pub links: usize,
    /// Seconds the chain was followed.
    pub seconds: f64,
    /// Largest distance of a link's centre from the exact one after 1 s (m).
    pub off_after_1s: f64,
    /// `(E(0) − E(end)) / (m g L N²/2)`.
    pub energy_lost: f64,
    /// `(t, energy lost at t)` every [`SAMPLE_EVERY`] steps, from `(0, 0)`; empty for a
    /// cited row.
    pub energy_curve: Vec<(f64, f64)>,
    /// Whether the figures are cited from elsewhere rather than measured by this run.
    pub cited: bool,
}

/// The exact motion of one chain after 1 s, and how well it agrees with itself.
#[derive(Clone, Debug)]
pub struct ReferenceMotion {
    /// Each link's centre after 1 s, at [`REFERENCE_HZ`].
    pub centres: Vec<[f64; 2]>,
    /// Largest distance of a link's centre at [`REFERENCE_HZ`] from the same at twice
    /// that rate, after 1 s (m).
    pub half_step_gap: f64,
    /// `|E(1 s) − E(0)|` at [`REFERENCE_HZ`], a share of the swing's energy.
    pub energy_drift: f64,
}

/// Integrates a chain of `links` released horizontal for 1 s at [`REFERENCE_HZ`] and at
/// twice that.
pub fn reference_motion(links: usize) -> ReferenceMotion {
    let mut coarse = ChainReference::horizontal(links);
    let mut fine = coarse.clone();
    let start = coarse.energy();
    coarse.advance(1.0, 1.0 / REFERENCE_HZ);
    fine.advance(1.0, 0.5 / REFERENCE_HZ);
    ReferenceMotion {
        half_step_gap: largest_gap(&coarse.centres(), &fine.centres()),
        energy_drift: (coarse.energy() - start).abs() / swing_energy(links),
        centres: coarse.centres(),
    }
}

/// The largest distance between corresponding points.
fn largest_gap(a: &[[f64; 2]], b: &[[f64; 2]]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p[0] - q[0]).hypot(p[1] - q[1]))
        .fold(0.0, f64::max)
}

/// Kinetic plus potential energy of a world's bodies (static ones have no mass here),
/// in the scenes' gravity.
pub fn energy(description: &SceneDescription, poses: &[Pose], velocities: &[Velocity]) -> f64 {
    let gravity = [f64::from(GRAVITY[0]), f64::from(GRAVITY[1])];
    description
        .bodies
        .iter()
        .zip(poses.iter().zip(velocities))
        .filter_map(|(body, (pose, velocity))| {
            let (mass, inertia) = body.mass_inertia?;
            let (mass, inertia) = (f64::from(mass), f64::from(inertia));
            let kinetic = 0.5 * mass * (velocity.x * velocity.x + velocity.y * velocity.y)
                + 0.5 * inertia * velocity.angular * velocity.angular;
            let potential = -mass * (gravity[0] * pose.x + gravity[1] * pose.y);
            Some(kinetic + potential)
        })
        .sum()
}

/// Steps `config` on `case`'s chain and measures it against `reference` (the same
/// chain's exact motion).
pub fn run_chain(config: Config, case: ChainCase, reference: &ReferenceMotion) -> TrajectoryRow {
    let description = horizontal_chain(case.links);
    let mut world = config.build_moving(&description);
    follow_chain(
        world.as_mut(),
        (config.engine().name(), config.label()),
        case,
        reference,
    )
}

/// Steps `world` (holding `case`'s chain, as `horizontal_chain` describes it) and
/// measures it against `reference`; `(engine, settings)` name the row.
pub fn follow_chain(
    world: &mut dyn MovingWorld,
    (engine, settings): (&str, &str),
    case: ChainCase,
    reference: &ReferenceMotion,
) -> TrajectoryRow {
    let description = horizontal_chain(case.links);
    let mut poses = initial_poses(&description);
    let mut velocities = vec![Velocity::default(); poses.len()];
    let start = energy(&description, &poses, &velocities);
    let lost = |poses: &[Pose], velocities: &[Velocity]| {
        (start - energy(&description, poses, velocities)) / swing_energy(case.links)
    };
    let steps = (case.seconds * HZ as f64).round() as usize;
    let mut off_after_1s = f64::NAN;
    let mut energy_curve = vec![(0.0, 0.0)];
    let mut energy_lost = 0.0;
    for step in 1..=steps {
        world.step();
        world.read_poses(&mut poses);
        world.read_velocities(&mut velocities);
        energy_lost = lost(&poses, &velocities);
        if step % SAMPLE_EVERY == 0 {
            energy_curve.push((step as f64 / HZ as f64, energy_lost));
        }
        if step == HZ {
            // Body 0 is the static pin; link `i` is body `i + 1`.
            let centres: Vec<[f64; 2]> = poses[1..].iter().map(|p| [p.x, p.y]).collect();
            off_after_1s = largest_gap(&centres, &reference.centres);
        }
    }
    TrajectoryRow {
        engine: engine.to_owned(),
        settings: settings.to_owned(),
        links: case.links,
        seconds: case.seconds,
        off_after_1s,
        energy_lost,
        energy_curve,
        cited: false,
    }
}

/// Box2D's cited row for a chain of `links`.
fn box2d_row(case: ChainCase) -> Option<TrajectoryRow> {
    let &(links, off_after_1s, energy_lost) = BOX2D_CITED
        .iter()
        .find(|(links, ..)| *links == case.links)?;
    Some(TrajectoryRow {
        engine: BOX2D_CITED_ENGINE.0.to_owned(),
        settings: BOX2D_CITED_ENGINE.1.to_owned(),
        links,
        seconds: case.seconds,
        off_after_1s,
        energy_lost,
        energy_curve: Vec::new(),
        cited: true,
    })
}

/// Every setting of `engines` on every chain, with Box2D's cited rows, grouped by chain;
/// and the reference's motions.
pub fn compare(engines: &[Engine]) -> Result<(Vec<TrajectoryRow>, Vec<ReferenceMotion>), String> {
    let configs = SETTINGS
        .iter()
        .filter(|(engine, _)| engines.contains(engine))
        .map(|&(engine, label)| {
            Config::find(engine, label)
                .ok_or_else(|| format!("no {} setting labelled `{label}`", engine.name()))
        })
        .collect::<Result<Vec<Config>, String>>()?;
    let mut rows = Vec::new();
    let mut references = Vec::new();
    for case in CASES {
        let reference = reference_motion(case.links);
        for &config in &configs {
            let row = run_chain(config, case, &reference);
            eprintln!(
                "{:>2} links  {:<8} {:<14}  off after 1 s {:.2e} m  energy lost after {} s {:.3} %",
                case.links,
                row.engine,
                row.settings,
                row.off_after_1s,
                case.seconds,
                100.0 * row.energy_lost
            );
            rows.push(row);
        }
        rows.extend(box2d_row(case));
        references.push(reference);
    }
    Ok((rows, references))
}

#[cfg(test)]
mod tests {
    use super::chain_reference::{
        GRAVITY as REFERENCE_GRAVITY, LINK_INERTIA, LINK_LENGTH, LINK_MASS, rod_period,
    };
    use super::*;

    #[test]
    fn the_reference_agrees_with_itself_at_half_its_step() {
        for links in [2, 10] {
            let mut coarse = ChainReference::horizontal(links);
            let mut fine = coarse.clone();
            coarse.advance(1.0, 1.0 / 1_000.0);
            fine.advance(1.0, 0.5 / 1_000.0);
            let gap = largest_gap(&coarse.centres(), &fine.centres());
            assert!(gap < 1e-9, "{links} links: {gap:e} m");
            assert!(gap > 0.0, "the two runs took different steps");
        }
        // At the comparison's own rate it agrees far more closely than any engine comes.
        let motion = reference_motion(10);
        assert!(motion.half_step_gap < 1e-12, "{:e}", motion.half_step_gap);
        assert!(motion.energy_drift < 1e-12, "{:e}", motion.energy_drift);
    }

    #[test]
    fn the_reference_keeps_its_energy() {
        let mut chain = ChainReference::horizontal(5);
        let start = chain.energy();
        assert_eq!(start, 0.0);
        let mut lowest = 0.0f64;
        for _ in 0..20 {
            chain.advance(0.1, 1.0 / 2_000.0);
            let drift = (chain.energy() - start).abs() / swing_energy(5);
            assert!(drift < 1e-8, "{drift:e}");
            lowest = lowest.min(chain.centres()[4][1]);
        }
        // It did swing: the last link fell most of the way down.
        assert!(lowest < -3.0, "{lowest}");
    }

    #[test]
    fn one_link_of_the_reference_swings_with_the_elliptic_integral_period() {
        let period = rod_period(std::f64::consts::FRAC_PI_2);
        let mut rod = ChainReference::horizontal(1);
        rod.advance(period / 2.0, 1.0 / REFERENCE_HZ);
        // Half a period on, it lies along −x at rest.
        assert!(
            (rod.angles[0] + std::f64::consts::PI).abs() < 1e-7,
            "{:?}",
            rod.angles
        );
        rod.advance(period / 2.0, 1.0 / REFERENCE_HZ);
        assert!(
            rod.angles[0].abs() < 1e-7 && rod.rates[0].abs() < 1e-6,
            "{rod:?}"
        );
    }

    #[test]
    fn the_chains_links_are_the_references() {
        let description = horizontal_chain(3);
        assert_eq!(description.bodies.len(), 4);
        assert_eq!(description.bodies[0].mass_inertia, None);
        let (mass, inertia) = description.bodies[1].mass_inertia.unwrap();
        assert_eq!(f64::from(mass), LINK_MASS);
        assert!((f64::from(inertia) - LINK_INERTIA).abs() < 1e-8);
        assert_eq!(f64::from(-GRAVITY[1]), REFERENCE_GRAVITY);
        assert_eq!(LINK_LENGTH, 1.0);
        let centres: Vec<[f64; 2]> = initial_poses(&description)[1..]
            .iter()
            .map(|p| [p.x, p.y])
            .collect();
        assert_eq!(
            largest_gap(&centres, &ChainReference::horizontal(3).centres()),
            0.0
        );
    }

    #[test]
    fn energy_from_poses_and_velocities_is_the_references() {
        let mut chain = ChainReference::horizontal(3);
        chain.advance(0.7, 1.0 / 2_000.0);
        let description = horizontal_chain(3);
        let mut poses = initial_poses(&description);
        let mut velocities = vec![Velocity::default(); poses.len()];
        // Link i's centre moves with Σ_j a_ij L θ̇_j (−sin θ_j, cos θ_j).
        let (mut joint_velocity, centres) = ([0.0, 0.0], chain.centres());
        for (i, (&angle, &rate)) in chain.angles.iter().zip(&chain.rates).enumerate() {
            let swing = [-angle.sin() * rate, angle.cos() * rate];
            poses[i + 1] = Pose::from_angle(centres[i][0], centres[i][1], angle);
            velocities[i + 1] = Velocity {
                x: joint_velocity[0] + 0.5 * swing[0],
                y: joint_velocity[1] + 0.5 * swing[1],
                angular: rate,
            };
            joint_velocity = [joint_velocity[0] + swing[0], joint_velocity[1] + swing[1]];
        }
        let resting = vec![Velocity::default(); poses.len()];
        let potential = energy(&description, &poses, &resting);
        let kinetic = energy(&description, &poses, &velocities) - potential;
        let exact_potential: f64 = centres
            .iter()
            .map(|c| LINK_MASS * REFERENCE_GRAVITY * c[1])
            .sum();
        let exact_kinetic = chain.energy() - exact_potential;
        assert!(exact_kinetic > 5.0, "{exact_kinetic}");
        assert!((potential - exact_potential).abs() < 1e-6 * exact_kinetic);
        assert!(
            (kinetic - exact_kinetic).abs() < 1e-6 * exact_kinetic,
            "{kinetic} {exact_kinetic}"
        );
    }

    #[test]
    fn every_setting_compared_exists_and_a_pendulum_is_measured() {
        for (engine, label) in SETTINGS {
            assert!(Config::find(engine, label).is_some(), "{label}");
        }
        let case = ChainCase {
            links: 1,
            seconds: 1.0,
        };
        let reference = reference_motion(1);
        for (engine, label) in SETTINGS {
            let row = run_chain(Config::find(engine, label).unwrap(), case, &reference);
            // Free fall would leave the link 5 m below; every engine keeps it swinging
            // within a few centimetres of the exact motion.
            assert!(row.off_after_1s < 0.2, "{label}: {row:?}");
            assert_eq!(row.energy_curve.len(), 1 + HZ / SAMPLE_EVERY);
            assert!(
                row.energy_lost > -0.01 && row.energy_lost < 0.5,
                "{label}: {row:?}"
            );
        }
    }

    #[test]
    fn box2d_is_cited_on_every_chain() {
        for case in CASES {
            let row = box2d_row(case).unwrap();
            assert!(row.cited && row.energy_curve.is_empty());
            assert_eq!(row.seconds, case.seconds);
        }
    }
}
