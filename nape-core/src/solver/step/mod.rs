//! The step: a [`Solver`] holds what the step keeps between and within steps (the compact
//! body arrays, the islands, the direct system and its scratch) and runs it on the bodies,
//! constraint stores and settings the [`Space`](crate::Space) lends it. Its phases:
//!
//! * this module: the step itself ([`Solver::step`]), its two groups of islands, and the
//!   rebuild of the islands when the topology changed;
//! * [`islands`]: the state kept per acyclic island, which islands RATTLE steps, the
//!   substeps each takes, and the weighting of resting islands' bodies;
//! * [`integration`]: the substep loop (kicks, preparation, drift with the speed limits,
//!   the limits' position rounds);
//! * [`exact`]: the exact path (RATTLE/SHAKE and the linearly implicit step's
//!   projections, their guard and Levenberg–Marquardt);
//! * [`swept`]: one velocity pass (the exact solve and the Gauss–Seidel sweeps);
//! * [`limits`]: the exact solve's active set of limit rows;
//! * [`retake`]: moving islands whose step's end needs more substeps than its start, taken
//!   again from the start with that many.

mod exact;
mod integration;
mod islands;
mod limits;
mod retake;
mod swept;

use glam::Vec2;

use crate::body::{Body, BodyKind, BodySlot};
use crate::types::{BreakEvent, ConstraintId, InverseMass, Pose, Velocity, WorldPose};

use super::direct::{Carry, DirectSystem, Islands, Link};
use super::meshes::Meshes;
use super::{Ahead, ErasedStore, Group, LOAD_UNKNOWN, SPRUNG, Softness, Substep};
pub(crate) use islands::IslandState;

/// The constraint stores a step runs on, one per constraint type (the space's).
pub(crate) type Stores = [Box<dyn ErasedStore>];

/// The most a loaded chain's transverse swing may turn in one substep of an exactly
/// solved island, for stability (rad), and a body's spin, for accuracy (the linearised
/// solve and the position projection's velocity-free correction grow with its square).
const STABLE_SWING: f32 = 1.5;
const STABLE_SPIN: f32 = 0.1;

/// The most two bodies of one constraint may turn against each other in one substep of a
/// moving exactly solved island (rad): velocity Verlet's energy error at a chain's whips
/// grows with the square of how fast its joints turn (a whole that turns rigidly costs it
/// nothing). Without it the chains of 3 to 10 links swing up to 1.2 % off their energy in
/// an hour; with it, up to 0.28 %, for 3 % more instructions on the swinging 200-link chain.
const STABLE_RELATIVE_SPIN: f32 = 0.07;

/// The most a spring's own oscillation may turn (`ω·h`, rad) in one substep of an island
/// RATTLE steps: velocity Verlet keeps an undamped spring's energy within `(ω·h)²/4` of its
/// own and its frequency within `(ω·h)²/24`, 0.5% and 0.08% here. Stiffer springs take
/// more substeps, up to `exact_substeps`.
const SPRING_TURN: f32 = 0.14;

/// The fewest substeps a moving island RATTLE steps takes when adapting (see
/// `Solver::run_substeps`): velocity Verlet's period error is `(ω·h)²/24` and its energy
/// oscillates by about `(ω·h)²/8`, so at 60 Hz a 1 m rod pendulum's period is 0.017% short
/// at one substep and 0.004% at two, and its energy swings by 0.14% and 0.034%; and an
/// island's energy level moves a little each time its substep count changes, which two
/// substeps make rare.
pub(crate) const MIN_RATTLE_SUBSTEPS: u32 = 2;

/// The speeds (m/s, rad/s) under which every body of an acyclic island must be for it to
/// count as resting (Box2D's sleep tolerances): one substep, its swing held by heavier
/// masses (see `Solver::weigh_exact_bodies`).
const REST_SPEED: f32 = 0.05;
const REST_SPIN: f32 = 0.035;

