//! Nape's constraint lifecycle, the same for every constraint: force and error limits,
//! breaking and its events, activation and warm starts, impulse queries, copies, changes
//! to live constraints, and what removing a body does to its constraints.

#[path = "support/hand_joints.rs"]
mod hand_joints;

use hand_joints::{HandPivot, HandWeld};
use nape::{
    AngleJoint, Body, BodyHandle, BreakCause, Constraint, ConstraintHandle, ConstraintId,
    ConstraintSettings, DistanceJoint, Error, LineJoint, MotorJoint, PivotJoint, PulleyJoint,
    Space, Vec2, WeldJoint,
};

const DT: f32 = 1.0 / 60.0;

/// Makes a step apply only the warm start: no exact solve, no sweeps.
fn warm_start_only(space: &mut Space) {
    space.direct_solve = false;
    space.velocity_iterations = 0;
    space.relax_iterations = 0;
}

/// Back to the default solver.
fn solve_normally(space: &mut Space) {
    let defaults = Space::new();
    space.direct_solve = defaults.direct_solve;
    space.velocity_iterations = defaults.velocity_iterations;
    space.relax_iterations = defaults.relax_iterations;
}

fn gravity_space() -> Space {
    let mut space = Space::new();
    space.gravity = Vec2::new(0.0, -10.0);
    space
}

// ----- impulses and momentum ----------------------------------------------------------

/// Steps `space` `steps` times and checks, after each step, that the impulse
/// [`Space::body_impulses`] reports on each dynamic body of `h` equals the change of that
/// body's momentum over the step (`m·Δv`, `I·Δω`) within 1e-4 relative. The space must
/// have no gravity and no other constraint on those bodies, so the constraint is the only
/// cause of the change. Before each step the bodies get the velocities in `kick` again,
/// so that every step needs a large impulse (once the bodies move together the impulse
/// is tiny next to their velocities and `f32` rounding of `v` dominates). Returns the
/// largest body impulse seen (to show the check was not vacuous) and the worst relative
/// error.
fn check_momentum<T, const D: usize, const B: usize>(
    space: &mut Space,
    h: ConstraintHandle<T>,
    steps: usize,
    kick: &[(BodyHandle, Vec2, f32)],
    label: &str,
) -> (f32, f32)
where
    T: Constraint<D, B>,
{
    assert_eq!(space.gravity, Vec2::ZERO);
    let mut largest = 0.0f32;
    let mut worst = 0.0f32;
    for step in 0..steps {
        for &(b, v, w) in kick {
            let mut body = space.body_mut(b).unwrap();
            body.set_velocity(v).unwrap();
            body.set_angular_velocity(w).unwrap();
        }
        let bodies = space.constraint_bodies(h).unwrap();
        let before = velocities_of(space, &bodies);
        space.step(DT);
        let impulses = space.body_impulses(h).unwrap();
        assert_eq!(
            impulses.iter().map(|i| i.body).collect::<Vec<_>>(),
            bodies,
            "{label}: one entry per distinct body, in slot order"
        );
        for (imp, (v0, w0)) in impulses.iter().zip(before) {
            let body = space.body(imp.body).unwrap();
            if !body.is_dynamic() {
                continue;
            }
            let linear = (body.velocity() - v0) * body.mass();
            let angular = (body.angular_velocity() - w0) * body.inertia();
            let size = imp.linear.length().hypot(imp.angular);
            let error = (linear - imp.linear).length().hypot(angular - imp.angular);
            assert!(
                error <= 1e-4 * size,
                "{label}, step {step}: momentum change ({linear}, {angular}) vs reported \
                 impulse ({}, {}): error {error:e}, relative {:e}",
                imp.linear,
                imp.angular,
                error / size
            );
            // The single-body query agrees with the list.
            assert_eq!(
                space.body_impulse(h, imp.body).unwrap(),
                (imp.linear, imp.angular)
            );
            largest = largest.max(size);
            worst = worst.max(error / size);
        }
    }
    (largest, worst)
}

/// The linear and angular velocity of each of `bodies`.
fn velocities_of(space: &Space, bodies: &[BodyHandle]) -> Vec<(Vec2, f32)> {
    bodies
        .iter()
        .map(|&b| {
            let body = space.body(b).unwrap();
            (body.velocity(), body.angular_velocity())
        })
        .collect()
}

/// Four dynamic bodies of different masses, poses and velocities, no gravity, and their
/// velocities (the `kick` of [`check_momentum`]).
fn momentum_scene() -> (Space, [BodyHandle; 4], Vec<(BodyHandle, Vec2, f32)>) {
    let mut space = Space::new();
    let b = [
        Body::dynamic(2.0, 0.5)
            .with_angle(0.3)
            .with_velocity(Vec2::new(1.0, 0.5))
            .with_angular_velocity(0.3),
        Body::dynamic(1.0, 0.2)
            .at(Vec2::new(1.5, 0.2))
            .with_angle(-0.4)
            .with_velocity(Vec2::new(-0.5, 1.0))
            .with_angular_velocity(-1.0),
        Body::dynamic(3.0, 1.5)
            .at(Vec2::new(0.3, 2.0))
            .with_angle(0.1)
            .with_velocity(Vec2::new(0.2, -0.7))
            .with_angular_velocity(0.5),
        Body::dynamic(0.5, 0.1)
            .at(Vec2::new(2.0, 2.5))
            .with_angle(1.0)
            .with_velocity(Vec2::new(0.0, 0.4))
            .with_angular_velocity(2.0),
    ]
    .map(|body| space.add_body(body).unwrap());
    let kick = b
        .iter()
        .map(|&h| {
            let body = space.body(h).unwrap();
            (h, body.velocity(), body.angular_velocity())
        })
        .collect();
    (space, b, kick)
}

