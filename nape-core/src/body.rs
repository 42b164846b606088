//! Bodies and their handles.

/// Identifies a body inside one [`Space`](crate::Space). A handle of a removed body, or of
/// another space, is rejected with an error wherever it is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyHandle {
    pub(crate) space: u32,
    pub(crate) index: u32,
    pub(crate) generation: u32,
}
