//! Issue 42's closed-loop mechanisms: four-bar linkages (on the ground, on a welded frame,
//! spun, motor-driven and against a limit), closed rings of rods (4 to 1,000 pins), Box2D
//! v3's scissor lift and a Peaucellier–Lipkin straight-line linkage, each with the figures
//! the issue holds it to. Shared by `examples/loops.rs` and `tests/loops.rs`
//! (`#[path]`-included, so no copy exists).
//!
//! Every mechanism is assembled exactly in `f64` — its loops closed by solving their
//! geometry (circle intersections), its velocities differentiated from that solution —
//! so each starts with its pins closed to rounding and moving as its joints allow: what
//! a run then opens is the solver's. Rods are thin: 1 kg per metre, inertia `m L²/12`
//! about the centre, unless a scene says otherwise. Every scene steps at 60 Hz with the
//! `Space`'s defaults.
#![allow(dead_code)]

use std::f64::consts::{FRAC_PI_3, FRAC_PI_6, PI, TAU};
use std::time::Instant;

use nape::{
    AngleJoint, Body, BodyHandle, ConstraintSettings, DVec2, DistanceJoint, LineJoint, MotorJoint,
    PivotJoint, Space, Vec2, WeldJoint,
};

/// The step every scene takes, s (60 Hz).
pub const DT: f32 = 1.0 / 60.0;

/// Gravity of the scenes that have it, m/s².
pub const GRAVITY: Vec2 = Vec2::new(0.0, -10.0);

fn local(x: f64, y: f64) -> Vec2 {
    Vec2::new(x as f32, y as f32)
}

/// The intersection of the circles of radius `ra` about `a` and `rb` about `b`, on the left
/// of the direction from `a` to `b` (`left`) or on its right; `None` where they miss.
pub fn circles(a: DVec2, ra: f64, b: DVec2, rb: f64, left: bool) -> Option<DVec2> {
    let d = b - a;
    let distance = d.length();
    let along = (ra * ra - rb * rb + distance * distance) / (2.0 * distance);
    let across = (ra * ra - along * along).sqrt();
    if !across.is_finite() {
        return None;
    }
    let u = d / distance;
    let side = if left { across } else { -across };
    Some(a + along * u + side * u.perp())
}

/// A body's pose in `f64`: its centre and angle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    /// Centre, m.
    pub centre: DVec2,
    /// Angle, rad.
    pub angle: f64,
}

/// The rod from `from` to `to`: its centre, and the angle of `to − from`, so its local
/// `(−L/2, 0)` is `from` and `(L/2, 0)` is `to`.
pub fn rod_between(from: DVec2, to: DVec2) -> Placed {
    let d = to - from;
    Placed {
        centre: (from + to) * 0.5,
        angle: d.y.atan2(d.x),
    }
}

/// A thin rod of `length` m at 1 kg/m: mass `L`, inertia `m L²/12` about its centre.
pub fn rod_mass(length: f64) -> (f64, f64) {
    (length, length * length * length / 12.0)
}

/// A body's velocity: linear (m/s) and angular (rad/s).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    /// Linear velocity of the centre, m/s.
    pub linear: DVec2,
    /// Angular velocity, rad/s.
    pub angular: f64,
}

/// The velocities of bodies whose poses are `poses(t)`, at `t = 0`: central differences
/// over ±1e-6 s, exact to about 1e-10 for these smooth assemblies (a linkage's velocity
/// closure without writing it out per mechanism).
pub fn velocities_of(poses: impl Fn(f64) -> Vec<Placed>) -> Vec<Motion> {
    let h = 1e-6;
    let (before, after) = (poses(-h), poses(h));
    before
        .iter()
        .zip(&after)
        .map(|(b, a)| {
            let turn = a.angle - b.angle;
            let turn = turn - TAU * (turn / TAU).round();
            Motion {
                linear: (a.centre - b.centre) / (2.0 * h),
                angular: turn / (2.0 * h),
            }
        })
        .collect()
}

/// `angle` wrapped into `(−π, π]`.
pub fn wrap(angle: f64) -> f64 {
    angle - TAU * (angle / TAU).round()
}

// ----- the mechanism and its measures --------------------------------------------------

/// A pin: `anchor1` of `body1` on `anchor2` of `body2` (body-local, m).
#[derive(Clone, Copy, Debug)]
pub struct Pin {
    /// The first body.
    pub body1: BodyHandle,
    /// The second body.
    pub body2: BodyHandle,
    /// Where on the first, local.
    pub anchor1: Vec2,
    /// Where on the second, local.
    pub anchor2: Vec2,
}

/// A joint other than a pin, kept for its error.
#[derive(Clone, Copy, Debug)]
enum Held {
    /// A weld: its anchors' separation plus its angle error (rad, taken at 1 m).
    Weld(Pin, f64),
    /// A slider: the second anchor's offset across the line through the first along
    /// `direction` (local to the first body).
    Slider(Pin, Vec2),
    /// A rigid distance: how far the anchors' distance is from `length`.
    Rod(Pin, f64),
}

/// What the run keeps as its energy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EnergyMeasure {
    /// None: something works on the mechanism (a motor) or it only has to hold still.
    None,
    /// Kinetic plus potential, as a share of `scale` (J): what the mechanism can swing.
    Total {
        /// The energy the change is a share of, J.
        scale: f64,
    },
    /// Kinetic alone (no gravity), as a share of its start.
    Kinetic,
}

/// A figure a scene follows besides its joints and its energy.
#[derive(Clone, Copy, Debug)]
pub enum Watch {
    /// A four-bar's rocker against Freudenstein's closed form for its crank's angle, both
    /// relative to the frame body.
    FourBar {
        /// The frame (the ground, or the welded frame rod).
        frame: BodyHandle,
        /// The crank, pinned to the frame at its local `(0, 0)`-side end.
        crank: BodyHandle,
        /// The rocker.
        rocker: BodyHandle,
        /// The linkage's lengths.
        linkage: FourBar,
        /// The sign of Freudenstein's root the assembly is on.
        branch: f64,
    },
    /// A body that should not move: its centre's displacement from `start`.
    Still {
        /// The body.
        body: BodyHandle,
        /// Its centre at the start, m.
        start: DVec2,
    },
    /// A tracer point that should stay on the vertical line `x = line`: the midpoint of
    /// the pin's two anchors.
    Tracer {
        /// The pin at the tracer.
        pin: Pin,
        /// The line's x, m.
        line: f64,
    },
    /// A motor holding `ω₂ − ω₁` at `rate` (rad/s).
    Motor {
        /// The first body.
        body1: BodyHandle,
        /// The second body.
        body2: BodyHandle,
        /// The motor's rate, rad/s.
        rate: f64,
    },
    /// An angle limit on `θ₂ − θ₁`.
    Limit {
        /// The first body.
        body1: BodyHandle,
        /// The second body.
        body2: BodyHandle,
        /// Its lower bound, rad.
        min: f64,
        /// Its upper bound, rad.
        max: f64,
    },
}

