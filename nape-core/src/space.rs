//! The [`Space`]: bodies, constraints and the step.

use std::any::TypeId;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};

use glam::Vec2;

use crate::body::{Body, BodyHandle, BodyKind};
use crate::constraint::{Constraint, InverseMass, Pose, SharedSlots, Velocity};
use crate::error::Error;
use crate::projection::{PositionSystem, Projection};
use crate::settings::ConstraintSettings;
use crate::solver::{ErasedStore, Store};

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

/// An untyped constraint id (space, type slot, index, generation), e.g. for events such
/// as [`Space::broken_constraints`] and for [`Space::constraints_of`]. Compare it with
/// [`ConstraintHandle::id`], or recover the typed handle with [`Space::typed_handle`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConstraintId {
    pub(crate) space: u32,
    pub(crate) store: u32,
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

/// Which limit a constraint exceeded when it broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BreakCause {
    /// `break_under_force`: the length of the accumulated impulse exceeded
    /// `max_force·dt` during a velocity iteration. The event's `value` is that impulse
    /// over `dt` (a force) and its `limit` is `max_force`.
    Force,
    /// `break_under_error`: the length of the positional error (of the rows that are
    /// violated) exceeded `max_error`, when a soft constraint was prepared or in a position
    /// iteration of a stiff one. The event's `value` is that error and its `limit` is
    /// `max_error`.
    Error,
}

/// A constraint broke during the last step: see [`Space::broken_constraints`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BreakEvent {
    /// The constraint. Its handle is stale if `remove_on_break` was set; otherwise the
    /// constraint is still in the space, with `active = false`.
    pub constraint: ConstraintId,
    /// Which limit was exceeded.
    pub cause: BreakCause,
    /// The force (`|λ|/dt`) or error (`|C|`) that exceeded the limit; `value > limit`.
    pub value: f32,
    /// `max_force` or `max_error` at the time.
    pub limit: f32,
}

/// The world impulse a constraint applied to one of its bodies during the last step:
/// `Jᵀλ` for the body's slots (summed when several slots hold the body). Over a step, the
/// body's momentum changed by exactly this much because of the constraint
/// (`m·Δv = linear`, `I·Δω = angular`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyImpulse {
    /// The body.
    pub body: BodyHandle,
    /// Linear impulse (through the body's centre of mass), world axes.
    pub linear: Vec2,
    /// Angular impulse about the body's centre of mass, counter-clockwise positive.
    pub angular: f32,
}

struct BodySlot {
    generation: u32,
    body: Option<Body>,
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
    /// Velocity iterations per step. Default 10.
    pub velocity_iterations: u32,
    /// Position iterations per step (stiff constraints only). Default 10.
    pub position_iterations: u32,
    /// Fraction of the positional error each Gauss–Seidel position iteration removes
    /// (when [`global_projection`](Self::global_projection) is off, or the system is too
    /// large for it; the projection always solves the whole error). Default 0.5 (Nape
    /// halves the error).
    pub position_correction: f32,
    /// Whether each position iteration projects every stiff row at once (a sparse direct
    /// solve, exact up to the constraints' curvature) instead of a Gauss–Seidel sweep.
    /// Default `true`: Gauss–Seidel alone cannot keep a long chain under tension tight.
    /// The projection stops as soon as every row is within 1e-6 of its target, and falls
    /// back to Gauss–Seidel when its factorisation would be too large (see
    /// [`MAX_PROJECTION_FILL`](Self::MAX_PROJECTION_FILL)).
    pub global_projection: bool,
    projection: PositionSystem,
    bodies: Vec<BodySlot>,
    free_bodies: Vec<u32>,
    body_count: usize,
    poses: Vec<Pose>,
    velocities: Vec<Velocity>,
    inverse_masses: Vec<InverseMass>,
    stores: Vec<Box<dyn ErasedStore>>,
    store_of: HashMap<TypeId, u32>,
    broken: Vec<BreakEvent>,
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
            .field("velocity_iterations", &self.velocity_iterations)
            .field("position_iterations", &self.position_iterations)
            .field("position_correction", &self.position_correction)
            .field("bodies", &self.body_count)
            .field("constraints", &self.constraint_count())
            .finish_non_exhaustive()
    }
}

