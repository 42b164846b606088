//! Position projection: the exact solve applied to position errors, bounded in reach and turn.

use super::*;

impl DirectSystem {
    /// The position projection: moves the bodies of acyclic islands by `M⁻¹ Jᵀ μ` with
    /// `J Δx = −C` on every stiff row (with this substep's factor), without changing a
    /// velocity.
    pub(crate) fn project(
        &mut self,
        which: Islands,
        inverse_masses: &[InverseMass],
        poses: &mut [crate::types::WorldPose],
    ) {
        for k in 0..self.islands.len() {
            if !self.covers(which, k) {
                continue;
            }
            self.substitute(k, &kernels::PositionRows, false);
            self.apply_projection(k, inverse_masses, poses, false);
        }
    }

    /// The position projection of a moving island's substep as the impulse it is (SHAKE's
    /// correction): `μ` with `J M⁻¹ Jᵀ μ = −(C − C₀) / h` on every stiff row (`C₀` the
    /// error the substep started with, [`keep_start_errors`](Self::keep_start_errors),
    /// which is not the motion's to remove), added to the
    /// accumulated impulses, `v += M⁻¹ Jᵀ μ` and the poses moved by `h` times that. The
    /// bodies then sit where their velocities carried them from the substep's start, and
    /// since the rows are the start's `J`, the correction is an internal impulse applied
    /// where the start's positions were: linear and angular momentum are unchanged by it.
    pub(crate) fn project_as_impulse(
        &mut self,
        which: Islands,
        inverse_masses: &[InverseMass],
        poses: &mut [crate::types::WorldPose],
        velocities: &mut [Velocity],
        h: f32,
    ) {
        assert!(velocities.len() >= self.body_span, "a velocity per body");
        let rows = kernels::ScaledPositionRows(1.0 / f64::from(h));
        for k in 0..self.islands.len() {
            if !self.covers(which, k) {
                continue;
            }
            self.substitute(k, &rows, false);
            // Shortened as a whole, so that it stays an impulse `Jᵀμ`: to the island's reach,
            // and so that no body turns by more than `MAX_PROJECTION_TURN`.
            let scale = self
                .projection_scale(k, inverse_masses, false, f64::from(h))
                .min(self.turn_scale(k, inverse_masses, f64::from(h)));
            self.accumulate_solution(k, scale);
            let h = f64::from(h);
            let mut rounding = std::mem::take(&mut self.velocity_rounding);
            let mut state = (&mut *poses, &mut *velocities, &mut rounding[..]);
            self.apply(
                k,
                inverse_masses,
                false,
                |b,
                 dv: [f64; 3],
                 (poses, velocities, rounding): &mut (
                    &mut [crate::types::WorldPose],
                    &mut [Velocity],
                    &mut [KeptRounding],
                )| {
                    let dv = dv.map(|x| x * scale);
                    let turn = dv[2] * h;
                    let change = Velocity {
                        linear: glam::Vec2::new(settle(dv[0]), settle(dv[1])),
                        angular: settle(turn / h),
                    };
                    if !(change.linear.is_finite() && change.angular.is_finite()) {
                        return;
                    }
                    add_kept(
                        &mut velocities[b],
                        &mut rounding[b],
                        [dv[0], dv[1], turn / h],
                    );
                    let moved = Velocity {
                        linear: glam::Vec2::new(settle(dv[0] * h), settle(dv[1] * h)),
                        angular: settle(turn),
                    };
                    let p = &mut poses[b];
                    *p = p.nudge(moved);
                },
                &mut state,
            );
            self.velocity_rounding = rounding;
        }
    }

    /// The factor that keeps island `k`'s largest turn (`delta` times `h`) within
    /// [`MAX_PROJECTION_TURN`]: 1 if it is.
    fn turn_scale(&self, k: usize, inverse_masses: &[InverseMass], h: f64) -> f64 {
        let largest = self.island_bodies[self.island_body_ranges[k].clone()]
            .iter()
            .map(|&b| {
                (h * f64::from(inverse_masses[b as usize].inertia) * self.delta[b as usize][2])
                    .abs()
            })
            .fold(0.0, |largest, x| if x > largest { x } else { largest });
        if largest > MAX_PROJECTION_TURN {
            MAX_PROJECTION_TURN / largest
        } else {
            1.0
        }
    }

    /// Adds `scale` times the last substitution's solution of island `k` to its rows'
    /// accumulated impulses: the impulse a shortened correction applied.
    fn accumulate_solution(&mut self, k: usize, scale: f64) {
        for r in self.island_runs[k].clone() {
            for i in self.runs[r].nodes.clone() {
                let node = &self.nodes[i];
                if let NodeKind::Super(s) = node.kind {
                    let sn = &self.supers[s as usize];
                    for j in 0..sn.rows {
                        self.lambda[sn.row_offset + j] +=
                            scale * self.solution[node.dof_offset + j];
                    }
                }
            }
        }
        self.accumulate_loop_solution(k, scale);
    }

    /// The factor that shortens island `k`'s correction (`delta` or `paired_delta` times
    /// `h`) to its reach: 1 if it is within.
    fn projection_scale(
        &self,
        k: usize,
        inverse_masses: &[InverseMass],
        paired: bool,
        h: f64,
    ) -> f64 {
        let sums = if paired {
            &self.paired_delta
        } else {
            &self.delta
        };
        // The longest move, against the island's reach: a longer one is shortened.
        let longest_squared = self.island_bodies[self.island_body_ranges[k].clone()]
            .iter()
            .map(|&b| {
                let (sum, m) = (sums[b as usize], inverse_masses[b as usize].mass);
                (h * f64::from(m)).powi(2) * (sum[0] * sum[0] + sum[1] * sum[1])
            })
            // A comparison, not `f64::max`: its NaN handling, on the chain from body to
            // body, was several operations each (a non-finite move is skipped by the
            // caller either way).
            .fold(0.0, |longest, x| if x > longest { x } else { longest });
        let allowed = PROJECTION_REACH * self.reach[k] + PROJECTION_SLACK;
        if longest_squared > allowed * allowed {
            allowed / longest_squared.sqrt()
        } else {
            1.0
        }
    }

    /// Moves island `k`'s bodies by `M⁻¹ Σ Jᵀμ` from `delta` or (`paired`)
    /// `paired_delta`, shortened to the island's reach.
    pub(super) fn apply_projection(
        &mut self,
        k: usize,
        inverse_masses: &[InverseMass],
        poses: &mut [crate::types::WorldPose],
        paired: bool,
    ) {
        let scale = self.projection_scale(k, inverse_masses, paired, 1.0);
        self.apply(
            k,
            inverse_masses,
            paired,
            |b, dx: [f64; 3], poses: &mut [crate::types::WorldPose]| {
                let dx = if scale < 1.0 {
                    dx.map(|x| x * scale)
                } else {
                    dx
                };
                let v = Velocity {
                    linear: glam::Vec2::new(settle(dx[0]), settle(dx[1])),
                    angular: settle(dx[2].clamp(-MAX_PROJECTION_TURN, MAX_PROJECTION_TURN)),
                };
                if v.linear.is_finite() && v.angular.is_finite() {
                    let p = &mut poses[b];
                    *p = p.nudge(v);
                }
            },
            poses,
        );
    }
}
