//! # nape-avian
//!
//! nape's joints inside [Avian](avian2d)'s step. Any [`Constraint`] (the builtins, a
//! `#[constraint]` of your own, a hand-written one) becomes a [`NapeJoint`] component on
//! its own entity, naming the body entities it joins; [`NapeJointsPlugin`] solves it in
//! Avian's substeps, before Avian's contacts, with Avian's own body velocities:
//!
//! ```no_run
//! use avian2d::prelude::*;
//! use bevy::prelude::*;
//! use nape::{PivotJoint, Vec2};
//! use nape_avian::{NapeJoint, NapeJointsPlugin, slots};
//!
//! fn setup(mut commands: Commands) {
//!     let ground = commands.spawn(RigidBody::Static).id();
//!     let bob = commands
//!         .spawn((RigidBody::Dynamic, Collider::circle(0.1), Position::from_xy(1.0, 0.0)))
//!         .id();
//!     let [a, b] = slots();
//!     let pivot = PivotJoint::new(a, b, Vec2::ZERO, Vec2::new(-1.0, 0.0));
//!     commands.spawn(NapeJoint::new(pivot, [ground, bob]));
//! }
//!
//! App::new()
//!     .add_plugins((MinimalPlugins, PhysicsPlugins::default(), NapeJointsPlugin))
//!     .add_systems(Startup, setup)
//!     .run();
//! ```
//!
//! ## How a joint is solved
//!
//! Each step (in `SolverSystems::PrepareJoints`) a joint records its bodies' centres of
//! mass and angles; the angles are wound per joint, so angle rows (`AngleJoint`, a weld's
//! phase) count whole turns although Avian keeps none. Each substep it reads the poses
//! as Avian's displacements (`delta_position`, `delta_rotation`) leave them, and writes
//! only velocities: a warm start and a biased solve before Avian's contact warm start and
//! solve, and an unbiased relax before Avian's relax (Box2D v3's soft step). Stiff rows
//! remove their error within a substep; soft rows are nape's springs (frequency and
//! damping relative to the row's effective mass). Limits, `max_force`, `max_error` and
//! breaking follow [`ConstraintSettings`]; a break is a [`JointBroken`] message.
//!
//! Stiff joints without inequality rows (pivots, welds, a fixed-length pulley, a
//! `#[constraint]` without limits), of every type together, are solved exactly per island
//! of bodies by nape's own exact solver ([`nape::ExactSolver`]): one sparse factorisation
//! of `J M⁻¹ Jᵀ` per pass, linear in a chain or a tree and closing a few loops, so that a
//! heavy body hangs on a light one without stretching the joint. A mesh with more loops
//! than it closes is left to its joints, softened as a `Space`'s sweeps soften a mesh.
//! Joints with limits, soft joints and motors take one Gauss–Seidel pass each, first.
//!
//! Poses are centre-of-mass poses, as in nape: a joint's anchors are local to its
//! bodies' centres of mass (a body's origin when its collider is centred).
//!
//! Avian's precision follows this crate's `f32` feature (the default) or its `f64`
//! feature (with `default-features = false`): one of the two, as in Avian. A joint reads
//! its bodies' positions relative to its first body's in that precision, so with `f64` a
//! mechanism far from the origin is as exact as at it (far out, turn off
//! `PhysicsTransformConfig::transform_to_position`: Bevy's `Transform` is `f32`).
//!
//! Avian's `JointDisabled`, `JointCollisionDisabled`, `Dominance`, `JointForces`,
//! sleeping and kinematic bodies apply as to Avian's own joints. Joints join islands
//! through Avian's joint graph; a joint of more than two bodies (a pulley) adds
//! [`NapeLink`] entities so that all its bodies share one island.
//!
//! Between steps, the bodies of an exactly solved island show velocities in step with
//! their poses (Avian's completed by half a substep of external force and projected onto
//! the joints), so that the energy read from them is conserved as Avian's integrator
//! conserves its own; Avian's velocities are put back before the next step, which stays
//! the same bit for bit. See [`StepEndVelocity`].
//!
//! Registered by [`NapeJointsPlugin`]: nape's seven builtins. Register a type of your own
//! with [`NapeJointsAppExt::add_nape_joint`].

mod avian_joints;
mod body_access;
mod exact;
mod headless;
pub mod motors;
mod rows;
mod step_end;
mod systems;

