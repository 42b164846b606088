//! Generates random constraint expressions: `$OUT_DIR/cases.rs` holds, per expression, a
//! `#[constraint]` struct, a function that runs it on given parameters and states, the
//! same declaration as text for a constraint compiled at run time (`nape::symbolic`), and
//! the same expression as a prefix program for the test's independent evaluator.

use std::fmt::Write as _;

const DEFAULT_EXPRESSIONS: usize = 300;

/// Each case's expansion must finish within this, or the build fails naming the case
/// (rustc would otherwise sit in the macro and the CI run would stall). A case takes
/// milliseconds.
const EXPANSION_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);
const DEFAULT_SEED: u64 = 0x00d1_ff00;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn literal(&mut self) -> f64 {
        const VALUES: [f64; 8] = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 0.3, 1.25];
        VALUES[self.below(VALUES.len())]
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Type {
    Scalar,
    Vector,
}

/// An expression as Rust text and as a prefix program.
#[derive(Clone)]
struct Code {
    rust: String,
    program: String,
}

fn code(rust: String, program: String) -> Code {
    Code { rust, program }
}

struct Generator {
    rng: Rng,
    bodies: usize,
    scalars: usize,
    vectors: usize,
    used: Vec<bool>,
    /// `let` names in scope: name, type, program of the bound value.
    names: Vec<(String, Type, String)>,
    lets: usize,
}

impl Generator {
    fn body(&mut self) -> usize {
        let s = self.rng.below(self.bodies);
        self.used[s] = true;
        s
    }

    /// `receiver.method(args)` or, sometimes, `f32::method(receiver, args)`.
    fn call(&mut self, receiver: &Code, method: &str, args: &[&Code], owner: &str) -> String {
        let rest: Vec<&str> = args.iter().map(|a| a.rust.as_str()).collect();
        if self.rng.chance(25) {
            let mut all = vec![receiver.rust.as_str()];
            all.extend(rest);
            format!("{owner}::{method}({})", all.join(", "))
        } else {
            format!("({}).{method}({})", receiver.rust, rest.join(", "))
        }
    }

    /// One of `functions` (`(method, op)` pairs) on `receiver` and `args`: as a call (see
    /// [`Self::call`]) and as the program `(op receiver args…)`.
    fn apply_one_of(
        &mut self,
        functions: &[(&str, &str)],
        receiver: &Code,
        args: &[&Code],
        owner: &str,
    ) -> Code {
        let (method, op) = functions[self.rng.below(functions.len())];
        let rust = self.call(receiver, method, args, owner);
        let operands: Vec<&str> = std::iter::once(receiver)
            .chain(args.iter().copied())
            .map(|c| c.program.as_str())
            .collect();
        code(rust, format!("({op} {})", operands.join(" ")))
    }

    fn scalar_leaf(&mut self) -> Code {
        let scalar_names: Vec<(String, String)> = self
            .names
            .iter()
            .filter(|(_, t, _)| *t == Type::Scalar)
            .map(|(n, _, p)| (n.clone(), p.clone()))
            .collect();
        match self.rng.below(8) {
            0 | 1 if self.scalars > 0 => {
                let k = self.rng.below(self.scalars);
                code(format!("p{k}"), format!("(sp {k})"))
            }
            2 | 3 => {
                let s = self.body();
                code(format!("body{s}.angle"), format!("(ang {s})"))
            }
            4 if !scalar_names.is_empty() => {
                let (name, program) = &scalar_names[self.rng.below(scalar_names.len())];
                code(name.clone(), program.clone())
            }
            5 => match self.rng.below(3) {
                0 => code("PI".into(), format!("{}", std::f64::consts::PI)),
                1 => code("crate::DIFF_GAIN".into(), "0.75".into()),
                _ => code(
                    "std::f32::consts::FRAC_PI_4".into(),
                    format!("{}", std::f64::consts::FRAC_PI_4),
                ),
            },
            6 => {
                let v = self.vector(0);
                let (field, op) = if self.rng.chance(50) {
                    ("x", "vx")
                } else {
                    ("y", "vy")
                };
                code(
                    format!("({}).{field}", v.rust),
                    format!("({op} {})", v.program),
                )
            }
            _ => {
                let value = self.rng.literal();
                code(format!("{value:?}"), format!("{value:?}"))
            }
        }
    }

