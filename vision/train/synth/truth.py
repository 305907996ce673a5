"""Read a generated scene back as detections plus its layout truth, and compare a proposed layout.

Used by the layout benchmark and the tests: the ground-truth boxes stand in for detections, so the
layout reader is measured on geometry alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from vision.classes import CLASS_NAMES
from vision.read.layout import Layout


@dataclass
class TruthDetection:
    """A ground-truth box in the shape of a detection (cls, conf, xyxy in pixels)."""

    cls: str
    conf: float
    xyxy: tuple[float, float, float, float]


def load_scene(root: Path, name: str) -> tuple[list[TruthDetection], dict]:
    """Label lines of scene `name` as detections (in line order) and its layout JSON."""
    layout = json.loads((root / "layout" / f"{name}.json").read_text())
    w, h = layout["width"], layout["height"]
    dets = []
    for line in (root / "labels" / f"{name}.txt").read_text().splitlines():
        c, cx, cy, bw, bh = line.split()
        cx, cy, bw, bh = float(cx) * w, float(cy) * h, float(bw) * w, float(bh) * h
        dets.append(
            TruthDetection(CLASS_NAMES[int(c)], 1.0, (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2))
        )
    return dets, layout


def layout_errors(pred: Layout, truth: dict) -> list[str]:
    """What differs between a proposed layout and the truth (empty when exactly right).

    Exact means: the standing tiles in the same reading order, the same melds (as tile sets) with
    the same kinds, the same winning tile and the same indicator.
    """
    errs = []
    if pred.standing != truth["standing"]:
        errs.append("standing")
    want = sorted((tuple(sorted(m["tiles"])), m["kind"]) for m in truth["melds"])
    got = sorted((tuple(sorted(m.tiles)), m.kind) for m in pred.melds)
    if [t for t, _ in want] != [t for t, _ in got]:
        errs.append("meld grouping")
    elif want != got:
        errs.append("meld kind")
    if pred.winning != truth["winning"]:
        errs.append("winning")
    if pred.indicator != truth["indicator"]:
        errs.append("indicator")
    return errs
