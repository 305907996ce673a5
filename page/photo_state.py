"""One photo on the page as a plain state dict: the decoded image, a box per tile with its role, and notes.

Why this module exists: the page reads a photo once (decode upright and size-checked, detect, propose
the layout) and then only edits the result as the player corrects it; Streamlit keeps that result in
session state, so it is a plain dict of plain box dicts. Building it, including the bundled sample
photo and the boxes a player adds or types, is logic, not layout, so it lives here and is unit-tested
(tests/test_photo_state.py); app.py draws widgets on it.

A box dict: `cls` (face code or `back`), `model_cls` (what the model read, None for added/typed),
`conf`, `xyxy` (None when typed), `alternatives`, `options` (the face picker's order), `origin`
(`model`, `sample`, `added`, `typed`), `role` (see `page.roles.ROLES`) and `fixed`.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from page.annotate import picker_options
from page.detector_loader import Detector
from page.quick_entry import parse_melds, parse_tiles
from page.roles import default_winning, roles_from_layout
from vision.classes import CLASS_NAMES
from vision.imageio import ImageLoadError, load_image

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIR = ROOT / "datasets" / "samples"
SAMPLE_JSON = SAMPLE_DIR / "sample.json"
UPLOAD_TYPES = ["jpg", "jpeg", "png", "heic", "heif", "webp"]


def detection_box(det: Any, origin: str = "model") -> dict:
    """A page box record from a detection (plain dict: session state must stay simple)."""
    alts = [(str(c), float(p)) for c, p in getattr(det, "alternatives", []) or []]
    cls = str(det.cls) if str(det.cls) in CLASS_NAMES else "back"
    return {
        "cls": cls,
        "model_cls": cls if origin == "model" else None,
        "conf": float(det.conf),
        "xyxy": [float(v) for v in det.xyxy],
        "alternatives": alts,
        "options": picker_options(cls, alts),
        "origin": origin,
        "role": "other",
        "fixed": False,
    }


def player_box(cls: str, role: str, origin: str, xyxy: list[float] | None = None) -> dict:
    """A box the player made (`added` on the photo or `typed`): sure, already fixed, no model class."""
    return {
        "cls": cls,
        "model_cls": None,
        "conf": 1.0,
        "xyxy": xyxy,
        "alternatives": [],
        "options": picker_options(cls),
        "origin": origin,
        "role": role,
        "fixed": True,
    }


def box_right_of(xyxy: Sequence[float], rgb: np.ndarray | None) -> list[float]:
    """Where a tile added "right of" a box lies: one tile width on, clipped to the photo."""
    x1, y1, x2, y2 = xyxy
    w = x2 - x1
    h, wd = rgb.shape[:2] if rgb is not None else (y2, x2 + 2 * w)
    return [min(x2 + 0.05 * w, wd - 1), y1, min(x2 + 1.05 * w, wd), y2]


def typed_hand(concealed: str, winning: str, melds: str) -> tuple[list[dict], int, dict[str, str]]:
    """Boxes for a hand typed as text (standing tiles, the tile won on, the melds).

    The winning tile is added to the standing tiles when not typed there. Returns (boxes, the winning
    box's index, {meld role: kind}); raises ValueError with a sentence for the player.
    """
    tiles = parse_tiles(concealed)
    won = parse_tiles(winning)
    ms = parse_melds(melds)
    if len(won) != 1:
        raise ValueError("Write exactly one tile as the tile you won on (e.g. 5p).")
    if won[0] not in tiles:
        tiles.append(won[0])
    boxes = [player_box(t, "hand", "typed") for t in tiles]
    win = max(i for i, b in enumerate(boxes) if b["cls"] == won[0])
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


def assign_roles(photo: dict, dets: list) -> None:
    """Proposed layout (vision.hand) → a role per box, the winning tile, meld kinds and the doubts."""
    from vision.hand import read_layout

    boxes = photo["boxes"]
    live = [i for i, b in enumerate(boxes) if b["xyxy"] is not None]
    if not live:
        return
    try:
        layout = read_layout(dets)
    except Exception as exc:  # noqa: BLE001 - grouping is a proposal; the player can still group by hand
        photo["notes"].append(
            f"The hand layout could not be proposed ({type(exc).__name__}); set each tile's place below."
        )
        for b in boxes:
            b["role"] = "hand"
        return
    roles, winning, kinds = roles_from_layout(layout, len(dets))
    for i, r in enumerate(roles):
        boxes[live[i]]["role"] = r
    photo["winning"] = live[winning] if winning is not None else default_winning(boxes)
    photo["meld_kinds"] = kinds
    photo["doubts"] = layout.doubts()


def new_photo(key: str, name: str) -> dict:
    """An empty state for the photo with content hash `key`: no image, no boxes, no notes yet."""
    return {
        "key": key,
        "name": name,
        "rgb": None,
        "boxes": [],
        "winning": None,
        "meld_kinds": {},
        "doubts": [],
        "notes": [],
        "error": None,
        "kong_faces": {},
        "model_reading": None,
        "seconds": None,
        "saved": None,
        "model_version": None,
    }


def photo_key(data: bytes) -> str:
    """What names a photo on the page: the hash of its bytes (the same file is never read twice)."""
    return hashlib.sha256(data).hexdigest()


def read_photo(data: bytes, name: str, detector: Detector | None) -> dict:
    """Decode (upright, size-checked), detect and propose the layout: once per photo."""
    photo = new_photo(photo_key(data), name)
    suffix = (
        Path(name).suffix.lower() if Path(name).suffix.lower() in {f".{t}" for t in UPLOAD_TYPES} else ".img"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"upload{suffix}"
        path.write_bytes(data)
        try:
            photo["rgb"] = load_image(path)
        except ImageLoadError as exc:
            photo["error"] = (
                f"This file cannot be used as a photo: {exc.reason}. Please choose a JPEG, PNG or HEIC photo."
            )
            return photo
        except Exception as exc:  # noqa: BLE001 - e.g. ultralytics' Image.open patch raising ImportError
            photo["error"] = (
                f"This file cannot be used as a photo (not a readable image: {type(exc).__name__}). "
                "Please choose a JPEG, PNG or HEIC photo."
            )
            return photo
    detect_into(photo, detector)
    return photo


def detect_into(photo: dict, detector: Detector | None) -> None:
    """Run the detector on the photo's image and fill in its boxes, roles and timing; a failure is a note."""
    if detector is None:
        return
    t0 = time.perf_counter()
    try:
        dets = detector.run(photo["rgb"])
    except Exception as exc:  # noqa: BLE001 - a detector failure is a message, not a traceback
        photo["notes"].append(
            f"The tile reader failed on this photo ({type(exc).__name__}). Type the tiles below instead."
        )
        return
    photo["model_version"] = detector.version
    photo["boxes"] = [detection_box(d) for d in dets]
    assign_roles(photo, dets)
    photo["seconds"] = time.perf_counter() - t0
    if not dets:
        photo["notes"].append(
            "No tiles were found in this photo. Take the photo closer, from above, with the whole hand in view — "
            "or type the tiles below."
        )


def _matches(box: dict, truth: dict) -> bool:
    """A detected box that stands on a checked tile (IoU > 0.5) and reads the same face."""
    return iou(box["xyxy"], truth["xyxy"]) > 0.5 and box["cls"] == truth["cls"]


def sample_photo(detector: Detector | None) -> dict:
    """The bundled winning hand: read by the detector when there is one; where the reading differs from
    the sample's checked tiles, the corrected tiles are shown (and the page says so)."""
    doc = json.loads(SAMPLE_JSON.read_text(encoding="utf-8"))
    data = (SAMPLE_DIR / doc["photo"]).read_bytes()
    photo = read_photo(data, doc["photo"], detector)
    photo["sample"] = doc
    photo["notes"] = []  # this photo's notes are the sample's own, below
    truth = doc["tiles"]
    model_boxes = photo["boxes"]
    found = [any(_matches(b, t) for b in model_boxes) for t in truth]
    if model_boxes and len(model_boxes) == len(truth) and all(found):
        photo["notes"].append("Sample photo: read by the detector, no corrections needed.")
        return photo
    if model_boxes:
        wrong = found.count(False)
        photo["model_reading"] = model_boxes
        photo["notes"].append(
            f"Sample photo: the detector read {len(model_boxes)} tiles, {wrong} of the {len(truth)} differently from "
            "the checked reading; the page shows the corrected tiles, as a player would after fixing them."
        )
    elif detector is None:
        photo["notes"].append("Sample photo: shown with its checked tiles (no model installed to read it).")
    else:
        photo["notes"].append(
            "Sample photo: the detector found no tiles in it; the page shows the checked tiles."
        )
    boxes = []
    for t in truth:
        b = detection_box(SimpleNamespace(cls=t["cls"], conf=1.0, xyxy=t["xyxy"], alternatives=[]), "sample")
        b["role"] = "hand"
        boxes.append(b)
    photo["boxes"] = boxes
    photo["winning"] = doc.get("winning_index")
    photo["meld_kinds"], photo["doubts"] = {}, []
    return photo
