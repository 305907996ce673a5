"""Drop boxes that are not one tile: boxes spanning two tiles, and second boxes on the same tile.

Why: the detector's own NMS (IoU 0.6) keeps a wide box laid over two neighbouring tiles when both
tiles also have their own boxes (the wide box's IoU with each is only ~0.5), and a small box on one
half of a tile next to the tile's full box (IoU ~0.5 again). On real game photos this showed as
three wide boxes on a 14-tile hand: each reported a fifteenth, sixteenth... tile. Overlap measured
relative to the SMALLER box (intersection over the smaller area) sees both cases where IoU cannot.

Pure numpy on xyxy boxes, so it is tested on hand-made boxes; `vision.read.detect` applies it to the
tiles at the operating point (a box is judged only against boxes that are sure tiles themselves).
"""

from __future__ import annotations

import numpy as np

from vision.read.boxes import areas, as_boxes, intersections

#: A box "holds" another when at least this share of the other's area lies inside it.
HOLDS = 0.7
#: Two boxes are one tile when this share of the smaller one lies inside the larger and their
#: areas differ by less than DUPLICATE_AREA times (a much larger box is a span, handled apart).
#: 2.5: a tile's face and the box around its whole body (its visible side and top add up to about
#: twice the face's area seen at a slant) are one tile; so are a tile and a box on half of it.
#: (1.6 before; what 2.5 changed is measured in models/MODEL_CARD.md, round 5 second stop.)
DUPLICATE_INSIDE = 0.8
DUPLICATE_AREA = 2.5


def inside_share(boxes: np.ndarray) -> np.ndarray:
    """M[i, j] = share of box j's area that lies inside box i (diagonal 0)."""
    b = as_boxes(boxes)
    share = intersections(b, b) / np.maximum(areas(b)[None, :], 1e-9)
    np.fill_diagonal(share, 0.0)
    return share


def span_boxes(boxes: np.ndarray) -> np.ndarray:
    """Bool per box: it holds two or more other boxes (it spans several tiles that were each found)."""
    share = inside_share(boxes)
    return (share >= HOLDS).sum(1) >= 2


def duplicate_boxes(boxes: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Bool per box: another box of similar size covers it (or it covers one) and scores higher.

    The better-scoring box of each duplicate pair is kept, so exactly one box stays per tile.
    """
    b = as_boxes(boxes)
    score = np.asarray(score, dtype=np.float64)
    share = inside_share(b)
    area = areas(b)
    out = np.zeros(len(b), dtype=bool)
    for i in np.argsort(-score, kind="stable"):
        if out[i]:
            continue
        for j in range(len(b)):
            if j == i or out[j]:
                continue
            small, big = (i, j) if area[i] <= area[j] else (j, i)
            same_size = area[big] < DUPLICATE_AREA * max(area[small], 1e-9)
            if same_size and share[big, small] >= DUPLICATE_INSIDE:
                out[j] = True  # j scores lower than i (i is visited first)
    return out


def keep_one_per_tile(boxes: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Bool per box: keep it. Span boxes go first (they would hide the tiles they hold from the
    duplicate test), then duplicates among the rest."""
    b = as_boxes(boxes)
    keep = ~span_boxes(b)
    idx = np.flatnonzero(keep)
    if len(idx):
        keep[idx[duplicate_boxes(b[idx], np.asarray(score)[idx])]] = False
    return keep
