//! Tapes compiled to machine code (feature `jit`, x86-64): the same operations in the
//! same order as [`Tape::run`], as straight-line code that reads its inputs where the
//! caller keeps them. Interpreting a tape costs an indirect jump and bounds-checked
//! operand reads per operation; the pivot's prepare took 17× the generated code's time
//! interpreted, 2.4× compiled (`docs/runtime.md`).
//!
//! Results are the interpreter's bit for bit: the arithmetic is IEEE `f32` without
//! contraction, and every function the interpreter calls (`sin`, the guarded `ln`,
//! `min`, …) is called here too, through its address.

mod linearize;
mod mass;

use std::marker::PhantomData;

use cranelift_codegen::ir::{
    AbiParam, Endianness, Function, InstBuilder, MemFlagsData, Signature, UserFuncName, Value,
    types,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::{Context, control::ControlPlane};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

pub use linearize::{LinearizationOut, NativeLinearization};
pub use mass::NativeMass;

use super::tape::{self, Op, Tape};
use super::{Axis, Input};

/// Where a pose's values lie in the records the caller keeps poses in.
///
/// # Safety
///
/// Each offset plus 4 is at most `size_of::<Self>()`, and the four bytes at each offset
/// of any value of `Self` are an initialised `f32` (at [`TURNS`](Self::TURNS) an `i32`):
/// compiled code reads them as such.
pub unsafe trait PoseRecord: Copy {
    /// The x coordinate of the position.
    const X: usize;
    /// The y coordinate of the position.
    const Y: usize;
    /// The rotation's cosine.
    const COS: usize;
    /// The rotation's sine.
    const SIN: usize;
    /// The whole turns (an `i32`) counted from the reference winding: the angle input
    /// is `2π·turns + atan2(sin, cos)`.
    const TURNS: usize;
}

/// How much of each argument a compiled tape reads (counts of records or values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Needs {
    poses: usize,
    scalars: usize,
    vectors: usize,
    forces: usize,
}

impl Needs {
    /// Whether arguments of these lengths hold what is read.
    fn covers(&self, poses: usize, scalars: usize, vectors: usize, forces: usize) -> bool {
        poses >= self.poses
            && scalars >= self.scalars
            && vectors >= self.vectors
            && forces >= self.forces
    }
}

/// The compiled function: poses, scalars, vectors (`[x, y]` pairs), forces, the first
/// outputs, the rest of the outputs.
type Entry =
    unsafe extern "C" fn(*const u8, *const f32, *const f32, *const f32, *mut f32, *mut f32);

/// A [`Tape`] compiled to machine code for poses kept as `P`. Velocities are no input of
/// the tapes it serves: they read as 0.
pub struct NativeTape<P> {
    code: Code,
    needs: Needs,
    /// Outputs written to the first output slice; the others go to the second.
    split: usize,
    outputs: usize,
    pose: PhantomData<fn(&P)>,
}

impl<P> std::fmt::Debug for NativeTape<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeTape")
            .field("needs", &self.needs)
            .field("split", &self.split)
            .field("outputs", &self.outputs)
            .finish_non_exhaustive()
    }
}

impl<P: PoseRecord> NativeTape<P> {
    /// Compiles `tape`, its first `split` outputs to go to [`run`](Self::run)'s `out` and
    /// the others to its `rest`. `None` where the host's code generator is unavailable or
    /// refuses the function (the caller then interprets the tape).
    #[must_use]
    pub fn compile(tape: &Tape, split: usize) -> Option<Self> {
        let code = Code::build(|b, arguments| tape_body::<P>(b, arguments, tape, split))?;
        Some(Self {
            code,
            needs: needs(&[tape]),
            split: split.min(tape.outputs()),
            outputs: tape.outputs(),
            pose: PhantomData,
        })
    }

    /// Runs the code on these inputs, writing the first outputs to `out` and the others to
    /// `rest`. Returns `false`, having run nothing, if a slice is shorter than the tape
    /// reads or writes (the interpreter gives such inputs defaults).
    #[inline]
    pub fn run(
        &self,
        poses: &[P],
        scalars: &[f32],
        vectors: &[[f32; 2]],
        forces: &[f32],
        out: &mut [f32],
        rest: &mut [f32],
    ) -> bool {
        if !self
            .needs
            .covers(poses.len(), scalars.len(), vectors.len(), forces.len())
            || out.len() < self.split
            || rest.len() < self.outputs - self.split
        {
            return false;
        }
        // SAFETY: the code reads pose `s` at `s·size_of::<P>()` plus one of `P`'s
        // `PoseRecord` offsets, scalar, vector and force `k` at their index, for indices
        // below `needs` (`needs` is their maximum plus one), which the lengths checked
        // above cover; it writes `split` values to `out` and the rest to `rest`, both
        // checked long enough. It keeps no pointer past the call.
        unsafe {
            (self.code.entry)(
                poses.as_ptr().cast(),
                scalars.as_ptr(),
                vectors.as_ptr().cast(),
                forces.as_ptr(),
                out.as_mut_ptr(),
                rest.as_mut_ptr(),
            );
        }
        true
    }
}

