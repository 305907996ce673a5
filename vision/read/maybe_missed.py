"""Tiles the reader may have missed: boxes it doubted, offered to the player, never counted.

Why: on standing tiles of a print it never saw, the reader misses a quarter of the tiles, and a
missed tile is usually boxed, at a tile confidence under the operating point (models/MODEL_CARD.md,
stops 46-48). Every way of returning those boxes as tiles also returned as many book spines and
other clutter behind the hand, so the reader does not return them. Shown to the player as
suggestions instead ("maybe missed: 5万? tap to add"), a real tile costs one tap instead of a form,
and a spine costs nothing: a suggestion never counts for the hand, the score or the training labels
until the player takes it.

Pure: it splits a list of detections (vision.read.detect.Detection, read down to MAYBE_FLOOR) into
the tiles at the operating point and the suggestions, so it is tested on hand-made boxes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from vision.read.boxes import areas, as_boxes, elongation, iou_matrix, overlap_share

#: The lowest tile confidence offered (ultralytics' default `conf`, and this project's default
#: tile_conf before the operating point was chosen on real photos).
MAYBE_FLOOR = 0.25
#: At most this many suggestions, surest first: a phone shows them in one short row.
MAX_MAYBE = 8
#: A suggestion is no second box on a tile already there: at most this IoU with any tile or
#: surer suggestion, and at most this share of the smaller box inside the other.
MAX_IOU, MAX_INSIDE = 0.3, 0.5
#: A tile's shape (4:3 upright or lying; a tile seen low is taller): book spines are 4:1 and more.
MAX_ELONGATION = 2.5
#: Of the size of the tiles found (area against their median): a tile of the same hand.
AREA_RANGE = (0.4, 2.5)


class Reading(Protocol):
    """What a detection carries here (vision.read.detect.Detection has it)."""

    xyxy: tuple[float, float, float, float]
    tile_conf: float | None


def split_doubted(detections: Sequence[Reading], point: float) -> tuple[list, list]:
    """(tiles at the operating point `point`, suggestions): a suggestion is a detection under the
    point (and at MAYBE_FLOOR or more) that is shaped and sized like the tiles found, and lies on
    no tile already there nor on a surer suggestion; at most MAX_MAYBE, surest first."""
    tile = [d for d in detections if _conf(d) >= point]
    doubted = sorted((d for d in detections if MAYBE_FLOOR <= _conf(d) < point), key=lambda d: -_conf(d))
    if not doubted:
        return tile, []
    boxes = as_boxes([d.xyxy for d in doubted])
    fits = elongation(boxes) <= MAX_ELONGATION
    if tile:
        size = float(np.median(areas(as_boxes([d.xyxy for d in tile]))))
        a = areas(boxes)
        fits &= (a >= AREA_RANGE[0] * size) & (a <= AREA_RANGE[1] * size)
    taken: list[tuple[float, float, float, float]] = [d.xyxy for d in tile]
    maybe = []
    for d, ok in zip(doubted, fits, strict=True):
        if not ok or len(maybe) == MAX_MAYBE:
            continue
        if taken and _overlaps(d.xyxy, taken):
            continue
        maybe.append(d)
        taken.append(d.xyxy)
    return tile, maybe


def _conf(d: Reading) -> float:
    return float(d.tile_conf or 0.0)


def _overlaps(box: Sequence[float], others: Sequence[Sequence[float]]) -> bool:
    b, o = as_boxes([box]), as_boxes(others)
    return bool((iou_matrix(b, o) > MAX_IOU).any() or (overlap_share(b, o) > MAX_INSIDE).any())
