//! The floor under nape's exact solve: the 600 steps of the 200-link `chain` of
//! reference/scenes.md (released horizontally, pivots, gravity (0, −10), dt = 1/60) with
//! 3 exact substeps, as `Space::step` takes them (`exact_substeps = 3`, adaptive substeps
//! off) and as a hand-written solver specialised to that scene takes them. The hand-written
//! step does what nape's exact substep does for a chain — each substep: gravity, the pivot
//! rows at the current poses, the block-tridiagonal `K = J M⁻¹ Jᵀ` factored (`LDLᵀ` in
//! `f64`), the velocity solve `K λ = −J v`, the pose update (turned as nape turns a pose,
//! without a sine or cosine), and the position projection `K μ = −C` with the same factor —
//! and nothing else: no warm start, no guard, no compliance, no impulse bookkeeping, no
//! other joint types. It runs twice: eliminating from the top down, and from both ends
//! towards the middle joint (the factor and the solves are chains of dependent 2 × 2 block
//! operations, link after link; two half-length chains, interleaved, let the core overlap
//! them). The ratio of nape to these is how much the generic machinery costs
//! (ARCHITECTURE.md, "Where the time goes").
//!
//! `cargo bench --bench exact_floor`.

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion, criterion_group, criterion_main};
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
    /// Eliminate from both ends towards the middle joint (two independent dependency
    /// chains, which the core overlaps) instead of from the top down.
    two_ended: bool,
    /// Two-ended only: each joint's own block `A_j`, and below the middle the gain
    /// `C_{j+1} E_{j+1}⁻¹` from the joint after it.
    block: Vec<[f64; 4]>,
    gain_below: Vec<[f64; 4]>,
}

impl HandChain {
    fn new() -> Self {
        Self::with_elimination(false)
    }

    fn two_ended() -> Self {
        Self::with_elimination(true)
    }

    fn with_elimination(two_ended: bool) -> Self {
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
            two_ended,
            block: vec![[0.0; 4]; LINKS],
            gain_below: vec![[0.0; 4]; LINKS],
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
            if self.two_ended {
                self.factor_two_ended();
            } else {
                self.factor();
            }
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
        if self.two_ended {
            self.solve_two_ended();
        } else {
            self.solve();
        }
        self.apply(add);
    }

    /// Anchor separation of `joint` at the current poses.
    fn error(&self, joint: usize) -> Vec2 {
        let (a, b) = (&self.links[joint], &self.links[joint + 1]);
        b.pose.position + b.turn(Self::ANCHOR_B) - a.pose.position - a.turn(Self::anchor_a(joint))
    }

    /// Joint `j`'s rows at the current poses: its levers, its own block `A_j` of
    /// `K = J M⁻¹ Jᵀ` (returned) and, below the first joint, its coupling
    /// `C_j = K_{j−1, j}` to the joint before it through their shared body,
    /// `−(m I + i q_{j−1} p_jᵀ)`.
    fn joint_rows(&mut self, j: usize) -> [f64; 4] {
        let (mb, ib) = (f64::from(INVERSE_MASS), f64::from(INVERSE_INERTIA));
        self.lever_a[j] = self.links[j].turn(Self::anchor_a(j)).perp();
        self.lever_b[j] = self.links[j + 1].turn(Self::ANCHOR_B).perp();
        let (ma, ia) = Self::inverse_a(j);
        let (p, q) = (self.lever_a[j].as_dvec2(), self.lever_b[j].as_dvec2());
        if j > 0 {
            let u = self.lever_b[j - 1].as_dvec2();
            self.coupling[j] = [
                -(ma + ia * u.x * p.x),
                -(ia * u.x * p.y),
                -(ia * u.y * p.x),
                -(ma + ia * u.y * p.y),
            ];
        }
        let off = ia * p.x * p.y + ib * q.x * q.y;
        [
            ma + mb + ia * p.x * p.x + ib * q.x * q.x,
            off,
            off,
            ma + mb + ia * p.y * p.y + ib * q.y * q.y,
        ]
    }

