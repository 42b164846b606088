//! The reference scenes (`chain`, `chain_hang`, `joint_grid`) as engine-neutral
//! descriptions, and the anchor-separation error every engine is measured by.
//!
//! Every engine builds its world from the same [`SceneDescription`], so the scenes
//! cannot drift apart between engines. The reference scenes hold only revolute pins
//! ([`JointSpec`]); the loop scenes (`loop_scenes.rs`) add welds, rigid distance joints,
//! sliders and motors, their own gravity and initial velocities, and measure every
//! kind's error by [`constraint_error`].

use std::fmt;

/// Gravity of every scene, m/s².
pub const GRAVITY: [f32; 2] = [0.0, -10.0];
/// The fixed time step of every scene, s.
pub const DT: f32 = 1.0 / 60.0;

/// One of the reference scenes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scene {
    /// 200-link chain released horizontally.
    Chain,
    /// The same chain hanging straight down at rest.
    ChainHang,
    /// Box2D v3's 100 × 100 joint grid, without shapes.
    JointGrid,
}

impl Scene {
    /// Every scene, in report order.
    pub const ALL: [Scene; 3] = [Scene::Chain, Scene::ChainHang, Scene::JointGrid];

    /// The scene's command-line and report name.
    pub fn name(self) -> &'static str {
        match self {
            Scene::Chain => "chain",
            Scene::ChainHang => "chain_hang",
            Scene::JointGrid => "joint_grid",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(name: &str) -> Option<Scene> {
        Scene::ALL.into_iter().find(|scene| scene.name() == name)
    }

    /// How many `step(DT)` calls one run makes.
    pub fn steps(self) -> usize {
        match self {
            Scene::Chain | Scene::ChainHang => 600,
            Scene::JointGrid => 300,
        }
    }

    /// Builds the scene's bodies and joints.
    pub fn describe(self) -> SceneDescription {
        match self {
            Scene::Chain => chain(CHAIN_LINKS, false),
            Scene::ChainHang => chain(CHAIN_LINKS, true),
            Scene::JointGrid => joint_grid(),
        }
    }
}

impl fmt::Display for Scene {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A body: static, or dynamic with its mass and rotational inertia about its origin
/// (which is its centre of mass). No shapes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodySpec {
    /// `None` for a static body, `Some((mass, inertia))` for a dynamic one.
    pub mass_inertia: Option<(f32, f32)>,
    /// Initial position, m.
    pub position: [f32; 2],
    /// Initial angle, rad.
    pub angle: f32,
}

/// A point-to-point revolute joint: `anchor_a` in body `a`'s frame coincides with
/// `anchor_b` in body `b`'s frame. No limit, motor or spring.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointSpec {
    /// Index of the first body in [`SceneDescription::bodies`].
    pub a: usize,
    /// Index of the second body.
    pub b: usize,
    /// The anchor in `a`'s local frame.
    pub anchor_a: [f32; 2],
    /// The anchor in `b`'s local frame.
    pub anchor_b: [f32; 2],
}

/// A weld: `anchor_a` in body `a`'s frame coincides with `anchor_b` in body `b`'s frame,
/// and the relative angle `θb − θa` stays at `reference_angle`. Rigid (Box2D: zero hertz).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeldSpec {
    /// Index of the first body in [`SceneDescription::bodies`].
    pub a: usize,
    /// Index of the second body.
    pub b: usize,
    /// The weld point in `a`'s local frame.
    pub anchor_a: [f32; 2],
    /// The weld point in `b`'s local frame.
    pub anchor_b: [f32; 2],
    /// The relative angle `θb − θa` held, rad.
    pub reference_angle: f32,
}

/// A rigid distance joint (a massless rod): the anchors stay `length` apart, in both
/// directions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceSpec {
    /// Index of the first body in [`SceneDescription::bodies`].
    pub a: usize,
    /// Index of the second body.
    pub b: usize,
    /// The anchor in `a`'s local frame.
    pub anchor_a: [f32; 2],
    /// The anchor in `b`'s local frame.
    pub anchor_b: [f32; 2],
    /// The distance held, m.
    pub length: f32,
}

/// A slider that leaves rotation free (Box2D's wheel joint without its spring, nape's
/// `LineJoint` without bounds, rapier's pin-slot joint): `anchor_b` of body `b` stays on
/// the line through `anchor_a` of body `a` along `axis` (in `a`'s frame), anywhere along
/// it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineSpec {
    /// Index of the body that carries the line.
    pub a: usize,
    /// Index of the body that slides.
    pub b: usize,
    /// A point of the line in `a`'s local frame.
    pub anchor_a: [f32; 2],
    /// The sliding point in `b`'s local frame.
    pub anchor_b: [f32; 2],
    /// The line's direction in `a`'s local frame (unit length).
    pub axis: [f32; 2],
}

