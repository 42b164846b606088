//! Flat instruction tapes: a set of graph roots compiled to register code, evaluated in
//! `f32` as the generated code is, each node once (the graph's sharing is the tape's).

use std::collections::{HashMap, HashSet};

use crate::symbolic::{Dof, Graph, Id, Leaf, Node};

/// An input a tape reads: what the generated code reads from its arguments and fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    /// Slot `0`'s position component or angle.
    Pose(u8, Axis),
    /// `cos θ` of a slot, from the pose's cached rotation.
    Cos(u8),
    /// `sin θ` of a slot, from the pose's cached rotation.
    Sin(u8),
    /// A slot's velocity component (linear x, y or angular).
    Velocity(u8, Axis),
    /// A scalar parameter, by index.
    Scalar(u16),
    /// The x component of a vector parameter.
    VectorX(u16),
    /// The y component of a vector parameter.
    VectorY(u16),
    /// Row `i` of the force (or impulse) the rows carry.
    Force(u8),
}

/// A degree of freedom of a body slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// Position (or linear velocity), x.
    X,
    /// Position (or linear velocity), y.
    Y,
    /// Angle (or angular velocity).
    Angle,
}

impl Axis {
    fn of(dof: Dof) -> Self {
        match dof {
            Dof::X => Axis::X,
            Dof::Y => Axis::Y,
            Dof::Angle => Axis::Angle,
        }
    }
}

/// One operation: its destination register is its position among the computed ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Op {
    Add(u16, u16),
    Sub(u16, u16),
    Mul(u16, u16),
    Div(u16, u16),
    Neg(u16),
    Recip(u16),
    SafeRecip(u16),
    Sqrt(u16),
    Sin(u16),
    Cos(u16),
    Tan(u16),
    Exp(u16),
    Ln(u16),
    Asin(u16),
    Acos(u16),
    Atan2(u16, u16),
    Abs(u16),
    Min(u16, u16),
    Max(u16, u16),
    Sign(u16),
    Step(u16),
}

/// Registers kept on the stack, in a small or a large array (zeroing the large one would
/// cost a small tape more than its code); a longer tape borrows a per-thread buffer,
/// which made the line joint's prepare (tapes of 64 to 256 registers) 3.3× slower.
const STACK_REGISTERS: usize = 64;
const LARGE_STACK_REGISTERS: usize = 256;

thread_local! {
    static SCRATCH: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Compiled code for a set of roots. Registers: the inputs, then the constants, then one
/// per operation in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tape {
    inputs: Vec<Input>,
    constants: Vec<f32>,
    code: Vec<Op>,
    outputs: Vec<u16>,
}

impl Tape {
    /// How many values [`run`](Self::run) writes.
    #[must_use]
    pub fn outputs(&self) -> usize {
        self.outputs.len()
    }

