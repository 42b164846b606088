//! The differential test: every generated `#[constraint]` (see `build.rs`) has compiled;
//! here its `c`, `J` (read through the trait, as the solver reads it) and `K` (with shared
//! slots) are compared with an independent `f64` evaluation of the same expression, whose
//! derivatives are computed forward (dual numbers) from their own rules, on random states.
//! The same declaration compiled at run time (`nape::symbolic::SymbolicConstraint`) is
//! compared with both.
//!
//! States where the expression is ill-conditioned (within rounding of a kink, a branch
//! cut, the origin of `atan2` or `normalize`, the domain edge of `asin` or `ln`) are not
//! compared, since `f32` and `f64` may fall on different sides there; they are counted, and
//! they must be few. No output may be NaN in any state.

use nape::inspect::{dense_jacobian, effective_mass};
use nape::symbolic::SymbolicConstraint;
use nape::{Body, BodyHandle, Constraint, InverseMass, Pose, Space, Vec2, constraint};
use std::f32::consts::PI;

/// A constant of this crate that the generated expressions name as `crate::DIFF_GAIN`.
pub const DIFF_GAIN: f32 = 0.75;

/// Poses and masses of one state, and which body each slot holds.
pub struct State {
    poses: Vec<Pose>,
    masses: Vec<InverseMass>,
    slot_bodies: Vec<usize>,
}

/// What the generated code computes at a state.
pub struct Outputs {
    c: Vec<f32>,
    j: Vec<Vec<f32>>,
    k: Vec<Vec<f32>>,
    valid: bool,
}

/// One generated constraint.
pub struct Case {
    name: &'static str,
    source: &'static str,
    program: &'static str,
    bodies: usize,
    scalars: usize,
    vectors: usize,
    run: fn(&[BodyHandle], &[f32], &[Vec2], &State) -> Outputs,
    /// The same declaration compiled at run time, on the same arguments.
    runtime: fn(&[BodyHandle], &[f32], &[Vec2], &State) -> Outputs,
}

fn outputs<T: Constraint<D, B>, const D: usize, const B: usize>(c: &T, state: &State) -> Outputs {
    let poses: [Pose; B] = std::array::from_fn(|s| state.poses[s]);
    let masses: [InverseMass; B] = std::array::from_fn(|s| state.masses[s]);
    let slot_bodies: [usize; B] = std::array::from_fn(|s| state.slot_bodies[s]);
    Outputs {
        c: c.position_error(&poses).to_vec(),
        j: dense_jacobian(c, &poses),
        k: effective_mass(c, &poses, &masses, &slot_bodies),
        valid: c.validate().is_ok(),
    }
}

/// What a [`SymbolicConstraint`] compiled from `declaration` computes at a state, its
/// bodies `body0`, … and parameters `p0`, …, `v0`, … set by name.
fn runtime<const D: usize, const B: usize>(
    declaration: &str,
    handles: &[BodyHandle],
    scalars: &[f32],
    vectors: &[Vec2],
    state: &State,
) -> Outputs {
    let mut constraint = SymbolicConstraint::<D, B>::new(declaration)
        .unwrap_or_else(|e| panic!("{e}\n{declaration}"));
    for (s, &handle) in handles.iter().enumerate() {
        constraint.set_body(&format!("body{s}"), handle).unwrap();
    }
    for (k, &value) in scalars.iter().enumerate() {
        constraint.set_scalar(&format!("p{k}"), value).unwrap();
    }
    for (k, &value) in vectors.iter().enumerate() {
        constraint.set_vector(&format!("v{k}"), value).unwrap();
    }
    outputs(&constraint, state)
}

include!(concat!(env!("OUT_DIR"), "/cases.rs"));

// ---------------------------------------------------------------------------------------
// The independent evaluator.

/// A parsed prefix program: a number or `(op args...)`.
#[derive(Debug)]
enum Program {
    Number(f64),
    Apply(String, Vec<Program>),
}

fn parse(text: &str) -> Vec<Program> {
    let tokens: Vec<String> = text
        .replace('(', " ( ")
        .replace(')', " ) ")
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let mut position = 0;
    let mut out = Vec::new();
    while position < tokens.len() {
        out.push(parse_one(&tokens, &mut position));
    }
    out
}

