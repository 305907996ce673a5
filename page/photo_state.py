"""One photo on the page: the decoded image, a box per tile with its role, and what the page says about it.

Why this module exists: the page reads a photo once (decode upright and size-checked, detect, propose
the layout) and then only edits the result as the player corrects it; Streamlit keeps that result in
session state as one `Photo`. Building it, including the bundled sample photo and the boxes a player
adds or types, is logic, not layout, so it lives here and is unit-tested (tests/page/test_photo_state.py);
app.py draws widgets on it. Notes and errors are `Words` (Chinese and English): the page picks one.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from page.annotate import shrink, tile_crop
from page.box import Box, detection_box, player_box
from page.detector_loader import Detector
from page.quick_entry import EntryError, parse_melds, parse_tiles
from page.roles import default_winning, roles_from_layout
from page.words import Words
from vision.read.imageio import ImageLoadError, load_image
from vision.read.photo_pixels import PhotoPixels, off_canvas

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIR = ROOT / "datasets" / "samples"
SAMPLE_JSON = SAMPLE_DIR / "sample.json"
UPLOAD_TYPES = ["jpg", "jpeg", "png", "heic", "heif", "webp"]
#: Long side of the picture the phone shows (page/panels/photo.py draws it at this size too).
DISPLAY_SIDE = 1280


@dataclass
class Saved:
    """The last "save for training" of this photo: what the disk holds and which boxes it was made from."""

    result: Any  # vision.labels.store.SaveResult
    signature: str
    on_disk: bool  # the label file on disk holds exactly the boxes saved


@dataclass
class Photo:
    """The photo being scored and everything the player has said about its tiles."""

    key: str  # sha256 of the uploaded bytes
    name: str
    _rgb: np.ndarray | None = field(default=None, repr=False)  # the full-size pixels, once decoded
    boxes: list[Box] = field(default_factory=list)
    #: Boxes the reader doubted (vision.read.maybe_missed), offered as "maybe missed"; never in play.
    #: One the player has answered (taken into `boxes`, or waved away) is `fixed`; none is ever
    #: removed, so a suggestion's number means the same on every phone of the table.
    maybe: list[Box] = field(default_factory=list)
    winning: int | None = None
    meld_kinds: dict[str, str] = field(default_factory=dict)
    kong_faces: dict[str, str] = field(default_factory=dict)
    doubts: list[str] = field(default_factory=list)
    notes: list[Words] = field(default_factory=list)
    error: Words | None = None
    model_reading: list[Box] | None = None
    seconds: float | None = None
    model_version: str | None = None
    sample: dict | None = None
    rev: int = 0  # bumped when the tile list is replaced (typed hand): fresh widget keys
    picked: int | None = None  # the tile the player tapped to fix
    saved: Saved | None = None
    display: np.ndarray | None = None  # display-sized copy of rgb, made once
    display_scale: float = 1.0
    #: (width, height) of the full-size upright photo: the pixels every box is in.
    size: tuple[int, int] | None = None
    #: The upload decoded at reduced size, with its bytes: where `rgb` is decoded from when a
    #: panel first needs the full-size pixels (saving for training), never on the upload path.
    pixels: PhotoPixels | None = field(default=None, repr=False, compare=False)

    @property
    def rgb(self) -> np.ndarray | None:
        """The full-size upright photo, decoded from the kept upload the first time it is asked for
        (saving for training): the upload path stops at the boxes and the reduced picture."""
        if self._rgb is None and self.pixels is not None:
            self._rgb = self.pixels.full()
        return self._rgb

    @rgb.setter
    def rgb(self, value: np.ndarray | None) -> None:
        self._rgb = value
        if value is not None:
            self.size = (int(value.shape[1]), int(value.shape[0]))

    @property
    def rgb_if_decoded(self) -> np.ndarray | None:
        """The full-size pixels when something has decoded them already, else None (never decodes:
        for a caller that has a cheaper picture to fall back on)."""
        return self._rgb

    @property
    def has_picture(self) -> bool:
        """Whether there is a photo to show (decoded or not), as opposed to a typed hand."""
        return self._rgb is not None or self.pixels is not None

    def take_picture(self, other: Photo) -> None:
        """Share `other`'s pixels (the same photo, shown on another phone): nothing decoded again."""
        self._rgb, self.pixels, self.size = other._rgb, other.pixels, other.size
        self.display, self.display_scale = other.display, other.display_scale

    @property
    def widget_prefix(self) -> str:
        """Widget-key prefix of the current tile list: the photo's hash, plus a revision once retyped."""
        return self.key[:10] + (f"r{self.rev}" if self.rev else "")

    def open_maybe(self) -> list[int]:
        """Indices of the suggestions the player has not answered yet."""
        return [i for i, b in enumerate(self.maybe) if not b.fixed]

    def to_check(self) -> list[int]:
        """Indices of the tiles the player should look at (unsure readings not yet touched)."""
        return [i for i, b in enumerate(self.boxes) if b.needs_check and b.in_play]


