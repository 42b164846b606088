//! `K = J M⁻¹ Jᵀ` as machine code, `J`'s structural zeros and ones folded away: the sum
//! a dense product computes, without the terms that are known to be zero.

use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::FunctionBuilder;

use super::{Code, store_all};
use crate::runtime::Tape;

/// A value of the function being built: known when it is compiled, or computed.
#[derive(Clone, Copy)]
pub(super) enum Term {
    Known(f32),
    Computed(Value),
}

impl Term {
    fn value(self, b: &mut FunctionBuilder<'_>) -> Value {
        match self {
            Term::Known(k) => b.ins().f32const(k),
            Term::Computed(v) => v,
        }
    }

    /// `x·y`, a known zero or one taking the product's place (for finite values the product
    /// it replaces, up to the sign of a zero).
    fn mul(self, other: Term, b: &mut FunctionBuilder<'_>) -> Term {
        match (self, other) {
            (Term::Known(x), Term::Known(y)) => Term::Known(x * y),
            (Term::Known(k), _) | (_, Term::Known(k)) if k == 0.0 => Term::Known(0.0),
            (Term::Known(k), v) | (v, Term::Known(k)) if k == 1.0 => v,
            (Term::Known(k), Term::Computed(v)) | (Term::Computed(v), Term::Known(k))
                if k == -1.0 =>
            {
                Term::Computed(b.ins().fneg(v))
            }
            (x, y) => {
                let (x, y) = (x.value(b), y.value(b));
                Term::Computed(b.ins().fmul(x, y))
            }
        }
    }

    /// `x + y`, a known zero dropped.
    fn add(self, other: Term, b: &mut FunctionBuilder<'_>) -> Term {
        match (self, other) {
            (Term::Known(x), Term::Known(y)) => Term::Known(x + y),
            (Term::Known(k), v) | (v, Term::Known(k)) if k == 0.0 => v,
            (x, y) => {
                let (x, y) = (x.value(b), y.value(b));
                Term::Computed(b.ins().fadd(x, y))
            }
        }
    }
}

/// `K = J M⁻¹ Jᵀ` of a constraint's `J` for slots on distinct bodies, compiled.
pub struct NativeMass {
    code: Code,
    dim: usize,
    slots: usize,
}

impl std::fmt::Debug for NativeMass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeMass")
            .field("dim", &self.dim)
            .field("slots", &self.slots)
            .finish_non_exhaustive()
    }
}

impl NativeMass {
    /// Compiles `K` for the `J` that `jacobian` writes (`dim` rows over `slots` slots,
    /// `[x, y, θ]` per slot), its constant entries folded in. `None` where the host's code
    /// generator is unavailable.
    #[must_use]
    pub fn compile(jacobian: &Tape, dim: usize, slots: usize) -> Option<Self> {
        let code = Code::build(|b, arguments| {
            // Only element alignment is known; the lengths are `run`'s checks.
            let memory = MemFlagsData::new().with_notrap();
            let load = |b: &mut FunctionBuilder<'_>, argument: usize, index: usize| {
                let offset = i32::try_from(4 * index).ok()?;
                let value = b
                    .ins()
                    .load(types::F32, memory, arguments[argument], offset);
                Some(Term::Computed(value))
            };
            let mut entries = Vec::with_capacity(3 * dim * slots);
            for e in 0..3 * dim * slots {
                entries.push(match jacobian.constant_output(e) {
                    Some(k) => Term::Known(k),
                    None => load(b, 0, e)?,
                });
            }
            let masses = load_masses(b, arguments[1], slots)?;
            let values = effective_mass(b, &entries, &masses, dim, slots);
            store_all(b, &values, arguments[4])
        })?;
        Some(Self { code, dim, slots })
    }

    /// Writes `K` row by row to `out` from `J` (`rows`, as the Jacobian tape writes it)
    /// and per slot `[1/m, 1/I]`. Returns `false`, having run nothing, if a slice is
    /// shorter than that.
    #[inline]
    pub fn run(&self, rows: &[f32], masses: &[[f32; 2]], out: &mut [f32]) -> bool {
        if rows.len() < 3 * self.dim * self.slots
            || masses.len() < self.slots
            || out.len() < self.dim * self.dim
        {
            return false;
        }
        // SAFETY: the code reads `3·dim·slots` values from `rows` and `2·slots` from
        // `masses`, writes `dim²` to `out`, all checked long enough, and reads or writes
        // through no other argument. It keeps no pointer past the call.
        unsafe {
            (self.code.entry)(
                rows.as_ptr().cast(),
                masses.as_ptr().cast(),
                std::ptr::null(),
                std::ptr::null(),
                out.as_mut_ptr(),
                std::ptr::null_mut(),
            );
        }
        true
    }
}

/// Per slot `[1/m, 1/I]` from `pointer` on.
pub(super) fn load_masses(
    b: &mut FunctionBuilder<'_>,
    pointer: Value,
    slots: usize,
) -> Option<Vec<Term>> {
    // Only element alignment is known; the length is the callers' check.
    let memory = MemFlagsData::new().with_notrap();
    (0..2 * slots)
        .map(|k| {
            let offset = i32::try_from(4 * k).ok()?;
            let value = b.ins().load(types::F32, memory, pointer, offset);
            Some(Term::Computed(value))
        })
        .collect()
}

/// `K = J M⁻¹ Jᵀ` row by row (both halves) from `J`'s `entries` (`[x, y, θ]` per slot and
/// row) and per slot `[1/m, 1/I]` (`masses`), each product with a known zero or one folded.
pub(super) fn effective_mass(
    b: &mut FunctionBuilder<'_>,
    entries: &[Term],
    masses: &[Term],
    dim: usize,
    slots: usize,
) -> Vec<Value> {
    let entry = |i: usize, s: usize, axis: usize| entries[(i * slots + s) * 3 + axis];
    let mut k = vec![Term::Known(0.0); dim * dim];
    for i in 0..dim {
        for j in i..dim {
            // The dense product's order: per slot `(a_x b_x + a_y b_y)·m + a_θ b_θ·I`.
            let mut sum = Term::Known(0.0);
            for s in 0..slots {
                let x = entry(i, s, 0).mul(entry(j, s, 0), b);
                let y = entry(i, s, 1).mul(entry(j, s, 1), b);
                let linear = x.add(y, b).mul(masses[2 * s], b);
                let angular = entry(i, s, 2)
                    .mul(entry(j, s, 2), b)
                    .mul(masses[2 * s + 1], b);
                let weighted = linear.add(angular, b);
                sum = sum.add(weighted, b);
            }
            k[i * dim + j] = sum;
            k[j * dim + i] = sum;
        }
    }
    k.into_iter().map(|term| term.value(b)).collect()
}
