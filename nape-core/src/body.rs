//! Bodies and their handles.
//!
//! The world is y-up; angles are in radians, counter-clockwise. A body's position is its
//! centre of mass, and its inertia is taken about that point.

use glam::{DVec2, Vec2};

use crate::error::Error;
use crate::limits::{
    MAX_ACCELERATION, MAX_COORDINATE, MAX_INERTIA, MAX_MASS, MAX_SPEED, MAX_TURNS, MIN_INERTIA,
    MIN_MASS,
};
pub use crate::types::BodyHandle;
use crate::types::{InverseMass, Pose, Velocity, WorldPose};

/// How a body takes part in the simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BodyKind {
    /// Moved by gravity, forces and constraints.
    Dynamic,
    /// Never moves; infinite mass.
    Static,
    /// Moves with the velocity it is given, whatever acts on it; infinite mass.
    Kinematic,
}

/// Mass properties of a shape about its centroid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Mass in kg (area in m² × density in kg/m²).
    pub mass: f32,
    /// Centroid in m, in the frame the shape's vertices were given in.
    pub centroid: Vec2,
    /// Moment of inertia about the centroid, in kg·m².
    pub inertia: f32,
}

impl MassProperties {
    /// The mass, centroid and centroidal inertia of a simple (non-self-intersecting)
    /// polygon (vertices in m) of uniform `density` (kg/m²). The vertices may be in either winding
    /// order. A degenerate polygon (fewer than 3 vertices, or zero area) gives zero mass.
    #[must_use]
    pub fn polygon(vertices: &[Vec2], density: f32) -> Self {
        let n = vertices.len();
        if n < 3 {
            return Self {
                mass: 0.0,
                centroid: Vec2::ZERO,
                inertia: 0.0,
            };
        }
        // Shift by the first vertex for precision.
        let origin = vertices[0];
        let mut area2 = 0.0f64; // twice the signed area
        let mut cx = 0.0f64;
        let mut cy = 0.0f64;
        let mut second = 0.0f64; // Σ cross·(|a|² + a·b + |b|²), about `origin`
        for i in 0..n {
            let a = (vertices[i] - origin).as_dvec2();
            let b = (vertices[(i + 1) % n] - origin).as_dvec2();
            let cross = a.perp_dot(b);
            area2 += cross;
            cx += (a.x + b.x) * cross;
            cy += (a.y + b.y) * cross;
            second += cross * (a.length_squared() + a.dot(b) + b.length_squared());
        }
        if area2.abs() < 1e-12 {
            return Self {
                mass: 0.0,
                centroid: origin,
                inertia: 0.0,
            };
        }
        let area = area2 / 2.0;
        let centroid = glam::DVec2::new(cx / (3.0 * area2), cy / (3.0 * area2));
        let density = f64::from(density);
        let mass = density * area.abs();
        // Polar moment about `origin`, then the parallel-axis shift to the centroid.
        let inertia_origin = density * second / 12.0 * area.signum();
        let inertia = inertia_origin - mass * centroid.length_squared();
        Self {
            mass: mass as f32,
            centroid: centroid.as_vec2() + origin,
            inertia: inertia as f32,
        }
    }
}

/// A rigid body: placement, velocity, accumulated force and mass properties.
///
/// Build one with [`Body::dynamic`], [`Body::static_body`], [`Body::kinematic`] or a shape
/// helper ([`Body::circle`], [`Body::rectangle`], [`Body::polygon`]) and the `with_*`
/// builders, then add it with [`Space::add_body`](crate::Space::add_body), which validates
/// /// it. The body's rotation is its state (a unit vector and a winding count, see
/// [`Pose`]): its angle is read from it, unbounded, and is always the rotation its points
/// are drawn with.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    pub(crate) kind: BodyKind,
    pub(crate) pose: WorldPose,
    pub(crate) velocity: Velocity,
    pub(crate) force: Vec2,
    pub(crate) torque: f32,
    pub(crate) mass: f32,
    pub(crate) inertia: f32,
    /// [`inverse_mass`](Self::inverse_mass), kept with the mass properties: the solver
    /// reads it for every body every step.
    inverse: InverseMass,
    /// The substeps the body's acyclic island took in its last step while it moved, 0 if
    /// it rested or was in none: a moving island takes no fewer (see
    /// [`Space::adaptive_substeps`](crate::Space::adaptive_substeps)). Part of the state a
    /// step continues from, so snapshots and `state_hash` hold it.
    pub(crate) substeps_held: u16,
}

