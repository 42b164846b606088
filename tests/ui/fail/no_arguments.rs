use nape::{BodyHandle, constraint};

#[constraint]
struct Neither {
    body1: BodyHandle,
}

fn main() {}
