//! Constraints compiled at run time: the text of a `#[constraint]` declaration (or of a
//! Nape `SymbolicConstraint`) through the macro's own parse, model and derive, into flat
//! [`Tape`]s that a runtime evaluates in `f32` with no allocation per step.
//!
//! Only with the `runtime` feature. Every mistake is a [`Diagnostic`] with the macro's
//! message and the byte range of the text it concerns; no input panics, and the input's
//! size and nesting are bounded before anything recursive sees it ([`MAX_SOURCE_BYTES`],
//! [`MAX_TOKENS`], [`MAX_NESTING`]).

mod nape_dsl;
#[cfg(all(feature = "jit", target_arch = "x86_64"))]
mod native;
mod tape;

use std::ops::Range;
use std::str::FromStr;

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

use crate::derive::{self, Derivation, DeriveError};
use crate::errors::Errors;
pub use crate::errors::closest;
pub use crate::model::Comparison as Check;
use crate::model::{self, Mode, Model};
use crate::parse;
use crate::symbolic::{Id, Leaf};
#[cfg(all(feature = "jit", target_arch = "x86_64"))]
pub use native::{LinearizationOut, NativeLinearization, NativeMass, NativeTape, PoseRecord};
use tape::TapeBuilder;
pub use tape::{Axis, Input, Tape, TapeError};

/// The longest source accepted.
pub const MAX_SOURCE_BYTES: usize = 16 * 1024;
/// The most tokens a source may have. Half as many on wasm, where the compiler runs on
/// the caller's stack: in V8 a source of 1,800 nested minuses exhausts the engine's own
/// stack (1,600 compile), whatever the module's.
pub const MAX_TOKENS: usize = if cfg!(target_family = "wasm") {
    1024
} else {
    2048
};
/// The deepest nesting of brackets a source may have.
pub const MAX_NESTING: usize = 32;

/// A mistake in a source: the message the macro would give, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What is wrong (with a suggestion where the macro has one: `did you mean angle?`).
    pub message: String,
    /// The bytes of the source it concerns (empty at 0 for the source as a whole).
    pub range: Range<usize>,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (bytes {}..{})",
            self.message, self.range.start, self.range.end
        )
    }
}

impl std::error::Error for Diagnostic {}

/// Whether the rows are positions `c(q)` or velocities `J·v + b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `position = ...`.
    Position,
    /// `velocity = ...`.
    Velocity,
}

/// A rule of `validate = [...]` over the parameters: outputs `left` and `right` of
/// [`Program::parameters`].
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// The rule as written.
    pub text: String,
    /// Output index of the left side.
    pub left: usize,
    /// The comparison.
    pub check: Check,
    /// Output index of the right side.
    pub right: usize,
}

