"""听牌 speed: time of `rules.waits` per hand one tile short (every winning tile scored).

Run: `python benchmarks/bench_waits.py [--n 1000] [--seed 7]`. The corpus is the scoring benchmark's
(the worked examples plus random winning-shaped hands with 0-4 混, 0-2 melds), each with its winning
tile taken out, so every hand is waiting on something. Each hand is timed on its own (best of
`--repeats`, in CPU time of this process, so that other jobs on a shared machine do not count);
the median, 90th percentile and maximum over hands are printed.
Target: median <= 5 ms per hand.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_rules import corpus, hun_count  # noqa: E402

from rules import waits  # noqa: E402


def per_hand_ms(hand: dict, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        waits(hand)
        best = min(best, time.process_time() - t0)
    return best * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    hands = corpus(args.n, args.seed)
    times = sorted(per_hand_ms(h, args.repeats) for h in hands)
    n_waits = [len(waits(h).waits) for h in hands]
    p90 = times[int(0.9 * (len(times) - 1))]
    print(
        f"waits: {len(hands)} hands one tile short ({statistics.mean(n_waits):.1f} winning tiles on average), "
        f"median {statistics.median(times):.2f} ms/hand, p90 {p90:.2f} ms, max {times[-1]:.2f} ms"
    )
    for k in range(5):
        group = [per_hand_ms(h, args.repeats) for h in hands if hun_count(h) == k]
        if group:
            print(f"  with {k} 混: {len(group)} hands, median {statistics.median(group):.2f} ms/hand")


if __name__ == "__main__":
    main()
