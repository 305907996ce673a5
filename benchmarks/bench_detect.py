"""Median time per photo of `vision.read.detect.detect`, model loading excluded.

Two sizes: the 640-px photos of the real val set, and 12 MP (4000 x 3000) JPEGs made by upscaling
val photos (what a phone sends). Times include decoding the file (the app's real path) and are
also given for an already-decoded array. Run: `python benchmarks/bench_detect.py [--n 15]`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from vision.read.detect import detect, load_model  # noqa: E402
from vision.read.imageio import load_image  # noqa: E402
from vision.train import data  # noqa: E402


def _median_time(fn, items) -> float:
    times = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    """Print median seconds per photo for each size."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=15, help="photos per size")
    ap.add_argument("--model", default=None)
    args = ap.parse_args()
    model = load_model(args.model)
    photos = data.split_images(data.REAL_DATASET, "val")[: args.n]
    detect(photos[0], model=model)  # warm-up (first call allocates)
    with tempfile.TemporaryDirectory() as tmp:
        big = []
        for i, p in enumerate(photos):
            img = cv2.resize(cv2.imread(str(p)), (4000, 3000), interpolation=cv2.INTER_CUBIC)
            out = Path(tmp) / f"{i}.jpg"
            cv2.imwrite(str(out), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
            big.append(out)
        for label, files in (("640px", photos), ("12MP", big)):
            t_file = _median_time(lambda f: detect(f, model=model), files)
            arrays = [load_image(f) for f in files]
            t_array = _median_time(lambda a: detect(a, model=model), arrays)
            t_load = _median_time(load_image, files)
            print(
                f"{label}: median {t_file:.3f} s/photo from file (decode {t_load:.3f} s + detect {t_array:.3f} s on array), n={len(files)}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
