"""Median time per photo of `vision.read.detect.detect`, model loading excluded.

Two sizes: the 640-px photos of the real val set, and 12 MP (4000 x 3000) JPEGs made by upscaling
val photos (what a phone sends). Times include decoding the file (the app's real path) and are
also given for an already-decoded array, and with `--stages` the 12 MP file path stage by stage
(reduced decode, detector view, detector pass, crops, classifier, decision).
Run: `python benchmarks/bench_detect.py [--n 15] [--stages]`; `MAHJONG_TORCH_ONLY=1` in front times
the networks on torch instead of their ONNX Runtime exports (vision.read.onnx_run).
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

from vision.read import detect as reader  # noqa: E402
from vision.read.detect import detect, load_model  # noqa: E402
from vision.read.imageio import load_image, load_image_reduced  # noqa: E402
from vision.read.tilenet import classify_crops, flower_probability  # noqa: E402
from vision.train import data  # noqa: E402


def _median_time(fn, items) -> float:
    times = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def stages(model, files: list[Path]) -> dict[str, float]:
    """Median seconds of each stage of `detect(file)` on the plain view (the path of an ordinary
    photo: no aspect views), stage by stage as vision.read.detect runs them."""
    times: dict[str, list[float]] = {}

    def timed(name: str, fn):
        t0 = time.perf_counter()
        out = fn()
        times.setdefault(name, []).append(time.perf_counter() - t0)
        return out

    for f in files:
        rgb, scale = timed(
            "decode (reduced)", lambda f=f: load_image_reduced(f, reader.DECODE_FACTOR * model.det_imgsz)
        )
        mid, mid_scale = timed("mid image", lambda rgb=rgb: reader._mid_image(rgb))
        size = (rgb.shape[1], rgb.shape[0])
        view, _, _ = timed("detector view", lambda mid=mid: reader._detector_view(mid, model.det_imgsz))
        timed(
            "detector pass",
            lambda view=view: reader._boxes_of(
                model.detector, view, model.det_imgsz, model.conf, model.op.nms_iou
            ),
        )
        reading = reader._read_view(model, mid, mid_scale, size, (1, 1), model.conf)
        pixels = reader.PhotoPixels(rgb, scale, f)
        crops = timed("crops", lambda r=reading, p=pixels: p.crops(r.boxes))
        probs = timed(
            "classifier", lambda c=crops: classify_crops(model.classifier, c, tta_below=model.op.tta_below)
        )
        if model.flower_gate is not None:  # a model with a flower gate asks it of the same crops
            timed("flower gate", lambda c=crops: flower_probability(model.flower_gate, c))
        done = reader._ViewReading(reading.boxes * scale, reading.det_conf, reading.det_cls, probs)
        timed("decision", lambda d=done: reader._decide(model, d, model.tile_conf))
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> int:
    """Print median seconds per photo for each size."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=15, help="photos per size")
    ap.add_argument("--model", default=None)
    ap.add_argument("--stages", action="store_true", help="also time the 12 MP file path stage by stage")
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
        if args.stages:
            for name, seconds in stages(model, big).items():
                print(f"  12MP stage {name}: median {seconds * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
