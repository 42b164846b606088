//! # nape-derive
//!
//! The `#[constraint]` attribute: a 2D physics constraint written as a Rust expression,
//! differentiated at compile time into an implementation of `nape::Constraint`. The work
//! is done by the `nape-codegen` crate; this crate is its `proc_macro` shell. Use it
//! through the `nape` facade (`nape::constraint`).

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
/// (`position + rotate(v)`). Vectors have `x`, `y`, `dot`, `perp_dot` (the 2D cross
/// product), `perp`, `length`, `length_squared` and `normalize`; scalars `sqrt`, `sin`,
/// `cos`, `recip` and `powi(n)`. `+ - * /` work on `f32` and `Vec2` as in glam, blocks may
/// bind names with `let`, and `Vec2::new(x, y)`, `Vec2::ZERO`, `Vec2::X`, `Vec2::Y`,
/// `f32::INFINITY` and `std::f32::consts::PI` are known. `cos` and `sin` of a body's angle
/// are read from its cached rotation: no trigonometry runs in the solver's loops.
/// `normalize` (and the derivative of `length`) of a zero vector gives zero, so
/// degenerate geometry makes a row do nothing for that step instead of producing NaN.
///
/// # Limits
///
/// `limits = [...]` gives each row a range `min..=max` (either end may be left open,
/// `min..` or `..=max`); a single value is an equality. Bounds are `f32` fields or
/// literals. A row outside its range is pushed back; inside, it costs nothing.
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
/// part is the bias: the constraint drives the expression to zero.
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
