//! The scenes the motion tests measure nape on, and the exact mechanics they are held
//! against: the reduced-coordinate chain and the elliptic-integral period of
//! [`chain_reference`] (re-exported here), plus energy, momentum and period measures of a
//! `Space`.

#![allow(dead_code)]

use nape::{
    AngleJoint, Body, BodyHandle, BodyKind, ConstraintSettings, DVec2, DistanceJoint, MotorJoint,
    PivotJoint, Space, Vec2,
};

#[path = "chain_reference.rs"]
mod chain_reference;
pub use chain_reference::*;

/// A space with gravity along −y and a chain of `links` links pinned at the origin, each
/// link at the angle `angles(i)`, all at rest; returns the links.
pub fn chain_space(links: usize, angle: impl Fn(usize) -> f64) -> (Space, Vec<BodyHandle>) {
    let mut space = Space::new();
    space.gravity = Vec2::new(0.0, -GRAVITY as f32);
    let anchor = space.add_body(Body::static_body()).unwrap();
    let reference = ChainReference::at_rest((0..links).map(&angle).collect());
    let mut bodies = Vec::with_capacity(links);
    let half = Vec2::new(LINK_LENGTH as f32 / 2.0, 0.0);
    let mut previous = (anchor, Vec2::ZERO);
    for (i, c) in reference.centres().iter().enumerate() {
        let link = space
            .add_body(
                Body::rectangle(LINK_LENGTH as f32, LINK_WIDTH as f32, 1.0)
                    .at(Vec2::new(c[0] as f32, c[1] as f32))
                    .with_angle(angle(i)),
            )
            .unwrap();
        space
            .add_constraint(PivotJoint::new(previous.0, link, previous.1, -half))
            .unwrap();
        previous = (link, half);
        bodies.push(link);
    }
    (space, bodies)
}

/// Kinetic plus potential energy of these bodies (gravity along −y of `GRAVITY`).
pub fn energy(space: &Space, bodies: &[BodyHandle]) -> f64 {
    let potential: f64 = bodies
        .iter()
        .map(|&b| {
            let body = space.body(b).unwrap();
            f64::from(body.mass()) * GRAVITY * body.position().y
        })
        .sum();
    kinetic_energy(space, bodies) + potential
}

/// Kinetic energy of these bodies.
pub fn kinetic_energy(space: &Space, bodies: &[BodyHandle]) -> f64 {
    bodies
        .iter()
        .map(|&b| {
            let body = space.body(b).unwrap();
            let (m, i) = (f64::from(body.mass()), f64::from(body.inertia()));
            let v = body.velocity().as_dvec2();
            let w = f64::from(body.angular_velocity());
            0.5 * m * v.length_squared() + 0.5 * i * w * w
        })
        .sum()
}

/// Total linear momentum and angular momentum about the origin of these bodies.
pub fn momentum(space: &Space, bodies: &[BodyHandle]) -> ([f64; 2], f64) {
    let mut linear = [0.0; 2];
    let mut angular = 0.0;
    for &b in bodies {
        let body = space.body(b).unwrap();
        let (m, i) = (f64::from(body.mass()), f64::from(body.inertia()));
        let v = body.velocity().as_dvec2();
        let x = body.position();
        linear[0] += m * v.x;
        linear[1] += m * v.y;
        angular += m * x.perp_dot(v) + i * f64::from(body.angular_velocity());
    }
    (linear, angular)
}

/// The largest distance of a link's centre from the reference's, the reference's pin at
/// `pin`.
pub fn distance_from(
    space: &Space,
    bodies: &[BodyHandle],
    reference: &ChainReference,
    pin: DVec2,
) -> f64 {
    bodies
        .iter()
        .zip(reference.centres())
        .map(|(&b, c)| {
            let p = space.body(b).unwrap().position() - pin;
            ((p.x - c[0]).powi(2) + (p.y - c[1]).powi(2)).sqrt()
        })
        .fold(0.0, f64::max)
}

/// Where the space's first static body is: the pin of [`chain_space`]'s chains, which the
/// configuring closures may move away from the origin.
pub fn anchor(space: &Space) -> DVec2 {
    space
        .bodies()
        .find(|(_, b)| b.kind() == BodyKind::Static)
        .map(|(_, b)| b.position())
        .expect("a static anchor")
}

