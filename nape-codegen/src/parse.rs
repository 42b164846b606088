//! Parsing: the attribute's arguments and the struct it is attached to, spans kept.
//!
//! Nothing is interpreted here beyond what the grammar needs; names and types are checked
//! by [`crate::model`]. Every error is collected, so one compile reports them all.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Token};

use crate::errors::Errors;

/// The arguments of `#[constraint(...)]`.
#[derive(Default)]
pub struct Args {
    /// `position = <expr>`: the positional constraint `c(q)`.
    pub position: Option<Keyed<Expr>>,
    /// `velocity = <expr>`: a velocity-only constraint, linear in body velocities.
    pub velocity: Option<Keyed<Expr>>,
    /// `limits = [lo..=hi, ...]`: one range per row.
    pub limits: Option<Keyed<Vec<RowLimit>>>,
    /// `validate = [<comparison>, ...]`: rules the parameters must satisfy.
    pub validate: Option<Keyed<Vec<Expr>>>,
    /// `crate = <path>`: where the runtime crate is, if not `::nape`.
    pub krate: Option<Keyed<syn::Path>>,
    /// Whether an unknown argument was reported (then a missing `position` is no news).
    pub had_unknown: bool,
}

/// A value with the key that introduced it (for errors that concern the whole argument).
pub struct Keyed<T> {
    /// The key's span.
    pub key: Span,
    /// The value.
    pub value: T,
}

/// The bounds of one row: `lo..=hi`, `lo..`, `..=hi`, `..` or a single value (equality).
pub struct RowLimit {
    /// Lower bound; `None` is −∞.
    pub min: Option<Expr>,
    /// Upper bound; `None` is +∞.
    pub max: Option<Expr>,
    /// Whether this is a single value, i.e. `min` and `max` are the same expression.
    pub equality: bool,
    /// The whole element, for errors.
    pub span: Span,
}

const KEYS: &[&str] = &["position", "velocity", "limits", "validate", "crate"];

impl Args {
    /// Parses the attribute's token stream, collecting every error.
    pub fn parse(tokens: TokenStream, errors: &mut Errors) -> Self {
        let mut args = Args::default();
        let raw = match syn::parse::Parser::parse2(
            Punctuated::<RawArg, Token![,]>::parse_terminated,
            tokens,
        ) {
            Ok(raw) => raw,
            Err(error) => {
                errors.push(error);
                return args;
            }
        };
        for arg in raw {
            let key_name = arg.key.to_string();
            let key = arg.key.span();
            match key_name.as_str() {
                "position" => set(
                    &mut args.position,
                    key,
                    &key_name,
                    as_expr(arg.value),
                    errors,
                ),
                "velocity" => set(
                    &mut args.velocity,
                    key,
                    &key_name,
                    as_expr(arg.value),
                    errors,
                ),
                "limits" => {
                    let limits = parse_limits(arg.value, errors);
                    set(&mut args.limits, key, &key_name, limits, errors);
                }
                "validate" => {
                    let rules = parse_rules(arg.value, errors);
                    set(&mut args.validate, key, &key_name, rules, errors);
                }
                "crate" => {
                    let path = parse_crate_path(arg.value, errors);
                    set(&mut args.krate, key, &key_name, path, errors);
                }
                other => {
                    args.had_unknown = true;
                    let hint = match crate::errors::closest(other, KEYS.iter().copied()) {
                        Some(close) => format!("did you mean `{close}`? "),
                        None => String::new(),
                    };
                    errors.push(syn::Error::new(
                        key,
                        format!(
                            "unknown argument `{other}`; {hint}expected one of `position`, \
                             `velocity`, `limits`, `validate`, `crate`"
                        ),
                    ));
                }
            }
        }
        args
    }
}

fn set<T>(
    slot: &mut Option<Keyed<T>>,
    key: Span,
    name: &str,
    value: Option<T>,
    errors: &mut Errors,
) {
    let Some(value) = value else { return };
    if slot.is_some() {
        errors.push(syn::Error::new(key, format!("duplicate argument `{name}`")));
    } else {
        *slot = Some(Keyed { key, value });
    }
}

/// `key = value`, where the value is any expression (interpreted per key).
struct RawArg {
    key: Ident,
    value: Expr,
}

impl Parse for RawArg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key = if input.peek(Token![crate]) {
            let token: Token![crate] = input.parse()?;
            Ident::new("crate", token.span)
        } else {
            input.call(syn::ext::IdentExt::parse_any)?
        };
        if !input.peek(Token![=]) {
            return Err(syn::Error::new(
                key.span(),
                format!("expected `{key} = ...`"),
            ));
        }
        input.parse::<Token![=]>()?;
        let value: Expr = input.parse()?;
        Ok(Self { key, value })
    }
}

// Keeps `set`'s signature uniform: the position and velocity values always parse.
#[allow(clippy::unnecessary_wraps)]
fn as_expr(expr: Expr) -> Option<Expr> {
    Some(expr)
}

fn list_elements(value: Expr, what: &str, errors: &mut Errors) -> Option<Vec<Expr>> {
    match value {
        Expr::Array(array) => Some(array.elems.into_iter().collect()),
        other => {
            errors.push(syn::Error::new(
                other.span(),
                format!("`{what}` takes a list in brackets: `{what} = [...]`"),
            ));
            None
        }
    }
}