/// A mechanism: its space, what measures its joints and what else its run follows.
pub struct Mechanism {
    /// The scene's name in the reports.
    pub name: String,
    /// The space, at the defaults but for gravity.
    pub space: Space,
    /// The static body every grounded joint uses, at the origin.
    pub ground: BodyHandle,
    /// The dynamic bodies, in the order they were built.
    pub bodies: Vec<BodyHandle>,
    /// Every pin.
    pub pins: Vec<Pin>,
    held: Vec<Held>,
    /// What the run keeps as the energy.
    pub energy: EnergyMeasure,
    /// Whether the run keeps the angular momentum about the origin (free mechanisms).
    pub momentum: bool,
    /// The scene's other figures.
    pub watches: Vec<Watch>,
    /// How long a run lasts, s.
    pub seconds: f64,
}

impl Mechanism {
    /// An empty mechanism: a space at the defaults with `gravity`, a static ground at the
    /// origin.
    pub fn new(name: impl Into<String>, gravity: Vec2, seconds: f64) -> Self {
        let mut space = Space::new();
        space.gravity = gravity;
        let ground = space
            .add_body(Body::static_body())
            .expect("a valid static body");
        Self {
            name: name.into(),
            space,
            ground,
            bodies: Vec::new(),
            pins: Vec::new(),
            held: Vec::new(),
            energy: EnergyMeasure::None,
            momentum: false,
            watches: Vec::new(),
            seconds,
        }
    }

    /// Adds a dynamic body of `(mass, inertia)` at `placed`, moving at `motion`.
    pub fn body(&mut self, mass_inertia: (f64, f64), placed: Placed, motion: Motion) -> BodyHandle {
        let body = Body::dynamic(mass_inertia.0 as f32, mass_inertia.1 as f32)
            .at(placed.centre)
            .with_angle(placed.angle)
            .with_velocity(motion.linear.as_vec2())
            .with_angular_velocity(motion.angular as f32);
        let h = self.space.add_body(body).expect("a valid body");
        self.bodies.push(h);
        h
    }

    /// Adds a thin rod ([`rod_mass`]) of `length` at `placed`, moving at `motion`.
    pub fn rod(&mut self, length: f64, placed: Placed, motion: Motion) -> BodyHandle {
        self.body(rod_mass(length), placed, motion)
    }

    /// Pins `anchor1` of `body1` to `anchor2` of `body2`.
    pub fn pin(&mut self, body1: BodyHandle, anchor1: Vec2, body2: BodyHandle, anchor2: Vec2) {
        self.space
            .add_constraint(PivotJoint::new(body1, body2, anchor1, anchor2))
            .expect("a valid pivot");
        self.pins.push(Pin {
            body1,
            body2,
            anchor1,
            anchor2,
        });
    }

    /// Welds `anchor1` of `body1` to `anchor2` of `body2` at their current relative angle.
    pub fn weld(&mut self, body1: BodyHandle, anchor1: Vec2, body2: BodyHandle, anchor2: Vec2) {
        let phase = self.angle(body2) - self.angle(body1);
        self.space
            .add_constraint(WeldJoint::new(body1, body2, anchor1, anchor2, phase as f32))
            .expect("a valid weld");
        let pin = Pin {
            body1,
            body2,
            anchor1,
            anchor2,
        };
        self.held.push(Held::Weld(pin, phase));
    }

    /// An unbounded slider: `anchor2` of `body2` on the line through `anchor1` of `body1`
    /// along `direction` (local to `body1`) — a Box2D wheel joint without its spring.
    pub fn slider(
        &mut self,
        body1: BodyHandle,
        anchor1: Vec2,
        body2: BodyHandle,
        anchor2: Vec2,
        direction: Vec2,
    ) {
        self.space
            .add_constraint(LineJoint::new(
                body1,
                body2,
                anchor1,
                anchor2,
                direction,
                f32::NEG_INFINITY,
                f32::INFINITY,
            ))
            .expect("a valid slider");
        let pin = Pin {
            body1,
            body2,
            anchor1,
            anchor2,
        };
        self.held.push(Held::Slider(pin, direction));
    }

    /// A rigid distance joint between the anchors, at their distance now.
    pub fn rigid_distance(
        &mut self,
        body1: BodyHandle,
        anchor1: Vec2,
        body2: BodyHandle,
        anchor2: Vec2,
    ) {
        let pin = Pin {
            body1,
            body2,
            anchor1,
            anchor2,
        };
        let length = self.separation(&pin);
        self.space
            .add_constraint(DistanceJoint::new(
                body1,
                body2,
                anchor1,
                anchor2,
                length as f32,
                length as f32,
            ))
            .expect("a valid distance joint");
        self.held.push(Held::Rod(pin, length));
    }

    /// A motor driving `ω₂ − ω₁` to `rate` with at most `max_torque` (infinite: stiff),
    /// followed by a [`Watch::Motor`].
    pub fn motor(&mut self, body1: BodyHandle, body2: BodyHandle, rate: f64, max_torque: f32) {
        let settings = ConstraintSettings {
            max_force: max_torque,
            ..ConstraintSettings::default()
        };
        self.space
            .add_constraint_with(MotorJoint::new(body1, body2, rate as f32), settings)
            .expect("a valid motor");
        self.watches.push(Watch::Motor { body1, body2, rate });
    }

    /// An angle limit keeping `θ₂ − θ₁` in `[min, max]`, followed by a [`Watch::Limit`].
    pub fn limit(&mut self, body1: BodyHandle, body2: BodyHandle, min: f64, max: f64) {
        self.space
            .add_constraint(AngleJoint::new(body1, body2, min as f32, max as f32))
            .expect("a valid angle joint");
        self.watches.push(Watch::Limit {
            body1,
            body2,
            min,
            max,
        });
    }

    fn angle(&self, h: BodyHandle) -> f64 {
        self.space.body(h).expect("a live body").angle()
    }

    fn world(&self, h: BodyHandle, anchor: Vec2) -> DVec2 {
        self.space.body(h).expect("a live body").world_point(anchor)
    }

    fn separation(&self, pin: &Pin) -> f64 {
        self.world(pin.body1, pin.anchor1)
            .distance(self.world(pin.body2, pin.anchor2))
    }

    /// The largest pin separation now, m (infinite if any is not finite).
    pub fn pin_error(&self) -> f64 {
        self.pins
            .iter()
            .map(|p| finite_or_inf(self.separation(p)))
            .fold(0.0, f64::max)
    }

