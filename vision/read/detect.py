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

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch

from vision import _env
from vision.classes import BACK_ID, CLASS_NAMES, FLOWER_ID, NUM_CLASSES
from vision.read import learnt as learnt_merge
from vision.read import manifest, mirror, onnx_run, safe_weights
from vision.read.boxes import elongation
from vision.read.maybe_missed import MAYBE_FLOOR, split_doubted
from vision.read.operating_point import DEFAULT, SQUARE_PAIR_PIXELS, OperatingPoint

# PhotoPixels and the canvas live in their own module; read from here as they always were.
from vision.read.photo_pixels import DECODE_FACTOR, PhotoPixels, off_canvas, on_canvas
from vision.read.row_rescue import (
    MIN_WHOLE,
    alone_rescued,
    cut_by_frame,
    rescued,
    too_big_for_a_cut_tile,
    unsure_photo_rescued,
)
from vision.read.suppress import keep_one_per_tile
from vision.read.tilenet import (
    GATE_OUTPUTS,
    TileNet,
    classifier_outputs,
    flower_probability,
    flower_probability_on_trunk,
    for_reading,
    from_state,
    read_crops,
    shared_convs,
    trunk_end,
)
from vision.read.yolo_nms import greedy_keep

MODELS_DIR = _env.REPO_ROOT / "models"
DEFAULT_MODEL = MODELS_DIR / "model.json"
MAX_ALTERNATIVES = 5


@dataclass
class Detection:
    """One tile, in pixels of the upright original image.

    `tile_conf`: how sure the reader is that a tile is there (the operating point is decided on it);
    `face_conf`: how sure it is of the face `cls`; `conf` = tile_conf x face_conf (the single score
    of earlier versions, still what mAP ranks by). `unsure`: a sure tile with a doubtful face; the
    page shows it orange and offers `alternatives` (next faces, ranked, with their face probability).
    """

    cls: str
    conf: float
    xyxy: tuple[float, float, float, float]
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    tile_conf: float | None = None
    face_conf: float = 1.0
    unsure: bool = False

    def __post_init__(self) -> None:
        if self.tile_conf is None:
            self.tile_conf = self.conf

    def to_json(self) -> dict:
        """JSON-ready dict in the CLI's schema."""
        return {
            "cls": self.cls,
            "conf": round(self.conf, 4),
            "tile_conf": round(float(self.tile_conf), 4),
            "face_conf": round(self.face_conf, 4),
            "unsure": self.unsure,
            "xyxy": [round(v, 1) for v in self.xyxy],
            "alternatives": [[c, round(p, 4)] for c, p in self.alternatives],
        }


@dataclass
class TileModel:
    """A loaded model: detector (+ classifier for the two-stage kind) and its operating point."""

    detector: object
    classifier: TileNet | None
    op: OperatingPoint
    det_imgsz: int
    path: Path
    meta: dict
    #: A player's model: the detector adapted to the player's photos, read beside `detector`, and
    #: the detector confidence from which its boxes are added (vision.read.manifest).
    learnt: object | None = None
    learnt_conf: float = 0.5
    #: Above 0: base boxes the learnt detector does not confirm are dropped (vision.read.manifest).
    learnt_veto: float = 0.0
    #: Above 0: a base box the learnt detector sees as the same tile but outlines differently (IoU
    #: under this) takes the learnt box's outline (vision.read.manifest).
    learnt_refit: float = 0.0
    #: The flower gate (model.json's `flower_gate`): a TileNet reading tile / flower, or None.
    flower_gate: TileNet | None = None
    #: Above 0: the gate's first layers (`features[:gate_trunk]`) are the classifier's, weight for
    #: weight (vision.read.tilenet.shared_convs), so the gate reads the classifier's activations of
    #: the crops and runs only its own last layers.
    gate_trunk: int = 0

    @property
    def conf(self) -> float:
        return self.op.conf

    @property
    def tile_conf(self) -> float:
        return self.op.tile_conf

    @property
    def face_conf(self) -> float:
        return self.op.face_conf

    @property
    def lowest_returned(self) -> float:
        """The lowest tile confidence a box may be returned at: tile_conf, or OperatingPoint.
        row_rescue's low bar where the reader rescues (the detector's floor and the flower gate's
        questions both start there)."""
        return min(self.tile_conf, self.op.row_rescue) if self.op.row_rescue > 0 else self.tile_conf

    @property
    def two_stage(self) -> bool:
        """True when faces are read by the crop classifier."""
        return self.classifier is not None


def _load_yolo(path: Path) -> object:
    """The YOLO detector in `path`: read on ONNX Runtime where its export of exactly these weights
    lies beside it (vision.read.onnx_run; the weights themselves are then only hashed), else loaded
    without unpickling code (vision.read.safe_weights)."""
    _env.keep_pil_open_offline()
    session = onnx_run.session_for(path)
    detector: object | None = None
    if session is not None:
        # An export without ultralytics' metadata (ValueError): torch reads the weights.
        with contextlib.suppress(ValueError):
            detector = onnx_run.OnnxDetector.from_session(session)
    if detector is None:
        detector = safe_weights.load_detector(path)
    _env.use_every_core()  # after ultralytics' import, which leaves one core idle
    return detector


@lru_cache(maxsize=4)
def _load_cached(path: str) -> TileModel:
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"model file not found: {p}")
    if p.suffix == ".json":
        m = manifest.read(p)
        names = (m.detector, m.classifier, m.learnt_detector, m.flower_gate)
        files = {name: manifest.weights_path(p, name) for name in names if name}
        for name, file in files.items():
            if not file.is_file():
                raise manifest.ModelFileError(f"{p}: weights file {name} is missing beside it")
        detector = _load_yolo(files[m.detector])
        # Each crop net's weights read once: its reading net and the gate's shared blocks come from them.
        states = {
            name: safe_weights.load_state_dict(files[name]) for name in (m.classifier, m.flower_gate) if name
        }
        classifier = None
        if m.classifier:
            classifier = _net_for_reading(
                p, files[m.classifier], states[m.classifier], "a tile classifier",
                len(m.classifier_classes), m.classifier_width,
            )  # fmt: skip
        meta = m.to_dict()
        learnt = _load_yolo(files[m.learnt_detector]) if m.learnt_detector else None
        gate, gate_trunk = None, 0
        if m.flower_gate:
            gate = _net_for_reading(
                p, files[m.flower_gate], states[m.flower_gate], "a flower gate (tile / flower)", GATE_OUTPUTS
            )
            if classifier is not None:
                gate_trunk = _gate_trunk(states[m.classifier], states[m.flower_gate], gate)
        return TileModel(
            detector, classifier, m.op, m.det_imgsz, p, meta,
            learnt=learnt, learnt_conf=m.learnt_conf, learnt_veto=m.learnt_veto,
            learnt_refit=m.learnt_refit, flower_gate=gate, gate_trunk=gate_trunk,
        )  # fmt: skip
    # Bare YOLO weights: single-stage; the operating point may sit beside it as <name>.json.
    side = p.with_suffix(".json")
    meta = json.loads(side.read_text()) if side.is_file() else {}
    detector = _load_yolo(p)
    names = list(getattr(detector, "names", {}).values())
    if names and names != list(CLASS_NAMES) and len(names) != 1:
        raise ValueError(f"{p}: detector classes {names[:5]}... do not match vision.classes")
    try:
        op = OperatingPoint.from_json(
            {"conf": DEFAULT.conf, **meta}, legacy_tile_conf="tile_conf" not in meta
        )
    except ValueError as exc:
        raise manifest.ModelFileError(f"{side}: {exc}") from exc
    return TileModel(detector, None, op, int(meta.get("det_imgsz", 640)), p, meta)