/// A compiled constraint: everything a runtime needs to evaluate it.
///
/// Tape outputs, with `D` rows and `B` slots:
/// - [`position`](Self::position): `c(q)`, `D` values (empty for a velocity constraint);
/// - [`jacobian`](Self::jacobian): `J` row by row, slot by slot, `[x, y, θ]` (`3·D·B`
///   values), then for a velocity constraint its `b` (`D` values);
/// - [`stiffness`](Self::stiffness): per slot `[angle, position]` geometric stiffness
///   under the force [`Input::Force`] (empty for a velocity constraint);
/// - [`parameters`](Self::parameters): the values [`limits`](Self::limits) and
///   [`rules`](Self::rules) index.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The struct's name (`NapeConstraint` for Nape's language).
    pub name: String,
    /// Positional or velocity-only.
    pub kind: Kind,
    /// Rows.
    pub dim: usize,
    /// Body slot names, in slot order.
    pub bodies: Vec<String>,
    /// Scalar parameter names ([`Input::Scalar`] indices).
    pub scalars: Vec<String>,
    /// Vector parameter names ([`Input::VectorX`] indices).
    pub vectors: Vec<String>,
    /// Per row `(min, max)` output indices of `parameters` (`None`: unbounded), if the
    /// declaration has `limits`.
    pub limits: Option<Vec<(Option<usize>, Option<usize>)>>,
    /// Validation rules.
    pub rules: Vec<Rule>,
    /// Pairs of slots that must hold different bodies, with the rule as written.
    pub distinct_bodies: Vec<(usize, usize, String)>,
    /// Each scalar's initial value (Nape's `scalar name = value`; otherwise 0).
    pub scalar_defaults: Vec<f32>,
    /// Each vector's initial value (Nape's `vector name = [x y]`; otherwise zero).
    pub vector_defaults: Vec<[f32; 2]>,
    /// Whether a scalar appears in a bound (then it may be infinite, as the macro allows).
    pub scalar_in_bounds: Vec<bool>,
    /// `c(q)`.
    pub position: Tape,
    /// `J` (and `b`).
    pub jacobian: Tape,
    /// The geometric stiffness.
    pub stiffness: Tape,
    /// Bounds and rule sides.
    pub parameters: Tape,
    /// Which winding the tapes' angle inputs are read from.
    pub winding: Winding,
    /// Where `c` is affine in the raw angles, its turn terms: `c` is then computed from
    /// the principal angles and the whole turns added (see [`TurnTerms`]).
    pub turn_terms: Option<TurnTerms>,
    /// Whether the rows are unchanged when every body moves by the same vector, so that
    /// the tapes may read positions relative to slot 0's body.
    pub translation_invariant: bool,
}

/// The whole turns of a constraint whose rows are affine in the raw angles: `c` at angles
/// `k_s` turns further is `c + 2π·Σ_s k_s·∂c/∂θ_s` exactly, so the position tape runs on
/// the principal angles (in `(−π, π]`, turns 0) and `2π·Σ_s (∂c/∂θ_s)·turns_s` is added
/// in `f64`: a gear between wheels that wind apart holds to `f32` precision of its rows.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnTerms {
    /// The coefficients `∂c/∂θ_s`, read at the principal angles, one output per term.
    pub tape: Tape,
    /// Each output's row and slot.
    pub terms: Vec<(usize, usize)>,
}

/// The most turn terms a [`Program`] has (rows × slots that read a raw angle): more, and
/// its angles are read as [`Winding`] says.
pub const MAX_TURN_TERMS: usize = 64;

/// Which winding a [`Program`]'s tapes read the bodies' angles from: the angle input
/// ([`Input::Pose`] with [`Axis::Angle`]) of slot `s` is `2π·(turns_s − reference) +
/// atan2(sin_s, cos_s)` in `f32`, with `reference` the winding chosen here. Where the
/// rows are unchanged when every angle turns by the same whole turns, a reference body's
/// winding is taken out of them all, so that the relative angles keep `f32` precision
/// after any number of turns; otherwise the angles are whole. The rows have the same
/// value either way, up to rounding.
#[derive(Clone, Debug, PartialEq)]
pub enum Winding {
    /// From 0: the whole angles (also where no angle is read).
    Absolute,
    /// From the winding of this slot.
    Relative(usize),
    /// From the winding of `slot` where every output of `test`, a tape over the
    /// parameters, is exactly 0 (an angle joint's `ratio − 1`); else from 0. It has at
    /// most one output per row.
    Conditional {
        /// The reference slot.
        slot: usize,
        /// The rows' sums `Σ_s ∂c/∂θ_s`.
        test: Tape,
    },
}