/// The inverse mass and inertia of a dynamic body of `mass` and `inertia` (zero for an
/// infinite one).
fn inverse_of(mass: f32, inertia: f32) -> InverseMass {
    let recip = |x: f32| if x.is_infinite() { 0.0 } else { 1.0 / x };
    InverseMass {
        mass: recip(mass),
        inertia: recip(inertia),
    }
}

impl Body {
    /// A dynamic body of `mass` (kg) and moment of inertia `inertia` (kg·m², about its
    /// centre of mass). `inertia = f32::INFINITY` makes a body that never rotates under
    /// constraints. [`Space::add_body`](crate::Space::add_body) accepts `mass` in
    /// [`MIN_MASS`]` ..= `[`MAX_MASS`] and `inertia` in [`MIN_INERTIA`]` ..= `[`MAX_INERTIA`]
    /// or infinite.
    #[must_use]
    pub fn dynamic(mass: f32, inertia: f32) -> Self {
        Self {
            kind: BodyKind::Dynamic,
            pose: WorldPose::default(),
            velocity: Velocity::default(),
            force: Vec2::ZERO,
            torque: 0.0,
            mass,
            inertia,
            inverse: inverse_of(mass, inertia),
            substeps_held: 0,
        }
    }

    /// A static body (never moves, infinite mass).
    #[must_use]
    pub fn static_body() -> Self {
        Self {
            kind: BodyKind::Static,
            ..Self::dynamic(f32::INFINITY, f32::INFINITY)
        }
    }

    /// A kinematic body: moves with its velocity, is not moved by forces or constraints.
    #[must_use]
    pub fn kinematic() -> Self {
        Self {
            kind: BodyKind::Kinematic,
            ..Self::dynamic(f32::INFINITY, f32::INFINITY)
        }
    }

    /// A dynamic disc of `radius` (m) and uniform `density` (kg/m²): mass `ρπr²`, inertia
    /// `mr²/2`.
    #[must_use]
    pub fn circle(radius: f32, density: f32) -> Self {
        let mass = density * std::f32::consts::PI * radius * radius;
        Self::dynamic(mass, 0.5 * mass * radius * radius)
    }

    /// A dynamic `width × height` rectangle (m) of uniform `density` (kg/m²), centred on its
    /// position: mass `ρwh`, inertia `m(w² + h²)/12`.
    #[must_use]
    pub fn rectangle(width: f32, height: f32, density: f32) -> Self {
        let mass = density * width * height;
        Self::dynamic(mass, mass * (width * width + height * height) / 12.0)
    }

    /// Alias of [`Body::rectangle`].
    #[must_use]
    pub fn box_body(width: f32, height: f32, density: f32) -> Self {
        Self::rectangle(width, height, density)
    }

    /// A dynamic simple polygon (vertices in m) of uniform `density` (kg/m²).
    ///
    /// The mass is the polygon's area times `density` and the inertia is taken **about the
    /// polygon's centroid**, which becomes the body's origin: the body's position is the
    /// world position of the centroid. If the vertices are not centred on the centroid,
    /// [`MassProperties::polygon`] reports where it is (subtract it from local anchors
    /// given in the vertices' frame). A degenerate polygon gives zero mass, which
    /// [`Space::add_body`](crate::Space::add_body) rejects.
    #[must_use]
    pub fn polygon(vertices: &[Vec2], density: f32) -> Self {
        let p = MassProperties::polygon(vertices, density);
        Self::dynamic(p.mass, p.inertia)
    }

    /// This body at `position` (m, absolute: a `Vec2` or a `DVec2`; each coordinate
    /// within [`MAX_COORDINATE`]).
    #[must_use]
    pub fn at(mut self, position: impl Into<DVec2>) -> Self {
        self.set_position(position);
        self
    }

