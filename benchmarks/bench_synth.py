"""Synthetic scene generation speed, with and without the domain randomisation (vision.train.synth.vary).

Renders the same scenes in this process for each setting: every switch off (the generator before
the variations), all on (the default), and all on but one, so each variation's cost shows.  Times are
process CPU seconds (one core), so a busy machine changes them less than wall time; scenes/s on
one core is 1 / (CPU s per scene).  Drawn faces (`--drawn-share`) are not timed: they come from a
cached bank and cost the same as real faces per scene.

    python benchmarks/bench_synth.py [--n 60] [--seed 0] [--leave-one-out]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.train.synth.faces import load_face_bank  # noqa: E402
from vision.train.synth.scene import make_scene  # noqa: E402
from vision.train.synth.vary import ALL, NONE, Variations  # noqa: E402


def cpu_per_scene(n: int, seed: int, vary: Variations) -> tuple[float, float]:
    """CPU and wall seconds per scene over scenes 0..n-1."""
    bank = load_face_bank()
    c0, t0 = time.process_time(), time.perf_counter()
    for i in range(n):
        make_scene(bank, seed, i, vary=vary)
    return (time.process_time() - c0) / n, (time.perf_counter() - t0) / n


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=60, help="scenes per setting")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--leave-one-out", action="store_true", help="also time all-but-one for every switch")
    args = p.parse_args(argv)
    load_face_bank()  # build or read the cache before timing
    settings = [("none (no variation)", NONE), ("all (default)", ALL)]
    if args.leave_one_out:
        settings += [(f"all but {n}", dataclasses.replace(ALL, **{n: False})) for n in Variations.names()]
    print(f"{args.n} scenes per setting, seed {args.seed}")
    base = None
    for label, vary in settings:
        cpu, wall = cpu_per_scene(args.n, args.seed, vary)
        base = base or cpu
        print(
            f"{label:28s} {cpu * 1000:6.1f} ms CPU/scene ({1 / cpu:5.1f} scenes/s on one core, "
            f"x{cpu / base:.2f}), wall {wall * 1000:6.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
