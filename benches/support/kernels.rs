//! The workloads shared by `benches/joints.rs` (criterion) and `benches/ratios.rs`
//! (interleaved ratios): 1024 joints of one type between random bodies, and the solver's
//! two hot paths over them: every builtin against its hand-written reference, and the
//! runtime (`nape::symbolic`) pivot, weld, line and pulley against the generated ones.
//!
//! `prepare` is what the solver does once per step (and per position iteration) for each
//! joint: position error, Jacobian and effective mass ([`Constraint::linearize`]), each
//! stored. `solve` is one
//! velocity iteration: velocity error and impulse application.

use std::hint::black_box;

use nape::{
    AngleJoint, Body, BodyHandle, Constraint, DistanceJoint, InverseMass, LineJoint, MotorJoint,
    PivotJoint, Pose, PulleyJoint, SharedSlots, Space, Vec2, Velocity, WeldJoint,
};

#[path = "../../tests/support/hand_builtins.rs"]
mod hand_builtins;
#[path = "../../tests/support/hand_joints.rs"]
pub mod hand_joints;
use hand_builtins::{HandAngle, HandDistance, HandLine, HandMotor, HandPulley};
use hand_joints::{HandPivot, HandWeld};
use nape::symbolic::{Equalities, Limited, RowKind, SymbolicConstraint};

/// Joints per workload.
pub const JOINTS: usize = 1024;
const BODIES: usize = 512;

/// A random scene: 512 bodies, and per joint four random anchors and four distinct bodies.
struct Scene {
    poses: Vec<Pose>,
    masses: Vec<InverseMass>,
    velocities: Vec<Velocity>,
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
        .map(|_| {
            let at = Vec2::new(next() * 10.0, next() * 10.0);
            Pose::new(at, f64::from(next() * 3.0))
        })
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

/// 1024 joints of type `T` with their slot poses, masses and outputs.
pub struct Workload<T: Constraint<D, B>, const D: usize, const B: usize> {
    joints: Vec<T>,
    poses: Vec<[Pose; B]>,
    masses: Vec<[InverseMass; B]>,
    shared: Vec<SharedSlots>,
    links: Vec<[usize; B]>,
    velocities: Vec<Velocity>,
    initial_velocities: Vec<Velocity>,
    solves: usize,
    errors: Vec<[f32; D]>,
    jacobians: Vec<T::Jacobian>,
    effective_masses: Vec<[[f32; D]; D]>,
}

impl<T: Constraint<D, B>, const D: usize, const B: usize> Workload<T, D, B> {
    /// `make` builds each joint from its bodies and four random anchors; `slots` picks each
    /// slot's body among the joint's four random bodies (a repeated index shares a body).
    pub fn new(slots: [usize; B], make: impl Fn([BodyHandle; B], [Vec2; 4]) -> T) -> Self {
        let scene = scene();
        let handles = slots.map(|s| scene.handles[s]);
        let joints: Vec<T> = scene.anchors.iter().map(|&a| make(handles, a)).collect();
        let links: Vec<[usize; B]> = scene.bodies.iter().map(|b| slots.map(|s| b[s])).collect();
        let poses: Vec<[Pose; B]> = links.iter().map(|l| l.map(|b| scene.poses[b])).collect();
        let jacobians = joints
            .iter()
            .zip(&poses)
            .map(|(j, p)| j.jacobian(p))
            .collect();
        Self {
            shared: links.iter().map(|l| SharedSlots::find(l)).collect(),
            masses: links.iter().map(|l| l.map(|b| scene.masses[b])).collect(),
            joints,
            poses,
            links,
            velocities: scene.velocities.clone(),
            initial_velocities: scene.velocities,
            solves: 0,
            errors: vec![[0.0; D]; JOINTS],
            jacobians,
            effective_masses: vec![[[0.0; D]; D]; JOINTS],
        }
    }

    /// Position error, Jacobian and effective mass of every joint, stored: one
    /// `linearize` per joint, as the solver's preparation asks for them.
    #[inline(never)]
    pub fn prepare(&mut self) {
        for i in 0..JOINTS {
            self.joints[i].linearize(
                &self.poses[i],
                &self.masses[i],
                self.shared[i],
                &mut self.errors[i],
                &mut self.jacobians[i],
                &mut self.effective_masses[i],
            );
        }
        black_box((&self.errors, &self.jacobians, &self.effective_masses));
    }

