//! Per-constraint solver settings, shared by every constraint type (Nape's `Constraint`
//! base class properties).

use crate::error::Error;

/// How the solver treats one constraint. [`Default`] gives Nape's defaults.
///
/// * **Stiff** constraints (`stiff = true`) are solved exactly in the velocity iterations
///   and their positional error is removed in the position iterations.
/// * **Soft** constraints (`stiff = false`) behave as a damped spring of natural
///   `frequency` (Hz) and damping ratio `damping`, whatever the masses of the bodies (the
///   softness is relative to the constraint's own effective mass, as in Nape), and take no
///   part in the position iterations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstraintSettings {
    /// Stiff (position iterations) or soft (spring). Default `true`.
    pub stiff: bool,
    /// Spring frequency in Hz, used only when soft. Must be finite and > 0. Default 10.
    pub frequency: f32,
    /// Damping ratio (1 = critical), used only when soft. Must be finite and ≥ 0.
    /// Default 1.
    pub damping: f32,
    /// The largest force the constraint may apply. Must be ≥ 0 (∞ allowed). Default ∞.
    ///
    /// As in Nape, the accumulated impulse is clamped by length to `max_force·dt` only for
    /// **soft** constraints and for velocity-only constraints (motors); for stiff
    /// positional constraints `max_force` is used only by `break_under_force`.
    pub max_force: f32,
    /// Must be ≥ 0 (∞ allowed). Default ∞. For soft constraints, clamps the length of the
    /// bias velocity (error corrected per second). For every constraint, the threshold of
    /// `break_under_error`.
    pub max_error: f32,
    /// Break when the accumulated impulse exceeds `max_force·dt`. Default `false`.
    pub break_under_force: bool,
    /// Break when the positional error exceeds `max_error` (checked when a soft constraint
    /// is prepared, and in the position iterations of a stiff one). Default `false`.
    pub break_under_error: bool,
    /// On breaking, remove the constraint from the space (`true`, the default; its handle
    /// becomes stale) or just deactivate it (`false`).
    pub remove_on_break: bool,
    /// Whether the constraint is simulated. Toggling it clears the warm-start impulse.
    /// Default `true`.
    pub active: bool,
    /// Nape's "the joined bodies don't interact" flag. Stored for the collision layer;
    /// the constraint solver itself ignores it. Default `false`.
    pub ignore: bool,
}

impl Default for ConstraintSettings {
    fn default() -> Self {
        Self {
            stiff: true,
            frequency: 10.0,
            damping: 1.0,
            max_force: f32::INFINITY,
            max_error: f32::INFINITY,
            break_under_force: false,
            break_under_error: false,
            remove_on_break: true,
            active: true,
            ignore: false,
        }
    }
}

impl ConstraintSettings {
    /// The default settings made soft, with this `frequency` (Hz) and `damping` ratio.
    #[must_use]
    pub fn soft(frequency: f32, damping: f32) -> Self {
        Self {
            stiff: false,
            frequency,
            damping,
            ..Self::default()
        }
    }

    /// Checks the ranges.
    ///
    /// # Errors
    /// [`Error::InvalidSettings`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |field: &str, rule: &str, value: f32| {
            Err(Error::InvalidSettings(format!(
                "`{field}` must be {rule} (got {value})"
            )))
        };
        if !(self.frequency.is_finite() && self.frequency > 0.0) {
            return bad("frequency", "finite and > 0", self.frequency);
        }
        if !(self.damping.is_finite() && self.damping >= 0.0) {
            return bad("damping", "finite and >= 0", self.damping);
        }
        if self.max_force.is_nan() || self.max_force < 0.0 {
            return bad("max_force", ">= 0", self.max_force);
        }
        if self.max_error.is_nan() || self.max_error < 0.0 {
            return bad("max_error", ">= 0", self.max_error);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_napes_and_validation_rejects_bad_values() {
        let d = ConstraintSettings::default();
        assert!(d.stiff && d.active && d.remove_on_break && !d.ignore);
        assert_eq!((d.frequency, d.damping), (10.0, 1.0));
        assert!(d.validate().is_ok());
        let bad = [
            ConstraintSettings {
                frequency: 0.0,
                ..d
            },
            ConstraintSettings {
                frequency: f32::NAN,
                ..d
            },
            ConstraintSettings {
                frequency: f32::INFINITY,
                ..d
            },
            ConstraintSettings { damping: -1.0, ..d },
            ConstraintSettings {
                damping: f32::NAN,
                ..d
            },
            ConstraintSettings {
                max_force: -1.0,
                ..d
            },
            ConstraintSettings {
                max_force: f32::NAN,
                ..d
            },
            ConstraintSettings {
                max_error: f32::NAN,
                ..d
            },
        ];
        for s in bad {
            assert!(
                matches!(s.validate(), Err(Error::InvalidSettings(_))),
                "{s:?}"
            );
        }
    }
}
