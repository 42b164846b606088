//! The floor under nape's exact solve: one step of the 200-link `chain` of
//! reference/scenes.md (released horizontally, pivots, gravity (0, −10), dt = 1/60) with
//! 3 exact substeps, as `Space::step` takes it (`exact_substeps = 3`, adaptive substeps
//! off) and as a hand-written solver specialised to that scene takes it. The hand-written
//! step does what nape's exact substep does for a chain — each substep: gravity, the pivot
//! rows at the current poses, the block-tridiagonal `K = J M⁻¹ Jᵀ` factored (`LDLᵀ` in
//! `f64`), the velocity solve `K λ = −J v`, the pose update (turned as nape turns a pose, without
//! a sine or cosine), and the position projection
//! `K μ = −C` with the same factor — and nothing else: no warm start, no guard, no
//! compliance, no impulse bookkeeping, no other joint types. The ratio of the two is how much
//! the generic machinery costs (ARCHITECTURE.md, "Where the time goes").
//!
//! `cargo bench --bench exact_floor`.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use nape::{Pose, Space, Vec2, Velocity};

#[path = "../examples/common/scenes.rs"]
mod scenes;
use scenes::{LINK_INERTIA as INERTIA, LINK_MASS as MASS};

const LINKS: usize = 200;
/// The reference scene's length.
const STEPS: usize = 600;
const SUBSTEPS: u32 = 3;
const DT: f32 = 1.0 / 60.0;
const GRAVITY: f32 = -10.0;
const INVERSE_MASS: f32 = 1.0 / MASS;
const INVERSE_INERTIA: f32 = 1.0 / INERTIA;

/// The chain in a nape `Space` (the reference scene of `examples/solver_scenes.rs`).
fn nape_chain() -> Space {
    let mut space = scenes::chain(LINKS, false).space;
    space.exact_substeps = SUBSTEPS;
    space.adaptive_substeps = false;
    space
}

/// A body of the hand-written chain.
#[derive(Clone, Copy)]
struct Link {
    /// Position, angle and its cosine and sine, turned as nape turns them (no sine or
    /// cosine per substep).
    pose: Pose,
    velocity: Vec2,
    spin: f32,
    /// The projection's displacement, summed over the body's joints before it is applied
    /// (one pose update per body, as nape's projection does).
    shift: Velocity,
}

impl Link {
    fn motion(&self) -> Velocity {
        Velocity {
            linear: self.velocity,
            angular: self.spin,
        }
    }

    fn turn(&self, local: Vec2) -> Vec2 {
        self.pose.rotate(local)
    }
}

/// The same chain, solved exactly by a block-tridiagonal factorisation written for it.
struct HandChain {
    /// Body 0 is the static anchor.
    links: Vec<Link>,
    /// Per joint: `∂(R r)/∂θ` of its anchor on each body at the substep's start.
    lever_a: Vec<Vec2>,
    lever_b: Vec<Vec2>,
    /// Per joint: the inverse of its eliminated diagonal block, the coupling to the joint
    /// before it and the gain `Cᵀ D⁻¹` of that coupling (2 × 2, row-major).
    inverse: Vec<[f64; 4]>,
    coupling: Vec<[f64; 4]>,
    gain: Vec<[f64; 4]>,
    rhs: Vec<[f64; 2]>,
}

impl HandChain {
    fn new() -> Self {
        let mut links = vec![
            Link {
                pose: Pose::new(Vec2::ZERO, 0.0),
                velocity: Vec2::ZERO,
                spin: 0.0,
                shift: Velocity::default(),
            };
            LINKS + 1
        ];
        for (i, link) in links.iter_mut().enumerate().skip(1) {
            link.pose = Pose::new(Vec2::new(i as f32 - 0.5, 0.0), 0.0);
        }
        Self {
            links,
            lever_a: vec![Vec2::ZERO; LINKS],
            lever_b: vec![Vec2::ZERO; LINKS],
            inverse: vec![[0.0; 4]; LINKS],
            coupling: vec![[0.0; 4]; LINKS],
            gain: vec![[0.0; 4]; LINKS],
            rhs: vec![[0.0; 2]; LINKS],
        }
    }

