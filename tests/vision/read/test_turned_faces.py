"""A box read in an aspect view is read both ways round where its face is in doubt
(OperatingPoint.turn_below): in a photo stretched out of its aspect the box's shape is the
stretch's, so it does not say which way the crop must turn to stand the tile up."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.read.classifier_stand_in import reading_as
from vision.classes import NUM_CLASSES
from vision.read import detect as reader
from vision.read.operating_point import DEFAULT, OperatingPoint
from vision.read.tilenet import crop_tiles

BOXES = np.array([[10, 20, 60, 90], [100, 100, 220, 160], [0, 0, 300, 40.5]])


def _image() -> np.ndarray:
    rng = np.random.default_rng(5)
    return cv2.GaussianBlur(rng.integers(0, 256, (480, 640, 3), dtype=np.uint8), (5, 5), 2)


def _probs(surest: list[float]) -> np.ndarray:
    """One row per box: face i reads `surest[i]`, the rest spread evenly (36 outputs)."""
    out = np.zeros((len(surest), NUM_CLASSES + 1))
    for i, p in enumerate(surest):
        out[i] = (1 - p) / NUM_CLASSES
        out[i, i] = p
    return out


class _Spy:
    """The classifier as the reader calls it (classify_crops' signature, made read_crops by
    reading_as): the usual cut reads `as_cut`, the turned one `turned` (told apart by the
    pixels: the spy cuts both itself)."""

    def __init__(self, image: np.ndarray, as_cut: np.ndarray, turned: np.ndarray) -> None:
        self.usual = crop_tiles(image, BOXES)
        self.other = crop_tiles(image, BOXES, turned=True)
        self.as_cut, self.turned = as_cut, turned
        self.calls: list[str] = []

    def __call__(self, net, crops, tta_below=0.9):
        for kind, cut, probs in (("usual", self.usual, self.as_cut), ("turned", self.other, self.turned)):
            rows = [i for c in crops for i in range(len(cut)) if np.array_equal(c, cut[i])]
            if len(rows) == len(crops):
                self.calls.append(kind)
                return probs[rows]
        raise AssertionError("crops cut neither way")


def _model(turn_below: float) -> reader.TileModel:
    op = OperatingPoint(tile_conf=0.5, turn_below=turn_below)
    return reader.TileModel(object(), object(), op, 384, Path("model.json"), {})


def _reading(squeeze: tuple[int, int]) -> reader._ViewReading:
    n = len(BOXES)
    return reader._ViewReading(BOXES.astype(float), np.full(n, 0.9), np.zeros(n, int), None, squeeze)


@pytest.mark.parametrize("squeeze", [(4, 1), (1, 8)])
def test_a_doubtful_face_in_an_aspect_view_is_read_turned_and_the_surer_reading_kept(monkeypatch, squeeze):
    image = _image()
    spy = _Spy(image, as_cut=_probs([0.95, 0.3, 0.4]), turned=_probs([0.99, 0.9, 0.2]))
    monkeypatch.setattr(reader, "read_crops", reading_as(spy))
    got = reader._with_faces(_model(0.6), reader.PhotoPixels(image), _reading(squeeze)).probs
    assert spy.calls == ["usual", "turned"]
    assert np.allclose(got[0], spy.as_cut[0])  # sure as cut (0.95 >= 0.6): never read turned
    assert np.allclose(got[1], spy.turned[1])  # in doubt, surer turned (0.9 > 0.3): turned kept
    assert np.allclose(got[2], spy.as_cut[2])  # in doubt, less sure turned (0.2 < 0.4): as cut kept


def test_the_plain_view_and_a_reader_without_the_rule_read_each_crop_as_cut(monkeypatch):
    image = _image()
    spy = _Spy(image, as_cut=_probs([0.3, 0.3, 0.3]), turned=_probs([0.9, 0.9, 0.9]))
    monkeypatch.setattr(reader, "read_crops", reading_as(spy))
    for model, squeeze in ((_model(1.0), (1, 1)), (_model(0.0), (8, 1))):
        got = reader._with_faces(model, reader.PhotoPixels(image), _reading(squeeze)).probs
        assert np.allclose(got, spy.as_cut)
    assert spy.calls == ["usual", "usual"]
    assert DEFAULT.turn_below == 0.0  # a model.json without the field reads as every model before it