/// Runs [`check_momentum`] on the constraint `make` builds in a fresh [`momentum_scene`],
/// stiff and soft, over 5 steps (the later ones warm started).
fn momentum_case<T, const D: usize, const B: usize>(
    label: &str,
    make: impl Fn([BodyHandle; 4]) -> T,
) where
    T: Constraint<D, B>,
{
    let soft = ConstraintSettings::soft(4.0, 0.3);
    for (settings, direct_solve) in [
        (ConstraintSettings::default(), true),
        (soft, true),
        (ConstraintSettings::default(), false),
        (soft, false),
    ] {
        let (mut space, b, kick) = momentum_scene();
        space.direct_solve = direct_solve;
        let h = space.add_constraint_with(make(b), settings).unwrap();
        let label = format!(
            "{label} (stiff = {}, direct solve = {direct_solve})",
            settings.stiff
        );
        let (largest, worst) = check_momentum(&mut space, h, 5, &kick, &label);
        assert!(largest > 1e-3, "{label}: the constraint did nothing");
        eprintln!("{label}: largest body impulse {largest:.3}, worst relative error {worst:.1e}");
    }
}

const A1: Vec2 = Vec2::new(0.4, 0.1);
const A2: Vec2 = Vec2::new(-0.5, 0.2);

#[test]
fn body_impulses_equal_the_momentum_change_for_every_builtin() {
    momentum_case("PivotJoint", |b| PivotJoint::new(b[0], b[1], A1, A2));
    momentum_case("WeldJoint", |b| WeldJoint::new(b[0], b[1], A1, A2, 0.2));
    momentum_case("AngleJoint", |b| AngleJoint {
        ratio: 1.5,
        ..AngleJoint::new(b[0], b[1], -0.1, 0.1)
    });
    momentum_case("DistanceJoint", |b| {
        DistanceJoint::new(b[0], b[1], A1, A2, 1.0, 1.5)
    });
    momentum_case("LineJoint", |b| {
        LineJoint::new(b[0], b[1], A1, A2, Vec2::new(1.0, 0.3), -0.2, 0.2)
    });
    momentum_case("MotorJoint", |b| MotorJoint {
        ratio: 1.5,
        ..MotorJoint::new(b[0], b[1], 2.0)
    });
    let pulley = |b1, b2, b3, b4| PulleyJoint {
        body1: b1,
        body2: b2,
        body3: b3,
        body4: b4,
        anchor1: A1,
        anchor2: A2,
        anchor3: Vec2::new(0.1, -0.3),
        anchor4: Vec2::new(0.2, 0.25),
        joint_min: 2.0,
        joint_max: 2.0,
        ratio: 1.3,
    };
    momentum_case("PulleyJoint, 4 bodies", |b| pulley(b[0], b[1], b[2], b[3]));
    // Shared bodies: their slots' impulses are summed.
    momentum_case("PulleyJoint, body4 = body1", |b| {
        pulley(b[0], b[1], b[2], b[0])
    });
    momentum_case("PulleyJoint, body3 = body2, body4 = body1", |b| {
        pulley(b[0], b[1], b[1], b[0])
    });
    momentum_case("PulleyJoint, body3 = body1, body4 = body2", |b| {
        pulley(b[0], b[1], b[0], b[1])
    });
    // Hand-written constraints get the same, exact, report.
    momentum_case("HandPivot", |b| HandPivot::new(b[0], b[1], A1, A2));
    momentum_case("HandWeld", |b| HandWeld::new(b[0], b[1], A1, A2, 0.2));
}

#[test]
fn body_impulses_against_a_static_body_and_the_constraint_space_impulse() {
    let mut space = gravity_space();
    let s = space.add_body(Body::static_body()).unwrap();
    let d = space
        .add_body(Body::dynamic(2.0, 1.0).at(Vec2::new(1.0, 0.0)))
        .unwrap();
    // A weld holding a horizontal arm: a vertical force and a torque.
    let h = space
        .add_constraint(WeldJoint::new(s, d, Vec2::ZERO, Vec2::new(-1.0, 0.0), 0.0))
        .unwrap();
    // Nothing before the first step.
    assert_eq!(space.impulse(h).unwrap(), [0.0; 3]);
    for b in space.body_impulses(h).unwrap() {
        assert_eq!((b.linear, b.angular), (Vec2::ZERO, 0.0));
    }
    for _ in 0..60 {
        space.step(DT);
    }
    // Static equilibrium: the weld carries the weight m·g and the moment m·g·1 m.
    let weight = 2.0 * 10.0 * DT;
    let (linear, angular) = space.body_impulse(h, d).unwrap();
    assert!(
        (linear - Vec2::new(0.0, weight)).length() < 1e-4 * weight,
        "{linear}"
    );
    // Gravity has no moment about the arm's centre of mass, so neither has the weld's
    // total: the weld's torque cancels the moment of its force at the weld point.
    assert!(angular.abs() < 1e-4 * weight, "{angular}");
    // The constraint-space impulse has all three rows (Nape's WeldJoint overwrote one):
    // the force, and the torque w·1 m balancing the force's moment (-1, 0) × (0, w).
    let lambda = space.impulse(h).unwrap();
    assert!(lambda[0].abs() < 1e-4 * weight, "{lambda:?}");
    assert!((lambda[1] - weight).abs() < 1e-4 * weight, "{lambda:?}");
    assert!((lambda[2] - weight).abs() < 1e-4 * weight, "{lambda:?}");
    // Newton's third law on the static side (Jᵀλ, though the body cannot move): the
    // opposite force, at the static body's centre (the weld point), and the opposite
    // torque.
    let (on_static, static_angular) = space.body_impulse(h, s).unwrap();
    assert!((on_static + linear).length() < 1e-6);
    assert!(
        (static_angular + weight).abs() < 1e-4 * weight,
        "{static_angular}"
    );
}

