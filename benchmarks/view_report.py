"""Which view each reader reads each photo through, how near the photo sits to the test that chooses
it, and the right tiles each reader returns there: where two readers part on a set's views.

    python benchmarks/view_report.py [--data DATA] [--camera-aspect A] [--model M ...] [--list]

Default: riichi-standing-dev as exported (640x640 squares of 16:9 frames), the shipped reader.

Why: a square photo looks distorted where its sure boxes' median long/short side is over the
reader's distortion ratio (2.0 for a square), and is then read through the view that squeezes it
back. riichi-standing-dev's exports lie around that ratio (the shipped reader's median 2.11, 8 of
29 photos within 0.05), so a detector that boxes them a few percent squatter reads them as they
are, and a candidate is judged partly on that edge, not on its tiles (models/MODEL_CARD.md, stop
68: soup_r7r35 returned 16 right tiles fewer as exported, 18 lost on the 8 photos it read as they
are, 7 of them flipped by that test). A diagnosis: the sets it reads are reported sets, so nothing
is chosen from its numbers.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("YOLO_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402
from labelled_set import add_set_arguments, set_photos  # noqa: E402
from misses_report import ON_TILE_IOU  # noqa: E402

from vision.read.boxes import iou_matrix  # noqa: E402
from vision.read.detect import DEFAULT_MODEL, ViewVerdict, detect, load_model, view_verdict  # noqa: E402
from vision.train import data  # noqa: E402

#: How near the ratio a photo is counted as on the edge, either side.
NEAR = (0.05, 0.1)


@dataclass(frozen=True)
class PhotoRead:
    """One reader's view of one photo and the labelled tiles it returned there (a box on the tile)."""

    verdict: ViewVerdict
    returned: int
    tiles: int


def returned_tiles(tiles: np.ndarray, boxes: np.ndarray) -> int:
    """How many labelled tiles (x1, y1, x2, y2) have a returned box on them."""
    if not len(tiles) or not len(boxes):
        return 0
    return int((iou_matrix(tiles, boxes) >= ON_TILE_IOU).any(1).sum())


def near_edge(reads: Sequence[PhotoRead], within: float) -> int:
    """The photos whose sure boxes' elongation lies within `within` of the ratio, either side."""
    return sum(
        r.verdict.elongation is not None and abs(r.verdict.elongation - r.verdict.ratio) < within
        for r in reads
    )


def parted(base: Sequence[PhotoRead], other: Sequence[PhotoRead]) -> list[int]:
    """The photos (index) `other` reads through another view than `base` does."""
    return [
        i for i, (a, b) in enumerate(zip(base, other, strict=True)) if a.verdict.squeeze != b.verdict.squeeze
    ]


def summary(name: str, reads: Sequence[PhotoRead]) -> str:
    """One reader's line: the photos it could tell, how many looked distorted, how many lie near the
    edge, and the tiles it returned."""
    told = [r.verdict.elongation for r in reads if r.verdict.elongation is not None]
    med = f"{float(np.median(told)):.2f}" if told else "-"
    near = ", ".join(f"{near_edge(reads, w)} within {w:g}" for w in NEAR)
    return (
        f"  {name}: {len(told)} of {len(reads)} photos told (median {med}), "
        f"{sum(r.verdict.distorted for r in reads)} distorted, {near}; "
        f"{sum(r.returned for r in reads)} of {sum(r.tiles for r in reads)} tiles returned"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_set_arguments(ap, 0.0)
    ap.add_argument(
        "--model", type=Path, action="append", help="model.json (repeatable; the first is the base)"
    )
    ap.add_argument("--list", action="store_true", help="also list every photo")
    args = ap.parse_args(argv)
    paths = args.model or [DEFAULT_MODEL]
    models = [load_model(p) for p in paths]
    images, load = set_photos(args)
    reads: list[list[PhotoRead]] = [[] for _ in models]
    for path in images:
        rgb = load(path)
        tiles, _ = data.labelled_tiles(path, rgb)
        for mine, tm in zip(reads, models, strict=True):
            boxes = np.array([d.xyxy for d in detect(rgb, model=tm)]).reshape(-1, 4)
            mine.append(PhotoRead(view_verdict(rgb, model=tm), returned_tiles(tiles, boxes), len(tiles)))
    print(f"{args.data.name}, {len(images)} photos, distortion ratio {reads[0][0].verdict.ratio:g}:")
    for p, mine in zip(paths, reads, strict=True):
        print(summary(str(p), mine))
    for p, mine in zip(paths[1:], reads[1:], strict=True):
        idx = parted(reads[0], mine)
        base_ret = sum(reads[0][i].returned for i in idx)
        print(
            f"  {p} reads {len(idx)} photos through another view than {paths[0]}: "
            f"{sum(mine[i].returned for i in idx)} tiles returned there against {base_ret}"
        )
    if args.list:
        for i, path in enumerate(images):
            row = " | ".join(
                f"{r[i].returned}/{r[i].tiles} {r[i].verdict.elongation or 0:.2f} "
                f"{'distorted' if r[i].verdict.distorted else 'as is'} {r[i].verdict.squeeze}"
                for r in reads
            )
            print(f"  {path.name[:40]}  {row}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