/// What `tapes` read, together.
fn needs(tapes: &[&Tape]) -> Needs {
    let mut needs = Needs::default();
    let at_least = |count: &mut usize, index: usize| *count = (*count).max(index + 1);
    for &input in tapes.iter().flat_map(|tape| tape.inputs()) {
        match input {
            Input::Pose(s, _) | Input::Cos(s) | Input::Sin(s) => {
                at_least(&mut needs.poses, usize::from(s));
            }
            Input::Scalar(k) => at_least(&mut needs.scalars, usize::from(k)),
            Input::VectorX(k) | Input::VectorY(k) => at_least(&mut needs.vectors, usize::from(k)),
            Input::Force(i) => at_least(&mut needs.forces, usize::from(i)),
            Input::Velocity(..) => {}
        }
    }
    needs
}

/// The byte offset of input `input` from its argument's pointer.
fn offset<P: PoseRecord>(input: Input) -> Option<(usize, usize)> {
    let pose = |s: u8, field: usize| (0, usize::from(s) * size_of::<P>() + field);
    let (argument, offset) = match input {
        Input::Pose(s, Axis::X) => pose(s, P::X),
        Input::Pose(s, Axis::Y) => pose(s, P::Y),
        Input::Cos(s) => pose(s, P::COS),
        Input::Sin(s) => pose(s, P::SIN),
        Input::Scalar(k) => (1, 4 * usize::from(k)),
        Input::VectorX(k) => (2, 8 * usize::from(k)),
        Input::VectorY(k) => (2, 8 * usize::from(k) + 4),
        Input::Force(i) => (3, 4 * usize::from(i)),
        Input::Pose(_, Axis::Angle) | Input::Velocity(..) => return None,
    };
    Some((argument, offset))
}

type Unary = extern "C" fn(f32) -> f32;
type Binary = extern "C" fn(f32, f32) -> f32;

/// The interpreter's functions of one or two values, callable from compiled code.
fn unary(op: Op) -> Option<(Unary, u16)> {
    macro_rules! callable {
        ($($name:ident = $f:expr;)*) => {
            $(extern "C" fn $name(x: f32) -> f32 {
                $f(x)
            })*
        };
    }
    callable! {
        sin = f32::sin;
        cos = f32::cos;
        tan = f32::tan;
        exp = f32::exp;
        ln = tape::ln;
        asin = tape::asin;
        acos = tape::acos;
        safe_recip = tape::safe_recip;
        sign = tape::sign;
        step = tape::step;
    }
    let function: (Unary, u16) = match op {
        Op::Sin(a) => (sin, a),
        Op::Cos(a) => (cos, a),
        Op::Tan(a) => (tan, a),
        Op::Exp(a) => (exp, a),
        Op::Ln(a) => (ln, a),
        Op::Asin(a) => (asin, a),
        Op::Acos(a) => (acos, a),
        Op::SafeRecip(a) => (safe_recip, a),
        Op::Sign(a) => (sign, a),
        Op::Step(a) => (step, a),
        _ => return None,
    };
    Some(function)
}

fn binary(op: Op) -> Option<(Binary, u16, u16)> {
    extern "C" fn min(a: f32, b: f32) -> f32 {
        a.min(b)
    }
    extern "C" fn max(a: f32, b: f32) -> f32 {
        a.max(b)
    }
    let function: (Binary, u16, u16) = match op {
        Op::Atan2(a, b) => (atan2 as Binary, a, b),
        Op::Min(a, b) => (min, a, b),
        Op::Max(a, b) => (max, a, b),
        _ => return None,
    };
    Some(function)
}

/// The interpreter's `atan2`, callable from compiled code.
extern "C" fn atan2(y: f32, x: f32) -> f32 {
    y.atan2(x)
}