    /// The largest error of the other joints now: welds' separation plus angle error (rad,
    /// at 1 m), sliders' offset across their line, rigid distances' stretch, m.
    pub fn other_error(&self) -> f64 {
        self.held
            .iter()
            .map(|held| {
                finite_or_inf(match held {
                    Held::Weld(pin, phase) => {
                        let turn = self.angle(pin.body2) - self.angle(pin.body1) - phase;
                        self.separation(pin) + turn.abs()
                    }
                    Held::Slider(pin, direction) => {
                        let d =
                            self.world(pin.body2, pin.anchor2) - self.world(pin.body1, pin.anchor1);
                        // The line's direction rotated in f64: the f32 rotation would
                        // put a 1e-7 floor under offsets 5 m out.
                        let n = DVec2::from_angle(self.angle(pin.body1))
                            .rotate(direction.as_dvec2().normalize());
                        n.perp_dot(d).abs()
                    }
                    Held::Rod(pin, length) => (self.separation(pin) - length).abs(),
                })
            })
            .fold(0.0, f64::max)
    }

    /// Kinetic and potential energy of the dynamic bodies (J), and their angular momentum
    /// about the origin (kg m²/s).
    pub fn mechanics(&self) -> (f64, f64, f64) {
        let g = self.space.gravity.as_dvec2();
        let (mut kinetic, mut potential, mut momentum) = (0.0, 0.0, 0.0);
        for &h in &self.bodies {
            let body = self.space.body(h).expect("a live body");
            let (m, i) = (f64::from(body.mass()), f64::from(body.inertia()));
            let (x, v) = (body.position(), body.velocity().as_dvec2());
            let w = f64::from(body.angular_velocity());
            kinetic += 0.5 * m * v.length_squared() + 0.5 * i * w * w;
            potential -= m * g.dot(x);
            momentum += m * x.perp_dot(v) + i * w;
        }
        (kinetic, potential, momentum)
    }

    /// Runs the mechanism for its [`seconds`](Self::seconds), measuring after every step.
    pub fn run(&mut self) -> Figures {
        let steps = (self.seconds / f64::from(DT)).round() as usize;
        self.run_steps(steps)
    }

    /// Steps the mechanism `steps` times, measuring after every step.
    pub fn run_steps(&mut self, steps: usize) -> Figures {
        let (kinetic0, potential0, momentum0) = self.mechanics();
        let energy0 = kinetic0 + potential0;
        let mut f = Figures {
            steps,
            substeps: vec![0; nape::limits::MAX_SUBSTEPS as usize + 1],
            finite: true,
            ..Figures::default()
        };
        let mut timed = 0.0;
        for _ in 0..steps {
            let start = Instant::now();
            self.space.step(DT);
            timed += start.elapsed().as_secs_f64();
            let taken = self.space.exact_substeps_taken();
            if !taken.is_empty() {
                f.exact_steps += 1;
            }
            for &n in taken {
                f.substeps[n as usize] += 1;
            }
            f.pins = f.pins.max(self.pin_error());
            f.others = f.others.max(self.other_error());
            f.finite &= self.space.bodies().all(|(_, b)| {
                b.position().is_finite() && b.velocity().is_finite() && b.angle().is_finite()
            });
            let (kinetic, potential, momentum) = self.mechanics();
            let change = match self.energy {
                EnergyMeasure::None => None,
                EnergyMeasure::Total { scale } => Some((kinetic + potential - energy0) / scale),
                EnergyMeasure::Kinetic => Some((kinetic - kinetic0) / kinetic0),
            };
            if let Some(change) = change {
                let change = if change.is_nan() {
                    f64::INFINITY
                } else {
                    change
                };
                f.energy = worst(f.energy, change.abs());
                f.energy_end = Some(change);
            }
            if self.momentum {
                let change = (momentum - momentum0) / momentum0.abs();
                let change = if change.is_nan() {
                    f64::INFINITY
                } else {
                    change
                };
                f.momentum = worst(f.momentum, change.abs());
                f.momentum_end = Some(change);
            }
            for watch in &self.watches {
                self.observe(watch, &mut f);
            }
        }
        f.ms_per_step = timed * 1e3 / steps.max(1) as f64;
        f
    }

    fn observe(&self, watch: &Watch, f: &mut Figures) {
        match *watch {
            Watch::FourBar {
                frame,
                crank,
                rocker,
                linkage,
                branch,
            } => {
                let crank_angle = self.angle(crank) - self.angle(frame);
                let rocker_angle = self.angle(rocker) - self.angle(frame);
                let off = linkage
                    .rocker_angle(crank_angle, branch)
                    .map_or(f64::INFINITY, |exact| wrap(rocker_angle - exact).abs());
                f.rocker = worst(f.rocker, finite_or_inf(off));
            }
            Watch::Still { body, start } => {
                let at = self.space.body(body).expect("a live body").position();
                f.still = worst(f.still, finite_or_inf(at.distance(start)));
                let drop = at.y - start.y;
                let drop = if drop.is_nan() {
                    f64::NEG_INFINITY
                } else {
                    drop
                };
                f.still_lowest = Some(f.still_lowest.map_or(drop, |low: f64| low.min(drop)));
            }
            Watch::Tracer { pin, line } => {
                let p =
                    (self.world(pin.body1, pin.anchor1) + self.world(pin.body2, pin.anchor2)) * 0.5;
                f.tracer = worst(f.tracer, finite_or_inf((p.x - line).abs()));
            }
            Watch::Motor { body1, body2, rate } => {
                let spin = |h: BodyHandle| {
                    f64::from(self.space.body(h).expect("a live body").angular_velocity())
                };
                let off = (spin(body2) - spin(body1) - rate).abs();
                f.motor = worst(f.motor, finite_or_inf(off));
            }
            Watch::Limit {
                body1,
                body2,
                min,
                max,
            } => {
                let c = self.angle(body2) - self.angle(body1);
                let past = (min - c).max(c - max).max(0.0);
                f.limit = worst(f.limit, finite_or_inf(past));
            }
        }
    }
}

fn finite_or_inf(x: f64) -> f64 {
    if x.is_finite() { x } else { f64::INFINITY }
}

fn worst(so_far: Option<f64>, x: f64) -> Option<f64> {
    Some(so_far.map_or(x, |w| w.max(x)))
}

