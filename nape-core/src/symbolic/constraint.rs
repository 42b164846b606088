//! [`Constraint`] for [`SymbolicConstraint`]: the tapes for `c(q)`, `J` and the geometric
//! stiffness (compiled, `c`, `J` and `K` also as one function for `linearize`); dense
//! products of `J` for the rest.

use nape_codegen::runtime::{Axis, Input, MAX_TURN_TERMS, Winding};

use super::{RowKind, SymbolicConstraint};
use crate::body::BodyHandle;
use crate::constraint::{Bounds, Constraint, InvalidParameter, SharedSlots, linearize_each};
use crate::types::{InverseMass, Pose, Velocity};
use glam::Vec2;

/// A [`SymbolicConstraint`]'s per-step Jacobian: `J` dense, `rows[i][s] = [∂c_i/∂x_s,
/// ∂c_i/∂y_s, ∂c_i/∂θ_s]`, and a velocity constraint's `b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SymbolicJacobian<const DIM: usize, const BODIES: usize> {
    /// `J`.
    pub rows: [[[f32; 3]; BODIES]; DIM],
    /// The constant part `b` of a velocity constraint's `J·v + b` (zero otherwise).
    pub bias: [f32; DIM],
}

impl<const DIM: usize, const BODIES: usize> Default for SymbolicJacobian<DIM, BODIES> {
    fn default() -> Self {
        Self {
            rows: [[[0.0; 3]; BODIES]; DIM],
            bias: [0.0; DIM],
        }
    }
}

/// The tapes that read poses.
#[derive(Clone, Copy)]
enum PoseTape {
    Position,
    Jacobian,
    Stiffness,
}

impl PoseTape {
    /// This tape's part of a set of three.
    #[inline]
    fn of<T>(self, [position, jacobian, stiffness]: [&T; 3]) -> &T {
        match self {
            PoseTape::Position => position,
            PoseTape::Jacobian => jacobian,
            PoseTape::Stiffness => stiffness,
        }
    }
}

impl<const DIM: usize, const BODIES: usize, K: RowKind> SymbolicConstraint<DIM, BODIES, K> {
    /// The value of a tape input at these poses (velocities and forces are not inputs of
    /// the tapes that read poses, except the stiffness's force).
    #[inline]
    fn input(&self, input: Input, poses: &[Pose; BODIES], force: &[f32; DIM]) -> f32 {
        let pose = |s: u8| poses.get(usize::from(s));
        match input {
            Input::Pose(s, Axis::X) => pose(s).map_or(0.0, |p| p.position.x),
            Input::Pose(s, Axis::Y) => pose(s).map_or(0.0, |p| p.position.y),
            // The poses' turns are counted from the reference winding (`wound`).
            Input::Pose(s, Axis::Angle) => pose(s).map_or(0.0, Pose::angle),
            Input::Cos(s) => pose(s).map_or(1.0, |p| p.cos),
            Input::Sin(s) => pose(s).map_or(0.0, |p| p.sin),
            Input::Force(i) => force.get(usize::from(i)).copied().unwrap_or(0.0),
            Input::Velocity(..) => 0.0,
            parameter => self.parameter(parameter),
        }
    }

    #[inline]
    fn parameter(&self, input: Input) -> f32 {
        match input {
            Input::Scalar(k) => self.scalars.get(usize::from(k)).copied().unwrap_or(0.0),
            Input::VectorX(k) => self.vectors.get(usize::from(k)).map_or(0.0, |v| v[0]),
            Input::VectorY(k) => self.vectors.get(usize::from(k)).map_or(0.0, |v| v[1]),
            _ => 0.0,
        }
    }

    /// The winding the tapes read angles from (see [`Winding`]): `None` for 0.
    #[inline]
    fn reference(&self, poses: &[Pose; BODIES]) -> Option<i32> {
        let turns = |slot: usize| poses.get(slot).map(|p| p.turns);
        match &self.compiled.program.winding {
            Winding::Absolute => None,
            Winding::Relative(slot) => turns(*slot),
            Winding::Conditional { slot, test } => {
                // At most one test per row.
                let mut values = [f32::NAN; DIM];
                test.run(|input| self.parameter(input), &mut values, &mut []);
                let zero =
                    test.outputs() <= DIM && values[..test.outputs()].iter().all(|&v| v == 0.0);
                if zero { turns(*slot) } else { None }
            }
        }
    }

