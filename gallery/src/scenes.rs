//! The gallery's scenes: one per builtin joint, one per custom joint of [`crate::joints`], and
//! a Peaucellier–Lipkin linkage, under gravity (0, −10), in metres.

use std::f32::consts::PI;

use nape::{
    AngleJoint, Body, BodyHandle, DistanceJoint, Error, LineJoint, MotorJoint, PivotJoint,
    PulleyJoint, Vec2, WeldJoint,
};

use crate::joints::{self, CamFollower, Differential, EllipseBead, Midpoint, RackAndPinion};
use crate::world::{Shape, World};

/// A scene of the gallery.
#[derive(Clone, Copy, Debug)]
pub struct SceneInfo {
    /// Short name, for `--scene` and file names.
    pub name: &'static str,
    /// Heading.
    pub title: &'static str,
    /// What happens in it.
    pub about: &'static str,
    /// The joints it shows off: type name and the text of the file declaring it.
    pub joints: &'static [(&'static str, &'static str)],
    /// Builds the scene at time 0.
    pub build: fn() -> Result<World, Error>,
}

impl SceneInfo {
    /// The declarations of the joints the scene shows off, one after the other.
    #[must_use]
    pub fn joint_source(&self) -> String {
        self.joints
            .iter()
            .filter_map(|(name, source)| joints::declaration(source, name))
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// Whether the scene's joints are the gallery's own (not builtins).
    #[must_use]
    pub fn is_custom(&self) -> bool {
        self.joints
            .iter()
            .all(|(_, source)| *source == joints::SOURCE)
    }
}

/// The scene called `name`.
#[must_use]
pub fn find(name: &str) -> Option<&'static SceneInfo> {
    SCENES.iter().find(|s| s.name == name)
}

const PIVOT: &str = include_str!("../../nape-core/src/joints/pivot.rs");
const WELD: &str = include_str!("../../nape-core/src/joints/weld.rs");
const ANGLE: &str = include_str!("../../nape-core/src/joints/angle.rs");
const DISTANCE: &str = include_str!("../../nape-core/src/joints/distance.rs");
const LINE: &str = include_str!("../../nape-core/src/joints/line.rs");
const MOTOR: &str = include_str!("../../nape-core/src/joints/motor.rs");
const PULLEY: &str = include_str!("../../nape-core/src/joints/pulley.rs");
const CUSTOM: &str = joints::SOURCE;

