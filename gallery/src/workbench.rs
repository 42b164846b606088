//! The interactive page's joint editor: a hook and a plank joined by a constraint written
//! as text while the page runs ([`nape::symbolic::SymbolicConstraint`]), the text either
//! a `#[constraint]` declaration or Nape's `SymbolicConstraint` language.
//!
//! The text's body slots are the hook and the plank (one slot: the plank alone); the
//! parameters it declares under the names the builtins and the seed's examples use
//! (`anchor1`, `anchor2`, `direction`, `jointMin`, `joint_max`, …) are set to fit the
//! scene, any others keep their declared defaults.

use std::ops::Range;

use nape::symbolic::{Limited, RowKind, SymbolicConstraint, SymbolicError, VelocityOnly};
use nape::{Body, BodyHandle, Constraint, Error, Vec2};

use crate::world::{Shape, World};

/// Nape's weld joint, as the seed prints it ("Nape Constraints", §5).
pub const SEED_WELD: &str = "
  body body1, body2
  vector anchor1, anchor2
  scalar phase

  constraint
    let r1 = relative body1.rotation anchor1 in
    let r2 = relative body2.rotation anchor2 in
    { (body2.position + r2) - (body1.position + r1)
      body2.rotation - body1.rotation - phase }
";

/// Nape's distance joint, as the seed prints it.
pub const SEED_DISTANCE: &str = "
  body body1, body2
  vector anchor1, anchor2
  scalar jointMin, jointMax

  limit jointMin 0 jointMax # 0 <= jointMin <= jointMax

  constraint
    let r1 = relative body1.rotation anchor1 in
    let r2 = relative body2.rotation anchor2 in
    |(body2.position + r2) - (body1.position + r1)|

  limit constraint jointMin jointMax # jointMin <= constraint <= jointMax
";

/// Nape's line joint, as the seed prints it.
pub const SEED_LINE: &str = "
  body body1, body2
  vector anchor1, anchor2, direction
  scalar jointMin, jointMax

  limit jointMin (-inf) jointMax # jointMin <= jointMax
  limit |direction| eps inf # direction != 0

  constraint
    let r1 = relative body1.rotation anchor1 in
    let r2 = relative body2.rotation anchor2 in
    let dir = unit(relative body1.rotation direction) in
    let del = (body2.position + r2) - (body1.position + r1) in
    { dir dot del
      dir cross del }

  # limit first dimension of constraint between jointMin, jointMax
  # and limit second dimension to exactly 0
  limit constraint { jointMin 0 } { jointMax 0 }
";

/// The examples the page offers: a title and the text.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("Nape's weld (seed)", SEED_WELD),
    ("Nape's distance joint (seed)", SEED_DISTANCE),
    ("Nape's line joint (seed)", SEED_LINE),
];

/// Half the plank's length: its left end is at the hook.
const HALF_LENGTH: f32 = 0.75;

/// Values for the parameters the builtins and the seed's examples declare, where this
/// scene has a natural one: the anchors at the hook and the plank's left end, a rail
/// sloping down to the right, a reach of 0 to 1.2 m.
const SCALARS: &[(&str, f32)] = &[
    ("jointMin", 0.0),
    ("joint_min", 0.0),
    ("jointMax", 1.2),
    ("joint_max", 1.2),
    ("ratio", 1.0),
];
const VECTORS: &[(&str, Vec2)] = &[
    ("anchor1", Vec2::ZERO),
    ("anchor2", Vec2::new(-HALF_LENGTH, 0.0)),
    ("direction", Vec2::new(1.0, -0.5)),
];

/// Why a text cannot become the scene's joint: the message (the macro's own for a mistake
/// in the text) and the bytes of the text it concerns (empty for the text as a whole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditError {
    /// What is wrong.
    pub message: String,
    /// Where, in bytes of the text.
    pub range: Range<usize>,
}

impl EditError {
    fn whole(message: String) -> Self {
        Self {
            message,
            range: 0..0,
        }
    }
}

impl From<Error> for EditError {
    fn from(error: Error) -> Self {
        Self::whole(error.to_string())
    }
}

impl From<SymbolicError> for EditError {
    fn from(error: SymbolicError) -> Self {
        match error {
            SymbolicError::Source(diagnostics) => {
                let range = diagnostics.first().map_or(0..0, |d| d.range.clone());
                let message: Vec<String> = diagnostics.into_iter().map(|d| d.message).collect();
                Self {
                    message: message.join("\n"),
                    range,
                }
            }
            other => Self::whole(other.to_string()),
        }
    }
}

