//! Small dense linear algebra for the solver: the "zero-cross" inverse of an effective mass
//! restricted to its active rows, and a few fixed-size vector helpers.
//!
//! Every routine works on fixed-size arrays (`[[f32; D]; D]`), so nothing allocates.

/// A pivot is accepted only if it keeps at least this fraction of its row's original
/// diagonal: below that, the row is (numerically) a combination of rows already pivoted
/// and is dropped (zero-crossed). Relative to each row's own diagonal, so the test does
/// not depend on the units of the row (linear versus angular rows).
const RELATIVE_PIVOT_TOLERANCE: f64 = 1e-6;

/// The inverse of `k` restricted to the rows and columns marked `active`, with zeros in
/// every inactive row and column: the "zero-cross" inverse of Nape's constraint notes.
///
/// `k` is meant to be a symmetric positive semi-definite effective mass. The routine
/// never returns a non-finite entry:
///
/// * a row with a non-finite entry (in an active column) or a zero diagonal is dropped;
/// * a row whose pivot vanishes relative to its own diagonal (it is a linear combination
///   of other active rows, i.e. the block is singular) is dropped too, so the result is
///   the inverse of the largest well-conditioned sub-block found by diagonal pivoting.
///
/// Blocks of 1, 2 and 3 active rows use closed forms; larger or ill-conditioned blocks
/// use Gauss–Jordan elimination with diagonal pivoting in `f64`.
#[must_use]
pub fn invert_active<const D: usize>(k: &[[f32; D]; D], active: &[bool; D]) -> [[f32; D]; D] {
    // Drop rows that cannot take part: inactive, non-finite or with a zero diagonal.
    let mut usable = *active;
    for i in 0..D {
        if !usable[i] {
            continue;
        }
        let finite = (0..D).all(|j| !active[j] || k[i][j].is_finite() && k[j][i].is_finite());
        if !finite || k[i][i] == 0.0 {
            usable[i] = false;
        }
    }
    let mut index = [0usize; D];
    let mut n = 0;
    for (i, &u) in usable.iter().enumerate() {
        if u {
            index[n] = i;
            n += 1;
        }
    }
    if n == 2 && D == 2 {
        // The whole 2 × 2 (every row of a pivot, say) built at once: written entry by
        // entry into a zeroed array, reading it back waited on the narrow stores.
        let inverse = invert2(k[0][0], k[0][1], k[1][0], k[1][1]);
        if let Some(m) = inverse {
            return std::array::from_fn(|i| std::array::from_fn(|j| m[i][j]));
        }
        return invert_general(k, &usable);
    }
    let mut out = [[0.0f32; D]; D];
    let closed = match n {
        0 => return out,
        1 => {
            let i = index[0];
            out[i][i] = 1.0 / k[i][i];
            out[i][i].is_finite()
        }
        2 => invert2_into(k, [index[0], index[1]], &mut out),
        3 => invert3_into(k, [index[0], index[1], index[2]], &mut out),
        _ => false,
    };
    if closed {
        return out;
    }
    invert_general(k, &usable)
}

/// Closed-form inverse of `[[a, b], [c, d]]`, or `None` if it is too ill-conditioned for
/// it.
#[inline]
fn invert2(a: f32, b: f32, c: f32, d: f32) -> Option<[[f32; 2]; 2]> {
    let det = a * d - b * c;
    let scale = (a * d).abs() + (b * c).abs();
    let well_conditioned = det.abs() > 1e-5 * scale;
    if !well_conditioned {
        return None;
    }
    let inv = 1.0 / det;
    let m = [[d * inv, -b * inv], [-c * inv, a * inv]];
    m.iter().flatten().all(|x| x.is_finite()).then_some(m)
}

/// Closed-form inverse of the 2×2 block on rows `r`; `false` (and `out` untouched in the
/// block) if the block is too ill-conditioned for it.
fn invert2_into<const D: usize>(k: &[[f32; D]; D], r: [usize; 2], out: &mut [[f32; D]; D]) -> bool {
    let [i, j] = r;
    let Some(m) = invert2(k[i][i], k[i][j], k[j][i], k[j][j]) else {
        return false;
    };
    out[i][i] = m[0][0];
    out[i][j] = m[0][1];
    out[j][i] = m[1][0];
    out[j][j] = m[1][1];
    true
}