fn parse_one(tokens: &[String], position: &mut usize) -> Program {
    let token = &tokens[*position];
    *position += 1;
    if token != "(" {
        return Program::Number(token.parse().unwrap_or_else(|_| panic!("number: {token}")));
    }
    let op = tokens[*position].clone();
    *position += 1;
    let mut args = Vec::new();
    while tokens[*position] != ")" {
        args.push(parse_one(tokens, position));
    }
    *position += 1;
    Program::Apply(op, args)
}

/// A value and its gradient over the `3·B` pose coordinates.
#[derive(Clone, Debug)]
struct Dual {
    v: f64,
    g: Vec<f64>,
}

impl Dual {
    fn constant(v: f64, n: usize) -> Self {
        Self { v, g: vec![0.0; n] }
    }
    fn map(&self, v: f64, slope: f64) -> Self {
        Self {
            v,
            g: self.g.iter().map(|d| d * slope).collect(),
        }
    }
    fn add(&self, o: &Self) -> Self {
        Self {
            v: self.v + o.v,
            g: self.g.iter().zip(&o.g).map(|(a, b)| a + b).collect(),
        }
    }
    fn sub(&self, o: &Self) -> Self {
        self.add(&o.neg())
    }
    fn neg(&self) -> Self {
        self.map(-self.v, -1.0)
    }
    fn mul(&self, o: &Self) -> Self {
        Self {
            v: self.v * o.v,
            g: self
                .g
                .iter()
                .zip(&o.g)
                .map(|(a, b)| a * o.v + self.v * b)
                .collect(),
        }
    }
    /// `1/a`, or 0 (value and slope) where `|a| ≤ 1e-6`: the macro's guarded reciprocal.
    fn safe_recip(&self) -> Self {
        if self.v.abs() > 1e-6 {
            self.map(1.0 / self.v, -1.0 / (self.v * self.v))
        } else {
            self.map(0.0, 0.0)
        }
    }
    fn sqrt(&self) -> Self {
        let root = self.v.sqrt();
        self.map(root, if root > 1e-6 { 0.5 / root } else { 0.0 })
    }
}

#[derive(Clone, Debug)]
enum Value {
    S(Dual),
    V(Dual, Dual),
}

impl Value {
    fn s(self) -> Dual {
        match self {
            Value::S(d) => d,
            Value::V(..) => panic!("expected a scalar"),
        }
    }
    fn v(self) -> (Dual, Dual) {
        match self {
            Value::V(x, y) => (x, y),
            Value::S(_) => panic!("expected a vector"),
        }
    }
}

/// The state the evaluator reads, and what it observes about conditioning.
struct Evaluator<'a> {
    scalars: &'a [f64],
    vectors: &'a [(f64, f64)],
    poses: &'a [(f64, f64, f64)],
    n: usize,
    /// Largest magnitude of any value and any derivative met.
    value_scale: f64,
    slope_scale: f64,
    /// Whether rounding could put `f32` and `f64` on different sides of a switch.
    ill_conditioned: bool,
}

