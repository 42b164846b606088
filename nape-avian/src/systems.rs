//! The systems of one joint type: step preparation, the three substep passes, and the
//! end of the step (forces, breaks), plus the links and waking that keep Avian's islands
//! right.

use avian2d::dynamics::solver::SolverConfig;
use avian2d::dynamics::solver::schedule::SubstepCount;
use avian2d::prelude::{
    JointDisabled, JointForces, PhysicsSchedule, PhysicsStepSystems, SubstepSchedule, WakeBody,
};
use bevy::prelude::*;
use nape::{Constraint, ExactSolver, Pose, SharedSlots};

use crate::body_access::{self, SolverBodies, StepStartPoses};
use crate::exact::{ExactRows, RowOffset};
use crate::rows::{Bodies, Rows};
use crate::step_end::StepEnd;
use crate::{JointBroken, NapeJoint, NapeJointSystems, NapeLink};

/// The solver's state of one [`NapeJoint`], added with it: the impulse carried between
/// substeps and steps, and its bodies' poses at the step's start, wound from the step
/// before.
#[derive(Component)]
pub struct NapeJointState<C: Constraint<D, B>, const D: usize, const B: usize> {
    rows: Rows<C::Jacobian, D>,
    start: [Pose; B],
    shared: SharedSlots,
    /// Whether the joint takes part in this step.
    live: bool,
    /// Where its rows are in the exact solve's current rows, when it takes that path.
    exact: Option<RowOffset>,
    /// Its bodies' indices in the exact solve, from its last push there.
    exact_bodies: [usize; B],
}

impl<C: Constraint<D, B>, const D: usize, const B: usize> Default for NapeJointState<C, D, B> {
    fn default() -> Self {
        Self {
            rows: Rows::default(),
            start: [Pose::default(); B],
            shared: SharedSlots::NONE,
            live: false,
            exact: None,
            exact_bodies: [usize::MAX; B],
        }
    }
}

impl<C: Constraint<D, B>, const D: usize, const B: usize> NapeJointState<C, D, B> {
    /// The positional error of the joint's violated rows at the end of the last substep
    /// (m or rad, the rows' units); 0 for a velocity-only joint.
    #[must_use]
    pub fn error(&self) -> f32 {
        if C::VELOCITY_ONLY || !self.live {
            0.0
        } else {
            self.rows.violation()
        }
    }

    /// The impulse of each row over the last substep (N·s, N·m·s).
    #[must_use]
    pub fn impulse(&self) -> [f32; D] {
        self.rows.impulse
    }
}

/// The exact solve's steps, each after the joint types' systems of its phase.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum ExactSystems {
    Swap,
    Solve,
    Relax,
}

/// The systems shared by every joint type: the exact island solve.
pub(crate) fn register_shared(app: &mut App) {
    use avian2d::dynamics::integrator::IntegrationSystems;
    use avian2d::dynamics::solver::schedule::SubstepSolverSystems;
    app.init_resource::<ExactRows>();
    app.configure_sets(
        SubstepSchedule,
        (
            ExactSystems::Swap
                .after(NapeJointSystems::WarmStart)
                .before(SubstepSolverSystems::WarmStart),
            ExactSystems::Solve
                .after(NapeJointSystems::Solve)
                .before(SubstepSolverSystems::SolveConstraints),
            ExactSystems::Relax
                .after(NapeJointSystems::Relax)
                .after(IntegrationSystems::Position)
                .before(SubstepSolverSystems::Relax),
        ),
    );
    app.add_systems(
        SubstepSchedule,
        (
            (|mut exact: ResMut<ExactRows>| exact.swap()).in_set(ExactSystems::Swap),
            solve_exact::<true>.in_set(ExactSystems::Solve),
            solve_exact::<false>.in_set(ExactSystems::Relax),
        ),
    );
}

fn solve_exact<const BIASED: bool>(
    mut exact: ResMut<ExactRows>,
    mut bodies: SolverBodies,
    mut velocities: Local<Vec<nape::Velocity>>,
    time: Res<Time>,
) {
    if exact.bodies().is_empty() {
        return;
    }
    bodies.velocities(exact.bodies(), &mut velocities);
    exact.solve(&mut velocities, time.delta_secs(), BIASED);
    bodies.set_velocities(exact.bodies(), &velocities);
}

pub(crate) fn register<C: Constraint<D, B>, const D: usize, const B: usize>(app: &mut App) {
    app.register_required_components::<NapeJoint<C, D, B>, NapeJointState<C, D, B>>();
    app.add_plugins(avian2d::dynamics::solver::joint_graph::JointGraphPlugin::<
        NapeJoint<C, D, B>,
    >::default());
    if B > 2 {
        app.add_observer(spawn_links::<C, D, B>);
    }
    app.add_systems(
        PhysicsSchedule,
        (
            wake_changed::<C, D, B>
                .in_set(PhysicsStepSystems::First)
                .ambiguous_with(PhysicsStepSystems::First),
            prepare_step::<C, D, B>
                .in_set(NapeJointSystems::Prepare)
                .ambiguous_with(NapeJointSystems::Prepare),
            finish_step::<C, D, B>
                .in_set(NapeJointSystems::Finish)
                .ambiguous_with(NapeJointSystems::Finish),
        ),
    );
    app.add_systems(
        SubstepSchedule,
        (
            warm_start::<C, D, B>
                .in_set(NapeJointSystems::WarmStart)
                .ambiguous_with(NapeJointSystems::WarmStart),
            velocity_pass::<C, D, B, false>
                .in_set(NapeJointSystems::Solve)
                .ambiguous_with(NapeJointSystems::Solve),
            velocity_pass::<C, D, B, true>
                .in_set(NapeJointSystems::Relax)
                .ambiguous_with(NapeJointSystems::Relax),
        ),
    );
}

