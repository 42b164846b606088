//! Instruction counts by valgrind's callgrind: unlike step times they do not move with
//! the machine's load or its two speed levels (see `instructions.sh`), so `--curve` ranks
//! the settings by them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether `valgrind` runs here.
pub fn available() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

/// A scratch folder for callgrind's output files, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Result<Scratch, String> {
        let path = std::env::temp_dir().join(format!("nape-peers-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Scratch(path))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(program: &Path, args: &[String], out_file: &Path, extra: &[&str]) -> Result<String, String> {
    let output = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .args(extra)
        .arg(program)
        .args(args)
        .output()
        .map_err(|e| format!("valgrind: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "valgrind {}: {}",
            program.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stderr).into_owned())
}

/// Instructions the whole run of `program args` executes.
pub fn count(program: &Path, args: &[String]) -> Result<u64, String> {
    let scratch = Scratch::new("callgrind")?;
    let log = run(program, args, &scratch.0.join("out"), &[])?;
    collected(&log).ok_or_else(|| format!("no instruction total in valgrind's output:\n{log}"))
}

/// Instructions `program args` executes from each call of `function` to the next (the
/// last part to the program's end), in call order; what ran before the first call is
/// left out.
pub fn count_per_call(program: &Path, args: &[String], function: &str) -> Result<Vec<u64>, String> {
    let scratch = Scratch::new("callgrind-dumps")?;
    let base = scratch.0.join("out");
    run(
        program,
        args,
        &base,
        &[&format!("--dump-before={function}")],
    )?;
    // Dump k (`out.k`) holds what ran before the k-th call; the part after the last call
    // is written to `out` itself at exit.
    let mut counts = Vec::new();
    for k in 2.. {
        let Ok(text) = std::fs::read_to_string(format!("{}.{k}", base.display())) else {
            break;
        };
        counts.push(dump_summary(&text).ok_or(format!("no summary in dump {k}"))?);
    }
    let last = std::fs::read_to_string(&base).map_err(|e| format!("{}: {e}", base.display()))?;
    counts.push(dump_summary(&last).ok_or("no summary in the last dump")?);
    Ok(counts)
}

/// The total of valgrind's `Collected : N` line.
fn collected(log: &str) -> Option<u64> {
    log.lines()
        .find_map(|line| line.split_once("Collected :"))
        .and_then(|(_, total)| total.trim().parse().ok())
}

/// The total of a callgrind dump's `summary: N` line.
fn dump_summary(dump: &str) -> Option<u64> {
    dump.lines()
        .find_map(|line| line.strip_prefix("summary:"))
        .and_then(|total| total.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_are_read_from_the_log_and_the_dumps() {
        let log = "==4096== Events    : Ir\n==4096== Collected : 1068056115\n==4096==\n";
        assert_eq!(collected(log), Some(1_068_056_115));
        assert_eq!(collected("==1== no total"), None);
        let dump = "version: 1\ncmd: harness 1 chain\nsummary: 393432283\ntotals: 393432283\n";
        assert_eq!(dump_summary(dump), Some(393_432_283));
        assert_eq!(dump_summary("totals: 5\n"), None);
    }
}