/// What a run measured, each figure its worst over the run unless it says otherwise.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    /// Steps taken.
    pub steps: usize,
    /// Mean time of a `step` call, ms.
    pub ms_per_step: f64,
    /// Largest pin separation, m.
    pub pins: f64,
    /// Largest error of the other joints ([`Mechanism::other_error`]), m.
    pub others: f64,
    /// Largest `|ΔE|` as [`EnergyMeasure`] scales it (RATTLE's energy swings within a
    /// step's error without drifting, so this is more than what the run lost or gained).
    pub energy: Option<f64>,
    /// `ΔE` at the end, signed, scaled alike: the measure ("−32 % in 20 s").
    pub energy_end: Option<f64>,
    /// Largest `|ΔL| / |L₀|`.
    pub momentum: Option<f64>,
    /// `ΔL / |L₀|` at the end, signed: the measure.
    pub momentum_end: Option<f64>,
    /// Largest departure of a four-bar's rocker from Freudenstein's closed form, rad.
    pub rocker: Option<f64>,
    /// Largest distance of a tracer from its straight line, m.
    pub tracer: Option<f64>,
    /// Largest displacement of a body that should stay still, m.
    pub still: Option<f64>,
    /// That body's lowest vertical displacement (negative: it sank), m.
    pub still_lowest: Option<f64>,
    /// Largest departure of a motor from its rate, rad/s.
    pub motor: Option<f64>,
    /// Largest angle-limit overshoot, rad.
    pub limit: Option<f64>,
    /// Whether every pose and velocity stayed finite.
    pub finite: bool,
    /// Steps in which at least one island was solved exactly.
    pub exact_steps: usize,
    /// How many island-steps took each number of exact substeps (index: the count).
    pub substeps: Vec<usize>,
}

impl Figures {
    /// `n:count` for every exact substep count some island-step took, or `swept` if no
    /// island was ever solved exactly.
    pub fn histogram(&self) -> String {
        let used: Vec<String> = self
            .substeps
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count > 0)
            .map(|(n, count)| format!("{n}:{count}"))
            .collect();
        if used.is_empty() {
            "swept (no exact island)".to_string()
        } else {
            format!(
                "exact in {}/{} steps, substeps {}",
                self.exact_steps,
                self.steps,
                used.join(" ")
            )
        }
    }

    /// The run as one report line.
    pub fn line(&self, name: &str) -> String {
        let mut line = format!(
            "{name:<22} {:>8.4} ms/step  pins {:.2e} m  others {:.2e}",
            self.ms_per_step, self.pins, self.others
        );
        if let (Some(end), Some(worst)) = (self.energy_end, self.energy) {
            line += &format!(
                "  energy {:+.4} % (max |Δ| {:.4} %)",
                100.0 * end,
                100.0 * worst
            );
        }
        // Relative, not in %: the largest rings keep theirs to 1e-7 and better.
        if let (Some(end), Some(worst)) = (self.momentum_end, self.momentum) {
            line += &format!("  L {end:+.2e} (max |Δ| {worst:.2e})");
        }
        let figures = [
            ("rocker off Freudenstein", self.rocker, "rad"),
            ("tracer off its line", self.tracer, "m"),
            ("platform moved", self.still, "m"),
            ("motor off its rate", self.motor, "rad/s"),
            ("limit overshoot", self.limit, "rad"),
        ];
        for (label, value, unit) in figures {
            if let Some(v) = value {
                line += &format!("  {label} {v:.2e} {unit}");
            }
        }
        if let Some(low) = self.still_lowest {
            line += &format!(" (lowest {low:+.4} m)");
        }
        if !self.finite {
            line += "  NON-FINITE";
        }
        line + "  | " + &self.histogram()
    }
}

// ----- four-bar linkages ---------------------------------------------------------------

/// A four-bar's lengths, m: the crank pivots at the frame's origin, the rocker at
/// `(frame, 0)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FourBar {
    /// Crank, `a`.
    pub crank: f64,
    /// Coupler, `b`.
    pub coupler: f64,
    /// Rocker, `c`.
    pub rocker: f64,
    /// Frame, `d`.
    pub frame: f64,
}

/// The crank-rocker (Grashof: 1 + 4 ≤ 4 + 3, the shortest link the crank, so it
/// turns all the way round).
pub const FOUR_BAR: FourBar = FourBar {
    crank: 1.0,
    coupler: 4.0,
    rocker: 3.0,
    frame: 4.0,
};

/// The crank's angle at the start, rad (60°).
pub const FOUR_BAR_START: f64 = FRAC_PI_3;

/// The crank's spin at the start of [`four_bar_frame_spun`], rad/s: the figures
/// for the welded four-bar (pins 4.1e-3 m, rocker 4e-3 rad, −32 % of its kinetic energy
/// in 20 s) are the swept solver's at this spin.
pub const FOUR_BAR_SPIN: f64 = 7.5;

/// The rate of [`four_bar_motor`]'s motor, rad/s.
pub const FOUR_BAR_MOTOR_RATE: f64 = 2.0;

impl FourBar {
    /// The crank's tip `A` and the coupler–rocker pin `B` at crank angle `theta`, on the
    /// open branch (`B` left of `A → O₄`: above the frame at 60°).
    pub fn pins(&self, theta: f64) -> Option<(DVec2, DVec2)> {
        let a = self.crank * DVec2::new(theta.cos(), theta.sin());
        let b = circles(
            a,
            self.coupler,
            DVec2::new(self.frame, 0.0),
            self.rocker,
            true,
        )?;
        Some((a, b))
    }

    /// Crank, coupler and rocker at crank angle `theta`, in the frame's coordinates.
    pub fn links(&self, theta: f64) -> Option<[Placed; 3]> {
        let (a, b) = self.pins(theta)?;
        Some([
            rod_between(DVec2::ZERO, a),
            rod_between(a, b),
            rod_between(DVec2::new(self.frame, 0.0), b),
        ])
    }

    /// Freudenstein's closed form: the rocker's angle for the crank's `theta`, both from
    /// the frame's direction, on the root of sign `branch` (±1). From
    /// `K₁ cos θ₄ − K₂ cos θ₂ + K₃ = cos(θ₂ − θ₄)`, `K₁ = d/a`, `K₂ = d/c`,
    /// `K₃ = (a² − b² + c² + d²)/2ac`, solved in `tan(θ₄/2)`.
    pub fn rocker_angle(&self, theta: f64, branch: f64) -> Option<f64> {
        let (a, b, c, d) = (self.crank, self.coupler, self.rocker, self.frame);
        let (k1, k2, k3) = (
            d / a,
            d / c,
            (a * a - b * b + c * c + d * d) / (2.0 * a * c),
        );
        let (cos, sin) = (theta.cos(), theta.sin());
        let qa = cos - k1 - k2 * cos + k3;
        let qb = -2.0 * sin;
        let qc = k1 - (k2 + 1.0) * cos + k3;
        let discriminant = qb * qb - 4.0 * qa * qc;
        (discriminant >= 0.0)
            .then(|| wrap(2.0 * (-qb + branch * discriminant.sqrt()).atan2(2.0 * qa)))
    }

