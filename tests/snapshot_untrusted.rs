//! A snapshot's bytes are untrusted input (docs/guarantees.md): edited as anyone can,
//! the checksum recomputed, every field of the format set to NaN, ±∞, out of range or
//! (for indices) past the end is a typed error, and whatever is accepted restores into
//! a space that validates and steps finitely. The proptest edits bytes at random; the
//! fuzz target in `fuzz/` does the same without end.

#[path = "support/hand_level.rs"]
mod hand_level;
#[path = "support/untrusted.rs"]
mod untrusted;

use hand_level::HandLevel;
use nape::snapshot::{SnapshotError, SnapshotRegistry};
use nape::{Body, ConstraintSettings, Snapshot, Space, Vec2};
use proptest::prelude::*;
use untrusted::{DT, HEADER_LEN, check_untrusted, seal};

const NON_FINITE: [f32; 3] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY];

/// The offsets of the space's fields, after the header (`write_space`).
mod space_at {
    use super::HEADER_LEN;
    pub const GRAVITY: usize = HEADER_LEN + 4;
    pub const SUBSTEPS: usize = HEADER_LEN + 12;
    pub const EXACT_SUBSTEPS: usize = HEADER_LEN + 16;
    pub const VELOCITY_ITERATIONS: usize = HEADER_LEN + 20;
    pub const RELAX_ITERATIONS: usize = HEADER_LEN + 24;
    pub const JOINT_HERTZ: usize = HEADER_LEN + 30;
    pub const JOINT_DAMPING_RATIO: usize = HEADER_LEN + 34;
    pub const MAX_LINEAR_SPEED: usize = HEADER_LEN + 38;
    /// The first body slot: its generation, a live flag, then the body.
    pub const BODIES: usize = HEADER_LEN + 46;
    /// The bytes of a live body slot.
    pub const BODY_SLOT: usize = 4 + 1 + 65;
}

/// The offsets of a body's fields in a live body slot.
mod body_at {
    pub const KIND: usize = 5;
    /// Two `f64`s.
    pub const POSITION: usize = 6;
    pub const COS: usize = 22;
    pub const SIN: usize = 26;
    pub const TURNS: usize = 30;
    pub const VELOCITY: usize = 34;
    pub const ANGULAR_VELOCITY: usize = 42;
    pub const FORCE: usize = 46;
    pub const TORQUE: usize = 54;
    pub const MASS: usize = 58;
    pub const INERTIA: usize = 62;
    pub const SUBSTEPS_HELD: usize = 66;
}

/// The offsets of a [`HandLevel`]'s entry after its own fields, as its store writes it
/// (its Jacobian is one `f32`; not solved exactly, so without a direct slot).
mod level_at {
    pub const FREQUENCY: usize = 0;
    pub const DAMPING: usize = 4;
    pub const MAX_FORCE: usize = 8;
    pub const MAX_ERROR: usize = 12;
    pub const SLOT: usize = 22;
    pub const BODIES: usize = 26;
    pub const INVERSE_MASSES: usize = 34;
    pub const JACOBIAN: usize = 50;
    pub const K_INV: usize = 54;
    pub const ROW_MASS: usize = 58;
    pub const IMPULSE: usize = 63;
    pub const WEIGHTS: usize = 67;
    pub const BIAS: usize = 72;
    pub const MASS_SCALE: usize = 80;
    pub const IMPULSE_SCALE: usize = 88;
    pub const MAX_IMPULSE: usize = 96;
    pub const PREVIOUS_H: usize = 102;
    pub const DIRECT: usize = 106;
    pub const STEP_IMPULSE: usize = 110;
    pub const STEP_BODY_IMPULSE: usize = 114;
}

