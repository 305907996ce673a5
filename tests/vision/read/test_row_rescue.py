"""A box the detector doubts is returned when it continues a row (or column) of sure tiles, and only
then (vision.read.row_rescue, applied by vision.read.detect where OperatingPoint.row_rescue asks)."""

from dataclasses import replace

import numpy as np
import pytest

from tests.vision.read.test_learnt_detector import FakeDetector
from vision.read import detect as reader
from vision.read.operating_point import OperatingPoint
from vision.read.row_rescue import cut_by_frame, rescued

# Four standing tiles 30 x 40 px side by side, then one alone far to the right.
ROW = [[0, 0, 30, 40], [31, 0, 61, 40], [62, 2, 92, 42], [93, 0, 123, 40]]
ALONE = [300, 0, 330, 40]


def _rescued(boxes, conf, low=0.25, point=0.55):
    conf = np.asarray(conf, float)
    return rescued(np.asarray(boxes, float), conf, conf >= point, low).tolist()


def test_doubted_tiles_touching_a_sure_one_on_its_line_are_rescued_in_a_chain():
    # the third tile touches only the second, which is rescued first: the chain carries it
    assert _rescued(ROW, [0.9, 0.4, 0.3, 0.26]) == [False, True, True, True]


def test_a_box_alone_and_a_box_under_the_low_bar_stay_out():
    assert _rescued([*ROW[:2], ALONE], [0.9, 0.2, 0.5]) == [False, False, False]


def test_a_box_of_another_size_or_on_another_line_is_not_a_neighbour():
    laid_across = [31, 0, 71, 28]  # 28 px high beside a 40 px tile: a meld's turned tile, not this row
    lower = [31, 25, 61, 65]  # touching, but shares 15 of 40 px across the line
    assert _rescued([ROW[0], laid_across], [0.9, 0.4]) == [False, False]
    assert _rescued([ROW[0], lower], [0.9, 0.4]) == [False, False]


def test_a_column_counts_like_a_row():
    column = [[0, 0, 40, 30], [0, 32, 40, 62], [1, 63, 41, 93]]
    assert _rescued(column, [0.9, 0.3, 0.3]) == [False, True, True]


def test_a_second_box_on_a_kept_tile_or_on_a_rescued_one_is_not_rescued():
    half_of_first = [5, 2, 28, 38]
    twin = [32, 1, 60, 39]  # the rescued second tile, boxed again a little smaller and less sure
    found = _rescued([ROW[0], ROW[1], half_of_first, twin], [0.9, 0.4, 0.45, 0.35])
    assert found == [False, True, False, False]


def test_nothing_is_rescued_without_a_sure_tile():
    assert _rescued(ROW, [0.5, 0.5, 0.5, 0.5]) == [False] * 4


def _model(row_rescue: float) -> reader.TileModel:
    rows = [(*ROW[0], 0.9), (*ROW[1], 0.9), (*ROW[2], 0.3), (*ALONE, 0.4), (150, 0, 180, 40, 0.1)]
    op = OperatingPoint(conf=0.55, tile_conf=0.55, row_rescue=row_rescue)
    return reader.TileModel(FakeDetector(rows), None, op, 384, None, {})  # type: ignore[arg-type]


@pytest.mark.parametrize("row_rescue, expected", [(0.0, 2), (0.25, 3)])
def test_detect_at_the_operating_point_returns_the_rescued_tile_at_the_point(row_rescue, expected):
    image = np.zeros((100, 384, 3), np.uint8)
    found = reader.detect(image, model=_model(row_rescue))
    assert len(found) == expected
    if row_rescue:
        third = [d for d in found if d.xyxy[0] == 62]
        assert [d.tile_conf for d in third] == [pytest.approx(0.55)]
    # at a low threshold the lone box and the faint one come back at their own confidence
    low = {d.xyxy[0]: d.tile_conf for d in reader.detect(image, conf=0.05, model=_model(row_rescue))}
    assert low[300] == pytest.approx(0.4) and low[150] == pytest.approx(0.1)


