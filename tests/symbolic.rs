//! Constraints written at run time (`nape::symbolic`) against the macro's: for every
//! builtin joint and every gallery joint, the same expression compiled from text gives
//! the same `c`, `J`, `K`, `J·v`, impulses and geometric stiffness on random states, and
//! the same motion over 600 steps; the seed's three `SymbolicConstraint` examples run
//! verbatim and behave as the builtins of their kind; a `Space`'s impulse queries, breaking
//! and debug drawing treat a runtime joint as the generated one.

use nape::symbolic::{Equalities, Limited, RowKind, SymbolicConstraint, VelocityOnly};
use nape::{
    AngleJoint, Body, BodyHandle, Constraint, ConstraintSettings, DistanceJoint, InverseMass,
    LineJoint, MotorJoint, PivotJoint, Pose, PulleyJoint, SharedSlots, Space, Vec2, Velocity,
    WeldJoint,
};
use nape_gallery::joints::{
    self, CamFollower, Differential, EllipseBead, Midpoint, RackAndPinion, declaration,
};

/// A small deterministic generator (xorshift), uniform in `[lo, hi)`.
struct Random(u64);

impl Random {
    fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        #[allow(clippy::cast_precision_loss)]
        let unit = (self.0 >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }
}

/// The declaration of builtin `name` from its source file.
fn builtin(file: &str, name: &str) -> String {
    declaration(file, name).unwrap_or_else(|| panic!("{name} is declared in its file"))
}

/// `a` and `b` agree within 1e-6 of the larger magnitude (at least 1).
fn assert_close(a: &[f32], b: &[f32], what: &str) {
    assert_close_to(a, b, 1.0, what);
}

/// `a` and `b` agree within 1e-6 of the larger of their magnitudes and `terms`, the
/// magnitude of the terms summed into them (f32 rounds each term).
fn assert_close_to(a: &[f32], b: &[f32], terms: f32, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    let scale = a
        .iter()
        .chain(b)
        .fold(terms.max(1.0), |m, x| m.max(x.abs()));
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-6 * scale, "{what}: {a:?} against {b:?}");
    }
}

