//! Issue 42's loop scenes as engine-neutral descriptions, and what each measures besides
//! its joints' error: a four-bar linkage on a welded frame, a spinning ring of rods,
//! Box2D v3's scissor lift and a Peaucellier–Lipkin straight-line linkage.
//!
//! Every scene is assembled exactly in `f64` (its loops closed by solving their
//! geometry) and only then rounded to the description's `f32`, so every engine starts
//! with its joints satisfied to a few `f32` ulps. Rods are thin: 1 kg per metre, inertia
//! `m L²/12` about the centre, unless a scene says otherwise.

use std::f64::consts::{FRAC_PI_3, PI, TAU};
use std::fmt;

use crate::scenes::{
    BodySpec, DistanceSpec, GRAVITY, JointSpec, LineSpec, MotorSpec, Pose, SceneDescription,
    Velocity, WeldSpec, constraint_error,
};

/// One of the loop scenes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopScene {
    /// A crank-rocker four-bar (crank 1 m, coupler 4 m, rocker 3 m, frame 4 m) whose
    /// frame is a dynamic rod welded to a static body, released at rest under gravity
    /// with the crank at 60°; 20 s.
    FourBarFrame,
    /// A closed ring of 24 rods of 0.5 m pinned end to end into a regular 24-gon, spun
    /// rigidly at 1 rad/s without gravity; 20 s.
    Ring,
    /// Box2D v3's "Scissor Lift" sample without its car and contacts: three levels of
    /// crossed links, the platform, the pins, the two wheel joints (sliders) and the
    /// distance joint holding the lift (made rigid), under gravity; 10 s.
    ScissorLift,
    /// A Peaucellier–Lipkin linkage whose crank a motor turns at 0.2 rad/s, its fixed
    /// pivots a crank length apart so its tracer draws a straight line, under gravity;
    /// 10 s.
    Peaucellier,
}

impl LoopScene {
    /// Every loop scene, in report order.
    pub const ALL: [LoopScene; 4] = [
        LoopScene::FourBarFrame,
        LoopScene::Ring,
        LoopScene::ScissorLift,
        LoopScene::Peaucellier,
    ];

    /// The scene's command-line and report name.
    pub fn name(self) -> &'static str {
        match self {
            LoopScene::FourBarFrame => "four_bar_frame",
            LoopScene::Ring => "ring",
            LoopScene::ScissorLift => "scissor_lift",
            LoopScene::Peaucellier => "peaucellier",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(name: &str) -> Option<LoopScene> {
        LoopScene::ALL
            .into_iter()
            .find(|scene| scene.name() == name)
    }

    /// How many `step(DT)` calls one run makes.
    pub fn steps(self) -> usize {
        match self {
            LoopScene::FourBarFrame | LoopScene::Ring => 1200,
            LoopScene::ScissorLift | LoopScene::Peaucellier => 600,
        }
    }

    /// Builds the scene's bodies and joints.
    pub fn describe(self) -> SceneDescription {
        match self {
            LoopScene::FourBarFrame => four_bar_frame(),
            LoopScene::Ring => ring(),
            LoopScene::ScissorLift => scissor_lift(),
            LoopScene::Peaucellier => peaucellier(),
        }
    }

    /// What the scene's own figures are, for the report.
    pub fn figure_legend(self) -> &'static str {
        match self {
            LoopScene::FourBarFrame => {
                "energy: change of kinetic + potential energy after 20 s, a share of the \
                 largest kinetic energy the linkage can reach (its start's potential energy \
                 above its lowest configuration's)"
            }
            LoopScene::Ring => {
                "L, KE: relative change of the angular momentum about the ring's centre and \
                 of the kinetic energy after 20 s"
            }
            LoopScene::ScissorLift => {
                "platform: the platform centre's lowest vertical displacement from its start \
                 over the run, and its displacement at the end"
            }
            LoopScene::Peaucellier => {
                "off line: the tracer's largest distance from the straight line it draws \
                 (the midpoint of its two links' ends)"
            }
        }
    }
}

impl fmt::Display for LoopScene {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

type Point = [f64; 2];

fn sub(a: Point, b: Point) -> Point {
    [a[0] - b[0], a[1] - b[1]]
}

fn mid(a: Point, b: Point) -> Point {
    [0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])]
}

