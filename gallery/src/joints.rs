//! Joints no other 2D engine ships, each a few lines of `#[constraint]` expression: the
//! macro derives their Jacobians and effective masses, and [`nape::draw`] draws them
//! without a line of drawing code.

use nape::{BodyHandle, Vec2, constraint};

/// A bead (`body2`'s centre) on an ellipse with semi-axes `a` and `b` carried by `body1`
/// (along its local x and y), which may spin: `(x/a)² + (y/b)² = 1` in `body1`'s frame.
#[constraint(
    position = {
        let d = body2.position - body1.position;
        (d.dot(body1.rotate(Vec2::X)) / a).powi(2) + (d.dot(body1.rotate(Vec2::Y)) / b).powi(2) - 1.0
    },
    validate = [a > 0.0, b > 0.0, body1 != body2],
)]
#[derive(Clone, Copy, Debug)]
pub struct EllipseBead {
    /// The body carrying the ellipse, centred on its origin.
    pub body1: BodyHandle,
    /// The bead.
    pub body2: BodyHandle,
    /// Semi-axis along `body1`'s local x.
    pub a: f32,
    /// Semi-axis along `body1`'s local y.
    pub b: f32,
}

/// A cam follower: the follower (`body2`) rides at height `base − lift·cos 2θ` above the
/// cam's (`body1`'s) centre, the top of a two-lobed profile `r(φ) = base + lift·cos 2φ`
/// turning with the cam (held both ways: a desmodromic cam).
#[constraint(position = (body2.position - body1.position).y - offset - base + lift * (2.0 * body1.angle).cos())]
#[derive(Clone, Copy, Debug)]
pub struct CamFollower {
    /// The cam.
    pub body1: BodyHandle,
    /// The follower.
    pub body2: BodyHandle,
    /// The profile's mean radius.
    pub base: f32,
    /// The profile's lobe height.
    pub lift: f32,
    /// From the follower's centre down to its tip.
    pub offset: f32,
}

/// Rack and pinion: the rack (`body2`) moves along x by `radius` per radian the pinion
/// (`body1`) turns, `x₂ − x₁ − r·θ₁ = offset`.
#[constraint(position = (body2.position - body1.position).x - radius * body1.angle - offset)]
#[derive(Clone, Copy, Debug)]
pub struct RackAndPinion {
    /// The pinion.
    pub body1: BodyHandle,
    /// The rack.
    pub body2: BodyHandle,
    /// The pinion's pitch radius.
    pub radius: f32,
    /// The rack's x offset from the pinion when the pinion's angle is 0.
    pub offset: f32,
}

/// `body3` held at the midpoint of `body1` and `body2`: three slots, two rows.
#[constraint(position = body3.position - 0.5 * (body1.position + body2.position))]
#[derive(Clone, Copy, Debug)]
pub struct Midpoint {
    /// One end.
    pub body1: BodyHandle,
    /// The other end.
    pub body2: BodyHandle,
    /// The body held halfway.
    pub body3: BodyHandle,
}

/// A differential over three wheels: the carrier (`body3`) turns at the mean of the two
/// side wheels, `θ₁ + θ₂ − 2θ₃ = 0`.
#[constraint(position = body1.angle + body2.angle - 2.0 * body3.angle)]
#[derive(Clone, Copy, Debug)]
pub struct Differential {
    /// One side wheel.
    pub body1: BodyHandle,
    /// The other side wheel.
    pub body2: BodyHandle,
    /// The carrier.
    pub body3: BodyHandle,
}

/// The interactive page's mouse: the point `grip` of `body1` (local) pulled to the world
/// point `target`. Added soft, with a bounded force, so the joints it pulls against hold.
#[constraint(position = body1.world_point(grip) - target)]
#[derive(Clone, Copy, Debug)]
pub struct MouseJoint {
    /// The grabbed body.
    pub body1: BodyHandle,
    /// Where it was grabbed, in its local coordinates.
    pub grip: Vec2,
    /// The mouse, in world coordinates.
    pub target: Vec2,
}

/// The declaration of joint `name` (its doc comment, attribute and struct) as it appears
/// in `source`, for the gallery's pages.
#[must_use]
pub fn declaration(source: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = source.lines().collect();
    let header = format!("pub struct {name} ");
    let at = lines.iter().position(|l| l.starts_with(&header))?;
    // Declarations are separated by blank lines.
    let start = lines[..at]
        .iter()
        .rposition(|l| l.trim().is_empty() || *l == "}")
        .map_or(0, |blank| blank + 1);
    let end = at + lines[at..].iter().position(|l| *l == "}")?;
    Some(lines[start..=end].join("\n"))
}

/// This file's text, for [`declaration`].
pub const SOURCE: &str = include_str!("joints.rs");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_found_whole() {
        let cam = declaration(SOURCE, "CamFollower").unwrap();
        assert!(cam.starts_with("/// A cam follower"), "{cam}");
        assert!(cam.contains("#[constraint(position ="));
        assert!(cam.ends_with("pub offset: f32,\n}"), "{cam}");
        let bead = declaration(SOURCE, "EllipseBead").unwrap();
        assert!(bead.starts_with("/// A bead"), "{bead}");
        assert!(bead.contains("validate = [a > 0.0"));
        assert!(declaration(SOURCE, "Nothing").is_none());
    }
}