/// Row permutation: the symbolic constraint's row `i` is the generated one's `rows[i]`.
fn agree_on_random_states<T, S, const D: usize, const B: usize>(
    generated: &T,
    symbolic: &S,
    rows: [usize; D],
    shared: SharedSlots,
) where
    T: Constraint<D, B>,
    S: Constraint<D, B>,
{
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let flat = |rows_of: [[[f32; 3]; B]; D], order: [usize; D]| -> Vec<f32> {
        order
            .iter()
            .flat_map(|&i| rows_of[i].iter().flatten().copied().collect::<Vec<_>>())
            .collect()
    };
    let identity: [usize; D] = std::array::from_fn(|i| i);
    for _ in 0..200 {
        let poses: [Pose; B] = std::array::from_fn(|_| {
            Pose::new(
                Vec2::new(random.uniform(-2.0, 2.0), random.uniform(-2.0, 2.0)),
                f64::from(random.uniform(-3.0, 3.0)),
            )
        });
        let masses: [InverseMass; B] = std::array::from_fn(|_| InverseMass {
            mass: random.uniform(0.1, 2.0),
            inertia: random.uniform(0.1, 5.0),
        });
        let velocities: Vec<Velocity> = (0..B)
            .map(|_| Velocity {
                linear: Vec2::new(random.uniform(-1.0, 1.0), random.uniform(-1.0, 1.0)),
                angular: random.uniform(-1.0, 1.0),
            })
            .collect();
        let impulse: [f32; D] = std::array::from_fn(|_| random.uniform(-1.0, 1.0));
        let permuted = |values: [f32; D]| rows.map(|i| values[i]);
        let symbolic_impulse: [f32; D] = std::array::from_fn(|i| impulse[rows[i]]);
        let slots: [usize; B] = std::array::from_fn(|s| s);

        assert_close(
            &permuted(generated.position_error(&poses)),
            &symbolic.position_error(&poses),
            "c",
        );
        let (jg, js) = (generated.jacobian(&poses), symbolic.jacobian(&poses));
        assert_close(
            &flat(generated.jacobian_rows(&jg), rows),
            &flat(symbolic.jacobian_rows(&js), identity),
            "J",
        );
        assert_close(
            &permuted(generated.velocity_bias(&jg)),
            &symbolic.velocity_bias(&js),
            "b",
        );
        // Velocities and impulses are at most 1, inverse masses 5: the terms' magnitude.
        let j_size: f32 = flat(generated.jacobian_rows(&jg), rows)
            .iter()
            .map(|x| x.abs())
            .sum();
        let (kg, ks) = (
            generated.effective_mass(&jg, &masses, shared),
            symbolic.effective_mass(&js, &masses, shared),
        );
        // The one call the solver's preparation makes gives the three's values, bit for
        // bit (one compiled function for the runtime joint, the three calls by default).
        let (mut error, mut jacobian, mut k) =
            ([f32::NAN; D], S::Jacobian::default(), [[f32::NAN; D]; D]);
        symbolic.linearize(&poses, &masses, shared, &mut error, &mut jacobian, &mut k);
        let bits = |values: &[f32]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&error),
            bits(&symbolic.position_error(&poses)),
            "linearized c"
        );
        assert_eq!(
            bits(
                symbolic
                    .jacobian_rows(&jacobian)
                    .as_flattened()
                    .as_flattened()
            ),
            bits(symbolic.jacobian_rows(&js).as_flattened().as_flattened()),
            "linearized J"
        );
        assert_eq!(
            bits(k.as_flattened()),
            bits(ks.as_flattened()),
            "linearized K"
        );
        let kg: Vec<f32> = rows.iter().flat_map(|&i| rows.map(|j| kg[i][j])).collect();
        assert_close_to(&kg, ks.as_flattened(), 5.0 * j_size * j_size, "K");
        assert_close_to(
            &permuted(generated.velocity_error(&jg, &slots, &velocities)),
            &symbolic.velocity_error(&js, &slots, &velocities),
            j_size,
            "J·v",
        );
        let (mut vg, mut vs) = (velocities.clone(), velocities.clone());
        generated.apply_impulse(&jg, &impulse, &masses, &slots, &mut vg);
        symbolic.apply_impulse(&js, &symbolic_impulse, &masses, &slots, &mut vs);
        let unpack = |v: &[Velocity]| -> Vec<f32> {
            v.iter()
                .flat_map(|v| [v.linear.x, v.linear.y, v.angular])
                .collect()
        };
        assert_close_to(&unpack(&vg), &unpack(&vs), 5.0 * j_size, "v + M⁻¹Jᵀλ");
        let (sg, ss) = (
            generated.geometric_stiffness(&poses, &impulse),
            symbolic.geometric_stiffness(&poses, &symbolic_impulse),
        );
        assert_eq!(sg.is_some(), ss.is_some(), "geometric stiffness derived");
        if let (Some(sg), Some(ss)) = (sg, ss) {
            assert_close(sg.as_flattened(), ss.as_flattened(), "geometric stiffness");
        }
    }
    let bounds =
        |b: [nape::Bounds; D]| -> Vec<f32> { b.iter().flat_map(|b| [b.min, b.max]).collect() };
    let gb = generated.bounds();
    assert_eq!(
        bounds(rows.map(|i| gb[i])),
        bounds(symbolic.bounds()),
        "bounds"
    );
    assert_eq!(generated.validate().is_ok(), symbolic.validate().is_ok());
}

/// Steps a space with `generated` and one with `symbolic` over the same bodies for 600
/// steps; every body ends (and passes) within 3e-5 m of its twin, plus 3e-5 of how far it
/// is from the origin: the two effective masses `K` (the generated expressions, the
/// runtime's products over a dense `J`) round apart, which the impulses carry through up
/// to 64 substeps a step (the ellipse bead's twins part by 1.7e-5 in 10 s), where a
/// derivation that differs parts them by the motion itself.
fn agree_in_motion<T, S, const D: usize, const B: usize>(
    bodies: &[Body],
    generated: impl Fn(&[BodyHandle]) -> T,
    symbolic: impl Fn(&[BodyHandle]) -> S,
    settings: ConstraintSettings,
) where
    T: Constraint<D, B>,
    S: Constraint<D, B>,
{
    let detached: Vec<BodyHandle> = (0..B as u32).map(BodyHandle::detached).collect();
    assert_eq!(
        generated(&detached).translation_invariant(),
        symbolic(&detached).translation_invariant(),
        "both read their positions in the same frame"
    );
    let build = |add: &dyn Fn(&mut Space, &[BodyHandle])| {
        let mut space = Space::new();
        space.gravity = Vec2::new(0.0, -10.0);
        let handles: Vec<BodyHandle> = bodies
            .iter()
            .map(|b| space.add_body(b.clone()).unwrap())
            .collect();
        add(&mut space, &handles);
        (space, handles)
    };
    let (mut a, handles) = build(&|space, h| {
        space.add_constraint_with(generated(h), settings).unwrap();
    });
    let (mut b, twins) = build(&|space, h| {
        space.add_constraint_with(symbolic(h), settings).unwrap();
    });
    let mut worst = 0.0f32;
    for _ in 0..600 {
        a.step(1.0 / 60.0);
        b.step(1.0 / 60.0);
        for (&h, &twin) in handles.iter().zip(&twins) {
            let (pa, pb) = (a.body(h).unwrap(), b.body(twin).unwrap());
            let apart = pa
                .position()
                .as_vec2()
                .distance(pb.position().as_vec2())
                .max((pa.angle() - pb.angle()).abs() as f32);
            worst = worst.max(apart / (1.0 + pa.position().as_vec2().length()));
        }
    }
    assert!(
        worst <= 3e-5,
        "the motions part by {worst} of their distance"
    );
}