def _reading_with_faces(sure_of_face: list[float]) -> reader._ViewReading:
    """ROW read by a classifier: each box's best face at the given probability (the rest spread
    evenly over the other 34 faces), no `other` mass; detector 0.9, 0.9, then 0.4 for the rest."""
    n = len(sure_of_face)
    probs = np.zeros((n, reader.NUM_CLASSES + 1))
    for i, p in enumerate(sure_of_face):
        probs[i, :] = (1 - p) / (reader.NUM_CLASSES - 1)
        probs[i, i], probs[i, -1] = p, 0.0
    det = np.array([0.9, 0.9, 0.4, 0.4][:n])
    return reader._ViewReading(np.asarray(ROW[:n], float), det, np.zeros(n), probs)


@pytest.mark.parametrize(
    "rescue_face, faces, expected",
    [
        (0.0, [0.99, 0.99, 0.2, 0.9], 4),  # no gate: a box unsure of its face is rescued too
        (0.5, [0.99, 0.99, 0.9, 0.9], 4),  # both doubted boxes read a face surely
        (0.5, [0.99, 0.99, 0.9, 0.2], 3),  # the last one's face is a guess: it stays out
        # the chain stops at the unsure box; the sure one beyond it stands alone
        (0.5, [0.99, 0.99, 0.2, 0.9], 2),
    ],
)
def test_rescue_face_lets_back_only_a_box_whose_face_the_reader_is_sure_of(rescue_face, faces, expected):
    op = OperatingPoint(conf=0.55, tile_conf=0.55, row_rescue=0.25, rescue_face=rescue_face)
    tm = reader.TileModel(FakeDetector([]), None, op, 384, None, {})  # type: ignore[arg-type]
    found = reader._decide(tm, _reading_with_faces(faces), 0.55)
    assert len(found) == expected


def test_gaps_only_fills_a_hole_in_a_row_and_never_lengthens_it():
    row = [*ROW, [124, 0, 154, 40]]  # five tiles side by side
    conf = np.array([0.9, 0.4, 0.9, 0.9, 0.4])  # the second missing inside the row, the fifth at its end
    sure = conf >= 0.55
    assert rescued(np.asarray(row, float), conf, sure, 0.25).tolist() == [False, True, False, False, True]
    gaps = rescued(np.asarray(row, float), conf, sure, 0.25, gaps_only=True).tolist()
    assert gaps == [False, True, False, False, False]
    # two missing side by side inside a row: the chain fills both, each with sure tiles on both sides
    two = np.array([0.9, 0.4, 0.35, 0.9, 0.9])
    assert rescued(np.asarray(row, float), two, two >= 0.55, 0.25, gaps_only=True).tolist() == [
        False, True, True, False, False,
    ]  # fmt: skip


def _reading_with_flowers(flower: list[float], flowers: bool = True) -> reader._ViewReading:
    """ROW read by a classifier with `other` and `flower` outputs: each box's face (its own index)
    at 0.9 of what is not flower, and the flower output at the given probability."""
    n = len(flower)
    probs = np.zeros((n, reader.FLOWER_ID + 1))
    for i, f in enumerate(flower):
        probs[i, : reader.NUM_CLASSES] = (1 - f) * 0.1 / (reader.NUM_CLASSES - 1)
        probs[i, i], probs[i, reader.FLOWER_ID] = (1 - f) * 0.9, f
    det = np.array([0.9, 0.9, 0.4, 0.4][:n])
    return reader._ViewReading(np.asarray(ROW[:n], float), det, np.zeros(n), probs, flowers=flowers)


