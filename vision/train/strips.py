"""Strips: rows of tiles cut from real train photos, shown to the detector the way the reader shows it
a photo that was stretched into a square.

Why: some photos reach the reader stretched out of their aspect (dataset exports squeeze a photo of
one row or one column of tiles into 640x640, so each tile is a bar many times longer than wide). The
reader reads them through squeezed views (vision.read.detect.ASPECT_VIEWS: the view squeezed 4x or
8x across the row), where the tiles are back to nearly their shape but a little stretched, blurred
across the row, in a long narrow picture. The real train split holds only 4 such photos (its val:
34), so nothing in training keeps that skill while other data pulls the detector elsewhere: round 9
lost 5 points of tiles returned on them (models/MODEL_CARD.md). A strip is that picture made from a
real train photo: the band around its longest row of labelled tiles, stretched into a square with a
bilinear resize (as the export did), then area-averaged across the row by 4 or 8 (as the reader's
view does), turned upright for a column half the time. Labels follow (they are normalised).

Train photos only: the val photos, stretched or not, stay measured only.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.labels.yolo_format import Box, label_path_for, pixel_boxes, read_labels
from vision.read.boxes import areas, intersections, overlap_share
from vision.read.detect import ASPECT_VIEWS
from vision.read.imageio import load_image
from vision.train import data

#: What strips.json records of the rules a strip was made by: a folder made by older rules is made
#: again (2: rows whose boxes overlap are skipped, `overlapping`; 3: so are rows that are not level
#: or not all one height, `level`).
STRIPS_VERSION = 3
#: The square the exports were stretched into, and the squeezes the reader tries across a row.
EXPORT_SIDE = 640
SQUEEZES = sorted({max(sq) for sq in ASPECT_VIEWS})
#: A strip is made only where the reader's squeeze leaves tiles stretched by at most this much
#: (along the row's cross axis) or squashed by at least 1/this much: other squeezes would not win.
MAX_LEFT_STRETCH = 3.0
#: A row: at least this many labelled tiles whose centres lie within ROW_SLACK x the median tile
#: height of the row's mean centre line.
ROW_MIN_TILES, ROW_SLACK = 5, 0.5
#: A box is kept in a strip when at least this share of it lies inside the band (then clipped).
KEEP_INSIDE = 0.5
#: A box "touches" a band when more than this share of it lies inside (see `crowded`).
CROWD_TOUCH = 0.1
#: A row's tiles each stand in their own box: no two of its boxes share more than this of the
#: smaller one (see `overlapping`).
ROW_MAX_OVERLAP = 0.2
#: A row square to the camera is level and its tiles one height: its box centres drift by at most
#: ROW_MAX_DRIFT median tile heights from one end to the other (the fitted line), and its tallest
#: box is at most ROW_MAX_HEIGHTS x its shortest (see `level`).
ROW_MAX_DRIFT, ROW_MAX_HEIGHTS = 0.25, 1.25


def longest_row(boxes: np.ndarray) -> np.ndarray:
    """Indices of the longest horizontal row among pixel boxes (x1 y1 x2 y2), or none.

    Greedy over boxes sorted by centre height: a box joins the current row while its centre is
    within ROW_SLACK median tile heights of the row's mean centre."""
    if len(boxes) < ROW_MIN_TILES:
        return np.zeros(0, dtype=int)
    cy = (boxes[:, 1] + boxes[:, 3]) / 2
    slack = ROW_SLACK * float(np.median(boxes[:, 3] - boxes[:, 1]))
    rows: list[list[int]] = []
    for i in np.argsort(cy, kind="stable"):
        if rows and abs(cy[i] - np.mean(cy[rows[-1]])) <= slack:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    best = max(rows, key=len)
    return np.array(best if len(best) >= ROW_MIN_TILES else [], dtype=int)