fn new<const D: usize, const B: usize, K: RowKind>(source: &str) -> SymbolicConstraint<D, B, K> {
    SymbolicConstraint::compile(source).unwrap_or_else(|e| panic!("{e}\n{source}"))
}

/// Sets parameters by name: bodies, scalars, vectors.
fn with<const D: usize, const B: usize, K: RowKind>(
    mut constraint: SymbolicConstraint<D, B, K>,
    bodies: &[(&str, BodyHandle)],
    scalars: &[(&str, f32)],
    vectors: &[(&str, Vec2)],
) -> SymbolicConstraint<D, B, K> {
    for &(name, body) in bodies {
        constraint.set_body(name, body).unwrap();
    }
    for &(name, value) in scalars {
        constraint.set_scalar(name, value).unwrap();
    }
    for &(name, value) in vectors {
        constraint.set_vector(name, value).unwrap();
    }
    constraint
}

fn plank(x: f32, y: f32) -> Body {
    Body::rectangle(0.5, 0.2, 1.0).at(Vec2::new(x, y))
}

/// Two bodies: a static one at the origin and a plank hanging off it, a second plank.
fn two() -> Vec<Body> {
    vec![Body::static_body(), plank(1.0, 0.0), plank(2.0, -0.3)]
}

const PIVOT: &str = include_str!("../nape-core/src/joints/pivot.rs");
const WELD: &str = include_str!("../nape-core/src/joints/weld.rs");
const ANGLE: &str = include_str!("../nape-core/src/joints/angle.rs");
const DISTANCE: &str = include_str!("../nape-core/src/joints/distance.rs");
const LINE: &str = include_str!("../nape-core/src/joints/line.rs");
const MOTOR: &str = include_str!("../nape-core/src/joints/motor.rs");
const PULLEY: &str = include_str!("../nape-core/src/joints/pulley.rs");

#[test]
fn pivot_agrees() {
    let (a1, a2) = (Vec2::new(0.3, -0.1), Vec2::new(-0.5, 0.0));
    let source = builtin(PIVOT, "PivotJoint");
    let make = |h: &[BodyHandle]| {
        with(
            new::<2, 2, Equalities>(&source),
            &[("body1", h[0]), ("body2", h[1])],
            &[],
            &[("anchor1", a1), ("anchor2", a2)],
        )
    };
    let generated = |h: &[BodyHandle]| PivotJoint::new(h[0], h[1], a1, a2);
    let (h1, h2) = handles();
    agree_on_random_states(
        &generated(&[h1, h2]),
        &make(&[h1, h2]),
        [0, 1],
        SharedSlots::NONE,
    );
    agree_in_motion(&two()[..2], generated, make, ConstraintSettings::default());
}

/// Two distinct handles from a throwaway space.
fn handles() -> (BodyHandle, BodyHandle) {
    let mut space = Space::new();
    let a = space.add_body(plank(0.0, 0.0)).unwrap();
    let b = space.add_body(plank(1.0, 0.0)).unwrap();
    (a, b)
}

/// The weld compiled from `source` against `WeldJoint`.
fn weld_case(source: &str) {
    let (a1, a2) = (Vec2::new(0.5, 0.0), Vec2::new(-0.5, 0.1));
    let make = |h: &[BodyHandle]| {
        with(
            new::<3, 2, Equalities>(source),
            &[("body1", h[0]), ("body2", h[1])],
            &[("phase", 0.2)],
            &[("anchor1", a1), ("anchor2", a2)],
        )
    };
    let generated = |h: &[BodyHandle]| WeldJoint::new(h[0], h[1], a1, a2, 0.2);
    let (h1, h2) = handles();
    agree_on_random_states(
        &generated(&[h1, h2]),
        &make(&[h1, h2]),
        [0, 1, 2],
        SharedSlots::NONE,
    );
    agree_in_motion(
        &two()[1..],
        generated,
        make,
        ConstraintSettings::soft(5.0, 0.7),
    );
}