fn length(v: Point) -> f64 {
    v[0].hypot(v[1])
}

/// The intersection of the circles of radius `ra` about `a` and `rb` about `b` on the
/// left of the direction from `a` to `b` (`left`) or on its right.
fn circles(a: Point, ra: f64, b: Point, rb: f64, left: bool) -> Option<Point> {
    let d = length(sub(b, a));
    let along = (ra * ra - rb * rb + d * d) / (2.0 * d);
    let across = (ra * ra - along * along).sqrt();
    if !across.is_finite() {
        return None;
    }
    let (ux, uy) = ((b[0] - a[0]) / d, (b[1] - a[1]) / d);
    let side = if left { across } else { -across };
    Some([a[0] + along * ux - side * uy, a[1] + along * uy + side * ux])
}

/// A body's pose in `f64`: centre and angle.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Placed {
    centre: Point,
    angle: f64,
}

/// The rod from `from` to `to`: its centre and the angle of `to − from`.
fn rod_between(from: Point, to: Point) -> Placed {
    let d = sub(to, from);
    Placed {
        centre: mid(from, to),
        angle: d[1].atan2(d[0]),
    }
}

/// A thin rod of `length` m at 1 kg/m: mass `length`, inertia `m L²/12`.
fn rod_mass(length: f64) -> (f64, f64) {
    (length, length * length * length / 12.0)
}

fn dynamic(mass_inertia: (f64, f64), placed: Placed) -> BodySpec {
    BodySpec {
        mass_inertia: Some((mass_inertia.0 as f32, mass_inertia.1 as f32)),
        position: [placed.centre[0] as f32, placed.centre[1] as f32],
        angle: placed.angle as f32,
    }
}

fn ground() -> BodySpec {
    BodySpec {
        mass_inertia: None,
        position: [0.0, 0.0],
        angle: 0.0,
    }
}

fn pin(a: usize, anchor_a: [f64; 2], b: usize, anchor_b: [f64; 2]) -> JointSpec {
    JointSpec {
        a,
        b,
        anchor_a: anchor_a.map(|v| v as f32),
        anchor_b: anchor_b.map(|v| v as f32),
    }
}

/// A description of `bodies` and `joints` under gravity (0, −10), at rest.
fn at_rest(bodies: Vec<BodySpec>, joints: Vec<JointSpec>) -> SceneDescription {
    SceneDescription::pinned(bodies, joints)
}

/// The velocities of poses that move as `poses(t)` does at `t = 0`, by central
/// differences (step 1e-6; exact to about 1e-12 for these smooth assemblies).
fn velocities_of(poses: impl Fn(f64) -> Vec<Placed>) -> Vec<Velocity> {
    let h = 1e-6;
    let (before, after) = (poses(-h), poses(h));
    before
        .iter()
        .zip(&after)
        .map(|(b, a)| {
            let turn = a.angle - b.angle;
            let turn = turn - TAU * (turn / TAU).round();
            Velocity {
                x: (a.centre[0] - b.centre[0]) / (2.0 * h),
                y: (a.centre[1] - b.centre[1]) / (2.0 * h),
                angular: turn / (2.0 * h),
            }
        })
        .collect()
}

// ----- four_bar_frame ---------------------------------------------------------------

/// The four-bar's link lengths, m: crank, coupler, rocker, frame.
pub const FOUR_BAR: [f64; 4] = [1.0, 4.0, 3.0, 4.0];

/// The crank angle the four-bar starts at, rad.
pub const FOUR_BAR_CRANK_ANGLE: f64 = FRAC_PI_3;

/// The four-bar's moving pins at crank angle `theta`: the crank's tip `A` and the
/// coupler–rocker pin `B` on the open branch (above the frame at the start), with the
/// crank's pivot at the origin and the rocker's at (4, 0).
fn four_bar_pins(theta: f64) -> Option<(Point, Point)> {
    let [crank, coupler, rocker, frame] = FOUR_BAR;
    let a = [crank * theta.cos(), crank * theta.sin()];
    let b = circles(a, coupler, [frame, 0.0], rocker, true)?;
    Some((a, b))
}