/// Every scene: one per builtin joint, one per custom joint, then a mechanism of builtins.
pub const SCENES: &[SceneInfo] = &[
    SceneInfo {
        name: "pivot",
        title: "PivotJoint: a six-link chain",
        about: "Six rods pinned end to end, released horizontal.",
        joints: &[("PivotJoint", PIVOT)],
        build: chain,
    },
    SceneInfo {
        name: "weld",
        title: "WeldJoint: an L-shaped pendulum",
        about: "Two rods and a block welded into one rigid piece, swinging on a pivot.",
        joints: &[("WeldJoint", WELD)],
        build: welded_pendulum,
    },
    SceneInfo {
        name: "angle",
        title: "AngleJoint: limited hinges",
        about: "A pendulum of two rods whose hinges bend at most 0.6 rad either side of hanging and 0.9 rad, released from the side: the limits stop its swings.",
        joints: &[("AngleJoint", ANGLE)],
        build: limited_hinges,
    },
    SceneInfo {
        name: "distance",
        title: "DistanceJoint: a rope and a rod",
        about: "Left, a weight thrown up on a 2.5 m rope that goes slack and snaps taut; right, a pendulum on a rigid 1.8 m rod.",
        joints: &[("DistanceJoint", DISTANCE)],
        build: rope_and_rod,
    },
    SceneInfo {
        name: "line",
        title: "LineJoint: a cart on a tilted rail",
        about: "A cart sliding on a rail tilted 20° with stops 2.5 m either side, a pendulum swinging under it.",
        joints: &[("LineJoint", LINE)],
        build: cart_on_rail,
    },
    SceneInfo {
        name: "motor",
        title: "MotorJoint: a slider-crank",
        about: "A wheel driven at 2 rad/s pushes a piston along a line through a connecting rod.",
        joints: &[("MotorJoint", MOTOR)],
        build: slider_crank,
    },
    SceneInfo {
        name: "pulley",
        title: "PulleyJoint: two weights over two hooks",
        about: "1 kg and 2 kg on one 3.75 m rope over two hooks; the heavy one swings as it falls, until the light one reaches its stop 0.3 m below its hook.",
        joints: &[("PulleyJoint", PULLEY)],
        build: pulley,
    },
    SceneInfo {
        name: "ellipse",
        title: "EllipseBead: a bead on a rotating ellipse",
        about: "A bead sliding under gravity on an elliptical wire that a motor spins at 0.8 rad/s.",
        joints: &[("EllipseBead", CUSTOM)],
        build: ellipse_bead,
    },
    SceneInfo {
        name: "cam",
        title: "CamFollower: a two-lobed cam",
        about: "A motor turns a two-lobed cam; the follower, on a vertical slider, rides its profile.",
        joints: &[("CamFollower", CUSTOM)],
        build: cam,
    },
    SceneInfo {
        name: "rack",
        title: "RackAndPinion: an unbalanced pinion",
        about: "A pinion with a weight welded off-centre swings like a pendulum and drives a rack back and forth.",
        joints: &[("RackAndPinion", CUSTOM)],
        build: rack_and_pinion,
    },
    SceneInfo {
        name: "midpoint",
        title: "Midpoint: halfway between two pendulums",
        about: "Two pendulums of different lengths; a third body is held at the midpoint of their bobs (three slots).",
        joints: &[("Midpoint", CUSTOM)],
        build: midpoint,
    },
    SceneInfo {
        name: "differential",
        title: "Differential: three wheels",
        about: "The carrier (centre) is driven at 1 rad/s; the left wheel, unbalanced, swings; the right one turns to keep θ₁ + θ₂ = 2θ₃.",
        joints: &[("Differential", CUSTOM)],
        build: differential,
    },
    SceneInfo {
        name: "peaucellier",
        title: "Peaucellier–Lipkin linkage: a straight line from rotation",
        about: "Six rods and a crank, all pinned. Two 3 m rods from the fixed pivot O hold a rhombus of 1.5 m rods whose corners C and P stay on one ray from O with OC·OP = 3² − 1.5²: P is C's inverse. The crank, 1.15 m long on a pivot 1.15 m from O, keeps C on a circle through O, whose inverse is a straight line 2.93 m from O (the faint band), so P, its path drawn in teal, moves straight. A motor swings the crank 60° either side and back every 6 s, its rate set each step to follow a sine (at most 1.1 rad/s): a full turn cannot be made, as C would have to come within 1.5 m of O, where the rhombus folds flat, and a sine turns back without a jolt.",
        joints: &[("PivotJoint", PIVOT), ("MotorJoint", MOTOR)],
        build: peaucellier,
    },
];

fn chain() -> Result<World, Error> {
    let mut w = World::new(Vec2::new(-6.5, -7.0), Vec2::new(6.5, 1.0));
    let mut previous = (w.hook(Vec2::ZERO)?, Vec2::ZERO);
    for i in 0..6 {
        let centre = Vec2::new(i as f32 + 0.5, 0.0);
        let link = w.body(
            Body::rectangle(1.0, 0.12, 10.0).at(centre),
            Shape::rectangle(1.0, 0.12),
        )?;
        let half = Vec2::new(0.5, 0.0);
        w.joint(PivotJoint::new(previous.0, link, previous.1, -half))?;
        previous = (link, half);
    }
    Ok(w)
}

fn welded_pendulum() -> Result<World, Error> {
    let mut w = World::new(Vec2::new(-3.5, -3.5), Vec2::new(3.5, 1.0));
    let hook = w.hook(Vec2::ZERO)?;
    let arm = w.body(
        Body::rectangle(2.0, 0.16, 5.0).at(Vec2::new(1.0, 0.0)),
        Shape::rectangle(2.0, 0.16),
    )?;
    let leg = w.body(
        Body::rectangle(0.16, 1.2, 5.0).at(Vec2::new(2.0, -0.6)),
        Shape::rectangle(0.16, 1.2),
    )?;
    let foot = w.body(
        Body::rectangle(0.6, 0.6, 5.0).at(Vec2::new(2.0, -1.5)),
        Shape::rectangle(0.6, 0.6),
    )?;
    w.joint(PivotJoint::new(hook, arm, Vec2::ZERO, Vec2::new(-1.0, 0.0)))?;
    w.joint(WeldJoint::new(
        arm,
        leg,
        Vec2::new(1.0, 0.0),
        Vec2::new(0.0, 0.6),
        0.0,
    ))?;
    w.joint(WeldJoint::new(
        leg,
        foot,
        Vec2::new(0.0, -0.6),
        Vec2::new(0.0, 0.3),
        0.0,
    ))?;
    Ok(w)
}