/// The accelerations (m/s², rad/s²) under which every body of an acyclic island must also
/// be for it to rest: those that take a body from rest to [`REST_SPEED`] and
/// [`REST_SPIN`] in a tenth of a second. A pendulum or a linkage at a turning point moves
/// slower than the rest speeds but is pulled hard (a 1 m rod stopped 0.1 rad out, at 1.5
/// rad/s²), and the resting path (one substep, weighted masses) would change its energy
/// there; a soft chain (30 Hz) settling under its load still creeps at a third of this.
const REST_ACCELERATION: f32 = REST_SPEED / 0.1;
const REST_ANGULAR_ACCELERATION: f32 = REST_SPIN / 0.1;

/// The most a resting island's transverse swing may turn in its one substep (rad), with a
/// margin under [`STABLE_SWING`]: a 4 t ball hanging on a chain of 5 kg links keeps below
/// 1e-5 m/s with it, and moves at 7e-5 m/s with 1.5.
const RESTING_SWING: f32 = 1.0;

/// The most times one step of a moving RATTLE island is taken again with more substeps,
/// because its end needs more than its start did (see `Solver::retake_islands`).
const MAX_RETAKES: usize = 2;

/// `body_island` of a body outside every acyclic island.
const NONE: u32 = u32::MAX;

/// How much worse (relative, and absolute in m² or rad²) an island's summed squared error
/// may get through the substep's position corrections before they are undone: rounding
/// only.
const REVERT_MARGIN: f32 = 1e-3;
const REVERT_FLOOR: f32 = 1e-6;

/// Levenberg–Marquardt on an island whose error the projection made worse: at most this
/// many iterations, the first damped by this much (relative to each constraint's `K`),
/// giving up above the largest damping, done at a summed squared error below the
/// tolerance (m² or rad²).
const LM_ITERATIONS: usize = 8;
const LM_INITIAL_DAMPING: f32 = 0.01;
const LM_MAX_DAMPING: f32 = 100.0;
const LM_TOLERANCE: f32 = 1e-10;

/// The most times one substep's exact solve is repeated for its active set (limit rows
/// that pull leave it, rows driven across their bounds join it; force limits likewise).
const ACTIVE_SET_ROUNDS: usize = 4;

/// An island whose summed squared error (m² or rad²) is at most this is not projected
/// (a substep's first projection, the last substep's second).
const SETTLED: f32 = 1e-10;

/// The summed squared error (m² or rad²) above which a moving island's relinearised last
/// projection is followed by a second one with the same factor: below it, what a
/// Gauss–Newton step leaves is not worth the pass. The swinging 200-link chain's run max
/// is 1.5 mm without any second projection and 0.4 mm with this one (1e-8 and 1e-10 give
/// 0.4 mm too, for 2% and 8% more instructions); a chain created at twice its length
/// closes within 1 mm in 5 steps, 11 without.
const RELINEARIZED_SETTLED: f32 = 1e-6;

/// The summed squared error (m² or rad²) below which a moving island's last projection
/// moved its bodies so little that its factor, relinearised before it, may start the next
/// step's first exact solve (`solver::direct::Carry`): what that leaves is of the order
/// of the projection's turn times what the solve removes, and the step's projection and
/// final solve are relinearised anew. The swinging 200-link chain's run max error is
/// 3.0e-4 m carrying below 1e-6 (4.4e-4 m factorising every step; 1.3e-3 below 1e-5, 2.5e-3
/// always carried, whose worse start solves also cost more projections).
const CARRY_SETTLED: f32 = 1e-6;

/// A moving island's SHAKE position solve stops once its summed squared error (m² or
/// rad²) is at most [`SHAKE_SETTLED`] or at most its rounding floor
/// (`IslandState::island_floor`), or once a correction no longer halves it: a row's error
/// is computed in `f32` from positions in its constraint's frame `|x|` (relative to its
/// first body for a translation-invariant one), so it is only known to about `ε·|x|`, an
/// island's summed squared error cannot settle much below
/// `SHAKE_FLOOR_SHARE·ε²·Σ n_c Σ_s|x_s|²` over its constraints, and a correction there
/// moves nothing but the rounding. What SHAKE leaves, the next substep's corrects by an
/// impulse, which adds kinetic energy with the square of what it corrects, the more the
/// more substeps: a 2-link chain at a fixed 16 substeps gained 0.54 % of its swing's
/// energy in an hour with SHAKE stopping at 1e-13 and a floor share of 1/3, and stays
/// within 0.01 % at 1e-17 and 0.1; the 20-link chain at the defaults, 6.7 % and 2.6 %.
const SHAKE_SETTLED: f32 = 1e-17;
const SHAKE_FLOOR_SHARE: f32 = 0.1;

