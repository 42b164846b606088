//! The scene with every builtin joint type, built the same way by `tests/guarantees.rs`
//! (whose pinned state hash depends on it, call for call) and `tests/snapshot_bytes.rs`.
//!
//! Include with `#[path = "support/every_joint.rs"] mod every_joint;`.

use nape::{
    AngleJoint, Body, BodyHandle, ConstraintSettings, DistanceJoint, LineJoint, MotorJoint,
    PivotJoint, PulleyJoint, Space, Vec2, WeldJoint,
};

/// A dynamic 0.5 × 0.2 plank of density 1 at `(x, y)`.
pub fn plank(space: &mut Space, x: f32, y: f32) -> BodyHandle {
    space
        .add_body(Body::rectangle(0.5, 0.2, 1.0).at(Vec2::new(x, y)))
        .unwrap()
}

/// Sets gravity and adds a static ground, six planks and one of every builtin joint type
/// (some soft, some limited, one motor) between them. Returns the ground and the planks.
pub fn every_joint(space: &mut Space) -> (BodyHandle, [BodyHandle; 6]) {
    space.gravity = Vec2::new(0.0, -10.0);
    let ground = space.add_body(Body::static_body()).unwrap();
    let a = plank(space, 1.0, 0.0);
    let b = plank(space, 2.0, 0.0);
    let c = plank(space, 3.0, -0.5);
    let d = plank(space, 0.0, -2.0);
    let e = plank(space, -1.0, -2.0);
    let f = plank(space, 2.0, -2.0);
    space
        .add_constraint(PivotJoint::new(ground, a, Vec2::ZERO, Vec2::new(-1.0, 0.0)))
        .unwrap();
    space
        .add_constraint(WeldJoint::new(
            a,
            b,
            Vec2::new(0.5, 0.0),
            Vec2::new(-0.5, 0.0),
            0.0,
        ))
        .unwrap();
    space
        .add_constraint_with(
            DistanceJoint::new(b, c, Vec2::ZERO, Vec2::ZERO, 0.5, 1.2),
            ConstraintSettings::soft(4.0, 0.5),
        )
        .unwrap();
    space
        .add_constraint(AngleJoint::new(b, c, -0.5, 0.5))
        .unwrap();
    space
        .add_constraint(LineJoint::new(
            ground,
            d,
            Vec2::new(0.0, -2.0),
            Vec2::ZERO,
            Vec2::X,
            -1.0,
            1.0,
        ))
        .unwrap();
    space
        .add_constraint_with(
            MotorJoint::new(ground, d, 2.0),
            ConstraintSettings {
                max_force: 5.0,
                ..ConstraintSettings::default()
            },
        )
        .unwrap();
    space
        .add_constraint(PulleyJoint {
            body1: ground,
            body2: e,
            body3: ground,
            body4: f,
            anchor1: Vec2::new(-1.0, 0.0),
            anchor2: Vec2::ZERO,
            anchor3: Vec2::new(2.0, 0.0),
            anchor4: Vec2::ZERO,
            joint_min: 0.0,
            joint_max: 4.0,
            ratio: 1.0,
        })
        .unwrap();
    (ground, [a, b, c, d, e, f])
}

/// A soft joint between `c` and `f` that breaks as soon as they move apart and stays
/// (inactive), then a joint between `a` and `c` and the body `doomed` removed again, so
/// that both handle tables have free slots: what a snapshot must carry besides the joints.
#[allow(dead_code)] // not every includer takes snapshots
pub fn break_and_free_slots(space: &mut Space, [a, c, f]: [BodyHandle; 3], doomed: BodyHandle) {
    space
        .add_constraint_with(
            DistanceJoint::new(c, f, Vec2::ZERO, Vec2::ZERO, 0.0, 0.1),
            ConstraintSettings {
                max_error: 0.2,
                break_under_error: true,
                remove_on_break: false,
                ..ConstraintSettings::soft(1.0, 1.0)
            },
        )
        .unwrap();
    let removed = space
        .add_constraint(DistanceJoint::new(a, c, Vec2::ZERO, Vec2::ZERO, 0.0, 9.0))
        .unwrap();
    space.remove_constraint(removed).unwrap();
    space.remove_body(doomed).unwrap();
}
