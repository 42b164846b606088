use nape::{BodyHandle, Vec2, constraint};

#[constraint(position = (body1.positon - anchor, body2.angle.tanh(), undefined))]
struct Several {
    body1: BodyHandle,
    body2: BodyHandle,
    anchor: Vec2,
}

fn main() {}
