use nape::{BodyHandle, constraint};

#[constraint(position = body1)]
struct Whole {
    body1: BodyHandle,
}

fn main() {}
