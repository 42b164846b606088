//! A running scene: a [`Space`], what each body looks like, and every joint's picture and
//! error, kept as closures over the joint's typed handle so any constraint type fits; the
//! scene's controls (what it changes between steps, such as a motor's rate) and the
//! points whose paths it draws.

use std::collections::VecDeque;

use nape::draw::DrawPrimitive;
use nape::{
    Body, BodyHandle, Constraint, ConstraintHandle, ConstraintSettings, Error, Pose, Space, Vec2,
    Velocity,
};

use crate::joints::MouseJoint;

/// How a body is drawn (bodies have mass properties, not shapes, as in Nape's demos the
/// scene says what each looks like).
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A disc of this radius, with a spoke that shows its rotation.
    Circle {
        /// The radius.
        radius: f32,
    },
    /// An ellipse with these semi-axes along the body's local x and y, with a spoke.
    Ellipse {
        /// Semi-axes along local x and y.
        radii: Vec2,
    },
    /// A rectangle centred on the body's origin.
    Rectangle {
        /// Half the width and half the height.
        half: Vec2,
    },
    /// A closed polygon, in body-local coordinates.
    Polygon {
        /// The vertices, in order.
        vertices: Vec<Vec2>,
    },
    /// A small fixed mark (a hook, an axle), for static bodies.
    Hook,
}

impl Shape {
    /// A disc.
    #[must_use]
    pub fn circle(radius: f32) -> Self {
        Self::Circle { radius }
    }

    /// A `width × height` rectangle.
    #[must_use]
    pub fn rectangle(width: f32, height: f32) -> Self {
        Self::Rectangle {
            half: Vec2::new(width, height) / 2.0,
        }
    }

    /// Whether the body-local point `local` is on the shape (with `slack` to spare, so a
    /// thin rod can still be grabbed).
    #[must_use]
    pub fn contains(&self, local: Vec2, slack: f32) -> bool {
        match self {
            Self::Circle { radius } => local.length() <= radius + slack,
            Self::Ellipse { radii } => {
                let r = *radii + Vec2::splat(slack);
                (local / r).length_squared() <= 1.0
            }
            Self::Rectangle { half } => {
                local.x.abs() <= half.x + slack && local.y.abs() <= half.y + slack
            }
            Self::Polygon { vertices } => {
                let radius = vertices.iter().map(|v| v.length()).fold(0.0, f32::max);
                local.length() <= radius + slack
            }
            Self::Hook => false,
        }
    }
}

/// A drawn body.
#[derive(Clone, Debug)]
pub struct Drawn {
    /// The body.
    pub handle: BodyHandle,
    /// What it looks like.
    pub shape: Shape,
    /// Whether the solver moves it.
    pub dynamic: bool,
}

type DrawFn = Box<dyn Fn(&Space, &mut dyn FnMut(DrawPrimitive)) -> Result<(), Error>>;
type MeasureFn = Box<dyn Fn(&Space) -> Result<f32, Error>>;
type ControlFn = Box<dyn FnMut(&mut Space, f32) -> Result<(), Error>>;

/// How many past positions a [`Trace`] keeps: a minute at 60 Hz, so a page left running
/// does not grow without bound (the gallery's animations sample their own frames).
pub const TRACE_POINTS: usize = 3600;

/// A point of a body whose path the scene draws as it goes, beside the path it should
/// follow.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The body carrying the point.
    pub body: BodyHandle,
    /// The point, in the body's local coordinates.
    pub local: Vec2,
    /// The ideal path: a straight line through these two world points, drawn faintly
    /// between them under the trace.
    pub ideal: Option<(Vec2, Vec2)>,
    past: VecDeque<Vec2>,
}

impl Trace {
    /// The point's positions after each step, oldest first (at most [`TRACE_POINTS`]).
    pub fn past(&self) -> impl ExactSizeIterator<Item = Vec2> + '_ {
        self.past.iter().copied()
    }

    /// How far `point` is from the ideal line, if there is one (and its two points differ).
    #[must_use]
    pub fn off_ideal(&self, point: Vec2) -> Option<f32> {
        let (from, to) = self.ideal?;
        let across = (to - from).try_normalize()?.perp();
        Some((point - from).dot(across).abs())
    }
}

