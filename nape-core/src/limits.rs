//! The ranges every public entry point accepts.
//!
//! The solver works in `f32`. Its arithmetic squares lengths, multiplies lever arms into
//! effective masses `K = J M⁻¹ Jᵀ`, multiplies entries of `K` with each other when it
//! factorises an island, and divides errors by the substep. The ranges below keep every one
//! of those products finite with margin (`f32::MAX ≈ 3.4e38`): the largest inverse mass
//! (1e6) and inverse inertia (1e9) times squared lever arms of 1e4 give `K` entries below
//! 1e17, whose products stay below 1e34. A value outside its range, or a NaN or infinity
//! where none is allowed, is refused with a typed [`Error`] and the space is
//! left unchanged.

use glam::Vec2;

use crate::error::Error;

/// Smallest mass of a dynamic body (1e-6): its inverse, 1e6, is the largest the solver
/// sees. `Body::dynamic(1e-45, 1.0)` (an inverse mass of infinity) is refused.
pub const MIN_MASS: f32 = 1e-6;
/// Largest mass of a dynamic body (1e12). Heavier bodies are static or kinematic.
pub const MAX_MASS: f32 = 1e12;
/// Smallest moment of inertia of a dynamic body (1e-9).
pub const MIN_INERTIA: f32 = 1e-9;
/// Largest finite moment of inertia of a dynamic body (1e15); `f32::INFINITY` is also
/// accepted (a body that constraints never rotate).
pub const MAX_INERTIA: f32 = 1e15;
/// Largest coordinate of a body's position and largest magnitude of its angle (1e9).
pub const MAX_COORDINATE: f32 = 1e9;
/// Most whole turns a body's angle may have wound either way ([`Pose::turns`](crate::Pose::turns)):
/// the turns of an angle of [`MAX_COORDINATE`], `⌊1e9 / 2π⌋`. A body is accepted while
/// its winding is within it, i.e. while its angle's magnitude is below
/// `2π·(MAX_TURNS + ½)`, about `MAX_COORDINATE + 2.6`.
pub const MAX_TURNS: i32 = 159_154_943;
/// Largest linear speed (m/s) and angular speed (rad/s) a body may be given (1e6); the
/// solver further limits dynamic bodies to [`Space::max_linear_speed`](crate::Space).
pub const MAX_SPEED: f32 = 1e6;
/// Largest acceleration (1e6 m/s², rad/s²): the length of `gravity`, and the acceleration
/// the accumulated force (`|F|/m`) and torque (`|τ|/I`) of a dynamic body would give.
pub const MAX_ACCELERATION: f32 = 1e6;
/// Shortest step `dt` (1 µs).
pub const MIN_DT: f32 = 1e-6;
/// Longest step `dt` (1 s).
pub const MAX_DT: f32 = 1.0;
/// Most substeps per step (`0` is treated as 1).
pub const MAX_SUBSTEPS: u32 = 256;
/// Most velocity or relax iterations per substep.
pub const MAX_ITERATIONS: u32 = 256;

/// `Ok` if `v` is finite and `|v| ≤ max`, else an [`Error::InvalidValue`] naming `what`.
pub(crate) fn check_vector(what: &'static str, v: Vec2, max: f32) -> Result<(), Error> {
    if v.is_finite() && v.length() <= max {
        Ok(())
    } else {
        Err(Error::InvalidValue {
            what,
            value: v.to_string(),
            range: format!("finite, at most {max:e} long"),
        })
    }
}

/// `Ok` if `dt` is a step length the solver accepts.
///
/// # Errors
/// [`Error::InvalidValue`] unless `MIN_DT ≤ dt ≤ MAX_DT`.
pub fn check_dt(dt: f32) -> Result<(), Error> {
    if (MIN_DT..=MAX_DT).contains(&dt) {
        Ok(())
    } else {
        Err(Error::InvalidValue {
            what: "dt",
            value: dt.to_string(),
            range: format!("{MIN_DT:e} ..= {MAX_DT:e} seconds"),
        })
    }
}