    fn vector_leaf(&mut self) -> Code {
        let vector_names: Vec<(String, String)> = self
            .names
            .iter()
            .filter(|(_, t, _)| *t == Type::Vector)
            .map(|(n, _, p)| (n.clone(), p.clone()))
            .collect();
        match self.rng.below(5) {
            0 | 1 => {
                let s = self.body();
                code(format!("body{s}.position"), format!("(pos {s})"))
            }
            2 if self.vectors > 0 => {
                let k = self.rng.below(self.vectors);
                code(format!("v{k}"), format!("(vp {k})"))
            }
            3 if !vector_names.is_empty() => {
                let (name, program) = &vector_names[self.rng.below(vector_names.len())];
                code(name.clone(), program.clone())
            }
            _ => {
                let (a, b) = (self.scalar(0), self.scalar(0));
                code(
                    format!("Vec2::new({}, {})", a.rust, b.rust),
                    format!("(vnew {} {})", a.program, b.program),
                )
            }
        }
    }

    /// A scalar expression; `depth` levels of operations at most.
    #[allow(clippy::too_many_lines)]
    fn scalar(&mut self, depth: usize) -> Code {
        if depth == 0 || self.rng.chance(15) {
            return self.scalar_leaf();
        }
        let d = depth - 1;
        match self.rng.below(30) {
            0..=2 => {
                let (a, b) = (self.scalar(d), self.scalar(d));
                let (op, name) = [("+", "add"), ("-", "sub"), ("*", "mul")][self.rng.below(3)];
                code(
                    format!("({} {op} {})", a.rust, b.rust),
                    format!("({name} {} {})", a.program, b.program),
                )
            }
            3 => {
                let a = self.scalar(d);
                code(format!("(-{})", a.rust), format!("(neg {})", a.program))
            }
            4 => {
                // A denominator bounded away from zero.
                let (a, b) = (self.scalar(d), self.scalar(d));
                code(
                    format!("({} / ({} * {} + 1.0))", a.rust, b.rust, b.rust),
                    format!("(div {} (add (mul {b} {b}) 1.0))", a.program, b = b.program),
                )
            }
            5 | 6 => {
                let (u, v) = (self.vector(d), self.vector(d));
                let functions = [("dot", "dot"), ("perp_dot", "pdot"), ("distance", "dist")];
                self.apply_one_of(&functions, &u, &[&v], "Vec2")
            }
            7 => {
                let v = self.vector(d);
                let functions = [("length", "len"), ("length_squared", "len2")];
                self.apply_one_of(&functions, &v, &[], "Vec2")
            }
            8 | 9 => {
                let a = self.scalar(d);
                let functions = [("sin", "sin"), ("cos", "cos"), ("abs", "abs")];
                self.apply_one_of(&functions, &a, &[], "f32")
            }
            10 => {
                // sqrt and recip of a positive argument, ln of a positive or a negative one.
                let a = self.scalar(d);
                let (method, op, sign) = [
                    ("sqrt", "sqrt", ""),
                    ("recip", "recip", ""),
                    ("ln", "ln", ""),
                    ("ln", "ln", "-"),
                ][self.rng.below(4)];
                let argument = code(
                    format!("({sign}({} * {} + 0.5))", a.rust, a.rust),
                    if sign.is_empty() {
                        format!("(add (mul {a} {a}) 0.5)", a = a.program)
                    } else {
                        format!("(neg (add (mul {a} {a}) 0.5))", a = a.program)
                    },
                );
                let rust = self.call(&argument, method, &[], "f32");
                code(rust, format!("({op} {})", argument.program))
            }
            11 => {
                // tan and exp of a bounded argument.
                let a = self.scalar(d);
                let bounded = code(
                    format!("({}).sin()", a.rust),
                    format!("(sin {})", a.program),
                );
                self.apply_one_of(&[("tan", "tan"), ("exp", "exp")], &bounded, &[], "f32")
            }
            12 => {
                // asin and acos inside their domain, or beyond it (clamped).
                let a = self.scalar(d);
                let argument = if self.rng.chance(75) {
                    code(
                        format!("(0.9 * ({}).sin())", a.rust),
                        format!("(mul 0.9 (sin {}))", a.program),
                    )
                } else {
                    code(
                        format!("({} * {} + 1.5)", a.rust, a.rust),
                        format!("(add (mul {a} {a}) 1.5)", a = a.program),
                    )
                };
                self.apply_one_of(&[("asin", "asin"), ("acos", "acos")], &argument, &[], "f32")
            }
            13 => {
                // atan2 right of the y axis (no branch cut), or of any vector through sin.
                let (y, x) = (self.scalar(d), self.scalar(d));
                if self.rng.chance(50) {
                    let right = code(
                        format!("({} * {} + 0.5)", x.rust, x.rust),
                        format!("(add (mul {x} {x}) 0.5)", x = x.program),
                    );
                    let rust = self.call(&y, "atan2", &[&right], "f32");
                    code(rust, format!("(atan2 {} {})", y.program, right.program))
                } else {
                    let inner = self.call(&y, "atan2", &[&x], "f32");
                    code(
                        format!("({inner}).sin()"),
                        format!("(sin (atan2 {} {}))", y.program, x.program),
                    )
                }
            }
            14 | 15 => {
                let (a, b) = (self.scalar(d), self.scalar(d));
                let functions = [("min", "min"), ("max", "max"), ("hypot", "hypot")];
                self.apply_one_of(&functions, &a, &[&b], "f32")
            }
            16 => {
                let a = self.scalar(d);
                let low = self.rng.literal();
                let high = low + self.rng.literal();
                let (lo, hi) = (
                    code(format!("(-{low:?})"), format!("(neg {low:?})")),
                    code(format!("{high:?}"), format!("{high:?}")),
                );
                let rust = self.call(&a, "clamp", &[&lo, &hi], "f32");
                code(
                    rust,
                    format!("(clamp {} {} {})", a.program, lo.program, hi.program),
                )
            }
            17 => {
                let a = self.scalar(d);
                let index = self.rng.below(2);
                let op = ["sin", "cos"][index];
                code(
                    format!("({}).sin_cos().{index}", a.rust),
                    format!("({op} {})", a.program),
                )
            }
            18 => {
                let (a, b) = (self.scalar(d), self.scalar(d));
                let index = self.rng.below(2);
                let chosen = if index == 0 { &a } else { &b };
                code(
                    format!("({}, {}).{index}", a.rust, b.rust),
                    chosen.program.clone(),
                )
            }
            19 => {
                let v = self.vector(d);
                let rust = self.call(&v, "to_angle", &[], "Vec2");
                let op = ["sin", "cos"][self.rng.below(2)];
                code(
                    format!("({rust}).{op}()"),
                    format!("({op} (atan2 (vy {p}) (vx {p})))", p = v.program),
                )
            }
            20 => {
                let (u, v) = (self.vector(d), self.vector(d));
                let rust = self.call(&u, "angle_to", &[&v], "Vec2");
                code(
                    format!("({rust}).cos()"),
                    format!(
                        "(cos (atan2 (pdot {u} {v}) (dot {u} {v})))",
                        u = u.program,
                        v = v.program
                    ),
                )
            }
            21 => {
                let a = self.scalar(d);
                code(
                    format!("({}).powi(2)", a.rust),
                    format!("(mul {a} {a})", a = a.program),
                )
            }
            // Repeated factors, the shape that once hung the derivation.
            22 => {
                let a = self.scalar(d);
                code(
                    format!("({a} * {a})", a = a.rust),
                    format!("(mul {a} {a})", a = a.program),
                )
            }
            23 => {
                let (a, b) = (self.scalar(d), self.scalar(d));
                code(
                    format!("({a} * ({b} * {a}))", a = a.rust, b = b.rust),
                    format!("(mul {a} (mul {b} {a}))", a = a.program, b = b.program),
                )
            }
            _ => self.scalar_leaf(),
        }
    }

