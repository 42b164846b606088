//! nape joints among Avian's bodies, contacts and islands: each test is one scene of
//! issue 33, stepped headless at 1/60 s.

mod support;

use avian2d::dynamics::solver::islands::BodyIslandNode;
use avian2d::prelude::*;
use bevy::prelude::*;
use nape::{PivotJoint, PulleyJoint, WeldJoint};
use nape_avian::{NapeJoint, NapeJointState, slots};
use support::*;

/// `count` capsule links of `length` m lying along +x from `start`, pinned end to end,
/// without contacts between neighbours. Returns the links.
fn chain(app: &mut App, start: Vec2, count: usize, length: f32) -> Vec<Entity> {
    let links: Vec<Entity> = (0..count)
        .map(|i| {
            let centre = start + Vec2::new((i as f32 + 0.5) * length, 0.0);
            app.world_mut()
                .spawn((
                    RigidBody::Dynamic,
                    Position(centre),
                    Collider::capsule(0.05, length - 0.1),
                    Rotation::degrees(90.0),
                    // Air drag, so that the hanging ends come to rest within seconds.
                    LinearDamping(0.5),
                    AngularDamping(0.5),
                ))
                .id()
        })
        .collect();
    let [a, b] = slots();
    for pair in links.windows(2) {
        // The capsule's axis is its local y: the links' ends are at ±length/2 along it.
        let pivot = PivotJoint::new(
            a,
            b,
            nape::Vec2::new(0.0, -length / 2.0),
            nape::Vec2::new(0.0, length / 2.0),
        );
        app.world_mut().spawn((
            NapeJoint::new(pivot, [pair[0], pair[1]]),
            JointCollisionDisabled,
        ));
    }
    links
}

/// The largest joint error among every pivot of the app.
fn worst_pivot_error(app: &mut App) -> f32 {
    let mut query = app.world_mut().query::<&NapeJointState<PivotJoint, 2, 2>>();
    query
        .iter(app.world())
        .map(NapeJointState::error)
        .fold(0.0, f32::max)
}

#[test]
fn chain_drapes_over_a_box_without_sinking() {
    let mut app = app();
    let top = 1.0;
    app.world_mut().spawn((
        RigidBody::Static,
        Position(Vec2::new(0.0, top - 0.5)),
        Collider::rectangle(1.0, 1.0),
    ));
    let links = chain(&mut app, Vec2::new(-1.0, top + 0.3), 10, 0.2);
    step(&mut app, 300);
    let error = worst_pivot_error(&mut app);
    // A link over the box rests on it; the others hang beside it.
    let on_box: Vec<Entity> = links
        .iter()
        .copied()
        .filter(|&l| position(&app, l).x.abs() < 0.45)
        .collect();
    assert!(on_box.len() >= 3, "some links rest on the box");
    let lowest_on_box = on_box
        .iter()
        .map(|&l| position(&app, l).y)
        .fold(f32::INFINITY, f32::min);
    let fastest = links
        .iter()
        .map(|&l| velocity(&app, l).0.length())
        .fold(0.0, f32::max);
    let ends_hang = position(&app, links[0]).y < top && position(&app, links[9]).y < top;
    println!(
        "chain: joint error {error:e} m, lowest link over the box {lowest_on_box} (box top {top}, capsule radius 0.05), fastest {fastest} m/s"
    );
    assert!(ends_hang, "the chain drapes over both sides");
    // The capsules' axes lie on the box: centres 0.05 m above its top, less Avian's
    // allowed penetration (0.005 m by default).
    assert!(
        lowest_on_box > top + 0.05 - 0.006,
        "sank to {lowest_on_box}"
    );
    assert!(error <= 1e-3, "joint error {error}");
    assert!(fastest < 0.05, "at rest: {fastest} m/s");
}

