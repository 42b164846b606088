//! `expand` under a time limit, so that a derivation that does not terminate fails the
//! test that meets it instead of stalling the run.

use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Expands `#[constraint(<args>)] <item>` on a thread of its own and returns the output
/// text and how long it took, or `Err` with the time waited when `limit` passes first
/// (the thread is left to run: it holds nothing the test needs).
pub fn expand_within(
    args: &str,
    item: &str,
    limit: Duration,
) -> Result<(String, Duration), Duration> {
    let (args, item) = (args.to_owned(), item.to_owned());
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        // `TokenStream` is not `Send`: parse on the expanding thread.
        let (Ok(args), Ok(item)) = (args.parse(), item.parse()) else {
            let _ = sender.send((String::new(), Duration::ZERO));
            return;
        };
        let start = Instant::now();
        let output = nape_codegen::expand(args, item).to_string();
        let _ = sender.send((output, start.elapsed()));
    });
    receiver.recv_timeout(limit).map_err(|_| limit)
}
