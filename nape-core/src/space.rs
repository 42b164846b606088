//! The [`Space`]: bodies, constraints and the step.

use std::any::TypeId;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};

use glam::Vec2;

use crate::body::{Body, BodyHandle, BodyKind, BodyMut, BodySlot};
use crate::constraint::{Constraint, InverseMass, Pose, SharedSlots};
use crate::error::Error;
use crate::settings::ConstraintSettings;
use crate::solver::step::{Solver, StepSettings, stores_by_name};
use crate::solver::{ErasedStore, Store, limits_apart};
pub use crate::types::{BodyImpulse, BreakCause, BreakEvent, ConstraintId};
use crate::types::{DrawPrimitive, WorldPose, in_frame};

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
    /// Acceleration applied to every dynamic body, in m/s², at most
    /// [`MAX_ACCELERATION`](crate::limits::MAX_ACCELERATION) long. Default `Vec2::ZERO` (as
    /// in Nape).
    pub gravity: Vec2,
    /// Substeps per step of the islands solved by Gauss–Seidel sweeps — those with loops
    /// (meshes), bodies without constraints, and every island when `direct_solve` is off —
    /// in the soft step of Box2D v3: each integrates, solves, moves the bodies and relaxes.
    /// More substeps resolve fast rotations and meshes better (a mesh's joints are as
    /// stiff as 0.3 of the substep rate allows). Default 5: Box2D's 100 × 100 joint grid
    /// then hangs within 0.28 m (0.04 m at the end of 5 s). 0 is treated as 1; at most
    /// [`MAX_SUBSTEPS`](crate::limits::MAX_SUBSTEPS).
    pub substeps: u32,
    /// Substeps per step of the islands solved exactly (acyclic: chains, trees, ragdolls,
    /// bridges; see `direct_solve`), the most each takes with `adaptive_substeps`. An
    /// exact solve needs no iterations, but RATTLE's periods and energy need the motion
    /// resolved: default 64 (a 200-link chain whipping through takes up to 50 for a few
    /// steps, 2 or 3 otherwise; held to 16, its energy jumped by 2 % of its swing in the
    /// step of a whip). 0 is treated as 1; at most
    /// [`MAX_SUBSTEPS`](crate::limits::MAX_SUBSTEPS).
    pub exact_substeps: u32,
    /// Whether each acyclic island takes only as many of its `exact_substeps` as it needs:
    /// enough that no body spins by more than 0.1 rad per substep, nor swings by more
    /// than 1.5 rad in the transverse mode its joints' last forces stiffen (a loaded
    /// chain or rope), and at least 2 for an island stepped by RATTLE (velocity Verlet's
    /// period error is `(ω·h)²/24`). An island at rest (every body slower than Box2D's
    /// sleep tolerances, 0.05 m/s and 0.035 rad/s) takes one, its loaded bodies solved
    /// with more mass where the swing needs it (unless such a body has a soft joint,
    /// whose spring is relative to the masses), which can only take energy out of what
    /// moves in it. A moving island takes no fewer substeps than it took in its last
    /// step, until it rests: each change of an island's substep count moves the energy
    /// RATTLE keeps by a little, and a count that followed the motion down and up again
    /// made those moves a random walk (a 20-link chain swinging for an hour drifted by
    /// 2.6 % of its swing; 0.44 % held). Default `true`: a 200-link chain hanging at rest
    /// takes 1; released horizontally it takes 2 or 3 at first, and from its first whip on
    /// the most that whip needed (about 55).
    pub adaptive_substeps: bool,
    /// Gauss–Seidel sweeps per substep with the positional bias, for the constraints of
    /// islands with loops (meshes). Default 1; at most
    /// [`MAX_ITERATIONS`](crate::limits::MAX_ITERATIONS).
    pub velocity_iterations: u32,
    /// Gauss–Seidel sweeps per substep without bias (the relax pass). Default 1; at most
    /// [`MAX_ITERATIONS`](crate::limits::MAX_ITERATIONS).
    pub relax_iterations: u32,
    /// Whether acyclic islands (chains, trees, ragdolls, bridges) are solved exactly by a
    /// sparse factorisation each substep (see [`solver`](crate::solver)). Default `true`;
    /// `false` solves every island by Gauss–Seidel sweeps alone.
    pub direct_solve: bool,
    /// Stiffness (Hz) given to the stiff rows of islands with loops, which Gauss–Seidel
    /// sweeps cannot make rigid without diverging; always capped at 0.3 of the substep
    /// rate (90 Hz at 60 Hz and 5 substeps), the stiffest they stay stable at.
    /// Positive (infinity allowed). Default `f32::INFINITY`: as stiff as the substeps allow.
    pub joint_hertz: f32,
    /// Damping ratio of that stiffness, in `0 ..= 1e6`. Default 2 (well over-damped).
    pub joint_damping_ratio: f32,
    /// The fastest a dynamic body may move, in m/s (as Box2D v3's `maximumLinearSpeed`);
    /// its rotation is limited to a quarter turn per substep. A solve that would exceed
    /// either is scaled down, so a badly posed scene slows instead of exploding. Positive and
    /// at most [`MAX_SPEED`](crate::limits::MAX_SPEED). Default 400.
    pub max_linear_speed: f32,
    bodies: Vec<BodySlot>,
    free_bodies: Vec<u32>,
    body_count: usize,
    stores: Vec<Box<dyn ErasedStore>>,
    store_of: HashMap<TypeId, u32>,
    broken: Vec<BreakEvent>,
    /// Constraints found non-finite at the end of the last step.
    faulty: Vec<ConstraintId>,
    /// The step's state: compact body arrays, islands, the direct system.
    solver: Solver,
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
    /// An empty space: no gravity (as in Nape), exact solves of acyclic islands in up to 16
    /// substeps (as many as each island's motion needs), 5 substeps with one biased and one
    /// relax sweep each for the others.
    #[must_use]
    pub fn new() -> Self {
        Self {
            id: NEXT_SPACE_ID.fetch_add(1, Ordering::Relaxed),
            gravity: Vec2::ZERO,
            substeps: 5,
            exact_substeps: 64,
            adaptive_substeps: true,
            velocity_iterations: 1,
            relax_iterations: 1,
            direct_solve: true,
            joint_hertz: f32::INFINITY,
            joint_damping_ratio: crate::solver::step::DEFAULT_JOINT_DAMPING_RATIO,
            max_linear_speed: 400.0,
            bodies: Vec::new(),
            free_bodies: Vec::new(),
            body_count: 0,
            stores: Vec::new(),
            store_of: HashMap::new(),
            broken: Vec::new(),
            faulty: Vec::new(),
            solver: Solver::default(),
        }
    }

    // ----- bodies -------------------------------------------------------------------

    /// Adds a body.
    ///
    /// # Errors
    /// [`Error::InvalidBody`] if [`Body::validate`] fails (NaN anywhere, a dynamic body
    /// whose mass is not finite and positive, ...).
    pub fn add_body(&mut self, mut body: Body) -> Result<BodyHandle, Error> {
        self.solver.topology_changed();
        body.validate()?;
        // A body read from a space joins this one without its old island's substeps.
        body.substeps_held = 0;
        let index = match self.free_bodies.pop() {
            Some(i) => i,
            None => {
                self.bodies.push(BodySlot {
                    generation: 0,
                    body: None,
                });
                self.solver.add_body_slot();
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
        self.solver.topology_changed();
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
        self.solver.topology_changed();
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
        self.solver.clear_body_slot(i);
        Ok(body)
    }

    /// Adds `force` (N) at the body's centre of mass for the next step.
    ///
    /// # Errors
    /// [`Error::StaleBody`] or [`Error::ForeignBody`]; [`Error::InvalidBody`] for a value
    /// that is not finite or would take the body out of the [`limits`](crate::limits) (the
    /// body is unchanged then).
    pub fn apply_force(&mut self, h: BodyHandle, force: Vec2) -> Result<(), Error> {
        self.body_mut(h)?.apply_force(force)
    }

    /// Adds `torque` (N·m) to the body for the next step.
    ///
    /// # Errors
    /// [`Error::StaleBody`] or [`Error::ForeignBody`]; [`Error::InvalidBody`] for a value
    /// that is not finite or would take the body out of the [`limits`](crate::limits) (the
    /// body is unchanged then).
    pub fn apply_torque(&mut self, h: BodyHandle, torque: f32) -> Result<(), Error> {
        self.body_mut(h)?.apply_torque(torque)
    }

    /// Applies an instantaneous impulse (N·s) at the body's centre of mass.
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
        self.solver.topology_changed();
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
        let world: [WorldPose; B] = std::array::from_fn(|s| {
            self.bodies[bodies[s]]
                .body
                .as_ref()
                .map_or(WorldPose::default(), Body::pose)
        });
        let current = in_frame(&world, constraint.translation_invariant());
        for probe in 0..3u8 {
            let poses: [Pose; B] = std::array::from_fn(|s| {
                if probe == 0 {
                    return current[s];
                }
                let k = (s + 1) as f32 * f32::from(probe);
                let p = current[s];
                Pose::new(
                    p.position + Vec2::new(0.37 * k, -0.61 * k + 0.13),
                    p.total_angle() + f64::from(0.7 * k + 0.29),
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
    /// impulse queries read zero until the next step, and rebuilds the islands at the next
    /// step. Other parameters keep the warm start, as in Nape, and the islands: changing
    /// a motor's rate or an anchor every frame allocates nothing and keeps what each
    /// island has learnt (its substeps), unless it changes whether a limit's bounds are
    /// apart, which decides how a mesh is swept.
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
        let mut updated = self.constraint(h)?.clone();
        f(&mut updated);
        let bodies = self.check_constraint::<T, D, B>(&updated)?;
        let (entry, cold) = self
            .typed_store_mut(h)?
            .get_mut(h.index, h.generation)
            .ok_or(Error::StaleConstraint)?;
        let retargeted = bodies != entry.bodies;
        let rebuild = retargeted || limits_apart(&updated) != limits_apart(&entry.constraint);
        if retargeted {
            entry.set_body_indices(cold, bodies);
            entry.clear_warm_start(cold);
        }
        entry.constraint = updated;
        entry.parameters_changed();
        if rebuild {
            self.solver.topology_changed();
        }
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
        self.solver.topology_changed();
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
        self.solver.topology_changed();
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

    /// The physical impulse `λ` (constraint space, one entry per row: N·s for a row in
    /// metres, N·m·s for a row in radians) the constraint applied over the last step (zero
    /// for an inactive or slack constraint).
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
        self.solver.topology_changed();
        self.typed_store_mut(h)?
            .remove(h.index, h.generation)
            .ok_or(Error::StaleConstraint)
    }

    /// Removes the constraint `id` names, whatever its type.
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] or [`Error::ForeignConstraint`].
    pub fn remove_constraint_id(&mut self, id: ConstraintId) -> Result<(), Error> {
        self.solver.topology_changed();
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
    /// In N·s (linear) and N·m·s (angular). It holds every impulse the step applied, the
    /// position solve's too, so on a body no other constraint acts on it equals the change
    /// of momentum; the projections that move no velocity (an error an island starts its
    /// step with, a resting island's) apply none.
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

    /// The poses of the bodies of the constraint `handle` names, in the frame the solver
    /// gives its methods: relative to its first body's position where it is
    /// [`translation_invariant`](Constraint::translation_invariant), else world positions
    /// rounded to `f32`. What to call `position_error` or `jacobian` with from outside a
    /// step.
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] / [`Error::ForeignConstraint`] for the handle, or a stale
    /// body error if one of its bodies is gone.
    pub fn constraint_poses<T, const D: usize, const B: usize>(
        &self,
        handle: ConstraintHandle<T>,
    ) -> Result<[Pose; B], Error>
    where
        T: Constraint<D, B>,
    {
        let joint = self.constraint(handle)?;
        let world = self.world_poses(joint.bodies())?;
        Ok(in_frame(&world, joint.translation_invariant()))
    }

    /// The world poses of `bodies`, or the first stale body's error.
    fn world_poses<const B: usize>(
        &self,
        bodies: [BodyHandle; B],
    ) -> Result<[WorldPose; B], Error> {
        let mut world = [WorldPose::default(); B];
        for (pose, body) in world.iter_mut().zip(bodies) {
            *pose = self.body(body)?.pose();
        }
        Ok(world)
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
        let poses = self.world_poses(joint.bodies())?.map(|p| p.to_f32());
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
        self.solver.exact_substeps_taken()
    }

    /// Every constraint of the space: its id, its type's [`Constraint::NAME`] and its
    /// distinct bodies in slot order; by type name, then in the order of each type's
    /// storage (the order the solver visits them in, which a step that rebuilds the
    /// islands may change: constraints in loops are swept in colour order).
    pub fn constraints(&self) -> impl Iterator<Item = ConstraintInfo> + use<> {
        let order = stores_by_name(&self.stores);
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
    pub fn body_poses(&self) -> impl Iterator<Item = (BodyHandle, WorldPose)> + '_ {
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
                (p.position.x.to_bits() >> 32) as u32,
                p.position.x.to_bits() as u32,
                (p.position.y.to_bits() >> 32) as u32,
                p.position.y.to_bits() as u32,
                p.cos.to_bits(),
                p.sin.to_bits(),
                p.turns.cast_unsigned(),
                b.velocity().x.to_bits(),
                b.velocity().y.to_bits(),
                b.angular_velocity().to_bits(),
                b.force().x.to_bits(),
                b.force().y.to_bits(),
                b.torque().to_bits(),
                b.mass().to_bits(),
                b.inertia().to_bits(),
                u32::from(b.substeps_held),
            ] {
                feed(x);
            }
        }
        for s in stores_by_name(&self.stores) {
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
            stores: snapshot.stores.iter().map(|s| s.clone_box()).collect(),
            store_of: snapshot.store_of.clone(),
            broken: snapshot.broken.clone(),
            faulty: snapshot.faulty.clone(),
            solver: Solver::with_bodies(n),
        }
    }

    // ----- the step -----------------------------------------------------------------

    /// Advances the simulation by `dt` seconds
    /// ([`MIN_DT`](crate::limits::MIN_DT)` ..= `[`MAX_DT`](crate::limits::MAX_DT)).
    /// Acyclic islands are solved exactly and step by RATTLE (velocity Verlet with SHAKE's
    /// position solve and a closing velocity projection) in as many of
    /// [`exact_substeps`](Self::exact_substeps) substeps as their motion needs; islands with
    /// loops take Box2D v3's soft step in [`substeps`](Self::substeps) substeps of
    /// Gauss–Seidel sweeps. Kinematic bodies keep their velocity; static bodies never move.
    /// ARCHITECTURE.md describes the phases.
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
        self.solver.step(
            self.step_settings(),
            &mut self.bodies,
            &mut self.stores,
            &mut self.broken,
            &mut self.faulty,
            dt,
        );
        Ok(())
    }

    /// The settings a step reads.
    fn step_settings(&self) -> StepSettings {
        StepSettings {
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
        }
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::step::MIN_RATTLE_SUBSTEPS;
    use crate::types::Velocity;

    /// A 200-link chain released horizontal from a pin at the origin swings its far end
    /// 200 m out; its joints read their positions relative to their first body, so their
    /// rows round with the links' length, not with the distance from the origin: SHAKE
    /// takes them to that floor (within 2e-6 m, where absolute `f32` positions left 1e-5
    /// m) in at most two corrections a substep on average, and stops there.
    #[test]
    fn shake_stops_at_the_rounding_floor() {
        let mut space = Space::new();
        space.gravity = Vec2::new(0.0, -10.0);
        let mut previous = space.add_body(Body::static_body()).unwrap();
        let mut anchor = Vec2::ZERO;
        let mut links = Vec::new();
        for i in 0..200 {
            let body = Body::dynamic(0.25, 0.25 / 12.0).at(Vec2::new(0.5 + i as f32, 0.0));
            let body = space.add_body(body).unwrap();
            let pivot =
                crate::joints::PivotJoint::new(previous, body, anchor, Vec2::new(-0.5, 0.0));
            space.add_constraint(pivot).unwrap();
            links.push(body);
            previous = body;
            anchor = Vec2::new(0.5, 0.0);
        }
        let end = |space: &Space, body, x| {
            space
                .body(body)
                .unwrap()
                .pose()
                .world_point(Vec2::new(x, 0.0))
        };
        let (mut substeps, mut worst) = (0, 0.0f32);
        for _ in 0..120 {
            space.step(1.0 / 60.0);
            substeps += space.exact_substeps_taken().iter().sum::<u32>();
            for pair in links.windows(2) {
                let gap = end(&space, pair[0], 0.5) - end(&space, pair[1], -0.5);
                worst = worst.max(gap.length() as f32);
            }
        }
        let corrections = space.solver.islands.shake_corrections;
        let per_substep = corrections as f32 / substeps as f32;
        println!("{corrections} SHAKE corrections in {substeps} substeps, joints within {worst} m");
        assert!(
            per_substep <= 2.0,
            "{corrections} corrections in {substeps} substeps"
        );
        assert!(worst <= 2e-6, "joint error {worst} m");
    }

    /// A pendulum stopped at a turning point moves slower than the rest speeds but is pulled
    /// hard by gravity: its island keeps the moving path (RATTLE on two or more substeps,
    /// which keeps its energy), where the resting path's single weighted substep would
    /// change it. Stilled where it hangs, the same pendulum rests.
    #[test]
    fn a_pendulum_at_a_turning_point_does_not_rest() {
        let rests_when_stilled = |angle: f32| {
            let mut space = Space::new();
            space.gravity = Vec2::new(0.0, -10.0);
            let ground = space.add_body(Body::static_body()).unwrap();
            let down = Vec2::new(angle.sin(), -angle.cos());
            let rod = Body::rectangle(1.0, 0.05, 1.0)
                .at(down * 0.5)
                .with_angle(f64::from(angle) - std::f64::consts::FRAC_PI_2);
            let rod = space.add_body(rod).unwrap();
            space
                .add_constraint(crate::PivotJoint::new(
                    ground,
                    rod,
                    Vec2::ZERO,
                    Vec2::new(-0.5, 0.0),
                ))
                .unwrap();
            // Loaded by a first step, then stopped where it stands.
            space.step(1.0 / 60.0);
            space
                .body_mut(rod)
                .unwrap()
                .set_velocity(Vec2::ZERO)
                .unwrap();
            space
                .body_mut(rod)
                .unwrap()
                .set_angular_velocity(0.0)
                .unwrap();
            space.step(1.0 / 60.0);
            let restless = space.solver.islands.island_restless[0];
            let substeps = space.exact_substeps_taken()[0];
            assert_eq!(restless, substeps > 1, "substeps {substeps}");
            !restless
        };
        assert!(rests_when_stilled(0.0), "hanging");
        for angle in [0.1f32, 0.5, 1.0, 1.5] {
            assert!(!rests_when_stilled(angle), "stopped at {angle} rad");
        }
    }

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
        (chosen[0], !space.solver.islands.island_restless[0])
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
        apart.solver.prepare_ahead = false;
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
                    .solver
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
            let depth = -space.body(b).unwrap().position().y as f32;
            let _ = space
                .body_mut(b)
                .unwrap()
                .set_velocity(Vec2::new(0.05 * depth, 0.0));
        }
        (space, links)
    }

    /// The largest anchor separation of [`swinging_chain`]'s joints.
    fn chain_error(space: &Space, links: &[BodyHandle]) -> f32 {
        chain_error_from(space, links, glam::DVec2::ZERO)
    }

    /// [`chain_error`] of a chain whose top joint's anchor is at `top`.
    fn chain_error_from(space: &Space, links: &[BodyHandle], top: glam::DVec2) -> f32 {
        let mut above = top;
        let mut worst = 0.0f32;
        for &b in links {
            let pose = space.body(b).unwrap().pose();
            worst = worst.max(pose.world_point(Vec2::new(0.0, 0.5)).distance(above) as f32);
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
        (0..space.solver.direct.island_count())
            .any(|k| space.solver.direct.island_carry(k) == crate::solver::direct::Carry::Kept)
    }

    /// Steps `carried` and `fresh` (the same space, `fresh` factorising every step anew)
    /// 300 times: the steps `carried` started from a carried factor, how far their
    /// `links` came apart, and the largest of `error` (of each space) over the run.
    fn step_carried_and_fresh(
        (mut carried, mut fresh): (Space, Space),
        links: &[BodyHandle],
        error: impl Fn(&Space) -> f32,
    ) -> (usize, f32, [f32; 2]) {
        fresh.solver.carry_factors = false;
        let (mut carried_steps, mut farthest, mut worst) = (0, 0.0f32, [0.0f32; 2]);
        for _ in 0..300 {
            carried_steps += usize::from(carries(&carried));
            carried.step(1.0 / 60.0);
            fresh.step(1.0 / 60.0);
            for &b in links {
                let (a, b) = (carried.body(b).unwrap(), fresh.body(b).unwrap());
                farthest = farthest.max(a.position().distance(b.position()) as f32);
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
        // Moving, a chain of 10 links needs the fewest RATTLE substeps, and one of 200,
        // whose top links turn against 500 N (`ω·dt` 1.8, within two substeps of
        // `STABLE_SWING`), one more where the end of its step needs it (a step takes what
        // both its ends need); a ball of 16,000 links' mass on 40 of them stiffens the
        // links' turning, and takes many more.
        let light = chosen_substeps(10, 0.0, 30, true);
        let long = chosen_substeps(200, 0.0, 30, true);
        let heavy = chosen_substeps(40, 4000.0, 30, true);
        assert_eq!(light, MIN_RATTLE_SUBSTEPS, "10 links");
        assert!(long <= MIN_RATTLE_SUBSTEPS + 1, "200 links: {long}");
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
        // takes the substeps that resolve it (30 Hz: `ω·h` within 0.14 rad needs 23).
        let soft = ConstraintSettings::soft(30.0, 1.0);
        let still = Some(Vec2::ZERO);
        assert_eq!(
            chosen_substeps_with(soft, 10, 0.0, 120, still),
            (23, true),
            "soft, light"
        );
        // A gentle spring needs few. Stilled where it hangs after 2 s it is still pulled (its
        // joints' last impulses do not balance gravity), so it moves on, by RATTLE.
        let gentle = ConstraintSettings::soft(1.0, 1.0);
        assert_eq!(
            chosen_substeps_with(gentle, 10, 0.0, 120, still),
            (MIN_RATTLE_SUBSTEPS, false),
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
        assert!((kb.position() - glam::DVec2::X).length() < 1e-4);
        assert!((kb.angle() - 1.0).abs() < 1e-4);
        assert!((kb.pose().cos - 1.0f32.cos()).abs() < 1e-4);
        assert_eq!(space.body(s).unwrap().position(), glam::DVec2::Y);
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
