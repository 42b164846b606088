//! A spring's damper taken off the rigid rotation of its bodies, so that it keeps their
//! angular momentum.
//!
//! A soft constraint damps its velocity error `J v`. Where its error is a vector that
//! turns with the bodies (a stretched soft pivot's anchor separation), a rigid rotation of
//! the bodies as one changes `J v` too, by `g ω` with `g = J u` (`u` the velocities of a
//! unit rigid rotation about their centre of mass): the damper brakes the spin itself,
//! with a torque no other body takes back, and a free pair spinning on a damped spring
//! lost 6 % of its angular momentum in 10 s. Noether's theorem says what a damper that
//! keeps angular momentum looks like: one that does not see a rigid rotation. Its rows are
//! `J_d = J − g wᵀ`, with `w = M u / Σ I` (`Σ I = uᵀ M u`, the bodies' inertia about
//! their centre of mass, so that `w·v` is their mean spin and `J_d u = 0`); the impulse
//! `J_dᵀ λ` then changes no angular momentum for any `λ`, and
//! `K_d = J_d M⁻¹ J_dᵀ = K − g gᵀ / Σ I`.
//!
//! The spring's own force is untouched: it is `−k̄⁻¹ω² C` in every direction
//! (`ColdEntry::spring_compliance`), and for an error that turns with the bodies
//! `g = C⊥`, so `gᵀλ = 0` along `C`. A constraint whose error does not turn (a
//! distance, an angle, a pulley) has `g = 0` and `J_d = J`.

use crate::types::{InverseMass, Pose, Velocity};

/// The rigid rotation of a spring's bodies, taken at the poses its rows are. In `f64`,
/// which the exact solve keeps its rows in: a stiff damper (20 Hz, ζ = 1) multiplies what
/// `J_d u` keeps of `f32` rounding into a torque that turned a spinning pair by 1e-4 of
/// its angular momentum in 10 s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RigidSpin<const D: usize, const B: usize> {
    /// `g = J u`: each row's rate under a unit rigid rotation.
    rates: [f64; D],
    /// Each slot's body's offset from the bodies' centre of mass, turned a quarter: the
    /// velocity `u` gives it, with angular velocity 1.
    lever: [[f64; 2]; B],
    /// Each slot's `w = M u / Σ I` (`[x, y, θ]`), the impulse per unit of counter-spin.
    weight: [[f64; 3]; B],
    /// `1 / Σ I`.
    inverse_inertia: f64,
}

impl<const D: usize, const B: usize> RigidSpin<D, B> {
    /// The spin of the bodies at `poses` for the rows `rows` (each row's `Jᵀ` per slot,
    /// `[x, y, θ]`), or `None` where the bodies' angular momentum is not theirs to keep:
    /// a body static, kinematic or unable to turn (the world takes the torque), or one
    /// body in two slots.
    pub(crate) fn of(
        rows: &[[[f32; 3]; B]; D],
        poses: &[Pose; B],
        inverse: &[InverseMass; B],
        distinct: bool,
    ) -> Option<Self> {
        if !distinct || inverse.iter().any(|m| !(m.mass > 0.0 && m.inertia > 0.0)) {
            return None;
        }
        let mass = inverse.map(|m| 1.0 / f64::from(m.mass));
        let inertia = inverse.map(|m| 1.0 / f64::from(m.inertia));
        let total: f64 = mass.iter().sum();
        let position = poses.map(|p| [f64::from(p.position.x), f64::from(p.position.y)]);
        let centre = [0, 1].map(|k| (0..B).map(|s| position[s][k] * mass[s]).sum::<f64>() / total);
        let lever = position.map(|x| [centre[1] - x[1], x[0] - centre[0]]);
        let sum_inertia: f64 = (0..B)
            .map(|s| inertia[s] + mass[s] * (lever[s][0] * lever[s][0] + lever[s][1] * lever[s][1]))
            .sum();
        if !(sum_inertia > 0.0 && sum_inertia.is_finite()) {
            return None;
        }
        let inverse_inertia = 1.0 / sum_inertia;
        let rates = rows.map(|row| {
            (0..B)
                .map(|s| {
                    let j = row[s].map(f64::from);
                    j[0] * lever[s][0] + j[1] * lever[s][1] + j[2]
                })
                .sum()
        });
        let weight = std::array::from_fn(|s| {
            [
                lever[s][0] * mass[s] * inverse_inertia,
                lever[s][1] * mass[s] * inverse_inertia,
                inertia[s] * inverse_inertia,
            ]
        });
        Some(Self {
            rates,
            lever,
            weight,
            inverse_inertia,
        })
    }

