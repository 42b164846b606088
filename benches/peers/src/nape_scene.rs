//! A scene's bodies in a fresh nape `Space`: the peer bench's nape side and the root
//! crate's runtime-chain bench (`benches/support/runtime_chain.rs`, which includes this
//! file by path) build their spaces alike.

use nape::{Body, BodyHandle, Space, Vec2};

use super::scenes::SceneDescription;

/// A fresh space with the description's gravity, changed by `configure` before any body
/// is added, holding `description`'s bodies at their initial velocities (its joints are
/// the caller's).
pub fn space_with_bodies(
    description: &SceneDescription,
    configure: impl FnOnce(&mut Space),
) -> (Space, Vec<BodyHandle>) {
    let mut space = Space::new();
    space.gravity = Vec2::from(description.gravity);
    configure(&mut space);
    let bodies = description
        .bodies
        .iter()
        .enumerate()
        .map(|(index, spec)| {
            let body = match spec.mass_inertia {
                Some((mass, inertia)) => Body::dynamic(mass, inertia),
                None => Body::static_body(),
            };
            let mut body = body
                .at(Vec2::from(spec.position))
                .with_angle(f64::from(spec.angle));
            if !description.initial_velocities.is_empty() {
                let velocity = description.initial_velocity(index);
                body = body
                    .with_velocity(Vec2::new(velocity.x as f32, velocity.y as f32))
                    .with_angular_velocity(velocity.angular as f32);
            }
            space.add_body(body).expect("scene bodies are valid")
        })
        .collect();
    (space, bodies)
}
