use nape::{BodyHandle, Vec2, constraint};

#[constraint(position = body1.rotat(anchor).length() - 1.0)]
struct Turn {
    body1: BodyHandle,
    anchor: Vec2,
}

fn main() {}
