use nape::{BodyHandle, constraint};

#[constraint(position = body1.angle / 0.0)]
struct Divide {
    body1: BodyHandle,
}

fn main() {}
