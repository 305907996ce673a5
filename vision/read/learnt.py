"""A player's model: which boxes stand when the learnt detector is read beside the shipped one.

Why its own module: a personal model (vision.train.adapt) reads two detectors, the shipped one and
a copy fine-tuned on the player's photos, and the rules for merging their boxes (add, veto, refit,
and when not to trust the copy at all) are the whole difference between the two readers. They are
pure numpy over boxes already found; vision.read.detect runs the detectors. Boxes are the view's
pixels: (N x 4 xyxy, detector confidence, class) per detector.
"""

from __future__ import annotations

import numpy as np

from vision.read.boxes import iou_matrix, overlap_share

Boxes = tuple[np.ndarray, np.ndarray, np.ndarray]

#: A learnt box is a tile the base did not find only if it covers less than this share of every box
#: the base found (and they of it): a second box on a found tile, or one spanning two, is not added.
LEARNT_NEW_OVERLAP = 0.3
#: The veto is trusted on a photo only where the learnt detector confirms at least this share of the
#: base's sure boxes (detector confidence at the operating point), once there are VETO_MIN_SURE.
VETO_TRUST_SHARE, VETO_MIN_SURE = 0.5, 4
#: A learnt box refits a base box only when one lies almost wholly inside the other (overlap share
#: at least this) and neither box covers another of the other detector's boxes so much.
REFIT_COVER = 0.8


def floor(learnt_conf: float, learnt_veto: float) -> float:
    """The learnt detector's lowest confidence any rule below reads."""
    return min(learnt_conf, learnt_veto) if learnt_veto > 0 else learnt_conf


def merge(
    base: Boxes, learnt: Boxes, tile_conf: float, learnt_conf: float, learnt_veto: float, learnt_refit: float
) -> Boxes:
    """The base detector's boxes plus the learnt detector's where the base found nothing.

    Why added, never replacing: a detector fine-tuned on five photos ranks that table's tiles
    better, but its confidences are its own (round 5's adapt replaced the detector, whose
    confidences then sat under the operating point: 30 % of the tiles returned where the base
    returned 49.5 %). So the base's boxes stay (but for the veto and the refit below), and a learnt
    box at or above its own `learnt_conf` that overlaps no box the base found (detector confidence
    at the operating point `tile_conf`; LEARNT_NEW_OVERLAP) is added, its confidence mapped onto
    [tile_conf, 1]. A doubtful base box under the operating point that such a box covers gives way
    to it.

    With `learnt_veto` (chosen by adapt's check, never by default) the learnt detector also says
    where there is no tile: it learnt from the player's corrections that the books behind that
    table are none, which the base detector boxes at its operating point (riichi-standing-dev:
    nearly every box that was no tile after adapting was the base's, on the shelf;
    models/MODEL_CARD.md stop 42). A base box it does not confirm with a box of its own at or above
    `learnt_veto` (IoU >= 0.5) is dropped, on a photo where the veto is trusted (veto_trusted).
    With `learnt_refit`, see refit."""
    boxes, conf, cls = learnt
    if learnt_veto > 0:
        confirmed = iou_matrix(base[0], boxes[conf >= learnt_veto]).max(1, initial=0.0) >= 0.5
        if not veto_trusted(confirmed, base[1] >= tile_conf):
            return base  # another set: read as the shipped model reads it
        base = (base[0][confirmed], base[1][confirmed], base[2][confirmed])
        at_point = conf >= learnt_conf
        boxes, conf, cls = boxes[at_point], conf[at_point], cls[at_point]
    if not len(boxes):
        return base
    if learnt_refit > 0:
        base = refit(base, boxes, tile_conf, learnt_refit)
    b_boxes, b_conf, b_cls = base
    found = b_boxes[b_conf >= tile_conf]
    new = overlap_share(boxes, found).max(1, initial=0.0) < LEARNT_NEW_OVERLAP
    boxes, conf, cls = boxes[new], conf[new], cls[new]
    if not len(boxes):
        return base
    lo, top = learnt_conf, tile_conf
    lifted = np.maximum(conf, top + (1.0 - top) * (conf - lo) / max(1.0 - lo, 1e-6))
    doubted = (b_conf < tile_conf) & (overlap_share(b_boxes, boxes).max(1, initial=0.0) >= 0.5)
    keep = ~doubted
    return (
        np.concatenate([b_boxes[keep], boxes]),
        np.concatenate([b_conf[keep], lifted]),
        np.concatenate([b_cls[keep], cls]),
    )


def veto_trusted(confirmed: np.ndarray, sure: np.ndarray) -> bool:
    """Whether the learnt detector may drop the base boxes it does not confirm on this photo.

    Why: it learnt one set. On the player's own table it drops a few of the base's boxes, the books
    behind; on a photo of another set (the same phone at a friend's table) it confirms few of the
    base's tiles at all, and dropping the rest left a riichi-learnt model 1 to 3 of 11-15 tiles on
    photos the shipped model read well (models/MODEL_CARD.md stop 44). Such a photo is read as the
    shipped detector reads it: no box dropped, none added, none refitted."""
    n_sure = int(sure.sum())
    return n_sure < VETO_MIN_SURE or int((confirmed & sure).sum()) >= VETO_TRUST_SHARE * n_sure


def refit(base: Boxes, learnt: np.ndarray, tile_conf: float, below_iou: float) -> Boxes:
    """The base's found boxes (detector confidence at the operating point) with the learnt
    detector's outline where both see the same one tile but outline it differently (IoU under
    `below_iou`, one box inside the other, each matched to no other box).

    Why: the base detector outlines a standing tile of a print it never saw by its face and leaves
    out its top and its edge; the learnt detector learnt the whole tile from the player's confirmed
    boxes. The base box then overlaps the tile by less than half, so it is no tile to the player
    (a box to move) and the tile counts as missed, while the learnt box on it, sure at 0.84-0.91,
    was not added because the base box sat there (riichi-standing-dev session 02: every tile the
    adapted reader missed; models/MODEL_CARD.md stop 44). The base's confidence stays: whether a
    tile is there is still the base's to say."""
    b_boxes, b_conf, b_cls = base
    found = np.flatnonzero(b_conf >= tile_conf)
    if not len(found) or not len(learnt):
        return base
    cover = overlap_share(b_boxes[found], learnt) >= REFIT_COVER
    one_to_one = cover & (cover.sum(1, keepdims=True) == 1) & (cover.sum(0, keepdims=True) == 1)
    differ = iou_matrix(b_boxes[found], learnt) < below_iou
    rows, cols = np.nonzero(one_to_one & differ)
    if not len(rows):
        return base
    b_boxes = b_boxes.copy()
    b_boxes[found[rows]] = learnt[cols]
    return b_boxes, b_conf, b_cls