    /// The sign of Freudenstein's root that [`pins`](Self::pins)' branch is on at `theta`.
    pub fn branch(&self, theta: f64) -> f64 {
        let (_, b) = self.pins(theta).expect("the four-bar assembles");
        let assembled = (b - DVec2::new(self.frame, 0.0)).to_angle();
        let off = |sign: f64| {
            self.rocker_angle(theta, sign)
                .map_or(f64::INFINITY, |t| wrap(t - assembled).abs())
        };
        if off(1.0) <= off(-1.0) { 1.0 } else { -1.0 }
    }

    /// Potential energy (J) of crank, coupler and rocker at crank angle `theta` under
    /// [`GRAVITY`], the frame horizontal (the frame's own is constant).
    pub fn potential(&self, theta: f64) -> Option<f64> {
        let links = self.links(theta)?;
        let masses = [self.crank, self.coupler, self.rocker];
        let g = -f64::from(GRAVITY.y);
        Some(
            links
                .iter()
                .zip(masses)
                .map(|(link, m)| m * g * link.centre.y)
                .sum(),
        )
    }

    /// The largest kinetic energy the linkage reaches released at rest at `theta`: its
    /// potential energy there above the lowest over a turn of the crank (sampled every
    /// 0.01°), J. The scale its energy change is a share of.
    pub fn swing_energy(&self, theta: f64) -> f64 {
        let lowest = (0..36_000)
            .filter_map(|k| self.potential(TAU * f64::from(k) / 36_000.0))
            .fold(f64::INFINITY, f64::min);
        self.potential(theta).expect("the start assembles") - lowest
    }

    /// Released at rest at `theta` under gravity: the rocker's angle there and the farthest
    /// from it the swing takes it before the crank turns back (marching the crank by
    /// 1e-4 rad downhill until the potential is back at its start).
    pub fn rocker_swing(&self, theta: f64) -> (f64, f64) {
        let rocker = |t: f64| {
            let (_, b) = self.pins(t).expect("the four-bar assembles");
            (b - DVec2::new(self.frame, 0.0)).to_angle()
        };
        let start = self.potential(theta).expect("the start assembles");
        let downhill = if self.potential(theta + 1e-6).expect("assembles") < start {
            1.0
        } else {
            -1.0
        };
        let (from, mut far) = (rocker(theta), rocker(theta));
        for k in 1..=(TAU / 1e-4) as usize {
            let t = theta + downhill * 1e-4 * k as f64;
            if self.potential(t).expect("assembles") > start {
                break;
            }
            let r = rocker(t);
            if wrap(r - from).abs() > wrap(far - from).abs() {
                far = r;
            }
        }
        (from, far)
    }
}

/// How a four-bar's frame is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frame {
    /// The static ground: crank and rocker pinned to it (the moving bodies form a chain, a
    /// tree; only the ground closes the loop).
    Grounded,
    /// A dynamic 4 kg rod of 4 m welded at its centre to the ground, crank and rocker
    /// pinned to its ends: the loop closes among moving bodies.
    Welded,
}

/// A four-bar ([`FOUR_BAR`]) assembled at crank angle [`FOUR_BAR_START`], its links moving
/// as a crank spin of `spin` rad/s carries them (0: at rest), with a
/// [`Watch::FourBar`]. Returns the mechanism, the frame body and the crank and rocker.
pub fn four_bar(
    name: &str,
    frame: Frame,
    gravity: Vec2,
    spin: f64,
    seconds: f64,
) -> (Mechanism, BodyHandle, BodyHandle, BodyHandle) {
    let bar = FOUR_BAR;
    let mut m = Mechanism::new(name, gravity, seconds);
    let links = bar.links(FOUR_BAR_START).expect("the four-bar assembles");
    let motions = velocities_of(|t| {
        bar.links(FOUR_BAR_START + spin * t)
            .expect("the four-bar assembles")
            .to_vec()
    });
    let (frame_body, origin) = match frame {
        Frame::Grounded => (m.ground, DVec2::ZERO),
        Frame::Welded => {
            let centre = DVec2::new(0.5 * bar.frame, 0.0);
            let rod = m.rod(bar.frame, Placed { centre, angle: 0.0 }, Motion::default());
            m.weld(m.ground, centre.as_vec2(), rod, Vec2::ZERO);
            (rod, -centre)
        }
    };
    let crank = m.rod(bar.crank, links[0], motions[0]);
    let coupler = m.rod(bar.coupler, links[1], motions[1]);
    let rocker = m.rod(bar.rocker, links[2], motions[2]);
    let (a, b, c) = (0.5 * bar.crank, 0.5 * bar.coupler, 0.5 * bar.rocker);
    let rocker_pivot = origin + DVec2::new(bar.frame, 0.0);
    m.pin(frame_body, origin.as_vec2(), crank, local(-a, 0.0));
    m.pin(crank, local(a, 0.0), coupler, local(-b, 0.0));
    m.pin(coupler, local(b, 0.0), rocker, local(c, 0.0));
    m.pin(rocker, local(-c, 0.0), frame_body, rocker_pivot.as_vec2());
    m.watches.push(Watch::FourBar {
        frame: frame_body,
        crank,
        rocker,
        linkage: bar,
        branch: bar.branch(FOUR_BAR_START),
    });
    (m, frame_body, crank, rocker)
}

/// Scene 1, the four-bar on the ground: released at rest at 60° under gravity, 20 s; its
/// kinetic plus potential energy a share of [`FourBar::swing_energy`].
pub fn four_bar_grounded() -> Mechanism {
    let (mut m, ..) = four_bar("four-bar, grounded", Frame::Grounded, GRAVITY, 0.0, 20.0);
    m.energy = EnergyMeasure::Total {
        scale: FOUR_BAR.swing_energy(FOUR_BAR_START),
    };
    m
}

/// Scene 2 under gravity: the four-bar on a welded frame rod released at rest at 60°,
/// 20 s; its kinetic plus potential energy a share of [`FourBar::swing_energy`] (the
/// welded frame's potential energy is constant and its kinetic energy counted). The peer
/// bench's `four_bar_frame`.
pub fn four_bar_frame() -> Mechanism {
    let (mut m, ..) = four_bar("four-bar, welded frame", Frame::Welded, GRAVITY, 0.0, 20.0);
    m.energy = EnergyMeasure::Total {
        scale: FOUR_BAR.swing_energy(FOUR_BAR_START),
    };
    m
}

/// Scene 2, the four-bar on a welded frame rod, without gravity: the crank spun at
/// [`FOUR_BAR_SPIN`], coupler and rocker at the velocities the loop's velocity closure
/// gives; nothing works on it, so its kinetic energy is conserved exactly. 20 s (about
/// 24 turns of the crank).
pub fn four_bar_frame_spun() -> Mechanism {
    let (mut m, ..) = four_bar(
        "four-bar, frame, spun",
        Frame::Welded,
        Vec2::ZERO,
        FOUR_BAR_SPIN,
        20.0,
    );
    m.energy = EnergyMeasure::Kinetic;
    m
}