/// The substep below which SHAKE's rounding floor shrinks in proportion to the substep.
/// What SHAKE leaves, `r`, the next substep's impulse corrects with the velocity `r/h`, so
/// the energy that adds grows as `1/h²` for the same `r`: a floor that does not shrink
/// with `h` lets the substeps a whip takes pump energy in. At a fixed 56 substeps the
/// 200-link chain gains 79 J of its 50,000 in 20,000 steps with the floor at its full
/// share, and loses 2.8 J with the floor in proportion to `h`, 0.1 to 2 J at fixed shares
/// of 0.3 of it and below (`solver_scenes -- soak --steps 20000 --exact-substeps 56
/// --no-adapt`). The further SHAKE rounds cost: there, 17 % more instructions than the
/// full share with the floor in proportion to `h`, 31 % with it in proportion to `h²`.
/// Where substeps are this long or longer, the full share saves the swinging chain a fifth
/// of its instructions.
const FLOOR_SUBSTEP: f32 = 1.0 / 960.0;

/// A moving island RATTLE steps whose summed squared error (m² or rad²) is above this
/// after its last substep's position solve takes one Gauss–Newton projection more.
const FINISHED: f32 = 1e-6;

/// An island whose summed squared error (m² or rad²) at a substep's start is above this
/// is apart (created so, moved by hand, or what a guarded projection could not close): its
/// position solve keeps that error, for projections that move no velocity to take away,
/// rather than turn it into speed. Below, the error is what the last substep's position
/// solve left, and the next one takes it with the rest.
const APART: f32 = 1e-4;

/// Rounds of iterative refinement of an island's closing velocity solve in its first
/// step (see `Solver::finish_moving_step`), for the error the `f32` effective masses leave.
const REFINEMENTS: usize = 1;

/// The most corrections of a moving island's SHAKE position solve per substep.
const SHAKE_ITERATIONS: usize = 8;

/// Rounds of limit correction and projection per substep; each runs only while a limit is
/// still violated.
const LIMIT_ROUNDS: usize = 8;

/// The stiffest swept stiff rows get, in hertz per substep rate (at 5 substeps and 60 Hz,
/// 90 Hz): 0.3 holds every joint grid from 2 × 2 to 100 × 100 for 2 s at 4, 5, 6 and 8
/// substeps (`NAPE_LONG=1 NAPE_GRID_SUBSTEPS=4,5,6,8 cargo test --release --test scenes
/// joint_grids`); set to 0.35, the 100 × 100 grid comes apart by 100 m and more at 4 and
/// 5 substeps (`cargo run --release --example solver_scenes -- grid --substeps 4`). Box2D
/// v3 caps its contacts at 0.25; the grid's error is set by the springs' frequency alone
/// (at 90 Hz, 0.28 m run max whether 5 substeps of 0.3 or 6 of 0.25).
const SWEPT_HERTZ_PER_RATE: f32 = 0.3;

/// A swept step shorter than this (s) keeps the stiffness of one this long: the soft step's
/// bias pushes at `ω/(2ζ)·C` whatever the step, so a stiffness that grew with `1/dt` sent a
/// chain stepped once by 1 µs between steps of 1/60 s to 1,000 m/s.
const MIN_SWEPT_STEP: f32 = 1.0 / 240.0;

/// A space's default `joint_damping_ratio`: the stiff rows of its swept islands are
/// springs this far over-damped.
pub(crate) const DEFAULT_JOINT_DAMPING_RATIO: f32 = 2.0;

