//! Derivative rules against central finite differences, CSE and determinism.

use super::*;

/// A small deterministic generator, so the tests need no dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// Values for every leaf; `angle` overrides slot 0's angle (and its cos/sin).
fn leaf_values(seed: &[f64; 6], angle0: f64) -> impl Fn(Leaf) -> f64 + '_ {
    move |leaf| match leaf {
        Leaf::Pose(0, Dof::X) => seed[0],
        Leaf::Pose(0, Dof::Y) => seed[1],
        Leaf::Pose(0, Dof::Angle) => angle0,
        Leaf::Cos(0) => angle0.cos(),
        Leaf::Sin(0) => angle0.sin(),
        Leaf::Scalar(0) => seed[3],
        Leaf::Scalar(1) => seed[4],
        _ => seed[5],
    }
}

/// Builds `f` over x = Pose(0, X) and θ = Pose(0, Angle), then checks ∂f/∂x and ∂f/∂θ
/// against central differences at random points.
fn check_rule(build: impl Fn(&mut Graph, Id, Id) -> Id) {
    let mut rng = Lcg(0x5eed);
    for _ in 0..200 {
        let mut g = Graph::new();
        let x = g.leaf(Leaf::Pose(0, Dof::X));
        let theta = g.leaf(Leaf::Pose(0, Dof::Angle));
        let f = build(&mut g, x, theta);
        let dx = derivative(&mut g, f, Leaf::Pose(0, Dof::X));
        let dtheta = derivative(&mut g, f, Leaf::Pose(0, Dof::Angle));
        let seed = [
            rng.next() * 3.0,
            rng.next(),
            0.0,
            rng.next() + 2.0,
            rng.next(),
            rng.next(),
        ];
        let angle = rng.next() * std::f64::consts::PI;
        let h = 1e-6;
        let at = |s: &[f64; 6], a: f64| evaluate(&g, f, &leaf_values(s, a));
        let mut plus = seed;
        plus[0] += h;
        let mut minus = seed;
        minus[0] -= h;
        let numeric_dx = (at(&plus, angle) - at(&minus, angle)) / (2.0 * h);
        let numeric_dtheta = (at(&seed, angle + h) - at(&seed, angle - h)) / (2.0 * h);
        let symbolic_dx = evaluate(&g, dx, &leaf_values(&seed, angle));
        let symbolic_dtheta = evaluate(&g, dtheta, &leaf_values(&seed, angle));
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-5 * (1.0 + a.abs().max(b.abs()));
        assert!(
            close(numeric_dx, symbolic_dx),
            "d/dx: {numeric_dx} vs {symbolic_dx}"
        );
        assert!(
            close(numeric_dtheta, symbolic_dtheta),
            "d/dθ: {numeric_dtheta} vs {symbolic_dtheta}"
        );
    }
}

#[test]
fn sum_rule() {
    check_rule(|g, x, t| g.add(x, t));
}

#[test]
fn difference_rule() {
    check_rule(|g, x, t| g.sub(t, x));
}

#[test]
fn product_rule() {
    check_rule(|g, x, t| {
        let p = g.leaf(Leaf::Scalar(0));
        let xp = g.mul(x, p);
        g.mul(xp, t)
    });
}

#[test]
fn quotient_rule() {
    check_rule(|g, x, t| {
        // p ∈ [1, 3] and |θ| ≤ π: the denominator p + θ + 4 stays positive.
        let p = g.leaf(Leaf::Scalar(0));
        let four = g.constant(4.0);
        let numerator = g.mul(x, t);
        let shifted = g.add(p, t);
        let denominator = g.add(shifted, four);
        g.div(numerator, denominator)
    });
}

#[test]
fn square_root_rule() {
    check_rule(|g, x, t| {
        let xx = g.mul(x, x);
        let tt = g.mul(t, t);
        let one = g.constant(1.0);
        let sum = g.add(xx, tt);
        let sum = g.add(sum, one);
        g.sqrt(sum)
    });
}