/// The welded-frame four-bar under gravity, its crank driven relative to the frame at
/// [`FOUR_BAR_MOTOR_RATE`] by a stiff `MotorJoint` (a loop with a motor), started at the
/// motor's rate; 20 s. Its figures: pins, rocker against Freudenstein, the motor's rate.
pub fn four_bar_motor() -> Mechanism {
    let (mut m, frame, crank, _) = four_bar(
        "four-bar, frame, motor",
        Frame::Welded,
        GRAVITY,
        FOUR_BAR_MOTOR_RATE,
        20.0,
    );
    m.motor(frame, crank, FOUR_BAR_MOTOR_RATE, f32::INFINITY);
    m
}

/// The welded-frame four-bar released at rest at 60° under gravity, an `AngleJoint` on
/// the rocker (relative to the frame) cutting its swing at 70 % of the way to where it
/// would turn back, 0.2 rad of room behind the start (a loop with a limit it strikes);
/// 20 s. Its figures: pins, rocker against Freudenstein, the limit's overshoot.
pub fn four_bar_limit() -> Mechanism {
    let (mut m, frame, _, rocker) =
        four_bar("four-bar, frame, limit", Frame::Welded, GRAVITY, 0.0, 20.0);
    let (from, far) = FOUR_BAR.rocker_swing(FOUR_BAR_START);
    let cut = from + 0.7 * wrap(far - from);
    let behind = from - 0.2 * wrap(far - from).signum();
    m.limit(frame, rocker, cut.min(behind), cut.max(behind));
    m
}

// ----- rings -----------------------------------------------------------------------------

/// Rods in scene 3's ring.
pub const RING_RODS: usize = 24;
/// Length of each ring rod, m.
pub const RING_ROD: f64 = 0.5;
/// Scene 3's spin, rad/s.
pub const RING_SPIN: f64 = 1.0;

/// The radius of a regular ring of `n` rods of `rod` m (through the pins), m.
pub fn ring_radius(n: usize, rod: f64) -> f64 {
    0.5 * rod / (PI / n as f64).sin()
}

/// A closed ring of `n` rods of `rod` m pinned end to end into a regular `n`-gon about
/// the origin, no gravity, spun as one rigid body at `spin` rad/s (each rod's velocity
/// `ω × r`, its spin `ω`), 20 s; kinetic energy and angular momentum kept.
pub fn ring(n: usize, rod: f64, spin: f64) -> Mechanism {
    let mut m = Mechanism::new(format!("ring of {n}"), Vec2::ZERO, 20.0);
    let radius = ring_radius(n, rod);
    let vertex = |k: usize| {
        let phi = TAU * k as f64 / n as f64;
        radius * DVec2::new(phi.cos(), phi.sin())
    };
    let rods: Vec<BodyHandle> = (0..n)
        .map(|i| {
            let placed = rod_between(vertex(i), vertex(i + 1));
            let motion = Motion {
                linear: spin * placed.centre.perp(),
                angular: spin,
            };
            m.rod(rod, placed, motion)
        })
        .collect();
    let half = 0.5 * rod;
    for i in 0..n {
        m.pin(
            rods[i],
            local(half, 0.0),
            rods[(i + 1) % n],
            local(-half, 0.0),
        );
    }
    m.energy = EnergyMeasure::Kinetic;
    m.momentum = true;
    m
}

/// Scene 3: [`RING_RODS`] rods of [`RING_ROD`] m at [`RING_SPIN`].
pub fn ring_24() -> Mechanism {
    ring(RING_RODS, RING_ROD, RING_SPIN)
}

/// The ring sweep's ring of `n` rods of [`RING_ROD`] m, spun so its rods move as fast as
/// scene 3's (1.9 m/s at the pins): every size then carries the same tension (`ρ v²`,
/// 3.7 N), and at `n = 24` it is scene 3. A 1,000-rod ring at 1 rad/s would move at
/// 80 m/s under 6.4 kN, another scene.
pub fn ring_sweep(n: usize) -> Mechanism {
    let spin = RING_SPIN * ring_radius(RING_RODS, RING_ROD) / ring_radius(n, RING_ROD);
    ring(n, RING_ROD, spin)
}

// ----- Box2D v3's scissor lift -----------------------------------------------------------

/// Half the length of the lift's links (their capsule's segment), m.
pub const SCISSOR_HALF: f64 = 2.5;
/// The links' capsule radius, m.
pub const SCISSOR_RADIUS: f64 = 0.15;
/// The links' angle to the horizontal, rad (the sample's `b2MakeRot(±0.15)`).
pub const SCISSOR_ANGLE: f64 = 0.15;
/// Levels of crossed links.
pub const SCISSOR_LEVELS: usize = 3;

/// Mass and inertia about its centre of Box2D's capsule of half-length `h` and radius `r`
/// at density 1 (`b2ComputeCapsuleMass`: a `2h × 2r` box and two half discs, each moved
/// out to its end by the parallel-axis theorem from its own centroid, `4r/3π`).
pub fn capsule_mass(h: f64, r: f64) -> (f64, f64) {
    let length = 2.0 * h;
    let disc = PI * r * r;
    let rectangle = 2.0 * r * length;
    let centroid = 4.0 * r / (3.0 * PI);
    let disc_inertia = disc * (0.5 * r * r + h * h + 2.0 * h * centroid);
    let rectangle_inertia = rectangle * (4.0 * r * r + length * length) / 12.0;
    (disc + rectangle, disc_inertia + rectangle_inertia)
}

/// Mass and inertia about its centre of Box2D's `b2MakeBox(hx, hy)` at density 1.
pub fn box_mass(hx: f64, hy: f64) -> (f64, f64) {
    let mass = 4.0 * hx * hy;
    (mass, mass * (4.0 * hx * hx + 4.0 * hy * hy) / 12.0)
}