/// A joint the scene draws and measures.
struct Tracked {
    draw: DrawFn,
    violation: MeasureFn,
    velocity_only: bool,
}

/// The grab of the interactive page: which body, by which point, through which joint.
struct Grab {
    body: BodyHandle,
    joint: ConstraintHandle<MouseJoint>,
}

/// A scene being simulated: see the [module docs](self).
pub struct World {
    /// The bodies and constraints.
    pub space: Space,
    /// Every drawn body, in drawing order.
    pub bodies: Vec<Drawn>,
    /// The world rectangle to show: lower-left and upper-right corners.
    pub view: (Vec2, Vec2),
    joints: Vec<Tracked>,
    controls: Vec<ControlFn>,
    traces: Vec<Trace>,
    grab: Option<Grab>,
}

impl World {
    /// An empty scene under gravity (0, −10), showing the rectangle `low..high`.
    #[must_use]
    pub fn new(low: Vec2, high: Vec2) -> Self {
        let mut space = Space::new();
        space.gravity = Vec2::new(0.0, -10.0);
        Self {
            space,
            bodies: Vec::new(),
            view: (low, high),
            joints: Vec::new(),
            controls: Vec::new(),
            traces: Vec::new(),
            grab: None,
        }
    }

    /// Adds a body drawn as `shape`.
    ///
    /// # Errors
    /// As [`Space::add_body`].
    pub fn body(&mut self, body: Body, shape: Shape) -> Result<BodyHandle, Error> {
        let dynamic = body.is_dynamic();
        let handle = self.space.add_body(body)?;
        self.bodies.push(Drawn {
            handle,
            shape,
            dynamic,
        });
        Ok(handle)
    }

    /// A static body drawn as a hook at `at`.
    ///
    /// # Errors
    /// As [`Space::add_body`].
    pub fn hook(&mut self, at: Vec2) -> Result<BodyHandle, Error> {
        self.body(Body::static_body().at(at), Shape::Hook)
    }

    /// Adds a stiff joint, drawn and measured.
    ///
    /// # Errors
    /// As [`Space::add_constraint`].
    pub fn joint<T, const D: usize, const B: usize>(
        &mut self,
        joint: T,
    ) -> Result<ConstraintHandle<T>, Error>
    where
        T: Constraint<D, B>,
    {
        self.joint_with(joint, ConstraintSettings::default())
    }

    /// Adds a joint with these settings, drawn and measured.
    ///
    /// # Errors
    /// As [`Space::add_constraint_with`].
    pub fn joint_with<T, const D: usize, const B: usize>(
        &mut self,
        joint: T,
        settings: ConstraintSettings,
    ) -> Result<ConstraintHandle<T>, Error>
    where
        T: Constraint<D, B>,
    {
        let handle = self.space.add_constraint_with(joint, settings)?;
        self.joints.push(Tracked {
            draw: Box::new(move |space, out| space.debug_draw(handle, out)),
            violation: Box::new(move |space| violation(space, handle)),
            velocity_only: T::VELOCITY_ONLY,
        });
        Ok(handle)
    }

    /// Number of joints the scene measures (the mouse's is not one of them).
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    /// Runs `control` before every step, with the step's `dt`: what the scene changes as
    /// it runs (a motor's rate following a schedule), which its bodies and joints cannot say.
    pub fn control(&mut self, control: impl FnMut(&mut Space, f32) -> Result<(), Error> + 'static) {
        self.controls.push(Box::new(control));
    }