    /// `poses` with their turns counted from the winding the tapes read angles from, or
    /// `None` where that is 0 and they are read as they are.
    #[inline]
    fn wound(&self, poses: &[Pose; BODIES]) -> Option<[Pose; BODIES]> {
        let reference = self.reference(poses)?;
        Some(poses.map(|p| Pose {
            turns: p.turns.wrapping_sub(reference),
            ..p
        }))
    }

    /// Runs one of the tapes that read poses: compiled where it is, else interpreted.
    #[inline(always)]
    fn run(
        &self,
        tape: PoseTape,
        poses: &[Pose; BODIES],
        force: &[f32; DIM],
        out: &mut [f32],
        rest: &mut [f32],
    ) {
        let wound = self.wound(poses);
        let poses = wound.as_ref().unwrap_or(poses);
        #[cfg(all(feature = "jit", target_arch = "x86_64"))]
        {
            let natives = &self.compiled.native;
            let native = tape.of([&natives.position, &natives.jacobian, &natives.stiffness]);
            if let Some(native) = native
                && native.run(poses, &self.scalars, &self.vectors, force, out, rest)
            {
                return;
            }
        }
        self.interpret(tape, poses, force, out, rest);
    }

    /// [`run`](Self::run) through the interpreter: kept out of line, so that the compiled
    /// path inlines into its caller without the interpreter's stack frame.
    #[inline(never)]
    fn interpret(
        &self,
        tape: PoseTape,
        poses: &[Pose; BODIES],
        force: &[f32; DIM],
        out: &mut [f32],
        rest: &mut [f32],
    ) {
        let program = &self.compiled.program;
        let tape = tape.of([&program.position, &program.jacobian, &program.stiffness]);
        tape.run(|input| self.input(input, poses, force), out, rest);
    }

    pub(super) fn run_parameters(&self, out: &mut [f32]) {
        self.compiled
            .program
            .parameters
            .run(|input| self.parameter(input), out, &mut []);
    }

    fn check_parameters(&self) -> Result<(), (String, String)> {
        let program = &self.compiled.program;
        for (k, (&value, name)) in self.scalars.iter().zip(&program.scalars).enumerate() {
            if program.scalar_in_bounds[k] {
                if value.is_nan() {
                    return Err((format!("{name} is not NaN"), format!("{value:?}")));
                }
            } else if !value.is_finite() {
                return Err((format!("{name} is finite"), format!("{value:?}")));
            }
        }
        for (value, name) in self.vectors.iter().zip(&program.vectors) {
            let value = Vec2::from_array(*value);
            if !value.is_finite() {
                return Err((format!("{name} is finite"), format!("{value:?}")));
            }
        }
        for (a, b, text) in &program.distinct_bodies {
            if self.bodies[*a] == self.bodies[*b] {
                return Err((text.clone(), format!("both are {:?}", self.bodies[*a])));
            }
        }
        let mut values = vec![0.0; program.parameters.outputs()];
        self.run_parameters(&mut values);
        for (row, &(min, max)) in program.limits.iter().flatten().enumerate() {
            let (Some(min), Some(max)) = (min, max) else {
                continue;
            };
            let (low, high) = (values[min], values[max]);
            if min == max || low == high {
                if !low.is_finite() {
                    let rule = format!("the bound of row {row} is finite");
                    return Err((rule, format!("{low:?}")));
                }
            } else if low > high || low.is_nan() || high.is_nan() {
                let rule = format!("row {row}: min <= max, and equal bounds are finite");
                return Err((rule, format!("min = {low:?}, max = {high:?}")));
            }
        }
        for rule in &program.rules {
            let (left, right) = (values[rule.left], values[rule.right]);
            if !rule.check.holds(left, right) {
                return Err((rule.text.clone(), format!("{left:?}, {right:?}")));
            }
        }
        Ok(())
    }
}