    /// This body rotated to `angle` radians (counter-clockwise; magnitude within about
    /// [`MAX_COORDINATE`]: its whole turns within [`MAX_TURNS`]).
    #[must_use]
    pub fn with_angle(mut self, angle: f64) -> Self {
        self.set_angle(angle);
        self
    }

    /// This body with linear velocity `velocity` (m/s, length within [`MAX_SPEED`]).
    #[must_use]
    pub fn with_velocity(mut self, velocity: Vec2) -> Self {
        self.velocity.linear = velocity;
        self
    }

    /// This body with angular velocity `angular_velocity` (rad/s, CCW, magnitude within
    /// [`MAX_SPEED`]).
    #[must_use]
    pub fn with_angular_velocity(mut self, angular_velocity: f32) -> Self {
        self.velocity.angular = angular_velocity;
        self
    }

    /// Whether the body is dynamic, static or kinematic.
    #[must_use]
    pub fn kind(&self) -> BodyKind {
        self.kind
    }

    /// Whether the body is dynamic.
    #[must_use]
    pub fn is_dynamic(&self) -> bool {
        self.kind == BodyKind::Dynamic
    }

    /// The body's placement (absolute position in `f64`, rotation and winding).
    #[must_use]
    pub fn pose(&self) -> WorldPose {
        self.pose
    }

    /// World position of the centre of mass, in m, in `f64`: what the body holds, exact
    /// to a nanometre a thousand kilometres from the origin.
    #[must_use]
    pub fn position(&self) -> DVec2 {
        self.pose.position
    }

    /// The angle in radians, counter-clockwise: unbounded, `2π` times the turns the body
    /// has wound plus the principal angle of its rotation (see [`Pose::total_angle`]), so
    /// it is the rotation [`world_point`](Self::world_point) uses however far the body
    /// has turned.
    #[must_use]
    pub fn angle(&self) -> f64 {
        self.pose.total_angle()
    }

    /// Moves the body to `position` (m, absolute; checked by [`Body::validate`] when it
    /// is added).
    pub fn set_position(&mut self, position: impl Into<DVec2>) {
        self.pose.position = position.into();
    }

    /// Rotates the body to `angle` (rad, CCW): its whole turns and the rotation of the
    /// rest (checked by [`Body::validate`] when it is added).
    pub fn set_angle(&mut self, angle: f64) {
        self.pose = Pose::new(self.pose.position, angle);
    }

    /// World position (m, `f64`) of a body-local point (m).
    #[must_use]
    pub fn world_point(&self, local: Vec2) -> DVec2 {
        self.pose.world_point(local)
    }

    /// Linear velocity of the centre of mass, in m/s.
    #[must_use]
    pub fn velocity(&self) -> Vec2 {
        self.velocity.linear
    }

    /// Angular velocity, in rad/s (CCW).
    #[must_use]
    pub fn angular_velocity(&self) -> f32 {
        self.velocity.angular
    }

    /// Sets the linear velocity (m/s).
    pub fn set_velocity(&mut self, velocity: Vec2) {
        self.velocity.linear = velocity;
    }

    /// Sets the angular velocity (rad/s, CCW).
    pub fn set_angular_velocity(&mut self, angular_velocity: f32) {
        self.velocity.angular = angular_velocity;
    }

    /// The force accumulated for the next step, in N (cleared after each step).
    #[must_use]
    pub fn force(&self) -> Vec2 {
        self.force
    }

    /// The torque accumulated for the next step, in N·m (cleared after each step).
    #[must_use]
    pub fn torque(&self) -> f32 {
        self.torque
    }

    /// Adds `force` (N) at the centre of mass for the next step.
    pub fn apply_force(&mut self, force: Vec2) {
        self.force += force;
    }

    /// Adds `force` (N) applied at the world point `point` (m): the force plus the torque
    /// `(point − position) × force`).
    pub fn apply_force_at(&mut self, force: Vec2, point: impl Into<DVec2>) {
        self.force += force;
        self.torque += (point.into() - self.pose.position)
            .as_vec2()
            .perp_dot(force);
    }

    /// Adds `torque` (N·m, CCW positive) for the next step.
    pub fn apply_torque(&mut self, torque: f32) {
        self.torque += torque;
    }