    /// The rows at the current poses and the block-tridiagonal `LDLᵀ` of `K`, from the top
    /// down: `D_j = A_j − C_jᵀ D_{j−1}⁻¹ C_j`.
    fn factor(&mut self) {
        for j in 0..LINKS {
            let block = self.joint_rows(j);
            let d = self.eliminate_above(j, block);
            self.inverse[j] = inverse(&d);
        }
    }

    /// `K λ = rhs` in place.
    fn solve(&mut self) {
        // Each step's result is carried to the next in registers: reloading it from `rhs`
        // would put the store on the dependency chain.
        let mut y = self.rhs[0];
        for j in 1..LINKS {
            y = self.forward_above(j, y);
        }
        let mut x = [0.0; 2];
        for j in (0..LINKS).rev() {
            x = self.back_above(j, x);
        }
    }

    /// [`factor`](Self::factor) from both ends: joints above the middle `m` as there,
    /// joints below it from the bottom up (`E_j = A_j − C_{j+1} E_{j+1}⁻¹ C_{j+1}ᵀ`), one
    /// step of each per iteration, and the middle from both.
    fn factor_two_ended(&mut self) {
        for j in 0..LINKS {
            self.block[j] = self.joint_rows(j);
        }
        let m = LINKS / 2;
        for k in 0..LINKS - m {
            if k < m {
                let d = self.eliminate_above(k, self.block[k]);
                self.inverse[k] = inverse(&d);
            }
            let j = LINKS - 1 - k;
            if j > m {
                let e = self.eliminate_below(j, self.block[j]);
                self.inverse[j] = inverse(&e);
            }
        }
        let d = self.eliminate_above(m, self.block[m]);
        let d = self.eliminate_below(m, d);
        self.inverse[m] = inverse(&d);
    }

    /// [`solve`](Self::solve) with the two-ended factor: both halves' forward passes
    /// interleaved towards the middle, then both back substitutions away from it.
    fn solve_two_ended(&mut self) {
        let m = LINKS / 2;
        let (mut above, mut below) = (self.rhs[0], self.rhs[LINKS - 1]);
        for k in 1..LINKS - m {
            if k < m {
                above = self.forward_above(k, above);
            }
            let j = LINKS - 1 - k;
            if j > m {
                below = self.forward_below(j, below);
            }
        }
        let y = minus(self.rhs[m], times(&self.gain[m], above));
        let y = minus(y, times(&self.gain_below[m], below));
        let middle = times(&self.inverse[m], y);
        self.rhs[m] = middle;
        let (mut above, mut below) = (middle, middle);
        for k in 1..=m.max(LINKS - 1 - m) {
            if k <= m {
                above = self.back_above(m - k, above);
            }
            if m + k < LINKS {
                below = self.back_below(m + k, below);
            }
        }
    }

    /// `block − C_jᵀ D_{j−1}⁻¹ C_j`: joint `j`'s block with the joint above it eliminated,
    /// keeping the gain `C_jᵀ D_{j−1}⁻¹` (the first joint has none above it).
    fn eliminate_above(&mut self, j: usize, block: [f64; 4]) -> [f64; 4] {
        if j == 0 {
            return block;
        }
        let g = mul(&transpose(&self.coupling[j]), &self.inverse[j - 1]);
        self.gain[j] = g;
        sub(&block, &mul(&g, &self.coupling[j]))
    }

    /// `block − C_{j+1} E_{j+1}⁻¹ C_{j+1}ᵀ`: the same from the joint below, keeping the
    /// gain `C_{j+1} E_{j+1}⁻¹` (the last joint has none below it).
    fn eliminate_below(&mut self, j: usize, block: [f64; 4]) -> [f64; 4] {
        if j + 1 == LINKS {
            return block;
        }
        let c = self.coupling[j + 1];
        let g = mul(&c, &self.inverse[j + 1]);
        self.gain_below[j] = g;
        sub(&block, &mul(&g, &transpose(&c)))
    }

    /// Forward substitution at joint `j` (`j > 0`) given the joint above it, `y_{j−1}`;
    /// stores and returns `y_j`.
    fn forward_above(&mut self, j: usize, above: [f64; 2]) -> [f64; 2] {
        self.rhs[j] = minus(self.rhs[j], times(&self.gain[j], above));
        self.rhs[j]
    }