impl Evaluator<'_> {
    fn near(&mut self, distance: f64, threshold: f64) {
        if distance.abs() < threshold * (1.0 + self.value_scale) {
            self.ill_conditioned = true;
        }
    }

    fn pose(&self, s: usize, k: usize, v: f64) -> Dual {
        let mut d = Dual::constant(v, self.n);
        d.g[3 * s + k] = 1.0;
        d
    }

    fn rotate(&mut self, s: usize, (x, y): (Dual, Dual)) -> (Dual, Dual) {
        let theta = self.pose(s, 2, self.poses[s].2);
        let (c, sn) = (
            theta.map(theta.v.cos(), -theta.v.sin()),
            theta.map(theta.v.sin(), theta.v.cos()),
        );
        (c.mul(&x).sub(&sn.mul(&y)), sn.mul(&x).add(&c.mul(&y)))
    }

    fn length(&mut self, x: &Dual, y: &Dual) -> Dual {
        let squared = x.mul(x).add(&y.mul(y));
        self.near(squared.v.sqrt(), 0.05);
        squared.sqrt()
    }

    fn min_max(&mut self, a: Dual, b: Dual, max: bool) -> Dual {
        self.near(a.v - b.v, 1e-3);
        let take_a = if a.v == b.v {
            0.5
        } else if (a.v > b.v) == max {
            1.0
        } else {
            0.0
        };
        let v = if max { a.v.max(b.v) } else { a.v.min(b.v) };
        Dual {
            v,
            g: a.g
                .iter()
                .zip(&b.g)
                .map(|(da, db)| take_a * da + (1.0 - take_a) * db)
                .collect(),
        }
    }

    fn scalar(&mut self, p: &Program) -> Dual {
        self.eval(p).s()
    }

    fn vector(&mut self, p: &Program) -> (Dual, Dual) {
        self.eval(p).v()
    }

    #[allow(clippy::too_many_lines)]
    fn eval(&mut self, program: &Program) -> Value {
        let (op, args) = match program {
            Program::Number(v) => return Value::S(Dual::constant(*v, self.n)),
            Program::Apply(op, args) => (op.as_str(), args),
        };
        let index = |k: usize| match &args[k] {
            Program::Number(v) => *v as usize,
            Program::Apply(..) => panic!("index expected"),
        };
        let value = match op {
            "sp" => Value::S(Dual::constant(self.scalars[index(0)], self.n)),
            "vp" => {
                let (x, y) = self.vectors[index(0)];
                Value::V(Dual::constant(x, self.n), Dual::constant(y, self.n))
            }
            "pos" => {
                let s = index(0);
                Value::V(
                    self.pose(s, 0, self.poses[s].0),
                    self.pose(s, 1, self.poses[s].1),
                )
            }
            "ang" => {
                let s = index(0);
                Value::S(self.pose(s, 2, self.poses[s].2))
            }
            "add" | "sub" | "mul" | "div" | "min" | "max" | "hypot" | "atan2" => {
                let (a, b) = (self.scalar(&args[0]), self.scalar(&args[1]));
                Value::S(match op {
                    "add" => a.add(&b),
                    "sub" => a.sub(&b),
                    "mul" => a.mul(&b),
                    "div" => {
                        self.near(b.v, 0.05);
                        a.mul(&b.map(1.0 / b.v, -1.0 / (b.v * b.v)))
                    }
                    "min" => self.min_max(a, b, false),
                    "max" => self.min_max(a, b, true),
                    "hypot" => self.length(&a, &b),
                    _ => {
                        let (y, x) = (a, b);
                        let r2 = x.v * x.v + y.v * y.v;
                        self.near(r2.sqrt(), 0.05);
                        if x.v < 0.0 {
                            self.near(y.v, 1e-3);
                        }
                        let inverse = if r2.sqrt() > 1e-6 { 1.0 / r2 } else { 0.0 };
                        Dual {
                            v: y.v.atan2(x.v),
                            g: y.g
                                .iter()
                                .zip(&x.g)
                                .map(|(dy, dx)| (x.v * dy - y.v * dx) * inverse)
                                .collect(),
                        }
                    }
                })
            }
            "clamp" => {
                let (x, low, high) = (
                    self.scalar(&args[0]),
                    self.scalar(&args[1]),
                    self.scalar(&args[2]),
                );
                let raised = self.min_max(x, low, true);
                Value::S(self.min_max(raised, high, false))
            }
            "neg" | "sin" | "cos" | "tan" | "exp" | "ln" | "sqrt" | "recip" | "asin" | "acos"
            | "abs" => {
                let a = self.scalar(&args[0]);
                let x = a.v;
                Value::S(match op {
                    "neg" => a.neg(),
                    "sin" => a.map(x.sin(), x.cos()),
                    "cos" => a.map(x.cos(), -x.sin()),
                    "tan" => {
                        self.near(x.cos(), 0.1);
                        a.map(x.tan(), 1.0 + x.tan() * x.tan())
                    }
                    "exp" => a.map(x.exp(), x.exp()),
                    "ln" => {
                        if x > -0.01 {
                            self.near(x, 0.05);
                        }
                        let value = x.max(f64::from(f32::MIN_POSITIVE)).ln();
                        a.map(value, if x > 1e-6 { 1.0 / x } else { 0.0 })
                    }
                    "sqrt" => {
                        self.near(x, 0.01);
                        a.sqrt()
                    }
                    "recip" => {
                        self.near(x, 0.05);
                        a.map(1.0 / x, -1.0 / (x * x))
                    }
                    "asin" | "acos" => {
                        self.near(x.abs() - 1.0, 0.02);
                        let clamped = x.clamp(-1.0, 1.0);
                        let root = (1.0 - x * x).max(0.0).sqrt();
                        let slope = if root > 1e-6 { 1.0 / root } else { 0.0 };
                        if op == "asin" {
                            a.map(clamped.asin(), slope)
                        } else {
                            a.map(clamped.acos(), -slope)
                        }
                    }
                    _ => {
                        self.near(x, 1e-3);
                        let sign = if x > 0.0 {
                            1.0
                        } else if x < 0.0 {
                            -1.0
                        } else {
                            0.0
                        };
                        a.map(x.abs(), sign)
                    }
                })
            }
            "vx" => Value::S(self.vector(&args[0]).0),
            "vy" => Value::S(self.vector(&args[0]).1),
            "vnew" => Value::V(self.scalar(&args[0]), self.scalar(&args[1])),
            "vadd" | "vsub" | "dot" | "pdot" | "dist" => {
                let ((ax, ay), (bx, by)) = (self.vector(&args[0]), self.vector(&args[1]));
                match op {
                    "vadd" => Value::V(ax.add(&bx), ay.add(&by)),
                    "vsub" => Value::V(ax.sub(&bx), ay.sub(&by)),
                    "dot" => Value::S(ax.mul(&bx).add(&ay.mul(&by))),
                    "pdot" => Value::S(ax.mul(&by).sub(&ay.mul(&bx))),
                    _ => {
                        let (dx, dy) = (ax.sub(&bx), ay.sub(&by));
                        Value::S(self.length(&dx, &dy))
                    }
                }
            }
            "vscale" => {
                let s = self.scalar(&args[0]);
                let (x, y) = self.vector(&args[1]);
                Value::V(s.mul(&x), s.mul(&y))
            }
            "vneg" => {
                let (x, y) = self.vector(&args[0]);
                Value::V(x.neg(), y.neg())
            }
            "perp" => {
                let (x, y) = self.vector(&args[0]);
                Value::V(y.neg(), x)
            }
            "len" | "len2" | "normalize" => {
                let (x, y) = self.vector(&args[0]);
                match op {
                    "len2" => Value::S(x.mul(&x).add(&y.mul(&y))),
                    "len" => Value::S(self.length(&x, &y)),
                    _ => {
                        let inverse = self.length(&x, &y).safe_recip();
                        Value::V(x.mul(&inverse), y.mul(&inverse))
                    }
                }
            }
            "rotate" | "wpoint" => {
                let s = index(0);
                let v = self.vector(&args[1]);
                let (rx, ry) = self.rotate(s, v);
                if op == "rotate" {
                    Value::V(rx, ry)
                } else {
                    let (px, py) = (
                        self.pose(s, 0, self.poses[s].0),
                        self.pose(s, 1, self.poses[s].1),
                    );
                    Value::V(px.add(&rx), py.add(&ry))
                }
            }
            other => panic!("unknown op {other}"),
        };
        let (values, slopes): (Vec<f64>, Vec<f64>) = match &value {
            Value::S(d) => (vec![d.v], d.g.clone()),
            Value::V(x, y) => (vec![x.v, y.v], x.g.iter().chain(&y.g).copied().collect()),
        };
        for v in values {
            self.value_scale = self.value_scale.max(v.abs());
        }
        for g in slopes {
            self.slope_scale = self.slope_scale.max(g.abs());
        }
        value
    }
}

