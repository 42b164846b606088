//! A store's sweeps, its swept springs in a loop of their own.
//!
//! A spring in a swept island (a mesh) takes Box2D v3's soft update through its damper's
//! rows `J_d = J − g wᵀ` and their effective mass `K_d` (`RigidSpin`), as a RATTLE
//! spring does in the exact solve: every impulse `J_dᵀΔλ` is then free of torque, and a
//! spinning mesh on soft pins keeps its angular momentum. `order_sweeps` puts the swept
//! springs after every other entry of their store, and the loops below are monomorphised
//! for each part, so that the loop over stiff entries (a joint grid's) carries no branch
//! for springs.

use super::*;
use crate::types::{WorldPose, frame_poses};

/// What one sweep over a store reads besides its entries.
pub(super) struct Sweep<'a> {
    /// 0: biased, 1: relax.
    pub(super) pass: usize,
    /// The substep's final sweep, which adds the impulses to the step's totals.
    pub(super) last: bool,
    pub(super) group: Group,
    /// The poses to take `J` at before the update (the relax pass's first sweep).
    pub(super) relinearize_at: Option<&'a [WorldPose]>,
    /// Whether the store has entries in the exact solve.
    pub(super) any_direct: bool,
}

impl<T: Constraint<D, B>, const D: usize, const B: usize> Store<T, D, B> {
    /// Whether `order_sweeps` puts the entry among those swept through a damper's rows:
    /// a swept spring, or a stiff swept entry of a mesh with a limit (`meshes`).
    pub(super) fn sweeps_spin_free(c: &ColdEntry<D, B>) -> bool {
        c.settings.active
            && c.direct.is_none()
            && (!c.settings.stiff || c.in_limited_mesh)
            && !T::VELOCITY_ONLY
    }

    /// One sweep over `entries` (`SPRINGS`: the store's swept springs). Either part takes
    /// any entry correctly; only a spring's counter-spin needs it among the springs.
    pub(super) fn sweep_part<const SPRINGS: bool>(
        entries: &mut [Entry<T, D, B>],
        cold: &mut [ColdEntry<D, B>],
        sweep: &Sweep<'_>,
        velocities: &mut [Velocity],
    ) {
        for (e, c) in entries.iter_mut().zip(cold) {
            if sweep.any_direct && c.direct.is_some() {
                if sweep.group == Group::Swept || !c.in_run {
                    continue;
                }
                if e.solving && c.sweep {
                    Self::solve_entry(e, c, sweep.pass, velocities);
                }
                continue;
            }
            if sweep.group == Group::Exact {
                continue;
            }
            let last = sweep.last;
            let counted = sweep.relinearize_at.map_or([0.0; D], |poses| {
                Self::relinearize_swept::<SPRINGS>(e, c, poses, last)
            });
            Self::update_swept::<SPRINGS>(e, c, sweep.pass, last, &counted, velocities);
        }
    }

    /// The final relax sweep over `entries` when another substep follows (see
    /// `ErasedStore::sweep_ahead`); returns whether it left every swept entry
    /// [`Refresh::Ready`].
    pub(super) fn sweep_ahead_part<const SPRINGS: bool>(
        entries: &mut [Entry<T, D, B>],
        cold: &mut [ColdEntry<D, B>],
        any_direct: bool,
        velocities: &mut [Velocity],
        ahead: &mut Ahead<'_>,
        first: bool,
    ) -> bool {
        let mut all_ready = true;
        for (e, c) in entries.iter_mut().zip(cold) {
            if any_direct && c.direct.is_some() {
                continue;
            }
            let (counted, linearized) = if first {
                Self::relinearize_swept_with_error::<SPRINGS>(e, c, ahead.poses)
            } else {
                // `J` is already at these poses (the relax pass's first sweep).
                ([0.0; D], Linearized::Jacobian)
            };
            Self::update_swept::<SPRINGS>(e, c, 1, true, &counted, velocities);
            if e.solving && matches!(e.refresh, Refresh::Swept | Refresh::Ready) {
                if Self::refresh_entry(e, c, ahead.substep, ahead.poses, linearized) {
                    e.refresh = Refresh::Ready;
                    if SPRINGS {
                        Self::warm_start_damped(e, c, ahead.warm_starts);
                    } else {
                        Self::warm_start(e, ahead.warm_starts);
                    }
                    continue;
                }
                // Its full preparation decides (the refresh is tried again there).
                e.refresh = Refresh::Swept;
            }
            all_ready = false;
        }
        all_ready
    }

