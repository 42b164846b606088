//! The [`ErasedStore`] impl of [`Store`]: every phase of a substep over one constraint type.

use super::*;
use crate::types::{WorldPose, frame_poses};

impl<T: Constraint<D, B>, const D: usize, const B: usize> ErasedStore for Store<T, D, B> {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn name(&self) -> &'static str {
        T::NAME
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn links(&self, out: &mut Vec<Link>) {
        for (e, c) in self.entries.iter().zip(&self.cold) {
            if !c.settings.active {
                continue;
            }
            let mut bodies = [0u32; SharedSlots::MAX_SLOTS];
            for (b, &x) in bodies.iter_mut().zip(&e.bodies) {
                *b = x as u32;
            }
            out.push(Link {
                rows: D,
                bodies,
                slots: B,
            });
        }
    }

    fn assign(&mut self, assignment: &mut std::slice::Iter<'_, Option<DirectSlot>>) {
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            // Settings, masses or bodies may have changed: the next preparation is full.
            e.refresh = Refresh::Full;
            c.direct = if c.settings.active {
                assignment.next().copied().flatten()
            } else {
                None
            };
        }
        self.direct_entries = self.cold.iter().filter(|c| c.direct.is_some()).count();
        // A break is only recorded under these settings (or restored with a snapshot),
        // and settings change only with a rebuild, which calls this.
        self.breakable = self.cold.iter().any(|c| {
            c.settings.break_under_force || c.settings.break_under_error || c.broken.is_some()
        });
    }

    fn join_meshes(&self, meshes: &mut Meshes, dynamic: &[bool]) {
        for (e, c) in self.entries.iter().zip(&self.cold) {
            if c.settings.active && c.direct.is_none() {
                meshes.join(&e.bodies, dynamic, limits_apart(&e.constraint));
            }
        }
    }

    fn order_sweeps(&mut self, dynamic: &[bool], limited: &[bool]) {
        for (e, c) in self.entries.iter().zip(&mut self.cold) {
            c.in_limited_mesh = c.direct.is_none() && e.bodies.iter().any(|&b| limited[b]);
        }
        let mut order = colour_order(
            self.entries.iter().zip(&self.cold).map(|(e, c)| {
                let swept = c.settings.active && c.direct.is_none();
                swept.then_some(&e.bodies[..])
            }),
            dynamic,
        );
        // The entries swept through a damper's rows last, each part in its colour order.
        order.sort_by_key(|&d| Self::sweeps_spin_free(&self.cold[d]));
        self.spin_free = order
            .iter()
            .take_while(|&&d| !Self::sweeps_spin_free(&self.cold[d]))
            .count();
        if order.iter().enumerate().all(|(d, &from)| d == from) {
            return;
        }
        self.entries = permuted(std::mem::take(&mut self.entries), &order);
        self.cold = permuted(std::mem::take(&mut self.cold), &order);
        for (d, c) in self.cold.iter().enumerate() {
            self.slots[c.slot as usize].dense = d as u32;
        }
    }

    fn begin_step(&mut self, clear_totals: bool) {
        self.ready_ahead = false;
        if clear_totals {
            self.entries.iter_mut().for_each(Entry::clear_step_totals);
        }
        // Only the exact solve rebases.
        if self.direct_entries > 0 {
            for c in &mut self.cold {
                c.rebased_impulse = [0.0; D];
            }
        }
    }

    fn prepare(
        &mut self,
        substep: &Substep,
        poses: &[WorldPose],
        inverse_masses: &[InverseMass],
        velocities: &mut [Velocity],
        direct: &mut DirectSystem,
    ) {
        if substep.group == Group::Exact {
            if self.direct_entries == 0 {
                return;
            }
            self.direct_swept = false;
            self.direct_active_set = false;
        }
        let later_swept = !substep.first && substep.group == Group::Swept;
        if later_swept && std::mem::take(&mut self.ready_ahead) {
            return;
        }
        let clear_totals = substep.first && substep.group == Group::Swept;
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            if clear_totals {
                e.clear_step_totals();
            }
            // A swept constraint's later substeps read only its first lines and the
            // constraint itself (the flags that decide so are among the first).
            if later_swept && e.solving {
                if e.refresh == Refresh::Ready {
                    continue;
                }
                if e.refresh == Refresh::Swept
                    && Self::refresh_entry(e, c, substep, poses, Linearized::Stale)
                {
                    if c.spin().is_some() {
                        c.set_spin(Self::damper_spin_at(e, c, &e.jacobian, poses));
                    }
                    Self::warm_start_damped(e, c, velocities);
                    continue;
                }
            }
            if !substep.group.holds(c.direct.is_some()) {
                continue;
            }
            let mut restore = None;
            if let Some(slot) = c.direct {
                c.in_run = direct.is_active(&slot);
                if !c.in_run {
                    continue;
                }
                if substep.carry_start {
                    match Self::carried_start(e, c, &slot, substep, direct) {
                        Start::Carried
                            if Self::write_carried_bias(
                                e,
                                &slot,
                                poses,
                                inverse_masses,
                                velocities,
                                direct,
                            ) =>
                        {
                            continue;
                        }
                        // Its Jacobian gone non-finite: prepared anew (and contained), its
                        // island factorised anew.
                        Start::Carried => direct.veto_carry(&slot),
                        Start::Restored => restore = Some((slot, e.jacobian, e.inverse_masses)),
                        Start::Fresh => {}
                    }
                }
                if restore.is_none()
                    && e.refresh == Refresh::Exact
                    && e.solving
                    && (!substep.first
                        || (e.previous_h == substep.h && !c.settings.break_under_error))
                    && Self::refresh_exact_entry(e, c, poses, inverse_masses, velocities, direct)
                {
                    continue;
                }
            }
            Self::prepare_entry(e, c, substep, poses, inverse_masses, velocities, direct);
            if let Some((slot, jacobian, masses)) = restore {
                if e.solving && e.refresh == Refresh::Exact {
                    Self::restore_carried_rows(e, c, &slot, jacobian, masses, velocities, direct);
                    if Self::write_carried_bias(e, &slot, poses, inverse_masses, velocities, direct)
                    {
                        continue;
                    }
                }
                direct.veto_carry(&slot);
            }
            if let (Some(slot), false) = (&c.direct, e.solving) {
                // Its rows, written in an earlier substep, act no more.
                direct.clear_rows(slot, D);
            }
            if c.direct.is_some() {
                self.direct_swept |= e.solving && c.sweep;
                self.direct_active_set |= e.solving && !c.sweep && (e.limited || c.clamp_force);
            }
            // Warm start here, while the entry is in cache: preparing reads no velocity
            // an impulse can change (only kinematic bodies', which have infinite mass).
            // Only a spring, or a stiff entry of a mesh with a limit, has a counter-spin.
            if e.stiff && !c.in_limited_mesh {
                Self::warm_start(e, velocities);
            } else {
                Self::warm_start_damped(e, c, velocities);
            }
        }
    }

    fn unmark_plain_islands(&self, direct: &DirectSystem, plain: &mut [bool]) {
        if self.direct_entries == 0 {
            return;
        }
        for c in &self.cold {
            let Some(slot) = c.direct else { continue };
            let s = &c.settings;
            // A spring steps by RATTLE as a kick (`verlet_spring`), on a constraint whose
            // error is its position (no bounds) and with a frequency. Limits, motors,
            // force limits and breaking step by RATTLE too: a limit's corrections are
            // impulses (`correct_limits`), a motor's rows have no position to correct, a
            // clamped impulse is bounded in each substep by the time it stands for
            // (`Substep::span`), and an error is measured for breaking at the step's start
            // as on any step.
            // (A NaN frequency is none.)
            let has_frequency = s.frequency > 0.0;
            let linear_spring = !s.stiff && !has_frequency;
            if linear_spring {
                plain[direct.island(&slot)] = false;
            }
        }
    }

    fn pull_direct(&mut self, direct: &DirectSystem) {
        if self.direct_entries == 0 {
            return;
        }
        for (e, c, slot) in exact_run(&mut self.entries, &mut self.cold) {
            direct.read_impulses(&slot, &c.direct_rows, &mut e.impulse);
            if e.reads_cold {
                let impulse = e.impulse;
                e.breaks_under(c, &impulse);
            }
        }
    }

    fn correct_limits(
        &mut self,
        poses: &mut [WorldPose],
        velocities: &mut [Velocity],
        direct: &mut DirectSystem,
        first: bool,
        max_distance: f32,
        substep: &Substep,
    ) {
        let (group, as_impulse) = (substep.group, substep.rattle.then_some(substep.h));
        if !T::HAS_LIMITS || T::VELOCITY_ONLY {
            return;
        }
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            if first {
                c.limit_impulse = [0.0; D];
            }
            if !group.holds(c.direct.is_some()) || (c.direct.is_some() && !c.in_run) {
                continue;
            }
            if first && !c.settings.stiff {
                Self::take_back_exits(e, c, poses, velocities);
                continue;
            }
            if !(e.solving && e.limited && c.settings.stiff) {
                continue;
            }
            let again = match &c.direct {
                Some(slot) => direct.is_marked(slot),
                None => false,
            };
            if !(first || again) {
                continue;
            }
            let Some(weighted) =
                Self::correct_entry(e, c, poses, velocities, max_distance, as_impulse)
            else {
                continue;
            };
            if let Some(h) = as_impulse {
                // The correction's impulse counts in the constraint's totals (its rows in
                // the exact solve, or its own swept impulse).
                for (i, d) in weighted.iter().enumerate() {
                    if *d == 0.0 {
                        continue;
                    }
                    match &c.direct {
                        Some(slot) if c.direct_rows[i] => direct.add_impulse(slot, i, d / h),
                        _ => {
                            e.impulse[i] += d / h;
                            c.limit_impulse[i] += d / h;
                        }
                    }
                }
            }
            if let Some(slot) = c.direct {
                direct.mark(&slot);
            }
        }
    }

    fn undo_limit_impulses(&mut self, direct: &DirectSystem, undone: &[bool]) {
        if !T::HAS_LIMITS || self.direct_entries == 0 {
            return;
        }
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            let Some(slot) = c.direct else { continue };
            if undone[direct.island(&slot)] {
                for (impulse, added) in e.impulse.iter_mut().zip(&mut c.limit_impulse) {
                    *impulse -= std::mem::take(added);
                }
            }
        }
    }

    fn rounding_scales(&self, poses: &[WorldPose], direct: &DirectSystem, floors: &mut [f32]) {
        if self.direct_entries == 0 || T::VELOCITY_ONLY {
            return;
        }
        for (e, c) in self.entries.iter().zip(&self.cold) {
            let Some(slot) = c.direct else { continue };
            if !c.in_run || !e.solving || !c.settings.stiff {
                continue;
            }
            let slot_poses = frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
            let squared: f32 = slot_poses.iter().map(|p| p.position.length_squared()).sum();
            #[allow(clippy::cast_precision_loss)]
            let rows = c.direct_rows.iter().filter(|&&r| r).count() as f32;
            floors[direct.island(&slot)] += rows * squared;
        }
    }

    fn position_errors(
        &mut self,
        poses: &[WorldPose],
        direct: &mut DirectSystem,
        island_errors: &mut [f32],
        rhs: bool,
    ) {
        if self.direct_entries == 0 {
            return;
        }
        if T::VELOCITY_ONLY {
            return;
        }
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            let Some(slot) = c.direct else { continue };
            if !c.in_run {
                continue;
            }
            if !e.solving || !c.settings.stiff {
                continue;
            }
            let slot_poses: [Pose; B] =
                frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
            let position = e.constraint.position_error(&slot_poses);
            let bounds = if T::HAS_LIMITS {
                e.constraint.bounds()
            } else {
                [Bounds::ZERO; D]
            };
            let sum = &mut island_errors[direct.island(&slot)];
            let mut errors = [0.0; D];
            let mut written = [false; D];
            for i in 0..D {
                let Bounds { min, max } = bounds[i];
                if !c.direct_rows[i] {
                    // A limit outside the active set is not projected, but the guard
                    // measures it: a projection must not push a body across it.
                    if T::HAS_LIMITS && min < max {
                        let outside = (position[i] - max).max(min - position[i]).max(0.0);
                        *sum = if outside.is_finite() {
                            *sum + outside * outside
                        } else {
                            f32::INFINITY
                        };
                    }
                    continue;
                }
                let error = if min == max {
                    position[i] - min
                } else if e.weights[i] > 0.0 {
                    (position[i] - max).max(0.0)
                } else {
                    (min - position[i]).max(0.0)
                };
                if error.is_finite() {
                    errors[i] = error;
                    written[i] = true;
                    *sum += error * error;
                } else {
                    *sum = f32::INFINITY;
                }
            }
            if rhs {
                direct.set_position_errors(&slot, &errors, &written);
            }
        }
    }

    fn relinearize(
        &mut self,
        poses: &[WorldPose],
        velocities: &[Velocity],
        direct: &mut DirectSystem,
        damping: &[f32],
    ) {
        if self.direct_entries == 0 {
            return;
        }
        for (e, c, slot) in exact_run(&mut self.entries, &mut self.cold) {
            let Some((jacobian, k)) = Self::linearize_at(e, c, poses) else {
                direct.clear_rows(&slot, D);
                continue;
            };
            let compliance = c.direct_compliance + damping[direct.island(&slot)];
            let spin = c
                .spin()
                .and_then(|_| Self::damper_spin_at(e, c, &jacobian, poses));
            Self::write_direct_rows(
                e,
                c,
                &jacobian,
                &k,
                compliance,
                spin.as_ref(),
                velocities,
                direct,
            );
        }
    }

    fn rebase_exact_rows(
        &mut self,
        poses: &[WorldPose],
        velocities: &mut [Velocity],
        direct: &mut DirectSystem,
        spring_kick: Option<f32>,
    ) {
        if self.direct_entries == 0 {
            return;
        }
        if let (true, Some(kick)) = (T::HAS_LIMITS && !T::VELOCITY_ONLY, spring_kick) {
            // A soft limit inside its bounds at the last substep's start has no rows to
            // close the step through; crossed since, it closes it by its own impulse.
            for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
                let idle = c.direct.is_some() && c.in_run && !e.solving;
                if idle && c.settings.active && !c.settings.stiff && c.broken.is_none() {
                    Self::half_kick_limited(e, c, poses, velocities, 2.0 * kick);
                }
            }
        }
        for (e, c, slot) in exact_run(&mut self.entries, &mut self.cold) {
            let Some((jacobian, k)) = Self::linearize_at(e, c, poses) else {
                direct.clear_rows(&slot, D);
                continue;
            };
            e.rebase(c, jacobian);
            if let Some(kick) = spring_kick
                && !c.settings.stiff
                && !T::VELOCITY_ONLY
            {
                let slot_poses: [Pose; B] =
                    frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
                let position = e.constraint.position_error(&slot_poses);
                let mut error = Self::spring_error(e, &position);
                if e.solving && Self::kicks_undamped(&c.settings) {
                    // The closing kick, an impulse through the new `J` (counted by
                    // `accumulate_direct`); the rows stay out of the solve.
                    let closing = explicit_kick(&c.settings, &error, kick, &k);
                    e.apply(&closing, velocities);
                    for (l, x) in e.impulse.iter_mut().zip(closing) {
                        *l += x;
                    }
                    continue;
                }
                if T::HAS_LIMITS {
                    // The closing half of the step's last substep, split at the bound.
                    error = Self::split_kick(e, c, &position, &e.weights, &k, error, kick, 0.0);
                }
                let (spring, bias) = verlet_spring(&c.settings, &error, kick);
                let gamma = spring.relative_compliance();
                // The solve that follows finds `Δλ` from `(K + γ₀k̄)Δλ = −(Jv + b) − γ₀k̄λ`
                // with `λ` this substep's impulse so far, already in the velocities: the
                // kick is a new impulse, so `b` carries `−γ₀k̄λ` back out.
                let mean = mean_diagonal(&k);
                e.bias[1] = std::array::from_fn(|i| bias[i] - gamma * mean * e.impulse[i]);
                (c.direct_compliance, c.spring_compliance) = (0.0, gamma);
            }
            if c.spin().is_some() {
                c.set_spin(Self::damper_spin_at(e, c, &e.jacobian, poses));
            }
            Self::write_direct_rows(
                e,
                c,
                &e.jacobian,
                &k,
                c.direct_compliance,
                c.spin(),
                velocities,
                direct,
            );
        }
    }

    fn spring_rates(&self, out: &mut [f32]) {
        if self.direct_entries == 0 || T::VELOCITY_ONLY {
            return;
        }
        for (e, c) in self.entries.iter().zip(&self.cold) {
            let s = &c.settings;
            if c.direct.is_none() || s.stiff || !s.active || !s.frequency.is_finite() {
                continue;
            }
            let omega = std::f32::consts::TAU * s.frequency;
            for &b in &e.bodies {
                out[b] = out[b].max(omega * omega);
            }
        }
    }

    fn step_motion(
        &self,
        velocities: &[Velocity],
        impulses: &mut [Velocity],
        relative_spins: &mut [f32],
    ) {
        if self.direct_entries == 0 {
            return;
        }
        for (e, c) in self.entries.iter().zip(&self.cold) {
            if c.direct.is_none() {
                continue;
            }
            for s in 0..B {
                let a = e.bodies[s];
                if e.first_of_its_body(s) {
                    let (body, impulse) = (&mut impulses[a], e.step_body_impulse[s]);
                    body.linear += impulse.linear;
                    body.angular += impulse.angular;
                }
                for &b in &e.bodies[..s] {
                    let relative = (velocities[a].angular - velocities[b].angular).abs();
                    // Comparisons, not `f32::max`, whose NaN handling costs more.
                    if relative > relative_spins[a] {
                        relative_spins[a] = relative;
                    }
                    if relative > relative_spins[b] {
                        relative_spins[b] = relative;
                    }
                }
            }
        }
    }

    fn geometric_stiffness(&self, poses: &[WorldPose], out: &mut [[f32; 2]], flags: &mut [u8]) {
        if self.direct_entries == 0 || T::VELOCITY_ONLY {
            return;
        }
        for (e, c) in self.entries.iter().zip(&self.cold) {
            let Some(slot) = c.direct else { continue };
            if e.solving && c.sweep {
                for s in 0..B {
                    if slot.positions[s] != u8::MAX {
                        out[e.bodies[s]] = [f32::INFINITY; 2];
                    }
                }
                continue;
            }
            if c.settings.active && c.broken.is_none() {
                let flag = if !e.solving || e.previous_h <= 0.0 {
                    LOAD_UNKNOWN
                } else if !c.settings.stiff {
                    SPRUNG
                } else {
                    0
                };
                for &b in &e.bodies {
                    flags[b] |= flag;
                }
            }
            if !e.solving || e.previous_h <= 0.0 {
                continue;
            }
            if e.impulse.iter().all(|&x| x == 0.0) {
                continue;
            }
            // Multiplied by a reciprocal: this runs for every constraint every step.
            let per_second = 1.0 / e.previous_h;
            let force = e.weighted_impulse().map(|x| x * per_second);
            let base: [Pose; B] =
                frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
            // A body's own stiffness, once: dynamic (in the direct system) and the first slot
            // holding it.
            let probed: [bool; B] =
                std::array::from_fn(|s| slot.positions[s] != u8::MAX && e.first_of_its_body(s));
            let stiffness = e
                .constraint
                .geometric_stiffness(&base, &force)
                .unwrap_or_else(|| e.probed_stiffness(&base, &force, &probed));
            for s in (0..B).filter(|&s| probed[s]) {
                let k = stiffness[s];
                if k.iter().all(|x| x.is_finite()) {
                    out[e.bodies[s]][0] += k[0];
                    out[e.bodies[s]][1] += k[1];
                }
            }
        }
    }

    fn update_active_rows(
        &mut self,
        direct: &mut DirectSystem,
        velocities: &mut [Velocity],
    ) -> bool {
        if self.direct_entries == 0 || !self.direct_active_set {
            return false;
        }
        let mut any = false;
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            let Some(slot) = c.direct else { continue };
            if !(c.in_run && e.solving && (e.limited || c.clamp_force))
                || c.sweep
                || c.broken.is_some()
            {
                continue;
            }
            let v = e
                .constraint
                .velocity_error(&e.jacobian, &e.bodies, velocities);
            let mut rows = c.direct_rows;
            // The weighted impulse change the new set applies.
            let mut change = [0.0; D];
            let saturated = !rows.iter().any(|&r| r);
            if c.clamp_force && saturated {
                if length_squared(&Self::trial_impulse(e, c, &v)) < e.max_impulse * e.max_impulse {
                    rows = std::array::from_fn(|i| {
                        Self::usable_row(e, c, i) && (!c.inequality[i] || e.impulse[i] != 0.0)
                    });
                }
            } else if c.clamp_force && length_squared(&e.impulse) > e.max_impulse * e.max_impulse {
                let mut clamped = e.impulse;
                clamp_length(&mut clamped, e.max_impulse);
                change = std::array::from_fn(|i| e.weights[i] * (clamped[i] - e.impulse[i]));
                e.impulse = clamped;
                rows = [false; D];
            } else if e.limited {
                for i in 0..D {
                    // `row_mass` is non-zero exactly for the usable limit rows.
                    if !c.inequality[i] || c.row_mass[i] == 0.0 {
                        continue;
                    }
                    if rows[i] {
                        if e.impulse[i] > 0.0 {
                            rows[i] = false;
                            change[i] = -e.weights[i] * e.impulse[i];
                            e.impulse[i] = 0.0;
                        }
                    } else if e.weights[i] * v[i] + e.bias[0][i] > 0.0 {
                        rows[i] = true;
                    }
                }
            }
            if rows == c.direct_rows {
                continue;
            }
            if change.iter().any(|&x| x != 0.0) {
                e.apply_damped(c, &change, velocities);
            }
            c.direct_rows = rows;
            let k = e
                .constraint
                .effective_mass(&e.jacobian, &e.inverse_masses, c.shared);
            let (k, _) = weighted(&k, &e.weights);
            Self::write_direct_rows(
                e,
                c,
                &e.jacobian,
                &k,
                c.direct_compliance,
                c.spin(),
                velocities,
                direct,
            );
            direct.mark(&slot);
            any = true;
        }
        any
    }

    fn push_direct(&mut self, direct: &mut DirectSystem) {
        if self.direct_entries == 0 || !self.direct_swept {
            return;
        }
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            let Some(slot) = c.direct else { continue };
            if !c.in_run {
                continue;
            }
            if !c.sweep || !e.solving {
                continue;
            }
            direct.mark(&slot);
            for i in 0..D {
                if c.direct_rows[i] {
                    direct.set_impulse(&slot, i, e.impulse[i]);
                }
            }
        }
    }

    fn sweep(
        &mut self,
        pass: usize,
        velocities: &mut [Velocity],
        last: bool,
        group: Group,
        relinearize_at: Option<&[WorldPose]>,
    ) {
        // Without exactly solved entries `direct` is `None` everywhere: not read, the
        // sweep stays on the entries' first cache lines.
        let any_direct = self.direct_entries > 0;
        if group == Group::Exact && !(any_direct && self.direct_swept) {
            return;
        }
        let sweep = Sweep {
            pass,
            last,
            group,
            relinearize_at,
            any_direct,
        };
        let springs = self.spin_free.min(self.entries.len());
        let (entries, spring_entries) = self.entries.split_at_mut(springs);
        let (cold, spring_cold) = self.cold.split_at_mut(springs);
        Self::sweep_part::<false>(entries, cold, &sweep, velocities);
        if group == Group::Swept {
            Self::sweep_part::<true>(spring_entries, spring_cold, &sweep, velocities);
        }
    }

    fn sweep_ahead(&mut self, velocities: &mut [Velocity], ahead: &mut Ahead<'_>, first: bool) {
        let any_direct = self.direct_entries > 0;
        let springs = self.spin_free.min(self.entries.len());
        let (entries, spring_entries) = self.entries.split_at_mut(springs);
        let (cold, spring_cold) = self.cold.split_at_mut(springs);
        let ready =
            Self::sweep_ahead_part::<false>(entries, cold, any_direct, velocities, ahead, first);
        let springs_ready = Self::sweep_ahead_part::<true>(
            spring_entries,
            spring_cold,
            any_direct,
            velocities,
            ahead,
            first,
        );
        self.ready_ahead = ready && springs_ready;
    }

    fn finish_swept_springs(&mut self, poses: &[WorldPose], velocities: &mut [Velocity], h: f32) {
        Store::finish_swept_springs(self, poses, velocities, h);
    }

    fn end_substep(&mut self, all: bool, group: Group, direct: &mut DirectSystem) {
        // Swept entries were counted by the last sweep, unless there was none.
        let exact = group == Group::Exact;
        if !(all || exact) || (exact && self.direct_entries == 0) {
            return;
        }
        // Islands that never keep a factor (at rest, with limits, swept) pay nothing here.
        let mark = exact && (self.carried_entries || direct.any_kept());
        let mut carried = false;
        for (e, c) in self.entries.iter_mut().zip(&mut self.cold) {
            if mark {
                if let (true, Some(slot)) = (c.in_run, c.direct) {
                    // Only a stiff equality constraint the exact solve took whole (what
                    // the carried start refreshes) lets its island keep its factor.
                    c.carried = direct.carry_of(&slot) == Carry::Kept;
                    if c.carried && !(e.solving && e.refresh == Refresh::Exact) {
                        c.carried = false;
                        direct.veto_carry(&slot);
                    }
                }
                carried |= c.carried;
            }
            if group.holds(c.direct.is_some())
                && (c.direct.is_none() || c.in_run)
                && (e.solving || c.broken.is_some())
            {
                if c.direct.is_some() {
                    e.accumulate_direct(c);
                } else {
                    e.accumulate_damped(c, &[0.0; D]);
                }
            }
        }
        if mark {
            self.carried_entries = carried;
        }
    }

    fn keep_step_start(&mut self) {
        if self.direct_entries == 0 {
            return;
        }
        if self.step_start.len() != self.entries.len() {
            // Sized with the store (after a change of its constraints), then reused.
            self.step_start.clone_from(&self.entries);
            self.step_start_cold.clone_from(&self.cold);
            return;
        }
        for (((kept, kept_cold), e), c) in self
            .step_start
            .iter_mut()
            .zip(&mut self.step_start_cold)
            .zip(&self.entries)
            .zip(&self.cold)
        {
            if c.direct.is_some() {
                kept.restore_step_state(e);
                kept_cold.restore_step_state(c);
            }
        }
    }

    fn restore_step_start(&mut self, direct: &DirectSystem, retaken: &[bool]) {
        if self.direct_entries == 0 {
            return;
        }
        for (((e, c), kept), kept_cold) in self
            .entries
            .iter_mut()
            .zip(&mut self.cold)
            .zip(&self.step_start)
            .zip(&self.step_start_cold)
        {
            if let Some(slot) = c.direct
                && retaken[direct.island(&slot)]
            {
                e.restore_step_state(kept);
                c.restore_step_state(kept_cold);
            }
        }
    }

    fn claim_carries(&self, direct: &mut DirectSystem) {
        for (e, c) in self.entries.iter().zip(&self.cold) {
            if let Some(slot) = c.direct {
                direct.claim_carry(&slot, c.carried && e.solving);
            }
        }
    }

    fn process_broken(&mut self, broken: &mut Vec<BreakEvent>) {
        if !self.breakable {
            return;
        }
        let mut d = 0;
        while d < self.entries.len() {
            let Some(Break {
                cause,
                value,
                limit,
            }) = self.cold[d].broken
            else {
                d += 1;
                continue;
            };
            broken.push(BreakEvent {
                constraint: self.id_of(d),
                cause,
                value,
                limit,
            });
            if self.cold[d].settings.remove_on_break {
                self.remove_dense(d);
            } else {
                // Deactivated: the impulse it applied during this step stays readable
                // until the next step, but is never used as a warm start.
                let (e, c) = (&mut self.entries[d], &mut self.cold[d]);
                c.broken = None;
                c.settings.active = false;
                e.previous_h = 0.0;
                e.solving = false;
                c.direct = None;
                d += 1;
            }
        }
    }

    fn attached(&self, body: usize, out: &mut Vec<ConstraintId>) {
        out.extend(
            (0..self.entries.len())
                .filter(|&d| self.entries[d].bodies.contains(&body))
                .map(|d| self.id_of(d)),
        );
    }

    fn slot_bodies(&self, index: u32, generation: u32) -> Option<Vec<usize>> {
        self.get(index, generation).map(|(e, _)| e.bodies.to_vec())
    }

    fn body_impulses(&self, index: u32, generation: u32) -> Option<Vec<(usize, Velocity)>> {
        self.get(index, generation).map(|(e, _)| e.body_impulses())
    }

    fn remove_attached(&mut self, body: usize, removed: &mut Vec<ConstraintId>) {
        let mut d = 0;
        while d < self.entries.len() {
            if self.entries[d].bodies.contains(&body) {
                removed.push(self.id_of(d));
                self.remove_dense(d);
            } else {
                d += 1;
            }
        }
    }

    fn remove_id(&mut self, index: u32, generation: u32) -> bool {
        self.remove(index, generation).is_some()
    }

    fn contain_faults(&mut self, poses: &[WorldPose], out: &mut Vec<ConstraintId>) {
        for d in 0..self.entries.len() {
            let e = &self.entries[d];
            let finite = |x: &f32| x.is_finite();
            // One test of a sum: finite parts have a finite sum, and a sum that overflows
            // `f32` comes from impulses no joint can mean.
            let impulses_finite = (e.impulse.iter().sum::<f32>()
                + e.step_impulse.iter().sum::<f32>()
                + e.step_body_impulse
                    .iter()
                    .map(|v| v.linear.x + v.linear.y + v.angular)
                    .sum::<f32>())
            .is_finite();
            // Every active entry is prepared each substep and keeps `previous_h = h`,
            // except one whose effective mass was not finite (it sat the substep out).
            // Whether it is active at all is asked last: a sound entry's settings stay
            // unread.
            let faulty = (!impulses_finite
                || e.previous_h == 0.0
                || (!e.solving && !T::VELOCITY_ONLY && {
                    let slot_poses: [Pose; B] =
                        frame_poses(poses, &e.bodies, e.constraint.translation_invariant());
                    !e.constraint.position_error(&slot_poses).iter().all(finite)
                }))
                && self.cold[d].settings.active;
            if faulty {
                out.push(self.id_of(d));
                self.entries[d].clear_warm_start(&mut self.cold[d]);
            }
        }
    }

    fn clone_box(&self) -> Box<dyn ErasedStore> {
        Box::new(self.clone())
    }

    fn list(&self, out: &mut Vec<(ConstraintId, Vec<usize>)>) {
        out.extend(
            (0..self.entries.len()).map(|d| (self.id_of(d), self.entries[d].bodies.to_vec())),
        );
    }

    fn state_bits(&self, out: &mut dyn FnMut(u32)) {
        for (d, (e, c)) in self.entries.iter().zip(&self.cold).enumerate() {
            let id = self.id_of(d);
            out(id.index);
            out(id.generation);
            out(u32::from(c.settings.active));
            out(e.previous_h.to_bits());
            for i in 0..D {
                out(e.impulse[i].to_bits());
                out(e.weights[i].to_bits());
                out(e.step_impulse[i].to_bits());
            }
        }
    }

    fn encode(&self, out: &mut Vec<u8>, codec: &dyn crate::encoding::EntryCodec) {
        use crate::encoding::SnapshotFields;
        (self.slots.len() as u32).write_snapshot(out);
        for slot in &self.slots {
            [slot.generation, slot.dense].write_snapshot(out);
        }
        (self.free.len() as u32).write_snapshot(out);
        self.free.iter().for_each(|f| f.write_snapshot(out));
        (self.direct_entries as u64).write_snapshot(out);
        (self.entries.len() as u32).write_snapshot(out);
        for (e, c) in self.entries.iter().zip(&self.cold) {
            codec.write_constraint(&e.constraint, out);
            c.settings.write_snapshot(out);
            c.slot.write_snapshot(out);
            e.bodies.map(|b| b as u32).write_snapshot(out);
            e.inverse_masses.write_snapshot(out);
            codec.write_jacobian(&e.jacobian, out);
            e.k_inv.write_snapshot(out);
            c.row_mass.write_snapshot(out);
            e.limited.write_snapshot(out);
            e.impulse.write_snapshot(out);
            e.weights.write_snapshot(out);
            c.inequality.write_snapshot(out);
            e.bias.write_snapshot(out);
            e.mass_scale.write_snapshot(out);
            e.impulse_scale.write_snapshot(out);
            e.max_impulse.write_snapshot(out);
            [c.clamp_force, e.solving].write_snapshot(out);
            e.previous_h.write_snapshot(out);
            c.direct.is_some().write_snapshot(out);
            if let Some(d) = c.direct {
                (d.node, d.row, d.positions).write_snapshot(out);
            }
            c.direct_rows.write_snapshot(out);
            c.sweep.write_snapshot(out);
            c.carried.write_snapshot(out);
            e.step_impulse.write_snapshot(out);
            e.step_body_impulse.write_snapshot(out);
            c.broken.is_some().write_snapshot(out);
            if let Some(b) = c.broken {
                (b.cause, [b.value, b.limit]).write_snapshot(out);
            }
        }
    }

    fn decode(
        &mut self,
        input: &mut &[u8],
        codec: &dyn crate::encoding::EntryCodec,
        space: u32,
        bodies: &[Option<crate::encoding::LiveBody>],
    ) -> Result<(), crate::encoding::SnapshotError> {
        use crate::encoding::{SnapshotError, SnapshotFields, read_len};
        let malformed = SnapshotError::Malformed;
        let slot_count = u32::read_snapshot(input)?;
        for _ in 0..slot_count {
            let [generation, dense] = <[u32; 2]>::read_snapshot(input)?;
            self.slots.push(Slot { generation, dense });
        }
        let free_count = u32::read_snapshot(input)?;
        for _ in 0..free_count {
            self.free.push(u32::read_snapshot(input)?);
        }
        self.direct_entries = read_len(input)?;
        let entry_count = u32::read_snapshot(input)?;
        for d in 0..entry_count {
            let constraint = *codec
                .read_constraint(input)?
                .downcast::<T>()
                .map_err(|_| malformed("a codec of another type"))?;
            let settings = ConstraintSettings::read_snapshot(input)?;
            let slot = u32::read_snapshot(input)?;
            let body_indices = <[u32; B]>::read_snapshot(input)?;
            let handles = constraint.bodies();
            for (h, &i) in handles.iter().zip(&body_indices) {
                let live = bodies.get(i as usize).copied().flatten();
                if h.space != space
                    || h.index != i
                    || live.map(|b| b.generation) != Some(h.generation)
                {
                    return Err(malformed("a constraint's body is not live in the space"));
                }
            }
            if self.slots.get(slot as usize).map(|s| s.dense) != Some(d) {
                return Err(malformed("a constraint's slot"));
            }
            let (mut entry, mut cold) =
                fresh_entry(constraint, settings, slot, body_indices.map(|i| i as usize));
            entry.inverse_masses = SnapshotFields::read_snapshot(input)?;
            entry.jacobian = *codec
                .read_jacobian(input)?
                .downcast::<T::Jacobian>()
                .map_err(|_| malformed("a codec of another type"))?;
            entry.k_inv = SnapshotFields::read_snapshot(input)?;
            // In the order `encode` writes them.
            cold.row_mass = SnapshotFields::read_snapshot(input)?;
            entry.limited = SnapshotFields::read_snapshot(input)?;
            entry.impulse = SnapshotFields::read_snapshot(input)?;
            entry.weights = SnapshotFields::read_snapshot(input)?;
            cold.inequality = SnapshotFields::read_snapshot(input)?;
            entry.bias = SnapshotFields::read_snapshot(input)?;
            entry.mass_scale = SnapshotFields::read_snapshot(input)?;
            entry.impulse_scale = SnapshotFields::read_snapshot(input)?;
            entry.max_impulse = SnapshotFields::read_snapshot(input)?;
            cold.clamp_force = SnapshotFields::read_snapshot(input)?;
            entry.solving = SnapshotFields::read_snapshot(input)?;
            entry.previous_h = SnapshotFields::read_snapshot(input)?;
            cold.direct = if bool::read_snapshot(input)? {
                let (node, row, positions) = SnapshotFields::read_snapshot(input)?;
                Some(DirectSlot {
                    node,
                    row,
                    positions,
                })
            } else {
                None
            };
            cold.direct_rows = SnapshotFields::read_snapshot(input)?;
            cold.sweep = SnapshotFields::read_snapshot(input)?;
            cold.carried = SnapshotFields::read_snapshot(input)?;
            self.carried_entries |= cold.carried;
            entry.step_impulse = SnapshotFields::read_snapshot(input)?;
            entry.step_body_impulse = SnapshotFields::read_snapshot(input)?;
            cold.broken = if bool::read_snapshot(input)? {
                let (cause, [value, limit]) = SnapshotFields::read_snapshot(input)?;
                Some(Break {
                    cause,
                    value,
                    limit,
                })
            } else {
                None
            };
            entry.reads_cold = cold.clamp_force || cold.settings.break_under_force;
            decoded::check_entry(&entry, &cold, bodies)?;
            self.entries.push(entry);
            self.cold.push(cold);
        }
        // Every live slot names its own entry (checked above for the entries' slots, so
        // the live slots are exactly those), and the free list is the other slots, once.
        let live = self.slots.iter().filter(|s| s.dense != FREE).count();
        let mut listed = vec![false; self.slots.len()];
        for &f in &self.free {
            match self.slots.get(f as usize) {
                Some(s) if s.dense == FREE && !listed[f as usize] => listed[f as usize] = true,
                _ => return Err(malformed("a constraint store's free list")),
            }
        }
        if live != self.entries.len() || self.direct_entries > self.entries.len() {
            return Err(malformed("a constraint store's slot table"));
        }
        Ok(())
    }

    fn set_space(&mut self, space: u32) {
        self.space = space;
        for e in &mut self.entries {
            let bodies = e.constraint.bodies().map(|mut h| {
                h.space = space;
                h
            });
            e.constraint.set_bodies(bodies);
        }
    }
}