/// The spring the sweeps make of a stiff row over a substep of `h`, one of `substeps`:
/// `joint_hertz`, at most [`SWEPT_HERTZ_PER_RATE`] times the substep rate (that of a
/// substep of [`MIN_SWEPT_STEP`] over the step at most), damped by `damping_ratio`.
pub(crate) fn swept_joint_softness(
    joint_hertz: f32,
    damping_ratio: f32,
    h: f32,
    substeps: u32,
) -> Softness {
    Softness::spring(
        joint_hertz.min(SWEPT_HERTZ_PER_RATE / h.max(MIN_SWEPT_STEP / substeps as f32)),
        damping_ratio,
        h,
    )
}

/// The largest rotation of a dynamic body in one substep (Box2D's `b2_maxRotation`): the
/// solver's linearisation means nothing beyond it.
const MAX_ROTATION: f32 = 0.25 * std::f32::consts::PI;
// `Pose::integrate` turns a body by its series up to this, with no `sin_cos`.
const _: () = assert!(MAX_ROTATION <= <Pose>::SERIES_TURN);

/// Contains a velocity that the solve made non-finite (zero: the body stops rather than
/// poisoning its neighbours) or larger than the limits (scaled down).
#[inline]
fn limit_speed(v: &mut Velocity, max_linear: f32, max_angular: f32) {
    if !(v.linear.is_finite() && v.angular.is_finite()) {
        *v = Velocity::default();
        return;
    }
    let speed_squared = v.linear.length_squared();
    if speed_squared > max_linear * max_linear {
        v.linear *= max_linear / speed_squared.sqrt();
    }
    v.angular = v.angular.clamp(-max_angular, max_angular);
}

/// Whether a body of acyclic island `island` (`NONE`: of none) is moved by the substeps
/// of the exact group (`exact`, islands `run` flags) or of the swept one.
fn in_group(exact: bool, run: &[bool], island: u32) -> bool {
    if exact {
        island != NONE && run[island as usize]
    } else {
        island == NONE
    }
}

/// How a body moves during a step.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Motion {
    /// Static, or an empty slot.
    Fixed,
    /// Kinematic: with its own velocity.
    Driven,
    /// Dynamic, with the step's acceleration from gravity, forces and torques.
    Free { linear: Vec2, angular: f32 },
}

/// The settings of the space a step reads (the public fields of [`Space`](crate::Space) of
/// the same names).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StepSettings {
    pub(crate) gravity: Vec2,
    pub(crate) substeps: u32,
    pub(crate) exact_substeps: u32,
    pub(crate) adaptive_substeps: bool,
    pub(crate) velocity_iterations: u32,
    pub(crate) relax_iterations: u32,
    pub(crate) direct_solve: bool,
    pub(crate) joint_hertz: f32,
    pub(crate) joint_damping_ratio: f32,
    pub(crate) max_linear_speed: f32,
}

/// What the step keeps besides the space's bodies and stores: the compact body arrays the
/// substeps index (so their body loops never touch the `Body` structs), the islands, the
/// direct system and the scratch arrays. Derived from the bodies and constraints, never
/// snapshotted.
#[derive(Debug)]
pub(crate) struct Solver {
    /// The settings of the step under way.
    settings: StepSettings,
    pub(crate) direct: DirectSystem,
    /// Set by every change of bodies or constraints that may change the islands.
    topology_changed: bool,
    /// `direct_solve` as of the last rebuild.
    direct_built: bool,
    /// Store indices in the order the solver visits them (by type name).
    store_order: Vec<usize>,
    links: Vec<Link>,
    poses: Vec<WorldPose>,
    velocities: Vec<Velocity>,
    /// Warm starts of the coming swept substep, applied by the sweep before it (see
    /// `solver::Ahead`) and added to `velocities` once that substep has integrated its
    /// forces; zero between substeps.
    pub(crate) deferred_warm_starts: Vec<Velocity>,
    /// Whether a swept substep's last sweep prepares the next one (always, but for the
    /// test that holds it to the separate preparation).
    pub(crate) prepare_ahead: bool,
    /// Whether a moving exact island's first solve may start from the factor its last step
    /// ended with (`solver::direct::Carry`; always, but for the test that compares it with
    /// one factorised anew).
    pub(crate) carry_factors: bool,
    /// How each body moves during the step.
    motion: Vec<Motion>,
    inverse_masses: Vec<InverseMass>,
    /// The acyclic islands' per-step state and the step's scratch arrays.
    pub(crate) islands: IslandState,
}