#[test]
fn weld_agrees() {
    weld_case(&builtin(WELD, "WeldJoint"));
}

#[test]
fn angle_agrees() {
    let source = builtin(ANGLE, "AngleJoint");
    let make = |h: &[BodyHandle]| {
        with(
            new::<1, 2, Limited>(&source),
            &[("body1", h[0]), ("body2", h[1])],
            &[("joint_min", -0.3), ("joint_max", 0.4), ("ratio", 1.5)],
            &[],
        )
    };
    let generated = |h: &[BodyHandle]| AngleJoint {
        ratio: 1.5,
        ..AngleJoint::new(h[0], h[1], -0.3, 0.4)
    };
    let (h1, h2) = handles();
    agree_on_random_states(
        &generated(&[h1, h2]),
        &make(&[h1, h2]),
        [0],
        SharedSlots::NONE,
    );
    let bodies = [plank(0.0, 0.0).with_angular_velocity(3.0), plank(1.0, 0.0)];
    agree_in_motion(&bodies, generated, make, ConstraintSettings::default());
}

/// The distance joint compiled from `source` (its bounds named `min` and `max`) against
/// `DistanceJoint`; a negative `min` breaks a rule.
fn distance_case(source: &str, min: &str, max: &str) {
    let (a1, a2) = (Vec2::new(0.2, 0.0), Vec2::new(-0.2, 0.05));
    let make = |h: &[BodyHandle]| {
        with(
            new::<1, 2, Limited>(source),
            &[("body1", h[0]), ("body2", h[1])],
            &[(min, 0.5), (max, 1.2)],
            &[("anchor1", a1), ("anchor2", a2)],
        )
    };
    let generated = |h: &[BodyHandle]| DistanceJoint::new(h[0], h[1], a1, a2, 0.5, 1.2);
    let (h1, h2) = handles();
    agree_on_random_states(
        &generated(&[h1, h2]),
        &make(&[h1, h2]),
        [0],
        SharedSlots::NONE,
    );
    agree_in_motion(&two()[..2], generated, make, ConstraintSettings::default());
    let mut bad = make(&[h1, h2]);
    bad.set_scalar(min, -0.1).unwrap();
    assert!(bad.validate().is_err());
}

#[test]
fn distance_agrees() {
    distance_case(
        &builtin(DISTANCE, "DistanceJoint"),
        "joint_min",
        "joint_max",
    );
}

#[test]
fn line_agrees() {
    let (a1, a2, axis) = (Vec2::new(0.1, 0.0), Vec2::ZERO, Vec2::new(1.0, -1.0));
    let source = builtin(LINE, "LineJoint");
    let make = |h: &[BodyHandle]| {
        with(
            new::<2, 2, Limited>(&source),
            &[("body1", h[0]), ("body2", h[1])],
            &[("joint_min", -1.0), ("joint_max", 1.0)],
            &[("anchor1", a1), ("anchor2", a2), ("direction", axis)],
        )
    };
    let generated = |h: &[BodyHandle]| LineJoint::new(h[0], h[1], a1, a2, axis, -1.0, 1.0);
    let (h1, h2) = handles();
    agree_on_random_states(
        &generated(&[h1, h2]),
        &make(&[h1, h2]),
        [0, 1],
        SharedSlots::NONE,
    );
    agree_in_motion(&two()[..2], generated, make, ConstraintSettings::default());
}

#[test]
fn motor_agrees() {
    let source = builtin(MOTOR, "MotorJoint");
    let make = |h: &[BodyHandle]| {
        with(
            new::<1, 2, VelocityOnly>(&source),
            &[("body1", h[0]), ("body2", h[1])],
            &[("rate", 2.0), ("ratio", 0.5)],
            &[],
        )
    };
    let generated = |h: &[BodyHandle]| MotorJoint {
        ratio: 0.5,
        ..MotorJoint::new(h[0], h[1], 2.0)
    };
    let (h1, h2) = handles();
    agree_on_random_states(
        &generated(&[h1, h2]),
        &make(&[h1, h2]),
        [0],
        SharedSlots::NONE,
    );
    let settings = ConstraintSettings {
        max_force: 5.0,
        ..ConstraintSettings::default()
    };
    agree_in_motion(&two()[1..], generated, make, settings);
}

