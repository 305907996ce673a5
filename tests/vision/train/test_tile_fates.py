"""Tile fates (benchmarks/reader_report.tile_fates, vision.train.evaluate.labelled_tile_reads): two
readers compared labelled tile by labelled tile, so a faces number that is a share of different
tiles says where it comes from."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.train.reader_report_module import report
from vision.train.evaluate import MISSED, ImageResult, image_counts, labelled_tile_reads

#: Six labelled tiles in a row, faces 0..5.
GT = np.array([[i * 20.0, 0.0, i * 20.0 + 15, 20.0] for i in range(6)])
GT_CLS = np.arange(6)


def _photo(faces: dict[int, int], extra: int = 0, name: str = "p") -> ImageResult:
    """A reading of the row: a box on each tile of `faces` (tile -> face read), and `extra` boxes
    on no tile."""
    tiles = sorted(faces)
    boxes = [GT[t] for t in tiles] + [[500.0 + 30 * k, 0.0, 515.0 + 30 * k, 20.0] for k in range(extra)]
    cls = [faces[t] for t in tiles] + [0] * extra
    n = len(cls)
    return ImageResult(GT, GT_CLS, np.array(boxes).reshape(-1, 4), np.array(cls, int), np.full(n, 0.9), name)


def test_each_labelled_tile_is_missed_read_right_or_read_wrong():
    im = _photo({0: 0, 1: 3, 3: 3}, extra=2)
    assert labelled_tile_reads(im).tolist() == [1, 0, MISSED, 1, MISSED, MISSED]
    c = image_counts(im)  # the same matching as the rule's counts
    reads = labelled_tile_reads(im)
    assert (reads >= 0).sum() == c.boxed and (reads == 1).sum() == c.right


def test_a_box_below_the_point_covers_no_tile():
    im = _photo({0: 0, 1: 1})
    im.pred_tile = np.array([0.9, 0.3])
    assert labelled_tile_reads(im.above(0.5)).tolist() == [1] + [MISSED] * 5


def test_tile_fates_say_which_tiles_a_reader_gained_lost_or_read_differently():
    base = report.SetReading("s", True, [_photo({0: 0, 1: 1, 2: 0, 3: 3})], 0.5)
    cand = report.SetReading("s", True, [_photo({0: 5, 1: 1, 2: 2, 4: 4, 5: 0}, extra=1)], 0.5)
    f = report.tile_fates(base, cand)
    assert (f["new_right"], f["new_wrong"]) == (1, 1)  # tile 4 right, tile 5 wrong
    assert (f["lost_right"], f["lost_wrong"]) == (1, 0)  # tile 3
    assert (f["right_to_wrong"], f["wrong_to_right"]) == (1, 1)  # tile 0, tile 2
    assert (f["both"], f["both_right_base"], f["both_right_cand"]) == (3, 2, 2)
    same = report.tile_fates(base, base)
    assert same["both"] == 4 and sum(v for k, v in same.items() if not k.startswith("both")) == 0


def test_tile_fates_refuse_readings_of_different_photos():
    base = report.SetReading("s", True, [_photo({0: 0}, name="a")], 0.5)
    cand = report.SetReading("s", True, [_photo({0: 0}, name="b")], 0.5)
    with pytest.raises(ValueError, match="different photos"):
        report.tile_fates(base, cand)