fn limited_hinges() -> Result<World, Error> {
    let mut w = World::new(Vec2::new(-3.5, -3.8), Vec2::new(3.5, 0.8));
    let hook = w.hook(Vec2::ZERO)?;
    // Rods along their local x axis; hanging is an angle of −π/2.
    let hanging = -std::f32::consts::FRAC_PI_2;
    let end = Vec2::new(0.8, 0.0);
    let (first_angle, second_angle) = (hanging + 0.5, hanging + 1.2);
    let first_centre = Vec2::from_angle(first_angle).rotate(end);
    let second_centre = 2.0 * first_centre + Vec2::from_angle(second_angle).rotate(end);
    let rod = |centre: Vec2, angle: f32| {
        Body::rectangle(1.6, 0.14, 5.0)
            .at(centre)
            .with_angle(f64::from(angle))
    };
    let first = w.body(rod(first_centre, first_angle), Shape::rectangle(1.6, 0.14))?;
    let second = w.body(
        rod(second_centre, second_angle),
        Shape::rectangle(1.6, 0.14),
    )?;
    w.joint(PivotJoint::new(hook, first, Vec2::ZERO, -end))?;
    w.joint(PivotJoint::new(first, second, end, -end))?;
    w.joint(AngleJoint::new(hook, first, hanging - 0.6, hanging + 0.6))?;
    w.joint(AngleJoint::new(first, second, -0.9, 0.9))?;
    Ok(w)
}

fn rope_and_rod() -> Result<World, Error> {
    let mut w = World::new(Vec2::new(-4.5, -3.5), Vec2::new(4.5, 2.5));
    let left = w.hook(Vec2::new(-1.5, 0.0))?;
    let right = w.hook(Vec2::new(1.5, 0.0))?;
    let thrown = w.body(
        Body::circle(0.25, 5.0)
            .at(Vec2::new(-2.5, -0.5))
            .with_velocity(Vec2::new(1.0, 6.0)),
        Shape::circle(0.25),
    )?;
    let bob = w.body(
        Body::circle(0.2, 5.0).at(Vec2::new(3.3, 0.0)),
        Shape::circle(0.2),
    )?;
    w.joint(DistanceJoint::new(
        left,
        thrown,
        Vec2::ZERO,
        Vec2::ZERO,
        0.0,
        2.5,
    ))?;
    w.joint(DistanceJoint::new(
        right,
        bob,
        Vec2::ZERO,
        Vec2::ZERO,
        1.8,
        1.8,
    ))?;
    Ok(w)
}

fn cart_on_rail() -> Result<World, Error> {
    let mut w = World::new(Vec2::new(-3.5, -3.0), Vec2::new(3.5, 1.8));
    let rail = w.hook(Vec2::ZERO)?;
    let cart = w.body(
        Body::rectangle(0.8, 0.4, 5.0).with_velocity(Vec2::new(-2.0, 0.7)),
        Shape::rectangle(0.8, 0.4),
    )?;
    let bob = w.body(
        Body::circle(0.2, 5.0).at(Vec2::new(1.2, 0.0)),
        Shape::circle(0.2),
    )?;
    let direction = Vec2::from_angle((-20.0f32).to_radians());
    w.joint(LineJoint::new(
        rail,
        cart,
        Vec2::ZERO,
        Vec2::ZERO,
        direction,
        -2.5,
        2.5,
    ))?;
    w.joint(DistanceJoint::new(
        cart,
        bob,
        Vec2::ZERO,
        Vec2::ZERO,
        1.2,
        1.2,
    ))?;
    Ok(w)
}