impl Default for Solver {
    fn default() -> Self {
        Self::with_bodies(0)
    }
}

impl Solver {
    /// A solver for `bodies` body slots, to rebuild its islands at its first step.
    pub(crate) fn with_bodies(bodies: usize) -> Self {
        Self {
            settings: StepSettings::default(),
            direct: DirectSystem::default(),
            topology_changed: true,
            direct_built: false,
            store_order: Vec::new(),
            links: Vec::new(),
            poses: vec![WorldPose::default(); bodies],
            velocities: vec![Velocity::default(); bodies],
            deferred_warm_starts: vec![Velocity::default(); bodies],
            prepare_ahead: true,
            carry_factors: true,
            motion: vec![Motion::Fixed; bodies],
            inverse_masses: vec![InverseMass::default(); bodies],
            islands: IslandState::default(),
        }
    }

    /// Marks the islands for a rebuild at the next step (bodies or constraints changed).
    pub(crate) fn topology_changed(&mut self) {
        self.topology_changed = true;
    }

    /// Makes room for one more body slot.
    pub(crate) fn add_body_slot(&mut self) {
        self.poses.push(WorldPose::default());
        self.velocities.push(Velocity::default());
        self.motion.push(Motion::Fixed);
        self.inverse_masses.push(InverseMass::default());
    }

    /// Clears the compact state of a removed body's slot.
    pub(crate) fn clear_body_slot(&mut self, i: usize) {
        self.poses[i] = WorldPose::default();
        self.velocities[i] = Velocity::default();
        self.inverse_masses[i] = InverseMass::default();
    }

    /// The substeps each acyclic island took in the last step.
    pub(crate) fn exact_substeps_taken(&self) -> &[u32] {
        &self.islands.island_substeps
    }

