//! The acyclic islands' per-step state: which islands RATTLE steps, the substeps each
//! takes, and the weighting of the bodies of resting islands.

use super::*;
use crate::types::WorldPose;

/// What a step keeps per acyclic island and body besides the compact body arrays: derived
/// from the topology and the state, rebuilt or overwritten every step, never snapshotted.
#[derive(Debug, Default)]
pub(crate) struct IslandState {
    /// Each body's acyclic island (`NONE`: none).
    pub(crate) body_island: Vec<u32>,
    /// Each island's substeps this step, and whether it takes part in the current run of
    /// exact substeps.
    pub(crate) island_substeps: Vec<u32>,
    pub(crate) island_run: Vec<bool>,
    /// The geometric stiffness on each body and the square of each island's fastest mode
    /// in turns per allowed turn (see `choose_exact_substeps`).
    pub(crate) body_stiffness: Vec<[f32; 2]>,
    pub(crate) island_fastest: Vec<f32>,
    /// The square of each island's substep, once its count is chosen.
    pub(crate) island_step_squared: Vec<f32>,
    /// `LOAD_UNKNOWN` and `SPRUNG` per body (see `ErasedStore::geometric_stiffness`).
    pub(crate) body_flags: Vec<u8>,
    /// The largest `ω²` of the springs on each body (see `ErasedStore::spring_rates`) and
    /// in each island.
    pub(crate) body_spring: Vec<f32>,
    pub(crate) island_spring: Vec<f32>,
    /// The impulse the exactly solved constraints applied to each body over the last step
    /// (see `ErasedStore::step_motion`).
    pub(crate) body_impulse: Vec<Velocity>,
    /// The fastest each body turns against another body of one of its exactly solved
    /// constraints (rad/s; see `ErasedStore::step_motion`).
    pub(crate) body_relative_spin: Vec<f32>,
    /// The substeps each body's island took in its last step while moving
    /// (`Body::substeps_held`), and the most of those in each island.
    pub(crate) body_held: Vec<u16>,
    pub(crate) island_held: Vec<u32>,
    /// Whether each island has a constraint whose load is not known yet.
    pub(crate) island_unloaded: Vec<bool>,
    /// Each island's error before the last correction of a SHAKE position solve.
    pub(crate) errors_last: Vec<f32>,
    /// Each island's rounding floor: the summed squared error `f32` poses leave in its
    /// rows, a share of `ε²·Σ|x|²` over its bodies (see `SHAKE_FLOOR_SHARE`).
    pub(crate) island_floor: Vec<f32>,
    /// The SHAKE corrections made so far (for tests of when SHAKE stops).
    #[cfg(test)]
    pub(crate) shake_corrections: u64,
    /// Whether each island steps by RATTLE: no spring without a frequency in it (see
    /// `Solver::mark_plain_islands`).
    pub(crate) island_plain: Vec<bool>,
    /// Whether each island does not rest (see `choose_exact_substeps`; every island, with
    /// fixed substeps).
    pub(crate) island_restless: Vec<bool>,
    /// The mass multiple `α ≥ 1` of each body of a resting island for its one substep,
    /// whether any is above 1, and the inverse masses the exact group solves with
    /// meanwhile (the true ones while it does not run).
    pub(crate) body_weight: Vec<f32>,
    pub(crate) any_weighted: bool,
    pub(crate) exact_masses: Vec<InverseMass>,
    /// The position projection: the poses before it, each island's summed squared error
    /// before it and now, and which islands it made worse.
    pub(crate) projection_start: Vec<WorldPose>,
    /// The velocities before a finishing substep's velocity solve, taken with its first
    /// projection: if the guard relinearises, the solve starts again from them.
    pub(crate) velocity_start: Vec<Velocity>,
    pub(crate) errors_before: Vec<f32>,
    pub(crate) island_errors: Vec<f32>,
    pub(crate) island_worse: Vec<bool>,
    /// Levenberg–Marquardt per island: damping, error, and the poses before an iteration.
    pub(crate) lm_damping: Vec<f32>,
    pub(crate) lm_error: Vec<f32>,
    pub(crate) lm_poses: Vec<WorldPose>,
    /// The poses at the step's start, for the kinematic bodies of the second group.
    pub(crate) group_start: Vec<WorldPose>,
    /// What a retaken step starts from (see `Solver::retake_islands`): the poses and
    /// velocities as the exact group began, what each island carried into it, and which
    /// islands the current run of the group's rounds steps.
    pub(crate) exact_start_poses: Vec<WorldPose>,
    pub(crate) exact_start_velocities: Vec<Velocity>,
    pub(crate) exact_start_carries: Vec<Carry>,
    pub(crate) island_todo: Vec<bool>,
    /// The substep choice of the step's start, kept aside while the choice is read at
    /// its end: substeps, restlessness, weights and unknown loads.
    pub(crate) start_substeps: Vec<u32>,
    pub(crate) start_restless: Vec<bool>,
    pub(crate) start_weight: Vec<f32>,
    pub(crate) start_unloaded: Vec<bool>,
    /// Which islands the round just ended could retake.
    pub(crate) retake_eligible: Vec<bool>,
}