/// The moving links' poses at crank angle `theta`: crank, coupler, rocker.
fn four_bar_links(theta: f64) -> Option<[Placed; 3]> {
    let (a, b) = four_bar_pins(theta)?;
    Some([
        rod_between([0.0, 0.0], a),
        rod_between(a, b),
        rod_between([FOUR_BAR[3], 0.0], b),
    ])
}

fn four_bar_frame() -> SceneDescription {
    let [crank, coupler, rocker, frame] = FOUR_BAR;
    let links = four_bar_links(FOUR_BAR_CRANK_ANGLE).expect("the four-bar assembles at 60°");
    let frame_pose = Placed {
        centre: [0.5 * frame, 0.0],
        angle: 0.0,
    };
    // 0 ground, 1 frame, 2 crank, 3 coupler, 4 rocker.
    let bodies = vec![
        ground(),
        dynamic(rod_mass(frame), frame_pose),
        dynamic(rod_mass(crank), links[0]),
        dynamic(rod_mass(coupler), links[1]),
        dynamic(rod_mass(rocker), links[2]),
    ];
    let joints = vec![
        pin(1, [-0.5 * frame, 0.0], 2, [-0.5 * crank, 0.0]),
        pin(2, [0.5 * crank, 0.0], 3, [-0.5 * coupler, 0.0]),
        pin(3, [0.5 * coupler, 0.0], 4, [0.5 * rocker, 0.0]),
        pin(4, [-0.5 * rocker, 0.0], 1, [0.5 * frame, 0.0]),
    ];
    let mut description = at_rest(bodies, joints);
    description.welds.push(WeldSpec {
        a: 0,
        b: 1,
        anchor_a: [(0.5 * frame) as f32, 0.0],
        anchor_b: [0.0, 0.0],
        reference_angle: 0.0,
    });
    description
}

/// The potential energy of the four-bar's moving links at crank angle `theta` under the
/// scenes' gravity, J (the frame's is constant and left out).
fn four_bar_potential(theta: f64) -> Option<f64> {
    let links = four_bar_links(theta)?;
    let g = -f64::from(GRAVITY[1]);
    let masses = [FOUR_BAR[0], FOUR_BAR[1], FOUR_BAR[2]];
    Some(
        links
            .iter()
            .zip(masses)
            .map(|(link, mass)| mass * g * link.centre[1])
            .sum(),
    )
}

/// The largest kinetic energy the four-bar can reach from rest at its start: its start's
/// potential energy above the lowest over a turn of the crank (sampled every 0.01°), J.
pub fn four_bar_energy_scale() -> f64 {
    let start = four_bar_potential(FOUR_BAR_CRANK_ANGLE).expect("the start assembles");
    let lowest = (0..36_000)
        .filter_map(|k| four_bar_potential(TAU * f64::from(k) / 36_000.0))
        .fold(f64::INFINITY, f64::min);
    start - lowest
}

// ----- ring ---------------------------------------------------------------------------

/// Rods in the ring.
pub const RING_RODS: usize = 24;
/// Length of each of the ring's rods, m.
pub const RING_ROD: f64 = 0.5;
/// The ring's spin at the start, rad/s.
pub const RING_SPIN: f64 = 1.0;

fn ring() -> SceneDescription {
    let n = RING_RODS;
    let radius = 0.5 * RING_ROD / (PI / n as f64).sin();
    let vertex = |k: usize| {
        let phi = TAU * k as f64 / n as f64;
        [radius * phi.cos(), radius * phi.sin()]
    };
    let mut bodies = Vec::with_capacity(n);
    let mut velocities = Vec::with_capacity(n);
    let mut joints = Vec::with_capacity(n);
    for i in 0..n {
        let placed = rod_between(vertex(i), vertex(i + 1));
        bodies.push(dynamic(rod_mass(RING_ROD), placed));
        let [x, y] = placed.centre;
        velocities.push(Velocity {
            x: -RING_SPIN * y,
            y: RING_SPIN * x,
            angular: RING_SPIN,
        });
        joints.push(pin(
            i,
            [0.5 * RING_ROD, 0.0],
            (i + 1) % n,
            [-0.5 * RING_ROD, 0.0],
        ));
    }
    let mut description = at_rest(bodies, joints);
    description.gravity = [0.0, 0.0];
    description.initial_velocities = velocities;
    description
}