#[test]
fn pulley_agrees_with_shared_slots() {
    let anchors = [
        Vec2::ZERO,
        Vec2::new(0.1, 0.0),
        Vec2::new(2.0, 0.0),
        Vec2::ZERO,
    ];
    let source = builtin(PULLEY, "PulleyJoint");
    let make = |h: &[BodyHandle]| {
        with(
            new::<1, 4, Limited>(&source),
            &[
                ("body1", h[0]),
                ("body2", h[1]),
                ("body3", h[0]),
                ("body4", h[2]),
            ],
            &[("joint_min", 0.0), ("joint_max", 3.0), ("ratio", 2.0)],
            &[
                ("anchor1", anchors[0]),
                ("anchor2", anchors[1]),
                ("anchor3", anchors[2]),
                ("anchor4", anchors[3]),
            ],
        )
    };
    let generated = |h: &[BodyHandle]| PulleyJoint {
        body1: h[0],
        body2: h[1],
        body3: h[0],
        body4: h[2],
        anchor1: anchors[0],
        anchor2: anchors[1],
        anchor3: anchors[2],
        anchor4: anchors[3],
        joint_min: 0.0,
        joint_max: 3.0,
        ratio: 2.0,
    };
    let mut space = Space::new();
    let h: Vec<BodyHandle> = two()
        .into_iter()
        .map(|b| space.add_body(b).unwrap())
        .collect();
    let shared = SharedSlots::NONE.with(0, 2);
    agree_on_random_states(&generated(&h), &make(&h), [0], shared);
    let bodies = [Body::static_body(), plank(0.0, -1.0), plank(2.0, -1.5)];
    agree_in_motion(&bodies, generated, make, ConstraintSettings::default());
}

/// A gallery joint: its declaration compiled from the gallery's own source.
fn gallery<const D: usize, const B: usize>(name: &str) -> SymbolicConstraint<D, B> {
    new(&builtin(joints::SOURCE, name))
}

#[test]
fn gallery_joints_agree() {
    let (h1, h2) = handles();
    let bodies = [Body::static_body(), plank(1.0, 0.2), plank(-1.0, 0.1)];
    let bead = |h: &[BodyHandle]| EllipseBead {
        body1: h[0],
        body2: h[1],
        a: 1.0,
        b: 0.5,
    };
    let symbolic_bead = |h: &[BodyHandle]| {
        with(
            gallery::<1, 2>("EllipseBead"),
            &[("body1", h[0]), ("body2", h[1])],
            &[("a", 1.0), ("b", 0.5)],
            &[],
        )
    };
    agree_on_random_states(
        &bead(&[h1, h2]),
        &symbolic_bead(&[h1, h2]),
        [0],
        SharedSlots::NONE,
    );
    agree_in_motion(
        &bodies[..2],
        bead,
        symbolic_bead,
        ConstraintSettings::default(),
    );

    let cam = |h: &[BodyHandle]| CamFollower {
        body1: h[0],
        body2: h[1],
        base: 0.8,
        lift: 0.2,
        offset: 0.1,
    };
    let symbolic_cam = |h: &[BodyHandle]| {
        with(
            gallery::<1, 2>("CamFollower"),
            &[("body1", h[0]), ("body2", h[1])],
            &[("base", 0.8), ("lift", 0.2), ("offset", 0.1)],
            &[],
        )
    };
    agree_on_random_states(
        &cam(&[h1, h2]),
        &symbolic_cam(&[h1, h2]),
        [0],
        SharedSlots::NONE,
    );
    // A driven cam (the gallery's scene): two free bodies would tumble chaotically, and
    // any rounding difference would grow without telling anything.
    let cam_bodies = [
        Body::kinematic().with_angular_velocity(2.0),
        plank(0.0, 1.0),
    ];
    agree_in_motion(
        &cam_bodies,
        cam,
        symbolic_cam,
        ConstraintSettings::default(),
    );

    let rack = |h: &[BodyHandle]| RackAndPinion {
        body1: h[0],
        body2: h[1],
        radius: 0.3,
        offset: 1.0,
    };
    let symbolic_rack = |h: &[BodyHandle]| {
        with(
            gallery::<1, 2>("RackAndPinion"),
            &[("body1", h[0]), ("body2", h[1])],
            &[("radius", 0.3), ("offset", 1.0)],
            &[],
        )
    };
    agree_on_random_states(
        &rack(&[h1, h2]),
        &symbolic_rack(&[h1, h2]),
        [0],
        SharedSlots::NONE,
    );
    agree_in_motion(
        &cam_bodies,
        rack,
        symbolic_rack,
        ConstraintSettings::default(),
    );

    let three = [plank(-1.0, 0.0), plank(1.0, 0.5), plank(0.0, -0.5)];
    let names = [("body1", 0), ("body2", 1), ("body3", 2)];
    let by_name = |h: &[BodyHandle]| names.map(|(n, k)| (n, h[k]));
    let midpoint = |h: &[BodyHandle]| Midpoint {
        body1: h[0],
        body2: h[1],
        body3: h[2],
    };
    let symbolic_midpoint =
        |h: &[BodyHandle]| with(gallery::<2, 3>("Midpoint"), &by_name(h), &[], &[]);
    let differential = |h: &[BodyHandle]| Differential {
        body1: h[0],
        body2: h[1],
        body3: h[2],
    };
    let symbolic_differential =
        |h: &[BodyHandle]| with(gallery::<1, 3>("Differential"), &by_name(h), &[], &[]);
    let mut space = Space::new();
    let h: Vec<BodyHandle> = three
        .iter()
        .map(|b| space.add_body(b.clone()).unwrap())
        .collect();
    agree_on_random_states(
        &midpoint(&h),
        &symbolic_midpoint(&h),
        [0, 1],
        SharedSlots::NONE,
    );
    agree_on_random_states(
        &differential(&h),
        &symbolic_differential(&h),
        [0],
        SharedSlots::NONE,
    );
    agree_in_motion(
        &three,
        midpoint,
        symbolic_midpoint,
        ConstraintSettings::default(),
    );
    let spinning = [
        plank(-1.0, 0.0).with_angular_velocity(1.0),
        plank(1.0, 0.5),
        plank(0.0, -0.5),
    ];
    agree_in_motion(
        &spinning,
        differential,
        symbolic_differential,
        ConstraintSettings::default(),
    );
}

