use nape::{BodyHandle, constraint};

#[constraint(position = { let d: f32 = body2.position - body1.position; d })]
struct Annotated {
    body1: BodyHandle,
    body2: BodyHandle,
}

fn main() {}