/// Calls `function` on `x` and `y` from compiled code.
fn call_binary(b: &mut FunctionBuilder<'_>, function: Binary, x: Value, y: Value) -> Value {
    let call_conv = b.func.signature.call_conv;
    let mut signature = Signature::new(call_conv);
    signature.params = vec![AbiParam::new(types::F32); 2];
    signature.returns.push(AbiParam::new(types::F32));
    let signature = b.import_signature(signature);
    let callee = b.ins().iconst(types::I64, function as usize as i64);
    let call = b.ins().call_indirect(signature, callee, &[x, y]);
    b.inst_results(call)[0]
}

/// Stores `values` from `destination` on, four or two at a time where it can: the caller
/// reads the outputs back at once, and a wide load of several narrow stores waits for
/// them to retire (a store-forwarding stall: the pivot's prepare took 1.7× as long).
fn store_all(b: &mut FunctionBuilder<'_>, values: &[Value], destination: Value) -> Option<()> {
    // Only element alignment is known.
    let memory = MemFlagsData::new().with_notrap();
    let mut at = 0;
    for chunk in values.chunks(4) {
        let offset = i32::try_from(4 * at).ok()?;
        at += chunk.len();
        match *chunk {
            [x, y, z, w] => {
                let mut vector = b.ins().scalar_to_vector(types::F32X4, x);
                for (lane, value) in [(1, y), (2, z), (3, w)] {
                    vector = b.ins().insertlane(vector, value, lane);
                }
                b.ins().store(memory, vector, destination, offset);
            }
            [x, y, ..] => {
                // The pair as the low half of a vector, stored as one `f64`.
                let vector = b.ins().scalar_to_vector(types::F32X4, x);
                let vector = b.ins().insertlane(vector, y, 1);
                let little = MemFlagsData::new().with_endianness(Endianness::Little);
                let wide = b.ins().bitcast(types::F64X2, little, vector);
                let pair = b.ins().extractlane(wide, 0);
                b.ins().store(memory, pair, destination, offset);
                if let [_, _, z] = *chunk {
                    b.ins().store(memory, z, destination, offset + 8);
                }
            }
            [x] => {
                b.ins().store(memory, x, destination, offset);
            }
            [] => {}
        }
    }
    Some(())
}

/// A compiled function (see [`Entry`]) and the memory that holds it.
struct Code {
    /// Keeps the code mapped while `entry` may be called.
    _map: memmap2::Mmap,
    entry: Entry,
}

impl Code {
    /// Compiles the function `body` builds from the [`Entry`] arguments, if the host can
    /// have it.
    fn build(body: impl FnOnce(&mut FunctionBuilder<'_>, &[Value]) -> Option<()>) -> Option<Self> {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").ok()?;
        let isa = cranelift_native::builder()
            .ok()?
            .finish(settings::Flags::new(flags))
            .ok()?;
        let mut signature = Signature::new(isa.default_call_conv());
        signature.params = vec![AbiParam::new(isa.pointer_type()); 6];
        let mut function = Function::with_name_signature(UserFuncName::default(), signature);
        let mut context = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut function, &mut context);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        b.seal_block(block);
        let arguments = b.block_params(block).to_vec();
        body(&mut b, &arguments)?;
        b.ins().return_(&[]);
        b.finalize(isa.frontend_config());

        let mut context = Context::for_function(function);
        let compiled = context.compile(&*isa, &mut ControlPlane::default()).ok()?;
        // Code that needs relocating (a call by symbol) cannot be copied as it is.
        if !compiled.buffer.relocs().is_empty() {
            return None;
        }
        let bytes = compiled.code_buffer();
        let mut map = memmap2::MmapMut::map_anon(bytes.len()).ok()?;
        map.copy_from_slice(bytes);
        let map = map.make_exec().ok()?;
        // SAFETY: `map` holds a whole function compiled (with no relocations left to apply)
        // for the host's default calling convention, which is `extern "C"`'s, with the
        // signature `Entry` spells: six pointer-sized arguments, no result. The mapping
        // lives as long as `self`, the only holder of the pointer.
        let entry = unsafe { std::mem::transmute::<*const u8, Entry>(map.as_ptr()) };
        Some(Self { _map: map, entry })
    }
}