    fn anchor_a(joint: usize) -> Vec2 {
        if joint == 0 {
            Vec2::ZERO
        } else {
            Vec2::new(0.5, 0.0)
        }
    }

    const ANCHOR_B: Vec2 = Vec2::new(-0.5, 0.0);

    /// Inverse mass and inverse inertia of the first body of `joint` (the static anchor
    /// for joint 0).
    fn inverse_a(joint: usize) -> (f64, f64) {
        if joint == 0 {
            (0.0, 0.0)
        } else {
            (f64::from(INVERSE_MASS), f64::from(INVERSE_INERTIA))
        }
    }

    fn step(&mut self) {
        let h = DT / SUBSTEPS as f32;
        for _ in 0..SUBSTEPS {
            for link in &mut self.links[1..] {
                link.velocity.y += GRAVITY * h;
            }
            self.factor();
            self.correct(
                |chain, j| {
                    let (a, b) = (&chain.links[j], &chain.links[j + 1]);
                    b.velocity + chain.lever_b[j] * b.spin - a.velocity - chain.lever_a[j] * a.spin
                },
                |link, linear, angular| {
                    link.velocity += linear;
                    link.spin += angular;
                },
            );
            for link in &mut self.links[1..] {
                link.pose = link.pose.integrate(link.motion(), h);
            }
            self.correct(Self::error, |link, linear, angular| {
                link.shift.linear += linear;
                link.shift.angular += angular;
            });
            for link in &mut self.links[1..] {
                link.pose = link.pose.integrate(link.shift, 1.0);
                link.shift = Velocity::default();
            }
        }
    }

    /// Solves `K λ = −residual` with the substep's factor and hands each body its share
    /// `M⁻¹ Jᵀ λ` through `add`: the velocity solve (`residual`: `J v`) and the projection
    /// (`residual`: `C`).
    fn correct(
        &mut self,
        residual: impl Fn(&Self, usize) -> Vec2,
        add: impl FnMut(&mut Link, Vec2, f32),
    ) {
        for j in 0..LINKS {
            let r = residual(self, j);
            self.rhs[j] = [-f64::from(r.x), -f64::from(r.y)];
        }
        self.solve();
        self.apply(add);
    }

    /// Anchor separation of `joint` at the current poses.
    fn error(&self, joint: usize) -> Vec2 {
        let (a, b) = (&self.links[joint], &self.links[joint + 1]);
        b.pose.position + b.turn(Self::ANCHOR_B) - a.pose.position - a.turn(Self::anchor_a(joint))
    }

    /// The rows at the current poses and the block-tridiagonal `LDLᵀ` of `K`.
    fn factor(&mut self) {
        let (mb, ib) = (f64::from(INVERSE_MASS), f64::from(INVERSE_INERTIA));
        for j in 0..LINKS {
            self.lever_a[j] = self.links[j].turn(Self::anchor_a(j)).perp();
            self.lever_b[j] = self.links[j + 1].turn(Self::ANCHOR_B).perp();
            let (ma, ia) = Self::inverse_a(j);
            let (p, q) = (self.lever_a[j].as_dvec2(), self.lever_b[j].as_dvec2());
            let off = ia * p.x * p.y + ib * q.x * q.y;
            let mut k = [
                ma + mb + ia * p.x * p.x + ib * q.x * q.x,
                off,
                off,
                ma + mb + ia * p.y * p.y + ib * q.y * q.y,
            ];
            if j > 0 {
                // Through their shared body: `−(m I + i q_{j−1} p_jᵀ)`.
                let u = self.lever_b[j - 1].as_dvec2();
                let c = [
                    -(ma + ia * u.x * p.x),
                    -(ia * u.x * p.y),
                    -(ia * u.y * p.x),
                    -(ma + ia * u.y * p.y),
                ];
                let d = self.inverse[j - 1];
                let g = [
                    c[0] * d[0] + c[2] * d[2],
                    c[0] * d[1] + c[2] * d[3],
                    c[1] * d[0] + c[3] * d[2],
                    c[1] * d[1] + c[3] * d[3],
                ];
                k[0] -= g[0] * c[0] + g[1] * c[2];
                k[1] -= g[0] * c[1] + g[1] * c[3];
                k[2] -= g[2] * c[0] + g[3] * c[2];
                k[3] -= g[2] * c[1] + g[3] * c[3];
                self.coupling[j] = c;
                self.gain[j] = g;
            }
            let r = 1.0 / (k[0] * k[3] - k[1] * k[2]);
            self.inverse[j] = [k[3] * r, -k[1] * r, -k[2] * r, k[0] * r];
        }
    }

