use nape::{Body, BodyHandle, Space, constraint};

// The only error is the typo: the struct still exists and still implements the trait, so
// the code using it reports nothing more.
#[constraint(position = body1.angel)]
#[derive(Clone)]
struct Typo {
    body1: BodyHandle,
}

fn main() {
    let mut space = Space::new();
    let body = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    space.add_constraint(Typo { body1: body }).unwrap();
}
