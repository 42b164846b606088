//! The headless app every test steps: `MinimalPlugins`, Avian and the plugin, at a fixed
//! 1/60 s, one physics step per `update`.

#![allow(dead_code)] // each test file uses a part

use avian2d::prelude::*;
use bevy::prelude::*;
use nape_avian::headless_app;

/// The fixed step, in s.
pub const DT: f32 = 1.0 / 60.0;

/// Standard gravity, m/s².
pub const G: f32 = 9.81;

/// A headless app with Avian, the plugin and gravity, not yet stepped.
pub fn app() -> App {
    app_with(|_| {})
}

/// [`app`], with `configure` run on it before it is finished (to add plugins).
pub fn app_with(configure: impl FnOnce(&mut App)) -> App {
    let mut app = headless_app(DT);
    app.insert_resource(Gravity(Vec2::new(0.0, -G)));
    configure(&mut app);
    app.finish();
    app.update();
    app
}

/// Runs `steps` physics steps.
pub fn step(app: &mut App, steps: usize) {
    for _ in 0..steps {
        app.update();
    }
}

/// A dynamic body of `mass` kg and angular inertia `inertia` kg·m² at `at`, without a
/// collider.
pub fn point_mass(app: &mut App, at: Vec2, mass: f32, inertia: f32) -> Entity {
    app.world_mut()
        .spawn((
            RigidBody::Dynamic,
            Position(at),
            Mass(mass),
            AngularInertia(inertia),
        ))
        .id()
}

/// A static body at `at`.
pub fn anchor(app: &mut App, at: Vec2) -> Entity {
    app.world_mut()
        .spawn((RigidBody::Static, Position(at)))
        .id()
}

/// A body's position (its origin, which is its centre of mass for these bodies).
pub fn position(app: &App, body: Entity) -> Vec2 {
    app.world().get::<Position>(body).unwrap().0
}

/// A body's rotation angle in (−π, π].
pub fn angle(app: &App, body: Entity) -> f32 {
    app.world().get::<Rotation>(body).unwrap().as_radians()
}

/// A body's linear and angular velocity.
pub fn velocity(app: &App, body: Entity) -> (Vec2, f32) {
    let world = app.world();
    (
        world.get::<LinearVelocity>(body).unwrap().0,
        world.get::<AngularVelocity>(body).unwrap().0,
    )
}

/// `v` as nape's vector.
pub fn nv(v: Vec2) -> nape::Vec2 {
    nape::Vec2::new(v.x, v.y)
}
