"""Measure a tile model on a labelled set: mAP, P/R at the operating point, whole-hand accuracy.

The maths is written here as small pure functions over numpy boxes (tested on hand-made boxes), so
that the single-stage YOLO and the two-stage detector+classifier are scored by exactly the same
code. "Every tile right" is the number the product cares about: a hand is scored correctly only if
every tile is found with the right face and nothing extra is reported.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.classes import CLASS_NAMES, NUM_CLASSES
from vision.read.boxes import greedy_pairs, iou_matrix

IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)
MISSED = "(missed)"
EXTRA = "(extra)"


@dataclass
class ImageResult:
    """Ground truth and predictions of one image. Boxes are N x 4 xyxy in the same pixel space."""

    gt_boxes: np.ndarray
    gt_cls: np.ndarray
    pred_boxes: np.ndarray
    pred_cls: np.ndarray
    pred_conf: np.ndarray
    name: str = ""
    #: Per prediction: is it a tile (the operating point is decided on it); None = pred_conf.
    pred_tile: np.ndarray | None = None
    #: Per prediction: the reader marked its face unsure; None = none marked.
    pred_unsure: np.ndarray | None = None

    @property
    def tile_scores(self) -> np.ndarray:
        """What the operating point thresholds: tile_conf where known, else the joint confidence."""
        return self.pred_conf if self.pred_tile is None else self.pred_tile

    def above(self, conf: float) -> ImageResult:
        """The same image keeping only predictions whose tile confidence is >= conf."""
        keep = self.tile_scores >= conf
        return ImageResult(
            self.gt_boxes,
            self.gt_cls,
            self.pred_boxes[keep],
            self.pred_cls[keep],
            self.pred_conf[keep],
            self.name,
            None if self.pred_tile is None else self.pred_tile[keep],
            None if self.pred_unsure is None else self.pred_unsure[keep],
        )


def match_predictions(
    gt_boxes: np.ndarray,
    gt_cls: np.ndarray,
    pred_boxes: np.ndarray,
    pred_cls: np.ndarray,
    pred_conf: np.ndarray,
    iou_thr: float = 0.5,
) -> np.ndarray:
    """COCO-style greedy matching: for each prediction, most confident first, take the unmatched
    ground-truth box of the SAME class with the highest IoU >= iou_thr. Returns a bool TP flag per
    prediction (in the input order); each ground-truth box is matched at most once."""
    if len(pred_cls) == 0 or len(gt_cls) == 0:
        return np.zeros(len(pred_cls), dtype=bool)
    ious = iou_matrix(pred_boxes, gt_boxes)
    ious[np.asarray(pred_cls)[:, None] != np.asarray(gt_cls)[None, :]] = -1.0
    return greedy_pairs(ious, np.argsort(-np.asarray(pred_conf), kind="stable"), iou_thr) >= 0


def average_precision(tp: np.ndarray, conf: np.ndarray, n_gt: int) -> float:
    """Area under the interpolated precision-recall curve, sampled at 101 recall points (COCO).

    Returns nan when there is no ground truth (the class is then left out of the mean)."""
    if n_gt == 0:
        return float("nan")
    if len(tp) == 0:
        return 0.0
    order = np.argsort(-np.asarray(conf), kind="stable")
    hits = np.asarray(tp, dtype=np.float64)[order]
    tps = np.cumsum(hits)
    fps = np.cumsum(1 - hits)
    recall = tps / n_gt
    precision = tps / (tps + fps)
    # Monotone envelope: the best precision achievable at recall >= r.
    envelope = np.maximum.accumulate(precision[::-1])[::-1]
    points = np.linspace(0, 1, 101)
    idx = np.searchsorted(recall, points, side="left")
    sampled = np.where(idx < len(envelope), envelope[np.minimum(idx, len(envelope) - 1)], 0.0)
    return float(sampled.mean())


def class_aps(images: Sequence[ImageResult], iou_thr: float, num_classes: int = NUM_CLASSES) -> np.ndarray:
    """AP of every class at one IoU threshold (nan for classes absent from the ground truth)."""
    tps, confs, classes = [], [], []
    n_gt = np.zeros(num_classes, dtype=int)
    for im in images:
        tps.append(
            match_predictions(im.gt_boxes, im.gt_cls, im.pred_boxes, im.pred_cls, im.pred_conf, iou_thr)
        )
        confs.append(np.asarray(im.pred_conf, dtype=np.float64))
        classes.append(np.asarray(im.pred_cls, dtype=int))
        n_gt += np.bincount(np.asarray(im.gt_cls, dtype=int), minlength=num_classes)[:num_classes]
    tp, conf, cls = (np.concatenate(v) if v else np.zeros(0) for v in (tps, confs, classes))
    return np.array(
        [average_precision(tp[cls == c], conf[cls == c], int(n_gt[c])) for c in range(num_classes)]
    )


def mean_ap(images: Sequence[ImageResult], iou_thresholds: Sequence[float] = (0.5,)) -> float:
    """mAP over classes present in the ground truth, averaged over the IoU thresholds."""
    per_thr = [_nanmean(class_aps(images, t)) for t in iou_thresholds]
    return float(np.mean(per_thr))


def precision_recall(
    images: Sequence[ImageResult], iou_thr: float = 0.5
) -> tuple[float, float, int, int, int]:
    """(precision, recall, TP, FP, FN) of the predictions as given (already thresholded)."""
    tp = fp = n_gt = 0
    for im in images:
        flags = match_predictions(im.gt_boxes, im.gt_cls, im.pred_boxes, im.pred_cls, im.pred_conf, iou_thr)
        tp += int(flags.sum())
        fp += int((~flags).sum())
        n_gt += len(im.gt_cls)
    fn = n_gt - tp
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / n_gt if n_gt else 0.0
    return precision, recall, tp, fp, fn


def _agnostic_pairs(im: ImageResult, iou_thr: float) -> np.ndarray:
    """Per prediction: the ground-truth tile it boxes, whatever the face, or -1 (match_predictions'
    greedy matching, most confident first, with the classes left out)."""
    if not len(im.pred_cls) or not len(im.gt_cls):
        return np.full(len(im.pred_cls), -1, np.int64)
    order = np.argsort(-np.asarray(im.pred_conf), kind="stable")
    return greedy_pairs(iou_matrix(im.pred_boxes, im.gt_boxes), order, iou_thr)


def _boxed(im: ImageResult, iou_thr: float) -> np.ndarray:
    """Per prediction: whether it boxes a ground-truth tile, whatever the face (class-agnostic)."""
    return _agnostic_pairs(im, iou_thr) >= 0


#: labelled_tile_reads: a labelled tile no returned box covers.
MISSED = -1


def labelled_tile_reads(im: ImageResult, iou_thr: float = 0.5) -> np.ndarray:
    """Per labelled tile: MISSED, else 1 where the box on it (the class-agnostic matching the rule's
    "tiles returned" counts) reads its face, 0 where it reads another. Why: two readers' numbers
    are shares of different tiles; read tile by tile they say which tiles one reader gained, lost,
    or read differently (benchmarks/reader_report.py's tile fates)."""
    gt_cls = np.asarray(im.gt_cls, dtype=int)
    out = np.full(len(gt_cls), MISSED, dtype=np.int64)
    pair = _agnostic_pairs(im, iou_thr)
    on = np.flatnonzero(pair >= 0)
    out[pair[on]] = (np.asarray(im.pred_cls, dtype=int)[on] == gt_cls[pair[on]]).astype(np.int64)
    return out


@dataclass
class TileCounts:
    """Class-agnostic counts over images: ground-truth tiles, returned boxes, boxes on a tile, those
    with the right face, boxes marked unsure. Every tile-level share is a ratio of these."""

    n_gt: int = 0
    n_pred: int = 0
    boxed: int = 0
    right: int = 0
    unsure: int = 0


def image_counts(im: ImageResult, iou_thr: float = 0.5) -> TileCounts:
    """One image's counts: one class-agnostic and one exact matching. Kept per image so that a
    resampling of photos (benchmarks/reader_report.py's noise) sums them instead of matching again."""
    agnostic = _boxed(im, iou_thr)
    exact = match_predictions(
        im.gt_boxes,
        np.asarray(im.gt_cls, dtype=int),
        im.pred_boxes,
        np.asarray(im.pred_cls, dtype=int),
        im.pred_conf,
        iou_thr,
    )
    unsure = 0 if im.pred_unsure is None else int(np.asarray(im.pred_unsure, dtype=bool).sum())
    return TileCounts(
        len(im.gt_cls), len(im.pred_cls), int(agnostic.sum()), int((agnostic & exact).sum()), unsure
    )


def count_tiles(images: Sequence[ImageResult], iou_thr: float = 0.5) -> TileCounts:
    """The images' counts summed (image_counts), shared by every tile-level share."""
    c = TileCounts()
    for im in images:
        one = image_counts(im, iou_thr)
        c.n_gt += one.n_gt
        c.n_pred += one.n_pred
        c.boxed += one.boxed
        c.right += one.right
        c.unsure += one.unsure
    return c


def tiles_returned(images: Sequence[ImageResult], iou_thr: float = 0.5) -> tuple[float, float, float]:
    """(share of ground-truth tiles boxed by a returned prediction, whatever its face; share of
    those with the right face; share of returned predictions marked unsure) — the numbers a
    player feels: a missing tile must be added by hand, a wrong face fixed with one tap."""
    return _shares(count_tiles(images, iou_thr))[:3]


def tile_precision(images: Sequence[ImageResult], iou_thr: float = 0.5) -> float:
    """Share of returned boxes that are tiles at all (class-agnostic precision): what a book, a
    shelf or a chip tray read as a tile costs — each such box is a tile the player must delete."""
    return _shares(count_tiles(images, iou_thr))[3]


def _shares(c: TileCounts) -> tuple[float, float, float, float]:
    """(returned, faces right of returned, unsure, tile precision) from the counts."""
    return (
        c.boxed / c.n_gt if c.n_gt else 0.0,
        c.right / c.boxed if c.boxed else 0.0,
        c.unsure / c.n_pred if c.n_pred else 0.0,
        c.boxed / c.n_pred if c.n_pred else 0.0,
    )


def all_tiles_right(im: ImageResult, iou_thr: float = 0.5) -> bool:
    """Every ground-truth tile matched with the right class, and no extra detection."""
    flags = match_predictions(im.gt_boxes, im.gt_cls, im.pred_boxes, im.pred_cls, im.pred_conf, iou_thr)
    return bool(flags.all()) and int(flags.sum()) == len(im.gt_cls)


def confusions(images: Sequence[ImageResult], iou_thr: float = 0.5) -> Counter:
    """Counter of (true, predicted) class names for class-agnostic matches whose classes differ,
    plus (true, MISSED) for unmatched ground truth and (EXTRA, predicted) for unmatched predictions."""
    out: Counter = Counter()
    for im in images:
        gt_cls = np.asarray(im.gt_cls, dtype=int)
        pred_cls = np.asarray(im.pred_cls, dtype=int)
        boxes = boxed_tile(im, iou_thr)
        for i in np.argsort(-np.asarray(im.pred_conf), kind="stable"):
            j = boxes[i]
            if j < 0:
                out[(EXTRA, CLASS_NAMES[pred_cls[i]])] += 1
            elif gt_cls[j] != pred_cls[i]:
                out[(CLASS_NAMES[gt_cls[j]], CLASS_NAMES[pred_cls[i]])] += 1
        for j in sorted(set(range(len(gt_cls))) - set(boxes.tolist())):
            out[(CLASS_NAMES[gt_cls[j]], MISSED)] += 1
    return out


def boxed_tile(im: ImageResult, iou_thr: float = 0.5) -> np.ndarray:
    """Per prediction: the labelled tile it boxes, whatever the face (class-agnostic matching, most
    confident first, each tile at most once), or -1. One matching for the confusions and the
    label audit (vision.train.label_audit)."""
    agnostic = _boxed(im, iou_thr)
    ious = iou_matrix(im.pred_boxes, im.gt_boxes)
    taken = np.zeros(len(im.gt_cls), dtype=bool)
    out = np.full(len(im.pred_cls), -1, dtype=int)
    for i in np.argsort(-np.asarray(im.pred_conf), kind="stable"):
        if agnostic[i]:
            j = int(np.argmax(np.where(taken, -1.0, ious[i])))
            taken[j], out[i] = True, j
    return out


@dataclass
class Report:
    """Everything `evaluate` measures; `to_dict` is what the CLI prints as JSON."""

    map50: float
    map50_95: float
    precision: float
    recall: float
    all_right: float
    conf: float
    n_images: int
    tiles_returned: float = 0.0
    faces_right: float = 0.0
    tile_precision: float = 0.0
    unsure_share: float = 0.0
    per_class: list[dict] = field(default_factory=list)
    top_confusions: list[tuple[str, str, int]] = field(default_factory=list)

    def to_dict(self) -> dict:
        """Plain JSON-ready dict."""
        return self.__dict__.copy()


def summarise(images: Sequence[ImageResult], conf: float, top: int = 15) -> Report:
    """Compute the full report from low-threshold predictions (for mAP) and the operating point."""
    at_op = [im.above(conf) for im in images]
    aps = np.stack([class_aps(images, t) for t in IOU_THRESHOLDS])
    p, r, *_ = precision_recall(at_op)
    per_class = []
    for c, name in enumerate(CLASS_NAMES):
        sub = [
            ImageResult(
                im.gt_boxes[im.gt_cls == c],
                im.gt_cls[im.gt_cls == c],
                im.pred_boxes[im.pred_cls == c],
                im.pred_cls[im.pred_cls == c],
                im.pred_conf[im.pred_cls == c],
            )
            for im in at_op
        ]
        cp, cr, tp, fp, fn = precision_recall(sub)
        n_gt = tp + fn
        if n_gt == 0 and fp == 0:
            continue
        per_class.append(
            {
                "cls": name,
                "n": n_gt,
                "ap50": _r(aps[0, c]),
                "ap50_95": _r(_nanmean(aps[:, c])),
                "precision": _r(cp),
                "recall": _r(cr),
            }
        )
    conf_pairs = confusions(at_op).most_common(top)
    returned, faces_right, unsure, precise = _shares(count_tiles(at_op))
    return Report(
        map50=_r(_nanmean(aps[0])),
        map50_95=_r(float(np.mean([_nanmean(row) for row in aps]))),
        precision=_r(p),
        recall=_r(r),
        all_right=_r(np.mean([all_tiles_right(im) for im in at_op])) if at_op else 0.0,
        conf=conf,
        n_images=len(images),
        tiles_returned=_r(returned),
        faces_right=_r(faces_right),
        tile_precision=_r(precise),
        unsure_share=_r(unsure),
        per_class=per_class,
        top_confusions=[(a, b, n) for (a, b), n in conf_pairs],
    )


def _nanmean(x: np.ndarray) -> float:
    """Mean of the finite entries; nan (without a warning) when there are none."""
    x = np.asarray(x, dtype=np.float64)
    x = x[np.isfinite(x)]
    return float(x.mean()) if x.size else float("nan")


def _r(x: float) -> float:
    return float(round(float(x), 4)) if np.isfinite(x) else float("nan")


def collect(
    data_source: Path,
    model=None,
    split: str = "val",
    low_conf: float = 0.001,
    aspect_views: bool = True,
    load: Callable[[Path], np.ndarray] | None = None,
) -> list[ImageResult]:
    """Run the model over a labelled split (data.yaml or dataset folder) at a low threshold.

    `load` turns an image file into the upright RGB array that is read (default: the file as it is,
    vision.read.imageio.load_image). Labels are normalised, so a loader may resize the photo (e.g.
    back to the camera's aspect from a stretched export) and the boxes follow it."""
    from vision.read.detect import detect, load_model
    from vision.read.imageio import load_image
    from vision.train import data

    tm = model if model is not None and not isinstance(model, (str, Path)) else load_model(model)
    images = data.split_images(Path(data_source), split)
    if not images and split == "val":
        images = data.split_images(Path(data_source), "train")
    results = []
    for path in images:
        rgb = (load or load_image)(path)
        h, w = rgb.shape[:2]
        boxes = data.read_labels(data.label_path_for(path))
        dets = detect(rgb, conf=low_conf, model=tm, aspect_views=aspect_views)
        gt_cls = np.array([b.cls for b in boxes], dtype=int)
        results.append(detections_result(data.pixel_boxes(boxes, w, h), gt_cls, dets, str(path)))
    return results


def detections_result(
    gt_boxes: np.ndarray, gt_cls: np.ndarray, dets: Sequence, name: str, pred_boxes: np.ndarray | None = None
) -> ImageResult:
    """One photo's labels and a reader's detections (vision.read.detect.Detection) as an
    ImageResult; `pred_boxes` where the boxes were moved after reading (a zoomed-out canvas's,
    mapped back to the photo). One place for every set a report reads."""
    boxes = np.array([d.xyxy for d in dets]).reshape(-1, 4) if pred_boxes is None else pred_boxes
    return ImageResult(
        np.asarray(gt_boxes, dtype=np.float64).reshape(-1, 4),
        np.asarray(gt_cls, dtype=int),
        boxes,
        np.array([CLASS_NAMES.index(d.cls) if d.cls in CLASS_NAMES else 0 for d in dets], dtype=int),
        np.array([d.conf for d in dets], dtype=np.float64),
        name,
        np.array([d.tile_conf for d in dets], dtype=np.float64),
        np.array([d.unsure for d in dets], dtype=bool),
    )


def evaluate(
    data_source: Path, model=None, conf: float | None = None, split: str = "val", aspect_views: bool = True
) -> Report:
    """Full evaluation of a model (default: the shipped one) on a labelled set; `aspect_views=False`
    measures the photo as it is only (see vision.read.detect.ASPECT_VIEWS)."""
    from vision.read.detect import load_model

    tm = model if model is not None and not isinstance(model, (str, Path)) else load_model(model)
    images = collect(data_source, tm, split, aspect_views=aspect_views)
    return summarise(images, tm.tile_conf if conf is None else conf)


def format_report(rep: Report) -> str:
    """Human-readable report (the CLI prints this, or JSON with --json)."""
    lines = [
        f"images {rep.n_images}  conf {rep.conf}",
        f"mAP50 {rep.map50:.4f}  mAP50-95 {rep.map50_95:.4f}  P {rep.precision:.4f}  R {rep.recall:.4f}  "
        f"all-tiles-right {rep.all_right:.4f}",
        f"tiles returned {rep.tiles_returned:.4f}  faces right (of returned) {rep.faces_right:.4f}  "
        f"tile precision {rep.tile_precision:.4f}  marked unsure {rep.unsure_share:.4f}",
        "",
        f"{'cls':>6} {'n':>5} {'AP50':>6} {'AP':>6} {'P':>6} {'R':>6}",
    ]
    for row in rep.per_class:
        lines.append(
            f"{row['cls']:>6} {row['n']:>5} {row['ap50']:>6.3f} {row['ap50_95']:>6.3f} "
            f"{row['precision']:>6.3f} {row['recall']:>6.3f}"
        )
    lines += ["", "most frequent confusions (true -> predicted: count)"]
    lines += [f"  {a} -> {b}: {n}" for a, b, n in rep.top_confusions]
    return "\n".join(lines)


def report_json(rep: Report) -> str:
    """One JSON document (nan becomes null)."""
    return json.dumps(rep.to_dict(), default=str).replace("NaN", "null")
