//! Every misuse of a `Space` is a clear error, never a panic or a wrong body.

#[path = "support/hand_joints.rs"]
mod hand_joints;

use hand_joints::{HandPivot, HandWeld};
use nape::{Body, ConstraintSettings, Error, Space, Vec2};

#[test]
fn stale_body_handle() {
    let mut space = Space::new();
    let h = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    space.remove_body(h).unwrap();
    assert_eq!(space.body(h).err(), Some(Error::StaleBody));
    assert_eq!(space.body_mut(h).err(), Some(Error::StaleBody));
    assert_eq!(space.apply_force(h, Vec2::X), Err(Error::StaleBody));
    // A new body in the same slot does not revive the old handle.
    let h2 = space.add_body(Body::dynamic(2.0, 1.0)).unwrap();
    assert_eq!(space.body(h).err(), Some(Error::StaleBody));
    assert_eq!(space.body(h2).unwrap().mass(), 2.0);
    let s = space.add_body(Body::static_body()).unwrap();
    assert_eq!(
        space
            .add_constraint(HandPivot::new(s, h, Vec2::ZERO, Vec2::ZERO))
            .err(),
        Some(Error::StaleBody)
    );
}

#[test]
fn foreign_handles() {
    let mut a = Space::new();
    let mut b = Space::new();
    let ha = a.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let sa = a.add_body(Body::static_body()).unwrap();
    let hb = b.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    assert_eq!(a.body(hb).err(), Some(Error::ForeignBody));
    assert_eq!(b.remove_body(ha).err(), Some(Error::ForeignBody));
    assert_eq!(
        a.add_constraint(HandPivot::new(sa, hb, Vec2::ZERO, Vec2::ZERO))
            .err(),
        Some(Error::ForeignBody)
    );
    let c = a
        .add_constraint(HandPivot::new(sa, ha, Vec2::ZERO, Vec2::ZERO))
        .unwrap();
    assert_eq!(b.constraint(c).err(), Some(Error::ForeignConstraint));
    assert_eq!(b.remove_constraint(c).err(), Some(Error::ForeignConstraint));
    assert!(a.constraint(c).is_ok());
}

#[test]
fn detached_handles_are_foreign_to_every_space() {
    let mut space = Space::new();
    let h = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let detached = nape::BodyHandle::detached(h.index() as u32);
    assert_ne!(detached, h);
    assert_ne!(detached, nape::BodyHandle::detached(h.index() as u32 + 1));
    assert_eq!(space.body(detached).err(), Some(Error::ForeignBody));
    assert_eq!(
        space
            .add_constraint(HandPivot::new(h, detached, Vec2::ZERO, Vec2::ZERO))
            .err(),
        Some(Error::ForeignBody)
    );
}

#[test]
fn invalid_bodies_are_rejected() {
    let mut space = Space::new();
    for body in [
        Body::dynamic(f32::NAN, 1.0),
        Body::dynamic(0.0, 1.0),
        Body::dynamic(-1.0, 1.0),
        Body::dynamic(f32::INFINITY, 1.0),
        Body::dynamic(1.0, f32::NAN),
        Body::dynamic(1.0, 1.0).at(Vec2::new(0.0, f32::NAN)),
        Body::dynamic(1.0, 1.0).with_velocity(Vec2::new(f32::INFINITY, 0.0)),
        Body::polygon(&[Vec2::ZERO, Vec2::X, Vec2::new(2.0, 0.0)], 1.0),
    ] {
        assert!(
            matches!(space.add_body(body.clone()), Err(Error::InvalidBody(_))),
            "{body:?}"
        );
    }
    assert_eq!(space.body_count(), 0);
}

#[test]
fn invalid_settings_and_parameters() {
    let mut space = Space::new();
    let s = space.add_body(Body::static_body()).unwrap();
    let d = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let pivot = HandPivot::new(s, d, Vec2::ZERO, Vec2::ZERO);
    for settings in [
        ConstraintSettings {
            frequency: 0.0,
            ..Default::default()
        },
        ConstraintSettings {
            damping: f32::NAN,
            ..Default::default()
        },
        ConstraintSettings {
            max_force: -1.0,
            ..Default::default()
        },
        ConstraintSettings {
            max_error: f32::NAN,
            ..Default::default()
        },
    ] {
        let r = space.add_constraint_with(pivot.clone(), settings);
        assert!(
            matches!(r, Err(Error::InvalidSettings(_))),
            "{settings:?}: {r:?}"
        );
    }
    let bad = HandPivot::new(s, d, Vec2::new(f32::NAN, 0.0), Vec2::ZERO);
    let err = space.add_constraint(bad).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidParameter(p) if p.constraint == "HandPivot"),
        "{err}"
    );
    assert_eq!(space.constraint_count(), 0);

    let h = space.add_constraint(pivot).unwrap();
    let good = space.settings(h).unwrap();
    let r = space.set_settings(
        h,
        ConstraintSettings {
            frequency: -2.0,
            ..good
        },
    );
    assert!(matches!(r, Err(Error::InvalidSettings(_))));
    assert_eq!(space.settings(h).unwrap(), good);
}