fn slider_crank() -> Result<World, Error> {
    let mut w = World::new(Vec2::new(-1.5, -1.6), Vec2::new(4.5, 1.6));
    let frame = w.hook(Vec2::ZERO)?;
    let wheel = w.body(Body::circle(0.8, 2.0), Shape::circle(0.8))?;
    let rod = w.body(
        Body::rectangle(2.4, 0.12, 2.0).at(Vec2::new(1.8, 0.0)),
        Shape::rectangle(2.4, 0.12),
    )?;
    let piston = w.body(
        Body::rectangle(0.6, 0.4, 2.0).at(Vec2::new(3.0, 0.0)),
        Shape::rectangle(0.6, 0.4),
    )?;
    let half_rod = Vec2::new(1.2, 0.0);
    w.joint(PivotJoint::new(frame, wheel, Vec2::ZERO, Vec2::ZERO))?;
    w.joint(MotorJoint::new(frame, wheel, 2.0))?;
    w.joint(PivotJoint::new(wheel, rod, Vec2::new(0.6, 0.0), -half_rod))?;
    w.joint(PivotJoint::new(rod, piston, half_rod, Vec2::ZERO))?;
    w.joint(LineJoint::new(
        frame,
        piston,
        Vec2::ZERO,
        Vec2::ZERO,
        Vec2::X,
        1.0,
        4.0,
    ))?;
    Ok(w)
}

fn pulley() -> Result<World, Error> {
    let mut w = World::new(Vec2::new(-3.0, -4.5), Vec2::new(3.0, 1.0));
    let left = w.hook(Vec2::new(-1.0, 0.0))?;
    let right = w.hook(Vec2::new(1.0, 0.0))?;
    let light = w.body(
        Body::dynamic(1.0, 0.02).at(Vec2::new(-1.0, -2.0)),
        Shape::circle(0.2),
    )?;
    let heavy = w.body(
        Body::dynamic(2.0, 0.08)
            .at(Vec2::new(1.0, -2.0))
            .with_velocity(Vec2::new(1.5, 0.0)),
        Shape::rectangle(0.5, 0.5),
    )?;
    w.joint(PulleyJoint {
        body1: left,
        body2: light,
        body3: right,
        body4: heavy,
        anchor1: Vec2::ZERO,
        anchor2: Vec2::ZERO,
        anchor3: Vec2::ZERO,
        anchor4: Vec2::new(0.0, 0.25),
        joint_min: 0.0,
        joint_max: 3.75,
        ratio: 1.0,
    })?;
    // The light weight stops short of its hook, as it would at a pulley's wheel: a span of
    // zero length has no direction.
    w.joint(DistanceJoint::new(
        left,
        light,
        Vec2::ZERO,
        Vec2::ZERO,
        0.3,
        f32::INFINITY,
    ))?;
    Ok(w)
}

fn ellipse_bead() -> Result<World, Error> {
    let mut w = World::new(Vec2::new(-2.8, -2.8), Vec2::new(2.8, 2.8));
    let hub = w.hook(Vec2::ZERO)?;
    let radii = Vec2::new(2.0, 1.0);
    let wire = w.body(Body::dynamic(20.0, 20.0), Shape::Ellipse { radii })?;
    let bead = w.body(
        Body::circle(0.15, 5.0).at(Vec2::new(radii.x, 0.0)),
        Shape::circle(0.15),
    )?;
    w.joint(PivotJoint::new(hub, wire, Vec2::ZERO, Vec2::ZERO))?;
    w.joint(MotorJoint::new(hub, wire, 0.8))?;
    w.joint(EllipseBead {
        body1: wire,
        body2: bead,
        a: radii.x,
        b: radii.y,
    })?;
    Ok(w)
}

fn cam() -> Result<World, Error> {
    let (base, lift, offset) = (1.0, 0.3, 0.6);
    let mut w = World::new(Vec2::new(-2.2, -1.6), Vec2::new(2.2, 3.0));
    let frame = w.hook(Vec2::ZERO)?;
    let profile = (0..64)
        .map(|i| {
            let phi = i as f32 / 64.0 * 2.0 * PI;
            (base + lift * (2.0 * phi).cos()) * Vec2::from_angle(phi)
        })
        .collect();
    let cam = w.body(
        Body::dynamic(5.0, 2.5),
        Shape::Polygon { vertices: profile },
    )?;
    let follower = w.body(
        Body::rectangle(0.3, 2.0 * offset, 2.0).at(Vec2::new(0.0, base - lift + offset)),
        Shape::rectangle(0.3, 2.0 * offset),
    )?;
    w.joint(PivotJoint::new(frame, cam, Vec2::ZERO, Vec2::ZERO))?;
    w.joint(MotorJoint::new(frame, cam, 1.5))?;
    w.joint(LineJoint::new(
        frame,
        follower,
        Vec2::ZERO,
        Vec2::ZERO,
        Vec2::Y,
        0.5,
        2.5,
    ))?;
    w.joint(CamFollower {
        body1: cam,
        body2: follower,
        base,
        lift,
        offset,
    })?;
    Ok(w)
}

