//! Nape's `SymbolicConstraint` language, read into the macro's declaration: each Nape
//! form becomes the Rust expression the macro lowers (`relative b.rotation v` is
//! `b.rotate(v)`, `|v|` is `v.length()`, `{ a b }` is `(a, b)`), every token keeping the
//! span of the Nape text it came from, so the macro's errors point into that text.
//!
//! Grammar (Nape's, `nape-symbolic`'s `Parser.hx`), comments from `#` to the end of a line:
//!
//! ```text
//! source   := decl*
//! decl     := "body" name ("," name)*
//!           | ("scalar" | "vector") param ("," param)*      param := name ("=" literal)?
//!           | "limit" "constraint" bound bound               bound := expr | "{" expr* "}"
//!           | "limit" expr expr expr                          lower <= expr <= upper
//!           | "constraint" expr
//! expr     := "let" name "=" expr "in" expr | sum
//! sum      := product2 (("+" | "-") product2)*
//! product2 := product (("dot" | "cross") product)*
//! product  := unary (("*" | "/") unary)*
//! unary    := "-" unary | "relative" body.rotation unary | "unit" unary | atom
//! atom     := number | "inf" | "eps" | name | body.position | body.rotation
//!           | "(" expr ")" | "[" expr "]" (perp) | "[" number number "]" (vector)
//!           | "|" expr "|" (length or absolute value) | "{" expr* "}" (rows)
//! ```

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

use super::{Diagnostic, diagnostic, lex};
use crate::errors::closest;

/// Nape's `eps`.
const EPSILON: f64 = 1e-10;

/// What a Nape expression is, as far as the translation must know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Type {
    Scalar,
    Vector,
    Rows,
    /// A name the macro will report.
    Unknown,
}

/// A translated expression.
#[derive(Clone)]
struct Expr {
    tokens: TokenStream,
    span: Span,
    ty: Type,
    /// `+1` for `inf`, `-1` for `-inf`: an open bound.
    infinity: i8,
    /// The value of a number literal, for bounds that are equalities.
    number: Option<f64>,
}

impl Expr {
    fn new(tokens: TokenStream, span: Span, ty: Type) -> Self {
        Self {
            tokens,
            span,
            ty,
            infinity: 0,
            number: None,
        }
    }

    /// The expression in parentheses (spanning it), so that any operator may follow.
    fn wrapped(&self) -> TokenTree {
        let mut group = Group::new(Delimiter::Parenthesis, self.tokens.clone());
        group.set_span(self.span);
        TokenTree::Group(group)
    }
}

fn join(a: Span, b: Span) -> Span {
    a.join(b).unwrap_or(a)
}

fn ident(name: &str, span: Span) -> TokenTree {
    TokenTree::Ident(Ident::new(name, span))
}

fn punct(ch: char, span: Span) -> TokenTree {
    let mut punct = Punct::new(ch, Spacing::Alone);
    punct.set_span(span);
    TokenTree::Punct(punct)
}

fn joint(ch: char, span: Span) -> TokenTree {
    let mut punct = Punct::new(ch, Spacing::Joint);
    punct.set_span(span);
    TokenTree::Punct(punct)
}

fn number(value: f64, span: Span) -> TokenTree {
    let mut literal = Literal::f64_unsuffixed(value);
    literal.set_span(span);
    TokenTree::Literal(literal)
}

fn group(delimiter: Delimiter, tokens: TokenStream, span: Span) -> TokenTree {
    let mut group = Group::new(delimiter, tokens);
    group.set_span(span);
    TokenTree::Group(group)
}

/// `receiver.method(args)`.
fn method(receiver: &Expr, name: &str, args: TokenStream, span: Span) -> TokenStream {
    [
        receiver.wrapped(),
        punct('.', span),
        ident(name, span),
        group(Delimiter::Parenthesis, args, span),
    ]
    .into_iter()
    .collect()
}

