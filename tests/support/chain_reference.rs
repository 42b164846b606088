//! The exact motion of a chain of rigid links in reduced coordinates (Lagrange's
//! equations in the links' angles, RK4 in `f64`, where no joint can open) and the
//! physical pendulum's elliptic-integral period: plain `f64` mechanics, no engine, so the
//! tests (through `mechanics.rs`) and the peer bench (`benches/peers`) include the same
//! file by `#[path]`.
//!
//! Every link is the reference scenes' box: 1 m × 0.25 m, density 1 (mass 0.25,
//! inertia `m (1 + 0.25²) / 12`), pinned end to end, the first to a static body at the
//! origin.

#![allow(dead_code)]

/// Link length (m).
pub const LINK_LENGTH: f64 = 1.0;
/// Link thickness (m).
pub const LINK_WIDTH: f64 = 0.25;
/// Link mass (kg): density 1.
pub const LINK_MASS: f64 = LINK_LENGTH * LINK_WIDTH;
/// Link inertia about its centre (kg m²).
pub const LINK_INERTIA: f64 =
    LINK_MASS * (LINK_LENGTH * LINK_LENGTH + LINK_WIDTH * LINK_WIDTH) / 12.0;
/// Gravity's magnitude (m/s²), pointing along −y.
pub const GRAVITY: f64 = 10.0;

/// A chain of links in reduced coordinates: angle `θᵢ` of link `i` from +x, the first
/// link pinned at the origin, the links end to end.
#[derive(Clone, Debug)]
pub struct ChainReference {
    /// Each link's angle (rad).
    pub angles: Vec<f64>,
    /// Each link's angular velocity (rad/s).
    pub rates: Vec<f64>,
    /// `b_jk = Σᵢ a_ij a_ik`, `a_ij = 1` for `j < i`, ½ for `j = i`, 0 beyond.
    coupling: Vec<f64>,
    /// `Σᵢ a_ij`: how many half links below each link's angle carries.
    weight: Vec<f64>,
}

/// `a_ij` of the chain's kinematics: how link `j`'s direction moves link `i`'s centre.
fn lever(i: usize, j: usize) -> f64 {
    match j.cmp(&i) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    }
}

impl ChainReference {
    /// `links` links at rest along +x.
    pub fn horizontal(links: usize) -> Self {
        Self::at_rest(vec![0.0; links])
    }

    /// Links at rest at these angles.
    pub fn at_rest(angles: Vec<f64>) -> Self {
        let n = angles.len();
        let mut coupling = vec![0.0; n * n];
        for j in 0..n {
            for k in 0..n {
                coupling[j * n + k] = (0..n).map(|i| lever(i, j) * lever(i, k)).sum();
            }
        }
        let weight = (0..n).map(|j| (0..n).map(|i| lever(i, j)).sum()).collect();
        Self {
            rates: vec![0.0; n],
            angles,
            coupling,
            weight,
        }
    }

    fn len(&self) -> usize {
        self.angles.len()
    }

    /// `θ̈` at these angles and rates: the mass matrix solved by Cholesky.
    fn accelerations(&self, angles: &[f64], rates: &[f64]) -> Vec<f64> {
        let n = self.len();
        let ml2 = LINK_MASS * LINK_LENGTH * LINK_LENGTH;
        let mut matrix = vec![0.0; n * n];
        let mut rhs = vec![0.0; n];
        // cos and sin of `θⱼ − θₖ` from each angle's own: n trigonometric calls, not n².
        let (sin, cos): (Vec<f64>, Vec<f64>) = angles.iter().map(|a| a.sin_cos()).unzip();
        for j in 0..n {
            for k in 0..n {
                let b = self.coupling[j * n + k];
                let cos_jk = cos[j] * cos[k] + sin[j] * sin[k];
                let sin_jk = sin[j] * cos[k] - cos[j] * sin[k];
                matrix[j * n + k] = ml2 * b * cos_jk + if j == k { LINK_INERTIA } else { 0.0 };
                rhs[j] -= ml2 * b * sin_jk * rates[k] * rates[k];
            }
            rhs[j] -= LINK_MASS * GRAVITY * LINK_LENGTH * cos[j] * self.weight[j];
        }
        cholesky_solve(&mut matrix, &mut rhs, n);
        rhs
    }

