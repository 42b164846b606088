//! Random well-typed constraints of a chosen size, rich in the shapes that stress the
//! derivation: repeated factors (`d·(θ·θ)`), shared sub-expressions, `let` bindings used
//! several times, `powi`, `normalize` and products of sums. Deterministic per seed, so
//! a failure names its case and a benchmark measures the same expressions every run.

/// The struct every generated constraint is on.
pub const ITEM: &str = "#[derive(Clone, Copy, Debug)] pub struct Random { \
    pub body1: BodyHandle, pub body2: BodyHandle, pub a2: Vec2, pub k: f32 }";

/// A generated constraint: the attribute's arguments and the expression's size.
pub struct Generated {
    /// `position = (…, body1.angle - body2.angle)`.
    pub args: String,
    /// Operators, calls and leaves in the expression's text (a sub-expression written twice
    /// counts twice; a `let` binding's uses count one each).
    pub nodes: usize,
}

/// The constraint of `seed` with about `size` nodes (never fewer than one row's leaves).
pub fn constraint(seed: u64, size: usize) -> Generated {
    let mut generator = Generator {
        state: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
        lets: 0,
    };
    // The second row reads both bodies, so every slot is used whatever the first reads.
    let (row, nodes) = generator.scalar(size.saturating_sub(4));
    Generated {
        args: format!("position = ({row}, body1.angle - body2.angle)"),
        nodes: nodes + 4,
    }
}

/// Text and node count.
type Text = (String, usize);

struct Generator {
    state: u64,
    lets: usize,
}

impl Generator {
    fn below(&mut self, n: usize) -> usize {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        (self.state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }

    fn pick(&mut self, choices: &[&str]) -> String {
        choices[self.below(choices.len())].to_owned()
    }

    fn name(&mut self) -> String {
        self.lets += 1;
        format!("t{}", self.lets)
    }

    fn scalar_leaf(&mut self) -> Text {
        let leaf = self.pick(&[
            "body1.angle",
            "body2.angle",
            "body1.position.x",
            "body2.position.y",
            "k",
            "a2.x",
            "0.5",
            "1.5",
        ]);
        (leaf, 1)
    }

    fn vector_leaf(&mut self) -> Text {
        (self.pick(&["body1.position", "body2.position", "a2"]), 1)
    }

    /// A scalar of about `budget` nodes; every operand gets less than its parent.
    fn scalar(&mut self, budget: usize) -> Text {
        if budget <= 1 {
            return self.scalar_leaf();
        }
        let (half, third) = ((budget - 1) / 2, (budget - 2) / 3);
        let quarter = budget.saturating_sub(3) / 4;
        match self.below(10) {
            0 => {
                let (a, n) = self.scalar(half);
                (format!("({a} * {a})"), 1 + 2 * n)
            }
            1 => {
                let ((a, na), (b, nb)) = (self.scalar(third), self.scalar(third));
                (format!("({a} * ({b} * {a}))"), 2 + 2 * na + nb)
            }
            2 => {
                let ((a, na), (b, nb)) = (self.scalar(quarter), self.scalar(quarter));
                let ((c, nc), (d, nd)) = (self.scalar(quarter), self.scalar(quarter));
                (
                    format!("(({a} + {b}) * ({c} - {d}))"),
                    3 + na + nb + nc + nd,
                )
            }
            3 => {
                let (a, n) = self.scalar(budget - 1);
                let power = 2 + self.below(2);
                (format!("({a}).powi({power})"), 1 + n)
            }
            4 => {
                let ((u, nu), (v, nv)) = (self.vector(half), self.vector(half));
                let method = self.pick(&["dot", "perp_dot"]);
                (format!("({u}).{method}({v})"), 1 + nu + nv)
            }
            5 if budget >= 9 => {
                let t = self.name();
                let ((a, na), (c, nc)) =
                    (self.scalar((budget - 7) / 2), self.scalar((budget - 7) / 2));
                (
                    format!("{{ let {t} = {a}; {t} * {t} + {c} * {t} }}"),
                    7 + na + nc,
                )
            }
            6 => {
                let (a, n) = self.scalar(budget - 1);
                let method = self.pick(&["sin", "cos"]);
                (format!("({a}).{method}()"), 1 + n)
            }
            7 => {
                let (u, n) = self.vector(budget - 1);
                (format!("({u}).length()"), 1 + n)
            }
            _ => {
                let ((a, na), (b, nb)) = (self.scalar(half), self.scalar(half));
                let operator = self.pick(&["+", "-", "*"]);
                (format!("({a} {operator} {b})"), 1 + na + nb)
            }
        }
    }

    /// A vector of about `budget` nodes.
    fn vector(&mut self, budget: usize) -> Text {
        if budget <= 1 {
            return self.vector_leaf();
        }
        let half = (budget - 1) / 2;
        match self.below(7) {
            0 => {
                let ((u, nu), (a, na)) =
                    (self.vector(half), self.scalar(budget.saturating_sub(2) / 4));
                (format!("({u} * ({a} * {a}))"), 2 + nu + 2 * na)
            }
            1 => {
                let ((u, nu), (a, na)) = (self.vector(half), self.scalar(half));
                (format!("({u} * {a})"), 1 + nu + na)
            }
            2 => {
                let (u, n) = self.vector(budget - 1);
                let method = self.pick(&["normalize", "perp"]);
                (format!("({u}).{method}()"), 1 + n)
            }
            3 if budget >= 5 => {
                let t = self.name();
                let (u, n) = self.vector(budget - 4);
                (format!("{{ let {t} = {u}; {t} * {t}.length() }}"), 4 + n)
            }
            4 => {
                let (u, n) = self.vector(budget - 2);
                let call = self.pick(&["body1.rotate", "body2.world_point"]);
                (format!("{call}({u})"), 2 + n)
            }
            _ => {
                let ((u, nu), (v, nv)) = (self.vector(half), self.vector(half));
                let operator = self.pick(&["+", "-"]);
                (format!("({u} {operator} {v})"), 1 + nu + nv)
            }
        }
    }
}
