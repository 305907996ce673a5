"""OperatingPoint.mild_undistorted: a view squeezed back 2x shows its tiles in their own proportions,
so the rules that ask boxes' sizes and the frame's cuts read it as a photo as taken, with its boxes
as the detector saw them."""

from __future__ import annotations

import numpy as np

from tests.vision.read.test_mild_switch import MILD_TILES, PLAIN_TILES, SIDE, ViewDetector
from vision.read import detect as reader
from vision.read.operating_point import OperatingPoint

#: In the 2x view (384 x 192) a box the frame cuts, 35 x 20: longer than the tiles there (20 x 23,
#: long side 23) by half, so no part of a tile; in the squeezed photo it is 35 x 40 against tiles of
#: 20 x 46, and looks like one.
CUT_SHELF = (0, 100, 35, 120)


def _returned(mild_undistorted: float) -> int:
    detector = ViewDetector({(SIDE, SIDE): PLAIN_TILES, (SIDE, SIDE // 2): [*MILD_TILES, CUT_SHELF]})
    point = OperatingPoint(
        conf=0.55,
        tile_conf=0.55,
        mild_view=0.5,
        square_views=0.02,
        distorted_below=0.5,
        mild_switch=0.2,
        cut_bigger=0.3,
        mild_undistorted=mild_undistorted,
    )
    model = reader.TileModel(detector, None, point, SIDE, None, {})  # type: ignore[arg-type]
    return len(reader.detect(np.zeros((SIDE, SIDE, 3), np.uint8), model=model))


def test_cut_bigger_reads_the_2x_view_as_a_photo_as_taken():
    assert _returned(0.0) == len(MILD_TILES) + 1  # every model.json before it: no rule on sizes there
    assert _returned(1.0) == len(MILD_TILES)


def test_a_squeezed_back_view_gives_its_boxes_and_frame_as_the_detector_saw_them():
    boxes = np.array([[10.0, 100.0, 30.0, 146.0]])
    view = reader._ViewReading(
        boxes, np.ones(1), np.zeros(1, int), None, (1, 2), flowers=False, true_proportions=True
    )
    seen, frame = view.boxes_as_seen((384, 384))
    assert seen.tolist() == [[10.0, 50.0, 30.0, 73.0]] and frame == (384, 192)
    assert view.undistorted and not view.flowers  # flowers are still never called in it
    heavy = reader._ViewReading(boxes, np.ones(1), np.zeros(1, int), None, (1, 8), flowers=False)
    assert heavy.boxes_as_seen((384, 384))[0] is boxes and not heavy.undistorted


def test_only_the_mild_pair_is_read_in_its_own_proportions():
    detector = ViewDetector({})
    model = reader.TileModel(
        detector, None, OperatingPoint(mild_view=0.5, mild_undistorted=1.0), SIDE, None, {}
    )  # type: ignore[arg-type]
    mid = np.zeros((SIDE, SIDE, 3), np.uint8)
    read = {
        sq: reader._read_view(model, mid, 1.0, (SIDE, SIDE), sq, 0.5).true_proportions
        for sq in reader.aspect_views_of(model.op)
    }
    assert read == {
        (4, 1): False,
        (8, 1): False,
        (1, 4): False,
        (1, 8): False,
        (2.0, 1.0): True,
        (1.0, 2.0): True,
    }
    assert not reader._read_view(model, mid, 1.0, (SIDE, SIDE), (1, 1), 0.5).true_proportions
