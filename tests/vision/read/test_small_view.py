"""OperatingPoint.small_view: a photo that does not look distorted is read again at a smaller
detector input size, and the two readings' boxes are pooled (vision.read.detect._pooled)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from vision.read import detect as reader
from vision.read.operating_point import OperatingPoint

WIDTH = 384  # the photo is as wide as the detector's input: the plain view is the photo itself
ROW = [(x, 20, x + 30, 60) for x in (0, 31, 62, 93)]  # four standing tiles side by side
MISSED = (124, 20, 154, 60)  # the fifth, which only the smaller view is sure of


class SizedDetector:
    """Answers `predict` like ultralytics with boxes given in photo pixels, per input size; records
    the sizes it was asked for."""

    def __init__(self, by_size: dict[int, list[tuple[float, float, float, float, float]]]) -> None:
        self.by_size = by_size
        self.asked: list[int] = []
        self.names = {0: "tile"}

    def predict(self, view, imgsz, conf, iou, verbose, device):  # noqa: ARG002 - ultralytics' signature
        self.asked.append(imgsz)
        to_view = view.shape[1] / WIDTH
        kept = [(*(v * to_view for v in r[:4]), r[4]) for r in self.by_size.get(imgsz, []) if r[4] >= conf]
        t = torch.tensor(kept, dtype=torch.float32).reshape(-1, 5)
        return [SimpleNamespace(boxes=SimpleNamespace(xyxy=t[:, :4], conf=t[:, 4], cls=torch.zeros(len(t))))]


def _model(detector: SizedDetector, small_view: float, plain_first: float = 0.0) -> reader.TileModel:
    op = OperatingPoint(conf=0.55, tile_conf=0.55, small_view=small_view, small_view_plain_first=plain_first)
    return reader.TileModel(detector, None, op, 384, None, {})  # type: ignore[arg-type]


def _photo() -> np.ndarray:
    return np.zeros((100, WIDTH, 3), np.uint8)


def test_the_small_size_is_a_share_of_the_input_rounded_to_the_stride():
    detector = SizedDetector({})
    assert reader.small_view_size(_model(detector, 0.0)) == 0  # every model.json before it
    assert reader.small_view_size(_model(detector, 0.8333)) == 320
    assert reader.small_view_size(_model(detector, 0.01)) == reader.DETECTOR_STRIDE


def test_a_tile_only_the_smaller_view_is_sure_of_is_returned_once_with_every_other():
    plain = [(*b, 0.9) for b in ROW] + [(*MISSED, 0.3)]
    # the smaller view boxes the same tiles a little differently, and is sure of the fifth
    small = [(b[0] + 1, b[1], b[2] + 1, b[3], 0.8) for b in ROW] + [(*MISSED, 0.7)]
    detector = SizedDetector({384: plain, 320: small})
    found = reader.detect(_photo(), model=_model(detector, 0.8333))
    assert sorted(round(d.xyxy[0]) for d in found) == [0, 31, 62, 93, 124]
    assert 320 in detector.asked
    # without it, the fifth tile stays under the point
    assert len(reader.detect(_photo(), model=_model(SizedDetector({384: plain, 320: small}), 0.0))) == 4


def test_where_both_sizes_box_a_tile_the_surer_box_stands():
    plain = [(*b, 0.9) for b in ROW[:3]] + [(*ROW[3], 0.6)]
    small = [(ROW[3][0] + 2, 20, ROW[3][2] + 2, 60, 0.95)]
    found = reader.detect(_photo(), model=_model(SizedDetector({384: plain, 320: small}), 0.8333))
    assert len(found) == 4
    fourth = max(found, key=lambda d: d.xyxy[0])
    assert fourth.tile_conf == pytest.approx(0.95)
    assert fourth.xyxy[0] == pytest.approx(ROW[3][0] + 2, abs=0.5)


def test_a_photo_that_looks_distorted_is_not_read_at_the_small_size():
    """Fewer sure tiles than a distorted-photo check needs: the aspect views read it, as before."""
    plain = [(*ROW[0], 0.9), (*ROW[1], 0.9)]
    detector = SizedDetector({384: plain, 320: [(*MISSED, 0.9)]})
    found = reader.detect(_photo(), model=_model(detector, 0.8333))
    assert 320 not in detector.asked
    assert all(d.xyxy[0] != MISSED[0] for d in found)


def test_with_plain_first_a_sure_plain_box_stands_and_the_smaller_size_still_adds():
    """small_view_plain_first: the fourth tile, sure in the plain reading (0.6), keeps its plain box
    although the smaller reading is surer of it (0.95); the fifth, doubted in the plain reading
    (0.3), takes the smaller reading's box as before."""
    plain = [(*b, 0.9) for b in ROW[:3]] + [(*ROW[3], 0.6), (*MISSED, 0.3)]
    small = [(ROW[3][0] + 2, 20, ROW[3][2] + 2, 60, 0.95), (MISSED[0] + 2, 20, MISSED[2] + 2, 60, 0.7)]
    found = reader.detect(_photo(), model=_model(SizedDetector({384: plain, 320: small}), 0.8333, 1.0))
    by_x = sorted(found, key=lambda d: d.xyxy[0])
    assert len(by_x) == 5
    assert by_x[3].xyxy[0] == pytest.approx(ROW[3][0], abs=0.5) and by_x[3].tile_conf == pytest.approx(0.6)
    assert by_x[4].xyxy[0] == pytest.approx(MISSED[0] + 2, abs=0.5) and by_x[4].tile_conf == pytest.approx(
        0.7
    )
    assert OperatingPoint.from_json({}).small_view_plain_first == 0.0