fn comment_free(source: &str) -> String {
    let mut out = Vec::with_capacity(source.len());
    let mut in_comment = false;
    for &byte in source.as_bytes() {
        in_comment = match byte {
            b'\n' => false,
            b'#' => true,
            _ => in_comment,
        };
        // Spaces of the same length keep every byte offset of the source.
        out.push(if in_comment { b' ' } else { byte });
    }
    String::from_utf8(out).unwrap_or_default()
}

/// A parameter's declared default.
pub(super) struct Default {
    pub name: String,
    pub value: [f32; 2],
}

/// What the translation gives: the attribute's arguments, the struct, the defaults.
pub(super) type Translation = (TokenStream, TokenStream, Vec<Default>);

/// Translates a Nape source into the macro's arguments and struct.
pub(super) fn translate(source: &str) -> Result<Translation, Vec<Diagnostic>> {
    let tokens = lex(&comment_free(source))?;
    let mut parser = Parser::new(tokens);
    parser.declarations();
    if !parser.errors.is_empty() {
        return Err(parser.errors);
    }
    parser.finish()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Body,
    Scalar,
    Vector,
}

struct Parser {
    trees: Vec<TokenTree>,
    at: usize,
    declared: Vec<(Ident, Kind)>,
    defaults: Vec<Default>,
    bindings: Vec<(String, Type)>,
    constraint: Option<Expr>,
    row_limits: Option<(Vec<Expr>, Vec<Expr>)>,
    rules: Vec<TokenStream>,
    errors: Vec<Diagnostic>,
}

/// A mistake already recorded.
struct Failed;

type Parsed<T> = Result<T, Failed>;

const BODY_PROPERTIES: &[&str] = &["position", "rotation", "velocity", "angularVel"];

impl Parser {
    fn new(tokens: TokenStream) -> Self {
        Self {
            trees: tokens.into_iter().collect(),
            at: 0,
            declared: Vec::new(),
            defaults: Vec::new(),
            bindings: Vec::new(),
            constraint: None,
            row_limits: None,
            rules: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn nested(&self, tokens: TokenStream) -> Self {
        let mut parser = Self::new(tokens);
        parser.declared.clone_from(&self.declared);
        parser.bindings.clone_from(&self.bindings);
        parser
    }

    fn fail<T>(&mut self, span: Span, message: impl Into<String>) -> Parsed<T> {
        self.errors.push(diagnostic(span, message));
        Err(Failed)
    }

    fn peek(&self) -> Option<&TokenTree> {
        self.trees.get(self.at)
    }

    fn end_span(&self) -> Span {
        self.trees
            .last()
            .map_or_else(Span::call_site, TokenTree::span)
    }

    fn peek_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(TokenTree::Ident(i)) if i == word)
    }

    fn peek_punct(&self, ch: char) -> bool {
        matches!(self.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ch)
    }

    fn bump(&mut self) -> Option<TokenTree> {
        let tree = self.trees.get(self.at).cloned();
        self.at += usize::from(tree.is_some());
        tree
    }

    fn name(&mut self, what: &str) -> Parsed<Ident> {
        match self.bump() {
            Some(TokenTree::Ident(name)) => Ok(name),
            Some(other) => self.fail(other.span(), format!("expected {what}")),
            None => {
                let span = self.end_span();
                self.fail(span, format!("expected {what} at the end"))
            }
        }
    }

    fn declarations(&mut self) {
        while let Some(tree) = self.peek().cloned() {
            let result = match &tree {
                TokenTree::Ident(word) if word == "body" => self.names(Kind::Body),
                TokenTree::Ident(word) if word == "scalar" => self.names(Kind::Scalar),
                TokenTree::Ident(word) if word == "vector" => self.names(Kind::Vector),
                TokenTree::Ident(word) if word == "limit" => self.limit(),
                TokenTree::Ident(word) if word == "constraint" => self.constraint(),
                TokenTree::Ident(word) if word == "rowvector" || word == "matrix" => self.fail(
                    word.span(),
                    format!("`{word}` parameters are not supported: use `scalar` and `vector`"),
                ),
                _ => self.fail(
                    tree.span(),
                    "expected a declaration: `body`, `scalar`, `vector`, `limit` or `constraint`",
                ),
            };
            if result.is_err() {
                return;
            }
        }
    }

