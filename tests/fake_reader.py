"""A deterministic stand-in for the tile reader, plugged into the page through MAHJONG_DETECTOR.

It lets page tests (AppTest and the real browser) run without `models/` and know exactly what was
"read": the bundled sample photo comes back with its last tile misread (九条 for 八条, unsure), a
blank photo has no tiles, a 1600-px-wide photo has 40. A photo made by `marked_photo(k)` carries
a marker in its top-left corner and reads as `HANDS[k]`, 14 standing tiles in a row: an evening
of different hands from one fixture generator; `marked_photo(MISSED + k)` reads 13 of them and
offers the 14th, with a box on the clutter, as "maybe missed" (`fake_detect_maybe`).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

SAMPLE = Path(__file__).resolve().parent.parent / "datasets" / "samples"
MARK = 251  # red value of the marker block; its green value is the hand's index
MISSED = 100  # green value MISSED + k: HANDS[k] with its last tile missed, offered as "maybe missed"

#: Closed winning hands for an evening (each scores under liaoyang with 九万 as indicator, self-drawn).
HANDS: tuple[tuple[str, ...], ...] = (
    ("2m", "2m", "P", "P", "P", "7p", "7p", "7p", "3p", "3p", "3p", "8s", "8s", "8s"),
    ("1m", "1m", "1m", "4m", "5m", "6m", "2p", "3p", "4p", "7s", "8s", "9s", "C", "C"),
    ("9m", "9m", "9m", "2m", "3m", "4m", "5p", "6p", "7p", "3s", "3s", "3s", "F", "F"),
    ("1p", "1p", "1p", "7m", "8m", "9m", "4s", "5s", "6s", "6p", "7p", "8p", "2s", "2s"),
)


@dataclass
class FakeDetection:
    cls: str
    conf: float
    xyxy: tuple[float, float, float, float]
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    unsure: bool = False  # the reader's own flag (vision.read.detect.Detection.unsure)


CALLS: list[tuple[int, int]] = []  # image sizes the fake detector was called with


def marked_photo(k: int, width: int = 640, height: int = 300) -> bytes:
    """A PNG that the fake reader reads as HANDS[k] (noise, so it is not 'blank')."""
    rgb = np.random.default_rng(100 + k).integers(60, 200, (height, width, 3), dtype=np.uint8)
    rgb[:8, :8] = (MARK, k, 0)
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG")
    return buf.getvalue()


def _marked(rgb: np.ndarray) -> tuple[int, bool] | None:
    """(k, short) for a photo made by marked_photo(k) (short: marked_photo(MISSED + k)), else None."""
    corner = rgb[:8, :8].reshape(-1, 3)
    if not ((corner[:, 0] == MARK).all() and (corner == corner[0]).all()):
        return None
    g = int(corner[0, 1])
    if g < len(HANDS):
        return g, False
    if MISSED <= g < MISSED + len(HANDS):
        return g - MISSED, True
    return None


def _row(tiles: tuple[str, ...], w: int, h: int) -> list[FakeDetection]:
    tw = w / 16
    return [
        FakeDetection(c, 0.95, (tw * (i + 1), h * 0.4, tw * (i + 1.9), h * 0.7)) for i, c in enumerate(tiles)
    ]


def fake_detect_maybe(rgb: np.ndarray) -> list[FakeDetection]:
    """What the fake reader doubted (page.detector_loader.plugin_detector finds it by this name): on a
    photo marked_photo(MISSED + k), the hand's 14th tile and a box on the clutter above the row."""
    marked = _marked(rgb)
    if marked is None or not marked[1]:
        return []
    h, w = rgb.shape[:2]
    tw = w / 16
    last = _row(HANDS[marked[0]], w, h)[13]
    return [
        FakeDetection(last.cls, 0.42, last.xyxy, [("1s", 0.1)]),
        FakeDetection("W", 0.3, (tw * 5, h * 0.05, tw * 5.9, h * 0.3)),
    ]


def fake_detect(rgb: np.ndarray) -> list[FakeDetection]:
    """Deterministic stand-in for vision.read.detect.detect (see module docstring)."""
    h, w = rgb.shape[:2]
    CALLS.append((h, w))
    if rgb.std() < 2:
        return []
    if w == 1600:
        return [FakeDetection("1m", 0.9, (40.0 * i, 10.0, 40.0 * i + 36, 60.0)) for i in range(40)]
    marked = _marked(rgb)
    if marked is not None:
        k, short = marked
        return _row(HANDS[k], w, h)[: 13 if short else 14]
    doc = json.loads((SAMPLE / "sample.json").read_text(encoding="utf-8"))
    sx, sy = w / 640, h / 300
    dets = []
    for t in doc["tiles"]:
        x1, y1, x2, y2 = t["xyxy"]
        dets.append(FakeDetection(t["cls"], 0.93, (x1 * sx, y1 * sy, x2 * sx, y2 * sy), [("5m", 0.01)]))
    dets[-1] = FakeDetection("9s", 0.55, dets[-1].xyxy, [("8s", 0.4), ("7s", 0.02)], unsure=True)  # misread
    return dets