/// Scene 4, Box2D v3's "Scissor Lift" sample (`samples/sample_joints.cpp`) without its car
/// and without contacts, under gravity, 10 s: on the ground's pins at (∓2.5, 0.2), three
/// levels of two 5 m links crossed and pinned at their centres (the first of each level
/// at +0.15 rad, the second at −0.15), each level's lower ends pinned to the upper ends
/// of the level below; the bottom level's left end pinned to the ground and its right
/// end on a wheel joint along the ground; a 6 m × 0.4 m platform pinned at its left
/// `(−2.5, −0.4)` and on a wheel joint at its right `(2.5, −0.4)`, along its own x; and
/// the distance joint from the ground's left pin to the middle level's second link at
/// `(0.5, 0)`, which holds the lift up.
///
/// Departures from the sample: it creates its levels 1 m apart with centres at x = 0,
/// which leaves its joints open until its soft solver closes them; here they are stacked
/// at the links' own pitch `5 sin 0.15` and shifted so the bottom-left end is on its
/// ground pin, so every joint starts closed (the platform's centre is then at x = 0, as
/// in the sample). The sample's distance joint is a spring of zero stiffness between
/// limits (0.2–5.5 m), with a motor that only its UI enables — with both off nothing
/// holds the lift; here it is rigid at its start length (3.0 m), as if its spring were
/// disabled. Wheel joints without their spring (the sample disables it) are unbounded
/// `LineJoint`s; pins are rigid (the sample's 240 Hz, ζ = 20 joint softness and its 8
/// substeps are Box2D's solver settings, not the mechanism). Masses are what Box2D
/// computes from the shapes at its default density 1 ([`capsule_mass`], [`box_mass`]).
/// The platform is followed by a [`Watch::Still`].
pub fn scissor_lift() -> Mechanism {
    let (h, angle) = (SCISSOR_HALF, SCISSOR_ANGLE);
    let (c, s) = (angle.cos(), angle.sin());
    let base_y = 0.2;
    let centre_x = -h + h * c;
    let level_y = |level: usize| base_y + h * s + 2.0 * h * s * level as f64;
    let link = capsule_mass(h, SCISSOR_RADIUS);
    let mut m = Mechanism::new("scissor lift", GRAVITY, 10.0);
    // (first, second) of each level: rotated +0.15 and −0.15.
    let levels: Vec<(BodyHandle, BodyHandle)> = (0..SCISSOR_LEVELS)
        .map(|level| {
            let mut at = |sign: f64| {
                let placed = Placed {
                    centre: DVec2::new(centre_x, level_y(level)),
                    angle: sign * angle,
                };
                m.body(link, placed, Motion::default())
            };
            (at(1.0), at(-1.0))
        })
        .collect();
    let top = level_y(SCISSOR_LEVELS - 1) + h * s;
    let platform_at = DVec2::new(centre_x - h * c + h, top + 0.4);
    let platform = m.body(
        box_mass(3.0, 0.2),
        Placed {
            centre: platform_at,
            angle: 0.0,
        },
        Motion::default(),
    );
    let (left, right, middle) = (local(-h, 0.0), local(h, 0.0), Vec2::ZERO);
    for (level, &(first, second)) in levels.iter().enumerate() {
        if level == 0 {
            m.pin(m.ground, local(-h, base_y), first, left);
            m.slider(m.ground, local(h, base_y), second, right, Vec2::X);
        } else {
            let (below_first, below_second) = levels[level - 1];
            m.pin(below_second, left, first, left);
            m.pin(below_first, right, second, right);
        }
        m.pin(first, middle, second, middle);
    }
    let (top_first, top_second) = levels[SCISSOR_LEVELS - 1];
    m.pin(platform, local(-h, -0.4), top_second, left);
    m.slider(platform, local(h, -0.4), top_first, right, Vec2::X);
    m.rigid_distance(m.ground, local(-h, base_y), levels[1].1, local(0.5, 0.0));
    m.watches.push(Watch::Still {
        body: platform,
        start: platform_at,
    });
    m
}

// ----- Peaucellier–Lipkin ---------------------------------------------------------------

/// A Peaucellier–Lipkin linkage's lengths, m.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Peaucellier {
    /// The crank, and the distance between its pivot and the fixed pivot `O` (so the
    /// crank's tip circles through `O`).
    pub crank: f64,
    /// The two long links from `O`.
    pub long: f64,
    /// The rhombus's four sides.
    pub side: f64,
}

/// Scene 5's linkage.
pub const PEAUCELLIER: Peaucellier = Peaucellier {
    crank: 1.0,
    long: 2.5,
    side: 1.0,
};
/// The crank's angle at the start, rad; the motor turns it to +1 rad in 10 s.
pub const PEAUCELLIER_START: f64 = -1.0;
/// The motor's rate, rad/s.
pub const PEAUCELLIER_RATE: f64 = 0.2;
/// The motor's largest torque, N·m: twelve times what gravity asks of it (at most 80 N·m
/// over the crank's travel at a steady rate), so it holds its rate as a stiff one would;
/// the peer bench's.
pub const PEAUCELLIER_TORQUE: f32 = 1000.0;

impl Peaucellier {
    /// The x of the straight line the tracer draws: the inversion, in the circle of
    /// radius² `L² − s²` about `O` (the origin), of the crank tip's circle through `O`.
    pub fn line(&self) -> f64 {
        (self.long * self.long - self.side * self.side) / (2.0 * self.crank)
    }

    /// The links with the crank at `alpha` (its pivot at `(crank, 0)`, the long links' at
    /// the origin): crank, the long links `O–B` and `O–D`, the rhombus's sides `A–B`,
    /// `B–P`, `P–D`, `D–A` (`A` the crank's tip), and the tracer `P`; `None` where the
    /// rhombus cannot reach (`|OA| < L − s`).
    pub fn links(&self, alpha: f64) -> Option<([Placed; 7], DVec2)> {
        let (crank, long, side) = (self.crank, self.long, self.side);
        let (o, q) = (DVec2::ZERO, DVec2::new(crank, 0.0));
        let a = q + crank * DVec2::new(alpha.cos(), alpha.sin());
        let b = circles(o, long, a, side, true)?;
        let d = circles(o, long, a, side, false)?;
        let p = b + d - a;
        Some((
            [
                rod_between(q, a),
                rod_between(o, b),
                rod_between(o, d),
                rod_between(a, b),
                rod_between(b, p),
                rod_between(p, d),
                rod_between(d, a),
            ],
            p,
        ))
    }
}

/// Scene 5, a Peaucellier–Lipkin straight-line linkage ([`PEAUCELLIER`]) under gravity,
/// its crank turned by a `MotorJoint` against the ground at [`PEAUCELLIER_RATE`] from
/// [`PEAUCELLIER_START`] (every link started at the velocities that rate gives it), 10 s:
/// seven rods, ten pins. Its tracer (the pin `P`) is followed against its straight line
/// ([`Peaucellier::line`], [`Watch::Tracer`]), the motor against its rate.
pub fn peaucellier() -> Mechanism {
    peaucellier_driven(
        "Peaucellier-Lipkin",
        PEAUCELLIER,
        GRAVITY,
        PEAUCELLIER_RATE,
        PEAUCELLIER_TORQUE,
    )
}

