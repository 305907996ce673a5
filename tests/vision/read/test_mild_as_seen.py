"""In the mild pair of aspect views a box's crop is turned by its shape as the detector saw it, and
never read again turned (OperatingPoint.mild_as_seen): squeezed back 2x, a tile has its own
proportions, so whether it stood or lay is known."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.read.classifier_stand_in import reading_as
from vision.classes import NUM_CLASSES
from vision.read import detect as reader
from vision.read.operating_point import OperatingPoint
from vision.read.tilenet import crop_tiles

# A standing tile (portrait), a lying one (landscape), both in the stretched photo's pixels.
BOXES = np.array([[10, 20, 60, 90], [100, 100, 220, 160]], float)


def _image() -> np.ndarray:
    rng = np.random.default_rng(7)
    return cv2.GaussianBlur(rng.integers(0, 256, (480, 640, 3), dtype=np.uint8), (5, 5), 2)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a, b))


def test_each_crop_is_turned_by_its_shape_in_the_view():
    image = _image()
    usual, other = crop_tiles(image, BOXES), crop_tiles(image, BOXES, turned=True)
    pixels = reader.PhotoPixels(image)
    # squeezed 2x in height: 50 x 70 looks 50 x 35 to the detector (a tile lying), 120 x 60 still lies
    got = reader.crops_as_seen(pixels, BOXES, (1, 2))
    assert _same(got[0], other[0]) and _same(got[1], usual[1])
    # squeezed 2x in width: 50 x 70 still stands (25 x 70); 120 x 60 is square, so it stands (60 x 60)
    got = reader.crops_as_seen(pixels, BOXES, (2, 1))
    assert _same(got[0], usual[0]) and _same(got[1], other[1])
    assert all(_same(g, u) for g, u in zip(reader.crops_as_seen(pixels, BOXES, (1, 1)), usual, strict=True))


def test_only_the_mild_pair_is_a_mild_view():
    op = OperatingPoint(mild_view=0.5)
    assert reader.is_mild_view(op, (2, 1)) and reader.is_mild_view(op, (1, 2))
    assert not any(reader.is_mild_view(op, sq) for sq in ((1, 1), (4, 1), (1, 8)))
    assert not reader.is_mild_view(OperatingPoint(mild_view=0.0), (2, 1))


class _Spy:
    """The classifier as the reader calls it (classify_crops' signature, made read_crops by
    reading_as): records each batch of crops, reads every face at 0.3 (in doubt, so a turned
    re-read would be asked for)."""

    def __init__(self) -> None:
        self.batches: list[np.ndarray] = []

    def __call__(self, net, crops, tta_below=0.9):
        self.batches.append(crops.copy())
        out = np.full((len(crops), NUM_CLASSES + 1), 0.7 / NUM_CLASSES)
        out[:, 0] = 0.3
        return out


def _model(mild_as_seen: float) -> reader.TileModel:
    op = OperatingPoint(tile_conf=0.5, turn_below=1.0, mild_view=0.5, mild_as_seen=mild_as_seen)
    return reader.TileModel(object(), object(), op, 384, Path("model.json"), {})


def _reading(squeeze: tuple[int, int]) -> reader._ViewReading:
    n = len(BOXES)
    return reader._ViewReading(BOXES.copy(), np.full(n, 0.9), np.zeros(n, int), None, squeeze, flowers=False)


@pytest.mark.parametrize(
    ("mild_as_seen", "squeeze", "batches"),
    [
        (1.0, (1, 2), 1),  # the mild view: cut as seen, read once
        (0.0, (1, 2), 2),  # without the rule: cut as in the photo, then read turned (turn_below)
        (1.0, (4, 1), 2),  # a heavy view: its tiles blur into strips, read both ways as before
    ],
)
def test_the_mild_view_is_read_once_as_seen(monkeypatch, mild_as_seen, squeeze, batches):
    image = _image()
    spy = _Spy()
    monkeypatch.setattr(reader, "read_crops", reading_as(spy))
    reader._with_faces(_model(mild_as_seen), reader.PhotoPixels(image), _reading(squeeze))
    assert len(spy.batches) == batches
    first = spy.batches[0]
    if mild_as_seen and squeeze == (1, 2):
        assert _same(first, reader.crops_as_seen(reader.PhotoPixels(image), BOXES, squeeze))
    else:
        assert _same(first, crop_tiles(image, BOXES))


def test_as_taken_cuts_a_mild_views_crops_as_in_the_photo_and_reads_them_once(monkeypatch):
    """OperatingPoint.pair_as_taken: a square that does not look distorted is no stretched export,
    so its tiles' shapes in the photo say which way they stand, whatever view boxed them."""
    image = _image()
    spy = _Spy()
    monkeypatch.setattr(reader, "read_crops", reading_as(spy))
    reader._with_faces(_model(1.0), reader.PhotoPixels(image), _reading((2, 1)), as_taken=True)
    assert len(spy.batches) == 1 and _same(spy.batches[0], crop_tiles(image, BOXES))
    assert not _same(spy.batches[0], reader.crops_as_seen(reader.PhotoPixels(image), BOXES, (2, 1)))


def test_model_json_carries_it_and_older_ones_read_as_off():
    assert OperatingPoint.from_json({}).mild_as_seen == 0.0
    assert OperatingPoint.from_json({"mild_as_seen": 1.0}).mild_as_seen == 1.0
    with pytest.raises(ValueError, match="mild_as_seen"):
        OperatingPoint.from_json({"mild_as_seen": "yes"})
