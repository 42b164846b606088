//! A scene's bodies in a fresh nape `Space`: the peer bench's nape side and the root
//! crate's runtime-chain bench (`benches/support/runtime_chain.rs`, which includes this
//! file by path) build their spaces alike.

use nape::{Body, BodyHandle, Space, Vec2};

use super::scenes::{GRAVITY, SceneDescription};

/// A fresh space with the scenes' gravity, changed by `configure` before any body is
/// added, holding `description`'s bodies (its joints are the caller's).
pub fn space_with_bodies(
    description: &SceneDescription,
    configure: impl FnOnce(&mut Space),
) -> (Space, Vec<BodyHandle>) {
    let mut space = Space::new();
    space.gravity = Vec2::from(GRAVITY);
    configure(&mut space);
    let bodies = description
        .bodies
        .iter()
        .map(|spec| {
            let body = match spec.mass_inertia {
                Some((mass, inertia)) => Body::dynamic(mass, inertia),
                None => Body::static_body(),
            };
            let body = body
                .at(Vec2::from(spec.position))
                .with_angle(f64::from(spec.angle));
            space.add_body(body).expect("scene bodies are valid")
        })
        .collect();
    (space, bodies)
}
