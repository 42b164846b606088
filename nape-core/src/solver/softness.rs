//! Soft rows: Box2D v3's softness and the spring biases built on it.

use super::*;

/// A row's soft update `Δλ = −mass_scale·K⁻¹(J v + bias_rate·C) − impulse_scale·λ`
/// (Box2D v3's `b2Softness`): the settings' public [`SoftStep`], whose `spring` is the
/// solver's too.
pub(crate) type Softness = SoftStep;

impl SoftStep {
    /// Rigid: no bias, full mass.
    pub(crate) const RIGID: Self = Self {
        bias_rate: 0.0,
        mass_scale: 1.0,
        impulse_scale: 0.0,
    };

    /// The compliance `γ₀` relative to `K` that gives the same update in an exact solve:
    /// `(K + γ₀ K) Δλ = −(J v + bias) − γ₀ K λ`.
    pub(super) fn relative_compliance(self) -> f32 {
        if self.mass_scale > 0.0 {
            self.impulse_scale / self.mass_scale
        } else {
            f32::INFINITY
        }
    }
}

/// A soft constraint's spring over a substep of `h` and its bias `bias_rate·C`, the bias
/// clamped in length to `max_error` (a badly stretched spring does not snap back
/// violently).
pub(super) fn spring_bias<const D: usize>(
    settings: &ConstraintSettings,
    error: &[f32; D],
    h: f32,
) -> (Softness, [f32; D]) {
    let spring = Softness::spring(settings.frequency, settings.damping, h);
    let mut bias = error.map(|x| spring.bias_rate * x);
    clamp_length(&mut bias, settings.max_error);
    (spring, bias)
}

/// The relative compliance standing for no damper at all in [`verlet_spring`], for the
/// springs whose rows stay in the exact solve (with bounds or a force limit; the others
/// kick by [`explicit_kick`]): the damper's share of the impulse is `1/γ₀` of the row's
/// velocity error, and a larger `γ₀` makes the island's system ill-conditioned.
const UNDAMPED_COMPLIANCE: f32 = 1e8;

/// A soft constraint's spring as velocity Verlet takes it (a RATTLE island): the kick
/// `−kick·ω² C / k̄` of the spring force at the poses the rows are taken at (explicit, so
/// that an undamped spring keeps its energy without drift), with the damper `−2ζω J v / k̄`
/// implicit in the velocity it leaves, both relative to the constraint's effective mass as
/// Nape's springs are, taken as one mass `1/k̄` in every direction (`k̄` the mean of
/// `K`'s diagonal: `ColdEntry::spring_compliance`). In the exact solve's compliance form
/// `(K + γ₀k̄) λ = −(J v + b)` that is `γ₀ = 1/(2ζω·kick)` and `b = γ₀·kick·ω² C` (the kick
/// clamped in length to `max_error`, as `spring_bias` clamps its bias).
pub(crate) fn verlet_spring<const D: usize>(
    settings: &ConstraintSettings,
    error: &[f32; D],
    kick: f32,
) -> (Softness, [f32; D]) {
    let omega = std::f32::consts::TAU * settings.frequency;
    let damper = 2.0 * settings.damping * omega * kick;
    let gamma = if damper > 1.0 / UNDAMPED_COMPLIANCE {
        1.0 / damper
    } else {
        UNDAMPED_COMPLIANCE
    };
    let pull = spring_pull(settings, error, kick);
    let spring = Softness {
        bias_rate: 0.0,
        mass_scale: 1.0 / (1.0 + gamma),
        impulse_scale: gamma / (1.0 + gamma),
    };
    (spring, pull.map(|p| gamma * p))
}

/// An undamped spring's kick `−kick·ω² C / k̄` as the impulse it is (`k`: `K`, whose mean
/// diagonal is `k̄`, as [`verlet_spring`] takes it): what the exact solve's compliance form
/// gives as `γ₀ → ∞`. Applied outside the solve, it leaves the island's system as well
/// conditioned as its other rows make it; inside, a compliance standing for no damper
/// ([`UNDAMPED_COMPLIANCE`]) is either a damper (`1e-8` of the row's velocity error a
/// substep took 0.9 % of a spring's energy in an hour) or, larger, a condition number the
/// solve's rounding turns into torque.
pub(super) fn explicit_kick<const D: usize>(
    settings: &ConstraintSettings,
    error: &[f32; D],
    kick: f32,
    k: &[[f32; D]; D],
) -> [f32; D] {
    let mean = mean_diagonal(k);
    let per_mass = if mean > 0.0 { 1.0 / mean } else { 0.0 };
    spring_pull(settings, error, kick).map(|p| -p * per_mass)
}

/// `k̄`, the mean of `K`'s diagonal: the one effective mass a spring's compliance is
/// relative to, whatever its rows.
pub(super) fn mean_diagonal<const D: usize>(k: &[[f32; D]; D]) -> f32 {
    #[allow(clippy::cast_precision_loss)]
    let rows = D as f32;
    (0..D).map(|i| k[i][i]).sum::<f32>() / rows
}

/// The largest turn `ω·h` a substep in which a swept spring takes velocity Verlet's explicit
/// kick: symplectic Euler keeps an undamped spring's energy without drift where it is
/// stable (`ω·h < 2`), its frequency `(2/h)·asin(ω·h/2)` within 1 % of `ω` up to 0.5.
const MAX_EXPLICIT_SPRING_TURN: f32 = 0.5;

/// A swept spring's update over a substep of `h`: velocity Verlet's explicit kick
/// ([`verlet_spring`]) where it turns at most [`MAX_EXPLICIT_SPRING_TURN`] a substep, and
/// Box2D v3's soft update ([`spring_bias`]) beyond, where an explicit kick would not be
/// stable. Box2D's update is implicit, and damps an undamped spring: a body hung on a 1 Hz
/// soft pivot lost 93 % of its energy in 20 s.
pub(super) fn swept_spring<const D: usize>(
    settings: &ConstraintSettings,
    error: &[f32; D],
    h: f32,
) -> (Softness, [f32; D]) {
    if kicks_explicitly(settings, h) {
        verlet_spring(settings, error, h)
    } else {
        spring_bias(settings, error, h)
    }
}

/// Whether a swept spring takes the explicit kick over a substep of `h`
/// ([`swept_spring`]).
pub(super) fn kicks_explicitly(settings: &ConstraintSettings, h: f32) -> bool {
    std::f32::consts::TAU * settings.frequency * h <= MAX_EXPLICIT_SPRING_TURN
}

/// A spring's explicit pull over a kick of `kick` (s) at the error `error`:
/// `kick·ω² C`, clamped in length to `max_error` as [`verlet_spring`]'s.
pub(super) fn spring_pull<const D: usize>(
    settings: &ConstraintSettings,
    error: &[f32; D],
    kick: f32,
) -> [f32; D] {
    let omega = std::f32::consts::TAU * settings.frequency;
    let mut pull = error.map(|x| kick * omega * omega * x);
    clamp_length(&mut pull, settings.max_error);
    pull
}
