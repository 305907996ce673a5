"""Tiles the detector was unsure of, returned because they stand in a row with tiles it was sure of.

Why: on standing tiles of a print the detector never saw, most tiles it misses at the operating
point are still boxed, at a lower confidence (models/MODEL_CARD.md, stop 46: found at 0.2-0.5),
while most of its false boxes there are clutter far from any tile (book spines). A player's tiles
stand shoulder to shoulder in a row or a column: a box of a tile's height, touching a sure tile on
the same line, is a tile far more often than a box of the same confidence alone on the shelf. This
is hysteresis in space (as an edge detector keeps weak edges joined to strong ones): a box at
`low` or more is kept when it continues a line of sure tiles; rescued boxes extend the line in turn.

Pure numpy on xyxy boxes in one image's pixels (tests/vision/read/test_row_rescue.py);
vision.read.detect applies it where the model's OperatingPoint.row_rescue asks (0: never).
"""

from __future__ import annotations

import numpy as np

from vision.read.boxes import as_boxes, overlap_share

#: Two tiles of one row are within this ratio of each other's height (width for a column): one
#: print at one distance; a tile laid across a meld (3:4 of a standing tile's height) is not.
SAME_SIZE = 1.3
#: Their spans across the line overlap by at least this share of the smaller: on one line.
SAME_LINE = 0.7
#: Along the line they touch: the gap between them is at most this share of the narrower one's
#: width (a meld is set a little apart), their overlap at most OVERLAP_ALONG of it (tiles seen at
#: a slant overlap a little; more is a second box on the same tile).
GAP_ALONG, OVERLAP_ALONG = 0.5, 0.25
#: A candidate that shares more than this share of the smaller area with a kept box is part of
#: that tile (or holds it): not a tile of its own.
SHARES_KEPT = 0.3


