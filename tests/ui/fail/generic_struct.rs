use nape::{BodyHandle, constraint};

#[constraint(position = body1.angle)]
struct Generic<T> {
    body1: BodyHandle,
    extra: T,
}

fn main() {}
