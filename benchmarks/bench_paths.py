"""Median time per 12 MP photo along the paths people take, stage by stage, beside the ONNX peer.

    python benchmarks/bench_paths.py [--n 9] [--rounds 3] [--no-subprocess] [--fill 0.5] [--model M]

`--model`: read with this model.json (a player's model from `vision adapt`) instead of the shipped one.

Paths (model loading excluded, except for the CLI as a process, which is timed as called):
- the page: upload bytes -> boxes, as page.panels.photo.photo_input calls it (the photo's key, then
  read_photo with that key and the model's Detector), and its stages: the key (sha256 of the
  bytes), reduced decode (decode_upload), the phone's picture
  (shown_picture), reading and layout (detect_into); apart, the full-size decode that saving for
  training asks for later (`Photo.rgb`, from the kept bytes; not on the upload path);
- the CLI in process (`vision.__main__.main(["detect", "--json", file])`, stdout captured) and as
  a process (`python3 -m vision detect --json FILE`: interpreter, imports and model load included),
  plus the per-photo cost inside one process given all files;
- `detect(path)`; "before": the whole photo decoded to an array and the array read, as the page
  and the CLI did until this change (without the page's layout step); and the peer: the PyPI package `mahjong-detector` (`detect_tiles(path)`, its
  ONNX model loaded from the package, offline), when installed.

The 12 MP photos are val photos upscaled to 4000 x 3000 JPEG (quality 92) in a temporary folder,
made at run time. Each round times every path on every photo, paths interleaved, so a machine that
slows down slows all of them alike, each after a short idle (`SETTLE_S`: the peer's thread pool
spins after a call); the medians are over all rounds and photos.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("YOLO_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from page.detector_loader import model_detector  # noqa: E402
from page.photo_state import Photo, decode_upload, detect_into, photo_key, read_photo, shown_picture  # noqa: E402
from vision.__main__ import main as vision_main  # noqa: E402
from vision.read.detect import DEFAULT_MODEL, detect, load_model  # noqa: E402
from vision.read.imageio import load_image  # noqa: E402
from vision.train import data  # noqa: E402

BIG = (4000, 3000)


def make_photos(n: int, out: Path, fill: float = 1.0) -> list[Path]:
    """n val photos upscaled to 12 MP JPEGs (what a phone sends) in `out`.

    `fill` < 1 draws the val photo over that share of the frame's width and height, in the middle of
    a felt of its own border colour with sensor-like noise: the same tiles, `fill` times as big, as
    in a phone photo taken from further away. At 0.5 the tiles are under the classifier's crop in
    the 1/4 decode the detector reads, so the faces need a sharper decode (PhotoPixels.crops)."""
    rng = np.random.default_rng(0)
    files = []
    for i, p in enumerate(data.split_images(data.REAL_DATASET, "val")[:n]):
        src = cv2.imread(str(p))
        inner = (round(BIG[0] * fill), round(BIG[1] * fill))
        img = np.empty((BIG[1], BIG[0], 3), np.uint8)
        if fill < 1:  # the felt around the photo: its border's colour (at 1 the photo fills it)
            border = np.concatenate([src[0], src[-1], src[:, 0], src[:, -1]])
            img[:] = np.median(border, 0).astype(np.uint8)
        x0, y0 = (BIG[0] - inner[0]) // 2, (BIG[1] - inner[1]) // 2
        img[y0 : y0 + inner[1], x0 : x0 + inner[0]] = cv2.resize(src, inner, interpolation=cv2.INTER_CUBIC)
        if fill < 1:
            noise = rng.normal(0, 4, img.shape)
            img = np.clip(img + noise, 0, 255).astype(np.uint8)
        f = out / f"{i}.jpg"
        cv2.imwrite(str(f), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        files.append(f)
    return files


def page_path(blob: bytes, detector) -> Photo:
    """What the page runs on an upload (page.panels.photo.photo_input): the key that tells a new
    photo from one already read, then read_photo with that key."""
    key = photo_key(blob)
    return read_photo(blob, "p.jpg", detector, key=key)


def page_stages(blob: bytes, detector) -> dict[str, float]:
    """The page's steps on an upload, one by one, as it runs them (seconds)."""
    out: dict[str, float] = {}
    t = time.perf_counter()
    photo = Photo(photo_key(blob), "p.jpg")
    out["page: photo key (sha256 of the bytes)"] = time.perf_counter() - t
    t = time.perf_counter()
    pixels = decode_upload(blob, "p.jpg")
    out["page: reduced decode"] = time.perf_counter() - t
    t = time.perf_counter()
    photo.display, photo.display_scale = shown_picture(pixels)
    out["page: phone's picture"] = time.perf_counter() - t
    t = time.perf_counter()
    detect_into(photo, detector, pixels)
    out["page: read + layout"] = time.perf_counter() - t
    t = time.perf_counter()
    photo.pixels = pixels
    assert photo.rgb is not None
    out["page, later: full-size pixels when saving for training (Photo.rgb)"] = time.perf_counter() - t
    out["page: upload -> boxes"] = sum(
        out[k]
        for k in (
            "page: photo key (sha256 of the bytes)",
            "page: reduced decode",
            "page: phone's picture",
            "page: read + layout",
        )
    )
    return out


