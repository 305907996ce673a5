"""The reader's numbers as the model card reports them, from one command.

    python benchmarks/reader_report.py [--model models/model.json] [--seat-test .cache/seat-test]

Sets (each read once at a low threshold, then summarised at the model's operating point):
- the real val photos (`../shared/datasets/chinese-mahjong-v4`), all, and split by kind: "stretched"
  photos are those whose labelled boxes have a median long/short side over STRETCHED_RATIO (Roboflow
  squeezed tall photos of a column of tiles into 640x640, so each tile is a bar 9-12x wider than
  high; no phone photo looks like that), "ordinary" the rest. The split describes; it chooses nothing.
- the "seat test": synthetic scenes of drawn prints only, a third seen from the seat, half with
  clutter (`python -m vision synth --out DIR --n 120 --seed 9050 --val-fraction 0.9 --drawn-share 1.0`,
  generated when DIR is missing). It stands in for "standing tiles of a print never seen", of which
  no real photo is available here. Its seed is used by nothing that trains.

Prints a markdown table and writes the same numbers as JSON to --out (default: none).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("YOLO_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from vision.read.boxes import elongation  # noqa: E402
from vision.read.detect import load_model  # noqa: E402
from vision.train import data  # noqa: E402
from vision.train.evaluate import ImageResult, collect, summarise  # noqa: E402

#: A photo whose labelled tiles are, at the median, longer than this many times their width was
#: stretched out of its aspect (a tile is 4:3; seen at a slant perhaps 2:1).
STRETCHED_RATIO = 4.0
SEAT_TEST_SYNTH = ["--n", "120", "--seed", "9050", "--val-fraction", "0.9", "--drawn-share", "1.0"]
COLUMNS = ("map50", "tiles_returned", "faces_right", "tile_precision", "all_right", "unsure_share")


def stretched(im: ImageResult) -> bool:
    """Whether a labelled photo was stretched out of its aspect (see STRETCHED_RATIO)."""
    if len(im.gt_boxes) == 0:
        return False
    return float(np.median(elongation(im.gt_boxes))) > STRETCHED_RATIO


def row(name: str, images: list[ImageResult], conf: float) -> dict:
    """One line of the report: the set's size and the evaluate numbers at `conf`."""
    rep = summarise(images, conf).to_dict()
    return {"set": name, "images": len(images), **{k: rep[k] for k in COLUMNS}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=None, help="model.json (default: the shipped one)")
    ap.add_argument("--real", default=str(data.REAL_DATASET), help="real dataset (data.yaml or folder)")
    ap.add_argument("--seat-test", default=".cache/seat-test", help="seat-test scenes (made if missing)")
    ap.add_argument("--no-seat-test", action="store_true", help="the real val photos only")
    ap.add_argument("--out", default=None, help="also write the rows as JSON here")
    args = ap.parse_args()

    model = load_model(args.model)
    conf = model.tile_conf
    rows = []
    real = collect(Path(args.real), model)
    rows.append(row("real val", real, conf))
    rows.append(row("real val, ordinary", [im for im in real if not stretched(im)], conf))
    rows.append(row("real val, stretched", [im for im in real if stretched(im)], conf))
    if not args.no_seat_test:
        seat = Path(args.seat_test)
        if not (seat / "data.yaml").is_file():
            cmd = [sys.executable, "-m", "vision", "synth", "--out", str(seat), *SEAT_TEST_SYNTH]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        rows.append(row("seat test", collect(seat / "data.yaml", model), conf))

    print(f"model {args.model or 'models/model.json'}  tile_conf {conf}\n")
    print("| set | images | " + " | ".join(COLUMNS) + " |")
    print("|---|---|" + "---|" * len(COLUMNS))
    for r in rows:
        print(f"| {r['set']} | {r['images']} | " + " | ".join(f"{r[k]:.4f}" for k in COLUMNS) + " |")
    if args.out:
        Path(args.out).write_text(json.dumps({"tile_conf": conf, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
