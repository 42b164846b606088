use nape::{BodyHandle, constraint};

#[constraint(position = if body1.angle > 0.0 { body1.angle } else { 0.0 })]
struct OneSided {
    body1: BodyHandle,
}

fn main() {}