fn parse_limits(value: Expr, errors: &mut Errors) -> Option<Vec<RowLimit>> {
    let elements = list_elements(value, "limits", errors)?;
    let mut limits = Vec::new();
    for element in elements {
        let span = element.span();
        match element {
            Expr::Range(range) => {
                // Reported, then kept as if inclusive so the row count still matches.
                if let syn::RangeLimits::HalfOpen(dots) = range.limits
                    && range.end.is_some()
                {
                    errors.push(syn::Error::new(
                        dots.span(),
                        "bounds are inclusive: write `min..=max`, not `min..max`",
                    ));
                }
                limits.push(RowLimit {
                    min: range.start.map(|e| *e),
                    max: range.end.map(|e| *e),
                    equality: false,
                    span,
                });
            }
            other => limits.push(RowLimit {
                min: Some(other.clone()),
                max: Some(other),
                equality: true,
                span,
            }),
        }
    }
    Some(limits)
}

fn parse_rules(value: Expr, errors: &mut Errors) -> Option<Vec<Expr>> {
    list_elements(value, "validate", errors)
}

fn parse_crate_path(value: Expr, errors: &mut Errors) -> Option<syn::Path> {
    match value {
        Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => Some(path.path),
        other => {
            errors.push(syn::Error::new(
                other.span(),
                format!(
                    "`crate` takes a path to the nape runtime, like `crate = ::nape` or \
                     `crate = my_reexports::nape`; found `{}`",
                    other.to_token_stream()
                ),
            ));
            None
        }
    }
}

/// What a field of the constraint struct is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// `BodyHandle`: a body slot.
    Body,
    /// `Vec2`: a vector parameter.
    Vector,
    /// `f32`: a scalar parameter.
    Scalar,
}

/// A named field and what it is.
pub struct Field {
    /// The field's name.
    pub ident: Ident,
    /// Its kind.
    pub kind: FieldKind,
}

/// The struct the attribute is on.
pub struct Input {
    /// The item, re-emitted unchanged.
    pub item: syn::ItemStruct,
    /// Its fields, in declaration order; fields of unusable types are left out (and
    /// reported).
    pub fields: Vec<Field>,
    /// The names of the fields left out, so uses of them are not reported twice.
    pub unusable: Vec<Ident>,
    /// Whether the struct has generics (reported; nothing is derived for it).
    pub generic: bool,
}

impl Input {
    /// Parses the item; `None` if it is not a struct with named fields (reported).
    pub fn parse(tokens: TokenStream, errors: &mut Errors) -> Option<Self> {
        let item: syn::Item = match syn::parse2(tokens) {
            Ok(item) => item,
            Err(error) => {
                errors.push(error);
                return None;
            }
        };
        let item = match item {
            syn::Item::Struct(item) => item,
            syn::Item::Enum(item) => {
                errors.push(syn::Error::new(
                    item.enum_token.span,
                    "`#[constraint]` goes on a struct with named fields, not on an enum",
                ));
                return None;
            }
            syn::Item::Union(item) => {
                errors.push(syn::Error::new(
                    item.union_token.span,
                    "`#[constraint]` goes on a struct with named fields, not on a union",
                ));
                return None;
            }
            other => {
                errors.push(syn::Error::new(
                    other.span(),
                    "`#[constraint]` goes on a struct with named fields",
                ));
                return None;
            }
        };
        // Reported, and the struct kept: the placeholder implementation (with the struct's
        // generics) spares every use of it a follow-on error.
        let generic = !item.generics.params.is_empty() || item.generics.where_clause.is_some();
        if generic {
            errors.push(syn::Error::new(
                item.generics.span(),
                "a constraint struct cannot be generic: its fields are bodies (`BodyHandle`), \
                 `Vec2` and `f32`",
            ));
        }
        let mut fields = Vec::new();
        let mut unusable = Vec::new();
        match &item.fields {
            syn::Fields::Named(named) => {
                for field in &named.named {
                    let ident = field.ident.clone().expect("named fields have names");
                    match classify(&field.ty) {
                        Some(kind) => fields.push(Field { ident, kind }),
                        None if generic => unusable.push(ident.clone()),
                        None => {
                            unusable.push(ident.clone());
                            errors.push(syn::Error::new(
                                field.ty.span(),
                                format!(
                                    "field `{ident}` has type `{}`, which a constraint cannot use; \
                                 fields must be `BodyHandle` (a body slot), `Vec2` or `f32` \
                                 (parameters)",
                                    field.ty.to_token_stream()
                                ),
                            ));
                        }
                    }
                }
            }
            syn::Fields::Unnamed(unnamed) => {
                errors.push(syn::Error::new(
                    unnamed.span(),
                    "a constraint struct needs named fields: the expression refers to them by name",
                ));
                return None;
            }
            syn::Fields::Unit => errors.push(syn::Error::new(
                item.ident.span(),
                "a constraint struct needs fields: at least one `BodyHandle`",
            )),
        }
        Some(Self {
            item,
            fields,
            unusable,
            generic,
        })
    }
}

fn classify(ty: &syn::Type) -> Option<FieldKind> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    if path.qself.is_some() {
        return None;
    }
    let last = path.path.segments.last()?;
    if !last.arguments.is_none() {
        return None;
    }
    match last.ident.to_string().as_str() {
        "BodyHandle" => Some(FieldKind::Body),
        "Vec2" => Some(FieldKind::Vector),
        "f32" if path.path.segments.len() == 1 => Some(FieldKind::Scalar),
        _ => None,
    }
}