// ----- scissor_lift -------------------------------------------------------------------

/// The scissor lift's links: Box2D's capsule from (−2.5, 0) to (2.5, 0) of radius 0.15.
pub const SCISSOR_HALF_LENGTH: f64 = 2.5;
/// The links' capsule radius, m.
pub const SCISSOR_RADIUS: f64 = 0.15;
/// The links' angle to the horizontal, rad: the sample's `b2MakeRot(±0.15)`.
pub const SCISSOR_ANGLE: f64 = 0.15;
/// Levels of crossed links.
pub const SCISSOR_LEVELS: usize = 3;
/// Index of the platform in the scissor lift's description.
pub const SCISSOR_PLATFORM: usize = 1 + 2 * SCISSOR_LEVELS;

/// Mass and inertia about its centre of Box2D's capsule of half-length `h` and radius
/// `r` at density 1 (`b2ComputeCapsuleMass`: a box and two half circles).
pub fn capsule_mass(h: f64, r: f64) -> (f64, f64) {
    let length = 2.0 * h;
    let circle_mass = PI * r * r;
    let box_mass = 2.0 * r * length;
    let centroid = 4.0 * r / (3.0 * PI);
    let circle_inertia = circle_mass * (0.5 * r * r + h * h + 2.0 * h * centroid);
    let box_inertia = box_mass * (4.0 * r * r + length * length) / 12.0;
    (circle_mass + box_mass, circle_inertia + box_inertia)
}

/// Mass and inertia about its centre of Box2D's `b2MakeBox(hx, hy)` at density 1.
pub fn box_mass(hx: f64, hy: f64) -> (f64, f64) {
    let mass = 4.0 * hx * hy;
    (mass, mass * (4.0 * hx * hx + 4.0 * hy * hy) / 12.0)
}

/// Box2D's sample: on a ground whose pins sit at (∓2.5, 0.2), three levels of two links
/// crossed at their centres (the first rotated +0.15 rad, the second −0.15), each level's
/// lower ends pinned to the upper ends of the level below (the bottom level's left end to
/// the ground, its right end on a wheel joint along the ground), a 6 m × 0.4 m platform
/// pinned on top at its left and on a wheel joint at its right, and a distance joint from
/// the ground's left pin to the middle level's second link at (0.5, 0), which holds the
/// lift up. The sample creates its bodies 1 m apart, which leaves its joints open until
/// the solver closes them; here the levels are stacked at the links' own pitch
/// `5 sin 0.15`, so every joint starts closed. The distance joint is rigid at its start
/// length (the sample's is a spring of zero stiffness between limits). Masses are what
/// Box2D computes from the sample's shapes at density 1.
fn scissor_lift() -> SceneDescription {
    let (h, angle) = (SCISSOR_HALF_LENGTH, SCISSOR_ANGLE);
    let (c, s) = (angle.cos(), angle.sin());
    let base_y = 0.2;
    let centre_x = -h + h * c;
    let level_y = |level: usize| base_y + h * s + 2.0 * h * s * level as f64;
    let link = capsule_mass(h, SCISSOR_RADIUS);
    let mut bodies = vec![ground()];
    for level in 0..SCISSOR_LEVELS {
        for sign in [1.0, -1.0] {
            let placed = Placed {
                centre: [centre_x, level_y(level)],
                angle: sign * angle,
            };
            bodies.push(dynamic(link, placed));
        }
    }
    let top = level_y(SCISSOR_LEVELS - 1) + h * s;
    let platform = Placed {
        centre: [centre_x - h * c + h, top + 0.4],
        angle: 0.0,
    };
    bodies.push(dynamic(box_mass(3.0, 0.2), platform));
    let first = |level: usize| 1 + 2 * level;
    let second = |level: usize| 2 + 2 * level;
    let mut joints = Vec::new();
    let mut lines = Vec::new();
    for level in 0..SCISSOR_LEVELS {
        // Left pin, right pin (a wheel joint on the bottom level), middle pin.
        if level == 0 {
            joints.push(pin(0, [-h, base_y], first(0), [-h, 0.0]));
            lines.push(LineSpec {
                a: 0,
                b: second(0),
                anchor_a: [h as f32, base_y as f32],
                anchor_b: [h as f32, 0.0],
                axis: [1.0, 0.0],
            });
        } else {
            joints.push(pin(second(level - 1), [-h, 0.0], first(level), [-h, 0.0]));
            joints.push(pin(first(level - 1), [h, 0.0], second(level), [h, 0.0]));
        }
        joints.push(pin(first(level), [0.0, 0.0], second(level), [0.0, 0.0]));
    }
    let last = SCISSOR_LEVELS - 1;
    joints.push(pin(SCISSOR_PLATFORM, [-h, -0.4], second(last), [-h, 0.0]));
    lines.push(LineSpec {
        a: SCISSOR_PLATFORM,
        b: first(last),
        anchor_a: [h as f32, -0.4],
        anchor_b: [h as f32, 0.0],
        axis: [1.0, 0.0],
    });
    let mut description = at_rest(bodies, joints);
    description.lines = lines;
    // The distance joint, rigid at its start length (from the f32 poses the engines get).
    let poses = crate::scenes::initial_poses(&description);
    let (anchor_a, anchor_b) = ([-h as f32, base_y as f32], [0.5f32, 0.0]);
    let (ax, ay) = poses[0].world_point(anchor_a);
    let (bx, by) = poses[second(1)].world_point(anchor_b);
    description.distances.push(DistanceSpec {
        a: 0,
        b: second(1),
        anchor_a,
        anchor_b,
        length: (bx - ax).hypot(by - ay) as f32,
    });
    description
}