    /// A swept spring's damper rows at its preparation: its rigid spin at `poses` and
    /// `K_d⁻¹` in place of `K⁻¹` (`k`: `K`, every row an equality).
    #[cold]
    #[inline(never)]
    pub(super) fn prepare_swept_spring(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        k: &[[f32; D]; D],
        active: &[bool; D],
        poses: &[WorldPose],
    ) {
        let spin = Self::damper_spin_at(e, c, &e.jacobian, poses);
        if let Some(spin) = &spin {
            e.k_inv = invert_active(&regularized(&spin.damper_mass(k)), active);
        }
        c.set_spin(spin);
    }

    /// [`relinearize_swept_entry`](Self::relinearize_swept_entry), and for a spring its
    /// spin taken anew with its `J`, the impulse so far counted through the old damper
    /// rows and taken back through the new ones at once.
    #[inline(always)]
    fn relinearize_swept<const SPRINGS: bool>(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        poses: &[WorldPose],
        last: bool,
    ) -> [f32; D] {
        if !SPRINGS {
            return Self::relinearize_swept_entry(e, poses, last);
        }
        if !e.solving {
            return [0.0; D];
        }
        let impulse = e.weighted_impulse();
        e.count_counter_spin(c, &impulse);
        let counted = Self::relinearize_swept_entry(e, poses, last);
        if c.spin().is_some() {
            c.set_spin(Self::damper_spin_at(e, c, &e.jacobian, poses));
            e.count_counter_spin(c, &impulse.map(|x| -x));
        }
        counted
    }

    /// [`relinearize_swept`](Self::relinearize_swept) in the substep's last sweep, for a
    /// refresh at the same poses: the position error comes with `J` where a stiff entry
    /// can give it (a spring's counter-spin takes the long way).
    #[inline(always)]
    fn relinearize_swept_with_error<const SPRINGS: bool>(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        poses: &[WorldPose],
    ) -> ([f32; D], Linearized<D>) {
        if SPRINGS {
            let counted = Self::relinearize_swept::<SPRINGS>(e, c, poses, true);
            return (counted, Linearized::Jacobian);
        }
        Self::relinearize_swept_entry_at::<true>(e, poses, true)
    }

    /// A swept entry's part of a sweep: its update (a spring's through its damper's rows
    /// where it has them), and in the substep's last sweep its impulse into the step's
    /// totals (all but `counted`, which its rebase in this sweep counted).
    #[inline(always)]
    fn update_swept<const SPRINGS: bool>(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        pass: usize,
        last: bool,
        counted: &[f32; D],
        velocities: &mut [Velocity],
    ) {
        if e.solving {
            if SPRINGS {
                Self::solve_spring(e, c, pass, velocities);
            } else {
                Self::solve_entry(e, c, pass, velocities);
            }
        }
        if last && (e.solving || c.broken.is_some()) {
            if SPRINGS {
                e.accumulate_damped(c, counted);
            } else {
                e.accumulate_swept(counted);
            }
        }
    }

