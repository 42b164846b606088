//! Constraints whose products repeat a factor compile (they once sent the derivation into
//! an endless loop) and hold: with the static `body1` turned by one radian, both keep
//! `body2` on the x axis while it slides along it.
use nape::{Body, BodyHandle, Space, Vec2, constraint};

/// `(p₂·θ₁²) × a₂ = 0`: `body2` on the line along `a2`, scaled by `θ₁²`.
#[constraint(position = (body2.position * (body1.angle * body1.angle)).perp_dot(a2))]
#[derive(Clone, Copy, Debug)]
pub struct SquaredLever {
    pub body1: BodyHandle,
    pub body2: BodyHandle,
    pub a2: Vec2,
}

/// `θ₁²·(p₁ × p₂) = 0`: `body2` on the line through the origin and `body1`.
#[constraint(position = (body1.position * body1.angle).perp_dot(body1.angle * body2.position))]
#[derive(Clone, Copy, Debug)]
pub struct SharedAngle {
    pub body1: BodyHandle,
    pub body2: BodyHandle,
}

fn bead_after_one_second(add: impl Fn(&mut Space, BodyHandle, BodyHandle)) -> Vec2 {
    let mut space = Space::new();
    let anchor = Body::static_body().at(Vec2::new(2.0, 0.0)).with_angle(1.0);
    let anchor = space.add_body(anchor).unwrap();
    let bead = Body::circle(0.1, 1.0).at(Vec2::new(1.0, 0.0)).with_velocity(Vec2::new(1.0, 1.0));
    let bead = space.add_body(bead).unwrap();
    add(&mut space, anchor, bead);
    for _ in 0..60 {
        space.step(1.0 / 60.0);
    }
    space.body(bead).unwrap().position().as_vec2()
}

fn main() {
    let squared = bead_after_one_second(|space, body1, body2| {
        space.add_constraint(SquaredLever { body1, body2, a2: Vec2::X }).unwrap();
    });
    let shared = bead_after_one_second(|space, body1, body2| {
        space.add_constraint(SharedAngle { body1, body2 }).unwrap();
    });
    for position in [squared, shared] {
        assert!(position.y.abs() < 1e-3, "the bead stays on the axis: {position}");
        assert!(position.x > 1.5, "and slides along it: {position}");
    }
}
