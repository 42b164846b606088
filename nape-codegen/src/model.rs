//! The model: the constraint's expression lowered from Rust syntax into the symbolic graph,
//! typed (`f32`, `Vec2`, tuples), with every name resolved against the struct's fields.
//!
//! Vectors exist only here, as pairs of scalar nodes; the graph sees scalars. A mistake in
//! a sub-expression is reported at its tokens and the sub-expression becomes a poison
//! value that silences everything built on it, so one mistake gives one error.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{BinOp, Expr, Ident, Lit, UnOp};

use crate::errors::{Errors, closest};
use crate::parse::{Args, FieldKind, Input};
use crate::symbolic::{Dof, Graph, Id, Leaf};

/// Whether the constraint is positional or velocity-only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `position = ...`: rows are `c(q)`.
    Position,
    /// `velocity = ...`: rows are `J·v + b`.
    Velocity,
}

/// A comparison of a validation rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// `<`
    Less,
    /// `<=`
    LessEqual,
    /// `>`
    Greater,
    /// `>=`
    GreaterEqual,
    /// `==`
    Equal,
    /// `!=`
    NotEqual,
}

/// A parameter rule from `validate = [...]`.
pub struct Rule {
    /// Left side, over parameters.
    pub left: Id,
    /// The comparison.
    pub comparison: Comparison,
    /// Right side, over parameters.
    pub right: Id,
    /// The rule as written, for the error message.
    pub text: String,
}

/// The bounds of one row, as nodes over parameters; `None` is infinite.
#[derive(Clone, Copy, Debug)]
pub struct RowBounds {
    /// Lower bound.
    pub min: Option<Id>,
    /// Upper bound.
    pub max: Option<Id>,
}

/// Everything the derivation and emission need to know about one constraint.
pub struct Model {
    /// The struct's name.
    pub name: Ident,
    /// Body slot fields, in slot order.
    pub bodies: Vec<Ident>,
    /// Scalar parameter fields, indexed by `Leaf::Scalar`.
    pub scalars: Vec<Ident>,
    /// Vector parameter fields, indexed by `Leaf::VectorX/VectorY`.
    pub vectors: Vec<Ident>,
    /// The graph holding the rows and everything derived from them.
    pub graph: Graph,
    /// Positional or velocity-only.
    pub mode: Mode,
    /// The rows of `c(q)` (or of `J·v + b`).
    pub rows: Vec<Id>,
    /// Per-row bounds, if `limits` was given.
    pub limits: Option<Vec<RowBounds>>,
    /// Validation rules.
    pub rules: Vec<Rule>,
    /// Pairs of body slots that must hold different bodies (`validate = [body1 != body2]`),
    /// with the rule as written.
    pub distinct_bodies: Vec<(usize, usize, String)>,
    /// Named constants the macro cannot see into, indexed by `Leaf::Named`: their paths as
    /// written.
    pub named: Vec<TokenStream>,
    /// The path of the runtime crate.
    pub krate: TokenStream,
    /// The expression's tokens, for errors found after lowering.
    pub source: TokenStream,
}

impl Model {
    /// Per scalar parameter, whether it appears in a row's bounds (then it may be
    /// infinite, an open end; every other number must be finite).
    pub fn scalars_in_bounds(&self) -> Vec<bool> {
        let bound_roots: Vec<Id> = self
            .limits
            .iter()
            .flatten()
            .flat_map(|b| [b.min, b.max])
            .flatten()
            .collect();
        let mut in_bounds = vec![false; self.scalars.len()];
        for id in self.graph.reachable(&bound_roots) {
            if let crate::symbolic::Node::Leaf(Leaf::Scalar(k)) = self.graph.node(id) {
                in_bounds[usize::from(k)] = true;
            }
        }
        in_bounds
    }
}

impl Comparison {
    /// Whether `left <op> right` holds.
    #[must_use]
    #[cfg(feature = "runtime")]
    pub fn holds(self, left: f32, right: f32) -> bool {
        match self {
            Comparison::Less => left < right,
            Comparison::LessEqual => left <= right,
            Comparison::Greater => left > right,
            Comparison::GreaterEqual => left >= right,
            Comparison::Equal => left == right,
            Comparison::NotEqual => left != right,
        }
    }
}

/// A typed value during lowering.
#[derive(Clone, Debug)]
enum Value {
    Scalar(Id),
    Vector(Id, Id),
    Body(u8),
    Rows(Vec<Value>),
    /// The result of a mistake already reported.
    Poison,
}

impl Value {
    fn describe(&self) -> &'static str {
        match self {
            Value::Scalar(_) => "`f32`",
            Value::Vector(..) => "`Vec2`",
            Value::Body(_) => "a body",
            Value::Rows(_) => "a tuple",
            Value::Poison => "an invalid value",
        }
    }
}

#[derive(Clone, Copy)]
enum FieldRef {
    Body(u8),
    Scalar(u16),
    Vector(u16),
    /// A field whose type was already reported as unusable.
    Unusable,
}

/// What may appear in the expression being lowered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Position,
    Velocity,
    /// Limits and validation rules: parameters and literals only.
    Parameters,
}

const BODY_PROPERTIES: &[&str] = &[
    "position",
    "angle",
    "rotation",
    "velocity",
    "angular_velocity",
];
const BODY_METHODS: &[&str] = &["rotate", "world_point"];
const VECTOR_METHODS: &[&str] = &[
    "dot",
    "perp_dot",
    "perp",
    "length",
    "length_squared",
    "normalize",
    "normalize_or_zero",
    "distance",
    "distance_squared",
    "to_angle",
    "angle_to",
];
const SCALAR_METHODS: &[&str] = &[
    "sqrt", "sin", "cos", "tan", "sin_cos", "asin", "acos", "atan", "atan2", "exp", "ln", "abs",
    "min", "max", "clamp", "hypot", "recip", "powi",
];
/// Methods of Rust's `f32` that a constraint expression cannot use: named as such, rather
/// than answered with the nearest supported name (`floor` is not a typo of `cos`).
const UNSUPPORTED_SCALAR_METHODS: &[&str] = &[
    "floor",
    "ceil",
    "round",
    "round_ties_even",
    "trunc",
    "fract",
    "signum",
    "copysign",
    "powf",
    "exp2",
    "exp_m1",
    "log",
    "log2",
    "log10",
    "ln_1p",
    "cbrt",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "mul_add",
    "rem_euclid",
    "div_euclid",
    "to_degrees",
    "to_radians",
    "minimum",
    "maximum",
    "midpoint",
    "total_cmp",
];

/// A method applied to a receiver: `receiver.method(args)` or `f32::method(receiver, args)`.
struct Invocation<'a> {
    method: &'a Ident,
    /// The arguments after the receiver.
    args: Vec<&'a Expr>,
    /// The parentheses, for errors about the argument count.
    parens: Span,
    /// Whether the receiver was written as the first argument (call form).
    receiver_is_argument: bool,
}

