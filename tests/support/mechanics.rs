//! Exact mechanics the motion tests hold nape against: the reduced-coordinate chain
//! (Lagrange's equations in the links' angles, RK4 in `f64`, where no joint can open), the
//! physical pendulum's elliptic-integral period, and the scenes both are measured on.
//!
//! Every link is the reference scenes' box: 1 m × 0.25 m, density 1 (mass 0.25,
//! inertia `m (1 + 0.25²) / 12`), pinned end to end, the first to a static body at the
//! origin, released from rest lying along +x.

#![allow(dead_code)]

use nape::{Body, BodyHandle, PivotJoint, Space, Vec2};

/// Link length (m).
pub const LINK_LENGTH: f64 = 1.0;
/// Link thickness (m).
pub const LINK_WIDTH: f64 = 0.25;
/// Link mass (kg): density 1.
pub const LINK_MASS: f64 = LINK_LENGTH * LINK_WIDTH;
/// Link inertia about its centre (kg m²).
pub const LINK_INERTIA: f64 =
    LINK_MASS * (LINK_LENGTH * LINK_LENGTH + LINK_WIDTH * LINK_WIDTH) / 12.0;
/// Gravity's magnitude (m/s²), pointing along −y.
pub const GRAVITY: f64 = 10.0;

/// A chain of links in reduced coordinates: angle `θᵢ` of link `i` from +x, the first
/// link pinned at the origin, the links end to end.
#[derive(Clone, Debug)]
pub struct ChainReference {
    /// Each link's angle (rad).
    pub angles: Vec<f64>,
    /// Each link's angular velocity (rad/s).
    pub rates: Vec<f64>,
    /// `b_jk = Σᵢ a_ij a_ik`, `a_ij = 1` for `j < i`, ½ for `j = i`, 0 beyond.
    coupling: Vec<f64>,
    /// `Σᵢ a_ij`: how many half links below each link's angle carries.
    weight: Vec<f64>,
}

/// `a_ij` of the chain's kinematics: how link `j`'s direction moves link `i`'s centre.
fn lever(i: usize, j: usize) -> f64 {
    match j.cmp(&i) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    }
}

impl ChainReference {
    /// `links` links at rest along +x.
    pub fn horizontal(links: usize) -> Self {
        Self::at_rest(vec![0.0; links])
    }

    /// Links at rest at these angles.
    pub fn at_rest(angles: Vec<f64>) -> Self {
        let n = angles.len();
        let mut coupling = vec![0.0; n * n];
        for j in 0..n {
            for k in 0..n {
                coupling[j * n + k] = (0..n).map(|i| lever(i, j) * lever(i, k)).sum();
            }
        }
        let weight = (0..n).map(|j| (0..n).map(|i| lever(i, j)).sum()).collect();
        Self {
            rates: vec![0.0; n],
            angles,
            coupling,
            weight,
        }
    }

    fn len(&self) -> usize {
        self.angles.len()
    }

    /// `θ̈` at these angles and rates: the mass matrix solved by Cholesky.
    fn accelerations(&self, angles: &[f64], rates: &[f64]) -> Vec<f64> {
        let n = self.len();
        let ml2 = LINK_MASS * LINK_LENGTH * LINK_LENGTH;
        let mut matrix = vec![0.0; n * n];
        let mut rhs = vec![0.0; n];
        for j in 0..n {
            for k in 0..n {
                let b = self.coupling[j * n + k];
                let d = angles[j] - angles[k];
                matrix[j * n + k] = ml2 * b * d.cos() + if j == k { LINK_INERTIA } else { 0.0 };
                rhs[j] -= ml2 * b * d.sin() * rates[k] * rates[k];
            }
            rhs[j] -= LINK_MASS * GRAVITY * LINK_LENGTH * angles[j].cos() * self.weight[j];
        }
        cholesky_solve(&mut matrix, &mut rhs, n);
        rhs
    }

    /// One classical RK4 step of `h`.
    pub fn step(&mut self, h: f64) {
        let n = self.len();
        let shifted = |base: &[f64], slope: &[f64], by: f64| -> Vec<f64> {
            (0..n).map(|i| base[i] + by * slope[i]).collect()
        };
        let (q, w) = (self.angles.clone(), self.rates.clone());
        let k1q = w.clone();
        let k1w = self.accelerations(&q, &w);
        let (q2, w2) = (shifted(&q, &k1q, h / 2.0), shifted(&w, &k1w, h / 2.0));
        let k2q = w2.clone();
        let k2w = self.accelerations(&q2, &w2);
        let (q3, w3) = (shifted(&q, &k2q, h / 2.0), shifted(&w, &k2w, h / 2.0));
        let k3q = w3.clone();
        let k3w = self.accelerations(&q3, &w3);
        let (q4, w4) = (shifted(&q, &k3q, h), shifted(&w, &k3w, h));
        let k4w = self.accelerations(&q4, &w4);
        let k4q = w4;
        for i in 0..n {
            self.angles[i] += h / 6.0 * (k1q[i] + 2.0 * k2q[i] + 2.0 * k3q[i] + k4q[i]);
            self.rates[i] += h / 6.0 * (k1w[i] + 2.0 * k2w[i] + 2.0 * k3w[i] + k4w[i]);
        }
    }

