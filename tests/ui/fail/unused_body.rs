use nape::{BodyHandle, constraint};

#[constraint(position = body1.angle)]
struct Unused {
    body1: BodyHandle,
    body2: BodyHandle,
}

fn main() {}