/// A motor on one of the revolute pins: drives `ωb − ωa` of the pin's bodies to `speed`
/// with a torque of at most `max_torque` (Box2D: the revolute joint's motor; nape: a
/// `MotorJoint` beside the pin with that `max_force`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotorSpec {
    /// Index of the pin in [`SceneDescription::joints`].
    pub joint: usize,
    /// Target relative angular velocity `ωb − ωa`, rad/s.
    pub speed: f32,
    /// The largest torque the motor applies, N·m.
    pub max_torque: f32,
}

/// Bodies and joints of one scene, in creation order: engines create the bodies, then
/// the pins, welds, distance joints, sliders and motors, each list in its order.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneDescription {
    /// Bodies, in the order engines must create them.
    pub bodies: Vec<BodySpec>,
    /// Revolute pins, in the order engines must create them.
    pub joints: Vec<JointSpec>,
    /// Gravity, m/s² ([`GRAVITY`] in the reference scenes).
    pub gravity: [f32; 2],
    /// Every body's velocity at the start, indexed like [`Self::bodies`]; empty when all
    /// start at rest.
    pub initial_velocities: Vec<Velocity>,
    /// Welds.
    pub welds: Vec<WeldSpec>,
    /// Rigid distance joints.
    pub distances: Vec<DistanceSpec>,
    /// Sliders.
    pub lines: Vec<LineSpec>,
    /// Motors on pins.
    pub motors: Vec<MotorSpec>,
}

impl SceneDescription {
    /// Bodies at rest joined by revolute pins only, under [`GRAVITY`]: a reference scene.
    pub fn pinned(bodies: Vec<BodySpec>, joints: Vec<JointSpec>) -> SceneDescription {
        SceneDescription {
            bodies,
            joints,
            gravity: GRAVITY,
            initial_velocities: Vec::new(),
            welds: Vec::new(),
            distances: Vec::new(),
            lines: Vec::new(),
            motors: Vec::new(),
        }
    }

    /// Body `index`'s velocity at the start (zero unless [`Self::initial_velocities`]
    /// gives it).
    pub fn initial_velocity(&self, index: usize) -> Velocity {
        self.initial_velocities
            .get(index)
            .copied()
            .unwrap_or_default()
    }
}

const CHAIN_LINKS: usize = 200;

/// Scene `chain`'s links and pins with `links` links: at rest along +x, the first pinned
/// to a static body at the origin (body 0; link `i` is body `i + 1`).
pub fn horizontal_chain(links: usize) -> SceneDescription {
    chain(links, false)
}

fn chain(links: usize, hanging: bool) -> SceneDescription {
    let (half_width, half_height) = (0.5f32, 0.125f32);
    let mass = 4.0 * half_width * half_height;
    let inertia = mass * ((2.0 * half_width).powi(2) + (2.0 * half_height).powi(2)) / 12.0;
    let mut bodies = vec![BodySpec {
        mass_inertia: None,
        position: [0.0, 0.0],
        angle: 0.0,
    }];
    let mut joints = Vec::with_capacity(links);
    for i in 0..links {
        let along = 0.5 + i as f32;
        let (position, angle) = if hanging {
            ([0.0, -along], -std::f32::consts::FRAC_PI_2)
        } else {
            ([along, 0.0], 0.0)
        };
        bodies.push(BodySpec {
            mass_inertia: Some((mass, inertia)),
            position,
            angle,
        });
        let link = i + 1;
        joints.push(JointSpec {
            a: link - 1,
            b: link,
            anchor_a: if i == 0 { [0.0, 0.0] } else { [0.5, 0.0] },
            anchor_b: [-0.5, 0.0],
        });
    }
    SceneDescription::pinned(bodies, joints)
}

const GRID_SIZE: usize = 100;