    /// Forward substitution at joint `j` (below the middle) given the joint below it.
    fn forward_below(&mut self, j: usize, below: [f64; 2]) -> [f64; 2] {
        self.rhs[j] = minus(self.rhs[j], times(&self.gain_below[j], below));
        self.rhs[j]
    }

    /// Back substitution at joint `j` given the solution of the joint below it (ignored
    /// for the last joint); stores and returns joint `j`'s.
    fn back_above(&mut self, j: usize, below: [f64; 2]) -> [f64; 2] {
        let mut y = self.rhs[j];
        if j + 1 < LINKS {
            y = minus(y, times(&self.coupling[j + 1], below));
        }
        self.rhs[j] = times(&self.inverse[j], y);
        self.rhs[j]
    }

    /// Back substitution at joint `j` (below the middle) given the joint above it.
    fn back_below(&mut self, j: usize, above: [f64; 2]) -> [f64; 2] {
        let y = minus(self.rhs[j], times(&transpose(&self.coupling[j]), above));
        self.rhs[j] = times(&self.inverse[j], y);
        self.rhs[j]
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

/// 2 × 2 blocks, row-major.
fn mul(a: &[f64; 4], b: &[f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
    ]
}

fn transpose(a: &[f64; 4]) -> [f64; 4] {
    [a[0], a[2], a[1], a[3]]
}

fn sub(a: &[f64; 4], b: &[f64; 4]) -> [f64; 4] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]]
}

fn inverse(a: &[f64; 4]) -> [f64; 4] {
    let r = 1.0 / (a[0] * a[3] - a[1] * a[2]);
    [a[3] * r, -a[1] * r, -a[2] * r, a[0] * r]
}

fn minus(x: [f64; 2], y: [f64; 2]) -> [f64; 2] {
    [x[0] - y[0], x[1] - y[1]]
}

fn times(a: &[f64; 4], x: [f64; 2]) -> [f64; 2] {
    [a[0] * x[0] + a[1] * x[1], a[2] * x[0] + a[3] * x[1]]
}

fn exact_floor(c: &mut Criterion) {
    // Both hold the chain together over the 600 steps of the reference scene, so the
    // comparison is between two working solvers.
    let mut space = nape_chain();
    let mut hand = HandChain::new();
    let mut two_ended = HandChain::two_ended();
    let (mut hand_worst, mut two_ended_worst, mut apart) = (0.0f32, 0.0f32, 0.0f32);
    for step in 0..STEPS {
        space.step(DT);
        hand.step();
        two_ended.step();
        hand_worst = hand_worst.max(hand.max_error());
        two_ended_worst = two_ended_worst.max(two_ended.max_error());
        // The same factorisation in another order: the same motion until round-off
        // grows in the swinging chain.
        if step < 60 {
            for (a, b) in hand.links.iter().zip(&two_ended.links) {
                apart = apart.max((a.pose.position - b.pose.position).length());
            }
        }
    }
    assert!(
        hand_worst < 0.02 && two_ended_worst < 0.02,
        "hand-written chain opened {hand_worst} m, two-ended {two_ended_worst} m"
    );
    assert!(
        apart < 1e-3,
        "the two eliminations moved {apart} m apart in 1 s"
    );
    // One iteration is the whole scene from its start, as the peer benchmark times it:
    // stepping one chain on for as long as criterion samples would time a chain spinning
    // ever faster, long after the scene's 10 s.
    let mut group = c.benchmark_group("chain200_3_exact_substeps/600_steps");
    group.sample_size(10);
    whole_scene(&mut group, "nape", nape_chain, |space| space.step(DT));
    whole_scene(&mut group, "hand-written", HandChain::new, HandChain::step);
    whole_scene(
        &mut group,
        "hand-written, two-ended",
        HandChain::two_ended,
        HandChain::step,
    );
    group.finish();
}

/// Times the scene's [`STEPS`] steps of a solver `make` builds (outside the timing).
fn whole_scene<S>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    make: fn() -> S,
    step: fn(&mut S),
) {
    group.bench_function(name, |b| {
        b.iter_batched(
            make,
            |mut solver| {
                for _ in 0..STEPS {
                    step(&mut solver);
                }
                solver
            },
            BatchSize::LargeInput,
        )
    });
}

criterion_group!(benches, exact_floor);
criterion_main!(benches);
