"""A hand laid out in a row: whether a photo's labelled tiles form one, and which other boxes lie on it.

Why its own module: the photo the app is for is one hand in a row, and two places need the same
answer about it. The ship rule reports those photos apart (benchmarks/reader_report.py), and the
classifier learns `other` from the unlabelled boxes on such rows (vision.train.crops). In the real
set the only tiles left unlabelled in a labelled row are flower and season tiles: they are not in
play in Liaoning rules, so the labellers skipped them, and a reader must not name them as 1s or 1p.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: A photo is "a hand in a row" when it has at least this many labelled tiles ...
ROW_MIN_TILES = 8
#: ... and every tile's centre lies within this share of the median tile's height (a row across
#: the photo) or width (a row down it) of the straight line fitted through them.
ROW_TOLERANCE = 0.5
#: A box is on the row when its centre is that close to the line and at most this many median tile
#: widths past either end of the labelled tiles (a flower at the end of the hand, a meld set apart).
ROW_REACH = 1.5


@dataclass(frozen=True)
class Row:
    """The straight line through a row's tile centres: `off = slope * along + intercept`, where
    `along` is x for a row across the photo (axis 0) and y for a row down it (axis 1)."""

    axis: int
    slope: float
    intercept: float
    start: float
    end: float
    #: Median tile side across the line (the tolerance's unit) and along it (the reach's unit).
    across: float
    along: float

    def contains(self, boxes: np.ndarray) -> np.ndarray:
        """Per box (N x 4 xyxy): whether its centre lies on this row (ROW_TOLERANCE, ROW_REACH)."""
        b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
        along, off = _centres(b, self.axis)
        near = np.abs(self.slope * along + self.intercept - off) <= ROW_TOLERANCE * self.across
        reach = ROW_REACH * self.along
        return near & (along >= self.start - reach) & (along <= self.end + reach)


def _centres(b: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Box centres split into (along the row, across it) for a row on `axis`."""
    cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
    return (cx, cy) if axis == 0 else (cy, cx)


def fit_row(gt_boxes: np.ndarray) -> Row | None:
    """The row a photo's labelled tiles form, or None when they are not one hand in a row (melds set
    apart on the same line count; two rows, a grid or a pile do not). A straight line is fitted
    through the centres by least squares, across and down the photo; a slanted or foreshortened
    row is still a line."""
    b = np.asarray(gt_boxes, dtype=np.float64).reshape(-1, 4)
    if len(b) < ROW_MIN_TILES:
        return None
    widths, heights = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    for axis, across, along_side in ((0, heights, widths), (1, widths, heights)):
        along, off = _centres(b, axis)
        a = np.c_[along, np.ones(len(b))]
        coef, *_ = np.linalg.lstsq(a, off, rcond=None)
        side = float(np.median(across))
        if np.abs(a @ coef - off).max() <= ROW_TOLERANCE * side:
            return Row(
                axis,
                float(coef[0]),
                float(coef[1]),
                float(along.min()),
                float(along.max()),
                side,
                float(np.median(along_side)),
            )
    return None


def in_a_row(gt_boxes: np.ndarray) -> bool:
    """Whether a photo's labelled tiles are one hand laid out in a row (fit_row)."""
    return fit_row(gt_boxes) is not None
