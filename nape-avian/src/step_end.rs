//! The velocities a jointed body shows between steps.
//!
//! Avian integrates by symplectic Euler (each substep: `v += h·a`, the solve, then
//! `x += h·v`), so the velocity it leaves at a step's end is the one that carried the
//! body across the last substep: half a substep of force short of the velocity at the
//! final poses, which is why `E = ½mv² + ½Iω² + mgy` read from it swings by
//! `(h/2)·m·g·v_y`. At the step's end the plugin writes, for the bodies of each exactly
//! solved island, that velocity completed by half a substep of external force and
//! projected onto the island's joints at the final poses (RATTLE's closing half kick);
//! at the next step's start it puts Avian's own velocity back, plus whatever the user
//! changed in between, so that Avian's trajectory is the same bit for bit.
//!
//! An island with a body that touches a contact, or a joint off the exact path (limits,
//! soft rows, motors), keeps Avian's velocities: their forces are not in the projection.

use avian2d::dynamics::integrator::IntegrationSystems;
use avian2d::prelude::{ContactGraph, PhysicsSchedule, PhysicsStepSystems, SolverSystems};
use bevy::prelude::*;
use nape::Velocity;

use crate::NapeJointSystems;
use crate::body_access::{StepEndBodies, StepEndRole, UserVelocities};
use crate::exact::ExactRows;

/// Which velocity the bodies of nape's exactly solved islands show between steps (in
/// `LinearVelocity` and `AngularVelocity`). Either way Avian computes the same poses.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StepEndVelocity {
    /// The velocity at the step's final poses: Avian's completed by half a substep of
    /// external force and made to meet the joints there. The energy read from it is
    /// conserved as the integrator conserves its own.
    #[default]
    Synchronized,
    /// Avian's velocity as its integrator leaves it, half a substep of force behind.
    Integrated,
}

/// Where the step's end runs, between Avian's sets.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum StepEndSystems {
    /// Puts Avian's velocities back, before anything of the step reads them.
    Restore,
    /// Computes the synchronized velocities, before Avian clears its increments.
    Synchronize,
    /// Writes them, after Avian writes its own back.
    Write,
}

/// A body whose velocity the step's end rewrote.
struct Written {
    body: Entity,
    synchronized: Velocity,
    integrated: Velocity,
}

/// The step's end state: bodies left alone this step, and the velocities written.
#[derive(Resource, Default)]
pub(crate) struct StepEnd {
    /// Bodies of joints off the exact path this step (their islands keep Avian's
    /// velocities).
    pub(crate) held: Vec<Entity>,
    written: Vec<Written>,
    velocities: Vec<Velocity>,
    rewritten: Vec<usize>,
    island_held: Vec<bool>,
}

pub(crate) fn register(app: &mut App) {
    app.init_resource::<StepEndVelocity>()
        .init_resource::<StepEnd>();
    app.configure_sets(
        PhysicsSchedule,
        (
            StepEndSystems::Restore.before(PhysicsStepSystems::First),
            StepEndSystems::Synchronize
                .in_set(SolverSystems::PostSubstep)
                .after(NapeJointSystems::Finish)
                .before(IntegrationSystems::ClearVelocityIncrements),
            StepEndSystems::Write
                .in_set(PhysicsStepSystems::Solver)
                .after(SolverSystems::Finalize)
                .before(SolverSystems::StoreContactImpulses),
        ),
    );
    app.add_systems(
        PhysicsSchedule,
        (
            restore.in_set(StepEndSystems::Restore),
            synchronize.in_set(StepEndSystems::Synchronize),
            write.in_set(StepEndSystems::Write),
        ),
    );
}

/// Avian's velocity back, plus the user's change since the step's end.
fn restore(mut step_end: ResMut<StepEnd>, mut velocities: UserVelocities) {
    for written in step_end.written.drain(..) {
        let Some(now) = velocities.get(written.body) else {
            continue;
        };
        let velocity = if now == written.synchronized {
            written.integrated
        } else {
            Velocity {
                linear: written.integrated.linear + (now.linear - written.synchronized.linear),
                angular: written.integrated.angular + (now.angular - written.synchronized.angular),
            }
        };
        velocities.set(written.body, velocity);
    }
}

fn synchronize(
    mode: Res<StepEndVelocity>,
    mut step_end: ResMut<StepEnd>,
    mut exact: ResMut<ExactRows>,
    bodies: StepEndBodies,
    contacts: Res<ContactGraph>,
) {
    let StepEnd {
        held,
        written,
        velocities,
        rewritten,
        island_held,
    } = &mut *step_end;
    written.clear();
    if *mode == StepEndVelocity::Integrated || exact.bodies().is_empty() {
        held.clear();
        return;
    }
    velocities.clear();
    rewritten.clear();
    for (index, &body) in exact.bodies().iter().enumerate() {
        let (velocity, role) = bodies.half_kicked(body);
        velocities.push(velocity);
        match role {
            StepEndRole::Rewritten => rewritten.push(index),
            StepEndRole::Holds => held.push(body),
            StepEndRole::Given => {}
        }
    }
    exact.project(velocities);
    island_held.clear();
    let mut hold = |body: Entity| {
        if let Some(island) = exact.index_of(body).and_then(|i| exact.island_of(i)) {
            if island_held.len() <= island {
                island_held.resize(island + 1, false);
            }
            island_held[island] = true;
        }
    };
    held.drain(..).for_each(&mut hold);
    for pair in contacts
        .iter_active_touching()
        .filter(|pair| pair.generates_constraints())
    {
        pair.body1.into_iter().chain(pair.body2).for_each(&mut hold);
    }
    for &index in rewritten.iter() {
        let held = exact
            .island_of(index)
            .is_none_or(|island| island_held.get(island).copied().unwrap_or(false));
        if !held {
            written.push(Written {
                body: exact.bodies()[index],
                synchronized: velocities[index],
                integrated: Velocity::default(),
            });
        }
    }
}

/// Writes the synchronized velocities over the ones Avian wrote back, keeping Avian's.
fn write(mut step_end: ResMut<StepEnd>, mut velocities: UserVelocities) {
    step_end.written.retain_mut(|written| {
        let Some(integrated) = velocities.get(written.body) else {
            return false;
        };
        written.integrated = integrated;
        velocities.set(written.body, written.synchronized);
        true
    });
}
