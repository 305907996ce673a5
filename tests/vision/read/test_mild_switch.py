"""OperatingPoint.distorted_below and mild_switch: a 16:9 frame squeezed into a square (standing tiles
about 2.4:1) is read through its aspect views, and the 2x view, which sees its tiles as they were
photographed, replaces the plain view on a bar of its own."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from vision.read import detect as reader
from vision.read.operating_point import SQUARE_PAIR_PIXELS, OperatingPoint

SIDE = 384  # a square photo as large as the detector's input: the plain view is the photo itself
#: Five standing tiles as a squeeze of 16:9 into a square leaves them: 20 x 46 (2.3:1).
PLAIN_TILES = [(10 + 40 * i, 100, 30 + 40 * i, 146) for i in range(5)]
#: The view squeezed 2x in height (384 x 192) sees seven tiles of a tile's shape, in its own pixels.
MILD_TILES = [(10 + 40 * i, 50, 30 + 40 * i, 73) for i in range(7)]


class ViewDetector:
    """Answers `predict` like ultralytics with boxes given per view size (w, h), in that view's
    pixels; records the views it was asked to read."""

    def __init__(self, by_view: dict[tuple[int, int], list[tuple[float, float, float, float]]]) -> None:
        self.by_view = by_view
        self.asked: list[tuple[int, int]] = []
        self.names = {0: "tile"}

    def predict(self, view, imgsz, conf, iou, verbose, device):  # noqa: ARG002 - ultralytics' signature
        size = (view.shape[1], view.shape[0])
        self.asked.append(size)
        rows = [(*b, 0.9) for b in self.by_view.get(size, [])]
        t = torch.tensor(rows, dtype=torch.float32).reshape(-1, 5)
        return [SimpleNamespace(boxes=SimpleNamespace(xyxy=t[:, :4], conf=t[:, 4], cls=torch.zeros(len(t))))]


def _read(
    shape: tuple[int, int], mild: list[tuple[float, float, float, float]] = MILD_TILES, **op: float
) -> tuple[int, ViewDetector]:
    """How many tiles the reader returns of a photo of `shape` (h, w) whose plain view shows
    PLAIN_TILES and whose view squeezed 2x in height shows `mild`, and the detector it asked."""
    detector = ViewDetector({(shape[1], shape[0]): PLAIN_TILES, (SIDE, SIDE // 2): mild})
    point = OperatingPoint(conf=0.55, tile_conf=0.55, mild_view=0.5, square_views=0.02, **op)
    model = reader.TileModel(detector, None, point, SIDE, None, {})  # type: ignore[arg-type]
    return len(reader.detect(np.zeros((*shape, 3), np.uint8), model=model)), detector


def test_standing_tiles_of_a_squeezed_frame_did_not_look_distorted_before():
    """2.3:1 is under ASPECT_MAX_RATIO's 2.5: every model.json before these keys reads the plain view
    only."""
    returned, detector = _read((SIDE, SIDE))
    assert returned == len(PLAIN_TILES) and len(detector.asked) == 1


def test_with_distorted_below_a_square_of_such_tiles_reads_its_views():
    returned, detector = _read((SIDE, SIDE), distorted_below=0.5)
    assert len(detector.asked) == 1 + len(reader.ASPECT_VIEWS) + 2
    # seven tiles at 0.9 (6.3) are not twice the plain view's five (4.5): the plain view stays
    assert returned == len(PLAIN_TILES)


def test_with_mild_switch_the_2x_view_replaces_the_plain_view_on_its_own_bar():
    returned, _ = _read((SIDE, SIDE), distorted_below=0.5, mild_switch=0.2)
    assert returned == len(MILD_TILES)  # 6.3 >= max(1.2 x 4.5, 4.5 + 1.0)


def test_a_photo_of_a_cameras_aspect_never_looks_distorted_by_the_lower_bar():
    """A 4:3 phone photo of standing tiles seen low is what it looks like: read as it is."""
    returned, detector = _read((288, SIDE), distorted_below=0.5, mild_switch=0.2)
    assert returned == len(PLAIN_TILES) and len(detector.asked) == 1


def test_the_distortion_ratio_is_the_keys_only_for_a_photo_that_could_be_stretched():
    op = OperatingPoint(square_views=0.02, distorted_below=0.5)
    assert reader.distortion_ratio(op, (640, 640)) == pytest.approx(2.0)
    assert reader.distortion_ratio(op, (640, 480)) == reader.ASPECT_MAX_RATIO
    assert reader.distortion_ratio(OperatingPoint(square_views=0.02), (640, 640)) == reader.ASPECT_MAX_RATIO


def test_only_the_mild_pair_has_the_lower_bar():
    op = OperatingPoint(mild_view=0.5, mild_switch=0.2)
    assert reader.view_bar(op, (2, 1), 10.0) == pytest.approx(12.0) == reader.view_bar(op, (1, 2), 10.0)
    assert reader.view_bar(op, (2, 1), 2.0) == pytest.approx(3.0)  # still a tile's worth more (ASPECT_GAIN)
    assert all(reader.view_bar(op, sq, 10.0) == 20.0 for sq in reader.ASPECT_VIEWS)  # ASPECT_FACTOR
    assert reader.view_bar(OperatingPoint(mild_view=0.5), (2, 1), 10.0) == 20.0


def test_choose_view_takes_each_views_own_bar():
    assert reader.choose_view([6.5, 9.0], [10.0, 10.0]) == -1  # twice 5.0 is 10.0
    assert reader.choose_view([6.5, 9.0], [10.0, 6.0]) == 1
    assert reader.choose_view([6.5, 9.0], [6.0, 10.0]) == 0
    assert reader.choose_view([6.5, 9.0], [6.0, 6.0]) == 1  # both clear theirs: the higher score


def test_with_mild_even_the_2x_view_replaces_the_plain_view_wherever_it_reads_more():
    """Five plain tiles (4.5) against six in the 2x view (5.4): under mild_switch's 1.2x and under a
    tile's worth more, so only mild_even lets the 2x view read the photo."""
    keys = {"distorted_below": 0.5, "mild_switch": 0.2}
    for even, expected in ((0.0, len(PLAIN_TILES)), (1.0, 6)):
        assert _read((SIDE, SIDE), MILD_TILES[:6], mild_even=even, **keys)[0] == expected


