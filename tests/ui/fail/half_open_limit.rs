use nape::{BodyHandle, constraint};

#[constraint(position = body1.angle, limits = [0.0..1.0])]
struct HalfOpen {
    body1: BodyHandle,
}

fn main() {}