def cli_in_process(f: Path, model: Path = DEFAULT_MODEL) -> None:
    """`python -m vision detect --json FILE` without starting Python (model already loaded)."""
    with contextlib.redirect_stdout(io.StringIO()):
        if vision_main(["detect", "--json", "--model", str(model), str(f)]) != 0:
            raise RuntimeError(f"vision detect failed on {f}")


def cli_process(files: list[Path], model: Path = DEFAULT_MODEL) -> tuple[float, list[float]]:
    """One `python3 -m vision detect --json FILES...` process, as a person runs it: seconds to its
    first photo's line (interpreter, imports, model load, first read) and the gaps between the
    following lines (each further photo; the CLI flushes a line per photo)."""
    t = time.perf_counter()
    cmd = [sys.executable, "-m", "vision", "detect", "--json", "--model", str(model), *map(str, files)]
    stamps = []
    with subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as proc:
        for _ in proc.stdout:
            stamps.append(time.perf_counter())
    if proc.returncode != 0 or len(stamps) != len(files):
        raise RuntimeError(
            f"vision detect exited {proc.returncode} after {len(stamps)} of {len(files)} photos"
        )
    return stamps[0] - t, [b - a for a, b in zip(stamps[:-1], stamps[1:], strict=True)]


def peer() -> Callable[[Path], object] | None:
    """mahjong-detector's detect_tiles, or None when the package (or onnxruntime) is missing."""
    try:
        from mahjong_detector import detect_tiles
    except ImportError:
        return None
    return detect_tiles


#: Idle time before each timed path. The peer's ONNX Runtime session keeps its default busy-waiting
#: pool, whose threads spin on a core for a while after each call: the page's stages timed right
#: after the peer read 91 ms instead of 66 ms (10 ms later 77 ms, 100 ms later 67 ms). A photo on the
#: page never follows a peer call, so every path starts on a quiet machine, the peer's too.
SETTLE_S = 0.1


def timed(fn: Callable[[], object]) -> float:
    time.sleep(SETTLE_S)
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=9, help="12 MP photos")
    ap.add_argument("--rounds", type=int, default=3, help="times each path reads every photo")
    ap.add_argument("--no-subprocess", action="store_true", help="leave out the CLI as a process")
    ap.add_argument(
        "--fill",
        type=float,
        default=1.0,
        help="share of the frame the val photo covers (0.5: tiles half as big, as from further away)",
    )
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="model.json to read with")
    ap.add_argument(
        "--beside",
        type=Path,
        action="append",
        default=[],
        help="another model.json whose page path is timed in the same loop, photo by photo (repeatable): "
        "on a noisy machine the ratio between two readers is only fair taken side by side",
    )
    args = ap.parse_args()

    model = load_model(args.model)
    detector = model_detector(str(args.model))
    besides = {f"page: read_photo with {m}": model_detector(str(m)) for m in args.beside}
    other = peer()
    times: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = make_photos(args.n, Path(tmp), args.fill)
        blobs = [f.read_bytes() for f in files]
        detect(files[0], model=model)  # warm-up: first calls allocate
        for d in besides.values():
            page_path(blobs[0], d)
        if other is not None:
            other(files[0])
        for _ in range(args.rounds):
            for f, blob in zip(files, blobs, strict=True):
                paths = {
                    "page: read_photo (upload bytes -> boxes)": lambda b=blob: page_path(b, detector),
                    "CLI in process": lambda f=f: cli_in_process(f, args.model),
                    "detect(path)": lambda f=f: detect(f, model=model),
                    "before: whole photo decoded, array read (the old page and CLI)": lambda b=blob: detect(
                        load_image(b), model=model
                    ),
                }
                for name, d in besides.items():
                    paths[name] = lambda b=blob, d=d: page_path(b, d)
                if other is not None:
                    paths["peer: mahjong-detector detect_tiles(path)"] = lambda f=f: other(f)
                for name, fn in paths.items():
                    times.setdefault(name, []).append(timed(fn))
                time.sleep(SETTLE_S)
                for name, s in page_stages(blob, detector).items():
                    times.setdefault(name, []).append(s)
        if not args.no_subprocess:
            for _ in range(args.rounds):
                first, gaps = cli_process(files, args.model)
                times.setdefault("CLI process: start + load + first photo", []).append(first)
                times.setdefault("CLI process: each further photo", []).extend(gaps)

    med = {k: statistics.median(v) for k, v in times.items()}
    peer_key = "peer: mahjong-detector detect_tiles(path)"
    print(
        f"12 MP ({BIG[0]}x{BIG[1]}) JPEG, val photo over {args.fill:.0%} of the frame, "
        f"{args.n} photos x {args.rounds} rounds, medians:"
    )
    for k, v in med.items():
        ratio = f"  ({v / med[peer_key]:.2f}x peer)" if peer_key in med else ""
        print(f"  {k}: {v * 1000:.0f} ms{ratio}")
    if other is None:
        print("  peer: mahjong-detector not installed (pip install mahjong-detector onnxruntime)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