    fn vector(&mut self, depth: usize) -> Code {
        if depth == 0 || self.rng.chance(20) {
            return self.vector_leaf();
        }
        let d = depth - 1;
        match self.rng.below(12) {
            0 | 1 => {
                let (a, b) = (self.vector(d), self.vector(d));
                let (op, name) = [("+", "vadd"), ("-", "vsub")][self.rng.below(2)];
                code(
                    format!("({} {op} {})", a.rust, b.rust),
                    format!("({name} {} {})", a.program, b.program),
                )
            }
            2 => {
                let (s, v) = (self.scalar(d), self.vector(d));
                if self.rng.chance(50) {
                    code(
                        format!("({} * {})", s.rust, v.rust),
                        format!("(vscale {} {})", s.program, v.program),
                    )
                } else {
                    code(
                        format!("({} * {})", v.rust, s.rust),
                        format!("(vscale {} {})", s.program, v.program),
                    )
                }
            }
            3 => {
                let (v, s) = (self.vector(d), self.scalar(d));
                code(
                    format!("({} / ({} * {} + 1.0))", v.rust, s.rust, s.rust),
                    format!(
                        "(vscale (recip (add (mul {s} {s}) 1.0)) {})",
                        v.program,
                        s = s.program
                    ),
                )
            }
            4 => {
                let v = self.vector(d);
                code(format!("(-{})", v.rust), format!("(vneg {})", v.program))
            }
            5 => {
                let v = self.vector(d);
                let functions = [("perp", "perp"), ("normalize", "normalize")];
                self.apply_one_of(&functions, &v, &[], "Vec2")
            }
            8 => {
                let (v, s) = (self.vector(d), self.scalar(d));
                code(
                    format!("({} * ({s} * {s}))", v.rust, s = s.rust),
                    format!("(vscale (mul {s} {s}) {})", v.program, s = s.program),
                )
            }
            6 | 7 => {
                let s = self.body();
                let v = self.vector(d);
                let (method, op) =
                    [("rotate", "rotate"), ("world_point", "wpoint")][self.rng.below(2)];
                code(
                    format!("body{s}.{method}({})", v.rust),
                    format!("({op} {s} {})", v.program),
                )
            }
            _ => self.vector_leaf(),
        }
    }

