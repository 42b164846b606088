use nape::{BodyHandle, constraint};

// `PI` without `use std::f32::consts::PI`: rustc's own error, at the name.
#[constraint(position = body1.angle - PI)]
#[derive(Clone)]
struct HalfTurn {
    body1: BodyHandle,
}

fn main() {}
