//! Boxes and balls fall onto a rack and pinion, a pulley and a ragdoll, all jointed by
//! nape and colliding through Avian.
//!
//! `cargo run --manifest-path nape-avian/Cargo.toml --example playground -- --headless`
//! steps 10 s without a window and prints the worst joint error of each kind and the
//! step time; with `--features window` (Bevy's renderer) and no `--headless` it opens a
//! window instead.

use std::time::{Duration, Instant};

use avian2d::prelude::*;
use bevy::prelude::*;
use nape::{AngleJoint, BodyHandle, Constraint, LineJoint, PivotJoint, PulleyJoint, constraint};
use nape_avian::{NapeJoint, NapeJointState, NapeJointsAppExt, headless_app, slots};

/// The rack's position along x follows the pinion's turning: `x₂ − radius·θ₁` is fixed.
#[constraint(position = body2.position.x - radius * body1.angle - offset)]
#[derive(Clone, Copy, Debug)]
struct RackAndPinion {
    body1: BodyHandle,
    body2: BodyHandle,
    radius: f32,
    offset: f32,
}

const DT: f32 = 1.0 / 60.0;

fn main() {
    let headless = std::env::args().any(|a| a == "--headless") || !cfg!(feature = "window");
    if headless {
        run_headless();
    } else {
        #[cfg(feature = "window")]
        App::new()
            .add_plugins((
                DefaultPlugins,
                PhysicsPlugins::default(),
                PhysicsDebugPlugin,
                nape_avian::NapeJointsPlugin,
            ))
            .add_nape_joint::<RackAndPinion, _, _>()
            .insert_resource(Gravity(Vec2::new(0.0, -9.81)))
            .add_systems(Startup, |mut commands: Commands| {
                commands.spawn((Camera2d, Transform::from_scale(Vec3::splat(0.02))));
                build_scene(&mut commands);
            })
            .run();
    }
}

fn run_headless() {
    let mut app = headless_app(DT);
    app.add_nape_joint::<RackAndPinion, _, _>()
        .insert_resource(Gravity(Vec2::new(0.0, -9.81)))
        .add_systems(Startup, |mut commands: Commands| build_scene(&mut commands));
    app.finish();
    app.update();
    let mut busy = Duration::ZERO;
    for step in 1..=600 {
        let start = Instant::now();
        app.update();
        busy += start.elapsed();
        if step % 120 == 0 {
            let world = app.world_mut();
            println!(
                "t = {:4.1} s  worst error: pivot {:.1e} m, angle limit {:.1e} rad, slider {:.1e} m, pulley {:.1e} m, rack {:.1e} m  |  {:.3} ms per step",
                step as f32 * DT,
                worst::<PivotJoint, 2, 2>(world),
                worst::<AngleJoint, 1, 2>(world),
                worst::<LineJoint, 2, 2>(world),
                worst::<PulleyJoint, 1, 4>(world),
                worst::<RackAndPinion, 1, 2>(world),
                busy.as_secs_f64() * 1e3 / 120.0,
            );
            busy = Duration::ZERO;
        }
    }
}

/// The largest error among the joints of type `C`.
fn worst<C: Constraint<D, B>, const D: usize, const B: usize>(world: &mut World) -> f32 {
    let mut query = world.query::<&NapeJointState<C, D, B>>();
    query
        .iter(world)
        .map(NapeJointState::error)
        .fold(0.0, f32::max)
}

fn joint<C: Constraint<D, B>, const D: usize, const B: usize>(
    commands: &mut Commands,
    constraint: C,
    bodies: [Entity; B],
) {
    commands.spawn((NapeJoint::new(constraint, bodies), JointCollisionDisabled));
}

fn v(x: f32, y: f32) -> nape::Vec2 {
    nape::Vec2::new(x, y)
}

fn build_scene(commands: &mut Commands) {
    // Joints name this static body at the origin: its local points are world points.
    let world = commands
        .spawn((RigidBody::Static, Position::default()))
        .id();
    commands.spawn((
        RigidBody::Static,
        Position::from_xy(0.0, -0.25),
        Collider::rectangle(24.0, 0.5),
    ));
    rack_and_pinion(commands, world, Vec2::new(-6.0, 3.0));
    pulley(commands, world, Vec2::new(0.0, 5.0));
    ragdoll(commands, Vec2::new(6.0, 3.0));
    for i in 0..24 {
        let at = Vec2::new(-9.0 + 0.8 * i as f32, 8.0 + 0.7 * (i % 3) as f32);
        let collider = if i % 2 == 0 {
            Collider::rectangle(0.4, 0.4)
        } else {
            Collider::circle(0.22)
        };
        commands.spawn((RigidBody::Dynamic, Position(at), collider));
    }
}

