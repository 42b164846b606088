//! The substep loop of one group of islands: kicks, preparation, the biased pass, the
//! drift with the speed limits, the exact group's projections and the limits' position
//! rounds, and the relax pass.

use super::*;

impl Solver {
    /// `substeps` substeps of `dt / substeps` of `group`'s islands (of the exact group,
    /// those `island_run` flags, `moving` if they do not rest).
    pub(super) fn run_substeps(
        &mut self,
        stores: &mut Stores,
        group: Group,
        substeps: u32,
        dt: f32,
        moving: bool,
        plain: bool,
    ) {
        let exact = group == Group::Exact;
        let h = dt / substeps as f32;
        let mut substep = Substep {
            h,
            span: h,
            rattle: false,
            kick: h,
            joint_softness: swept_joint_softness(
                self.settings.joint_hertz,
                self.settings.joint_damping_ratio,
                h,
                substeps,
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
                stores[s].prepare(
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
                    self.project_start_errors(stores);
                }
                if self.mark_unsettled(APART) {
                    self.measure_island_errors(stores, true);
                    self.mark_unsettled(APART);
                }
                self.direct.keep_start_errors(&self.islands.island_worse);
            }
            self.solve_pass(stores, 0, self.settings.velocity_iterations, group, None);
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
                    Motion::Free { .. } => {
                        limit_speed(v, self.settings.max_linear_speed, max_rotation)
                    }
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
                    self.rebase_exact_rows(stores, None);
                    relinearized = Some(self.direct.factorisations());
                }
                self.islands.projection_start.clone_from(&self.poses);
                self.islands.velocity_start.clone_from(&self.velocities);
                self.measure_island_errors(stores, true);
                self.islands
                    .errors_before
                    .clone_from(&self.islands.island_errors);
                if rattle {
                    moved = self.project_as_impulses(stores, h);
                } else {
                    self.direct.forget_saved_impulses();
                    moved = self.mark_unsettled(SETTLED);
                    if moved && linear_finish {
                        // The velocity solve below needs nothing the projections change
                        // (only the factor, if the guard relinearises): it takes the
                        // projection's substitutions, and is done again only if the
                        // factor changed.
                        self.push_impulses(stores);
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
                    stores[s].correct_limits(
                        &mut self.poses,
                        &mut self.velocities,
                        &mut self.direct,
                        round == 0,
                        self.settings.max_linear_speed * h,
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
                    self.measure_island_errors(stores, true);
                    self.direct.project_as_impulse(
                        Islands::Marked,
                        &self.inverse_masses,
                        &mut self.poses,
                        &mut self.velocities,
                        h,
                    );
                    self.pull_impulses(stores);
                } else {
                    self.project(stores, Islands::Marked);
                }
            }
            if exact {
                // Unmoved, the errors measured before still hold, and so does the rhs.
                let measured = !moved;
                if moved {
                    // SHAKE's last measurement holds unless a limit moved a body since.
                    let current = rattle && !limits_moved;
                    self.keep_projections_that_helped(stores, current);
                }
                if rattle {
                    if k + 1 == substeps {
                        self.finish_moving_step(stores, h);
                    }
                } else {
                    if k + 1 == substeps {
                        let settled = if linear_finish {
                            RELINEARIZED_SETTLED
                        } else {
                            SETTLED
                        };
                        self.project_unsettled(stores, measured, settled);
                    }
                    if linear_finish {
                        self.finish_linear_step(stores, paired_solve, relinearized);
                    }
                }
            }
            // A swept substep another follows is prepared by its last sweep.
            let ahead = (self.prepare_ahead && !exact && k + 1 < substeps).then_some(&substep);

            self.solve_pass(stores, 1, self.settings.relax_iterations, group, ahead);
            for &s in &self.store_order {
                stores[s].end_substep(self.settings.relax_iterations == 0, group, &mut self.direct);
            }
        }
        if !exact {
            for &s in &self.store_order {
                stores[s].finish_swept_springs(&self.poses, &mut self.velocities, h);
            }
        }
    }
}
