"""Non-maximum suppression of a YOLO export's raw output, in numpy: the same boxes, in the same
order, as ultralytics' `non_max_suppression` (single label per box, classes kept apart) gives.

Why not ultralytics' own: without torchvision imported it runs its `TorchNMS` loop, one round of
small torch operations per kept box: ~3 ms of a 12 MP photo's ~75 ms on the page's upload path
(models/MODEL_CARD.md, stop 45), for what is a few microseconds of numpy on the ~2,000 anchors of a
384-pixel view. The arithmetic is float32 as in torch (the same centre-to-corner step, the same
per-class offset, the same IoU expression and comparisons), so the kept boxes are bit for bit the
same: `tests/vision/read/test_yolo_nms.py` compares the two on drawn outputs and on a real photo.
"""

from __future__ import annotations

import numpy as np

#: ultralytics' per-class coordinate offset (`max_wh`): boxes of different classes never overlap.
CLASS_OFFSET = np.float32(7680)


def corners(xywh: np.ndarray) -> np.ndarray:
    """Centre-size boxes to corners (x1 y1 x2 y2), float32 as ultralytics' xywh2xyxy computes them."""
    xy = xywh[:, :2]
    half = xywh[:, 2:4] / np.float32(2)
    return np.concatenate((xy - half, xy + half), axis=1)


def greedy_keep(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices kept by greedy NMS, surest first: a box is dropped when its IoU with a kept surer
    box is above `iou` (torchvision's rule, which ultralytics' TorchNMS matches)."""
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    area = (x2 - x1) * (y2 - y1)
    order = np.argsort(-scores, kind="stable")
    limit = np.float32(iou)
    keep: list[int] = []
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        w = np.clip(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), 0, None)
        h = np.clip(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), 0, None)
        inter = w * h
        order = rest[inter / (area[i] + area[rest] - inter) <= limit]
    return np.asarray(keep, dtype=np.int64)


def suppress(
    raw: np.ndarray, conf: float, iou: float, max_det: int = 300
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Boxes (network-input pixels, x1 y1 x2 y2, float32), confidences and classes of one image's
    raw output (1 x (4 + classes) x anchors), surest first, at most `max_det`.

    A box is a candidate when its best class score is above `conf`; boxes of different classes
    are suppressed apart (offset by CLASS_OFFSET, as ultralytics does when not class-agnostic)."""
    pred = np.asarray(raw, dtype=np.float32)[0].T
    cls = pred[:, 4:]
    best = cls.max(1)
    cand = best > np.float32(conf)
    if not cand.any():
        return np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64)
    boxes = corners(pred[cand, :4])
    score = best[cand]
    label = cls[cand].argmax(1)
    keep = greedy_keep(boxes + label[:, None].astype(np.float32) * CLASS_OFFSET, score, iou)[:max_det]
    return boxes[keep], score[keep], label[keep]