/// `c` and `J` (rows of `3·B` columns) of a program, in `f64`, and the evaluator's notes.
fn evaluate(program: &[Program], evaluator: &mut Evaluator<'_>) -> (Vec<f64>, Vec<Vec<f64>>) {
    let (mut c, mut j) = (Vec::new(), Vec::new());
    for row in program {
        let Program::Apply(kind, args) = row else {
            panic!("a row")
        };
        if kind == "row" {
            let d = evaluator.scalar(&args[0]);
            c.push(d.v);
            j.push(d.g);
        } else {
            let (x, y) = evaluator.vector(&args[0]);
            c.extend([x.v, y.v]);
            j.extend([x.g, y.g]);
        }
    }
    (c, j)
}

/// `J M⁻¹ Jᵀ` with the columns of slots that hold one body summed.
fn numeric_k(j: &[Vec<f64>], masses: &[InverseMass], slot_bodies: &[usize]) -> Vec<Vec<f64>> {
    let d = j.len();
    let mut merged: Vec<(usize, InverseMass, Vec<[f64; 3]>)> = Vec::new();
    for (s, &body) in slot_bodies.iter().enumerate() {
        let columns: Vec<[f64; 3]> = j
            .iter()
            .map(|row| [row[3 * s], row[3 * s + 1], row[3 * s + 2]])
            .collect();
        match merged.iter_mut().find(|(b, _, _)| *b == body) {
            Some((_, _, m)) => m
                .iter_mut()
                .zip(&columns)
                .for_each(|(a, c)| (0..3).for_each(|k| a[k] += c[k])),
            None => merged.push((body, masses[s], columns)),
        }
    }
    (0..d)
        .map(|a| {
            (0..d)
                .map(|b| {
                    merged
                        .iter()
                        .map(|(_, m, cols)| {
                            f64::from(m.mass) * (cols[a][0] * cols[b][0] + cols[a][1] * cols[b][1])
                                + f64::from(m.inertia) * cols[a][2] * cols[b][2]
                        })
                        .sum()
                })
                .collect()
        })
        .collect()
}