/// Links the joint's bodies after its first two to Avian's joint graph, each distinct body
/// to the one before it, so that a pulley between two bodies hung from the ground (slots
/// `[ground, a, ground, b]`) puts `a` and `b` in one island.
fn spawn_links<C: Constraint<D, B>, const D: usize, const B: usize>(
    add: On<Add, NapeJoint<C, D, B>>,
    joints: Query<&NapeJoint<C, D, B>>,
    mut commands: Commands,
) {
    let Ok(joint) = joints.get(add.entity) else {
        return;
    };
    let mut distinct: Vec<Entity> = Vec::with_capacity(B);
    for &body in &joint.bodies {
        if !distinct.contains(&body) {
            distinct.push(body);
        }
    }
    for pair in distinct.windows(2).skip(1) {
        commands.spawn((
            NapeLink {
                bodies: [pair[0], pair[1]],
            },
            ChildOf(add.entity),
        ));
    }
}

/// A changed joint wakes its sleeping bodies (and so their islands).
fn wake_changed<C: Constraint<D, B>, const D: usize, const B: usize>(
    joints: Query<&NapeJoint<C, D, B>, Changed<NapeJoint<C, D, B>>>,
    poses: StepStartPoses,
    mut commands: Commands,
) {
    for joint in &joints {
        for &body in &joint.bodies {
            if poses.is_sleeping(body) {
                commands.queue(WakeBody(body));
            }
        }
    }
}

fn prepare_step<C: Constraint<D, B>, const D: usize, const B: usize>(
    mut joints: Query<(
        &NapeJoint<C, D, B>,
        &mut NapeJointState<C, D, B>,
        Has<JointDisabled>,
    )>,
    poses: StepStartPoses,
) {
    for (joint, mut state, disabled) in &mut joints {
        state.live = false;
        if disabled || !joint.settings.active {
            // A joint enabled again starts without a warm start, as in nape.
            state.rows = Rows::default();
            state.exact = None;
            continue;
        }
        let mut start = [(avian2d::math::Vector::ZERO, [1.0, 0.0]); B];
        let mut all_bodies = true;
        for (s, &body) in joint.bodies.iter().enumerate() {
            match poses.centre_and_rotation(body) {
                Some(pose) => start[s] = pose,
                None => all_bodies = false,
            }
        }
        if !all_bodies {
            continue;
        }
        // A constraint that moving the whole system leaves unchanged reads its bodies'
        // positions relative to its first body's, taken in Avian's precision: in `f32` it
        // then rounds with its own size, not with its distance from the origin (with
        // Avian's `f64`, a joint 10,000 km out is as exact as at the origin).
        let origin = if joint.constraint.translation_invariant() {
            start[0].0
        } else {
            avian2d::math::Vector::ZERO
        };
        // Avian keeps rotations only: each body's winding follows from the last step's
        // start, through the nearest turn (a step turns a body by less than half a turn).
        // The first step starts from winding 0.
        state.start = std::array::from_fn(|s| {
            let (centre, [cos, sin]) = start[s];
            state.start[s].with_rotation(body_access::to_nape(centre - origin), cos, sin)
        });
        state.shared = SharedSlots::find(&joint.bodies);
        state.live = true;
    }
}

/// Which substep pass runs.
#[derive(Clone, Copy)]
enum Pass {
    WarmStart,
    Solve,
    Relax,
}

