//! # nape-derive
//!
//! The `#[constraint]` attribute: a 2D physics constraint written as a Rust expression,
//! differentiated at compile time into an implementation of `nape::Constraint`. The work
//! is done by the `nape-codegen` crate; this crate is its `proc_macro` shell. Use it
//! through the `nape` facade (`nape::constraint`).

#![warn(missing_docs)]

use proc_macro::TokenStream;

/// Derives a constraint from its positional (or velocity) expression.
///
/// The struct's fields are the constraint's inputs: each `BodyHandle` field is a body
/// slot, each `Vec2` or `f32` field a parameter. The expression is ordinary Rust over them;
/// its type gives the number of rows (`f32`: one, `Vec2`: two, a tuple or array: the sum).
/// The macro emits `position_error` (the expression), the Jacobian `J = ∂c/∂q` (the part
/// that depends on the poses is computed once per step), the velocity error `J·v`, the
/// effective mass `K = J M⁻¹ Jᵀ` (with the cross terms of slots that hold the same body)
/// and the impulse application, and writes the derivation into the struct's rustdoc.
/// The struct must be `Clone`.
///
/// # A positional constraint
///
/// ```
/// use nape::{BodyHandle, Vec2, constraint};
///
/// /// A rigid rod between two anchors.
/// #[constraint(position = (body2.world_point(anchor2) - body1.world_point(anchor1)).length() - length)]
/// #[derive(Clone, Debug)]
/// pub struct Rod {
///     pub body1: BodyHandle,
///     pub body2: BodyHandle,
///     pub anchor1: Vec2,
///     pub anchor2: Vec2,
///     pub length: f32,
/// }
/// ```
///
/// In the expression, a body has `position` (`Vec2`), `angle` (`f32`, radians), and the
/// methods `rotate(v)` (`R(θ)·v` for a body-local `v`) and `world_point(v)`
/// (`position + rotate(v)`). `+ - * /` work on `f32` and `Vec2` as in glam, and
/// `Vec2::new(x, y)`, `Vec2::ZERO`, `Vec2::ONE`, `Vec2::X`, `Vec2::Y`, `Vec2::NEG_X`,
/// `Vec2::NEG_Y`, `f32::INFINITY` and `std::f32::consts::PI` (`TAU`, `FRAC_PI_2`,
/// `FRAC_PI_4`) are known. `cos` and `sin` of a body's angle are read from its cached
/// rotation: no trigonometry runs in the solver's loops.
///
/// Positions are `f32` in the frame the solver gives the constraint. Where the rows are
/// unchanged by moving every body by the same vector (`Σ_s ∂c/∂x_s ≡ 0`, as in every joint
/// between the bodies' points: the macro checks), the generated impl says so
/// (`Constraint::translation_invariant`) and `position` is read relative to the first
/// body's, so the joint keeps `f32` precision of its own size however far from the origin
/// the bodies are (each body's own position is an `f64`); an expression that reads an
/// absolute position (`body.position.y - floor`) reads world positions rounded to `f32`.
///
/// # Functions
///
/// | on | methods |
/// | --- | --- |
/// | `Vec2` | `x`, `y`, `dot`, `perp_dot` (the 2D cross product), `perp`, `length`, `length_squared`, `normalize`, `distance`, `distance_squared`, `to_angle`, `angle_to` |
/// | `f32` | `sqrt`, `sin`, `cos`, `tan`, `sin_cos`, `asin`, `acos`, `atan`, `atan2`, `exp`, `ln`, `abs`, `min`, `max`, `clamp`, `hypot`, `recip`, `powi(n)` (`n` a literal 1 to 8) |
///
/// Each may also be written in call form, `f32::atan2(y, x)` or `Vec2::dot(a, b)`. Blocks
/// bind names with `let`, destructure tuples (`let (s, c) = angle.sin_cos();`, `_` to
/// skip one) and may annotate types, which are checked (`let d: Vec2 = ...;`); tuple
/// fields (`angle.sin_cos().0`) pick one element. Every function has an exact derivative.
///
/// ```
/// use nape::{BodyHandle, Constraint, Pose, Vec2, constraint};
///
/// /// `body2` seen from `body1` at `bearing` (relative to `body1`'s heading), no farther
/// /// than `reach`, and its heading within `spread` of pointing back.
/// #[constraint(position = {
///     let d: Vec2 = body2.position - body1.position;
///     let (sine, cosine) = (d.y.atan2(d.x) - body1.angle - bearing).sin_cos();
///     let facing = f32::abs(body2.angle - d.to_angle() - std::f32::consts::PI);
///     (
///         sine,
///         d.length().min(reach) - body2.position.distance(body1.position),
///         facing.clamp(0.0, spread) - facing + cosine.max(0.0) * 0.0,
///     )
/// })]
/// #[derive(Clone, Debug)]
/// pub struct Sentry {
///     pub body1: BodyHandle,
///     pub body2: BodyHandle,
///     pub bearing: f32,
///     pub reach: f32,
///     pub spread: f32,
/// }
///
/// # let mut space = nape::Space::new();
/// # let handle = space.add_body(nape::Body::dynamic(1.0, 1.0))?;
/// let sentry = Sentry { body1: handle, body2: handle, bearing: 0.5, reach: 3.0, spread: 0.2 };
/// let at = |x: f32, y: f32, angle: f64| Pose::new(Vec2::new(x, y), angle);
/// // At the bearing, within reach, facing back: every row is satisfied.
/// let (x, y) = (2.0 * 0.5f32.cos(), 2.0 * 0.5f32.sin());
/// let c = sentry.position_error(&[at(0.0, 0.0, 0.0), at(x, y, 0.5 + std::f64::consts::PI)]);
/// assert!(c.iter().all(|v| v.abs() < 1e-5), "{c:?}");
/// // Beyond reach: the second row pulls back by the excess.
/// let c = sentry.position_error(&[at(0.0, 0.0, 0.0), at(4.0 * 0.5f32.cos(), 4.0 * 0.5f32.sin(), 0.0)]);
/// assert!((c[1] + 1.0).abs() < 1e-5, "{c:?}");
/// # Ok::<(), nape::Error>(())
/// ```
///
/// `tan`, `exp`, `ln`, `asin`, `acos` and `hypot`, for completeness:
///
/// ```
/// use nape::{BodyHandle, constraint};
///
/// #[constraint(position = (
///     (0.5 * body.angle.sin()).tan() + (0.1 * body.position.x).exp() - 1.0,
///     (body.position.length_squared() + 1.0).ln() - f32::hypot(body.position.y, 0.0),
///     (0.5 * body.angle.cos()).asin() + body.angle.sin().acos() - std::f32::consts::FRAC_PI_2,
/// ))]
/// #[derive(Clone, Debug)]
/// pub struct Curves {
///     pub body: BodyHandle,
/// }
/// ```
///
/// # Where a function has no derivative
///
/// Values are never NaN (except `sqrt` of a negative number, as in Rust), and where no
/// derivative exists the macro takes a documented one, so the Jacobian is always finite:
///
/// | where | value | derivative |
/// | --- | --- | --- |
/// | `abs` at 0 | 0 | 0: the row does nothing for that step |
/// | `min`, `max` at a tie | the common value | the mean of the two sides' derivatives (what central differences measure; `abs`, which is `max(x, −x)`, agrees) |
/// | `clamp(lo, hi)` at a bound | the bound | half the slope inside (`clamp` is `min(max(x, lo), hi)`; `lo > hi` is not checked, where `f32::clamp` would panic) |
/// | `atan2(0, 0)`, `to_angle` of a zero vector | 0 | 0 within 1e-6 of the origin: the row does nothing |
/// | `atan2` across the negative x axis | jumps by 2π, as in Rust | continuous: keep such rows away from it, or use `sin`/`cos` of the angle |
/// | `asin`, `acos` at ±1 and beyond | the argument clamped to `[−1, 1]` first | 0 where `√(1 − x²) ≤ 1e-6`: the row does nothing |
/// | `ln` at 0 and below | `ln` of the least positive `f32`, about −87.3 | 0 where the argument is at most 1e-6: the row does nothing |
/// | `length`, `distance`, `hypot`, `sqrt` at 0; `normalize` of a zero vector | 0; the zero vector | 0: the row does nothing |
///
/// ```
/// use nape::inspect::dense_jacobian;
/// use nape::{BodyHandle, Pose, Vec2, constraint};
///
/// #[constraint(position = (body.position.x.abs(), body.position.x.max(body.position.y)))]
/// #[derive(Clone, Debug)]
/// pub struct Kinked {
///     pub body: BodyHandle,
/// }
///
/// # let mut space = nape::Space::new();
/// # let body = space.add_body(nape::Body::dynamic(1.0, 1.0))?;
/// let j = dense_jacobian(&Kinked { body }, &[Pose::new(Vec2::ZERO, 0.0)]);
/// assert_eq!(j[0], [0.0, 0.0, 0.0]); // |x| at 0
/// assert_eq!(j[1], [0.5, 0.5, 0.0]); // max(x, y) at a tie
/// # Ok::<(), nape::Error>(())
/// ```
///
/// There is no `if` or `match`: a branch makes the constraint jump. Write piecewise
/// expressions with `min`, `max`, `clamp` and `abs`, whose derivatives at the switch are
/// defined above, and one-sided constraints with `limits`:
///
/// ```compile_fail
/// use nape::{BodyHandle, constraint};
///
/// // error: `if` is not supported in a constraint: write a piecewise expression with `min`, ...
/// #[constraint(position = if body.angle > 0.0 { body.angle } else { 0.0 })]
/// #[derive(Clone, Debug)]
/// pub struct OneSided {
///     pub body: BodyHandle,
/// }
/// ```
///
/// # Named constants
///
/// A name written like a constant (`PI` brought in by `use`, `MAX_GAP`) that is not a
/// field, or a path the macro does not know (`crate::GAP`, `tuning::SCALE`), is an `f32`
/// constant with derivative zero. The macro cannot see into it: rustc resolves it, and
/// reports a missing name or a type other than `f32` at the name.
///
/// ```
/// use nape::{BodyHandle, constraint};
/// use std::f32::consts::PI;
///
/// const GAP: f32 = 0.1;
///
/// mod tuning {
///     pub const SCALE: f32 = 2.0;
/// }
///
/// #[constraint(position = (body2.angle - body1.angle - PI / tuning::SCALE).sin(), limits = [-GAP..=crate::GAP])]
/// #[derive(Clone, Debug)]
/// pub struct QuarterTurn {
///     pub body1: BodyHandle,
///     pub body2: BodyHandle,
/// }
/// # fn main() {}
/// ```
///
/// # Limits
///
/// `limits = [...]` gives each row a range `min..=max` (either end may be left open,
/// `min..` or `..=max`); a single value is an equality. Bounds are expressions over `f32`
/// fields, literals and named constants (`-1.0..=1.0`, `-max..=max`, `2.0 * s`). A row
/// outside its range is pushed back; inside, it costs nothing.
///
/// ```
/// use nape::{BodyHandle, constraint};
///
/// /// The second body's angle, relative to the first, stays within `[low, high]`.
/// #[constraint(position = body2.angle - body1.angle, limits = [low..=high])]
/// #[derive(Clone, Debug)]
/// pub struct Hinge {
///     pub body1: BodyHandle,
///     pub body2: BodyHandle,
///     pub low: f32,
///     pub high: f32,
/// }
/// ```
///
/// # Velocity-only constraints
///
/// `velocity = ...` instead of `position = ...` declares a constraint on velocities
/// (`body.velocity`, `body.angular_velocity`). It must be linear in them; its constant
/// part is the bias: the constraint drives the expression to zero. The bias and the
/// coefficients may read the poses; they are then computed once per step.
///
/// ```
/// use nape::{BodyHandle, constraint};
///
/// /// A conveyor: the body's horizontal speed is `speed`.
/// #[constraint(velocity = body.velocity.x - speed)]
/// #[derive(Clone, Debug)]
/// pub struct Conveyor {
///     pub body: BodyHandle,
///     pub speed: f32,
/// }
///
/// /// A rotary damper: the body turns back towards angle 0 at `gain` radians per second
/// /// per radian, so its angle decays as `e^(−gain·t)`.
/// #[constraint(velocity = body.angular_velocity + gain * body.angle)]
/// #[derive(Clone, Debug)]
/// pub struct ReturnToZero {
///     pub body: BodyHandle,
///     pub gain: f32,
/// }
///
/// let mut space = nape::Space::new();
/// let wheel = space.add_body(nape::Body::dynamic(1.0, 1.0).with_angle(1.0))?;
/// space.add_constraint(ReturnToZero { body: wheel, gain: 2.0 })?;
/// for _ in 0..60 {
///     space.step(1.0 / 60.0);
/// }
/// assert!((space.body(wheel)?.angle() - (-2.0f64).exp()).abs() < 0.02);
/// # Ok::<(), nape::Error>(())
/// ```
///
/// # Many bodies, shared bodies
///
/// Any number of body slots, up to eight. Slots may hold the same body: the effective
/// mass then gains the cross terms of those slots, decided when the constraint is added.
///
/// ```
/// use nape::{BodyHandle, Vec2, constraint};
///
/// /// The middle body stays halfway between two others.
/// #[constraint(position = middle.position - (left.position + right.position) * 0.5)]
/// #[derive(Clone, Debug)]
/// pub struct Halfway {
///     pub left: BodyHandle,
///     pub middle: BodyHandle,
///     pub right: BodyHandle,
/// }
/// ```
///
/// # Validation
///
/// `validate = [...]` lists comparisons the parameters must satisfy, and `a != b` for body
/// slots that must differ. They are checked whenever the constraint is added to a space or
/// changed, together with the rules every constraint gets: no field is NaN, none is
/// infinite unless it is only used as a bound, every row's `min <= max`, and equal bounds
/// are finite. A failure is a typed error, never a simulation.
///
/// ```
/// use nape::{Body, BodyHandle, Error, Space, Vec2, constraint};
///
/// #[constraint(
///     position = (body2.position - body1.position).length(),
///     limits = [min..=max],
///     validate = [min >= 0.0, body1 != body2],
/// )]
/// #[derive(Clone, Debug)]
/// pub struct Leash {
///     pub body1: BodyHandle,
///     pub body2: BodyHandle,
///     pub min: f32,
///     pub max: f32,
/// }
///
/// let mut space = Space::new();
/// let a = space.add_body(Body::dynamic(1.0, 1.0))?;
/// let b = space.add_body(Body::dynamic(1.0, 1.0).at(Vec2::X))?;
/// let wrong = space.add_constraint(Leash { body1: a, body2: b, min: 2.0, max: 1.0 });
/// assert!(matches!(wrong, Err(Error::InvalidParameter(_))));
/// # Ok::<(), Error>(())
/// ```
///
/// # Where the runtime is: `crate = ...`
///
/// Generated code names the runtime `::nape`. If you depend on `nape-core` directly, or
/// re-export nape under another name, say where it is:
///
/// ```
/// mod physics {
///     pub use nape as engine;
/// }
/// use nape::{BodyHandle, constraint};
///
/// #[constraint(position = body.angle, crate = physics::engine)]
/// #[derive(Clone, Debug)]
/// pub struct Upright {
///     pub body: BodyHandle,
/// }
/// ```
///
/// Every mistake is a compile error at the offending tokens, all of them at once, with a
/// suggestion where a name is close to a known one.
#[proc_macro_attribute]
pub fn constraint(args: TokenStream, item: TokenStream) -> TokenStream {
    nape_codegen::expand(args.into(), item.into()).into()
}
