//! The [`Space`]: bodies, constraints and the step.

use std::any::TypeId;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};

use glam::Vec2;

use crate::body::{Body, BodyHandle, BodyKind, BodyMut};
use crate::constraint::{Constraint, InverseMass, Pose, SharedSlots, Velocity};
use crate::error::Error;
use crate::settings::ConstraintSettings;
use crate::solver::direct::{DirectSystem, Islands, Link};
use crate::solver::{Ahead, ErasedStore, Group, LOAD_UNKNOWN, SPRUNG, Softness, Store, Substep};
use crate::types::DrawPrimitive;
pub use crate::types::{BodyImpulse, BreakCause, BreakEvent, ConstraintId};

/// The most a loaded chain's transverse swing may turn in one substep of an exactly
/// solved island, for stability (rad), and a body's spin, for accuracy (the linearised
/// solve and the position projection's velocity-free correction grow with its square).
const STABLE_SWING: f32 = 1.5;
const STABLE_SPIN: f32 = 0.1;

/// The most a spring's own oscillation may turn (`ω·h`, rad) in one substep of an island
/// RATTLE steps: velocity Verlet keeps an undamped spring's energy within `(ω·h)²/4` of its
/// own and its frequency within `(ω·h)²/24`, 0.5% and 0.08% here. Stiffer springs take
/// more substeps, up to `exact_substeps`.
const SPRING_TURN: f32 = 0.14;

/// The fewest substeps a moving island RATTLE steps takes when adapting (see
/// `Space::run_substeps`): velocity Verlet's period error is `(ω·h)²/24` and its energy
/// oscillates by about `(ω·h)²/8`, so at 60 Hz a 1 m rod pendulum's period is 0.017% short
/// at one substep and 0.004% at two, and its energy swings by 0.14% and 0.034%; and an
/// island's energy level moves a little each time its substep count changes, which two
/// substeps make rare.
const MIN_RATTLE_SUBSTEPS: u32 = 2;

/// The speeds (m/s, rad/s) under which every body of an acyclic island must be for it to
/// count as resting (Box2D's sleep tolerances): one substep, its swing held by heavier
/// masses (see `Space::weigh_exact_bodies`).
const REST_SPEED: f32 = 0.05;
const REST_SPIN: f32 = 0.035;

/// The most a resting island's transverse swing may turn in its one substep (rad), with a
/// margin under [`STABLE_SWING`]: a 4 t ball hanging on a chain of 5 kg links keeps below
/// 1e-5 m/s with it, and moves at 7e-5 m/s with 1.5.
const RESTING_SWING: f32 = 1.0;

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
/// rad²) is at most this.
const SHAKE_SETTLED: f32 = 1e-10;

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
/// step (see `Space::finish_moving_step`), for the error the `f32` effective masses leave.
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

/// The largest rotation of a dynamic body in one substep (Box2D's `b2_maxRotation`): the
/// solver's linearisation means nothing beyond it.
const MAX_ROTATION: f32 = 0.25 * std::f32::consts::PI;
// `Pose::integrate` turns a body by its series up to this, with no `sin_cos`.
const _: () = assert!(MAX_ROTATION <= Pose::SERIES_TURN);

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

/// Source of the space ids that make handles of one space invalid in another.
static NEXT_SPACE_ID: AtomicU32 = AtomicU32::new(1);

/// A typed handle of a constraint of type `T` in one [`Space`]: generational (a handle of
/// a removed constraint is rejected with [`Error::StaleConstraint`]) and tied to its space
/// ([`Error::ForeignConstraint`] elsewhere).
pub struct ConstraintHandle<T> {
    space: u32,
    store: u32,
    index: u32,
    generation: u32,
    marker: PhantomData<fn() -> T>,
}

impl<T> ConstraintHandle<T> {
    /// The untyped id of the same constraint.
    #[must_use]
    pub fn id(self) -> ConstraintId {
        ConstraintId {
            space: self.space,
            store: self.store,
            index: self.index,
            generation: self.generation,
        }
    }
}

impl<T> Clone for ConstraintHandle<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ConstraintHandle<T> {}

impl<T> PartialEq for ConstraintHandle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}

impl<T> Eq for ConstraintHandle<T> {}

impl<T> Hash for ConstraintHandle<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id().hash(state);
    }
}

impl<T> std::fmt::Debug for ConstraintHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConstraintHandle")
            .field("type", &std::any::type_name::<T>())
            .field("index", &self.index)
            .field("generation", &self.generation)
            .finish()
    }
}

impl<T> From<ConstraintHandle<T>> for ConstraintId {
    fn from(h: ConstraintHandle<T>) -> Self {
        h.id()
    }
}

struct BodySlot {
    generation: u32,
    body: Option<Body>,
}

/// One constraint of a space, as listed by [`Space::constraints`].
#[derive(Clone, Debug, PartialEq)]
pub struct ConstraintInfo {
    /// Its id (recover the typed handle with [`Space::typed_handle`]).
    pub id: ConstraintId,
    /// Its type's [`Constraint::NAME`].
    pub type_name: &'static str,
    /// Its distinct bodies, in slot order.
    pub bodies: Vec<BodyHandle>,
}

/// A deep copy of a [`Space`], taken by [`Space::snapshot`] and put back by
/// [`Space::restore`] or [`Space::from_snapshot`]. Cheap to clone (as cheap as the space).
/// Written as bytes with [`Snapshot::to_bytes`] and read back with
/// [`Snapshot::from_bytes`] (see [`crate::snapshot`]).
pub struct Snapshot {
    pub(crate) id: u32,
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
    pub(crate) bodies: Vec<(u32, Option<Body>)>,
    pub(crate) free_bodies: Vec<u32>,
    pub(crate) body_count: usize,
    pub(crate) stores: Vec<Box<dyn ErasedStore>>,
    pub(crate) store_of: HashMap<TypeId, u32>,
    pub(crate) broken: Vec<BreakEvent>,
    pub(crate) faulty: Vec<ConstraintId>,
}

impl Clone for Snapshot {
    fn clone(&self) -> Self {
        Self {
            bodies: self.bodies.clone(),
            free_bodies: self.free_bodies.clone(),
            stores: self.stores.iter().map(|s| s.clone_box()).collect(),
            store_of: self.store_of.clone(),
            broken: self.broken.clone(),
            faulty: self.faulty.clone(),
            ..*self
        }
    }
}

impl Snapshot {
    /// Gives the snapshot the identity of `space`, so that after
    /// [`space.restore(&snapshot)`](Space::restore) the handles `space` gave out stay
    /// valid: for a snapshot taken on another machine (read back with
    /// [`from_bytes`](Self::from_bytes)) or of another space. A handle names a body or
    /// constraint by its slot and generation; they name the same ones in both spaces when
    /// both were built by the same calls in the same order (as peers of a networked game
    /// build their scene). Nothing that decides the simulation changes:
    /// [`Space::state_hash`] is the same before and after.
    pub fn adopt_identity_of(&mut self, space: &Space) {
        self.id = space.id;
        for store in &mut self.stores {
            store.set_space(space.id);
        }
        for event in &mut self.broken {
            event.constraint.space = space.id;
        }
        for id in &mut self.faulty {
            id.space = space.id;
        }
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("bodies", &self.body_count)
            .field(
                "constraints",
                &self.stores.iter().map(|s| s.len()).sum::<usize>(),
            )
            .finish_non_exhaustive()
    }
}

/// A physics world: bodies, constraints between them, and [`step`](Space::step).
///
/// Bodies and constraints are addressed by generational handles. The solver keeps one
/// store per constraint type (see [`solver`](crate::solver)'s layout notes) and compact
/// arrays of body poses, velocities and inverse masses indexed by [`BodyHandle::index`].
pub struct Space {
    id: u32,
    /// Acceleration applied to every dynamic body. Default `Vec2::ZERO` (as in Nape).
    pub gravity: Vec2,
    /// Substeps per step of the islands solved by Gauss–Seidel sweeps — those with loops
    /// (meshes), bodies without constraints, and every island when `direct_solve` is off —
    /// in the soft step of Box2D v3: each integrates, solves, moves the bodies and relaxes.
    /// More substeps resolve fast rotations and meshes better (a mesh's joints are as
    /// stiff as 0.3 of the substep rate allows). Default 5: Box2D's 100 × 100 joint grid
    /// then hangs within 0.28 m (0.04 m at the end of 5 s). 0 is treated as 1.
    pub substeps: u32,
    /// Substeps per step of the islands solved exactly (acyclic: chains, trees, ragdolls,
    /// bridges; see `direct_solve`), the most each takes with `adaptive_substeps`. An
    /// exact solve needs no iterations, but RATTLE's periods and energy need the motion
    /// resolved: default 16 (a 200-link chain whipping through takes up to 16 for a few
    /// steps, 2 or 3 otherwise). 0 is treated as 1.
    pub exact_substeps: u32,
    /// Whether each acyclic island takes only as many of its `exact_substeps` as it needs:
    /// enough that no body spins by more than 0.1 rad per substep, nor swings by more
    /// than 1.5 rad in the transverse mode its joints' last forces stiffen (a loaded
    /// chain or rope), and at least 2 for an island stepped by RATTLE (velocity Verlet's
    /// period error is `(ω·h)²/24`). An island at rest (every body slower than Box2D's
    /// sleep tolerances, 0.05 m/s and 0.035 rad/s) takes one, its loaded bodies solved
    /// with more mass where the swing needs it (unless such a body has a soft joint,
    /// whose spring is relative to the masses), which can only take energy out of what
    /// moves in it. Default `true`: a 200-link chain hanging at rest takes 1, released
    /// horizontally 2 or 3 (up to 16 for a few steps of the whip).
    pub adaptive_substeps: bool,
    /// Gauss–Seidel sweeps per substep with the positional bias, for the constraints of
    /// islands with loops (meshes). Default 1.
    pub velocity_iterations: u32,
    /// Gauss–Seidel sweeps per substep without bias (the relax pass). Default 1.
    pub relax_iterations: u32,
    /// Whether acyclic islands (chains, trees, ragdolls, bridges) are solved exactly by a
    /// sparse factorisation each substep (see [`solver`](crate::solver)). Default `true`;
    /// `false` solves every island by Gauss–Seidel sweeps alone.
    pub direct_solve: bool,
    /// Stiffness (Hz) given to the stiff rows of islands with loops, which Gauss–Seidel
    /// sweeps cannot make rigid without diverging; always capped at 0.3 of the substep
    /// rate (90 Hz at 60 Hz and 5 substeps), the stiffest they stay stable at.
    /// Default `f32::INFINITY`: as stiff as the substeps allow.
    pub joint_hertz: f32,
    /// Damping ratio of that stiffness. Default 2 (well over-damped).
    pub joint_damping_ratio: f32,
    /// The fastest a dynamic body may move, in m/s (as Box2D v3's `maximumLinearSpeed`);
    /// its rotation is limited to a quarter turn per substep. A solve that would exceed
    /// either is scaled down, so a badly posed scene slows instead of exploding. Default
    /// 400.
    pub max_linear_speed: f32,
    direct: DirectSystem,
    /// Set by every change of bodies or constraints that may change the islands.
    topology_changed: bool,
    /// `direct_solve` as of the last rebuild.
    direct_built: bool,
    /// Store indices in the order the solver visits them (by type name).
    store_order: Vec<usize>,
    links: Vec<Link>,
    bodies: Vec<BodySlot>,
    free_bodies: Vec<u32>,
    body_count: usize,
    poses: Vec<Pose>,
    velocities: Vec<Velocity>,
    /// Warm starts of the coming swept substep, applied by the sweep before it (see
    /// `solver::Ahead`) and added to `velocities` once that substep has integrated its
    /// forces; zero between substeps.
    deferred_warm_starts: Vec<Velocity>,
    /// Whether a swept substep's last sweep prepares the next one (always, but for the
    /// test that holds it to the separate preparation).
    prepare_ahead: bool,
    /// Whether a moving exact island's first solve may start from the factor its last step
    /// ended with (`solver::direct::Carry`; always, but for the test that compares it with
    /// one factorised anew).
    carry_factors: bool,
    /// How each body moves during the step (compact, so the substeps' body loops never
    /// touch the `Body` structs).
    motion: Vec<Motion>,
    inverse_masses: Vec<InverseMass>,
    stores: Vec<Box<dyn ErasedStore>>,
    store_of: HashMap<TypeId, u32>,
    broken: Vec<BreakEvent>,
    /// Constraints found non-finite at the end of the last step.
    faulty: Vec<ConstraintId>,
    /// The acyclic islands' per-step state and the step's scratch arrays.
    islands: IslandState,
}

/// What a step keeps per acyclic island and body besides the compact body arrays: derived
/// from the topology and the state, rebuilt or overwritten every step, never snapshotted.
#[derive(Debug, Default)]
struct IslandState {
    /// Each body's acyclic island (`NONE`: none).
    body_island: Vec<u32>,
    /// Each island's substeps this step, and whether it takes part in the current run of
    /// exact substeps.
    island_substeps: Vec<u32>,
    island_run: Vec<bool>,
    /// The geometric stiffness on each body and the square of each island's fastest mode
    /// in turns per allowed turn (see `choose_exact_substeps`).
    body_stiffness: Vec<[f32; 2]>,
    island_fastest: Vec<f32>,
    /// The square of each island's substep, once its count is chosen.
    island_step_squared: Vec<f32>,
    /// `LOAD_UNKNOWN` and `SPRUNG` per body (see `ErasedStore::geometric_stiffness`).
    body_flags: Vec<u8>,
    /// The largest `ω²` of the springs on each body (see `ErasedStore::spring_rates`) and
    /// in each island.
    body_spring: Vec<f32>,
    island_spring: Vec<f32>,
    /// Whether each island has a constraint whose load is not known yet.
    island_unloaded: Vec<bool>,
    /// Each island's error before the last correction of a SHAKE position solve.
    errors_last: Vec<f32>,
    /// Whether each island steps by RATTLE: no spring with bounds or without a frequency
    /// in it (see `Space::mark_plain_islands`).
    island_plain: Vec<bool>,
    /// Whether each island does not rest (see `choose_exact_substeps`; every island, with
    /// fixed substeps).
    island_restless: Vec<bool>,
    /// The mass multiple `α ≥ 1` of each body of a resting island for its one substep,
    /// whether any is above 1, and the inverse masses the exact group solves with
    /// meanwhile (the true ones while it does not run).
    body_weight: Vec<f32>,
    any_weighted: bool,
    exact_masses: Vec<InverseMass>,
    /// The position projection: the poses before it, each island's summed squared error
    /// before it and now, and which islands it made worse.
    projection_start: Vec<Pose>,
    /// The velocities before a finishing substep's velocity solve, taken with its first
    /// projection: if the guard relinearises, the solve starts again from them.
    velocity_start: Vec<Velocity>,
    errors_before: Vec<f32>,
    island_errors: Vec<f32>,
    island_worse: Vec<bool>,
    /// Levenberg–Marquardt per island: damping, error, and the poses before an iteration.
    lm_damping: Vec<f32>,
    lm_error: Vec<f32>,
    lm_poses: Vec<Pose>,
    /// The poses at the step's start, for the kinematic bodies of the second group.
    group_start: Vec<Pose>,
}

