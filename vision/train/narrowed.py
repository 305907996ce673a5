"""Narrowed photos: every real train photo also shown to the detector a little narrower than it is.

Why: the real train split is exports stretched into 640x640 squares, so the detector learnt tiles
squatter than a camera shows them (its upright boxes' median width / height is 0.863; a tile's face
is about 0.75). Read at a camera's aspect, standing tiles of a print it never saw come back less
often than the same frames widened to 2:1 (models/MODEL_CARD.md, stop 56: 0.786 against 0.853 of
riichi-standing-dev's tiles), and the reader only works round it (`camera_squat`). A narrowed copy
is the photo resized to a share of its width drawn between `low` and WIDEST_SHARE, area-averaged
as a camera's downscale is; its labels are the photo's own, unchanged, since they are normalised
to the picture's sides. Train photos only: the val photos stay measured only.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.labels.yolo_format import label_path_for
from vision.read.imageio import ImageLoadError, load_image
from vision.train import data

#: What narrowed.json records of the rules a folder was made by: a folder made by other rules, or
#: for another seed or `low`, is made again.
NARROWED_VERSION = 1
#: The widest share of its width a narrowed copy keeps: a copy narrowed less would be the photo.
WIDEST_SHARE = 0.95


def narrowed(picture: np.ndarray, share: float) -> np.ndarray:
    """`picture` resized to `share` of its width (at least 1 px), its height kept."""
    h, w = picture.shape[:2]
    return cv2.resize(picture, (max(1, round(w * share)), h), interpolation=cv2.INTER_AREA)


def write_narrowed(out: Path, low: float, seed: int = 0, source: Path = data.REAL_DATASET) -> int:
    """Write a narrowed copy of every readable real train photo into `out` (images/, labels/, a
    one-split set that `vision.train.data` reads as train); returns how many. Deterministic for a
    seed. Files are written whole before they are named, and narrowed.json last: a folder without
    it was interrupted and is made again."""
    if not 0 < low < WIDEST_SHARE:
        raise ValueError(f"narrowed: the lowest share must lie between 0 and {WIDEST_SHARE}, not {low}")
    rng = np.random.default_rng(seed)
    images, labels = out / "images", out / "labels"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    made = 0
    for photo in data.split_images(source, "train"):
        share = float(rng.uniform(low, WIDEST_SHARE))  # drawn for every photo: a skip moves no other
        try:
            picture = load_image(photo)
        except ImageLoadError:
            continue
        ok, jpg = cv2.imencode(
            ".jpg", cv2.cvtColor(narrowed(picture, share), cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 92]
        )
        if not ok:
            continue
        name = f"narrow_{photo.stem}"
        label = label_path_for(photo)
        data.write_whole(labels / f"{name}.txt", label.read_bytes() if label.is_file() else b"")
        data.write_whole(images / f"{name}.jpg", jpg.tobytes())
        made += 1
    (out / "narrowed.json").write_text(
        json.dumps(
            {"seed": seed, "low": low, "version": NARROWED_VERSION, "source": str(source), "photos": made}
        )
    )
    return made


def is_made(out: Path, low: float, seed: int) -> bool:
    """Whether `out` holds the copies these rules make for this seed and `low`."""
    stamp_file = out / "narrowed.json"
    if not stamp_file.is_file():
        return False
    stamp = json.loads(stamp_file.read_text())
    return (stamp.get("seed"), stamp.get("low"), stamp.get("version")) == (seed, low, NARROWED_VERSION)
