//! Snapshots of a [`SymbolicConstraint`]: its source, bodies and parameter values; the
//! source is compiled again on restore (once for a run of constraints of one source).

use std::cell::RefCell;
use std::sync::Arc;

use glam::Vec2;

use super::constraint::SymbolicJacobian;
use super::{Compiled, RowKind, SymbolicConstraint};
use crate::body::BodyHandle;
use crate::snapshot::{SnapshotError, SnapshotFields, read_list, write_list};

thread_local! {
    /// The last source compiled on restore: a snapshot holds runs of constraints of one
    /// source (a chain), each compiled once.
    static LAST: RefCell<Option<Arc<Compiled>>> = const { RefCell::new(None) };
}

fn compiled(source: String) -> Result<Arc<Compiled>, SnapshotError> {
    if let Some(last) = LAST.with(|last| last.borrow().clone())
        && last.source == source
    {
        return Ok(last);
    }
    let program = nape_codegen::runtime::compile(&source)
        .map_err(|_| SnapshotError::Malformed("the source of a symbolic constraint"))?;
    let compiled = Arc::new(Compiled::new(source, program));
    LAST.with(|last| *last.borrow_mut() = Some(compiled.clone()));
    Ok(compiled)
}

impl<const DIM: usize, const BODIES: usize, K: RowKind> SnapshotFields
    for SymbolicConstraint<DIM, BODIES, K>
{
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        write_list(self.compiled.source.as_bytes(), out);
        self.bodies.write_snapshot(out);
        write_list(&self.scalars, out);
        let vectors: Vec<Vec2> = self.vectors.iter().map(|&v| Vec2::from_array(v)).collect();
        write_list(&vectors, out);
    }

    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        let source = String::from_utf8(read_list::<u8>(input)?)
            .map_err(|_| SnapshotError::Malformed("the source of a symbolic constraint"))?;
        let bodies = <[BodyHandle; BODIES]>::read_snapshot(input)?;
        let scalars = read_list::<f32>(input)?;
        let vectors = read_list::<Vec2>(input)?;
        let mut constraint = Self::from_compiled(compiled(source)?)
            .map_err(|_| SnapshotError::Malformed("the shape of a symbolic constraint"))?;
        if scalars.len() != constraint.scalars.len() || vectors.len() != constraint.vectors.len() {
            return Err(SnapshotError::Malformed(
                "the parameters of a symbolic constraint",
            ));
        }
        constraint.bodies = bodies;
        constraint.scalars = scalars;
        constraint.vectors = vectors.iter().map(|v| v.to_array()).collect();
        constraint.refresh_bounds();
        Ok(constraint)
    }
}

impl<const DIM: usize, const BODIES: usize> SnapshotFields for SymbolicJacobian<DIM, BODIES> {
    fn write_snapshot(&self, out: &mut Vec<u8>) {
        self.rows.write_snapshot(out);
        self.bias.write_snapshot(out);
    }

    fn read_snapshot(input: &mut &[u8]) -> Result<Self, SnapshotError> {
        Ok(Self {
            rows: <[[[f32; 3]; BODIES]; DIM]>::read_snapshot(input)?,
            bias: <[f32; DIM]>::read_snapshot(input)?,
        })
    }
}
