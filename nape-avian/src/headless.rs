//! A windowless app stepped by hand, for tests, benchmarks and servers.

use std::time::Duration;

use avian2d::prelude::PhysicsPlugins;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;

use crate::NapeJointsPlugin;

/// An app without window or renderer in which each `update` after the first runs one
/// physics step of `dt` seconds: `MinimalPlugins`, `TransformPlugin`, Avian's
/// `PhysicsPlugins` and [`NapeJointsPlugin`]. Add plugins and resources, then call
/// `finish` and one `update` (Bevy's first update has no elapsed time).
pub fn headless_app(dt: f32) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        TransformPlugin,
        PhysicsPlugins::default(),
        NapeJointsPlugin,
    ))
    .insert_resource(Time::<Fixed>::from_duration(Duration::from_secs_f32(dt)))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
        dt,
    )));
    app
}
