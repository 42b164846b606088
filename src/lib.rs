//! # nape
//!
//! 2D physics constraints whose Jacobians and effective masses are derived by the compiler.
//! A joint is its positional constraint `c(q)`, written as a Rust expression;
//! [`macro@constraint`] differentiates it at compile time into an implementation of
//! [`Constraint`], and a [`Space`] steps bodies under any number of them. The seven builtin
//! joints ([`PivotJoint`], [`WeldJoint`], [`AngleJoint`], [`DistanceJoint`],
//! [`LineJoint`], [`MotorJoint`], [`PulleyJoint`]) are declared the same way.
//!
//! Units are SI by convention: metres, kilograms, seconds, radians (counter-clockwise);
//! any consistent set works, and the accepted ranges ([`limits`]) are stated in these.
//!
//! ## Quick start
//!
//! A three-link chain hung from a static body, and a joint of your own:
//!
//! ```
//! use nape::{Body, BodyHandle, PivotJoint, Space, Vec2, constraint};
//!
//! /// `body2`'s centre stays on the circle of `radius` about `body1`'s.
//! #[constraint(position = (body2.position - body1.position).length() - radius)]
//! #[derive(Clone, Copy, Debug)]
//! pub struct OnCircle { pub body1: BodyHandle, pub body2: BodyHandle, pub radius: f32 }
//!
//! let mut space = Space::new();
//! space.gravity = Vec2::new(0.0, -10.0); // m/s²
//! let ground = space.add_body(Body::static_body())?;
//! let (mut links, mut anchor) = (vec![ground], Vec2::ZERO);
//! for i in 0..3 {
//!     let link = space.add_body(Body::rectangle(1.0, 0.2, 1.0).at(Vec2::new(i as f32 + 0.5, 0.0)))?;
//!     space.add_constraint(PivotJoint::new(links[i], link, anchor, Vec2::new(-0.5, 0.0)))?;
//!     (anchor, links) = (Vec2::new(0.5, 0.0), [links, vec![link]].concat());
//! }
//! let bead = space.add_body(Body::circle(0.1, 1.0).at(Vec2::new(-2.0, 0.0)))?;
//! space.add_constraint(OnCircle { body1: ground, body2: bead, radius: 2.0 })?;
//! for _ in 0..120 {
//!     space.step(1.0 / 60.0); // 2 s
//! }
//! let distance = (space.body(bead)?.position() - space.body(ground)?.position()).length();
//! assert!((distance - 2.0).abs() < 1e-4);
//! let top = space.body(links[1])?;
//! assert!(top.world_point(Vec2::new(-0.5, 0.0)).length() < 1e-4); // still pinned at the origin
//! assert!(top.position().y < -0.1); // and swinging
//! # Ok::<(), nape::Error>(())
//! ```
//!
//! ## Where to read on
//!
//! - [`macro@constraint`]: the expression language, limits, velocity constraints and
//!   parameter rules, each with a doctest;
//! - [`Space`]: bodies, constraints, the step, snapshots; [`ConstraintSettings`]: stiff or
//!   soft, force limits and breaking;
//! - [`limits`]: the accepted range of every value; [`Error`]: what is refused and why;
//! - the repository's `README.md` (the gallery, measurements) and `ARCHITECTURE.md` (the
//!   macro's pipeline and the solver's step).
//!
//! ## Features
//!
//! - `serde`: `Serialize`/`Deserialize` for [`Snapshot`] (its byte form);
//! - `symbolic`: `symbolic::SymbolicConstraint`, a constraint written as text at run time.
#![warn(missing_docs)]

pub use nape_core::*;

/// The code blocks of `README.md`, compiled and run as doctests so that the README stays
/// true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
