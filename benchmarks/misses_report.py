"""Where the tiles a reader misses sit: for each labelled tile it does not return, the surest box on
it when the same reader reads down to a floor, with that box's tile confidence and face.

    python benchmarks/misses_report.py [--data DATA] [--camera-aspect A] [--model M] [--floor 0.001] [--list]

Default: riichi-standing-dev resized to its camera's 16:9, the shipped reader.

Why: a missed tile with no box at all is the detector's to find; one boxed just under the operating
point is found but not trusted; one boxed with the wrong face is the classifier's too. Each asks for
different work, so a round should know which it is after (models/MODEL_CARD.md, stop 66: every
riichi miss at 16:9 was boxed, 45 of 52 with the right face, 16 just under the point). A diagnosis:
the sets it reads are reported sets, so nothing is chosen from its numbers.
"""

from __future__ import annotations

import argparse
import os
import sys
from bisect import bisect_right
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("YOLO_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402
from labelled_set import add_set_arguments, set_photos  # noqa: E402
from reader_report import RIICHI_CAMERA_ASPECT  # noqa: E402

from vision.classes import CLASS_NAMES  # noqa: E402
from vision.read.boxes import iou_matrix  # noqa: E402
from vision.read.detect import DEFAULT_MODEL, Detection, detect, load_model  # noqa: E402
from vision.train import data  # noqa: E402

#: A box lies on a labelled tile at this IoU or more (as the reports count a tile returned).
ON_TILE_IOU = 0.5
#: Tile-confidence edges under the point that the misses are counted between.
EDGES = (0.1, 0.25, 0.45)


def surest_on(tiles: np.ndarray, boxes: np.ndarray, confs: np.ndarray) -> np.ndarray:
    """Per labelled tile (x1, y1, x2, y2), the index of the surest box on it (IoU >= ON_TILE_IOU),
    -1 where none is."""
    if not len(tiles) or not len(boxes):
        return np.full(len(tiles), -1)
    on = iou_matrix(tiles, boxes) >= ON_TILE_IOU
    ranked = np.where(on, np.asarray(confs, dtype=float)[None, :], -np.inf)
    return np.where(on.any(1), ranked.argmax(1), -1)


def bands(point: float, edges: Sequence[float] = EDGES) -> list[str]:
    """Every band `band` can name, in order: no box first, at the point last."""
    cuts = [0.0, *edges, point]
    return [
        "no box",
        *(f"{a:g}–{b:g}" for a, b in zip(cuts[:-1], cuts[1:], strict=True)),
        "at the point or above",
    ]


def band(conf: float | None, point: float, edges: Sequence[float] = EDGES) -> str:
    """The band of `bands` a missed tile's surest box falls in ('at the point or above': a box the
    reader kept out for another reason)."""
    names = bands(point, edges)
    return names[0] if conf is None else names[1 + bisect_right([*edges, point], conf)]


def misses_of_photo(
    tiles: np.ndarray, returned: list[Detection], low: list[Detection]
) -> list[tuple[int, Detection | None]]:
    """The labelled tiles (index) no returned box lies on, each with the surest box of the reading
    down to the floor (`low`) that lies on it, or None."""
    kept = surest_on(
        tiles, np.array([d.xyxy for d in returned]).reshape(-1, 4), [d.tile_conf for d in returned]
    )
    best = surest_on(tiles, np.array([d.xyxy for d in low]).reshape(-1, 4), [d.tile_conf for d in low])
    return [(i, low[best[i]] if best[i] >= 0 else None) for i in range(len(tiles)) if kept[i] < 0]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_set_arguments(ap, RIICHI_CAMERA_ASPECT)
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--floor", type=float, default=0.001, help="the lowest tile confidence read")
    ap.add_argument("--list", action="store_true", help="also list every miss")
    args = ap.parse_args(argv)
    tm = load_model(args.model)
    images, load = set_photos(args)
    counts: dict[str, int] = {}
    right, rows = 0, []
    for path in images:
        rgb = load(path)
        tiles, classes = data.labelled_tiles(path, rgb)
        found = misses_of_photo(tiles, detect(rgb, model=tm), detect(rgb, conf=args.floor, model=tm))
        for i, box in found:
            where = band(None if box is None else box.tile_conf, tm.tile_conf)
            counts[where] = counts.get(where, 0) + 1
            right += int(box is not None and box.cls == CLASS_NAMES[classes[i]])
            rows.append((path.name, CLASS_NAMES[classes[i]], box))
    total = sum(counts.values())
    print(f"{args.data.name}, {len(images)} photos, the reader {args.model} (point {tm.tile_conf:g}):")
    print(
        f"  {total} labelled tiles missed; {right} of them boxed with the right face down to {args.floor:g}"
    )
    for where in bands(tm.tile_conf):
        print(f"  {where}: {counts.get(where, 0)}")
    if args.list:
        for name, label, box in sorted(rows, key=lambda r: -(r[2].tile_conf if r[2] else -1)):
            seen = "no box" if box is None else f"{box.cls} tile {box.tile_conf:.3f} face {box.face_conf:.3f}"
            print(f"  {name[:40]}  {label}: {seen}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
