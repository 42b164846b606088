//! Emission: the derivation as straight-line Rust implementing the runtime's `Constraint`
//! trait, and the derivation as text in the struct's rustdoc.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use crate::derive::{Derivation, Winding};
use crate::model::{Comparison, Mode, Model};
use crate::symbolic::{Dof, Graph, Id, Leaf, Node, Schedule, to_infix};

const SUM: u8 = 1;
const PRODUCT: u8 = 2;
const PREFIX: u8 = 3;
const ATOM: u8 = 4;

/// Writes expressions of one graph as tokens, naming shared sub-expressions.
struct Writer<'a> {
    graph: &'a Graph,
    model: &'a Model,
    /// Which winding the raw angles are read from.
    winding: &'a Winding,
    /// Outer schedules first; a node bound in any of them is referred to by name.
    scopes: Vec<Schedule>,
    /// The slots whose raw angle is bound (`__angle{s}`), each with the number of scopes
    /// open when it was: an angle is read once per function, before what uses it.
    angles: Vec<(u8, usize)>,
    /// Whether each raw angle is read as its principal angle, the winding ignored (the
    /// rows' turn terms add it: `Derivation::turn_terms`).
    principal: bool,
}

impl<'a> Writer<'a> {
    fn new(graph: &'a Graph, model: &'a Model, winding: &'a Winding) -> Self {
        Self {
            graph,
            model,
            winding,
            scopes: Vec::new(),
            angles: Vec::new(),
            principal: false,
        }
    }

    /// A writer that reads every raw angle as its principal angle in `(−π, π]`.
    fn principal(graph: &'a Graph, model: &'a Model) -> Self {
        Self {
            principal: true,
            ..Self::new(graph, model, &Winding::Unread)
        }
    }