/// Closed-form (adjugate) inverse of the 3×3 block on rows `r`; `false` if too
/// ill-conditioned.
fn invert3_into<const D: usize>(k: &[[f32; D]; D], r: [usize; 3], out: &mut [[f32; D]; D]) -> bool {
    let m = |a: usize, b: usize| k[r[a]][r[b]];
    let c00 = m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1);
    let c01 = m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2);
    let c02 = m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0);
    let det = m(0, 0) * c00 + m(0, 1) * c01 + m(0, 2) * c02;
    let diag = (m(0, 0) * m(1, 1) * m(2, 2)).abs();
    let well_conditioned = det.abs() > 1e-4 * diag;
    if !well_conditioned {
        return false;
    }
    let inv = 1.0 / det;
    let adj = [
        [
            c00,
            m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2),
            m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1),
        ],
        [
            c01,
            m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0),
            m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2),
        ],
        [
            c02,
            m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1),
            m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0),
        ],
    ];
    for (a, row) in adj.iter().enumerate() {
        for (b, &v) in row.iter().enumerate() {
            let x = v * inv;
            if !x.is_finite() {
                return false;
            }
            out[r[a]][r[b]] = x;
        }
    }
    true
}

/// Gauss–Jordan inversion on the `usable` block with diagonal pivoting: at each step the
/// row whose remaining pivot keeps the largest fraction of its original diagonal is
/// eliminated; rows whose best pivot falls under [`RELATIVE_PIVOT_TOLERANCE`] are dropped.
fn invert_general<const D: usize>(k: &[[f32; D]; D], usable: &[bool; D]) -> [[f32; D]; D] {
    let mut a = [[0.0f64; D]; D];
    let mut x = [[0.0f64; D]; D];
    let mut original = [0.0f64; D];
    for i in 0..D {
        if !usable[i] {
            continue;
        }
        for j in 0..D {
            if usable[j] {
                a[i][j] = f64::from(k[i][j]);
            }
        }
        x[i][i] = 1.0;
        original[i] = a[i][i].abs();
    }
    let mut remaining = *usable;
    let mut pivoted = [false; D];
    loop {
        // Choose the best remaining pivot.
        let mut best: Option<(usize, f64)> = None;
        for i in 0..D {
            if remaining[i] {
                let ratio = a[i][i].abs() / original[i];
                if best.is_none_or(|(_, r)| ratio > r) {
                    best = Some((i, ratio));
                }
            }
        }
        let Some((p, ratio)) = best else { break };
        let acceptable = ratio > RELATIVE_PIVOT_TOLERANCE;
        if !acceptable {
            break; // every remaining row is dependent on the pivoted ones
        }
        remaining[p] = false;
        pivoted[p] = true;
        let inv = 1.0 / a[p][p];
        for j in 0..D {
            a[p][j] *= inv;
            x[p][j] *= inv;
        }
        for i in 0..D {
            if i == p || !usable[i] {
                continue;
            }
            let f = a[i][p];
            if f == 0.0 {
                continue;
            }
            for j in 0..D {
                a[i][j] -= f * a[p][j];
                x[i][j] -= f * x[p][j];
            }
        }
    }
    let mut out = [[0.0f32; D]; D];
    for i in 0..D {
        for j in 0..D {
            if pivoted[i] && pivoted[j] {
                let v = x[i][j] as f32;
                out[i][j] = if v.is_finite() { v } else { 0.0 };
            }
        }
    }
    out
}

/// `m·v`.
#[inline]
#[must_use]
pub fn mul_vec<const D: usize>(m: &[[f32; D]; D], v: &[f32; D]) -> [f32; D] {
    let mut out = [0.0; D];
    for (o, row) in out.iter_mut().zip(m) {
        *o = row.iter().zip(v).map(|(a, b)| a * b).sum();
    }
    out
}

/// The squared Euclidean length of `v`.
#[inline]
#[must_use]
pub fn length_squared<const D: usize>(v: &[f32; D]) -> f32 {
    v.iter().map(|x| x * x).sum()
}

