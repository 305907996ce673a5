"""A second look at the mirror image of a view, averaged with the first (OperatingPoint.mirror_tall).

Why: the unseen print's standing tiles that go missing are mostly boxes the detector half-believes,
which the rules after it cannot take back. Test-time augmentation's mean over the view and its
mirror lifts the boxes both looks agree on and lowers the ones only one look saw, with no new
threshold. Measured and left off (OperatingPoint.mirror_tall 0): on the unseen print it agreed
about the shelf behind the tiles as often as about the tiles (models/MODEL_CARD.md, stop 58)."""

from __future__ import annotations

import numpy as np

from vision.read.boxes import as_boxes, greedy_pairs, iou_matrix


def unmirrored(boxes: np.ndarray, width: float) -> np.ndarray:
    """Boxes found in a view mirrored left to right, in the unmirrored view's pixels (`width` wide)."""
    b = as_boxes(boxes).copy()
    b[:, [0, 2]] = width - b[:, [2, 0]]
    return b


def matched_pairs(a: np.ndarray, a_conf: np.ndarray, b: np.ndarray, min_iou: float) -> list[tuple[int, int]]:
    """Pairs (i, j) of boxes of `a` and `b` that are one tile: IoU at least `min_iou`, each box in
    at most one pair, `a`'s surest boxes first, each taking its best-overlapping free box of `b`
    (vision.read.boxes.greedy_pairs, the evaluation's own matching)."""
    if not len(a) or not len(b):
        return []
    pair = greedy_pairs(iou_matrix(as_boxes(a), as_boxes(b)), np.argsort(-a_conf, kind="stable"), min_iou)
    return [(int(i), int(j)) for i, j in enumerate(pair) if j >= 0]


def mean_of_two(
    first: tuple[np.ndarray, np.ndarray, np.ndarray],
    second: tuple[np.ndarray, np.ndarray, np.ndarray],
    min_iou: float,
    floor: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two readings (boxes, confidences, classes) of one view as one: a pair that is one tile
    (matched_pairs) keeps the first reading's box and class with the mean of both confidences; a
    box only one reading found keeps its own with half its confidence (the other's 0 in the mean);
    boxes whose mean is under `floor` are dropped."""
    (a, a_conf, a_cls), (b, b_conf, b_cls) = first, second
    pairs = matched_pairs(a, a_conf, b, min_iou)
    conf_a = a_conf / 2.0
    only_b = np.ones(len(b), bool)
    for i, j in pairs:
        conf_a[i] += b_conf[j] / 2.0
        only_b[j] = False
    boxes = np.concatenate((as_boxes(a), as_boxes(b)[only_b]))
    conf = np.concatenate((conf_a, b_conf[only_b] / 2.0))
    cls = np.concatenate((np.asarray(a_cls, int), np.asarray(b_cls, int)[only_b]))
    keep = conf >= floor
    return boxes[keep], conf[keep], cls[keep]
