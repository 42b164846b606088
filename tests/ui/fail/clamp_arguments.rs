use nape::{BodyHandle, constraint};

#[constraint(position = body1.angle.clamp(0.0) + body1.angle.min(body1.position))]
struct Clamped {
    body1: BodyHandle,
}

fn main() {}