struct Rng(u64);

impl Rng {
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        lo + (hi - lo) * ((self.0 >> 40) as f32 / (1u64 << 24) as f32)
    }
}

const STATES_PER_CASE: usize = 6;

/// Asserts that each generated value is within `relative · scale` of the `f64` one,
/// raising `worst` to the largest error relative to `scale`; `describe(index, expected,
/// got)` explains a failure.
fn compare(
    expected: &[f64],
    got: &[f32],
    (relative, scale): (f64, f64),
    worst: &mut f64,
    describe: impl Fn(usize, f64, f32) -> String,
) {
    for (index, (&e, &g)) in expected.iter().zip(got).enumerate() {
        let error = (e - f64::from(g)).abs();
        *worst = worst.max(error / scale);
        assert!(error <= relative * scale, "{}", describe(index, e, g));
    }
}

/// [`compare`] row by row, a failure naming the entry `name[i][column]` and showing both
/// matrices.
fn compare_matrix(
    name: &str,
    expected: &[Vec<f64>],
    got: &[Vec<f32>],
    tolerance: (f64, f64),
    worst: &mut f64,
    context: &impl Fn() -> String,
) {
    for (i, (expected_row, got_row)) in expected.iter().zip(got).enumerate() {
        compare(expected_row, got_row, tolerance, worst, |column, e, g| {
            format!(
                "{name}[{i}][{column}]: {g} vs {e}\n{name} = {got:?}\nf64 {name} = {expected:?}\n{}",
                context()
            )
        });
    }
}