def _unsure_model(detector: SizedDetector) -> reader.TileModel:
    op = OperatingPoint(
        conf=0.55,
        tile_conf=0.55,
        square_views=0.02,  # as shipped: only a square may be a stretched export, and this photo is not
        small_view=0.8333,
        small_view_plain_first=1.0,
        small_view_unsure=1.0,
    )
    return reader.TileModel(detector, None, op, 384, None, {})  # type: ignore[arg-type]


def test_with_unsure_only_a_photo_the_detector_doubts_is_read_at_the_small_size():
    """small_view_unsure: two sure tiles (fewer than three) in a photo no export stretched: read
    again at 320, and the tile only that size is sure of comes back, the sure ones keep their boxes."""
    plain = [(*ROW[0], 0.9), (*ROW[1], 0.9), (*MISSED, 0.3)]
    small = [(ROW[0][0] + 2, 20, ROW[0][2] + 2, 60, 0.95), (*MISSED, 0.7)]
    detector = SizedDetector({384: plain, 320: small})
    found = sorted(reader.detect(_photo(), model=_unsure_model(detector)), key=lambda d: d.xyxy[0])
    assert 320 in detector.asked
    assert [round(d.xyxy[0]) for d in found] == [0, 31, 124]
    assert found[0].tile_conf == pytest.approx(0.9)


def test_with_unsure_a_photo_with_sure_tiles_is_read_once():
    """Three sure tiles (looks distorted: fewer than four, yet enough to vouch) or a row of four (does
    not look distorted): the small size is never asked, and the doubted fifth stays out."""
    for sure in (ROW[:3], ROW):
        plain = [(*b, 0.9) for b in sure] + [(*MISSED, 0.3)]
        detector = SizedDetector({384: plain, 320: [(*MISSED, 0.9)]})
        found = reader.detect(_photo(), model=_unsure_model(detector))
        assert 320 not in detector.asked
        assert len(found) == len(sure)
    assert OperatingPoint.from_json({}).small_view_unsure == 0.0


def test_with_stretched_a_squares_kept_2x_view_it_doubts_is_read_again_smaller():
    """small_view_stretched: a square with one sure tile looks distorted; its view squeezed 2x in
    height (384 x 192) is kept with two sure tiles, still too few, so the same squeeze is read at
    320 (320 x 160), where a third tile is sure; it comes back beside the two. Without the key, or
    with a kept view the reader is sure of, the 2x view is read once and stands."""
    from tests.vision.read.test_mild_switch import ViewDetector

    two = [(10, 50, 30, 73), (50, 50, 70, 73)]  # in the 384 x 192 view's pixels
    at_320 = [tuple(v * 320 / 384 for v in b) for b in two] + [(150, 42, 167, 61)]
    op = dict(
        conf=0.55,
        tile_conf=0.55,
        mild_view=0.5,
        square_views=0.02,
        distorted_below=0.5,
        mild_even=1.0,
        mild_undistorted=1.0,
        small_view=0.8333,
        small_view_plain_first=1.0,
        small_view_unsure=1.0,
    )

    def read(stretched: float, mild: list) -> tuple[int, ViewDetector]:
        detector = ViewDetector({(384, 384): [(100, 100, 120, 146)], (384, 192): mild, (320, 160): at_320})
        point = OperatingPoint(**op, small_view_stretched=stretched)
        model = reader.TileModel(detector, None, point, 384, None, {})  # type: ignore[arg-type]
        return len(reader.detect(np.zeros((384, 384, 3), np.uint8), model=model)), detector

    returned, detector = read(1.0, two)
    assert returned == 3 and (320, 160) in detector.asked
    returned, detector = read(0.0, two)
    assert returned == 2 and (320, 160) not in detector.asked
    four = [(10 + 40 * i, 50, 30 + 40 * i, 73) for i in range(4)]
    returned, detector = read(1.0, four)
    assert returned == 4 and (320, 160) not in detector.asked
    assert OperatingPoint.from_json({}).small_view_stretched == 0.0
