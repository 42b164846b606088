//! The solver's reference scenes, built exactly as `reference/scenes.md` defines them
//! (bodies with mass and inertia set directly, gravity (0, −10)), plus the scenes of the
//! solver's test list (ball and chain, stretched chain, bridge, ragdolls, mass ratios),
//! shared by the examples and the tests (`#[path]`-included, so no copy exists).
#![allow(dead_code)]

use nape::{
    AngleJoint, Body, BodyHandle, ConstraintHandle, ConstraintSettings, PivotJoint, Space, Vec2,
    WeldJoint,
};

/// A scene: its space, the joints whose errors measure it and its dynamic bodies in the
/// order they were built.
pub struct Scene {
    pub space: Space,
    pub pivots: Vec<ConstraintHandle<PivotJoint>>,
    pub welds: Vec<ConstraintHandle<WeldJoint>>,
    pub limits: Vec<ConstraintHandle<AngleJoint>>,
    pub bodies: Vec<BodyHandle>,
}

impl Default for Scene {
    fn default() -> Self {
        Self::new()
    }
}

impl Scene {
    /// An empty space with gravity (0, −10) and the solver's defaults.
    pub fn new() -> Self {
        let mut space = Space::new();
        space.gravity = Vec2::new(0.0, -10.0);
        Self {
            space,
            pivots: Vec::new(),
            welds: Vec::new(),
            limits: Vec::new(),
            bodies: Vec::new(),
        }
    }

    /// Adds a dynamic body and records it.
    pub fn dynamic(&mut self, body: Body) -> BodyHandle {
        let h = self.space.add_body(body).expect("valid body");
        self.bodies.push(h);
        h
    }

    /// Adds a static body at `position`.
    pub fn anchor(&mut self, position: impl Into<nape::DVec2>) -> BodyHandle {
        self.space
            .add_body(Body::static_body().at(position))
            .expect("valid body")
    }

    /// Pins `la` of `a` to `lb` of `b`.
    pub fn pin(&mut self, a: BodyHandle, b: BodyHandle, la: Vec2, lb: Vec2) {
        let h = self
            .space
            .add_constraint(PivotJoint::new(a, b, la, lb))
            .expect("valid pivot");
        self.pivots.push(h);
    }

    /// Welds `la` of `a` to `lb` of `b` at their current relative angle (0).
    pub fn weld(&mut self, a: BodyHandle, b: BodyHandle, la: Vec2, lb: Vec2) {
        let h = self
            .space
            .add_constraint(WeldJoint::new(a, b, la, lb, 0.0))
            .expect("valid weld");
        self.welds.push(h);
    }

    /// Keeps `θ_b − θ_a` in `[min, max]`.
    pub fn limit(&mut self, a: BodyHandle, b: BodyHandle, min: f32, max: f32) {
        let h = self
            .space
            .add_constraint(AngleJoint::new(a, b, min, max))
            .expect("valid angle joint");
        self.limits.push(h);
    }

    fn separation(&self, a: BodyHandle, b: BodyHandle, la: Vec2, lb: Vec2) -> f32 {
        let pa = self.space.body(a).expect("body").world_point(la);
        let pb = self.space.body(b).expect("body").world_point(lb);
        let d = pa.distance(pb) as f32;
        if d.is_finite() { d } else { f32::INFINITY }
    }

    fn relative_angle(&self, a: BodyHandle, b: BodyHandle) -> f32 {
        let angle = |h: BodyHandle| self.space.body(h).expect("body").angle();
        (angle(b) - angle(a)) as f32
    }

    /// `(max, mean)` anchor separation over every pivot and weld, from the body poses.
    pub fn error(&self) -> (f32, f32) {
        let mut max = 0.0f32;
        let mut sum = 0.0f32;
        for &h in &self.pivots {
            let p = self.space.constraint(h).expect("live pivot");
            let d = self.separation(p.body1, p.body2, p.anchor1, p.anchor2);
            max = max.max(d);
            sum += d;
        }
        for &h in &self.welds {
            let w = self.space.constraint(h).expect("live weld");
            let d = self.separation(w.body1, w.body2, w.anchor1, w.anchor2);
            max = max.max(d);
            sum += d;
        }
        let count = self.pivots.len() + self.welds.len();
        (max, sum / count.max(1) as f32)
    }

