use nape::{BodyHandle, Vec2, constraint};

#[constraint(position = body1.position.length(), limits = [lower..=2.0])]
struct Bound {
    body1: BodyHandle,
    lower: Vec2,
}

fn main() {}
