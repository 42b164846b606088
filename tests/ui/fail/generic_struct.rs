use nape::{Body, BodyHandle, Space, constraint};

// The struct is still usable: adding it to a space reports nothing more.
#[constraint(position = body1.angle)]
#[derive(Clone)]
struct Generic<T> {
    body1: BodyHandle,
    extra: T,
}

fn main() {
    let mut space = Space::new();
    let body = space.add_body(Body::dynamic(1.0, 1.0)).unwrap();
    space.add_constraint(Generic { body1: body, extra: 1u8 }).unwrap();
}
