//! Generated joints against hand-written ones, on the solver's two hot paths:
//! `prepare` (Jacobian and effective mass, once per step) and `solve` (velocity error and
//! impulse application, once per velocity iteration), over 1024 joints between random
//! bodies; and a whole `Space::step` of a 100-link chain with each.
//!
//! Run with `cargo bench --bench joints`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nape::{
    Body, BodyHandle, Constraint, InverseMass, PivotJoint, Pose, SharedSlots, Space, Vec2,
    Velocity, WeldJoint,
};

#[path = "../tests/support/hand_joints.rs"]
mod hand_joints;
use hand_joints::{HandPivot, HandWeld};

const JOINTS: usize = 1024;
const BODIES: usize = 512;

struct Scene {
    poses: Vec<Pose>,
    masses: Vec<InverseMass>,
    velocities: Vec<Velocity>,
    links: Vec<[usize; 2]>,
    anchors: Vec<[Vec2; 2]>,
    handles: [BodyHandle; 2],
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
    let links = (0..JOINTS)
        .map(|i| [i % BODIES, (i * 7 + 1) % BODIES])
        .collect();
    let anchors = (0..JOINTS)
        .map(|_| [Vec2::new(next(), next()), Vec2::new(next(), next())])
        .collect();
    let mut space = Space::new();
    let a = space.add_body(Body::dynamic(1.0, 1.0)).expect("a body");
    let b = space.add_body(Body::dynamic(1.0, 1.0)).expect("a body");
    Scene {
        poses,
        masses,
        velocities,
        links,
        anchors,
        handles: [a, b],
    }
}

fn kernels<T, const D: usize>(
    c: &mut Criterion,
    name: &str,
    make: impl Fn([BodyHandle; 2], [Vec2; 2]) -> T,
) where
    T: Constraint<D, 2>,
{
    let scene = scene();
    let joints: Vec<T> = scene
        .anchors
        .iter()
        .map(|&anchors| make(scene.handles, anchors))
        .collect();
    let slot_poses: Vec<[Pose; 2]> = scene
        .links
        .iter()
        .map(|l| [scene.poses[l[0]], scene.poses[l[1]]])
        .collect();
    let slot_masses: Vec<[InverseMass; 2]> = scene
        .links
        .iter()
        .map(|l| [scene.masses[l[0]], scene.masses[l[1]]])
        .collect();
    let mut group = c.benchmark_group(format!("{name}/{JOINTS} joints"));
    group.bench_function("prepare", |b| {
        b.iter(|| {
            let mut total = 0.0;
            for i in 0..JOINTS {
                let jacobian = joints[i].jacobian(&slot_poses[i]);
                let k = joints[i].effective_mass(&jacobian, &slot_masses[i], SharedSlots::NONE);
                total += k.iter().flatten().sum::<f32>();
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
    group.bench_function("solve", |b| {
        b.iter(|| {
            for i in 0..JOINTS {
                let error = joints[i].velocity_error(&jacobians[i], &scene.links[i], &velocities);
                let impulse = error.map(|e| -0.01 * e);
                joints[i].apply_impulse(
                    &jacobians[i],
                    &impulse,
                    &slot_masses[i],
                    &scene.links[i],
                    &mut velocities,
                );
            }
            black_box(&velocities);
        });
    });
    group.finish();
}

fn pivots(c: &mut Criterion) {
    kernels(c, "pivot/generated", |[a, b], [a1, a2]| {
        PivotJoint::new(a, b, a1, a2)
    });
    kernels(c, "pivot/hand-written", |[a, b], [a1, a2]| {
        HandPivot::new(a, b, a1, a2)
    });
}

fn welds(c: &mut Criterion) {
    kernels(c, "weld/generated", |[a, b], [a1, a2]| {
        WeldJoint::new(a, b, a1, a2, 0.3)
    });
    kernels(c, "weld/hand-written", |[a, b], [a1, a2]| {
        HandWeld::new(a, b, a1, a2, 0.3)
    });
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

criterion_group!(benches, pivots, welds, chain_step);
criterion_main!(benches);
