use nape::{BodyHandle, constraint};

#[constraint(velocity = body1.angular_velocity * body1.angular_velocity - 1.0)]
struct Square {
    body1: BodyHandle,
}

fn main() {}