    /// `let` statements, each adding names to the scope.
    fn statements(&mut self) -> String {
        let mut text = String::new();
        for _ in 0..self.rng.below(4) {
            let n = self.lets;
            match self.rng.below(5) {
                kind @ 0..=2 => {
                    let (value, ty, annotation) = if kind == 2 {
                        (self.vector(2), Type::Vector, ": Vec2")
                    } else {
                        (self.scalar(2), Type::Scalar, ": f32")
                    };
                    let annotation = if self.rng.chance(50) { annotation } else { "" };
                    let _ = write!(text, "let l{n}{annotation} = {}; ", value.rust);
                    self.names.push((format!("l{n}"), ty, value.program));
                    self.lets += 1;
                }
                3 => {
                    let angle = self.scalar(1);
                    let annotation = if self.rng.chance(50) {
                        ": (f32, f32)"
                    } else {
                        ""
                    };
                    let _ = write!(
                        text,
                        "let (l{n}, l{m}){annotation} = ({}).sin_cos(); ",
                        angle.rust,
                        m = n + 1
                    );
                    self.names.push((
                        format!("l{n}"),
                        Type::Scalar,
                        format!("(sin {})", angle.program),
                    ));
                    self.names.push((
                        format!("l{}", n + 1),
                        Type::Scalar,
                        format!("(cos {})", angle.program),
                    ));
                    self.lets += 2;
                }
                _ => {
                    let (s, v) = (self.scalar(1), self.vector(1));
                    let _ = write!(
                        text,
                        "let (l{n}, _, l{m}) = ({}, 0.5, {}); ",
                        s.rust,
                        v.rust,
                        m = n + 1
                    );
                    self.names.push((format!("l{n}"), Type::Scalar, s.program));
                    self.names
                        .push((format!("l{}", n + 1), Type::Vector, v.program));
                    self.lets += 2;
                }
            }
        }
        text
    }
}