    /// `K λ = rhs` in place.
    fn solve(&mut self) {
        for j in 1..LINKS {
            let (g, r) = (self.gain[j], self.rhs[j - 1]);
            self.rhs[j][0] -= g[0] * r[0] + g[1] * r[1];
            self.rhs[j][1] -= g[2] * r[0] + g[3] * r[1];
        }
        let mut next = [0.0; 2];
        for j in (0..LINKS).rev() {
            let mut r = self.rhs[j];
            if j + 1 < LINKS {
                let c = self.coupling[j + 1];
                r[0] -= c[0] * next[0] + c[1] * next[1];
                r[1] -= c[2] * next[0] + c[3] * next[1];
            }
            let d = self.inverse[j];
            next = [d[0] * r[0] + d[1] * r[1], d[2] * r[0] + d[3] * r[1]];
            self.rhs[j] = next;
        }
    }

    /// Hands each body its share `M⁻¹ Jᵀ λ` of the solution.
    fn apply(&mut self, mut add: impl FnMut(&mut Link, Vec2, f32)) {
        for j in 0..LINKS {
            let l = Vec2::new(self.rhs[j][0] as f32, self.rhs[j][1] as f32);
            if j > 0 {
                let turn = -self.lever_a[j].dot(l) * INVERSE_INERTIA;
                add(&mut self.links[j], -l * INVERSE_MASS, turn);
            }
            let turn = self.lever_b[j].dot(l) * INVERSE_INERTIA;
            add(&mut self.links[j + 1], l * INVERSE_MASS, turn);
        }
    }

    fn max_error(&self) -> f32 {
        (0..LINKS)
            .map(|j| self.error(j).length())
            .fold(0.0, f32::max)
    }
}

fn exact_floor(c: &mut Criterion) {
    // Both hold the chain together over the 600 steps of the reference scene, so the
    // comparison is between two working solvers.
    let mut space = nape_chain();
    let mut hand = HandChain::new();
    let mut hand_worst = 0.0f32;
    for _ in 0..STEPS {
        space.step(DT);
        hand.step();
        hand_worst = hand_worst.max(hand.max_error());
    }
    assert!(
        hand_worst < 0.02,
        "hand-written chain opened {hand_worst} m"
    );
    // One iteration is the whole scene from its start, as the peer benchmark times it:
    // stepping one chain on for as long as criterion samples would time a chain spinning
    // ever faster, long after the scene's 10 s.
    let mut group = c.benchmark_group("chain200_3_exact_substeps/600_steps");
    group.sample_size(10);
    group.bench_function("nape", |b| {
        b.iter_batched(
            nape_chain,
            |mut space| {
                for _ in 0..STEPS {
                    space.step(DT);
                }
                space
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("hand-written", |b| {
        b.iter_batched(
            HandChain::new,
            |mut hand| {
                for _ in 0..STEPS {
                    hand.step();
                }
                hand
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, exact_floor);
criterion_main!(benches);