struct Lowerer<'e> {
    graph: Graph,
    fields: HashMap<String, FieldRef>,
    bindings: Vec<(String, Value)>,
    named: Vec<TokenStream>,
    context: Context,
    body_used: Vec<bool>,
    errors: &'e mut Errors,
}

/// Builds the model; `None` when the input is too broken to derive anything (reported).
pub fn build(args: Args, input: &Input, errors: &mut Errors) -> Option<Model> {
    let mut bodies = Vec::new();
    let mut scalars = Vec::new();
    let mut vectors = Vec::new();
    let mut fields = HashMap::new();
    for field in &input.fields {
        let reference = match field.kind {
            FieldKind::Body => {
                bodies.push(field.ident.clone());
                FieldRef::Body(u8::try_from(bodies.len() - 1).unwrap_or(u8::MAX))
            }
            FieldKind::Scalar => {
                scalars.push(field.ident.clone());
                FieldRef::Scalar(u16::try_from(scalars.len() - 1).unwrap_or(u16::MAX))
            }
            FieldKind::Vector => {
                vectors.push(field.ident.clone());
                FieldRef::Vector(u16::try_from(vectors.len() - 1).unwrap_or(u16::MAX))
            }
        };
        fields.insert(field.ident.to_string(), reference);
    }
    for ident in &input.unusable {
        fields.insert(ident.to_string(), FieldRef::Unusable);
    }
    let name = input.item.ident.clone();
    if bodies.is_empty() && input.unusable.is_empty() {
        errors.push(syn::Error::new(
            name.span(),
            "a constraint needs at least one body: add a field of type `BodyHandle`",
        ));
    }
    if bodies.len() > 8 {
        errors.push(syn::Error::new(
            bodies[8].span(),
            "a constraint may have at most 8 body slots",
        ));
    }

    let (mode, expression, key) = match (args.position, args.velocity) {
        (Some(position), None) => (Mode::Position, position.value, position.key),
        (None, Some(velocity)) => (Mode::Velocity, velocity.value, velocity.key),
        (Some(_), Some(velocity)) => {
            errors.push(syn::Error::new(
                velocity.key,
                "give either `position = ...` or `velocity = ...`, not both: a velocity-only \
                 constraint has no position",
            ));
            return None;
        }
        (None, None) if args.had_unknown => return None,
        (None, None) => {
            errors.push(syn::Error::new(
                Span::call_site(),
                "missing the constraint: write `#[constraint(position = <expression>)]`, or \
                 `velocity = <expression>` for a velocity-only constraint",
            ));
            return None;
        }
    };

    let mut lowerer = Lowerer {
        graph: Graph::new(),
        fields,
        bindings: Vec::new(),
        named: Vec::new(),
        context: match mode {
            Mode::Position => Context::Position,
            Mode::Velocity => Context::Velocity,
        },
        body_used: vec![false; bodies.len()],
        errors,
    };
    let value = lowerer.lower(&expression);
    let rows = lowerer.rows(&value, &expression);
    lowerer.check_bodies(&rows, &expression, &bodies, mode);

    lowerer.context = Context::Parameters;
    let limits = args
        .limits
        .map(|limits| lowerer.limits(&limits.value, limits.key, rows.as_ref().map(Vec::len)));
    let mut rules = Vec::new();
    let mut distinct_bodies = Vec::new();
    for rule in args.validate.map(|rules| rules.value).unwrap_or_default() {
        match lowerer.body_rule(&rule) {
            Some(pair) => distinct_bodies.extend(pair),
            None => rules.extend(lowerer.rule(&rule)),
        }
    }
    if mode == Mode::Velocity
        && let Some(Some(bounds)) = &limits
        && !bounds.is_empty()
    {
        lowerer.errors.push(syn::Error::new(
            key,
            "a velocity-only constraint cannot have `limits`: its rows are always equalities",
        ));
    }

    let krate = match args.krate {
        Some(path) => path.value.to_token_stream(),
        None => quote!(::nape),
    };
    if !lowerer.errors.is_empty() {
        return None;
    }
    Some(Model {
        name,
        bodies,
        scalars,
        vectors,
        graph: lowerer.graph,
        mode,
        rows: rows?,
        limits: limits.flatten(),
        rules,
        distinct_bodies,
        named: lowerer.named,
        krate,
        source: expression.to_token_stream(),
    })
}