// ----- peaucellier --------------------------------------------------------------------

/// The Peaucellier–Lipkin linkage's lengths, m: crank (and the distance between its
/// fixed pivots), the two long links, the rhombus's sides.
pub const PEAUCELLIER: [f64; 3] = [1.0, 2.5, 1.0];
/// The crank's angle at the start, rad (it turns to +1 rad in 10 s).
pub const PEAUCELLIER_START: f64 = -1.0;
/// The motor's speed, rad/s.
pub const PEAUCELLIER_SPEED: f64 = 0.2;
/// The motor's largest torque, N·m: several times what gravity asks of it over the
/// crank's travel.
pub const PEAUCELLIER_TORQUE: f64 = 1000.0;

/// The x of the line the tracer draws: the inversion of the crank tip's circle (through
/// the fixed pivot `O` at the origin) in the circle of radius² `L² − s²` about `O`.
pub fn peaucellier_line() -> f64 {
    let [crank, long, side] = PEAUCELLIER;
    (long * long - side * side) / (2.0 * crank)
}

/// The links' poses with the crank at `alpha` (its pivot at (crank, 0), the long links'
/// at the origin): crank, the two long links, then the rhombus's sides A–B, B–P, P–D,
/// D–A, and the tracer `P`.
fn peaucellier_links(alpha: f64) -> Option<([Placed; 7], Point)> {
    let [crank, long, side] = PEAUCELLIER;
    let (o, q) = ([0.0, 0.0], [crank, 0.0]);
    let a = [crank + crank * alpha.cos(), crank * alpha.sin()];
    let b = circles(o, long, a, side, true)?;
    let d = circles(o, long, a, side, false)?;
    let p = [b[0] + d[0] - a[0], b[1] + d[1] - a[1]];
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

fn peaucellier() -> SceneDescription {
    let [crank, long, side] = PEAUCELLIER;
    let (links, _) = peaucellier_links(PEAUCELLIER_START).expect("the linkage assembles");
    let lengths = [crank, long, long, side, side, side, side];
    let mut bodies = vec![ground()];
    bodies.extend(
        links
            .iter()
            .zip(lengths)
            .map(|(placed, length)| dynamic(rod_mass(length), *placed)),
    );
    // 0 ground, 1 crank, 2 O–B, 3 O–D, 4 A–B, 5 B–P, 6 P–D, 7 D–A.
    let (r, l, s) = (0.5 * crank, 0.5 * long, 0.5 * side);
    let joints = vec![
        pin(0, [crank, 0.0], 1, [-r, 0.0]),
        pin(0, [0.0, 0.0], 2, [-l, 0.0]),
        pin(0, [0.0, 0.0], 3, [-l, 0.0]),
        pin(1, [r, 0.0], 4, [-s, 0.0]),
        pin(2, [l, 0.0], 4, [s, 0.0]),
        pin(2, [l, 0.0], 5, [-s, 0.0]),
        pin(5, [s, 0.0], 6, [-s, 0.0]),
        pin(6, [s, 0.0], 3, [l, 0.0]),
        pin(3, [l, 0.0], 7, [-s, 0.0]),
        pin(7, [s, 0.0], 1, [r, 0.0]),
    ];
    let mut description = at_rest(bodies, joints);
    description.motors.push(MotorSpec {
        joint: 0,
        speed: PEAUCELLIER_SPEED as f32,
        max_torque: PEAUCELLIER_TORQUE as f32,
    });
    // Every link already moving as the motor drives it.
    let mut velocities = vec![Velocity::default()];
    velocities.extend(velocities_of(|t| {
        let alpha = PEAUCELLIER_START + PEAUCELLIER_SPEED * t;
        peaucellier_links(alpha)
            .expect("the linkage assembles")
            .0
            .to_vec()
    }));
    description.initial_velocities = velocities;
    description
}

// ----- what each scene measures -------------------------------------------------------

/// What one run of a loop scene measured besides its time.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopFigures {
    /// Largest pin separation over the run, m.
    pub pins: f64,
    /// Largest error over every joint (welds as separation + angle error × 1 m, distance
    /// joints and sliders by their offsets; `scenes::constraint_error`), m.
    pub run_max: f64,
    /// The step where it happened.
    pub run_max_step: usize,
    /// The scene's own figures, as [`LoopScene::figure_legend`] describes them (in its
    /// order: four-bar energy change; ring L and KE change; lift lowest and final
    /// displacement; Peaucellier's distance off the line).
    pub figures: Vec<f64>,
}

