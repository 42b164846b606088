//! Work under a time limit, so that a derivation that does not terminate fails the test
//! that meets it instead of stalling the run.

use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Runs `work` on a thread of its own and returns its result and how long it took, or
/// `Err(limit)` when `limit` passes first (the thread is left to run: it holds nothing the
/// caller needs, and the failing test ends the process).
pub fn within<T: Send + 'static>(
    limit: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<(T, Duration), Duration> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let start = Instant::now();
        let result = work();
        let _ = sender.send((result, start.elapsed()));
    });
    receiver.recv_timeout(limit).map_err(|_| limit)
}
