#!/bin/sh
# Measures Box2D v3.1.1 on the reference scenes with harness.c and rewrites
# benches/peers/box2d-v3.csv, the rows `nape-peers --external` adds to its table.
# Needs git, a C compiler and network access the first time: it clones Box2D v3.1.1
# into benches/peers/target/box2d (BOX2D_GIT=<url or path> clones another copy).
# Usage: benches/peers/box2d/run.sh [ROUNDS (default 5) | --build-only]
# (--build-only: only build benches/peers/target/box2d/harness, which
# `nape-peers --box2d` runs round by round beside nape and rapier2d.)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work="$here/../target/box2d"
mkdir -p "$work"
repository=${BOX2D_GIT:-https://github.com/erincatto/box2d}
if [ ! -d "$work/box2d-v3.1.1" ]; then
    git clone --quiet --branch v3.1.1 "$repository" "$work/box2d-v3.1.1"
fi
# Box2D's own release flags: -O3, SSE2 (the x86-64 baseline), no assertions.
cc -O3 -DNDEBUG -std=gnu17 -I"$work/box2d-v3.1.1/include" -I"$work/box2d-v3.1.1/src" \
    "$work/box2d-v3.1.1/src"/*.c "$here/harness.c" -lm -o "$work/harness"
if [ "${1:-}" = "--build-only" ]; then
    echo "built $work/harness"
    exit 0
fi
before=$(cut -d' ' -f1-3 /proc/loadavg)
"$work/harness" "${1:-5}" > "$work/rows.csv" 2> "$work/rounds.log"
after=$(cut -d' ' -f1-3 /proc/loadavg)
note="Box2D v3.1.1 measured on $(date -u +%Y-%m-%d) by benches/peers/box2d/run.sh (same scenes, timing and error as here; gcc -O3, SSE2, 1 worker; load average before and after: $before and $after); \`sub N\` = \`subStepCount\` N. Not re-measured by the command above."
sed "s|\$|,$note|" "$work/rows.csv" > "$here/../box2d-v3.csv"
echo "wrote benches/peers/box2d-v3.csv ($(wc -l < "$work/rows.csv") rows)"
