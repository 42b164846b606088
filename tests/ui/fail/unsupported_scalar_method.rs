use nape::{BodyHandle, constraint};

#[constraint(position = body1.angle.floor())]
struct Stepped {
    body1: BodyHandle,
}

fn main() {}