use std::marker::PhantomData;

use avian2d::dynamics::integrator::IntegrationSystems;
use avian2d::dynamics::joints::EntityConstraint;
use avian2d::dynamics::solver::joint_graph::JointGraphPlugin;
use avian2d::dynamics::solver::schedule::SubstepSolverSystems;
use avian2d::prelude::{PhysicsSchedule, SolverSystems, SubstepSchedule};
use bevy::ecs::entity::{EntityMapper, MapEntities};
use bevy::prelude::*;
use nape::{
    AngleJoint, BodyHandle, BreakCause, Constraint, ConstraintSettings, DistanceJoint,
    InvalidParameter, LineJoint, MotorJoint, PivotJoint, PulleyJoint, WeldJoint,
};

pub use avian_joints::{AvianJointsPlugin, NapeMirror};
pub use headless::headless_app;
pub use motors::{SlideMotor, SlideTarget};
pub use step_end::StepEndVelocity;
pub use systems::NapeJointState;

/// `B` body handles of no space, for building a constraint whose bodies a [`NapeJoint`]
/// names by entity: `let [a, b] = slots();`.
#[must_use]
pub fn slots<const B: usize>() -> [BodyHandle; B] {
    std::array::from_fn(|s| BodyHandle::detached(s as u32))
}

/// A nape constraint joining the body entities `bodies` (slot `s` of the constraint is
/// `bodies[s]`), solved by [`NapeJointsPlugin`]. Keep it on an entity of its own, without
/// a `RigidBody`, as Avian's joints.
#[derive(Component, Clone, Debug)]
pub struct NapeJoint<C, const D: usize, const B: usize> {
    /// The constraint; its own body handles are placeholders (see [`slots`]).
    pub constraint: C,
    /// The body entity of each slot; two slots may name the same body.
    pub bodies: [Entity; B],
    /// Stiff or soft, force and error limits, breaking, active.
    pub settings: ConstraintSettings,
}

impl<C: Constraint<D, B>, const D: usize, const B: usize> NapeJoint<C, D, B> {
    /// The joint `constraint` between `bodies`, with the default (stiff) settings.
    ///
    /// # Panics
    /// If the constraint rejects its parameters (see [`try_new`](Self::try_new)).
    #[must_use]
    pub fn new(constraint: C, bodies: [Entity; B]) -> Self {
        match Self::try_new(constraint, bodies) {
            Ok(joint) => joint,
            Err(e) => panic!("invalid {}: {e}", C::NAME),
        }
    }

    /// The joint `constraint` between `bodies`: its slots get placeholder handles equal
    /// where the entities are equal, so that its rules (`body1 != body2`) and shared slots
    /// see the entities.
    ///
    /// # Errors
    /// The first parameter rule of the constraint that does not hold.
    pub fn try_new(mut constraint: C, bodies: [Entity; B]) -> Result<Self, InvalidParameter> {
        constraint.set_bodies(std::array::from_fn(|s| {
            let first = (0..s).find(|&t| bodies[t] == bodies[s]).unwrap_or(s);
            BodyHandle::detached(first as u32)
        }));
        constraint.validate()?;
        Ok(Self {
            constraint,
            bodies,
            settings: ConstraintSettings::default(),
        })
    }

    /// This joint with `settings`.
    #[must_use]
    pub fn with_settings(mut self, settings: ConstraintSettings) -> Self {
        self.settings = settings;
        self
    }
}

impl<C, const D: usize, const B: usize> MapEntities for NapeJoint<C, D, B> {
    fn map_entities<M: EntityMapper>(&mut self, mapper: &mut M) {
        for body in &mut self.bodies {
            *body = mapper.get_mapped(*body);
        }
    }
}

/// The joint graph's edge: the first two slots' bodies (the rest are [`NapeLink`]s).
impl<C, const D: usize, const B: usize> EntityConstraint<2> for NapeJoint<C, D, B> {
    fn entities(&self) -> [Entity; 2] {
        [self.bodies[0], self.bodies[1.min(B - 1)]]
    }
}

/// An edge of Avian's joint graph between two bodies of a joint of more than two bodies,
/// on a child entity of the joint: it puts them in one island and keeps their contacts
/// as the joint's `JointCollisionDisabled` says. Spawned and removed with the joint.
#[derive(Component, Clone, Copy, Debug)]
pub struct NapeLink {
    /// The two bodies.
    pub bodies: [Entity; 2],
}