impl LoopFigures {
    /// The scene's own figures as the report shows them.
    pub fn describe(&self, scene: LoopScene) -> String {
        let value = |i: usize| self.figures.get(i).copied().unwrap_or(f64::NAN);
        match scene {
            LoopScene::FourBarFrame => format!("energy {:+.1} %", 100.0 * value(0)),
            LoopScene::Ring => format!("L {:+.1e}, KE {:+.1e}", value(0), value(1)),
            LoopScene::ScissorLift => {
                format!(
                    "platform {:+.3} m lowest, {:+.3} m at the end",
                    value(0),
                    value(1)
                )
            }
            LoopScene::Peaucellier => format!("off line {:.1e} m", value(0)),
        }
    }
}

/// Follows a loop scene's run: every joint's error and the scene's own figures, from
/// the poses and velocities after each step.
pub struct LoopTracker<'a> {
    scene: LoopScene,
    description: &'a SceneDescription,
    start: Vec<Pose>,
    /// The start's energy, angular momentum and the four-bar's energy scale.
    energy0: f64,
    momentum0: f64,
    kinetic0: f64,
    scale: f64,
    figures: LoopFigures,
    last: Vec<f64>,
}

/// Kinetic and potential energy and angular momentum about the origin of `description`'s
/// bodies at `poses` and `velocities`.
fn mechanics(
    description: &SceneDescription,
    poses: &[Pose],
    velocities: &[Velocity],
) -> (f64, f64, f64) {
    let [gx, gy] = description.gravity.map(f64::from);
    let (mut kinetic, mut potential, mut momentum) = (0.0, 0.0, 0.0);
    for ((body, pose), velocity) in description.bodies.iter().zip(poses).zip(velocities) {
        let Some((mass, inertia)) = body.mass_inertia else {
            continue;
        };
        let (m, i) = (f64::from(mass), f64::from(inertia));
        kinetic += 0.5 * m * (velocity.x * velocity.x + velocity.y * velocity.y)
            + 0.5 * i * velocity.angular * velocity.angular;
        potential -= m * (gx * pose.x + gy * pose.y);
        momentum += m * (pose.x * velocity.y - pose.y * velocity.x) + i * velocity.angular;
    }
    (kinetic, potential, momentum)
}