#[test]
fn generated_constraints_match_an_independent_evaluation() {
    let mut space = Space::new();
    let handles: Vec<BodyHandle> = (0..3)
        .map(|_| space.add_body(Body::dynamic(1.0, 1.0)).unwrap())
        .collect();
    let mut rng = Rng(0x5eed_d1ff);
    let (mut compared, mut skipped, mut shared, mut rows) = (0usize, 0usize, 0usize, 0usize);
    // Per path (the macro's, then the runtime's): c, J, K against f64; and the paths apart.
    let mut worst = [[0.0f64; 3]; 2];
    let mut apart = [0.0f64; 3];
    for case in CASES {
        let program = parse(case.program);
        let scalars: Vec<f32> = (0..case.scalars).map(|_| rng.range(-2.0, 2.0)).collect();
        let vectors: Vec<Vec2> = (0..case.vectors)
            .map(|_| Vec2::new(rng.range(-1.5, 1.5), rng.range(-1.5, 1.5)))
            .collect();
        for index in 0..STATES_PER_CASE {
            let b = case.bodies;
            let mut poses: Vec<Pose> = (0..b)
                .map(|_| {
                    Pose::new(
                        Vec2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)),
                        f64::from(rng.range(-PI, PI)),
                    )
                })
                .collect();
            let mut masses: Vec<InverseMass> = (0..b)
                .map(|_| InverseMass {
                    mass: rng.range(0.1, 2.0),
                    inertia: rng.range(0.1, 2.0),
                })
                .collect();
            let mut slot_bodies: Vec<usize> = (0..b).collect();
            // Half the states of a multi-slot constraint hold one body in the first and last slot.
            if b >= 2 && index % 2 == 1 {
                poses[b - 1] = poses[0];
                masses[b - 1] = masses[0];
                slot_bodies[b - 1] = 0;
                shared += 1;
            }
            let state = State {
                poses,
                masses,
                slot_bodies,
            };
            let macro_outputs = (case.run)(&handles[..b], &scalars, &vectors, &state);
            let runtime_outputs = (case.runtime)(&handles[..b], &scalars, &vectors, &state);
            let paths = [("macro", &macro_outputs), ("runtime", &runtime_outputs)];
            let context = || {
                format!(
                    "{}: {}\nstate: {:?}\nparameters: {scalars:?} {vectors:?}",
                    case.name, case.source, state.poses
                )
            };
            for (path, generated) in paths {
                assert!(
                    generated.valid,
                    "{path}: validation rejected finite parameters\n{}",
                    context()
                );
                let finite = generated
                    .c
                    .iter()
                    .chain(generated.j.iter().flatten())
                    .chain(generated.k.iter().flatten())
                    .all(|v| v.is_finite());
                assert!(
                    finite,
                    "{path}: NaN or infinity: c = {:?}, J = {:?}, K = {:?}\n{}",
                    generated.c,
                    generated.j,
                    generated.k,
                    context()
                );
            }

            let scalars64: Vec<f64> = scalars.iter().map(|&v| f64::from(v)).collect();
            let vectors64: Vec<(f64, f64)> = vectors
                .iter()
                .map(|v| (f64::from(v.x), f64::from(v.y)))
                .collect();
            let poses64: Vec<(f64, f64, f64)> = state
                .poses
                .iter()
                .map(|p| {
                    (
                        f64::from(p.position.x),
                        f64::from(p.position.y),
                        p.total_angle(),
                    )
                })
                .collect();
            let mut evaluator = Evaluator {
                scalars: &scalars64,
                vectors: &vectors64,
                poses: &poses64,
                n: 3 * b,
                value_scale: 0.0,
                slope_scale: 0.0,
                ill_conditioned: false,
            };
            let (c, j) = evaluate(&program, &mut evaluator);
            assert_eq!(c.len(), macro_outputs.c.len(), "row count\n{}", context());
            rows += c.len();
            if evaluator.ill_conditioned {
                skipped += 1;
                continue;
            }
            compared += 1;
            let value_scale = 1.0 + evaluator.value_scale;
            let slope_scale = 1.0 + evaluator.slope_scale + evaluator.value_scale;
            let k = numeric_k(&j, &state.masses, &state.slot_bodies);
            let k_scale = 1.0 + 2.0 * slope_scale * slope_scale;
            for ((path, generated), worst) in paths.into_iter().zip(&mut worst) {
                let [worst_c, worst_j, worst_k] = worst;
                compare(&c, &generated.c, (1e-5, value_scale), worst_c, |i, e, g| {
                    format!("{path} c{i}: {g} vs {e}\n{}", context())
                });
                compare_matrix(
                    &format!("{path} J"),
                    &j,
                    &generated.j,
                    (2e-5, slope_scale),
                    worst_j,
                    &context,
                );
                compare_matrix(
                    &format!("{path} K"),
                    &k,
                    &generated.k,
                    (2e-5, k_scale),
                    worst_k,
                    &context,
                );
            }
            // The two paths evaluate one derivation in `f32`: they differ by rounding only.
            let as_f64 = |values: &[f32]| values.iter().map(|&v| f64::from(v)).collect();
            let macro_j: Vec<Vec<f64>> = macro_outputs.j.iter().map(|r| as_f64(r)).collect();
            let macro_k: Vec<Vec<f64>> = macro_outputs.k.iter().map(|r| as_f64(r)).collect();
            compare(
                &as_f64(&macro_outputs.c),
                &runtime_outputs.c,
                (1e-6, value_scale),
                &mut apart[0],
                |i, e, g| format!("runtime c{i}: {g} vs the macro's {e}\n{}", context()),
            );
            compare_matrix(
                "runtime J against the macro's",
                &macro_j,
                &runtime_outputs.j,
                (1e-6, slope_scale),
                &mut apart[1],
                &context,
            );
            compare_matrix(
                "runtime K against the macro's",
                &macro_k,
                &runtime_outputs.k,
                (1e-6, k_scale),
                &mut apart[2],
                &context,
            );
        }
    }
    let [
        [c_macro, j_macro, k_macro],
        [c_runtime, j_runtime, k_runtime],
    ] = worst;
    println!(
        "{} expressions ({rows} rows over all states), {compared} states compared, {skipped} ill-conditioned states skipped, {shared} with shared slots; worst relative error of the macro: c {c_macro:.2e}, J {j_macro:.2e}, K {k_macro:.2e}; compiled at run time: c {c_runtime:.2e}, J {j_runtime:.2e}, K {k_runtime:.2e}; the two apart: c {:.2e}, J {:.2e}, K {:.2e}",
        CASES.len(),
        apart[0],
        apart[1],
        apart[2],
    );
    assert!(
        compared * 10 >= (compared + skipped) * 7,
        "too many states skipped: {skipped} of {}",
        compared + skipped
    );
}