/// A static ground, a dynamic body (slot 1) and a kinematic one (slot 2), the dynamic one
/// held level with the ground by a [`HandLevel`] whose `offset` marks where its entry is
/// in the bytes, and soft with distinctive settings; stepped a few times.
fn small_space() -> Space {
    let mut space = Space::new();
    space.gravity = Vec2::new(0.5, -9.5);
    space.direct_solve = false;
    let ground = space.add_body(Body::static_body()).unwrap();
    let body = space
        .add_body(Body::rectangle(0.5, 0.2, 1.0).at(Vec2::new(1.0, 0.5)))
        .unwrap();
    space
        .add_body(Body::kinematic().with_velocity(Vec2::new(0.25, 0.0)))
        .unwrap();
    space
        .add_constraint_with(
            HandLevel {
                body1: ground,
                body2: body,
                offset: LEVEL_MARKER,
            },
            ConstraintSettings {
                max_force: 1234.5,
                max_error: 6.789,
                ..ConstraintSettings::soft(3.25, 0.4375)
            },
        )
        .unwrap();
    for _ in 0..5 {
        space.step(DT);
    }
    space
}

const LEVEL_MARKER: f32 = 0.515_625;

fn registry() -> SnapshotRegistry {
    let mut registry = SnapshotRegistry::new();
    registry.register::<HandLevel, 1, 2>();
    registry
}

fn small_bytes() -> Vec<u8> {
    small_space().snapshot().to_bytes(&registry()).unwrap()
}

/// Where the [`HandLevel`]'s entry continues after its own fields.
fn level_entry(bytes: &[u8]) -> usize {
    let marker = LEVEL_MARKER.to_le_bytes();
    let found: Vec<usize> = (HEADER_LEN..bytes.len() - 4)
        .filter(|&i| bytes[i..i + 4] == marker)
        .collect();
    assert_eq!(found.len(), 1, "the marker is in the bytes once");
    found[0] + 4
}