/// Compiles a constraint from text: a `#[constraint(...)] struct ... { ... }`
/// declaration as the macro takes it (with any doc comment and other attributes), or
/// Nape's `SymbolicConstraint` language (told apart by the start: `#[`, `//` or `/*`
/// begins the former).
///
/// # Errors
///
/// Every mistake found, each with its byte range.
pub fn compile(source: &str) -> Result<Program, Vec<Diagnostic>> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(vec![Diagnostic {
            message: format!(
                "the source is {} bytes long; at most {MAX_SOURCE_BYTES} are accepted",
                source.len()
            ),
            range: 0..0,
        }]);
    }
    on_large_stack(|| {
        let result = compile_here(source);
        // The spans of this source are no longer needed: without this, each compilation
        // would keep a copy of its text in proc-macro2's per-thread source map.
        proc_macro2::extra::invalidate_current_thread_spans();
        result
    })
}

/// The stack a compilation runs on: parsing, lowering and differentiating recurse once
/// per level of the expression, which [`MAX_TOKENS`] bounds (a chain of 1,000 unary
/// minuses overflows a test thread's 2 MiB in a debug build).
const STACK_BYTES: usize = 256 << 20;

/// Runs `work` on a thread of its own with a [`STACK_BYTES`] stack (only the pages used
/// are committed); where threads are unavailable (wasm), on this one.
fn on_large_stack(
    work: impl FnOnce() -> Result<Program, Vec<Diagnostic>> + Send,
) -> Result<Program, Vec<Diagnostic>> {
    if cfg!(target_family = "wasm") {
        return work();
    }
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .name("nape-compile".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, work)
        {
            Ok(thread) => thread.join().unwrap_or_else(|_| {
                Err(vec![Diagnostic {
                    message: "the compiler failed on this source".into(),
                    range: 0..0,
                }])
            }),
            Err(error) => Err(vec![Diagnostic {
                message: format!("cannot start the compiler's thread: {error}"),
                range: 0..0,
            }]),
        }
    })
}

fn compile_here(source: &str) -> Result<Program, Vec<Diagnostic>> {
    let rust = ["#[", "//", "/*"];
    if rust
        .iter()
        .any(|start| source.trim_start().starts_with(start))
    {
        rust_form(source)
    } else {
        nape_dsl::translate(source).and_then(|(args, item, defaults)| {
            let mut program = from_tokens(args, item)?;
            for default in defaults {
                if let Some(k) = program.scalars.iter().position(|n| *n == default.name) {
                    program.scalar_defaults[k] = default.value[0];
                }
                if let Some(k) = program.vectors.iter().position(|n| *n == default.name) {
                    program.vector_defaults[k] = default.value;
                }
            }
            Ok(program)
        })
    }
}

fn diagnostic(span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic {
        message: message.into(),
        range: span.byte_range(),
    }
}

fn diagnostics(errors: Errors) -> Vec<Diagnostic> {
    errors
        .combined()
        .into_iter()
        .flat_map(|all| all.into_iter())
        .map(|error| diagnostic(error.span(), error.to_string()))
        .collect()
}

/// Lexes `text`, bounding its size before anything recursive reads it.
pub(crate) fn lex(text: &str) -> Result<TokenStream, Vec<Diagnostic>> {
    let tokens = TokenStream::from_str(text).map_err(|error| {
        vec![diagnostic(
            error.span(),
            format!("cannot read the source: {error}"),
        )]
    })?;
    let mut count = 0;
    let mut stack = vec![(tokens.clone().into_iter(), 0usize)];
    while let Some((iter, depth)) = stack.last_mut() {
        let depth = *depth;
        let Some(tree) = iter.next() else {
            stack.pop();
            continue;
        };
        count += 1;
        if count > MAX_TOKENS {
            return Err(vec![diagnostic(
                tree.span(),
                format!("the source has more than {MAX_TOKENS} tokens"),
            )]);
        }
        if let TokenTree::Group(group) = tree {
            if depth + 1 > MAX_NESTING {
                return Err(vec![diagnostic(
                    group.span(),
                    format!("brackets nest deeper than {MAX_NESTING} levels"),
                )]);
            }
            stack.push((group.stream().into_iter(), depth + 1));
        }
    }
    Ok(tokens)
}

