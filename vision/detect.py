"""Read every tile in a photo: detector boxes + per-tile class with the model's next guesses.

The shipped model is two-stage (see models/MODEL_CARD.md for the measured comparison): a one-class
YOLO detector finds tiles (face-up or face-down) on a 640-px-class view of the photo, then a small CNN
reads each tile from a crop of the ORIGINAL photo, where a 12 MP phone photo gives a tile ~100+ px
wide instead of ~20 px. The classifier's softmax provides `alternatives`, so the app can offer the
model's next guesses first when a player corrects a tile.

A plain ultralytics YOLO `.pt` with the 35 classes is also accepted (single-stage; used to compare
architectures); it has no alternatives.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from vision import _env
from vision.classes import CLASS_NAMES, NUM_CLASSES, OTHER_ID
from vision.imageio import load_image

MODELS_DIR = _env.REPO_ROOT / "models"
DEFAULT_MODEL = MODELS_DIR / "model.json"
MAX_ALTERNATIVES = 5

#: Classifier input: a tile crop turned upright-portrait and resized to CROP_W x CROP_H.
CROP_W, CROP_H = 48, 64
#: Crops include this fraction of the box size as context on every side.
CROP_MARGIN = 0.08


@dataclass
class Detection:
    """One tile: class name, confidence, box in pixels of the upright original image."""

    cls: str
    conf: float
    xyxy: tuple[float, float, float, float]
    alternatives: list[tuple[str, float]] = field(default_factory=list)

    def to_json(self) -> dict:
        """JSON-ready dict in the CLI's schema."""
        return {
            "cls": self.cls,
            "conf": round(self.conf, 4),
            "xyxy": [round(v, 1) for v in self.xyxy],
            "alternatives": [[c, round(p, 4)] for c, p in self.alternatives],
        }


