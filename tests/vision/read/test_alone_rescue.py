"""A doubted box in no row is returned alone when it is the sure tiles' size and its face reads
surely (vision.read.row_rescue.alone_rescued; OperatingPoint.rescue_alone in vision.read.detect)."""

import numpy as np
import pytest

from tests.vision.read.test_learnt_detector import FakeDetector
from vision.classes import BACK_ID
from vision.read import detect as reader
from vision.read.operating_point import OperatingPoint
from vision.read.row_rescue import alone_rescued, near_a_tile

SIZE = (400, 300)
# Three sure tiles 30 x 40 px scattered on the felt, apart from each other (no row).
SURE = [[40, 150, 70, 190], [120, 160, 150, 200], [200, 140, 230, 180]]
LONE = [280, 150, 312, 192]  # a tile of their size, alone: let back
SPINE = [300, 20, 330, 110]  # as wide, but 90 high: a book spine on the shelf, not a tile's size
SMALL = [340, 160, 356, 180]  # half a tile's size: a tile far behind, or part of something
CUT = [385, 150, 400, 190]  # the frame cuts it: its size is not known
HALF_OF_SURE = [42, 152, 68, 188]  # a second box on a sure tile


def _alone(boxes, conf, low=0.25, point=0.55, cut=None, among=False, touching=False, near=False):
    conf = np.asarray(conf, float)
    sure = conf >= point
    return alone_rescued(
        np.asarray(boxes, float), conf, sure, low, cut=cut, among=among, touching=touching, near=near
    ).tolist()


def test_a_box_of_the_sure_tiles_size_comes_back_a_spine_or_a_small_box_does_not():
    boxes = [*SURE, LONE, SPINE, SMALL]
    assert _alone(boxes, [0.9, 0.9, 0.9, 0.4, 0.45, 0.5]) == [False] * 3 + [True, False, False]


def test_under_the_low_bar_or_on_a_kept_tile_it_stays_out():
    assert _alone([*SURE, LONE], [0.9, 0.9, 0.9, 0.2]) == [False] * 4
    assert _alone([*SURE, HALF_OF_SURE], [0.9, 0.9, 0.9, 0.5]) == [False] * 4


def test_two_boxes_on_one_tile_only_the_surer_comes_back():
    twin = [282, 152, 311, 191]
    assert _alone([*SURE, LONE, twin], [0.9, 0.9, 0.9, 0.3, 0.4]) == [False] * 4 + [True]


def test_too_few_sure_tiles_say_nothing_of_a_tiles_size():
    assert _alone([*SURE[:2], LONE], [0.9, 0.9, 0.4]) == [False] * 3


def test_a_box_the_frame_cuts_is_not_let_back_nor_a_size_to_compare_with():
    boxes = [*SURE, LONE, CUT]
    cut = np.array([False, False, False, False, True])
    assert _alone(boxes, [0.9, 0.9, 0.9, 0.4, 0.4], cut=cut) == [False] * 3 + [True, False]
    # the sure tiles left uncut are too few to know a tile's size
    cut_sure = np.array([True, False, False, False, False])
    assert _alone(boxes, [0.9, 0.9, 0.9, 0.4, 0.4], cut=cut_sure) == [False] * 5


def test_among_keeps_it_within_the_sure_tiles_extent():
    inside = [160, 145, 190, 185]  # between the sure tiles
    boxes = [*SURE, LONE, inside]
    assert _alone(boxes, [0.9, 0.9, 0.9, 0.4, 0.4]) == [False] * 3 + [True, True]
    assert _alone(boxes, [0.9, 0.9, 0.9, 0.4, 0.4], among=True) == [False] * 3 + [False, True]


def test_touching_lets_back_a_tile_at_the_groups_end_whose_centre_lies_beyond_it():
    # The sure tiles span x 40..230, y 140..200. A tile just past the right end: its centre at
    # x 240 lies beyond, its left edge at 225 reaches in. One just above them reaches in too.
    at_end = [225, 150, 255, 190]
    above = [120, 110, 150, 150]
    apart = [260, 150, 290, 190]  # its own width from the group: not touching
    boxes = [*SURE, at_end, above, apart]
    conf = [0.9, 0.9, 0.9, 0.4, 0.4, 0.4]
    assert _alone(boxes, conf, among=True) == [False] * 6
    assert _alone(boxes, conf, among=True, touching=True) == [False] * 3 + [True, True, False]
    # touching alone (without among) changes nothing: among is what it widens
    assert _alone(boxes, conf, touching=True) == _alone(boxes, conf)


