//! Avian's joint motors in nape's terms: the two slider rows nape's builtins lack, and the
//! translation of Avian's `MotorModel` into nape settings.
//!
//! Every Avian motor model with a stiffness is a damped spring toward `target_position`
//! with a damping force toward `target_velocity`: `F = k·(p* − p) + c·(v* − v)`. Since
//! `c·v*` is a constant force, this is the same spring aimed at `p* + c·v*/k` and damped
//! toward rest, which is a soft nape row (frequency `√(k/m)/2π`, damping ratio
//! `c/(2√(k·m))`, `m` the row's effective mass) holding `p` at that shifted target. A model
//! without stiffness is a velocity motor: a velocity-only row bounded by the motor's
//! maximum force.

use avian2d::prelude::{AngularMotor, LinearMotor, MotorModel};

use crate::body_access::to_f32;
use nape::{BodyHandle, ConstraintSettings, Vec2, constraint};

/// Holds the position of `anchor2` (on `body2`) along the line through `anchor1` (on
/// `body1`) in `direction` (local to `body1`) at `target`: the along-the-line row of a
/// slider alone, for a prismatic joint's spring motor.
#[constraint(
    position = {
        let d = body2.world_point(anchor2) - body1.world_point(anchor1);
        body1.rotate(direction.normalize()).dot(d) - target
    },
    validate = [direction.length() > 1e-6, body1 != body2],
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideTarget {
    /// The body that carries the line.
    pub body1: BodyHandle,
    /// The body that slides.
    pub body2: BodyHandle,
    /// A point of the line, in `body1`'s local coordinates, in m.
    pub anchor1: Vec2,
    /// The sliding point, in `body2`'s local coordinates, in m.
    pub anchor2: Vec2,
    /// The line's direction in `body1`'s local coordinates (normalised by the joint).
    pub direction: Vec2,
    /// The position along the line the row holds, in m.
    pub target: f32,
}

/// Drives the velocity of `body2` relative to `body1` along `direction` (local to `body1`)
/// to `rate` (m/s): a prismatic joint's velocity motor. As Avian's, it measures the bodies'
/// centres' velocities, not the anchors'.
#[constraint(
    velocity = body1.rotate(direction.normalize()).dot(body2.velocity - body1.velocity) - rate,
    validate = [direction.length() > 1e-6, body1 != body2],
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideMotor {
    /// The body that carries the direction.
    pub body1: BodyHandle,
    /// The driven body.
    pub body2: BodyHandle,
    /// The direction in `body1`'s local coordinates (normalised by the joint).
    pub direction: Vec2,
    /// The target relative velocity along the direction, in m/s.
    pub rate: f32,
}

/// What an Avian motor becomes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Drive {
    /// A soft row holding the joint's coordinate at `target`.
    Spring {
        target: f32,
        settings: ConstraintSettings,
    },
    /// A velocity-only row driving the coordinate's rate to `rate`.
    Velocity {
        rate: f32,
        settings: ConstraintSettings,
    },
    /// A disabled motor, or a spring of no stiffness nor damping: no row.
    Idle,
}

/// An Avian motor's nape row.
pub(crate) trait AvianMotor {
    /// The row, given the effective mass (or inertia) of the coordinate it drives;
    /// [`Drive::Idle`] when the motor is disabled.
    fn drive(&self, mass: f32) -> Drive;
}

macro_rules! avian_motor {
    ($($motor:ty: $max:ident),*) => {$(
        impl AvianMotor for $motor {
            fn drive(&self, mass: f32) -> Drive {
                if !self.enabled {
                    return Drive::Idle;
                }
                let (position, velocity) = (self.target_position, self.target_velocity);
                drive(
                    self.motor_model,
                    to_f32(position),
                    to_f32(velocity),
                    to_f32(self.$max),
                    mass,
                )
            }
        }
    )*};
}