fn rack_and_pinion(commands: &mut Commands, world: Entity, at: Vec2) {
    let radius = 0.6;
    let [a, b] = slots();
    let pinion = commands
        .spawn((RigidBody::Dynamic, Position(at), Collider::circle(radius)))
        .id();
    joint(
        commands,
        PivotJoint::new(a, b, v(at.x, at.y), v(0.0, 0.0)),
        [world, pinion],
    );
    let rack_at = at - Vec2::new(0.0, radius + 0.15);
    let rack = commands
        .spawn((
            RigidBody::Dynamic,
            Position(rack_at),
            Collider::rectangle(4.0, 0.3),
        ))
        .id();
    let slide = LineJoint::new(
        a,
        b,
        v(rack_at.x, rack_at.y),
        v(0.0, 0.0),
        nape::Vec2::X,
        -1.5,
        1.5,
    );
    joint(commands, slide, [world, rack]);
    joint(commands, AngleJoint::new(a, b, 0.0, 0.0), [world, rack]);
    let gear = RackAndPinion {
        body1: a,
        body2: b,
        radius,
        offset: rack_at.x,
    };
    joint(commands, gear, [pinion, rack]);
}

fn pulley(commands: &mut Commands, world: Entity, top: Vec2) {
    let [a, b, c, d] = slots();
    let platform = |commands: &mut Commands, x: f32, y: f32| {
        commands
            .spawn((
                RigidBody::Dynamic,
                Position::from_xy(x, y),
                Collider::rectangle(1.6, 0.2),
                LockedAxes::ROTATION_LOCKED,
            ))
            .id()
    };
    let left = platform(commands, top.x - 1.5, top.y - 3.0);
    let right = platform(commands, top.x + 1.5, top.y - 2.0);
    let pulley = PulleyJoint {
        body1: a,
        body2: b,
        body3: c,
        body4: d,
        anchor1: v(top.x - 1.5, top.y),
        anchor2: v(0.0, 0.0),
        anchor3: v(top.x + 1.5, top.y),
        anchor4: v(0.0, 0.0),
        joint_min: 0.0,
        joint_max: 5.0,
        ratio: 1.0,
    };
    joint(commands, pulley, [world, left, world, right]);
}

/// A torso, a head, and two-piece arms and legs, pinned with limited bends.
fn ragdoll(commands: &mut Commands, at: Vec2) {
    let [a, b] = slots();
    let part = |commands: &mut Commands, offset: Vec2, collider: Collider| {
        commands
            .spawn((RigidBody::Dynamic, Position(at + offset), collider))
            .id()
    };
    let torso = part(commands, Vec2::ZERO, Collider::capsule(0.18, 0.5));
    let head = part(commands, Vec2::new(0.0, 0.62), Collider::circle(0.18));
    let bend = |commands: &mut Commands,
                parent: Entity,
                child: Entity,
                on_parent: Vec2,
                on_child: Vec2,
                range: (f32, f32)| {
        joint(
            commands,
            PivotJoint::new(a, b, v(on_parent.x, on_parent.y), v(on_child.x, on_child.y)),
            [parent, child],
        );
        joint(
            commands,
            AngleJoint::new(a, b, range.0, range.1),
            [parent, child],
        );
    };
    bend(
        commands,
        torso,
        head,
        Vec2::new(0.0, 0.43),
        Vec2::new(0.0, -0.19),
        (-0.5, 0.5),
    );
    for side in [-1.0f32, 1.0] {
        let upper_arm = part(
            commands,
            Vec2::new(0.3 * side, 0.15),
            Collider::capsule(0.07, 0.25),
        );
        let lower_arm = part(
            commands,
            Vec2::new(0.3 * side, -0.25),
            Collider::capsule(0.06, 0.25),
        );
        bend(
            commands,
            torso,
            upper_arm,
            Vec2::new(0.3 * side, 0.35),
            Vec2::new(0.0, 0.2),
            (-2.5, 2.5),
        );
        bend(
            commands,
            upper_arm,
            lower_arm,
            Vec2::new(0.0, -0.2),
            Vec2::new(0.0, 0.2),
            (-2.0, 0.0),
        );
        let thigh = part(
            commands,
            Vec2::new(0.1 * side, -0.65),
            Collider::capsule(0.08, 0.3),
        );
        let shin = part(
            commands,
            Vec2::new(0.1 * side, -1.1),
            Collider::capsule(0.07, 0.3),
        );
        bend(
            commands,
            torso,
            thigh,
            Vec2::new(0.1 * side, -0.4),
            Vec2::new(0.0, 0.25),
            (-1.5, 0.5),
        );
        bend(
            commands,
            thigh,
            shin,
            Vec2::new(0.0, -0.22),
            Vec2::new(0.0, 0.22),
            (0.0, 2.0),
        );
    }
}
