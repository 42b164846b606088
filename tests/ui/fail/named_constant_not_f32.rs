use nape::{BodyHandle, constraint};

const OFFSET: f64 = 0.5;

// The macro cannot see the constant's type; rustc reports it once, at the name.
#[constraint(position = body1.angle - OFFSET)]
#[derive(Clone)]
struct Offset {
    body1: BodyHandle,
}

fn main() {}