/// The declaration as a constraint compiled at run time takes it: the named constants it
/// cannot look up written as their values (`crate::DIFF_GAIN`) or full paths (`PI`).
fn runtime_text(declaration: &str) -> String {
    let text = declaration.replace("crate::DIFF_GAIN", "0.75");
    let identifier = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("PI") {
        let (before, after) = (&rest[..at], &rest[at + 2..]);
        out.push_str(before);
        let alone = !before.ends_with(identifier) && !after.starts_with(identifier);
        out.push_str(if alone { "std::f32::consts::PI" } else { "PI" });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Expands the case as the macro will, on a thread, and fails the build when it does not
/// finish within [`EXPANSION_LIMIT`].
fn expand_within_limit(args: &str, item: &str) {
    let (sender, receiver) = std::sync::mpsc::channel();
    let (owned_args, owned_item) = (args.to_owned(), item.to_owned());
    std::thread::spawn(move || {
        let parse = |text: &str| {
            text.parse::<proc_macro2::TokenStream>()
                .expect("generated code is tokens")
        };
        let _ = nape_codegen::expand(parse(&owned_args), parse(&owned_item));
        let _ = sender.send(());
    });
    match receiver.recv_timeout(EXPANSION_LIMIT) {
        Ok(()) => {}
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("#[constraint({args})] does not expand within {EXPANSION_LIMIT:?}: {item}")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            panic!("#[constraint({args})] panics in expansion: {item}")
        }
    }
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=NAPE_DIFF_EXPRESSIONS");
    println!("cargo::rerun-if-env-changed=NAPE_DIFF_SEED");
    let count = std::env::var("NAPE_DIFF_EXPRESSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_EXPRESSIONS);
    let seed = std::env::var("NAPE_DIFF_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_SEED);
    let mut rng = Rng(seed | 1);
    let mut out = String::new();
    let mut table = String::new();
    for case in 0..count {
        let bodies = 1 + rng.below(3);
        let mut generator = Generator {
            bodies,
            scalars: rng.below(3),
            vectors: rng.below(3),
            used: vec![false; bodies],
            names: Vec::new(),
            lets: 0,
            rng,
        };
        let statements = generator.statements();
        let mut rows: Vec<(Type, Code)> = Vec::new();
        let items = 1 + generator.rng.below(3);
        for _ in 0..items {
            if generator.rng.chance(60) {
                let c = generator.scalar(3);
                rows.push((Type::Scalar, c));
            } else {
                let c = generator.vector(3);
                rows.push((Type::Vector, c));
            }
        }
        // Every slot must be used, and the result must read a pose.
        for s in 0..bodies {
            if !generator.used[s] {
                generator.used[s] = true;
                rows.push((
                    Type::Scalar,
                    code(
                        format!("body{s}.angle.sin() + body{s}.position.x"),
                        format!("(add (sin (ang {s})) (vx (pos {s})))"),
                    ),
                ));
            }
        }
        // The rows above may not read a pose after all (a tuple field, `Vec2::new(..).x`
        // and cancellation drop parts), and a constraint must: one row that surely does.
        let s = generator.rng.below(bodies);
        rows.push((
            Type::Scalar,
            code(
                format!("body{s}.angle.sin() + body{s}.position.x"),
                format!("(add (sin (ang {s})) (vx (pos {s})))"),
            ),
        ));
        let result: Vec<&str> = rows.iter().map(|(_, c)| c.rust.as_str()).collect();
        let expression = if result.len() == 1 && generator.rng.chance(50) {
            result[0].to_owned()
        } else {
            format!("({},)", result.join(", "))
        };
        let program: Vec<String> = rows
            .iter()
            .map(|(t, c)| match t {
                Type::Scalar => format!("(row {})", c.program),
                Type::Vector => format!("(rows {})", c.program),
            })
            .collect();
        rng = generator.rng;
        let (scalars, vectors) = (generator.scalars, generator.vectors);

        let mut fields = String::new();
        let mut init = String::new();
        for s in 0..bodies {
            let _ = write!(fields, "pub body{s}: BodyHandle, ");
            let _ = write!(init, "body{s}: handles[{s}], ");
        }
        for k in 0..scalars {
            let _ = write!(fields, "pub p{k}: f32, ");
            let _ = write!(init, "p{k}: scalars[{k}], ");
        }
        for k in 0..vectors {
            let _ = write!(fields, "pub v{k}: Vec2, ");
            let _ = write!(init, "v{k}: vectors[{k}], ");
        }
        let args = format!("position = {{ {statements}{expression} }}");
        let item = format!("#[derive(Clone, Copy, Debug)] pub struct Case{case} {{ {fields} }}");
        expand_within_limit(&args, &item);
        let _ = writeln!(
            out,
            "#[constraint(position = {{ {statements}{expression} }})]\n\
             #[derive(Clone, Copy, Debug)]\n\
             pub struct Case{case} {{ {fields} }}\n\
             #[allow(unused_variables)]\n\
             fn run{case}(handles: &[BodyHandle], scalars: &[f32], vectors: &[Vec2], state: &State) -> Outputs {{\n\
             \x20   outputs(&Case{case} {{ {init} }}, state)\n\
             }}\n"
        );
        let escape = |text: &str| text.replace('\\', "\\\\").replace('"', "\\\"");
        let source = escape(&format!("{{ {statements}{expression} }}"));
        let declaration = escape(&runtime_text(&format!(
            "#[constraint(position = {{ {statements}{expression} }})] pub struct Case{case} {{ {fields} }}"
        )));
        let rows: usize = rows
            .iter()
            .map(|(t, _)| if *t == Type::Scalar { 1 } else { 2 })
            .sum();
        let _ = writeln!(
            table,
            "    Case {{ name: \"Case{case}\", source: \"{source}\", program: \"{}\", bodies: {bodies}, scalars: {scalars}, vectors: {vectors}, run: run{case}, runtime: |h, s, v, state| runtime::<{rows}, {bodies}>(\"{declaration}\", h, s, v, state) }},",
            program.join(" ")
        );
    }
    let _ = writeln!(
        out,
        "/// Every generated case.\npub const CASES: &[Case] = &[\n{table}];"
    );
    let path = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("cases.rs");
    std::fs::write(path, out).expect("OUT_DIR is writable");
}