    /// One classical RK4 step of `h`.
    pub fn step(&mut self, h: f64) {
        let n = self.len();
        let shifted = |base: &[f64], slope: &[f64], by: f64| -> Vec<f64> {
            (0..n).map(|i| base[i] + by * slope[i]).collect()
        };
        let (q, w) = (self.angles.clone(), self.rates.clone());
        let k1q = w.clone();
        let k1w = self.accelerations(&q, &w);
        let (q2, w2) = (shifted(&q, &k1q, h / 2.0), shifted(&w, &k1w, h / 2.0));
        let k2q = w2.clone();
        let k2w = self.accelerations(&q2, &w2);
        let (q3, w3) = (shifted(&q, &k2q, h / 2.0), shifted(&w, &k2w, h / 2.0));
        let k3q = w3.clone();
        let k3w = self.accelerations(&q3, &w3);
        let (q4, w4) = (shifted(&q, &k3q, h), shifted(&w, &k3w, h));
        let k4w = self.accelerations(&q4, &w4);
        let k4q = w4;
        for i in 0..n {
            self.angles[i] += h / 6.0 * (k1q[i] + 2.0 * k2q[i] + 2.0 * k3q[i] + k4q[i]);
            self.rates[i] += h / 6.0 * (k1w[i] + 2.0 * k2w[i] + 2.0 * k3w[i] + k4w[i]);
        }
    }

    /// Advances by `duration` in steps of at most `h`.
    pub fn advance(&mut self, duration: f64, h: f64) {
        let steps = (duration / h).round().max(1.0) as usize;
        let h = duration / steps as f64;
        for _ in 0..steps {
            self.step(h);
        }
    }

    /// Each link's centre.
    pub fn centres(&self) -> Vec<[f64; 2]> {
        let mut joint = [0.0, 0.0];
        self.angles
            .iter()
            .map(|&a| {
                let u = [LINK_LENGTH * a.cos(), LINK_LENGTH * a.sin()];
                let centre = [joint[0] + 0.5 * u[0], joint[1] + 0.5 * u[1]];
                joint = [joint[0] + u[0], joint[1] + u[1]];
                centre
            })
            .collect()
    }

    /// Kinetic plus potential energy (zero height at the pin).
    pub fn energy(&self) -> f64 {
        let n = self.len();
        let ml2 = LINK_MASS * LINK_LENGTH * LINK_LENGTH;
        let mut kinetic = 0.0;
        for j in 0..n {
            for k in 0..n {
                let b = self.coupling[j * n + k];
                let m = ml2 * b * (self.angles[j] - self.angles[k]).cos()
                    + if j == k { LINK_INERTIA } else { 0.0 };
                kinetic += 0.5 * m * self.rates[j] * self.rates[k];
            }
        }
        let potential: f64 = self
            .centres()
            .iter()
            .map(|c| LINK_MASS * GRAVITY * c[1])
            .sum();
        kinetic + potential
    }
}

/// Solves the symmetric positive definite `matrix · x = rhs` in place (`rhs` becomes `x`).
fn cholesky_solve(matrix: &mut [f64], rhs: &mut [f64], n: usize) {
    for j in 0..n {
        let mut d = matrix[j * n + j];
        for k in 0..j {
            d -= matrix[j * n + k] * matrix[j * n + k];
        }
        let d = d.sqrt();
        matrix[j * n + j] = d;
        for i in j + 1..n {
            let mut s = matrix[i * n + j];
            for k in 0..j {
                s -= matrix[i * n + k] * matrix[j * n + k];
            }
            matrix[i * n + j] = s / d;
        }
    }
    for i in 0..n {
        let mut s = rhs[i];
        for k in 0..i {
            s -= matrix[i * n + k] * rhs[k];
        }
        rhs[i] = s / matrix[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = rhs[i];
        for k in i + 1..n {
            s -= matrix[k * n + i] * rhs[k];
        }
        rhs[i] = s / matrix[i * n + i];
    }
}

/// The swing's energy of `links` links released horizontal: the drop of their centres from
/// there to hanging, `m g L N² / 2`.
pub fn swing_energy(links: usize) -> f64 {
    LINK_MASS * GRAVITY * LINK_LENGTH * (links * links) as f64 / 2.0
}

/// The complete elliptic integral of the first kind `K(k)`, by the arithmetic–geometric
/// mean.
pub fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    for _ in 0..64 {
        let (x, y) = ((a + b) / 2.0, (a * b).sqrt());
        a = x;
        b = y;
        if (a - b).abs() <= 1e-16 * a {
            break;
        }
    }
    std::f64::consts::PI / (2.0 * a)
}

/// The period of a link pinned at one end, released at rest `amplitude` rad from hanging.
pub fn rod_period(amplitude: f64) -> f64 {
    let d = LINK_LENGTH / 2.0;
    let pivot_inertia = LINK_INERTIA + LINK_MASS * d * d;
    4.0 * (pivot_inertia / (LINK_MASS * GRAVITY * d)).sqrt() * elliptic_k((amplitude / 2.0).sin())
}
