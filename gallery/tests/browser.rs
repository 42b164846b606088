//! The gallery and the interactive page in a real browser: Debian's headless Chromium,
//! driven by playwright-core from `browser-tests/` (see `browser-tests/check.mjs` for what
//! is checked). Needs `chromium`, `node` with `npm ci` run in `browser-tests/`, and the
//! `wasm32-unknown-unknown` target; `bash scripts/test.sh` installs them all and runs every test.

use std::path::{Path, PathBuf};
use std::process::Command;

use nape_gallery::SCENES;
use nape_gallery::cli::{Options, write_gallery};

fn run(command: &mut Command, what: &str) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot start {what} ({command:?}): {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn gallery_and_interactive_page_work_in_chromium() {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tests = repository.join("browser-tests");
    for (needed, how) in [
        (Path::new("/usr/bin/chromium"), "apt-get install chromium"),
        (
            &tests.join("node_modules/playwright-core"),
            "npm ci in browser-tests/",
        ),
    ] {
        assert!(
            needed.exists(),
            "{} is missing: run `bash scripts/test.sh`, which installs it and runs every test \
             (or `{how}` yourself)",
            needed.display()
        );
    }

    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gallery-browser");
    let options = Options {
        out: out.clone(),
        seconds: 3.0,
        scenes: SCENES.iter().collect(),
    };
    write_gallery(&options, &mut std::io::sink()).unwrap();

    run(
        Command::new("bash").arg(repository.join("web/build.sh")),
        "building the interactive page for wasm32-unknown-unknown",
    );

    let report = run(
        Command::new("node")
            .arg(tests.join("check.mjs"))
            .arg("--gallery")
            .arg(&out)
            .arg("--web")
            .arg(repository.join("web/www")),
        "the browser check",
    );
    println!("{report}");
    assert!(
        report.contains(&format!("\"animations\": {}", SCENES.len())),
        "{report}"
    );
    assert!(report.contains("\"failures\": []"), "{report}");
}