// The seed's three `SymbolicConstraint` examples ("Nape Constraints", §5), verbatim: the
// interactive page offers the same texts.
use nape_gallery::workbench::{SEED_DISTANCE, SEED_LINE, SEED_WELD};

#[test]
fn seed_weld_is_the_weld_joint() {
    weld_case(SEED_WELD);
}

#[test]
fn seed_distance_is_the_distance_joint() {
    // `limit jointMin 0 jointMax` is the rule a negative `jointMin` breaks.
    distance_case(SEED_DISTANCE, "jointMin", "jointMax");
}

#[test]
fn seed_line_is_the_line_joint_with_its_rows_swapped() {
    let (a1, a2, axis) = (Vec2::new(0.1, 0.0), Vec2::ZERO, Vec2::new(1.0, -1.0));
    let make = |h: &[BodyHandle]| {
        with(
            new::<2, 2, Limited>(SEED_LINE),
            &[("body1", h[0]), ("body2", h[1])],
            &[("jointMin", -1.0), ("jointMax", 1.0)],
            &[("anchor1", a1), ("anchor2", a2), ("direction", axis)],
        )
    };
    let generated = |h: &[BodyHandle]| LineJoint::new(h[0], h[1], a1, a2, axis, -1.0, 1.0);
    let (h1, h2) = handles();
    // The seed's rows are (along, across); the builtin's (across, along).
    agree_on_random_states(
        &generated(&[h1, h2]),
        &make(&[h1, h2]),
        [1, 0],
        SharedSlots::NONE,
    );
    agree_in_motion(&two()[..2], generated, make, ConstraintSettings::default());
    let mut bad = make(&[h1, h2]);
    bad.set_vector("direction", Vec2::ZERO).unwrap();
    assert!(bad.validate().is_err(), "`limit |direction| eps inf`");
}

#[test]
fn parameters_are_typed_by_name() {
    let mut weld = new::<3, 2, Equalities>(SEED_WELD);
    weld.set_scalar("phase", 0.3).unwrap();
    assert_eq!(weld.scalar("phase").unwrap(), 0.3);
    let unknown = weld.set_scalar("phse", 1.0).unwrap_err();
    assert!(
        unknown.to_string().contains("did you mean `phase`?"),
        "{unknown}"
    );
    let wrong = weld.set_vector("phase", Vec2::ONE).unwrap_err();
    assert!(
        matches!(wrong, nape::symbolic::SymbolicError::WrongKind { .. }),
        "{wrong}"
    );
    let shape = SymbolicConstraint::<2, 2>::new(SEED_WELD).unwrap_err();
    assert!(
        matches!(shape, nape::symbolic::SymbolicError::Shape { .. }),
        "{shape}"
    );
}