    /// Whether the tape computes nothing (no outputs).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.outputs.is_empty()
    }

    /// The inputs the tape reads, in register order.
    #[must_use]
    pub fn inputs(&self) -> &[Input] {
        &self.inputs
    }

    pub(super) fn registers(&self) -> usize {
        self.inputs.len() + self.constants.len() + self.code.len()
    }

    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    pub(super) fn constants(&self) -> &[f32] {
        &self.constants
    }

    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    pub(super) fn code(&self) -> &[Op] {
        &self.code
    }

    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    pub(super) fn output_registers(&self) -> &[u16] {
        &self.outputs
    }

    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    /// Output `k`'s value if it is a constant of the tape (a structural zero or one of
    /// `J`, say).
    pub(super) fn constant_output(&self, k: usize) -> Option<f32> {
        let register = usize::from(*self.outputs.get(k)?);
        register
            .checked_sub(self.inputs.len())
            .and_then(|c| self.constants.get(c).copied())
    }

    /// Evaluates the tape with the inputs `value_of` gives, writing the outputs to `out`
    /// and, once it is full, to `rest` (outputs beyond both are dropped). No allocation
    /// unless the tape needs more than 64 registers (then once per thread, growing a
    /// reused buffer).
    #[inline]
    pub fn run(&self, value_of: impl Fn(Input) -> f32, out: &mut [f32], rest: &mut [f32]) {
        let needed = self.registers();
        if needed <= STACK_REGISTERS {
            let mut registers = [0.0f32; STACK_REGISTERS];
            self.run_in(&mut registers[..needed], value_of, out, rest);
        } else if needed <= LARGE_STACK_REGISTERS {
            let mut registers = [0.0f32; LARGE_STACK_REGISTERS];
            self.run_in(&mut registers[..needed], value_of, out, rest);
        } else {
            SCRATCH.with(|scratch| {
                let mut scratch = scratch.borrow_mut();
                if scratch.len() < needed {
                    scratch.resize(needed, 0.0);
                }
                self.run_in(&mut scratch[..needed], value_of, out, rest);
            });
        }
    }

    #[inline]
    fn run_in(
        &self,
        registers: &mut [f32],
        value_of: impl Fn(Input) -> f32,
        out: &mut [f32],
        rest: &mut [f32],
    ) {
        let (inputs, tail) = registers.split_at_mut(self.inputs.len());
        for (register, &input) in inputs.iter_mut().zip(&self.inputs) {
            *register = value_of(input);
        }
        tail[..self.constants.len()].copy_from_slice(&self.constants);
        // One flat register file: an operand is read without asking which part holds it.
        let base = self.inputs.len() + self.constants.len();
        for (destination, op) in (base..).zip(&self.code) {
            let r = |register: u16| registers[usize::from(register)];
            registers[destination] = match *op {
                Op::Add(a, b) => r(a) + r(b),
                Op::Sub(a, b) => r(a) - r(b),
                Op::Mul(a, b) => r(a) * r(b),
                Op::Div(a, b) => r(a) / r(b),
                Op::Neg(a) => -r(a),
                Op::Recip(a) => 1.0 / r(a),
                Op::SafeRecip(a) => safe_recip(r(a)),
                Op::Sqrt(a) => r(a).sqrt(),
                Op::Sin(a) => r(a).sin(),
                Op::Cos(a) => r(a).cos(),
                Op::Tan(a) => r(a).tan(),
                Op::Exp(a) => r(a).exp(),
                Op::Ln(a) => ln(r(a)),
                Op::Asin(a) => asin(r(a)),
                Op::Acos(a) => acos(r(a)),
                Op::Atan2(a, b) => r(a).atan2(r(b)),
                Op::Abs(a) => r(a).abs(),
                Op::Min(a, b) => r(a).min(r(b)),
                Op::Max(a, b) => r(a).max(r(b)),
                Op::Sign(a) => sign(r(a)),
                Op::Step(a) => step(r(a)),
            };
        }
        for (slot, &register) in out.iter_mut().chain(rest).zip(&self.outputs) {
            *slot = registers[usize::from(register)];
        }
    }
}

/// The `f32` rules of the guarded nodes, as `nape::__private` has them.
pub(super) fn safe_recip(x: f32) -> f32 {
    if x.abs() > 1e-6 { 1.0 / x } else { 0.0 }
}

pub(super) fn sign(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

pub(super) fn ln(x: f32) -> f32 {
    x.max(f32::MIN_POSITIVE).ln()
}

pub(super) fn asin(x: f32) -> f32 {
    x.clamp(-1.0, 1.0).asin()
}

pub(super) fn acos(x: f32) -> f32 {
    x.clamp(-1.0, 1.0).acos()
}

pub(super) fn step(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        0.0
    } else {
        0.5
    }
}

/// Why a graph cannot become a tape.
#[derive(Debug, PartialEq, Eq)]
pub enum TapeError {
    /// The graph reads a leaf this tape has no input for (a named constant).
    Unsupported(Leaf),
    /// More than `u16::MAX` registers.
    TooLarge,
}

/// An operation given its operand registers (the second ignored by one-operand ones).
type MakeOp = fn(u16, u16) -> Op;

/// A register while the tape is built: which part of the register file it is in.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    Input(u16),
    Constant(u16),
    Computed(u16),
}

/// Builds one tape from several groups of roots; later groups may read earlier roots
/// through [`alias`](Self::alias) (the Jacobian's entries read its per-step cache).
pub struct TapeBuilder<'g> {
    graph: &'g Graph,
    inputs: Vec<Input>,
    constants: Vec<f32>,
    code: Vec<(MakeOp, Slot, Slot)>,
    outputs: Vec<Slot>,
    slot_of: HashMap<Id, Slot>,
    aliases: HashMap<Leaf, Slot>,
    constant_of: HashMap<u32, Slot>,
    input_of: HashMap<Input, Slot>,
}

