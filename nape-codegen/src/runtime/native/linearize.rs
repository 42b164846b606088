//! `c(q)`, `J` and `K = J M⁻¹ Jᵀ` in one compiled function: what a solver asks for together
//! when it prepares a constraint, at the cost of one call instead of three. The tapes'
//! inputs are loaded once and their common subexpressions shared (Cranelift merges equal
//! pure operations), and `K` takes `J`'s values where they are computed, its constant
//! entries folded in as [`NativeMass`](super::NativeMass) folds them.

use std::collections::HashMap;
use std::marker::PhantomData;

use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::FunctionBuilder;

use super::mass::{Term, effective_mass, load_masses};
use super::{Code, Input, Needs, PoseRecord, Tape, emit_tape, load_input, needs, store_all};

/// Where [`NativeLinearization::run`] writes.
#[derive(Debug)]
pub struct LinearizationOut<'a> {
    /// `c(q)`, one value per row (zeros without a position tape).
    pub error: &'a mut [f32],
    /// `J` as the Jacobian tape's first `3·dim·slots` outputs.
    pub jacobian: &'a mut [f32],
    /// The Jacobian tape's other outputs, one per row (a velocity constraint's bias;
    /// zeros for a positional one).
    pub bias: &'a mut [f32],
    /// `K`, row by row, both halves.
    pub effective_mass: &'a mut [f32],
}

/// The position and Jacobian tapes and `K` of a constraint compiled into one function, for
/// poses kept as `P` and slots on distinct bodies.
pub struct NativeLinearization<P> {
    code: Code,
    needs: Needs,
    dim: usize,
    slots: usize,
    pose: PhantomData<fn(&P)>,
}

impl<P> std::fmt::Debug for NativeLinearization<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeLinearization")
            .field("dim", &self.dim)
            .field("slots", &self.slots)
            .finish_non_exhaustive()
    }
}

impl<P: PoseRecord> NativeLinearization<P> {
    /// Compiles `position` (`c`), `jacobian` (`J`, `dim` rows over `slots` slots, `[x, y,
    /// θ]` per slot, then any bias) and `K` into one function. `None` where the host's code
    /// generator is unavailable or refuses it.
    #[must_use]
    pub fn compile(position: &Tape, jacobian: &Tape, dim: usize, slots: usize) -> Option<Self> {
        let entries = 3 * dim * slots;
        let code = Code::build(|b, arguments| {
            let mut loaded: HashMap<Input, Value> = HashMap::new();
            let mut input_value = |b: &mut FunctionBuilder<'_>, input: Input| -> Option<Value> {
                if let Some(&value) = loaded.get(&input) {
                    return Some(value);
                }
                let value = load_input::<P>(b, arguments, input)?;
                loaded.insert(input, value);
                Some(value)
            };
            let errors = emit_tape(b, position, &mut input_value)?;
            let rows = emit_tape(b, jacobian, &mut input_value)?;
            let terms: Vec<Term> = (0..entries)
                .map(|e| match jacobian.constant_output(e) {
                    Some(k) => Term::Known(k),
                    None => rows.get(e).map_or(Term::Known(0.0), |&v| Term::Computed(v)),
                })
                .collect();
            let masses = load_masses(b, arguments[3], slots)?;
            let k = effective_mass(b, &terms, &masses, dim, slots);
            // The fifth argument points to the four outputs' addresses.
            let table = MemFlagsData::trusted();
            let pointer = types::I64;
            let mut destination =
                |index: i32| b.ins().load(pointer, table, arguments[4], 8 * index);
            let destinations = [0, 1, 2, 3].map(&mut destination);
            // Every output is written, as the separate calls write them: a tape's missing
            // values (a velocity constraint's `c`, a positional one's bias) as zeros.
            let zero = b.ins().f32const(0.0);
            let padded = |values: &[Value], length: usize| -> Vec<Value> {
                (0..length)
                    .map(|i| values.get(i).copied().unwrap_or(zero))
                    .collect()
            };
            let errors = padded(&errors, dim);
            let bias = padded(rows.get(entries..).unwrap_or_default(), dim);
            let rows = padded(&rows, entries);
            let parts: [&[Value]; 4] = [&errors, &rows, &bias, &k];
            for (values, destination) in parts.into_iter().zip(destinations) {
                store_all(b, values, destination)?;
            }
            Some(())
        })?;
        Some(Self {
            code,
            needs: needs(&[position, jacobian]),
            dim,
            slots,
            pose: PhantomData,
        })
    }

    /// Runs the code on these poses, parameters and per slot `[1/m, 1/I]` (`masses`),
    /// writing to `out`. Returns `false`, having run nothing, if a slice is shorter than
    /// what the code reads or writes.
    #[inline]
    pub fn run(
        &self,
        poses: &[P],
        scalars: &[f32],
        vectors: &[[f32; 2]],
        masses: &[[f32; 2]],
        out: LinearizationOut<'_>,
    ) -> bool {
        if !self
            .needs
            .covers(poses.len(), scalars.len(), vectors.len(), 0)
            || masses.len() < self.slots
            || out.error.len() < self.dim
            || out.jacobian.len() < 3 * self.dim * self.slots
            || out.bias.len() < self.dim
            || out.effective_mass.len() < self.dim * self.dim
        {
            return false;
        }
        let destinations = [
            out.error.as_mut_ptr(),
            out.jacobian.as_mut_ptr(),
            out.bias.as_mut_ptr(),
            out.effective_mass.as_mut_ptr(),
        ];
        // SAFETY: the code reads pose `s` at `s·size_of::<P>()` plus one of `P`'s
        // `PoseRecord` offsets, scalar and vector `k` at their index, for indices below
        // `needs` (no forces: `covers` with none checks the tapes read none), `2·slots`
        // values from `masses`, and the four addresses from `destinations`, to which it
        // writes `dim`, `3·dim·slots`, `dim` and `dim²` values: every length is checked
        // above. It keeps no pointer past the call.
        unsafe {
            (self.code.entry)(
                poses.as_ptr().cast(),
                scalars.as_ptr(),
                vectors.as_ptr().cast(),
                masses.as_ptr().cast(),
                destinations.as_ptr().cast_mut().cast(),
                std::ptr::null_mut(),
            );
        }
        true
    }
}
