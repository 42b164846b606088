//! rapier2d's side of the comparison: rigid bodies with mass properties set directly
//! (no colliders), `RevoluteJoint` impulse joints with local anchors (a motor's with
//! its velocity motor), `FixedJoint`s for welds and `PinSlotJoint`s for sliders. rapier2d
//! has no rigid distance joint (`RopeJoint` holds only a maximum, `SpringJoint` is
//! soft), so it cannot build a description that has one ([`RapierWorld::unsupported`]).
//!
//! [`RAPIER_CONFIGS`] is the list of solver settings measured; every other integration
//! parameter keeps rapier's default (1 PGS and 1 stabilisation iteration per substep,
//! `warmstart_joints = false`, default joint softness).

use rapier2d::prelude::*;

use crate::scenes::{DT, Pose, SceneDescription, Velocity};
use crate::{MovingWorld, World};

/// One rapier2d solver setting.
pub struct RapierConfig {
    /// Short name shown in the table and next to the plot's marker.
    pub label: &'static str,
    /// Applied to `IntegrationParameters::default()` (with `dt` already set).
    pub apply: fn(&mut IntegrationParameters),
}

/// The rapier2d settings measured: `num_solver_iterations` (substeps) 1 to 16; 4 is
/// rapier's default, which `instructions.sh` counts.
pub const RAPIER_CONFIGS: &[RapierConfig] = &[
    RapierConfig {
        label: "it 1",
        apply: |p| p.num_solver_iterations = 1,
    },
    RapierConfig {
        label: "it 2",
        apply: |p| p.num_solver_iterations = 2,
    },
    RapierConfig {
        label: "it 4 (default)",
        apply: |p| p.num_solver_iterations = 4,
    },
    RapierConfig {
        label: "it 8",
        apply: |p| p.num_solver_iterations = 8,
    },
    RapierConfig {
        label: "it 16",
        apply: |p| p.num_solver_iterations = 16,
    },
];

/// What the labels in [`RAPIER_CONFIGS`] mean, for the report.
pub const RAPIER_LEGEND: &str = "rapier2d: `it N` = `num_solver_iterations = N` (substeps, \
each with 1 PGS and 1 stabilisation iteration); everything else default \
(`warmstart_joints = false`, joint softness default).";

/// The damping factor of a motor's `motor_velocity` (rapier's acceleration-based model:
/// the motor row's compliance is `1/(dt·factor)`): large enough that a lone crank holds
/// its speed to 0.1 % against its weight, a rigid velocity motor in effect.
pub const MOTOR_FACTOR: f32 = 1.0e5;

/// A rapier2d world holding one scene.
pub struct RapierWorld {
    world: PhysicsWorld,
    bodies: Vec<RigidBodyHandle>,
}

impl RapierWorld {
    /// Why rapier2d cannot build `description`, if it cannot: it has a rigid distance
    /// joint.
    pub fn unsupported(description: &SceneDescription) -> Option<&'static str> {
        (!description.distances.is_empty()).then_some(
            "rapier2d has no rigid distance joint (RopeJoint holds only a maximum, \
             SpringJoint is soft)",
        )
    }

    /// Builds `description` in a fresh world with `config` applied.
    ///
    /// # Panics
    /// If [`RapierWorld::unsupported`] refuses the description.
    pub fn build(config: &RapierConfig, description: &SceneDescription) -> RapierWorld {
        if let Some(reason) = RapierWorld::unsupported(description) {
            panic!("{reason}");
        }
        let mut world = PhysicsWorld::new();
        world.gravity = Vector::new(description.gravity[0], description.gravity[1]);
        world.integration_parameters.dt = DT;
        (config.apply)(&mut world.integration_parameters);
        let bodies: Vec<RigidBodyHandle> = description
            .bodies
            .iter()
            .enumerate()
            .map(|(index, spec)| {
                let builder = match spec.mass_inertia {
                    Some((mass, inertia)) => RigidBodyBuilder::dynamic()
                        .additional_mass_properties(MassProperties::new(
                            Vector::ZERO,
                            mass,
                            inertia,
                        ))
                        .can_sleep(false),
                    None => RigidBodyBuilder::fixed(),
                };
                let mut builder = builder
                    .translation(Vector::new(spec.position[0], spec.position[1]))
                    .rotation(spec.angle);
                if !description.initial_velocities.is_empty() {
                    let velocity = description.initial_velocity(index);
                    builder = builder
                        .linvel(Vector::new(velocity.x as f32, velocity.y as f32))
                        .angvel(velocity.angular as f32);
                }
                let body = builder.build();
                world.bodies.insert(body)
            })
            .collect();
        for (index, joint) in description.joints.iter().enumerate() {
            let mut revolute = RevoluteJointBuilder::new()
                .local_anchor1(Vector::new(joint.anchor_a[0], joint.anchor_a[1]))
                .local_anchor2(Vector::new(joint.anchor_b[0], joint.anchor_b[1]))
                .contacts_enabled(false);
            for motor in description.motors.iter().filter(|m| m.joint == index) {
                revolute = revolute
                    .motor_velocity(motor.speed, MOTOR_FACTOR)
                    .motor_max_force(motor.max_torque);
            }
            world
                .impulse_joints
                .insert(bodies[joint.a], bodies[joint.b], revolute, true);
        }
        for weld in &description.welds {
            let fixed = FixedJointBuilder::new()
                .local_frame1(rapier2d::math::Pose::new(
                    Vector::new(weld.anchor_a[0], weld.anchor_a[1]),
                    weld.reference_angle,
                ))
                .local_frame2(rapier2d::math::Pose::new(
                    Vector::new(weld.anchor_b[0], weld.anchor_b[1]),
                    0.0,
                ))
                .contacts_enabled(false);
            world
                .impulse_joints
                .insert(bodies[weld.a], bodies[weld.b], fixed, true);
        }
        for line in &description.lines {
            let slot = PinSlotJointBuilder::new(Vector::new(line.axis[0], line.axis[1]))
                .local_anchor1(Vector::new(line.anchor_a[0], line.anchor_a[1]))
                .local_anchor2(Vector::new(line.anchor_b[0], line.anchor_b[1]))
                .contacts_enabled(false);
            world
                .impulse_joints
                .insert(bodies[line.a], bodies[line.b], slot, true);
        }
        RapierWorld { world, bodies }
    }
}

impl World for RapierWorld {
    fn step(&mut self) {
        self.world.step();
    }

    fn read_poses(&self, poses: &mut [Pose]) {
        for (pose, &handle) in poses.iter_mut().zip(&self.bodies) {
            let body = &self.world.bodies[handle];
            let translation = body.translation();
            let rotation = body.rotation();
            *pose = Pose {
                x: f64::from(translation.x),
                y: f64::from(translation.y),
                cos: f64::from(rotation.cos()),
                sin: f64::from(rotation.sin()),
            };
        }
    }
}

impl MovingWorld for RapierWorld {
    fn read_velocities(&self, velocities: &mut [Velocity]) {
        for (velocity, &handle) in velocities.iter_mut().zip(&self.bodies) {
            let body = &self.world.bodies[handle];
            let linear = body.linvel();
            *velocity = Velocity {
                x: f64::from(linear.x),
                y: f64::from(linear.y),
                angular: f64::from(body.angvel()),
            };
        }
    }
}