impl<'a> LoopTracker<'a> {
    /// A tracker of `scene` built from `description` (`scene.describe()`), at its start.
    pub fn new(scene: LoopScene, description: &'a SceneDescription) -> LoopTracker<'a> {
        let start = crate::scenes::initial_poses(description);
        let velocities: Vec<Velocity> = (0..description.bodies.len())
            .map(|i| description.initial_velocity(i))
            .collect();
        let (kinetic0, potential0, momentum0) = mechanics(description, &start, &velocities);
        let scale = match scene {
            LoopScene::FourBarFrame => four_bar_energy_scale(),
            _ => 1.0,
        };
        LoopTracker {
            scene,
            description,
            start,
            energy0: kinetic0 + potential0,
            momentum0,
            kinetic0,
            scale,
            figures: LoopFigures {
                pins: 0.0,
                run_max: 0.0,
                run_max_step: 0,
                figures: Vec::new(),
            },
            last: Vec::new(),
        }
    }

    /// Takes in the state after step `step`.
    pub fn observe(&mut self, step: usize, poses: &[Pose], velocities: &[Velocity]) {
        let error = constraint_error(self.description, poses);
        let figures = &mut self.figures;
        figures.pins = figures.pins.max(error.pins);
        if error.max > figures.run_max || figures.run_max_step == 0 {
            figures.run_max = error.max;
            figures.run_max_step = step;
        }
        let (kinetic, potential, momentum) = mechanics(self.description, poses, velocities);
        match self.scene {
            LoopScene::FourBarFrame => {
                self.last = vec![(kinetic + potential - self.energy0) / self.scale];
            }
            LoopScene::Ring => {
                self.last = vec![
                    (momentum - self.momentum0) / self.momentum0,
                    (kinetic - self.kinetic0) / self.kinetic0,
                ];
            }
            LoopScene::ScissorLift => {
                let dy = poses[SCISSOR_PLATFORM].y - self.start[SCISSOR_PLATFORM].y;
                let dy = if dy.is_nan() { f64::NEG_INFINITY } else { dy };
                let lowest = self.last.first().map_or(dy, |&low| low.min(dy));
                self.last = vec![lowest, dy];
            }
            LoopScene::Peaucellier => {
                let s = (0.5 * PEAUCELLIER[2]) as f32;
                let (x1, _) = poses[5].world_point([s, 0.0]);
                let (x2, _) = poses[6].world_point([-s, 0.0]);
                let off = (0.5 * (x1 + x2) - peaucellier_line()).abs();
                let off = if off.is_nan() { f64::INFINITY } else { off };
                let worst = self.last.first().map_or(off, |&w| w.max(off));
                self.last = vec![worst];
            }
        }
    }

    /// What the run measured.
    pub fn finish(mut self) -> LoopFigures {
        self.figures.figures = self.last;
        self.figures
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes::initial_poses;

    #[test]
    fn every_loop_scene_starts_closed() {
        for scene in LoopScene::ALL {
            let description = scene.describe();
            let error = constraint_error(&description, &initial_poses(&description));
            assert!(error.max < 2e-6, "{scene}: {error:?}");
        }
    }

    #[test]
    fn the_four_bar_is_assembled_exactly_with_its_lengths() {
        let (a, b) = four_bar_pins(FOUR_BAR_CRANK_ANGLE).unwrap();
        assert!((length(a) - 1.0).abs() < 1e-12);
        assert!((length(sub(b, a)) - 4.0).abs() < 1e-12);
        assert!((length(sub(b, [4.0, 0.0])) - 3.0).abs() < 1e-12);
        assert!(b[1] > 0.0);
        // Grashof: the crank turns all the way round on this branch.
        assert!((0..360).all(|k| four_bar_pins(f64::from(k).to_radians()).is_some()));
        let description = LoopScene::FourBarFrame.describe();
        assert_eq!(description.bodies[1].mass_inertia, Some((4.0, 64.0 / 12.0)));
        assert_eq!(description.welds.len(), 1);
        let scale = four_bar_energy_scale();
        assert!(scale > 10.0 && scale < 200.0, "{scale}");
    }

    #[test]
    fn the_ring_spins_rigidly_without_gravity() {
        let description = LoopScene::Ring.describe();
        assert_eq!(description.bodies.len(), 24);
        assert_eq!(description.joints.len(), 24);
        assert_eq!(description.gravity, [0.0, 0.0]);
        let tracker = LoopTracker::new(LoopScene::Ring, &description);
        // A rigid spin: L = I ω and KE = I ω²/2 for the ring's inertia about its centre.
        assert!((tracker.kinetic0 - 0.5 * tracker.momentum0).abs() < 1e-5);
        let (mass, _) = description.bodies[0].mass_inertia.unwrap();
        assert_eq!(mass, 0.5);
    }

    #[test]
    fn the_scissor_lift_has_box2d_s_masses_and_a_rigid_holding_joint() {
        let (mass, inertia) = capsule_mass(2.5, 0.15);
        assert!((mass - (1.5 + PI * 0.0225)).abs() < 1e-12);
        assert!((inertia - 3.601_33).abs() < 1e-4, "{inertia}");
        let (mass, inertia) = box_mass(3.0, 0.2);
        assert!((mass - 2.4).abs() < 1e-12 && (inertia - 7.232).abs() < 1e-12);
        let description = LoopScene::ScissorLift.describe();
        assert_eq!(description.bodies.len(), 8);
        assert_eq!(description.joints.len(), 9);
        assert_eq!(description.lines.len(), 2);
        assert_eq!(description.distances.len(), 1);
        // The platform's centre is over the origin, its underside on the top links' ends.
        let platform = description.bodies[SCISSOR_PLATFORM];
        assert!(platform.position[0].abs() < 1e-6);
        // 7 bodies, 21 degrees of freedom: 9 pins, 2 sliders and the rod hold them all.
        assert_eq!(
            2 * description.joints.len() + description.lines.len() + 1,
            21
        );
    }

    #[test]
    fn the_peaucellier_tracer_draws_a_straight_line() {
        let line = peaucellier_line();
        for k in 0..=100 {
            let alpha = -1.0 + 0.02 * f64::from(k);
            let (_, p) = peaucellier_links(alpha).unwrap();
            assert!((p[0] - line).abs() < 1e-12, "{alpha}: {p:?}");
        }
        let description = LoopScene::Peaucellier.describe();
        assert_eq!(description.joints.len(), 10);
        assert_eq!(description.motors[0].joint, 0);
        // The crank starts at the motor's speed.
        let crank = description.initial_velocity(1);
        assert!((crank.angular - PEAUCELLIER_SPEED).abs() < 1e-8);
    }

    #[test]
    fn the_peaucellier_motor_outlasts_gravity() {
        // The torque gravity asks of the motor at a steady crank speed: dV/dα.
        let [crank, long, side] = PEAUCELLIER;
        let masses = [crank, long, long, side, side, side, side];
        let potential = |alpha: f64| -> f64 {
            let (links, _) = peaucellier_links(alpha).unwrap();
            links
                .iter()
                .zip(masses)
                .map(|(link, m)| m * 10.0 * link.centre[1])
                .sum()
        };
        let worst = (0..=200)
            .map(|k| {
                let alpha = -1.0 + 0.01 * f64::from(k);
                ((potential(alpha + 1e-6) - potential(alpha - 1e-6)) / 2e-6).abs()
            })
            .fold(0.0, f64::max);
        assert!(worst < 0.2 * PEAUCELLIER_TORQUE, "{worst}");
    }

    #[test]
    fn a_tracker_measures_the_start_as_unchanged() {
        for scene in LoopScene::ALL {
            let description = scene.describe();
            let mut tracker = LoopTracker::new(scene, &description);
            let poses = initial_poses(&description);
            let velocities: Vec<Velocity> = (0..description.bodies.len())
                .map(|i| description.initial_velocity(i))
                .collect();
            tracker.observe(1, &poses, &velocities);
            let figures = tracker.finish();
            assert!(figures.run_max < 2e-6, "{scene}");
            for value in &figures.figures {
                assert!(value.abs() < 1e-5, "{scene}: {figures:?}");
            }
            assert!(!figures.describe(scene).is_empty());
        }
    }
}
