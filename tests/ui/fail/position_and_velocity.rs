use nape::{BodyHandle, constraint};

#[constraint(position = body1.angle, velocity = body1.angular_velocity)]
struct Both {
    body1: BodyHandle,
}

fn main() {}
