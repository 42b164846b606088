//! Every read and write of Avian's body state (Avian 0.7: `SolverBody` and
//! `SolverBodyInertia` are components). Moving to Avian 0.8, where solver bodies live in
//! the `SolverBodies` resource behind `SolverBodyIndex`, changes this file only.
//!
//! Avian's glam (0.32 through bevy_math) and nape's (0.34) are different crates: vectors
//! cross this boundary field by field.

// Rows, slots and envelope columns are indices into several arrays at once.
#![allow(clippy::needless_range_loop)]

use avian2d::dynamics::ccd::SweptCcd;
use avian2d::dynamics::integrator::VelocityIntegrationData;
use avian2d::dynamics::solver::solver_body::{SolverBody, SolverBodyInertia};
use avian2d::math::Scalar;
use avian2d::prelude::{
    AngularVelocity, ComputedCenterOfMass, LinearVelocity, Position, Rotation, Sleeping,
};
use bevy::ecs::system::SystemParam;
use bevy::prelude::{Entity, Has, Query, With, Without};
use nape::{InverseMass, Pose, Vec2, Velocity};

/// Avian's scalar (`f32`, or `f64` with the `f64` feature) as nape's `f32`: a value the
/// joints read in their own frame (a velocity, a mass, an offset), never an absolute
/// position.
#[allow(clippy::unnecessary_cast)]
pub(crate) fn to_f32(x: Scalar) -> f32 {
    x as f32
}

/// nape's `f32` as Avian's scalar.
#[allow(clippy::useless_conversion)]
pub(crate) fn to_scalar(x: f32) -> Scalar {
    x.into()
}

/// Avian's vector as nape's (a relative vector: see [`to_f32`]).
pub(crate) fn to_nape(v: avian2d::math::Vector) -> Vec2 {
    Vec2::new(to_f32(v.x), to_f32(v.y))
}

/// nape's vector as Avian's.
pub(crate) fn to_avian(v: Vec2) -> avian2d::math::Vector {
    avian2d::math::Vector::new(to_scalar(v.x), to_scalar(v.y))
}

/// A body's centre of mass and rotation at the start of a step, before the substeps move it.
#[derive(SystemParam)]
pub(crate) struct StepStartPoses<'w, 's> {
    poses: Query<
        'w,
        's,
        (
            &'static Position,
            &'static Rotation,
            &'static ComputedCenterOfMass,
        ),
    >,
    sleeping: Query<'w, 's, (), With<Sleeping>>,
}

impl StepStartPoses<'_, '_> {
    /// The centre of mass in world space, in Avian's precision, and the rotation
    /// `(cos, sin)`, or `None` for an entity that is not a body.
    pub(crate) fn centre_and_rotation(
        &self,
        body: Entity,
    ) -> Option<(avian2d::math::Vector, [f32; 2])> {
        let (position, rotation, centre) = self.poses.get(body).ok()?;
        Some((
            position.0 + *rotation * centre.0,
            [to_f32(rotation.cos), to_f32(rotation.sin)],
        ))
    }

    /// Whether `body` is asleep.
    pub(crate) fn is_sleeping(&self, body: Entity) -> bool {
        self.sleeping.contains(body)
    }
}

/// The velocities, inverse masses and substep displacements of one joint's bodies,
/// gathered into nape's compact arrays: `slot_index[s]` is slot `s`'s entry in
/// `velocities` (slots holding the same entity share one entry).
pub(crate) struct Gathered<const B: usize> {
    pub(crate) slot_index: [usize; B],
    pub(crate) velocities: [Velocity; B],
    pub(crate) inverse_masses: [InverseMass; B],
    /// Displacement of the centre of mass since the step started, and the rotation
    /// `(cos, sin)` turned through since then.
    pub(crate) deltas: [(Vec2, [f32; 2]); B],
    /// Whether any slot's body can be moved by the joint.
    pub(crate) any_movable: bool,
    /// Whether dominance made a dynamic body immovable for this joint.
    pub(crate) dominance_applied: bool,
}

