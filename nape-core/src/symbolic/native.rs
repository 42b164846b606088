//! The tapes of a [`Compiled`](super::Compiled) text as machine code (feature `jit`,
//! x86-64): what the interpreter computes, without its dispatch per operation.

use nape_codegen::runtime::{NativeLinearization, NativeMass, NativeTape, PoseRecord, Program};

use crate::types::Pose;

// SAFETY: `Pose` is a `Vec2` (two `f32`, `#[repr(C)]`), two `f32` fields and an `i32`;
// each offset is a field's, lying within the struct, `TURNS` the `i32`'s.
unsafe impl PoseRecord for Pose {
    const X: usize = std::mem::offset_of!(Pose, position) + std::mem::offset_of!(glam::Vec2, x);
    const Y: usize = std::mem::offset_of!(Pose, position) + std::mem::offset_of!(glam::Vec2, y);
    const COS: usize = std::mem::offset_of!(Pose, cos);
    const SIN: usize = std::mem::offset_of!(Pose, sin);
    const TURNS: usize = std::mem::offset_of!(Pose, turns);
}

/// A program's compiled tapes (`None`: that tape is interpreted).
#[derive(Debug)]
pub(super) struct Natives {
    pub(super) position: Option<NativeTape<Pose>>,
    pub(super) jacobian: Option<NativeTape<Pose>>,
    pub(super) stiffness: Option<NativeTape<Pose>>,
    /// `K` for slots on distinct bodies.
    pub(super) mass: Option<NativeMass>,
    /// `c`, `J` and `K` in one call, for slots on distinct bodies.
    pub(super) linearization: Option<NativeLinearization<Pose>>,
}

impl Natives {
    /// The program's tapes compiled, unless the environment variable `NAPE_INTERPRET` is
    /// set (which measures the interpreter in a build with `jit`).
    pub(super) fn compile(program: &Program) -> Self {
        if std::env::var_os("NAPE_INTERPRET").is_some() {
            return Self {
                position: None,
                jacobian: None,
                stiffness: None,
                mass: None,
                linearization: None,
            };
        }
        let (dim, slots) = (program.dim, program.bodies.len());
        let entries = 3 * dim * slots;
        Self {
            position: NativeTape::compile(&program.position, dim),
            jacobian: NativeTape::compile(&program.jacobian, entries),
            stiffness: NativeTape::compile(&program.stiffness, 2 * program.bodies.len()),
            mass: NativeMass::compile(&program.jacobian, dim, slots),
            linearization: NativeLinearization::compile(
                &program.position,
                &program.jacobian,
                dim,
                slots,
            ),
        }
    }
}