/// `#[constraint(<args>)] <item>`, among the item's other attributes (its doc comment,
/// `derive`s), which are kept with it.
fn rust_form(source: &str) -> Result<Program, Vec<Diagnostic>> {
    let trees: Vec<TokenTree> = lex(source)?.into_iter().collect();
    let mut args = None;
    let mut item = TokenStream::new();
    let mut at = 0;
    while let [TokenTree::Punct(pound), TokenTree::Group(attribute), ..] = &trees[at..] {
        if pound.as_char() != '#' || attribute.delimiter() != Delimiter::Bracket {
            break;
        }
        let inner: Vec<TokenTree> = attribute.stream().into_iter().collect();
        match &inner[..] {
            [TokenTree::Ident(name), TokenTree::Group(arguments)]
                if name == "constraint" && arguments.delimiter() == Delimiter::Parenthesis =>
            {
                if args.is_some() {
                    return Err(vec![diagnostic(
                        attribute.span(),
                        "`#[constraint]` is given twice",
                    )]);
                }
                args = Some(arguments.stream());
            }
            _ => item.extend(trees[at..at + 2].iter().cloned()),
        }
        at += 2;
    }
    let Some(args) = args else {
        let span = trees.get(at).map_or_else(Span::call_site, TokenTree::span);
        return Err(vec![diagnostic(
            span,
            "expected `#[constraint(...)]` before the struct",
        )]);
    };
    item.extend(trees[at..].iter().cloned());
    from_tokens(args, item)
}

/// The macro's pipeline on an attribute's arguments and a struct, then the tapes.
fn from_tokens(args: TokenStream, item: TokenStream) -> Result<Program, Vec<Diagnostic>> {
    let mut errors = Errors::default();
    let args = parse::Args::parse(args, &mut errors);
    if let Some(krate) = &args.krate {
        errors.push(syn::Error::new(
            krate.key,
            "`crate = ...` names the runtime of generated code; a constraint compiled at run \
             time has none",
        ));
    }
    let input = parse::Input::parse(item, &mut errors);
    let model = input
        .as_ref()
        .filter(|input| !input.generic)
        .and_then(|input| model::build(args, input, &mut errors));
    let Some(mut model) = model.filter(|_| errors.is_empty()) else {
        let mut found = diagnostics(errors);
        if found.is_empty() {
            found.push(diagnostic(
                Span::call_site(),
                "the declaration is incomplete",
            ));
        }
        return Err(found);
    };
    if let Some(path) = model.named.first() {
        let span = path
            .clone()
            .into_iter()
            .next()
            .map_or_else(Span::call_site, |t| t.span());
        let joined = path
            .clone()
            .into_iter()
            .fold(span, |all, t| all.join(t.span()).unwrap_or(all));
        return Err(vec![diagnostic(
            joined,
            format!(
                "`{}` is a named constant, which a constraint compiled at run time cannot \
                 look up: write its value, or make it a parameter",
                path.to_string().replace(' ', "")
            ),
        )]);
    }
    let rows = model.rows.clone();
    let derivation = match derive::derive(&mut model.graph, &rows, model.mode, model.bodies.len()) {
        Ok(derivation) => derivation,
        Err(DeriveError::NonLinearVelocity(row)) => {
            let span = model
                .source
                .clone()
                .into_iter()
                .next()
                .map_or_else(Span::call_site, |t| t.span());
            let span = model
                .source
                .clone()
                .into_iter()
                .fold(span, |all, t| all.join(t.span()).unwrap_or(all));
            return Err(vec![diagnostic(
                span,
                format!(
                    "row {row} of the velocity constraint is not linear in the body velocities; \
                     a velocity-only constraint must be `J·v + b` with `J` and `b` free of \
                     velocities"
                ),
            )]);
        }
    };
    program(&model, &derivation).map_err(|error| {
        vec![diagnostic(
            Span::call_site(),
            format!("the derivation cannot be compiled to a tape: {error:?}"),
        )]
    })
}

