"""A small bank of training crops shipped beside the classifier, for learning a player's set.

Why: `python -m vision adapt` fine-tunes the classifier on the few tiles of a player's 5 photos.
Trained on those alone it would forget every face that those photos do not show (5 hands hold
~25 of the 34 faces). Mixing in a few crops per class of what the model was trained on keeps the
other faces in place. The player's machine has no training set, so the bank ships with the model:
a handful of crops per class stored as one JPEG mosaic (~1 MB) plus their class ids.

Built by the ship stage of `python -m vision train` from the classifier's own training crops, so a
model trained without some photos (a held-out group) gets a bank without them too.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

BANK_IMAGE = "replay_crops.jpg"
BANK_LABELS = "replay_crops.json"
PER_CLASS = 16
JPEG_QUALITY = 92


def sample(
    x: np.ndarray, y: np.ndarray, per_class: int = PER_CLASS, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """At most `per_class` crops of every class present, chosen at random (seeded)."""
    rng = np.random.default_rng(seed)
    keep: list[int] = []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        keep += sorted(rng.choice(idx, min(per_class, len(idx)), replace=False).tolist())
    keep_arr = np.array(keep, dtype=np.int64)
    return x[keep_arr], y[keep_arr]


def write_bank(folder: Path, x: np.ndarray, y: np.ndarray) -> Path:
    """Store crops (N x H x W x 3 RGB uint8, one size) as a mosaic JPEG + a JSON of class ids."""
    n, h, w, _ = x.shape
    cols = PER_CLASS
    rows = -(-n // cols)
    mosaic = np.zeros((rows * h, cols * w, 3), np.uint8)
    for i in range(n):
        r, c = divmod(i, cols)
        mosaic[r * h : (r + 1) * h, c * w : (c + 1) * w] = x[i]
    folder.mkdir(parents=True, exist_ok=True)
    ok, buf = cv2.imencode(".jpg", mosaic[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise RuntimeError("could not encode the replay mosaic")
    (folder / BANK_IMAGE).write_bytes(buf.tobytes())
    meta = {"crop_h": h, "crop_w": w, "cols": cols, "classes": [int(v) for v in y]}
    (folder / BANK_LABELS).write_text(json.dumps(meta) + "\n")
    return folder / BANK_IMAGE


def read_bank(folder: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """(crops, class ids) of the bank beside a model, or None when the model has none."""
    image, labels = folder / BANK_IMAGE, folder / BANK_LABELS
    if not (image.is_file() and labels.is_file()):
        return None
    meta = json.loads(labels.read_text())
    mosaic = cv2.imdecode(np.frombuffer(image.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
    if mosaic is None:
        return None
    mosaic = mosaic[:, :, ::-1]
    h, w, cols = int(meta["crop_h"]), int(meta["crop_w"]), int(meta["cols"])
    y = np.array(meta["classes"], dtype=np.int64)
    x = np.zeros((len(y), h, w, 3), np.uint8)
    for i in range(len(y)):
        r, c = divmod(i, cols)
        x[i] = mosaic[r * h : (r + 1) * h, c * w : (c + 1) * w]
    return x, y