/// Avian's solver bodies, read and written by joints during the substeps.
#[derive(SystemParam)]
pub(crate) struct SolverBodies<'w, 's> {
    bodies: Query<'w, 's, (&'static mut SolverBody, &'static SolverBodyInertia)>,
}

impl SolverBodies<'_, '_> {
    /// The state of `entities`. A body without a solver body (static, asleep or disabled)
    /// is Avian's dummy: immovable, at rest, not displaced. As in Avian's own joint solver,
    /// the bodies of higher dominance than the joint's lowest are immovable too; kinematic
    /// bodies always are.
    pub(crate) fn gather<const B: usize>(&self, entities: &[Entity; B]) -> Gathered<B> {
        let mut gathered = Gathered {
            slot_index: std::array::from_fn(|s| s),
            velocities: [Velocity::default(); B],
            inverse_masses: [InverseMass::default(); B],
            deltas: [(Vec2::ZERO, [1.0, 0.0]); B],
            any_movable: false,
            dominance_applied: false,
        };
        let mut dominance = [i16::MAX; B];
        for s in 0..B {
            if let Some(first) = (0..s).find(|&t| entities[t] == entities[s]) {
                gathered.slot_index[s] = first;
                gathered.deltas[s] = gathered.deltas[first];
                gathered.inverse_masses[s] = gathered.inverse_masses[first];
                dominance[s] = dominance[first];
                continue;
            }
            let Ok((body, inertia)) = self.bodies.get(entities[s]) else {
                continue;
            };
            gathered.velocities[s] = Velocity {
                linear: to_nape(body.linear_velocity),
                angular: to_f32(body.angular_velocity),
            };
            gathered.deltas[s] = (
                to_nape(body.delta_position),
                [
                    to_f32(body.delta_rotation.cos),
                    to_f32(body.delta_rotation.sin),
                ],
            );
            dominance[s] = inertia.dominance();
            if !body.flags.is_kinematic() {
                let inverse_mass = inertia.effective_inv_mass();
                gathered.inverse_masses[s] = InverseMass {
                    // Locked axes zero one component; nape's rows take one scalar mass.
                    mass: to_f32(inverse_mass.x.min(inverse_mass.y)),
                    inertia: to_f32(inertia.effective_inv_angular_inertia()),
                };
            }
        }
        let lowest = dominance.iter().copied().min().unwrap_or(i16::MAX);
        for s in 0..B {
            if dominance[s] > lowest {
                let m = gathered.inverse_masses[s];
                gathered.dominance_applied |= m.mass > 0.0 || m.inertia > 0.0;
                gathered.inverse_masses[s] = InverseMass::default();
            }
            let m = gathered.inverse_masses[s];
            gathered.any_movable |= m.mass > 0.0 || m.inertia > 0.0;
        }
        gathered
    }

    /// Writes back the velocities of the movable bodies among `entities`.
    pub(crate) fn scatter<const B: usize>(&mut self, entities: &[Entity; B], state: &Gathered<B>) {
        for s in 0..B {
            let m = state.inverse_masses[s];
            if state.slot_index[s] != s || (m.mass == 0.0 && m.inertia == 0.0) {
                continue;
            }
            if let Ok((mut body, _)) = self.bodies.get_mut(entities[s]) {
                body.linear_velocity = to_avian(state.velocities[s].linear);
                body.angular_velocity = to_scalar(state.velocities[s].angular);
            }
        }
    }
}

impl SolverBodies<'_, '_> {
    /// The velocities of `entities` into `out` (zero for a body without a solver body).
    pub(crate) fn velocities(&self, entities: &[Entity], out: &mut Vec<Velocity>) {
        out.clear();
        out.extend(entities.iter().map(|&e| {
            self.bodies
                .get(e)
                .map_or(Velocity::default(), |(body, _)| Velocity {
                    linear: to_nape(body.linear_velocity),
                    angular: to_f32(body.angular_velocity),
                })
        }));
    }