fn f32_at(bytes: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// `bytes` with `value` written at `at`, sealed (header length and checksum recomputed).
fn edited(bytes: &[u8], at: usize, value: &[u8]) -> Vec<u8> {
    let mut edited = bytes.to_vec();
    edited[at..at + value.len()].copy_from_slice(value);
    seal(&mut edited);
    edited
}

fn decode(bytes: &[u8]) -> Result<Snapshot, SnapshotError> {
    Snapshot::from_bytes(bytes, &registry())
}

/// Each of `values` written at `at` is refused as an invalid `field`, and the value the
/// error names is the one written.
#[track_caller]
fn assert_refused(bytes: &[u8], at: usize, values: &[f32], field: &str) {
    assert_refused_as(
        bytes,
        at,
        &written(values, |x| x.to_le_bytes().to_vec()),
        field,
    );
}

/// [`assert_refused`] of `f64` values (a position's coordinates).
#[track_caller]
fn assert_refused_f64(bytes: &[u8], at: usize, values: &[f64], field: &str) {
    assert_refused_as(
        bytes,
        at,
        &written(values, |x| x.to_le_bytes().to_vec()),
        field,
    );
}

/// Each of `values` as its bytes and as the error prints it.
fn written<T: std::fmt::Display>(
    values: &[T],
    bytes: impl Fn(&T) -> Vec<u8>,
) -> Vec<(Vec<u8>, String)> {
    values.iter().map(|x| (bytes(x), x.to_string())).collect()
}

/// Each of `values` (its bytes, and the value as the error prints it) written at `at` is
/// refused as an invalid `field`.
#[track_caller]
fn assert_refused_as(bytes: &[u8], at: usize, values: &[(Vec<u8>, String)], field: &str) {
    for (written, x) in values {
        match decode(&edited(bytes, at, written)) {
            Err(SnapshotError::InvalidValue {
                field: found,
                value,
                ..
            }) => {
                assert_eq!(found, field, "{x} at {at}");
                assert!(value.contains(x.as_str()), "{value} names {x}");
            }
            other => panic!("{x} written as `{field}`: {other:?}"),
        }
    }
}

/// Each of `values` written as a `u32` at `at` is refused as `expected`.
#[track_caller]
fn assert_malformed(bytes: &[u8], at: usize, values: &[u32], expected: &SnapshotError) {
    for &x in values {
        let err = decode(&edited(bytes, at, &x.to_le_bytes())).unwrap_err();
        assert_eq!(&err, expected, "{x} at {at}");
    }
}

#[test]
fn the_layout_the_field_tests_edit_is_the_one_written() {
    let space = small_space();
    let bytes = space.snapshot().to_bytes(&registry()).unwrap();
    assert_eq!(f32_at(&bytes, space_at::GRAVITY + 4), -9.5);
    assert_eq!(f32_at(&bytes, space_at::MAX_LINEAR_SPEED), 400.0);
    let body = |i: usize, at: usize| space_at::BODIES + i * space_at::BODY_SLOT + at;
    let dynamic = space.bodies().nth(1).unwrap().1;
    assert_eq!(f32_at(&bytes, body(1, body_at::MASS)), dynamic.mass());
    assert_eq!(f32_at(&bytes, body(1, body_at::SIN)), dynamic.pose().sin);
    assert_eq!(bytes[body(2, body_at::KIND)], 2, "kinematic");
    let level = level_entry(&bytes);
    assert_eq!(f32_at(&bytes, level + level_at::DAMPING), 0.4375);
    assert_eq!(f32_at(&bytes, level + level_at::JACOBIAN), 1.0);
    assert_eq!(f32_at(&bytes, level + level_at::PREVIOUS_H), DT / 5.0);
    assert_eq!(bytes[level + level_at::DIRECT], 0, "no direct slot");
    assert_ne!(f32_at(&bytes, level + level_at::IMPULSE), 0.0, "warm start");
    assert!(decode(&bytes).is_ok());
}

#[test]
fn every_field_of_the_space_refuses_non_finite_and_out_of_range_values() {
    let bytes = small_bytes();
    for at in [space_at::GRAVITY, space_at::GRAVITY + 4] {
        assert_refused(&bytes, at, &NON_FINITE, "gravity");
        assert_refused(&bytes, at, &[2e6], "gravity");
    }
    assert_refused(
        &bytes,
        space_at::JOINT_HERTZ,
        &[f32::NAN, 0.0, -1.0],
        "joint_hertz",
    );
    assert_refused(
        &bytes,
        space_at::JOINT_DAMPING_RATIO,
        &[f32::NAN, f32::INFINITY, -1.0, 2e6],
        "joint_damping_ratio",
    );
    assert_refused(
        &bytes,
        space_at::MAX_LINEAR_SPEED,
        &[NON_FINITE.as_slice(), &[0.0, 2e6]].concat(),
        "max_linear_speed",
    );
    for (at, field) in [
        (space_at::SUBSTEPS, "substeps"),
        (space_at::EXACT_SUBSTEPS, "exact_substeps"),
        (space_at::VELOCITY_ITERATIONS, "velocity_iterations"),
        (space_at::RELAX_ITERATIONS, "relax_iterations"),
    ] {
        for n in [257, u32::MAX] {
            match decode(&edited(&bytes, at, &n.to_le_bytes())) {
                Err(SnapshotError::InvalidValue { field: found, .. }) => assert_eq!(found, field),
                other => panic!("{field} = {n}: {other:?}"),
            }
        }
    }
}

#[test]
fn every_field_of_a_body_refuses_non_finite_and_out_of_range_values() {
    let bytes = small_bytes();
    let slot = |i: usize| space_at::BODIES + i * space_at::BODY_SLOT;
    // Every kind of body refuses what the API refuses for it.
    for i in 0..3 {
        let at = |offset: usize| slot(i) + offset;
        let field = |name: &str| format!("bodies[{i}].{name}");
        for axis in [0, 4] {
            let position = at(body_at::POSITION + 2 * axis);
            let non_finite = NON_FINITE.map(f64::from);
            assert_refused_f64(&bytes, position, &non_finite, &field("position"));
            assert_refused_f64(&bytes, position, &[2e9, -2e9], &field("position"));
            let velocity = at(body_at::VELOCITY + axis);
            assert_refused(&bytes, velocity, &NON_FINITE, &field("velocity"));
            assert_refused(&bytes, velocity, &[2e6], &field("velocity"));
            assert_refused(
                &bytes,
                at(body_at::FORCE + axis),
                &NON_FINITE,
                &field("force"),
            );
        }
        // A winding beyond an angle of about 1e9 rad, either way.
        for turns in [i32::MAX, i32::MIN, 159_154_944, -200_000_000] {
            match decode(&edited(&bytes, at(body_at::TURNS), &turns.to_le_bytes())) {
                Err(SnapshotError::InvalidValue { field: found, .. }) => {
                    assert_eq!(found, field("angle"), "{turns} turns");
                }
                other => panic!("{turns} turns: {other:?}"),
            }
        }
        // Every winding within the range is an angle a body may have.
        for turns in [159_154_943i32, -159_154_943, 1] {
            let edited = edited(&bytes, at(body_at::TURNS), &turns.to_le_bytes());
            assert!(decode(&edited).is_ok(), "{turns} turns");
        }
        let angular = at(body_at::ANGULAR_VELOCITY);
        assert_refused(&bytes, angular, &NON_FINITE, &field("angular velocity"));
        assert_refused(&bytes, angular, &[-2e6], &field("angular velocity"));
        assert_refused(&bytes, at(body_at::TORQUE), &NON_FINITE, &field("torque"));
        for rotation in [body_at::COS, body_at::SIN] {
            let values = [NON_FINITE.as_slice(), &[2.0, 1e30]].concat();
            assert_refused(&bytes, at(rotation), &values, &field("rotation"));
        }
        let masses = [f32::NAN, f32::NEG_INFINITY, -1.0, 0.0, 1e-7, 2e12];
        assert_refused(&bytes, at(body_at::MASS), &masses, &field("mass"));
        let inertias = [f32::NAN, f32::NEG_INFINITY, -1.0, 0.0, 1e-10, 2e15];
        assert_refused(&bytes, at(body_at::INERTIA), &inertias, &field("inertia"));
        assert_eq!(
            decode(&edited(&bytes, at(body_at::KIND), &[3])).unwrap_err(),
            SnapshotError::Malformed("unknown body kind")
        );
        let held = at(body_at::SUBSTEPS_HELD);
        assert_malformed(
            &bytes,
            held,
            &[257, 65_536, u32::MAX],
            &SnapshotError::Malformed("a body's held substeps above MAX_SUBSTEPS"),
        );
        assert!(decode(&edited(&bytes, held, &256u32.to_le_bytes())).is_ok());
    }
    // A dynamic body's mass of ∞, and its force beyond what its mass may be given.
    let dynamic = slot(1);
    assert_refused(
        &bytes,
        dynamic + body_at::MASS,
        &[f32::INFINITY],
        "bodies[1].mass",
    );
    assert_refused(&bytes, dynamic + body_at::FORCE, &[1e9], "bodies[1].force");
    assert_refused(
        &bytes,
        dynamic + body_at::TORQUE,
        &[1e9],
        "bodies[1].torque",
    );
}

#[test]
fn every_field_of_a_constraint_refuses_non_finite_and_out_of_range_values() {
    let bytes = small_bytes();
    let level = level_entry(&bytes);
    let at = |offset: usize| level + offset;
    let field = |name: &str| format!("HandLevel[0].{name}");
    // Its settings, as `ConstraintSettings::validate` refuses them.
    let frequencies = [NON_FINITE.as_slice(), &[0.0, -1.0]].concat();
    let frequency = at(level_at::FREQUENCY);
    assert_refused(
        &bytes,
        frequency,
        &frequencies,
        &field("settings.frequency"),
    );
    let dampings = [NON_FINITE.as_slice(), &[-1.0]].concat();
    assert_refused(
        &bytes,
        at(level_at::DAMPING),
        &dampings,
        &field("settings.damping"),
    );
    let limits = [f32::NAN, f32::NEG_INFINITY, -1.0];
    assert_refused(
        &bytes,
        at(level_at::MAX_FORCE),
        &limits,
        &field("settings.max_force"),
    );
    assert_refused(
        &bytes,
        at(level_at::MAX_ERROR),
        &limits,
        &field("settings.max_error"),
    );
    // The solver's state it carries into the next step.
    for slot in 0..2 {
        let inverse = at(level_at::INVERSE_MASSES + 8 * slot);
        let masses = [NON_FINITE.as_slice(), &[-1.0, 2e6]].concat();
        assert_refused(&bytes, inverse, &masses, &field("inverse_masses"));
        let inertias = [NON_FINITE.as_slice(), &[-1.0, 2e9]].concat();
        assert_refused(&bytes, inverse + 4, &inertias, &field("inverse_masses"));
    }
    // The cached Jacobian is refused by the effective mass it gives (the value named).
    for j in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e30] {
        match decode(&edited(&bytes, at(level_at::JACOBIAN), &j.to_le_bytes())) {
            Err(SnapshotError::InvalidValue { field: found, .. }) => {
                assert_eq!(found, field("jacobian (its K)"));
            }
            other => panic!("a Jacobian of {j}: {other:?}"),
        }
    }
    assert_refused(
        &bytes,
        at(level_at::WEIGHTS),
        &[f32::NAN, 0.5, 2.0],
        &field("weights"),
    );
    for pass in [0, 4] {
        let scales = [NON_FINITE.as_slice(), &[-0.5, 1.5]].concat();
        let mass_scale = at(level_at::MASS_SCALE + pass);
        assert_refused(&bytes, mass_scale, &scales, &field("mass_scale"));
        let impulse_scale = at(level_at::IMPULSE_SCALE + pass);
        assert_refused(&bytes, impulse_scale, &scales, &field("impulse_scale"));
        assert_refused(
            &bytes,
            at(level_at::BIAS + pass),
            &NON_FINITE,
            &field("bias"),
        );
    }
    let max_impulses = [f32::NAN, f32::NEG_INFINITY, -1.0];
    let max_impulse = at(level_at::MAX_IMPULSE);
    assert_refused(&bytes, max_impulse, &max_impulses, &field("max_impulse"));
    let substeps = [NON_FINITE.as_slice(), &[-DT, 1e-12, 2.0]].concat();
    let previous_h = at(level_at::PREVIOUS_H);
    assert_refused(&bytes, previous_h, &substeps, &field("previous_h"));
    for (offset, name) in [
        (level_at::K_INV, "k_inv"),
        (level_at::ROW_MASS, "row_mass"),
        (level_at::IMPULSE, "impulse"),
        (level_at::STEP_IMPULSE, "step_impulse"),
    ] {
        assert_refused(&bytes, at(offset), &NON_FINITE, &field(name));
    }
    for component in 0..6 {
        let step_body_impulse = at(level_at::STEP_BODY_IMPULSE + 4 * component);
        assert_refused(
            &bytes,
            step_body_impulse,
            &NON_FINITE,
            &field("step_body_impulse"),
        );
    }
}

