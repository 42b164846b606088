//! A soft limit's spring split at its bound.
//!
//! A soft limit (a soft constraint with bounds) is a spring that pushes only from past its
//! bound; undamped it is an elastic bumper, and must give back what it takes. Velocity
//! Verlet kicks it with its force at the substep's poses, each kick standing for half a
//! substep before those poses (closing the substep before) and half after (opening the
//! next). Where the bodies cross the bound within a substep, the force is on for part
//! of it only, and a kick of half a substep over-counts it: a pair spinning against a 3 Hz
//! soft angle limit gained 2 % of its energy in 20 s. The kicks are therefore split at the
//! bound, as a Verlet step stopped at the crossing would split them: with `s₀`, `s₁` the
//! signed distances past the bound at a substep's two ends, the share of it spent past the
//! bound is `s₁ / (s₁ − s₀)` (the bodies crossing at a steady rate). A closing half counts
//! only that share of itself; an opening half whose drift left the bound is taken back
//! beyond that share as soon as the drift shows it, by an impulse through `J` where the
//! bodies then are.

use super::*;
use crate::types::{WorldPose, frame_poses};

impl<T: Constraint<D, B>, const D: usize, const B: usize> Store<T, D, B> {
    /// Each limit row's signed distance past its nearer bound at `position` (negative
    /// inside); 0 for an equality row.
    fn bound_sides(e: &Entry<T, D, B>, position: &[f32; D]) -> [f32; D] {
        let bounds = e.constraint.bounds();
        std::array::from_fn(|i| {
            let Bounds { min, max } = bounds[i];
            let side = (position[i] - max).max(min - position[i]);
            if min < max && side.is_finite() {
                side
            } else {
                0.0
            }
        })
    }

    /// A soft limit's kick at `position`, `close` of it (s) closing the substep before and
    /// `open` opening the next: the spring's error past its bounds (`error`, rows weighted
    /// `w`) scaled so that the closing part counts only the share of its substep spent past
    /// the bound. Records where the rows are and what the opening part will apply
    /// (`k`: the weighted `K`, whose diagonal the kick is relative to), for
    /// [`take_back_exits`](Self::take_back_exits).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn split_kick(
        e: &Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        position: &[f32; D],
        w: &[f32; D],
        k: &[[f32; D]; D],
        error: [f32; D],
        close: f32,
        open: f32,
    ) -> [f32; D] {
        let sides = Self::bound_sides(e, position);
        let kick = close + open;
        let state = c.springs_mut();
        let error: [f32; D] = std::array::from_fn(|i| {
            let (before, now) = (state.bound_sides[i], sides[i]);
            if w[i] == 0.0 || kick <= 0.0 || !(before < 0.0 && now > 0.0) {
                return error[i];
            }
            let share = now / (now - before);
            error[i] * (close * share + open) / kick
        });
        state.bound_sides = sides;
        let pull = spring_pull(&c.settings, &error, kick);
        c.springs_mut().open_kicks = std::array::from_fn(|i| {
            let stiffness = k[i][i];
            if w[i] != 0.0 && kick > 0.0 && stiffness > 0.0 {
                -w[i] * pull[i] * (open / kick) / stiffness
            } else {
                0.0
            }
        });
        error
    }

    /// The half kick that closes a step of substeps `h` for a soft limit, where it has no
    /// rows to take it ([`finish_swept_springs`](Self::finish_swept_springs); in a RATTLE
    /// step, a limit inactive at the last substep's start): `−(h/2)ω² C / K'_ii` past its
    /// bounds at the step's end poses, through `J` there, split at the bound.
    pub(super) fn half_kick_limited(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        poses: &[WorldPose],
        velocities: &mut [Velocity],
        h: f32,
    ) {
        let slot_poses: [Pose; B] =
            frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
        let position = e.constraint.position_error(&slot_poses);
        let (w, error, _) = rows(&position, &e.constraint.bounds());
        let jacobian = e.constraint.jacobian(&slot_poses);
        let k = e
            .constraint
            .effective_mass(&jacobian, &e.inverse_masses, c.shared);
        let (k, _) = weighted(&k, &w);
        let error = Self::split_kick(e, c, &position, &w, &k, error, 0.5 * h, 0.0);
        // Half of the whole kick's clamped pull, as the first substep takes it.
        let pull = spring_pull(&c.settings, &error, h);
        let impulse: [f32; D] = std::array::from_fn(|i| {
            if w[i] != 0.0 && k[i][i] > 0.0 {
                -w[i] * 0.5 * pull[i] / k[i][i]
            } else {
                0.0
            }
        });
        if impulse.iter().all(|&x| x == 0.0) || !impulse.iter().all(|x| x.is_finite()) {
            return;
        }
        e.apply_through(&jacobian, &impulse, velocities);
    }

    /// After the drift: each soft limit row whose opening kick the drift carried back
    /// inside its bound has that kick taken back beyond the share of the substep it spent
    /// outside, through `J` at `poses`, and counted in the step's totals.
    pub(super) fn take_back_exits(
        e: &mut Entry<T, D, B>,
        c: &mut ColdEntry<D, B>,
        poses: &[WorldPose],
        velocities: &mut [Velocity],
    ) {
        let Some(state) = c.springs() else { return };
        if state.open_kicks.iter().all(|&x| x == 0.0) {
            return;
        }
        let slot_poses: [Pose; B] =
            frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
        let sides = Self::bound_sides(e, &e.constraint.position_error(&slot_poses));
        let back: [f32; D] = std::array::from_fn(|i| {
            let (before, now) = (state.bound_sides[i], sides[i]);
            if before > 0.0 && now <= 0.0 {
                -state.open_kicks[i] * (1.0 - before / (before - now))
            } else {
                0.0
            }
        });
        c.springs_mut().open_kicks = [0.0; D];
        if back.iter().all(|&x| x == 0.0) || !back.iter().all(|x| x.is_finite()) {
            return;
        }
        let jacobian = e.constraint.jacobian(&slot_poses);
        e.apply_through(&jacobian, &back, velocities);
    }
}