@pytest.mark.parametrize(
    "rescue_flower, flower, flowers, expected",
    [
        (0.0, [0.0, 0.0, 0.3, 0.01], True, 4),  # no gate: a box that leans to a flower comes back
        (0.25, [0.0, 0.0, 0.01, 0.02], True, 4),  # both doubted boxes read little flower
        (0.25, [0.0, 0.0, 0.01, 0.3], True, 3),  # the last one leans to a flower: it stays out
        (0.25, [0.0, 0.0, 0.3, 0.01], True, 2),  # the chain stops at it
        (0.25, [0.0, 0.0, 0.3, 0.3], False, 4),  # a distorted photo calls nothing a flower: no gate
    ],
)
def test_rescue_flower_keeps_out_a_doubted_box_that_reads_as_a_flower(
    rescue_flower, flower, flowers, expected
):
    op = OperatingPoint(conf=0.55, tile_conf=0.55, row_rescue=0.25, rescue_flower=rescue_flower)
    tm = reader.TileModel(FakeDetector([]), None, op, 384, None, {})  # type: ignore[arg-type]
    found = reader._decide(tm, _reading_with_flowers(flower, flowers), 0.55)
    assert len(found) == expected


def test_rescue_flower_does_nothing_without_a_flower_output():
    op = OperatingPoint(conf=0.55, tile_conf=0.55, row_rescue=0.25, rescue_flower=0.25)
    tm = reader.TileModel(FakeDetector([]), None, op, 384, None, {})  # type: ignore[arg-type]
    assert len(reader._decide(tm, _reading_with_faces([0.99, 0.99, 0.9, 0.9]), 0.55)) == 4


def test_a_box_cut_by_the_frame_is_neither_rescued_nor_a_line_to_rescue_from():
    """A shelf at the top of a photo: a kept spine cut by the frame's top edge must not carry the
    rescue along the shelf, and a doubted box cut by the frame has no size to compare."""
    size = (400, 300)
    shelf = [[0, 0, 30, 40], [31, 0, 61, 40], [62, 0, 92, 40]]  # all cut by the top edge
    conf = np.array([0.9, 0.4, 0.4])
    cut = cut_by_frame(np.asarray(shelf, float), size, 0.01)
    assert cut.tolist() == [True, True, True]
    assert rescued(np.asarray(shelf, float), conf, conf >= 0.55, 0.25).tolist() == [False, True, True]
    assert rescued(np.asarray(shelf, float), conf, conf >= 0.55, 0.25, cut=cut).tolist() == [False] * 3
    # a row in the middle of the photo, its last tile running off the right edge
    row = [[300, 100, 330, 140], [331, 100, 361, 140], [362, 100, 392, 140], [393, 100, 400, 140]]
    conf = np.array([0.9, 0.4, 0.4, 0.4])
    cut = cut_by_frame(np.asarray(row, float), size, 0.01)
    assert cut.tolist() == [False, False, False, True]
    found = rescued(np.asarray(row, float), conf, conf >= 0.55, 0.25, cut=cut).tolist()
    assert found == [False, True, True, False]
    # a kept box cut by the frame still blocks a second box on top of it
    both = np.asarray([[0, 0, 30, 40], [1, 0, 29, 39], [31, 0, 61, 40]], float)
    conf = np.array([0.9, 0.5, 0.9])
    cut = cut_by_frame(both, size, 0.01)
    assert rescued(both, conf, conf >= 0.55, 0.25, cut=cut).tolist() == [False, False, False]


def test_margin_is_a_share_of_each_side():
    boxes = np.asarray([[5, 100, 50, 150], [100, 5, 150, 50], [100, 100, 150, 150]], float)
    assert cut_by_frame(boxes, (1000, 200), 0.01).tolist() == [True, False, False]  # 10 px, 2 px
    assert cut_by_frame(boxes, (200, 1000), 0.01).tolist() == [False, True, False]