impl Lowerer<'_> {
    fn error(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) -> Value {
        self.errors.push(syn::Error::new_spanned(tokens, message));
        Value::Poison
    }

    fn error_at(&mut self, span: Span, message: impl std::fmt::Display) -> Value {
        self.errors.push(syn::Error::new(span, message));
        Value::Poison
    }

    /// The rows of the result, flattened; `None` if the result is not rows of numbers.
    fn rows(&mut self, value: &Value, expression: &Expr) -> Option<Vec<Id>> {
        let mut rows = Vec::new();
        if self.flatten(value, &mut rows, expression) {
            Some(rows)
        } else {
            None
        }
    }

    fn flatten(&mut self, value: &Value, rows: &mut Vec<Id>, expression: &Expr) -> bool {
        match value {
            Value::Scalar(id) => rows.push(*id),
            Value::Vector(x, y) => rows.extend([*x, *y]),
            Value::Rows(values) => {
                let mut ok = true;
                for value in values {
                    ok &= self.flatten(value, rows, expression);
                }
                return ok;
            }
            Value::Body(_) => {
                self.error(
                    result_tokens(expression),
                    "the constraint's value is a body; it must be `f32`, `Vec2`, or a tuple or \
                     array of those (one row per `f32`, two per `Vec2`)",
                );
                return false;
            }
            Value::Poison => return false,
        }
        true
    }

    fn check_bodies(
        &mut self,
        rows: &Option<Vec<Id>>,
        expression: &Expr,
        bodies: &[Ident],
        mode: Mode,
    ) {
        let Some(rows) = rows else { return };
        let depends = rows.iter().any(|&row| {
            self.graph.depends_on(row, |leaf| match mode {
                Mode::Position => matches!(leaf, Leaf::Pose(..) | Leaf::Cos(_) | Leaf::Sin(_)),
                Mode::Velocity => matches!(leaf, Leaf::Velocity(..)),
            })
        });
        if !depends {
            let what = match mode {
                Mode::Position => "the position or angle of any body",
                Mode::Velocity => "the velocity of any body",
            };
            self.error(
                result_tokens(expression),
                format!(
                    "this constraint does not depend on {what}, so it cannot move anything; \
                     use a body field, e.g. `body.position` or `body.angle`"
                ),
            );
            return;
        }
        for (slot, used) in self.body_used.clone().into_iter().enumerate() {
            if !used {
                self.error(
                    &bodies[slot],
                    format!(
                        "body `{}` is not used by the constraint's expression; use it or \
                         remove the field",
                        bodies[slot]
                    ),
                );
            }
        }
    }

    fn limits(
        &mut self,
        limits: &[crate::parse::RowLimit],
        key: Span,
        dim: Option<usize>,
    ) -> Option<Vec<RowBounds>> {
        if let Some(dim) = dim
            && dim != limits.len()
        {
            self.error_at(
                key,
                format!(
                    "`limits` has {} entr{} but the constraint has {dim} row{}: give one \
                     range per row (`..` for a row without bounds is not allowed, use `0.0` for \
                     an equality)",
                    limits.len(),
                    if limits.len() == 1 { "y" } else { "ies" },
                    if dim == 1 { "" } else { "s" },
                ),
            );
        }
        let mut bounds = Vec::new();
        for limit in limits {
            if limit.min.is_none() && limit.max.is_none() {
                self.error_at(
                    limit.span,
                    "a row bounded by `..` on both sides never acts; give at least one bound",
                );
                continue;
            }
            let min = limit.min.as_ref().and_then(|e| self.bound(e));
            let max = if limit.equality {
                min
            } else {
                limit.max.as_ref().and_then(|e| self.bound(e))
            };
            bounds.push(RowBounds { min, max });
        }
        Some(bounds)
    }

    fn bound(&mut self, expression: &Expr) -> Option<Id> {
        match self.lower(expression) {
            Value::Scalar(id) => Some(id),
            Value::Poison => None,
            other => {
                self.error(
                    expression,
                    format!(
                        "a bound must be a scalar (`f32`), found {}",
                        other.describe()
                    ),
                );
                None
            }
        }
    }

    /// `Some` when the rule compares two body fields: `Some(Some(pair))` for a valid
    /// `a != b`, `Some(None)` for a reported mistake.
    fn body_rule(&mut self, rule: &Expr) -> Option<Option<(usize, usize, String)>> {
        let Expr::Binary(binary) = strip(rule) else {
            return None;
        };
        let body =
            |e: &Expr| match strip(e) {
                Expr::Path(path) => path.path.get_ident().and_then(|ident| {
                    match self.fields.get(&ident.to_string()) {
                        Some(FieldRef::Body(slot)) => Some(usize::from(*slot)),
                        _ => None,
                    }
                }),
                _ => None,
            };
        let (left, right) = (body(&binary.left), body(&binary.right));
        match (left, right, &binary.op) {
            (Some(a), Some(b), BinOp::Ne(_)) => {
                Some(Some((a, b, rule.to_token_stream().to_string())))
            }
            (Some(_), Some(_), op) => {
                self.error(
                    op,
                    "bodies can only be required to differ: `body1 != body2`",
                );
                Some(None)
            }
            _ => None,
        }
    }

    fn rule(&mut self, rule: &Expr) -> Option<Rule> {
        let Expr::Binary(binary) = strip(rule) else {
            self.error(rule, "a validation rule is a comparison of parameters, like `min <= max` or `ratio != 0.0`");
            return None;
        };
        let comparison = match binary.op {
            BinOp::Lt(_) => Comparison::Less,
            BinOp::Le(_) => Comparison::LessEqual,
            BinOp::Gt(_) => Comparison::Greater,
            BinOp::Ge(_) => Comparison::GreaterEqual,
            BinOp::Eq(_) => Comparison::Equal,
            BinOp::Ne(_) => Comparison::NotEqual,
            _ => {
                self.error(
                    binary.op,
                    "a validation rule is one comparison: `<`, `<=`, `>`, `>=`, `==` or `!=`",
                );
                return None;
            }
        };
        let left = self.lower(&binary.left);
        let right = self.lower(&binary.right);
        let (left, right) = match (left, right) {
            (Value::Scalar(l), Value::Scalar(r)) => (l, r),
            (Value::Poison, _) | (_, Value::Poison) => return None,
            (l, r) => {
                self.error(
                    rule,
                    format!(
                        "a validation rule compares scalars; this compares {} with {} (use \
                         `.length()` to compare a vector's size)",
                        l.describe(),
                        r.describe()
                    ),
                );
                return None;
            }
        };
        Some(Rule {
            left,
            comparison,
            right,
            text: rule.to_token_stream().to_string(),
        })
    }

    fn lower(&mut self, expression: &Expr) -> Value {
        match expression {
            Expr::Paren(inner) => self.lower(&inner.expr),
            Expr::Group(inner) => self.lower(&inner.expr),
            Expr::Lit(literal) => self.literal(&literal.lit),
            Expr::Block(block) if block.label.is_none() => self.block(&block.block),
            Expr::Path(path) => self.path(path),
            Expr::Field(field) => self.field(field),
            Expr::MethodCall(call) => self.method(call),
            Expr::Call(call) => self.call(call),
            Expr::Binary(binary) => self.binary(binary),
            Expr::Unary(unary) => self.unary(unary),
            Expr::Tuple(tuple) => {
                let values = tuple.elems.iter().map(|e| self.lower(e)).collect();
                Value::Rows(values)
            }
            Expr::Array(array) => {
                let values = array.elems.iter().map(|e| self.lower(e)).collect();
                Value::Rows(values)
            }
            Expr::Macro(mac) => self.error(
                &mac.mac.path,
                "macros are not supported in a constraint expression",
            ),
            Expr::If(branch) => self.error(
                branch.if_token,
                "`if` is not supported in a constraint: write a piecewise expression with \
                 `min`, `max`, `clamp` or `abs` (e.g. `x.max(0.0)` for \
                 `if x > 0.0 { x } else { 0.0 }`), whose derivatives at the switch are \
                 defined, and a one-sided constraint with `limits = [0.0..]`",
            ),
            Expr::Match(branch) => self.error(
                branch.match_token,
                "`match` is not supported in a constraint: write a piecewise expression with \
                 `min`, `max`, `clamp` or `abs`, and a one-sided constraint with `limits`",
            ),
            Expr::Cast(cast) => self.error(
                cast.as_token,
                "casts are not supported: every value is already `f32`",
            ),
            _ => self.error(
                expression,
                "this kind of expression is not supported in a constraint",
            ),
        }
    }

    fn literal(&mut self, literal: &Lit) -> Value {
        let value = match literal {
            Lit::Float(float) => match float.suffix() {
                "" | "f32" | "f64" => float.base10_parse::<f64>().ok(),
                _ => None,
            },
            Lit::Int(int) => match int.suffix() {
                "" | "f32" | "f64" => int.base10_parse::<f64>().ok(),
                _ => None,
            },
            _ => None,
        };
        match value {
            Some(value) => Value::Scalar(self.graph.constant(value)),
            None => self.error(literal, "expected a number (`f32`)"),
        }
    }

    fn block(&mut self, block: &syn::Block) -> Value {
        let depth = self.bindings.len();
        let mut result = None;
        let last = block.stmts.len().saturating_sub(1);
        for (index, statement) in block.stmts.iter().enumerate() {
            match statement {
                syn::Stmt::Local(local) => {
                    let Some(init) = &local.init else {
                        self.error(
                            local,
                            "a `let` in a constraint needs a value: `let name = ...;`",
                        );
                        self.bind(&local.pat, Value::Poison);
                        continue;
                    };
                    if let Some((else_token, _)) = &init.diverge {
                        self.error(else_token, "`let ... else` is not supported here");
                        self.bind(&local.pat, Value::Poison);
                        continue;
                    }
                    let value = self.lower(&init.expr);
                    self.bind(&local.pat, value);
                }
                syn::Stmt::Expr(expression, None) if index == last => {
                    result = Some(self.lower(expression));
                }
                syn::Stmt::Expr(expression, semi) => {
                    let tokens = quote!(#expression #semi);
                    self.error(tokens, "only `let` bindings may come before the block's final expression (which has no `;`)");
                }
                syn::Stmt::Item(item) => {
                    self.error(
                        item,
                        "items are not supported inside a constraint expression",
                    );
                }
                syn::Stmt::Macro(mac) => {
                    self.error(
                        &mac.mac.path,
                        "macros are not supported in a constraint expression",
                    );
                }
            }
        }
        self.bindings.truncate(depth);
        match result {
            Some(value) => value,
            None => self.error_at(
                block.brace_token.span.close(),
                "the block must end with the constraint's value (an expression without `;`)",
            ),
        }
    }

    /// Binds the names of a `let` pattern: a name, `_`, a tuple of patterns, or a pattern
    /// with a type, which is checked. After a mistake every name of the pattern is bound
    /// to a poison value, so later uses report nothing further.
    fn bind(&mut self, pattern: &syn::Pat, value: Value) {
        match (pattern, value) {
            (syn::Pat::Ident(ident), value) if ident.subpat.is_none() && ident.by_ref.is_none() => {
                if let Some(mutability) = &ident.mutability {
                    self.error(mutability, "bindings in a constraint cannot be `mut`");
                }
                self.bindings.push((ident.ident.to_string(), value));
            }
            (syn::Pat::Wild(_), _) => {}
            (syn::Pat::Paren(inner), value) => self.bind(&inner.pat, value),
            (syn::Pat::Type(typed), Value::Poison) => self.bind(&typed.pat, Value::Poison),
            (syn::Pat::Type(typed), value) => match has_type(&value, &typed.ty) {
                Some(true) => self.bind(&typed.pat, value),
                Some(false) => {
                    self.error(
                        &typed.ty,
                        format!(
                            "mismatched types: this `let` is annotated `{}` but its value \
                                 is `{}`",
                            typed.ty.to_token_stream().to_string().replace(' ', ""),
                            type_name(&value)
                        ),
                    );
                    self.bind(&typed.pat, Value::Poison);
                }
                None => {
                    self.error(
                        &typed.ty,
                        format!(
                            "a constraint's values are `f32`, `Vec2`, and tuples or arrays \
                                 of those; `{}` is not one of them",
                            typed.ty.to_token_stream()
                        ),
                    );
                    self.bind(&typed.pat, Value::Poison);
                }
            },
            (syn::Pat::Tuple(tuple), Value::Rows(values)) if tuple.elems.len() == values.len() => {
                for (element, value) in tuple.elems.iter().zip(values) {
                    self.bind(element, value);
                }
            }
            (syn::Pat::Tuple(tuple), Value::Poison) => {
                for element in &tuple.elems {
                    self.bind(element, Value::Poison);
                }
            }
            (syn::Pat::Tuple(tuple), value) => {
                let message = match &value {
                    Value::Rows(values) => format!(
                        "this pattern has {} element{} but the value is a tuple of {}",
                        tuple.elems.len(),
                        if tuple.elems.len() == 1 { "" } else { "s" },
                        values.len()
                    ),
                    Value::Vector(..) => "a `Vec2` is not a tuple: bind it whole (`let v = ...;`) \
                                          and use `v.x` and `v.y`"
                        .to_owned(),
                    other => format!("cannot destructure {} as a tuple", other.describe()),
                };
                self.error(pattern, message);
                for element in &tuple.elems {
                    self.bind(element, Value::Poison);
                }
            }
            (other, _) => {
                self.error(
                    other,
                    "bind a name or a tuple of names: `let name = ...;` or `let (a, b) = ...;`",
                );
                self.bind_names_poisoned(other);
            }
        }
    }

    /// Binds every name inside an unsupported pattern to poison.
    fn bind_names_poisoned(&mut self, pattern: &syn::Pat) {
        match pattern {
            syn::Pat::Ident(ident) => {
                self.bindings.push((ident.ident.to_string(), Value::Poison));
                if let Some((_, sub)) = &ident.subpat {
                    self.bind_names_poisoned(sub);
                }
            }
            syn::Pat::Tuple(tuple) => tuple.elems.iter().for_each(|p| self.bind_names_poisoned(p)),
            syn::Pat::TupleStruct(tuple) => {
                tuple.elems.iter().for_each(|p| self.bind_names_poisoned(p));
            }
            syn::Pat::Struct(structure) => {
                for field in &structure.fields {
                    self.bind_names_poisoned(&field.pat);
                }
            }
            syn::Pat::Slice(slice) => slice.elems.iter().for_each(|p| self.bind_names_poisoned(p)),
            syn::Pat::Reference(reference) => self.bind_names_poisoned(&reference.pat),
            syn::Pat::Type(typed) => self.bind_names_poisoned(&typed.pat),
            syn::Pat::Paren(inner) => self.bind_names_poisoned(&inner.pat),
            _ => {}
        }
    }

    fn path(&mut self, path: &syn::ExprPath) -> Value {
        if path.qself.is_some() {
            return self.error(path, "qualified paths are not supported");
        }
        let segments: Vec<String> = path
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if let [name] = segments.as_slice()
            && path.path.leading_colon.is_none()
        {
            if is_constant_name(name)
                && self.bindings.iter().all(|(bound, _)| bound != name)
                && !self.fields.contains_key(name.as_str())
            {
                return self.named_constant(path);
            }
            return self.name(name, &path.path.segments[0].ident);
        }
        let joined = segments.join("::");
        let tail: Vec<&str> = segments.iter().map(String::as_str).collect();
        let scalar = match tail.as_slice() {
            [.., "f32" | "f64", "INFINITY"] => Some(f64::INFINITY),
            [.., "f32" | "f64", "NEG_INFINITY"] => Some(f64::NEG_INFINITY),
            [.., "consts", "PI"] => Some(std::f64::consts::PI),
            [.., "consts", "TAU"] => Some(std::f64::consts::TAU),
            [.., "consts", "FRAC_PI_2"] => Some(std::f64::consts::FRAC_PI_2),
            [.., "consts", "FRAC_PI_4"] => Some(std::f64::consts::FRAC_PI_4),
            _ => None,
        };
        if let Some(value) = scalar {
            return Value::Scalar(self.graph.constant(value));
        }
        let vector = match tail.as_slice() {
            [.., "Vec2", "ZERO"] => Some((0.0, 0.0)),
            [.., "Vec2", "ONE"] => Some((1.0, 1.0)),
            [.., "Vec2", "X"] => Some((1.0, 0.0)),
            [.., "Vec2", "Y"] => Some((0.0, 1.0)),
            [.., "Vec2", "NEG_X"] => Some((-1.0, 0.0)),
            [.., "Vec2", "NEG_Y"] => Some((0.0, -1.0)),
            _ => None,
        };
        if let Some((x, y)) = vector {
            return Value::Vector(self.graph.constant(x), self.graph.constant(y));
        }
        if let [.., "Vec2", _] = tail.as_slice() {
            return self.error(
                path,
                format!(
                    "unknown path `{joined}`; the `Vec2` constants a constraint knows are \
                     `Vec2::ZERO`, `Vec2::ONE`, `Vec2::X`, `Vec2::Y`, `Vec2::NEG_X` and \
                     `Vec2::NEG_Y`"
                ),
            );
        }
        self.named_constant(path)
    }

    /// A path the macro cannot see into (`crate::GAP`, `PI` brought in by `use`): an `f32`
    /// constant with derivative zero, whose existence and type rustc checks.
    fn named_constant(&mut self, path: &syn::ExprPath) -> Value {
        let tokens = path.to_token_stream();
        let text = tokens.to_string();
        let index = match self.named.iter().position(|p| p.to_string() == text) {
            Some(index) => index,
            None => {
                self.named.push(tokens);
                self.named.len() - 1
            }
        };
        let index = u16::try_from(index).unwrap_or(u16::MAX);
        Value::Scalar(self.graph.leaf(Leaf::Named(index)))
    }

    fn name(&mut self, name: &str, ident: &Ident) -> Value {
        if let Some((_, value)) = self.bindings.iter().rev().find(|(bound, _)| bound == name) {
            return value.clone();
        }
        match self.fields.get(name).copied() {
            Some(FieldRef::Body(slot)) => {
                if self.context == Context::Parameters {
                    return self.error(ident, "limits and validation rules cannot refer to bodies, only to `f32` and `Vec2` fields");
                }
                Value::Body(slot)
            }
            Some(FieldRef::Unusable) => Value::Poison,
            Some(FieldRef::Scalar(index)) => Value::Scalar(self.graph.leaf(Leaf::Scalar(index))),
            Some(FieldRef::Vector(index)) => Value::Vector(
                self.graph.leaf(Leaf::VectorX(index)),
                self.graph.leaf(Leaf::VectorY(index)),
            ),
            None => {
                if name == "self" {
                    return self.error(ident, "write the field's name alone or as `self.field`");
                }
                let candidates: Vec<String> = self
                    .fields
                    .keys()
                    .cloned()
                    .chain(self.bindings.iter().map(|(n, _)| n.clone()))
                    .collect();
                let hint = closest(name, candidates.iter().map(String::as_str))
                    .map(|close| format!("; did you mean `{close}`?"))
                    .unwrap_or_default();
                self.error(
                    ident,
                    format!(
                        "cannot find `{name}` among the struct's fields and `let` bindings{hint}"
                    ),
                )
            }
        }
    }

    fn field(&mut self, field: &syn::ExprField) -> Value {
        let member = match &field.member {
            syn::Member::Named(member) => member,
            syn::Member::Unnamed(index) => return self.tuple_field(field, index),
        };
        if let Expr::Path(base) = strip(&field.base)
            && base.path.is_ident("self")
        {
            return self.name(&member.to_string(), member);
        }
        let base = self.lower(&field.base);
        let name = member.to_string();
        match base {
            Value::Poison => Value::Poison,
            Value::Body(slot) => self.body_property(slot, &name, member),
            Value::Vector(x, y) => match name.as_str() {
                "x" => Value::Scalar(x),
                "y" => Value::Scalar(y),
                _ => self.error(
                    member,
                    format!("`Vec2` has no field `{name}`; it has `x` and `y`"),
                ),
            },
            other => self.error(
                member,
                format!("{} has no field `{name}`", other.describe()),
            ),
        }
    }

    fn tuple_field(&mut self, field: &syn::ExprField, index: &syn::Index) -> Value {
        let position = index.index as usize;
        match self.lower(&field.base) {
            Value::Poison => Value::Poison,
            Value::Rows(mut values) if position < values.len() => values.swap_remove(position),
            Value::Rows(values) => self.error(
                index,
                format!(
                    "this tuple has {} element{}; there is no field `.{position}`",
                    values.len(),
                    if values.len() == 1 { "" } else { "s" }
                ),
            ),
            Value::Vector(..) => self.error(
                index,
                "a `Vec2` has the fields `x` and `y`, not numbered ones",
            ),
            other => self.error(
                index,
                format!("{} has no field `.{position}`", other.describe()),
            ),
        }
    }

    fn body_property(&mut self, slot: u8, name: &str, member: &Ident) -> Value {
        let slot_index = usize::from(slot);
        match name {
            "position" | "angle" | "rotation" => {
                self.body_used[slot_index] = true;
                if name == "position" {
                    Value::Vector(
                        self.graph.leaf(Leaf::Pose(slot, Dof::X)),
                        self.graph.leaf(Leaf::Pose(slot, Dof::Y)),
                    )
                } else {
                    Value::Scalar(self.graph.leaf(Leaf::Pose(slot, Dof::Angle)))
                }
            }
            "velocity" | "angular_velocity" => {
                if self.context != Context::Velocity {
                    return self.error(
                        member,
                        format!(
                            "`{name}` is only available in a velocity-only constraint \
                             (`velocity = ...`); a positional constraint is a function of \
                             positions and angles"
                        ),
                    );
                }
                self.body_used[slot_index] = true;
                if name == "velocity" {
                    Value::Vector(
                        self.graph.leaf(Leaf::Velocity(slot, Dof::X)),
                        self.graph.leaf(Leaf::Velocity(slot, Dof::Y)),
                    )
                } else {
                    Value::Scalar(self.graph.leaf(Leaf::Velocity(slot, Dof::Angle)))
                }
            }
            _ => {
                let hint = closest(name, BODY_PROPERTIES.iter().chain(BODY_METHODS).copied())
                    .map(|close| format!("did you mean `{close}`? "))
                    .unwrap_or_default();
                self.error(
                    member,
                    format!(
                        "a body has no property `{name}`; {hint}bodies have `position`, `angle`, \
                         `velocity`, `angular_velocity` and the methods `rotate(v)` and \
                         `world_point(v)`"
                    ),
                )
            }
        }
    }

    fn arguments(&mut self, call: &Invocation<'_>, count: usize) -> Option<Vec<Value>> {
        if call.args.len() != count {
            let message = format!(
                "`{}` takes {count} argument{}{}, found {}",
                call.method,
                if count == 1 { "" } else { "s" },
                if call.receiver_is_argument {
                    " after the receiver"
                } else {
                    ""
                },
                call.args.len()
            );
            self.error_at(call.parens, message);
            return None;
        }
        let values: Vec<Value> = call.args.iter().map(|a| self.lower(a)).collect();
        if values.iter().any(|v| matches!(v, Value::Poison)) {
            None
        } else {
            Some(values)
        }
    }

    fn vector_argument(
        &mut self,
        call: &Invocation<'_>,
        index: usize,
        value: &Value,
    ) -> Option<(Id, Id)> {
        match value {
            Value::Vector(x, y) => Some((*x, *y)),
            other => {
                self.error(
                    call.args[index],
                    format!(
                        "`{}` expects a `Vec2` argument, found {}",
                        call.method,
                        other.describe()
                    ),
                );
                None
            }
        }
    }

    fn scalar_arguments(&mut self, call: &Invocation<'_>, count: usize) -> Option<Vec<Id>> {
        let values = self.arguments(call, count)?;
        let mut scalars = Vec::new();
        for (index, value) in values.iter().enumerate() {
            match value {
                Value::Scalar(id) => scalars.push(*id),
                other => {
                    self.error(
                        call.args[index],
                        format!(
                            "`{}` expects an `f32` argument, found {}",
                            call.method,
                            other.describe()
                        ),
                    );
                    return None;
                }
            }
        }
        Some(scalars)
    }

    fn method(&mut self, call: &syn::ExprMethodCall) -> Value {
        if let Some(turbofish) = &call.turbofish {
            return self.error(turbofish, "generic arguments are not supported here");
        }
        let receiver = self.lower(&call.receiver);
        let invocation = Invocation {
            method: &call.method,
            args: call.args.iter().collect(),
            parens: call.paren_token.span.join(),
            receiver_is_argument: false,
        };
        self.invoke(receiver, &invocation)
    }

    /// `receiver.method(args)`, or `Type::method(receiver, args)`.
    fn invoke(&mut self, receiver: Value, call: &Invocation<'_>) -> Value {
        let method = call.method.to_string();
        match receiver {
            Value::Poison => {
                // Still look at the arguments, so their own mistakes are reported.
                for argument in &call.args {
                    self.lower(argument);
                }
                Value::Poison
            }
            Value::Body(slot) => match method.as_str() {
                "rotate" | "world_point" => {
                    let Some(args) = self.arguments(call, 1) else {
                        return Value::Poison;
                    };
                    let Some((ax, ay)) = self.vector_argument(call, 0, &args[0]) else {
                        return Value::Poison;
                    };
                    self.body_used[usize::from(slot)] = true;
                    let g = &mut self.graph;
                    let (c, s) = (g.leaf(Leaf::Cos(slot)), g.leaf(Leaf::Sin(slot)));
                    let (cx, sy) = (g.mul(c, ax), g.mul(s, ay));
                    let (sx, cy) = (g.mul(s, ax), g.mul(c, ay));
                    let (rx, ry) = (g.sub(cx, sy), g.add(sx, cy));
                    if method == "rotate" {
                        Value::Vector(rx, ry)
                    } else {
                        let (px, py) = (
                            g.leaf(Leaf::Pose(slot, Dof::X)),
                            g.leaf(Leaf::Pose(slot, Dof::Y)),
                        );
                        Value::Vector(g.add(px, rx), g.add(py, ry))
                    }
                }
                _ => self.unknown_method(call, "a body", BODY_METHODS, BODY_PROPERTIES),
            },
            Value::Vector(x, y) => self.vector_method(call, &method, x, y),
            Value::Scalar(a) => self.scalar_method(call, &method, a),
            Value::Rows(_) => self.error(call.method, "tuples have no methods"),
        }
    }

    fn vector_method(&mut self, call: &Invocation<'_>, method: &str, x: Id, y: Id) -> Value {
        match method {
            "dot" | "perp_dot" | "distance" | "distance_squared" | "angle_to" => {
                let Some(args) = self.arguments(call, 1) else {
                    return Value::Poison;
                };
                let Some((u, v)) = self.vector_argument(call, 0, &args[0]) else {
                    return Value::Poison;
                };
                let g = &mut self.graph;
                let dot = |g: &mut Graph| {
                    let (a, b) = (g.mul(x, u), g.mul(y, v));
                    g.add(a, b)
                };
                let perp_dot = |g: &mut Graph| {
                    let (a, b) = (g.mul(x, v), g.mul(y, u));
                    g.sub(a, b)
                };
                Value::Scalar(match method {
                    "dot" => dot(g),
                    "perp_dot" => perp_dot(g),
                    // glam: the signed angle from `self` to the argument.
                    "angle_to" => {
                        let (sine, cosine) = (perp_dot(g), dot(g));
                        g.atan2(sine, cosine)
                    }
                    _ => {
                        let (dx, dy) = (g.sub(x, u), g.sub(y, v));
                        let (xx, yy) = (g.mul(dx, dx), g.mul(dy, dy));
                        let squared = g.add(xx, yy);
                        if method == "distance" {
                            g.sqrt(squared)
                        } else {
                            squared
                        }
                    }
                })
            }
            "perp" => {
                if self.arguments(call, 0).is_none() {
                    return Value::Poison;
                }
                Value::Vector(self.graph.neg(y), x)
            }
            "to_angle" => {
                if self.arguments(call, 0).is_none() {
                    return Value::Poison;
                }
                Value::Scalar(self.graph.atan2(y, x))
            }
            "length" | "length_squared" | "normalize" | "normalize_or_zero" => {
                if self.arguments(call, 0).is_none() {
                    return Value::Poison;
                }
                let g = &mut self.graph;
                let (xx, yy) = (g.mul(x, x), g.mul(y, y));
                let squared = g.add(xx, yy);
                match method {
                    "length_squared" => Value::Scalar(squared),
                    "length" => Value::Scalar(g.sqrt(squared)),
                    _ => {
                        // The direction of a zero vector is taken as zero (see SafeRecip).
                        let length = g.sqrt(squared);
                        let inverse = g.safe_recip(length);
                        Value::Vector(g.mul(x, inverse), g.mul(y, inverse))
                    }
                }
            }
            _ => self.unknown_method(call, "`Vec2`", VECTOR_METHODS, &["x", "y"]),
        }
    }

    fn scalar_method(&mut self, call: &Invocation<'_>, method: &str, a: Id) -> Value {
        match method {
            "sqrt" | "sin" | "cos" | "tan" | "exp" | "ln" | "asin" | "acos" | "abs" | "recip"
            | "sin_cos" | "atan" => {
                if self.arguments(call, 0).is_none() {
                    return Value::Poison;
                }
                let g = &mut self.graph;
                Value::Scalar(match method {
                    "sqrt" => g.sqrt(a),
                    "sin" => g.sin(a),
                    "cos" => g.cos(a),
                    "tan" => g.tan(a),
                    "exp" => g.exp(a),
                    "ln" => g.ln(a),
                    "asin" => g.asin(a),
                    "acos" => g.acos(a),
                    "abs" => g.abs(a),
                    "atan" => {
                        let one = g.constant(1.0);
                        g.atan2(a, one)
                    }
                    "sin_cos" => {
                        let (sine, cosine) = (g.sin(a), g.cos(a));
                        return Value::Rows(vec![Value::Scalar(sine), Value::Scalar(cosine)]);
                    }
                    _ => g.recip(a),
                })
            }
            "atan2" | "min" | "max" | "hypot" => {
                let Some(args) = self.scalar_arguments(call, 1) else {
                    return Value::Poison;
                };
                let (g, b) = (&mut self.graph, args[0]);
                Value::Scalar(match method {
                    "atan2" => g.atan2(a, b),
                    "min" => g.min(a, b),
                    "max" => g.max(a, b),
                    _ => {
                        let (aa, bb) = (g.mul(a, a), g.mul(b, b));
                        let squared = g.add(aa, bb);
                        g.sqrt(squared)
                    }
                })
            }
            "clamp" => {
                let Some(args) = self.scalar_arguments(call, 2) else {
                    return Value::Poison;
                };
                let g = &mut self.graph;
                let raised = g.max(a, args[0]);
                Value::Scalar(g.min(raised, args[1]))
            }
            "powi" => {
                let exponent = match call.args.first().map(|e| strip(e)) {
                    Some(Expr::Lit(syn::ExprLit {
                        lit: Lit::Int(int), ..
                    })) if call.args.len() == 1 => int
                        .base10_parse::<u8>()
                        .ok()
                        .filter(|&n| (1..=8).contains(&n)),
                    _ => None,
                };
                let Some(exponent) = exponent else {
                    return self.error_at(
                        call.parens,
                        "`powi` takes one integer literal from 1 to 8, e.g. `x.powi(2)`",
                    );
                };
                let g = &mut self.graph;
                let mut power = a;
                for _ in 1..exponent {
                    power = g.mul(power, a);
                }
                Value::Scalar(power)
            }
            _ => self.unknown_method(call, "`f32`", SCALAR_METHODS, &[]),
        }
    }

    fn unknown_method(
        &mut self,
        call: &Invocation<'_>,
        receiver: &str,
        methods: &[&str],
        properties: &[&str],
    ) -> Value {
        let name = call.method.to_string();
        for argument in &call.args {
            self.lower(argument);
        }
        let list = methods
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", ");
        if receiver == "`f32`" && UNSUPPORTED_SCALAR_METHODS.contains(&name.as_str()) {
            return self.error(
                call.method,
                format!(
                    "`f32::{name}` is not supported in a constraint expression (the macro has \
                     no derivative rule for it); available: {list}"
                ),
            );
        }
        let hint = if name == "cross" && methods.contains(&"perp_dot") {
            "the 2D cross product is `perp_dot`; ".to_owned()
        } else {
            closest(&name, methods.iter().chain(properties).copied())
                .map(|close| format!("did you mean `{close}`? "))
                .unwrap_or_default()
        };
        self.error(
            call.method,
            format!("{receiver} has no method `{name}` in a constraint expression; {hint}available: {list}"),
        )
    }

    fn call(&mut self, call: &syn::ExprCall) -> Value {
        let Expr::Path(function) = strip(&call.func) else {
            return self.error(
                &call.func,
                "only `Vec2::new(x, y)`, `vec2(x, y)` and methods in call form \
                 (`f32::sqrt(x)`, `Vec2::dot(a, b)`) can be called",
            );
        };
        let segments: Vec<String> = function
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let tail: Vec<&str> = segments.iter().map(String::as_str).collect();
        if !matches!(tail.as_slice(), [.., "Vec2", "new"] | [.., "vec2"]) {
            return self.call_form(call, function, &tail);
        }
        if call.args.len() != 2 {
            return self.error_at(
                call.paren_token.span.join(),
                "`Vec2::new` takes two arguments: `Vec2::new(x, y)`",
            );
        }
        let x = self.lower(&call.args[0]);
        let y = self.lower(&call.args[1]);
        match (x, y) {
            (Value::Scalar(x), Value::Scalar(y)) => Value::Vector(x, y),
            (Value::Poison, _) | (_, Value::Poison) => Value::Poison,
            (x, y) => {
                let culprit = if matches!(x, Value::Scalar(_)) {
                    &call.args[1]
                } else {
                    &call.args[0]
                };
                let found = if matches!(x, Value::Scalar(_)) {
                    y.describe()
                } else {
                    x.describe()
                };
                self.error(
                    culprit,
                    format!("a `Vec2` component must be `f32`, found {found}"),
                )
            }
        }
    }

    /// A function other than `Vec2::new`: a method in call form (`f32::atan2(y, x)`,
    /// `Vec2::dot(a, b)`), or a mistake explained.
    fn call_form(
        &mut self,
        call: &syn::ExprCall,
        function: &syn::ExprPath,
        tail: &[&str],
    ) -> Value {
        let joined = tail.join("::");
        let method = &function
            .path
            .segments
            .last()
            .expect("a path has a segment")
            .ident;
        if let [name] = tail
            && SCALAR_METHODS.contains(name)
        {
            for argument in &call.args {
                self.lower(argument);
            }
            let (receiver, rest) = match name {
                &"atan2" => ("y", "x"),
                &"min" | &"max" | &"hypot" => ("a", "b"),
                &"clamp" => ("x", "low, high"),
                _ => ("x", ""),
            };
            return self.error(
                function,
                format!(
                    "`{name}` is a method of `f32`: write `{receiver}.{name}({rest})` or \
                     `f32::{name}({receiver}{}{rest})`",
                    if rest.is_empty() { "" } else { ", " }
                ),
            );
        }
        let method_form = match tail {
            [.., "f32" | "f64", _] => Some("`f32`"),
            [.., "Vec2", _] => Some("`Vec2`"),
            _ => None,
        };
        let Some(expected) = method_form else {
            return self.error(
                function,
                format!(
                    "unsupported function `{joined}`; write scalar functions as methods \
                     (`x.sqrt()`, `y.atan2(x)`) or in call form (`f32::sqrt(x)`), and \
                     vectors as `Vec2::new(x, y)`"
                ),
            );
        };
        let mut args = call.args.iter();
        let Some(first) = args.next() else {
            return self.error_at(
                call.paren_token.span.join(),
                format!("`{joined}` needs its receiver as the first argument"),
            );
        };
        let rest: Vec<&Expr> = args.collect();
        let receiver = self.lower(first);
        let matches = matches!(
            (&receiver, expected),
            (Value::Scalar(_), "`f32`") | (Value::Vector(..), "`Vec2`") | (Value::Poison, _)
        );
        if !matches {
            for argument in &rest {
                self.lower(argument);
            }
            return self.error(
                first,
                format!(
                    "`{joined}` takes {expected} as its first argument, found {}",
                    receiver.describe()
                ),
            );
        }
        let invocation = Invocation {
            method,
            args: rest,
            parens: call.paren_token.span.join(),
            receiver_is_argument: true,
        };
        self.invoke(receiver, &invocation)
    }

    fn binary(&mut self, binary: &syn::ExprBinary) -> Value {
        let left = self.lower(&binary.left);
        let right = self.lower(&binary.right);
        if matches!(left, Value::Poison) || matches!(right, Value::Poison) {
            return Value::Poison;
        }
        let g = &mut self.graph;
        let symbol = binary.op.to_token_stream().to_string();
        match (&binary.op, &left, &right) {
            (BinOp::Add(_), Value::Scalar(a), Value::Scalar(b)) => Value::Scalar(g.add(*a, *b)),
            (BinOp::Add(_), Value::Vector(ax, ay), Value::Vector(bx, by)) => {
                Value::Vector(g.add(*ax, *bx), g.add(*ay, *by))
            }
            (BinOp::Sub(_), Value::Scalar(a), Value::Scalar(b)) => Value::Scalar(g.sub(*a, *b)),
            (BinOp::Sub(_), Value::Vector(ax, ay), Value::Vector(bx, by)) => {
                Value::Vector(g.sub(*ax, *bx), g.sub(*ay, *by))
            }
            (BinOp::Mul(_), Value::Scalar(a), Value::Scalar(b)) => Value::Scalar(g.mul(*a, *b)),
            (BinOp::Mul(_), Value::Scalar(s), Value::Vector(x, y))
            | (BinOp::Mul(_), Value::Vector(x, y), Value::Scalar(s)) => {
                Value::Vector(g.mul(*s, *x), g.mul(*s, *y))
            }
            (BinOp::Div(_), _, Value::Scalar(b)) if g.is_const(*b, 0.0) => {
                self.error(&binary.right, "division by zero")
            }
            (BinOp::Div(_), Value::Scalar(a), Value::Scalar(b)) => Value::Scalar(g.div(*a, *b)),
            (BinOp::Div(_), Value::Vector(x, y), Value::Scalar(s)) => {
                let inverse = g.recip(*s);
                Value::Vector(g.mul(*x, inverse), g.mul(*y, inverse))
            }
            (BinOp::Mul(_), Value::Vector(..), Value::Vector(..)) => self.error(
                binary.op,
                "`Vec2 * Vec2` is not defined here: use `a.dot(b)` for the dot product or \
                     `a.perp_dot(b)` for the 2D cross product",
            ),
            (BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_), l, r) => {
                let hint = match (l, r) {
                    (Value::Scalar(_), Value::Vector(..))
                    | (Value::Vector(..), Value::Scalar(_))
                        if matches!(binary.op, BinOp::Add(_) | BinOp::Sub(_)) =>
                    {
                        "; both sides of `+` and `-` must be `f32`, or both `Vec2`"
                    }
                    (Value::Body(_), _) | (_, Value::Body(_)) => {
                        "; a body is not a number: use `body.position` or `body.angle`"
                    }
                    _ => "",
                };
                self.error(
                    binary.op,
                    format!(
                        "mismatched types: {} {symbol} {}{hint}",
                        l.describe(),
                        r.describe()
                    ),
                )
            }
            _ => self.error(
                binary.op,
                format!(
                    "operator `{symbol}` is not supported; a constraint uses `+ - * /` and methods"
                ),
            ),
        }
    }

    fn unary(&mut self, unary: &syn::ExprUnary) -> Value {
        let operand = self.lower(&unary.expr);
        match (&unary.op, operand) {
            (_, Value::Poison) => Value::Poison,
            (UnOp::Neg(_), Value::Scalar(a)) => Value::Scalar(self.graph.neg(a)),
            (UnOp::Neg(_), Value::Vector(x, y)) => {
                Value::Vector(self.graph.neg(x), self.graph.neg(y))
            }
            (UnOp::Neg(_), other) => {
                self.error(unary, format!("cannot negate {}", other.describe()))
            }
            (op, _) => self.error(op, "only unary `-` is supported"),
        }
    }
}