    fn names(&mut self, kind: Kind) -> Parsed<()> {
        self.bump();
        loop {
            let name = self.name("a name")?;
            let text = name.to_string();
            if self.declared.iter().any(|(n, _)| *n == text) {
                return self.fail(name.span(), format!("`{text}` is declared twice"));
            }
            self.declared.push((name, kind));
            if kind != Kind::Body && self.peek_punct('=') {
                self.bump();
                let value = self.default_value(kind)?;
                self.defaults.push(Default { name: text, value });
            }
            if self.peek_punct('-') {
                let span = self.peek().map_or_else(Span::call_site, TokenTree::span);
                return self.fail(
                    span,
                    "a parameter's time derivative (`-> ...`) is not supported: parameters are \
                     constant within a step",
                );
            }
            if !self.peek_punct(',') {
                return Ok(());
            }
            self.bump();
        }
    }

    fn default_value(&mut self, kind: Kind) -> Parsed<[f32; 2]> {
        let value = self.unary()?;
        #[allow(clippy::cast_possible_truncation)]
        match (kind, value.number, value.ty) {
            (Kind::Scalar, Some(x), _) => Ok([x as f32, 0.0]),
            (Kind::Vector, _, Type::Vector) => {
                let numbers: Vec<f64> = value
                    .tokens
                    .clone()
                    .into_iter()
                    .filter_map(|t| match t {
                        TokenTree::Group(g) => Some(g.stream()),
                        _ => None,
                    })
                    .flat_map(TokenStream::into_iter)
                    .filter_map(|t| t.to_string().parse::<f64>().ok())
                    .collect();
                match numbers[..] {
                    [x, y] => Ok([x as f32, y as f32]),
                    _ => self.fail(value.span, "a vector's default is a literal `[x y]`"),
                }
            }
            (Kind::Scalar, ..) => self.fail(value.span, "a scalar's default is a number"),
            _ => self.fail(value.span, "a vector's default is a literal `[x y]`"),
        }
    }

    fn limit(&mut self) -> Parsed<()> {
        let keyword = self.bump().map_or_else(Span::call_site, |t| t.span());
        if self.peek_word("constraint") {
            self.bump();
            let lower = self.bound()?;
            let upper = self.bound()?;
            if lower.len() != upper.len() {
                return self.fail(
                    keyword,
                    format!(
                        "the lower bound has {} rows and the upper {}",
                        lower.len(),
                        upper.len()
                    ),
                );
            }
            if self.row_limits.is_some() {
                return self.fail(keyword, "the constraint's limits are given twice");
            }
            self.row_limits = Some((lower, upper));
            return Ok(());
        }
        let value = self.expr()?;
        let lower = self.expr()?;
        let upper = self.expr()?;
        // `lower <= value <= upper`, each side only where it bounds anything.
        if lower.infinity != -1 {
            self.rules.push(comparison(&lower, &value));
        }
        if upper.infinity != 1 {
            self.rules.push(comparison(&value, &upper));
        }
        Ok(())
    }

