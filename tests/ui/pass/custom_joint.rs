//! A user-defined joint, simulated: a bead on a rotating wire keeps its offset.
use nape::{Body, BodyHandle, Space, Vec2, constraint};

/// Keeps `body2`'s centre on the line through `body1` along `axis` (local to `body1`).
#[constraint(position = body1.rotate(axis).perp_dot(body2.position - body1.position))]
#[derive(Clone, Copy, Debug)]
pub struct OnWire {
    pub body1: BodyHandle,
    pub body2: BodyHandle,
    pub axis: Vec2,
}

fn main() {
    let mut space = Space::new();
    let wire = space.add_body(Body::static_body()).unwrap();
    let bead = space.add_body(Body::circle(0.1, 1.0).at(Vec2::new(1.0, 0.0)).with_velocity(Vec2::new(1.0, 1.0))).unwrap();
    space.add_constraint(OnWire { body1: wire, body2: bead, axis: Vec2::X }).unwrap();
    for _ in 0..60 {
        space.step(1.0 / 60.0);
    }
    let position = space.body(bead).unwrap().position();
    assert!(position.y.abs() < 1e-3, "the bead stays on the wire: {position}");
    assert!(position.x > 1.5, "and slides along it: {position}");
}