impl Default for Space {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Space {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Space")
            .field("gravity", &self.gravity)
            .field("substeps", &self.substeps)
            .field("exact_substeps", &self.exact_substeps)
            .field("adaptive_substeps", &self.adaptive_substeps)
            .field("velocity_iterations", &self.velocity_iterations)
            .field("relax_iterations", &self.relax_iterations)
            .field("direct_solve", &self.direct_solve)
            .field("bodies", &self.body_count)
            .field("constraints", &self.constraint_count())
            .finish_non_exhaustive()
    }
}

impl Space {
    /// An empty space: no gravity (as in Nape), exact solves of acyclic islands in 8
    /// substeps, 5 substeps with one biased and one relax sweep each for the others.
    #[must_use]
    pub fn new() -> Self {
        Self {
            id: NEXT_SPACE_ID.fetch_add(1, Ordering::Relaxed),
            gravity: Vec2::ZERO,
            substeps: 5,
            exact_substeps: 16,
            adaptive_substeps: true,
            velocity_iterations: 1,
            relax_iterations: 1,
            direct_solve: true,
            joint_hertz: f32::INFINITY,
            joint_damping_ratio: 2.0,
            max_linear_speed: 400.0,
            direct: DirectSystem::default(),
            topology_changed: true,
            direct_built: false,
            store_order: Vec::new(),
            links: Vec::new(),
            bodies: Vec::new(),
            free_bodies: Vec::new(),
            body_count: 0,
            poses: Vec::new(),
            velocities: Vec::new(),
            deferred_warm_starts: Vec::new(),
            prepare_ahead: true,
            carry_factors: true,
            motion: Vec::new(),
            inverse_masses: Vec::new(),
            stores: Vec::new(),
            store_of: HashMap::new(),
            broken: Vec::new(),
            faulty: Vec::new(),
            islands: IslandState::default(),
        }
    }

    // ----- bodies -------------------------------------------------------------------

    /// Adds a body.
    ///
    /// # Errors
    /// [`Error::InvalidBody`] if [`Body::validate`] fails (NaN anywhere, a dynamic body
    /// whose mass is not finite and positive, ...).
    pub fn add_body(&mut self, body: Body) -> Result<BodyHandle, Error> {
        self.topology_changed = true;
        body.validate()?;
        let index = match self.free_bodies.pop() {
            Some(i) => i,
            None => {
                self.bodies.push(BodySlot {
                    generation: 0,
                    body: None,
                });
                self.poses.push(Pose::default());
                self.velocities.push(Velocity::default());
                self.motion.push(Motion::Fixed);
                self.inverse_masses.push(InverseMass::default());
                (self.bodies.len() - 1) as u32
            }
        };
        let slot = &mut self.bodies[index as usize];
        slot.body = Some(body);
        self.body_count += 1;
        Ok(BodyHandle {
            space: self.id,
            index,
            generation: slot.generation,
        })
    }

    fn body_index(&self, h: BodyHandle) -> Result<usize, Error> {
        if h.space != self.id {
            return Err(Error::ForeignBody);
        }
        match self.bodies.get(h.index as usize) {
            Some(slot) if slot.generation == h.generation && slot.body.is_some() => {
                Ok(h.index as usize)
            }
            _ => Err(Error::StaleBody),
        }
    }

    /// Whether `h` names a live body of this space.
    #[must_use]
    pub fn contains_body(&self, h: BodyHandle) -> bool {
        self.body_index(h).is_ok()
    }

    /// The body `h` names.
    ///
    /// # Errors
    /// [`Error::StaleBody`] or [`Error::ForeignBody`].
    pub fn body(&self, h: BodyHandle) -> Result<&Body, Error> {
        let i = self.body_index(h)?;
        self.bodies[i].body.as_ref().ok_or(Error::StaleBody)
    }