#[test]
fn weld_holds_a_hundred_times_heavier_body() {
    let mut app = app();
    app.insert_resource(Gravity(Vec2::new(0.0, -G)));
    let ground = anchor(&mut app, Vec2::ZERO);
    let light = point_mass(&mut app, Vec2::new(0.5, 0.0), 1.0, 0.02);
    let heavy = point_mass(&mut app, Vec2::new(1.5, 0.0), 100.0, 2.0);
    let [a, b] = slots();
    app.world_mut().spawn(NapeJoint::new(
        PivotJoint::new(a, b, nape::Vec2::ZERO, nape::Vec2::new(-0.5, 0.0)),
        [ground, light],
    ));
    let weld = WeldJoint::new(
        a,
        b,
        nape::Vec2::new(0.5, 0.0),
        nape::Vec2::new(-0.5, 0.0),
        0.0,
    );
    let joint = app
        .world_mut()
        .spawn(NapeJoint::new(weld, [light, heavy]))
        .id();
    let (mut worst_point, mut worst_angle) = (0.0f32, 0.0f32);
    for _ in 0..300 {
        step(&mut app, 1);
        let lr = *app.world().get::<Rotation>(light).unwrap();
        let hr = *app.world().get::<Rotation>(heavy).unwrap();
        let gap = (position(&app, heavy) + hr * Vec2::new(-0.5, 0.0))
            - (position(&app, light) + lr * Vec2::new(0.5, 0.0));
        worst_point = worst_point.max(gap.length());
        worst_angle = worst_angle.max(lr.angle_between(hr).abs());
    }
    let state = app
        .world()
        .get::<NapeJointState<WeldJoint, 3, 2>>(joint)
        .unwrap();
    println!(
        "weld 1:100: point {worst_point:e} m, angle {worst_angle:e} rad, last error {:e}",
        state.error()
    );
    assert!(position(&app, heavy).y < -1.0, "it swings down");
    assert!(worst_point <= 1e-4, "point error {worst_point} m");
    assert!(worst_angle <= 1e-4, "angle error {worst_angle} rad");
}

#[test]
fn three_body_pulley_keeps_its_rope_shares_an_island_sleeps_and_wakes() {
    let mut app = app();
    let ground = anchor(&mut app, Vec2::ZERO);
    let wheel = point_mass(&mut app, Vec2::ZERO, 1.0, 0.5);
    let left = point_mass(&mut app, Vec2::new(-1.0, -1.0), 1.0, 0.01);
    let right = point_mass(&mut app, Vec2::new(1.0, -1.5), 1.0, 0.01);
    let [a, b, c, d] = slots();
    app.world_mut().spawn(NapeJoint::new(
        PivotJoint::new(a, b, nape::Vec2::ZERO, nape::Vec2::ZERO),
        [ground, wheel],
    ));
    let rope = 2.5;
    let (hook_left, hook_right) = (nape::Vec2::new(-1.0, 0.0), nape::Vec2::new(1.0, 0.0));
    let pulley = PulleyJoint {
        body1: a,
        body2: b,
        body3: c,
        body4: d,
        anchor1: hook_left,
        anchor2: nape::Vec2::ZERO,
        anchor3: hook_right,
        anchor4: nape::Vec2::ZERO,
        joint_min: rope,
        joint_max: rope,
        ratio: 1.0,
    };
    let joint = app
        .world_mut()
        .spawn(NapeJoint::new(pulley, [wheel, left, wheel, right]))
        .id();
    // Unequal heights, equal masses: the rope is at rest as soon as the wheel is.
    let length = |app: &App| {
        let rotation = *app.world().get::<Rotation>(wheel).unwrap();
        let wheel_at = position(app, wheel);
        let hook = |h: nape::Vec2| wheel_at + rotation * Vec2::new(h.x, h.y);
        (position(app, left) - hook(hook_left)).length()
            + (position(app, right) - hook(hook_right)).length()
    };
    step(&mut app, 2);
    let island =
        |app: &App, body: Entity| app.world().get::<BodyIslandNode>(body).unwrap().island_id();
    assert_eq!(island(&app, wheel), island(&app, left));
    assert_eq!(island(&app, wheel), island(&app, right));
    let mut worst = 0.0f32;
    let mut slept = None;
    for n in 0..600 {
        step(&mut app, 1);
        worst = worst.max((length(&app) - rope).abs());
        if [wheel, left, right]
            .iter()
            .all(|&e| app.world().get::<Sleeping>(e).is_some())
        {
            slept = Some(n);
            break;
        }
    }
    println!("pulley: rope error {worst:e} m, asleep after {slept:?} steps");
    assert!(worst <= 1e-4, "rope length error {worst} m");
    assert!(slept.is_some(), "the rig sleeps");
    // Shortening the rope wakes the island.
    let mut pulley = app
        .world_mut()
        .get_mut::<NapeJoint<PulleyJoint, 1, 4>>(joint)
        .unwrap();
    pulley.constraint.joint_min = rope - 0.2;
    pulley.constraint.joint_max = rope - 0.2;
    step(&mut app, 1);
    for body in [wheel, left, right] {
        assert!(app.world().get::<Sleeping>(body).is_none(), "woken");
    }
    step(&mut app, 30);
    let mut worst_after = 0.0f32;
    for _ in 0..60 {
        step(&mut app, 1);
        worst_after = worst_after.max((length(&app) - (rope - 0.2)).abs());
    }
    println!(
        "pulley: rope error {worst_after:e} m after shortening, length {}, left {:?} right {:?}",
        length(&app),
        position(&app, left),
        position(&app, right)
    );
    assert!(
        worst_after <= 1e-4,
        "shortened rope's error {worst_after} m"
    );
}