def tile_thumbnail(photo: Photo, xyxy: Sequence[float] | None, height: int) -> np.ndarray | None:
    """A tile's picture for the strip, cut from the full-size pixels when they are decoded anyway,
    else from the picture the phone shows (a 12 MP photo is not decoded whole for thumbnails)."""
    if xyxy is None:
        return None
    full = photo.rgb_if_decoded
    if full is not None:
        return tile_crop(full, xyxy, height=height)
    if photo.display is None:
        return None
    k = photo.display_scale
    return tile_crop(photo.display, [v * k for v in xyxy], height=height)


def boxes_signature(boxes: Sequence[Box]) -> str:
    """What a save stores, as one hash: the faces and positions of the boxes that go into the label
    file (a fix after saving changes it, so the page offers to save again)."""
    rows = [(b.cls, [round(v, 2) for v in b.xyxy]) for b in boxes if b.role != "delete" and b.xyxy]
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]


def box_right_of(xyxy: Sequence[float], size: tuple[int, int] | None) -> list[float]:
    """Where a tile added "right of" a box lies: one tile width on, clipped to the photo (`size`:
    its width and height)."""
    x1, y1, x2, y2 = xyxy
    w = x2 - x1
    wd = size[0] if size is not None else x2 + 2 * w
    return [min(x2 + 0.05 * w, wd - 1), y1, min(x2 + 1.05 * w, wd), y2]


def typed_hand(concealed: str, winning: str, melds: str) -> tuple[list[Box], int, dict[str, str]]:
    """Boxes for a hand typed as text (standing tiles, the tile won on, the melds).

    The winning tile is added to the standing tiles when not typed there. Returns (boxes, the winning
    box's index, {meld role: kind}); raises EntryError with a sentence for the player.
    """
    tiles = parse_tiles(concealed)
    won = parse_tiles(winning)
    ms = parse_melds(melds)
    if len(won) != 1:
        raise EntryError(
            Words(
                "胡的那张牌请写一张（例如 5p）。", "Write exactly one tile as the tile you won on (e.g. 5p)."
            )
        )
    if won[0] not in tiles:
        tiles.append(won[0])
    boxes = [player_box(t, "hand", "typed") for t in tiles]
    win = max(i for i, b in enumerate(boxes) if b.cls == won[0])
    kinds: dict[str, str] = {}
    for k, (kind, ts) in enumerate(ms[:4]):
        boxes += [player_box(t, f"meld{k + 1}", "typed") for t in ts]
        kinds[f"meld{k + 1}"] = kind
    return boxes, win, kinds


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two xyxy boxes (0 when they do not overlap)."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def assign_roles(photo: Photo, dets: list) -> None:
    """Proposed layout (vision.read.layout) → a role per box, the winning tile, meld kinds and the doubts."""
    from vision.read.layout import read_layout

    boxes = photo.boxes
    live = [i for i, b in enumerate(boxes) if b.xyxy is not None]
    if not live:
        return
    try:
        layout = read_layout(dets)
    except Exception as exc:  # noqa: BLE001 - grouping is a proposal; the player can still group by hand
        name = type(exc).__name__
        photo.notes.append(
            Words(
                f"没能判断牌的摆放（{name}）：请在下面给每张牌选位置。",
                f"The hand layout could not be proposed ({name}); set each tile's place below.",
            )
        )
        for b in boxes:
            b.role = "hand"
        return
    roles, winning, kinds = roles_from_layout(layout, len(dets))
    for i, r in enumerate(roles):
        boxes[live[i]].role = r
    photo.winning = live[winning] if winning is not None else default_winning(boxes)
    photo.meld_kinds = kinds
    photo.doubts = layout.doubts()