#[test]
fn constraint_between_static_bodies() {
    let mut space = Space::new();
    let a = space.add_body(Body::static_body()).unwrap();
    let b = space.add_body(Body::kinematic()).unwrap();
    let r = space.add_constraint(HandPivot::new(a, b, Vec2::ZERO, Vec2::ZERO));
    assert_eq!(r.err(), Some(Error::NoDynamicBody));
    let r = space.add_constraint(HandWeld::new(a, a, Vec2::ZERO, Vec2::ZERO, 0.0));
    assert_eq!(r.err(), Some(Error::NoDynamicBody));
}

#[test]
fn removing_a_body_removes_its_constraints() {
    let mut space = Space::new();
    let s = space.add_body(Body::static_body()).unwrap();
    let a = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let b = space.add_body(Body::dynamic(1.0, 1.0).at(Vec2::X)).unwrap();
    let p1 = space
        .add_constraint(HandPivot::new(s, a, Vec2::ZERO, Vec2::ZERO))
        .unwrap();
    let w = space
        .add_constraint(HandWeld::new(a, b, Vec2::X * 0.5, -Vec2::X * 0.5, 0.0))
        .unwrap();
    let p2 = space
        .add_constraint(HandPivot::new(s, b, Vec2::X, Vec2::ZERO))
        .unwrap();
    assert_eq!(space.constraint_count(), 3);
    space.step(1.0 / 60.0);
    space.remove_body(a).unwrap();
    assert_eq!(space.constraint_count(), 1);
    assert_eq!(space.constraint(p1).err(), Some(Error::StaleConstraint));
    assert_eq!(space.constraint(w).err(), Some(Error::StaleConstraint));
    assert_eq!(
        space.remove_constraint(w).err(),
        Some(Error::StaleConstraint)
    );
    // The survivor is intact and still simulated.
    assert_eq!(space.constraint(p2).unwrap().body2, b);
    space.gravity = Vec2::new(0.0, -10.0);
    for _ in 0..30 {
        space.step(1.0 / 60.0);
    }
    let pos = space.body(b).unwrap().position().as_vec2();
    assert!((pos - Vec2::X).length() < 1e-3, "{pos}");
    // A constraint added afterwards reuses the slot but old handles stay stale.
    let c = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let p3 = space
        .add_constraint(HandPivot::new(s, c, Vec2::ZERO, Vec2::ZERO))
        .unwrap();
    assert_ne!(p3, p1);
    assert_eq!(space.constraint(p1).err(), Some(Error::StaleConstraint));
    assert!(space.constraint(p3).is_ok());
    assert_eq!(space.remove_constraint(p3).unwrap().body2, c);
    assert_eq!(space.constraint(p3).err(), Some(Error::StaleConstraint));
}

#[test]
fn update_constraint_rolls_back_on_error() {
    let mut space = Space::new();
    let s = space.add_body(Body::static_body()).unwrap();
    let k = space.add_body(Body::kinematic()).unwrap();
    let d = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let h = space
        .add_constraint(HandPivot::new(s, d, Vec2::ZERO, Vec2::Y))
        .unwrap();
    let r = space.update_constraint(h, |c| c.anchor2 = Vec2::new(f32::NAN, 1.0));
    assert!(matches!(r, Err(Error::InvalidParameter(_))));
    assert_eq!(space.constraint(h).unwrap().anchor2, Vec2::Y);
    let r = space.update_constraint(h, |c| c.body2 = k);
    assert_eq!(r, Err(Error::NoDynamicBody));
    assert_eq!(space.constraint(h).unwrap().body2, d);
    space.update_constraint(h, |c| c.anchor2 = Vec2::X).unwrap();
    assert_eq!(space.constraint(h).unwrap().anchor2, Vec2::X);
    // Errors are displayable.
    assert!(!Error::NoDynamicBody.to_string().is_empty());
}

#[test]
fn breaking_under_force_removes_the_constraint() {
    let mut space = Space::new();
    space.gravity = Vec2::new(0.0, -10.0);
    let s = space.add_body(Body::static_body()).unwrap();
    let d = space
        .add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(0.0, -1.0)))
        .unwrap();
    let settings = ConstraintSettings {
        max_force: 5.0,
        break_under_force: true,
        ..Default::default()
    };
    let h = space
        .add_constraint_with(HandPivot::new(s, d, Vec2::ZERO, Vec2::Y), settings)
        .unwrap();
    space.step(1.0 / 60.0);
    let events = space.broken_constraints();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].constraint, h.id());
    assert_eq!(events[0].cause, nape::BreakCause::Force);
    assert!(
        events[0].value > 5.0 && events[0].limit == 5.0,
        "{events:?}"
    );
    assert_eq!(space.constraint(h).err(), Some(Error::StaleConstraint));
}