// ----- breaking -----------------------------------------------------------------------

#[test]
fn a_hanging_chain_breaks_at_the_overloaded_link_only() {
    // Five links of 1 kg under g = 10: the pivots carry 50, 40, 30, 20 and 10 N from the
    // top. With max_force = 45 only the top one is overloaded.
    let mut space = gravity_space();
    let top = space.add_body(Body::static_body()).unwrap();
    let settings = ConstraintSettings {
        max_force: 45.0,
        break_under_force: true,
        ..Default::default()
    };
    let mut links = Vec::new();
    let mut joints = Vec::new();
    let mut previous = top;
    for i in 1..=5 {
        let link = space
            .add_body(Body::dynamic(1.0, 0.1).at(Vec2::new(0.0, -(i as f32))))
            .unwrap();
        // The top pivot is 0.5 m below the static body's origin, the others at the
        // bottom end of the previous link.
        let anchor1 = Vec2::new(0.0, -0.5);
        joints.push(
            space
                .add_constraint_with(
                    PivotJoint::new(previous, link, anchor1, Vec2::new(0.0, 0.5)),
                    settings,
                )
                .unwrap(),
        );
        links.push(link);
        previous = link;
    }
    let mut events = Vec::new();
    let mut steps_to_break = None;
    for step in 0..120 {
        space.step(DT);
        if !space.broken_constraints().is_empty() && steps_to_break.is_none() {
            steps_to_break = Some(step);
        }
        events.extend_from_slice(space.broken_constraints());
    }
    assert_eq!(events.len(), 1, "{events:?}");
    let event = events[0];
    assert_eq!(event.constraint, joints[0].id());
    assert_eq!(event.cause, BreakCause::Force);
    assert_eq!(event.limit, 45.0);
    // The force that exceeded the limit is at most the static load (Gauss–Seidel
    // approaches it from below).
    assert!(
        event.value > 45.0 && event.value <= 50.0 + 1e-2,
        "{event:?}"
    );
    // Removed (remove_on_break is the default); the others are intact.
    assert_eq!(
        space.constraint(joints[0]).err(),
        Some(Error::StaleConstraint)
    );
    for j in &joints[1..] {
        assert!(space.contains_constraint(*j));
        assert!(space.settings(*j).unwrap().active);
    }
    // The rest of the chain has fallen, still linked.
    let y: Vec<f32> = links
        .iter()
        .map(|&l| space.body(l).unwrap().position().as_vec2().y)
        .collect();
    assert!(y[0] < -5.0, "{y:?} (broke at step {steps_to_break:?})");
    for pair in y.windows(2) {
        assert!((pair[0] - pair[1] - 1.0).abs() < 1e-3, "{y:?}");
    }
}

#[test]
fn break_under_error_deactivates_a_pulled_apart_joint_and_keeps_its_handle() {
    let mut space = gravity_space();
    let s = space.add_body(Body::static_body()).unwrap();
    let d = space
        .add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(0.0, -1.0)))
        .unwrap();
    let settings = ConstraintSettings {
        max_error: 0.5,
        break_under_error: true,
        remove_on_break: false,
        ..Default::default()
    };
    let h = space
        .add_constraint_with(
            PivotJoint::new(s, d, Vec2::ZERO, Vec2::new(0.0, 1.0)),
            settings,
        )
        .unwrap();
    for _ in 0..10 {
        space.step(DT);
        assert!(space.broken_constraints().is_empty());
    }
    // Pull the body 1 m away from the pivot (error 1 > 0.5).
    space
        .body_mut(d)
        .unwrap()
        .set_position(Vec2::new(0.0, -2.0))
        .unwrap();
    space.step(DT);
    let events = space.broken_constraints().to_vec();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].constraint, h.id());
    assert_eq!(events[0].cause, BreakCause::Error);
    assert_eq!(events[0].limit, 0.5);
    assert!((events[0].value - 1.0).abs() < 1e-2, "{:?}", events[0]);
    // Still there, inactive, reachable by its handle and by the event's id.
    assert!(space.contains_constraint(h));
    assert!(!space.settings(h).unwrap().active);
    assert_eq!(space.constraint(h).unwrap().body2, d);
    assert_eq!(
        space.typed_handle::<PivotJoint, 2, 2>(events[0].constraint),
        Some(h)
    );
    assert_eq!(
        space.constraints_of(d).unwrap().collect::<Vec<_>>(),
        [h.id()]
    );
    // Inactive: it no longer holds the body, reports nothing and breaks no more.
    let y0 = space.body(d).unwrap().position().as_vec2().y;
    for _ in 0..30 {
        space.step(DT);
        assert!(space.broken_constraints().is_empty());
    }
    assert!(space.body(d).unwrap().position().as_vec2().y < y0 - 1.0);
    assert_eq!(space.impulse(h).unwrap(), [0.0; 2]);
    // Put the body back and reactivate: it holds again.
    {
        let mut body = space.body_mut(d).unwrap();
        body.set_position(Vec2::new(0.0, -1.0)).unwrap();
        body.set_velocity(Vec2::ZERO).unwrap();
    }
    space
        .set_settings(
            h,
            ConstraintSettings {
                active: true,
                ..space.settings(h).unwrap()
            },
        )
        .unwrap();
    for _ in 0..60 {
        space.step(DT);
    }
    assert!(space.broken_constraints().is_empty());
    assert!((space.body(d).unwrap().position().as_vec2() - Vec2::new(0.0, -1.0)).length() < 1e-3);
}