impl<'g> TapeBuilder<'g> {
    /// An empty tape over `graph`.
    #[must_use]
    pub fn new(graph: &'g Graph) -> Self {
        Self {
            graph,
            inputs: Vec::new(),
            constants: Vec::new(),
            code: Vec::new(),
            outputs: Vec::new(),
            slot_of: HashMap::new(),
            aliases: HashMap::new(),
            constant_of: HashMap::new(),
            input_of: HashMap::new(),
        }
    }

    /// Makes the leaf `leaf` read the value of the already compiled node `id`.
    pub fn alias(&mut self, leaf: Leaf, id: Id) {
        if let Some(&slot) = self.slot_of.get(&id) {
            self.aliases.insert(leaf, slot);
        }
    }

    /// Compiles `roots` (and what they need that is not compiled yet), without making
    /// them outputs.
    ///
    /// # Errors
    ///
    /// A leaf without an input, or too many registers.
    pub fn compile(&mut self, roots: &[Id]) -> Result<(), TapeError> {
        // Only the nodes the roots need as compiled: the `-x` of `a + -x` is read by the
        // subtraction `a - x`, so it is computed only if something else reads it.
        let reachable = self.graph.reachable(roots);
        let mut needed: HashSet<Id> = roots.iter().copied().collect();
        for &id in reachable.iter().rev() {
            if needed.contains(&id)
                && !self.slot_of.contains_key(&id)
                && let Some((_, operands)) = self.fused(id)
            {
                needed.extend(operands.into_iter().flatten());
            }
        }
        for id in reachable {
            if !needed.contains(&id) || self.slot_of.contains_key(&id) {
                continue;
            }
            let slot = self.node_slot(id)?;
            self.slot_of.insert(id, slot);
        }
        Ok(())
    }

    /// Compiles `roots` and appends them to the outputs.
    ///
    /// # Errors
    ///
    /// See [`compile`](Self::compile).
    pub fn output(&mut self, roots: &[Id]) -> Result<(), TapeError> {
        self.compile(roots)?;
        for root in roots {
            let slot = self.slot_of[root];
            self.outputs.push(slot);
        }
        Ok(())
    }

    /// The tape.
    ///
    /// # Errors
    ///
    /// More registers than `u16` numbers.
    pub fn finish(self) -> Result<Tape, TapeError> {
        let total = self.inputs.len() + self.constants.len() + self.code.len();
        if total > usize::from(u16::MAX) {
            return Err(TapeError::TooLarge);
        }
        let (inputs, constants) = (self.inputs.len(), self.constants.len());
        #[allow(clippy::cast_possible_truncation)]
        let register = |slot: Slot| match slot {
            Slot::Input(k) => k,
            Slot::Constant(k) => inputs as u16 + k,
            Slot::Computed(k) => (inputs + constants) as u16 + k,
        };
        Ok(Tape {
            code: self
                .code
                .iter()
                .map(|&(make, a, b)| make(register(a), register(b)))
                .collect(),
            outputs: self.outputs.iter().map(|&s| register(s)).collect(),
            inputs: self.inputs,
            constants: self.constants,
        })
    }

    fn next(len: usize) -> Result<u16, TapeError> {
        u16::try_from(len).map_err(|_| TapeError::TooLarge)
    }

    fn constant(&mut self, value: f64) -> Result<Slot, TapeError> {
        // f32 is the runtime's precision: the constant is rounded once, here.
        #[allow(clippy::cast_possible_truncation)]
        let single = value as f32;
        if let Some(&slot) = self.constant_of.get(&single.to_bits()) {
            return Ok(slot);
        }
        let slot = Slot::Constant(Self::next(self.constants.len())?);
        self.constants.push(single);
        self.constant_of.insert(single.to_bits(), slot);
        Ok(slot)
    }

    fn input(&mut self, input: Input) -> Result<Slot, TapeError> {
        if let Some(&slot) = self.input_of.get(&input) {
            return Ok(slot);
        }
        let slot = Slot::Input(Self::next(self.inputs.len())?);
        self.inputs.push(input);
        self.input_of.insert(input, slot);
        Ok(slot)
    }