    /// One velocity iteration: `J·v`, then an impulse towards `J·v = 1`. Every 64 calls
    /// the velocities start over: iterated for millions of calls they would converge, the
    /// impulses would shrink to subnormal numbers, and whichever variant ran longer would
    /// slow down (by half, seen on the pivot).
    #[inline(never)]
    pub fn solve(&mut self) {
        if self.solves.is_multiple_of(64) {
            self.velocities.copy_from_slice(&self.initial_velocities);
        }
        self.solves += 1;
        for i in 0..JOINTS {
            let jacobian = &self.jacobians[i];
            let error = self.joints[i].velocity_error(jacobian, &self.links[i], &self.velocities);
            let impulse = error.map(|e| 0.01 * (1.0 - e));
            self.joints[i].apply_impulse(
                jacobian,
                &impulse,
                &self.masses[i],
                &self.links[i],
                &mut self.velocities,
            );
        }
        black_box(&self.velocities);
    }
}

/// Receives each builtin's generated and hand-written workloads.
pub trait Visit {
    /// One joint (`name`), generated and hand-written.
    fn pair<G, H, const D: usize, const B: usize>(
        &mut self,
        name: &str,
        generated: Workload<G, D, B>,
        hand: Workload<H, D, B>,
    ) where
        G: Constraint<D, B>,
        H: Constraint<D, B>;
}

/// Every builtin against its hand-written reference; the pulley with four bodies, with
/// three (slots 2 and 3 on one body) and with two (slots 1, 3 and 2, 4 shared).
pub fn each_builtin(v: &mut impl Visit) {
    let pair = [0, 1];
    v.pair(
        "pivot",
        Workload::new(pair, |[a, b], [a1, a2, ..]| PivotJoint::new(a, b, a1, a2)),
        Workload::new(pair, |[a, b], [a1, a2, ..]| HandPivot::new(a, b, a1, a2)),
    );
    v.pair(
        "weld",
        Workload::new(pair, |[a, b], [a1, a2, ..]| {
            WeldJoint::new(a, b, a1, a2, 0.3)
        }),
        Workload::new(pair, |[a, b], [a1, a2, ..]| {
            HandWeld::new(a, b, a1, a2, 0.3)
        }),
    );
    v.pair(
        "angle",
        Workload::new(pair, |[a, b], _| AngleJoint {
            ratio: 2.0,
            ..AngleJoint::new(a, b, -0.5, 0.5)
        }),
        Workload::new(pair, |[a, b], _| HandAngle {
            body1: a,
            body2: b,
            joint_min: -0.5,
            joint_max: 0.5,
            ratio: 2.0,
        }),
    );
    v.pair(
        "motor",
        Workload::new(pair, |[a, b], _| MotorJoint {
            ratio: 2.0,
            ..MotorJoint::new(a, b, 1.5)
        }),
        Workload::new(pair, |[a, b], _| HandMotor {
            body1: a,
            body2: b,
            rate: 1.5,
            ratio: 2.0,
        }),
    );
    v.pair(
        "distance",
        Workload::new(pair, |[a, b], [a1, a2, ..]| {
            DistanceJoint::new(a, b, a1, a2, 1.0, 3.0)
        }),
        Workload::new(pair, |[a, b], [a1, a2, ..]| HandDistance {
            body1: a,
            body2: b,
            anchor1: a1,
            anchor2: a2,
            joint_min: 1.0,
            joint_max: 3.0,
        }),
    );
    v.pair(
        "line",
        Workload::new(pair, |[a, b], [a1, a2, d, _]| {
            LineJoint::new(a, b, a1, a2, d + Vec2::new(2.0, 0.0), -1.0, 1.0)
        }),
        Workload::new(pair, |[a, b], [a1, a2, d, _]| HandLine {
            body1: a,
            body2: b,
            anchor1: a1,
            anchor2: a2,
            direction: d + Vec2::new(2.0, 0.0),
            joint_min: -1.0,
            joint_max: 1.0,
        }),
    );
    let pulley = |[body1, body2, body3, body4]: [BodyHandle; 4],
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
    let arrangements = [
        ("pulley-4", [0, 1, 2, 3]),
        ("pulley-3", [0, 1, 1, 2]),
        ("pulley-2", [0, 1, 0, 1]),
    ];
    for (name, slots) in arrangements {
        v.pair(
            name,
            Workload::new(slots, pulley),
            Workload::new(slots, |bodies, anchors| {
                HandPulley::from(pulley(bodies, anchors))
            }),
        );
    }
}

/// A runtime constraint compiled from the declaration of builtin `name` in `file` (the
/// macro's own text), its parameters set by name.
fn runtime<const D: usize, const B: usize, K: RowKind>(
    file: &str,
    name: &str,
) -> SymbolicConstraint<D, B, K> {
    let source = nape_gallery::joints::declaration(file, name).expect("a builtin's declaration");
    SymbolicConstraint::compile(&source).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Sets a runtime joint's bodies `body1`, `body2`, … and its parameters by name.
fn set<const D: usize, const B: usize, K: RowKind>(
    template: &SymbolicConstraint<D, B, K>,
    bodies: [BodyHandle; B],
    scalars: &[(&str, f32)],
    vectors: &[(&str, Vec2)],
) -> SymbolicConstraint<D, B, K> {
    let mut joint = template.clone();
    for (s, body) in bodies.into_iter().enumerate() {
        joint
            .set_body(&format!("body{}", s + 1), body)
            .expect("a body slot");
    }
    for &(name, value) in scalars {
        joint.set_scalar(name, value).expect("a scalar");
    }
    for &(name, value) in vectors {
        joint.set_vector(name, value).expect("a vector");
    }
    joint
}

/// The runtime pivot, weld, line and pulley (four bodies) against the generated joints of
/// the same declarations, as `pair(name, runtime, generated)`.
pub fn each_runtime(v: &mut impl Visit) {
    let pair = [0, 1];
    let pivot = runtime::<2, 2, Equalities>(
        include_str!("../../nape-core/src/joints/pivot.rs"),
        "PivotJoint",
    );
    v.pair(
        "pivot",
        Workload::new(pair, |b, [a1, a2, ..]| {
            set(&pivot, b, &[], &[("anchor1", a1), ("anchor2", a2)])
        }),
        Workload::new(pair, |[a, b], [a1, a2, ..]| PivotJoint::new(a, b, a1, a2)),
    );
    let weld = runtime::<3, 2, Equalities>(
        include_str!("../../nape-core/src/joints/weld.rs"),
        "WeldJoint",
    );
    v.pair(
        "weld",
        Workload::new(pair, |b, [a1, a2, ..]| {
            set(
                &weld,
                b,
                &[("phase", 0.3)],
                &[("anchor1", a1), ("anchor2", a2)],
            )
        }),
        Workload::new(pair, |[a, b], [a1, a2, ..]| {
            WeldJoint::new(a, b, a1, a2, 0.3)
        }),
    );
    let line = runtime::<2, 2, Limited>(
        include_str!("../../nape-core/src/joints/line.rs"),
        "LineJoint",
    );
    v.pair(
        "line",
        Workload::new(pair, |b, [a1, a2, d, _]| {
            let direction = d + Vec2::new(2.0, 0.0);
            let vectors = [("anchor1", a1), ("anchor2", a2), ("direction", direction)];
            set(
                &line,
                b,
                &[("joint_min", -1.0), ("joint_max", 1.0)],
                &vectors,
            )
        }),
        Workload::new(pair, |[a, b], [a1, a2, d, _]| {
            LineJoint::new(a, b, a1, a2, d + Vec2::new(2.0, 0.0), -1.0, 1.0)
        }),
    );
    let pulley = runtime::<1, 4, Limited>(
        include_str!("../../nape-core/src/joints/pulley.rs"),
        "PulleyJoint",
    );
    let scalars = [("joint_min", 1.0), ("joint_max", 8.0), ("ratio", 2.0)];
    v.pair(
        "pulley-4",
        Workload::new([0, 1, 2, 3], |b, [a1, a2, a3, a4]| {
            let vectors = [
                ("anchor1", a1),
                ("anchor2", a2),
                ("anchor3", a3),
                ("anchor4", a4),
            ];
            set(&pulley, b, &scalars, &vectors)
        }),
        Workload::new(
            [0, 1, 2, 3],
            |[body1, body2, body3, body4], [a1, a2, a3, a4]| PulleyJoint {
                body1,
                body2,
                body3,
                body4,
                anchor1: a1,
                anchor2: a2,
                anchor3: a3,
                anchor4: a4,
                joint_min: 1.0,
                joint_max: 8.0,
                ratio: 2.0,
            },
        ),
    );
}