#[test]
fn a_soft_joint_breaks_under_error_when_pulled_apart() {
    let mut space = Space::new();
    let s = space.add_body(Body::static_body()).unwrap();
    let d = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let settings = ConstraintSettings {
        max_error: 0.3,
        break_under_error: true,
        ..ConstraintSettings::soft(1.0, 1.0)
    };
    let h = space
        .add_constraint_with(PivotJoint::new(s, d, Vec2::ZERO, Vec2::ZERO), settings)
        .unwrap();
    let mut event = None;
    let mut last_distance = 0.0;
    for _ in 0..600 {
        space.apply_force(d, Vec2::new(100.0, 0.0)).unwrap();
        last_distance = space.body(d).unwrap().position().as_vec2().length();
        space.step(DT);
        if let Some(e) = space.broken_constraints().first() {
            event = Some(*e);
            break;
        }
    }
    let event = event.expect("the soft joint never broke");
    assert_eq!((event.constraint, event.cause), (h.id(), BreakCause::Error));
    // Checked when prepared: the error at the start of the breaking step.
    assert!(event.value > 0.3, "{event:?}");
    assert!((event.value - last_distance).abs() < 1e-5, "{event:?}");
    assert_eq!(space.constraint(h).err(), Some(Error::StaleConstraint));
    assert_eq!(space.body_impulses(h).err(), Some(Error::StaleConstraint));
}

// ----- max_force ----------------------------------------------------------------------

#[test]
fn a_soft_joint_with_max_force_cannot_hold_a_heavier_weight() {
    const MAX_FORCE: f32 = 30.0; // holds at most 3 kg under g = 10
    for (mass, holds) in [(2.4, true), (3.75, false)] {
        let mut space = gravity_space();
        let s = space.add_body(Body::static_body()).unwrap();
        let d = space
            .add_body(Body::dynamic(mass, 1.0).at(Vec2::new(0.0, -1.0)))
            .unwrap();
        let settings = ConstraintSettings {
            max_force: MAX_FORCE,
            ..ConstraintSettings::soft(5.0, 1.0)
        };
        let h = space
            .add_constraint_with(
                PivotJoint::new(s, d, Vec2::new(0.0, -1.0), Vec2::ZERO),
                settings,
            )
            .unwrap();
        for _ in 0..120 {
            space.step(DT);
        }
        let body = space.body(d).unwrap();
        let lambda = space.impulse(h).unwrap();
        let force = Vec2::from(lambda).length() / DT;
        // The force limit is part of the exact solve's active set (fixed on its bound while
        // it slips), so the island takes only the substeps its motion needs, not all 8.
        let taken = space.exact_substeps_taken();
        println!("soft pivot with max_force, {mass} kg: exact substeps {taken:?}");
        assert!(taken.iter().all(|&n| n < 8), "{mass} kg: {taken:?}");
        if holds {
            // Hangs with the spring's small static sag g/ω² ≈ 1 cm.
            assert!(
                (body.position().as_vec2() - Vec2::new(0.0, -1.0)).length() < 0.02,
                "{mass} kg: {}",
                body.position().as_vec2()
            );
            assert!((force - mass * 10.0).abs() < 0.1, "{mass} kg: {force} N");
        } else {
            // Slips at g − max_force/m = 2 m/s², the joint pulling with exactly max_force.
            let expected = -(10.0 - MAX_FORCE / mass) * 2.0;
            assert!(
                (body.velocity().y - expected).abs() < 0.1,
                "{mass} kg: {} vs {expected}",
                body.velocity()
            );
            assert!(
                body.position().as_vec2().y < -3.0,
                "{mass} kg: {}",
                body.position().as_vec2()
            );
            assert!(
                (force - MAX_FORCE).abs() < 1e-4 * MAX_FORCE,
                "{mass} kg: {force} N"
            );
        }
    }
}

#[test]
fn max_force_clamps_motors_but_not_stiff_positional_joints() {
    // Stiff pivot with max_force below the weight: documented to hold anyway (the limit is
    // only a break threshold there, as in Nape).
    let mut space = gravity_space();
    let s = space.add_body(Body::static_body()).unwrap();
    let d = space
        .add_body(Body::dynamic(3.75, 1.0).at(Vec2::new(0.0, -1.0)))
        .unwrap();
    let settings = ConstraintSettings {
        max_force: 30.0,
        ..Default::default()
    };
    space
        .add_constraint_with(
            PivotJoint::new(s, d, Vec2::new(0.0, -1.0), Vec2::ZERO),
            settings,
        )
        .unwrap();
    // A stiff motor limited to a torque of 2 N·m on a wheel of inertia 1: it spins up at
    // 2 rad/s², not instantly to its rate.
    let wheel = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let axle = space.add_body(Body::static_body()).unwrap();
    space
        .add_constraint(PivotJoint::new(axle, wheel, Vec2::ZERO, Vec2::ZERO))
        .unwrap();
    let motor = space
        .add_constraint_with(
            MotorJoint::new(axle, wheel, 10.0),
            ConstraintSettings {
                max_force: 2.0,
                ..Default::default()
            },
        )
        .unwrap();
    for _ in 0..60 {
        space.step(DT);
    }
    assert!((space.body(d).unwrap().position().as_vec2() - Vec2::new(0.0, -1.0)).length() < 1e-4);
    let omega = space.body(wheel).unwrap().angular_velocity();
    assert!((omega - 2.0).abs() < 1e-3, "{omega}");
    assert!((space.impulse(motor).unwrap()[0] - 2.0 * DT).abs() < 1e-6);
}

