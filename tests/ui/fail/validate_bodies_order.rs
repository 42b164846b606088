use nape::{BodyHandle, constraint};

#[constraint(position = body2.angle - body1.angle, validate = [body1 < body2])]
struct Order {
    body1: BodyHandle,
    body2: BodyHandle,
}

fn main() {}
