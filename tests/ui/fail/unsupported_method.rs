use nape::{BodyHandle, Vec2, constraint};

#[constraint(position = body1.position.cross(anchor))]
struct Cross {
    body1: BodyHandle,
    anchor: Vec2,
}

fn main() {}
