//! Generated joints against hand-written ones, on the solver's two hot paths:
//! `prepare` (position error, Jacobian and effective mass, once per step) and `solve`
//! (velocity error and impulse application, once per velocity iteration), over 1024 joints
//! between random bodies; and a whole `Space::step` of a 100-link chain with each.
//!
//! Every builtin has a group per phase, `<joint>/<phase>`, with the functions `generated`
//! and `hand-written` (the references of `tests/support/hand_joints.rs` and
//! `tests/support/hand_builtins.rs`); the pulley runs with four distinct bodies, with three
//! (slots 2 and 3 on one body) and with two (slots 1, 3 and 2, 4 shared).
//!
//! Run with `cargo bench --bench joints`; `python3 benches/ratios.py` then prints the ratio
//! generated / hand-written per joint and phase.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nape::{
    AngleJoint, Body, BodyHandle, Constraint, DistanceJoint, InverseMass, LineJoint, MotorJoint,
    PivotJoint, Pose, PulleyJoint, SharedSlots, Space, Vec2, Velocity, WeldJoint,
};

#[path = "../tests/support/hand_builtins.rs"]
mod hand_builtins;
#[path = "../tests/support/hand_joints.rs"]
mod hand_joints;
use hand_builtins::{HandAngle, HandDistance, HandLine, HandMotor, HandPulley};
use hand_joints::{HandPivot, HandWeld};

const JOINTS: usize = 1024;
const BODIES: usize = 512;

struct Scene {
    poses: Vec<Pose>,
    masses: Vec<InverseMass>,
    velocities: Vec<Velocity>,
    /// Per joint, four random anchors and four distinct random bodies.
    anchors: Vec<[Vec2; 4]>,
    bodies: Vec<[usize; 4]>,
    handles: [BodyHandle; 4],
}

fn scene() -> Scene {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    };
    let poses = (0..BODIES)
        .map(|_| Pose::new(Vec2::new(next() * 10.0, next() * 10.0), next() * 3.0))
        .collect();
    let masses = (0..BODIES)
        .map(|_| InverseMass {
            mass: 1.0 + next().abs(),
            inertia: 2.0 + next().abs(),
        })
        .collect();
    let velocities = (0..BODIES)
        .map(|_| Velocity {
            linear: Vec2::new(next(), next()),
            angular: next(),
        })
        .collect();
    let anchors = (0..JOINTS)
        .map(|_| std::array::from_fn(|_| Vec2::new(next(), next())))
        .collect();
    let bodies = (0..JOINTS)
        .map(|i| {
            [
                i % BODIES,
                (i * 7 + 1) % BODIES,
                (i * 13 + 2) % BODIES,
                (i * 29 + 3) % BODIES,
            ]
        })
        .collect();
    let mut space = Space::new();
    let handles = std::array::from_fn(|_| space.add_body(Body::dynamic(1.0, 1.0)).expect("a body"));
    Scene {
        poses,
        masses,
        velocities,
        anchors,
        bodies,
        handles,
    }
}

/// Benchmarks `prepare` and `solve` of one joint type as `<group>/<phase>/<label>`.
/// `slots` picks each slot's body among the joint's four random bodies (a repeated index
/// shares a body between slots).
fn kernels<T, const D: usize, const B: usize>(
    c: &mut Criterion,
    group: &str,
    label: &str,
    slots: [usize; B],
    make: impl Fn([BodyHandle; B], [Vec2; 4]) -> T,
) where
    T: Constraint<D, B>,
{
    let scene = scene();
    let handles: [BodyHandle; B] = slots.map(|s| scene.handles[s]);
    let joints: Vec<T> = scene
        .anchors
        .iter()
        .map(|&anchors| make(handles, anchors))
        .collect();
    let links: Vec<[usize; B]> = scene
        .bodies
        .iter()
        .map(|bodies| slots.map(|s| bodies[s]))
        .collect();
    let shared: Vec<SharedSlots> = links.iter().map(|l| SharedSlots::find(l)).collect();
    let slot_poses: Vec<[Pose; B]> = links.iter().map(|l| l.map(|b| scene.poses[b])).collect();
    let slot_masses: Vec<[InverseMass; B]> =
        links.iter().map(|l| l.map(|b| scene.masses[b])).collect();

    c.benchmark_group(format!("{group}/prepare"))
        .bench_function(label, |b| {
            b.iter(|| {
                let mut total = 0.0;
                for i in 0..JOINTS {
                    let error = joints[i].position_error(&slot_poses[i]);
                    let jacobian = joints[i].jacobian(&slot_poses[i]);
                    let k = joints[i].effective_mass(&jacobian, &slot_masses[i], shared[i]);
                    total += error.iter().sum::<f32>() + k.iter().flatten().sum::<f32>();
                }
                black_box(total)
            });
        });
    let jacobians: Vec<T::Jacobian> = joints
        .iter()
        .zip(&slot_poses)
        .map(|(j, p)| j.jacobian(p))
        .collect();
    let mut velocities = scene.velocities.clone();
    c.benchmark_group(format!("{group}/solve"))
        .bench_function(label, |b| {
            b.iter(|| {
                for i in 0..JOINTS {
                    let error = joints[i].velocity_error(&jacobians[i], &links[i], &velocities);
                    // Towards J·v = 1, not 0: velocities converging to zero would
                    // become subnormal and slow down whichever variant ran longer.
                    let impulse = error.map(|e| 0.01 * (1.0 - e));
                    joints[i].apply_impulse(
                        &jacobians[i],
                        &impulse,
                        &slot_masses[i],
                        &links[i],
                        &mut velocities,
                    );
                }
                black_box(&velocities);
            });
        });
}