    /// Largest angular error of the welds, `|θ₂ − θ₁ − phase|` (radians).
    pub fn weld_angle_error(&self) -> f32 {
        self.welds
            .iter()
            .map(|&h| {
                let w = self.space.constraint(h).expect("live weld");
                let e = (self.relative_angle(w.body1, w.body2) - w.phase).abs();
                if e.is_finite() { e } else { f32::INFINITY }
            })
            .fold(0.0, f32::max)
    }

    /// Largest amount by which an angle joint's `θ₂ − θ₁` is outside its range (radians).
    pub fn limit_violation(&self) -> f32 {
        self.limits
            .iter()
            .map(|&h| {
                let j = self.space.constraint(h).expect("live angle joint");
                let c = self.relative_angle(j.body1, j.body2);
                let e = (j.joint_min - c).max(c - j.joint_max).max(0.0);
                if c.is_finite() { e } else { f32::INFINITY }
            })
            .fold(0.0, f32::max)
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

    /// The largest linear speed of any body.
    pub fn max_speed(&self) -> f32 {
        self.fastest(|b| b.velocity().length())
    }

    /// The largest angular speed of any body.
    pub fn max_angular_speed(&self) -> f32 {
        self.fastest(|b| b.angular_velocity().abs())
    }

    /// The largest `speed` of any body; infinite if any is not finite (a NaN must not
    /// hide behind `max`).
    fn fastest(&self, speed: impl Fn(&Body) -> f32) -> f32 {
        self.space
            .bodies()
            .map(|(_, b)| speed(b))
            .fold(0.0, |m, v| {
                if v.is_finite() {
                    m.max(v)
                } else {
                    f32::INFINITY
                }
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
                0.5 * m * v.length_squared() + 0.5 * i * w * w + m * g * b.position().y
            })
            .sum()
    }

    /// The poses of `bodies` as bits, for bit-for-bit comparisons.
    pub fn pose_bits(&self, bodies: &[BodyHandle]) -> Vec<[u64; 5]> {
        bodies
            .iter()
            .map(|&h| {
                let p = self.space.body(h).expect("body").pose();
                [
                    p.position.x.to_bits(),
                    p.position.y.to_bits(),
                    u64::from(p.cos.to_bits()),
                    u64::from(p.sin.to_bits()),
                    u64::from(p.turns.cast_unsigned()),
                ]
            })
            .collect()
    }

    /// Adds a chain of `links` links of `mass` and `inertia`, 1 m between its end anchors
    /// `(±0.5, 0)`, hung from a static body at `origin`: along +x with `spacing` between
    /// link centres, or (`hanging`) straight down at rest. Returns the links.
    pub fn add_chain(
        &mut self,
        origin: impl Into<nape::DVec2>,
        links: usize,
        hanging: bool,
        spacing: f32,
        mass: f32,
        inertia: f32,
    ) -> Vec<BodyHandle> {
        let origin = origin.into();
        let anchor = self.anchor(origin);
        let mut previous = (anchor, Vec2::ZERO);
        let mut added = Vec::with_capacity(links);
        for i in 0..links {
            let along = spacing * (0.5 + i as f32);
            let (position, angle) = if hanging {
                (Vec2::new(0.0, -along), -std::f32::consts::FRAC_PI_2)
            } else {
                (Vec2::new(along, 0.0), 0.0)
            };
            let link = self.dynamic(
                Body::dynamic(mass, inertia)
                    .at(origin + position.as_dvec2())
                    .with_angle(f64::from(angle)),
            );
            self.pin(previous.0, link, previous.1, Vec2::new(-0.5, 0.0));
            previous = (link, Vec2::new(0.5, 0.0));
            added.push(link);
        }
        added
    }

    /// Adds a ragdoll standing with its torso's centre at `origin` (see [`Ragdoll`]).
    pub fn add_ragdoll(&mut self, origin: impl Into<nape::DVec2>) -> Ragdoll {
        let origin = origin.into();
        let limb = |s: &mut Self, w: f32, h: f32, at: Vec2| {
            let (m, i) = box_mass(w, h);
            s.dynamic(Body::dynamic(m, i).at(origin + at.as_dvec2()))
        };
        let torso = limb(self, 0.5, 1.0, Vec2::ZERO);
        let head_mass = std::f32::consts::PI * HEAD_RADIUS * HEAD_RADIUS;
        let head = self.dynamic(
            Body::dynamic(head_mass, 0.5 * head_mass * HEAD_RADIUS * HEAD_RADIUS)
                .at(origin + Vec2::new(0.0, 0.5 + HEAD_RADIUS).as_dvec2()),
        );
        self.weld(
            torso,
            head,
            Vec2::new(0.0, 0.5),
            Vec2::new(0.0, -HEAD_RADIUS),
        );
        let mut hands = [torso; 2];
        for (side, hand) in [-1.0f32, 1.0].into_iter().zip(&mut hands) {
            let upper = limb(self, 0.6, 0.2, Vec2::new(side * 0.55, 0.4));
            let lower = limb(self, 0.6, 0.2, Vec2::new(side * 1.15, 0.4));
            self.pin(
                torso,
                upper,
                Vec2::new(side * 0.25, 0.4),
                Vec2::new(-side * 0.3, 0.0),
            );
            self.limit(torso, upper, -RAGDOLL_LIMIT, RAGDOLL_LIMIT);
            self.pin(
                upper,
                lower,
                Vec2::new(side * 0.3, 0.0),
                Vec2::new(-side * 0.3, 0.0),
            );
            self.limit(upper, lower, -RAGDOLL_LIMIT, RAGDOLL_LIMIT);
            *hand = lower;

            let thigh = limb(self, 0.2, 0.7, Vec2::new(side * 0.15, -0.85));
            let shin = limb(self, 0.2, 0.7, Vec2::new(side * 0.15, -1.55));
            self.pin(
                torso,
                thigh,
                Vec2::new(side * 0.15, -0.5),
                Vec2::new(0.0, 0.35),
            );
            self.limit(torso, thigh, -RAGDOLL_LIMIT, RAGDOLL_LIMIT);
            self.pin(thigh, shin, Vec2::new(0.0, -0.35), Vec2::new(0.0, 0.35));
            self.limit(thigh, shin, -RAGDOLL_LIMIT, RAGDOLL_LIMIT);
        }
        let first = self.bodies.len() - 10;
        Ragdoll {
            torso,
            left_hand: hands[0],
            right_hand: hands[1],
            bodies: self.bodies[first..].to_vec(),
        }
    }

    /// Sets every body of `bodies` moving as one rigid body: linear velocity `velocity` at
    /// `centre` and angular velocity `spin`.
    pub fn set_rigid_motion(
        &mut self,
        bodies: &[BodyHandle],
        centre: impl Into<nape::DVec2>,
        velocity: Vec2,
        spin: f32,
    ) {
        let centre = centre.into();
        for &h in bodies {
            let mut b = self.space.body_mut(h).expect("body");
            let r = (b.position() - centre).as_vec2();
            b.set_velocity(velocity + spin * Vec2::new(-r.y, r.x))
                .expect("finite velocity");
            b.set_angular_velocity(spin).expect("finite spin");
        }
    }
}

/// A free ragdoll thrown at (3, 1) m/s spinning at 4 rad/s, a forearm flung at 20 rad/s
/// against its elbow, no gravity; its pivots with `pivots` (the defaults if `None`).
pub fn thrown_ragdoll(pivots: Option<ConstraintSettings>) -> Scene {
    thrown_ragdoll_at(nape::DVec2::ZERO, pivots)
}

/// [`thrown_ragdoll`] with its torso starting at `origin`.
pub fn thrown_ragdoll_at(origin: nape::DVec2, pivots: Option<ConstraintSettings>) -> Scene {
    let mut s = Scene::new();
    s.space.gravity = Vec2::ZERO;
    let doll = s.add_ragdoll(origin);
    s.set_rigid_motion(&doll.bodies, origin, Vec2::new(3.0, 1.0), 4.0);
    let mut hand = s.space.body_mut(doll.left_hand).expect("body");
    hand.set_angular_velocity(20.0).expect("finite spin");
    if let Some(settings) = pivots {
        for &h in &s.pivots {
            s.space.set_settings(h, settings).expect("valid settings");
        }
    }
    s
}

/// The ragdoll's pivots: stiff, soft at 5 Hz, stiff but breaking under 5 N.
pub fn ragdoll_pivot_variants() -> [(&'static str, Option<ConstraintSettings>); 3] {
    let breaking = ConstraintSettings {
        max_force: 5.0,
        break_under_force: true,
        ..ConstraintSettings::default()
    };
    [
        ("stiff", None),
        ("soft 5 Hz", Some(ConstraintSettings::soft(5.0, 0.0))),
        ("breaking under 5 N", Some(breaking)),
    ]
}

/// Mass and inertia of a `w × h` box of density 1.
pub fn box_mass(w: f32, h: f32) -> (f32, f32) {
    let m = w * h;
    (m, m * (w * w + h * h) / 12.0)
}

/// The reference link: 1 m × 0.25 m, density 1.
pub const LINK_MASS: f32 = 0.25;
/// The reference link's inertia, `m (w² + h²) / 12`.
pub const LINK_INERTIA: f32 = 0.25 * (1.0 + 0.0625) / 12.0;

/// `chain` (`hanging = false`: released horizontally) or `chain_hang` (hanging at rest)
/// with `links` links of 1 m × 0.25 m, density 1.
pub fn chain(links: usize, hanging: bool) -> Scene {
    let mut s = Scene::new();
    s.add_chain(Vec2::ZERO, links, hanging, 1.0, LINK_MASS, LINK_INERTIA);
    s
}

/// Radius of the ball of [`ball_and_chain`].
pub const BALL_RADIUS: f32 = 8.0;

/// A chain of `links` links of density 20 (mass 5) ending in a ball of radius 8 and density
/// 20 (mass `20·π·64`, inertia `½ m r²`) pinned by a point of its rim; the chain hangs at
/// rest (`hanging`) or starts horizontal. The ball is the last of `bodies`.
pub fn ball_and_chain(links: usize, hanging: bool) -> Scene {
    let mut s = Scene::new();
    let chain = s.add_chain(
        Vec2::ZERO,
        links,
        hanging,
        1.0,
        20.0 * LINK_MASS,
        20.0 * LINK_INERTIA,
    );
    let length = links as f32;
    let mass = 20.0 * std::f32::consts::PI * BALL_RADIUS * BALL_RADIUS;
    // The rim point local (0, r) faces the chain's end: up when hanging, −x when horizontal.
    let (centre, angle) = if hanging {
        (Vec2::new(0.0, -(length + BALL_RADIUS)), 0.0)
    } else {
        (
            Vec2::new(length + BALL_RADIUS, 0.0),
            std::f32::consts::FRAC_PI_2,
        )
    };
    let ball = s.dynamic(
        Body::dynamic(mass, 0.5 * mass * BALL_RADIUS * BALL_RADIUS)
            .at(centre)
            .with_angle(f64::from(angle)),
    );
    let end = *chain.last().expect("at least one link");
    s.pin(end, ball, Vec2::new(0.5, 0.0), Vec2::new(0.0, BALL_RADIUS));
    s
}

/// A horizontal chain of `links` reference links created at twice its rest spacing
/// (centres 2 m apart, so every joint starts 1 m — the first 0.5 m — apart).
pub fn stretched_chain(links: usize) -> Scene {
    let mut s = Scene::new();
    s.add_chain(Vec2::ZERO, links, false, 2.0, LINK_MASS, LINK_INERTIA);
    s
}

/// A bridge: `planks` reference planks (1 m × 0.25 m, density 1) in a row from x = 0,
/// pivots between consecutive planks, the first pinned to a static body at x = 0 and the
/// last to one at x = `span`. With `span < planks` the bridge hangs slack; with
/// `span == planks` (Box2D's sample) it is taut, which rigid joints cannot hold without
/// infinite tension: only soft joints let such a bridge sag.
pub fn bridge(planks: usize, span: f32) -> Scene {
    let mut s = Scene::new();
    let left = s.anchor(Vec2::ZERO);
    let right = s.anchor(Vec2::new(span, 0.0));
    let mut previous = (left, Vec2::ZERO);
    for i in 0..planks {
        let plank =
            s.dynamic(Body::dynamic(LINK_MASS, LINK_INERTIA).at(Vec2::new(0.5 + i as f32, 0.0)));
        s.pin(previous.0, plank, previous.1, Vec2::new(-0.5, 0.0));
        previous = (plank, Vec2::new(0.5, 0.0));
    }
    s.pin(previous.0, right, previous.1, Vec2::ZERO);
    s
}

/// Radius of a ragdoll's head.
pub const HEAD_RADIUS: f32 = 0.25;
/// Every ragdoll angle joint keeps its relative angle within `±RAGDOLL_LIMIT` radians.
pub const RAGDOLL_LIMIT: f32 = 1.0;
/// Distance between the torsos of ragdolls joined hand to hand (their hands coincide).
pub const RAGDOLL_SPACING: f32 = 2.9;

/// A ragdoll of ten boxes of density 1: a 0.5 × 1 torso, a head (disc of radius 0.25)
/// welded on top, two arms of two 0.6 × 0.2 segments held out sideways and two legs of
/// two 0.2 × 0.7 segments; shoulders, elbows, hips and knees are pivots with an angle
/// joint keeping each within ±1 rad of straight.
pub struct Ragdoll {
    pub torso: BodyHandle,
    /// The left forearm; its hand is its local point (−0.3, 0).
    pub left_hand: BodyHandle,
    /// The right forearm; its hand is its local point (0.3, 0).
    pub right_hand: BodyHandle,
    pub bodies: Vec<BodyHandle>,
}

/// A hand's point in its forearm's frame.
pub fn hand_point(right: bool) -> Vec2 {
    Vec2::new(if right { 0.3 } else { -0.3 }, 0.0)
}

/// `count` ragdolls in a row, each one's right hand pinned to the next one's left hand.
pub fn ragdoll_line(count: usize) -> (Scene, Vec<Ragdoll>) {
    let mut s = Scene::new();
    let mut dolls: Vec<Ragdoll> = Vec::with_capacity(count);
    for k in 0..count {
        let doll = s.add_ragdoll(Vec2::new(k as f32 * RAGDOLL_SPACING, 0.0));
        if let Some(previous) = dolls.last() {
            s.pin(
                previous.right_hand,
                doll.left_hand,
                hand_point(true),
                hand_point(false),
            );
        }
        dolls.push(doll);
    }
    (s, dolls)
}

/// [`ragdoll_line`] of `count`, the first doll hung by its free (left) hand from a static
/// hook: they fall and swing as one chain of ragdolls, limits reached and left.
pub fn hung_ragdolls(count: usize) -> Scene {
    let (mut s, dolls) = ragdoll_line(count);
    let hand = dolls[0].left_hand;
    let at = s
        .space
        .body(hand)
        .expect("hand")
        .world_point(hand_point(false));
    let hook = s.anchor(at);
    s.pin(hook, hand, Vec2::ZERO, hand_point(false));
    s
}

/// Two bodies hanging at rest from a static anchor: the upper of mass `upper`, the
/// lower of mass `lower` (inertia `m/6`, a unit square's), 1 m apart, pinned centre to
/// centre. Bodies: `[upper, lower]`.
pub fn two_body_hang(upper: f32, lower: f32) -> Scene {
    let mut s = Scene::new();
    let anchor = s.anchor(Vec2::ZERO);
    let a = s.dynamic(Body::dynamic(upper, upper / 6.0).at(Vec2::new(0.0, -1.0)));
    let b = s.dynamic(Body::dynamic(lower, lower / 6.0).at(Vec2::new(0.0, -2.0)));
    s.pin(anchor, a, Vec2::ZERO, Vec2::new(0.0, 1.0));
    s.pin(a, b, Vec2::new(0.0, -0.5), Vec2::new(0.0, 0.5));
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
            let h = if pinned {
                s.anchor(position)
            } else {
                s.dynamic(Body::dynamic(mass, inertia).at(position))
            };
            handles[k * n + i] = Some((h, pinned));
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