def of_one_size(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """Bool, broadcast: `a` and `b` (lengths) within SAME_SIZE of each other, either way: one
    print at one distance. What "the same size" means for the row rescue and the alone rescue."""
    big = np.maximum(a, b)
    return np.asarray(big <= SAME_SIZE * np.maximum(np.minimum(a, b), 1e-9))


def _aligned(b: np.ndarray, along: int) -> np.ndarray:
    """M[i, j]: boxes i and j are of one size and on one line running along axis `along`
    (0: a row, x; 1: a column, y), however far apart along it."""
    across = 1 - along
    size = b[:, across + 2] - b[:, across]
    small = np.maximum(np.minimum(size[:, None], size[None, :]), 1e-9)
    same_size = of_one_size(size[:, None], size[None, :])
    shared = np.minimum(b[:, None, across + 2], b[None, :, across + 2]) - np.maximum(
        b[:, None, across], b[None, :, across]
    )
    return same_size & (shared >= SAME_LINE * small)


def _touching(b: np.ndarray, along: int) -> np.ndarray:
    """M[i, j]: along axis `along`, boxes i and j are a small gap apart or overlap a little."""
    width = b[:, along + 2] - b[:, along]
    narrow = np.maximum(np.minimum(width[:, None], width[None, :]), 1e-9)
    gap = np.maximum(b[:, None, along], b[None, :, along]) - np.minimum(
        b[:, None, along + 2], b[None, :, along + 2]
    )
    return (gap <= GAP_ALONG * narrow) & (gap >= -OVERLAP_ALONG * narrow)


class _Lines:
    """The boxes' line geometry, worked out once per photo: per axis (a row, a column) which boxes
    share a line (_aligned) and which lies before which along it."""

    def __init__(self, b: np.ndarray) -> None:
        centre = (b[:, :2] + b[:, 2:]) / 2
        self.aligned = [_aligned(b, along) for along in (0, 1)]
        self.before = [centre[None, :, along] < centre[:, None, along] for along in (0, 1)]
        #: Per axis (a row, a column), M[i, j]: boxes i and j stand side by side on that line.
        self.touches_on = [self.aligned[along] & _touching(b, along) for along in (0, 1)]
        for touch in self.touches_on:
            np.fill_diagonal(touch, False)
        #: M[i, j]: boxes i and j stand side by side on one line (a row or a column).
        self.touches = self.touches_on[0] | self.touches_on[1]

    def in_three(self, i: int, kept: np.ndarray) -> bool:
        """Box i and two kept boxes make a line of three side by side on one axis: a kept box it
        touches has another kept neighbour there, or i touches a second kept box there."""
        for touch in self.touches_on:
            for j in np.flatnonzero(touch[i] & kept):
                third = (touch[j] | touch[i]) & kept
                third[[i, j]] = False
                if third.any():
                    return True
        return False

    def between(self, i: int, kept: np.ndarray) -> bool:
        """A kept box of box i's size stands on its line on each side of it (a row: left and right;
        a column: above and below): it lies within a line of tiles, not beyond its ends."""
        for line, before in zip(self.aligned, self.before, strict=True):
            on_line = line[i] & kept
            if (on_line & before[i]).any() and (on_line & ~before[i]).any():
                return True
        return False


def cut_by_frame(boxes: np.ndarray, size: tuple[int, int], margin: float) -> np.ndarray:
    """Bool per box: an edge of it lies within `margin` x the photo's side (x: of the width
    `size[0]`, y: of the height `size[1]`) from the photo's border, so the frame may cut it."""
    b = as_boxes(boxes)
    w, h = float(size[0]), float(size[1])
    mx, my = margin * w, margin * h
    return (b[:, 0] <= mx) | (b[:, 1] <= my) | (b[:, 2] >= w - mx) | (b[:, 3] >= h - my)


#: What "the frame cuts it" means for OperatingPoint.cut_bigger: an edge within this share of the
#: photo's side from its border (the value stop 53 declared for rescue_uncut).
CUT_MARGIN = 0.01
#: Whole boxes needed before a cut box is compared with them: fewer say nothing about a tile's size.
MIN_WHOLE = 3


def too_big_for_a_cut_tile(boxes: np.ndarray, size: tuple[int, int], bigger: float) -> np.ndarray:
    """Bool per box: the frame cuts it (CUT_MARGIN) and its long side is at least (1 + `bigger`)
    times the median long side of the boxes the frame does not cut (at least MIN_WHOLE of them).
    Part of a tile is never bigger than a whole one; a book on the shelf the frame cuts is."""
    b = as_boxes(boxes)
    out = np.zeros(len(b), dtype=bool)
    cut = cut_by_frame(b, size, CUT_MARGIN)
    if bigger <= 0 or int((~cut).sum()) < MIN_WHOLE:
        return out
    long_side = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
    return cut & (long_side >= (1.0 + bigger) * float(np.median(long_side[~cut])))


def rescued(
    boxes: np.ndarray,
    tile_conf: np.ndarray,
    sure: np.ndarray,
    low: float,
    gaps_only: bool = False,
    cut: np.ndarray | None = None,
    three: bool = False,
) -> np.ndarray:
    """Bool per box: not sure, its tile confidence at least `low`, and joined to a sure box by a
    chain of side-by-side neighbours (_Lines.touches), sharing little with any kept box. With
    `gaps_only`, also with a kept box on its line on its other side (_Lines.between): a box fills a gap in
    a line and never lengthens it (a flower tile stands at a hand's end, read as 1s or 1p surely).
    With `three`, only where it makes a line of three with kept boxes (_Lines.in_three): two boxes
    touching is what a pile of tilted tiles does by chance.

    `sure`: the boxes already kept (at the operating point, one per tile). Candidates are taken
    surest first: of two boxes on one tile the surer is rescued, and the other then overlaps a
    kept box and is not. `cut` (cut_by_frame): boxes whose size is not known, neither rescued nor
    a line a rescue starts from; a kept one still blocks a candidate on top of it.
    """
    b = as_boxes(boxes)
    conf = np.asarray(tile_conf, dtype=np.float64)
    kept = np.asarray(sure, dtype=bool).copy()
    uncut = ~np.asarray(cut, dtype=bool) if cut is not None else np.ones(len(b), dtype=bool)
    anchors = kept & uncut  # the kept boxes a line may be continued from
    out = np.zeros(len(b), dtype=bool)
    order = np.argsort(-conf, kind="stable")
    candidates = [int(i) for i in order if not kept[i] and uncut[i] and conf[i] >= low]
    if not candidates or not anchors.any():
        return out
    lines = _Lines(b)
    shares = overlap_share(b, b)
    grew = True
    while grew:  # a rescued box may join the next one to the line
        grew = False
        for i in candidates:
            if out[i] or not lines.touches[i, anchors].any() or (shares[i, kept] > SHARES_KEPT).any():
                continue
            if gaps_only and not lines.between(i, anchors):
                continue
            if three and not lines.in_three(i, anchors):
                continue
            out[i] = kept[i] = anchors[i] = grew = True
    return out


def alone_rescued(
    boxes: np.ndarray,
    tile_conf: np.ndarray,
    kept: np.ndarray,
    low: float,
    cut: np.ndarray | None = None,
    among: bool = False,
    touching: bool = False,
    near: bool = False,
    near_conf: np.ndarray | None = None,
) -> np.ndarray:
    """Bool per box: not kept, its tile confidence at least `low`, of the kept tiles' size (height
    and width each within SAME_SIZE of the median of the kept boxes the frame does not cut, at least
    MIN_WHOLE of them), the frame not cutting it (`cut`), and sharing little with any kept box.
    With `among`, also its centre within the extent of those kept boxes; with `touching` too, the
    box reaching into that extent is enough (a tile at a group's end, its centre just beyond it);
    with `near` too, so is a gap to one of those kept boxes too small for a tile (near_a_tile).
    `near_conf` (with `near`): the tile confidence that stands for a box that near a kept one, in
    place of `tile_conf` (a face read a little less surely will do there: rescue_near_face).

    Why: tiles laid on the felt one by one, or a pile's tilted tiles, stand in no row, so `rescued`
    cannot let them back; the detector doubts them as it doubts a row's. Here the evidence is the
    tile's own size beside the sure tiles, and the caller's `tile_conf` carries the face: a box is a
    candidate only where the classifier reads its face surely (detect._rescued, rescue_alone).
    Candidates surest first; each one let back blocks a second box on the same tile.
    """
    b = as_boxes(boxes)
    conf = np.asarray(tile_conf, dtype=np.float64)
    kept = np.asarray(kept, dtype=bool).copy()
    uncut = ~np.asarray(cut, dtype=bool) if cut is not None else np.ones(len(b), dtype=bool)
    out = np.zeros(len(b), dtype=bool)
    whole = b[kept & uncut]
    if len(whole) < MIN_WHOLE:
        return out
    close = near_a_tile(b, whole) if near else np.zeros(len(b), dtype=bool)
    if near_conf is not None:
        conf = np.where(close, np.asarray(near_conf, dtype=np.float64), conf)
    height, width = b[:, 3] - b[:, 1], b[:, 2] - b[:, 0]
    fits = of_one_size(height, float(np.median(whole[:, 3] - whole[:, 1])))
    fits &= of_one_size(width, float(np.median(whole[:, 2] - whole[:, 0])))
    if among:
        # What must reach the extent from each side: the box's centre, or with `touching` its
        # right/bottom edge past the extent's left/top and its left/top edge before its right/bottom.
        centre = (b[:, :2] + b[:, 2:]) / 2
        ends, starts = (b[:, 2:], b[:, :2]) if touching else (centre, centre)
        inside = (ends[:, 0] >= whole[:, 0].min()) & (starts[:, 0] <= whole[:, 2].max())
        inside &= (ends[:, 1] >= whole[:, 1].min()) & (starts[:, 1] <= whole[:, 3].max())
        fits &= inside | close
    shares = overlap_share(b, b)
    for i in np.argsort(-conf, kind="stable"):
        if kept[i] or not uncut[i] or conf[i] < low or not fits[i]:
            continue
        if (shares[i, kept] > SHARES_KEPT).any():
            continue
        out[i] = kept[i] = True
    return out


def near_a_tile(boxes: np.ndarray, tiles: np.ndarray) -> np.ndarray:
    """Bool per box: the gap between it and the nearest of `tiles` (boxes that overlap have none;
    across a corner, the straight line) is less than the tiles' median short side, so no tile would
    fit between them.

    Why: a tile standing a little apart from its group, at the group's end or a row behind, is in
    no line of three and outside the extent of the sure tiles, yet nothing could stand between
    it and them (models/MODEL_CARD.md, stop 63)."""
    b, t = as_boxes(boxes), as_boxes(tiles)
    if not len(t):
        return np.zeros(len(b), dtype=bool)
    gap_x = np.maximum(np.maximum(t[None, :, 0] - b[:, None, 2], b[:, None, 0] - t[None, :, 2]), 0)
    gap_y = np.maximum(np.maximum(t[None, :, 1] - b[:, None, 3], b[:, None, 1] - t[None, :, 3]), 0)
    tile_short = float(np.median(np.minimum(t[:, 2] - t[:, 0], t[:, 3] - t[:, 1])))
    return np.hypot(gap_x, gap_y).min(1) < tile_short


def unsure_photo_rescued(
    boxes: np.ndarray,
    tile_conf: np.ndarray,
    kept: np.ndarray,
    low: float,
    cut: np.ndarray | None = None,
) -> np.ndarray:
    """Bool per box: in a photo with fewer than MIN_WHOLE `kept` boxes, a box not kept, its
    confidence at least `low`, the frame not cutting it (`cut`), sharing little with a kept or
    let-back box (surest first), and of one size with the group it makes with the kept boxes
    (height and width each within SAME_SIZE of the group's medians); nothing unless kept and let
    back make MIN_WHOLE tiles at least.

    Why: the row and alone rescues measure a doubted box against sure tiles; where the detector
    doubts a whole photo (an unseen print's tiles standing apart) there are none to measure
    against. The evidence left is the boxes' own agreement (one print at one distance) and the
    caller's `tile_conf`, which carries a surely read face (detect._rescued, rescue_unsure).
    """
    b = as_boxes(boxes)
    conf = np.asarray(tile_conf, dtype=np.float64)
    kept = np.asarray(kept, dtype=bool)
    out = np.zeros(len(b), dtype=bool)
    if int(kept.sum()) >= MIN_WHOLE:
        return out
    uncut = ~np.asarray(cut, dtype=bool) if cut is not None else np.ones(len(b), dtype=bool)
    shares = overlap_share(b, b)
    taken = kept.copy()
    for i in np.argsort(-conf, kind="stable"):
        if taken[i] or not uncut[i] or conf[i] < low or (shares[i, taken] > SHARES_KEPT).any():
            continue
        out[i] = taken[i] = True
    if int(taken.sum()) < MIN_WHOLE:
        return np.zeros(len(b), dtype=bool)
    height, width = b[:, 3] - b[:, 1], b[:, 2] - b[:, 0]
    out &= of_one_size(height, float(np.median(height[taken])))
    out &= of_one_size(width, float(np.median(width[taken])))
    if int((kept | out).sum()) < MIN_WHOLE:
        return np.zeros(len(b), dtype=bool)
    return out