#[test]
fn snapshots_carry_the_source_and_parameters() {
    use nape::SnapshotRegistry;
    let mut registry = SnapshotRegistry::new();
    registry.register::<SymbolicConstraint<3, 2>, 3, 2>();
    let mut space = Space::new();
    space.gravity = Vec2::new(0.0, -10.0);
    let ground = space.add_body(Body::static_body()).unwrap();
    let a = space.add_body(plank(1.0, 0.0)).unwrap();
    let weld = with(
        new::<3, 2, Equalities>(SEED_WELD),
        &[("body1", ground), ("body2", a)],
        &[("phase", 0.1)],
        &[("anchor1", Vec2::new(0.5, 0.0))],
    );
    space
        .add_constraint_with(weld, ConstraintSettings::soft(3.0, 0.2))
        .unwrap();
    for _ in 0..30 {
        space.step(1.0 / 60.0);
    }
    let bytes = space.snapshot().to_bytes(&registry).unwrap();
    let mut restored = Space::new();
    restored.restore(&nape::Snapshot::from_bytes(&bytes, &registry).unwrap());
    for _ in 0..60 {
        space.step(1.0 / 60.0);
        restored.step(1.0 / 60.0);
    }
    assert_eq!(
        space.body(a).unwrap().position().as_vec2(),
        restored.body(a).unwrap().position().as_vec2()
    );
    // A corrupted source is a typed error, never a panic.
    let at = bytes.windows(4).position(|w| w == b"body").unwrap();
    let mut corrupt = bytes.clone();
    corrupt[at] = b'(';
    assert!(nape::Snapshot::from_bytes(&corrupt, &registry).is_err());
}

/// A pendulum of 1 m released level from a static pivot, once with `PivotJoint` and once
/// with the runtime pivot, under `settings`: the space's impulse queries agree step by
/// step and the joint breaks at the same step for the same cause and value. Returns the
/// step it broke at.
fn breaks_alike(settings: ConstraintSettings) -> usize {
    let source = builtin(PIVOT, "PivotJoint");
    let (a1, a2) = (Vec2::ZERO, Vec2::new(-1.0, 0.0));
    let pendulum = || {
        let mut space = Space::new();
        space.gravity = Vec2::new(0.0, -10.0);
        let pivot = space.add_body(Body::static_body()).unwrap();
        let bob = Body::dynamic(1.0, 0.1).at(Vec2::new(1.0, 0.0));
        (space.add_body(bob).unwrap(), pivot, space)
    };
    let (bob, pivot, mut generated) = pendulum();
    let g = generated
        .add_constraint_with(PivotJoint::new(pivot, bob, a1, a2), settings)
        .unwrap();
    let (twin, twin_pivot, mut runtime) = pendulum();
    let runtime_pivot = with(
        new::<2, 2, Equalities>(&source),
        &[("body1", twin_pivot), ("body2", twin)],
        &[],
        &[("anchor1", a1), ("anchor2", a2)],
    );
    let r = runtime
        .add_constraint_with(runtime_pivot, settings)
        .unwrap();
    // The two `K` round apart (module docs of `agree_in_motion`), so the impulses are
    // compared to 1e-4 of their size.
    let close = |a: &[f32], b: &[f32]| {
        let scale = a.iter().chain(b).fold(1.0f32, |m, x| m.max(x.abs()));
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-4 * scale)
    };
    for step in 0..120 {
        generated.step(1.0 / 60.0);
        runtime.step(1.0 / 60.0);
        let (ours, theirs) = (runtime.broken_constraints(), generated.broken_constraints());
        assert_eq!(ours.len(), theirs.len(), "breaks at step {step}");
        if let (Some(ours), Some(theirs)) = (ours.first(), theirs.first()) {
            assert_eq!(ours.cause, theirs.cause);
            assert!(close(&[ours.value], &[theirs.value]), "{ours:?} {theirs:?}");
            return step;
        }
        let (i, j) = (generated.impulse(g).unwrap(), runtime.impulse(r).unwrap());
        assert!(close(&i, &j), "impulse at step {step}: {i:?} {j:?}");
        let (l, a) = generated.body_impulse(g, bob).unwrap();
        let (m, b) = runtime.body_impulse(r, twin).unwrap();
        assert!(
            close(&[l.x, l.y, a], &[m.x, m.y, b]),
            "body impulse, step {step}"
        );
    }
    panic!("the pendulum did not break under {settings:?}");
}

