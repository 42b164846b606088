//! Tapes compiled to machine code compute what the interpreter does, bit for bit.
#![cfg(all(feature = "jit", target_arch = "x86_64"))]

use nape_codegen::runtime::{
    Input, LinearizationOut, NativeLinearization, NativeMass, NativeTape, PoseRecord, Program,
    Tape, compile,
};

/// Poses as the test keeps them: fields in another order than `Input`'s, with a gap.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Record {
    sin: f32,
    cos: f32,
    unused: f32,
    x: f32,
    turns: i32,
    y: f32,
}

// SAFETY: `Record` is five `f32` fields and an `i32`, `#[repr(C)]`; each offset is a
// field's, `TURNS` the `i32`'s.
unsafe impl PoseRecord for Record {
    const X: usize = std::mem::offset_of!(Record, x);
    const Y: usize = std::mem::offset_of!(Record, y);
    const COS: usize = std::mem::offset_of!(Record, cos);
    const SIN: usize = std::mem::offset_of!(Record, sin);
    const TURNS: usize = std::mem::offset_of!(Record, turns);
}

/// Every operation a tape has: the functions, and in the Jacobian the derivatives of
/// `abs`, `min`, `max` (sign and step) and the guarded reciprocals.
const MIXED: &str = "#[constraint(position = Vec2::new(
    (body2.position - body1.position).x.atan2((body2.position - body1.position).y + 3.0)
        + (body1.angle * 0.3).tan() + (0.1 * body2.angle).exp()
        + (p0 * p0 + 1.0).ln() + (0.5 * body1.angle.sin()).asin(),
    (0.5 * body2.angle.cos()).acos() + (body2.position - body1.position).length()
        + (body2.position.x - p0).abs() + body1.position.y.min(body2.position.y)
        + body1.position.x.max(v0.x) + (v0.y * v0.y + 1.0).recip() - (body1.angle * body1.angle * v0.y * v0.y + 2.5).sqrt(),
))]
struct Mixed { body1: BodyHandle, body2: BodyHandle, p0: f32, v0: Vec2 }";

const PULLEY: &str =
    "#[constraint(position = (body2.world_point(anchor2) - body1.world_point(anchor1)).length()
    + ratio * (body4.world_point(anchor4) - body3.world_point(anchor3)).length())]
struct Pulley { body1: BodyHandle, body2: BodyHandle, body3: BodyHandle, body4: BodyHandle,
    anchor1: Vec2, anchor2: Vec2, anchor3: Vec2, anchor4: Vec2, ratio: f32 }";

struct Random(u64);

impl Random {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32 * 4.0 - 2.0
    }
}

/// The interpreter's value of `input` at these arguments.
fn value(
    input: Input,
    poses: &[Record],
    scalars: &[f32],
    vectors: &[[f32; 2]],
    forces: &[f32],
) -> f32 {
    use nape_codegen::runtime::Axis;
    let pose = |s: u8| &poses[usize::from(s)];
    match input {
        Input::Pose(s, Axis::X) => pose(s).x,
        Input::Pose(s, Axis::Y) => pose(s).y,
        // As a runtime reads it: `2π·turns + atan2(sin, cos)`.
        Input::Pose(s, Axis::Angle) => {
            std::f32::consts::TAU * pose(s).turns as f32 + pose(s).sin.atan2(pose(s).cos)
        }
        Input::Cos(s) => pose(s).cos,
        Input::Sin(s) => pose(s).sin,
        Input::Scalar(k) => scalars[usize::from(k)],
        Input::VectorX(k) => vectors[usize::from(k)][0],
        Input::VectorY(k) => vectors[usize::from(k)][1],
        Input::Force(i) => forces[usize::from(i)],
        Input::Velocity(..) => 0.0,
    }
}

/// Runs `tape` both ways on random arguments and compares the outputs' bits.
fn agree(program: &Program, tape: &Tape, split: usize) {
    let native = NativeTape::<Record>::compile(tape, split).expect("the host compiles tapes");
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let slots = program.bodies.len();
    for case in 0..500 {
        let (poses, scalars, vectors) = random_arguments(&mut random, program);
        let forces: Vec<f32> = (0..program.dim).map(|_| random.next()).collect();
        let (mut out, mut rest) = (vec![0.0; split], vec![0.0; tape.outputs() - split]);
        tape.run(
            |input| value(input, &poses, &scalars, &vectors, &forces),
            &mut out,
            &mut rest,
        );
        let (mut native_out, mut native_rest) = (vec![0.0; split], vec![0.0; rest.len()]);
        assert!(native.run(
            &poses,
            &scalars,
            &vectors,
            &forces,
            &mut native_out,
            &mut native_rest
        ));
        let bits = |values: &[f32]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&out),
            bits(&native_out),
            "case {case}: {out:?} vs {native_out:?}"
        );
        assert_eq!(bits(&rest), bits(&native_rest), "case {case}");
    }
    // Too short an argument: nothing runs, the caller interprets.
    if slots > 0 {
        let mut out = vec![0.0; split];
        let mut rest = vec![0.0; tape.outputs() - split];
        assert!(!native.run(&[], &[], &[], &[], &mut out, &mut rest));
    }
}