    fn bound(&mut self) -> Parsed<Vec<Expr>> {
        match self.peek() {
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                let g = g.clone();
                self.bump();
                let mut inner = self.nested(g.stream());
                let rows = inner.sequence();
                self.errors.append(&mut inner.errors);
                rows
            }
            _ => Ok(vec![self.expr()?]),
        }
    }

    fn constraint(&mut self) -> Parsed<()> {
        let keyword = self.bump().map_or_else(Span::call_site, |t| t.span());
        if self.constraint.is_some() {
            return self.fail(keyword, "`constraint` is given twice");
        }
        self.constraint = Some(self.expr()?);
        Ok(())
    }

    /// Expressions up to the end of the tokens (the rows of a block).
    fn sequence(&mut self) -> Parsed<Vec<Expr>> {
        let mut rows = Vec::new();
        while self.peek().is_some() {
            rows.push(self.expr()?);
        }
        Ok(rows)
    }

    fn expr(&mut self) -> Parsed<Expr> {
        if !self.peek_word("let") {
            return self.sum();
        }
        let start = self.bump().map_or_else(Span::call_site, |t| t.span());
        let name = self.name("the name of the `let`")?;
        if !self.peek_punct('=') {
            let span = self.peek().map_or_else(|| self.end_span(), TokenTree::span);
            return self.fail(span, "expected `=` after the `let`'s name");
        }
        let equals = self.bump().map_or(start, |t| t.span());
        let value = self.expr()?;
        if !self.peek_word("in") {
            let span = self.peek().map_or_else(|| self.end_span(), TokenTree::span);
            return self.fail(span, "expected `in` after the `let`'s value");
        }
        let keyword_in = self.bump().map_or(start, |t| t.span());
        self.bindings.push((name.to_string(), value.ty));
        let body = self.expr();
        self.bindings.pop();
        let body = body?;
        let span = join(start, body.span);
        let tokens: TokenStream = [
            ident("let", start),
            TokenTree::Ident(name),
            punct('=', equals),
        ]
        .into_iter()
        .chain(value.tokens)
        .chain([punct(';', keyword_in)])
        .chain(body.tokens)
        .collect();
        Ok(Expr::new(
            TokenStream::from(group(Delimiter::Brace, tokens, span)),
            span,
            body.ty,
        ))
    }

    fn sum(&mut self) -> Parsed<Expr> {
        let mut left = self.products()?;
        while self.peek_punct('+') || self.peek_punct('-') {
            let operator = self.bump().map_or_else(Span::call_site, |t| t.span());
            let sign = match &self.trees[self.at - 1] {
                TokenTree::Punct(p) => p.as_char(),
                _ => '+',
            };
            let right = self.products()?;
            let span = join(left.span, right.span);
            let ty = if left.ty == Type::Unknown {
                right.ty
            } else {
                left.ty
            };
            let tokens = [left.wrapped(), punct(sign, operator), right.wrapped()]
                .into_iter()
                .collect();
            left = Expr::new(tokens, span, ty);
        }
        Ok(left)
    }

    fn products(&mut self) -> Parsed<Expr> {
        let mut left = self.product()?;
        while self.peek_word("dot") || self.peek_word("cross") || self.peek_word("outer") {
            let Some(TokenTree::Ident(operator)) = self.bump() else {
                unreachable!("peeked an identifier");
            };
            if operator == "outer" {
                return self.fail(operator.span(), "`outer` (a matrix) is not supported");
            }
            let right = self.product()?;
            let span = join(left.span, right.span);
            let at = operator.span();
            left = if operator == "dot" {
                Expr::new(
                    method(&left, "dot", right.wrapped().into(), at),
                    span,
                    Type::Scalar,
                )
            } else {
                match (left.ty, right.ty) {
                    // s × v = s·perp(v); v × s = −s·perp(v).
                    (Type::Scalar, Type::Vector) => {
                        let perp = Expr::new(
                            method(&right, "perp", TokenStream::new(), at),
                            span,
                            Type::Vector,
                        );
                        let tokens = [left.wrapped(), punct('*', at), perp.wrapped()]
                            .into_iter()
                            .collect();
                        Expr::new(tokens, span, Type::Vector)
                    }
                    (Type::Vector, Type::Scalar) => {
                        let perp = Expr::new(
                            method(&left, "perp", TokenStream::new(), at),
                            span,
                            Type::Vector,
                        );
                        let tokens = [
                            punct('-', at),
                            right.wrapped(),
                            punct('*', at),
                            perp.wrapped(),
                        ]
                        .into_iter()
                        .collect();
                        Expr::new(tokens, span, Type::Vector)
                    }
                    (Type::Scalar, Type::Scalar) => {
                        return self.fail(at, "`cross` of two scalars: one side must be a vector");
                    }
                    _ => Expr::new(
                        method(&left, "perp_dot", right.wrapped().into(), at),
                        span,
                        Type::Scalar,
                    ),
                }
            };
        }
        Ok(left)
    }

    fn product(&mut self) -> Parsed<Expr> {
        let mut left = self.unary()?;
        while self.peek_punct('*') || self.peek_punct('/') {
            let operator = self.bump();
            let (sign, at) = match &operator {
                Some(TokenTree::Punct(p)) => (p.as_char(), p.span()),
                _ => unreachable!("peeked a punctuation"),
            };
            let right = self.unary()?;
            let span = join(left.span, right.span);
            let ty = match (left.ty, right.ty) {
                (Type::Vector, _) | (_, Type::Vector) => Type::Vector,
                (Type::Scalar, Type::Scalar) => Type::Scalar,
                _ => Type::Unknown,
            };
            let tokens = [left.wrapped(), punct(sign, at), right.wrapped()]
                .into_iter()
                .collect();
            left = Expr::new(tokens, span, ty);
        }
        Ok(left)
    }

    fn unary(&mut self) -> Parsed<Expr> {
        let Some(tree) = self.peek().cloned() else {
            let span = self.end_span();
            return self.fail(span, "expected an expression at the end");
        };
        let start = tree.span();
        match &tree {
            TokenTree::Punct(p) if p.as_char() == '-' => {
                self.bump();
                let operand = self.unary()?;
                let span = join(start, operand.span);
                let mut negated = Expr::new(
                    [punct('-', start), operand.wrapped()].into_iter().collect(),
                    span,
                    operand.ty,
                );
                negated.infinity = -operand.infinity;
                negated.number = operand.number.map(|x| -x);
                Ok(negated)
            }
            TokenTree::Ident(word) if word == "relative" => {
                self.bump();
                let (body, property) = self.path()?;
                let angle_of = self
                    .declared
                    .iter()
                    .any(|(n, kind)| *kind == Kind::Body && body.as_ref().is_some_and(|b| b == n));
                let Some(body) = body.filter(|_| angle_of && property == "rotation") else {
                    return self.fail(
                        property.span(),
                        "`relative` takes a body's rotation: `relative body1.rotation anchor1`",
                    );
                };
                let operand = self.unary()?;
                let span = join(start, operand.span);
                let tokens = [
                    TokenTree::Ident(body),
                    punct('.', start),
                    ident("rotate", start),
                    group(
                        Delimiter::Parenthesis,
                        operand.wrapped().into(),
                        operand.span,
                    ),
                ]
                .into_iter()
                .collect();
                Ok(Expr::new(tokens, span, Type::Vector))
            }
            TokenTree::Ident(word) if word == "unit" => {
                self.bump();
                let operand = self.unary()?;
                let span = join(start, operand.span);
                Ok(Expr::new(
                    method(&operand, "normalize", TokenStream::new(), start),
                    span,
                    Type::Vector,
                ))
            }
            _ => self.atom(),
        }
    }

    /// `name` or `name.property`: the body (if the first part is dotted) and the last part.
    fn path(&mut self) -> Parsed<(Option<Ident>, Ident)> {
        let first = self.name("a name")?;
        if !self.peek_punct('.') {
            return Ok((None, first));
        }
        self.bump();
        let second = self.name("a property after `.`")?;
        Ok((Some(first), second))
    }

    fn atom(&mut self) -> Parsed<Expr> {
        let Some(tree) = self.bump() else {
            let span = self.end_span();
            return self.fail(span, "expected an expression at the end");
        };
        let span = tree.span();
        match tree {
            TokenTree::Group(g) => self.group(&g),
            TokenTree::Punct(p) if p.as_char() == '|' => {
                let inner = self.expr()?;
                if !self.peek_punct('|') {
                    let at = self.peek().map_or_else(|| self.end_span(), TokenTree::span);
                    return self.fail(at, "expected the closing `|`");
                }
                let end = self.bump().map_or(span, |t| t.span());
                let whole = join(span, end);
                let name = if inner.ty == Type::Scalar {
                    "abs"
                } else {
                    "length"
                };
                Ok(Expr::new(
                    method(&inner, name, TokenStream::new(), whole),
                    whole,
                    Type::Scalar,
                ))
            }
            TokenTree::Literal(literal) => {
                let text = literal.to_string();
                match text.parse::<f64>() {
                    Ok(value) if value.is_finite() => {
                        let mut expr = Expr::new(number(value, span).into(), span, Type::Scalar);
                        expr.number = Some(value);
                        Ok(expr)
                    }
                    _ => self.fail(span, format!("`{text}` is not a number")),
                }
            }
            TokenTree::Ident(word) if word == "inf" => {
                let tokens = [
                    ident("f32", span),
                    joint(':', span),
                    punct(':', span),
                    ident("INFINITY", span),
                ]
                .into_iter()
                .collect();
                let mut expr = Expr::new(tokens, span, Type::Scalar);
                expr.infinity = 1;
                Ok(expr)
            }
            TokenTree::Ident(word) if word == "eps" => {
                let mut expr = Expr::new(number(EPSILON, span).into(), span, Type::Scalar);
                expr.number = Some(EPSILON);
                Ok(expr)
            }
            TokenTree::Ident(_) => {
                self.at -= 1;
                self.variable()
            }
            TokenTree::Punct(p) => self.fail(span, format!("expected an expression, found `{p}`")),
        }
    }

    fn variable(&mut self) -> Parsed<Expr> {
        let (body, name) = self.path()?;
        let Some(body) = body else {
            let text = name.to_string();
            let ty = self
                .bindings
                .iter()
                .rev()
                .find(|(n, _)| *n == text)
                .map(|&(_, ty)| ty)
                .or_else(|| {
                    self.declared
                        .iter()
                        .find(|(n, _)| *n == text)
                        .map(|(_, kind)| match kind {
                            Kind::Scalar => Type::Scalar,
                            Kind::Vector => Type::Vector,
                            Kind::Body => Type::Unknown,
                        })
                })
                .unwrap_or(Type::Unknown);
            let span = name.span();
            return Ok(Expr::new(TokenTree::Ident(name).into(), span, ty));
        };
        let span = join(body.span(), name.span());
        let property = name.to_string();
        let (rust, ty) = match property.as_str() {
            "position" => ("position", Type::Vector),
            "velocity" => ("velocity", Type::Vector),
            "rotation" => ("rotation", Type::Scalar),
            "angularVel" => ("angular_velocity", Type::Scalar),
            _ => {
                let hint = closest(&property, BODY_PROPERTIES.iter().copied())
                    .map(|close| format!("; did you mean `{close}`?"))
                    .unwrap_or_default();
                return self.fail(
                    name.span(),
                    format!(
                        "a body has no property `{property}`: it has `position`, `rotation`, \
                         `velocity` and `angularVel`{hint}"
                    ),
                );
            }
        };
        let tokens = [
            TokenTree::Ident(body),
            punct('.', name.span()),
            ident(rust, name.span()),
        ]
        .into_iter()
        .collect();
        Ok(Expr::new(tokens, span, ty))
    }

    fn group(&mut self, g: &Group) -> Parsed<Expr> {
        let span = g.span();
        let mut inner = self.nested(g.stream());
        let result = match g.delimiter() {
            Delimiter::Parenthesis | Delimiter::None => inner.whole().map(|e| {
                let mut wrapped = Expr::new(e.wrapped().into(), span, e.ty);
                wrapped.infinity = e.infinity;
                wrapped.number = e.number;
                wrapped
            }),
            Delimiter::Bracket => {
                let numbers: Option<Vec<f64>> = g
                    .stream()
                    .into_iter()
                    .map(|t| match t {
                        TokenTree::Literal(l) => l.to_string().parse::<f64>().ok(),
                        _ => None,
                    })
                    .collect();
                match numbers.as_deref() {
                    Some(&[x, y]) if x.is_finite() && y.is_finite() => {
                        let tokens = [
                            ident("Vec2", span),
                            joint(':', span),
                            punct(':', span),
                            ident("new", span),
                            group(
                                Delimiter::Parenthesis,
                                [number(x, span), punct(',', span), number(y, span)]
                                    .into_iter()
                                    .collect(),
                                span,
                            ),
                        ]
                        .into_iter()
                        .collect();
                        Ok(Expr::new(tokens, span, Type::Vector))
                    }
                    _ => inner.whole().map(|e| {
                        Expr::new(
                            method(&e, "perp", TokenStream::new(), span),
                            span,
                            Type::Vector,
                        )
                    }),
                }
            }
            Delimiter::Brace => inner.sequence().and_then(|rows| {
                if rows.is_empty() {
                    inner.fail(span, "a block `{ ... }` needs at least one row")
                } else {
                    let mut tokens = TokenStream::new();
                    for row in &rows {
                        tokens.extend([row.wrapped(), punct(',', row.span)]);
                    }
                    Ok(Expr::new(
                        group(Delimiter::Parenthesis, tokens, span).into(),
                        span,
                        Type::Rows,
                    ))
                }
            }),
        };
        self.errors.append(&mut inner.errors);
        result
    }

    /// One expression that must take every token.
    fn whole(&mut self) -> Parsed<Expr> {
        let expr = self.expr()?;
        match self.peek() {
            None => Ok(expr),
            Some(extra) => {
                let span = extra.span();
                self.fail(span, "expected one expression here")
            }
        }
    }

    /// The macro's arguments and struct.
    fn finish(self) -> Result<Translation, Vec<Diagnostic>> {
        let Some(constraint) = self.constraint else {
            return Err(vec![diagnostic(
                Span::call_site(),
                "missing the constraint: write `constraint <expression>`",
            )]);
        };
        let at = constraint.span;
        let mut args: TokenStream = [ident("position", at), punct('=', at)]
            .into_iter()
            .collect();
        args.extend(constraint.tokens);
        if let Some((lower, upper)) = &self.row_limits {
            let mut rows = TokenStream::new();
            for (low, high) in lower.iter().zip(upper) {
                let span = join(low.span, high.span);
                let same = low.number.is_some() && low.number == high.number;
                if same {
                    rows.extend(low.tokens.clone());
                } else {
                    if low.infinity != -1 {
                        rows.extend([low.wrapped()]);
                    }
                    if high.infinity == 1 {
                        rows.extend([joint('.', span), punct('.', span)]);
                    } else {
                        rows.extend([joint('.', span), joint('.', span), punct('=', span)]);
                        rows.extend([high.wrapped()]);
                    }
                }
                rows.extend([punct(',', span)]);
            }
            args.extend([
                punct(',', at),
                ident("limits", at),
                punct('=', at),
                group(Delimiter::Bracket, rows, at),
            ]);
        }
        if !self.rules.is_empty() {
            let mut rules = TokenStream::new();
            for rule in self.rules {
                rules.extend(rule);
                rules.extend([punct(',', at)]);
            }
            args.extend([
                punct(',', at),
                ident("validate", at),
                punct('=', at),
                group(Delimiter::Bracket, rules, at),
            ]);
        }
        let mut fields = TokenStream::new();
        for (name, kind) in &self.declared {
            let span = name.span();
            let ty = match kind {
                Kind::Body => "BodyHandle",
                Kind::Scalar => "f32",
                Kind::Vector => "Vec2",
            };
            fields.extend([
                TokenTree::Ident(name.clone()),
                punct(':', span),
                ident(ty, span),
                punct(',', span),
            ]);
        }
        let item = [
            ident("struct", Span::call_site()),
            ident("NapeConstraint", Span::call_site()),
            group(Delimiter::Brace, fields, Span::call_site()),
        ]
        .into_iter()
        .collect();
        Ok((args, item, self.defaults))
    }
}

/// `low <= high`, spanning both.
fn comparison(low: &Expr, high: &Expr) -> TokenStream {
    let span = join(low.span, high.span);
    [
        low.wrapped(),
        joint('<', span),
        punct('=', span),
        high.wrapped(),
    ]
    .into_iter()
    .collect()
}
