//! The builtin joints of Nape, each declared with `#[constraint]` from its positional (or
//! velocity) expression alone: no Jacobian or effective mass here is written by hand. Each
//! type's documentation shows what the macro derived.

mod angle;
mod distance;
mod line;
mod motor;
mod pivot;
mod pulley;
mod weld;

pub use angle::AngleJoint;
pub use distance::DistanceJoint;
pub use line::LineJoint;
pub use motor::MotorJoint;
pub use pivot::PivotJoint;
pub use pulley::PulleyJoint;
pub use weld::WeldJoint;