def _gate_trunk(classifier_state: dict, gate_state: dict, gate: TileNet) -> int:
    """Where the gate's own layers start in its reading net when its first conv blocks are the
    classifier's (`shared_convs`); 0 when none is: the gate then reads the crops whole. Checked on
    the weights themselves, so a player's adapted classifier with the base's gate reads as before."""
    shared = shared_convs(classifier_state, gate_state)
    return trunk_end(gate.features, shared) if shared else 0


def _net_for_reading(
    model_json: Path, file: Path, state: dict, what: str, outputs: int, width: int | None = None
) -> TileNet:
    """The TileNet of `state`, the weights in `file` (`what`: a tile classifier, a flower gate),
    batch norms folded for reading; one ModelFileError naming model.json and the file when the
    weights are not that net: not a TileNet, `outputs` outputs other than model.json's, or not of
    `width` (None: the file's own, as `vision flower-gate --width` chose it). One loader, so both
    nets fail alike."""
    try:
        got = classifier_outputs(state)
        width = width or int(state["features.0.weight"].shape[0])
    except (KeyError, IndexError) as exc:
        raise manifest.ModelFileError(f"{model_json}: {file.name} is not {what}") from exc
    if got != outputs:
        raise manifest.ModelFileError(
            f"{model_json}: {file.name} is not {what}: it has {got} outputs, model.json names {outputs}"
        )
    try:
        net = from_state(state, width)
    except RuntimeError as exc:
        raise manifest.ModelFileError(
            f"{model_json}: {file.name} does not fit a width-{width} TileNet"
        ) from exc
    return for_reading(net.eval())  # batch norms folded in: a third faster


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
ASPECT_VIEWS: tuple[tuple[float, float], ...] = ((4, 1), (8, 1), (1, 4), (1, 8))


def aspect_views_of(op: OperatingPoint) -> tuple[tuple[float, float], ...]:
    """The aspect views a reader tries: ASPECT_VIEWS, then the mild pair of OperatingPoint.mild_view
    (squeezed 1 / mild_view in width, then in height) when it has one."""
    if op.mild_view <= 0:
        return ASPECT_VIEWS
    k = 1.0 / op.mild_view
    return (*ASPECT_VIEWS, (k, 1.0), (1.0, k))


#: An aspect view replaces the photo as it is only if it reads more than this many times the
#: confident-tile mass AND more than ASPECT_GAIN more (sum of tile confidences at the operating
#: point; view_bar).
#: Both bars keep ordinary photos on the plain view (what the rule does on ordinary photos is
#: measured in models/MODEL_CARD.md).
ASPECT_FACTOR, ASPECT_GAIN = 2.0, 1.0
#: The aspect views are computed only when the plain view says the photo may be distorted: fewer
#: than ASPECT_MIN_TILES confident tiles, or tiles whose median long/short side ratio exceeds
#: ASPECT_MAX_RATIO. A tile face is 4:3 whichever way it lies; squeezed 4x (the mildest of
#: ASPECT_VIEWS) it is at least 3:1, and 2x (the mild pair, OperatingPoint.mild_view) 2.7:1, so
#: ordinary photos skip detector passes that could not win.
ASPECT_MIN_TILES, ASPECT_MAX_RATIO = 4, 2.5
#: A box counts towards its view's score only if its long side is at most this many times its short
#: side in that view: a tile is 4:3, foreshortened on a table seen low perhaps 2:1; the half tiles
#: and whole strips boxed in the wrong view of a stretched photo are 8:1 and more.
VIEW_MAX_RATIO = 3.0

#: YOLOv8's largest stride: a detector input size is a multiple of it (OperatingPoint.small_view).
DETECTOR_STRIDE = 32


