"""Box geometry on xyxy arrays, shared by evaluation (IoU, pairing), suppression (overlap share)
and the reader's aspect views (how elongated boxes are)."""

from __future__ import annotations

import numpy as np


def as_boxes(boxes: np.ndarray) -> np.ndarray:
    """Any box list as a float N x 4 array."""
    return np.asarray(boxes, dtype=np.float64).reshape(-1, 4)


def areas(boxes: np.ndarray) -> np.ndarray:
    """Area of each box (0 for degenerate boxes)."""
    b = as_boxes(boxes)
    return np.clip(b[:, 2] - b[:, 0], 0, None) * np.clip(b[:, 3] - b[:, 1], 0, None)


def intersections(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """M[i, j] = intersection area of box a[i] and box b[j]."""
    a, b = as_boxes(a), as_boxes(b)
    ix1 = np.maximum(a[:, None, 0], b[None, :, 0])
    iy1 = np.maximum(a[:, None, 1], b[None, :, 1])
    ix2 = np.minimum(a[:, None, 2], b[None, :, 2])
    iy2 = np.minimum(a[:, None, 3], b[None, :, 3])
    return np.clip(ix2 - ix1, 0, None) * np.clip(iy2 - iy1, 0, None)


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """M[i, j] = intersection over union of box a[i] and box b[j] (0 where both are empty)."""
    inter = intersections(a, b)
    union = areas(a)[:, None] + areas(b)[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)


def greedy_pairs(iou: np.ndarray, order: np.ndarray, min_iou: float) -> np.ndarray:
    """Per row of `iou` (rows: boxes a, columns: boxes b): the column it is paired with, or -1.
    Rows take their turn in `order` (surest first, say), each the free column it overlaps most at
    `min_iou` or more; each column is paired at most once. COCO's matching of predictions to
    labels, and a reader's matching of two looks at one view, are this one rule."""
    pair = np.full(iou.shape[0], -1, np.int64)
    if not iou.size:
        return pair
    taken = np.zeros(iou.shape[1], dtype=bool)
    for i in order:
        cand = np.where(taken, -1.0, iou[i])
        j = int(np.argmax(cand))
        if cand[j] >= min_iou:
            taken[j] = True
            pair[i] = j
    return pair


def overlap_share(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """M[i, j] = intersection of a[i] and b[j] over the smaller of their two areas (1 when one lies
    inside the other, whatever their sizes)."""
    smaller = np.minimum(areas(a)[:, None], areas(b)[None, :])
    return intersections(a, b) / np.maximum(smaller, 1e-9)


def elongation(boxes: np.ndarray, squeeze: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
    """Long side over short side of each box, as it looks with x and y divided by `squeeze` (a tile
    is 4:3 = 1.33 whichever way it lies)."""
    b = as_boxes(boxes)
    w = (b[:, 2] - b[:, 0]) / squeeze[0]
    h = (b[:, 3] - b[:, 1]) / squeeze[1]
    return np.maximum(w, h) / np.maximum(np.minimum(w, h), 1e-6)