    /// Applies an instantaneous impulse (N·s) at the centre of mass (no effect unless
    /// dynamic).
    pub fn apply_impulse(&mut self, impulse: Vec2) {
        let inv = self.inverse_mass();
        self.velocity.linear += impulse * inv.mass;
    }

    /// Clears the accumulated force and torque.
    pub fn clear_forces(&mut self) {
        self.force = Vec2::ZERO;
        self.torque = 0.0;
    }

    /// Mass in kg (`∞` for static and kinematic bodies).
    #[must_use]
    pub fn mass(&self) -> f32 {
        if self.is_dynamic() {
            self.mass
        } else {
            f32::INFINITY
        }
    }

    /// Moment of inertia about the centre of mass, in kg·m² (`∞` for static and kinematic
    /// bodies).
    #[must_use]
    pub fn inertia(&self) -> f32 {
        if self.is_dynamic() {
            self.inertia
        } else {
            f32::INFINITY
        }
    }

    /// The inverse mass (1/kg) and inertia (1/(kg·m²)) the solver uses: zero for static and
    /// kinematic bodies, and zero inverse inertia for an infinite inertia.
    #[must_use]
    pub fn inverse_mass(&self) -> InverseMass {
        if self.is_dynamic() {
            self.inverse
        } else {
            InverseMass::default()
        }
    }

    /// Sets the mass (kg) and inertia (kg·m²) of a dynamic body (ignored by the solver for static
    /// and kinematic bodies).
    ///
    /// # Errors
    /// [`Error::InvalidBody`] unless `mass` is in
    /// [`MIN_MASS`]` ..= `[`MAX_MASS`]
    /// and `inertia` in [`MIN_INERTIA`]` ..=
    /// `[`MAX_INERTIA`] or infinite; the body is unchanged then.
    pub fn set_mass_properties(&mut self, mass: f32, inertia: f32) -> Result<(), Error> {
        check_mass(mass, inertia).map_err(invalid_body)?;
        self.mass = mass;
        self.inertia = inertia;
        self.inverse = inverse_of(mass, inertia);
        Ok(())
    }

    pub(crate) fn velocity_state(&self) -> Velocity {
        self.velocity
    }

    pub(crate) fn set_state(&mut self, pose: WorldPose, velocity: Velocity) {
        self.pose = pose;
        self.velocity = velocity;
    }

    /// Checks that the body can be simulated: every number finite and inside the ranges
    /// of [`limits`](crate::limits).
    ///
    /// # Errors
    /// [`Error::InvalidBody`] naming the first value out of range: the position (each
    /// coordinate at most [`MAX_COORDINATE`]) or angle (finite, its whole turns at most
    /// [`MAX_TURNS`]),
    /// the linear or angular velocity (at most [`MAX_SPEED`]),
    /// a force or torque that is not finite or (dynamic bodies) would accelerate the body
    /// by more than [`MAX_ACCELERATION`], or (dynamic
    /// bodies) a mass or inertia outside its range.
    pub fn validate(&self) -> Result<(), Error> {
        self.check_values().map_err(invalid_body)
    }