impl MapEntities for NapeLink {
    fn map_entities<M: EntityMapper>(&mut self, mapper: &mut M) {
        for body in &mut self.bodies {
            *body = mapper.get_mapped(*body);
        }
    }
}

impl EntityConstraint<2> for NapeLink {
    fn entities(&self) -> [Entity; 2] {
        self.bodies
    }
}

/// A joint broke (its [`ConstraintSettings`]' `break_under_force` or
/// `break_under_error`). Its entity was despawned (`remove_on_break`) or given Avian's
/// `JointDisabled`.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct JointBroken {
    /// The joint's entity.
    pub joint: Entity,
    /// Which limit was exceeded.
    pub cause: BreakCause,
    /// The force (N, N·m) or error (m, rad) that exceeded it.
    pub value: f32,
    /// `max_force` or `max_error`.
    pub limit: f32,
}

/// Where the plugin's systems run, each set between two of Avian's.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NapeJointSystems {
    /// Step start poses and wound angles (in `SolverSystems::PrepareJoints`).
    Prepare,
    /// Per substep: `J`, `K`, the error and the warm start, before contacts warm start.
    WarmStart,
    /// Per substep: the biased solve, before contacts are solved.
    Solve,
    /// Per substep: the unbiased relax, after positions are integrated.
    Relax,
    /// `JointForces` and breaks (in `SolverSystems::PostSubstep`).
    Finish,
}

/// Solves [`NapeJoint`]s inside Avian's step, and registers nape's builtin joints.
pub struct NapeJointsPlugin;

impl Plugin for NapeJointsPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<JointBroken>();
        app.configure_sets(
            PhysicsSchedule,
            (
                NapeJointSystems::Prepare.in_set(SolverSystems::PrepareJoints),
                NapeJointSystems::Finish.in_set(SolverSystems::PostSubstep),
            ),
        );
        app.configure_sets(
            SubstepSchedule,
            (
                NapeJointSystems::WarmStart
                    .after(IntegrationSystems::Velocity)
                    .before(SubstepSolverSystems::WarmStart),
                NapeJointSystems::Solve
                    .after(SubstepSolverSystems::WarmStart)
                    .before(SubstepSolverSystems::SolveConstraints),
                NapeJointSystems::Relax
                    .after(IntegrationSystems::Position)
                    .before(SubstepSolverSystems::Relax),
            ),
        );
        systems::register_shared(app);
        step_end::register(app);
        app.add_plugins(JointGraphPlugin::<NapeLink>::default());
        app.add_nape_joint::<PivotJoint, _, _>()
            .add_nape_joint::<WeldJoint, _, _>()
            .add_nape_joint::<AngleJoint, _, _>()
            .add_nape_joint::<DistanceJoint, _, _>()
            .add_nape_joint::<LineJoint, _, _>()
            .add_nape_joint::<MotorJoint, _, _>()
            .add_nape_joint::<PulleyJoint, _, _>();
    }
}

/// Registers joint types with the plugin.
pub trait NapeJointsAppExt {
    /// Solves `NapeJoint<C, D, B>` components: `app.add_nape_joint::<MyJoint, _, _>()`.
    /// Needs [`NapeJointsPlugin`]; a type registered twice is registered once.
    fn add_nape_joint<C: Constraint<D, B>, const D: usize, const B: usize>(&mut self) -> &mut Self;
}

impl NapeJointsAppExt for App {
    fn add_nape_joint<C: Constraint<D, B>, const D: usize, const B: usize>(&mut self) -> &mut Self {
        if !self.is_plugin_added::<JointTypePlugin<C, D, B>>() {
            self.add_plugins(JointTypePlugin::<C, D, B>(PhantomData));
        }
        self
    }
}

/// The systems of one joint type.
struct JointTypePlugin<C, const D: usize, const B: usize>(PhantomData<fn() -> C>);

impl<C: Constraint<D, B>, const D: usize, const B: usize> Plugin for JointTypePlugin<C, D, B> {
    fn build(&self, app: &mut App) {
        assert!(B >= 2, "{}: a joint names at least two bodies", C::NAME);
        systems::register::<C, D, B>(app);
    }
}