def test_mild_even_lowers_only_the_mild_pairs_bar_and_never_to_a_tie():
    op = OperatingPoint(mild_view=0.5, mild_switch=0.2, mild_even=1.0)
    assert reader.view_bar(op, (2, 1), 4.5) == 4.5 == reader.view_bar(op, (1, 2), 4.5)
    assert all(reader.view_bar(op, sq, 4.5) == reader.switch_bar(4.5) for sq in reader.ASPECT_VIEWS)
    assert reader.choose_view([4.6], [4.5]) == 0
    assert reader.choose_view([4.5], [4.5]) == -1  # as many: the photo as it is
    assert reader.choose_view([0.0], [0.0]) == -1  # a tile-free photo stays plain


def test_with_mild_long_the_2x_view_along_the_tiles_long_side_replaces_a_plain_view_of_impossible_tiles():
    """Five plain tiles 2.3:1 (4.5) against three in the view squeezed 2x in height (2.7): fewer, so
    mild_even keeps the photo as it is; with mild_long no tile is that long, so the 2x view reads it."""
    keys = {"distorted_below": 0.5, "mild_switch": 0.2, "mild_even": 1.0}
    for long, expected in ((0.0, len(PLAIN_TILES)), (1.0, 3)):
        assert _read((SIDE, SIDE), MILD_TILES[:3], mild_long=long, **keys)[0] == expected


def test_mild_long_drops_the_bar_only_of_the_2x_view_along_the_tiles_long_side():
    op = OperatingPoint(mild_view=0.5, mild_even=1.0, mild_long=1.0)
    assert reader.view_bar(op, (1, 2), 4.5, long_axis=1) == 0.0  # tall tiles: squeezed in height
    assert reader.view_bar(op, (2, 1), 4.5, long_axis=1) == 4.5  # the other way: mild_even's bar
    assert reader.view_bar(op, (2, 1), 4.5, long_axis=0) == 0.0
    assert reader.view_bar(op, (1, 2), 4.5) == 4.5  # tiles of a tile's shape, or too few to tell
    assert all(
        reader.view_bar(op, sq, 4.5, long_axis=1) == reader.switch_bar(4.5) for sq in reader.ASPECT_VIEWS
    )
    assert reader.choose_view([0.0], [0.0]) == -1  # a view that reads nothing never replaces the photo