impl<const DIM: usize, const BODIES: usize, K: RowKind> Constraint<DIM, BODIES>
    for SymbolicConstraint<DIM, BODIES, K>
{
    type Jacobian = SymbolicJacobian<DIM, BODIES>;

    const NAME: &'static str = K::NAMES[DIM][BODIES];
    const VELOCITY_ONLY: bool = K::VELOCITY;
    const HAS_LIMITS: bool = K::LIMITS;

    fn bodies(&self) -> [BodyHandle; BODIES] {
        self.bodies
    }

    fn set_bodies(&mut self, bodies: [BodyHandle; BODIES]) {
        self.bodies = bodies;
    }

    fn translation_invariant(&self) -> bool {
        self.compiled.program.translation_invariant
    }

    fn validate(&self) -> Result<(), InvalidParameter> {
        self.check_parameters()
            .map_err(|(rule, value)| InvalidParameter {
                constraint: Self::NAME,
                rule,
                value,
            })
    }

    fn bounds(&self) -> [Bounds; DIM] {
        self.bounds
    }

    #[inline]
    fn position_error(&self, poses: &[Pose; BODIES]) -> [f32; DIM] {
        let mut out = [0.0; DIM];
        let Some(turns) = &self.compiled.program.turn_terms else {
            self.run(PoseTape::Position, poses, &[0.0; DIM], &mut out, &mut []);
            return out;
        };
        // Affine in the raw angles: `c` at the principal angles, the whole turns added in
        // `f64` (see `TurnTerms`).
        let principal = poses.map(|p| Pose { turns: 0, ..p });
        self.run(
            PoseTape::Position,
            &principal,
            &[0.0; DIM],
            &mut out,
            &mut [],
        );
        // A program has at most `MAX_TURN_TERMS` terms (else it has none).
        let mut coefficients = [0.0f32; MAX_TURN_TERMS];
        let count = turns.terms.len();
        turns.tape.run(
            |input| self.input(input, &principal, &[0.0; DIM]),
            &mut coefficients[..count],
            &mut [],
        );
        // Summed in the generated code's order, so that the two agree bit for bit.
        let mut whole: [Option<f64>; DIM] = [None; DIM];
        for (&(row, slot), &coefficient) in turns.terms.iter().zip(&coefficients[..count]) {
            if let (Some(sum), Some(pose)) = (whole.get_mut(row), poses.get(slot)) {
                let term = f64::from(coefficient) * f64::from(pose.turns);
                *sum = Some(sum.map_or(term, |sum| sum + term));
            }
        }
        for (c, whole) in out.iter_mut().zip(whole) {
            if let Some(whole) = whole {
                *c = (f64::from(*c) + std::f64::consts::TAU * whole) as f32;
            }
        }
        out
    }

    #[inline]
    fn velocity_bias(&self, jacobian: &Self::Jacobian) -> [f32; DIM] {
        jacobian.bias
    }

    #[inline]
    fn jacobian(&self, poses: &[Pose; BODIES]) -> Self::Jacobian {
        let mut jacobian = Self::Jacobian::default();
        self.run(
            PoseTape::Jacobian,
            poses,
            &[0.0; DIM],
            jacobian.rows.as_flattened_mut().as_flattened_mut(),
            &mut jacobian.bias,
        );
        jacobian
    }

    #[inline]
    fn effective_mass(
        &self,
        jacobian: &Self::Jacobian,
        inverse_masses: &[InverseMass; BODIES],
        shared: SharedSlots,
    ) -> [[f32; DIM]; DIM] {
        #[cfg(all(feature = "jit", target_arch = "x86_64"))]
        if shared.is_empty()
            && let Some(native) = &self.compiled.native.mass
        {
            let masses = inverse_masses.map(|m| [m.mass, m.inertia]);
            let mut k = [[0.0; DIM]; DIM];
            let rows = jacobian.rows.as_flattened().as_flattened();
            if native.run(rows, &masses, k.as_flattened_mut()) {
                return k;
            }
        }
        let rows = &jacobian.rows;
        // J_a M⁻¹ J_bᵀ for the slots' entries `a` and `b` of one body.
        let weighted = |a: &[f32; 3], b: &[f32; 3], m: &InverseMass| {
            (a[0] * b[0] + a[1] * b[1]) * m.mass + a[2] * b[2] * m.inertia
        };
        let mut k = [[0.0; DIM]; DIM];
        for i in 0..DIM {
            for j in i..DIM {
                let mut sum = 0.0;
                for s in 0..BODIES {
                    sum += weighted(&rows[i][s], &rows[j][s], &inverse_masses[s]);
                }
                if !shared.is_empty() {
                    for s in 0..BODIES {
                        for t in s + 1..BODIES {
                            if shared.contains(s, t) {
                                let m = &inverse_masses[s];
                                sum += weighted(&rows[i][s], &rows[j][t], m)
                                    + weighted(&rows[i][t], &rows[j][s], m);
                            }
                        }
                    }
                }
                k[i][j] = sum;
                k[j][i] = sum;
            }
        }
        k
    }

    #[inline]
    fn linearize(
        &self,
        poses: &[Pose; BODIES],
        inverse_masses: &[InverseMass; BODIES],
        shared: SharedSlots,
        error: &mut [f32; DIM],
        jacobian: &mut Self::Jacobian,
        effective_mass: &mut [[f32; DIM]; DIM],
    ) {
        #[cfg(all(feature = "jit", target_arch = "x86_64"))]
        if shared.is_empty()
            && let Some(native) = &self.compiled.native.linearization
        {
            let masses = inverse_masses.map(|m| [m.mass, m.inertia]);
            let wound = self.wound(poses);
            let poses = wound.as_ref().unwrap_or(poses);
            let out = nape_codegen::runtime::LinearizationOut {
                error,
                jacobian: jacobian.rows.as_flattened_mut().as_flattened_mut(),
                bias: &mut jacobian.bias,
                effective_mass: effective_mass.as_flattened_mut(),
            };
            if native.run(poses, &self.scalars, &self.vectors, &masses, out) {
                if self.compiled.program.turn_terms.is_some() {
                    // The compiled `c` reads the angles as `winding` does.
                    *error = self.position_error(poses);
                }
                return;
            }
        }
        let out = (error, jacobian, effective_mass);
        linearize_each(self, poses, inverse_masses, shared, out);
    }

    #[inline]
    fn velocity_error(
        &self,
        jacobian: &Self::Jacobian,
        bodies: &[usize; BODIES],
        velocities: &[Velocity],
    ) -> [f32; DIM] {
        let v: [Velocity; BODIES] = std::array::from_fn(|s| velocities[bodies[s]]);
        // Sums start from their first term, not from 0: the compiler must keep an `x + 0`
        // (for `x = -0`), which cost the weld's solve a tenth of its time.
        std::array::from_fn(|i| {
            jacobian.rows[i]
                .iter()
                .zip(&v)
                .map(|(entry, v)| {
                    entry[0] * v.linear.x + entry[1] * v.linear.y + entry[2] * v.angular
                })
                .reduce(|sum, term| sum + term)
                .unwrap_or(0.0)
        })
    }

    #[inline]
    fn apply_impulse(
        &self,
        jacobian: &Self::Jacobian,
        impulse: &[f32; DIM],
        inverse_masses: &[InverseMass; BODIES],
        bodies: &[usize; BODIES],
        velocities: &mut [Velocity],
    ) {
        for s in 0..BODIES {
            let Some(p) = jacobian
                .rows
                .iter()
                .zip(impulse)
                .map(|(row, &lambda)| row[s].map(|entry| entry * lambda))
                .reduce(|p, q| [p[0] + q[0], p[1] + q[1], p[2] + q[2]])
            else {
                return;
            };
            let m = &inverse_masses[s];
            let v = &mut velocities[bodies[s]];
            v.linear.x += p[0] * m.mass;
            v.linear.y += p[1] * m.mass;
            v.angular += p[2] * m.inertia;
        }
    }

    fn jacobian_rows(&self, jacobian: &Self::Jacobian) -> [[[f32; 3]; BODIES]; DIM] {
        jacobian.rows
    }

    fn geometric_stiffness(
        &self,
        poses: &[Pose; BODIES],
        force: &[f32; DIM],
    ) -> Option<[[f32; 2]; BODIES]> {
        if self.compiled.program.stiffness.is_empty() {
            return None;
        }
        let mut out = [[0.0; 2]; BODIES];
        self.run(
            PoseTape::Stiffness,
            poses,
            force,
            out.as_flattened_mut(),
            &mut [],
        );
        Some(out)
    }
}
