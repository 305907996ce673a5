"""OperatingPoint.mild_view: a 16:9 frame exported into a square is read through views squeezed 2x."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from vision.read import detect as reader
from vision.read.operating_point import OperatingPoint

FIXTURES = Path(__file__).parents[2] / "fixtures" / "vision"
needs_model = pytest.mark.skipif(not reader.DEFAULT_MODEL.is_file(), reason="no shipped model in models/")


def test_the_mild_pair_follows_the_four_views_only_when_asked_for():
    assert reader.aspect_views_of(OperatingPoint()) == reader.ASPECT_VIEWS  # every model.json before it
    views = reader.aspect_views_of(OperatingPoint(mild_view=0.5))
    assert views[: len(reader.ASPECT_VIEWS)] == reader.ASPECT_VIEWS
    assert views[len(reader.ASPECT_VIEWS) :] == ((2.0, 1.0), (1.0, 2.0))


@needs_model
def test_a_hand_squeezed_as_a_16_9_export_is_read_as_the_photo_was():
    """The fixture hand narrowed 16:9 -> 1:1, as riichi-standing-dev's frames were: the plain view
    misses tiles; the mild view reads the same tiles and faces as the photo at its own aspect."""
    photo = np.asarray(Image.open(FIXTURES / "hand_rack.jpg").convert("RGB"))
    h, w = photo.shape[:2]
    squeezed = cv2.resize(photo, (round(w * 9 / 16), h), interpolation=cv2.INTER_AREA)
    shipped = reader.load_model()
    assert shipped.op.mild_view == 0.5
    # the narrowed photo is not square, so the shipped reader would not read its views at all
    # (OperatingPoint.square_views); here the views themselves are tested
    shipped = replace(shipped, op=replace(shipped.op, square_views=0.0))
    gated = reader.detect(photo, model=shipped)
    # a photo that looks distorted calls no box a flower (the blurred crops of a stretched export,
    # models/MODEL_CARD.md stop 36), so the three flower tiles at the hand's left are read there as
    # tiles: the photo as taken is compared with its flower gate off
    shipped = replace(shipped, op=replace(shipped.op, flower_gate_at_least=0.0))
    without = replace(shipped, op=replace(shipped.op, mild_view=0.0))
    as_taken = reader.detect(photo, model=shipped)
    assert len(gated) < len(as_taken)
    mild = reader.detect(squeezed, model=shipped)
    plain = reader.detect(squeezed, model=without)
    assert len(plain) < len(as_taken)
    assert Counter(d.cls for d in mild) == Counter(d.cls for d in as_taken)
    # boxes in the squeezed photo's own pixels, where the tiles are
    xs = sorted((d.xyxy[0] + d.xyxy[2]) / 2 for d in mild)
    want = sorted((d.xyxy[0] + d.xyxy[2]) / 2 * 9 / 16 for d in as_taken)
    assert np.allclose(xs, want, atol=6)
