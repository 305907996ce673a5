"""How many of the tiles the reader misses the page offers as "maybe missed", and at what cost in
cards that are no tile, on the real sets (vision.read.maybe_missed; the page's panels/tiles.py).

    python benchmarks/maybe_missed_report.py [--model models/model.json] [--no-val] [--out F.json]

Per set, at the model's operating point: the labelled tiles; those the reader misses (no returned box
at IoU >= 0.5); of those, the ones a suggestion stands on (IoU >= 0.5: one tap away) and how many of
them it offers with the right face; the suggestions per photo and those on no labelled tile (a card
the player waves away); the photos whose every tile is returned, and those whose every tile is
returned or offered. Sets as
benchmarks/reader_report.py reads them: the real val without the group that chose the point
(ordinary photos, not the stretched exports), riichi-standing-dev as exported and at its camera's
16:9. Measured only: nothing is chosen on these numbers (the suggestion rules are fixed in
vision/read/maybe_missed.py from a tile's shape, before any of this was run).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("YOLO_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks.reader_report import RIICHI, RIICHI_CAMERA_ASPECT, camera_aspect, stretched, without_group  # noqa: E402
from vision.read.boxes import iou_matrix  # noqa: E402
from vision.read.detect import DEFAULT_MODEL, load_model  # noqa: E402
from vision.read.maybe_missed import MAYBE_FLOOR, split_doubted  # noqa: E402
from vision.train import data  # noqa: E402
from vision.train.evaluate import ImageResult, collect  # noqa: E402

MATCH_IOU = 0.5
DEFAULT_GROUP = "datasets/groups/chinese-mahjong-v4.json:g4"


@dataclass
class Box:
    """What split_doubted reads of a detection, with the face it was read as."""

    xyxy: tuple[float, float, float, float]
    tile_conf: float
    cls: int


def offered(im: ImageResult, point: float) -> dict[str, int]:
    """One photo's counts (see the module doc)."""
    dets = [
        Box(tuple(map(float, b)), float(t), int(c))
        for b, t, c in zip(im.pred_boxes, im.tile_scores, im.pred_cls, strict=True)
        if t >= MAYBE_FLOOR
    ]
    tiles, maybe = split_doubted(dets, point)
    gt = im.gt_boxes
    found = np.zeros(len(gt), dtype=bool)
    if len(tiles) and len(gt):
        found = (iou_matrix(gt, np.array([d.xyxy for d in tiles])) >= MATCH_IOU).any(1)
    missed = np.flatnonzero(~found)
    on_missed = face_right = 0
    false_cards = len(maybe)
    if maybe and len(gt):
        iou = iou_matrix(np.array([d.xyxy for d in maybe]), gt)
        false_cards = int((iou.max(1) < MATCH_IOU).sum())
        for g in missed:
            hit = np.flatnonzero(iou[:, g] >= MATCH_IOU)
            if len(hit):
                on_missed += 1
                face_right += int(maybe[int(hit[np.argmax(iou[hit, g])])].cls == int(im.gt_cls[g]))
    return {
        "tiles": len(gt),
        "missed": len(missed),
        "offered": on_missed,
        "offered_face_right": face_right,
        "cards": len(maybe),
        "false_cards": false_cards,
        "complete_returned": int(len(missed) == 0),
        "complete_with_cards": int(len(missed) == on_missed),
    }


def summarise(name: str, images: list[ImageResult], point: float) -> dict:
    rows = [offered(im, point) for im in images]
    total = {k: sum(r[k] for r in rows) for k in rows[0]} if rows else {}
    n = len(rows)
    return {
        "set": name,
        "photos": n,
        **total,
        "cards_per_photo": round(total.get("cards", 0) / max(n, 1), 2),
        "false_cards_per_photo": round(total.get("false_cards", 0) / max(n, 1), 2),
        "photos_complete_returned": round(total.get("complete_returned", 0) / max(n, 1), 3),
        "photos_complete_returned_or_offered": round(total.get("complete_with_cards", 0) / max(n, 1), 3),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--real", default=str(data.REAL_DATASET))
    ap.add_argument("--without-group", default=DEFAULT_GROUP)
    ap.add_argument("--riichi", default=str(RIICHI))
    ap.add_argument("--no-val", action="store_true", help="only riichi-standing-dev")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    tm = load_model(args.model)
    point = tm.tile_conf
    out = []
    if not args.no_val:
        real = collect(without_group(args.without_group, Path(args.real)), tm, low_conf=MAYBE_FLOOR)
        out.append(summarise("real val, ordinary", [im for im in real if not stretched(im)], point))
    yaml = Path(args.riichi) / "data.yaml"
    if yaml.is_file():
        out.append(summarise("riichi standing, as exported", collect(yaml, tm, low_conf=MAYBE_FLOOR), point))
        at_aspect = collect(yaml, tm, low_conf=MAYBE_FLOOR, load=camera_aspect(RIICHI_CAMERA_ASPECT))
        out.append(summarise("riichi standing, camera 16:9", at_aspect, point))
    cols = [
        "set", "photos", "tiles", "missed", "offered", "offered_face_right", "cards_per_photo",
        "false_cards_per_photo", "photos_complete_returned", "photos_complete_returned_or_offered",
    ]  # fmt: skip
    print("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
    for row in out:
        print("| " + " | ".join(str(row[c]) for c in cols) + " |")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"model": args.model, "point": point, "sets": out}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