def band_of(boxes: np.ndarray, row: np.ndarray, size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The band around a row: its boxes' union with a margin (a tenth of a tile height above and
    below, half a tile width at the ends), clipped to the image (`size` = w, h)."""
    b = boxes[row]
    th = float(np.median(b[:, 3] - b[:, 1]))
    tw = float(np.median(b[:, 2] - b[:, 0]))
    x1 = max(0, int(np.floor(b[:, 0].min() - tw / 2)))
    x2 = min(size[0], int(np.ceil(b[:, 2].max() + tw / 2)))
    y1 = max(0, int(np.floor(b[:, 1].min() - th / 10)))
    y2 = min(size[1], int(np.ceil(b[:, 3].max() + th / 10)))
    return x1, y1, x2, y2


def inside_share(boxes: np.ndarray, band: tuple[int, int, int, int]) -> np.ndarray:
    """Per box: the share of its area that lies inside the band."""
    return intersections(boxes, np.array([band], dtype=np.float64))[:, 0] / np.maximum(areas(boxes), 1e-9)


def boxes_in_band(boxes: np.ndarray, band: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The boxes at least KEEP_INSIDE inside the band, clipped to it, in band pixels, and which of
    `boxes` they are (a bool per box)."""
    x1, y1, x2, y2 = band
    keep = inside_share(boxes, band) >= KEEP_INSIDE
    clipped = boxes[keep].copy()
    clipped[:, [0, 2]] = clipped[:, [0, 2]].clip(x1, x2) - x1
    clipped[:, [1, 3]] = clipped[:, [1, 3]].clip(y1, y2) - y1
    return clipped, keep


