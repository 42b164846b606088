use nape::{BodyHandle, Vec2, constraint};

#[constraint(position = body1.angle)]
struct Tuple(BodyHandle, Vec2);

fn main() {}