fn rack_and_pinion() -> Result<World, Error> {
    let radius = 0.5;
    let mut w = World::new(Vec2::new(-3.0, -1.0), Vec2::new(3.0, 2.0));
    let frame = w.hook(Vec2::ZERO)?;
    let axle = w.hook(Vec2::new(0.0, 0.12 + radius))?;
    let rack = w.body(Body::rectangle(5.0, 0.24, 1.0), Shape::rectangle(5.0, 0.24))?;
    let pinion = w.body(
        Body::circle(radius, 2.0).at(Vec2::new(0.0, 0.12 + radius)),
        Shape::circle(radius),
    )?;
    let weight = w.body(
        Body::circle(0.15, 20.0).at(Vec2::new(0.35, 0.12 + radius)),
        Shape::circle(0.15),
    )?;
    w.joint(LineJoint::new(
        frame,
        rack,
        Vec2::ZERO,
        Vec2::ZERO,
        Vec2::X,
        -2.0,
        2.0,
    ))?;
    w.joint(PivotJoint::new(axle, pinion, Vec2::ZERO, Vec2::ZERO))?;
    w.joint(WeldJoint::new(
        pinion,
        weight,
        Vec2::new(0.35, 0.0),
        Vec2::ZERO,
        0.0,
    ))?;
    w.joint(RackAndPinion {
        body1: pinion,
        body2: rack,
        radius,
        offset: 0.0,
    })?;
    Ok(w)
}

fn midpoint() -> Result<World, Error> {
    let mut w = World::new(Vec2::new(-4.5, -3.5), Vec2::new(4.5, 1.0));
    let left = w.hook(Vec2::new(-2.0, 0.0))?;
    let right = w.hook(Vec2::new(2.0, 0.0))?;
    let (a, b) = (Vec2::new(-3.5, 0.0), Vec2::new(2.0, -2.2));
    let bob1 = w.body(Body::circle(0.2, 5.0).at(a), Shape::circle(0.2))?;
    let bob2 = w.body(
        Body::circle(0.2, 5.0)
            .at(b)
            .with_velocity(Vec2::new(3.0, 0.0)),
        Shape::circle(0.2),
    )?;
    let middle = w.body(
        Body::circle(0.15, 5.0).at(0.5 * (a + b)),
        Shape::circle(0.15),
    )?;
    w.joint(DistanceJoint::new(
        left,
        bob1,
        Vec2::ZERO,
        Vec2::ZERO,
        1.5,
        1.5,
    ))?;
    w.joint(DistanceJoint::new(
        right,
        bob2,
        Vec2::ZERO,
        Vec2::ZERO,
        2.2,
        2.2,
    ))?;
    w.joint(Midpoint {
        body1: bob1,
        body2: bob2,
        body3: middle,
    })?;
    Ok(w)
}

fn differential() -> Result<World, Error> {
    let mut w = World::new(Vec2::new(-3.4, -1.5), Vec2::new(3.4, 1.5));
    let centres = [Vec2::new(-2.2, 0.0), Vec2::new(2.2, 0.0), Vec2::ZERO];
    let radii = [0.8, 0.8, 0.6];
    let mut wheels = Vec::new();
    for (centre, radius) in centres.into_iter().zip(radii) {
        let axle = w.hook(centre)?;
        let wheel = w.body(Body::circle(radius, 1.0).at(centre), Shape::circle(radius))?;
        w.joint(PivotJoint::new(axle, wheel, Vec2::ZERO, Vec2::ZERO))?;
        wheels.push((axle, wheel));
    }
    let weight = w.body(
        Body::circle(0.15, 20.0).at(centres[0] + Vec2::new(0.55, 0.0)),
        Shape::circle(0.15),
    )?;
    w.joint(WeldJoint::new(
        wheels[0].1,
        weight,
        Vec2::new(0.55, 0.0),
        Vec2::ZERO,
        0.0,
    ))?;
    w.joint(MotorJoint::new(wheels[2].0, wheels[2].1, 1.0))?;
    w.joint(Differential {
        body1: wheels[0].1,
        body2: wheels[1].1,
        body3: wheels[2].1,
    })?;
    Ok(w)
}