    /// [`validate`](Self::validate)'s checks, the first failure as
    /// [`Error::InvalidValue`] naming the field (what a snapshot's decoder reports).
    pub(crate) fn check_values(&self) -> Result<(), Error> {
        let p = self.pose.position;
        if !(p.is_finite() && p.abs().max_element() <= f64::from(MAX_COORDINATE)) {
            return Err(invalid(
                "position",
                p,
                format!("finite, each coordinate at most {MAX_COORDINATE:e}"),
            ));
        }
        let Pose {
            cos, sin, turns, ..
        } = self.pose;
        if !(cos.is_finite() && sin.is_finite() && turns.unsigned_abs() <= MAX_TURNS.unsigned_abs())
        {
            return Err(invalid(
                "angle",
                self.pose.total_angle(),
                format!("finite, at most {MAX_TURNS} whole turns (about {MAX_COORDINATE:e})"),
            ));
        }
        let v = self.velocity;
        if !(v.linear.is_finite() && v.linear.length() <= MAX_SPEED) {
            return Err(invalid(
                "velocity",
                v.linear,
                format!("finite, at most {MAX_SPEED:e} long"),
            ));
        }
        if !(v.angular.is_finite() && v.angular.abs() <= MAX_SPEED) {
            return Err(invalid(
                "angular velocity",
                v.angular,
                format!("finite, at most {MAX_SPEED:e}"),
            ));
        }
        if !self.force.is_finite() {
            return Err(invalid("force", self.force, "finite".to_string()));
        }
        if !self.torque.is_finite() {
            return Err(invalid("torque", self.torque, "finite".to_string()));
        }
        if self.is_dynamic() {
            check_mass(self.mass, self.inertia)?;
            let inverse = self.inverse_mass();
            let linear = self.force.length() * inverse.mass;
            let angular = self.torque.abs() * inverse.inertia;
            if linear > MAX_ACCELERATION {
                return Err(invalid(
                    "force",
                    self.force,
                    format!("at most {MAX_ACCELERATION:e}·mass long"),
                ));
            }
            if angular > MAX_ACCELERATION {
                return Err(invalid(
                    "torque",
                    self.torque,
                    format!("at most {MAX_ACCELERATION:e}·inertia"),
                ));
            }
        }
        Ok(())
    }
}

/// A body's [`Error::InvalidValue`] as the [`Error::InvalidBody`] its API returns.
fn invalid_body(e: Error) -> Error {
    match e {
        Error::InvalidValue { what, value, range } => {
            Error::InvalidBody(format!("`{what}` must be {range} (got {value})"))
        }
        other => other,
    }
}

fn invalid(what: &'static str, value: impl std::fmt::Display, range: String) -> Error {
    Error::InvalidValue {
        what,
        value: value.to_string(),
        range,
    }
}

/// `Ok` if `mass` and `inertia` are in the ranges of a dynamic body, else an
/// [`Error::InvalidValue`] naming the first that is not.
pub(crate) fn check_mass(mass: f32, inertia: f32) -> Result<(), Error> {
    check_mass_alone(mass)?;
    check_inertia(inertia)
}

/// `Ok` if `mass` is in the range of a dynamic body's.
pub(crate) fn check_mass_alone(mass: f32) -> Result<(), Error> {
    if (MIN_MASS..=MAX_MASS).contains(&mass) {
        Ok(())
    } else {
        Err(invalid(
            "mass",
            mass,
            format!("in {MIN_MASS:e} ..= {MAX_MASS:e} (a dynamic body's)"),
        ))
    }
}

/// `Ok` if `inertia` is in the range of a dynamic body's, or infinite.
pub(crate) fn check_inertia(inertia: f32) -> Result<(), Error> {
    if (MIN_INERTIA..=MAX_INERTIA).contains(&inertia) || inertia == f32::INFINITY {
        Ok(())
    } else {
        Err(invalid(
            "inertia",
            inertia,
            format!("in {MIN_INERTIA:e} ..= {MAX_INERTIA:e} or infinite (a dynamic body's)"),
        ))
    }
}

/// Checked write access to a body of a [`Space`](crate::Space), from
/// [`Space::body_mut`](crate::Space::body_mut). Reads go through to the [`Body`]
/// (`Deref`); every change is validated as [`Body::validate`] validates a new body, and a
/// refused change leaves the body as it was, so nothing non-finite or out of range reaches
/// the solver.
#[derive(Debug)]
pub struct BodyMut<'a> {
    body: &'a mut Body,
}

impl std::ops::Deref for BodyMut<'_> {
    type Target = Body;

    fn deref(&self) -> &Body {
        self.body
    }
}

impl<'a> BodyMut<'a> {
    pub(crate) fn new(body: &'a mut Body) -> Self {
        Self { body }
    }

    /// Applies `change` to a copy, validates it and keeps it only if it is valid.
    fn change(&mut self, change: impl FnOnce(&mut Body)) -> Result<(), Error> {
        let mut changed = self.body.clone();
        change(&mut changed);
        changed.validate()?;
        *self.body = changed;
        Ok(())
    }