// ----- activation and warm starts -----------------------------------------------------

#[test]
fn reactivation_does_not_reuse_a_stale_warm_start() {
    let mut space = gravity_space();
    let s = space.add_body(Body::static_body()).unwrap();
    let d = space
        .add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(0.0, -1.0)))
        .unwrap();
    let h = space
        .add_constraint(PivotJoint::new(s, d, Vec2::ZERO, Vec2::new(0.0, 1.0)))
        .unwrap();
    for _ in 0..60 {
        space.step(DT);
    }
    let weight = 10.0 * DT;
    assert!((space.impulse(h).unwrap()[1] - weight).abs() < 1e-5);
    // With no velocity iterations a step applies only the warm start...
    warm_start_only(&mut space);
    space.step(DT);
    assert!((space.impulse(h).unwrap()[1] - weight).abs() < 1e-5);
    // ...which a deactivate/reactivate cycle clears, even without a step in between.
    let on = space.settings(h).unwrap();
    let off = ConstraintSettings {
        active: false,
        ..on
    };
    space.set_settings(h, off).unwrap();
    assert_eq!(space.impulse(h).unwrap(), [0.0; 2]);
    space.set_settings(h, on).unwrap();
    space.step(DT);
    assert_eq!(space.impulse(h).unwrap(), [0.0; 2]);
    for b in space.body_impulses(h).unwrap() {
        assert_eq!((b.linear, b.angular), (Vec2::ZERO, 0.0));
    }
    // The body felt no support in that step: it started falling.
    assert!(space.body(d).unwrap().velocity().y < -0.9 * weight);

    // Inactive across steps: nothing applied, zero reported, and no warm start afterwards.
    solve_normally(&mut space);
    for _ in 0..30 {
        space.step(DT);
    }
    space.set_settings(h, off).unwrap();
    for _ in 0..10 {
        space.step(DT);
        assert_eq!(space.impulse(h).unwrap(), [0.0; 2]);
    }
    let falling = space.body(d).unwrap().velocity().y;
    assert!(falling < -1.5, "{falling}");
    space.set_settings(h, on).unwrap();
    warm_start_only(&mut space);
    space.step(DT);
    assert_eq!(space.impulse(h).unwrap(), [0.0; 2]);
}

// ----- copies -------------------------------------------------------------------------

#[test]
fn a_duplicate_copies_parameters_and_settings_but_not_the_impulse() {
    let mut space = gravity_space();
    let s = space.add_body(Body::static_body()).unwrap();
    let d = space
        .add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(0.0, -1.0)))
        .unwrap();
    let settings = ConstraintSettings {
        max_force: 1e3,
        max_error: 2.0,
        break_under_error: true,
        remove_on_break: false,
        ignore: true,
        ..ConstraintSettings::soft(3.0, 0.7)
    };
    let h = space
        .add_constraint_with(
            DistanceJoint::new(s, d, Vec2::new(0.1, 0.0), Vec2::ZERO, 0.5, 1.0),
            settings,
        )
        .unwrap();
    for _ in 0..30 {
        space.step(DT);
    }
    assert!(space.impulse(h).unwrap()[0] != 0.0);
    let copy = space.duplicate_constraint(h).unwrap();
    assert_ne!(copy, h);
    assert_eq!(
        space.constraint(copy).unwrap(),
        space.constraint(h).unwrap()
    );
    assert_eq!(space.settings(copy).unwrap(), settings);
    assert_eq!(space.impulse(copy).unwrap(), [0.0]);
    for b in space.body_impulses(copy).unwrap() {
        assert_eq!((b.linear, b.angular), (Vec2::ZERO, 0.0));
    }
    assert_eq!(space.constraints_of(d).unwrap().count(), 2);
    // The copy is independent: removing the original leaves it working.
    space.remove_constraint(h).unwrap();
    assert!(space.contains_constraint(copy));
    assert_eq!(
        space.duplicate_constraint(h).err(),
        Some(Error::StaleConstraint)
    );
    for _ in 0..30 {
        space.step(DT);
    }
    assert!(space.impulse(copy).unwrap()[0] != 0.0);
}

// ----- changing live constraints ------------------------------------------------------

