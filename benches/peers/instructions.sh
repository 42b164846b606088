#!/bin/sh
# Instructions per step of each engine's default setting on one reference scene, counted by
# valgrind's callgrind. Unlike step times they do not move with this machine's two speed
# levels (docs/benchmarks.md, "Side by side"), so they compare two builds, or the engines, in one run.
# Each figure is the whole run (scene built, every step, errors rarely evaluated) over its
# steps.
#
# usage, from the repository root, after building the bench and Box2D's harness
# (`cargo build --release --manifest-path benches/peers/Cargo.toml` and
# `sh benches/peers/box2d/run.sh --build-only`):
#   sh benches/peers/instructions.sh [chain|chain_hang|joint_grid]
set -eu
scene=${1:-chain}
bench=benches/peers/target/release/nape-peers
harness=benches/peers/target/box2d/harness
[ -x "$bench" ] || { echo "build the bench first: cargo build --release --manifest-path benches/peers/Cargo.toml" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# `setting`: the label of an entry of NAPE_CONFIGS or RAPIER_CONFIGS.
child() { # engine setting name label
	record=$(valgrind --tool=callgrind --callgrind-out-file="$out/$1" "$bench" --child "$scene" "$1" "$2" 1000000 quiet 2>"$out/$1.log")
	steps=${record##* }
	total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/$1.log")
	echo "$steps" >"$out/steps"
	printf '%-10s  %-13s %-16s %12.0f\n' "$scene" "$3" "$4" "$(echo "$total / $steps" | bc -l)"
}

printf '%-10s  %-13s %-16s %12s\n' scene engine setting instr/step
child nape default nape default
child rapier "it 4 (default)" rapier2d "it 4 (default)"
if [ -x "$harness" ]; then
	# One callgrind dump per world the harness creates: its substep counts run in the order
	# 1, 2, 4, 8, 16, so dump 4 holds the 4-substep run (dump 1 is what came before).
	(cd "$out" && valgrind --tool=callgrind --dump-before=b2CreateWorld --callgrind-out-file=box2d \
		"$OLDPWD/$harness" 1 "$scene" >/dev/null 2>&1)
	total=$(sed -n 's/^summary: //p' "$out/box2d.4")
	printf '%-10s  %-13s %-16s %12.0f\n' "$scene" "box2d v3.1.1" "sub 4 (default)" \
		"$(echo "$total / $(cat "$out/steps")" | bc -l)"
else
	echo "(no Box2D harness at $harness: sh benches/peers/box2d/run.sh --build-only)" >&2
fi