def photo_key(data: bytes) -> str:
    """What names a photo on the page: the hash of its bytes (the same file is never read twice)."""
    return hashlib.sha256(data).hexdigest()


def _not_a_photo(reason_zh: str, reason_en: str) -> Words:
    return Words(
        f"这个文件不能当照片用：{reason_zh}。请选 JPEG、PNG 或 HEIC 照片。",
        f"This file cannot be used as a photo: {reason_en}. Please choose a JPEG, PNG or HEIC photo.",
    )


def read_photo(
    data: bytes,
    name: str,
    detector: Detector | None,
    full: bool = True,
    key: str | None = None,
    zoom_out: float = 1.0,
) -> Photo:
    """Decode (upright, size-checked), detect and propose the layout: once per photo.

    The bytes are decoded once at reduced size (vision.read.photo_pixels.PhotoPixels): the detector reads
    that, and it is the picture the phone shows, the tile strip's thumbnails and what taps are
    measured on. A reader that takes decoded pixels (the model's own, `Detector.takes_pixels`) cuts
    the faces from the full-size photo only where the boxes are and only when the tiles are small
    there. Otherwise the full-size pixels are decoded only when a panel asks for `Photo.rgb`
    (saving for training), from the kept bytes. `full=False`: only the boxes are wanted (a loser's
    meld photo), so nothing of the photo is kept. `key`: the bytes' photo_key when the caller has
    it already (the page hashes an upload to know whether it is new; hashing 4 MB again costs
    ~2.5 ms of the upload path). `zoom_out` above 1: a reader that takes pixels reads the photo
    centred on a canvas that many times its size (PhotoPixels.zoomed_out: a close-up's tiles at a
    size the detector knows); the boxes are the photo's all the same."""
    photo = Photo(key or photo_key(data), name)
    try:
        pixels = decode_upload(data, name)
    except Exception as exc:  # noqa: BLE001 - every decoding failure is a refusal in words
        photo.error = _refusal(exc)
        return photo
    photo.display, photo.display_scale = shown_picture(pixels)
    photo.size = pixels.size
    if zoom_out > 1 and detector is not None and detector.takes_pixels:
        canvas, offset = pixels.zoomed_out(zoom_out)
        detect_into(photo, detector, canvas)
        _back_from_canvas(photo, offset, pixels.scale)
    else:
        detect_into(photo, detector, pixels)
    if full:
        photo.pixels = pixels
    return photo


def _back_from_canvas(photo: Photo, offset: tuple[int, int], scale: float) -> None:
    """The boxes read on a zoomed-out canvas (PhotoPixels.zoomed_out) moved into the photo's own
    full-size pixels, clipped to it (vision.read.photo_pixels.off_canvas)."""
    boxes = [b for b in [*photo.boxes, *photo.maybe] if b.xyxy is not None]
    moved = off_canvas(np.array([b.xyxy for b in boxes]), offset, scale, photo.size)
    for box, xyxy in zip(boxes, moved, strict=True):
        box.xyxy = [float(v) for v in xyxy]


def _refusal(exc: Exception) -> Words:
    """What the page says about a file that could not be decoded as a photo."""
    if isinstance(exc, ImageLoadError):
        return _not_a_photo(exc.words.zh, exc.words.en)
    name_ = type(exc).__name__  # e.g. ultralytics' Image.open patch raising ImportError
    return _not_a_photo(f"读不出图像（{name_}）", f"not a readable image: {name_}")


def decode_upload(data: bytes, name: str = "photo.jpg") -> PhotoPixels:
    """Uploaded bytes decoded once at reduced size, upright and size-checked (vision.read.imageio's
    checks and refusals); raises ImageLoadError."""
    return PhotoPixels.decode(data, name=name)


def shown_picture(pixels: PhotoPixels) -> tuple[np.ndarray, float]:
    """The picture the phone shows, from the reduced decode (never from the full-size pixels), and
    the factor from full-photo pixels (the boxes') to it."""
    shown = shrink(pixels.rgb, DISPLAY_SIDE)
    return shown, shown.shape[1] / pixels.size[0]


