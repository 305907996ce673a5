"""Where the detector doubts a whole photo (fewer than three sure tiles), the doubted boxes whose faces
read surely come back when they make three tiles or more of one size
(vision.read.row_rescue.unsure_photo_rescued; OperatingPoint.rescue_unsure in vision.read.detect)."""

import numpy as np
import pytest

from tests.vision.read.test_learnt_detector import FakeDetector
from vision.read import detect as reader
from vision.read.operating_point import OperatingPoint
from vision.read.row_rescue import unsure_photo_rescued

SIZE = (400, 300)
# Four tiles 30 x 40 px standing apart on the felt, none in a row with another.
APART = [[40, 150, 70, 190], [120, 170, 150, 210], [200, 140, 230, 180], [280, 160, 311, 201]]
SPINE = [300, 20, 330, 110]  # as wide, but 90 high: a book spine on the shelf
CUT = [385, 150, 400, 190]  # the frame cuts it: its size is not known
TWIN = [42, 152, 69, 189]  # a second box on the first tile


def _unsure(boxes, conf, low=0.25, point=0.55, cut=None):
    conf = np.asarray(conf, float)
    return unsure_photo_rescued(np.asarray(boxes, float), conf, conf >= point, low, cut=cut).tolist()


def test_with_no_sure_tile_boxes_of_one_size_come_back_a_spine_does_not():
    boxes = [*APART, SPINE]
    assert _unsure(boxes, [0.4, 0.45, 0.3, 0.5, 0.5]) == [True] * 4 + [False]


def test_one_or_two_sure_tiles_join_the_group():
    assert _unsure(APART, [0.9, 0.4, 0.3, 0.5]) == [False, True, True, True]
    assert _unsure(APART[:3], [0.9, 0.9, 0.3]) == [False, False, True]


def test_with_three_sure_tiles_the_other_rescues_decide_and_this_one_does_nothing():
    assert _unsure(APART, [0.9, 0.9, 0.9, 0.4]) == [False] * 4


def test_fewer_than_three_tiles_in_all_are_no_evidence_of_one_print():
    assert _unsure(APART[:2], [0.4, 0.4]) == [False, False]
    assert _unsure([*APART[:2], SPINE], [0.4, 0.4, 0.4]) == [False] * 3  # the spine is not their size
    assert _unsure(APART[:3], [0.4, 0.4, 0.2]) == [False] * 3  # the third is under the low bar


def test_a_second_box_on_a_tile_and_a_box_the_frame_cuts_stay_out():
    boxes = [*APART, TWIN, CUT]
    cut = np.array([False] * 5 + [True])
    assert _unsure(boxes, [0.4, 0.4, 0.4, 0.4, 0.35, 0.5], cut=cut) == [True] * 4 + [False, False]


def _reading(faces: list[float], flowers: bool = True) -> reader._ViewReading:
    """APART and SPINE all doubted by the detector (0.4); each face read at `faces`."""
    boxes = [*APART, SPINE]
    probs = np.zeros((len(boxes), reader.NUM_CLASSES + 1))
    for i, p in enumerate(faces):
        probs[i, :] = (1 - p) / (reader.NUM_CLASSES - 1)
        probs[i, i], probs[i, -1] = p, 0.0
    det = np.full(len(boxes), 0.4)
    return reader._ViewReading(np.asarray(boxes, float), det, np.zeros(len(boxes)), probs, flowers=flowers)


@pytest.mark.parametrize(
    "unsure, faces, flowers, expected",
    [
        (0.0, [0.95] * 5, True, 0),  # off: the photo reads no tile, as in every model.json before it
        (1.0, [0.95] * 5, True, 4),  # the four tiles, at the operating point; never the spine
        (1.0, [0.95, 0.95, 0.8, 0.8, 0.99], True, 0),  # two sure faces: too few to be a hand
        (1.0, [0.95, 0.95, 0.95, 0.8, 0.99], True, 3),  # a face under rescue_alone stays out
        (1.0, [0.95] * 5, False, 0),  # a photo that looks distorted: boxes' sizes say nothing
    ],
)
def test_detect_reads_a_photo_it_doubts_only_where_faces_and_sizes_agree(unsure, faces, flowers, expected):
    op = OperatingPoint(
        conf=0.55, tile_conf=0.55, row_rescue=0.25, rescue_face=0.5, rescue_alone=0.9, rescue_unsure=unsure
    )
    tm = reader.TileModel(FakeDetector([]), None, op, 384, None, {})  # type: ignore[arg-type]
    found = reader._decide(tm, _reading(faces, flowers), 0.55, size=SIZE)
    assert len(found) == expected
    assert all(d.xyxy[1] > 100 for d in found)
    assert all(d.tile_conf == pytest.approx(0.55) for d in found)


def test_model_json_carries_it_and_older_ones_read_as_off():
    assert OperatingPoint.from_json({"conf": 0.5, "tile_conf": 0.5}).rescue_unsure == 0.0
    assert OperatingPoint.from_json({"conf": 0.5, "tile_conf": 0.5, "rescue_unsure": 1}).rescue_unsure == 1.0
    with pytest.raises(ValueError, match="rescue_unsure"):
        OperatingPoint.from_json({"conf": 0.5, "tile_conf": 0.5, "rescue_unsure": 2})