#[test]
fn changing_a_body_revalidates_and_reindexes_the_slots() {
    let mut space = gravity_space();
    let s = space.add_body(Body::static_body()).unwrap();
    let a = space
        .add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(0.0, -1.0)))
        .unwrap();
    let b = space
        .add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(2.0, -1.0)))
        .unwrap();
    let h = space
        .add_constraint(PivotJoint::new(s, a, Vec2::ZERO, Vec2::new(0.0, 1.0)))
        .unwrap();
    for _ in 0..30 {
        space.step(DT);
    }
    // Re-target the pivot from `a` to `b`.
    space
        .update_constraint(h, |c| {
            c.body2 = b;
            c.anchor1 = Vec2::new(2.0, 0.0);
        })
        .unwrap();
    assert_eq!(space.constraint_bodies(h).unwrap(), [s, b]);
    assert_eq!(space.constraints_of(a).unwrap().count(), 0);
    assert_eq!(
        space.constraints_of(b).unwrap().collect::<Vec<_>>(),
        [h.id()]
    );
    // No warm start carried over to the new body.
    assert_eq!(space.impulse(h).unwrap(), [0.0; 2]);
    warm_start_only(&mut space);
    space.step(DT);
    assert_eq!(space.impulse(h).unwrap(), [0.0; 2]);
    solve_normally(&mut space);
    for _ in 0..60 {
        space.step(DT);
    }
    assert!(
        space.body(a).unwrap().position().as_vec2().y < -2.0,
        "a is free"
    );
    let pb = space.body(b).unwrap().position().as_vec2();
    assert!(
        (pb - Vec2::new(2.0, -1.0)).length() < 1e-2,
        "b is held: {pb}"
    );

    // Invalid changes are refused and rolled back.
    let dead = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    space.remove_body(dead).unwrap();
    assert_eq!(
        space.update_constraint(h, |c| c.body2 = dead),
        Err(Error::StaleBody)
    );
    let mut other = Space::new();
    let foreign = other.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    assert_eq!(
        space.update_constraint(h, |c| c.body2 = foreign),
        Err(Error::ForeignBody)
    );
    let k = space.add_body(Body::kinematic()).unwrap();
    assert_eq!(
        space.update_constraint(h, |c| c.body2 = k),
        Err(Error::NoDynamicBody)
    );
    assert_eq!(space.constraint(h).unwrap().body2, b);
    let r = space.update_constraint(h, |c| c.anchor1 = Vec2::NAN);
    assert!(matches!(r, Err(Error::InvalidParameter(_))), "{r:?}");
    assert_eq!(space.constraint(h).unwrap().anchor1, Vec2::new(2.0, 0.0));
    let dj = space
        .add_constraint(DistanceJoint::new(a, b, Vec2::ZERO, Vec2::ZERO, 0.0, 3.0))
        .unwrap();
    let r = space.update_constraint(dj, |c| c.body2 = c.body1);
    assert!(matches!(r, Err(Error::InvalidParameter(_))), "{r:?}");
    let r = space.update_constraint(dj, |c| c.joint_min = 4.0);
    assert!(matches!(r, Err(Error::InvalidParameter(_))), "{r:?}");
    assert_eq!(space.constraint(dj).unwrap().body2, b);
}

#[test]
fn making_two_slots_share_a_body_recomputes_the_aliasing() {
    // A 4-body pulley re-targeted into a 3-body one: the slots' shared-body tables must be
    // rebuilt, or the effective mass and the reported impulses would be wrong.
    let (mut space, b, kick) = momentum_scene();
    let h = space
        .add_constraint(PulleyJoint {
            body1: b[0],
            body2: b[1],
            body3: b[2],
            body4: b[3],
            anchor1: A1,
            anchor2: A2,
            anchor3: Vec2::ZERO,
            anchor4: Vec2::ZERO,
            joint_min: 2.0,
            joint_max: 2.0,
            ratio: 1.0,
        })
        .unwrap();
    check_momentum(&mut space, h, 2, &kick, "4-body pulley");
    space.update_constraint(h, |c| c.body4 = c.body1).unwrap();
    assert_eq!(space.constraint_bodies(h).unwrap(), [b[0], b[1], b[2]]);
    assert_eq!(space.constraints_of(b[3]).unwrap().count(), 0);
    let (largest, _) = check_momentum(&mut space, h, 3, &kick, "re-targeted 3-body pulley");
    assert!(largest > 1e-3);
    // And it holds its length: the shared slots' cross terms are in K.
    for _ in 0..60 {
        space.step(DT);
    }
    let c = *space.constraint(h).unwrap();
    let p =
        |body: BodyHandle, anchor: Vec2| space.body(body).unwrap().world_point(anchor).as_vec2();
    let length = (p(c.body2, c.anchor2) - p(c.body1, c.anchor1)).length()
        + c.ratio * (p(c.body4, c.anchor4) - p(c.body3, c.anchor3)).length();
    assert!((length - 2.0).abs() < 1e-3, "{length}");
}

// ----- removing bodies, visiting ------------------------------------------------------