#[allow(clippy::too_many_arguments)]
fn run_pass<C: Constraint<D, B>, const D: usize, const B: usize>(
    pass: Pass,
    joints: &mut JointQuery<C, D, B>,
    bodies: &mut SolverBodies,
    exact: &mut ExactRows,
    h: f32,
    warm_start: f32,
    substeps: u32,
) {
    for (entity, joint, mut state) in joints {
        let covered = exact.covers(entity, state.exact);
        // Pushed but not taken: a stiff joint of a mesh, which the sweeps soften.
        let mesh = (state.exact.is_some() && !covered)
            .then(|| ExactSolver::mesh_step(state.rows.substep(), substeps));
        if !state.live || (matches!(pass, Pass::Solve) && covered) {
            // The exact solve's biased pass needs nothing from the joint.
            continue;
        }
        let mut gathered = bodies.gather(&joint.bodies);
        if !gathered.any_movable {
            state.exact = None;
            continue;
        }
        let poses: [Pose; B] =
            std::array::from_fn(|s| body_access::current_pose(&state.start[s], gathered.deltas[s]));
        let state = &mut *state;
        let view = Bodies {
            poses: &poses,
            inverse_masses: &gathered.inverse_masses,
            slot_index: &gathered.slot_index,
            shared: state.shared,
        };
        let (constraint, settings) = (&joint.constraint, &joint.settings);
        let velocities = &mut gathered.velocities;
        match pass {
            Pass::WarmStart => {
                let is_exact = Rows::<C::Jacobian, D>::is_exact(settings, constraint)
                    && !gathered.dominance_applied;
                // A joint the exact solve did not take last substep kept its own impulses.
                if covered {
                    for i in 0..D {
                        state.rows.impulse[i] = exact.impulse(entity, state.exact, i);
                    }
                }
                state
                    .rows
                    .prepare(constraint, settings, &view, velocities, h, warm_start);
                state.exact = (is_exact && state.rows.broken.is_none()).then(|| {
                    let (jacobian, error) = state.rows.exported(constraint);
                    exact.push(
                        entity,
                        &joint.bodies,
                        &mut state.exact_bodies,
                        &gathered.inverse_masses,
                        &jacobian,
                        &error,
                        &state.rows.impulse,
                    )
                });
            }
            Pass::Relax if covered => {
                state.rows.measure(constraint, &view, false);
                let (jacobian, error) = state.rows.exported(constraint);
                exact.update(
                    entity,
                    state.exact.unwrap_or_default(),
                    &state.exact_bodies,
                    &jacobian,
                    &error,
                );
                continue;
            }
            Pass::Solve => state
                .rows
                .solve(constraint, settings, &view, velocities, true, mesh),
            Pass::Relax => state
                .rows
                .solve(constraint, settings, &view, velocities, false, mesh),
        }
        bodies.scatter(&joint.bodies, &gathered);
    }
}

type JointQuery<'w, 's, C, const D: usize, const B: usize> = Query<
    'w,
    's,
    (
        Entity,
        &'static NapeJoint<C, D, B>,
        &'static mut NapeJointState<C, D, B>,
    ),
>;

fn warm_start<C: Constraint<D, B>, const D: usize, const B: usize>(
    mut joints: JointQuery<C, D, B>,
    mut bodies: SolverBodies,
    mut exact: ResMut<ExactRows>,
    time: Res<Time>,
    config: Res<SolverConfig>,
    substeps: Res<SubstepCount>,
) {
    let h = time.delta_secs();
    run_pass(
        Pass::WarmStart,
        &mut joints,
        &mut bodies,
        &mut exact,
        h,
        body_access::to_f32(config.warm_start_coefficient),
        substeps.0,
    );
}

/// The biased solve (`RELAX` false) or the relax of every joint the exact solve leaves.
fn velocity_pass<C: Constraint<D, B>, const D: usize, const B: usize, const RELAX: bool>(
    mut joints: JointQuery<C, D, B>,
    mut bodies: SolverBodies,
    mut exact: ResMut<ExactRows>,
    substeps: Res<SubstepCount>,
) {
    let pass = if RELAX { Pass::Relax } else { Pass::Solve };
    run_pass(
        pass,
        &mut joints,
        &mut bodies,
        &mut exact,
        0.0,
        0.0,
        substeps.0,
    );
}

/// Writes `JointForces` (force and torque on the last slot's body, from the last
/// substep's impulse) and carries out breaks.
fn finish_step<C: Constraint<D, B>, const D: usize, const B: usize>(
    mut joints: JointQuery<C, D, B>,
    mut forces: Query<&mut JointForces>,
    exact: Res<ExactRows>,
    mut step_end: ResMut<StepEnd>,
    mut broken: MessageWriter<JointBroken>,
    mut commands: Commands,
) {
    for (entity, joint, mut state) in &mut joints {
        if !state.live {
            continue;
        }
        let covered = exact.covers(entity, state.exact);
        if covered {
            for i in 0..D {
                state.rows.impulse[i] = exact.impulse(entity, state.exact, i);
            }
            state.rows.check_force(&joint.settings);
        }
        if !covered || state.rows.broken.is_some() {
            // The exact rows' projection at the step's end does not know this joint.
            step_end.held.extend_from_slice(&joint.bodies);
        }
        if let Ok(mut forces) = forces.get_mut(entity) {
            let h = state.rows.substep();
            let last = state.rows.slot_impulses(&joint.constraint)[B - 1];
            if h > 0.0 {
                forces.set_force(body_access::to_avian(last.linear / h));
                forces.set_torque(body_access::to_scalar(last.angular / h));
            }
        }
        if let Some((cause, value, limit)) = state.rows.broken.take() {
            broken.write(JointBroken {
                joint: entity,
                cause,
                value,
                limit,
            });
            state.rows = Rows::default();
            state.exact = None;
            if joint.settings.remove_on_break {
                commands.entity(entity).despawn();
            } else {
                commands.entity(entity).insert(JointDisabled);
            }
        }
    }
}