#[test]
fn the_space_breaks_and_reports_a_runtime_joint_as_the_generated() {
    // A point pendulum's tension climbs from 0 to 3 mg = 30 N at the bottom.
    let stiff = breaks_alike(ConstraintSettings {
        max_force: 15.0,
        break_under_force: true,
        ..ConstraintSettings::default()
    });
    let soft = breaks_alike(ConstraintSettings {
        max_error: 0.05,
        break_under_error: true,
        ..ConstraintSettings::soft(2.0, 0.3)
    });
    assert!(stiff > 10 && soft > 3, "broke at steps {stiff} and {soft}");
}

#[test]
fn a_runtime_joint_is_drawn_as_a_link_between_its_bodies() {
    use nape::draw::{DrawPrimitive, SegmentStyle};
    let mut space = Space::new();
    let pivot = space.add_body(Body::static_body()).unwrap();
    let bob = space
        .add_body(Body::dynamic(1.0, 0.1).at(Vec2::new(1.0, 0.0)))
        .unwrap();
    let joint = with(
        new::<2, 2, Equalities>(&builtin(PIVOT, "PivotJoint")),
        &[("body1", pivot), ("body2", bob)],
        &[],
        &[("anchor2", Vec2::new(-1.0, 0.0))],
    );
    let handle = space.add_constraint(joint).unwrap();
    let mut picture = Vec::new();
    space.debug_draw(handle, &mut |p| picture.push(p)).unwrap();
    assert!(picture.contains(&DrawPrimitive::Anchor { at: Vec2::ZERO }));
    assert!(picture.contains(&DrawPrimitive::Segment {
        from: Vec2::ZERO,
        to: Vec2::new(1.0, 0.0),
        style: SegmentStyle::Link,
    }));
}

/// Wound poses of two bodies: `wound` turns plus `a` and `b` radians.
fn wound_pair(wound: f64, a: f64, b: f64) -> [Pose; 2] {
    let turns = wound * std::f64::consts::TAU;
    [
        Pose::new(Vec2::new(0.1, -0.2), turns + a),
        Pose::new(Vec2::new(1.2, 0.3), turns + b),
    ]
}

#[test]
fn runtime_angles_are_read_from_the_generated_windings() {
    let (h1, h2) = handles();
    let (a1, a2) = (Vec2::new(0.5, 0.0), Vec2::new(-0.5, 0.1));
    let weld = with(
        new::<3, 2, Equalities>(&builtin(WELD, "WeldJoint")),
        &[("body1", h1), ("body2", h2)],
        &[("phase", 0.2)],
        &[("anchor1", a1), ("anchor2", a2)],
    );
    let generated = WeldJoint::new(h1, h2, a1, a2, 0.2);
    let angle = |ratio: f32| {
        with(
            new::<1, 2, Limited>(&builtin(ANGLE, "AngleJoint")),
            &[("body1", h1), ("body2", h2)],
            &[("joint_min", -0.3), ("joint_max", 0.4), ("ratio", ratio)],
            &[],
        )
    };
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for (wound, a, b) in [(1e4, 0.3, 0.5), (-2e4, 3.1, -3.1), (7.0, -3.0, 3.0 + 1e-6)] {
        let poses = wound_pair(wound, a, b);
        // Read from body1's winding: the relative angle exact at any number of turns, and
        // the interpreted or compiled tapes give the generated code's values bit for bit.
        let exact = (poses[1].total_angle() - poses[0].total_angle()) - 0.2;
        let runtime = weld.position_error(&poses);
        assert_eq!(bits(&runtime), bits(&generated.position_error(&poses)));
        assert!((f64::from(runtime[2]) - exact).abs() < 1e-6, "{runtime:?}");
        for ratio in [1.0, 1.5] {
            let generated = AngleJoint {
                ratio,
                ..AngleJoint::new(h1, h2, -0.3, 0.4)
            };
            let runtime = angle(ratio).position_error(&poses);
            assert_eq!(bits(&runtime), bits(&generated.position_error(&poses)));
            if ratio == 1.0 {
                let exact = poses[1].total_angle() - poses[0].total_angle();
                assert!((f64::from(runtime[0]) - exact).abs() < 1e-6, "{runtime:?}");
            }
        }
    }
}