    /// [`Body::set_position`], validated.
    ///
    /// # Errors
    /// [`Error::InvalidBody`] (see [`Body::validate`]); the body is unchanged.
    pub fn set_position(&mut self, position: impl Into<DVec2>) -> Result<(), Error> {
        let position = position.into();
        self.change(|b| b.set_position(position))
    }

    /// [`Body::set_angle`], validated.
    ///
    /// # Errors
    /// [`Error::InvalidBody`] (see [`Body::validate`]); the body is unchanged.
    pub fn set_angle(&mut self, angle: f64) -> Result<(), Error> {
        self.change(|b| b.set_angle(angle))
    }

    /// [`Body::set_velocity`], validated.
    ///
    /// # Errors
    /// [`Error::InvalidBody`] (see [`Body::validate`]); the body is unchanged.
    pub fn set_velocity(&mut self, velocity: Vec2) -> Result<(), Error> {
        self.change(|b| b.set_velocity(velocity))
    }

    /// [`Body::set_angular_velocity`], validated.
    ///
    /// # Errors
    /// [`Error::InvalidBody`] (see [`Body::validate`]); the body is unchanged.
    pub fn set_angular_velocity(&mut self, angular_velocity: f32) -> Result<(), Error> {
        self.change(|b| b.set_angular_velocity(angular_velocity))
    }

    /// [`Body::apply_force`], validated (the accumulated force, too).
    ///
    /// # Errors
    /// [`Error::InvalidBody`] (see [`Body::validate`]); the body is unchanged.
    pub fn apply_force(&mut self, force: Vec2) -> Result<(), Error> {
        self.change(|b| b.apply_force(force))
    }

    /// [`Body::apply_force_at`], validated.
    ///
    /// # Errors
    /// [`Error::InvalidBody`] (see [`Body::validate`]); the body is unchanged.
    pub fn apply_force_at(&mut self, force: Vec2, point: impl Into<DVec2>) -> Result<(), Error> {
        let point = point.into();
        if !point.is_finite() {
            return Err(invalid_body(invalid("point", point, "finite".to_string())));
        }
        self.change(|b| b.apply_force_at(force, point))
    }

    /// [`Body::apply_torque`], validated.
    ///
    /// # Errors
    /// [`Error::InvalidBody`] (see [`Body::validate`]); the body is unchanged.
    pub fn apply_torque(&mut self, torque: f32) -> Result<(), Error> {
        self.change(|b| b.apply_torque(torque))
    }

    /// [`Body::apply_impulse`], validated (the resulting velocity).
    ///
    /// # Errors
    /// [`Error::InvalidBody`] for a non-finite impulse or a resulting velocity out of
    /// range; the body is unchanged.
    pub fn apply_impulse(&mut self, impulse: Vec2) -> Result<(), Error> {
        if !impulse.is_finite() {
            return Err(invalid_body(invalid(
                "impulse",
                impulse,
                "finite".to_string(),
            )));
        }
        self.change(|b| b.apply_impulse(impulse))
    }

    /// [`Body::clear_forces`].
    pub fn clear_forces(&mut self) {
        self.body.clear_forces();
    }

    /// [`Body::set_mass_properties`].
    ///
    /// # Errors
    /// [`Error::InvalidBody`] for a mass or inertia out of range, or one that would make
    /// the accumulated force exceed its acceleration limit; the body is unchanged.
    pub fn set_mass_properties(&mut self, mass: f32, inertia: f32) -> Result<(), Error> {
        let mut changed = self.body.clone();
        changed.set_mass_properties(mass, inertia)?;
        changed.validate()?;
        *self.body = changed;
        Ok(())
    }
}