/// The Peaucellier–Lipkin linkage's long rods (from O), its rhombus's sides, its crank (also
/// the crank pivot Q's distance from O), how far the crank swings either side of OQ, and
/// the period of a swing there and back (the gallery's six seconds: its animation loops
/// seamlessly).
const LONG: f32 = 3.0;
const SIDE: f32 = 1.5;
const CRANK: f32 = 1.15;
const SWING: f32 = PI / 3.0;
const PERIOD: f32 = 6.0;

/// How far from O the Peaucellier–Lipkin linkage's tracer P moves, on a line across OQ:
/// inverting with `OC·OP = LONG² − SIDE²` maps the crank's circle through O, of diameter
/// `2·CRANK`, to the line at `(LONG² − SIDE²) / (2·CRANK)`.
const LINE_AT: f32 = (LONG * LONG - SIDE * SIDE) / (2.0 * CRANK);

/// The linkage's moving joints when the crank is turned `theta` from OQ, with O at the
/// origin and Q above it: C (the crank's end), the rhombus's side corners A and B, and P.
fn peaucellier_joints(theta: f32) -> [Vec2; 4] {
    let q = Vec2::new(0.0, CRANK);
    let c = q + CRANK * Vec2::from_angle(theta).rotate(Vec2::Y);
    let (oc, ray) = (c.length(), c.normalize());
    let op = (LONG * LONG - SIDE * SIDE) / oc;
    // The rhombus's diagonals cross at M, halfway along CP, with A and B either side.
    let om = 0.5 * (oc + op);
    let half_ab = (LONG * LONG - om * om).sqrt();
    let m = om * ray;
    [
        c,
        m + half_ab * ray.perp(),
        m - half_ab * ray.perp(),
        op * ray,
    ]
}