#[test]
fn joint_forces_of_a_hanging_mass_are_its_weight() {
    let mut app = app();
    let mass = 2.0;
    let ground = anchor(&mut app, Vec2::ZERO);
    let bob = point_mass(&mut app, Vec2::new(0.0, -1.0), mass, 0.01);
    let [a, b] = slots();
    let joint = app
        .world_mut()
        .spawn((
            NapeJoint::new(
                PivotJoint::new(a, b, nape::Vec2::ZERO, nape::Vec2::new(0.0, 1.0)),
                [ground, bob],
            ),
            JointForces::new(),
        ))
        .id();
    step(&mut app, 60);
    let forces = app.world().get::<JointForces>(joint).unwrap();
    println!(
        "hanging {mass} kg: force {:?}, torque {}",
        forces.force(),
        forces.torque()
    );
    let weight = mass * G;
    assert!(
        (forces.force().y - weight).abs() <= 0.01 * weight,
        "{:?}",
        forces.force()
    );
    assert!(forces.force().x.abs() <= 0.01 * weight);
}

#[test]
fn joint_disabled_frees_the_body_and_re_attaches_it() {
    let mut app = app();
    let ground = anchor(&mut app, Vec2::ZERO);
    let bob = point_mass(&mut app, Vec2::new(0.0, -1.0), 1.0, 0.01);
    let [a, b] = slots();
    let joint = app
        .world_mut()
        .spawn(NapeJoint::new(
            PivotJoint::new(a, b, nape::Vec2::ZERO, nape::Vec2::new(0.0, 1.0)),
            [ground, bob],
        ))
        .id();
    step(&mut app, 30);
    assert!((position(&app, bob).y + 1.0).abs() < 1e-3, "held");
    app.world_mut().entity_mut(joint).insert(JointDisabled);
    step(&mut app, 15);
    let fallen = -1.0 - position(&app, bob).y;
    let free_fall = 0.5 * G * (15.0 * DT) * (15.0 * DT);
    assert!(
        (fallen - free_fall).abs() < 0.02,
        "fell {fallen} m, free fall {free_fall} m"
    );
    app.world_mut().entity_mut(joint).remove::<JointDisabled>();
    step(&mut app, 120);
    let rotation = *app.world().get::<Rotation>(bob).unwrap();
    let gap = (position(&app, bob) + rotation * Vec2::new(0.0, 1.0)).length();
    assert!(gap < 1e-3, "re-attached: anchors {gap} m apart");
}

/// A hash of every body's pose bits.
fn pose_hash(app: &mut App) -> u64 {
    let mut query = app.world_mut().query::<(&Position, &Rotation)>();
    query.iter(app.world()).fold(5381u64, |h, (p, r)| {
        [p.0.x, p.0.y, r.cos, r.sin]
            .iter()
            .fold(h, |h, x| h.wrapping_mul(33) ^ u64::from(x.to_bits()))
    })
}

#[test]
fn two_identical_runs_end_bit_identical() {
    let run = || {
        let mut app = app();
        app.world_mut().spawn((
            RigidBody::Static,
            Position(Vec2::new(0.0, 0.5)),
            Collider::rectangle(1.0, 1.0),
        ));
        chain(&mut app, Vec2::new(-1.0, 1.3), 10, 0.2);
        step(&mut app, 120);
        pose_hash(&mut app)
    };
    assert_eq!(run(), run());
}