    /// Row `i` of the damper, `J_d = J − g wᵀ`, weighted by `weight` as the row `row` of
    /// `J` is (a limit row's sign).
    pub(crate) fn damper_row(&self, i: usize, row: &[[f32; 3]; B], weight: f32) -> [[f64; 3]; B] {
        let rate = f64::from(weight) * self.rates[i];
        std::array::from_fn(|s| {
            std::array::from_fn(|k| f64::from(row[s][k]) - rate * self.weight[s][k])
        })
    }

    /// The damper's effective mass `K_d = K − g gᵀ / Σ I` (`k`: `K`).
    pub(crate) fn damper_mass(&self, k: &[[f32; D]; D]) -> [[f32; D]; D] {
        std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                (f64::from(k[i][j]) - self.rates[i] * self.rates[j] * self.inverse_inertia) as f32
            })
        })
    }

    /// `J_d v = J v − g (w·v)` from the rows' rates `rates = J v`: what the rows see of
    /// the bodies' motion once their mean spin `w·v` is taken off.
    pub(crate) fn damper_velocity(
        &self,
        rates: &[f32; D],
        bodies: &[usize; B],
        velocities: &[Velocity],
    ) -> [f32; D] {
        let spin: f64 = bodies
            .iter()
            .zip(&self.weight)
            .map(|(&b, w)| {
                let v = velocities[b];
                w[0] * f64::from(v.linear.x)
                    + w[1] * f64::from(v.linear.y)
                    + w[2] * f64::from(v.angular)
            })
            .sum();
        std::array::from_fn(|i| (f64::from(rates[i]) - self.rates[i] * spin) as f32)
    }

    /// `gᵀλ`: the angular momentum `Jᵀλ` gives the bodies, which `J_dᵀλ` takes back.
    fn turn(&self, impulse: &[f32; D]) -> f64 {
        self.rates
            .iter()
            .zip(impulse)
            .map(|(g, &l)| g * f64::from(l))
            .sum()
    }

    /// What `J_dᵀλ` adds to `Jᵀλ` on each slot's body: `−w gᵀλ`, added to `totals`.
    pub(crate) fn add_counter_impulse(&self, impulse: &[f32; D], totals: &mut [Velocity; B]) {
        let turn = self.turn(impulse);
        for (total, w) in totals.iter_mut().zip(&self.weight) {
            total.linear.x -= (w[0] * turn) as f32;
            total.linear.y -= (w[1] * turn) as f32;
            total.angular -= (w[2] * turn) as f32;
        }
    }

    /// The velocity that [`add_counter_impulse`](Self::add_counter_impulse)'s impulse
    /// gives: `M⁻¹(−w gᵀλ) = −u gᵀλ / Σ I`, a rigid counter-rotation.
    pub(crate) fn counter_spin(
        &self,
        impulse: &[f32; D],
        bodies: &[usize; B],
        velocities: &mut [Velocity],
    ) {
        let rate = self.turn(impulse) * self.inverse_inertia;
        for (&b, lever) in bodies.iter().zip(&self.lever) {
            velocities[b].linear.x -= (lever[0] * rate) as f32;
            velocities[b].linear.y -= (lever[1] * rate) as f32;
            velocities[b].angular -= rate as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Vec2;

    fn pose(x: f32, y: f32, angle: f32) -> Pose {
        Pose::new(Vec2::new(x, y), f64::from(angle))
    }

    /// A stretched pivot's rows between two bodies: the damper's rows see no rigid
    /// rotation, their impulse keeps angular momentum about any point, and `K_d` is
    /// `J_d M⁻¹ J_dᵀ`.
    #[test]
    fn the_damper_rows_see_no_rigid_rotation_and_keep_angular_momentum() {
        let poses = [pose(-0.5, 0.1, 0.3), pose(1.2, -0.4, -1.1)];
        let inverse = [
            InverseMass {
                mass: 1.0 / 2.0,
                inertia: 1.0 / 0.4,
            },
            InverseMass {
                mass: 1.0 / 3.0,
                inertia: 1.0 / 1.3,
            },
        ];
        // Pivot rows: `C = (x₂ + r₂) − (x₁ + r₁)`, `r` the world anchors.
        let (r1, r2) = (Vec2::new(0.6, 0.2), Vec2::new(-0.7, 0.3));
        let rows: [[[f32; 3]; 2]; 2] = std::array::from_fn(|i| {
            let axis = if i == 0 { Vec2::X } else { Vec2::Y };
            [
                [-axis.x, -axis.y, -r1.perp_dot(axis)],
                [axis.x, axis.y, r2.perp_dot(axis)],
            ]
        });
        let spin = RigidSpin::of(&rows, &poses, &inverse, true).unwrap();
        let damper: [[[f64; 3]; 2]; 2] = std::array::from_fn(|i| spin.damper_row(i, &rows[i], 1.0));
        // A unit rigid rotation about an arbitrary point (a translation added).
        let pivot = Vec2::new(3.0, -2.0);
        let rotation: [Velocity; 2] = std::array::from_fn(|s| Velocity {
            linear: (poses[s].position - pivot).perp(),
            angular: 1.0,
        });
        for row in &damper {
            let rate: f64 = (0..2)
                .map(|s| {
                    row[s][0] * f64::from(rotation[s].linear.x)
                        + row[s][1] * f64::from(rotation[s].linear.y)
                        + row[s][2] * f64::from(rotation[s].angular)
                })
                .sum();
            assert!(rate.abs() < 1e-6, "{rate}");
        }
        // The same from `J v` alone, as the sweeps take it, for the rotation and for any
        // velocity (`J_d v` of the rows above).
        let rates = |v: &[Velocity; 2]| -> [f32; 2] {
            std::array::from_fn(|i| {
                (0..2)
                    .map(|s| {
                        rows[i][s][0] * v[s].linear.x
                            + rows[i][s][1] * v[s].linear.y
                            + rows[i][s][2] * v[s].angular
                    })
                    .sum()
            })
        };
        for rate in spin.damper_velocity(&rates(&rotation), &[0, 1], &rotation) {
            assert!(rate.abs() < 1e-5, "{rate}");
        }
        let any = [
            Velocity {
                linear: Vec2::new(0.3, -1.1),
                angular: 0.8,
            },
            Velocity {
                linear: Vec2::new(-0.4, 0.2),
                angular: -1.7,
            },
        ];
        let damped = spin.damper_velocity(&rates(&any), &[0, 1], &any);
        for (i, row) in damper.iter().enumerate() {
            let expected: f64 = (0..2)
                .map(|s| {
                    row[s][0] * f64::from(any[s].linear.x)
                        + row[s][1] * f64::from(any[s].linear.y)
                        + row[s][2] * f64::from(any[s].angular)
                })
                .sum();
            assert!((f64::from(damped[i]) - expected).abs() < 1e-5, "{i}");
        }
        let impulse = [0.7, -1.3];
        let mut totals = [Velocity::default(); 2];
        for (i, row) in rows.iter().enumerate() {
            for (s, total) in totals.iter_mut().enumerate() {
                total.linear += Vec2::new(row[s][0], row[s][1]) * impulse[i];
                total.angular += row[s][2] * impulse[i];
            }
        }
        spin.add_counter_impulse(&impulse, &mut totals);
        let angular: f32 = (0..2)
            .map(|s| (poses[s].position - pivot).perp_dot(totals[s].linear) + totals[s].angular)
            .sum();
        assert!(angular.abs() < 1e-5, "{angular}");
        // `M⁻¹` of that impulse is the velocity `counter_spin` adds (beside `M⁻¹Jᵀλ`).
        let mut velocities = [Velocity::default(); 2];
        spin.counter_spin(&impulse, &[0, 1], &mut velocities);
        let mut counter = [Velocity::default(); 2];
        spin.add_counter_impulse(&impulse, &mut counter);
        for s in 0..2 {
            let expected = counter[s].linear * inverse[s].mass;
            assert!((velocities[s].linear - expected).length() < 1e-5);
            let expected = counter[s].angular * inverse[s].inertia;
            assert!((velocities[s].angular - expected).abs() < 1e-5);
        }
        let k: [[f32; 2]; 2] = std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                (0..2)
                    .map(|s| {
                        (rows[i][s][0] * rows[j][s][0] + rows[i][s][1] * rows[j][s][1])
                            * inverse[s].mass
                            + rows[i][s][2] * rows[j][s][2] * inverse[s].inertia
                    })
                    .sum()
            })
        });
        let k_d = spin.damper_mass(&k);
        for i in 0..2 {
            for j in 0..2 {
                let direct = (0..2)
                    .map(|s| {
                        (damper[i][s][0] * damper[j][s][0] + damper[i][s][1] * damper[j][s][1])
                            * f64::from(inverse[s].mass)
                            + damper[i][s][2] * damper[j][s][2] * f64::from(inverse[s].inertia)
                    })
                    .sum::<f64>() as f32;
                assert!(
                    (k_d[i][j] - direct).abs() < 1e-5,
                    "{i}{j}: {} {direct}",
                    k_d[i][j]
                );
            }
        }
    }

    #[test]
    fn a_body_the_world_holds_has_no_spin_to_keep() {
        let rows = [[[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]];
        let poses = [pose(0.0, 0.0, 0.0), pose(1.0, 0.0, 0.0)];
        let free = InverseMass {
            mass: 1.0,
            inertia: 1.0,
        };
        let fixed = InverseMass::default();
        assert!(RigidSpin::of(&rows, &poses, &[free, fixed], true).is_none());
        assert!(RigidSpin::of(&rows, &poses, &[free, free], false).is_none());
        assert!(RigidSpin::of(&rows, &poses, &[free, free], true).is_some());
    }
}