/// The scene with the joint `source` describes, at time 0.
///
/// # Errors
///
/// A mistake in the text (with its byte range), a shape this scene cannot hold (more than
/// two body slots or three rows), or parameters its rules refuse.
pub fn build(source: &str) -> Result<World, EditError> {
    let mut world = World::new(Vec2::new(-3.0, -3.0), Vec2::new(3.0, 1.0));
    let hook = world.hook(Vec2::ZERO)?;
    let plank = world.body(
        Body::rectangle(2.0 * HALF_LENGTH, 0.12, 2.0).at(Vec2::new(HALF_LENGTH, 0.0)),
        Shape::rectangle(2.0 * HALF_LENGTH, 0.12),
    )?;
    let shape = match SymbolicConstraint::<1, 2, Limited>::compile(source) {
        Ok(constraint) => return attach(world, constraint, [hook, plank]),
        Err(SymbolicError::Shape { found, .. }) => found,
        Err(error) => return Err(error.into()),
    };
    macro_rules! dispatch {
        ($(($rows:literal, $kind:ty)),*) => {
            match (shape.0, shape.1, shape.2 == "velocity") {
                $(
                    ($rows, 2, velocity) if velocity == <$kind>::VELOCITY => attach(
                        world,
                        SymbolicConstraint::<$rows, 2, $kind>::compile(source)?,
                        [hook, plank],
                    ),
                    ($rows, 1, velocity) if velocity == <$kind>::VELOCITY => attach(
                        world,
                        SymbolicConstraint::<$rows, 1, $kind>::compile(source)?,
                        [plank],
                    ),
                )*
                (rows, slots, _) => Err(EditError::whole(format!(
                    "this scene holds one or two bodies (the hook, the plank) and one to \
                     three rows; the text declares {rows} rows over {slots} body slots"
                ))),
            }
        };
    }
    dispatch!(
        (1, Limited),
        (2, Limited),
        (3, Limited),
        (1, VelocityOnly),
        (2, VelocityOnly),
        (3, VelocityOnly)
    )
}

/// Puts `bodies` in the constraint's slots, in order, sets the parameters this scene has
/// values for, and adds it.
fn attach<const D: usize, const B: usize, K: RowKind>(
    mut world: World,
    mut constraint: SymbolicConstraint<D, B, K>,
    bodies: [BodyHandle; B],
) -> Result<World, EditError> {
    constraint.set_bodies(bodies);
    // A name the text does not declare, or declares as another kind, is left alone.
    for &(name, value) in SCALARS {
        let _ = constraint.set_scalar(name, value);
    }
    for &(name, value) in VECTORS {
        let _ = constraint.set_vector(name, value);
    }
    world.joint(constraint)?;
    Ok(world)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steps `world` for `seconds` and returns the plank's largest drop and the largest
    /// joint error meanwhile.
    fn run(mut world: World, seconds: f32) -> (f32, f32) {
        let plank = world.bodies[1].handle;
        let (mut drop, mut worst) = (0.0f32, 0.0f32);
        for _ in 0..(seconds * 60.0) as usize {
            world.step(1.0 / 60.0);
            drop = drop.max(-world.pose(plank).position.y);
            worst = worst.max(world.worst_violation());
        }
        (drop, worst)
    }

    #[test]
    fn every_example_runs_as_the_joint_it_names() {
        // The weld holds the plank out straight; the rope lets it fall to its length and
        // swing; on the rail its end slides down the slope (0.54 m at the stop) as the
        // plank swings about it.
        let expected = [(0.0, 0.01), (0.9, 2.0), (0.3, 1.6)];
        for (&(title, source), (low, high)) in EXAMPLES.iter().zip(expected) {
            let world = build(source).unwrap_or_else(|e| panic!("{title}: {e:?}"));
            let (drop, worst) = run(world, 2.0);
            assert!(
                (low..=high).contains(&drop),
                "{title}: the plank dropped {drop} m"
            );
            assert!(worst < 1e-3, "{title}: joint error {worst}");
        }
    }

    #[test]
    fn builtin_declarations_run_on_the_plank() {
        for scene in crate::SCENES
            .iter()
            .filter(|s| s.name == "pivot" || s.name == "line")
        {
            let world = build(&scene.joint_source()).expect("a two-body builtin");
            let (drop, worst) = run(world, 1.0);
            assert!(drop > 0.2, "{}: the plank dropped {drop} m", scene.name);
            assert!(worst < 1e-3, "{}: joint error {worst}", scene.name);
        }
    }

    #[test]
    fn a_rail_typed_in_keeps_the_plank_end_level() {
        // The interactive page's browser check types this text.
        let rail = "body hook, plank
            vector anchor2
            constraint
              let end = plank.position + relative plank.rotation anchor2 in
              (end - hook.position) dot [0 1]";
        let world = build(rail).expect("the rail compiles");
        let (drop, worst) = run(world, 1.5);
        assert!((0.1..0.8).contains(&drop), "the plank dropped {drop} m");
        assert!(worst < 1e-3, "joint error {worst}");

        let typo = rail.replace("plank.position", "plank.positon");
        let error = build(&typo).err().expect("a typo");
        assert!(
            error.message.contains("did you mean `position`"),
            "{error:?}"
        );
        assert_eq!(&typo[error.range], "positon");
    }

    #[test]
    fn mistakes_are_messages_with_their_span() {
        let typo = SEED_DISTANCE.replace("|(body2.position", "|(body2.positon");
        let error = build(&typo).err().expect("a typo");
        assert!(
            error.message.contains("did you mean `position`"),
            "{error:?}"
        );
        assert_eq!(&typo[error.range.clone()], "positon");

        let pulley = crate::scenes::find("pulley").unwrap().joint_source();
        let error = build(&pulley).err().expect("four body slots");
        assert!(error.message.contains("4 body slots"), "{error:?}");

        let refused = SEED_LINE.replace("scalar jointMin", "vector jointMin");
        assert!(build(&refused).is_err());
    }
}
