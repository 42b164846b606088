use nape::{BodyHandle, constraint};

#[constraint(position = body2.angel - body1.angle)]
struct Angle {
    body1: BodyHandle,
    body2: BodyHandle,
}

fn main() {}
