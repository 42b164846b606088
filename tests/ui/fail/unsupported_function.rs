use nape::{BodyHandle, constraint};

#[constraint(position = atan2(body1.position.y, body1.position.x))]
struct Polar {
    body1: BodyHandle,
}

fn main() {}