/// The body of `tape`'s function: the tape's operations, its first `split` outputs stored
/// to the fifth argument, the others to the sixth.
fn tape_body<P: PoseRecord>(
    b: &mut FunctionBuilder<'_>,
    arguments: &[Value],
    tape: &Tape,
    split: usize,
) -> Option<()> {
    let outputs = emit_tape(b, tape, |b, input| load_input::<P>(b, arguments, input))?;
    let split = split.min(outputs.len());
    for (values, destination) in [(&outputs[..split], 4), (&outputs[split..], 5)] {
        store_all(b, values, arguments[destination])?;
    }
    Some(())
}

/// Loads `input` from where [`Entry`]'s first four `arguments` keep it (velocities read as
/// 0).
fn load_input<P: PoseRecord>(
    b: &mut FunctionBuilder<'_>,
    arguments: &[Value],
    input: Input,
) -> Option<Value> {
    // The arguments are valid and aligned for what the tape reads (the callers' checks).
    let memory = MemFlagsData::trusted();
    if let Input::Pose(s, Axis::Angle) = input {
        // `2π·turns + atan2(sin, cos)`, in the order the interpreter's reader computes it.
        let base = usize::from(s) * size_of::<P>();
        let at = |field: usize| i32::try_from(base + field).ok();
        let turns = b
            .ins()
            .load(types::I32, memory, arguments[0], at(P::TURNS)?);
        let turns = b.ins().fcvt_from_sint(types::F32, turns);
        let tau = b.ins().f32const(std::f32::consts::TAU);
        let whole = b.ins().fmul(tau, turns);
        let sin = b.ins().load(types::F32, memory, arguments[0], at(P::SIN)?);
        let cos = b.ins().load(types::F32, memory, arguments[0], at(P::COS)?);
        let principal = call_binary(b, atan2, sin, cos);
        return Some(b.ins().fadd(whole, principal));
    }
    Some(match offset::<P>(input) {
        Some((argument, offset)) => {
            let offset = i32::try_from(offset).ok()?;
            b.ins()
                .load(types::F32, memory, arguments[argument], offset)
        }
        None => b.ins().f32const(0.0),
    })
}

/// Emits `tape`'s operations, each input's value from `input_value`; returns the values of
/// its outputs.
fn emit_tape(
    b: &mut FunctionBuilder<'_>,
    tape: &Tape,
    mut input_value: impl FnMut(&mut FunctionBuilder<'_>, Input) -> Option<Value>,
) -> Option<Vec<Value>> {
    let call_conv = b.func.signature.call_conv;
    let pointer = types::I64;
    let mut unary_signature = Signature::new(call_conv);
    unary_signature.params.push(AbiParam::new(types::F32));
    unary_signature.returns.push(AbiParam::new(types::F32));
    let mut binary_signature = unary_signature.clone();
    binary_signature.params.push(AbiParam::new(types::F32));
    let unary_ref = b.import_signature(unary_signature);
    let binary_ref = b.import_signature(binary_signature);

    let mut registers: Vec<Value> = Vec::with_capacity(tape.registers());
    for &input in tape.inputs() {
        let value = input_value(b, input)?;
        registers.push(value);
    }
    for &constant in tape.constants() {
        let value = b.ins().f32const(constant);
        registers.push(value);
    }
    for &op in tape.code() {
        let r = |register: u16| registers[usize::from(register)];
        let value = if let Some((function, a)) = unary(op) {
            let callee = b.ins().iconst(pointer, function as usize as i64);
            let call = b.ins().call_indirect(unary_ref, callee, &[r(a)]);
            b.inst_results(call)[0]
        } else if let Some((function, x, y)) = binary(op) {
            let callee = b.ins().iconst(pointer, function as usize as i64);
            let call = b.ins().call_indirect(binary_ref, callee, &[r(x), r(y)]);
            b.inst_results(call)[0]
        } else {
            match op {
                Op::Add(x, y) => b.ins().fadd(r(x), r(y)),
                Op::Sub(x, y) => b.ins().fsub(r(x), r(y)),
                Op::Mul(x, y) => b.ins().fmul(r(x), r(y)),
                Op::Div(x, y) => b.ins().fdiv(r(x), r(y)),
                Op::Neg(x) => b.ins().fneg(r(x)),
                Op::Recip(x) => {
                    let one = b.ins().f32const(1.0);
                    b.ins().fdiv(one, r(x))
                }
                Op::Sqrt(x) => b.ins().sqrt(r(x)),
                Op::Abs(x) => b.ins().fabs(r(x)),
                _ => return None,
            }
        };
        registers.push(value);
    }
    Some(
        tape.output_registers()
            .iter()
            .map(|&register| registers[usize::from(register)])
            .collect(),
    )
}