def test_the_long_axis_of_a_reading_is_that_of_its_sure_tiles_when_no_tile_is_that_long():
    def reading(boxes: list[tuple[int, int, int, int]]) -> reader._ViewReading:
        n = len(boxes)
        probs = np.zeros((n, reader.NUM_CLASSES + 1))
        probs[:, 0] = 1.0
        return reader._ViewReading(np.array(boxes, float), np.full(n, 0.9), np.zeros(n, int), probs, (1, 1))

    assert reading(PLAIN_TILES).long_axis(0.55, 2.0) == 1  # 20 x 46: tall
    assert reading([(y, x, y2, x2) for x, y, x2, y2 in PLAIN_TILES]).long_axis(0.55, 2.0) == 0
    assert reading(PLAIN_TILES).long_axis(0.55, 2.5) is None  # 2.3:1 under the ratio
    assert reading(PLAIN_TILES[:3]).long_axis(0.55, 2.0) is None  # too few to tell


def test_with_square_pair_a_square_that_does_not_look_distorted_still_tries_the_2x_pair():
    """Five tiles 2.3:1 do not look distorted under ASPECT_MAX_RATIO's 2.5; with square_pair the
    2x pair is read anyway, and the view squeezed in height (seven tiles, 6.3) reads more."""
    assert _read((SIDE, SIDE), mild_even=1.0)[0] == len(PLAIN_TILES)
    returned, detector = _read((SIDE, SIDE), mild_even=1.0, square_pair=1.0)
    assert returned == len(MILD_TILES) and len(detector.asked) == 1 + 2  # the plain view and the pair


def test_square_pair_leaves_a_photo_at_a_cameras_aspect_and_a_pair_that_reads_less_alone():
    returned, detector = _read((288, SIDE), mild_even=1.0, square_pair=1.0)
    assert returned == len(PLAIN_TILES) and len(detector.asked) == 1
    assert _read((SIDE, SIDE), MILD_TILES[:4], mild_even=1.0, square_pair=1.0)[0] == len(PLAIN_TILES)


def _as_taken_asked(monkeypatch, **op: float) -> dict[tuple[float, float], bool]:
    """Per view whose faces the reader read, whether it read them as in the photo (as_taken)."""
    asked: dict[tuple[float, float], bool] = {}
    real = reader._with_faces

    def spy(tm, pixels, reading, as_taken=False):
        asked[reading.squeeze] = as_taken
        return real(tm, pixels, reading, as_taken)

    monkeypatch.setattr(reader, "_with_faces", spy)
    _read((SIDE, SIDE), **op)
    return asked


def test_pair_as_taken_reads_the_pairs_faces_as_in_the_photo_only_where_the_square_looks_undistorted(
    monkeypatch,
):
    keys = {"mild_even": 1.0, "square_pair": 1.0}
    assert _as_taken_asked(monkeypatch, **keys)[(1, 2)] is False
    assert _as_taken_asked(monkeypatch, pair_as_taken=1.0, **keys)[(1, 2)] is True
    distorted = _as_taken_asked(monkeypatch, distorted_below=0.5, pair_as_taken=1.0, **keys)
    assert distorted[(1, 2)] is False  # a stretched export: its view says how its tiles stand


def test_square_pair_up_to_leaves_a_square_larger_than_an_export_as_it_is():
    """A phone's own square photo (its 1:1 mode) is a crop at full resolution, never a squeeze:
    with square_pair_up_to the pair is read only for a square no larger than that."""
    keys = {"mild_even": 1.0, "square_pair": 1.0}
    returned, detector = _read((SIDE, SIDE), square_pair_up_to=(SIDE - 1) / SQUARE_PAIR_PIXELS, **keys)
    assert returned == len(PLAIN_TILES) and len(detector.asked) == 1
    returned, detector = _read((SIDE, SIDE), square_pair_up_to=(SIDE + 1) / SQUARE_PAIR_PIXELS, **keys)
    assert returned == len(MILD_TILES) and len(detector.asked) == 1 + 2