/// Scales `v` down so that its length is at most `max` (no-op for `max = ∞`).
#[inline]
pub fn clamp_length<const D: usize>(v: &mut [f32; D], max: f32) {
    if max.is_finite() {
        let l2 = length_squared(v);
        if l2 > max * max {
            let s = max / l2.sqrt();
            v.iter_mut().for_each(|x| *x *= s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny deterministic generator (xorshift), enough for matrix tests.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        }
    }

    fn random_spd<const D: usize>(rng: &mut Rng) -> [[f32; D]; D] {
        let mut a = [[0.0f32; D]; D];
        for row in &mut a {
            for v in row.iter_mut() {
                *v = rng.next();
            }
        }
        let mut k = [[0.0f32; D]; D];
        for i in 0..D {
            for j in 0..D {
                k[i][j] = (0..D).map(|m| a[i][m] * a[j][m]).sum::<f32>();
            }
            k[i][i] += 0.5;
        }
        k
    }

    fn check_inverse<const D: usize>(rng: &mut Rng) {
        for trial in 0..200 {
            let k = random_spd::<D>(rng);
            let mut active = [true; D];
            if trial % 2 == 1 {
                for a in &mut active {
                    *a = rng.next() > -0.3;
                }
            }
            let inv = invert_active(&k, &active);
            for i in 0..D {
                for j in 0..D {
                    let p: f32 = (0..D).map(|m| inv[i][m] * k[m][j]).sum();
                    let expected = if active[i] && i == j { 1.0 } else { 0.0 };
                    // Inactive rows of the product are zero; inactive columns are K's
                    // own columns mapped through the inverse, so only check active ones.
                    if active[j] || !active[i] {
                        assert!(
                            (p - expected).abs() < 2e-3,
                            "D={D} trial {trial}: (K⁻¹K)[{i}][{j}] = {p}, active {active:?}"
                        );
                    }
                    if !active[i] || !active[j] {
                        assert_eq!(inv[i][j], 0.0, "zero-cross at ({i}, {j})");
                    }
                }
            }
        }
    }

    #[test]
    fn inverse_times_k_is_identity_on_active_rows() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        check_inverse::<1>(&mut rng);
        check_inverse::<2>(&mut rng);
        check_inverse::<3>(&mut rng);
        check_inverse::<4>(&mut rng);
        check_inverse::<5>(&mut rng);
        check_inverse::<6>(&mut rng);
    }

    #[test]
    fn nape_cholesky_counter_example_is_exact() {
        let k = [[2.0, 1.0], [1.0, 2.0]];
        let inv = invert_active(&k, &[true, true]);
        let x = mul_vec(&inv, &[1.0, 0.0]);
        assert!((x[0] - 2.0 / 3.0).abs() < 1e-6, "{x:?}");
        assert!((x[1] + 1.0 / 3.0).abs() < 1e-6, "{x:?}");
        // The general path gives the same answer.
        let g = invert_general(&k, &[true, true]);
        let y = mul_vec(&g, &[1.0, 0.0]);
        assert!((y[0] - 2.0 / 3.0).abs() < 1e-6 && (y[1] + 1.0 / 3.0).abs() < 1e-6);
    }

    #[test]
    fn singular_and_non_finite_blocks_stay_finite() {
        // Rank 1: rows 0 and 1 identical.
        let k = [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0]];
        let inv = invert_active(&k, &[true; 3]);
        assert!(inv.iter().flatten().all(|v| v.is_finite()));
        assert!((inv[2][2] - 0.5).abs() < 1e-6);
        // One of the dependent rows is kept and inverted exactly.
        assert!((inv[0][0] + inv[1][1] - 1.0).abs() < 1e-6, "{inv:?}");

        let zero = invert_active(&[[0.0; 4]; 4], &[true; 4]);
        assert_eq!(zero, [[0.0; 4]; 4]);

        let nan = invert_active(&[[f32::NAN, 0.0], [0.0, 4.0]], &[true, true]);
        assert_eq!(nan, [[0.0, 0.0], [0.0, 0.25]]);

        let inf = invert_active(&[[f32::INFINITY]], &[true]);
        assert_eq!(inf, [[0.0]]);

        // A larger singular block (general path): rank 2 in 5 dimensions.
        let v = [1.0f32, 2.0, 0.5, -1.0, 3.0];
        let w = [0.0f32, 1.0, -1.0, 2.0, 1.0];
        let mut k5 = [[0.0f32; 5]; 5];
        for i in 0..5 {
            for j in 0..5 {
                k5[i][j] = v[i] * v[j] + w[i] * w[j];
            }
        }
        let inv5 = invert_active(&k5, &[true; 5]);
        assert!(inv5.iter().flatten().all(|x| x.is_finite()));
        let kept = (0..5).filter(|&i| inv5[i][i] != 0.0).count();
        assert_eq!(kept, 2, "{inv5:?}");
    }

    #[test]
    fn inactive_rows_are_dropped() {
        let k = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]];
        let inv = invert_active(&k, &[true, false, true]);
        let det = 4.0 * 2.0 - 0.25;
        assert!((inv[0][0] - 2.0 / det).abs() < 1e-6);
        assert!((inv[0][2] + 0.5 / det).abs() < 1e-6);
        assert!((inv[2][2] - 4.0 / det).abs() < 1e-6);
        assert_eq!(inv[1], [0.0; 3]);
        assert_eq!(inv[0][1], 0.0);
    }

    #[test]
    fn clamp_length_scales_vectors() {
        let mut v = [3.0, 4.0];
        clamp_length(&mut v, 1.0);
        assert!((v[0] - 0.6).abs() < 1e-6 && (v[1] - 0.8).abs() < 1e-6);
        let mut w = [3.0, 4.0];
        clamp_length(&mut w, f32::INFINITY);
        assert_eq!(w, [3.0, 4.0]);
    }
}