#[test]
fn every_index_past_the_end_and_every_stale_handle_is_refused() {
    let bytes = small_bytes();
    let level = level_entry(&bytes);
    // The constraint's own handles: body1 (index, generation) and body2.
    let handles = level - 4 - 24;
    let not_live = SnapshotError::Malformed("a constraint's body is not live in the space");
    for handle in [handles, handles + 12] {
        assert_malformed(&bytes, handle + 4, &[3, 99, u32::MAX], &not_live);
        assert_malformed(&bytes, handle + 8, &[7, u32::MAX], &not_live);
    }
    // Its slots' body indices, and its slot in the store's slot table.
    for slot in [0, 4] {
        assert_malformed(
            &bytes,
            level + level_at::BODIES + slot,
            &[3, u32::MAX],
            &not_live,
        );
    }
    let slot = SnapshotError::Malformed("a constraint's slot");
    assert_malformed(&bytes, level + level_at::SLOT, &[1, u32::MAX], &slot);
    // A constraint between two static bodies: the kinematic body (slot 2) in place of
    // the dynamic one, its handle and index both rewritten.
    let mut static_only = bytes.clone();
    static_only[handles + 12 + 4..handles + 12 + 8].copy_from_slice(&2u32.to_le_bytes());
    let indices = level + level_at::BODIES + 4;
    match decode(&edited(&static_only, indices, &2u32.to_le_bytes())) {
        Err(SnapshotError::InvalidValue { field, .. }) => assert_eq!(field, "HandLevel[0].bodies"),
        other => panic!("a constraint without a dynamic body: {other:?}"),
    }
}

