//! `Snapshot::from_bytes` on any bytes: never a panic, never an unbounded allocation
//! (libFuzzer's `-rss_limit_mb` and `-malloc_limit_mb`), and every accepted snapshot
//! restores into a space that validates and steps 60 times inside the limits.
#![no_main]

#[path = "../../tests/support/untrusted.rs"]
mod untrusted;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // As received: most random inputs stop at the header or the checksum.
    untrusted::check_untrusted(data, untrusted::registry());
    // As anyone editing a snapshot sends it, its length and checksum made to match, so
    // that the contents reach the decoder's checks.
    let mut sealed = data.to_vec();
    untrusted::seal(&mut sealed);
    untrusted::check_untrusted(&sealed, untrusted::registry());
});