    /// One step of `dt` of the bodies and constraints the space lends it, with its
    /// settings: the islands rebuilt if the topology changed, the compact arrays filled
    /// from the bodies, the swept group's substeps then the exact group's, and the bodies
    /// written back; what broke or went non-finite is reported in `broken` and `faulty`.
    pub(crate) fn step(
        &mut self,
        settings: StepSettings,
        bodies: &mut [BodySlot],
        stores: &mut Stores,
        broken: &mut Vec<BreakEvent>,
        faulty: &mut Vec<ConstraintId>,
        dt: f32,
    ) {
        self.settings = settings;
        self.direct.forget_velocity_rounding();
        broken.clear();
        faulty.clear();
        if self.topology_changed || self.direct_built != self.settings.direct_solve {
            self.rebuild_topology(bodies, stores);
        }

        // The compact arrays; the acceleration of each body over the step.
        self.islands.body_held.resize(bodies.len(), 0);
        let mut driven = false;
        let mut swept_bodies = false;
        // Zipped, the arrays are indexed without a bounds check each (they grow together).
        for (i, (((slot, pose), velocity), (inverse_mass, motion))) in bodies
            .iter()
            .zip(&mut self.poses)
            .zip(&mut self.velocities)
            .zip(self.inverse_masses.iter_mut().zip(&mut self.motion))
            .enumerate()
        {
            let Some(body) = &slot.body else {
                *motion = Motion::Fixed;
                continue;
            };
            let inverse = body.inverse_mass();
            *pose = body.pose();
            *velocity = match body.kind() {
                BodyKind::Static => Velocity::default(),
                _ => body.velocity_state(),
            };
            *inverse_mass = inverse;
            self.islands.body_held[i] = body.substeps_held;
            *motion = match body.kind() {
                BodyKind::Static => Motion::Fixed,
                BodyKind::Kinematic => Motion::Driven,
                BodyKind::Dynamic => Motion::Free {
                    linear: self.settings.gravity + body.force() * inverse.mass,
                    angular: body.torque() * inverse.inertia,
                },
            };
            driven |= body.kind() == BodyKind::Kinematic;
            swept_bodies |= body.kind() != BodyKind::Static && self.islands.body_island[i] == NONE;
        }
        if !self.direct.is_empty() {
            // Before the step's totals are cleared: the choice reads the last step's.
            self.mark_plain_islands(stores);
            self.choose_exact_substeps(stores, dt);
        }
        // The two groups of islands share no dynamic body, so each runs its own substeps;
        // a kinematic body they may share moves in both, from the same start, and ends
        // where the first group left it. The swept group runs first, and its first
        // preparation clears the last step's totals of every constraint.
        let exact = !self.direct.is_empty();
        let swept = swept_bodies || !exact;
        for &s in &self.store_order {
            stores[s].begin_step(!swept);
        }
        // Grows with the bodies, and only then allocates.
        self.deferred_warm_starts
            .resize(self.velocities.len(), Velocity::default());
        let both = exact && swept_bodies && driven;
        if both {
            self.islands.group_start.clone_from(&self.poses);
        }
        if swept {
            self.run_group(stores, Group::Swept, dt);
        }
        if both {
            for (i, motion) in self.motion.iter().enumerate() {
                if *motion == Motion::Driven {
                    std::mem::swap(&mut self.poses[i], &mut self.islands.group_start[i]);
                }
            }
        }
        if exact {
            self.run_group(stores, Group::Exact, dt);
        }
        if both {
            for (i, motion) in self.motion.iter().enumerate() {
                if *motion == Motion::Driven {
                    self.poses[i] = self.islands.group_start[i];
                }
            }
        }

        // Write back, clear forces, retire broken constraints.
        for (((slot, v), &p), &island) in bodies
            .iter_mut()
            .zip(&mut self.velocities)
            .zip(&self.poses)
            .zip(&self.islands.body_island)
        {
            let Some(body) = &mut slot.body else { continue };
            body.substeps_held = self
                .islands
                .substeps_to_hold(island, self.settings.adaptive_substeps);
            if body.kind() != BodyKind::Static {
                if !(v.linear.is_finite() && v.angular.is_finite()) {
                    *v = Velocity::default();
                }
                // Comparisons, each false for NaN (`max_element` would skip a NaN
                // coordinate, and costs more).
                let within = |x: f64| x.abs() <= f64::from(crate::limits::MAX_COORDINATE);
                let wound = p.turns.unsigned_abs() <= crate::limits::MAX_TURNS.unsigned_abs();
                let inside = within(p.position.x) && within(p.position.y) && wound;
                if inside && p.cos.is_finite() && p.sin.is_finite() {
                    body.set_state(p, *v);
                } else {
                    // A position correction gone non-finite or out of range (an infinite
                    // inverse times a zero inverse mass, a projection that flung the body):
                    // the body stays where it was, at rest.
                    body.set_state(body.pose(), Velocity::default());
                }
            }
            body.clear_forces();
        }
        for &s in &self.store_order {
            stores[s].process_broken(broken);
        }
        for &s in &self.store_order {
            stores[s].contain_faults(&self.poses, faulty);
        }
        if !broken.is_empty() {
            self.topology_changed = true;
        }
    }

