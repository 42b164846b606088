use nape::{BodyHandle, constraint};

// One mistake, one error: the names of the pattern are not reported again where used.
#[constraint(position = { let (dx, dy) = body2.position - body1.position; dx * dy })]
struct Destructured {
    body1: BodyHandle,
    body2: BodyHandle,
}

fn main() {}
