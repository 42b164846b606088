use nape::{BodyHandle, constraint};

#[constraint(velocity = body1.angular_velocity, limits = [-1.0..=1.0])]
struct Clamped {
    body1: BodyHandle,
}

fn main() {}