#[test]
fn sine_and_cosine_rules() {
    check_rule(|g, x, t| {
        let product = g.mul(x, t);
        let s = g.sin(product);
        let c = g.cos(x);
        g.add(s, c)
    });
}

#[test]
fn cached_rotation_rules() {
    // cos θ and sin θ of a body angle become cached leaves and still differentiate.
    check_rule(|g, x, t| {
        let c = g.cos(t);
        let s = g.sin(t);
        let xc = g.mul(x, c);
        let ss = g.mul(s, s);
        g.sub(xc, ss)
    });
}

#[test]
fn rotated_vector_length_rule() {
    // |R(θ)a + (x, 0)|, the shape of every anchor distance.
    check_rule(|g, x, t| {
        let ax = g.leaf(Leaf::Scalar(0));
        let ay = g.leaf(Leaf::Scalar(1));
        let (c, s) = (g.cos(t), g.sin(t));
        let cax = g.mul(c, ax);
        let say = g.mul(s, ay);
        let sax = g.mul(s, ax);
        let cay = g.mul(c, ay);
        let rx = g.sub(cax, say);
        let ry = g.add(sax, cay);
        let dx = g.add(rx, x);
        let dx2 = g.mul(dx, dx);
        let ry2 = g.mul(ry, ry);
        let sum = g.add(dx2, ry2);
        g.sqrt(sum)
    });
}

#[test]
fn derivative_of_an_unrelated_leaf_is_zero() {
    let mut g = Graph::new();
    let x = g.leaf(Leaf::Pose(0, Dof::X));
    let other = g.leaf(Leaf::Pose(1, Dof::X));
    let p = g.mul(x, x);
    let d = derivative(&mut g, p, Leaf::Pose(1, Dof::X));
    assert!(g.is_const(d, 0.0));
    let d = derivative(&mut g, other, Leaf::Pose(1, Dof::X));
    assert!(g.is_const(d, 1.0));
    let c = g.leaf(Leaf::Cos(0));
    let d = derivative(&mut g, c, Leaf::Pose(1, Dof::Angle));
    assert!(g.is_const(d, 0.0), "cos θ₀ does not depend on θ₁");
}

#[test]
fn derivative_of_a_length_at_zero_is_finite() {
    let mut g = Graph::new();
    let x = g.leaf(Leaf::Pose(0, Dof::X));
    let xx = g.mul(x, x);
    let length = g.sqrt(xx);
    let d = derivative(&mut g, length, Leaf::Pose(0, Dof::X));
    let value = evaluate(&g, d, &|_| 0.0);
    assert!(value.is_finite());
    assert_eq!(value, 0.0);
}

#[test]
fn cse_binds_shared_subexpressions_once() {
    let mut g = Graph::new();
    let x = g.leaf(Leaf::Pose(0, Dof::X));
    let y = g.leaf(Leaf::Pose(0, Dof::Y));
    let sum = g.add(x, y);
    let square = g.mul(sum, sum);
    let root = g.sqrt(square);
    let other = g.mul(square, x);
    let schedule = Schedule::plan(&g, &[root, other]);
    assert_eq!(
        schedule.bindings,
        vec![sum, square],
        "square reads sum twice; two outputs read square"
    );
    assert!(schedule.is_bound(square));
    assert!(!schedule.is_bound(x), "leaves stay inline");
    assert!(!schedule.is_bound(root));
    let shared_root = Schedule::plan(&g, &[root, root]);
    assert!(shared_root.is_bound(root), "an output used twice is bound");
}

#[test]
fn construction_is_deterministic() {
    let build = || {
        let mut g = Graph::new();
        let x = g.leaf(Leaf::Pose(0, Dof::X));
        let t = g.leaf(Leaf::Pose(0, Dof::Angle));
        let c = g.cos(t);
        let p = g.mul(x, c);
        let s = g.sqrt(p);
        let d = derivative(&mut g, s, Leaf::Pose(0, Dof::Angle));
        let name = |leaf: Leaf| format!("{leaf:?}");
        (
            g.len(),
            to_infix(&g, d, &name),
            Schedule::plan(&g, &[d]).bindings,
        )
    };
    assert_eq!(build(), build());
}

