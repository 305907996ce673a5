"""The numpy NMS keeps exactly the boxes ultralytics' non_max_suppression keeps, in its order
(vision.read.yolo_nms), on drawn raw outputs and on the shipped export's output for a real photo."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
import torch
from ultralytics.utils import nms as ultra_nms

from vision.read import detect as reader
from vision.read import yolo_nms

SAMPLE = Path(__file__).parents[3] / "datasets" / "samples" / "winning-hand.jpg"


def _ultralytics(raw: np.ndarray, conf: float, iou: float) -> np.ndarray:
    """ultralytics' rows (x1 y1 x2 y2 conf cls), as the ONNX reader called it before."""
    found = ultra_nms.non_max_suppression(torch.from_numpy(raw), conf, iou, None, False, max_det=300, nc=0)[0]
    return found.numpy()


def _ours(raw: np.ndarray, conf: float, iou: float) -> np.ndarray:
    xyxy, score, label = yolo_nms.suppress(raw, conf, iou)
    return np.concatenate((xyxy, score[:, None], label[:, None].astype(np.float32)), axis=1)


def _drawn_output(rng: np.random.Generator, anchors: int, classes: int) -> np.ndarray:
    """A raw output (1 x (4 + classes) x anchors) with clusters of overlapping boxes, as a detector
    gives around each tile, and scattered low scores."""
    centres = rng.uniform(20, 360, (anchors // 8 + 1, 2))
    pick = rng.integers(0, len(centres), anchors)
    xy = centres[pick] + rng.normal(0, 4, (anchors, 2))
    wh = np.abs(rng.normal(30, 6, (anchors, 2))) + 2
    scores = rng.uniform(0, 1, (anchors, classes)) ** 3
    return np.concatenate((xy, wh, scores), axis=1).T[None].astype(np.float32)


@pytest.mark.parametrize("classes", [1, 3])
@pytest.mark.parametrize("seed", range(6))
def test_the_same_boxes_in_the_same_order_as_ultralytics(seed, classes):
    rng = np.random.default_rng(seed)
    raw = _drawn_output(rng, 2000, classes)
    for conf, iou in ((0.25, 0.6), (0.55, 0.6), (0.01, 0.45), (0.9, 0.7)):
        want, got = _ultralytics(raw, conf, iou), _ours(raw, conf, iou)
        assert len(want) > 0 or conf == 0.9
        np.testing.assert_array_equal(got, want)


def test_an_output_with_no_candidate_gives_empty_arrays():
    raw = np.zeros((1, 5, 100), np.float32)
    xyxy, score, label = yolo_nms.suppress(raw, 0.25, 0.6)
    assert xyxy.shape == (0, 4) and score.shape == (0,) and label.shape == (0,)
    assert len(_ultralytics(raw, 0.25, 0.6)) == 0


def test_at_most_max_det_boxes_surest_first():
    rng = np.random.default_rng(7)
    raw = _drawn_output(rng, 3000, 1)
    xyxy, score, _ = yolo_nms.suppress(raw, 0.01, 0.9, max_det=5)
    assert len(xyxy) == 5
    assert np.all(np.diff(score) <= 0)


@pytest.mark.skipif(not reader.DEFAULT_MODEL.is_file(), reason="no shipped model in models/")
def test_the_shipped_export_on_a_real_photo_keeps_what_ultralytics_keeps():
    tm = reader.load_model()
    detector = tm.detector
    if not hasattr(detector, "session"):
        pytest.skip("the shipped detector is read with torch here (no export or MAHJONG_TORCH_ONLY)")
    rgb = cv2.cvtColor(cv2.imread(str(SAMPLE)), cv2.COLOR_BGR2RGB)
    view, _, _ = reader._detector_view(rgb, tm.det_imgsz)
    x = detector.network_input(view, tm.det_imgsz)
    raw = detector.session.run(None, {detector._input: x})[0]
    for conf in (0.01, 0.25, tm.conf):
        want = _ultralytics(raw, conf, tm.op.nms_iou)
        assert len(want) >= 10
        np.testing.assert_array_equal(_ours(raw, conf, tm.op.nms_iou), want)
