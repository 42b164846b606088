use nape::{BodyHandle, Vec2, constraint};

#[constraint(position = (body1.position * anchor).length())]
struct Product {
    body1: BodyHandle,
    anchor: Vec2,
}

fn main() {}