fn program(model: &Model, derivation: &Derivation) -> Result<Program, TapeError> {
    let graph = &model.graph;
    let names = |list: &[syn::Ident]| list.iter().map(ToString::to_string).collect::<Vec<_>>();
    let velocity = model.mode == Mode::Velocity;

    let position = {
        let mut builder = TapeBuilder::new(graph);
        if !velocity {
            builder.output(&model.rows)?;
        }
        builder.finish()?
    };
    let jacobian = {
        let mut builder = TapeBuilder::new(graph);
        builder.compile(&derivation.cache)?;
        for (k, &entry) in derivation.cache.iter().enumerate() {
            let k = u16::try_from(k).map_err(|_| TapeError::TooLarge)?;
            builder.alias(Leaf::Cached(k), entry);
        }
        for row in &derivation.jacobian {
            builder.output(row)?;
        }
        if velocity {
            builder.output(&derivation.velocity_bias)?;
        }
        builder.finish()?
    };
    let stiffness = {
        let mut builder = TapeBuilder::new(graph);
        for pair in &derivation.geometric_stiffness {
            builder.output(pair)?;
        }
        builder.finish()?
    };

    let mut parameter_roots: Vec<Id> = Vec::new();
    let mut index_of = |id: Id| {
        parameter_roots.push(id);
        parameter_roots.len() - 1
    };
    let limits = model.limits.as_ref().map(|rows| {
        rows.iter()
            .map(|bounds| (bounds.min.map(&mut index_of), bounds.max.map(&mut index_of)))
            .collect::<Vec<_>>()
    });
    let rules = model
        .rules
        .iter()
        .map(|rule| Rule {
            text: rule.text.clone(),
            left: index_of(rule.left),
            check: rule.comparison,
            right: index_of(rule.right),
        })
        .collect();
    let parameters = {
        let mut builder = TapeBuilder::new(graph);
        builder.output(&parameter_roots)?;
        builder.finish()?
    };
    let winding = match &derivation.winding {
        derive::Winding::Unread | derive::Winding::Absolute => Winding::Absolute,
        derive::Winding::Relative(slot) => Winding::Relative(*slot),
        derive::Winding::Conditional { slot, tests } => {
            let mut builder = TapeBuilder::new(graph);
            builder.output(tests)?;
            Winding::Conditional {
                slot: *slot,
                test: builder.finish()?,
            }
        }
    };
    let turn_terms = match &derivation.turn_terms {
        Some(rows) if rows.iter().map(Vec::len).sum::<usize>() <= MAX_TURN_TERMS => {
            let mut builder = TapeBuilder::new(graph);
            let coefficients: Vec<_> = rows.iter().flatten().map(|&(_, c)| c).collect();
            builder.output(&coefficients)?;
            Some(TurnTerms {
                tape: builder.finish()?,
                terms: rows
                    .iter()
                    .enumerate()
                    .flat_map(|(row, terms)| terms.iter().map(move |&(slot, _)| (row, slot)))
                    .collect(),
            })
        }
        _ => None,
    };
    Ok(Program {
        name: model.name.to_string(),
        kind: if velocity {
            Kind::Velocity
        } else {
            Kind::Position
        },
        dim: derivation.dim,
        bodies: names(&model.bodies),
        scalars: names(&model.scalars),
        vectors: names(&model.vectors),
        limits,
        rules,
        distinct_bodies: model.distinct_bodies.clone(),
        scalar_defaults: vec![0.0; model.scalars.len()],
        vector_defaults: vec![[0.0; 2]; model.vectors.len()],
        scalar_in_bounds: model.scalars_in_bounds(),
        position,
        jacobian,
        stiffness,
        parameters,
        winding,
        turn_terms,
        translation_invariant: derivation.translation_invariant,
    })
}
