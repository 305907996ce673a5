"""What the crash-safe label store costs: one save, the readers, and `labels check`.

A save stages, fsyncs and links two files and appends one fsynced line, under a file lock; the
readers re-check every manifest line against its files. This measures both on a real disk
(`--dir`, default a temp folder under the repo's .cache) for phone-sized photos, so the README can
say what a player waits for. Run: `python benchmarks/bench_labelstore.py [--n 20] [--stored 200]`.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from vision._env import CACHE_DIR  # noqa: E402
from vision.labels.check import check  # noqa: E402
from vision.labels.store import LabelBox, complete_examples, save_example  # noqa: E402


def _boxes(w: int, h: int) -> list[LabelBox]:
    """14 tiles in a row across the middle, like a hand."""
    s = w / 16
    return [LabelBox("5m", (s * (i + 1), h / 2 - s * 0.7, s * (i + 1.9), h / 2 + s * 0.7)) for i in range(14)]


def _photo(seed: int, h: int, w: int) -> np.ndarray:
    """A smooth photo-like image (noise would make JPEG encoding unrealistically slow and big)."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 255, (h // 64 + 1, w // 64 + 1, 3), dtype=np.uint8)
    return np.ascontiguousarray(np.kron(small, np.ones((64, 64, 1), np.uint8))[:h, :w])


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _save_times(root: Path, h: int, w: int, seeds: range) -> list[float]:
    """Seconds per save_example call (the photo is made before the clock starts)."""
    boxes = _boxes(w, h)
    times = []
    for seed in seeds:
        rgb = _photo(seed, h, w)
        t0 = time.perf_counter()
        save_example(rgb, boxes, root)
        times.append(time.perf_counter() - t0)
    return times


def main() -> int:
    """Print median seconds per save (12 MP and 640 px) and the readers' time on a filled store."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20, help="saves timed per size")
    ap.add_argument("--stored", type=int, default=200, help="small photos in the store for the readers")
    ap.add_argument("--dir", default=None, help="where to write (default: a temp folder in .cache)")
    args = ap.parse_args()
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="bench-labels-", dir=CACHE_DIR))
    try:
        for label, (h, w) in (("12 MP", (3000, 4000)), ("640 px", (480, 640))):
            root = base / label.replace(" ", "")
            new = statistics.median(_save_times(root, h, w, range(args.n)))
            dup = statistics.median(_save_times(root, h, w, range(3)))
            print(f"save {label}: median {new:.3f} s new photo, {dup:.3f} s duplicate")
        root = base / "filled"
        _save_times(root, 96, 128, range(args.stored))
        print(f"complete_examples over {args.stored} photos: {_timed(lambda: complete_examples(root)):.3f} s")
        print(
            f"save into that store: {statistics.median(_save_times(root, 96, 128, range(10**6, 10**6 + 5))):.3f} s"
        )
        print(f"labels check over {args.stored} photos: {_timed(lambda: check(root)):.3f} s")
    finally:
        if not args.dir:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