impl IslandState {
    /// What a body of `island` (`NONE`: none) holds for its island's next step
    /// (`Body::substeps_held`): the substeps the island took if it moved and adapts them.
    pub(super) fn substeps_to_hold(&self, island: u32, adaptive: bool) -> u16 {
        if !adaptive || island == NONE || !self.island_restless[island as usize] {
            return 0;
        }
        // At most `MAX_SUBSTEPS`, validated with the settings.
        self.island_substeps[island as usize] as u16
    }
}

impl Solver {
    /// Flags in `island_plain` the acyclic islands RATTLE steps: those of stiff joints,
    /// limits, motors, force limits, breaking and springs (with bounds or without),
    /// without a spring that has no frequency (settings not validated: those keep the
    /// linearly implicit step).
    pub(super) fn mark_plain_islands(&mut self, stores: &mut Stores) {
        self.islands.island_plain.clear();
        self.islands
            .island_plain
            .resize(self.direct.island_count(), true);
        for &s in &self.store_order {
            stores[s].unmark_plain_islands(&self.direct, &mut self.islands.island_plain);
        }
    }

    /// Sets each acyclic island's substeps for this step: enough that no body spins by more
    /// than [`STABLE_SPIN`] per substep, nor against a body it is jointed to by more than
    /// [`STABLE_RELATIVE_SPIN`], nor swings by more than [`STABLE_SWING`] in the
    /// transverse mode its constraints' forces stiffen (a loaded chain or rope:
    /// `ω² = |∂(Jᵀf)_θ/∂θ| / I + |∂(Jᵀf)_⊥/∂x_⊥| / m`, `f` the last substep's impulse over
    /// its length), which an exact solve linearised at the substep's start keeps stable
    /// only while `ω·h` is about 1.
    /// An island whose bodies all move slower than [`REST_SPEED`] and [`REST_SPIN`] and
    /// are pulled less than [`REST_ACCELERATION`] and [`REST_ANGULAR_ACCELERATION`] (by
    /// gravity, their forces and the last step's joint impulses), with every load known,
    /// rests: it takes one substep, its bodies weighted where the swing
    /// needs it (see [`weigh_exact_bodies`](Self::weigh_exact_bodies)), unless a body
    /// that needs it has a soft constraint (a spring relative to the masses, which the
    /// weighting would stiffen).
    /// Read from the state alone (poses, velocities, the last step's impulses), so a
    /// restored snapshot chooses as the original did.
    pub(super) fn choose_exact_substeps(&mut self, stores: &mut Stores, dt: f32) {
        let most = self.settings.exact_substeps.max(1);
        if !self.settings.adaptive_substeps {
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
            stores[s].geometric_stiffness(
                &self.poses,
                &mut self.islands.body_stiffness,
                &mut self.islands.body_flags,
            );
        }
        self.islands.body_spring.clear();
        self.islands.body_spring.resize(self.poses.len(), 0.0);
        for &s in &self.store_order {
            stores[s].spring_rates(&mut self.islands.body_spring);
        }
        self.islands.body_impulse.clear();
        self.islands
            .body_impulse
            .resize(self.poses.len(), Velocity::default());
        self.islands.body_relative_spin.clear();
        self.islands
            .body_relative_spin
            .resize(self.poses.len(), 0.0);
        for &s in &self.store_order {
            stores[s].step_motion(
                &self.velocities,
                &mut self.islands.body_impulse,
                &mut self.islands.body_relative_spin,
            );
        }
        self.islands.island_fastest.clear();
        self.islands
            .island_fastest
            .resize(self.islands.island_substeps.len(), 0.0);
        self.islands.island_held.clear();
        self.islands
            .island_held
            .resize(self.islands.island_substeps.len(), 0);
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
        let (rest_kick, rest_spin_kick) = (REST_ACCELERATION * dt, REST_ANGULAR_ACCELERATION * dt);
        // An island's fastest swing and restlessness so far, kept in registers while its
        // bodies come one after the other (as they mostly do): through memory, each body
        // waited for the last one's store.
        let mut current: Option<(u32, f32, bool, u16)> = None;
        let flush = |islands: &mut IslandState, current: Option<(u32, f32, bool, u16)>| {
            if let Some((island, fastest, restless, held)) = current {
                let k = island as usize;
                islands.island_fastest[k] = islands.island_fastest[k].max(fastest);
                islands.island_restless[k] |= restless;
                islands.island_held[k] = islands.island_held[k].max(u32::from(held));
            }
        };
        for b in 0..self.islands.body_island.len() {
            let island = self.islands.body_island[b];
            if island == NONE {
                continue;
            }
            if current.is_none_or(|(k, ..)| k != island) {
                flush(&mut self.islands, current);
                current = Some((island, 0.0, false, 0));
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
                .max({
                    let relative = self.islands.body_relative_spin[b];
                    relative * relative * (1.0 / (STABLE_RELATIVE_SPIN * STABLE_RELATIVE_SPIN))
                })
                .max(self.islands.body_spring[b] * (1.0 / (SPRING_TURN * SPRING_TURN)));
            // Resting needs every load known, and no spring on a body the weighting would
            // make heavier (its mass-relative spring would stiffen).
            let flags = self.islands.body_flags[b];
            // The body's velocity change over a step: gravity and its forces, and its
            // joints' impulses of the last step.
            let kick = match self.motion[b] {
                Motion::Free { linear, angular } => {
                    let impulse = self.islands.body_impulse[b];
                    Velocity {
                        linear: linear * dt + impulse.linear * inverse.mass,
                        angular: angular * dt + impulse.angular * inverse.inertia,
                    }
                }
                _ => Velocity::default(),
            };
            let rests = velocity.linear.length_squared() <= REST_SPEED * REST_SPEED
                && spin <= REST_SPIN
                && kick.linear.length_squared() <= rest_kick * rest_kick
                && kick.angular.abs() <= rest_spin_kick
                && swing_squared.is_finite()
                && flags & LOAD_UNKNOWN == 0
                && !(weight > 1.0 && flags & SPRUNG != 0);
            if let Some((_, fastest, restless, held)) = &mut current {
                // A comparison, not `f32::max`, whose NaN handling made the chain from
                // body to body several operations long (`swing` is never NaN).
                if swing > *fastest {
                    *fastest = swing;
                }
                *restless |= !rests;
                *held = (*held).max(self.islands.body_held[b]);
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
        for (((((n, &fastest), &restless), &plain), &spring), &held) in self
            .islands
            .island_substeps
            .iter_mut()
            .zip(&self.islands.island_fastest)
            .zip(&self.islands.island_restless)
            .zip(&self.islands.island_plain)
            .zip(&self.islands.island_spring)
            .zip(&self.islands.island_held)
        {
            let needed = (fastest.sqrt() * dt).ceil();
            // A moving island takes no fewer substeps than it last took while it moved.
            let fewest = if plain { MIN_RATTLE_SUBSTEPS } else { 1 }.max(held);
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
    pub(super) fn mark_unloaded_islands(&mut self) {
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
    pub(super) fn weigh_exact_bodies(&mut self) {
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
    pub(super) fn unweigh_exact_bodies(&mut self) {
        if self.islands.any_weighted {
            std::mem::swap(&mut self.inverse_masses, &mut self.islands.exact_masses);
        }
    }

    /// `v ← M̃⁻¹ M v` for the weighted bodies, once their forces are in `v` (see
    /// [`weigh_exact_bodies`](Self::weigh_exact_bodies)): the solve then needs the
    /// impulses the true masses do, so the load read from them does not grow with `α`.
    /// Only bodies of the islands in the current run: weighted bodies rest in islands of
    /// one substep, which run after those of more.
    pub(super) fn carry_momentum_into_weights(&mut self) {
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
}