@pytest.mark.parametrize(
    ("size", "up_to", "tried"),
    [
        ((640, 640), 0.128, True),
        ((3456, 3456), 0.128, False),
        ((3456, 3456), 0, True),
        ((4000, 3000), 0, False),
    ],
)
def test_tries_square_pair_asks_the_photos_full_size(size, up_to, tried):
    op = OperatingPoint(mild_view=0.5, square_views=0.02, square_pair=1.0, square_pair_up_to=up_to)
    assert reader.tries_square_pair(op, size) is tried
    assert not reader.tries_square_pair(OperatingPoint(mild_view=0.5, square_views=0.02), (640, 640))


def _verdict(**op: float) -> reader.ViewVerdict:
    detector = ViewDetector({(SIDE, SIDE): PLAIN_TILES, (SIDE, SIDE // 2): MILD_TILES})
    point = OperatingPoint(conf=0.55, tile_conf=0.55, mild_view=0.5, square_views=0.02, **op)
    model = reader.TileModel(detector, None, point, SIDE, None, {})  # type: ignore[arg-type]
    return reader.view_verdict(np.zeros((SIDE, SIDE, 3), np.uint8), model=model)


def test_the_view_verdict_says_how_near_the_ratio_a_square_was_and_which_view_read_it():
    """benchmarks/view_report.py's reading: five sure tiles 20 x 46 (2.3:1) are under ASPECT_MAX_RATIO,
    over distorted_below's 2.0; the 2x view squeezed in height reads the distorted square."""
    before = _verdict()
    assert (before.sure, before.ratio, before.distorted, before.squeeze) == (
        5,
        reader.ASPECT_MAX_RATIO,
        False,
        (1, 1),
    )
    assert before.elongation == pytest.approx(2.3)
    after = _verdict(distorted_below=0.5, mild_switch=0.2)
    assert (after.ratio, after.distorted, after.squeeze) == (pytest.approx(2.0), True, (1, 2))
    assert after.elongation == pytest.approx(2.3)


def test_with_square_both_a_square_under_the_ratio_is_kept_stretched_where_that_reads_more():
    """Five tiles 2.3:1 under ASPECT_MAX_RATIO's 2.5: the test says "as taken" and the 2x view's
    seven tiles are never read; with square_both both readings are made and the one scoring more
    (seven tiles) is kept."""
    keys = {"mild_switch": 0.2, "mild_even": 1.0}
    assert _read((SIDE, SIDE), **keys)[0] == len(PLAIN_TILES)
    assert _read((SIDE, SIDE), square_both=1.0, **keys)[0] == len(MILD_TILES)


def test_with_square_both_a_square_over_the_ratio_is_kept_as_taken_where_that_reads_more():
    """Over distorted_below's 2.0 the test says "stretched"; where no view reads more than the plain
    view, the stretched reading is the plain view with no flower calls, and a tie keeps what the test
    picks; a 2x view reading fewer never wins."""
    keys = {"distorted_below": 0.5, "mild_switch": 0.2, "mild_even": 1.0}
    assert _read((SIDE, SIDE), MILD_TILES[:3], square_both=1.0, **keys)[0] == len(PLAIN_TILES)
    assert _verdict(square_both=1.0, **keys).squeeze == (1, 2)  # seven tiles: stretched reads more


def test_square_both_leaves_a_photo_at_a_cameras_aspect_and_one_too_sure_of_too_few_tiles_alone():
    returned, detector = _read((288, SIDE), square_both=1.0, mild_even=1.0)
    assert returned == len(PLAIN_TILES) and len(detector.asked) == 1
    asked = []
    for both in (0.0, 1.0):  # three sure tiles: too few to tell, read as the test says today
        few = ViewDetector({(SIDE, SIDE): PLAIN_TILES[:3], (SIDE, SIDE // 2): MILD_TILES})
        point = OperatingPoint(
            conf=0.55, tile_conf=0.55, mild_view=0.5, square_views=0.02, mild_even=1.0, square_both=both
        )
        model = reader.TileModel(few, None, point, SIDE, None, {})  # type: ignore[arg-type]
        asked.append((len(reader.detect(np.zeros((SIDE, SIDE, 3), np.uint8), model=model)), few.asked))
    assert asked[0] == asked[1]
