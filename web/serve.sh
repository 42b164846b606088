#!/usr/bin/env bash
# Builds the interactive page and serves it on http://localhost:${PORT:-8000}/ (Ctrl-C stops).
set -euo pipefail
cd "$(dirname "$0")"
bash build.sh
port="${PORT:-8000}"
echo "open http://localhost:$port/"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory www
