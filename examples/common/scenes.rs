//! The solver's reference scenes, built exactly as `reference/scenes.md` defines them
//! (bodies with mass and inertia set directly, pivot joints, gravity (0, −10)), shared by
//! the examples and the tests (`#[path]`-included, so no copy exists).
#![allow(dead_code)]

use nape::{Body, BodyHandle, ConstraintHandle, PivotJoint, Space, Vec2};

/// A scene: its space and the pivots whose anchor separation measures its error.
pub struct Scene {
    pub space: Space,
    pub pivots: Vec<ConstraintHandle<PivotJoint>>,
    pub bodies: Vec<BodyHandle>,
}

impl Scene {
    fn new() -> Self {
        let mut space = Space::new();
        space.gravity = Vec2::new(0.0, -10.0);
        Self {
            space,
            pivots: Vec::new(),
            bodies: Vec::new(),
        }
    }

    fn pin(&mut self, a: BodyHandle, b: BodyHandle, la: Vec2, lb: Vec2) {
        let h = self
            .space
            .add_constraint(PivotJoint::new(a, b, la, lb))
            .expect("valid pivot");
        self.pivots.push(h);
    }

    /// `(max, mean)` anchor separation over every pivot, from the body poses.
    pub fn error(&self) -> (f32, f32) {
        let mut max = 0.0f32;
        let mut sum = 0.0f32;
        for &h in &self.pivots {
            let p = self.space.constraint(h).expect("live pivot");
            let a = self
                .space
                .body(p.body1)
                .expect("body")
                .world_point(p.anchor1);
            let b = self
                .space
                .body(p.body2)
                .expect("body")
                .world_point(p.anchor2);
            let d = a.distance(b);
            max = max.max(if d.is_finite() { d } else { f32::INFINITY });
            sum += d;
        }
        (max, sum / self.pivots.len().max(1) as f32)
    }

    /// Whether every body's pose and velocity is finite.
    pub fn finite(&self) -> bool {
        self.space.bodies().all(|(_, b)| {
            b.position().is_finite()
                && b.angle().is_finite()
                && b.velocity().is_finite()
                && b.angular_velocity().is_finite()
        })
    }

    /// Total energy: kinetic plus gravitational (height measured from y = 0).
    pub fn energy(&self) -> f64 {
        let g = f64::from(-self.space.gravity.y);
        self.space
            .bodies()
            .filter(|(_, b)| b.is_dynamic())
            .map(|(_, b)| {
                let (m, i) = (f64::from(b.mass()), f64::from(b.inertia()));
                let v = b.velocity().as_dvec2();
                let w = f64::from(b.angular_velocity());
                0.5 * m * v.length_squared() + 0.5 * i * w * w + m * g * f64::from(b.position().y)
            })
            .sum()
    }
}

const LINK_MASS: f32 = 0.25;
const LINK_INERTIA: f32 = 0.25 * (1.0 + 0.0625) / 12.0;

/// `chain` (`hanging = false`: released horizontally) or `chain_hang` (hanging at rest)
/// with `links` links of 1 m × 0.25 m, density 1.
pub fn chain(links: usize, hanging: bool) -> Scene {
    let mut s = Scene::new();
    let anchor = s.space.add_body(Body::static_body()).expect("body");
    let mut previous = (anchor, Vec2::ZERO);
    for i in 0..links {
        let (position, angle) = if hanging {
            (
                Vec2::new(0.0, -(0.5 + i as f32)),
                -std::f32::consts::FRAC_PI_2,
            )
        } else {
            (Vec2::new(0.5 + i as f32, 0.0), 0.0)
        };
        let link = s
            .space
            .add_body(
                Body::dynamic(LINK_MASS, LINK_INERTIA)
                    .at(position)
                    .with_angle(angle),
            )
            .expect("body");
        s.pin(previous.0, link, previous.1, Vec2::new(-0.5, 0.0));
        previous = (link, Vec2::new(0.5, 0.0));
        s.bodies.push(link);
    }
    s
}

/// Box2D v3's joint grid, `n × n` bodies, the middle of the top row pinned (seven bodies
/// at n = 100, scaled for smaller grids).
pub fn joint_grid(n: usize) -> Scene {
    let mut s = Scene::new();
    let mass = std::f32::consts::PI * 0.16;
    let inertia = 0.5 * mass * 0.16;
    let (lo, hi) = pinned_range(n);
    let mut handles = vec![None; n * n];
    for k in 0..n {
        for i in 0..n {
            let position = Vec2::new(k as f32, -(i as f32));
            let pinned = i == 0 && (lo..=hi).contains(&k);
            let body = if pinned {
                Body::static_body().at(position)
            } else {
                Body::dynamic(mass, inertia).at(position)
            };
            let h = s.space.add_body(body).expect("body");
            handles[k * n + i] = Some((h, pinned));
            if !pinned {
                s.bodies.push(h);
            }
            if i > 0 {
                let (up, up_pinned) = handles[k * n + i - 1].expect("created");
                if !(pinned && up_pinned) {
                    s.pin(up, h, Vec2::new(0.0, -0.5), Vec2::new(0.0, 0.5));
                }
            }
            if k > 0 {
                let (left, left_pinned) = handles[(k - 1) * n + i].expect("created");
                if !(pinned && left_pinned) {
                    s.pin(left, h, Vec2::new(0.5, 0.0), Vec2::new(-0.5, 0.0));
                }
            }
        }
    }
    s
}

/// The pinned columns of the top row: 47..=53 at n = 100, the same share elsewhere.
fn pinned_range(n: usize) -> (usize, usize) {
    if n == 100 {
        return (47, 53);
    }
    let half = (n * 7 / 100).max(1) / 2;
    let mid = n / 2;
    (mid.saturating_sub(half), (mid + half).min(n - 1))
}