fn joint_grid() -> SceneDescription {
    let radius = 0.4f32;
    let mass = std::f32::consts::PI * radius * radius;
    let inertia = 0.5 * mass * radius * radius;
    let mut bodies = Vec::with_capacity(GRID_SIZE * GRID_SIZE);
    let mut joints = Vec::with_capacity(2 * GRID_SIZE * GRID_SIZE);
    for k in 0..GRID_SIZE {
        for i in 0..GRID_SIZE {
            let pinned = i == 0 && (47..=53).contains(&k);
            let index = bodies.len();
            bodies.push(BodySpec {
                mass_inertia: (!pinned).then_some((mass, inertia)),
                position: [k as f32, -(i as f32)],
                angle: 0.0,
            });
            let mut connect = |other: usize, anchor_a: [f32; 2], anchor_b: [f32; 2]| {
                let both_static = bodies[other].mass_inertia.is_none() && pinned;
                if !both_static {
                    joints.push(JointSpec {
                        a: other,
                        b: index,
                        anchor_a,
                        anchor_b,
                    });
                }
            };
            if i > 0 {
                connect(index - 1, [0.0, -0.5], [0.0, 0.5]);
            }
            if k > 0 {
                connect(index - GRID_SIZE, [0.5, 0.0], [-0.5, 0.0]);
            }
        }
    }
    SceneDescription::pinned(bodies, joints)
}

/// A body's pose as the harness reads it back: position and the cosine and sine of the
/// angle (engines that store a rotation rather than an angle hand it over unchanged).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Position x, m.
    pub x: f64,
    /// Position y, m.
    pub y: f64,
    /// cos θ.
    pub cos: f64,
    /// sin θ.
    pub sin: f64,
}

impl Pose {
    /// A pose from a position and an angle.
    pub fn from_angle(x: f64, y: f64, angle: f64) -> Pose {
        Pose {
            x,
            y,
            cos: angle.cos(),
            sin: angle.sin(),
        }
    }

    /// The world position of a point given in the body's local frame.
    pub fn world_point(self, local: [f32; 2]) -> (f64, f64) {
        let (lx, ly) = (f64::from(local[0]), f64::from(local[1]));
        (
            self.x + self.cos * lx - self.sin * ly,
            self.y + self.sin * lx + self.cos * ly,
        )
    }
}

/// A body's velocity as the harness reads it back.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Velocity {
    /// Linear velocity x, m/s.
    pub x: f64,
    /// Linear velocity y, m/s.
    pub y: f64,
    /// Angular velocity, rad/s.
    pub angular: f64,
}

/// The largest and the mean anchor separation over a scene's joints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointError {
    /// Largest `|xA + R(θA)·lA − (xB + R(θB)·lB)|` over the joints, m.
    pub max: f64,
    /// Mean of the same over the joints, m.
    pub mean: f64,
}

/// The anchor separation of every joint, from the bodies' poses (indexed like
/// [`SceneDescription::bodies`]). A NaN separation counts as infinitely large.
pub fn joint_error(joints: &[JointSpec], poses: &[Pose]) -> JointError {
    let mut max = 0.0f64;
    let mut sum = 0.0f64;
    for joint in joints {
        let (ax, ay) = poses[joint.a].world_point(joint.anchor_a);
        let (bx, by) = poses[joint.b].world_point(joint.anchor_b);
        let mut separation = (ax - bx).hypot(ay - by);
        if separation.is_nan() {
            separation = f64::INFINITY;
        }
        max = max.max(separation);
        sum += separation;
    }
    JointError {
        max,
        mean: sum / joints.len().max(1) as f64,
    }
}

/// A weld's error counts its angle error as the arc it sweeps at this distance from the
/// weld point (1 m): separation + |Δθ|·1 m.
pub const WELD_ANGLE_ARM: f64 = 1.0;

/// Every joint's error in a scene with any kind of joint ([`constraint_error`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstraintError {
    /// Largest anchor separation over the revolute pins, m.
    pub pins: f64,
    /// Largest error over every joint with a position error (pins, welds, distance
    /// joints, sliders; motors have none), m.
    pub max: f64,
    /// Mean of the same, m.
    pub mean: f64,
}

/// The angle of a pose, rad, in (−π, π].
fn pose_angle(pose: Pose) -> f64 {
    pose.sin.atan2(pose.cos)
}

/// `angle` wrapped into (−π, π].
fn wrapped(angle: f64) -> f64 {
    let turn = std::f64::consts::TAU;
    angle - turn * (angle / turn).round()
}

