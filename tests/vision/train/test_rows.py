"""vision.train.rows: a hand in a row is told from two rows, a grid and a few tiles, and the boxes on
its line (a flower tile the labellers skipped) from those off it (a pile, the wall)."""

from __future__ import annotations

import numpy as np

from vision.train import rows


def _row(tiles: int = 14) -> np.ndarray:
    """`tiles` labelled tiles 15 x 20 px side by side, 5 px apart, across the photo."""
    return np.array([[i * 20.0, 100.0, i * 20.0 + 15, 120.0] for i in range(tiles)])


def test_a_hand_in_a_row_is_told_from_two_rows_a_grid_and_a_few_tiles():
    row = _row()
    assert rows.in_a_row(row)
    slanted = row + np.c_[np.zeros(14), row[:, 0] * 0.3, np.zeros(14), row[:, 0] * 0.3]
    assert rows.in_a_row(slanted)
    down = row[:, [1, 0, 3, 2]]  # the same hand down the photo
    assert rows.in_a_row(down)
    two_rows = np.concatenate([row[:7], row[7:] + [0, 40, 0, 40]])
    assert not rows.in_a_row(two_rows)
    assert not rows.in_a_row(row[: rows.ROW_MIN_TILES - 1])


def test_boxes_on_the_line_and_near_its_ends_are_on_the_row_others_are_not():
    row = rows.fit_row(_row())
    assert row is not None and row.axis == 0
    flower_before = [-20.0, 100.0, -5.0, 120.0]  # one tile left of the first
    in_a_gap = [130.0, 101.0, 145.0, 121.0]  # between two labelled tiles, a pixel lower
    far_past_the_end = [14 * 20.0 + 40, 100.0, 14 * 20.0 + 55, 120.0]  # three tiles past the last
    above = [100.0, 60.0, 115.0, 80.0]  # a tile of a pile behind the hand
    on = row.contains(np.array([flower_before, in_a_gap, far_past_the_end, above]))
    assert on.tolist() == [True, True, False, False]


def test_a_row_down_the_photo_judges_boxes_down_the_photo():
    row = rows.fit_row(_row()[:, [1, 0, 3, 2]])
    assert row is not None and row.axis == 1
    below_the_last = [100.0, 14 * 20.0, 120.0, 14 * 20.0 + 15]
    beside = [140.0, 100.0, 160.0, 115.0]
    assert row.contains(np.array([below_the_last, beside])).tolist() == [True, False]
