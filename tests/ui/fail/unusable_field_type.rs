use nape::{BodyHandle, constraint};

#[constraint(position = body1.angle - target)]
struct Wide {
    body1: BodyHandle,
    target: f64,
}

fn main() {}
