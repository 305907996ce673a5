"""vision.read.mirror: a view and its mirror image read as one, the way test-time augmentation
averages (OperatingPoint.mirror_tall)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from vision.read import detect as reader
from vision.read.mirror import matched_pairs, mean_of_two, unmirrored
from vision.read.operating_point import OperatingPoint


def test_a_box_found_in_the_mirror_image_is_put_back_where_it_is():
    assert unmirrored(np.array([[10.0, 5.0, 30.0, 45.0]]), 100).tolist() == [[70.0, 5.0, 90.0, 45.0]]


def test_each_box_pairs_once_the_surest_first_and_only_with_a_box_of_the_same_tile():
    a = np.array([[0, 0, 20, 40], [2, 0, 22, 40], [100, 0, 120, 40]], float)
    b = np.array([[1, 0, 21, 40], [300, 0, 320, 40]], float)
    # the second box of `a` is surer: it takes the one box of b that overlaps both
    assert matched_pairs(a, np.array([0.5, 0.9, 0.8]), b, 0.6) == [(1, 0)]
    assert matched_pairs(a, np.array([0.5, 0.9, 0.8]), b[1:], 0.6) == []
    assert matched_pairs(a[:0], np.zeros(0), b, 0.6) == []


def test_the_mean_lifts_what_both_looks_saw_and_halves_what_one_look_saw():
    first = (np.array([[0, 0, 20, 40], [50, 0, 70, 40]], float), np.array([0.5, 0.9]), np.array([0, 0]))
    second = (np.array([[1, 0, 21, 40], [200, 0, 220, 40]], float), np.array([0.7, 0.6]), np.array([0, 0]))
    boxes, conf, cls = mean_of_two(first, second, 0.6, 0.25)
    assert boxes.tolist() == [[0, 0, 20, 40], [50, 0, 70, 40], [200, 0, 220, 40]]  # the first look's box kept
    assert conf == pytest.approx([0.6, 0.45, 0.3])
    assert cls.tolist() == [0, 0, 0]
    # under the floor after the mean: dropped
    assert len(mean_of_two(first, second, 0.6, 0.35)[0]) == 2


def test_nothing_in_either_look_is_nothing():
    empty = (np.zeros((0, 4)), np.zeros(0), np.zeros(0, int))
    boxes, conf, cls = mean_of_two(empty, empty, 0.6, 0.25)
    assert boxes.shape == (0, 4) and len(conf) == 0 and len(cls) == 0


class MirrorAwareDetector:
    """Answers `predict` like ultralytics: five standing tiles, sure in both looks, and a sixth the
    first look doubts (0.5) and the mirror image's look believes (0.7). It tells the mirror image
    by the white column the photo has at its left edge."""

    names = {0: "tile"}

    def predict(self, view, imgsz, conf, iou, verbose, device):  # noqa: ARG002 - ultralytics' signature
        h, w = view.shape[:2]
        mirrored = view[:, 0].mean() < 128
        tiles = [(20 + 30 * i, h * 0.3, 40 + 30 * i, h * 0.3 + 46) for i in range(6)]
        rows = [(*t, 0.9) for t in tiles[:5]] + [(*tiles[5], 0.7 if mirrored else 0.5)]
        if mirrored:
            rows = [(w - x1, y0, w - x0, y1, c) for x0, y0, x1, y1, c in rows]
        t = torch.tensor(rows, dtype=torch.float32)
        return [SimpleNamespace(boxes=SimpleNamespace(xyxy=t[:, :4], conf=t[:, 4], cls=torch.zeros(len(t))))]


def _returned(**op: float) -> int:
    photo = np.zeros((288, 384, 3), np.uint8)
    photo[:, :4] = 255
    point = OperatingPoint(
        conf=0.55, tile_conf=0.55, square_views=0.02, camera_squat=0.889, camera_squat_below=0.767, **op
    )
    model = reader.TileModel(MirrorAwareDetector(), None, point, 384, None, {})  # type: ignore[arg-type]
    return len(reader.detect(photo, model=model))


def test_with_mirror_tall_the_tile_both_looks_agree_on_is_returned():
    """A 4:3 photo of standing tiles (20 x 46) takes the squat re-read; the doubted sixth tile's mean
    (0.6) clears the point only where the mirror image is read too."""
    assert _returned() == 5
    assert _returned(mirror_tall=1.0) == 6