    /// Checked write access to the body `h` names: every change through the returned
    /// [`BodyMut`] is validated (finite, inside the [`limits`](crate::limits)) and a
    /// refused change leaves the body as it was. Changes take effect at the next step.
    ///
    /// # Errors
    /// [`Error::StaleBody`] or [`Error::ForeignBody`].
    pub fn body_mut(&mut self, h: BodyHandle) -> Result<BodyMut<'_>, Error> {
        let i = self.body_index(h)?;
        // A change of mass may change which constraints are solved exactly.
        self.topology_changed = true;
        self.bodies[i]
            .body
            .as_mut()
            .map(BodyMut::new)
            .ok_or(Error::StaleBody)
    }

    /// Removes a body **and every constraint attached to it** (their handles become
    /// stale), so that no constraint ever points at a dead body. Returns the body.
    ///
    /// Nape left such constraints in the space, pointing at the removed body, and its
    /// manual asked users to remove them first; deactivating them would leave the same
    /// dangling reference (and, once the body's slot is reused, a constraint silently
    /// attached to a new body), so they are removed. To keep a joint, re-target it first
    /// with [`update_constraint`](Self::update_constraint); to see what will go, call
    /// [`constraints_of`](Self::constraints_of).
    ///
    /// # Errors
    /// [`Error::StaleBody`] or [`Error::ForeignBody`].
    pub fn remove_body(&mut self, h: BodyHandle) -> Result<Body, Error> {
        self.topology_changed = true;
        let i = self.body_index(h)?;
        let mut removed = Vec::new();
        for store in &mut self.stores {
            store.remove_attached(i, &mut removed);
        }
        let slot = &mut self.bodies[i];
        let body = slot.body.take().ok_or(Error::StaleBody)?;
        slot.generation = slot.generation.wrapping_add(1);
        self.free_bodies.push(i as u32);
        self.body_count -= 1;
        self.poses[i] = Pose::default();
        self.velocities[i] = Velocity::default();
        self.inverse_masses[i] = InverseMass::default();
        Ok(body)
    }

    /// Adds `force` at the body's centre of mass for the next step.
    ///
    /// # Errors
    /// [`Error::StaleBody`] or [`Error::ForeignBody`]; [`Error::InvalidBody`] for a value
    /// that is not finite or would take the body out of the [`limits`](crate::limits) (the
    /// body is unchanged then).
    pub fn apply_force(&mut self, h: BodyHandle, force: Vec2) -> Result<(), Error> {
        self.body_mut(h)?.apply_force(force)
    }

    /// Adds `torque` to the body for the next step.
    ///
    /// # Errors
    /// [`Error::StaleBody`] or [`Error::ForeignBody`]; [`Error::InvalidBody`] for a value
    /// that is not finite or would take the body out of the [`limits`](crate::limits) (the
    /// body is unchanged then).
    pub fn apply_torque(&mut self, h: BodyHandle, torque: f32) -> Result<(), Error> {
        self.body_mut(h)?.apply_torque(torque)
    }

    /// Applies an instantaneous impulse at the body's centre of mass.
    ///
    /// # Errors
    /// [`Error::StaleBody`] or [`Error::ForeignBody`]; [`Error::InvalidBody`] for a value
    /// that is not finite or would take the body out of the [`limits`](crate::limits) (the
    /// body is unchanged then).
    pub fn apply_impulse(&mut self, h: BodyHandle, impulse: Vec2) -> Result<(), Error> {
        self.body_mut(h)?.apply_impulse(impulse)
    }

    /// The live bodies and their handles.
    pub fn bodies(&self) -> impl Iterator<Item = (BodyHandle, &Body)> {
        self.bodies.iter().enumerate().filter_map(|(i, slot)| {
            let h = BodyHandle {
                space: self.id,
                index: i as u32,
                generation: slot.generation,
            };
            slot.body.as_ref().map(|b| (h, b))
        })
    }

    /// Number of live bodies.
    #[must_use]
    pub fn body_count(&self) -> usize {
        self.body_count
    }

    // ----- constraints --------------------------------------------------------------

    /// Number of constraints of every type.
    #[must_use]
    pub fn constraint_count(&self) -> usize {
        self.stores.iter().map(|s| s.len()).sum()
    }

    /// Adds a constraint with the default [`ConstraintSettings`].
    ///
    /// # Errors
    /// As [`add_constraint_with`](Self::add_constraint_with).
    pub fn add_constraint<T, const D: usize, const B: usize>(
        &mut self,
        constraint: T,
    ) -> Result<ConstraintHandle<T>, Error>
    where
        T: Constraint<D, B>,
    {
        self.add_constraint_with(constraint, ConstraintSettings::default())
    }

    /// Adds a constraint with these settings.
    ///
    /// # Errors
    /// [`Error::InvalidSettings`]; [`Error::InvalidParameter`] if
    /// [`Constraint::validate`] fails; [`Error::StaleBody`] / [`Error::ForeignBody`] for a
    /// body slot; [`Error::NoDynamicBody`] if no slot holds a dynamic body;
    /// [`Error::TooManyBodies`] beyond [`SharedSlots::MAX_SLOTS`] slots.
    pub fn add_constraint_with<T, const D: usize, const B: usize>(
        &mut self,
        constraint: T,
        settings: ConstraintSettings,
    ) -> Result<ConstraintHandle<T>, Error>
    where
        T: Constraint<D, B>,
    {
        self.topology_changed = true;
        settings.validate()?;
        let bodies = self.check_constraint::<T, D, B>(&constraint)?;
        let store = self.store_index::<T, D, B>();
        let (index, generation) = self
            .store_mut::<T, D, B>(store)
            .insert(constraint, settings, bodies);
        Ok(ConstraintHandle {
            space: self.id,
            store,
            index,
            generation,
            marker: PhantomData,
        })
    }

    /// Validates a constraint for this space; returns its slots' body indices.
    fn check_constraint<T: Constraint<D, B>, const D: usize, const B: usize>(
        &self,
        constraint: &T,
    ) -> Result<[usize; B], Error> {
        if B > SharedSlots::MAX_SLOTS {
            return Err(Error::TooManyBodies(B));
        }
        constraint.validate()?;
        let handles = constraint.bodies();
        let mut bodies = [0usize; B];
        let mut dynamic = false;
        for (slot, h) in handles.iter().enumerate() {
            let i = self.body_index(*h)?;
            bodies[slot] = i;
            dynamic |= self.bodies[i]
                .body
                .as_ref()
                .is_some_and(|b| b.kind() == BodyKind::Dynamic);
        }
        if !dynamic {
            return Err(Error::NoDynamicBody);
        }
        self.check_effective::<T, D, B>(constraint, &bodies)?;
        Ok(bodies)
    }

    /// Refuses a constraint that could never move a dynamic body: one whose effective mass
    /// has no finite positive diagonal entry at the bodies' poses nor at two probe poses
    /// (each slot moved and turned by amounts that differ from slot to slot, so that no
    /// geometric coincidence of the current poses survives). A joint of a body to itself,
    /// a gear of ratio 0 against a static body, or anchors so far out that `K` overflows
    /// are refused; a joint that is merely singular at the current poses (coincident
    /// anchors) is accepted.
    fn check_effective<T: Constraint<D, B>, const D: usize, const B: usize>(
        &self,
        constraint: &T,
        bodies: &[usize; B],
    ) -> Result<(), Error> {
        let inverse: [InverseMass; B] = std::array::from_fn(|s| {
            self.bodies[bodies[s]]
                .body
                .as_ref()
                .map_or(InverseMass::default(), Body::inverse_mass)
        });
        let shared = SharedSlots::find(bodies);
        let current: [Pose; B] = std::array::from_fn(|s| {
            self.bodies[bodies[s]]
                .body
                .as_ref()
                .map_or(Pose::default(), Body::pose)
        });
        for probe in 0..3u8 {
            let poses: [Pose; B] = std::array::from_fn(|s| {
                if probe == 0 {
                    return current[s];
                }
                let k = (s + 1) as f32 * f32::from(probe);
                let p = current[s];
                Pose::new(
                    p.position + Vec2::new(0.37 * k, -0.61 * k + 0.13),
                    p.angle + 0.7 * k + 0.29,
                )
            });
            let jacobian = constraint.jacobian(&poses);
            let k = constraint.effective_mass(&jacobian, &inverse, shared);
            let finite = k.iter().flatten().all(|x| x.is_finite());
            if finite && (0..D).any(|i| k[i][i] > 0.0) {
                return Ok(());
            }
        }
        Err(Error::DegenerateConstraint(format!(
            "{}: its effective mass K = J M⁻¹ Jᵀ is zero or not finite at every probe pose, \
             so it could never move a dynamic body",
            T::NAME
        )))
    }

    /// The index of `T`'s store, created on first use.
    fn store_index<T: Constraint<D, B>, const D: usize, const B: usize>(&mut self) -> u32 {
        let key = TypeId::of::<Store<T, D, B>>();
        if let Some(&i) = self.store_of.get(&key) {
            return i;
        }
        let i = self.stores.len() as u32;
        self.stores
            .push(Box::new(Store::<T, D, B>::new(self.id, i)));
        self.store_of.insert(key, i);
        i
    }

    fn store_mut<T: Constraint<D, B>, const D: usize, const B: usize>(
        &mut self,
        store: u32,
    ) -> &mut Store<T, D, B> {
        self.stores[store as usize]
            .as_any_mut()
            .downcast_mut::<Store<T, D, B>>()
            .expect("store index recorded for this type")
    }

    fn typed_store<T: Constraint<D, B>, const D: usize, const B: usize>(
        &self,
        h: ConstraintHandle<T>,
    ) -> Result<&Store<T, D, B>, Error> {
        if h.space != self.id {
            return Err(Error::ForeignConstraint);
        }
        self.stores
            .get(h.store as usize)
            .and_then(|s| s.as_any().downcast_ref::<Store<T, D, B>>())
            .ok_or(Error::StaleConstraint)
    }

    fn typed_store_mut<T: Constraint<D, B>, const D: usize, const B: usize>(
        &mut self,
        h: ConstraintHandle<T>,
    ) -> Result<&mut Store<T, D, B>, Error> {
        if h.space != self.id {
            return Err(Error::ForeignConstraint);
        }
        self.stores
            .get_mut(h.store as usize)
            .and_then(|s| s.as_any_mut().downcast_mut::<Store<T, D, B>>())
            .ok_or(Error::StaleConstraint)
    }

    /// The constraint `h` names.
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] or [`Error::ForeignConstraint`].
    pub fn constraint<T, const D: usize, const B: usize>(
        &self,
        h: ConstraintHandle<T>,
    ) -> Result<&T, Error>
    where
        T: Constraint<D, B>,
    {
        let store = self.typed_store(h)?;
        store
            .get(h.index, h.generation)
            .map(|(e, _)| &e.constraint)
            .ok_or(Error::StaleConstraint)
    }

    /// Whether `h` names a live constraint of this space.
    #[must_use]
    pub fn contains_constraint<T, const D: usize, const B: usize>(
        &self,
        h: ConstraintHandle<T>,
    ) -> bool
    where
        T: Constraint<D, B>,
    {
        self.constraint(h).is_ok()
    }

    /// Changes a constraint through `f`, then validates it as
    /// [`add_constraint`](Self::add_constraint) does: its parameters
    /// ([`Constraint::validate`]) and its bodies (live, of this space, at least one
    /// dynamic). On error the constraint keeps its old value.
    ///
    /// `f` may change body fields (re-target the constraint): the solver then re-indexes
    /// the slots (including which slots share a body) and clears the warm start, so the
    /// impulse queries read zero until the next step. Other parameters keep the warm
    /// start, as in Nape.
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] / [`Error::ForeignConstraint`], or the validation error.
    pub fn update_constraint<T, const D: usize, const B: usize>(
        &mut self,
        h: ConstraintHandle<T>,
        f: impl FnOnce(&mut T),
    ) -> Result<(), Error>
    where
        T: Constraint<D, B>,
    {
        self.topology_changed = true;
        let mut updated = self.constraint(h)?.clone();
        f(&mut updated);
        let bodies = self.check_constraint::<T, D, B>(&updated)?;
        let (entry, cold) = self
            .typed_store_mut(h)?
            .get_mut(h.index, h.generation)
            .ok_or(Error::StaleConstraint)?;
        if bodies != entry.bodies {
            entry.set_body_indices(cold, bodies);
            entry.clear_warm_start(cold);
        }
        entry.constraint = updated;
        Ok(())
    }

    /// Adds a copy of a constraint: the same parameters (bodies included) and settings,
    /// but none of its cached state, so the copy starts with zero impulse and no warm
    /// start (Nape's `copy()`). The same as
    /// `add_constraint_with(constraint(h)?.clone(), settings(h)?)`.
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] or [`Error::ForeignConstraint`].
    pub fn duplicate_constraint<T, const D: usize, const B: usize>(
        &mut self,
        h: ConstraintHandle<T>,
    ) -> Result<ConstraintHandle<T>, Error>
    where
        T: Constraint<D, B>,
    {
        self.topology_changed = true;
        let constraint = self.constraint(h)?.clone();
        let settings = self.settings(h)?;
        self.add_constraint_with(constraint, settings)
    }

    /// The settings of a constraint.
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] or [`Error::ForeignConstraint`].
    pub fn settings<T, const D: usize, const B: usize>(
        &self,
        h: ConstraintHandle<T>,
    ) -> Result<ConstraintSettings, Error>
    where
        T: Constraint<D, B>,
    {
        let store = self.typed_store(h)?;
        store
            .get(h.index, h.generation)
            .map(|(_, cold)| cold.settings)
            .ok_or(Error::StaleConstraint)
    }

    /// Replaces the settings of a constraint (validated first). Toggling `active` clears
    /// its warm start, so a reactivated constraint starts from zero impulse; see
    /// [`ConstraintSettings`] for what each setting does.
    ///
    /// # Errors
    /// [`Error::InvalidSettings`] (settings unchanged), [`Error::StaleConstraint`] or
    /// [`Error::ForeignConstraint`].
    pub fn set_settings<T, const D: usize, const B: usize>(
        &mut self,
        h: ConstraintHandle<T>,
        settings: ConstraintSettings,
    ) -> Result<(), Error>
    where
        T: Constraint<D, B>,
    {
        self.topology_changed = true;
        let (entry, cold) = self
            .typed_store_mut(h)?
            .get_mut(h.index, h.generation)
            .ok_or(Error::StaleConstraint)?;
        settings.validate()?;
        if settings.active != cold.settings.active {
            entry.clear_warm_start(cold);
        }
        cold.settings = settings;
        Ok(())
    }

    /// The physical impulse `λ` (constraint space, one entry per row) the constraint
    /// accumulated in the last step's velocity iterations (zero for an inactive or slack
    /// constraint).
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] or [`Error::ForeignConstraint`].
    pub fn impulse<T, const D: usize, const B: usize>(
        &self,
        h: ConstraintHandle<T>,
    ) -> Result<[f32; D], Error>
    where
        T: Constraint<D, B>,
    {
        let store = self.typed_store(h)?;
        store
            .get(h.index, h.generation)
            .map(|(e, _)| e.unweighted_impulse())
            .ok_or(Error::StaleConstraint)
    }

    /// Removes a constraint and returns it.
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] or [`Error::ForeignConstraint`].
    pub fn remove_constraint<T, const D: usize, const B: usize>(
        &mut self,
        h: ConstraintHandle<T>,
    ) -> Result<T, Error>
    where
        T: Constraint<D, B>,
    {
        self.topology_changed = true;
        self.typed_store_mut(h)?
            .remove(h.index, h.generation)
            .ok_or(Error::StaleConstraint)
    }

    /// Removes the constraint `id` names, whatever its type.
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] or [`Error::ForeignConstraint`].
    pub fn remove_constraint_id(&mut self, id: ConstraintId) -> Result<(), Error> {
        self.topology_changed = true;
        if id.space != self.id {
            return Err(Error::ForeignConstraint);
        }
        let store = self
            .stores
            .get_mut(id.store as usize)
            .ok_or(Error::StaleConstraint)?;
        if store.remove_id(id.index, id.generation) {
            Ok(())
        } else {
            Err(Error::StaleConstraint)
        }
    }

    /// The constraints that broke during the last step (`break_under_force` /
    /// `break_under_error`), each with its cause and the value that exceeded the limit:
    /// removed ones (their handles are now stale) and deactivated ones
    /// (`remove_on_break = false`). Cleared at the start of every [`step`](Self::step).
    #[must_use]
    pub fn broken_constraints(&self) -> &[BreakEvent] {
        &self.broken
    }

    /// The store holding the constraint `id` names (not yet checked to be live).
    fn erased_store(&self, id: ConstraintId) -> Result<&dyn ErasedStore, Error> {
        if id.space != self.id {
            return Err(Error::ForeignConstraint);
        }
        self.stores
            .get(id.store as usize)
            .map(|s| &**s)
            .ok_or(Error::StaleConstraint)
    }

    /// The handle of the live body at compact index `i`.
    fn body_handle_at(&self, i: usize) -> BodyHandle {
        BodyHandle {
            space: self.id,
            index: i as u32,
            generation: self.bodies[i].generation,
        }
    }

    /// The typed handle of the constraint `id` names, if it is a live constraint of type
    /// `T` in this space (e.g. to reactivate a constraint reported by
    /// [`broken_constraints`](Self::broken_constraints)).
    #[must_use]
    pub fn typed_handle<T, const D: usize, const B: usize>(
        &self,
        id: ConstraintId,
    ) -> Option<ConstraintHandle<T>>
    where
        T: Constraint<D, B>,
    {
        let store = *self.store_of.get(&TypeId::of::<Store<T, D, B>>())?;
        let h = ConstraintHandle {
            space: id.space,
            store: id.store,
            index: id.index,
            generation: id.generation,
            marker: PhantomData,
        };
        (store == id.store && self.contains_constraint(h)).then_some(h)
    }

    /// The distinct bodies of a constraint, in slot order (a body held by several slots,
    /// e.g. in a 3-body pulley, is listed once): Nape's `visitBodies`. For the body of
    /// every slot use [`Constraint::bodies`] on [`constraint`](Self::constraint).
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] or [`Error::ForeignConstraint`].
    pub fn constraint_bodies(
        &self,
        constraint: impl Into<ConstraintId>,
    ) -> Result<Vec<BodyHandle>, Error> {
        let id = constraint.into();
        let slots = self
            .erased_store(id)?
            .slot_bodies(id.index, id.generation)
            .ok_or(Error::StaleConstraint)?;
        let mut out: Vec<BodyHandle> = Vec::with_capacity(slots.len());
        for i in slots {
            let h = self.body_handle_at(i);
            if !out.contains(&h) {
                out.push(h);
            }
        }
        Ok(out)
    }

    /// The constraints with at least one slot on `body` (Nape's `body.constraints`),
    /// whatever their type and whether active or not. Takes time proportional to the
    /// number of constraints in the space.
    ///
    /// # Errors
    /// [`Error::StaleBody`] or [`Error::ForeignBody`].
    pub fn constraints_of(
        &self,
        body: BodyHandle,
    ) -> Result<impl Iterator<Item = ConstraintId> + use<>, Error> {
        let i = self.body_index(body)?;
        let mut out = Vec::new();
        for store in &self.stores {
            store.attached(i, &mut out);
        }
        Ok(out.into_iter())
    }

    /// The world impulse the constraint applied to each of its distinct bodies during the
    /// last step (warm start plus velocity iterations): `Jᵀλ` per slot, summed over the
    /// slots that hold the same body, in the order of
    /// [`constraint_bodies`](Self::constraint_bodies). Static and kinematic bodies are
    /// listed too (the impulse they would have received).
    ///
    /// Exact for every constraint, generated or hand-written: it is computed with the
    /// constraint's own [`Constraint::apply_impulse`] and the Jacobian the step used
    /// (Nape's WeldJoint and LineJoint reported some rows wrongly). Zero before the first
    /// step, for an inactive or slack constraint, and after its bodies or `active` changed.
    /// The position iterations move positions directly and apply no impulse, so they are
    /// not included.
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] or [`Error::ForeignConstraint`].
    pub fn body_impulses(
        &self,
        constraint: impl Into<ConstraintId>,
    ) -> Result<Vec<BodyImpulse>, Error> {
        let id = constraint.into();
        let impulses = self
            .erased_store(id)?
            .body_impulses(id.index, id.generation)
            .ok_or(Error::StaleConstraint)?;
        Ok(impulses
            .into_iter()
            .map(|(i, v)| BodyImpulse {
                body: self.body_handle_at(i),
                linear: v.linear,
                angular: v.angular,
            })
            .collect())
    }

    /// The world impulse `(linear, angular)` the constraint applied to `body` during the
    /// last step: see [`body_impulses`](Self::body_impulses).
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] / [`Error::ForeignConstraint`];
    /// [`Error::StaleBody`] / [`Error::ForeignBody`] for `body`;
    /// [`Error::BodyNotInConstraint`] if no slot of the constraint holds `body`.
    pub fn body_impulse(
        &self,
        constraint: impl Into<ConstraintId>,
        body: BodyHandle,
    ) -> Result<(Vec2, f32), Error> {
        let impulses = self.body_impulses(constraint)?;
        self.body_index(body)?;
        impulses
            .into_iter()
            .find(|b| b.body == body)
            .map(|b| (b.linear, b.angular))
            .ok_or(Error::BodyNotInConstraint)
    }

    /// Draws the constraint `handle` names at the current poses of its bodies, through
    /// its [`Constraint::debug_draw`] (see [`draw`](crate::draw)).
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] / [`Error::ForeignConstraint`] for the handle, or a stale
    /// body error if one of its bodies is gone.
    pub fn debug_draw<T, const D: usize, const B: usize>(
        &self,
        handle: ConstraintHandle<T>,
        out: &mut dyn FnMut(DrawPrimitive),
    ) -> Result<(), Error>
    where
        T: Constraint<D, B>,
    {
        let joint = self.constraint(handle)?;
        let mut poses = [Pose::default(); B];
        for (pose, body) in poses.iter_mut().zip(joint.bodies()) {
            *pose = self.body(body)?.pose();
        }
        crate::draw::picture(joint, &poses, out);
        Ok(())
    }

    /// The constraints found non-finite at the end of the last step: a hand-written
    /// [`Constraint`] whose error, effective mass or impulse was NaN or infinite. Each was
    /// contained (it applied nothing non-finite to its bodies, whose other constraints
    /// and neighbours are untouched) and its warm start cleared; it stays in the space
    /// and is tried again at the next step. Cleared at the start of every step.
    #[must_use]
    pub fn faulty_constraints(&self) -> &[ConstraintId] {
        &self.faulty
    }

    /// The substeps each island solved exactly (acyclic) took in the last step, one entry
    /// per island in no particular order (see
    /// [`adaptive_substeps`](Self::adaptive_substeps)); empty before the first step or
    /// without such islands. For profiling: the cost of an exact island grows with it.
    #[must_use]
    pub fn exact_substeps_taken(&self) -> &[u32] {
        &self.islands.island_substeps
    }

    /// Every constraint of the space: its id, its type's [`Constraint::NAME`] and its
    /// distinct bodies in slot order; by type name, then in the order of each type's
    /// storage (the order the solver visits them in, which a step that rebuilds the
    /// islands may change: constraints in loops are swept in colour order).
    pub fn constraints(&self) -> impl Iterator<Item = ConstraintInfo> + use<> {
        let order = self.stores_by_name();
        let mut out = Vec::with_capacity(self.constraint_count());
        let mut listed = Vec::new();
        for s in order {
            listed.clear();
            self.stores[s].list(&mut listed);
            let type_name = self.stores[s].name();
            for (id, slots) in &listed {
                let mut bodies: Vec<BodyHandle> = Vec::with_capacity(slots.len());
                for &i in slots {
                    let h = self.body_handle_at(i);
                    if !bodies.contains(&h) {
                        bodies.push(h);
                    }
                }
                out.push(ConstraintInfo {
                    id: *id,
                    type_name,
                    bodies,
                });
            }
        }
        out.into_iter()
    }

    /// The pose of every live body with its handle, in slot order: one pass over the
    /// space's body storage, no lookup per body (for rendering).
    pub fn body_poses(&self) -> impl Iterator<Item = (BodyHandle, Pose)> + '_ {
        self.bodies().map(|(h, b)| (h, b.pose()))
    }

    /// A 64-bit hash (FNV-1a) of everything that decides the next step: every body's
    /// handle, kind, pose, velocity, accumulated force and mass, every constraint's id,
    /// activity and warm-start impulse, and the space's settings. Two spaces with the
    /// same hash continue identically (up to hash collisions); it is the same on every
    /// run and platform with IEEE `f32` (no random seed), so peers of a networked game can
    /// compare it to detect a desync.
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut feed = |x: u32| {
            for byte in x.to_le_bytes() {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        for x in [
            self.gravity.x.to_bits(),
            self.gravity.y.to_bits(),
            self.substeps,
            self.exact_substeps,
            u32::from(self.adaptive_substeps),
            self.velocity_iterations,
            self.relax_iterations,
            u32::from(self.direct_solve),
            self.joint_hertz.to_bits(),
            self.joint_damping_ratio.to_bits(),
            self.max_linear_speed.to_bits(),
        ] {
            feed(x);
        }
        for (h, b) in self.bodies() {
            let p = b.pose();
            for x in [
                h.index,
                h.generation,
                b.kind() as u32,
                p.position.x.to_bits(),
                p.position.y.to_bits(),
                p.angle.to_bits(),
                p.cos.to_bits(),
                p.sin.to_bits(),
                b.velocity().x.to_bits(),
                b.velocity().y.to_bits(),
                b.angular_velocity().to_bits(),
                b.force().x.to_bits(),
                b.force().y.to_bits(),
                b.torque().to_bits(),
                b.mass().to_bits(),
                b.inertia().to_bits(),
            ] {
                feed(x);
            }
        }
        for s in self.stores_by_name() {
            for byte in self.stores[s].name().bytes() {
                feed(u32::from(byte));
            }
            self.stores[s].state_bits(&mut feed);
        }
        hash
    }

    /// A deep copy of the whole space (bodies, constraints of every type with their
    /// settings and warm starts, the space's settings, the handle tables), from which
    /// [`restore`](Self::restore) makes the space continue bit for bit as this one would
    /// have: rollback for networked games.
    #[must_use]
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            id: self.id,
            gravity: self.gravity,
            substeps: self.substeps,
            exact_substeps: self.exact_substeps,
            adaptive_substeps: self.adaptive_substeps,
            velocity_iterations: self.velocity_iterations,
            relax_iterations: self.relax_iterations,
            direct_solve: self.direct_solve,
            joint_hertz: self.joint_hertz,
            joint_damping_ratio: self.joint_damping_ratio,
            max_linear_speed: self.max_linear_speed,
            bodies: self
                .bodies
                .iter()
                .map(|slot| (slot.generation, slot.body.clone()))
                .collect(),
            free_bodies: self.free_bodies.clone(),
            body_count: self.body_count,
            stores: self.stores.iter().map(|s| s.clone_box()).collect(),
            store_of: self.store_of.clone(),
            broken: self.broken.clone(),
            faulty: self.faulty.clone(),
        }
    }

    /// Puts the space back in the state of `snapshot`. The space takes the snapshot's
    /// identity: every handle that was valid in the space the snapshot was taken from, at
    /// that time, is valid again (restoring into the same space, the usual rollback,
    /// keeps its identity). The islands are recomputed at the next step, which gives the
    /// same result as the space the snapshot was taken from.
    pub fn restore(&mut self, snapshot: &Snapshot) {
        *self = Self::from_snapshot(snapshot);
    }

    /// A new space in the state of `snapshot`, with the identity of the space it was taken
    /// from (see [`restore`](Self::restore)): the two accept each other's handles.
    #[must_use]
    pub fn from_snapshot(snapshot: &Snapshot) -> Self {
        let n = snapshot.bodies.len();
        Self {
            id: snapshot.id,
            gravity: snapshot.gravity,
            substeps: snapshot.substeps,
            exact_substeps: snapshot.exact_substeps,
            adaptive_substeps: snapshot.adaptive_substeps,
            velocity_iterations: snapshot.velocity_iterations,
            relax_iterations: snapshot.relax_iterations,
            direct_solve: snapshot.direct_solve,
            joint_hertz: snapshot.joint_hertz,
            joint_damping_ratio: snapshot.joint_damping_ratio,
            max_linear_speed: snapshot.max_linear_speed,
            direct: DirectSystem::default(),
            topology_changed: true,
            direct_built: false,
            store_order: Vec::new(),
            links: Vec::new(),
            bodies: snapshot
                .bodies
                .iter()
                .map(|(generation, body)| BodySlot {
                    generation: *generation,
                    body: body.clone(),
                })
                .collect(),
            free_bodies: snapshot.free_bodies.clone(),
            body_count: snapshot.body_count,
            poses: vec![Pose::default(); n],
            velocities: vec![Velocity::default(); n],
            deferred_warm_starts: vec![Velocity::default(); n],
            prepare_ahead: true,
            carry_factors: true,
            motion: vec![Motion::Fixed; n],
            inverse_masses: vec![InverseMass::default(); n],
            stores: snapshot.stores.iter().map(|s| s.clone_box()).collect(),
            store_of: snapshot.store_of.clone(),
            broken: snapshot.broken.clone(),
            faulty: snapshot.faulty.clone(),
            islands: IslandState::default(),
        }
    }

    // ----- the step -----------------------------------------------------------------

    /// Advances the simulation by `dt` seconds in [`substeps`](Self::substeps) substeps
    /// of `h = dt / substeps`. Each substep:
    ///
    /// 1. integrates gravity, forces and torques into the velocities of dynamic bodies
    ///    (kinematic bodies keep their velocity; static bodies never move);
    /// 2. prepares every active constraint at the current poses (rows, `J`, `K`, biases)
    ///    and factorises the joint system of every acyclic island;
    /// 3. applies the previous substep's impulses again (warm start);
    /// 4. solves with a positional bias: acyclic islands exactly, islands with loops by
    ///    [`velocity_iterations`](Self::velocity_iterations) Gauss–Seidel sweeps;
    /// 5. integrates velocities into poses;
    /// 6. solves again without the bias (relax), so velocities match the motion.
    ///
    /// Forces are cleared at the end of the step; constraints that broke are reported by
    /// [`broken_constraints`](Self::broken_constraints).
    ///
    /// A constraint whose own arithmetic goes non-finite (a hand-written [`Constraint`] at
    /// a singular pose) is contained: it applies nothing, its warm start is cleared, and it
    /// is reported by [`faulty_constraints`](Self::faulty_constraints).
    ///
    /// # Panics
    /// If `dt` or a setting of the space is out of range (see [`try_step`](Self::try_step),
    /// which returns the error instead): these are programming errors, not simulation
    /// states. No other function of the space panics.
    pub fn step(&mut self, dt: f32) {
        if let Err(e) = self.try_step(dt) {
            panic!("Space::step: {e}");
        }
    }

    /// [`step`](Self::step), or an error that leaves the space unchanged.
    ///
    /// # Errors
    /// [`Error::InvalidValue`] if `dt` is outside
    /// [`MIN_DT`](crate::limits::MIN_DT)` ..= `[`MAX_DT`](crate::limits::MAX_DT) or NaN,
    /// or a setting of the space is out of range ([`validate`](Self::validate)).
    pub fn try_step(&mut self, dt: f32) -> Result<(), Error> {
        crate::limits::check_dt(dt)?;
        self.validate()?;
        self.run_step(dt);
        Ok(())
    }

    /// Checks the space's public settings against the [`limits`](crate::limits):
    /// `gravity` finite and at most [`MAX_ACCELERATION`](crate::limits::MAX_ACCELERATION)
    /// long; `substeps` at most [`MAX_SUBSTEPS`](crate::limits::MAX_SUBSTEPS);
    /// `velocity_iterations` and `relax_iterations` at most
    /// [`MAX_ITERATIONS`](crate::limits::MAX_ITERATIONS); `joint_hertz` positive (possibly
    /// infinite); `joint_damping_ratio` finite and in `0 ..= 1e6`; `max_linear_speed`
    /// positive and at most [`MAX_SPEED`](crate::limits::MAX_SPEED).
    ///
    /// # Errors
    /// [`Error::InvalidValue`] naming the first setting out of range.
    pub fn validate(&self) -> Result<(), Error> {
        use crate::limits::{MAX_ACCELERATION, MAX_ITERATIONS, MAX_SPEED, MAX_SUBSTEPS};
        let count = |what: &'static str, n: u32, max: u32| {
            if n <= max {
                Ok(())
            } else {
                Err(Error::InvalidValue {
                    what,
                    value: n.to_string(),
                    range: format!("at most {max}"),
                })
            }
        };
        let positive = |what: &'static str, x: f32, max: f32| {
            if x > 0.0 && x <= max {
                Ok(())
            } else {
                Err(Error::InvalidValue {
                    what,
                    value: x.to_string(),
                    range: format!("> 0 and at most {max:e}"),
                })
            }
        };
        crate::limits::check_vector("gravity", self.gravity, MAX_ACCELERATION)?;
        count("substeps", self.substeps, MAX_SUBSTEPS)?;
        count("exact_substeps", self.exact_substeps, MAX_SUBSTEPS)?;
        count(
            "velocity_iterations",
            self.velocity_iterations,
            MAX_ITERATIONS,
        )?;
        count("relax_iterations", self.relax_iterations, MAX_ITERATIONS)?;
        positive("joint_hertz", self.joint_hertz, f32::INFINITY)?;
        if !(0.0..=1e6).contains(&self.joint_damping_ratio) {
            return Err(Error::InvalidValue {
                what: "joint_damping_ratio",
                value: self.joint_damping_ratio.to_string(),
                range: "0 ..= 1e6".to_string(),
            });
        }
        positive("max_linear_speed", self.max_linear_speed, MAX_SPEED)
    }

    fn run_step(&mut self, dt: f32) {
        self.broken.clear();
        self.faulty.clear();
        if self.topology_changed || self.direct_built != self.direct_solve {
            self.rebuild_topology();
        }

        // The compact arrays; the acceleration of each body over the step.
        let mut driven = false;
        let mut swept_bodies = false;
        // Zipped, the arrays are indexed without a bounds check each (they grow together).
        for (i, (((slot, pose), velocity), (inverse_mass, motion))) in self
            .bodies
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
            *motion = match body.kind() {
                BodyKind::Static => Motion::Fixed,
                BodyKind::Kinematic => Motion::Driven,
                BodyKind::Dynamic => Motion::Free {
                    linear: self.gravity + body.force() * inverse.mass,
                    angular: body.torque() * inverse.inertia,
                },
            };
            driven |= body.kind() == BodyKind::Kinematic;
            swept_bodies |= body.kind() != BodyKind::Static && self.islands.body_island[i] == NONE;
        }
        if !self.direct.is_empty() {
            // Before the step's totals are cleared: the choice reads the last step's.
            self.mark_plain_islands();
            self.choose_exact_substeps(dt);
        }
        // The two groups of islands share no dynamic body, so each runs its own substeps;
        // a kinematic body they may share moves in both, from the same start, and ends
        // where the first group left it. The swept group runs first, and its first
        // preparation clears the last step's totals of every constraint.
        let exact = !self.direct.is_empty();
        let swept = swept_bodies || !exact;
        for &s in &self.store_order {
            self.stores[s].begin_step(!swept);
        }
        // Grows with the bodies, and only then allocates.
        self.deferred_warm_starts
            .resize(self.velocities.len(), Velocity::default());
        let both = exact && swept_bodies && driven;
        if both {
            self.islands.group_start.clone_from(&self.poses);
        }
        if swept {
            self.run_group(Group::Swept, dt);
        }
        if both {
            for (i, motion) in self.motion.iter().enumerate() {
                if *motion == Motion::Driven {
                    std::mem::swap(&mut self.poses[i], &mut self.islands.group_start[i]);
                }
            }
        }
        if exact {
            self.run_group(Group::Exact, dt);
        }
        if both {
            for (i, motion) in self.motion.iter().enumerate() {
                if *motion == Motion::Driven {
                    self.poses[i] = self.islands.group_start[i];
                }
            }
        }

        // Write back, clear forces, retire broken constraints.
        for ((slot, v), &p) in self
            .bodies
            .iter_mut()
            .zip(&mut self.velocities)
            .zip(&self.poses)
        {
            let Some(body) = &mut slot.body else { continue };
            if body.kind() != BodyKind::Static {
                if !(v.linear.is_finite() && v.angular.is_finite()) {
                    *v = Velocity::default();
                }
                // Comparisons, each false for NaN (`max_element` would skip a NaN
                // coordinate, and costs more).
                let within = |x: f32| x.abs() <= crate::limits::MAX_COORDINATE;
                let inside = within(p.position.x) && within(p.position.y) && within(p.angle);
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
            self.stores[s].process_broken(&mut self.broken);
        }
        for &s in &self.store_order {
            self.stores[s].contain_faults(&self.poses, &mut self.faulty);
        }
        if !self.broken.is_empty() {
            self.topology_changed = true;
        }
    }

    /// The substeps of one group of islands: bodies outside it keep still (kinematic
    /// bodies move in both), constraints outside it are skipped.
    fn run_group(&mut self, group: Group, dt: f32) {
        if group == Group::Swept {
            self.run_substeps(group, self.substeps.max(1), dt, false, false);
            return;
        }
        // Acyclic islands with the same substep count run together, the counts one after
        // the other (they share no dynamic body), and of those the moving ones apart from
        // the resting ones (their last substeps differ: see `run_substeps`).
        let most = self.exact_substeps.max(1);
        self.weigh_exact_bodies();
        for n in (1..=most).rev() {
            for (moving, plain) in [(true, true), (true, false), (false, true), (false, false)] {
                let mut any = false;
                for (((run, &count), &restless), &is_plain) in self
                    .islands
                    .island_run
                    .iter_mut()
                    .zip(&self.islands.island_substeps)
                    .zip(&self.islands.island_restless)
                    .zip(&self.islands.island_plain)
                {
                    *run = count.clamp(1, most) == n && restless == moving && is_plain == plain;
                    any |= *run;
                }
                if any {
                    self.direct.set_active(&self.islands.island_run);
                    self.run_substeps(group, n, dt, moving, plain);
                }
            }
        }
        self.unweigh_exact_bodies();
        self.islands.island_run.fill(true);
        self.direct.set_active(&self.islands.island_run);
    }

    /// Flags in `island_plain` the acyclic islands RATTLE steps: those of stiff joints,
    /// limits, motors, force limits, breaking and unbounded springs, without a spring
    /// that has bounds or no frequency (those keep the linearly implicit step).
    fn mark_plain_islands(&mut self) {
        self.islands.island_plain.clear();
        self.islands
            .island_plain
            .resize(self.direct.island_count(), true);
        for &s in &self.store_order {
            self.stores[s].unmark_plain_islands(&self.direct, &mut self.islands.island_plain);
        }
    }

    /// Sets each acyclic island's substeps for this step: enough that no body spins by more
    /// than [`STABLE_SPIN`] per substep, nor swings by more than [`STABLE_SWING`] in the
    /// transverse mode its constraints' forces stiffen (a loaded chain or rope:
    /// `ω² = |∂(Jᵀf)_θ/∂θ| / I + |∂(Jᵀf)_⊥/∂x_⊥| / m`, `f` the last substep's impulse over
    /// its length), which an exact solve linearised at the substep's start keeps stable
    /// only while `ω·h` is about 1.
    /// An island whose bodies all move slower than [`REST_SPEED`] and [`REST_SPIN`], with
    /// every load known, rests: it takes one substep, its bodies weighted where the swing
    /// needs it (see [`weigh_exact_bodies`](Self::weigh_exact_bodies)), unless a body
    /// that needs it has a soft constraint (a spring relative to the masses, which the
    /// weighting would stiffen).
    /// Read from the state alone (poses, velocities, the last step's impulses), so a
    /// restored snapshot chooses as the original did.
    fn choose_exact_substeps(&mut self, dt: f32) {
        let most = self.exact_substeps.max(1);
        if !self.adaptive_substeps {
            self.islands.island_substeps.fill(most);
            self.islands.island_restless.clear();
            self.islands
                .island_restless
                .resize(self.islands.island_substeps.len(), true);
            self.islands.any_weighted = false;
            return;
        }
        self.islands.body_stiffness.clear();
        self.islands
            .body_stiffness
            .resize(self.poses.len(), [0.0; 2]);
        self.islands.body_flags.clear();
        self.islands.body_flags.resize(self.poses.len(), 0);
        for &s in &self.store_order {
            self.stores[s].geometric_stiffness(
                &self.poses,
                &mut self.islands.body_stiffness,
                &mut self.islands.body_flags,
            );
        }
        self.islands.body_spring.clear();
        self.islands.body_spring.resize(self.poses.len(), 0.0);
        for &s in &self.store_order {
            self.stores[s].spring_rates(&mut self.islands.body_spring);
        }
        self.islands.island_fastest.clear();
        self.islands
            .island_fastest
            .resize(self.islands.island_substeps.len(), 0.0);
        self.islands.island_restless.clear();
        self.islands
            .island_restless
            .resize(self.islands.island_substeps.len(), false);
        // Each body's weight should its island rest (see `weigh_exact_bodies`).
        self.islands.body_weight.clear();
        self.islands.body_weight.resize(self.poses.len(), 1.0);
        // Rates are compared as their squares (`turning` and `moving` below are `ω²` parts,
        // `swing_squared` their sum, `turn_squared` is `(ω·dt)²`), multiplied by constant
        // reciprocals: no square root or division per body (they were most of this loop's
        // time), one square root per island.
        let resting_turn = dt * dt * (1.0 / (RESTING_SWING * RESTING_SWING));
        // An island's fastest swing and restlessness so far, kept in registers while its
        // bodies come one after the other (as they mostly do): through memory, each body
        // waited for the last one's store.
        let mut current: Option<(u32, f32, bool)> = None;
        let flush = |islands: &mut IslandState, current: Option<(u32, f32, bool)>| {
            if let Some((island, fastest, restless)) = current {
                let k = island as usize;
                islands.island_fastest[k] = islands.island_fastest[k].max(fastest);
                islands.island_restless[k] |= restless;
            }
        };
        for b in 0..self.islands.body_island.len() {
            let island = self.islands.body_island[b];
            if island == NONE {
                continue;
            }
            if current.is_none_or(|(k, ..)| k != island) {
                flush(&mut self.islands, current);
                current = Some((island, 0.0, false));
            }
            let [turning, moving] = self.islands.body_stiffness[b];
            let inverse = self.inverse_masses[b];
            let (turning, moving) = if turning.is_finite() && moving.is_finite() {
                (turning * inverse.inertia, moving * inverse.mass)
            } else {
                (f32::INFINITY, f32::INFINITY)
            };
            let swing_squared = turning + moving;
            let turn_squared = swing_squared * resting_turn;
            let weight = if turn_squared > 1.0 {
                turn_squared
            } else {
                1.0
            };
            self.islands.body_weight[b] = weight;
            let velocity = self.velocities[b];
            let spin = velocity.angular.abs();
            // The part of the swing that moves the body along a line; the turning part is
            // weighed (below), up to `MAX_TURN_WEIGHT`, and what that leaves over takes
            // substeps. A non-finite load takes every substep.
            // In squared units of the turn each may take per substep.
            let swing = ((moving + turning) * (1.0 / (STABLE_SWING * STABLE_SWING)))
                .max(spin * spin * (1.0 / (STABLE_SPIN * STABLE_SPIN)))
                .max(self.islands.body_spring[b] * (1.0 / (SPRING_TURN * SPRING_TURN)));
            // Resting needs every load known, and no spring on a body the weighting would
            // make heavier (its mass-relative spring would stiffen).
            let flags = self.islands.body_flags[b];
            let rests = velocity.linear.length_squared() <= REST_SPEED * REST_SPEED
                && spin <= REST_SPIN
                && swing_squared.is_finite()
                && flags & LOAD_UNKNOWN == 0
                && !(weight > 1.0 && flags & SPRUNG != 0);
            if let Some((_, fastest, restless)) = &mut current {
                // A comparison, not `f32::max`, whose NaN handling made the chain from
                // body to body several operations long (`swing` is never NaN).
                if swing > *fastest {
                    *fastest = swing;
                }
                *restless |= !rests;
            }
        }
        flush(&mut self.islands, current);
        self.mark_unloaded_islands();
        self.islands.island_step_squared.clear();
        // A resting island's springs still take the substeps they need.
        self.islands.island_spring.clear();
        self.islands
            .island_spring
            .resize(self.islands.island_substeps.len(), 0.0);
        for (&island, &spring) in self
            .islands
            .body_island
            .iter()
            .zip(&self.islands.body_spring)
        {
            if island != NONE {
                let k = island as usize;
                self.islands.island_spring[k] = self.islands.island_spring[k].max(spring);
            }
        }
        for ((((n, &fastest), &restless), &plain), &spring) in self
            .islands
            .island_substeps
            .iter_mut()
            .zip(&self.islands.island_fastest)
            .zip(&self.islands.island_restless)
            .zip(&self.islands.island_plain)
            .zip(&self.islands.island_spring)
        {
            let needed = (fastest.sqrt() * dt).ceil();
            let fewest = if plain { MIN_RATTLE_SUBSTEPS } else { 1 };
            *n = if !restless {
                ((spring.sqrt() * dt / SPRING_TURN).ceil() as u32).clamp(1, most)
            } else if needed.is_finite() {
                (needed as u32).clamp(fewest.min(most), most)
            } else {
                most
            };
            let h = dt / *n as f32;
            self.islands.island_step_squared.push(h * h);
        }
        // Only a resting island's one substep holds its swing by weighing its bodies more;
        // a moving island's substeps hold it with the true masses, so that its momentum
        // is conserved.
        self.islands.any_weighted = false;
        for (b, &island) in self.islands.body_island.iter().enumerate() {
            if island == NONE {
                self.islands.body_weight[b] = 1.0;
                continue;
            }
            let island = island as usize;
            if self.islands.island_restless[island] {
                self.islands.body_weight[b] = 1.0;
            }
            self.islands.any_weighted |= self.islands.body_weight[b] > 1.0;
        }
    }

    /// Flags in `island_unloaded` the islands a body of which has a constraint whose load is
    /// not known yet (its first step).
    fn mark_unloaded_islands(&mut self) {
        let islands = &mut self.islands;
        islands.island_unloaded.clear();
        islands
            .island_unloaded
            .resize(islands.island_plain.len(), false);
        for (&island, &flags) in islands.body_island.iter().zip(&islands.body_flags) {
            if island != NONE && flags & LOAD_UNKNOWN != 0 {
                islands.island_unloaded[island as usize] = true;
            }
        }
    }

    /// Makes the inverse masses the exact group solves with those of
    /// [`choose_exact_substeps`](Self::choose_exact_substeps)' weights. A loaded chain's transverse mode turns by
    /// `ω·h` per substep; an exact solve linearised at the substep's start holds it only
    /// while that is below about [`STABLE_SWING`]. A resting island takes one substep
    /// nonetheless: its bodies' masses `M̃ = αM` with `α = (ω·h / RESTING_SWING)²` bring the
    /// mode within that, which is the linearly implicit (backward Euler) step of the
    /// joints' geometric stiffness in its diagonal form (Andrews, Teichmann and Kry 2017,
    /// "Geometric Stiffness for Real-time Constrained Multibody Dynamics"). Its momentum
    /// `M v` carried into the heavier solve, the step can only lose kinetic energy: it
    /// damps what moves in a resting island, never what swings. A moving island keeps its
    /// bodies' masses (any weight would change what an impulse does to its momentum) and
    /// takes the substeps its swing needs instead.
    fn weigh_exact_bodies(&mut self) {
        if !self.islands.any_weighted {
            return;
        }
        self.islands.exact_masses.clone_from(&self.inverse_masses);
        for (inverse, &alpha) in self
            .islands
            .exact_masses
            .iter_mut()
            .zip(&self.islands.body_weight)
        {
            if alpha > 1.0 {
                inverse.mass /= alpha;
                inverse.inertia /= alpha;
            }
        }
        std::mem::swap(&mut self.inverse_masses, &mut self.islands.exact_masses);
    }

    /// Puts the true inverse masses back after the exact group
    /// ([`weigh_exact_bodies`](Self::weigh_exact_bodies) kept them aside).
    fn unweigh_exact_bodies(&mut self) {
        if self.islands.any_weighted {
            std::mem::swap(&mut self.inverse_masses, &mut self.islands.exact_masses);
        }
    }

    /// `v ← M̃⁻¹ M v` for the weighted bodies, once their forces are in `v` (see
    /// [`weigh_exact_bodies`](Self::weigh_exact_bodies)): the solve then needs the
    /// impulses the true masses do, so the load read from them does not grow with `α`.
    /// Only bodies of the islands in the current run: weighted bodies rest in islands of
    /// one substep, which run after those of more.
    fn carry_momentum_into_weights(&mut self) {
        if !self.islands.any_weighted {
            return;
        }
        for ((v, &alpha), &island) in self
            .velocities
            .iter_mut()
            .zip(&self.islands.body_weight)
            .zip(&self.islands.body_island)
        {
            if alpha > 1.0 && in_group(true, &self.islands.island_run, island) {
                v.linear /= alpha;
                v.angular /= alpha;
            }
        }
    }

    /// `substeps` substeps of `dt / substeps` of `group`'s islands (of the exact group,
    /// those `island_run` flags, `moving` if they do not rest).
    fn run_substeps(&mut self, group: Group, substeps: u32, dt: f32, moving: bool, plain: bool) {
        let exact = group == Group::Exact;
        let h = dt / substeps as f32;
        let mut substep = Substep {
            h,
            span: h,
            rattle: false,
            kick: h,
            joint_softness: Softness::spring(
                self.joint_hertz
                    .min(SWEPT_HERTZ_PER_RATE / h.max(MIN_SWEPT_STEP / substeps as f32)),
                self.joint_damping_ratio,
                h,
            ),
            first: true,
            group,
            carry_start: false,
            span_growth: 1.0,
        };
        // Exact islands step by RATTLE (velocity Verlet with SHAKE's position solve and
        // a closing velocity projection: `project_as_impulses`, `finish_moving_step`),
        // except resting islands whose bodies this step weighs (see
        // `weigh_exact_bodies`), which take one linearly implicit substep: the whole kick
        // up front and a projection that moves no velocity.
        let rattle = exact && plain && (moving || !self.islands.any_weighted);
        let finishing = exact && moving;
        for k in 0..substeps {
            substep.first = k == 0;
            substep.carry_start = self.carry_factors && finishing && k == 0;
            let finish = rattle && k + 1 == substeps;
            let linear_finish = finishing && !rattle && k + 1 == substeps;
            // The swept substeps after the first find their warm starts deferred by the
            // sweep before (`solver::Ahead`), added after the forces as if applied here.
            let deferred = self.prepare_ahead && !exact && k > 0;
            // A moving exact island's step is velocity Verlet: half a kick of the forces
            // at its start and end (`finish_moving_step`), whole ones between substeps.
            let kick = if rattle && k == 0 { 0.5 * h } else { h };
            let span = if finish { kick + 0.5 * h } else { kick };
            // The substep before this one carried `1.5 h` (the last of the step before),
            // `h / 2` (the first) or `h`.
            let previous_share = match (rattle, k) {
                (false, _) => 1.0,
                (true, 0) => 1.5,
                (true, 1) => 0.5,
                _ => 1.0,
            };
            substep.span_growth = span / h / previous_share;
            substep.span = span;
            substep.rattle = rattle;
            substep.kick = kick;
            for (((v, warm), motion), &island) in self
                .velocities
                .iter_mut()
                .zip(&mut self.deferred_warm_starts)
                .zip(&self.motion)
                .zip(&self.islands.body_island)
            {
                let warm = if deferred {
                    std::mem::take(warm)
                } else {
                    Velocity::default()
                };
                if let Motion::Free { linear, angular } = *motion
                    && in_group(exact, &self.islands.island_run, island)
                {
                    v.linear += linear * kick;
                    v.angular += angular * kick;
                    if deferred {
                        v.linear += warm.linear;
                        v.angular += warm.angular;
                    }
                }
            }
            if exact {
                self.carry_momentum_into_weights();
                if !substep.carry_start {
                    self.direct.drop_carries();
                }
            }
            for &s in &self.store_order {
                self.stores[s].prepare(
                    &substep,
                    &self.poses,
                    &self.inverse_masses,
                    &mut self.velocities,
                    &mut self.direct,
                );
            }
            if exact {
                if substep.carry_start {
                    self.direct.factor_restored();
                }
                self.direct.factor(Islands::All, &self.inverse_masses);
            }
            if rattle {
                // The island errors are those of the current poses: measured by the start's
                // projection, or at the end of the substep before (whose velocity passes
                // moved no body). Only an island still apart needs its rows' errors.
                if k == 0 {
                    self.project_start_errors();
                }
                if self.mark_unsettled(APART) {
                    self.measure_island_errors(true);
                    self.mark_unsettled(APART);
                }
                self.direct.keep_start_errors(&self.islands.island_worse);
            }
            self.solve_pass(0, self.velocity_iterations, group, None);
            if substep.carry_start {
                // The carried factors are of use for this solve only.
                self.direct.drop_carries();
            }
            let max_rotation = MAX_ROTATION / h;
            for (((pose, v), motion), &island) in self
                .poses
                .iter_mut()
                .zip(&mut self.velocities)
                .zip(&self.motion)
                .zip(&self.islands.body_island)
            {
                match motion {
                    Motion::Fixed => continue,
                    Motion::Free { .. } if !in_group(exact, &self.islands.island_run, island) => {
                        continue;
                    }
                    Motion::Free { .. } => limit_speed(v, self.max_linear_speed, max_rotation),
                    Motion::Driven => {}
                }
                *pose = pose.integrate(*v, h);
            }
            // Only islands not yet settled are projected, and only if something moved is
            // the guard's measurement needed.
            let mut moved = false;
            let mut paired_solve = None;
            let mut relinearized = None;
            if exact {
                if linear_finish {
                    // Gauss–Newton: the projection's rows at the poses it corrects; the
                    // final velocity solve below takes the same rows.
                    self.rebase_exact_rows(None);
                    relinearized = Some(self.direct.factorisations());
                }
                self.islands.projection_start.clone_from(&self.poses);
                self.islands.velocity_start.clone_from(&self.velocities);
                self.measure_island_errors(true);
                self.islands
                    .errors_before
                    .clone_from(&self.islands.island_errors);
                if rattle {
                    moved = self.project_as_impulses(h);
                } else {
                    self.direct.forget_saved_impulses();
                    moved = self.mark_unsettled(SETTLED);
                    if moved && linear_finish {
                        // The velocity solve below needs nothing the projections change
                        // (only the factor, if the guard relinearises): it takes the
                        // projection's substitutions, and is done again only if the
                        // factor changed.
                        self.push_impulses();
                        paired_solve = Some(self.direct.project_and_solve(
                            1,
                            &self.inverse_masses,
                            &mut self.poses,
                            &mut self.velocities,
                        ));
                    } else if moved {
                        self.direct
                            .project(Islands::Marked, &self.inverse_masses, &mut self.poses);
                    }
                }
            }
            // Limits reached during the substep, alternating with the projection of the
            // equality rows they push off (block Gauss–Seidel on positions), each round
            // only in the islands where the previous one moved something.
            if exact {
                self.direct.clear_marks();
            }
            let mut limits_moved = false;
            for round in 0..LIMIT_ROUNDS {
                for &s in &self.store_order {
                    self.stores[s].correct_limits(
                        &mut self.poses,
                        &mut self.velocities,
                        &mut self.direct,
                        round == 0,
                        self.max_linear_speed * h,
                        &substep,
                    );
                }
                if !(exact && self.direct.promote()) {
                    break;
                }
                moved = true;
                limits_moved = true;
                if rattle {
                    // The rows the limits push off, corrected as SHAKE corrects them: by
                    // impulses, which keep the island's momenta.
                    self.measure_island_errors(true);
                    self.direct.project_as_impulse(
                        Islands::Marked,
                        &self.inverse_masses,
                        &mut self.poses,
                        &mut self.velocities,
                        h,
                    );
                    self.pull_impulses();
                } else {
                    self.project(Islands::Marked);
                }
            }
            if exact {
                // Unmoved, the errors measured before still hold, and so does the rhs.
                let measured = !moved;
                if moved {
                    // SHAKE's last measurement holds unless a limit moved a body since.
                    let current = rattle && !limits_moved;
                    self.keep_projections_that_helped(current);
                }
                if rattle {
                    if k + 1 == substeps {
                        self.finish_moving_step(h);
                    }
                } else {
                    if k + 1 == substeps {
                        let settled = if linear_finish {
                            RELINEARIZED_SETTLED
                        } else {
                            SETTLED
                        };
                        self.project_unsettled(measured, settled);
                    }
                    if linear_finish {
                        self.finish_linear_step(paired_solve, relinearized);
                    }
                }
            }
            // A swept substep another follows is prepared by its last sweep.
            let ahead = (self.prepare_ahead && !exact && k + 1 < substeps).then_some(&substep);

            self.solve_pass(1, self.relax_iterations, group, ahead);
            for &s in &self.store_order {
                self.stores[s].end_substep(self.relax_iterations == 0, group, &mut self.direct);
            }
        }
    }

    /// SHAKE's position solve of a moving island's substep: the correction
    /// [`DirectSystem::project_as_impulse`] applies (an impulse through the substep
    /// start's rows, the bodies moved as far as it changes their velocities over the
    /// substep), repeated with the start's factor while an island's summed squared error
    /// is above [`SHAKE_SETTLED`], at most [`SHAKE_ITERATIONS`] times (each shrinks the
    /// error by about the turn of the substep). Returns whether it moved anything.
    fn project_as_impulses(&mut self, h: f32) -> bool {
        // Kept for the guard, which may undo the corrections.
        self.direct.save_impulses();
        let mut moved = false;
        for iteration in 0..SHAKE_ITERATIONS {
            if !self.mark_unsettled(SHAKE_SETTLED) {
                break;
            }
            if iteration > 0 && !self.mark_converging() {
                break;
            }
            self.islands
                .errors_last
                .clone_from(&self.islands.island_errors);
            self.direct.project_as_impulse(
                Islands::Marked,
                &self.inverse_masses,
                &mut self.poses,
                &mut self.velocities,
                h,
            );
            moved = true;
            self.measure_island_errors(true);
        }
        if moved {
            self.pull_impulses();
        }
        moved
    }

    /// Removes the joint errors an island starts its step with (a constraint created apart,
    /// a body moved by hand, what the last step's position solve left), by a projection
    /// that moves no velocity, guarded like every projection: RATTLE's position solve
    /// (`project_as_impulses`) turns what it corrects into velocity, which is right for
    /// the drift of the substep and wrong for an error that was there before it.
    fn project_start_errors(&mut self) {
        self.measure_island_errors(true);
        if !self.mark_unsettled(RELINEARIZED_SETTLED) {
            return;
        }
        self.project_marked_without_velocity();
    }

    /// One guarded projection of the marked islands, errors measured with the right-hand
    /// side: bodies moved by `M⁻¹Jᵀμ`, no velocity changed, no impulse counted.
    fn project_marked_without_velocity(&mut self) {
        self.direct.forget_saved_impulses();
        self.islands.projection_start.clone_from(&self.poses);
        self.islands.velocity_start.clone_from(&self.velocities);
        self.islands
            .errors_before
            .clone_from(&self.islands.island_errors);
        self.direct
            .project(Islands::Marked, &self.inverse_masses, &mut self.poses);
        self.keep_projections_that_helped(false);
    }

    /// The end of a moving exact island's step (RATTLE's velocity half): the second half
    /// kick of the forces, the rows relinearised and factorised at the final poses, and
    /// the velocities made to meet them by an exact solve (an `M`-orthogonal projection,
    /// the impulses internal: momentum unchanged). The next step starts from that factor
    /// (`direct::Carry`), the poses being where it was built.
    fn finish_moving_step(&mut self, h: f32) {
        for ((v, motion), &island) in self
            .velocities
            .iter_mut()
            .zip(&self.motion)
            .zip(&self.islands.body_island)
        {
            if let Motion::Free { linear, angular } = *motion
                && in_group(true, &self.islands.island_run, island)
            {
                v.linear += linear * (0.5 * h);
                v.angular += angular * (0.5 * h);
            }
        }
        self.rebase_exact_rows(Some(0.5 * h));
        let relinearized = self.direct.factorisations();
        // What the position solve left above `RELINEARIZED_SETTLED` (a link that turned too
        // far in a substep for the start's factor) is taken away by one Gauss–Newton
        // projection with the factor at the final poses, moving no velocity.
        self.measure_island_errors(true);
        let corrected = self.mark_unsettled(FINISHED);
        if corrected {
            self.project_marked_without_velocity();
            self.project_unsettled(false, FINISHED);
        }
        self.exact_solve(1, Islands::All);
        // An island's first step solves again with the same factor (iterative
        // refinement): its effective masses are `f32`, which holds a light body's
        // `1/m` plus a heavy one's only to their ratio times 1e-7, and a light body holding
        // a heavy one at rest (1 kg and 1,000 t) left 2 mm/s of the heavy load's impulse in
        // its velocities. From the next step the loads are known and such an island rests
        // on weighted masses (`weigh_exact_bodies`).
        if self.mark_unsettled_where(|islands, k| islands.island_unloaded.get(k) == Some(&true)) {
            for _ in 0..REFINEMENTS {
                self.exact_solve(1, Islands::Marked);
            }
        }
        self.settle_active_set(1);
        if self.direct.factored_since(relinearized) {
            self.direct.drop_carries();
        } else if corrected {
            let errors = &self.islands.errors_before;
            self.direct
                .keep_factors(|k| errors[k] <= CARRY_SETTLED, &self.inverse_masses);
        } else {
            self.direct.keep_factors(|_| true, &self.inverse_masses);
        }
    }

    /// The end of the last substep of a moving exact island that RATTLE does not step
    /// (one with limits, springs, motors or force limits): the velocities made to meet the
    /// rows relinearised at the drifted poses (an exact solve, an `M`-orthogonal
    /// projection: it adds no kinetic energy), so the reported velocity moves along the
    /// joints from where the bodies are; the factor kept for the next step where the
    /// projection moved the bodies little (`direct::Carry`), not where the guard or the
    /// active set factorised again.
    fn finish_linear_step(&mut self, paired_solve: Option<u64>, relinearized: Option<u64>) {
        match paired_solve {
            Some(count) if !self.direct.factored_since(count) => {
                self.pull_impulses();
            }
            Some(_) => {
                self.velocities.clone_from(&self.islands.velocity_start);
                self.exact_solve(1, Islands::All);
            }
            None => self.exact_solve(1, Islands::All),
        }
        self.settle_active_set(1);
        match relinearized {
            Some(count) if !self.direct.factored_since(count) => {
                let errors = &self.islands.errors_before;
                self.direct
                    .keep_factors(|k| errors[k] <= CARRY_SETTLED, &self.inverse_masses);
            }
            _ => self.direct.drop_carries(),
        }
    }

    /// The step's last position correction, in every island whose summed squared error is
    /// still above `settled` (`measured`: the direct system holds the errors at the
    /// current poses as its right-hand side, nothing having moved since), guarded like
    /// the first. A resting island's factor is from the substep's start, so one
    /// projection leaves an error of order ω·h times the one it removed, and where the
    /// user sees the poses a second one takes away what is left;
    /// a moving island's last projection was relinearised where it corrects, and only
    /// an error that large (a chain created apart, a hard pull) is worth a second one.
    fn project_unsettled(&mut self, measured: bool, settled: f32) {
        if !self.mark_unsettled(settled) {
            return;
        }
        self.islands.projection_start.clone_from(&self.poses);
        if !measured {
            self.measure_island_errors(true);
        }
        self.islands
            .errors_before
            .clone_from(&self.islands.island_errors);
        self.direct
            .project(Islands::Marked, &self.inverse_masses, &mut self.poses);
        self.keep_projections_that_helped(false);
    }

    /// Keeps marked (see [`mark_unsettled`](Self::mark_unsettled)) only the islands whose
    /// last correction took away at least half their error (the rest sit at the floor
    /// `f32` positions allow); returns whether any are left.
    fn mark_converging(&mut self) -> bool {
        let islands = &mut self.islands;
        for ((unsettled, &error), &before) in islands
            .island_worse
            .iter_mut()
            .zip(&islands.island_errors)
            .zip(&islands.errors_last)
        {
            *unsettled &= error <= 0.5 * before;
        }
        if !islands.island_worse.iter().any(|&u| u) {
            return false;
        }
        self.direct.clear_marks();
        self.direct.mark_islands(&self.islands.island_worse);
        true
    }

    /// Marks (for [`Islands::Marked`], in `island_worse` as scratch) the acyclic islands
    /// that `which` picks; returns whether there are any.
    fn mark_unsettled_where(&mut self, which: impl Fn(&IslandState, usize) -> bool) -> bool {
        let mut any = false;
        for k in 0..self.islands.island_worse.len() {
            let picked = which(&self.islands, k);
            self.islands.island_worse[k] = picked;
            any |= picked;
        }
        if any {
            self.direct.clear_marks();
            self.direct.mark_islands(&self.islands.island_worse);
        }
        any
    }

    /// Marks (for [`Islands::Marked`], in `island_worse` as scratch) the acyclic islands
    /// whose last measured error is above `settled`; returns whether there are any.
    fn mark_unsettled(&mut self, settled: f32) -> bool {
        let islands = &mut self.islands;
        for (unsettled, &error) in islands.island_worse.iter_mut().zip(&islands.island_errors) {
            *unsettled = error > settled;
        }
        if !islands.island_worse.iter().any(|&u| u) {
            return false;
        }
        self.direct.clear_marks();
        self.direct.mark_islands(&self.islands.island_worse);
        true
    }

    /// One velocity pass (0: biased, 1: relax): the exact solve of acyclic islands (in the
    /// biased pass with its limit rows' active set), then the Gauss–Seidel sweeps.
    fn solve_pass(&mut self, pass: usize, sweeps: u32, group: Group, ahead: Option<&Substep>) {
        // Exact rows have no positional bias (the projection corrects positions; a
        // speculative limit's allowance is the same in both passes), so after the biased
        // pass they already hold for the relax pass, except in the islands whose rows
        // the sweeps touched: only those are solved again.
        let direct = group == Group::Exact;
        if direct && pass == 0 {
            self.exact_solve(pass, Islands::All);
            self.settle_active_set(pass);
        }
        let swept = direct && {
            self.direct.clear_marks();
            for &s in &self.store_order {
                self.stores[s].push_direct(&mut self.direct);
            }
            self.direct.promote()
        };
        if direct && pass != 0 && swept {
            self.exact_solve(pass, Islands::Marked);
        }
        for k in 0..sweeps {
            let last = pass == 1 && k + 1 == sweeps;
            if let (true, Some(substep)) = (last, ahead) {
                let mut ahead = Ahead {
                    substep,
                    poses: &self.poses,
                    warm_starts: &mut self.deferred_warm_starts,
                };
                for &s in &self.store_order {
                    self.stores[s].sweep_ahead(&mut self.velocities, &mut ahead, k == 0);
                }
                continue;
            }
            // The relax pass's first sweep of the swept group takes `J` where the bodies
            // now are (see `ErasedStore::sweep`).
            let relinearize_at =
                (pass == 1 && k == 0 && group == Group::Swept).then_some(self.poses.as_slice());
            for &s in &self.store_order {
                self.stores[s].sweep(pass, &mut self.velocities, last, group, relinearize_at);
            }
        }
        if swept && sweeps > 0 {
            // The limits pushed those islands' equality rows off: solve them exactly again
            // against the limits' impulses (block Gauss–Seidel).
            self.exact_solve(pass, Islands::Marked);
        }
    }

    /// The exact solve's active set: after the solve, limit rows whose impulse pulls leave
    /// it and rows the velocities drive across their bounds join it, force-limited
    /// constraints whose impulse came out beyond their bound are fixed on it and leave it
    /// (and rejoin when they would come back inside), and the islands that changed are
    /// factored and solved again, for up to [`ACTIVE_SET_ROUNDS`] rounds (what is left
    /// after them waits for the next substep).
    fn settle_active_set(&mut self, pass: usize) {
        for _ in 0..ACTIVE_SET_ROUNDS {
            self.direct.clear_marks();
            let mut changed = false;
            for &s in &self.store_order {
                changed |=
                    self.stores[s].update_active_rows(&mut self.direct, &mut self.velocities);
            }
            if !changed {
                return;
            }
            self.direct.promote();
            self.direct.factor(Islands::Marked, &self.inverse_masses);
            self.exact_solve(pass, Islands::Marked);
        }
    }

    /// The exact solve of the acyclic islands `which` selects, with the impulses the
    /// sweeps left.
    fn exact_solve(&mut self, pass: usize, which: Islands) {
        self.push_impulses();
        self.direct
            .solve(pass, which, &self.inverse_masses, &mut self.velocities);
        self.pull_impulses();
    }

    /// Hands the impulses the sweeps changed to the exact solve (before it solves).
    fn push_impulses(&mut self) {
        for &s in &self.store_order {
            self.stores[s].push_direct(&mut self.direct);
        }
    }

    /// Reads the exact solve's impulses back into the constraints (after it solved).
    fn pull_impulses(&mut self) {
        for &s in &self.store_order {
            self.stores[s].pull_direct(&self.direct);
        }
    }

    /// One position projection of the acyclic islands `which` selects.
    fn project(&mut self, which: Islands) {
        self.measure_island_errors(true);
        self.direct
            .project(which, &self.inverse_masses, &mut self.poses);
    }

    /// Each acyclic island's summed squared error at the current poses into
    /// `island_errors`; with `rhs`, every stiff row's error also into the direct system as
    /// the projection's right-hand side (a guard's measurement after a projection needs
    /// only the sums: the rows are written again if another projection follows).
    fn measure_island_errors(&mut self, rhs: bool) {
        self.islands.island_errors.clear();
        self.islands
            .island_errors
            .resize(self.direct.island_count(), 0.0);
        if rhs {
            self.direct.clear_reach();
        }
        for &s in &self.store_order {
            self.stores[s].position_errors(
                &self.poses,
                &mut self.direct,
                &mut self.islands.island_errors,
                rhs,
            );
        }
    }

    /// Undoes this substep's position corrections in every acyclic island whose summed
    /// squared error they made worse. Constraints that contradict each other (two welds holding one
    /// body at different angles, a joint pulling a body into a static one's limit) make an
    /// island's system nearly singular, and its projection would then fling bodies by any
    /// distance; an island whose constraints can be met is never reverted, since each
    /// projection shrinks its error.
    /// It measures the errors the corrections left (`island_errors`; `measured`: they are
    /// measured already) but writes no right-hand side: a projection after it measures
    /// again.
    fn keep_projections_that_helped(&mut self, measured: bool) {
        if !measured {
            self.measure_island_errors(false);
        }
        if !self.mark_worse_islands() {
            return;
        }
        // Levenberg–Marquardt from the poses before, on the islands made worse: each
        // iteration relinearises at the current poses and damps each constraint by
        // `damping · K`; a step that lowers an island's error is kept and its damping
        // relaxed, one that does not is undone and the damping raised.
        self.restart_worse_islands();
        let mut active = false;
        for k in 0..self.islands.island_worse.len() {
            let worse = self.islands.island_worse[k];
            self.islands.lm_error[k] = self.islands.errors_before[k];
            self.islands.lm_damping[k] = if worse { LM_INITIAL_DAMPING } else { 0.0 };
            active |= worse;
        }
        for _ in 0..LM_ITERATIONS {
            if !active {
                break;
            }
            self.islands.lm_poses.clone_from(&self.poses);
            self.relinearize();
            self.measure_island_errors(true);
            self.direct.mark_islands(&self.islands.island_worse);
            self.direct
                .project(Islands::Marked, &self.inverse_masses, &mut self.poses);
            self.measure_island_errors(false);
            active = false;
            for k in 0..self.islands.island_worse.len() {
                if !self.islands.island_worse[k] {
                    continue;
                }
                let error = self.islands.island_errors[k];
                if error < self.islands.lm_error[k] {
                    self.islands.lm_error[k] = error;
                    self.islands.lm_damping[k] *= 0.1;
                    self.islands.island_worse[k] = error > LM_TOLERANCE;
                } else {
                    for (b, &island) in self.islands.body_island.iter().enumerate() {
                        if island as usize == k {
                            self.poses[b] = self.islands.lm_poses[b];
                        }
                    }
                    self.islands.lm_damping[k] =
                        (self.islands.lm_damping[k] * 10.0).max(LM_INITIAL_DAMPING);
                    self.islands.island_worse[k] = self.islands.lm_damping[k] <= LM_MAX_DAMPING;
                }
                active |= self.islands.island_worse[k];
            }
        }
        // Later exact solves of this substep (a finishing substep's velocity solve, the
        // relax pass) need the undamped rows, and the step's body impulses what they
        // apply through them.
        self.islands.lm_damping.fill(0.0);
        self.rebase_exact_rows(None);
        // The errors at the poses kept, for whatever reads them next (a RATTLE substep's
        // start).
        self.measure_island_errors(false);
    }

    /// Moves the exact solve's constraints to `J` at the current poses within a substep
    /// (`ErasedStore::rebase_exact_rows`) and refactors.
    fn rebase_exact_rows(&mut self, spring_kick: Option<f32>) {
        for &s in &self.store_order {
            self.stores[s].rebase_exact_rows(
                &self.poses,
                &self.velocities,
                &mut self.direct,
                spring_kick,
            );
        }
        self.direct.factor(Islands::All, &self.inverse_masses);
    }

    /// Marks (for [`Islands::Marked`]) the acyclic islands whose error is now worse than
    /// before this substep's projection; returns whether there are any.
    fn mark_worse_islands(&mut self) -> bool {
        self.direct.clear_marks();
        let mut any = false;
        for (k, (&after, &before)) in self
            .islands
            .island_errors
            .iter()
            .zip(&self.islands.errors_before)
            .enumerate()
        {
            // An island with a non-finite error before has nothing to measure a
            // correction against: it keeps its poses.
            let worse =
                !(before.is_finite() && after <= before * (1.0 + REVERT_MARGIN) + REVERT_FLOOR);
            self.islands.island_worse[k] = worse;
            any |= worse;
        }
        if any {
            self.direct.mark_islands(&self.islands.island_worse);
        }
        any
    }

    /// Puts the bodies of the islands marked worse back where they were before this
    /// substep's projection.
    fn restart_worse_islands(&mut self) {
        for (b, &island) in self.islands.body_island.iter().enumerate() {
            if island != NONE && self.islands.island_worse[island as usize] {
                self.poses[b] = self.islands.projection_start[b];
                self.velocities[b] = self.islands.velocity_start[b];
            }
        }
        for &s in &self.store_order {
            self.stores[s].undo_limit_impulses(&self.direct, &self.islands.island_worse);
        }
        if self.direct.restore_impulses(&self.islands.island_worse) {
            self.pull_impulses();
        }
    }

    /// Rewrites and refactors the rows of every acyclic island at the current poses, each
    /// island damped by its `lm_damping`, for a Levenberg–Marquardt iteration's projection
    /// (the constraints' own Jacobians stay; the restart ends with
    /// [`rebase_exact_rows`](Self::rebase_exact_rows)).
    fn relinearize(&mut self) {
        for &s in &self.store_order {
            self.stores[s].relinearize(
                &self.poses,
                &self.velocities,
                &mut self.direct,
                &self.islands.lm_damping,
            );
        }
        self.direct.factor(Islands::All, &self.inverse_masses);
    }

    /// The store indices in the order of their constraint types' names: the order the
    /// solver visits them in, so that no result depends on which type was added first.
    fn stores_by_name(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.stores.len()).collect();
        order.sort_by_key(|&s| self.stores[s].name());
        order
    }

    /// Recomputes the islands and which of them are solved exactly, and the order of the
    /// stores. Runs at the first step after bodies or constraints changed.
    fn rebuild_topology(&mut self) {
        self.store_order = self.stores_by_name();
        self.links.clear();
        if self.direct_solve {
            for &s in &self.store_order {
                self.stores[s].links(&mut self.links);
            }
        }
        let dynamic: Vec<bool> = self
            .bodies
            .iter()
            .map(|slot| slot.body.as_ref().is_some_and(Body::is_dynamic))
            .collect();
        let assignment = self.direct.rebuild(&self.links, &dynamic);
        let mut it = assignment.iter();
        for &s in &self.store_order {
            if self.direct_solve {
                self.stores[s].assign(&mut it);
            } else {
                self.stores[s].assign(&mut [].iter());
            }
            self.stores[s].order_sweeps(&dynamic);
        }
        // What the constraints carried into this step survives the rebuild: the islands
        // whose every constraint did rebuild their factors from it (`direct::Carry`).
        for &s in &self.store_order {
            self.stores[s].claim_carries(&mut self.direct);
        }
        self.direct.settle_claims();
        self.direct
            .body_islands(self.bodies.len(), &mut self.islands.body_island);
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
        self.islands.exact_masses.reserve(self.bodies.len());
        self.islands.island_substeps.clear();
        self.islands
            .island_substeps
            .resize(islands, self.exact_substeps);
        self.topology_changed = false;
        self.direct_built = self.direct_solve;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hanging chain of `links` links (1 m, 0.25 kg) with a ball of `ball` kg at its end
    /// (none if 0), stepped `steps` times at rest and then, if `push`, once more after
    /// every body is set moving at 1 m/s: the exact substeps its island chose for the last
    /// step.
    fn chosen_substeps(links: usize, ball: f32, steps: usize, push: bool) -> u32 {
        let push = push.then_some(Vec2::X);
        chosen_substeps_with(ConstraintSettings::default(), links, ball, steps, push).0
    }

    /// A space under gravity (0, −10) with a chain of `links` links of 1 m and `link`'s mass
    /// and inertia hanging from a static body by pivots with `settings`, and a ball of
    /// `ball` kg at its end (none if 0), returned with the space.
    fn hanging_chain(
        settings: ConstraintSettings,
        links: usize,
        link: (f32, f32),
        ball: f32,
    ) -> (Space, Option<BodyHandle>) {
        let mut space = Space::new();
        space.gravity = Vec2::new(0.0, -10.0);
        let mut previous = space.add_body(Body::static_body()).unwrap();
        let mut anchor = Vec2::ZERO;
        for i in 0..links {
            let body = Body::dynamic(link.0, link.1).at(Vec2::new(0.0, -0.5 - i as f32));
            let body = space.add_body(body).unwrap();
            space
                .add_constraint_with(
                    crate::PivotJoint::new(previous, body, anchor, Vec2::new(0.0, 0.5)),
                    settings,
                )
                .unwrap();
            (previous, anchor) = (body, Vec2::new(0.0, -0.5));
        }
        let ball = (ball > 0.0).then(|| {
            let at = Vec2::new(0.0, -(links as f32) - 1.0);
            let ball = space.add_body(Body::dynamic(ball, ball).at(at)).unwrap();
            space
                .add_constraint_with(
                    crate::PivotJoint::new(previous, ball, anchor, Vec2::new(0.0, 1.0)),
                    settings,
                )
                .unwrap();
            ball
        });
        (space, ball)
    }

    /// [`chosen_substeps`] with every joint's `settings`, and `push` the velocity every
    /// body is given before the last step (`Vec2::ZERO`: stilled, at rest with its load):
    /// the substeps and whether the island rests.
    fn chosen_substeps_with(
        settings: ConstraintSettings,
        links: usize,
        ball: f32,
        steps: usize,
        push: Option<Vec2>,
    ) -> (u32, bool) {
        let (mut space, _) = hanging_chain(settings, links, (0.25, 0.0221), ball);
        for _ in 0..steps {
            space.step(1.0 / 60.0);
        }
        if let Some(velocity) = push {
            let handles: Vec<_> = space.bodies().map(|(h, _)| h).collect();
            for h in handles {
                if let Ok(mut body) = space.body_mut(h) {
                    let _ = body.set_velocity(velocity);
                    let _ = body.set_angular_velocity(0.0);
                }
            }
            space.step(1.0 / 60.0);
        }
        let chosen = space.exact_substeps_taken().to_vec();
        assert_eq!(chosen.len(), 1, "one island");
        (chosen[0], !space.islands.island_restless[0])
    }

    /// A 6 × 6 mesh of bodies (its top row static) joined by pivots to their right and
    /// lower neighbours, with the joints of the mixed kinds that take each way through a
    /// swept substep's preparation: a limited angle joint (prepared in full every substep),
    /// a soft pivot, an inactive one and one that breaks under its load.
    fn mixed_mesh() -> (Space, Vec<BodyHandle>) {
        let mut space = Space::new();
        space.gravity = Vec2::new(0.0, -10.0);
        let n = 6;
        let bodies: Vec<BodyHandle> = (0..n * n)
            .map(|i| {
                let at = Vec2::new((i % n) as f32, -((i / n) as f32));
                let body = if i < n {
                    Body::static_body().at(at)
                } else {
                    Body::dynamic(1.0, 0.1).at(at)
                };
                space.add_body(body).unwrap()
            })
            .collect();
        let mut joint = 0;
        for i in 0..n * n {
            let (row, column) = (i / n, i % n);
            let mut neighbours = Vec::new();
            if column + 1 < n && row > 0 {
                neighbours.push((i + 1, Vec2::new(0.5, 0.0), Vec2::new(-0.5, 0.0)));
            }
            if row + 1 < n {
                neighbours.push((i + n, Vec2::new(0.0, -0.5), Vec2::new(0.0, 0.5)));
            }
            for (other, anchor1, anchor2) in neighbours {
                let mut settings = ConstraintSettings::default();
                match joint % 7 {
                    3 => settings = ConstraintSettings::soft(8.0, 0.7),
                    5 if joint < 20 => settings.active = false,
                    6 if joint > 40 => {
                        settings.break_under_force = true;
                        settings.max_force = 30.0;
                    }
                    _ => {}
                }
                let pivot = crate::PivotJoint::new(bodies[i], bodies[other], anchor1, anchor2);
                space.add_constraint_with(pivot, settings).unwrap();
                if joint % 9 == 4 {
                    let angle = crate::AngleJoint::new(bodies[i], bodies[other], -1.5, 1.5);
                    space.add_constraint(angle).unwrap();
                }
                joint += 1;
            }
        }
        (space, bodies)
    }

    #[test]
    fn a_substep_prepared_by_the_last_sweep_before_it_steps_as_one_prepared_apart() {
        let (mut ahead, bodies) = mixed_mesh();
        let (mut apart, apart_bodies) = mixed_mesh();
        apart.prepare_ahead = false;
        // Knocked sideways so that every joint works.
        for (space, bodies) in [(&mut ahead, &bodies), (&mut apart, &apart_bodies)] {
            for &b in &bodies[6..] {
                let _ = space.body_mut(b).unwrap().set_velocity(Vec2::new(3.0, 1.0));
            }
        }
        let mut broke = 0;
        for step in 0..240 {
            ahead.step(1.0 / 60.0);
            apart.step(1.0 / 60.0);
            assert!(
                ahead
                    .deferred_warm_starts
                    .iter()
                    .all(|w| *w == Velocity::default()),
                "deferred warm starts left over after step {step}"
            );
            assert_eq!(
                ahead.broken_constraints().len(),
                apart.broken_constraints().len(),
                "breaks at step {step}"
            );
            broke += ahead.broken_constraints().len();
            for (&b, &c) in bodies.iter().zip(&apart_bodies) {
                let (a, p) = (ahead.body(b).unwrap(), apart.body(c).unwrap());
                // The same updates, the warm starts summed in another order (measured:
                // 1e-6 m and 3e-5 m/s apart at most over the run; a limit reached would
                // turn such a difference into a jump, so the angle joints' limits are
                // wide: only their preparation matters here).
                assert!(
                    a.position().distance(p.position()) < 2e-5
                        && (a.angle() - p.angle()).abs() < 2e-5
                        && a.velocity().distance(p.velocity()) < 5e-4,
                    "step {step}: {:?} against {:?}",
                    (a.position(), a.velocity()),
                    (p.position(), p.velocity())
                );
            }
        }
        assert!(broke > 0, "a joint broke (the breaking path was taken)");
    }

    /// A 40-link chain hanging from a static body, every link set swinging sideways (the
    /// deeper the faster): a moving island that carries its factor in most of its steps.
    fn swinging_chain() -> (Space, Vec<BodyHandle>) {
        let (mut space, _) = hanging_chain(ConstraintSettings::default(), 40, (0.25, 0.02), 0.0);
        let links: Vec<BodyHandle> = space
            .bodies()
            .filter(|(_, b)| b.is_dynamic())
            .map(|(h, _)| h)
            .collect();
        for &b in &links {
            let depth = -space.body(b).unwrap().position().y;
            let _ = space
                .body_mut(b)
                .unwrap()
                .set_velocity(Vec2::new(0.05 * depth, 0.0));
        }
        (space, links)
    }

    /// The largest anchor separation of [`swinging_chain`]'s joints.
    fn chain_error(space: &Space, links: &[BodyHandle]) -> f32 {
        chain_error_from(space, links, Vec2::ZERO)
    }

    /// [`chain_error`] of a chain whose top joint's anchor is at `top`.
    fn chain_error_from(space: &Space, links: &[BodyHandle], top: Vec2) -> f32 {
        let mut above = top;
        let mut worst = 0.0f32;
        for &b in links {
            let pose = space.body(b).unwrap().pose();
            worst = worst.max(pose.world_point(Vec2::new(0.0, 0.5)).distance(above));
            above = pose.world_point(Vec2::new(0.0, -0.5));
        }
        worst
    }

    impl Space {
        /// A new space in this one's state, with its handles.
        fn snapshot_copy(&self) -> Space {
            Space::from_snapshot(&self.snapshot())
        }
    }

    /// Whether some island starts the next step from its carried factor.
    fn carries(space: &Space) -> bool {
        (0..space.direct.island_count())
            .any(|k| space.direct.island_carry(k) == crate::solver::direct::Carry::Kept)
    }

    /// Steps `carried` and `fresh` (the same space, `fresh` factorising every step anew)
    /// 300 times: the steps `carried` started from a carried factor, how far their
    /// `links` came apart, and the largest of `error` (of each space) over the run.
    fn step_carried_and_fresh(
        (mut carried, mut fresh): (Space, Space),
        links: &[BodyHandle],
        error: impl Fn(&Space) -> f32,
    ) -> (usize, f32, [f32; 2]) {
        fresh.carry_factors = false;
        let (mut carried_steps, mut farthest, mut worst) = (0, 0.0f32, [0.0f32; 2]);
        for _ in 0..300 {
            carried_steps += usize::from(carries(&carried));
            carried.step(1.0 / 60.0);
            fresh.step(1.0 / 60.0);
            for &b in links {
                let (a, b) = (carried.body(b).unwrap(), fresh.body(b).unwrap());
                farthest = farthest.max(a.position().distance(b.position()));
            }
            worst = [error(&carried).max(worst[0]), error(&fresh).max(worst[1])];
        }
        (carried_steps, farthest, worst)
    }

    #[test]
    fn a_chain_falling_flat_stores_no_negligible_velocity_or_turn() {
        // Released horizontally, the far links fall without turning until the swing reaches
        // them; the solve's rounding gives them angular velocities of 1e-20 rad/s and turns
        // of 1e-39 rad, subnormal in `f32` (each operation on one a microcode assist on
        // x86), unless the solver stores such noise as zero (`types::NEGLIGIBLE`): then no
        // velocity is below it, and no rotation subnormal.
        let mut space = Space::new();
        space.gravity = Vec2::new(0.0, -10.0);
        let mut previous = space.add_body(Body::static_body()).unwrap();
        let mut anchor = Vec2::ZERO;
        for i in 0..100 {
            let body = Body::dynamic(0.25, 0.02).at(Vec2::new(0.5 + i as f32, 0.0));
            let body = space.add_body(body).unwrap();
            space
                .add_constraint(crate::PivotJoint::new(
                    previous,
                    body,
                    anchor,
                    Vec2::new(-0.5, 0.0),
                ))
                .unwrap();
            (previous, anchor) = (body, Vec2::new(0.5, 0.0));
        }
        let below = |x: f32, least: f32| x != 0.0 && x.abs() < least;
        let (mut stored, mut turning) = (0, 0);
        for _ in 0..120 {
            space.step(1.0 / 60.0);
            for (_, body) in space.bodies().filter(|(_, b)| b.is_dynamic()) {
                let (pose, v) = (body.pose(), body.velocity());
                let velocity = [v.x, v.y, body.angular_velocity()];
                stored += velocity
                    .into_iter()
                    .filter(|&x| below(x, crate::types::NEGLIGIBLE))
                    .count();
                stored += [pose.cos, pose.sin]
                    .into_iter()
                    .filter(|&x| below(x, f32::MIN_POSITIVE))
                    .count();
                turning += usize::from(body.angular_velocity() != 0.0);
            }
        }
        assert_eq!(
            stored, 0,
            "negligible velocities or subnormal rotations stored"
        );
        assert!(turning > 1000, "only {turning} body steps turned");
    }

    #[test]
    fn a_step_started_from_the_carried_factor_ends_close_to_one_factorised_anew() {
        let (space, links) = swinging_chain();
        let (carried_steps, farthest, worst) =
            step_carried_and_fresh((space.snapshot_copy(), space), &links, |s| {
                chain_error(s, &links)
            });
        assert!(
            carried_steps > 250,
            "carried in {carried_steps} of 300 steps"
        );
        assert!(farthest < 2e-4, "{farthest} m apart");
        assert!(worst[0] < 2.0 * worst[1] + 1e-5, "joint errors {worst:?}");
    }

    #[test]
    fn a_carried_start_takes_a_kinematic_anchor_as_a_fresh_factor_does() {
        // A kinematic body's velocity enters the carried rows' bias through the rows the
        // factor holds (`write_carried_bias`): a chain hung from one that moves and turns.
        let build = || {
            let mut space = Space::new();
            space.gravity = Vec2::new(0.0, -10.0);
            let anchor = space
                .add_body(Body::kinematic().with_velocity(Vec2::new(1.0, 0.0)))
                .unwrap();
            let _ = space.body_mut(anchor).unwrap().set_angular_velocity(0.5);
            let mut previous = anchor;
            let mut links = Vec::new();
            for i in 0..20 {
                let at = Vec2::new(0.3, -0.5 - i as f32);
                let link = space.add_body(Body::dynamic(0.25, 0.02).at(at)).unwrap();
                let above = if i == 0 {
                    Vec2::new(0.3, 0.0)
                } else {
                    Vec2::new(0.0, -0.5)
                };
                space
                    .add_constraint(crate::PivotJoint::new(
                        previous,
                        link,
                        above,
                        Vec2::new(0.0, 0.5),
                    ))
                    .unwrap();
                (previous, links) = (link, [links, vec![link]].concat());
            }
            (space, anchor, links)
        };
        let (space, anchor, links) = build();
        let (carried_steps, farthest, [worst, _]) =
            step_carried_and_fresh((space.snapshot_copy(), space), &links, |s| {
                let top = s
                    .body(anchor)
                    .unwrap()
                    .pose()
                    .world_point(Vec2::new(0.3, 0.0));
                chain_error_from(s, &links, top)
            });
        assert!(
            carried_steps > 100,
            "carried in {carried_steps} of 300 steps"
        );
        // 1.4e-3 m apart after 300 steps, growing about linearly: one step from the
        // same state differs by 2.8e-4 m/s (of a swing of about 1 m/s) where the start
        // solve's factor is a step old. A chain launched at 1 m/s from a static anchor
        // does the same; without the kinematic body's share in the bias it is 5e-2 m.
        assert!(farthest < 3e-3, "{farthest} m apart");
        assert!(worst < 1e-5, "joint error {worst} m");
    }

    #[test]
    fn a_carried_factor_survives_a_snapshot_and_an_unrelated_rebuild_bit_for_bit() {
        let (mut space, links) = swinging_chain();
        let mut steps = 0;
        while !(carries(&space) && steps > 30) {
            space.step(1.0 / 60.0);
            steps += 1;
            assert!(steps < 300, "the chain never carried its factor");
        }
        let mut restored = Space::from_snapshot(&space.snapshot());
        // The same space with an unrelated body added, which rebuilds its islands.
        let mut rebuilt = Space::from_snapshot(&space.snapshot());
        rebuilt.step(1.0 / 60.0);
        space.step(1.0 / 60.0);
        restored.step(1.0 / 60.0);
        let _ = rebuilt.add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(100.0, 0.0)));
        let mut restored_carries = 0;
        for _ in 0..60 {
            restored_carries += usize::from(carries(&space));
            for s in [&mut space, &mut restored, &mut rebuilt] {
                s.step(1.0 / 60.0);
            }
            for &b in &links {
                let a = space.body(b).unwrap();
                for other in [&restored, &rebuilt] {
                    let o = other.body(b).unwrap();
                    assert_eq!(
                        (a.pose(), a.velocity_state()),
                        (o.pose(), o.velocity_state())
                    );
                }
            }
        }
        assert!(restored_carries > 0);
    }

    #[test]
    fn exact_substeps_follow_the_load() {
        // Moving, a chain of 10 links needs the fewest RATTLE substeps, and so does one of
        // 200, whose top links turn against 500 N (`ω·dt` 1.8, within two substeps of
        // `STABLE_SWING`); a ball of 16,000 links' mass on 40 of them stiffens the links'
        // turning, and takes many more.
        let light = chosen_substeps(10, 0.0, 30, true);
        let long = chosen_substeps(200, 0.0, 30, true);
        let heavy = chosen_substeps(40, 4000.0, 30, true);
        assert_eq!(light, MIN_RATTLE_SUBSTEPS, "10 links");
        assert_eq!(long, MIN_RATTLE_SUBSTEPS, "200 links");
        assert!(heavy >= 4 * long, "40 links and a ball: {heavy}");
        // At rest, all three take one, the ball's chain weighted.
        for (links, ball) in [(10, 0.0), (200, 0.0), (40, 4000.0)] {
            assert_eq!(
                chosen_substeps(links, ball, 30, false),
                1,
                "{links} links at rest"
            );
        }
        // The first step, with no load to read, is not taken as resting.
        let unloaded = ConstraintSettings::default();
        assert!(!chosen_substeps_with(unloaded, 200, 0.0, 1, None).1);
        // Soft joints rest only where no body needs weighting: their springs are relative
        // to the masses, which the weighting would make stiffer. At rest or not, a spring
        // takes the substeps that resolve it (30 Hz: every one of them).
        let soft = ConstraintSettings::soft(30.0, 1.0);
        let still = Some(Vec2::ZERO);
        assert_eq!(
            chosen_substeps_with(soft, 10, 0.0, 120, still),
            (Space::new().exact_substeps, true),
            "soft, light"
        );
        let gentle = ConstraintSettings::soft(1.0, 1.0);
        assert_eq!(
            chosen_substeps_with(gentle, 10, 0.0, 120, still),
            (1, true),
            "soft, 1 Hz"
        );
        assert!(
            !chosen_substeps_with(soft, 10, 4000.0, 120, still).1,
            "soft, ball"
        );
        // Off: every island takes all of them.
        let mut space = Space::new();
        space.adaptive_substeps = false;
        let a = space.add_body(Body::static_body()).unwrap();
        let b = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
        space
            .add_constraint(crate::PivotJoint::new(a, b, Vec2::ZERO, Vec2::X))
            .unwrap();
        space.step(1.0 / 60.0);
        assert_eq!(space.exact_substeps_taken(), [space.exact_substeps]);
    }

    #[test]
    fn body_handles_are_generational_and_space_bound() {
        let mut a = Space::new();
        let mut b = Space::new();
        let h = a.add_body(Body::dynamic(1.0, 1.0)).unwrap();
        let other = b.add_body(Body::dynamic(2.0, 1.0)).unwrap();
        assert_eq!(h.index, other.index);
        assert_eq!(a.body(other), Err(Error::ForeignBody));
        assert_eq!(a.body(h).unwrap().mass(), 1.0);
        a.remove_body(h).unwrap();
        assert_eq!(a.body(h), Err(Error::StaleBody));
        assert_eq!(a.remove_body(h), Err(Error::StaleBody));
        // The slot is reused with a new generation; the old handle stays stale.
        let h2 = a.add_body(Body::dynamic(3.0, 1.0)).unwrap();
        assert_eq!(h2.index, h.index);
        assert_ne!(h2.generation, h.generation);
        assert_eq!(a.body(h), Err(Error::StaleBody));
        assert_eq!(a.body(h2).unwrap().mass(), 3.0);
        assert_eq!(a.body_count(), 1);
    }

    #[test]
    fn free_fall_and_kinematic_motion() {
        let mut space = Space::new();
        space.gravity = Vec2::new(0.0, -10.0);
        let d = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
        let k = space
            .add_body(
                Body::kinematic()
                    .with_velocity(Vec2::X)
                    .with_angular_velocity(1.0),
            )
            .unwrap();
        let s = space.add_body(Body::static_body().at(Vec2::Y)).unwrap();
        for _ in 0..60 {
            space.step(1.0 / 60.0);
        }
        let v = space.body(d).unwrap().velocity();
        assert!((v.y + 10.0).abs() < 1e-4, "{v}");
        let kb = space.body(k).unwrap();
        assert!((kb.position() - Vec2::X).length() < 1e-4);
        assert!((kb.angle() - 1.0).abs() < 1e-4);
        assert!((kb.pose().cos - 1.0f32.cos()).abs() < 1e-4);
        assert_eq!(space.body(s).unwrap().position(), Vec2::Y);
    }

    #[test]
    fn forces_are_integrated_and_cleared() {
        let mut space = Space::new();
        let d = space.add_body(Body::dynamic(2.0, 0.5)).unwrap();
        space.apply_force(d, Vec2::new(4.0, 0.0)).unwrap();
        space.apply_torque(d, 1.0).unwrap();
        space.step(0.5);
        let b = space.body(d).unwrap();
        assert!((b.velocity().x - 1.0).abs() < 1e-6);
        assert!((b.angular_velocity() - 1.0).abs() < 1e-6);
        assert_eq!(b.force(), Vec2::ZERO);
        space.step(0.5);
        assert!((space.body(d).unwrap().velocity().x - 1.0).abs() < 1e-6);
    }
}