def decode_photo(data: bytes, name: str = "photo.jpg") -> np.ndarray:
    """The full-size upright RGB image of uploaded bytes (vision.read.imageio's checks); raises
    ImageLoadError. For a page reloaded from its stored bytes, which needs no reading."""
    return load_image(data, name=name)


def detect_into(photo: Photo, detector: Detector | None, pixels: PhotoPixels | None = None) -> None:
    """Run the detector on the photo and fill in its boxes, roles and timing; a failure is a note.
    A reader that takes decoded pixels gets `pixels` (boxes in full-photo pixels all the same); any
    other gets the full-size upright array, as it always did."""
    if detector is None:
        return
    t0 = time.perf_counter()
    try:
        if pixels is None:
            dets, maybe = detector.read(photo.rgb)
        else:
            dets, maybe = detector.read(pixels if detector.takes_pixels else pixels.full())
    except Exception as exc:  # noqa: BLE001 - a detector failure is a message, not a traceback
        name = type(exc).__name__
        photo.notes.append(
            Words(
                f"认牌出错了（{name}）：请在下面直接输入牌。",
                f"The tile reader failed on this photo ({name}). Type the tiles below instead.",
            )
        )
        return
    photo.model_version = detector.version
    photo.boxes = [detection_box(d) for d in dets]
    photo.maybe = [detection_box(d, "maybe") for d in maybe]
    assign_roles(photo, dets)
    photo.seconds = time.perf_counter() - t0
    if not dets:
        photo.notes.append(
            Words(
                "照片里没找到牌。请从上方、离近一点拍，整手牌都要在画面里——或者在下面直接输入牌。",
                "No tiles were found in this photo. Take the photo closer, from above, with the whole hand "
                "in view — or type the tiles below.",
            )
        )


def _matches(box: Box, truth: dict) -> bool:
    """A detected box that stands on a checked tile (IoU > 0.5) and reads the same face."""
    return box.xyxy is not None and iou(box.xyxy, truth["xyxy"]) > 0.5 and box.cls == truth["cls"]


def sample_photo(detector: Detector | None) -> Photo:
    """The bundled winning hand: read by the detector when there is one; where the reading differs from
    the sample's checked tiles, the corrected tiles are shown (and the page says so)."""
    doc = json.loads(SAMPLE_JSON.read_text(encoding="utf-8"))
    data = (SAMPLE_DIR / doc["photo"]).read_bytes()
    photo = read_photo(data, doc["photo"], detector)
    photo.sample = doc
    photo.notes = []  # this photo's notes are the sample's own, below
    truth = doc["tiles"]
    model_boxes = photo.boxes
    found = [any(_matches(b, t) for b in model_boxes) for t in truth]
    if model_boxes and len(model_boxes) == len(truth) and all(found):
        photo.notes.append(
            Words(
                "示例照片：模型认对了每一张。", "Sample photo: read by the detector, no corrections needed."
            )
        )
        return photo
    n, total = len(model_boxes), len(truth)
    if model_boxes:
        wrong = found.count(False)
        photo.model_reading = model_boxes
        photo.notes.append(
            Words(
                f"示例照片：模型认出 {n} 张，其中 {wrong} 张和核对过的不一样；下面显示的是改正后的牌。",
                f"Sample photo: the detector read {n} tiles, {wrong} of the {total} differently from the checked "
                "reading; the page shows the corrected tiles, as a player would after fixing them.",
            )
        )
    elif detector is None:
        photo.notes.append(
            Words(
                "示例照片：没有安装认牌模型，显示核对过的牌。",
                "Sample photo: shown with its checked tiles (no model installed to read it).",
            )
        )
    else:
        photo.notes.append(
            Words(
                "示例照片：模型没认出牌，显示核对过的牌。",
                "Sample photo: the detector found no tiles in it; the page shows the checked tiles.",
            )
        )
    boxes = []
    for t in truth:
        b = detection_box(SimpleNamespace(cls=t["cls"], conf=1.0, xyxy=t["xyxy"], alternatives=[]), "sample")
        b.role = "hand"
        boxes.append(b)
    photo.boxes, photo.maybe = boxes, []
    photo.winning = doc.get("winning_index")
    photo.meld_kinds, photo.doubts = {}, []
    return photo
