"""OperatingPoint.camera_squat: a photo at its camera's aspect whose tiles look tall is shown to the
detector again a little squatter; its boxes come back in the photo's own pixels; tiles already squat
and a square (an export) are read as they are."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.read.test_mild_switch import ViewDetector
from vision.read import detect as reader
from vision.read.operating_point import OperatingPoint

#: A 4:3 photo as wide as the detector's input; squatter by 0.889 the detector sees 384 x 256.
PHOTO = (288, 384)  # h, w
SQUAT_VIEW = (384, 256)
#: Four standing tiles as the detector sees them in the squat view (its pixels).
TILES_IN_VIEW = [(10 + 40 * i, 128, 40 + 40 * i, 192) for i in range(4)]


def _model(
    detector: ViewDetector,
    squat: float = 0.889,
    square_views: float = 0.02,
    below: float = 0.0,
    squat_best: float = 0.0,
    squat_pooled: float = 0.0,
) -> reader.TileModel:
    op = OperatingPoint(
        conf=0.55,
        tile_conf=0.55,
        square_views=square_views,
        camera_squat=squat,
        camera_squat_below=below,
        squat_best=squat_best,
        squat_pooled=squat_pooled,
    )
    return reader.TileModel(detector, None, op, 384, None, {})  # type: ignore[arg-type]


def test_a_photo_at_its_cameras_aspect_is_seen_squatter_and_its_boxes_come_back_in_its_pixels():
    detector = ViewDetector({SQUAT_VIEW: TILES_IN_VIEW})
    found = reader.detect(np.zeros((*PHOTO, 3), np.uint8), model=_model(detector))
    assert detector.asked == [(PHOTO[1], PHOTO[0]), SQUAT_VIEW]  # as it is, then squatter
    ys = {(round(d.xyxy[1]), round(d.xyxy[3])) for d in found}
    assert len(found) == 4 and ys == {(144, 216)}  # 128 and 192 x 288 / 256
    assert [round(d.xyxy[0]) for d in found] == [10, 50, 90, 130]  # the width as it is


def test_a_square_is_read_as_it_is():
    detector = ViewDetector({})
    reader.detect(np.zeros((384, 384, 3), np.uint8), model=_model(detector))
    assert detector.asked[0] == (384, 384) and SQUAT_VIEW not in detector.asked


#: Four tiles as the photo as it is shows them: standing, 30 x 72 (w/h 0.42), or squat, 40 x 40.
TALL = [(10 + 40 * i, 144, 40 + 40 * i, 216) for i in range(4)]
SQUAT = [(10 + 50 * i, 150, 50 + 50 * i, 190) for i in range(4)]


@pytest.mark.parametrize(("first", "read_again"), [(TALL, True), (SQUAT, False), (TALL[:3], False)])
def test_only_tiles_that_look_tall_are_read_again_squatter(first, read_again):
    """With camera_squat_below 0.767 the squat view replaces the first reading only where its sure
    tiles' median w/h is under it (three tiles are too few to tell)."""
    detector = ViewDetector({(PHOTO[1], PHOTO[0]): first, SQUAT_VIEW: TILES_IN_VIEW})
    found = reader.detect(np.zeros((*PHOTO, 3), np.uint8), model=_model(detector, below=0.767))
    assert (SQUAT_VIEW in detector.asked) == read_again
    assert len(found) == (len(TILES_IN_VIEW) if read_again else len(first))


@pytest.mark.parametrize(
    ("squat", "square_views", "size", "learnt", "expected"),
    [
        (0.889, 0.02, (4000, 3000), False, 0.889),
        (0.889, 0.02, (1440, 2560), False, 0.889),  # portrait 9:16
        (0.889, 0.02, (640, 640), False, 1.0),  # a square may be a stretched export
        (0.889, 0.0, (4000, 3000), False, 1.0),  # without square_views any photo may be one
        (0.889, 0.02, (4000, 3000), True, 1.0),  # a player's learnt detector learnt photos as taken
        (0.0, 0.02, (4000, 3000), False, 1.0),  # every model.json before it
    ],
)
def test_only_a_photo_at_its_cameras_aspect_without_a_learnt_detector_is_seen_squatter(
    squat, square_views, size, learnt, expected
):
    model = _model(ViewDetector({}), squat, square_views)
    if learnt:
        model = reader.TileModel(model.detector, None, model.op, 384, None, {}, learnt=object())  # type: ignore[arg-type]
    assert reader.camera_squat_of(model, size) == pytest.approx(expected)


@pytest.mark.parametrize(("squat_best", "again", "expected"), [(0.0, 3, 3), (1.0, 3, 4), (1.0, 4, 4)])
def test_with_squat_best_a_squat_reading_that_reads_less_leaves_the_first_standing(
    squat_best, again, expected
):
    """Four tall tiles as the photo is; the squat view reads `again` of them. Without squat_best the
    squat reading stands; with it, it stands only where it reads as much as the first (a tie)."""
    detector = ViewDetector({(PHOTO[1], PHOTO[0]): TALL, SQUAT_VIEW: TILES_IN_VIEW[:again]})
    found = reader.detect(np.zeros((*PHOTO, 3), np.uint8), model=_model(detector, squat_best=squat_best))
    assert SQUAT_VIEW in detector.asked and len(found) == expected


def test_with_squat_pooled_the_first_readings_boxes_the_squat_one_lacks_are_added():
    """Four tall tiles as the photo is; the squat view reads the first three of them (as the
    photo's pixels, the same boxes) and nothing of the fourth: pooled, the fourth comes back from
    the first reading, and the three both read are returned once."""
    detector = ViewDetector({(PHOTO[1], PHOTO[0]): TALL, SQUAT_VIEW: TILES_IN_VIEW[:3]})
    found = reader.detect(np.zeros((*PHOTO, 3), np.uint8), model=_model(detector, squat_pooled=1.0))
    assert SQUAT_VIEW in detector.asked and len(found) == 4
    assert sorted(round(d.xyxy[0]) for d in found) == [10, 50, 90, 130]
    alone = reader.detect(np.zeros((*PHOTO, 3), np.uint8), model=_model(detector))
    assert len(alone) == 3