#[test]
fn removing_a_body_leaves_no_constraint_referring_to_it() {
    let mut space = Space::new();
    let s = space.add_body(Body::static_body()).unwrap();
    let a = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let b = space
        .add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(1.0, 0.0)))
        .unwrap();
    let c = space
        .add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(0.0, 1.0)))
        .unwrap();
    let on_a: Vec<ConstraintId> = vec![
        space
            .add_constraint(PivotJoint::new(s, a, Vec2::ZERO, Vec2::ZERO))
            .unwrap()
            .id(),
        space
            .add_constraint(WeldJoint::new(a, b, Vec2::ZERO, -Vec2::X, 0.0))
            .unwrap()
            .id(),
        space
            .add_constraint(PulleyJoint {
                body1: b,
                body2: a,
                body3: c,
                body4: b,
                anchor1: Vec2::ZERO,
                anchor2: Vec2::ZERO,
                anchor3: Vec2::ZERO,
                anchor4: Vec2::ZERO,
                joint_min: 0.0,
                joint_max: 5.0,
                ratio: 1.0,
            })
            .unwrap()
            .id(),
        space
            .add_constraint(LineJoint::new(
                c,
                a,
                Vec2::ZERO,
                Vec2::ZERO,
                Vec2::Y,
                -2.0,
                2.0,
            ))
            .unwrap()
            .id(),
        // Inactive constraints go too.
        space
            .add_constraint_with(
                MotorJoint::new(a, c, 1.0),
                ConstraintSettings {
                    active: false,
                    ..Default::default()
                },
            )
            .unwrap()
            .id(),
    ];
    let distance = space
        .add_constraint(DistanceJoint::new(b, c, Vec2::ZERO, Vec2::ZERO, 0.0, 2.0))
        .unwrap();
    let angle = space
        .add_constraint(AngleJoint::new(s, c, -1.0, 1.0))
        .unwrap();
    let mut listed: Vec<ConstraintId> = space.constraints_of(a).unwrap().collect();
    listed.sort();
    let mut expected = on_a.clone();
    expected.sort();
    assert_eq!(listed, expected);
    space.step(DT);

    space.remove_body(a).unwrap();
    assert_eq!(space.constraint_count(), 2);
    for id in &on_a {
        assert_eq!(
            space.constraint_bodies(*id).err(),
            Some(Error::StaleConstraint)
        );
        assert_eq!(space.body_impulses(*id).err(), Some(Error::StaleConstraint));
        assert_eq!(space.remove_constraint_id(*id), Err(Error::StaleConstraint));
    }
    assert_eq!(space.constraints_of(a).err(), Some(Error::StaleBody));
    // Every remaining constraint refers to live bodies only.
    for (body, _) in space.bodies() {
        for id in space.constraints_of(body).unwrap() {
            for other in space.constraint_bodies(id).unwrap() {
                assert!(space.contains_body(other) && other != a);
            }
        }
    }
    assert!(space.contains_constraint(distance) && space.contains_constraint(angle));
    // A new body in the removed body's slot starts with no constraints and moves freely.
    let e = space
        .add_body(Body::dynamic(1.0, 1.0).with_velocity(Vec2::new(3.0, 0.0)))
        .unwrap();
    assert_eq!(e.index(), a.index());
    assert_eq!(space.constraints_of(e).unwrap().count(), 0);
    for _ in 0..10 {
        space.step(DT);
    }
    let pe = space.body(e).unwrap().position().as_vec2();
    assert!((pe - Vec2::new(0.5, 0.0)).length() < 1e-5, "{pe}");
}

#[test]
fn visiting_bodies_and_constraints() {
    let mut space = Space::new();
    let a = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let b = space.add_body(Body::dynamic(1.0, 1.0).at(Vec2::X)).unwrap();
    let c = space.add_body(Body::dynamic(1.0, 1.0).at(Vec2::Y)).unwrap();
    let loner = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let pulley = space
        .add_constraint(PulleyJoint {
            body1: b,
            body2: a,
            body3: c,
            body4: b,
            anchor1: Vec2::ZERO,
            anchor2: Vec2::ZERO,
            anchor3: Vec2::ZERO,
            anchor4: Vec2::ZERO,
            joint_min: 0.0,
            joint_max: 5.0,
            ratio: 1.0,
        })
        .unwrap();
    let motor = space.add_constraint(MotorJoint::new(a, c, 1.0)).unwrap();
    // Distinct bodies in slot order (`b` holds two slots).
    assert_eq!(space.constraint_bodies(pulley).unwrap(), [b, a, c]);
    assert_eq!(space.constraint_bodies(motor.id()).unwrap(), [a, c]);
    let mut of_a: Vec<_> = space.constraints_of(a).unwrap().collect();
    of_a.sort();
    let mut expected = vec![pulley.id(), motor.id()];
    expected.sort();
    assert_eq!(of_a, expected);
    assert_eq!(
        space.constraints_of(b).unwrap().collect::<Vec<_>>(),
        [pulley.id()]
    );
    assert_eq!(space.constraints_of(loner).unwrap().count(), 0);
    // Ids back to typed handles, of the right type only.
    assert_eq!(
        space.typed_handle::<MotorJoint, 1, 2>(motor.id()),
        Some(motor)
    );
    assert_eq!(space.typed_handle::<MotorJoint, 1, 2>(pulley.id()), None);
    // A body that is not one of the constraint's.
    space.step(DT);
    assert_eq!(
        space.body_impulse(motor, b),
        Err(Error::BodyNotInConstraint)
    );
    space.remove_body(loner).unwrap();
    assert_eq!(space.body_impulse(motor, loner), Err(Error::StaleBody));
    let mut other = Space::new();
    let foreign = other.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    assert_eq!(
        space.constraints_of(foreign).err(),
        Some(Error::ForeignBody)
    );
    assert_eq!(
        other.constraint_bodies(motor).err(),
        Some(Error::ForeignConstraint)
    );
}

#[test]
fn ignore_is_stored_and_does_not_change_the_simulation() {
    let run = |ignore: bool| {
        let mut space = gravity_space();
        let s = space.add_body(Body::static_body()).unwrap();
        let d = space
            .add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(1.0, 0.0)))
            .unwrap();
        let settings = ConstraintSettings {
            ignore,
            ..Default::default()
        };
        let h = space
            .add_constraint_with(PivotJoint::new(s, d, Vec2::ZERO, -Vec2::X), settings)
            .unwrap();
        for _ in 0..30 {
            space.step(DT);
        }
        assert_eq!(space.settings(h).unwrap().ignore, ignore);
        space.body(d).unwrap().position().as_vec2()
    };
    assert_eq!(run(true), run(false));
}