    /// The substeps of one group of islands: bodies outside it keep still (kinematic
    /// bodies move in both), constraints outside it are skipped.
    fn run_group(&mut self, stores: &mut Stores, group: Group, dt: f32) {
        if group == Group::Swept {
            self.run_substeps(
                stores,
                group,
                self.settings.substeps.max(1),
                dt,
                false,
                false,
            );
            return;
        }
        // Acyclic islands with the same substep count run together, the counts one after
        // the other (they share no dynamic body), and of those the moving ones apart from
        // the resting ones (their last substeps differ: see `run_substeps`).
        let most = self.settings.exact_substeps.max(1);
        self.weigh_exact_bodies();
        self.keep_exact_start(stores);
        for round in 0..=MAX_RETAKES {
            // The counts the islands still to run take, largest first: one pass over the
            // islands per count present, not per count allowed (up to 64).
            let mut above = most + 1;
            while let Some(n) = self
                .islands
                .island_substeps
                .iter()
                .zip(&self.islands.island_todo)
                .filter_map(|(&count, &todo)| todo.then_some(count.clamp(1, most)))
                .filter(|&count| count < above)
                .max()
            {
                above = n;
                for (moving, plain) in [(true, true), (true, false), (false, true), (false, false)]
                {
                    let mut any = false;
                    for ((((run, &count), &restless), &is_plain), &todo) in self
                        .islands
                        .island_run
                        .iter_mut()
                        .zip(&self.islands.island_substeps)
                        .zip(&self.islands.island_restless)
                        .zip(&self.islands.island_plain)
                        .zip(&self.islands.island_todo)
                    {
                        *run = todo
                            && count.clamp(1, most) == n
                            && restless == moving
                            && is_plain == plain;
                        any |= *run;
                    }
                    if any {
                        self.direct.set_active(&self.islands.island_run);
                        self.restart_driven_bodies();
                        self.run_substeps(stores, group, n, dt, moving, plain);
                    }
                }
            }
            if round == MAX_RETAKES || !self.retake_islands(stores, dt) {
                break;
            }
        }
        self.unweigh_exact_bodies();
        self.islands.island_run.fill(true);
        self.direct.set_active(&self.islands.island_run);
    }

    /// Recomputes the islands and which of them are solved exactly, and the order of the
    /// stores. Runs at the first step after bodies or constraints changed.
    fn rebuild_topology(&mut self, bodies: &[BodySlot], stores: &mut Stores) {
        self.store_order = stores_by_name(stores);
        self.links.clear();
        if self.settings.direct_solve {
            for &s in &self.store_order {
                stores[s].links(&mut self.links);
            }
        }
        let dynamic: Vec<bool> = bodies
            .iter()
            .map(|slot| slot.body.as_ref().is_some_and(Body::is_dynamic))
            .collect();
        let assignment = self.direct.rebuild(&self.links, &dynamic);
        let mut it = assignment.iter();
        for &s in &self.store_order {
            if self.settings.direct_solve {
                stores[s].assign(&mut it);
            } else {
                stores[s].assign(&mut [].iter());
            }
        }
        let mut meshes = Meshes::new(bodies.len());
        for &s in &self.store_order {
            stores[s].join_meshes(&mut meshes, &dynamic);
        }
        let limited = meshes.limited_bodies();
        for &s in &self.store_order {
            stores[s].order_sweeps(&dynamic, &limited);
        }
        // What the constraints carried into this step survives the rebuild: the islands
        // whose every constraint did rebuild their factors from it (`direct::Carry`).
        for &s in &self.store_order {
            stores[s].claim_carries(&mut self.direct);
        }
        self.direct.settle_claims();
        self.direct
            .body_islands(bodies.len(), &mut self.islands.body_island);
        let islands = self.direct.island_count();
        self.islands.island_worse.clear();
        self.islands.island_worse.resize(islands, false);
        self.islands.lm_damping.clear();
        self.islands.lm_damping.resize(islands, 0.0);
        self.islands.lm_error.clear();
        self.islands.lm_error.resize(islands, 0.0);
        self.islands.island_run.clear();
        self.islands.island_run.resize(islands, true);
        // So that the first step an island rests in allocates nothing.
        self.islands.exact_masses.reserve(bodies.len());
        // Copies of the poses taken only by a guard's Levenberg–Marquardt restart and by a
        // step with a kinematic body in both groups, which may first happen long after
        // the rebuild.
        for poses in [&mut self.islands.lm_poses, &mut self.islands.group_start] {
            poses.reserve(bodies.len().saturating_sub(poses.len()));
        }
        self.islands.island_substeps.clear();
        self.islands
            .island_substeps
            .resize(islands, self.settings.exact_substeps);
        self.topology_changed = false;
        self.direct_built = self.settings.direct_solve;
    }
}

/// The store indices in the order of their constraint types' names: the order the
/// solver visits them in, so that no result depends on which type was added first.
pub(crate) fn stores_by_name(stores: &Stores) -> Vec<usize> {
    let mut order: Vec<usize> = (0..stores.len()).collect();
    order.sort_by_key(|&s| stores[s].name());
    order
}