#[test]
fn printing_reads_as_mathematics() {
    let mut g = Graph::new();
    let x = g.leaf(Leaf::Pose(0, Dof::X));
    let y = g.leaf(Leaf::Pose(0, Dof::Y));
    let p = g.leaf(Leaf::Scalar(0));
    let d = g.sub(x, y);
    let q = g.div(d, p);
    let name = |leaf: Leaf| match leaf {
        Leaf::Pose(0, Dof::X) => "x".to_owned(),
        Leaf::Pose(0, Dof::Y) => "y".to_owned(),
        _ => "p".to_owned(),
    };
    assert_eq!(to_infix(&g, q, &name), "(x - y) / p");
    let n = g.neg(q);
    let s = g.add(n, p);
    assert_eq!(to_infix(&g, s, &name), "p - (x - y) / p");
}

#[test]
fn tangent_and_exponential_rules() {
    check_rule(|g, x, t| {
        // |0.3·sin θ| < π/2: away from the tangent's poles.
        let s = g.sin(t);
        let small = g.constant(0.3);
        let argument = g.mul(small, s);
        let tangent = g.tan(argument);
        let tenth = g.constant(0.1);
        let scaled = g.mul(tenth, x);
        let exponential = g.exp(scaled);
        g.mul(tangent, exponential)
    });
}

#[test]
fn logarithm_rule() {
    check_rule(|g, x, t| {
        let xx = g.mul(x, x);
        let half = g.constant(0.5);
        let positive = g.add(xx, half);
        let product = g.mul(positive, t);
        let logarithm = g.ln(positive);
        g.add(logarithm, product)
    });
}

#[test]
fn inverse_sine_and_cosine_rules() {
    check_rule(|g, x, t| {
        // 0.9·sin(x·θ) stays inside (−1, 1).
        let product = g.mul(x, t);
        let s = g.sin(product);
        let factor = g.constant(0.9);
        let argument = g.mul(factor, s);
        let arcsine = g.asin(argument);
        let c = g.cos(t);
        let other = g.mul(factor, c);
        let arccosine = g.acos(other);
        g.add(arcsine, arccosine)
    });
}

#[test]
fn two_argument_arctangent_rule() {
    check_rule(|g, x, t| {
        // The vector (x, sin θ + 2) never reaches the origin or the negative x axis.
        let s = g.sin(t);
        let two = g.constant(2.0);
        let y = g.add(s, two);
        g.atan2(x, y)
    });
}

#[test]
fn absolute_value_minimum_maximum_and_clamp_rules() {
    check_rule(|g, x, t| {
        let p = g.leaf(Leaf::Scalar(1));
        let shifted = g.sub(x, p);
        let absolute = g.abs(shifted);
        let smaller = g.min(x, t);
        let larger = g.max(t, p);
        let (low, high) = (g.constant(-1.0), g.constant(1.5));
        let raised = g.max(x, low);
        let clamped = g.min(raised, high);
        let sum = g.add(absolute, smaller);
        let sum = g.add(sum, larger);
        g.add(sum, clamped)
    });
}

/// `∂f/∂x` of `build(x)` at `x = at`, evaluated.
fn slope_at(build: impl Fn(&mut Graph, Id) -> Id, at: f64) -> (f64, f64) {
    let mut g = Graph::new();
    let x = g.leaf(Leaf::Pose(0, Dof::X));
    let f = build(&mut g, x);
    let df = derivative(&mut g, f, Leaf::Pose(0, Dof::X));
    let values = |leaf: Leaf| match leaf {
        Leaf::Pose(0, Dof::X) => at,
        _ => 0.0,
    };
    (evaluate(&g, f, &values), evaluate(&g, df, &values))
}

