#!/usr/bin/env python3
"""Prints generated / hand-written time per joint and phase from criterion's results.

Reads target/criterion/<joint>_<phase>/{generated,hand-written}/<baseline>/estimates.json
(the median of each benchmark's samples). With several baselines (one per repeated run,
`cargo bench --bench joints -- --save-baseline run1`, `run2`, ...) it prints each run's
ratio and their median, so one noisy run does not decide.

    python3 benches/ratios.py                 # the last run ("new")
    python3 benches/ratios.py run1 run2 run3  # saved baselines
"""

import json
import statistics
import sys
from pathlib import Path

CRITERION = Path(__file__).resolve().parent.parent / "target" / "criterion"
PHASES = ("prepare", "solve")


def median_ns(group_dir: Path, function: str, baseline: str):
    path = group_dir / function / baseline / "estimates.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())["median"]["point_estimate"]


def main() -> int:
    baselines = sys.argv[1:] or ["new"]
    rows = []
    for group_dir in sorted(CRITERION.glob("*_*")):
        joint, _, phase = group_dir.name.rpartition("_")
        if phase not in PHASES:
            continue
        runs = []
        for baseline in baselines:
            generated = median_ns(group_dir, "generated", baseline)
            hand = median_ns(group_dir, "hand-written", baseline)
            if generated is not None and hand is not None:
                runs.append((generated, hand))
        if runs:
            rows.append((joint, phase, runs))
    if not rows:
        print(f"no results under {CRITERION}; run `cargo bench --bench joints` first")
        return 1

    print(f"{'joint':<10} {'phase':<8} {'generated µs':>13} {'hand µs':>9} {'ratio':>6}  per run")
    ratios = []
    for joint, phase, runs in rows:
        per_run = [g / h for g, h in runs]
        ratio = statistics.median(per_run)
        ratios.append(ratio)
        generated = statistics.median(g for g, _ in runs) / 1000
        hand = statistics.median(h for _, h in runs) / 1000
        listed = " ".join(f"{r:.3f}" for r in per_run)
        print(f"{joint:<10} {phase:<8} {generated:>13.2f} {hand:>9.2f} {ratio:>6.3f}  {listed}")
    print(
        f"median ratio {statistics.median(ratios):.3f}, largest {max(ratios):.3f} "
        f"({len(ratios)} joint-phases, {len(baselines)} run(s))"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
