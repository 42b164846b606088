use nape::{BodyHandle, constraint};

#[constraint(position = body1.angle - target, validate = [target])]
struct Rule {
    body1: BodyHandle,
    target: f32,
}

fn main() {}