    /// The `let`s that read the raw angles `roots` need and no open scope has read: the
    /// reference winding, then each angle counted from it.
    fn read_angles(&mut self, roots: &[Id]) -> TokenStream {
        let mut slots: Vec<u8> = self
            .graph
            .reachable(roots)
            .into_iter()
            .filter_map(|id| match self.graph.node(id) {
                Node::Leaf(Leaf::Pose(s, Dof::Angle)) => Some(s),
                _ => None,
            })
            .filter(|s| !self.angles.iter().any(|&(bound, _)| bound == *s))
            .collect();
        slots.sort_unstable();
        slots.dedup();
        if slots.is_empty() {
            return TokenStream::new();
        }
        let reference = match self.winding {
            Winding::Unread | Winding::Absolute => None,
            Winding::Relative(r) => {
                let r = Literal::usize_unsuffixed(*r);
                Some(quote!(__poses[#r].turns))
            }
            Winding::Conditional { slot, tests } => {
                // Over the parameters alone, in a block of its own: its bindings are not
                // the function's.
                let mut tester = Writer::new(self.graph, self.model, &Winding::Unread);
                let lets = tester.open(tests);
                let zero = tests.iter().map(|&id| {
                    let test = tester.wrapped(id, PRODUCT);
                    quote!(#test == 0.0f32)
                });
                let r = Literal::usize_unsuffixed(*slot);
                Some(quote!({
                    #lets
                    if #(#zero)&&* { __poses[#r].turns } else { 0i32 }
                }))
            }
        };
        let depth = self.scopes.len();
        let mut lets = TokenStream::new();
        let first_read = self.angles.is_empty();
        if let (Some(reference), true) = (&reference, first_read) {
            lets.extend(quote!(let __winding: i32 = #reference;));
        }
        for s in slots {
            let name = format_ident!("__angle{}", s);
            let index = Literal::usize_unsuffixed(usize::from(s));
            // The reference's own angle from its winding is its principal angle.
            let read = match (reference.is_some(), self.winding) {
                _ if self.principal => quote!(__poses[#index].principal_angle()),
                (true, Winding::Relative(r)) if usize::from(s) == *r => {
                    quote!(__poses[#index].principal_angle())
                }
                (true, _) => quote!(__poses[#index].angle_from(__winding)),
                (false, _) => quote!(__poses[#index].angle()),
            };
            lets.extend(quote!(let #name: f32 = #read;));
            self.angles.push((s, depth));
        }
        lets
    }

    fn is_bound(&self, id: Id) -> bool {
        self.scopes.iter().any(|scope| scope.is_bound(id))
    }

    /// Opens a scope for `roots` and returns the `let` statements it needs.
    fn open(&mut self, roots: &[Id]) -> TokenStream {
        let schedule = Schedule::plan(self.graph, roots);
        let fresh: Vec<Id> = schedule
            .bindings
            .iter()
            .copied()
            .filter(|&id| !self.is_bound(id))
            .collect();
        let mut lets = self.read_angles(roots);
        // The scope opens first, so each definition refers to the bindings before it.
        self.scopes.push(schedule);
        for &id in &fresh {
            let name = binding(id);
            let value = self.write_definition(id);
            lets.extend(quote!(let #name: f32 = #value;));
        }
        lets
    }

    fn close(&mut self) {
        self.scopes.pop();
        let depth = self.scopes.len();
        self.angles.retain(|&(_, opened)| opened < depth);
    }

    fn write(&self, id: Id) -> TokenStream {
        self.write_with(id).0
    }

    fn write_definition(&self, id: Id) -> TokenStream {
        self.node(id).0
    }

    fn write_with(&self, id: Id) -> (TokenStream, u8) {
        if self.is_bound(id) {
            let name = binding(id);
            return (quote!(#name), ATOM);
        }
        self.node(id)
    }

    fn wrapped(&self, id: Id, minimum: u8) -> TokenStream {
        let (tokens, precedence) = self.write_with(id);
        if precedence < minimum {
            quote!((#tokens))
        } else {
            tokens
        }
    }

    fn node(&self, id: Id) -> (TokenStream, u8) {
        let graph = self.graph;
        match graph.node(id) {
            Node::Const(bits) => constant(f64::from_bits(bits)),
            Node::Leaf(leaf) => (self.leaf(leaf), ATOM),
            Node::Add(a, b) => {
                let tokens = match (graph.node(a), graph.node(b)) {
                    (_, Node::Neg(nb)) if !self.is_bound(b) => {
                        let (a, nb) = (self.wrapped(a, SUM), self.wrapped(nb, PRODUCT));
                        quote!(#a - #nb)
                    }
                    (Node::Neg(na), _) if !self.is_bound(a) => {
                        let (b, na) = (self.wrapped(b, SUM), self.wrapped(na, PRODUCT));
                        quote!(#b - #na)
                    }
                    _ => {
                        let (a, b) = (self.wrapped(a, SUM), self.wrapped(b, SUM));
                        quote!(#a + #b)
                    }
                };
                (tokens, SUM)
            }
            Node::Mul(a, b) => {
                let tokens = match graph.node(b) {
                    Node::Recip(denominator) if !self.is_bound(b) => {
                        let (a, d) = (self.wrapped(a, PRODUCT), self.wrapped(denominator, PREFIX));
                        quote!(#a / #d)
                    }
                    _ => {
                        let (a, b) = (self.wrapped(a, PRODUCT), self.wrapped(b, PREFIX));
                        quote!(#a * #b)
                    }
                };
                (tokens, PRODUCT)
            }
            Node::Neg(a) => {
                let a = self.wrapped(a, PREFIX);
                (quote!(-#a), PREFIX)
            }
            // A function: the runtime helper where `f32`'s method lacks the guard, else the
            // method, called on its first operand.
            node => {
                let name = node
                    .function_name()
                    .expect("every other node is a function");
                let function = format_ident!("{}", name);
                let operands = graph.children(id);
                if node.is_guarded() {
                    let krate = &self.model.krate;
                    let operands = operands.iter().map(|&a| self.write(a));
                    (quote!(#krate::__private::#function(#(#operands),*)), ATOM)
                } else {
                    let receiver = self.wrapped(operands[0], ATOM);
                    let arguments = operands[1..].iter().map(|&a| self.write(a));
                    (quote!(#receiver.#function(#(#arguments),*)), ATOM)
                }
            }
        }
    }

    fn leaf(&self, leaf: Leaf) -> TokenStream {
        let model = self.model;
        let index = |s: u8| Literal::usize_unsuffixed(usize::from(s));
        match leaf {
            Leaf::Pose(s, Dof::X) => {
                let s = index(s);
                quote!(__poses[#s].position.x)
            }
            Leaf::Pose(s, Dof::Y) => {
                let s = index(s);
                quote!(__poses[#s].position.y)
            }
            // Read once, at the start of the function (`read_angles`); whole where no
            // scope has read it.
            Leaf::Pose(s, Dof::Angle) => {
                if self.angles.iter().any(|&(bound, _)| bound == s) {
                    let name = format_ident!("__angle{}", s);
                    quote!(#name)
                } else {
                    let s = index(s);
                    quote!(__poses[#s].angle())
                }
            }
            Leaf::Cos(s) => {
                let s = index(s);
                quote!(__poses[#s].cos)
            }
            Leaf::Sin(s) => {
                let s = index(s);
                quote!(__poses[#s].sin)
            }
            Leaf::Velocity(s, dof) => {
                let body = format_ident!("__velocity{}", s);
                match dof {
                    Dof::X => quote!(#body.linear.x),
                    Dof::Y => quote!(#body.linear.y),
                    Dof::Angle => quote!(#body.angular),
                }
            }
            Leaf::Scalar(k) => {
                let field = &model.scalars[usize::from(k)];
                quote!(self.#field)
            }
            Leaf::VectorX(k) => {
                let field = &model.vectors[usize::from(k)];
                quote!(self.#field.x)
            }
            Leaf::VectorY(k) => {
                let field = &model.vectors[usize::from(k)];
                quote!(self.#field.y)
            }
            Leaf::InverseMass(s) => {
                let s = index(s);
                quote!(__inverse_masses[#s].mass)
            }
            Leaf::InverseInertia(s) => {
                let s = index(s);
                quote!(__inverse_masses[#s].inertia)
            }
            Leaf::Cached(k) => {
                let k = Literal::usize_unsuffixed(usize::from(k));
                quote!(__jacobian.0[#k])
            }
            Leaf::Impulse(i) => {
                let i = Literal::usize_unsuffixed(usize::from(i));
                quote!(__impulse[#i])
            }
            Leaf::Named(k) => {
                let name = named_constant(usize::from(k));
                quote!(Self::#name)
            }
        }
    }
}

/// `+= value` or, for a negated value, `-= magnitude`.
fn signed(writer: &Writer<'_>, id: Id) -> (TokenStream, TokenStream) {
    match writer.graph.node(id) {
        Node::Neg(magnitude) if !writer.is_bound(id) => {
            (writer.wrapped(magnitude, PREFIX), quote!(-=))
        }
        _ => (writer.wrapped(id, PREFIX), quote!(+=)),
    }
}

/// The associated constant through which generated code reads the `k`-th named constant.
fn named_constant(k: usize) -> Ident {
    format_ident!("__NAPE_CONSTANT_{}", k)
}

/// Each named constant the expression uses, once, as an associated `f32` constant of the
/// struct: the path keeps the user's spans, so rustc resolves it and reports a wrong type
/// once, where it was written.
fn named_constants(model: &Model) -> TokenStream {
    if model.named.is_empty() {
        return TokenStream::new();
    }
    let name = &model.name;
    let constants = model.named.iter().enumerate().map(|(k, path)| {
        let constant = named_constant(k);
        quote!(const #constant: f32 = #path;)
    });
    quote! {
        #[automatically_derived]
        #[doc(hidden)]
        impl #name {
            #(#constants)*
        }
    }
}

fn binding(id: Id) -> Ident {
    format_ident!("__t{}", id.index())
}

fn constant(value: f64) -> (TokenStream, u8) {
    // f32 is the runtime's precision: the constant is rounded once, here. A folded value
    // beyond f32's range becomes the infinity f32 arithmetic would have produced.
    #[allow(clippy::cast_possible_truncation)]
    let single = value as f32;
    if single.is_nan() {
        return (quote!(f32::NAN), ATOM);
    }
    if single.is_infinite() {
        return if single > 0.0 {
            (quote!(f32::INFINITY), ATOM)
        } else {
            (quote!(f32::NEG_INFINITY), PREFIX)
        };
    }
    let literal = Literal::f32_suffixed(single.abs());
    if single < 0.0 {
        (quote!(-#literal), PREFIX)
    } else {
        (quote!(#literal), ATOM)
    }
}

/// The trait implementation and the documented struct.
pub fn constraint(model: &Model, derivation: &Derivation, item: &syn::ItemStruct) -> TokenStream {
    let graph = &model.graph;
    let krate = &model.krate;
    let name = &model.name;
    let name_text = name.to_string();
    let dim = Literal::usize_unsuffixed(derivation.dim);
    let bodies = Literal::usize_unsuffixed(derivation.bodies);
    let cache_len = Literal::usize_unsuffixed(derivation.cache.len());
    let body_fields = &model.bodies;
    let velocity_only = model.mode == Mode::Velocity;
    let has_limits = model.limits.is_some();
    let private = quote!(#krate::__private);
    let translation_invariant = derivation.translation_invariant.then(|| {
        quote! {
            #[inline]
            fn translation_invariant(&self) -> bool {
                true
            }
        }
    });

    // position_error
    let position_error = if velocity_only {
        let zeros = vec![quote!(0.0f32); derivation.dim];
        quote!([#(#zeros),*])
    } else if let Some(terms) = &derivation.turn_terms {
        position_rows_with_turns(graph, model, &model.rows, terms)
    } else {
        rows_block(graph, model, &derivation.winding, &model.rows)
    };
    let velocity_bias = if velocity_only {
        let rows = rows_block(graph, model, &derivation.winding, &derivation.velocity_bias);
        quote! {
            #[inline]
            fn velocity_bias(&self, __jacobian: &Self::Jacobian) -> [f32; #dim] { #rows }
        }
    } else {
        TokenStream::new()
    };
    let jacobian = {
        let mut writer = Writer::new(graph, model, &derivation.winding);
        let lets = writer.open(&derivation.cache);
        let values: Vec<TokenStream> = derivation
            .cache
            .iter()
            .map(|&id| writer.write(id))
            .collect();
        quote! { #lets #private::JacobianCache([#(#values),*]) }
    };
    let effective_mass = effective_mass_block(graph, model, derivation);
    let velocity_error = {
        let used = used_slots(graph, &derivation.velocity_error);
        let reads = used.iter().map(|&s| {
            let body = format_ident!("__velocity{}", s);
            let s = Literal::usize_unsuffixed(s);
            quote!(let #body = __velocities[__bodies[#s]];)
        });
        let rows = rows_block(
            graph,
            model,
            &derivation.winding,
            &derivation.velocity_error,
        );
        quote! { #(#reads)* #rows }
    };
    let apply_impulse = apply_impulse_block(graph, model, derivation);
    let jacobian_rows = jacobian_rows_block(graph, model, derivation);
    let geometric_stiffness = geometric_stiffness_block(graph, model, derivation, &private);
    let validate = validate_block(model);
    let bounds = bounds_block(graph, model);
    let doc = documentation(model, derivation);

    let set_targets = body_fields.iter().map(|field| quote!(self.#field));
    let named = named_constants(model);
    let snapshot_fields = snapshot_fields_impl(&private, name, item);
    quote! {
        #(#[doc = #doc])*
        #item

        #named

        // Straight-line generated arithmetic: the user's lint settings are not its business.
        #[automatically_derived]
        #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
        impl #private::Constraint<#dim, #bodies> for #name {
            type Jacobian = #private::JacobianCache<#cache_len>;
            const NAME: &'static str = #name_text;
            const VELOCITY_ONLY: bool = #velocity_only;
            const HAS_LIMITS: bool = #has_limits;

            #[inline]
            fn bodies(&self) -> [#private::BodyHandle; #bodies] {
                [#(self.#body_fields),*]
            }

            #[inline]
            fn set_bodies(&mut self, __bodies: [#private::BodyHandle; #bodies]) {
                [#(#set_targets),*] = __bodies;
            }

            #translation_invariant

            fn validate(&self) -> ::core::result::Result<(), #private::InvalidParameter> {
                #validate
                ::core::result::Result::Ok(())
            }

            #bounds

            #[inline]
            fn position_error(&self, __poses: &[#private::Pose; #bodies]) -> [f32; #dim] {
                #position_error
            }

            #velocity_bias

            #[inline]
            fn jacobian(&self, __poses: &[#private::Pose; #bodies]) -> Self::Jacobian {
                #jacobian
            }

            #[inline]
            fn effective_mass(
                &self,
                __jacobian: &Self::Jacobian,
                __inverse_masses: &[#private::InverseMass; #bodies],
                __shared: #private::SharedSlots,
            ) -> [[f32; #dim]; #dim] {
                #effective_mass
            }

            #[inline]
            fn velocity_error(
                &self,
                __jacobian: &Self::Jacobian,
                __bodies: &[usize; #bodies],
                __velocities: &[#private::Velocity],
            ) -> [f32; #dim] {
                #velocity_error
            }

            #[inline]
            fn apply_impulse(
                &self,
                __jacobian: &Self::Jacobian,
                __impulse: &[f32; #dim],
                __inverse_masses: &[#private::InverseMass; #bodies],
                __bodies: &[usize; #bodies],
                __velocities: &mut [#private::Velocity],
            ) {
                #apply_impulse
            }

            #[inline]
            fn jacobian_rows(&self, __jacobian: &Self::Jacobian) -> [[[f32; 3]; #bodies]; #dim] {
                #jacobian_rows
            }

            #geometric_stiffness
        }

        #snapshot_fields
    }
}

/// `SnapshotFields` for the struct: every field in declaration order (all of them
/// `BodyHandle`, `Vec2` or `f32`, which implement it), so that snapshots of spaces holding
/// the type can be written as bytes and read back.
fn snapshot_fields_impl(
    private: &TokenStream,
    name: &Ident,
    item: &syn::ItemStruct,
) -> TokenStream {
    let fields: Vec<&Ident> = item
        .fields
        .iter()
        .filter_map(|f| f.ident.as_ref())
        .collect();
    quote! {
        #[automatically_derived]
        impl #private::SnapshotFields for #name {
            fn write_snapshot(&self, __out: &mut ::std::vec::Vec<u8>) {
                #(#private::SnapshotFields::write_snapshot(&self.#fields, __out);)*
            }

            fn read_snapshot(
                __input: &mut &[u8],
            ) -> ::core::result::Result<Self, #private::SnapshotError> {
                ::core::result::Result::Ok(Self {
                    #(#fields: #private::SnapshotFields::read_snapshot(__input)?,)*
                })
            }
        }
    }
}

/// The dense rows of `J`, each entry as derived (over the per-step cache, parameters
/// and constants).
fn jacobian_rows_block(graph: &Graph, model: &Model, derivation: &Derivation) -> TokenStream {
    let roots: Vec<Id> = derivation.jacobian.iter().flatten().copied().collect();
    let mut writer = Writer::new(graph, model, &derivation.winding);
    let lets = writer.open(&roots);
    let rows = derivation.jacobian.iter().map(|row| {
        let slots = row.chunks(3).map(|entries| {
            let entries = entries.iter().map(|&id| writer.write(id));
            quote!([#(#entries),*])
        });
        quote!([#(#slots),*])
    });
    quote! { #lets [#(#rows),*] }
}

/// `geometric_stiffness` of a positional constraint, from its second derivatives (a
/// velocity-only constraint keeps the trait's default: it has no positions to stiffen).
fn geometric_stiffness_block(
    graph: &Graph,
    model: &Model,
    derivation: &Derivation,
    private: &TokenStream,
) -> TokenStream {
    if derivation.geometric_stiffness.is_empty() {
        return TokenStream::new();
    }
    let dim = Literal::usize_unsuffixed(derivation.dim);
    let bodies = Literal::usize_unsuffixed(derivation.bodies);
    let roots: Vec<Id> = derivation
        .geometric_stiffness
        .iter()
        .flatten()
        .copied()
        .collect();
    let mut writer = Writer::new(graph, model, &derivation.winding);
    let lets = writer.open(&roots);
    let slots = derivation
        .geometric_stiffness
        .iter()
        .map(|&[turning, moving]| {
            let (turning, moving) = (writer.write(turning), writer.write(moving));
            quote!([#turning, #moving])
        });
    quote! {
        #[inline]
        fn geometric_stiffness(
            &self,
            __poses: &[#private::Pose; #bodies],
            __impulse: &[f32; #dim],
        ) -> ::core::option::Option<[[f32; 2]; #bodies]> {
            #lets
            ::core::option::Option::Some([#(#slots),*])
        }
    }
}

fn rows_block(graph: &Graph, model: &Model, winding: &Winding, rows: &[Id]) -> TokenStream {
    let mut writer = Writer::new(graph, model, winding);
    let lets = writer.open(rows);
    let values = rows.iter().map(|&id| writer.write(id));
    quote! { #lets [#(#values),*] }
}

/// The rows `c` of a constraint affine in its raw angles (`Derivation::turn_terms`):
/// computed from the principal angles, with `2π·Σ_s (∂c/∂θ_s)·turns_s` added in `f64`
/// and the sum rounded once.
fn position_rows_with_turns(
    graph: &Graph,
    model: &Model,
    rows: &[Id],
    terms: &[Vec<(usize, Id)>],
) -> TokenStream {
    let mut writer = Writer::principal(graph, model);
    let mut roots = rows.to_vec();
    roots.extend(terms.iter().flatten().map(|&(_, coefficient)| coefficient));
    let lets = writer.open(&roots);
    let values = rows.iter().zip(terms).map(|(&row, terms)| {
        let value = writer.write(row);
        if terms.is_empty() {
            return value;
        }
        let turns = terms.iter().map(|&(s, coefficient)| {
            let coefficient = writer.write(coefficient);
            let s = Literal::usize_unsuffixed(s);
            quote!(f64::from(#coefficient) * f64::from(__poses[#s].turns))
        });
        quote!(((f64::from(#value) + ::core::f64::consts::TAU * (#(#turns)+*)) as f32))
    });
    quote! { #lets [#(#values),*] }
}

fn used_slots(graph: &Graph, roots: &[Id]) -> Vec<usize> {
    let mut used = std::collections::BTreeSet::new();
    for id in graph.reachable(roots) {
        if let Node::Leaf(Leaf::Velocity(s, _)) = graph.node(id) {
            used.insert(usize::from(s));
        }
    }
    used.into_iter().collect()
}

fn effective_mass_block(graph: &Graph, model: &Model, derivation: &Derivation) -> TokenStream {
    let dim = derivation.dim;
    let upper: Vec<(usize, usize, Id)> = (0..dim)
        .flat_map(|i| (i..dim).map(move |j| (i, j)))
        .map(|(i, j)| (i, j, derivation.effective_mass[i][j]))
        .collect();
    let roots: Vec<Id> = upper.iter().map(|&(_, _, id)| id).collect();
    let mut writer = Writer::new(graph, model, &derivation.winding);
    let lets = writer.open(&roots);
    let entry = |i: usize, j: usize| {
        let (low, high) = if i <= j { (i, j) } else { (j, i) };
        format_ident!("__k{}_{}", low, high)
    };
    let any_shared = !derivation.shared_terms.is_empty();
    let entries = upper.iter().map(|&(i, j, id)| {
        let name = entry(i, j);
        let value = writer.write(id);
        if any_shared {
            quote!(let mut #name: f32 = #value;)
        } else {
            quote!(let #name: f32 = #value;)
        }
    });
    let entries: Vec<TokenStream> = entries.collect();
    // With several pairs, what two or more of their branches need (a pulley's `n₁·n₂`) is
    // computed once, before the branches.
    let several = derivation.shared_terms.len() > 1;
    let common_lets = if several {
        let common = common_subexpressions(graph, &derivation.shared_terms);
        writer.open(&common)
    } else {
        TokenStream::new()
    };
    let mut shared = TokenStream::new();
    for terms in &derivation.shared_terms {
        let roots: Vec<Id> = terms.terms.iter().map(|&(_, _, id)| id).collect();
        let inner_lets = writer.open(&roots);
        let additions = terms.terms.iter().map(|&(i, j, id)| {
            let name = entry(i, j);
            let (value, operator) = signed(&writer, id);
            quote!(#name #operator #value;)
        });
        let (first, second) = (
            Literal::usize_unsuffixed(terms.first),
            Literal::usize_unsuffixed(terms.second),
        );
        shared.extend(quote! {
            if __shared.contains(#first, #second) {
                #inner_lets
                #(#additions)*
            }
        });
        writer.close();
    }
    // With several pairs, the common case (no slot shared) costs one test, not one per pair.
    if several {
        writer.close();
        shared = quote! {
            if !__shared.is_empty() {
                #common_lets
                #shared
            }
        };
    }
    let rows = (0..dim).map(|i| {
        let row = (0..dim).map(|j| entry(i, j));
        quote!([#(#row),*])
    });
    quote! {
        #lets
        #(#entries)*
        #shared
        [#(#rows),*]
    }
}

/// The largest sub-expressions that two or more shared-slot branches use, each listed
/// twice so that the schedule names it.
fn common_subexpressions(graph: &Graph, shared_terms: &[crate::derive::SharedTerms]) -> Vec<Id> {
    let mut branches = vec![0usize; graph.len()];
    let reach: Vec<Vec<Id>> = shared_terms
        .iter()
        .map(|terms| {
            let roots: Vec<Id> = terms.terms.iter().map(|&(_, _, id)| id).collect();
            graph.reachable(&roots)
        })
        .collect();
    for nodes in &reach {
        for id in nodes {
            branches[id.index()] += 1;
        }
    }
    let common = |id: Id| {
        branches[id.index()] > 1 && !matches!(graph.node(id), Node::Const(_) | Node::Leaf(_))
    };
    let mut maximal = Vec::new();
    for nodes in &reach {
        for &id in nodes {
            if !common(id) || maximal.contains(&id) {
                continue;
            }
            // Maximal: no common node of this branch has it as a child.
            let covered = nodes
                .iter()
                .any(|&parent| common(parent) && graph.children(parent).contains(&id));
            if !covered {
                maximal.push(id);
            }
        }
    }
    maximal.sort();
    maximal.iter().flat_map(|&id| [id, id]).collect()
}

fn apply_impulse_block(graph: &Graph, model: &Model, derivation: &Derivation) -> TokenStream {
    let roots: Vec<Id> = derivation
        .impulse
        .iter()
        .flat_map(|per_slot| per_slot.iter().copied())
        .collect();
    let mut writer = Writer::new(graph, model, &derivation.winding);
    let lets = writer.open(&roots);
    let mut updates = TokenStream::new();
    for (s, per_slot) in derivation.impulse.iter().enumerate() {
        if per_slot.iter().all(|&id| graph.is_const(id, 0.0)) {
            continue;
        }
        let mut body = TokenStream::new();
        for (dof, &id) in Dof::ALL.iter().zip(per_slot) {
            if graph.is_const(id, 0.0) {
                continue;
            }
            let (value, operator) = signed(&writer, id);
            let s = Literal::usize_unsuffixed(s);
            body.extend(match dof {
                Dof::X => quote!(__body.linear.x #operator __inverse_masses[#s].mass * #value;),
                Dof::Y => quote!(__body.linear.y #operator __inverse_masses[#s].mass * #value;),
                Dof::Angle => {
                    quote!(__body.angular #operator __inverse_masses[#s].inertia * #value;)
                }
            });
        }
        let s = Literal::usize_unsuffixed(s);
        updates.extend(quote! {
            {
                let __body = &mut __velocities[__bodies[#s]];
                #body
            }
        });
    }
    quote! { #lets #updates }
}

/// Fields that appear in a row's bounds may be infinite (an open end); every other number
/// must be finite, and none may be NaN.
fn validate_block(model: &Model) -> TokenStream {
    let graph = &model.graph;
    let krate = &model.krate;
    let private = quote!(#krate::__private);
    let name_text = model.name.to_string();
    let in_bounds = model.scalars_in_bounds();
    // Every check: `if fails { return Err(InvalidParameter { .. }) }`.
    let check = |fails: TokenStream, rule: &str, value: TokenStream| {
        quote! {
            if #fails {
                return ::core::result::Result::Err(#private::InvalidParameter {
                    constraint: #name_text,
                    rule: ::std::string::String::from(#rule),
                    value: #value,
                });
            }
        }
    };
    let mut checks = TokenStream::new();
    for (k, field) in model.scalars.iter().enumerate() {
        let (fails, rule) = if in_bounds[k] {
            (quote!(self.#field.is_nan()), format!("{field} is not NaN"))
        } else {
            (
                quote!(!self.#field.is_finite()),
                format!("{field} is finite"),
            )
        };
        checks.extend(check(
            fails,
            &rule,
            quote!(::std::format!("{:?}", self.#field)),
        ));
    }
    for field in &model.vectors {
        let fails = quote!(!self.#field.is_finite());
        let value = quote!(::std::format!("{:?}", self.#field));
        checks.extend(check(fails, &format!("{field} is finite"), value));
    }
    for (a, b, text) in &model.distinct_bodies {
        let (a, b) = (&model.bodies[*a], &model.bodies[*b]);
        let value = quote!(::std::format!("both are {:?}", self.#a));
        checks.extend(check(quote!(self.#a == self.#b), text, value));
    }
    let writer = Writer::new(graph, model, &Winding::Unread);
    // Every row's range must be a range, and an equality (equal bounds) must be finite.
    for (row, bounds) in model.limits.iter().flatten().enumerate() {
        let (Some(min), Some(max)) = (bounds.min, bounds.max) else {
            continue;
        };
        // A bound is a receiver of `is_finite()`, so it is parenthesised unless it is an
        // atom: `-1.0f32.is_finite()` would negate the boolean.
        if min == max {
            let bound = writer.wrapped(min, ATOM);
            let value = quote!(::std::format!("{:?}", #bound));
            let rule = format!("the bound of row {row} is finite");
            checks.extend(check(quote!(!#bound.is_finite()), &rule, value));
            continue;
        }
        let (low, high) = (writer.wrapped(min, SUM), writer.wrapped(max, SUM));
        let low_receiver = writer.wrapped(min, ATOM);
        let fails = quote!(!(#low <= #high && (#low != #high || #low_receiver.is_finite())));
        let rule = format!("row {row}: min <= max, and equal bounds are finite");
        let value = quote!(::std::format!("min = {:?}, max = {:?}", #low, #high));
        checks.extend(check(fails, &rule, value));
    }
    for rule in &model.rules {
        let (left, right) = (
            writer.wrapped(rule.left, SUM),
            writer.wrapped(rule.right, SUM),
        );
        let holds = match rule.comparison {
            Comparison::Less => quote!(#left < #right),
            Comparison::LessEqual => quote!(#left <= #right),
            Comparison::Greater => quote!(#left > #right),
            Comparison::GreaterEqual => quote!(#left >= #right),
            Comparison::Equal => quote!(#left == #right),
            Comparison::NotEqual => quote!(#left != #right),
        };
        let value = quote! {
            ::std::format!(
                "{} = {:?}, {} = {:?}",
                ::core::stringify!(#left), #left, ::core::stringify!(#right), #right,
            )
        };
        checks.extend(check(quote!(!(#holds)), &rule.text, value));
    }
    checks
}

fn bounds_block(graph: &Graph, model: &Model) -> TokenStream {
    let Some(limits) = &model.limits else {
        return TokenStream::new();
    };
    let krate = &model.krate;
    let writer = Writer::new(graph, model, &Winding::Unread);
    let entries = limits.iter().map(|bounds| {
        let min = bounds
            .min
            .map_or_else(|| quote!(f32::NEG_INFINITY), |id| writer.write(id));
        let max = bounds
            .max
            .map_or_else(|| quote!(f32::INFINITY), |id| writer.write(id));
        quote!(#krate::__private::Bounds::new(#min, #max))
    });
    let dim = Literal::usize_unsuffixed(limits.len());
    quote! {
        #[inline]
        fn bounds(&self) -> [#krate::__private::Bounds; #dim] {
            [#(#entries),*]
        }
    }
}

fn documentation(model: &Model, derivation: &Derivation) -> Vec<String> {
    let graph = &model.graph;
    let body = |s: u8| model.bodies[usize::from(s)].to_string();
    let name = |leaf: Leaf| match leaf {
        Leaf::Pose(s, Dof::X) => format!("{}.x", body(s)),
        Leaf::Pose(s, Dof::Y) => format!("{}.y", body(s)),
        Leaf::Pose(s, Dof::Angle) => format!("{}.θ", body(s)),
        Leaf::Cos(s) => format!("cos {}.θ", body(s)),
        Leaf::Sin(s) => format!("sin {}.θ", body(s)),
        Leaf::Velocity(s, Dof::X) => format!("{}.vx", body(s)),
        Leaf::Velocity(s, Dof::Y) => format!("{}.vy", body(s)),
        Leaf::Velocity(s, Dof::Angle) => format!("{}.ω", body(s)),
        Leaf::Scalar(k) => model.scalars[usize::from(k)].to_string(),
        Leaf::VectorX(k) => format!("{}.x", model.vectors[usize::from(k)]),
        Leaf::VectorY(k) => format!("{}.y", model.vectors[usize::from(k)]),
        Leaf::InverseMass(s) => format!("m⁻¹({})", body(s)),
        Leaf::InverseInertia(s) => format!("I⁻¹({})", body(s)),
        Leaf::Cached(k) => format!("j{k}"),
        Leaf::Impulse(i) => format!("λ{i}"),
        Leaf::Named(k) => model.named[usize::from(k)].to_string().replace(' ', ""),
    };
    let text = |id: Id| to_infix(graph, id, &name);
    let mut lines = vec![String::new(), "# Derivation".to_owned(), String::new()];
    lines.push(
        "Derived at compile time by `#[constraint]` (`q` = each body's `x, y, θ`).".to_owned(),
    );
    lines.push(String::new());
    lines.push("```text".to_owned());
    match model.mode {
        Mode::Position => {
            lines.push("position constraint c(q):".to_owned());
            for (i, &row) in model.rows.iter().enumerate() {
                lines.push(format!("  c{i} = {}", text(row)));
            }
            if let Some(limits) = &model.limits {
                lines.push("limits:".to_owned());
                for (i, bounds) in limits.iter().enumerate() {
                    let min = bounds.min.map_or_else(|| "-∞".to_owned(), text);
                    let max = bounds.max.map_or_else(|| "∞".to_owned(), text);
                    lines.push(format!("  {min} ≤ c{i} ≤ {max}"));
                }
            }
        }
        Mode::Velocity => {
            lines.push("velocity constraint J·v + b = 0, with b:".to_owned());
            for (i, &row) in derivation.bias.iter().enumerate() {
                lines.push(format!("  b{i} = {}", text(row)));
            }
        }
    }
    match &derivation.winding {
        Winding::Unread => {}
        Winding::Absolute => {
            lines.push("angles: each θ read whole, 2π·turns + atan2(sin θ, cos θ)".to_owned());
        }
        Winding::Relative(r) => lines.push(format!(
            "angles: each θ read from {}'s winding (c is unchanged when every θ turns by 2π)",
            model.bodies[*r]
        )),
        Winding::Conditional { slot, tests } => {
            let tests: Vec<String> = tests.iter().map(|&id| text(id)).collect();
            lines.push(format!(
                "angles: each θ read from {}'s winding where {} = 0, else whole",
                model.bodies[*slot],
                tests.join(" = ")
            ));
        }
    }
    lines.push(String::new());
    lines.push("per-step values (computed once per step from the poses):".to_owned());
    for (k, &id) in derivation.cache.iter().enumerate() {
        lines.push(format!("  j{k} = {}", text(id)));
    }
    if derivation.cache.is_empty() {
        lines.push("  (none: J is constant)".to_owned());
    }
    lines.push(String::new());
    lines.push("Jacobian J (non-zero entries):".to_owned());
    for (i, row) in derivation.jacobian.iter().enumerate() {
        for (column, &id) in row.iter().enumerate() {
            if graph.is_const(id, 0.0) {
                continue;
            }
            let slot = model.bodies[column / 3].to_string();
            let dof = ["x", "y", "θ"][column % 3];
            lines.push(format!("  ∂c{i}/∂{slot}.{dof} = {}", text(id)));
        }
    }
    lines.push(String::new());
    lines.push("velocity constraint V = J·v:".to_owned());
    for (i, &row) in derivation.velocity_error.iter().enumerate() {
        lines.push(format!("  V{i} = {}", text(row)));
    }
    lines.push(String::new());
    lines.push("effective mass K = J M⁻¹ Jᵀ (symmetric):".to_owned());
    for i in 0..derivation.dim {
        for j in i..derivation.dim {
            lines.push(format!(
                "  K{i}{j} = {}",
                text(derivation.effective_mass[i][j])
            ));
        }
    }
    for terms in &derivation.shared_terms {
        let (first, second) = (&model.bodies[terms.first], &model.bodies[terms.second]);
        lines.push(format!("  when {first} and {second} are the same body:"));
        for &(i, j, id) in &terms.terms {
            match graph.node(id) {
                Node::Neg(magnitude) => lines.push(format!("    K{i}{j} -= {}", text(magnitude))),
                _ => lines.push(format!("    K{i}{j} += {}", text(id))),
            }
        }
    }
    lines.push("```".to_owned());
    lines
}

/// What a struct whose constraint failed to compile implements instead: the trait with
/// the struct's body count and one row, every method unreachable (the crate does not
/// compile, so none can run). It keeps the real error the only one.
pub fn placeholder(input: &crate::parse::Input, krate: &TokenStream) -> TokenStream {
    let name = &input.item.ident;
    let name_text = name.to_string();
    let private = quote!(#krate::__private);
    let bodies = input
        .fields
        .iter()
        .filter(|f| f.kind == crate::parse::FieldKind::Body)
        .count()
        .max(1);
    let bodies = Literal::usize_unsuffixed(bodies);
    let message = "#[constraint] failed to compile";
    // A generic struct (itself an error) gets the placeholder for every instantiation;
    // the bounds the trait needs are stated, not assumed.
    let (impl_generics, type_generics, where_clause) = input.item.generics.split_for_impl();
    let predicates = where_clause.map(|w| &w.predicates);
    let bounds = if input.generic {
        quote!(where #name #type_generics: ::core::clone::Clone + ::core::marker::Send + ::core::marker::Sync + 'static, #predicates)
    } else {
        TokenStream::new()
    };
    quote! {
        #[automatically_derived]
        #[allow(unused_variables, clippy::all)]
        impl #impl_generics #private::Constraint<1, #bodies> for #name #type_generics #bounds {
            type Jacobian = ();
            const NAME: &'static str = #name_text;
            fn bodies(&self) -> [#private::BodyHandle; #bodies] { ::core::unreachable!(#message) }
            fn set_bodies(&mut self, __bodies: [#private::BodyHandle; #bodies]) { ::core::unreachable!(#message) }
            fn position_error(&self, __poses: &[#private::Pose; #bodies]) -> [f32; 1] { ::core::unreachable!(#message) }
            fn jacobian(&self, __poses: &[#private::Pose; #bodies]) -> Self::Jacobian { ::core::unreachable!(#message) }
            fn effective_mass(&self, __jacobian: &Self::Jacobian, __inverse_masses: &[#private::InverseMass; #bodies], __shared: #private::SharedSlots) -> [[f32; 1]; 1] { ::core::unreachable!(#message) }
            fn velocity_error(&self, __jacobian: &Self::Jacobian, __bodies: &[usize; #bodies], __velocities: &[#private::Velocity]) -> [f32; 1] { ::core::unreachable!(#message) }
            fn apply_impulse(&self, __jacobian: &Self::Jacobian, __impulse: &[f32; 1], __inverse_masses: &[#private::InverseMass; #bodies], __bodies: &[usize; #bodies], __velocities: &mut [#private::Velocity]) { ::core::unreachable!(#message) }
        }
    }
}
