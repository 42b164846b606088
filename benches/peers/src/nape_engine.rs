//! nape's side of the comparison.
//!
//! [`NAPE_CONFIGS`] is the list of solver settings measured; edit it when `Space`'s knobs
//! change. Each entry's `apply` runs on a fresh `Space::new()` whose gravity is already
//! set, before any body is added.

use nape::{
    BodyHandle, ConstraintSettings, DistanceJoint, LineJoint, MotorJoint, PivotJoint, Space, Vec2,
    WeldJoint,
};

use crate::nape_scene::space_with_bodies;
use crate::scenes::{DT, Pose, SceneDescription, Velocity};
use crate::{MovingWorld, World};

/// One nape solver setting: a label for the reports and the change it makes to a
/// default `Space`.
pub struct NapeConfig {
    /// Short name shown in the table and next to the plot's marker.
    pub label: &'static str,
    /// Applied to `Space::new()` (gravity already set) before the scene is built.
    pub apply: fn(&mut Space),
}

/// The nape settings measured, from cheap to expensive (the plot's line joins them in
/// this order). Keep labels short: they are printed beside the markers of the accuracy
/// plot. `instructions.sh` counts the one labelled `default`.
pub const NAPE_CONFIGS: &[NapeConfig] = &[
    NapeConfig {
        label: "s4",
        apply: |space| (space.substeps, space.exact_substeps) = (4, 4),
    },
    NapeConfig {
        label: "s6",
        apply: |space| (space.substeps, space.exact_substeps) = (6, 6),
    },
    NapeConfig {
        label: "default",
        apply: |_| {},
    },
    NapeConfig {
        label: "s16",
        apply: |space| (space.substeps, space.exact_substeps) = (16, 16),
    },
    NapeConfig {
        label: "s4 GS",
        apply: |space| {
            space.direct_solve = false;
            space.substeps = 4;
        },
    },
    NapeConfig {
        label: "s6 GS",
        apply: |space| {
            space.direct_solve = false;
            space.substeps = 6;
        },
    },
];

/// The settings `--curve` adds to `default`: the exact path at a fixed substep count
/// (`adaptive_substeps` off; `fixed 16` is the default count) and every island by
/// Gauss–Seidel sweeps (`direct_solve` off, the default 5 substeps).
pub const NAPE_CURVE_CONFIGS: &[NapeConfig] = &[
    NapeConfig {
        label: "fixed 1",
        apply: |space| fixed_exact_substeps(space, 1),
    },
    NapeConfig {
        label: "fixed 2",
        apply: |space| fixed_exact_substeps(space, 2),
    },
    NapeConfig {
        label: "fixed 4",
        apply: |space| fixed_exact_substeps(space, 4),
    },
    NapeConfig {
        label: "fixed 8",
        apply: |space| fixed_exact_substeps(space, 8),
    },
    NapeConfig {
        label: "fixed 16",
        apply: |space| space.adaptive_substeps = false,
    },
    NapeConfig {
        label: "GS",
        apply: |space| space.direct_solve = false,
    },
];

fn fixed_exact_substeps(space: &mut Space, substeps: u32) {
    space.adaptive_substeps = false;
    space.exact_substeps = substeps;
}

/// What the labels in [`NAPE_CONFIGS`] mean, for the report. Keep it in step with the
/// list.
pub const NAPE_LEGEND: &str = "nape: `default` = `Space::new()` (exact solve of acyclic islands \
in as many of up to 16 substeps as each island's motion needs, 5 substeps of one biased and one relax sweep for islands with loops) with \
gravity set; `sN` = N substeps for both (the exact path's most); `GS` = `direct_solve` off (every island by \
Gauss–Seidel sweeps).";

/// A nape `Space` holding one scene.
pub struct NapeWorld {
    space: Space,
    bodies: Vec<BodyHandle>,
}

impl NapeWorld {
    /// Builds `description` in a fresh space with `config` applied: its pins as
    /// `PivotJoint`s, welds as `WeldJoint`s, distance joints as `DistanceJoint`s with
    /// `joint_min = joint_max`, sliders as unbounded `LineJoint`s and motors as
    /// `MotorJoint`s (ratio 1) whose `max_force` is the motor's torque.
    pub fn build(config: &NapeConfig, description: &SceneDescription) -> NapeWorld {
        let (mut space, bodies) = space_with_bodies(description, config.apply);
        for joint in &description.joints {
            space
                .add_constraint(PivotJoint::new(
                    bodies[joint.a],
                    bodies[joint.b],
                    Vec2::from(joint.anchor_a),
                    Vec2::from(joint.anchor_b),
                ))
                .expect("scene joints are valid");
        }
        for weld in &description.welds {
            space
                .add_constraint(WeldJoint::new(
                    bodies[weld.a],
                    bodies[weld.b],
                    Vec2::from(weld.anchor_a),
                    Vec2::from(weld.anchor_b),
                    weld.reference_angle,
                ))
                .expect("scene welds are valid");
        }
        for rod in &description.distances {
            space
                .add_constraint(DistanceJoint::new(
                    bodies[rod.a],
                    bodies[rod.b],
                    Vec2::from(rod.anchor_a),
                    Vec2::from(rod.anchor_b),
                    rod.length,
                    rod.length,
                ))
                .expect("scene distance joints are valid");
        }
        for line in &description.lines {
            space
                .add_constraint(LineJoint::new(
                    bodies[line.a],
                    bodies[line.b],
                    Vec2::from(line.anchor_a),
                    Vec2::from(line.anchor_b),
                    Vec2::from(line.axis),
                    f32::NEG_INFINITY,
                    f32::INFINITY,
                ))
                .expect("scene sliders are valid");
        }
        for motor in &description.motors {
            let pin = &description.joints[motor.joint];
            let settings = ConstraintSettings {
                max_force: motor.max_torque,
                ..ConstraintSettings::default()
            };
            space
                .add_constraint_with(
                    MotorJoint::new(bodies[pin.a], bodies[pin.b], motor.speed),
                    settings,
                )
                .expect("scene motors are valid");
        }
        NapeWorld { space, bodies }
    }
}

impl World for NapeWorld {
    fn step(&mut self) {
        self.space.step(DT);
    }

    fn read_poses(&self, poses: &mut [Pose]) {
        for (pose, &handle) in poses.iter_mut().zip(&self.bodies) {
            let body = self.space.body(handle).expect("bodies are never removed");
            let position = body.position();
            *pose = Pose::from_angle(position.x, position.y, body.angle());
        }
    }
}

impl MovingWorld for NapeWorld {
    fn read_velocities(&self, velocities: &mut [Velocity]) {
        for (velocity, &handle) in velocities.iter_mut().zip(&self.bodies) {
            let body = self.space.body(handle).expect("bodies are never removed");
            let linear = body.velocity();
            *velocity = Velocity {
                x: f64::from(linear.x),
                y: f64::from(linear.y),
                angular: f64::from(body.angular_velocity()),
            };
        }
    }
}