@pytest.mark.parametrize("uncut, flowers, expected", [(0.0, True, 4), (0.01, True, 2), (0.01, False, 4)])
def test_detect_takes_the_guard_where_the_photo_does_not_look_distorted(uncut, flowers, expected):
    """ROW touches the top of a 400 x 300 photo: with rescue_uncut its doubted boxes stay out,
    unless the photo looks distorted (a stretched export's tiles span its frame)."""
    op = OperatingPoint(conf=0.55, tile_conf=0.55, row_rescue=0.25, rescue_face=0.5, rescue_uncut=uncut)
    tm = reader.TileModel(FakeDetector([]), None, op, 384, None, {})  # type: ignore[arg-type]
    reading = replace(_reading_with_faces([0.99, 0.99, 0.9, 0.9]), flowers=flowers)
    assert len(reader._decide(tm, reading, 0.55, size=(400, 300))) == expected
    assert len(reader._decide(tm, reading, 0.55)) == 4  # no size known: no guard


@pytest.mark.parametrize(
    "rescue_gate, gate, flowers, expected",
    [
        (0.0, [0.0, 0.0, 0.6, 0.1], True, 4),  # no guard: a box the gate leans to a flower comes back
        (0.5, [0.0, 0.0, 0.1, 0.2], True, 4),  # both doubted boxes read as tiles
        (0.5, [0.0, 0.0, 0.1, 0.6], True, 3),  # the last one leans to a flower: it stays out
        (0.5, [0.0, 0.0, 0.6, 0.1], True, 2),  # the chain stops at it
        (0.5, [0.0, 0.0, 0.6, 0.6], False, 4),  # a distorted photo calls nothing a flower
    ],
)
def test_rescue_gate_keeps_a_box_the_flower_gate_leans_to_out_of_the_rescue(
    rescue_gate, gate, flowers, expected
):
    """The gate's bar for a sure box (flower_gate_at_least, here 0.9) is not reached, yet a doubted
    box it reads more as a flower than as a tile is not let back by its neighbours."""
    op = OperatingPoint(conf=0.55, tile_conf=0.55, row_rescue=0.25, rescue_face=0.5, rescue_gate=rescue_gate)
    tm = reader.TileModel(FakeDetector([]), None, op, 384, None, {})  # type: ignore[arg-type]
    reading = replace(
        _reading_with_faces([0.99, 0.99, 0.9, 0.9]), flowers=flowers, gate=np.asarray(gate), gate_at_least=0.9
    )
    assert len(reader._decide(tm, reading, 0.55)) == expected


def test_three_asks_for_a_line_of_three_not_two_boxes_touching_by_chance():
    conf = np.array([0.9, 0.4])
    pair = np.asarray(ROW[:2], float)  # a sure box and a doubted one touching: a pile does that
    assert rescued(pair, conf, conf >= 0.55, 0.25).tolist() == [False, True]
    assert rescued(pair, conf, conf >= 0.55, 0.25, three=True).tolist() == [False, False]
    # at a row's end: the sure neighbour has a sure neighbour of its own on the same line
    end = np.array([0.9, 0.9, 0.4])
    assert rescued(np.asarray(ROW[:3], float), end, end >= 0.55, 0.25, three=True).tolist() == [
        False,
        False,
        True,
    ]
    # in a gap: the doubted box touches a sure box on each side
    gap = np.array([0.9, 0.4, 0.9])
    assert rescued(np.asarray(ROW[:3], float), gap, gap >= 0.55, 0.25, three=True).tolist() == [
        False,
        True,
        False,
    ]
    # a third box on another axis (below the sure one) makes no line with the pair
    corner = np.asarray([ROW[0], ROW[1], [0, 41, 30, 81]], float)
    bent = np.array([0.9, 0.4, 0.9])
    assert rescued(corner, bent, bent >= 0.55, 0.25, three=True).tolist() == [False, False, False]
    # once rescued, a box carries the line on: a sure tile, then two doubted ones
    chain = np.array([0.9, 0.9, 0.4, 0.3])
    assert rescued(np.asarray(ROW, float), chain, chain >= 0.55, 0.25, three=True).tolist() == [
        False, False, True, True,
    ]  # fmt: skip