/// A body slot of a space: the body, if any, and the generation its handles carry.
#[derive(Debug)]
pub(crate) struct BodySlot {
    pub(crate) generation: u32,
    pub(crate) body: Option<Body>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_have_textbook_mass_properties() {
        let c = Body::circle(2.0, 1.0);
        assert!((c.mass() - 4.0 * std::f32::consts::PI).abs() < 1e-4);
        assert!((c.inertia() - 0.5 * c.mass() * 4.0).abs() < 1e-3);
        let r = Body::rectangle(2.0, 1.0, 3.0);
        assert!((r.mass() - 6.0).abs() < 1e-6);
        assert!((r.inertia() - 6.0 * 5.0 / 12.0).abs() < 1e-6);
        // A rectangle as a polygon, off-centre and clockwise.
        let verts = [
            Vec2::new(10.0, 5.0),
            Vec2::new(10.0, 6.0),
            Vec2::new(12.0, 6.0),
            Vec2::new(12.0, 5.0),
        ];
        let p = MassProperties::polygon(&verts, 3.0);
        assert!((p.mass - 6.0).abs() < 1e-4, "{p:?}");
        assert!((p.inertia - 2.5).abs() < 1e-3, "{p:?}");
        assert!((p.centroid - Vec2::new(11.0, 5.5)).length() < 1e-4, "{p:?}");
        let b = Body::polygon(&verts, 3.0);
        assert!((b.inertia() - 2.5).abs() < 1e-3);
        assert_eq!(MassProperties::polygon(&verts[..2], 1.0).mass, 0.0);
    }

    #[test]
    fn validation() {
        assert!(Body::dynamic(1.0, 1.0).validate().is_ok());
        assert!(Body::dynamic(1.0, f32::INFINITY).validate().is_ok());
        assert!(Body::dynamic(f32::NAN, 1.0).validate().is_err());
        assert!(Body::dynamic(0.0, 1.0).validate().is_err());
        assert!(Body::dynamic(f32::INFINITY, 1.0).validate().is_err());
        assert!(Body::dynamic(1.0, f32::NAN).validate().is_err());
        assert!(
            Body::dynamic(1.0, 1.0)
                .at(Vec2::new(f32::NAN, 0.0))
                .validate()
                .is_err()
        );
        assert!(
            Body::dynamic(1.0, 1.0)
                .with_angle(f64::INFINITY)
                .validate()
                .is_err()
        );
        for angle in [f64::NAN, 1.01e9, -1e12, 1e300] {
            assert!(
                Body::dynamic(1.0, 1.0)
                    .with_angle(angle)
                    .validate()
                    .is_err()
            );
        }
        for angle in [1e9, -1e9, 2.5e4] {
            assert!(Body::dynamic(1.0, 1.0).with_angle(angle).validate().is_ok());
        }
        assert!(Body::static_body().validate().is_ok());
        assert!(Body::kinematic().with_velocity(Vec2::X).validate().is_ok());
        assert_eq!(
            Body::dynamic(2.0, f32::INFINITY).inverse_mass().inertia,
            0.0
        );
        assert_eq!(Body::static_body().inverse_mass(), InverseMass::default());
        assert_eq!(Body::kinematic().inverse_mass(), InverseMass::default());
    }

    #[test]
    fn the_kept_inverse_mass_follows_the_mass_properties() {
        let mut b = Body::dynamic(2.0, 4.0);
        assert_eq!(
            b.inverse_mass(),
            InverseMass {
                mass: 0.5,
                inertia: 0.25
            }
        );
        b.set_mass_properties(8.0, f32::INFINITY).expect("valid");
        assert_eq!(
            b.inverse_mass(),
            InverseMass {
                mass: 0.125,
                inertia: 0.0
            }
        );
        // A rejected change keeps the old properties and their inverse.
        assert!(b.set_mass_properties(-1.0, 1.0).is_err());
        assert_eq!(b.inverse_mass().mass, 0.125);
    }

    #[test]
    fn setting_the_angle_updates_cos_sin() {
        let mut b = Body::dynamic(1.0, 1.0).with_angle(0.3);
        b.set_angle(1.2);
        assert!((b.pose().cos - 1.2f32.cos()).abs() < 1e-7);
        assert!((b.pose().sin - 1.2f32.sin()).abs() < 1e-7);
        b.set_position(Vec2::new(1.0, 2.0));
        assert!((b.angle() - 1.2).abs() < 1e-7);
        // An angle of many turns is kept whole.
        b.set_angle(1e5 + 0.25);
        assert!((b.angle() - (1e5 + 0.25)).abs() < 1e-6);
        assert_eq!(b.pose().turns, 15_916);
    }
}
