use nape::{BodyHandle, constraint};

#[constraint(position = { let (s, c, t) = body1.angle.sin_cos(); s + c + t })]
struct Three {
    body1: BodyHandle,
}

fn main() {}