const GENERATED: &str = "generated";
const HAND: &str = "hand-written";

fn pivots(c: &mut Criterion) {
    kernels(c, "pivot", GENERATED, [0, 1], |[a, b], [a1, a2, ..]| {
        PivotJoint::new(a, b, a1, a2)
    });
    kernels(c, "pivot", HAND, [0, 1], |[a, b], [a1, a2, ..]| {
        HandPivot::new(a, b, a1, a2)
    });
}

fn welds(c: &mut Criterion) {
    kernels(c, "weld", GENERATED, [0, 1], |[a, b], [a1, a2, ..]| {
        WeldJoint::new(a, b, a1, a2, 0.3)
    });
    kernels(c, "weld", HAND, [0, 1], |[a, b], [a1, a2, ..]| {
        HandWeld::new(a, b, a1, a2, 0.3)
    });
}

fn angles(c: &mut Criterion) {
    kernels(c, "angle", GENERATED, [0, 1], |[a, b], _| AngleJoint {
        ratio: 2.0,
        ..AngleJoint::new(a, b, -0.5, 0.5)
    });
    kernels(c, "angle", HAND, [0, 1], |[a, b], _| HandAngle {
        body1: a,
        body2: b,
        joint_min: -0.5,
        joint_max: 0.5,
        ratio: 2.0,
    });
}

fn motors(c: &mut Criterion) {
    kernels(c, "motor", GENERATED, [0, 1], |[a, b], _| MotorJoint {
        ratio: 2.0,
        ..MotorJoint::new(a, b, 1.5)
    });
    kernels(c, "motor", HAND, [0, 1], |[a, b], _| HandMotor {
        body1: a,
        body2: b,
        rate: 1.5,
        ratio: 2.0,
    });
}

fn distances(c: &mut Criterion) {
    kernels(c, "distance", GENERATED, [0, 1], |[a, b], [a1, a2, ..]| {
        DistanceJoint::new(a, b, a1, a2, 1.0, 3.0)
    });
    kernels(c, "distance", HAND, [0, 1], |[a, b], [a1, a2, ..]| {
        HandDistance {
            body1: a,
            body2: b,
            anchor1: a1,
            anchor2: a2,
            joint_min: 1.0,
            joint_max: 3.0,
        }
    });
}

fn lines(c: &mut Criterion) {
    kernels(c, "line", GENERATED, [0, 1], |[a, b], [a1, a2, d, _]| {
        LineJoint::new(a, b, a1, a2, d + Vec2::new(2.0, 0.0), -1.0, 1.0)
    });
    kernels(c, "line", HAND, [0, 1], |[a, b], [a1, a2, d, _]| HandLine {
        body1: a,
        body2: b,
        anchor1: a1,
        anchor2: a2,
        direction: d + Vec2::new(2.0, 0.0),
        joint_min: -1.0,
        joint_max: 1.0,
    });
}

fn pulleys(c: &mut Criterion) {
    let arrangements = [
        ("pulley-4", [0, 1, 2, 3]),
        ("pulley-3", [0, 1, 1, 2]),
        ("pulley-2", [0, 1, 0, 1]),
    ];
    for (group, slots) in arrangements {
        let generated =
            |[body1, body2, body3, body4]: [BodyHandle; 4],
             [anchor1, anchor2, anchor3, anchor4]: [Vec2; 4]| PulleyJoint {
                body1,
                body2,
                body3,
                body4,
                anchor1,
                anchor2,
                anchor3,
                anchor4,
                joint_min: 1.0,
                joint_max: 8.0,
                ratio: 2.0,
            };
        let hand =
            |[body1, body2, body3, body4]: [BodyHandle; 4],
             [anchor1, anchor2, anchor3, anchor4]: [Vec2; 4]| HandPulley {
                body1,
                body2,
                body3,
                body4,
                anchor1,
                anchor2,
                anchor3,
                anchor4,
                joint_min: 1.0,
                joint_max: 8.0,
                ratio: 2.0,
            };
        kernels(c, group, GENERATED, slots, generated);
        kernels(c, group, HAND, slots, hand);
    }
}

/// A 100-link chain hanging from a static body, swinging: one `Space::step`.
fn chain_step(c: &mut Criterion) {
    fn build<T, const D: usize>(make: impl Fn(BodyHandle, BodyHandle, Vec2, Vec2) -> T) -> Space
    where
        T: Constraint<D, 2>,
    {
        let mut space = Space::new();
        space.gravity = Vec2::new(0.0, -10.0);
        let mut previous = (
            space.add_body(Body::static_body()).expect("ceiling"),
            Vec2::ZERO,
        );
        for i in 0..100 {
            let centre = Vec2::new(i as f32 + 0.5, 0.0);
            let link = space
                .add_body(Body::rectangle(1.0, 0.1, 10.0).at(centre))
                .expect("a link");
            let joint = make(previous.0, link, previous.1, Vec2::new(-0.5, 0.0));
            space.add_constraint(joint).expect("a joint");
            previous = (link, Vec2::new(0.5, 0.0));
        }
        for _ in 0..30 {
            space.step(1.0 / 60.0);
        }
        space
    }
    let mut group = c.benchmark_group("chain of 100/step");
    let scenes = [
        ("generated", build(PivotJoint::new)),
        ("hand-written", build(HandPivot::new)),
    ];
    for (label, mut space) in scenes {
        group.bench_function(BenchmarkId::from_parameter(label), |b| {
            b.iter(|| space.step(1.0 / 60.0));
        });
    }
    group.finish();
}

criterion_group!(
    benches, pivots, welds, angles, motors, distances, lines, pulleys, chain_step
);
criterion_main!(benches);
