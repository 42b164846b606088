//! The checks a constraint read from a snapshot's bytes passes before its store takes it:
//! what [`Space`](crate::Space) checks when the constraint is added or its settings are
//! changed, and for the solver's per-step state, the ranges a step leaves it in.
//!
//! The per-step state is what the next step reads before it prepares anew: the impulse
//! it warm starts from and the substep that impulse was accumulated over, and for an
//! island that kept its factor, the cached Jacobian and inverse masses it is rebuilt
//! from. The rest (rows, biases, scales) is prepared again before it is read, and is
//! checked only to be finite, so that no snapshot holds what no step could write.

use super::{ColdEntry, Entry};
use crate::constraint::Constraint;
use crate::encoding::{FINITE, LiveBody, SnapshotError, check_break_values, check_range, refused};
use crate::limits::{MAX_DT, MAX_SUBSTEPS, MIN_DT, MIN_INERTIA, MIN_MASS};

/// The shortest substep a step takes: the shortest `dt` in the most substeps.
const MIN_SUBSTEP: f32 = MIN_DT / MAX_SUBSTEPS as f32;

/// Checks a decoded entry of a `T` (see the [module docs](self)); its bodies are already
/// known to be live in `bodies`.
pub(super) fn check_entry<T: Constraint<D, B>, const D: usize, const B: usize>(
    e: &Entry<T, D, B>,
    c: &ColdEntry<D, B>,
    bodies: &[Option<LiveBody>],
) -> Result<(), SnapshotError> {
    let at = |what: &str| format!("{}[{}].{what}", T::NAME, c.slot);
    c.settings
        .check_values()
        .map_err(|err| refused(at("settings."), err))?;
    let dynamic = e
        .bodies
        .iter()
        .any(|&i| bodies.get(i).copied().flatten().is_some_and(|b| b.dynamic));
    if !dynamic {
        return Err(SnapshotError::InvalidValue {
            field: at("bodies"),
            value: format!("{:?}", e.bodies),
            accepted: "at least one dynamic body".to_string(),
        });
    }
    for m in &e.inverse_masses {
        check_range(|| at("inverse_masses"), &[m.mass], 0.0..=1.0 / MIN_MASS)?;
        check_range(
            || at("inverse_masses"),
            &[m.inertia],
            0.0..=1.0 / MIN_INERTIA,
        )?;
    }
    // A kept factor is rebuilt from `K = J M⁻¹ Jᵀ` of the cached Jacobian.
    let k = e
        .constraint
        .effective_mass(&e.jacobian, &e.inverse_masses, c.shared);
    check_range(|| at("jacobian (its K)"), k.as_flattened(), FINITE)?;
    let rows = e.constraint.jacobian_rows(&e.jacobian);
    check_range(
        || at("jacobian"),
        rows.as_flattened().as_flattened(),
        FINITE,
    )?;
    let bias = e.constraint.velocity_bias(&e.jacobian);
    check_range(|| at("jacobian (its velocity bias)"), &bias, FINITE)?;
    if let Some(w) = e.weights.iter().find(|w| ![-1.0, 0.0, 1.0].contains(*w)) {
        return Err(SnapshotError::InvalidValue {
            field: at("weights"),
            value: w.to_string(),
            accepted: "-1, 0 or 1".to_string(),
        });
    }
    check_range(|| at("mass_scale"), e.mass_scale.as_flattened(), 0.0..=1.0)?;
    check_range(
        || at("impulse_scale"),
        e.impulse_scale.as_flattened(),
        0.0..=1.0,
    )?;
    check_range(|| at("max_impulse"), &[e.max_impulse], 0.0..=f32::INFINITY)?;
    if e.previous_h != 0.0 {
        check_range(|| at("previous_h"), &[e.previous_h], MIN_SUBSTEP..=MAX_DT)?;
    }
    let finite: [(&str, &[f32]); 6] = [
        ("k_inv", e.k_inv.as_flattened()),
        ("row_mass", &c.row_mass),
        ("impulse", &e.impulse),
        ("bias", e.bias.as_flattened()),
        ("step_impulse", &e.step_impulse),
        ("step_body_impulse", &velocity_values(&e.step_body_impulse)),
    ];
    for (what, values) in finite {
        check_range(|| at(what), values, FINITE)?;
    }
    if let Some(b) = &c.broken {
        check_break_values(b.value, b.limit, || at("broken."))?;
    }
    Ok(())
}

fn velocity_values<const B: usize>(v: &[crate::types::Velocity; B]) -> Vec<f32> {
    v.iter()
        .flat_map(|v| [v.linear.x, v.linear.y, v.angular])
        .collect()
}
