//! The correction of limit rows after the positions moved.

use super::*;

impl<T: Constraint<D, B>, const D: usize, const B: usize> Store<T, D, B> {
    /// Projects the violated inequality rows of one entry at `poses` onto their bounds;
    /// returns the correction in weighted space (`w∘δ`, as impulses are kept), if any.
    pub(super) fn correct_entry(
        e: &mut Entry<T, D, B>,
        c: &ColdEntry<D, B>,
        poses: &mut [Pose],
        velocities: &mut [Velocity],
        max_distance: f32,
        as_impulse: Option<f32>,
    ) -> Option<[f32; D]> {
        let slot_poses: [Pose; B] = std::array::from_fn(|s| poses[e.bodies[s]]);
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
        for slot in 0..B {
            if e.first_of_its_body(slot) {
                let d = scratch[slot];
                if d.linear != glam::Vec2::ZERO || d.angular != 0.0 {
                    let p = &mut poses[e.bodies[slot]];
                    *p = p.displace(d, max_distance);
                    if let Some(h) = as_impulse {
                        let v = &mut velocities[e.bodies[slot]];
                        v.linear += d.linear / h;
                        v.angular += d.angular / h;
                    }
                }
            }
        }
        Some(std::array::from_fn(|i| w[i] * delta[i]))
    }
}