    /// Advances by `duration` in steps of at most `h`.
    pub fn advance(&mut self, duration: f64, h: f64) {
        let steps = (duration / h).round().max(1.0) as usize;
        let h = duration / steps as f64;
        for _ in 0..steps {
            self.step(h);
        }
    }

    /// Each link's centre.
    pub fn centres(&self) -> Vec<[f64; 2]> {
        let mut joint = [0.0, 0.0];
        self.angles
            .iter()
            .map(|&a| {
                let u = [LINK_LENGTH * a.cos(), LINK_LENGTH * a.sin()];
                let centre = [joint[0] + 0.5 * u[0], joint[1] + 0.5 * u[1]];
                joint = [joint[0] + u[0], joint[1] + u[1]];
                centre
            })
            .collect()
    }

    /// Kinetic plus potential energy (zero height at the pin).
    pub fn energy(&self) -> f64 {
        let n = self.len();
        let ml2 = LINK_MASS * LINK_LENGTH * LINK_LENGTH;
        let mut kinetic = 0.0;
        for j in 0..n {
            for k in 0..n {
                let b = self.coupling[j * n + k];
                let m = ml2 * b * (self.angles[j] - self.angles[k]).cos()
                    + if j == k { LINK_INERTIA } else { 0.0 };
                kinetic += 0.5 * m * self.rates[j] * self.rates[k];
            }
        }
        let potential: f64 = self
            .centres()
            .iter()
            .map(|c| LINK_MASS * GRAVITY * c[1])
            .sum();
        kinetic + potential
    }
}

/// Solves the symmetric positive definite `matrix · x = rhs` in place (`rhs` becomes `x`).
fn cholesky_solve(matrix: &mut [f64], rhs: &mut [f64], n: usize) {
    for j in 0..n {
        let mut d = matrix[j * n + j];
        for k in 0..j {
            d -= matrix[j * n + k] * matrix[j * n + k];
        }
        let d = d.sqrt();
        matrix[j * n + j] = d;
        for i in j + 1..n {
            let mut s = matrix[i * n + j];
            for k in 0..j {
                s -= matrix[i * n + k] * matrix[j * n + k];
            }
            matrix[i * n + j] = s / d;
        }
    }
    for i in 0..n {
        let mut s = rhs[i];
        for k in 0..i {
            s -= matrix[i * n + k] * rhs[k];
        }
        rhs[i] = s / matrix[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = rhs[i];
        for k in i + 1..n {
            s -= matrix[k * n + i] * rhs[k];
        }
        rhs[i] = s / matrix[i * n + i];
    }
}

/// The swing's energy of `links` links released horizontal: the drop of their centres from
/// there to hanging, `m g L N² / 2`.
pub fn swing_energy(links: usize) -> f64 {
    LINK_MASS * GRAVITY * LINK_LENGTH * (links * links) as f64 / 2.0
}

/// The complete elliptic integral of the first kind `K(k)`, by the arithmetic–geometric
/// mean.
pub fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    for _ in 0..64 {
        let (x, y) = ((a + b) / 2.0, (a * b).sqrt());
        a = x;
        b = y;
        if (a - b).abs() <= 1e-16 * a {
            break;
        }
    }
    std::f64::consts::PI / (2.0 * a)
}

/// The period of a link pinned at one end, released at rest `amplitude` rad from hanging.
pub fn rod_period(amplitude: f64) -> f64 {
    let d = LINK_LENGTH / 2.0;
    let pivot_inertia = LINK_INERTIA + LINK_MASS * d * d;
    4.0 * (pivot_inertia / (LINK_MASS * GRAVITY * d)).sqrt() * elliptic_k((amplitude / 2.0).sin())
}

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
                    .with_angle(angle(i) as f32),
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
            f64::from(body.mass()) * GRAVITY * f64::from(body.position().y)
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
        let x = body.position().as_dvec2();
        linear[0] += m * v.x;
        linear[1] += m * v.y;
        angular += m * x.perp_dot(v) + i * f64::from(body.angular_velocity());
    }
    (linear, angular)
}

/// The largest distance of a link's centre from the reference's.
pub fn distance_from(space: &Space, bodies: &[BodyHandle], reference: &ChainReference) -> f64 {
    bodies
        .iter()
        .zip(reference.centres())
        .map(|(&b, c)| {
            let p = space.body(b).unwrap().position().as_dvec2();
            ((p.x - c[0]).powi(2) + (p.y - c[1]).powi(2)).sqrt()
        })
        .fold(0.0, f64::max)
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
        swing.push(f64::from(body.position().x));
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
            off = distance_from(&space, &bodies, &reference);
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

/// A stone (a circle of radius 0.1, density 1) whirled at 3 m/s on a rigid 1 m
/// `DistanceJoint` about a static pin, no gravity, for `seconds`: its speed's relative
/// change.
pub fn whirl_stone(seconds: f64, configure: impl Fn(&mut Space)) -> f64 {
    let mut space = Space::new();
    configure(&mut space);
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
    let mut space = Space::new();
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
        let (x, v) = (b.position().as_dvec2(), b.velocity().as_dvec2());
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
        offsets.push(f64::from(space.body(body).unwrap().position().x));
    }
    SpringRun {
        period: mean_period(&offsets, 1.0 / HZ).unwrap_or(f64::NAN),
        energy_drift: drift / start,
        offsets,
    }
}
