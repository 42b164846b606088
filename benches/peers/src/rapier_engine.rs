//! rapier2d's side of the comparison: rigid bodies with mass properties set directly
//! (no colliders), `RevoluteJoint` impulse joints with local anchors.
//!
//! [`RAPIER_CONFIGS`] is the list of solver settings measured; every other integration
//! parameter keeps rapier's default (1 PGS and 1 stabilisation iteration per substep,
//! `warmstart_joints = false`, default joint softness).

use rapier2d::prelude::*;

use crate::scenes::{DT, GRAVITY, Pose, SceneDescription, Velocity};
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

/// A rapier2d world holding one scene.
pub struct RapierWorld {
    world: PhysicsWorld,
    bodies: Vec<RigidBodyHandle>,
}

impl RapierWorld {
    /// Builds `description` in a fresh world with `config` applied.
    pub fn build(config: &RapierConfig, description: &SceneDescription) -> RapierWorld {
        let mut world = PhysicsWorld::new();
        world.gravity = Vector::new(GRAVITY[0], GRAVITY[1]);
        world.integration_parameters.dt = DT;
        (config.apply)(&mut world.integration_parameters);
        let bodies: Vec<RigidBodyHandle> = description
            .bodies
            .iter()
            .map(|spec| {
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
                let body = builder
                    .translation(Vector::new(spec.position[0], spec.position[1]))
                    .rotation(spec.angle)
                    .build();
                world.bodies.insert(body)
            })
            .collect();
        for joint in &description.joints {
            let revolute = RevoluteJointBuilder::new()
                .local_anchor1(Vector::new(joint.anchor_a[0], joint.anchor_a[1]))
                .local_anchor2(Vector::new(joint.anchor_b[0], joint.anchor_b[1]))
                .contacts_enabled(false);
            world
                .impulse_joints
                .insert(bodies[joint.a], bodies[joint.b], revolute, true);
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
