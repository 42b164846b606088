//! The builtin joints of Nape, each declared with `#[constraint]` from its positional (or
//! velocity) expression alone: no Jacobian or effective mass here is written by hand. Each
//! type's documentation shows what the macro derived.

mod pivot;
mod weld;

pub use pivot::PivotJoint;
pub use weld::WeldJoint;
