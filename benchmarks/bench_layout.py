"""Layout reader accuracy on generated scenes, with ground-truth boxes as the detections.

    python benchmarks/bench_layout.py [--n 300] [--seed 20260] [--workers 1] [-v]

Close-ups (partial hands) are switched off: every scene shows the whole hand.
Prints the exact-layout accuracy (standing order, melds and kinds, winning tile, indicator all
right), the error breakdown and the median reading time per scene.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.read.layout import read_layout  # noqa: E402
from vision.train.synth.cli import generate, scene_name  # noqa: E402
from vision.train.synth.truth import TruthDetection, layout_errors, load_scene  # noqa: E402


def _jitter(dets: list[TruthDetection], s: float, rng: np.random.Generator) -> list[TruthDetection]:
    """Detector-like boxes: each edge moved by N(0, s × box size), confidence 0.5–1."""
    out = []
    for d in dets:
        x0, y0, x1, y1 = d.xyxy
        w, h = x1 - x0, y1 - y0
        e = rng.normal(0.0, s, 4) * np.array([w, h, w, h])
        out.append(
            TruthDetection(d.cls, float(rng.uniform(0.5, 1.0)), (x0 + e[0], y0 + e[1], x1 + e[2], y1 + e[3]))
        )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=300)
    p.add_argument("--seed", type=int, default=20260)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument(
        "--jitter",
        type=float,
        default=0.0,
        help="move each box edge by N(0, jitter × box size), like a detector's boxes (0: exact boxes)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="list the failing scenes")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        generate(root, args.n, args.seed, val_fraction=0.0, workers=args.workers, closeup_share=0.0)
        gen_s = time.perf_counter() - t0
        ok, times, errs = 0, [], Counter()
        rng = np.random.default_rng(args.seed)
        for i in range(args.n):
            dets, truth = load_scene(root, scene_name(i))
            if args.jitter > 0:
                dets = _jitter(dets, args.jitter, rng)
            t = time.perf_counter()
            layout = read_layout(dets)
            times.append(time.perf_counter() - t)
            e = layout_errors(layout, truth)
            ok += not e
            errs.update(e)
            if e and args.verbose:
                print(f"{scene_name(i)}: {', '.join(e)}")
    times.sort()
    print(f"scenes: {args.n} (seed {args.seed}), generated in {gen_s:.1f} s ({args.n / gen_s:.1f} scenes/s)")
    print(f"box jitter: {args.jitter}")
    print(f"exact-layout accuracy: {ok / args.n:.1%} ({ok}/{args.n})")
    print(f"median read time: {times[len(times) // 2] * 1000:.2f} ms per scene")
    if errs:
        print("errors: " + ", ".join(f"{k} {v}" for k, v in errs.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