/// Times at which `signal` crosses zero upwards, linearly interpolated between samples
/// `dt` apart.
pub fn upward_crossings(signal: &[f64], dt: f64) -> Vec<f64> {
    signal
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] < 0.0 && w[1] >= 0.0)
        .map(|(k, w)| (k as f64 + w[0] / (w[0] - w[1])) * dt)
        .collect()
}

/// The mean period of a signal from its first to its last upward crossing.
pub fn mean_period(signal: &[f64], dt: f64) -> Option<f64> {
    let crossings = upward_crossings(signal, dt);
    (crossings.len() >= 2)
        .then(|| (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64)
}

/// Steps per second of every measured scene.
pub const HZ: f64 = 60.0;

/// What a swinging rod did: its energy's largest departure from the start (a share of
/// `m g L / 2`) and its mean period.
#[derive(Clone, Copy, Debug)]
pub struct RodRun {
    /// Largest `|E(t) − E(0)|` over the run, relative to the swing's energy.
    pub energy_drift: f64,
    /// `E(end) − E(0)`, relative to the swing's energy.
    pub energy_change: f64,
    /// Mean period over the run (s).
    pub period: f64,
}

/// A rod pinned at one end released at rest `amplitude` rad from hanging, stepped for
/// `seconds` at [`HZ`] after `configure` set up the space.
pub fn swing_rod(amplitude: f64, seconds: f64, configure: impl Fn(&mut Space)) -> RodRun {
    let angle = amplitude - std::f64::consts::FRAC_PI_2;
    let (mut space, bodies) = chain_space(1, |_| angle);
    configure(&mut space);
    let pin = anchor(&space);
    let start = energy(&space, &bodies);
    let steps = (seconds * HZ).round() as usize;
    let mut swing = Vec::with_capacity(steps);
    let (mut drift, mut change) = (0.0f64, 0.0);
    for _ in 0..steps {
        space.step((1.0 / HZ) as f32);
        change = energy(&space, &bodies) - start;
        drift = drift.max(change.abs());
        // The rod's angle from hanging: crosses zero upwards once per period.
        let body = space.body(bodies[0]).unwrap();
        swing.push(body.position().x - pin.x);
    }
    RodRun {
        energy_drift: drift / swing_energy(1),
        energy_change: change / swing_energy(1),
        period: mean_period(&swing, 1.0 / HZ).unwrap_or(f64::NAN),
    }
}

/// What a chain released horizontal did against the reference.
#[derive(Clone, Copy, Debug)]
pub struct ChainRun {
    /// Largest distance of a link's centre from the reference's after 1 s (m).
    pub off_after_1s: f64,
    /// Energy lost at the end, a share of the swing's energy.
    pub energy_lost: f64,
}

/// A chain of `links` released horizontal and stepped for `seconds`, against the
/// reference integrated at `reference_hz`.
pub fn drop_chain(
    links: usize,
    seconds: f64,
    reference_hz: f64,
    configure: impl Fn(&mut Space),
) -> ChainRun {
    let (mut space, bodies) = chain_space(links, |_| 0.0);
    configure(&mut space);
    let mut reference = ChainReference::horizontal(links);
    let start = energy(&space, &bodies);
    let steps = (seconds * HZ).round() as usize;
    let mut off = f64::NAN;
    for k in 1..=steps {
        space.step((1.0 / HZ) as f32);
        if k == HZ as usize {
            reference.advance(1.0, 1.0 / reference_hz);
            off = distance_from(&space, &bodies, &reference, anchor(&space));
        }
    }
    ChainRun {
        off_after_1s: off,
        energy_lost: (start - energy(&space, &bodies)) / swing_energy(links),
    }
}

/// What a free pair did with no external force: momenta and kinetic energy at the end
/// against the start.
#[derive(Clone, Copy, Debug)]
pub struct FreeRun {
    /// `|p(end) − p(0)| / |p|ₛ`, `|p|ₛ` the larger of `|p(0)|` and `Σ m |v|` at the start.
    pub linear_change: f64,
    /// `(L(end) − L(0)) / |L(0)|`.
    pub angular_change: f64,
    /// `(T(end) − T(0)) / T(0)`.
    pub kinetic_change: f64,
}

/// Steps `bodies` of `space` (gravity off) for `seconds` and compares momenta and
/// kinetic energy (potential is zero without gravity).
pub fn run_free(space: &mut Space, bodies: &[BodyHandle], seconds: f64) -> FreeRun {
    space.gravity = Vec2::ZERO;
    let scale: f64 = bodies
        .iter()
        .map(|&b| {
            let body = space.body(b).unwrap();
            f64::from(body.mass()) * f64::from(body.velocity().length())
        })
        .sum();
    let (p0, l0) = momentum(space, bodies);
    let t0 = kinetic_energy(space, bodies);
    for _ in 0..(seconds * HZ).round() as usize {
        space.step((1.0 / HZ) as f32);
    }
    let (p1, l1) = momentum(space, bodies);
    let t1 = kinetic_energy(space, bodies);
    let dp = ((p1[0] - p0[0]).powi(2) + (p1[1] - p0[1]).powi(2)).sqrt();
    FreeRun {
        linear_change: dp / scale.max(p0[0].hypot(p0[1])),
        angular_change: (l1 - l0) / l0.abs(),
        kinetic_change: (t1 - t0) / t0,
    }
}

/// A link and a link twice as long pinned end to end at the origin, the pin moving at
/// `(0.3, 0.2)` m/s, the links turning at 4 and −1.5 rad/s: velocities that meet the joint.
pub fn spinning_pair() -> (Space, Vec<BodyHandle>) {
    let mut space = Space::new();
    let pin_velocity = Vec2::new(0.3, 0.2);
    let mut bodies = Vec::new();
    for (length, side, rate) in [(1.0f32, -1.0f32, 4.0f32), (2.0, 1.0, -1.5)] {
        let centre = Vec2::new(side * length / 2.0, 0.0);
        let body = Body::rectangle(length, LINK_WIDTH as f32, 1.0)
            .at(centre)
            .with_velocity(pin_velocity + rate * centre.perp())
            .with_angular_velocity(rate);
        bodies.push(space.add_body(body).unwrap());
    }
    space
        .add_constraint(PivotJoint::new(
            bodies[0],
            bodies[1],
            Vec2::new(0.5, 0.0),
            Vec2::new(-1.0, 0.0),
        ))
        .unwrap();
    (space, bodies)
}

/// A free loop of four 2 m rods pinned end to end into a square (a mesh, which the sweeps
/// solve), spinning at 1.5 rad/s about its centre and drifting, its pins of `settings`.
pub fn spinning_loop(settings: ConstraintSettings) -> (Space, Vec<BodyHandle>) {
    let mut space = Space::new();
    let corners = [
        Vec2::new(0.0, 0.0),
        Vec2::new(2.0, 0.0),
        Vec2::new(2.0, 2.0),
        Vec2::new(0.0, 2.0),
    ];
    let rate = 1.5;
    let mut bodies = Vec::new();
    for i in 0..4 {
        let (a, b) = (corners[i], corners[(i + 1) % 4]);
        let centre = (a + b) * 0.5;
        let side = b - a;
        let rod = Body::rectangle(2.0, 0.2, 1.0)
            .at(centre)
            .with_angle(f64::from(side.y.atan2(side.x)))
            .with_velocity(Vec2::new(0.3, -0.2) + rate * (centre - Vec2::ONE).perp())
            .with_angular_velocity(rate);
        bodies.push(space.add_body(rod).unwrap());
    }
    for i in 0..4 {
        let pin = PivotJoint::new(bodies[i], bodies[(i + 1) % 4], Vec2::X, -Vec2::X);
        space.add_constraint_with(pin, settings).unwrap();
    }
    (space, bodies)
}

/// [`spinning_loop`]'s pins: stiff, and soft at 5 Hz undamped, at 5 Hz with ζ = 0.5 and
/// at 2 Hz with ζ = 1.
pub fn loop_pin_variants() -> [(&'static str, ConstraintSettings); 4] {
    [
        ("stiff", ConstraintSettings::default()),
        ("soft 5 Hz", ConstraintSettings::soft(5.0, 0.0)),
        ("soft 5 Hz, ζ = 0.5", ConstraintSettings::soft(5.0, 0.5)),
        ("soft 2 Hz, ζ = 1", ConstraintSettings::soft(2.0, 1.0)),
    ]
}

/// [`spinning_loop`] with stiff pins, rocking as it spins (its upright rods turning 1 rad/s
/// faster than the square, which the first step shares out by the pins' impulses), with
/// a limit on the angle between its first two rods (`π/2 ± 0.15`, which the rocking
/// strikes, stiff and soft) or on the distance between its first and third rods' centres
/// (1.5–1.9 m, their 2 m pulled in): a mesh with a limit, swept at the defaults.
pub fn loop_limit_variants() -> [(&'static str, PairJoint); 3] {
    const SQUARE: f32 = std::f32::consts::FRAC_PI_2;
    fn rocking_angle_limit(space: &mut Space, b: &[BodyHandle], settings: ConstraintSettings) {
        for &rod in [b[1], b[3]].iter() {
            let mut body = space.body_mut(rod).unwrap();
            let spin = body.angular_velocity();
            body.set_angular_velocity(spin + 1.0).unwrap();
        }
        let limit = AngleJoint::new(b[0], b[1], SQUARE - 0.15, SQUARE + 0.15);
        space.add_constraint_with(limit, settings).unwrap();
    }
    [
        ("stiff angle limit π/2 ± 0.15", |space, b| {
            rocking_angle_limit(space, b, ConstraintSettings::default())
        }),
        (
            "soft angle limit π/2 ± 0.15, 3 Hz, ζ = 0.7",
            |space, b| rocking_angle_limit(space, b, ConstraintSettings::soft(3.0, 0.7)),
        ),
        (
            "soft distance limit 1.5–1.9 m, 2 Hz, ζ = 0.2",
            |space, b| {
                let distance = DistanceJoint::new(b[0], b[2], Vec2::ZERO, Vec2::ZERO, 1.5, 1.9);
                let soft = ConstraintSettings::soft(2.0, 0.2);
                space.add_constraint_with(distance, soft).unwrap();
            },
        ),
    ]
}

/// A joint added to [`spinning_pair`]'s bodies.
pub type PairJoint = fn(&mut Space, &[BodyHandle]);

/// [`spinning_pair`] with its pivot soft (2 Hz and 10 Hz undamped; 5 Hz at ζ = 0.5, 2 and
/// 10 Hz at ζ = 1), with a soft distance limit and a soft angle limit beside it, with an angle limit it strikes,
/// and with a motor between the links (its torque unbounded, and bounded): no external
/// force or torque in any.
pub fn pair_variants() -> [(&'static str, PairJoint); 10] {
    fn soft_pivot(space: &mut Space, b: &[BodyHandle], hertz: f32, zeta: f32) {
        let pin = space.constraints().next().unwrap().id;
        space.remove_constraint_id(pin).unwrap();
        let pivot = PivotJoint::new(b[0], b[1], Vec2::new(0.5, 0.0), Vec2::new(-1.0, 0.0));
        let soft = ConstraintSettings::soft(hertz, zeta);
        space.add_constraint_with(pivot, soft).unwrap();
    }
    [
        ("soft pivot 2 Hz", |space, b| soft_pivot(space, b, 2.0, 0.0)),
        ("soft pivot 10 Hz", |space, b| {
            soft_pivot(space, b, 10.0, 0.0)
        }),
        // A damper on a spring the spin stretches sees the spin itself unless it is taken
        // off (`RigidSpin` in nape-core): these lost 1.1 %, 6.4 % and 0.06 %.
        ("soft pivot 5 Hz, ζ = 0.5", |space, b| {
            soft_pivot(space, b, 5.0, 0.5)
        }),
        ("soft pivot 2 Hz, ζ = 1", |space, b| {
            soft_pivot(space, b, 2.0, 1.0)
        }),
        ("soft pivot 10 Hz, ζ = 1", |space, b| {
            soft_pivot(space, b, 10.0, 1.0)
        }),
        // Soft limits: springs that push only past their bounds.
        ("soft distance 0.5–0.9 m, 2 Hz, ζ = 0.2", |space, b| {
            let distance = DistanceJoint::new(b[0], b[1], Vec2::ZERO, Vec2::ZERO, 0.5, 0.9);
            let soft = ConstraintSettings::soft(2.0, 0.2);
            space.add_constraint_with(distance, soft).unwrap();
        }),
        ("soft angle limit ±0.5, 3 Hz, ζ = 0.7", |space, b| {
            let angle = AngleJoint::new(b[0], b[1], -0.5, 0.5);
            let soft = ConstraintSettings::soft(3.0, 0.7);
            space.add_constraint_with(angle, soft).unwrap();
        }),
        ("angle limit ±0.5", |space, b| {
            space
                .add_constraint(AngleJoint::new(b[0], b[1], -0.5, 0.5))
                .unwrap();
        }),
        ("motor at 1 rad/s", |space, b| {
            space
                .add_constraint(MotorJoint::new(b[0], b[1], 1.0))
                .unwrap();
        }),
        ("motor at 1 rad/s, at most 0.5 N·m", |space, b| {
            let torque = ConstraintSettings {
                max_force: 0.5,
                ..ConstraintSettings::default()
            };
            let motor = MotorJoint::new(b[0], b[1], 1.0);
            space.add_constraint_with(motor, torque).unwrap();
        }),
    ]
}

/// A stone (a circle of radius 0.1, density 1) whirled at 3 m/s on a rigid 1 m
/// `DistanceJoint` about a static pin, no gravity, for `seconds` after `configure` set up
/// the space with both: its speed's relative change.
pub fn whirl_stone(seconds: f64, configure: impl Fn(&mut Space)) -> f64 {
    let mut space = Space::new();
    let pin = space.add_body(Body::static_body()).unwrap();
    let stone = space
        .add_body(
            Body::circle(0.1, 1.0)
                .at(Vec2::new(1.0, 0.0))
                .with_velocity(Vec2::new(0.0, 3.0)),
        )
        .unwrap();
    space
        .add_constraint(nape::DistanceJoint::new(
            pin,
            stone,
            Vec2::ZERO,
            Vec2::ZERO,
            1.0,
            1.0,
        ))
        .unwrap();
    configure(&mut space);
    for _ in 0..(seconds * HZ).round() as usize {
        space.step((1.0 / HZ) as f32);
    }
    f64::from(space.body(stone).unwrap().velocity().length()) / 3.0 - 1.0
}

/// What a body hung on a soft pivot did.
#[derive(Clone, Debug)]
pub struct SpringRun {
    /// Mean period of the sideways oscillation (s).
    pub period: f64,
    /// Largest `|E(t) − E(0)|` over the run relative to `E(0)`, the energy counted from
    /// the hanging rest (kinetic, gravity's and the spring's `½ m ω² |C|²`).
    pub energy_drift: f64,
    /// The sideways offset at each step.
    pub offsets: Vec<f64>,
}

/// A circle (radius 0.2, density 1) hung by its centre on a soft `PivotJoint` of
/// `hertz` and damping ratio `damping` from a static pin, at rest where the spring holds
/// it, then pulled 0.1 m aside and released; stepped for `seconds`.
pub fn bounce_on_spring(hertz: f64, damping: f64, seconds: f64) -> SpringRun {
    bounce_on_spring_in(hertz, damping, seconds, |_| {})
}

/// [`bounce_on_spring`] in a space `configure` sets up first (`direct_solve` off: the
/// spring swept, as in a mesh).
pub fn bounce_on_spring_in(
    hertz: f64,
    damping: f64,
    seconds: f64,
    configure: impl Fn(&mut Space),
) -> SpringRun {
    let mut space = Space::new();
    configure(&mut space);
    space.gravity = Vec2::new(0.0, -GRAVITY as f32);
    let omega = std::f64::consts::TAU * hertz;
    let sag = GRAVITY / (omega * omega);
    let pin = space.add_body(Body::static_body()).unwrap();
    let body = space
        .add_body(Body::circle(0.2, 1.0).at(Vec2::new(0.1, -sag as f32)))
        .unwrap();
    space
        .add_constraint_with(
            PivotJoint::new(pin, body, Vec2::ZERO, Vec2::ZERO),
            nape::ConstraintSettings::soft(hertz as f32, damping as f32),
        )
        .unwrap();
    let m = f64::from(space.body(body).unwrap().mass());
    let energy = |space: &Space| {
        let b = space.body(body).unwrap();
        let (x, v) = (b.position(), b.velocity().as_dvec2());
        0.5 * m * v.length_squared()
            + m * GRAVITY * (x.y + sag)
            + 0.5 * m * omega * omega * (x.length_squared() - sag * sag)
    };
    let start = energy(&space);
    let mut drift = 0.0f64;
    let mut offsets = Vec::new();
    for _ in 0..(seconds * HZ).round() as usize {
        space.step((1.0 / HZ) as f32);
        drift = drift.max((energy(&space) - start).abs());
        offsets.push(space.body(body).unwrap().position().x);
    }
    SpringRun {
        period: mean_period(&offsets, 1.0 / HZ).unwrap_or(f64::NAN),
        energy_drift: drift / start,
        offsets,
    }
}

/// An undamped soft limit on [`spinning_pair`]'s bodies (an elastic bumper), and the
/// energy its spring holds at the bodies' poses: `½ ω² C² / K` past its bound (Nape's
/// springs are relative to the constraint's effective mass `K`, here constant).
#[derive(Clone, Copy)]
pub struct SoftLimit {
    pub name: &'static str,
    pub add: PairJoint,
    pub potential: fn(&Space, &[BodyHandle]) -> f64,
}

/// A soft angle limit ±0.5 at 3 Hz and a soft distance limit between the centres
/// (0.5–0.9 m, their 1.5 m pulled in) at 2 Hz, both with ζ = 0.
pub fn undamped_soft_limits() -> [SoftLimit; 2] {
    fn past(value: f64, min: f64, max: f64) -> f64 {
        (value - max).max(min - value).max(0.0)
    }
    fn spring(space: &Space, b: &[BodyHandle], hertz: f64, error: f64, angular: bool) -> f64 {
        let k: f64 = b
            .iter()
            .map(|&h| {
                let body = space.body(h).unwrap();
                1.0 / f64::from(if angular { body.inertia() } else { body.mass() })
            })
            .sum();
        let omega = std::f64::consts::TAU * hertz;
        0.5 * omega * omega * error * error / k
    }
    [
        SoftLimit {
            name: "soft angle limit ±0.5, 3 Hz, ζ = 0",
            add: |space, b| {
                let angle = AngleJoint::new(b[0], b[1], -0.5, 0.5);
                let soft = ConstraintSettings::soft(3.0, 0.0);
                space.add_constraint_with(angle, soft).unwrap();
            },
            potential: |space, b| {
                let angle = |h: BodyHandle| space.body(h).unwrap().angle();
                spring(
                    space,
                    b,
                    3.0,
                    past(angle(b[1]) - angle(b[0]), -0.5, 0.5),
                    true,
                )
            },
        },
        SoftLimit {
            name: "soft distance limit 0.5–0.9 m, 2 Hz, ζ = 0",
            add: |space, b| {
                let distance = DistanceJoint::new(b[0], b[1], Vec2::ZERO, Vec2::ZERO, 0.5, 0.9);
                let soft = ConstraintSettings::soft(2.0, 0.0);
                space.add_constraint_with(distance, soft).unwrap();
            },
            potential: |space, b| {
                let at = |h: BodyHandle| space.body(h).unwrap().position();
                spring(
                    space,
                    b,
                    2.0,
                    past(at(b[0]).distance(at(b[1])), 0.5, 0.9),
                    false,
                )
            },
        },
    ]
}

/// [`spinning_pair`] against `limit`, pinned or its bodies free but for the limit, in a
/// space `configure` sets up first.
pub fn bumped_pair(
    limit: &SoftLimit,
    pinned: bool,
    configure: impl Fn(&mut Space),
) -> (Space, Vec<BodyHandle>) {
    let (mut space, bodies) = spinning_pair();
    configure(&mut space);
    if !pinned {
        let pin = space.constraints().next().unwrap().id;
        space.remove_constraint_id(pin).unwrap();
    }
    (limit.add)(&mut space, &bodies);
    (space, bodies)
}

/// Steps `bodies` of `space` (gravity off) for `seconds`: the largest departure of their
/// kinetic energy plus `potential` from its start, relative to it.
pub fn energy_drift_free(
    space: &mut Space,
    bodies: &[BodyHandle],
    seconds: f64,
    potential: fn(&Space, &[BodyHandle]) -> f64,
) -> f64 {
    space.gravity = Vec2::ZERO;
    let energy = |space: &Space| kinetic_energy(space, bodies) + potential(space, bodies);
    let start = energy(space);
    let mut drift = 0.0f64;
    for _ in 0..(seconds * HZ).round() as usize {
        space.step((1.0 / HZ) as f32);
        drift = drift.max((energy(space) - start).abs());
    }
    drift / start
}
