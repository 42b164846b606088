//! The gallery's energy plots are flat where no joint takes energy: scenes of stiff
//! equality joints only (no limit struck, no rope snapping taut, no motor) keep their
//! total energy, over the six seconds the gallery shows, within 2 % of the most kinetic
//! energy they reach (the swing's). Counted from the end of the first step: a scene whose
//! bodies start with velocities its joints forbid (the midpoint's middle body starts at
//! rest between a moving bob and a resting one) loses what the joints' first impulse takes,
//! as an inelastic catch does.

use nape_gallery::scenes::find;

#[test]
fn scenes_without_dissipation_keep_their_energy() {
    for name in ["pivot", "weld", "rack", "midpoint"] {
        let scene = find(name).expect("a gallery scene");
        let mut world = (scene.build)().expect("the scene builds");
        world.step(1.0 / 60.0);
        let start = world.energy();
        let (mut drift, mut swing) = (0.0f32, 0.0f32);
        for _ in 1..360 {
            world.step(1.0 / 60.0);
            drift = drift.max((world.energy() - start).abs());
            swing = swing.max(world.kinetic_energy());
        }
        println!(
            "{name}: energy within {drift:.4} J of its start over 6 s, the swing {swing:.3} J ({:.3} %)",
            100.0 * drift / swing
        );
        assert!(swing > 0.1, "{name} does not move");
        assert!(drift <= 0.02 * swing, "{name}: {drift} J of {swing} J");
    }
}