#[test]
fn a_pulley_hung_from_the_ground_puts_both_loads_in_one_island() {
    let mut app = app();
    let ground = anchor(&mut app, Vec2::ZERO);
    let left = point_mass(&mut app, Vec2::new(-1.0, -1.0), 2.0, 0.01);
    let right = point_mass(&mut app, Vec2::new(1.0, -1.0), 1.0, 0.01);
    let [a, b, c, d] = slots();
    let pulley = PulleyJoint {
        body1: a,
        body2: b,
        body3: c,
        body4: d,
        anchor1: nape::Vec2::new(-1.0, 0.0),
        anchor2: nape::Vec2::ZERO,
        anchor3: nape::Vec2::new(1.0, 0.0),
        anchor4: nape::Vec2::ZERO,
        joint_min: 2.0,
        joint_max: 2.0,
        ratio: 1.0,
    };
    app.world_mut()
        .spawn(NapeJoint::new(pulley, [ground, left, ground, right]));
    step(&mut app, 30);
    let island = |body: Entity| app.world().get::<BodyIslandNode>(body).unwrap().island_id();
    assert_eq!(island(left), island(right));
    // The heavier load goes down by what the lighter one rises.
    let (down, up) = (-1.0 - position(&app, left).y, position(&app, right).y + 1.0);
    assert!(
        down > 0.1 && (down - up).abs() < 1e-4,
        "down {down}, up {up}"
    );
}

/// An `n × n` mesh of point masses 0.25 m apart, each pinned to its right and lower
/// neighbours at the midpoint between them, hung by its top left corner from a static
/// anchor.
fn hung_mesh(app: &mut App, n: usize) -> Vec<Entity> {
    let spacing = 0.25;
    let at = |i: usize, j: usize| Vec2::new(i as f32 * spacing, -(j as f32) * spacing);
    let bodies: Vec<Entity> = (0..n * n)
        .map(|k| point_mass(app, at(k % n, k / n), 0.1, 0.01))
        .collect();
    let [a, b] = slots();
    let half = spacing / 2.0;
    let pin = |app: &mut App, first: Entity, second: Entity, offset: nape::Vec2| {
        let pivot = PivotJoint::new(a, b, offset, -offset);
        app.world_mut().spawn((
            NapeJoint::new(pivot, [first, second]),
            JointCollisionDisabled,
        ));
    };
    for j in 0..n {
        for i in 0..n {
            let body = bodies[j * n + i];
            if i + 1 < n {
                pin(app, body, bodies[j * n + i + 1], nape::Vec2::new(half, 0.0));
            }
            if j + 1 < n {
                pin(
                    app,
                    body,
                    bodies[(j + 1) * n + i],
                    nape::Vec2::new(0.0, -half),
                );
            }
        }
    }
    let ground = anchor(app, at(0, 0) + Vec2::new(0.0, spacing));
    pin(app, ground, bodies[0], nape::Vec2::new(0.0, -half));
    bodies
}

#[test]
fn a_hung_loop_is_solved_exactly_and_a_mesh_beyond_its_loops_by_its_joints() {
    // 2 × 2: one loop, closed through the exact solve. 8 × 8: 49 loops (98 rows),
    // more than it closes: each joint solves itself, softened as a `Space`'s sweeps
    // soften a mesh's stiff rows (a spring of 0.3 times the substep rate, 108 Hz here),
    // which stretches under the swing by centimetres and stays together.
    for (n, bound) in [(2, 1e-4), (8, 0.1)] {
        let mut app = app();
        let bodies = hung_mesh(&mut app, n);
        // Swung sideways, so that every joint is loaded off its line.
        for &b in &bodies {
            app.world_mut()
                .entity_mut(b)
                .insert(LinearVelocity(Vec2::new(1.0, 0.0)));
        }
        let mut worst = 0.0f32;
        for _ in 0..120 {
            step(&mut app, 1);
            worst = worst.max(worst_pivot_error(&mut app));
        }
        let lowest = bodies
            .iter()
            .map(|&b| position(&app, b).y)
            .fold(f32::INFINITY, f32::min);
        println!("{n} x {n} mesh: worst pivot error {worst:e} m over 2 s, lowest body {lowest} m");
        assert!(worst < bound, "{n} x {n}: {worst} m");
        // Swinging from its corner (its pin 0.125 m up), no lower than its diagonal
        // below the pin, stretched by at most the bound on each joint.
        let diagonal = 0.25 * (n as f32 - 1.0) * std::f32::consts::SQRT_2 + 0.125;
        let stretch = 2.0 * n as f32 * bound;
        assert!(
            lowest > 0.125 - diagonal - stretch,
            "{n} x {n} fell to {lowest} m"
        );
    }
}