#[test]
fn non_smooth_points_have_the_documented_values_and_derivatives() {
    // |x| at 0: value 0, derivative 0 (the row does nothing).
    assert_eq!(slope_at(|g, x| g.abs(x), 0.0), (0.0, 0.0));
    assert_eq!(slope_at(|g, x| g.abs(x), -2.0), (2.0, -1.0));
    // min and max at a tie: the mean of both sides' derivatives.
    let tie = |g: &mut Graph, x: Id| {
        let three = g.constant(3.0);
        let three_x = g.mul(three, x);
        g.min(x, three_x)
    };
    assert_eq!(slope_at(tie, 0.0), (0.0, 2.0));
    assert_eq!(slope_at(tie, 1.0), (1.0, 1.0));
    assert_eq!(slope_at(tie, -1.0), (-3.0, 3.0));
    let tie_max = |g: &mut Graph, x: Id| {
        let zero = g.constant(0.0);
        g.max(x, zero)
    };
    assert_eq!(slope_at(tie_max, 0.0), (0.0, 0.5));
    // clamp at a bound: half the slope (a tie of the max or min inside it).
    let clamp = |g: &mut Graph, x: Id| {
        let (low, high) = (g.constant(-1.0), g.constant(1.0));
        let raised = g.max(x, low);
        g.min(raised, high)
    };
    assert_eq!(slope_at(clamp, 1.0), (1.0, 0.5));
    assert_eq!(slope_at(clamp, 2.0), (1.0, 0.0));
    assert_eq!(slope_at(clamp, 0.5), (0.5, 1.0));
    // atan2 at the origin: value 0, derivative 0.
    let angle = |g: &mut Graph, x: Id| {
        let zero = g.constant(0.0);
        g.atan2(x, zero)
    };
    assert_eq!(slope_at(angle, 0.0), (0.0, 0.0));
    // asin and acos at ±1 and beyond: clamped values, derivative 0.
    let (value, slope) = slope_at(|g, x| g.asin(x), 1.0);
    assert!((value - std::f64::consts::FRAC_PI_2).abs() < 1e-12 && slope == 0.0);
    let (value, slope) = slope_at(|g, x| g.acos(x), -1.5);
    assert!((value - std::f64::consts::PI).abs() < 1e-12 && slope == 0.0);
    // ln at 0 and below: finite, derivative 0.
    let (value, slope) = slope_at(|g, x| g.ln(x), 0.0);
    assert!(value.is_finite() && value < -87.0 && slope == 0.0);
    let (value, slope) = slope_at(|g, x| g.ln(x), -1.0);
    assert!(value.is_finite() && slope == 0.0);
}

#[test]
fn new_functions_fold_constants_and_simplify() {
    let mut g = Graph::new();
    let x = g.leaf(Leaf::Pose(0, Dof::X));
    let minus_x = g.neg(x);
    assert_eq!(g.abs(minus_x), g.abs(x));
    assert_eq!(g.min(x, x), x);
    let two = g.constant(2.0);
    let minus_three = g.constant(-3.0);
    let smaller = g.min(two, minus_three);
    assert_eq!(g.as_const(smaller), Some(-3.0));
    let absolute = g.abs(minus_three);
    assert_eq!(g.as_const(absolute), Some(3.0));
    let zero = g.constant(0.0);
    let sign = g.sign(zero);
    assert_eq!(g.as_const(sign), Some(0.0));
    let step = g.step(zero);
    assert_eq!(g.as_const(step), Some(0.5));
    let named = g.leaf(Leaf::Named(0));
    let product = g.mul(named, x);
    let d = derivative(&mut g, product, Leaf::Pose(0, Dof::X));
    assert_eq!(d, named, "a named constant differentiates as a constant");
    let angle = g.atan2(x, named);
    let text = to_infix(&g, angle, &|leaf| format!("{leaf:?}"));
    assert_eq!(text, "atan2(Pose(0, X), Named(0))");
}