def crowded(boxes: np.ndarray, row: np.ndarray, band: tuple[int, int, int, int]) -> bool:
    """Whether the band cuts into many tiles besides the row's (a pile or a tilted grid, not a row:
    an export of it would not be one row of bars, and the cut tiles' parts would be unlabelled)."""
    touched = int((inside_share(boxes, band) > CROWD_TOUCH).sum())
    return touched > len(row) + max(1, len(row) // 4)


def overlapping(boxes: np.ndarray) -> bool:
    """Whether two of a row's boxes overlap by more than ROW_MAX_OVERLAP (a row seen at a slant or
    tilted in the photo: its upright boxes each take in parts of the neighbours).

    Why: round 11 trained on strips with such rows, and in them a box that spans a tile and half of
    the next is what "a tile" looks like in a long narrow picture; on the photos the app is for, a
    flat hand in one row (narrow upright tiles across a wide photo, much like a strip), it then drew
    14 boxes straddling two tiles each where the shipped reader drew 14 right ones
    (models/MODEL_CARD.md, round 11). An export stretches a row that stands square to the camera."""
    share = overlap_share(boxes, boxes)
    np.fill_diagonal(share, 0.0)
    return bool(len(boxes) and share.max() > ROW_MAX_OVERLAP)


def level(boxes: np.ndarray) -> bool:
    """Whether a row's boxes stand level and all one height, as a row square to the camera does.

    Why: round 13's strips (overlapping rows already skipped) still held tilted rows and rows seen
    in perspective, whose loose upright labels sit a third of a tile off the tiles; on a flat hand
    in a row round 13 then drew boxes half a tile off, across two tiles, on two val photos (7 of 14
    and 6 of 13 tiles returned; models/MODEL_CARD.md, round 13). An export stretches a level row."""
    if len(boxes) < 2:
        return True
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    heights = boxes[:, 3] - boxes[:, 1]
    slope = np.polyfit(cx, cy, 1)[0] if np.ptp(cx) > 0 else 0.0
    drift = abs(slope) * float(np.ptp(cx))
    return bool(
        drift <= ROW_MAX_DRIFT * float(np.median(heights))
        and heights.max() <= ROW_MAX_HEIGHTS * max(float(heights.min()), 1e-9)
    )


def as_read(band: np.ndarray, squeeze: int) -> np.ndarray:
    """A horizontal band as the reader's view shows it after an export stretched it into a square:
    bilinear to EXPORT_SIDE square, then area-averaged by `squeeze` down the picture."""
    square = cv2.resize(band, (EXPORT_SIDE, EXPORT_SIDE), interpolation=cv2.INTER_LINEAR)
    return cv2.resize(square, (EXPORT_SIDE, EXPORT_SIDE // squeeze), interpolation=cv2.INTER_AREA)


def pick_squeeze(aspect: float, rng: np.random.Generator) -> int | None:
    """A squeeze the reader could pick for a band `aspect` (width / height) wide: one that leaves
    the tiles stretched by no more than MAX_LEFT_STRETCH either way; None when none does."""
    fits = [k for k in SQUEEZES if 1 / MAX_LEFT_STRETCH <= aspect / k <= MAX_LEFT_STRETCH]
    return int(rng.choice(fits)) if fits else None


def strip_of(
    rgb: np.ndarray, labels: list[Box], rng: np.random.Generator
) -> tuple[np.ndarray, list[Box]] | None:
    """One strip from a photo and its labels (RGB, YOLO boxes), or None when it has no row that an
    export would have stretched enough for the reader's squeeze to apply."""
    h, w = rgb.shape[:2]
    if not labels:
        return None
    boxes = pixel_boxes(labels, w, h)
    row = longest_row(boxes)
    if not len(row):
        return None
    if overlapping(boxes[row]) or not level(boxes[row]):
        return None
    band = band_of(boxes, row, (w, h))
    if crowded(boxes, row, band):
        return None
    bw, bh = band[2] - band[0], band[3] - band[1]
    if bw < 2 or bh < 2:
        return None
    squeeze = pick_squeeze(bw / bh, rng)
    if squeeze is None:
        return None
    kept, mask = boxes_in_band(boxes, band)
    classes = [b.cls for b, k in zip(labels, mask, strict=True) if k]
    picture = as_read(rgb[band[1] : band[3], band[0] : band[2]], squeeze)
    norm = kept / [bw, bh, bw, bh]
    out = [
        Box(c, (x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1)
        for c, (x1, y1, x2, y2) in zip(classes, norm, strict=True)
    ]
    if rng.random() < 0.5:  # a column: the picture turned upright, tiles lying sideways
        picture = np.ascontiguousarray(np.rot90(picture))  # counter-clockwise: (x, y) -> (y, 1 - x)
        out = [Box(b.cls, b.cy, 1 - b.cx, b.h, b.w) for b in out]
    return picture, out


def write_strips(out: Path, seed: int = 0, source: Path = data.REAL_DATASET, limit: int | None = None) -> int:
    """Write a strip for every real train photo that has one into `out` (images/, labels/, a
    one-split set that `vision.train.data` reads as train); returns how many. Deterministic for a
    seed. Files are written whole before they are named (a half-written strip never trains), and
    strips.json last: a folder without it was interrupted, and `ensure_strips` makes it again."""
    rng = np.random.default_rng(seed)
    images, labels = out / "images", out / "labels"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    made = 0
    for photo in data.split_images(source, "train")[:limit]:
        strip = strip_of(load_image(photo), read_labels(label_path_for(photo)), rng)
        if strip is None:
            continue
        picture, boxes = strip
        name = f"strip_{photo.stem}"
        ok, jpg = cv2.imencode(
            ".jpg", cv2.cvtColor(picture, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 92]
        )
        if not ok:
            continue
        rows = "".join(f"{b.cls} {b.cx:.6f} {b.cy:.6f} {b.w:.6f} {b.h:.6f}\n" for b in boxes)
        data.write_whole(labels / f"{name}.txt", rows.encode())
        data.write_whole(images / f"{name}.jpg", jpg.tobytes())
        made += 1
    (out / "strips.json").write_text(
        json.dumps({"seed": seed, "version": STRIPS_VERSION, "source": str(source), "strips": made})
    )
    return made
