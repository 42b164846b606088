use nape::{BodyHandle, constraint};

#[constraint(position = body1.angle, position = body1.angle - 1.0)]
struct Twice {
    body1: BodyHandle,
}

fn main() {}
