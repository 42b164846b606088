use nape::{BodyHandle, constraint};

#[constraint(position = f32::sqrt(body1.position))]
struct Root {
    body1: BodyHandle,
}

fn main() {}