/// The error of every joint of `description` from the bodies' poses: a pin's anchor
/// separation (as [`joint_error`]); a weld's anchor separation plus its angle error
/// `|θb − θa − reference|` times [`WELD_ANGLE_ARM`]; a distance joint's `|d − length|`;
/// a slider's offset of its sliding point from its line. A NaN counts as infinitely
/// large.
pub fn constraint_error(description: &SceneDescription, poses: &[Pose]) -> ConstraintError {
    let separation = |a: usize, anchor_a: [f32; 2], b: usize, anchor_b: [f32; 2]| {
        let (ax, ay) = poses[a].world_point(anchor_a);
        let (bx, by) = poses[b].world_point(anchor_b);
        (bx - ax, by - ay)
    };
    let pins = joint_error(&description.joints, poses);
    let mut errors: Vec<f64> = Vec::new();
    for weld in &description.welds {
        let (dx, dy) = separation(weld.a, weld.anchor_a, weld.b, weld.anchor_b);
        let turn =
            pose_angle(poses[weld.b]) - pose_angle(poses[weld.a]) - f64::from(weld.reference_angle);
        errors.push(dx.hypot(dy) + wrapped(turn).abs() * WELD_ANGLE_ARM);
    }
    for rod in &description.distances {
        let (dx, dy) = separation(rod.a, rod.anchor_a, rod.b, rod.anchor_b);
        errors.push((dx.hypot(dy) - f64::from(rod.length)).abs());
    }
    for line in &description.lines {
        let (dx, dy) = separation(line.a, line.anchor_a, line.b, line.anchor_b);
        let pose = poses[line.a];
        let (ux, uy) = (f64::from(line.axis[0]), f64::from(line.axis[1]));
        let (nx, ny) = (pose.cos * ux - pose.sin * uy, pose.sin * ux + pose.cos * uy);
        errors.push((nx * dy - ny * dx).abs() / nx.hypot(ny));
    }
    let mut max = pins.max;
    let mut sum = pins.mean * description.joints.len() as f64;
    for &error in &errors {
        let error = if error.is_nan() { f64::INFINITY } else { error };
        max = max.max(error);
        sum += error;
    }
    let count = description.joints.len() + errors.len();
    ConstraintError {
        pins: pins.max,
        max,
        mean: sum / count.max(1) as f64,
    }
}

/// The poses a description starts from.
pub fn initial_poses(description: &SceneDescription) -> Vec<Pose> {
    description
        .bodies
        .iter()
        .map(|body| {
            Pose::from_angle(
                f64::from(body.position[0]),
                f64::from(body.position[1]),
                f64::from(body.angle),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dynamic_count(description: &SceneDescription) -> usize {
        description
            .bodies
            .iter()
            .filter(|body| body.mass_inertia.is_some())
            .count()
    }

    #[test]
    fn joint_grid_has_the_reference_counts_and_masses() {
        let grid = Scene::JointGrid.describe();
        assert_eq!(grid.bodies.len(), 10_000);
        assert_eq!(dynamic_count(&grid), 9_993);
        assert_eq!(grid.joints.len(), 19_794);
        let (mass, inertia) = grid.bodies[1].mass_inertia.unwrap();
        assert!((f64::from(mass) - std::f64::consts::PI * 0.16).abs() < 1e-6);
        assert!((f64::from(inertia) - 0.040_212).abs() < 1e-6);
        // body index k·100 + i sits at (k, −i); (50, 0) is pinned, (50, 1) is not.
        assert_eq!(grid.bodies[50 * 100].position, [50.0, 0.0]);
        assert!(grid.bodies[50 * 100].mass_inertia.is_none());
        assert!(grid.bodies[50 * 100 + 1].mass_inertia.is_some());
    }

    #[test]
    fn chains_have_the_reference_counts_and_masses() {
        for scene in [Scene::Chain, Scene::ChainHang] {
            let chain = scene.describe();
            assert_eq!(chain.bodies.len(), 201);
            assert_eq!(dynamic_count(&chain), 200);
            assert_eq!(chain.joints.len(), 200);
            let (mass, inertia) = chain.bodies[1].mass_inertia.unwrap();
            assert_eq!(mass, 0.25);
            assert!((f64::from(inertia) - 0.022_135_416).abs() < 1e-8);
        }
    }

    #[test]
    fn every_scene_starts_with_its_joints_satisfied() {
        for scene in Scene::ALL {
            let description = scene.describe();
            let error = joint_error(&description.joints, &initial_poses(&description));
            assert!(error.max < 1e-6, "{scene}: {error:?}");
        }
    }

    #[test]
    fn a_displaced_body_shows_as_its_displacement() {
        let description = Scene::ChainHang.describe();
        let mut poses = initial_poses(&description);
        poses[200].x += 0.25;
        let error = joint_error(&description.joints, &poses);
        assert!((error.max - 0.25).abs() < 1e-6);
        assert!((error.mean - 0.25 / 200.0).abs() < 1e-7);
        poses[10].y = f64::NAN;
        assert_eq!(joint_error(&description.joints, &poses).max, f64::INFINITY);
    }
}
