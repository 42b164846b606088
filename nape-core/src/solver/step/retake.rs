//! Retaken steps: a moving RATTLE island takes the substeps that both ends of its step
//! need.
//!
//! An island's substep count is read from its state (its fastest spin and swing). Read at
//! the step's start alone, the choice is not symmetric in time: a chain whose whip is
//! building takes the few substeps its start needs and the many its end needs only from
//! the next step on, and as the whip fades it keeps many for a step too long. Each change
//! of the count moves the energy the integrator keeps by a little, and read from one end
//! those moves fall one way more often than the other: the 20-link chain released
//! horizontal lost 31 % of its swing's energy in two minutes that way, where any fixed count
//! keeps it. So a step whose end needs more substeps than its start gave it is taken again
//! from its start with that many, and its count is the larger of its two ends' needs:
//! the same count whichever way the step runs, as a time-reversible integrator needs.

use super::*;

impl Solver {
    /// Before the exact group's rounds: every island is to be stepped, and what a retaken
    /// island starts from is kept (the poses always, which kinematic bodies start each
    /// run from).
    pub(super) fn keep_exact_start(&mut self, stores: &mut Stores) {
        let islands = &mut self.islands;
        islands.island_todo.clear();
        islands
            .island_todo
            .resize(islands.island_substeps.len(), true);
        islands.exact_start_poses.clone_from(&self.poses);
        if !self.may_retake_any() {
            return;
        }
        self.islands
            .exact_start_velocities
            .clone_from(&self.velocities);
        self.direct.carries(&mut self.islands.exact_start_carries);
        for &s in &self.store_order {
            stores[s].keep_step_start();
        }
    }

    /// Whether island `k`, stepped in the current round, could be retaken: it moves, RATTLE
    /// steps it, and it took fewer substeps than the most.
    fn may_retake(&self, k: usize) -> bool {
        let islands = &self.islands;
        self.settings.adaptive_substeps
            && islands.island_todo[k]
            && islands.island_restless[k]
            && islands.island_plain[k]
            && islands.island_substeps[k] < self.settings.exact_substeps.max(1)
    }

    fn may_retake_any(&self) -> bool {
        (0..self.islands.island_todo.len()).any(|k| self.may_retake(k))
    }

    /// Kinematic bodies move over the whole step in each run of the exact group, from
    /// where the group started, so that every island sees them move alike however many
    /// runs the group takes.
    pub(super) fn restart_driven_bodies(&mut self) {
        for ((pose, start), motion) in self
            .poses
            .iter_mut()
            .zip(&self.islands.exact_start_poses)
            .zip(&self.motion)
        {
            if *motion == Motion::Driven {
                *pose = *start;
            }
        }
    }

    /// After a round of the exact group: reads the substeps each island's end needs, and
    /// flags for the next round the moving RATTLE islands that need more than they took,
    /// put back where the step started, with that many. Returns whether there are any.
    pub(super) fn retake_islands(&mut self, stores: &mut Stores, dt: f32) -> bool {
        if !self.may_retake_any() {
            return false;
        }
        let mut eligible = std::mem::take(&mut self.islands.retake_eligible);
        eligible.clear();
        eligible.extend((0..self.islands.island_todo.len()).map(|k| self.may_retake(k)));
        // The start's choice, aside while the end's is read.
        let islands = &mut self.islands;
        islands.start_substeps.clone_from(&islands.island_substeps);
        islands.start_restless.clone_from(&islands.island_restless);
        islands.start_weight.clone_from(&islands.body_weight);
        let weighted = islands.any_weighted;
        islands.start_unloaded.clone_from(&islands.island_unloaded);
        self.choose_exact_substeps(stores, dt);
        let islands = &mut self.islands;
        let mut any = false;
        for ((((todo, used), &needed), &restless), &may) in islands
            .island_todo
            .iter_mut()
            .zip(&mut islands.start_substeps)
            .zip(&islands.island_substeps)
            .zip(&islands.island_restless)
            .zip(&eligible)
        {
            let retake = may && restless && needed > *used;
            *todo = retake;
            if retake {
                *used = needed;
            }
            any |= retake;
        }
        std::mem::swap(&mut islands.island_substeps, &mut islands.start_substeps);
        std::mem::swap(&mut islands.island_restless, &mut islands.start_restless);
        std::mem::swap(&mut islands.body_weight, &mut islands.start_weight);
        std::mem::swap(&mut islands.island_unloaded, &mut islands.start_unloaded);
        islands.retake_eligible = eligible;
        islands.any_weighted = weighted;
        if !any {
            return false;
        }
        for ((pose, velocity), (&start_pose, &start_velocity)) in self
            .poses
            .iter_mut()
            .zip(&mut self.velocities)
            .zip(
                self.islands
                    .exact_start_poses
                    .iter()
                    .zip(&self.islands.exact_start_velocities),
            )
            .zip(&self.islands.body_island)
            .filter_map(|(pair, &island)| {
                (island != NONE && self.islands.island_todo[island as usize]).then_some(pair)
            })
        {
            *pose = start_pose;
            *velocity = start_velocity;
        }
        self.direct
            .restart_carries(&self.islands.exact_start_carries, &self.islands.island_todo);
        for &s in &self.store_order {
            stores[s].restore_step_start(&self.direct, &self.islands.island_todo);
        }
        true
    }
}
