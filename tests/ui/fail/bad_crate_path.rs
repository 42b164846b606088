use nape::{BodyHandle, constraint};

#[constraint(position = body1.angle, crate = "nape")]
struct Path {
    body1: BodyHandle,
}

fn main() {}