def _probs(faces: list[tuple[int, float]]) -> np.ndarray:
    """Classifier outputs, one row per (face, probability): that face read that surely, the rest
    spread over the other faces, `other` (the last output) at 0."""
    probs = np.zeros((len(faces), reader.NUM_CLASSES + 1))
    for i, (k, p) in enumerate(faces):
        probs[i, :] = (1 - p) / (reader.NUM_CLASSES - 1)
        probs[i, k], probs[i, -1] = p, 0.0
    return probs


def _reading(face_of_lone: float, flowers: bool = True) -> reader._ViewReading:
    """SURE read surely (detector 0.9, face 0.95), LONE and SPINE doubted (detector 0.4), LONE's face
    read at `face_of_lone`, SPINE's at 0.99 (a classifier reads a spine's print surely)."""
    boxes = [*SURE, LONE, SPINE]
    probs = _probs(list(enumerate([0.95, 0.95, 0.95, face_of_lone, 0.99])))
    det = np.array([0.9, 0.9, 0.9, 0.4, 0.4])
    return reader._ViewReading(np.asarray(boxes, float), det, np.zeros(len(boxes)), probs, flowers=flowers)


@pytest.mark.parametrize(
    "alone, face, flowers, expected",
    [
        (0.0, 0.95, True, 3),  # off: the lone tile stays out, as in every model.json before it
        (0.9, 0.95, True, 4),  # its face reads surely: back, at the operating point
        (0.9, 0.8, True, 3),  # its face is read, but not surely enough to stand alone
        (0.9, 0.95, False, 3),  # a photo that looks distorted: boxes' sizes say nothing
    ],
)
def test_detect_lets_a_lone_tile_back_only_where_its_face_vouches_for_it(alone, face, flowers, expected):
    op = OperatingPoint(conf=0.55, tile_conf=0.55, row_rescue=0.25, rescue_face=0.5, rescue_alone=alone)
    tm = reader.TileModel(FakeDetector([]), None, op, 384, None, {})  # type: ignore[arg-type]
    found = reader._decide(tm, _reading(face, flowers), 0.55, size=SIZE)
    assert len(found) == expected
    assert all(d.xyxy[1] > 100 for d in found)  # never the spine, sure of its face as it is
    if expected == 4:
        lone = [d for d in found if d.xyxy[0] == LONE[0]]
        assert [d.tile_conf for d in lone] == [pytest.approx(0.55)]


def test_without_the_row_rescue_nothing_comes_back_alone():
    op = OperatingPoint(conf=0.55, tile_conf=0.55, rescue_alone=0.9)
    tm = reader.TileModel(FakeDetector([]), None, op, 384, None, {})  # type: ignore[arg-type]
    assert len(reader._decide(tm, _reading(0.95), 0.55, size=SIZE)) == 3


def test_model_json_carries_it_and_older_ones_read_as_off():
    assert OperatingPoint.from_json({"conf": 0.5, "tile_conf": 0.5}).rescue_alone == 0.0
    op = OperatingPoint.from_json(
        {"conf": 0.5, "tile_conf": 0.5, "rescue_alone": 0.9, "rescue_alone_among": 1}
    )
    assert (op.rescue_alone, op.rescue_alone_among) == (0.9, 1.0)
    with pytest.raises(ValueError, match="rescue_alone"):
        OperatingPoint.from_json({"conf": 0.5, "tile_conf": 0.5, "rescue_alone": 2})


def _decide_beside_the_sure_tiles(box: list[int], face: float = 0.95, cls: int = 3, **keys: float) -> int:
    """How many tiles _decide returns of SURE (detector 0.9, faces 0-2 read 95 % surely) and `box`
    (detector 0.4, its face `cls` read `face` surely), under the shipped alone rescue with `keys`
    on top."""
    boxes = np.asarray([*SURE, box], float)
    probs = _probs([(0, 0.95), (1, 0.95), (2, 0.95), (cls, face)])
    reading = reader._ViewReading(boxes, np.array([0.9, 0.9, 0.9, 0.4]), np.zeros(4), probs, flowers=True)
    op = OperatingPoint(
        conf=0.55,
        tile_conf=0.55,
        row_rescue=0.25,
        rescue_face=0.5,
        rescue_three=1.0,  # as shipped: the sure tiles beside it make no row of three with it
        rescue_alone=0.9,
        rescue_alone_among=1.0,
        **keys,
    )
    tm = reader.TileModel(FakeDetector([]), None, op, 384, None, {})  # type: ignore[arg-type]
    return len(reader._decide(tm, reading, 0.55, size=SIZE))


