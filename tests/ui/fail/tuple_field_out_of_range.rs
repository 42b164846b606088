use nape::{BodyHandle, constraint};

#[constraint(position = body1.angle.sin_cos().2)]
struct Third {
    body1: BodyHandle,
}

fn main() {}
