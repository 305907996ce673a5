"""A box the frame cuts that is bigger than the whole tiles beside it is no tile (OperatingPoint.
cut_bigger): a book spine on the shelf above the table, read surely as a tile."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.vision.read.test_learnt_detector import FakeDetector
from vision.read import detect as reader
from vision.read.operating_point import OperatingPoint
from vision.read.row_rescue import too_big_for_a_cut_tile

SIZE = (400, 300)
WHOLE = [[100, 150, 130, 190], [131, 150, 161, 190], [162, 150, 192, 190], [193, 150, 223, 190]]  # 40 long
SPINE = [250, 0, 280, 70]  # cut by the top edge, 70 long: 1.75 x the whole tiles
PART = [393, 150, 400, 190]  # a tile running off the right edge: cut, 40 long, no bigger
NEARER = [300, 250, 335, 300]  # cut by the bottom edge, 50 long: 1.25 x, a nearer tile


def test_only_a_cut_box_bigger_than_the_whole_ones_is_too_big():
    boxes = np.asarray([*WHOLE, SPINE, PART, NEARER], float)
    assert too_big_for_a_cut_tile(boxes, SIZE, 0.3).tolist() == [False] * 4 + [True, False, False]
    assert too_big_for_a_cut_tile(boxes, SIZE, 0.2).tolist() == [False] * 4 + [True, False, True]
    assert not too_big_for_a_cut_tile(boxes, SIZE, 0.0).any()  # off


def test_too_few_whole_boxes_say_nothing_of_a_tiles_size():
    boxes = np.asarray([*WHOLE[:2], SPINE], float)
    assert not too_big_for_a_cut_tile(boxes, SIZE, 0.3).any()


def _reading(boxes: list[list[int]]) -> reader._ViewReading:
    """Every box a sure tile with a sure face (detector 0.9, its own face at 0.95)."""
    n = len(boxes)
    probs = np.full((n, reader.NUM_CLASSES + 1), 0.05 / (reader.NUM_CLASSES - 1))
    for i in range(n):
        probs[i, i], probs[i, -1] = 0.95, 0.0
    return reader._ViewReading(np.asarray(boxes, float), np.full(n, 0.9), np.zeros(n), probs)


@pytest.mark.parametrize(("cut_bigger", "size", "expected"), [(0.3, SIZE, 5), (0.0, SIZE, 6), (0.3, None, 6)])
def test_decide_drops_the_spine_and_keeps_the_part_tile(cut_bigger, size, expected):
    op = OperatingPoint(conf=0.55, tile_conf=0.55, cut_bigger=cut_bigger)
    tm = reader.TileModel(FakeDetector([]), None, op, 384, None, {})  # type: ignore[arg-type]
    found = reader._decide(tm, _reading([*WHOLE, SPINE, PART]), 0.55, size=size)
    assert len(found) == expected
    if expected == 5:
        assert all(d.xyxy[1] > 0 for d in found)  # the spine at the top is the one left out
    assert len(reader._decide(tm, _reading([*WHOLE, SPINE, PART]), 0.01, size=size)) == expected


def test_a_photo_that_looks_distorted_keeps_its_boxes():
    """A stretched export's tiles span its frame, each cut and longer than the few boxes left whole
    (val, stop 54: the rule without this guard dropped 8 real tiles of one such photo)."""
    op = OperatingPoint(conf=0.55, tile_conf=0.55, cut_bigger=0.3)
    tm = reader.TileModel(FakeDetector([]), None, op, 384, None, {})  # type: ignore[arg-type]
    reading = replace(_reading([*WHOLE, SPINE, PART]), flowers=False)
    assert len(reader._decide(tm, reading, 0.55, size=SIZE)) == 6


def test_model_json_carries_it_and_older_ones_read_as_off():
    assert OperatingPoint.from_json({"conf": 0.5, "tile_conf": 0.5}).cut_bigger == 0.0
    assert OperatingPoint.from_json({"conf": 0.5, "tile_conf": 0.5, "cut_bigger": 0.3}).cut_bigger == 0.3
    with pytest.raises(ValueError, match="cut_bigger"):
        OperatingPoint.from_json({"conf": 0.5, "tile_conf": 0.5, "cut_bigger": 1.5})