    /// Traces the body-local point `local` of `body`: its position is kept after every
    /// step and drawn as a line, beside the faint `ideal` line it should stay on (see
    /// [`Trace::ideal`]).
    pub fn trace(&mut self, body: BodyHandle, local: Vec2, ideal: Option<(Vec2, Vec2)>) {
        let mut trace = Trace {
            body,
            local,
            ideal,
            past: VecDeque::new(),
        };
        trace.past.push_back(self.world_point(body, local));
        self.traces.push(trace);
    }

    /// The traced points, in the order they were added.
    #[must_use]
    pub fn traces(&self) -> &[Trace] {
        &self.traces
    }

    /// Where each traced point is now.
    #[must_use]
    pub fn traced_points(&self) -> Vec<Vec2> {
        self.traces
            .iter()
            .map(|t| self.world_point(t.body, t.local))
            .collect()
    }

    /// Advances the simulation by `dt` seconds: the controls, the step, the traces.
    pub fn step(&mut self, dt: f32) {
        for control in &mut self.controls {
            // A control whose body or joint is gone has nothing left to do.
            let _ = control(&mut self.space, dt);
        }
        self.space.step(dt);
        let now = self.traced_points();
        for (trace, now) in self.traces.iter_mut().zip(now) {
            if trace.past.len() == TRACE_POINTS {
                trace.past.pop_front();
            }
            trace.past.push_back(now);
        }
    }

    fn world_point(&self, body: BodyHandle, local: Vec2) -> Vec2 {
        self.pose(body).world_point(local)
    }

    /// The largest position error of any measured joint: how far a row of `c(q)` is
    /// outside its bounds, in the row's units (metres, radians, or whatever the custom
    /// joint's expression measures). Velocity-only joints (motors) have no position error
    /// and are left out; [`violations`](Self::violations) has their velocity error.
    #[must_use]
    pub fn worst_violation(&self) -> f32 {
        self.joints
            .iter()
            .filter(|j| !j.velocity_only)
            .map(|j| (j.violation)(&self.space).unwrap_or(f32::INFINITY))
            .fold(0.0, f32::max)
    }

    /// Each measured joint's violation, in the order they were added: its position error
    /// (see [`worst_violation`](Self::worst_violation)), or for a velocity-only joint
    /// `|J·v + b|` in its units per second.
    #[must_use]
    pub fn violations(&self) -> Vec<f32> {
        self.joints
            .iter()
            .map(|j| (j.violation)(&self.space).unwrap_or(f32::INFINITY))
            .collect()
    }

    /// Kinetic plus gravitational potential energy of the dynamic bodies, in joules.
    #[must_use]
    pub fn energy(&self) -> f32 {
        let gravity = self.space.gravity;
        self.kinetic_energy()
            - self
                .space
                .bodies()
                .filter(|(_, b)| b.is_dynamic())
                .map(|(_, b)| b.mass() * gravity.dot(b.position().as_vec2()))
                .sum::<f32>()
    }

    /// Kinetic energy of the dynamic bodies, in joules.
    #[must_use]
    pub fn kinetic_energy(&self) -> f32 {
        self.space
            .bodies()
            .filter(|(_, b)| b.is_dynamic())
            .map(|(_, b)| {
                let v = b.velocity();
                let w = b.angular_velocity();
                0.5 * b.mass() * v.length_squared() + 0.5 * b.inertia() * w * w
            })
            .sum()
    }

    /// The pose of a drawn body (the origin if it is gone).
    #[must_use]
    pub fn pose(&self, body: BodyHandle) -> Pose {
        self.space
            .body(body)
            .map(|b| b.pose().to_f32())
            .unwrap_or_default()
    }

    /// Every measured joint's picture, one list per joint, in the order they were added.
    #[must_use]
    pub fn joint_pictures(&self) -> Vec<Vec<DrawPrimitive>> {
        self.joints
            .iter()
            .map(|j| {
                let mut picture = Vec::new();
                // A joint that is gone has no picture.
                let _ = (j.draw)(&self.space, &mut |p| picture.push(p));
                picture
            })
            .collect()
    }

