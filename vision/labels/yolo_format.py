"""The YOLO label format: one box per row, `class cx cy w h` normalised to 0..1, and where a photo's
label file lies. Its own module because both the saved-label store and the training datasets read
it, and the store must not depend on training code."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.classes import NUM_CLASSES
from vision.labels import fixes


@dataclass(frozen=True)
class Box:
    """One labelled box in normalised YOLO form (centre x, centre y, width, height in 0..1)."""

    cls: int
    cx: float
    cy: float
    w: float
    h: float

    def xyxy(self, width: int, height: int) -> tuple[float, float, float, float]:
        """Corners in pixels of an image of the given size."""
        return (
            (self.cx - self.w / 2) * width,
            (self.cy - self.h / 2) * height,
            (self.cx + self.w / 2) * width,
            (self.cy + self.h / 2) * height,
        )


def pixel_boxes(labels: list[Box], width: float, height: float) -> np.ndarray:
    """The labels' corners in an image of the given size, N x 4 xyxy (0 x 4 for none); a unit
    square (1, 1) where only their shape matters."""
    return np.array([b.xyxy(width, height) for b in labels], np.float64).reshape(-1, 4)


def read_labels(path: Path) -> list[Box]:
    """Read a YOLO label file; polygon rows (segment exports) become their bounding box.

    A missing file means "no objects" (ultralytics' convention for negatives). Non-finite numbers
    (`nan`, `inf`) are malformed rows: one would poison a training run's loss. A read-only
    dataset's reviewed slips are corrected as the rows are read (`vision.labels.fixes`), so every
    reader of the labels sees the same rows.
    """
    rows: list[tuple[int, tuple[float, float, float, float]]] = []
    if not path.is_file():
        return []
    for line in path.read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        cls = int(float(parts[0]))
        vals = [float(v) for v in parts[1:]]
        if len(vals) == 4:
            cx, cy, w, h = vals
        elif len(vals) >= 6 and len(vals) % 2 == 0:
            xs, ys = vals[0::2], vals[1::2]
            cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
            w, h = max(xs) - min(xs), max(ys) - min(ys)
        else:
            raise ValueError(f"{path}: malformed label row {line!r}")
        if not all(math.isfinite(v) for v in vals):
            raise ValueError(f"{path}: non-finite number in label row {line!r}")
        if not 0 <= cls < NUM_CLASSES:
            raise ValueError(f"{path}: class {cls} outside 0..{NUM_CLASSES - 1}")
        rows.append((cls, (cx, cy, w, h)))
    return [Box(cls, *xywh) for cls, xywh in fixes.corrected(path, rows)]


def label_path_for(image: Path) -> Path:
    """Ultralytics' rule: the label of `.../images/x.jpg` is `.../labels/x.txt`."""
    parts = list(image.parts)
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == "images":
            parts[i] = "labels"
            break
    return Path(*parts).with_suffix(".txt")