impl Space {
    /// The most matrix entries per row the global projection factorises (its envelope);
    /// a larger system (a big, densely connected graph) is solved by Gauss–Seidel sweeps.
    pub const MAX_PROJECTION_FILL: usize = 64;

    /// An empty space with Nape's defaults: no gravity, 10 velocity and 10 position
    /// iterations, position correction 0.5.
    #[must_use]
    pub fn new() -> Self {
        Self {
            id: NEXT_SPACE_ID.fetch_add(1, Ordering::Relaxed),
            gravity: Vec2::ZERO,
            velocity_iterations: 10,
            position_iterations: 10,
            position_correction: 0.5,
            global_projection: true,
            projection: PositionSystem::default(),
            bodies: Vec::new(),
            free_bodies: Vec::new(),
            body_count: 0,
            poses: Vec::new(),
            velocities: Vec::new(),
            inverse_masses: Vec::new(),
            stores: Vec::new(),
            store_of: HashMap::new(),
            broken: Vec::new(),
        }
    }

    // ----- bodies -------------------------------------------------------------------

    /// Adds a body.
    ///
    /// # Errors
    /// [`Error::InvalidBody`] if [`Body::validate`] fails (NaN anywhere, a dynamic body
    /// whose mass is not finite and positive, ...).
    pub fn add_body(&mut self, body: Body) -> Result<BodyHandle, Error> {
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

    /// The body `h` names, mutably. Changes take effect at the next step; they are not
    /// validated (keep them finite).
    ///
    /// # Errors
    /// [`Error::StaleBody`] or [`Error::ForeignBody`].
    pub fn body_mut(&mut self, h: BodyHandle) -> Result<&mut Body, Error> {
        let i = self.body_index(h)?;
        self.bodies[i].body.as_mut().ok_or(Error::StaleBody)
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
    /// [`Error::StaleBody`] or [`Error::ForeignBody`].
    pub fn apply_force(&mut self, h: BodyHandle, force: Vec2) -> Result<(), Error> {
        self.body_mut(h)?.apply_force(force);
        Ok(())
    }

    /// Adds `torque` to the body for the next step.
    ///
    /// # Errors
    /// [`Error::StaleBody`] or [`Error::ForeignBody`].
    pub fn apply_torque(&mut self, h: BodyHandle, torque: f32) -> Result<(), Error> {
        self.body_mut(h)?.apply_torque(torque);
        Ok(())
    }

    /// Applies an instantaneous impulse at the body's centre of mass.
    ///
    /// # Errors
    /// [`Error::StaleBody`] or [`Error::ForeignBody`].
    pub fn apply_impulse(&mut self, h: BodyHandle, impulse: Vec2) -> Result<(), Error> {
        self.body_mut(h)?.apply_impulse(impulse);
        Ok(())
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
        Ok(bodies)
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
            .map(|e| &e.constraint)
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
        let mut updated = self.constraint(h)?.clone();
        f(&mut updated);
        let bodies = self.check_constraint::<T, D, B>(&updated)?;
        let entry = self
            .typed_store_mut(h)?
            .get_mut(h.index, h.generation)
            .ok_or(Error::StaleConstraint)?;
        if bodies != entry.bodies {
            entry.set_body_indices(bodies);
            entry.clear_warm_start();
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
            .map(|e| e.settings)
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
        let entry = self
            .typed_store_mut(h)?
            .get_mut(h.index, h.generation)
            .ok_or(Error::StaleConstraint)?;
        settings.validate()?;
        if settings.active != entry.settings.active {
            entry.clear_warm_start();
        }
        entry.settings = settings;
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
            .map(|e| e.unweighted_impulse())
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
        self.typed_store_mut(h)?
            .remove(h.index, h.generation)
            .ok_or(Error::StaleConstraint)
    }

    /// Removes the constraint `id` names, whatever its type.
    ///
    /// # Errors
    /// [`Error::StaleConstraint`] or [`Error::ForeignConstraint`].
    pub fn remove_constraint_id(&mut self, id: ConstraintId) -> Result<(), Error> {
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

    // ----- the step -----------------------------------------------------------------

    /// Advances the simulation by `dt` seconds:
    ///
    /// 1. gravity, forces and torques are integrated into the velocities of dynamic bodies
    ///    (kinematic bodies keep their velocity; static bodies never move);
    /// 2. every active constraint is prepared (rows, `J`, `K'⁻¹`, soft terms);
    /// 3. last step's impulses are applied again (warm start, rescaled by `dt / dt_prev`),
    ///    then [`velocity_iterations`](Self::velocity_iterations) velocity iterations;
    /// 4. velocities are integrated into positions;
    /// 5. [`position_iterations`](Self::position_iterations) position iterations correct
    ///    the error of stiff positional constraints; forces are cleared.
    ///
    /// # Panics
    /// If `dt` is not finite and positive, or `gravity` / `position_correction` is not
    /// finite: these are programming errors, not simulation states.
    pub fn step(&mut self, dt: f32) {
        assert!(
            dt.is_finite() && dt > 0.0,
            "Space::step: dt must be finite and > 0 (got {dt})"
        );
        assert!(
            self.gravity.is_finite(),
            "Space::step: gravity must be finite"
        );
        assert!(
            self.position_correction.is_finite(),
            "Space::step: position_correction must be finite"
        );
        self.broken.clear();

        // 1. Refresh the compact arrays; integrate forces into velocities.
        for (i, slot) in self.bodies.iter().enumerate() {
            let Some(body) = &slot.body else { continue };
            let inverse = body.inverse_mass();
            let mut v = body.velocity_state();
            match body.kind() {
                BodyKind::Dynamic => {
                    v.linear += (self.gravity + body.force() * inverse.mass) * dt;
                    v.angular += body.torque() * inverse.inertia * dt;
                }
                BodyKind::Kinematic => {}
                BodyKind::Static => v = Velocity::default(),
            }
            self.poses[i] = body.pose();
            self.velocities[i] = v;
            self.inverse_masses[i] = inverse;
        }

        // 2. Prepare.
        for store in &mut self.stores {
            store.prepare(dt, &self.poses, &self.inverse_masses);
        }

        // 3. Warm start, velocity iterations.
        for store in &mut self.stores {
            store.warm_start(&mut self.velocities);
        }
        for _ in 0..self.velocity_iterations {
            for store in &mut self.stores {
                store.solve_velocities(&mut self.velocities);
            }
        }

        // 4. Integrate positions.
        for (i, slot) in self.bodies.iter().enumerate() {
            match &slot.body {
                Some(body) if body.kind() != BodyKind::Static => {
                    let p = self.poses[i];
                    let v = self.velocities[i];
                    self.poses[i] = Pose::new(p.position + v.linear * dt, p.angle + v.angular * dt);
                }
                _ => {}
            }
        }

        // 5. Position iterations: exact global projections while the system is small
        //    enough to factorise cheaply, Gauss–Seidel sweeps otherwise.
        for _ in 0..self.position_iterations {
            if self.global_projection {
                self.projection.clear();
                for store in &mut self.stores {
                    store.gather_position_rows(&self.poses, &mut self.projection);
                }
                match self.projection.solve(&mut self.poses) {
                    Projection::Converged => break,
                    Projection::Applied => continue,
                    Projection::TooLarge => {}
                }
            }
            for store in &mut self.stores {
                store.solve_positions(self.position_correction, &mut self.poses);
            }
        }

        // Write back, clear forces, retire broken constraints.
        for (i, slot) in self.bodies.iter_mut().enumerate() {
            let Some(body) = &mut slot.body else { continue };
            if body.kind() != BodyKind::Static {
                body.set_state(self.poses[i], self.velocities[i]);
            }
            body.clear_forces();
        }
        for store in &mut self.stores {
            store.process_broken(&mut self.broken);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