/// A mesh's pivots are swept in colour order, not in the order they were added (the solver
/// reorders its storage when the islands are rebuilt): every handle still names its own
/// joint afterwards, through lookups, impulse queries and removal.
#[test]
fn handles_name_their_joints_after_the_sweep_order_changes() {
    let mut space = gravity_space();
    // 7 × 8 bodies: 49 loops of two rows, more than an exact island takes.
    let n = 8;
    let mut bodies = Vec::new();
    for k in 0..n {
        for i in 0..n {
            let body = if i == 0 {
                Body::static_body()
            } else {
                Body::dynamic(1.0, 0.1)
            };
            bodies.push(
                space
                    .add_body(body.at(Vec2::new(k as f32, -(i as f32))))
                    .unwrap(),
            );
        }
    }
    let mut joints = Vec::new();
    for k in 0..n {
        for i in 1..n {
            let (up, here) = (bodies[k * n + i - 1], bodies[k * n + i]);
            let pivot = PivotJoint::new(up, here, Vec2::new(0.0, -0.5), Vec2::new(0.0, 0.5));
            joints.push((space.add_constraint(pivot).unwrap(), up, here));
            if k > 0 {
                let left = bodies[(k - 1) * n + i];
                let pivot = PivotJoint::new(left, here, Vec2::new(0.5, 0.0), Vec2::new(-0.5, 0.0));
                joints.push((space.add_constraint(pivot).unwrap(), left, here));
            }
        }
    }
    let added: Vec<_> = space.constraints().map(|c| c.id).collect();
    space.step(1.0 / 60.0);
    let stepped: Vec<_> = space.constraints().map(|c| c.id).collect();
    assert_ne!(added, stepped, "the mesh's storage was not reordered");
    let check =
        |space: &Space, joints: &[(ConstraintHandle<PivotJoint>, BodyHandle, BodyHandle)]| {
            for &(handle, a, b) in joints {
                let joint = space.constraint(handle).unwrap();
                assert_eq!((joint.body1, joint.body2), (a, b));
                // The impulses reported are this joint's: equal and opposite on its two
                // bodies, and, on a column's joints, holding the mesh up.
                let (on_a, _) = space.body_impulse(handle, a).unwrap();
                let (on_b, _) = space.body_impulse(handle, b).unwrap();
                let x = |body| space.body(body).unwrap().position().as_vec2().x;
                assert!(x(a) != x(b) || on_b.y > 0.0, "{on_b}");
                assert!((on_a + on_b).length() <= 1e-5 * on_b.length());
            }
        };
    check(&space, &joints);
    // Removing one joint (swap-removal) and stepping again (a rebuild, a recolouring).
    let (removed, _, _) = joints.remove(7);
    let joint = space.remove_constraint(removed).unwrap();
    assert!(space.constraint(removed).is_err());
    assert_ne!(joint.body1, joint.body2);
    space.step(1.0 / 60.0);
    check(&space, &joints);
}

/// A chain of six pivots created at twice its length, every link spinning: the first
/// projections of its steps make the island's error worse and are redone as damped
/// (Levenberg–Marquardt) steps, after which the velocities are solved with rows at other
/// poses than the substep's first. The impulse each body is reported to have taken from
/// its joints must still equal its momentum change (one body's was 0.15 N·s off in the
/// second step while the restart's rows were not the constraints' own Jacobians).
#[test]
fn body_impulses_equal_the_momentum_change_after_a_damped_restart() {
    let mut space = Space::new();
    let ground = space.add_body(Body::static_body()).unwrap();
    let (mut bodies, mut joints, mut previous) = (Vec::new(), Vec::new(), ground);
    for i in 0..6 {
        let body = Body::dynamic(1.0, 0.1)
            .at(Vec2::new(2.0 * i as f32 + 1.0, 0.0))
            .with_angle(0.7 * f64::from(i))
            .with_angular_velocity(8.0);
        let b = space.add_body(body).unwrap();
        let anchor = if i == 0 {
            Vec2::ZERO
        } else {
            Vec2::new(0.5, 0.0)
        };
        let pivot = PivotJoint::new(previous, b, anchor, Vec2::new(-0.5, 0.0));
        joints.push(space.add_constraint(pivot).unwrap());
        bodies.push(b);
        previous = b;
    }
    let mut largest = 0.0f32;
    for step in 0..20 {
        let before = velocities_of(&space, &bodies);
        space.step(DT);
        for (&b, (v0, w0)) in bodies.iter().zip(before) {
            let body = space.body(b).unwrap();
            let linear = (body.velocity() - v0) * body.mass();
            let angular = (body.angular_velocity() - w0) * body.inertia();
            let (mut reported, mut reported_angular) = (Vec2::ZERO, 0.0);
            for &j in &joints {
                if let Ok((l, a)) = space.body_impulse(j, b) {
                    reported += l;
                    reported_angular += a;
                }
            }
            let size = linear.length().hypot(angular);
            let error = (linear - reported)
                .length()
                .hypot(angular - reported_angular);
            assert!(
                error <= 1e-4 * size.max(1.0),
                "step {step}: momentum change ({linear}, {angular}) vs reported impulse \
                 ({reported}, {reported_angular}): error {error:e}"
            );
            largest = largest.max(size);
        }
    }
    assert!(largest > 1.0, "the joints pulled hard ({largest})");
}
