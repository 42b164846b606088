#!/usr/bin/env bash
# Builds the interactive page: compiles the scenes for wasm32-unknown-unknown and puts the
# module beside web/www/index.html. Needs `rustup target add wasm32-unknown-unknown`.
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release --target wasm32-unknown-unknown
cp target/wasm32-unknown-unknown/release/nape_web.wasm www/nape_web.wasm
echo "built web/www/nape_web.wasm"
