"""OperatingPoint.pair_flowers and pair_pooled: a square photo that does not look distorted is a
photo as taken, so the 2x pair that square_pair reads keeps the plain view's flower rules, and with
pair_pooled the pair only adds the boxes the plain reading lacks."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.read.classifier_stand_in import reading_as
from tests.vision.read.test_mild_switch import MILD_TILES, PLAIN_TILES, SIDE, ViewDetector
from vision.classes import FLOWER_ID, NUM_CLASSES
from vision.read import detect as reader
from vision.read.operating_point import OperatingPoint

#: square_pair's path with the crops cut as in the photo (stop 59's "pairtaken").
PAIR = {"mild_even": 1.0, "square_pair": 1.0, "pair_as_taken": 1.0}
#: The plain view's five tiles, two pixels to the left of where the 2x view puts them: the same
#: tiles (IoU far above the NMS IoU), but the returned boxes say which view's box stands.
SHIFTED = [(x0 - 2, y0, x1 - 2, y1) for x0, y0, x1, y1 in PLAIN_TILES]


def _photo(flowers: bool) -> np.ndarray:
    """A square photo, dark but, with `flowers`, for the two tiles only the 2x view boxes
    (MILD_TILES[5:], in the photo's pixels twice as high), painted bright: the fake classifier
    reads those as flowers."""
    photo = np.zeros((SIDE, SIDE, 3), np.uint8)
    for x0, y0, x1, y1 in MILD_TILES[5:] if flowers else []:
        photo[y0 * 2 : y1 * 2, x0:x1] = 255
    return photo


def _faces(classifier, crops, tta_below):  # noqa: ARG001 - classify_crops' signature
    """A classifier with a flower output: a bright crop reads as a flower more than as its best
    face (1m), any other reads 1m."""
    probs = np.zeros((len(crops), FLOWER_ID + 1))
    bright = np.asarray(crops).reshape(len(crops), -1).mean(1) > 100
    probs[bright, FLOWER_ID] = 0.65
    probs[:, 0] = np.where(bright, 0.3, 0.95)
    probs[:, NUM_CLASSES] = 0.05  # `other`
    return probs


def _returned(monkeypatch, plain=PLAIN_TILES, flowers: bool = True, **op: float) -> list[reader.Detection]:
    """What the reader returns of _photo(flowers), its plain view showing `plain`, its 2x view
    MILD_TILES."""
    monkeypatch.setattr(reader, "read_crops", reading_as(_faces))
    detector = ViewDetector({(SIDE, SIDE): plain, (SIDE, SIDE // 2): MILD_TILES})
    point = OperatingPoint(conf=0.55, tile_conf=0.55, mild_view=0.5, square_views=0.02, **op)
    model = reader.TileModel(detector, object(), point, SIDE, None, {})  # type: ignore[arg-type]
    return reader.detect(_photo(flowers), model=model)


def test_without_pair_flowers_the_pairs_flower_tiles_are_returned_as_tiles(monkeypatch):
    """Every aspect view is read with flowers=False: the 2x view's seven boxes read more than the
    plain view's five, and its two flowers come back as tiles (g4's extra boxes, stop 59)."""
    assert len(_returned(monkeypatch, **PAIR)) == len(MILD_TILES)


def test_with_pair_flowers_the_pair_calls_a_flower_as_the_plain_view_does(monkeypatch):
    returned = _returned(monkeypatch, pair_flowers=1.0, **PAIR)
    assert len(returned) == len(PLAIN_TILES)
    assert all(d.xyxy[0] < MILD_TILES[5][0] for d in returned)  # neither flower


def test_pair_flowers_leaves_a_square_that_looks_distorted_without_flowers(monkeypatch):
    """A square whose tiles look distorted may be a stretched export, whose blurred tiles read as
    flowers (stop 36): no view of it calls one, with pair_flowers or not."""
    keys = {**PAIR, "distorted_below": 0.5}
    assert len(_returned(monkeypatch, pair_flowers=1.0, **keys)) == len(MILD_TILES)
    assert len(_returned(monkeypatch, **keys)) == len(MILD_TILES)


def test_with_pair_pooled_the_plain_views_boxes_stand_and_the_pair_adds_what_they_lack(monkeypatch):
    """The plain view's boxes are SHIFTED two pixels from the 2x view's: replaced, the pair's boxes
    come back; pooled, the plain view's five stand and the pair adds its other two."""
    replaced = sorted(d.xyxy[0] for d in _returned(monkeypatch, SHIFTED, False, **PAIR))
    assert replaced == pytest.approx([b[0] for b in MILD_TILES], abs=0.5)
    pooled = sorted(d.xyxy[0] for d in _returned(monkeypatch, SHIFTED, False, pair_pooled=1.0, **PAIR))
    assert pooled == pytest.approx([b[0] for b in SHIFTED] + [b[0] for b in MILD_TILES[5:]], abs=0.5)


@pytest.mark.parametrize("pair_flowers", [0.0, 1.0])
def test_pair_pooled_adds_no_flower(monkeypatch, pair_flowers):
    """Pooled boxes join the plain reading and its flower rules: whether the pair read its two
    flowers as tiles (kept, pooled, then called flowers) or as flowers (not kept), the plain
    view's five boxes are all that is returned."""
    returned = _returned(monkeypatch, SHIFTED, pair_pooled=1.0, pair_flowers=pair_flowers, **PAIR)
    assert sorted(d.xyxy[0] for d in returned) == pytest.approx([b[0] for b in SHIFTED], abs=0.5)
