use nape::{BodyHandle, constraint};

#[constraint(positoin = body1.angle)]
struct Missing {
    body1: BodyHandle,
}

fn main() {}