    /// A swept spring's update through its damper's rows, `J_dᵀΔλ` from `J_d v`, where it
    /// has them (its limits inactive), and [`solve_entry`](Self::solve_entry)'s otherwise.
    fn solve_spring(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        pass: usize,
        velocities: &mut [Velocity],
    ) {
        let damped = c
            .spin()
            .filter(|_| !(T::HAS_LIMITS && e.limited))
            .map(|spin| {
                let v = e
                    .constraint
                    .velocity_error(&e.jacobian, &e.bodies, velocities);
                spin.damper_velocity(&v, &e.bodies, velocities)
            });
        let Some(v) = damped else {
            Self::solve_entry(e, c, pass, velocities);
            return;
        };
        let before = e.impulse;
        Self::solve_velocity_error(e, c, pass, &v, velocities);
        let applied: [f32; D] = std::array::from_fn(|i| e.weight(i) * (e.impulse[i] - before[i]));
        if let Some(spin) = c.spin() {
            spin.counter_spin(&applied, &e.bodies, velocities);
        }
    }

    /// Whether a swept spring of these settings steps by velocity Verlet, its first kick
    /// of a step split in two halves (one at the step's start, one closing it): an
    /// explicit one ([`kicks_explicitly`]), soft limits too (`bumpers`).
    pub(super) fn kicks_in_halves(settings: &ConstraintSettings, h: f32) -> bool {
        !T::VELOCITY_ONLY && !settings.stiff && kicks_explicitly(settings, h)
    }

    /// The half kick that closes a step of substeps `h` for each swept spring that
    /// [`kicks_in_halves`](Self::kicks_in_halves): `−K_d⁻¹·(h/2)ω² C` at the step's end
    /// poses, through its damper's rows, so that the velocities a step ends with are
    /// velocity Verlet's, in step with the poses (symplectic Euler's, half a kick behind,
    /// make the energy of an undamped spring swing by `ω·h/2`).
    pub(super) fn finish_swept_springs(
        &mut self,
        poses: &[WorldPose],
        velocities: &mut [Velocity],
        h: f32,
    ) {
        if T::VELOCITY_ONLY {
            return;
        }
        let springs = self.spin_free.min(self.entries.len());
        let entries = self.entries[springs..].iter_mut();
        for (e, c) in entries.zip(&mut self.cold[springs..]) {
            if !(c.direct.is_none() && Self::kicks_in_halves(&c.settings, h)) {
                continue;
            }
            // A soft limit closes the step even if it was inside its bounds at the last
            // substep's start: it may have crossed them since.
            if T::HAS_LIMITS && c.settings.active && c.broken.is_none() {
                Self::half_kick_limited(e, c, poses, velocities, h);
            } else if e.solving {
                Self::half_kick(e, c, poses, velocities, h);
            }
        }
    }

    fn half_kick(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        poses: &[WorldPose],
        velocities: &mut [Velocity],
        h: f32,
    ) {
        let slot_poses: [Pose; B] =
            frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
        let (mut error, mut jacobian, mut k) = ([0.0; D], e.jacobian, [[0.0; D]; D]);
        e.constraint.linearize(
            &slot_poses,
            &e.inverse_masses,
            c.shared,
            &mut error,
            &mut jacobian,
            &mut k,
        );
        // Half of the whole kick's clamped pull, as the first substep takes it.
        let pull = spring_pull(&c.settings, &error, h).map(|p| 0.5 * p);
        if !(pull.iter().chain(k.iter().flatten()).all(|x| x.is_finite())) {
            return;
        }
        e.jacobian = jacobian;
        let spin = Self::damper_spin_at(e, c, &e.jacobian, poses);
        let mass = spin.as_ref().map_or(k, |spin| spin.damper_mass(&k));
        c.set_spin(spin);
        let impulse = mul_vec(&invert_active(&regularized(&mass), &[true; D]), &pull).map(|x| -x);
        e.apply(&impulse, velocities);
        if let Some(spin) = c.spin() {
            spin.counter_spin(&impulse, &e.bodies, velocities);
        }
        e.count_step_impulse(c, &impulse);
    }
}
