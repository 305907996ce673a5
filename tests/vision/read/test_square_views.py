"""OperatingPoint.square_views: only a square photo (what an export's stretch leaves) is read through
the aspect views; a photo of a camera's aspect never was stretched."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.read.test_small_view import ROW, SizedDetector
from vision.read import detect as reader
from vision.read.operating_point import OperatingPoint


def _model(detector: SizedDetector, square_views: float) -> reader.TileModel:
    op = OperatingPoint(conf=0.55, tile_conf=0.55, square_views=square_views)
    return reader.TileModel(detector, None, op, 384, None, {})  # type: ignore[arg-type]


def _views_read(shape: tuple[int, int], square_views: float) -> int:
    """How many views the detector read of a photo with too few tiles to look undistorted."""
    detector = SizedDetector({384: [(*ROW[0], 0.9), (*ROW[1], 0.9)]})
    reader.detect(np.zeros((*shape, 3), np.uint8), model=_model(detector, square_views))
    return len(detector.asked)


@pytest.mark.parametrize("shape", [(384, 384), (300, 384), (384, 288)])
def test_without_it_every_photo_that_looks_distorted_is_read_through_the_views(shape):
    assert _views_read(shape, 0.0) == 1 + len(reader.ASPECT_VIEWS)


def test_with_it_only_a_square_is():
    assert _views_read((384, 384), 0.02) == 1 + len(reader.ASPECT_VIEWS)
    assert _views_read((380, 384), 0.02) == 1 + len(reader.ASPECT_VIEWS)  # a square, give or take rounding
    assert _views_read((288, 384), 0.02) == 1  # 4:3, as a phone takes it
    assert _views_read((216, 384), 0.02) == 1  # 16:9
