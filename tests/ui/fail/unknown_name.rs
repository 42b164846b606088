use nape::{BodyHandle, Vec2, constraint};

#[constraint(position = body2.world_point(ancor2) - body1.world_point(anchor1))]
struct Pivot {
    body1: BodyHandle,
    body2: BodyHandle,
    anchor1: Vec2,
    anchor2: Vec2,
}

fn main() {}
