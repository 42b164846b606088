//! No length field of a snapshot makes its decoder allocate more than the input could
//! hold: `u32::MAX` and `u64::MAX` written at every offset of a snapshot (the header's
//! length and the checksum recomputed) allocate less than 8 times the input's size, as
//! the intact snapshot does. This file installs a counting global allocator
//! ([`stats_alloc`]), so it is a test binary of its own.

#[path = "support/untrusted.rs"]
mod untrusted;

use std::alloc::System;

use nape::Snapshot;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use untrusted::{HEADER_LEN, seal};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Bytes allocated while `bytes` are decoded.
fn allocated_decoding(bytes: &[u8]) -> usize {
    let region = Region::new(GLOBAL);
    let decoded = Snapshot::from_bytes(bytes, untrusted::registry());
    let allocated = region.change().bytes_allocated;
    drop(decoded);
    allocated
}

// Without libtest's harness (`harness = false`): the counter is global, and the harness's
// own thread may allocate while the test runs.
fn main() {
    no_length_field_allocates_more_than_the_input_holds();
}

fn no_length_field_allocates_more_than_the_input_holds() {
    let bytes = untrusted::scene()
        .snapshot()
        .to_bytes(untrusted::registry())
        .unwrap();
    // (The registry is built before: not part of any decode measured.) The intact
    // snapshot's decode allocates about 5 times its size (15.5 kB for 3.2 kB).
    let intact = allocated_decoding(&bytes);
    let bound = 8 * bytes.len();
    assert!(intact < bound, "{intact} bytes for the intact snapshot");
    let mut worst = (0, 0);
    for at in HEADER_LEN..bytes.len() - 8 {
        for huge in [&u32::MAX.to_le_bytes()[..], &u64::MAX.to_le_bytes()] {
            let mut edited = bytes.clone();
            let end = (at + huge.len()).min(bytes.len() - 8);
            edited[at..end].copy_from_slice(&huge[..end - at]);
            seal(&mut edited);
            let allocated = allocated_decoding(&edited);
            worst = worst.max((allocated, at));
        }
    }
    assert!(
        worst.0 < bound,
        "{} bytes allocated decoding {} bytes edited at {} (intact: {intact})",
        worst.0,
        bytes.len(),
        worst.1
    );
    // A header and nothing else, claiming the most body slots.
    let mut tiny = bytes[..HEADER_LEN + 46].to_vec();
    tiny.extend_from_slice(&u32::MAX.to_le_bytes());
    tiny.extend_from_slice(&[0; 8]);
    seal(&mut tiny);
    assert!(allocated_decoding(&tiny) < 1024);
}
