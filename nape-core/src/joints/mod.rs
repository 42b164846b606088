//! The builtin joints of Nape, each declared with `#[constraint]` from its positional (or
//! velocity) expression alone.