avian_motor!(AngularMotor: max_torque, LinearMotor: max_force);

/// The nape row of a motor of `model` driving a coordinate toward `target_position` and
/// `target_velocity` with at most `max_force`; `mass` is the coordinate's effective mass
/// (for Avian's force-based model, whose gains are absolute).
pub(crate) fn drive(
    model: MotorModel,
    target_position: f32,
    target_velocity: f32,
    max_force: f32,
    mass: f32,
) -> Drive {
    // Per unit effective mass: acceleration = stiffness·Δp + damping·Δv.
    let (stiffness, damping) = match model {
        MotorModel::SpringDamper {
            frequency,
            damping_ratio,
        } => {
            let omega = std::f32::consts::TAU * to_f32(frequency);
            (omega * omega, 2.0 * to_f32(damping_ratio) * omega)
        }
        MotorModel::AccelerationBased { stiffness, damping } => {
            (to_f32(stiffness), to_f32(damping))
        }
        MotorModel::ForceBased { stiffness, damping } if mass > 0.0 && mass.is_finite() => {
            (to_f32(stiffness) / mass, to_f32(damping) / mass)
        }
        MotorModel::ForceBased { .. } => (0.0, 0.0),
    };
    let bounded = ConstraintSettings {
        max_force: max_force.max(0.0),
        ..ConstraintSettings::default()
    };
    if stiffness > 0.0 && stiffness.is_finite() {
        let omega = stiffness.sqrt();
        let damping_ratio = (damping / (2.0 * omega)).max(0.0);
        Drive::Spring {
            target: target_position + damping * target_velocity / stiffness,
            settings: ConstraintSettings {
                stiff: false,
                frequency: omega / std::f32::consts::TAU,
                damping: damping_ratio,
                ..bounded
            },
        }
    } else if damping > 0.0 {
        Drive::Velocity {
            rate: target_velocity,
            settings: bounded,
        }
    } else {
        Drive::Idle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spring_damper_keeps_its_frequency_and_shifts_its_target_by_the_velocity() {
        let model = MotorModel::SpringDamper {
            frequency: 2.0,
            damping_ratio: 0.5,
        };
        let Drive::Spring { target, settings } = drive(model, 1.0, 3.0, 7.0, 1.0) else {
            panic!("a spring");
        };
        let omega = std::f32::consts::TAU * 2.0;
        assert!((settings.frequency - 2.0).abs() < 1e-5);
        assert!((settings.damping - 0.5).abs() < 1e-5);
        assert!((target - (1.0 + 2.0 * 0.5 * 3.0 / omega)).abs() < 1e-6);
        assert_eq!(settings.max_force, 7.0);
        assert!(!settings.stiff);
    }

    #[test]
    fn force_based_gains_are_divided_by_the_effective_mass() {
        let model = MotorModel::ForceBased {
            stiffness: 400.0,
            damping: 40.0,
        };
        let Drive::Spring { settings, .. } = drive(model, 0.0, 0.0, f32::MAX, 4.0) else {
            panic!("a spring");
        };
        // k/m = 100 → ω = 10; c/m = 10 = 2ζω → ζ = 0.5.
        assert!((settings.frequency - 10.0 / std::f32::consts::TAU).abs() < 1e-5);
        assert!((settings.damping - 0.5).abs() < 1e-5);
    }

    #[test]
    fn a_model_without_stiffness_is_a_velocity_motor() {
        let model = MotorModel::AccelerationBased {
            stiffness: 0.0,
            damping: 1.0,
        };
        assert!(matches!(
            drive(model, 5.0, 2.0, 3.0, 1.0),
            Drive::Velocity { rate: 2.0, .. }
        ));
        let idle = MotorModel::AccelerationBased {
            stiffness: 0.0,
            damping: 0.0,
        };
        assert_eq!(drive(idle, 5.0, 2.0, 3.0, 1.0), Drive::Idle);
    }
}
