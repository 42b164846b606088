use nape::{BodyHandle, Vec2, constraint};

#[constraint(position = body1.position.dot(length) - 1.0)]
struct Dot {
    body1: BodyHandle,
    axis: Vec2,
    length: f32,
}

fn main() {}
