use super::*;

#[test]
fn row_weights_follow_the_bounds() {
    let bounds = [
        Bounds::new(1.0, 1.0),
        Bounds::new(0.0, 2.0),
        Bounds::new(0.0, 2.0),
        Bounds::new(0.0, 2.0),
    ];
    let (w, e, ineq) = rows(&[1.5, -0.5, 1.0, 2.5], &bounds);
    assert_eq!(w, [1.0, -1.0, 0.0, 1.0]);
    assert_eq!(e, [0.5, 0.5, 0.0, 0.5]);
    assert_eq!(ineq, [false, true, true, true]);
}

#[test]
fn inside_rows_of_a_stiff_constraint_speculate_on_the_nearer_bound() {
    let bounds = [
        Bounds::new(0.0, 2.0),
        Bounds::new(0.0, 2.0),
        Bounds::new(0.0, f32::INFINITY),
    ];
    let c = [0.5, 1.75, 3.0];
    let mut r = rows(&c, &bounds);
    let speculative = speculate(&c, &bounds, &mut r);
    assert_eq!(speculative, [true, true, true]);
    assert_eq!(r.0, [-1.0, 1.0, -1.0]);
    assert_eq!(r.1, [-0.5, -0.25, -3.0]);
}

#[test]
fn a_pivot_joints_sweep_reads_two_cache_lines() {
    use crate::joints::PivotJoint;
    use std::mem::{offset_of, size_of};
    type Pivot = Entry<PivotJoint, 2, 2>;
    // The fields an unclamped update reads, `bodies` to the inverse masses, fill the
    // first two lines; the refresh's and the step totals come after.
    assert_eq!(offset_of!(Pivot, bodies), 0);
    assert_eq!(
        offset_of!(Pivot, inverse_masses) + size_of::<[InverseMass; 2]>(),
        128
    );
    assert_eq!(offset_of!(Pivot, constraint), 128);
    // What a substep reads of it and no more: the sweeps over a mesh walk this array
    // (the rest, in `ColdEntry`, was 96 more bytes an entry when it was here).
    assert_eq!(size_of::<Pivot>(), 216);
    // A spring's damper spin (`RigidSpin`, 112 bytes in `f64`) is boxed: 8 bytes here.
    assert_eq!(size_of::<ColdEntry<2, 2>>(), 120);
}

#[test]
fn sweeps_are_ordered_by_colour_and_the_order_is_stable_under_recolouring() {
    // A 4 × 4 grid of bodies, its top row static, joined as a joint grid is:
    // entries in insertion order share a body with the one before them.
    let n = 4;
    let dynamic: Vec<bool> = (0..n * n).map(|b| b % n != 0).collect();
    let mut links: Vec<[usize; 2]> = Vec::new();
    for k in 0..n {
        for i in 0..n {
            if i > 0 {
                links.push([k * n + i - 1, k * n + i]);
            }
            if k > 0 {
                links.push([(k - 1) * n + i, k * n + i]);
            }
        }
    }
    // One entry left to the exact solve (`None`), which stays in colour 0.
    let swept = |d: usize| d != 5;
    let order = colour_order(
        links
            .iter()
            .enumerate()
            .map(|(d, l)| swept(d).then_some(&l[..])),
        &dynamic,
    );
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        (0..links.len()).collect::<Vec<_>>(),
        "a permutation"
    );
    assert_ne!(order, sorted, "the insertion order is not already coloured");
    // Within a run of one colour no two entries share a dynamic body, so the number of
    // places where consecutive entries do is below the number of colours.
    let shares = |a: &[usize; 2], b: &[usize; 2]| a.iter().any(|x| dynamic[*x] && b.contains(x));
    let conflicts = |order: &[usize]| {
        order
            .windows(2)
            .filter(|w| swept(w[0]) && swept(w[1]) && shares(&links[w[0]], &links[w[1]]))
            .count()
    };
    assert!(conflicts(&sorted) >= 10, "{}", conflicts(&sorted));
    assert!(
        conflicts(&order) <= 3,
        "{} consecutive updates share a body",
        conflicts(&order)
    );
    // Recolouring the coloured order changes nothing.
    let again = colour_order(
        order.iter().map(|&d| swept(d).then_some(&links[d][..])),
        &dynamic,
    );
    assert_eq!(again, (0..links.len()).collect::<Vec<_>>());
}

#[test]
fn a_rigid_spring_is_rigid_and_a_zero_hertz_spring_is_inert() {
    let h = 1.0 / 240.0;
    let stiff = Softness::spring(1e9, 1.0, h);
    assert!((stiff.mass_scale - 1.0).abs() < 1e-3 && stiff.impulse_scale < 1e-3);
    assert!((stiff.bias_rate * h - 1.0).abs() < 1e-3);
    let inert = Softness::spring(0.0, 1.0, h);
    assert_eq!((inert.mass_scale, inert.impulse_scale), (0.0, 1.0));
}

/// An undamped spring's kick taken outside the exact solve is what the solve's compliance
/// form gives as the compliance grows without bound: `λ = −b / (γ₀k̄)` for the
/// bias `b = γ₀·kick·ω²C` of `verlet_spring`, clamped to `max_error` the same way.
#[test]
fn an_undamped_kick_is_the_compliance_form_without_a_damper() {
    let k = [[2.5, 0.4], [0.4, 1.5]];
    let mean = 2.0;
    for (error, max_error) in [
        ([0.03, -0.01], f32::INFINITY),
        ([-0.2, 0.5], f32::INFINITY),
        ([3.0, 4.0], 0.5),
    ] {
        let settings = ConstraintSettings {
            max_error,
            ..ConstraintSettings::soft(3.0, 0.0)
        };
        let kick = 1.0 / 120.0;
        let (spring, bias) = verlet_spring(&settings, &error, kick);
        let gamma = spring.relative_compliance();
        let explicit = explicit_kick(&settings, &error, kick, &k);
        for i in 0..2 {
            let limit = -bias[i] / (gamma * mean);
            assert!(
                (explicit[i] - limit).abs() <= 1e-6 * limit.abs(),
                "{error:?}: {explicit:?} against {limit}"
            );
        }
        let omega = std::f32::consts::TAU * 3.0;
        let pull = error.map(|x| kick * omega * omega * x);
        let length = pull[0].hypot(pull[1]);
        let scale = if length > max_error {
            max_error / length
        } else {
            1.0
        };
        for i in 0..2 {
            let expected = -pull[i] * scale / mean;
            assert!((explicit[i] - expected).abs() <= 1e-6 * expected.abs());
        }
    }
}
