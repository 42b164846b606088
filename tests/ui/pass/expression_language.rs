//! Every form of the expression language compiles, validates and simulates without NaN.
use nape::{Body, BodyHandle, Space, Vec2, constraint};
use std::f32::consts::PI;

const GAP: f32 = 0.25;

mod tuning {
    pub const SCALE: f32 = 2.0;
}

// Bounds that are negative literals, negated fields and arithmetic on fields.
#[constraint(position = body2.angle - body1.angle, limits = [-1.0..=1.0])]
#[derive(Clone, Copy, Debug)]
pub struct NegativeLiteral {
    pub body1: BodyHandle,
    pub body2: BodyHandle,
}

#[constraint(position = body2.angle - body1.angle, limits = [-max..=max])]
#[derive(Clone, Copy, Debug)]
pub struct NegatedField {
    pub body1: BodyHandle,
    pub body2: BodyHandle,
    pub max: f32,
}

#[constraint(position = (body2.angle, body1.angle, body1.position.x), limits = [-0.5, 2.0 * s..=3.0 * s, s - 1.0])]
#[derive(Clone, Copy, Debug)]
pub struct ArithmeticBounds {
    pub body1: BodyHandle,
    pub body2: BodyHandle,
    pub s: f32,
}

// A velocity constraint whose constant part reads a pose.
#[constraint(velocity = body.angular_velocity + gain * body.angle)]
#[derive(Clone, Copy, Debug)]
pub struct AngleDamper {
    pub body: BodyHandle,
    pub gain: f32,
}

// Every function, in method and call form.
#[constraint(position = {
    let d: Vec2 = body2.position - body1.position;
    let (sine, cosine): (f32, f32) = body1.angle.sin_cos();
    let heading = d.y.atan2(d.x) - body1.angle;
    let spread = f32::hypot(d.x, d.y) - d.length();
    let pinched = d.x.abs().min(d.y.abs()).max(GAP * 0.0) - d.x.clamp(-PI, PI) * 0.0;
    let curved = (0.1 * cosine).tan() + (0.1 * sine).exp() + (d.length_squared() + 1.0).ln();
    let inverse = (0.5 * sine).asin() + f32::acos(0.5 * cosine) + body1.angle.sin_cos().0;
    (
        heading.sin(),
        spread + pinched * 0.0 + body2.position.distance(body1.position) - length,
        curved + inverse - crate::GAP * tuning::SCALE - offset,
        d.to_angle().cos() + Vec2::X.angle_to(d).sin() * 0.0 + f32::sqrt(d.x * d.x + 1.0) * 0.0 - 1.0,
    )
})]
#[derive(Clone, Copy, Debug)]
pub struct Everything {
    pub body1: BodyHandle,
    pub body2: BodyHandle,
    pub length: f32,
    pub offset: f32,
}

fn main() {
    let mut space = Space::new();
    let a = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    let b = space.add_body(Body::dynamic(1.0, 1.0).at(Vec2::new(2.0, 0.5))).unwrap();
    space.add_constraint(NegativeLiteral { body1: a, body2: b }).unwrap();
    space.add_constraint(NegatedField { body1: a, body2: b, max: 0.5 }).unwrap();
    space.add_constraint(ArithmeticBounds { body1: a, body2: b, s: 1.0 }).unwrap();
    space.add_constraint(AngleDamper { body: a, gain: 2.0 }).unwrap();
    space.add_constraint(Everything { body1: a, body2: b, length: 0.0, offset: 0.0 }).unwrap();
    for _ in 0..30 {
        space.step(1.0 / 60.0);
    }
    for body in [a, b] {
        let body = space.body(body).unwrap();
        assert!(body.position().is_finite() && body.angle().is_finite());
    }
}
