use nape::{BodyHandle, constraint};

#[constraint(position = body1.position.perp_dot(body1.angle))]
struct Cross {
    body1: BodyHandle,
}

fn main() {}
