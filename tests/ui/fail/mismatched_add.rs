use nape::{BodyHandle, constraint};

#[constraint(position = body1.position + body1.angle)]
struct Mismatch {
    body1: BodyHandle,
}

fn main() {}
