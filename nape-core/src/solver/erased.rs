//! The type-erased face of a store: one call per store and phase.

use super::*;
use crate::types::WorldPose;

/// The solver phases of one constraint type, behind a trait object (see the module docs).
pub(crate) trait ErasedStore: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// The constraint type's name (orders the stores, so that no result depends on which
    /// type was added first).
    fn name(&self) -> &'static str;
    /// Number of live constraints.
    fn len(&self) -> usize;
    /// The body slots and rows of every active constraint, in dense order.
    fn links(&self, out: &mut Vec<Link>);
    /// Where each active constraint (in the order of [`links`](Self::links)) lives in
    /// the exact solve; consumes its part of `assignment`.
    fn assign(&mut self, assignment: &mut std::slice::Iter<'_, Option<DirectSlot>>);
    /// Joins the meshes of every swept entry's dynamic bodies (`dynamic`), marking those
    /// its limits are in.
    fn join_meshes(&self, meshes: &mut Meshes, dynamic: &[bool]);
    /// Puts the swept entries in the order of a greedy colouring (`dynamic`: which bodies
    /// a constraint's impulse moves), so that consecutive updates of a sweep share no
    /// body (see [`colour_order`]), those that sweep through a damper's rows last: springs,
    /// and the stiff entries of a mesh with a limit (`limited`, per body; see `meshes`).
    fn order_sweeps(&mut self, dynamic: &[bool], limited: &[bool]);
    /// Forgets last step's totals: here with `clear_totals`, else in the first swept
    /// prepare of the step, which visits every entry anyway (the caller runs one
    /// before any impulse is counted).
    fn begin_step(&mut self, clear_totals: bool);
    /// Rows, `J`, `K'⁻¹`, biases, the rescaled warm start; rows of acyclic islands are
    /// written into `direct`.
    fn prepare(
        &mut self,
        substep: &Substep,
        poses: &[WorldPose],
        inverse_masses: &[InverseMass],
        velocities: &mut [Velocity],
        direct: &mut DirectSystem,
    );
    /// Reads back the impulses of the exact solve (and checks them against `max_force`).
    fn pull_direct(&mut self, direct: &DirectSystem);
    /// Clears `plain[island]` for every acyclic island holding one of this store's
    /// constraints that is not a stiff equality constraint: one with limits, a velocity
    /// target, a spring, a force limit or breaking under error.
    fn unmark_plain_islands(&self, direct: &DirectSystem, plain: &mut [bool]);
    /// Moves the bodies of stiff constraints whose inequality rows are violated at `poses`
    /// back onto their bounds (one non-linear Gauss–Seidel step per constraint): a limit
    /// reached during the substep holds at its end.
    /// The first round (`first`) covers every such constraint, later ones only those of
    /// the acyclic islands marked current in `direct`; the islands of the constraints that
    /// moved are marked pending.
    /// No body moves farther than `max_distance` in one correction.
    /// In a RATTLE substep (`substep.rattle`) each correction is the impulse it is: the
    /// velocities change by the move over `h` as well.
    fn correct_limits(
        &mut self,
        poses: &mut [WorldPose],
        velocities: &mut [Velocity],
        direct: &mut DirectSystem,
        first: bool,
        max_distance: f32,
        substep: &Substep,
    );
    /// Takes out of the swept rows' impulses what this substep's limit corrections added
    /// to them, in the islands `undone` flags (the guard undid their corrections).
    fn undo_limit_impulses(&mut self, direct: &DirectSystem, undone: &[bool]);
    /// Adds the squares of the positional errors of every stiff row of an acyclic island
    /// at `poses` to that island's entry of `island_errors`; with `rhs`, also writes them
    /// into the exact solve for the position projection (and its islands' reach).
    fn position_errors(
        &mut self,
        poses: &[WorldPose],
        direct: &mut DirectSystem,
        island_errors: &mut [f32],
        rhs: bool,
    );
    /// Adds to each acyclic island's entry of `floors` the squared lengths of the
    /// positions every stiff row of it reads, in its constraint's frame (`Σ_s |x_s|²` per
    /// row): what the rounding of its `f32` errors scales with.
    fn rounding_scales(&self, poses: &[WorldPose], direct: &DirectSystem, floors: &mut [f32]);
    /// Writes the impulses changed by Gauss–Seidel sweeps back into the exact solve and
    /// marks (pending) the islands of the swept constraints.
    fn push_direct(&mut self, direct: &mut DirectSystem);
    /// One round of the exact solve's active set, after a solve: a limit row whose impulse
    /// came out pulling leaves it (its impulse taken back out of the velocities), one the
    /// velocities now drive across its bound joins it; a force-limited constraint whose
    /// impulse came out beyond `max_force·h` is fixed on that bound (the difference taken
    /// out of the velocities) and leaves it with all its rows, and rejoins when one
    /// Gauss–Seidel step would take it back inside. Rewrites the changed constraints' rows
    /// and marks (pending) their islands; returns whether any changed.
    fn update_active_rows(
        &mut self,
        direct: &mut DirectSystem,
        velocities: &mut [Velocity],
    ) -> bool;
    /// Adds to `out[body]`, for every dynamic body of an exactly solved constraint, how
    /// fast the torque of the constraint's force on it (its last substep's impulse over
    /// that substep's length) grows as the body turns (`|∂(Jᵀf)_θ/∂θ|`, N·m/rad) and the
    /// force across it as the body moves across it (N/m): the geometric stiffness that
    /// makes a loaded chain's or rope's transverse modes fast. Bodies of a
    /// constraint with rows swept by Gauss–Seidel, which converge with the substeps, get
    /// infinity: their islands take every substep.
    /// Bodies of a constraint that acts without a last step's impulse to read (just
    /// added, or idle) get [`LOAD_UNKNOWN`] in `flags`, those of a soft one [`SPRUNG`].
    fn geometric_stiffness(&self, poses: &[WorldPose], out: &mut [[f32; 2]], flags: &mut [u8]);
    /// Rewrites the rows of the exact solve with `J` at `poses`, each constraint's
    /// compliance raised by `damping[island] · K` (Levenberg–Marquardt damping of a
    /// projection).
    fn relinearize(
        &mut self,
        poses: &[WorldPose],
        velocities: &[Velocity],
        direct: &mut DirectSystem,
        damping: &[f32],
    );
    /// Moves the exact solve's constraints to `J` at `poses` within a substep: their rows
    /// rewritten (as [`relinearize`](Self::relinearize) without damping) and their own
    /// Jacobian replaced, the step's body impulses keeping what this substep's impulse so
    /// far applied through the old one (so that the totals, summed again through the new
    /// `J` at the substep's end, still equal the momentum the constraint gave).
    /// With `spring_kick` (the closing half kick of a RATTLE step), each spring's kick is
    /// taken anew at `poses` ([`verlet_spring`]) for the velocity solve that follows, and a
    /// soft limit without rows (inside its bounds at the last substep's start) that has
    /// crossed them since gives its kick to `velocities` by itself (`bumpers`).
    fn rebase_exact_rows(
        &mut self,
        poses: &[WorldPose],
        velocities: &mut [Velocity],
        direct: &mut DirectSystem,
        spring_kick: Option<f32>,
    );
    /// Writes into `out[body]` the largest `ω²` of the springs solved exactly on each
    /// body (a RATTLE island's substeps must resolve them).
    fn spring_rates(&self, out: &mut [f32]);
    /// For the constraints solved exactly: adds into `impulses[body]` the impulse
    /// `Jᵀ(w∘λ')` each applied to the body over the last step (with gravity and the body's
    /// forces, what changed its velocity then: a resting island's rest needs it small
    /// too), and raises `relative_spins[body]` to the fastest the body turns against
    /// another body of one of them (rad/s, from `velocities`).
    fn step_motion(
        &self,
        velocities: &[Velocity],
        impulses: &mut [Velocity],
        relative_spins: &mut [f32],
    );
    /// One Gauss–Seidel sweep (`pass` 0: biased, 1: relax) over the constraints that are
    /// not solved exactly, and the limits of those that are.
    /// `last`: the substep's final sweep, which also adds the swept constraints' impulses
    /// to the step's totals (one pass over them fewer).
    /// With `relinearize_at`, each swept constraint first takes its `J` at those poses
    /// (the drifted poses, at the relax pass's first sweep), so that its impulses act where
    /// the bodies are: free of net torque about any point there, they keep the island's
    /// angular momentum (`J` from the substep's start leaked 2% of a spinning loop's in
    /// 10 s).
    fn sweep(
        &mut self,
        pass: usize,
        velocities: &mut [Velocity],
        last: bool,
        group: Group,
        relinearize_at: Option<&[WorldPose]>,
    );
    /// The final relax sweep of a swept substep that another follows in the step: the
    /// updates and totals of [`sweep`](Self::sweep), and each swept equality constraint
    /// refreshed for the next substep right after its update, its warm start into
    /// `ahead.warm_starts`; the next swept prepare skips the store if all were.
    /// `first`: it is also the relax pass's first sweep, which relinearises (see
    /// [`sweep`](Self::sweep)).
    fn sweep_ahead(&mut self, velocities: &mut [Velocity], ahead: &mut Ahead<'_>, first: bool);
    /// After a swept group's last substep (of `h`): each swept spring that steps by
    /// velocity Verlet takes the half kick closing the step, at `poses`.
    fn finish_swept_springs(&mut self, poses: &[WorldPose], velocities: &mut [Velocity], h: f32);

    /// Adds this substep's impulses to the step's totals: of the exact solve's constraints,
    /// or with `all` of every constraint (when no final sweep counted them).
    fn end_substep(&mut self, all: bool, group: Group, direct: &mut DirectSystem);
    /// Keeps the state of every exactly solved entry as the exact group's step starts,
    /// for [`restore_step_start`](Self::restore_step_start).
    fn keep_step_start(&mut self);
    /// Puts every entry of the acyclic islands `retaken` flags back as
    /// [`keep_step_start`](Self::keep_step_start) kept it.
    fn restore_step_start(&mut self, direct: &DirectSystem, retaken: &[bool]);
    /// After a rebuild: tells `direct` which constraints carried their rows into this
    /// step ([`DirectSystem::claim_carry`]).
    fn claim_carries(&self, direct: &mut DirectSystem);
    /// Removes or deactivates the constraints that broke this step; reports them.
    fn process_broken(&mut self, broken: &mut Vec<BreakEvent>);
    /// Removes every constraint with a slot on the body at compact index `body`.
    fn remove_attached(&mut self, body: usize, removed: &mut Vec<ConstraintId>);
    /// Reports every constraint with a slot on the body at compact index `body`.
    fn attached(&self, body: usize, out: &mut Vec<ConstraintId>);
    /// The compact body index of each slot of the constraint `(index, generation)`.
    fn slot_bodies(&self, index: u32, generation: u32) -> Option<Vec<usize>>;
    /// [`Entry::body_impulses`] of the constraint `(index, generation)`.
    fn body_impulses(&self, index: u32, generation: u32) -> Option<Vec<(usize, Velocity)>>;
    /// Removes the constraint `id` names, if it is live here.
    fn remove_id(&mut self, index: u32, generation: u32) -> bool;
    /// Reports every active constraint whose arithmetic went non-finite in the last step
    /// (an effective mass that sat the last substep out, a non-finite impulse, or a
    /// non-finite error at `poses`) and clears its warm start.
    fn contain_faults(&mut self, poses: &[WorldPose], out: &mut Vec<ConstraintId>);
    /// A deep copy: constraints, settings, slots and every cached value.
    fn clone_box(&self) -> Box<dyn ErasedStore>;
    /// The id and slot body indices of every constraint, in dense order.
    fn list(&self, out: &mut Vec<(ConstraintId, Vec<usize>)>);
    /// Feeds the state that decides the next step (ids, settings flags, warm starts) to
    /// `out` as bits, in dense order.
    fn state_bits(&self, out: &mut dyn FnMut(u32));
    /// Writes the store for a byte snapshot: its slot table and every field of every
    /// entry (the constraint and its Jacobian through `codec`, which knows their type).
    /// `shared` and `local` are not written: [`Entry::set_body_indices`] derives them.
    fn encode(&self, out: &mut Vec<u8>, codec: &dyn crate::encoding::EntryCodec);
    /// Reads what [`encode`](Self::encode) wrote into this empty store, checking the slot
    /// table, that every slot's body is live in the snapshot's space `space`, whose
    /// body slots are `bodies` (`None`: free), and every value in range.
    fn decode(
        &mut self,
        input: &mut &[u8],
        codec: &dyn crate::encoding::EntryCodec,
        space: u32,
        bodies: &[Option<crate::encoding::LiveBody>],
    ) -> Result<(), crate::encoding::SnapshotError>;
    /// Moves the store into the space `space`: its ids and every constraint's body handles
    /// name that space from now on.
    fn set_space(&mut self, space: u32);
}