@pytest.mark.parametrize("touching, expected", [(0.0, 3), (1.0, 4)])
def test_detect_lets_back_a_tile_at_the_groups_end_only_with_touching(touching, expected):
    at_end = [225, 150, 255, 190]  # its centre beyond the sure tiles' extent, its edge within it
    assert _decide_beside_the_sure_tiles(at_end, rescue_alone_touching=touching) == expected


def test_near_a_tile_means_no_tile_would_fit_between():
    tiles = np.asarray(SURE, float)  # 30 x 40 px: a tile's short side is 30
    boxes = np.asarray(
        [
            [235, 150, 265, 190],  # 5 px right of the last sure tile
            [259, 150, 289, 190],  # 29 px right: less than a tile
            [260, 150, 290, 190],  # 30 px right: a tile would fit
            [120, 229, 150, 269],  # 29 px under the middle tile
            [250, 200, 280, 240],  # past a corner: 20 px right and 20 down, 28 px straight
            [255, 205, 285, 245],  # 25 and 25: 35 px straight
            [130, 170, 160, 210],  # overlapping a sure tile: no gap
        ],
        float,
    )
    assert near_a_tile(boxes, tiles).tolist() == [True, True, False, True, True, False, True]
    assert near_a_tile(boxes, np.zeros((0, 4))).tolist() == [False] * len(boxes)


def test_near_lets_back_a_tile_a_little_apart_from_the_group():
    # The sure tiles span x 40..230, y 140..200. A tile 5 px past the right end: its left edge at
    # 235 lies beyond the extent, so neither among nor touching lets it back; near does. A tile
    # its own width away does not come back, nor one of another size.
    apart_a_little = [235, 150, 265, 190]
    apart = [260, 150, 290, 190]
    small_near = [235, 160, 251, 180]
    boxes = [*SURE, apart_a_little, apart, small_near]
    conf = [0.9, 0.9, 0.9, 0.4, 0.4, 0.4]
    assert _alone(boxes, conf, among=True, touching=True) == [False] * 6
    assert _alone(boxes, conf, among=True, touching=True, near=True) == [False] * 3 + [True, False, False]
    # near without among changes nothing: among is what it widens
    assert _alone(boxes, conf, near=True) == _alone(boxes, conf)


@pytest.mark.parametrize("near, expected", [(0.0, 3), (1.0, 4)])
def test_detect_lets_back_a_tile_a_little_apart_only_with_near(near, expected):
    apart_a_little = [235, 150, 265, 190]
    keys = {"rescue_alone_touching": 1.0, "rescue_alone_near": near}
    assert _decide_beside_the_sure_tiles(apart_a_little, **keys) == expected


@pytest.mark.parametrize(
    "box, face, near_face, expected",
    [
        ([235, 150, 265, 190], 0.87, 0.0, 3),  # beside the group, its face under rescue_alone: out
        ([235, 150, 265, 190], 0.87, 0.85, 4),  # with rescue_near_face, beside the group: back
        ([235, 150, 265, 190], 0.8, 0.85, 3),  # under that bar too: out
        ([260, 150, 290, 190], 0.87, 0.85, 3),  # a tile's width from the group: out
        ([260, 150, 290, 190], 0.95, 0.85, 3),  # even read surely: neither among, touching nor near
    ],
)
def test_near_face_lowers_the_face_bar_only_beside_a_sure_tile(box, face, near_face, expected):
    keys = {"rescue_alone_touching": 1.0, "rescue_alone_near": 1.0, "rescue_near_face": near_face}
    assert _decide_beside_the_sure_tiles(box, face, **keys) == expected


@pytest.mark.parametrize(
    "cls, faces, expected",
    [
        (BACK_ID, 0.0, 4),  # as before the key: a surely read back comes back like any face
        (BACK_ID, 1.0, 3),  # a back is no face to vouch for a box: out
        (3, 1.0, 4),  # any other face still does
    ],
)
def test_a_box_read_as_a_tiles_back_is_not_let_back_alone(cls, faces, expected):
    keys = {"rescue_alone_touching": 1.0, "rescue_alone_near": 1.0, "rescue_alone_faces": faces}
    assert _decide_beside_the_sure_tiles([235, 150, 265, 190], 0.95, cls, **keys) == expected