/// [`peaucellier`] of `linkage`, with `gravity`, its motor at `rate` (rad/s) and at most
/// `max_torque` (N·m; infinite: stiff). The crank must stay where the rhombus reaches
/// for the 10 s: with [`PEAUCELLIER`], within ±1.45 rad, so `rate` ≤ 0.24 rad/s.
pub fn peaucellier_driven(
    name: &str,
    linkage: Peaucellier,
    gravity: Vec2,
    rate: f64,
    max_torque: f32,
) -> Mechanism {
    let (crank, long, side) = (linkage.crank, linkage.long, linkage.side);
    let mut m = Mechanism::new(name, gravity, 10.0);
    let (links, _) = linkage
        .links(PEAUCELLIER_START)
        .expect("the linkage assembles");
    let motions = velocities_of(|t| {
        linkage
            .links(PEAUCELLIER_START + rate * t)
            .expect("the linkage assembles")
            .0
            .to_vec()
    });
    let lengths = [crank, long, long, side, side, side, side];
    let rods: Vec<BodyHandle> = links
        .iter()
        .zip(&motions)
        .zip(lengths)
        .map(|((placed, motion), length)| m.rod(length, *placed, *motion))
        .collect();
    let [crank_rod, ob, od, ab, bp, pd, da] = rods[..] else {
        unreachable!("seven rods")
    };
    let (r, l, s) = (0.5 * crank, 0.5 * long, 0.5 * side);
    let ground = m.ground;
    m.pin(ground, local(crank, 0.0), crank_rod, local(-r, 0.0));
    m.pin(ground, Vec2::ZERO, ob, local(-l, 0.0));
    m.pin(ground, Vec2::ZERO, od, local(-l, 0.0));
    m.pin(crank_rod, local(r, 0.0), ab, local(-s, 0.0));
    m.pin(ob, local(l, 0.0), ab, local(s, 0.0));
    m.pin(ob, local(l, 0.0), bp, local(-s, 0.0));
    m.pin(bp, local(s, 0.0), pd, local(-s, 0.0));
    m.pin(pd, local(s, 0.0), od, local(l, 0.0));
    m.pin(od, local(l, 0.0), da, local(-s, 0.0));
    m.pin(da, local(s, 0.0), crank_rod, local(r, 0.0));
    m.motor(ground, crank_rod, rate, max_torque);
    let tracer = m.pins[6];
    m.watches.push(Watch::Tracer {
        pin: tracer,
        line: linkage.line(),
    });
    m
}

// ----- the list --------------------------------------------------------------------------

/// The ring sweep's sizes.
pub const RING_SIZES: [usize; 4] = [4, 24, 100, 1000];

// ----- Redundant and contradictory rows ------------------------------------------------

/// Where [`parallel_cranks`] starts, rad from the horizontal: below it, so that the swing
/// (to −150°) never brings cranks and coupler into line, where a parallelogram can fold
/// into its crossed form.
pub const CRANKS_START: f64 = -FRAC_PI_6;

/// Three parallel 1 m cranks (rods of 1 kg/m) pinned to the ground 1 m apart, their tips
/// pinned to a 2 m coupler: a parallelogram with a third crank, which moves as one
/// parallelogram does while its twelve rows hold its four bodies' twelve freedoms (one
/// row repeats the others). Released at rest at [`CRANKS_START`] under gravity, 20 s;
/// `offset` moves the third crank's ground pin along the ground, m: with 0 its rows are
/// redundant and consistent, otherwise they contradict each other (that pin starts open
/// by `offset`).
pub fn parallel_cranks(offset: f64) -> Mechanism {
    let name = if offset == 0.0 {
        "parallel cranks".to_string()
    } else {
        format!("parallel cranks, {offset} m off")
    };
    let mut m = Mechanism::new(name, GRAVITY, 20.0);
    let tip = DVec2::new(CRANKS_START.cos(), CRANKS_START.sin());
    let cranks: Vec<BodyHandle> = (0..3)
        .map(|i| {
            let base = DVec2::new(i as f64, 0.0);
            m.rod(1.0, rod_between(base, base + tip), Motion::default())
        })
        .collect();
    let coupler = m.rod(
        2.0,
        rod_between(tip, tip + DVec2::new(2.0, 0.0)),
        Motion::default(),
    );
    for (i, &crank) in cranks.iter().enumerate() {
        let ground = i as f64 + if i == 2 { offset } else { 0.0 };
        m.pin(m.ground, local(ground, 0.0), crank, local(-0.5, 0.0));
        m.pin(crank, local(0.5, 0.0), coupler, local(i as f64 - 1.0, 0.0));
    }
    // From rest at its start to the bottom of its swing: the cranks' centres fall by
    // half their length and the coupler by the whole, times 1 + sin(start).
    let g = -f64::from(GRAVITY.y);
    m.energy = EnergyMeasure::Total {
        scale: g * (1.0 + CRANKS_START.sin()) * (3.0 * 0.5 + 2.0),
    };
    m
}

// ----- Meshes: where the exact solve's loops end ------------------------------------------

/// A mesh of `k × k` bodies (1 kg, 0.1 kg·m², 1 m apart) hung from the ground by its top
/// row, each body pinned to its neighbours below and beside it at their midpoints, thrown
/// sideways at 1 m/s under gravity, 10 s: `k (k − 1)` loops of two rows, the ground's
/// among them (60 rows at `k = 6`, 84 at `k = 7`).
pub fn hung_mesh(k: usize) -> Mechanism {
    let mut m = Mechanism::new(format!("mesh {k} x {k}"), GRAVITY, 10.0);
    let motion = Motion {
        linear: DVec2::new(1.0, 0.0),
        angular: 0.0,
    };
    let grid: Vec<BodyHandle> = (0..k * k)
        .map(|i| {
            let placed = Placed {
                centre: DVec2::new((i % k) as f64, -((i / k) as f64)),
                angle: 0.0,
            };
            m.body((1.0, 0.1), placed, motion)
        })
        .collect();
    let (up, down) = (local(0.0, 0.5), local(0.0, -0.5));
    let (left, right) = (local(-0.5, 0.0), local(0.5, 0.0));
    for row in 0..k {
        for col in 0..k {
            let here = grid[row * k + col];
            if row == 0 {
                m.pin(m.ground, local(col as f64, 0.5), here, up);
            } else {
                m.pin(grid[(row - 1) * k + col], down, here, up);
            }
            if col > 0 {
                m.pin(grid[row * k + col - 1], right, here, left);
            }
        }
    }
    m
}

/// Every scene, in report order: the five (the welded four-bar both spun without
/// gravity and released under it), the four-bar with a motor and with a limit, and the
/// ring sweep.
pub fn all() -> Vec<Mechanism> {
    let mut scenes = vec![
        four_bar_grounded(),
        four_bar_frame_spun(),
        four_bar_frame(),
        ring_24(),
        scissor_lift(),
        peaucellier(),
        four_bar_motor(),
        four_bar_limit(),
        parallel_cranks(0.0),
    ];
    scenes.extend(RING_SIZES.iter().map(|&n| {
        let mut ring = ring_sweep(n);
        ring.name = format!("ring sweep, {n}");
        ring
    }));
    scenes
}
