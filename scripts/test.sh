#!/usr/bin/env bash
# Every test of the workspace, after installing what they need: the wasm32 target, Debian's
# Chromium and the Node packages of browser-tests/ (from its lockfile). A prerequisite that
# cannot be installed here is named, and the script fails: the browser test is never skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "scripts/test.sh: $*" >&2
  exit 1
}

# apt-get as root, directly or through password-less sudo; nothing when neither is possible.
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if sudo -n true 2>/dev/null; then as_root=(sudo -n); else as_root=(none); fi
fi
apt_install() {
  if [ "${as_root[0]-}" = none ] || ! command -v apt-get >/dev/null 2>&1; then
    fail "$1 is missing and cannot be installed here (no apt-get as root): install $2, then run again"
  fi
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq $2 >/dev/null
}

command -v cargo >/dev/null 2>&1 || fail "cargo is missing: install a stable Rust toolchain, 1.88 or newer (https://rustup.rs)"
if command -v rustup >/dev/null 2>&1; then
  rustup target add wasm32-unknown-unknown
elif [ ! -d "$(rustc --print sysroot)/lib/rustlib/wasm32-unknown-unknown" ]; then
  fail "the wasm32-unknown-unknown target is missing: install it with your Rust toolchain (rustup target add wasm32-unknown-unknown)"
fi
[ -x /usr/bin/chromium ] || apt_install /usr/bin/chromium "chromium chromium-driver"
command -v npm >/dev/null 2>&1 || apt_install npm "nodejs npm"
(cd browser-tests && npm ci --no-audit --no-fund)

cargo test --workspace
# The Bevy/Avian plugin is a workspace of its own, so that the core's build stays light.
cargo test --manifest-path nape-avian/Cargo.toml
# Avian's f64 build: its large-world test (the other tests place bodies with f32 vectors).
cargo test --manifest-path nape-avian/Cargo.toml --no-default-features --features f64 --test large_worlds
# Lints, as CI holds them: no clippy warning in either workspace.
rustup component add clippy >/dev/null 2>&1 || true
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy --manifest-path nape-avian/Cargo.toml --all-targets -- -D warnings
cargo clippy --manifest-path nape-avian/Cargo.toml --no-default-features --features f64 --lib --test large_worlds -- -D warnings
