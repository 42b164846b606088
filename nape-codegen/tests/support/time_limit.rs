//! Work under a time limit, so that a derivation that does not terminate fails the test
//! that meets it instead of stalling the run.

use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Runs `work` on a thread of its own and returns its result and how long it took, or
/// `Err(limit)` when `limit` passes first (the thread is left to run: it holds nothing the
/// caller needs, and the failing test ends the process). A panic in `work` is resumed
/// here, so it fails the caller as it would have inline.
pub fn within<T: Send + 'static>(
    limit: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<(T, Duration), Duration> {
    let (sender, receiver) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        let start = Instant::now();
        let result = work();
        let _ = sender.send((result, start.elapsed()));
    });
    match receiver.recv_timeout(limit) {
        Ok(done) => Ok(done),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(limit),
        Err(mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the worker sends before it returns"),
        },
    }
}
