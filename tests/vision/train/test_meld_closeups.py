"""The ship rule reads a real set of close-ups: a photo's melds cut as a player photographs a
loser's melds, read zoomed out as the page reads them (benchmarks/reader_report.meld_closeups)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.vision.train.reader_report_module import report
from vision.classes import CLASS_NAMES

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "datasets" / "samples"
MODEL = ROOT / "models" / "model.json"


def _labelled_sample(folder: Path) -> Path:
    """The bundled winning hand as a one-photo YOLO val set (its checked tiles as labels)."""
    d = json.loads((SAMPLE / "sample.json").read_text(encoding="utf-8"))
    (folder / "val" / "images").mkdir(parents=True)
    (folder / "val" / "labels").mkdir(parents=True)
    photo = folder / "val" / "images" / "hand.jpg"
    shutil.copyfile(SAMPLE / d["photo"], photo)
    w, h = Image.open(photo).size
    lines = []
    for t in d["tiles"]:
        x0, y0, x1, y1 = t["xyxy"]
        lines.append(
            f"{CLASS_NAMES.index(t['cls'])} {(x0 + x1) / 2 / w} {(y0 + y1) / 2 / h} {(x1 - x0) / w} {(y1 - y0) / h}"
        )
    (folder / "val" / "labels" / "hand.txt").write_text("\n".join(lines) + "\n")
    (folder / "data.yaml").write_text("val: val/images\n")
    return folder / "data.yaml"


def test_each_meld_close_up_is_read_with_its_own_tiles_in_its_own_pixels(tmp_path):
    if not MODEL.is_file():
        pytest.skip("no shipped model")
    from vision.read.detect import load_model

    tm = load_model(MODEL)
    closeups = report.meld_closeups(_labelled_sample(tmp_path), tm)
    assert closeups, "the sample hand holds melds (白白白, 七饼七饼七饼, ...)"
    for im in closeups:
        assert len(im.gt_boxes) in (3, 4, 6, 7, 8)  # one or two melds
        assert (im.gt_boxes[:, 2] > im.gt_boxes[:, 0]).all() and (im.gt_boxes >= -1).all()
    counts = report.SetReading("close-ups", True, closeups, tm.tile_conf).per_photo()
    shares = report.point(counts)
    # the shipped reader, zoomed out as the page reads a meld photo, finds these large tiles where
    # they are (a box off by the canvas's offset would match none)
    assert shares["tiles_returned"] >= 0.9 and shares["tile_precision"] >= 0.9, shares
    assert np.isfinite(counts).all()