    /// Writes `velocities` back to the dynamic bodies among `entities`.
    pub(crate) fn set_velocities(&mut self, entities: &[Entity], velocities: &[Velocity]) {
        for (&e, v) in entities.iter().zip(velocities) {
            if let Ok((mut body, _)) = self.bodies.get_mut(e)
                && !body.flags.is_kinematic()
            {
                body.linear_velocity = to_avian(v.linear);
                body.angular_velocity = to_scalar(v.angular);
            }
        }
    }
}

/// The pose of slot `s` now: its step-start pose moved and turned by the substeps, the
/// turn's crossings of ±π counted in its winding.
pub(crate) fn current_pose(start: &Pose, (moved, [cos, sin]): (Vec2, [f32; 2])) -> Pose {
    Pose {
        position: start.position + moved,
        ..start.rotated(cos, sin)
    }
}

/// What the end of a step reads of a body before Avian clears its velocity increments.
#[derive(SystemParam)]
pub(crate) struct StepEndBodies<'w, 's> {
    bodies: Query<
        'w,
        's,
        (
            &'static SolverBody,
            Option<&'static VelocityIntegrationData>,
            Has<SweptCcd>,
        ),
    >,
}

/// What the step's end may do with a body's velocity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StepEndRole {
    /// A dynamic body: its velocity is completed and may be rewritten.
    Rewritten,
    /// Kinematic, static or asleep: its velocity is given.
    Given,
    /// Swept CCD moves it after the substeps: its island keeps Avian's velocities.
    Holds,
}

impl StepEndBodies<'_, '_> {
    /// The velocity of `body` at the step's end, with half a substep's external velocity
    /// increment added for a dynamic body (gravity with its `GravityScale`, constant
    /// forces and accelerations, locked axes applied: what Avian adds before each
    /// substep's solve); zero for a body without a solver body.
    pub(crate) fn half_kicked(&self, body: Entity) -> (Velocity, StepEndRole) {
        let Ok((body, increments, swept)) = self.bodies.get(body) else {
            return (Velocity::default(), StepEndRole::Given);
        };
        let velocity = Velocity {
            linear: to_nape(body.linear_velocity),
            angular: to_f32(body.angular_velocity),
        };
        if swept {
            return (velocity, StepEndRole::Holds);
        }
        match increments {
            Some(increments) if !body.flags.is_kinematic() => (
                Velocity {
                    linear: velocity.linear + 0.5 * to_nape(increments.linear_increment),
                    angular: velocity.angular + 0.5 * to_f32(increments.angular_increment),
                },
                StepEndRole::Rewritten,
            ),
            _ => (velocity, StepEndRole::Given),
        }
    }
}

/// The velocities of awake bodies as users read and set them between steps.
#[derive(SystemParam)]
pub(crate) struct UserVelocities<'w, 's> {
    bodies: Query<
        'w,
        's,
        (&'static mut LinearVelocity, &'static mut AngularVelocity),
        Without<Sleeping>,
    >,
}

impl UserVelocities<'_, '_> {
    /// The velocity of `body`, or `None` for an entity that is not an awake body.
    pub(crate) fn get(&self, body: Entity) -> Option<Velocity> {
        let (linear, angular) = self.bodies.get(body).ok()?;
        Some(Velocity {
            linear: to_nape(linear.0),
            angular: to_f32(angular.0),
        })
    }

    /// Sets the velocity of the awake body `body`.
    pub(crate) fn set(&mut self, body: Entity, velocity: Velocity) {
        if let Ok((mut linear, mut angular)) = self.bodies.get_mut(body) {
            linear.0 = to_avian(velocity.linear);
            angular.0 = to_scalar(velocity.angular);
        }
    }
}
