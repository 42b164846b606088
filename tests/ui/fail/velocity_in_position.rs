use nape::{BodyHandle, constraint};

#[constraint(position = body1.velocity.length())]
struct Speed {
    body1: BodyHandle,
}

fn main() {}
