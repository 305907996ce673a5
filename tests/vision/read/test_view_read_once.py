"""An aspect view is detected once, down to the reader's floor, and its faces read once per box
(stop 64): the view kept reads as it did when it was detected and read a second time."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.read import detect as reader

FIXTURES = Path(__file__).parents[2] / "fixtures" / "vision"
needs_model = pytest.mark.skipif(not reader.DEFAULT_MODEL.is_file(), reason="no shipped model in models/")
FLOOR = 0.1  # the page's maybe-missed floor is about this low: many boxes under the point


def _frame(name: str = "hand_rack.jpg") -> reader._Frame:
    rgb = np.asarray(Image.open(FIXTURES / name).convert("RGB"))
    return reader._Frame.of(reader.PhotoPixels(rgb))


def _twice(tm, frame, views, bars, as_taken=False, flowers=False):
    """The kept view as every reader before stop 64 read it: chosen at the operating point, then
    detected again down to FLOOR and every face read."""
    others = [frame.read(tm, sq, tm.tile_conf, flowers=flowers) for sq in views]
    others = [
        reader._with_faces(tm, frame.pixels, o, as_taken) if o.score(tm.tile_conf) > bar else o
        for o, bar in zip(others, bars, strict=True)
    ]
    pick = reader.choose_view([o.score(tm.tile_conf) for o in others], bars)
    if pick < 0:
        return None
    return reader._with_faces(tm, frame.pixels, frame.read(tm, views[pick], FLOOR, flowers=flowers), as_taken)


@needs_model
@pytest.mark.parametrize("squeeze", [(1, 1), (2, 1), (1, 2)])
def test_the_boxes_above_the_point_are_a_run_at_the_point(squeeze):
    """NMS drops a box only for a surer one, so the boxes above the operating point in a run down
    to a lower floor are exactly a run at the point's, in the same order."""
    tm = reader.load_model()
    frame = _frame()
    low = frame.read(tm, squeeze, 0.001)  # hundreds of boxes under the point
    high = frame.read(tm, squeeze, tm.tile_conf)
    at = reader._at_point(tm, low)
    assert len(low.boxes) > len(at.boxes) > 0
    assert np.array_equal(at.boxes, high.boxes)
    assert np.array_equal(at.det_conf, high.det_conf) and np.array_equal(at.det_cls, high.det_cls)


@needs_model
@pytest.mark.parametrize("flowers", [False, True])
def test_the_kept_view_reads_as_when_it_was_read_twice(flowers):
    tm = reader.load_model()
    views = list(reader.aspect_views_of(tm.op))
    bars = [-1.0] * len(views)  # every view clears its bar: each has its faces read, the best is kept
    got = reader._view_kept(tm, _frame(), FLOOR, views, bars, flowers=flowers)
    want = _twice(tm, _frame(), views, bars, flowers=flowers)
    assert got is not None and want is not None
    assert np.array_equal(got.boxes, want.boxes) and np.array_equal(got.det_conf, want.det_conf)
    assert np.allclose(got.probs, want.probs, atol=1e-6) and got.probs.dtype == want.probs.dtype
    assert (got.gate is None) == (want.gate is None)
    if want.gate is not None:
        assert np.allclose(got.gate, want.gate, atol=1e-6)
    assert (got.flower_at_least, got.gate_at_least, got.squeeze) == (
        want.flower_at_least,
        want.gate_at_least,
        want.squeeze,
    )
    assert np.array_equal(
        reader.tile_and_face(got)[0] >= tm.tile_conf, reader.tile_and_face(want)[0] >= tm.tile_conf
    )


@needs_model
def test_each_view_is_detected_once_and_each_face_read_once(monkeypatch):
    tm = reader.load_model()
    views = list(reader.aspect_views_of(tm.op))
    detected, faced = [], []
    boxes_of, with_faces = reader._boxes_of, reader._with_faces

    def count_boxes(*a, **k):
        detected.append(1)
        return boxes_of(*a, **k)

    def count_faces(tm_, pixels, reading, as_taken=False):
        faced.append(len(reading.boxes))
        return with_faces(tm_, pixels, reading, as_taken)

    monkeypatch.setattr(reader, "_boxes_of", count_boxes)
    monkeypatch.setattr(reader, "_with_faces", count_faces)
    kept = reader._view_kept(tm, _frame(), FLOOR, views, [-1.0] * len(views))
    assert len(detected) == len(views)  # until stop 64: one more, the kept view again
    sure = reader._above_point(tm, kept)
    assert faced[-1] == int((~sure).sum()) > 0  # the kept view's boxes under the point, read last
    assert sum(faced) == sum(faced[:-1]) + int((~sure).sum())


@needs_model
def test_a_learnt_detector_and_sharper_crops_read_the_kept_view_again(monkeypatch):
    """Where a box's reading may hang on the others (a learnt detector's merge, crops cut from a
    sharper decode chosen by the boxes' median size), the kept view is read whole, as before."""
    tm = reader.load_model()
    views = list(reader.aspect_views_of(tm.op))
    frame = _frame()
    faced: list[int] = []
    with_faces = reader._with_faces

    def count_faces(tm_, pixels, reading, as_taken=False):
        faced.append(len(reading.boxes))
        return with_faces(tm_, pixels, reading, as_taken)

    monkeypatch.setattr(reader, "_with_faces", count_faces)
    reduced = reader._Frame(reader.PhotoPixels(frame.pixels.rgb, 2.0), frame.mid, frame.mid_scale, frame.size)
    kept = reader._view_kept(tm, reduced, FLOOR, views, [-1.0] * len(views))
    assert faced[-1] == len(kept.boxes)  # every box of the kept view read again
    faced.clear()
    learnt = replace(tm, learnt=object())  # its merge left out: what matters is that it is there
    monkeypatch.setattr(reader, "_with_learnt", lambda tm_, view, imgsz, base: base)
    again = reader._view_kept(learnt, frame, FLOOR, views, [-1.0] * len(views))
    assert faced[-1] == len(again.boxes)