#[test]
fn compiled_tapes_compute_what_the_interpreter_does() {
    for source in [MIXED, PULLEY] {
        let program = compile(source).expect("compiles");
        let entries = 3 * program.dim * program.bodies.len();
        agree(&program, &program.position, program.dim);
        agree(&program, &program.jacobian, entries);
        agree(&program, &program.stiffness, 2 * program.bodies.len());
        // The same outputs split elsewhere: the second slice takes the rest.
        agree(&program, &program.jacobian, entries / 2);
    }
}

const WELD: &str = "#[constraint(position = (
    body2.world_point(anchor2) - body1.world_point(anchor1),
    body2.angle - body1.angle - phase,
))]
struct Weld { body1: BodyHandle, body2: BodyHandle, anchor1: Vec2, anchor2: Vec2, phase: f32 }";

const MOTOR: &str =
    "#[constraint(velocity = ratio * body2.angular_velocity - body1.angular_velocity - rate)]
struct Motor { body1: BodyHandle, body2: BodyHandle, rate: f32, ratio: f32 }";

/// Random poses and parameters for `program`'s slots, scalars and vectors.
fn random_arguments(
    random: &mut Random,
    program: &Program,
) -> (Vec<Record>, Vec<f32>, Vec<[f32; 2]>) {
    let poses = random_poses(random, program.bodies.len());
    let scalars = program.scalars.iter().map(|_| random.next()).collect();
    let vectors = program
        .vectors
        .iter()
        .map(|_| [random.next(), random.next()])
        .collect();
    (poses, scalars, vectors)
}

/// Random poses (with their cached rotation) for `slots` slots.
fn random_poses(random: &mut Random, slots: usize) -> Vec<Record> {
    (0..slots)
        .map(|_| {
            // Every winding from −4 to 3 turns, and rotations on both sides of the cut.
            let angle = random.next() * 2.0;
            let turns = (random.next() * 2.0).floor() as i32;
            Record {
                x: random.next() * 5.0,
                y: random.next() * 5.0,
                turns,
                cos: angle.cos(),
                sin: angle.sin(),
                unused: f32::NAN,
            }
        })
        .collect()
}

#[test]
fn one_linearizing_function_computes_what_the_three_do() {
    let bits = |values: &[f32]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    for source in [MIXED, PULLEY, WELD, MOTOR] {
        let program = compile(source).expect("compiles");
        let (dim, slots) = (program.dim, program.bodies.len());
        let entries = 3 * dim * slots;
        let position = NativeTape::<Record>::compile(&program.position, dim).expect("compiles");
        let jacobian = NativeTape::<Record>::compile(&program.jacobian, entries).expect("compiles");
        let mass = NativeMass::compile(&program.jacobian, dim, slots).expect("compiles");
        let fused = NativeLinearization::<Record>::compile(
            &program.position,
            &program.jacobian,
            dim,
            slots,
        )
        .expect("compiles");
        let mut random = Random(0x2545_f491_4f6c_dd1d);
        for case in 0..300 {
            let (poses, scalars, vectors) = random_arguments(&mut random, &program);
            let masses: Vec<[f32; 2]> = (0..slots)
                .map(|_| [random.next().abs(), random.next().abs()])
                .collect();
            let (mut error, mut rows, mut bias, mut k) = (
                vec![0.0; dim],
                vec![0.0; entries],
                vec![0.0; dim],
                vec![0.0; dim * dim],
            );
            assert!(position.run(&poses, &scalars, &vectors, &[], &mut error, &mut []));
            assert!(jacobian.run(&poses, &scalars, &vectors, &[], &mut rows, &mut bias));
            assert!(mass.run(&rows, &masses, &mut k));
            let mut together = [error.clone(), rows.clone(), bias.clone(), k.clone()]
                .map(|v| vec![f32::NAN; v.len()]);
            let [e, j, b, m] = &mut together;
            let out = LinearizationOut {
                error: e,
                jacobian: j,
                bias: b,
                effective_mass: m,
            };
            assert!(fused.run(&poses, &scalars, &vectors, &masses, out));
            for (name, separate, fused) in [
                ("c", &error, e),
                ("J", &rows, j),
                ("b", &bias, b),
                ("K", &k, m),
            ] {
                assert_eq!(bits(separate), bits(fused), "case {case}, {name}");
            }
        }
        // Too short an output: nothing runs.
        let mut short = vec![0.0; dim * dim - 1];
        let (mut e, mut j, mut b) = (vec![0.0; dim], vec![0.0; entries], vec![0.0; dim]);
        let out = LinearizationOut {
            error: &mut e,
            jacobian: &mut j,
            bias: &mut b,
            effective_mass: &mut short,
        };
        let poses = random_poses(&mut random, slots);
        let vectors = vec![[0.0; 2]; program.vectors.len()];
        let scalars = vec![0.0; program.scalars.len()];
        let masses = vec![[1.0; 2]; slots];
        assert!(!fused.run(&poses, &scalars, &vectors, &masses, out));
    }
}