fn strip(expression: &Expr) -> &Expr {
    match expression {
        Expr::Paren(inner) => strip(&inner.expr),
        Expr::Group(inner) => strip(&inner.expr),
        other => other,
    }
}

/// The tokens of the value an expression produces: a block's final expression.
fn result_tokens(expression: &Expr) -> TokenStream {
    match strip(expression) {
        Expr::Block(block) => match block.block.stmts.last() {
            Some(syn::Stmt::Expr(last, None)) => result_tokens(last),
            _ => expression.to_token_stream(),
        },
        other => other.to_token_stream(),
    }
}

/// Whether a name is written like a Rust constant (`PI`, `MAX_GAP`): upper case, digits
/// and underscores, with at least one letter.
fn is_constant_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Whether a value has the type written in a `let` annotation; `None` if the annotation
/// is not a type a constraint knows.
fn has_type(value: &Value, ty: &syn::Type) -> Option<bool> {
    match ty {
        syn::Type::Paren(inner) => has_type(value, &inner.elem),
        syn::Type::Group(inner) => has_type(value, &inner.elem),
        syn::Type::Infer(_) => Some(true),
        syn::Type::Path(path) if path.qself.is_none() => {
            let last = path.path.segments.last()?;
            if !last.arguments.is_none() {
                return None;
            }
            match last.ident.to_string().as_str() {
                "f32" if path.path.segments.len() == 1 => Some(matches!(value, Value::Scalar(_))),
                "Vec2" => Some(matches!(value, Value::Vector(..))),
                _ => None,
            }
        }
        syn::Type::Tuple(tuple) => match value {
            Value::Rows(values) if values.len() == tuple.elems.len() => {
                let mut all = true;
                for (value, ty) in values.iter().zip(&tuple.elems) {
                    all &= has_type(value, ty)?;
                }
                Some(all)
            }
            _ => Some(false),
        },
        syn::Type::Array(array) => {
            let syn::Expr::Lit(syn::ExprLit {
                lit: Lit::Int(length),
                ..
            }) = &array.len
            else {
                return None;
            };
            let length = length.base10_parse::<usize>().ok()?;
            match value {
                Value::Rows(values) if values.len() == length => {
                    let mut all = true;
                    for value in values {
                        all &= has_type(value, &array.elem)?;
                    }
                    Some(all)
                }
                _ => Some(false),
            }
        }
        _ => None,
    }
}

/// A value's type as Rust would write it, for messages.
fn type_name(value: &Value) -> String {
    match value {
        Value::Scalar(_) => "f32".to_owned(),
        Value::Vector(..) => "Vec2".to_owned(),
        Value::Body(_) => "BodyHandle".to_owned(),
        Value::Rows(values) => {
            let names: Vec<String> = values.iter().map(type_name).collect();
            if names.len() == 1 {
                format!("({},)", names[0])
            } else {
                format!("({})", names.join(", "))
            }
        }
        Value::Poison => "_".to_owned(),
    }
}