    fn node_slot(&mut self, id: Id) -> Result<Slot, TapeError> {
        let node = self.graph.node(id);
        let leaf = match node {
            Node::Const(bits) => return self.constant(f64::from_bits(bits)),
            Node::Leaf(leaf) => leaf,
            _ => return self.operation(id),
        };
        if let Some(&slot) = self.aliases.get(&leaf) {
            return Ok(slot);
        }
        let input = match leaf {
            Leaf::Pose(s, dof) => Input::Pose(s, Axis::of(dof)),
            Leaf::Cos(s) => Input::Cos(s),
            Leaf::Sin(s) => Input::Sin(s),
            Leaf::Velocity(s, dof) => Input::Velocity(s, Axis::of(dof)),
            Leaf::Scalar(k) => Input::Scalar(k),
            Leaf::VectorX(k) => Input::VectorX(k),
            Leaf::VectorY(k) => Input::VectorY(k),
            Leaf::Impulse(i) => Input::Force(i),
            Leaf::InverseMass(_) | Leaf::InverseInertia(_) | Leaf::Cached(_) | Leaf::Named(_) => {
                return Err(TapeError::Unsupported(leaf));
            }
        };
        self.input(input)
    }

    /// The operation that computes `id` and its operands, folding a negation into a
    /// subtraction and a reciprocal into a division as the generated code writes them
    /// (`None` for a constant or a leaf).
    fn fused(&self, id: Id) -> Option<(MakeOp, [Option<Id>; 2])> {
        let node = self.graph.node(id);
        let negated = |x: Id| match self.graph.node(x) {
            Node::Neg(inner) => Some(inner),
            _ => None,
        };
        let reciprocal = |x: Id| match self.graph.node(x) {
            Node::Recip(inner) => Some(inner),
            _ => None,
        };
        let (make, a, b): (MakeOp, Id, Option<Id>) = match node {
            Node::Add(a, b) => match (negated(a), negated(b)) {
                (_, Some(x)) => (|a, b| Op::Sub(a, b), a, Some(x)),
                (Some(x), None) => (|a, b| Op::Sub(a, b), b, Some(x)),
                (None, None) => (|a, b| Op::Add(a, b), a, Some(b)),
            },
            Node::Mul(a, b) => match (reciprocal(a), reciprocal(b)) {
                (_, Some(d)) => (|a, b| Op::Div(a, b), a, Some(d)),
                (Some(d), None) => (|a, b| Op::Div(a, b), b, Some(d)),
                (None, None) => (|a, b| Op::Mul(a, b), a, Some(b)),
            },
            Node::Atan2(a, b) => (|a, b| Op::Atan2(a, b), a, Some(b)),
            Node::Min(a, b) => (|a, b| Op::Min(a, b), a, Some(b)),
            Node::Max(a, b) => (|a, b| Op::Max(a, b), a, Some(b)),
            Node::Neg(a) => (|a, _| Op::Neg(a), a, None),
            Node::Recip(a) => (|a, _| Op::Recip(a), a, None),
            Node::SafeRecip(a) => (|a, _| Op::SafeRecip(a), a, None),
            Node::Sqrt(a) => (|a, _| Op::Sqrt(a), a, None),
            Node::Sin(a) => (|a, _| Op::Sin(a), a, None),
            Node::Cos(a) => (|a, _| Op::Cos(a), a, None),
            Node::Tan(a) => (|a, _| Op::Tan(a), a, None),
            Node::Exp(a) => (|a, _| Op::Exp(a), a, None),
            Node::Ln(a) => (|a, _| Op::Ln(a), a, None),
            Node::Asin(a) => (|a, _| Op::Asin(a), a, None),
            Node::Acos(a) => (|a, _| Op::Acos(a), a, None),
            Node::Abs(a) => (|a, _| Op::Abs(a), a, None),
            Node::Sign(a) => (|a, _| Op::Sign(a), a, None),
            Node::Step(a) => (|a, _| Op::Step(a), a, None),
            Node::Const(_) | Node::Leaf(_) => return None,
        };
        Some((make, [Some(a), b]))
    }

    fn operation(&mut self, id: Id) -> Result<Slot, TapeError> {
        let (make, [a, b]) = self.fused(id).expect("an operation node");
        let slot = |operand: Option<Id>| operand.map(|o| self.slot_of[&o]);
        let first = slot(a).expect("an operation has an operand");
        let second = slot(b).unwrap_or(first);
        let computed = Slot::Computed(Self::next(self.code.len())?);
        self.code.push((make, first, second));
        Ok(computed)
    }
}