    /// Grabs the dynamic body under `point` (world coordinates) with a soft
    /// [`MouseJoint`]; returns whether one was there.
    ///
    /// # Errors
    /// As [`Space::add_constraint_with`].
    pub fn grab(&mut self, point: Vec2) -> Result<bool, Error> {
        self.release()?;
        let under = self.bodies.iter().rev().find(|d| {
            let pose = self.pose(d.handle);
            let local = rotate_back(pose, point - pose.position);
            d.dynamic && d.shape.contains(local, 0.1)
        });
        let Some(drawn) = under else {
            return Ok(false);
        };
        let body = drawn.handle;
        let pose = self.pose(body);
        let mass = self.space.body(body)?.mass();
        let joint = MouseJoint {
            body1: body,
            grip: rotate_back(pose, point - pose.position),
            target: point,
        };
        let settings = ConstraintSettings {
            stiff: false,
            frequency: 4.0,
            damping: 0.9,
            // Strong enough to lift ~100 times the body's weight, weak enough that a joint
            // it pulls against holds.
            max_force: 1000.0 * mass,
            ..ConstraintSettings::default()
        };
        let joint = self.space.add_constraint_with(joint, settings)?;
        self.grab = Some(Grab { body, joint });
        Ok(true)
    }

    /// Moves the grab's target to `point`, if a body is grabbed.
    ///
    /// # Errors
    /// As [`Space::update_constraint`].
    pub fn drag_to(&mut self, point: Vec2) -> Result<(), Error> {
        if let Some(grab) = &self.grab {
            self.space
                .update_constraint(grab.joint, |j| j.target = point)?;
        }
        Ok(())
    }

    /// Lets go of the grabbed body, if any.
    ///
    /// # Errors
    /// As [`Space::remove_constraint`].
    pub fn release(&mut self) -> Result<(), Error> {
        if let Some(grab) = self.grab.take()
            && self.space.contains_constraint(grab.joint)
        {
            self.space.remove_constraint(grab.joint)?;
        }
        Ok(())
    }

    /// The grabbed body and where the mouse holds it (grip point, target), if any.
    #[must_use]
    pub fn grabbed(&self) -> Option<(BodyHandle, Vec2, Vec2)> {
        let grab = self.grab.as_ref()?;
        let joint = self.space.constraint(grab.joint).ok()?;
        let grip = self.pose(grab.body).world_point(joint.grip);
        Some((grab.body, grip, joint.target))
    }
}

fn rotate_back(pose: Pose, world: Vec2) -> Vec2 {
    Vec2::new(
        pose.cos * world.x + pose.sin * world.y,
        -pose.sin * world.x + pose.cos * world.y,
    )
}

/// How far the constraint is outside its bounds: the largest row excess of `c(q)` for a
/// positional constraint, `|J·v + b|` for a velocity-only one.
fn violation<T, const D: usize, const B: usize>(
    space: &Space,
    handle: ConstraintHandle<T>,
) -> Result<f32, Error>
where
    T: Constraint<D, B>,
{
    let joint = space.constraint(handle)?;
    let poses = space.constraint_poses(handle)?;
    let mut velocities = [Velocity::default(); B];
    for (slot, body) in joint.bodies().into_iter().enumerate() {
        let body = space.body(body)?;
        velocities[slot] = Velocity {
            linear: body.velocity(),
            angular: body.angular_velocity(),
        };
    }
    if T::VELOCITY_ONLY {
        let jacobian = joint.jacobian(&poses);
        let slots = std::array::from_fn(|s| s);
        let rows = joint.velocity_error(&jacobian, &slots, &velocities);
        let bias = joint.velocity_bias(&jacobian);
        return Ok(rows
            .iter()
            .zip(bias)
            .map(|(v, b)| (v + b).abs())
            .fold(0.0, f32::max));
    }
    let rows = joint.position_error(&poses);
    Ok(rows
        .iter()
        .zip(joint.bounds())
        .map(|(&c, bounds)| (bounds.min - c).max(c - bounds.max).max(0.0))
        .fold(0.0, f32::max))
}
