use nape::{BodyHandle, Vec2, constraint};

#[constraint(position = anchor.length() - 1.0)]
struct Constant {
    body1: BodyHandle,
    anchor: Vec2,
}

fn main() {}
