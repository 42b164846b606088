use nape::{BodyHandle, constraint};

#[constraint(position = body2.position - body1.position, limits = [0.0..=1.0])]
struct Rows {
    body1: BodyHandle,
    body2: BodyHandle,
}

fn main() {}