def _mid_image(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The photo area-averaged down by a whole factor to about MID_SIDE (or as it is); returns it and
    its scale to the original. A whole factor keeps OpenCV on its fast area path (a 12 MP photo to
    a third in a few ms instead of ~50 ms for an arbitrary factor); the at most factor-1 pixels of
    the right and bottom edge that do not fill a block are left out."""
    h, w = image.shape[:2]
    k = max(1, round(max(h, w) / MID_SIDE))
    if k == 1:
        return image, 1.0
    block = image[: h - h % k, : w - w % k]
    return cv2.resize(block, (w // k, h // k), interpolation=cv2.INTER_AREA), float(k)


def _detector_view(
    image: np.ndarray, imgsz: int, squeeze: tuple[float, float] = (1, 1)
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


@dataclass
class _ViewReading:
    """Boxes (original pixels), detector confidence, and class probabilities of one view."""

    boxes: np.ndarray
    det_conf: np.ndarray
    det_cls: np.ndarray
    probs: np.ndarray | None
    #: The view's squeeze (x, y): how the boxes looked to the detector (see ASPECT_VIEWS).
    squeeze: tuple[float, float] = (1, 1)
    #: The reader's OperatingPoint.flower_at_least (tile_and_face).
    flower_at_least: float = 0.0
    #: The reader's OperatingPoint.flower_tile_share (tile_and_face).
    flower_tile_share: float = 1.0
    #: Whether a box may be called a flower at all: not in a photo that looks distorted (_best_reading).
    flowers: bool = True
    #: Whether the view shows its tiles in their own proportions though the photo is distorted
    #: (the mild pair with OperatingPoint.mild_undistorted): see `undistorted` and `boxes_as_seen`.
    true_proportions: bool = False
    #: Per box, the flower gate's flower probability (TileModel.flower_gate), or None.
    gate: np.ndarray | None = None
    #: The reader's OperatingPoint.flower_gate_at_least (tile_and_face).
    gate_at_least: float = 0.0

    @property
    def undistorted(self) -> bool:
        """Whether the view shows the tiles as taken (not stretched out of their aspect): where
        boxes' sizes and the frame's cuts say something of the tiles (the rescues' and
        cut_bigger's guards). A photo that looks as taken (`flowers`, named for what those rules
        ask of it), or a view that squeezed it back (`true_proportions`)."""
        return self.flowers or self.true_proportions

    def boxes_as_seen(self, size: tuple[int, int]) -> tuple[np.ndarray, tuple[float, float]]:
        """The boxes and the frame's (w, h) as the detector saw them, for the rules on boxes'
        sizes and the frame's cuts: squeezed back in a view of `true_proportions`, else as they
        are in the photo (a heavy view's squeezed boxes are halves and strips, not tiles)."""
        if not self.true_proportions:
            return self.boxes, size
        sx, sy = self.squeeze
        return self.boxes / np.array([sx, sy, sx, sy]), (size[0] / sx, size[1] / sy)

    def sure_boxes(self, conf: float) -> np.ndarray:
        """The boxes whose tile confidence is at least `conf`: what looks_distorted, looks_tall and
        looks_close judge a photo's tiles by."""
        return self.boxes[self.tile_conf() >= conf]

    def tile_conf(self) -> np.ndarray:
        """Confidence that each box is a tile at all, the number the operating point thresholds
        (tile_and_face). Not how sure its face is: a view in which the tiles are there but blurred
        (a column of tiles stretched tenfold and squeezed back) must still win over a view with
        no tiles; its doubtful faces are marked unsure."""
        return tile_and_face(self)[0]

    def tile_shaped(self) -> np.ndarray:
        """Per box: whether it had a tile's proportions in the view the detector read (long side at
        most VIEW_MAX_RATIO x the short). In the wrong view of a stretched photo the detector still
        boxes something, but halves of tiles 8:1 or whole strips 12:1; those are not counted."""
        return elongation(self.boxes, self.squeeze) <= VIEW_MAX_RATIO

    def score(self, conf: float) -> float:
        """How many tiles this view would read right, expected: over the boxes it would return (tile
        confidence at or above the operating point, a tile's shape in this view), the sum of
        P(tile) x P(its face). Whether a box is returned does not hang on its face (blurred tiles
        of a stretched photo still count, a little each); how much it counts does, so a view
        whose boxes are blends of several things (a photo of flower tiles squeezed 8x) does not
        win on boxes nobody can read. Without faces read yet: the detector's mass, an upper bound."""
        tile, face = tile_and_face(self)
        counted = (tile >= conf) & self.tile_shaped()
        sure = face.max(1) if face.shape[1] else 1.0
        return float((tile * sure)[counted].sum())

    def long_axis(self, conf: float, max_ratio: float) -> int | None:
        """The axis (0 x, 1 y) along which the sure boxes (tile confidence >= `conf`, at least
        ASPECT_MIN_TILES) are longer than a tile can be (_long_axis_of); None where they are not,
        or too few to tell."""
        return _long_axis_of(self.sure_boxes(conf), max_ratio)

    def looks_distorted(self, conf: float, max_ratio: float = ASPECT_MAX_RATIO) -> bool:
        """Too few confident tiles to tell, or tiles far longer than a tile is (their median long
        side over `max_ratio` x the short; see ASPECT_MAX_RATIO and distortion_ratio).
        Counted by tile confidence, not by how sure their faces are: a print the classifier never
        saw, seen from the seat, is many doubtful faces, no distorted photo (squeezed 8x its tiles
        blend into tall strips that read as confident backs). Measured in models/MODEL_CARD.md."""
        b = self.sure_boxes(conf)
        return len(b) < ASPECT_MIN_TILES or _long_axis_of(b, max_ratio) is not None

    def tells_shape(self, conf: float) -> bool:
        """Whether enough boxes are sure (ASPECT_MIN_TILES) for their shape to say whether the photo
        looks distorted; with fewer, looks_distorted says it does."""
        return len(self.sure_boxes(conf)) >= ASPECT_MIN_TILES


def _long_axis_of(b: np.ndarray, max_ratio: float) -> int | None:
    """The axis (0 x, 1 y) along which boxes `b` (at least ASPECT_MIN_TILES) are longer than a tile
    can be (median long/short side over `max_ratio`), by their median height/width; None where
    they are not, or too few to tell."""
    if len(b) < ASPECT_MIN_TILES or float(np.median(elongation(b))) <= max_ratio:
        return None
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    return 1 if float(np.median(h / np.maximum(w, 1e-6))) > 1.0 else 0


def _read_view(
    tm: TileModel,
    mid: np.ndarray,
    mid_scale: float,
    size: tuple[int, int],
    squeeze: tuple[float, float],
    floor: float,
    flowers: bool = True,
    imgsz: int | None = None,
    squat: float = 1.0,
    mirrored: bool = False,
) -> _ViewReading:
    """Run the detector on one (possibly squeezed) view; boxes in original pixels (`size` = w, h).
    Faces are not read yet (see _with_faces): most aspect views never need it. `flowers`: see
    _ViewReading.flowers. `imgsz`: the detector's input size for this view (default the model's).
    `squat`: the detector sees the view's height x this (camera_squat_of); the reading is still
    the view's (its `squeeze` says how the rules see the boxes). `mirrored`: the detector also
    reads the view's mirror image, and the two readings are averaged (vision.read.mirror)."""
    imgsz = imgsz or tm.det_imgsz
    view, sx, sy = _detector_view(mid, imgsz, (squeeze[0], squeeze[1] / squat))
    boxes, det_conf, det_cls = _boxes_of(tm.detector, view, imgsz, floor, tm.op.nms_iou)
    if mirrored:
        m_boxes, m_conf, m_cls = _boxes_of(
            tm.detector, np.ascontiguousarray(view[:, ::-1]), imgsz, floor, tm.op.nms_iou
        )
        boxes, det_conf, det_cls = mirror.mean_of_two(
            (boxes, det_conf, det_cls),
            (mirror.unmirrored(m_boxes, view.shape[1]), m_conf, m_cls),
            tm.op.nms_iou,
            floor,
        )
    if tm.learnt is not None:
        boxes, det_conf, det_cls = _with_learnt(tm, view, imgsz, (boxes, det_conf, det_cls))
    boxes[:, [0, 2]] = (boxes[:, [0, 2]] * sx * mid_scale).clip(0, size[0])
    boxes[:, [1, 3]] = (boxes[:, [1, 3]] * sy * mid_scale).clip(0, size[1])
    proportions = tm.op.mild_undistorted > 0 and is_mild_view(tm.op, squeeze)
    return _ViewReading(
        boxes, det_conf, det_cls, None, squeeze, flowers=flowers, true_proportions=proportions
    )


def _read_zoomed(tm: TileModel, frame: _Frame, floor: float) -> _ViewReading:
    """The photo read centred on a canvas 1 / OperatingPoint.zoom_view times its size (on_canvas)
    as any view is read (_read_view); boxes in the photo's pixels (`frame.size`), clipped to the
    photo, none left that lies on the canvas alone. Faces are not read yet."""
    canvas, offset = on_canvas(frame.mid, 1.0 / tm.op.zoom_view)
    read = _read_view(tm, canvas, 1.0, (canvas.shape[1], canvas.shape[0]), (1, 1), floor)
    boxes = off_canvas(read.boxes, offset, frame.mid_scale, frame.size)
    inside = (boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])
    return replace(read, boxes=boxes[inside], det_conf=read.det_conf[inside], det_cls=read.det_cls[inside])


def looks_close(tm: TileModel, reading: _ViewReading, size: tuple[int, int]) -> bool:
    """Whether a reading's sure boxes (tile confidence >= tile_conf) are, at the median, at least
    OperatingPoint.zoom_view_at of the photo's long side on their long side: a close-up."""
    if not 0 < tm.op.zoom_view < 1 or tm.op.zoom_view_at <= 0:
        return False
    b = reading.sure_boxes(tm.tile_conf)
    if not len(b):
        return False
    long_side = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
    return float(np.median(long_side)) >= tm.op.zoom_view_at * max(size)


def _boxes_of(
    detector: object, view: np.ndarray, imgsz: int, floor: float, iou: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One detector's boxes (view pixels), confidences and classes on one view."""
    if isinstance(detector, onnx_run.OnnxDetector):
        return detector.boxes(view, imgsz, floor, iou)
    found = detector.predict(view, imgsz=imgsz, conf=floor, iou=iou, verbose=False, device="cpu")[0].boxes
    boxes = found.xyxy.cpu().numpy().astype(np.float64).reshape(-1, 4)
    return boxes, found.conf.cpu().numpy().astype(np.float64), found.cls.cpu().numpy().astype(int)


def _with_learnt(
    tm: TileModel, view: np.ndarray, imgsz: int, base: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The base detector's boxes with the learnt detector's (a player's model) on the same view at
    the same input size, as vision.read.learnt.merge decides which stand."""
    floor = learnt_merge.floor(tm.learnt_conf, tm.learnt_veto)
    found = _boxes_of(tm.learnt, view, imgsz, floor, tm.op.nms_iou)
    return learnt_merge.merge(base, found, tm.op.tile_conf, tm.learnt_conf, tm.learnt_veto, tm.learnt_refit)


def _with_faces(
    tm: TileModel, pixels: PhotoPixels, reading: _ViewReading, as_taken: bool = False
) -> _ViewReading:
    """The reading with each box's face read by the classifier from a crop of the photo.
    `as_taken`: each crop is turned upright by its box's shape in the photo as it is, whatever view
    found it (OperatingPoint.pair_as_taken), as in the plain view."""
    if tm.classifier is None:
        return reading
    boxes = reading.boxes
    if not len(boxes):
        return replace(reading, probs=np.zeros((0, NUM_CLASSES)))
    as_seen = not as_taken and tm.op.mild_as_seen > 0 and is_mild_view(tm.op, reading.squeeze)
    crops = crops_as_seen(pixels, boxes, reading.squeeze) if as_seen else pixels.crops(boxes)
    gated = tm.flower_gate is not None and tm.op.flower_gate_at_least > 0 and reading.flowers
    # A gate that shares the classifier's first blocks (TileModel.gate_trunk) reads their activations: kept.
    first = read_crops(tm.classifier, crops, tm.op.tta_below, tm.gate_trunk if gated else 0)
    probs, trunk = first.probs, first.trunk
    if reading.squeeze != (1, 1) and tm.op.turn_below > 0 and not (as_seen or as_taken):
        probs = _surer_turned(tm, pixels, boxes, probs)
    read = replace(
        reading, probs=probs, flower_at_least=tm.op.flower_at_least, flower_tile_share=tm.op.flower_tile_share
    )
    if not gated:
        return read
    return replace(
        read,
        gate=_gate_where_returnable(tm, read, crops, trunk),
        gate_at_least=tm.op.flower_gate_at_least,
    )


def is_mild_view(op: OperatingPoint, squeeze: tuple[float, float]) -> bool:
    """Whether `squeeze` is one of the mild pair of aspect views (OperatingPoint.mild_view), not
    the photo as it is nor a 4x or 8x view."""
    return op.mild_view > 0 and squeeze != (1, 1) and max(squeeze) <= 1.0 / op.mild_view + 1e-9


def crops_as_seen(pixels: PhotoPixels, boxes: np.ndarray, squeeze: tuple[float, float]) -> np.ndarray:
    """Crops of `boxes` (photo pixels), each turned upright by the box's shape in the view squeezed
    by `squeeze` (x, y), where the detector saw it, not by its shape in the stretched photo: a
    lying tile that an export narrowed looks portrait in the photo and landscape in the view."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    other_way = (w > h) != (w / squeeze[0] > h / squeeze[1])
    crops = pixels.crops(b)
    if other_way.any():
        crops[other_way] = pixels.crops(b[other_way], turned=True)
    return crops


def _gate_where_returnable(
    tm: TileModel, reading: _ViewReading, crops: np.ndarray, trunk: torch.Tensor | None = None
) -> np.ndarray:
    """The flower gate's reading of each box the reader could return (tile confidence before the
    gate at or above tile_conf, or row_rescue where it rescues) whose face it doubts (best face
    under OperatingPoint.flower_gate_below); 0 for the rest, which it returns as faces or not at
    all. Why: the page reads every box down to the maybe-missed floor, about twice the boxes it
    returns, and the gate's pass over all of them cost more than the page's speed budget had
    (models/MODEL_CARD.md, stop 52); a flower under the point may be offered as maybe missed, as
    every reader before the gate returned it. `trunk`: the classifier's activations of `crops`
    (TileModel.gate_trunk), from which a gate sharing them reads."""
    tile, face = tile_and_face(reading)
    asked = np.flatnonzero((tile >= tm.lowest_returned) & (face.max(1) < tm.op.flower_gate_below))
    gate = np.zeros(len(tile))
    if len(asked):
        if trunk is not None:
            gate[asked] = flower_probability_on_trunk(
                tm.flower_gate, trunk[torch.from_numpy(asked)], tm.gate_trunk
            )
        else:
            gate[asked] = flower_probability(tm.flower_gate, crops[asked])
    return gate


def _surer_turned(tm: TileModel, pixels: PhotoPixels, boxes: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """`probs` with each doubtful box (its surest face under `turn_below`) read again from its
    crop turned the other way, where that reading is surer of a face (OperatingPoint.turn_below:
    in a stretched photo a box's shape does not say whether its tile stood or lay)."""
    surest = probs[:, :NUM_CLASSES].max(1)
    doubt = np.flatnonzero(surest < tm.op.turn_below)
    if not len(doubt):
        return probs
    turned = read_crops(tm.classifier, pixels.crops(boxes[doubt], turned=True), tm.op.tta_below).probs
    better = turned[:, :NUM_CLASSES].max(1) > surest[doubt]
    out = probs.copy()
    out[doubt[better]] = turned[better]
    return out


def could_be_stretched(op: OperatingPoint, size: tuple[int, int]) -> bool:
    """Whether a photo of `size` (w, h) may be an export stretched out of its aspect, so worth its
    aspect views: any photo, or with OperatingPoint.square_views only a square one."""
    if op.square_views <= 0:
        return True
    return abs(size[0] - size[1]) <= op.square_views * max(size)


def camera_squat_of(tm: TileModel, size: tuple[int, int]) -> float:
    """How much squatter the detector sees a photo of `size` (w, h) than it is: the reader's
    OperatingPoint.camera_squat for a photo at its camera's aspect (with square_views, not a
    square) read without a player's learnt detector; else 1 (as it is)."""
    op = tm.op
    if op.camera_squat <= 0 or op.square_views <= 0 or tm.learnt is not None:
        return 1.0
    return 1.0 if could_be_stretched(op, size) else op.camera_squat


def looks_tall(reading: _ViewReading, conf: float, below: float) -> bool:
    """Whether the sure boxes (tile confidence >= `conf`, at least ASPECT_MIN_TILES of them) are
    narrower than `below` (median width / height; 0: always), so worth reading squatter
    (OperatingPoint.camera_squat_below)."""
    if below <= 0:
        return True
    b = reading.sure_boxes(conf)
    if len(b) < ASPECT_MIN_TILES:
        return False
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    return float(np.median(w / np.maximum(h, 1e-6))) < below


def distortion_ratio(op: OperatingPoint, size: tuple[int, int]) -> float:
    """The median long/short side ratio of its tiles above which a photo of `size` (w, h) looks
    distorted: 1 / OperatingPoint.distorted_below for a photo that could be stretched, where the
    reader has that key; else ASPECT_MAX_RATIO."""
    if op.distorted_below > 0 and could_be_stretched(op, size):
        return 1.0 / op.distorted_below
    return ASPECT_MAX_RATIO


def small_view_size(tm: TileModel) -> int:
    """The detector's input size for OperatingPoint.small_view: that share of the model's, rounded
    to the detector's stride (at least one stride); 0 when the reader has none."""
    if tm.op.small_view <= 0:
        return 0
    return max(DETECTOR_STRIDE, round(tm.det_imgsz * tm.op.small_view / DETECTOR_STRIDE) * DETECTOR_STRIDE)


def _pooled(
    tm: TileModel,
    pixels: PhotoPixels,
    read: _ViewReading,
    again: _ViewReading,
    plain_first: bool | None = None,
) -> _ViewReading:
    """`read` (faces read) and `again` (another view of the same photo, its boxes in the photo's
    pixels) as one reading: both sets of boxes suppressed together by detector confidence at the
    reader's NMS IoU, as one detector run would suppress its own; the faces of `read`'s kept boxes
    are reused, those of `again`'s kept boxes too where it has faces (a kept 2x view, read as its
    own keys say), else read from their crops. With `plain_first` (by default
    OperatingPoint.small_view_plain_first), `read`'s sure boxes go first, so no box of `again`
    replaces one."""
    if not len(again.boxes):
        return read
    if plain_first is None:
        plain_first = tm.op.small_view_plain_first > 0
    boxes = np.concatenate((read.boxes, again.boxes))
    det_conf = np.concatenate((read.det_conf, again.det_conf))
    order = det_conf.copy()
    if plain_first:  # detector confidences are <= 1: a sure plain box outranks all
        order[: len(read.boxes)] += np.where(read.det_conf >= tm.tile_conf, 1.0, 0.0)
    with np.errstate(invalid="ignore"):  # two boxes clipped to nothing at the photo's edge: 0 / 0
        keep = np.sort(greedy_keep(boxes.astype(np.float32), order.astype(np.float32), tm.op.nms_iou))
    mine, new = keep[keep < len(read.boxes)], keep[keep >= len(read.boxes)] - len(read.boxes)
    if not len(new):
        return read
    extra = _subset(again, new)  # its faces and gate readings with it, where it has them
    if again.probs is None:
        extra = _with_faces(tm, pixels, extra)
    probs = gate = None
    if read.probs is not None and extra.probs is not None:
        probs = np.concatenate((read.probs[mine], extra.probs))
    if read.gate is not None:  # a view read without the flower rules asked no box of the gate
        asked = extra.gate if extra.gate is not None else np.zeros(len(extra.boxes))
        gate = np.concatenate((read.gate[mine], asked))
    return replace(
        read,
        boxes=np.concatenate((read.boxes[mine], extra.boxes)),
        det_conf=np.concatenate((read.det_conf[mine], extra.det_conf)),
        det_cls=np.concatenate((read.det_cls[mine], extra.det_cls)),
        probs=probs,
        gate=gate,
    )


def switch_bar(base: float, factor: float = ASPECT_FACTOR, gain: float = ASPECT_GAIN) -> float:
    """The score an aspect view must read more than to replace a plain view that reads `base`:
    `factor` x it and `gain` more, whichever is higher (ASPECT_FACTOR and ASPECT_GAIN by default)."""
    return max(factor * base, base + gain)


def view_bar(
    op: OperatingPoint, squeeze: tuple[float, float], base: float, long_axis: int | None = None
) -> float:
    """The score the aspect view `squeeze` must read more than to replace a plain view that reads
    `base`. One place for the rule, so each OperatingPoint key changes one line of it: with
    OperatingPoint.mild_long, nothing for the mild view that squeezes along the plain view's tiles'
    impossible long side (`long_axis`, _ViewReading.long_axis: 0 x, 1 y); the mild pair needs only
    more than `base` with mild_even, (1 + mild_switch) x it and ASPECT_GAIN more with mild_switch;
    every other view switch_bar's default."""
    if is_mild_view(op, squeeze):
        if op.mild_long > 0 and long_axis is not None and squeeze[long_axis] > 1:
            return 0.0
        if op.mild_even > 0:
            return base
        if op.mild_switch > 0:
            return switch_bar(base, 1.0 + op.mild_switch)
    return switch_bar(base)


def choose_view(scores: list[float], bars: list[float]) -> int:
    """Index of the view to keep: -1 for the photo as it is, else the best-scoring aspect view
    (_ViewReading.score: the tiles it would read right, expected) of those that read more than
    their bar (view_bar). A tie with a bar keeps the photo as it is."""
    best = -1
    for i, (s, bar) in enumerate(zip(scores, bars, strict=True)):
        if s > bar and (best < 0 or s > scores[best]):
            best = i
    return best


@dataclass(frozen=True)
class _Frame:
    """One photo as every view of it is cut: its pixels (for the faces' crops), the mid-size image
    the detector's views are made from and its scale to the photo, and the photo's size (w, h)."""

    pixels: PhotoPixels
    mid: np.ndarray
    mid_scale: float
    size: tuple[int, int]

    @classmethod
    def of(cls, pixels: PhotoPixels) -> _Frame:
        """The frame of `pixels`, its mid-size image made once for every view (_mid_image)."""
        mid, mid_scale = _mid_image(pixels.rgb)
        return cls(pixels, mid, mid_scale, (pixels.rgb.shape[1], pixels.rgb.shape[0]))

    def read(self, tm: TileModel, squeeze: tuple[float, float], floor: float, **how: Any) -> _ViewReading:
        """_read_view of this photo, faces not read; `how`: _read_view's keywords (flowers, imgsz,
        squat, mirrored)."""
        return _read_view(tm, self.mid, self.mid_scale, self.size, squeeze, floor, **how)


def _best_reading(tm: TileModel, pixels: PhotoPixels, floor: float, aspect_views: bool) -> _ViewReading:
    """The photo's reading, boxes down to detector confidence `floor`, in three steps: the photo as
    it is (_plain_reading: read squatter where its tiles look tall), then, as that reading looks,
    either what a photo as taken adds (_as_taken_reading) or the aspect view that reads a stretched
    export best (_stretched_branch). With OperatingPoint.square_both a square with enough sure tiles
    is read both ways and the reading scoring more is kept (measured at stop 68, not shipped: the
    pooled reading as taken scores its misplaced boxes too). `aspect_views`: whether the aspect
    views may be read at all."""
    frame = _Frame.of(pixels)
    plain, squat = _plain_reading(tm, frame, floor)
    return _reading_from_plain(tm, frame, plain, squat, floor, aspect_views)


def _reading_from_plain(
    tm: TileModel, frame: _Frame, plain: _ViewReading, squat: float, floor: float, aspect_views: bool
) -> _ViewReading:
    """_best_reading's steps after the plain reading (`plain`, read at `squat`): one place, so a
    diagnosis that looks at the plain reading too (view_verdict) does not read it twice."""
    distorted = plain.looks_distorted(tm.tile_conf, distortion_ratio(tm.op, frame.size))
    views = aspect_views_of(tm.op)
    stretchable = aspect_views and bool(views) and could_be_stretched(tm.op, frame.size)
    if tm.op.square_both > 0 and stretchable and plain.tells_shape(tm.tile_conf):
        taken = _as_taken_reading(tm, frame, plain, floor, squat, aspect_views)
        stretched = _stretched_branch(tm, frame, plain, floor, views)
        a, b = taken.score(tm.tile_conf), stretched.score(tm.tile_conf)
        return stretched if b > a or (b == a and distorted) else taken
    if not distorted:
        return _as_taken_reading(tm, frame, plain, floor, squat, aspect_views)
    if not stretchable:
        # too few sure tiles to tell, in a photo no export stretched: the detector doubts the photo
        return _read_smaller(tm, frame, plain, floor, squat) if tm.op.small_view_unsure > 0 else plain
    return _stretched_branch(tm, frame, plain, floor, views)


def _stretched_branch(
    tm: TileModel, frame: _Frame, plain: _ViewReading, floor: float, views: Sequence[tuple[float, float]]
) -> _ViewReading:
    """A photo read as a stretched export: the aspect view that reads it best (_stretched_reading),
    read again smaller where it squeezed the tiles back to their shape and the reader says so
    (small_view_unsure with small_view_stretched)."""
    kept = _stretched_reading(tm, frame, plain, floor, views)
    unsure = tm.op.small_view_unsure > 0 and tm.op.small_view_stretched > 0
    if unsure and kept.true_proportions:  # squeezed back to its tiles' shape
        return _read_smaller(tm, frame, kept, floor, 1.0)
    return kept


def _plain_reading(tm: TileModel, frame: _Frame, floor: float) -> tuple[_ViewReading, float]:
    """The photo as it is, faces read, and the squat it was read at (1.0: as it is). A photo at its
    camera's aspect whose sure tiles look tall (looks_tall) is read again squatter
    (camera_squat_of), and that reading stands (averaged with its mirror image's with
    OperatingPoint.mirror_tall; with the first's boxes it lacks pooled in with
    OperatingPoint.squat_pooled), or with OperatingPoint.squat_best only where it scores at least
    as much as the first."""
    plain = _with_faces(tm, frame.pixels, frame.read(tm, (1, 1), floor))
    squat = camera_squat_of(tm, frame.size)
    if squat >= 1.0 or not looks_tall(plain, tm.tile_conf, tm.op.camera_squat_below):
        return plain, 1.0
    again = frame.read(tm, (1, 1), floor, squat=squat, mirrored=tm.op.mirror_tall > 0)
    again = _with_faces(tm, frame.pixels, again)
    if tm.op.squat_pooled > 0:
        again = _pooled(tm, frame.pixels, again, plain, plain_first=True)
    if tm.op.squat_best <= 0 or again.score(tm.tile_conf) >= plain.score(tm.tile_conf):
        return again, squat
    return plain, 1.0


def _as_taken_reading(
    tm: TileModel, frame: _Frame, plain: _ViewReading, floor: float, squat: float, aspect_views: bool
) -> _ViewReading:
    """A photo whose plain view does not look distorted: with OperatingPoint.square_pair a square
    still tries the 2x pair (its crops cut as in the photo with pair_as_taken, flowers read with
    pair_flowers), which replaces the plain reading or, with pair_pooled, adds the boxes the plain
    reading lacks; a close-up is pooled with its zoomed-out reading (looks_close); the photo is
    read again at OperatingPoint.small_view's size where the reader has one (_read_smaller, which
    with small_view_unsure leaves such a photo as it is: it has at least ASPECT_MIN_TILES sure tiles,
    and the poolings above keep them first)."""
    op = tm.op
    if aspect_views and tries_square_pair(op, frame.pixels.size):
        pair = [sq for sq in aspect_views_of(op) if is_mild_view(op, sq)]
        base = plain.score(tm.tile_conf)
        bars = [view_bar(op, sq, base) for sq in pair]
        kept = _view_kept(tm, frame, floor, pair, bars, op.pair_as_taken > 0, flowers=op.pair_flowers > 0)
        if kept is not None and op.pair_pooled <= 0:
            return kept
        if kept is not None:
            plain = _pooled(tm, frame.pixels, plain, kept, plain_first=True)
    if looks_close(tm, plain, frame.size):
        plain = _pooled(tm, frame.pixels, plain, _read_zoomed(tm, frame, floor))
    return _read_smaller(tm, frame, plain, floor, squat)


def _read_smaller(
    tm: TileModel, frame: _Frame, plain: _ViewReading, floor: float, squat: float
) -> _ViewReading:
    """`plain` pooled with the photo read again at OperatingPoint.small_view's size (_pooled),
    where the reader has one; with small_view_unsure only where fewer than MIN_WHOLE of `plain`'s
    boxes are sure, else `plain`. The second reading sees the photo as `plain`'s view does (its
    squeeze: a kept 2x view with small_view_stretched)."""
    small = small_view_size(tm)
    if not small or (tm.op.small_view_unsure > 0 and len(plain.sure_boxes(tm.tile_conf)) >= MIN_WHOLE):
        return plain
    again = frame.read(tm, plain.squeeze, floor, flowers=plain.flowers, imgsz=small, squat=squat)
    return _pooled(tm, frame.pixels, plain, again)


def tries_square_pair(op: OperatingPoint, size: tuple[int, int]) -> bool:
    """Whether a photo of full size `size` (w, h) whose plain view does not look distorted is also
    read through the 2x pair (OperatingPoint.square_pair): a square (could_be_stretched), with
    OperatingPoint.square_pair_up_to no larger than an export tool makes one."""
    if op.square_pair <= 0 or op.square_views <= 0 or not could_be_stretched(op, size):
        return False
    return op.square_pair_up_to <= 0 or max(size) <= op.square_pair_up_to * SQUARE_PAIR_PIXELS


def _stretched_reading(
    tm: TileModel, frame: _Frame, plain: _ViewReading, floor: float, views: Sequence[tuple[float, float]]
) -> _ViewReading:
    """A photo that looks distorted and could have been stretched: the aspect view `views` that
    reads it best against its bar (view_bar), or the photo as it is.

    A photo that looks distorted has distorted crops too: a `flower` output learnt on crops of
    photos as taken read the blurred tiles of stretched exports as flowers (models/MODEL_CARD.md
    stop 36), so no box of such a photo is called one, in any view."""
    plain = replace(plain, flowers=False)
    base = plain.score(tm.tile_conf)
    long_axis = plain.long_axis(tm.tile_conf, distortion_ratio(tm.op, frame.size))
    bars = [view_bar(tm.op, sq, base, long_axis) for sq in views]
    kept = _view_kept(tm, frame, floor, views, bars)
    return plain if kept is None else kept


def _view_kept(
    tm: TileModel,
    frame: _Frame,
    floor: float,
    views: Sequence[tuple[float, float]],
    bars: list[float],
    as_taken: bool = False,
    flowers: bool = False,
) -> _ViewReading | None:
    """The aspect view of `views` that choose_view keeps against its bar (`bars`, view_bar), faces
    read (crops turned as in the photo as it is with `as_taken`, _with_faces), boxes down to
    `floor`; None where the photo as it is stays. `flowers`: the views are read with the flower
    rules of a photo as taken (_ViewReading.flowers; never for a photo that looks distorted).
    Views are chosen on their boxes at the operating point; a view's score is at most its detector
    mass (class probabilities are <= 1), so faces are read only in views whose mass clears their
    bar. Each view is detected once, down to `floor`: its boxes at the operating point are those
    above it (_at_point), and the kept view's faces are read once per box (_with_rest_faces). Until
    stop 64 the kept view was detected and its faces read a second time, down to `floor`."""
    once = tm.learnt is None  # a learnt detector's merge is read at its own floor: read it again
    low = min(floor, tm.tile_conf) if once else tm.tile_conf
    read = [frame.read(tm, sq, low, flowers=flowers) for sq in views]
    others = [_at_point(tm, r) for r in read]
    others = [
        _with_faces(tm, frame.pixels, o, as_taken) if o.score(tm.tile_conf) > bar else o
        for o, bar in zip(others, bars, strict=True)
    ]
    pick = choose_view([o.score(tm.tile_conf) for o in others], bars)
    if pick < 0:
        return None
    if floor >= tm.tile_conf:
        return others[pick]
    if not once:
        return _with_faces(tm, frame.pixels, frame.read(tm, views[pick], floor, flowers=flowers), as_taken)
    return _with_rest_faces(tm, frame.pixels, read[pick], others[pick], as_taken)


def _above_point(tm: TileModel, reading: _ViewReading) -> np.ndarray:
    """Per box: whether a detector run at the operating point finds it too. The NMS keeps a box
    above its floor exactly where a run at a higher floor does (greedy, surest first: a box is
    only ever dropped for a surer one), so the boxes above `tile_conf` are that run's, in its order;
    compared in float32 as vision.read.yolo_nms and ultralytics compare them."""
    return reading.det_conf.astype(np.float32) > np.float32(tm.tile_conf)


def _subset(reading: _ViewReading, keep: np.ndarray) -> _ViewReading:
    """`reading` with only the boxes `keep` (a mask or indices), their faces and gate readings with them."""
    return replace(
        reading,
        boxes=reading.boxes[keep],
        det_conf=reading.det_conf[keep],
        det_cls=reading.det_cls[keep],
        probs=None if reading.probs is None else reading.probs[keep],
        gate=None if reading.gate is None else reading.gate[keep],
    )


def _at_point(tm: TileModel, reading: _ViewReading) -> _ViewReading:
    """What the view reads at the operating point, from its reading down to a lower floor."""
    return _subset(reading, _above_point(tm, reading))


def _with_rest_faces(
    tm: TileModel, pixels: PhotoPixels, whole: _ViewReading, sure: _ViewReading, as_taken: bool
) -> _ViewReading:
    """`whole` (a view down to a floor, faces not read) with faces: those of `sure` (its boxes above
    the operating point, faces read) reused, the rest read now. A box's face is its own crop's
    reading (_with_faces reads each box apart), except where the crops are cut from a sharper
    decode chosen by the boxes' median size (PhotoPixels.crops): there every face is read again."""
    above = _above_point(tm, whole)
    if sure.probs is None or pixels.scale != 1 or not above.any():
        return _with_faces(tm, pixels, whole, as_taken)
    if above.all():
        return sure
    rest = _with_faces(tm, pixels, _subset(whole, ~above), as_taken)
    probs = np.zeros((len(whole.boxes), sure.probs.shape[1]), dtype=sure.probs.dtype)
    probs[above], probs[~above] = sure.probs, rest.probs
    gate = None  # both halves are read with the same flags: both asked the gate, or neither
    if sure.gate is not None:
        gate = np.zeros(len(whole.boxes))
        gate[above], gate[~above] = sure.gate, rest.gate
    return replace(
        sure, boxes=whole.boxes, det_conf=whole.det_conf, det_cls=whole.det_cls, probs=probs, gate=gate
    )


def _reads_flowers(reading: _ViewReading) -> bool:
    """Whether this reading has a classifier's `flower` output."""
    return reading.probs is not None and reading.probs.shape[1] > FLOWER_ID


def tile_and_face(reading: _ViewReading) -> tuple[np.ndarray, np.ndarray]:
    """(tile_conf per box, face probabilities per box over the 35 classes, rows summing to 1).

    tile_conf = detector confidence x (1 - p(other)): the detector says "something tile-shaped is
    here", the classifier's `other` output says "but it is no tile of ours" (a flower tile, a cup).
    A classifier with a `flower` output (vision.classes.FLOWER) counts a flower as a tile, and a
    box read as a flower more than as any face, and at least `reading.flower_at_least`, gets
    tile_conf 0: not in play, never returned. Where flowers are read, only
    `reading.flower_tile_share` of the flower reading counts as a tile (OperatingPoint).
    The face distribution is the classifier's over the 35 real classes, renormalised: how sure it is
    WHICH face, separately from WHETHER a tile. The old single `det x class` confidence mixed the two
    and dropped every tile whose face was unsure, which on a print the model never saw was a large
    share of the tiles (measured in models/MODEL_CARD.md).
    """
    if reading.probs is None:
        return reading.det_conf, np.zeros((len(reading.det_conf), 0))
    real = reading.probs[:, :NUM_CLASSES]
    mass = real.sum(1)
    face = real / np.maximum(mass, 1e-9)[:, None]
    tile = reading.det_conf * mass
    if _reads_flowers(reading):  # a flower is a tile (no `other` mass), but not in play
        flower = reading.probs[:, FLOWER_ID]
        # a distorted photo counts its flower as a tile, never as a flower
        share = reading.flower_tile_share if reading.flowers else 1.0
        tile = reading.det_conf * (mass + share * flower)
        if reading.flowers:
            is_flower = (flower > real.max(1)) & (flower >= reading.flower_at_least)
            tile = np.where(is_flower, 0.0, tile)
    if reading.flowers and reading.gate is not None:  # the flower gate's own question
        tile = np.where(reading.gate >= reading.gate_at_least, 0.0, tile)
    return tile, face


def _rescued(
    tm: TileModel,
    reading: _ViewReading,
    tile: np.ndarray,
    face: np.ndarray,
    kept: np.ndarray,
    size: tuple[int, int] | None,
) -> np.ndarray:
    """Bool per box: under the point, let back by vision.read.row_rescue because it continues a
    row of the `kept` tiles. Only a box whose face reads at least OperatingPoint.rescue_face, whose
    flower output (rescue_flower) or flower gate (rescue_gate) reads under their bars, and, with
    rescue_uncut and a known `size`, that the frame does not cut (rescue_three: in a line of
    three, rescue_gaps: in a gap of one); the flower and frame guards only
    in a photo that does not look distorted, as every flower rule. With rescue_alone, then also a
    box in no row whose face reads at least that surely and whose size is the kept tiles'
    (vision.read.row_rescue.alone_rescued), under the same guards. With rescue_unsure, in a photo
    with fewer than three kept tiles, such boxes of one size with each other and the kept ones
    (vision.read.row_rescue.unsure_photo_rescued): the only rescue that runs with none kept."""
    op = tm.op
    may = tile
    if op.rescue_face > 0 and face.shape[1]:  # only a box whose face the reader is sure of
        may = np.where(face.max(1) >= op.rescue_face, tile, 0.0)
    if op.rescue_flower > 0 and reading.flowers and _reads_flowers(reading):
        may = np.where(reading.probs[:, FLOWER_ID] < op.rescue_flower, may, 0.0)
    if op.rescue_gate > 0 and reading.flowers and reading.gate is not None:
        may = np.where(reading.gate < op.rescue_gate, may, 0.0)
    cut = None
    boxes, frame = reading.boxes_as_seen(size) if size is not None else (reading.boxes, None)
    if op.rescue_uncut > 0 and reading.undistorted and frame is not None:
        cut = cut_by_frame(boxes, frame, op.rescue_uncut)
    gaps, three = op.rescue_gaps > 0, op.rescue_three > 0
    back = rescued(boxes, may, kept, op.row_rescue, gaps_only=gaps, cut=cut, three=three)
    if op.rescue_alone > 0 and reading.undistorted and face.shape[1]:
        sure_face = np.where(face.max(1) >= op.rescue_alone, may, 0.0)
        alone_face, near_face = sure_face, None
        if op.rescue_near_face > 0:  # beside a kept tile, a face read a little less surely
            near_face = np.where(face.max(1) >= op.rescue_near_face, may, 0.0)
        if op.rescue_alone_faces > 0:  # a tile's back is no face to vouch for a box
            face_up = face.argmax(1) != BACK_ID
            alone_face = np.where(face_up, alone_face, 0.0)
            near_face = None if near_face is None else np.where(face_up, near_face, 0.0)
        back |= alone_rescued(
            boxes,
            alone_face,
            kept | back,
            op.row_rescue,
            cut=cut,
            among=op.rescue_alone_among > 0,
            touching=op.rescue_alone_touching > 0,
            near=op.rescue_alone_near > 0,
            near_conf=near_face,
        )
        if op.rescue_unsure > 0:
            back |= unsure_photo_rescued(boxes, sure_face, kept | back, op.row_rescue, cut=cut)
    return back


def _decide(
    tm: TileModel, reading: _ViewReading, threshold: float, size: tuple[int, int] | None = None
) -> list[Detection]:
    """Detections with tile_conf >= threshold, after dropping span and duplicate boxes among the
    model's sure tiles (tile_conf >= its operating point), so the suppression does not depend on the
    `threshold` a caller asks for. With OperatingPoint.row_rescue, a box under the point that
    continues a row of the kept tiles counts as sure, at the point (_rescued; `size`: the photo's
    width and height in the boxes' pixels, for OperatingPoint.rescue_uncut and cut_bigger). With
    OperatingPoint.cut_bigger, in a photo that does not look distorted, a returned box the frame
    cuts that is bigger than the whole ones is dropped, as a span box is."""
    tile, face = tile_and_face(reading)
    sure = np.flatnonzero(tile >= min(tm.tile_conf, threshold))
    keep = np.ones(len(tile), dtype=bool)
    at_op = sure[tile[sure] >= tm.tile_conf]
    keep[at_op[~keep_one_per_tile(reading.boxes[at_op], tile[at_op])]] = False
    if tm.op.row_rescue > 0 and (len(at_op) or tm.op.rescue_unsure > 0):
        kept = np.zeros(len(tile), dtype=bool)
        kept[at_op[keep[at_op]]] = True
        back = _rescued(tm, reading, tile, face, kept, size)
        tile = np.where(back, tm.tile_conf, tile)
        sure = np.flatnonzero(tile >= min(tm.tile_conf, threshold))
    if tm.op.cut_bigger > 0 and size is not None and reading.undistorted:  # not where tiles span the frame
        returned = np.flatnonzero(keep & (tile >= tm.tile_conf))
        boxes, frame = reading.boxes_as_seen(size)
        keep[returned[too_big_for_a_cut_tile(boxes[returned], frame, tm.op.cut_bigger)]] = False
    detections: list[Detection] = []
    for i in sure:
        if not keep[i] or tile[i] < threshold:
            continue
        box = tuple(map(float, reading.boxes[i]))
        if face.shape[1]:
            order = np.argsort(-face[i])[: MAX_ALTERNATIVES + 1]
            best, fc = CLASS_NAMES[order[0]], float(face[i, order[0]])
            alts = [(CLASS_NAMES[k], float(face[i, k])) for k in order[1:]]
        else:
            names = tm.detector.names
            best = "tile" if len(names) == 1 else names[int(reading.det_cls[i])]
            fc, alts = 1.0, []
        tc = float(tile[i])
        detections.append(Detection(best, tc * fc, box, alts, tc, fc, tm.op.is_unsure(fc)))
    detections.sort(key=lambda d: (d.xyxy[0], d.xyxy[1]))
    return detections


def _pixels_for(image: str | Path | np.ndarray | PhotoPixels, tm: TileModel) -> PhotoPixels:
    """What `detect` reads: a file decoded reduced for this model, pixels already decoded (decoded
    again only when reduced below what this model's detector input needs), or an array as it is."""
    if isinstance(image, PhotoPixels):
        if image.scale > 1 and image.min_side < DECODE_FACTOR * tm.det_imgsz and image.source is not None:
            return PhotoPixels.decode(image.source, tm.det_imgsz)
        return image
    if isinstance(image, (str, Path)):
        return PhotoPixels.decode(image, tm.det_imgsz)
    return PhotoPixels(np.asarray(image))


def _reading_floor(tm: TileModel, threshold: float) -> float:
    """The lowest detector confidence a reading at `threshold` keeps boxes down to: tile_conf <=
    det_conf, so nothing under the threshold is needed, nor under the row rescue's (a box under
    the point that may still be returned, see _decide)."""
    return max(min(threshold, tm.conf, tm.lowest_returned), 0.001)


def detect(
    image: str | Path | np.ndarray | PhotoPixels,
    conf: float | None = None,
    model: TileModel | str | Path | None = None,
    aspect_views: bool = True,
) -> list[Detection]:
    """Detect and read every tile in a photo.

    `image` is a file path (loaded upright, see vision.read.imageio), a PhotoPixels (a file or
    uploaded bytes decoded once at reduced size, e.g. by the page) or an upright RGB uint8 array.
    `conf` is the threshold on `tile_conf` (is it a tile), default the model's operating point;
    a low value (0.01) returns the low-confidence candidates too, e.g. for evaluation curves. A
    tile whose face is doubtful is still returned, marked `unsure` with its ranked `alternatives`.
    Boxes are in original pixels, sorted left to right. With `aspect_views` (default) a photo whose
    aspect looks distorted is also read through squeezed views (see ASPECT_VIEWS); the view is
    chosen at the model's own operating point, so `conf` only filters what is returned.
    """
    tm = model if isinstance(model, TileModel) else load_model(model)
    threshold = tm.tile_conf if conf is None else float(conf)
    pixels = _pixels_for(image, tm)
    rgb = pixels.rgb
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError("image array must be H x W x 3 uint8 RGB")
    reading = _best_reading(tm, pixels, _reading_floor(tm, threshold), aspect_views)
    if len(reading.boxes) == 0:
        return []
    if pixels.scale != 1.0:  # boxes in the full-size photo's pixels
        reading.boxes = reading.boxes * pixels.scale
    return _decide(tm, reading, threshold, pixels.size)


@dataclass(frozen=True)
class ViewVerdict:
    """How the reader chose the view it read a photo through: its plain reading's sure boxes (at the
    reader's point), their median long/short side (None: fewer than ASPECT_MIN_TILES, too few to
    tell), the ratio over which the photo looks distorted (distortion_ratio), whether it did, and
    the squeeze (x, y) of the view whose reading was kept ((1, 1): the photo as it is).

    Why: a photo near that ratio is read through another view by a detector that boxes its tiles
    a few percent squatter, and loses or gains tiles for it (models/MODEL_CARD.md, stop 68: eight
    of riichi-standing-dev's exports lie within 0.05 of it). A candidate is judged partly on this
    edge, and benchmarks/view_report.py says where."""

    sure: int
    elongation: float | None
    ratio: float
    distorted: bool
    squeeze: tuple[float, float]


def view_verdict(
    image: str | Path | np.ndarray | PhotoPixels, model: TileModel | str | Path | None = None
) -> ViewVerdict:
    """The ViewVerdict of reading `image` as detect reads it (aspect views on), from the same one
    reading (_reading_from_plain)."""
    tm = model if isinstance(model, TileModel) else load_model(model)
    floor = _reading_floor(tm, tm.tile_conf)
    frame = _Frame.of(_pixels_for(image, tm))
    plain, squat = _plain_reading(tm, frame, floor)
    sure = plain.sure_boxes(tm.tile_conf)
    ratio = distortion_ratio(tm.op, frame.size)
    kept = _reading_from_plain(tm, frame, plain, squat, floor, aspect_views=True)
    return ViewVerdict(
        sure=len(sure),
        elongation=float(np.median(elongation(sure))) if plain.tells_shape(tm.tile_conf) else None,
        ratio=ratio,
        distorted=plain.looks_distorted(tm.tile_conf, ratio),
        squeeze=(float(kept.squeeze[0]), float(kept.squeeze[1])),
    )


def detect_with_maybe(
    image: str | Path | np.ndarray | PhotoPixels,
    model: TileModel | str | Path | None = None,
    point: float | None = None,
) -> tuple[list[Detection], list[Detection]]:
    """(the tiles at `point`, default the model's operating point; the boxes it doubted, offered as
    "maybe missed": vision.read.maybe_missed) from one reading down to the suggestions' floor. What
    the page and `vision detect --maybe` both read: the tiles are exactly `detect`'s at that point."""
    tm = model if isinstance(model, TileModel) else load_model(model)
    point = tm.tile_conf if point is None else float(point)
    return split_doubted(detect(image, conf=min(MAYBE_FLOOR, point), model=tm), point)