class TileNet(nn.Module):
    """Small CNN reading one tile crop (3 x 64 x 48) into 35 class logits (36 with `other`).

    Deliberately small (~0.3 M parameters) so it trains in minutes on a laptop CPU and runs on a
    whole hand in a few milliseconds; spatial layout is kept to the end (no global pooling)
    because "how many bamboo sticks, where" is the class.
    """

    def __init__(self, num_classes: int = NUM_CLASSES, width: int = 24) -> None:
        super().__init__()

        def conv(cin: int, cout: int) -> list[nn.Module]:
            return [
                nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True),
            ]

        w = width
        self.features = nn.Sequential(
            *conv(3, w),
            nn.MaxPool2d(2),  # 32 x 24
            *conv(w, 2 * w),
            *conv(2 * w, 2 * w),
            nn.MaxPool2d(2),  # 16 x 12
            *conv(2 * w, 4 * w),
            *conv(4 * w, 4 * w),
            nn.MaxPool2d(2),  # 8 x 6
            *conv(4 * w, 6 * w),
            nn.MaxPool2d(2),  # 4 x 3
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.3), nn.Linear(6 * w * 12, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: float N x 3 x CROP_H x CROP_W in 0..1."""
        return self.head(self.features(x))


def classifier_outputs(state: dict) -> int:
    """How many classes a TileNet state dict reads: 35, or 36 with the `other` output."""
    return int(state["head.2.weight"].shape[0])


def crop_tiles(
    image: np.ndarray,
    boxes: np.ndarray,
    margin: float = CROP_MARGIN,
    size: tuple[int, int] = (CROP_W, CROP_H),
) -> np.ndarray:
    """Cut each box (x1,y1,x2,y2 pixels) from an RGB image as an upright-portrait crop of `size` (w, h).

    Landscape boxes (tiles lying sideways) are turned 90 degrees so every crop is portrait; the
    classifier is trained to read both 180-degree orientations and mirror images. Training cuts
    its crops with this same function (with a wider margin, for augmentation room).
    """
    h, w = image.shape[:2]
    out = np.zeros((len(boxes), size[1], size[0], 3), np.uint8)
    for i, (x1, y1, x2, y2) in enumerate(np.asarray(boxes, dtype=np.float64).reshape(-1, 4)):
        bw, bh = x2 - x1, y2 - y1
        xa, xb = int(max(0, np.floor(x1 - margin * bw))), int(min(w, np.ceil(x2 + margin * bw)))
        ya, yb = int(max(0, np.floor(y1 - margin * bh))), int(min(h, np.ceil(y2 + margin * bh)))
        if xb - xa < 2 or yb - ya < 2:
            continue
        crop = image[ya:yb, xa:xb]
        if bw > bh:
            crop = np.rot90(crop)
        out[i] = cv2.resize(np.ascontiguousarray(crop), size, interpolation=cv2.INTER_AREA)
    return out


def crops_to_tensor(crops: np.ndarray) -> torch.Tensor:
    """uint8 N x H x W x 3 -> float N x 3 x H x W in 0..1."""
    return torch.from_numpy(crops).permute(0, 3, 1, 2).float().div_(255.0)


@dataclass
class TileModel:
    """A loaded model: detector (+ classifier for the two-stage kind) and its operating point."""

    detector: object
    classifier: TileNet | None
    conf: float
    det_imgsz: int
    path: Path
    meta: dict

    @property
    def two_stage(self) -> bool:
        """True when faces are read by the crop classifier."""
        return self.classifier is not None


def _load_yolo(path: Path) -> object:
    from ultralytics import YOLO  # imported late: heavy, and _env must run first

    _env.keep_pil_open_offline()
    return YOLO(str(path), task="detect")


@lru_cache(maxsize=4)
def _load_cached(path: str) -> TileModel:
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"model file not found: {p}")
    if p.suffix == ".json":
        meta = json.loads(p.read_text())
        detector = _load_yolo(p.parent / meta["detector"])
        classifier = None
        if meta.get("classifier"):
            state = torch.load(p.parent / meta["classifier"], map_location="cpu", weights_only=True)
            outputs = classifier_outputs(state)
            if outputs not in (NUM_CLASSES, OTHER_ID + 1):
                raise ValueError(
                    f"{p}: classifier has {outputs} outputs, expected {NUM_CLASSES} or {OTHER_ID + 1}"
                )
            classifier = TileNet(num_classes=outputs, width=int(meta.get("classifier_width", 24)))
            classifier.load_state_dict({k: v.float() for k, v in state.items()})
            classifier.eval()
        return TileModel(detector, classifier, float(meta["conf"]), int(meta["det_imgsz"]), p, meta)
    # Bare YOLO weights: single-stage; the operating point may sit beside it as <name>.json.
    side = p.with_suffix(".json")
    meta = json.loads(side.read_text()) if side.is_file() else {}
    detector = _load_yolo(p)
    names = list(getattr(detector, "names", {}).values())
    if names and names != list(CLASS_NAMES) and len(names) != 1:
        raise ValueError(f"{p}: detector classes {names[:5]}... do not match vision.classes")
    return TileModel(detector, None, float(meta.get("conf", 0.25)), int(meta.get("det_imgsz", 640)), p, meta)


def load_model(path: str | Path | None = None) -> TileModel:
    """Load (once per process, cached) the shipped model or the given model.json / YOLO .pt."""
    return _load_cached(str(Path(path or DEFAULT_MODEL).resolve()))


#: The detector never looks at more than this many pixels per side of the original: views are cut
#: from one area-averaged copy this size, so the extra aspect views below stay cheap on 12 MP photos.
MID_SIDE = 1536

#: Aspect views (x squeeze, y squeeze) tried besides the photo as it is. Some photos reach us with
#: their aspect ratio distorted: dataset exports and some apps stretch every image to a square, so a
#: column of tiles turns into bars 10x wider than high, which the detector (trained on tiles of
#: normal proportions) does not see as tiles. Squeezing the view by the right factor restores them.
ASPECT_VIEWS: tuple[tuple[int, int], ...] = ((4, 1), (8, 1), (1, 4), (1, 8))

#: An aspect view replaces the photo as it is only if it reads at least this many times the
#: confident-tile mass AND at least ASPECT_GAIN more (sum of tile confidences at the operating point).
#: Both bars keep ordinary photos on the plain view: on 400 ordinary train photos the rule switched
#: 2 and changed no photo's reading from right to wrong.
ASPECT_FACTOR, ASPECT_GAIN = 2.0, 1.0


def _mid_image(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The photo area-averaged down to MID_SIDE (or as it is); returns it and its scale to original."""
    h, w = image.shape[:2]
    scale = max(h, w) / MID_SIDE
    if scale <= 1:
        return image, 1.0
    return cv2.resize(image, (round(w / scale), round(h / scale)), interpolation=cv2.INTER_AREA), scale


def _detector_view(
    image: np.ndarray, imgsz: int, squeeze: tuple[int, int] = (1, 1)
) -> tuple[np.ndarray, float, float]:
    """Downscale with area averaging (ultralytics' bilinear resize aliases badly on big photos) to the
    detector's size, squeezed by `squeeze` (x, y); returns the BGR view and the x and y scales from
    view to `image` pixels."""
    h, w = image.shape[:2]
    sw, sh = w / squeeze[0], h / squeeze[1]
    scale = max(1.0, max(sw, sh) / imgsz)
    vw, vh = max(1, round(sw / scale)), max(1, round(sh / scale))
    view = image if (vw, vh) == (w, h) else cv2.resize(image, (vw, vh), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(view[:, :, ::-1]), w / vw, h / vh


def classify_crops(classifier: TileNet, crops: np.ndarray) -> np.ndarray:
    """Class probabilities per crop, averaged over the crop, its 180-degree turn and both mirrors.

    The classifier is trained on all four (tiles lie either way round; some train photos are
    mirrored), so averaging them is a free ensemble: on real val it read 2.8 % more photos fully
    right (round-4 classifier, plain view: 0.677 -> 0.706).
    """
    x = crops_to_tensor(crops)
    views = (x, torch.flip(x, [2, 3]), torch.flip(x, [3]), torch.flip(x, [2]))
    with torch.inference_mode():
        return torch.stack([torch.softmax(classifier(v), 1) for v in views]).mean(0).numpy()


@dataclass
class _ViewReading:
    """Boxes (original pixels), detector confidence, and class probabilities of one view."""

    boxes: np.ndarray
    det_conf: np.ndarray
    det_cls: np.ndarray
    probs: np.ndarray | None

    def tile_conf(self) -> np.ndarray:
        """Confidence that each box is a tile with the face read (detector x classifier)."""
        if self.probs is None:
            return self.det_conf
        return self.det_conf * self.probs[:, :NUM_CLASSES].max(1, initial=0.0)

    def score(self, conf: float) -> float:
        """Confident-tile mass: sum of tile confidences at or above the operating point."""
        c = self.tile_conf()
        return float(c[c >= conf].sum())


def _read_view(
    tm: TileModel,
    mid: np.ndarray,
    mid_scale: float,
    size: tuple[int, int],
    squeeze: tuple[int, int],
    floor: float,
) -> _ViewReading:
    """Run the detector on one (possibly squeezed) view; boxes in original pixels (`size` = w, h).
    Faces are not read yet (see _with_faces): most aspect views never need it."""
    view, sx, sy = _detector_view(mid, tm.det_imgsz, squeeze)
    result = tm.detector.predict(view, imgsz=tm.det_imgsz, conf=floor, iou=0.6, verbose=False, device="cpu")
    found = result[0].boxes
    boxes = found.xyxy.cpu().numpy().astype(np.float64).reshape(-1, 4)
    boxes[:, [0, 2]] = (boxes[:, [0, 2]] * sx * mid_scale).clip(0, size[0])
    boxes[:, [1, 3]] = (boxes[:, [1, 3]] * sy * mid_scale).clip(0, size[1])
    det_conf = found.conf.cpu().numpy().astype(np.float64)
    return _ViewReading(boxes, det_conf, found.cls.cpu().numpy().astype(int), None)


def _with_faces(tm: TileModel, rgb: np.ndarray, reading: _ViewReading) -> _ViewReading:
    """The reading with each box's face read by the classifier from a crop of the original photo."""
    if tm.classifier is None:
        return reading
    boxes = reading.boxes
    probs = (
        classify_crops(tm.classifier, crop_tiles(rgb, boxes)) if len(boxes) else np.zeros((0, NUM_CLASSES))
    )
    return _ViewReading(reading.boxes, reading.det_conf, reading.det_cls, probs)


def switch_bar(base: float) -> float:
    """Confident-tile mass an aspect view needs to replace a plain view that has `base`."""
    return max(ASPECT_FACTOR * base, base + ASPECT_GAIN)


def choose_view(base: float, others: list[float]) -> int:
    """Index of the view to keep: -1 for the photo as it is, else the best aspect view that clears
    both ASPECT_FACTOR x and +ASPECT_GAIN over the plain view's confident-tile mass."""
    bar = switch_bar(base)
    best = -1
    for i, s in enumerate(others):
        if s >= bar and (best < 0 or s > others[best]):
            best = i
    return best


def _best_reading(tm: TileModel, rgb: np.ndarray, floor: float, aspect_views: bool) -> _ViewReading:
    """The plain view's reading, or an aspect view's where `choose_view` prefers it; boxes down to
    detector confidence `floor`.

    Views are compared at the operating point, so aspect views are detected at it (cheap). A view's
    score is at most its detector mass (class probabilities are <= 1), so faces are read only in
    views that could still win; the chosen view is read again only when the caller asked for
    lower-confidence candidates too.
    """
    mid, mid_scale = _mid_image(rgb)
    size = (rgb.shape[1], rgb.shape[0])
    plain = _with_faces(tm, rgb, _read_view(tm, mid, mid_scale, size, (1, 1), floor))
    if not (aspect_views and ASPECT_VIEWS):
        return plain
    bar = switch_bar(plain.score(tm.conf))
    others = [_read_view(tm, mid, mid_scale, size, sq, tm.conf) for sq in ASPECT_VIEWS]
    others = [_with_faces(tm, rgb, o) if o.score(tm.conf) >= bar else o for o in others]
    pick = choose_view(plain.score(tm.conf), [o.score(tm.conf) for o in others])
    if pick < 0:
        return plain
    if floor < tm.conf:
        return _with_faces(tm, rgb, _read_view(tm, mid, mid_scale, size, ASPECT_VIEWS[pick], floor))
    return others[pick]


def detect(
    image: str | Path | np.ndarray,
    conf: float | None = None,
    model: TileModel | str | Path | None = None,
    aspect_views: bool = True,
) -> list[Detection]:
    """Detect and read every tile in a photo.

    `image` is a file path (loaded upright, see vision.imageio) or an upright RGB uint8 array.
    `conf` defaults to the model's stored operating point; a low value (0.01) returns the
    low-confidence candidates too, e.g. for evaluation curves. Boxes are in original pixels,
    sorted left to right. With `aspect_views` (default) a photo whose aspect looks distorted is
    also read through squeezed views (see ASPECT_VIEWS); the view is chosen at the model's own
    operating point, so `conf` only filters what is returned.
    """
    tm = model if isinstance(model, TileModel) else load_model(model)
    threshold = tm.conf if conf is None else float(conf)
    rgb = load_image(image) if isinstance(image, (str, Path)) else np.asarray(image)
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError("image array must be H x W x 3 uint8 RGB")
    # The detector's own floor: a face needs det_conf * p_class >= threshold, so det_conf >= threshold.
    floor = max(min(threshold, tm.conf), 0.001)
    reading = _best_reading(tm, rgb, floor, aspect_views)
    if len(reading.boxes) == 0:
        return []
    boxes, det_conf, det_cls = reading.boxes, reading.det_conf, reading.det_cls
    detections: list[Detection] = []
    if reading.probs is not None:
        probs = reading.probs
        # `other` (if the classifier has it) only takes probability away from the 35 real classes.
        for box, dc, p in zip(boxes, det_conf, probs[:, :NUM_CLASSES], strict=True):
            order = np.argsort(-p)[: MAX_ALTERNATIVES + 1]
            scores = [(CLASS_NAMES[k], float(dc * p[k])) for k in order]
            if scores[0][1] < threshold:
                continue
            detections.append(Detection(scores[0][0], scores[0][1], tuple(map(float, box)), scores[1:]))
    else:
        names = tm.detector.names
        single = len(names) == 1
        for box, dc, c in zip(boxes, det_conf, det_cls, strict=True):
            if dc < threshold:
                continue
            name = "tile" if single else names[int(c)]
            detections.append(Detection(name, float(dc), tuple(map(float, box)), []))
    detections.sort(key=lambda d: (d.xyxy[0], d.xyxy[1]))
    return detections