#[test]
fn a_refused_snapshot_leaves_the_space_it_would_replace_unchanged() {
    let mut space = small_space();
    let before = space.state_hash();
    let mut bytes = small_bytes();
    bytes[space_at::GRAVITY..space_at::GRAVITY + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    seal(&mut bytes);
    let err = decode(&bytes).unwrap_err();
    assert!(err.to_string().contains("gravity"), "{err}");
    // Nothing was decoded to restore: the space steps on as before.
    assert_eq!(space.state_hash(), before);
    space.step(DT);
    assert!(space.bodies().all(|(_, b)| b.validate().is_ok()));
    // The serde path reads through the same decoder.
    let json = serde_json::to_vec(&bytes).unwrap();
    let err = serde_json::from_slice::<Snapshot>(&json).unwrap_err();
    assert!(err.to_string().contains("gravity"), "{err}");
}

#[test]
fn non_finite_values_and_huge_indices_written_anywhere_never_enter_a_space() {
    // Every offset of the small scene's bytes, each pattern: refused, or accepted where
    // the bytes written do not make a float non-finite or an index too large (a
    // generation, a misaligned write that leaves a finite float) and then restored,
    // validated and stepped finitely.
    let registry = registry();
    let bytes = small_bytes();
    let patterns = [f32::NAN.to_bits(), f32::NEG_INFINITY.to_bits(), u32::MAX];
    let (mut accepted, mut refused) = (0, 0);
    for at in HEADER_LEN..bytes.len() - 12 {
        for x in patterns {
            if check_untrusted(&edited(&bytes, at, &x.to_le_bytes()), &registry) {
                accepted += 1;
            } else {
                refused += 1;
            }
        }
    }
    assert!(
        accepted > 0 && refused > accepted,
        "{accepted} accepted, {refused} refused"
    );
}

/// One edit of a snapshot's bytes: a value written at a fraction of the way through.
#[derive(Clone, Debug)]
enum Edit {
    Float(f64, f32),
    Word(f64, u32),
    Byte(f64, u8),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let special = prop_oneof![
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(f32::MAX),
        Just(-1.0f32),
        Just(0.0f32),
        Just(1e30f32),
        Just(1e-30f32),
        any::<f32>(),
        -1e3f32..1e3,
    ];
    let edit = prop_oneof![
        (0.0..1.0f64, special).prop_map(|(at, x)| Edit::Float(at, x)),
        (0.0..1.0f64, prop_oneof![0u32..16, any::<u32>()]).prop_map(|(at, x)| Edit::Word(at, x)),
        (0.0..1.0f64, any::<u8>()).prop_map(|(at, x)| Edit::Byte(at, x)),
    ];
    proptest::collection::vec(edit, 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn random_edits_with_the_checksum_recomputed_never_get_past_the_checks(
        edits in edits()
    ) {
        let mut bytes = untrusted::scene()
            .snapshot()
            .to_bytes(untrusted::registry())
            .unwrap();
        let span = bytes.len() - 8 - HEADER_LEN;
        for edit in edits {
            let at = |f: f64, width: usize| HEADER_LEN + (f * (span - width) as f64) as usize;
            match edit {
                Edit::Float(f, x) => {
                    let at = at(f, 4);
                    bytes[at..at + 4].copy_from_slice(&x.to_le_bytes());
                }
                Edit::Word(f, x) => {
                    let at = at(f, 4);
                    bytes[at..at + 4].copy_from_slice(&x.to_le_bytes());
                }
                Edit::Byte(f, x) => bytes[at(f, 1)] = x,
            }
        }
        seal(&mut bytes);
        check_untrusted(&bytes, untrusted::registry());
    }
}
