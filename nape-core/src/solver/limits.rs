//! The correction of limit rows after the positions moved.

use super::*;
use crate::types::{WorldPose, frame_poses, in_frame};

/// The most one limit correction turns a body (rad), as a position projection does.
const MAX_CORRECTION_TURN: f32 = std::f32::consts::FRAC_PI_4;

/// The share of its squared violation a limit correction must leave at most to be kept.
const SUFFICIENT_DECREASE: f32 = 0.5;

impl<T: Constraint<D, B>, const D: usize, const B: usize> Store<T, D, B> {
    /// Projects the violated inequality rows of one entry at `poses` onto their bounds;
    /// returns the correction in weighted space (`w∘δ`, as impulses are kept), if any.
    pub(super) fn correct_entry(
        e: &mut Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        poses: &mut [WorldPose],
        velocities: &mut [Velocity],
        max_distance: f32,
        as_impulse: Option<f32>,
    ) -> Option<[f32; D]> {
        let start: [WorldPose; B] = std::array::from_fn(|s| poses[e.bodies[s]]);
        let slot_poses = in_frame(&start, e.constraint.translation_invariant());
        let position = e.constraint.position_error(&slot_poses);
        let (w, error, inequality) = rows(&position, &e.constraint.bounds());
        let violated: [bool; D] = std::array::from_fn(|i| {
            inequality[i] && w[i] != 0.0 && error[i] > 0.0 && error[i].is_finite()
        });
        if !violated.iter().any(|&v| v) {
            return None;
        }
        // RATTLE's corrections are impulses through the substep start's rows, as SHAKE's
        // are, so that the step's totals (summed through those rows) hold them.
        let jacobian = if as_impulse.is_some() {
            e.jacobian
        } else {
            e.constraint.jacobian(&slot_poses)
        };
        let k = e
            .constraint
            .effective_mass(&jacobian, &e.inverse_masses, c.shared);
        let (k, _) = weighted(&k, &w);
        let k_inv = invert_active(&k, &violated);
        let solved = mul_vec(&k_inv, &error);
        let delta: [f32; D] = std::array::from_fn(|i| {
            if violated[i] {
                -w[i] * solved[i].max(0.0)
            } else {
                0.0
            }
        });
        if delta.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let mut scratch = [Velocity::default(); B];
        e.constraint.apply_impulse(
            &jacobian,
            &delta,
            &e.inverse_masses,
            &e.local_indices(),
            &mut scratch,
        );
        // Shortened as a whole to `max_distance` and an eighth of a turn, as the exact
        // solve's projections are, so that the move stays an impulse `Jᵀδ` and RATTLE's
        // velocity of it is the move's.
        let scale = scratch
            .iter()
            .map(|d| {
                let (linear, turn) = (d.linear.length(), d.angular.abs());
                let along = if linear > max_distance {
                    max_distance / linear
                } else {
                    1.0
                };
                let around = if turn > MAX_CORRECTION_TURN {
                    MAX_CORRECTION_TURN / turn
                } else {
                    1.0
                };
                along.min(around)
            })
            .fold(1.0f32, f32::min);
        if as_impulse.is_some() && scale < 1.0 {
            return None;
        }
        let delta = delta.map(|x| x * scale);
        for d in &mut scratch {
            *d = Velocity {
                linear: d.linear * scale,
                angular: d.angular * scale,
            };
        }
        let moved = |slot: usize| {
            let d = scratch[slot];
            e.first_of_its_body(slot) && (d.linear != glam::Vec2::ZERO || d.angular != 0.0)
        };
        for slot in (0..B).filter(|&s| moved(s)) {
            let p = &mut poses[e.bodies[slot]];
            *p = p.displace(scratch[slot], max_distance);
        }
        // A linearised correction of a nearly singular limit (one that only a turn about a
        // short lever arm can reach, against a pivot that holds the body's centre) is cut
        // to a fraction of what it asks and can leave the limit no nearer its bound:
        // such a correction is taken back, or the rounds that follow would turn the body
        // again and again (and RATTLE, which gives the bodies the velocity of the move,
        // spun it at thousands of rad/s).
        let after: [Pose; B] = frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
        let (_, remaining, _) = rows(&e.constraint.position_error(&after), &e.constraint.bounds());
        let violation = |error: &[f32; D]| -> f32 {
            (0..D)
                .filter(|&i| violated[i])
                .map(|i| error[i].max(0.0).powi(2))
                .sum()
        };
        // A non-finite remainder is no decrease either.
        let decreased = violation(&remaining) < SUFFICIENT_DECREASE * violation(&error);
        if !decreased {
            for slot in (0..B).filter(|&s| moved(s)) {
                poses[e.bodies[slot]] = start[slot];
            }
            return None;
        }
        if let Some(h) = as_impulse {
            for slot in (0..B).filter(|&s| moved(s)) {
                let d = scratch[slot];
                let v = &mut velocities[e.bodies[slot]];
                v.linear += d.linear / h;
                v.angular += d.angular / h;
            }
        }
        Some(std::array::from_fn(|i| w[i] * delta[i]))
    }
}