fn peaucellier() -> Result<World, Error> {
    let mut w = World::new(Vec2::new(-3.2, -0.8), Vec2::new(3.2, 3.9));
    let (o, q) = (Vec2::ZERO, Vec2::new(0.0, CRANK));
    // The swing starts at rest with the crank turned −60°, P at the line's right end.
    let [c, a, b, p] = peaucellier_joints(-SWING);
    let pivot_o = w.hook(o)?;
    let pivot_q = w.hook(q)?;
    // A rod from `from` to `to` along its local x axis, with its ends' local points.
    struct Rod {
        body: BodyHandle,
        start: Vec2,
        end: Vec2,
    }
    let mut rod = |from: Vec2, to: Vec2, length: f32, width: f32| {
        let along = to - from;
        let body = Body::rectangle(length, width, 5.0)
            .at(0.5 * (from + to))
            .with_angle(f64::from(along.y.atan2(along.x)));
        let end = Vec2::new(0.5 * length, 0.0);
        w.body(body, Shape::rectangle(length, width))
            .map(|body| Rod {
                body,
                start: -end,
                end,
            })
    };
    let crank = rod(q, c, CRANK, 0.16)?;
    let oa = rod(o, a, LONG, 0.1)?;
    let ob = rod(o, b, LONG, 0.1)?;
    let ac = rod(a, c, SIDE, 0.1)?;
    let bc = rod(b, c, SIDE, 0.1)?;
    let ap = rod(a, p, SIDE, 0.1)?;
    let bp = rod(b, p, SIDE, 0.1)?;
    for (hook, rod) in [(pivot_o, &oa), (pivot_o, &ob), (pivot_q, &crank)] {
        w.joint(PivotJoint::new(hook, rod.body, Vec2::ZERO, rod.start))?;
    }
    // Rod ends pinned together, (body, local point) pairs: at A, B, C and P.
    let pins = [
        ((oa.body, oa.end), (ac.body, ac.start)),
        ((oa.body, oa.end), (ap.body, ap.start)),
        ((ob.body, ob.end), (bc.body, bc.start)),
        ((ob.body, ob.end), (bp.body, bp.start)),
        ((crank.body, crank.end), (ac.body, ac.end)),
        ((crank.body, crank.end), (bc.body, bc.end)),
        ((ap.body, ap.end), (bp.body, bp.end)),
    ];
    for ((body1, anchor1), (body2, anchor2)) in pins {
        w.joint(PivotJoint::new(body1, body2, anchor1, anchor2))?;
    }
    let motor = w.joint(MotorJoint::new(pivot_q, crank.body, 0.0))?;
    // The crank's angle is its rod's, from the +x axis, and OQ is +y. Each step's rate is
    // the swing's, with a tenth of a second's pull back to it so the solver's strays (or a
    // drag's) do not accumulate.
    let (crank_body, mut time) = (crank.body, 0.0f32);
    w.control(move |space, dt| {
        let theta = space.body(crank_body)?.angle() as f32 - PI / 2.0;
        let phase = 2.0 * PI / PERIOD;
        let goal = -SWING * (phase * time).cos();
        let rate = SWING * phase * (phase * (time + 0.5 * dt)).sin() + (goal - theta) / 0.1;
        time += dt;
        space.update_constraint(motor, |m| m.rate = rate)
    });
    let reach = LINE_AT * (SWING / 2.0).tan();
    w.trace(
        ap.body,
        ap.end,
        Some((Vec2::new(-reach, LINE_AT), Vec2::new(reach, LINE_AT))),
    );
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scene_builds_and_shows_its_joint_source() {
        // One per builtin joint, and the Peaucellier–Lipkin linkage of pivots and a motor.
        assert!(SCENES.iter().filter(|s| !s.is_custom()).count() == 8);
        assert!(SCENES.iter().filter(|s| s.is_custom()).count() >= 4);
        for scene in SCENES {
            let world = (scene.build)().unwrap();
            assert!(world.joint_count() > 0, "{}", scene.name);
            let source = scene.joint_source();
            assert!(source.contains("#[constraint("), "{}: {source}", scene.name);
            let mut world = world;
            for _ in 0..60 {
                world.step(1.0 / 60.0);
            }
            let worst = world.worst_violation();
            assert!(worst < 1e-3, "{}: {worst} after 1 s", scene.name);
        }
    }

    /// The tracer P stays on its line over the gallery's six seconds while the crank swings
    /// it from one end of the line to the other and back. The iterative solver leaves the
    /// loops' pins up to a millimetre apart and P a few millimetres off its line; an exact
    /// solve of the loops would hold P as tightly as a tree's joints.
    #[test]
    fn the_peaucellier_tracer_holds_its_line() {
        // The joints' closed form is the linkage it builds, at any crank angle.
        for theta in [-SWING, -0.3, 0.0, 0.7, SWING] {
            let [c, a, b, p] = peaucellier_joints(theta);
            let q = Vec2::new(0.0, CRANK);
            for (length, from, to) in [
                (CRANK, q, c),
                (LONG, Vec2::ZERO, a),
                (LONG, Vec2::ZERO, b),
                (SIDE, a, c),
                (SIDE, b, c),
                (SIDE, a, p),
                (SIDE, b, p),
            ] {
                assert!((from.distance(to) - length).abs() < 1e-5, "{theta}");
            }
            assert!((p.y - LINE_AT).abs() < 1e-5, "{theta}: {p}");
        }

        let mut world = peaucellier().unwrap();
        let trace = world.traces()[0].clone();
        let (mut worst, mut joints) = (0.0f32, 0.0f32);
        let (mut low, mut high) = (f32::INFINITY, f32::NEG_INFINITY);
        for _ in 0..360 {
            world.step(1.0 / 60.0);
            let p = world.traced_points()[0];
            worst = worst.max(trace.off_ideal(p).unwrap());
            joints = joints.max(world.worst_violation());
            (low, high) = (low.min(p.x), high.max(p.x));
        }
        let reach = LINE_AT * (SWING / 2.0).tan();
        println!(
            "peaucellier: P within {worst:.2e} m of its line over 6 s, x from {low:.3} to {high:.3} m \
             (the line's ends ±{reach:.3} m); worst joint error {joints:.2e}"
        );
        assert!(worst < 1e-2, "P strays {worst} m from its line");
        assert!(low < -0.95 * reach && high > 0.95 * reach, "{low}..{high}");
        assert_eq!(world.traces()[0].past().len(), 361);
    }
}
