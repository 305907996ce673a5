"""--cls-boxes-from: the classifier learns from the detector's own boxes, each with its tile's face."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.classes import CLASS_ID
from vision.train import crops as vcrops

# Three labelled tiles in a 96 x 128 photo: 1m, 5p and a face-down tile (xyxy pixels).
TILES = {"1m": (10, 20, 36, 54), "5p": (48, 20, 74, 54), "back": (86, 20, 112, 54)}


def _photo(root: Path) -> Path:
    """One labelled photo (YOLO layout) whose tiles are TILES, each a distinct grey."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir(parents=True)
    img = np.full((96, 128, 3), (30, 110, 40), np.uint8)
    rows = []
    for k, (face, (x0, y0, x1, y1)) in enumerate(TILES.items()):
        img[y0:y1, x0:x1] = 100 + 60 * k
        cx, cy, w, h = (x0 + x1) / 256, (y0 + y1) / 192, (x1 - x0) / 128, (y1 - y0) / 96
        rows.append(f"{CLASS_ID[face]} {cx:.5f} {cy:.5f} {w:.5f} {h:.5f}")
    Image.fromarray(img).save(root / "images" / "0.png")
    (root / "labels" / "0.txt").write_text("\n".join(rows) + "\n")
    return root / "images" / "0.png"


def test_each_box_takes_the_tile_it_overlaps_best_and_each_tile_one_box():
    labelled = np.array([[0.0, 0.0, 20.0, 30.0], [30.0, 0.0, 50.0, 30.0]])
    found = np.array(
        [
            [31.0, 0.0, 51.0, 30.0],  # tile 1
            [0.0, 0.0, 20.0, 36.0],  # tile 0, taller (IoU 0.83)
            [1.0, 0.0, 21.0, 30.0],  # tile 0 again, better (IoU 0.90): it takes the tile
            [15.0, 0.0, 35.0, 30.0],  # across both: IoU 0.14 with each
        ]
    )
    assert vcrops.label_of_each_box(found, labelled).tolist() == [1, -1, 0, -1]
    assert vcrops.label_of_each_box(found, labelled[:0]).tolist() == [-1, -1, -1, -1]
    assert vcrops.label_of_each_box(found[:0], labelled).tolist() == []


def test_box_crops_are_cut_at_the_detector_box_with_the_label_face_and_no_back(tmp_path):
    image = _photo(tmp_path / "set")
    taller = np.array([[10, 10, 36, 54], [48, 20, 74, 54], [86, 20, 112, 54], [0, 70, 20, 90]], np.float64)
    calls = []

    def detector(rgb: np.ndarray) -> np.ndarray:
        calls.append(rgb.shape)
        return taller

    out = vcrops.box_crops([image], detector, tmp_path / "boxes.npz")
    assert out.y.tolist() == [CLASS_ID["1m"], CLASS_ID["5p"]]  # the back and the box on no tile give none
    assert out.x.shape == (2, vcrops.SRC_H, vcrops.SRC_W, 3)
    rgb = np.asarray(Image.open(image).convert("RGB"))
    from vision.read.tilenet import crop_tiles

    want = crop_tiles(rgb, taller[:1], margin=vcrops.SRC_MARGIN, size=(vcrops.SRC_W, vcrops.SRC_H))
    assert np.array_equal(out.x[:1], want)  # the detector's box, not the label's
    again = vcrops.box_crops([image], detector, tmp_path / "boxes.npz")
    assert len(calls) == 1 and np.array_equal(again.x, out.x)  # cached: the detector is not run again
    with_backs = vcrops.box_crops([image], detector, skip=())
    assert with_backs.y.tolist() == [CLASS_ID["1m"], CLASS_ID["5p"], CLASS_ID["back"]]


def test_box_crops_join_the_training_crops_capped_and_need_the_scenes(tmp_path, monkeypatch):
    from vision.train import pipeline

    image = _photo(tmp_path / "scenes")
    weights = tmp_path / "det.pt"
    weights.write_bytes(b"weights")
    monkeypatch.setattr(pipeline, "point_scenes", lambda synth: tmp_path / "scenes")
    monkeypatch.setattr(pipeline.data, "split_images", lambda source, split: [image])
    monkeypatch.setattr(
        pipeline, "detector_boxes", lambda w, imgsz: lambda rgb: np.array([TILES["1m"], TILES["5p"]], float)
    )
    base = vcrops.CropSet(np.zeros((1, vcrops.SRC_H, vcrops.SRC_W, 3), np.uint8), np.array([7]))
    out = pipeline._with_box_crops(base, weights, 384, tmp_path / "cache", seed=0)
    assert sorted(out.y.tolist()) == sorted([7, CLASS_ID["1m"], CLASS_ID["5p"]])
    assert len(list((tmp_path / "cache").glob("crops_boxes_*.npz"))) == 1
    monkeypatch.setattr(pipeline, "BOX_CROPS_MAX", 1)
    assert len(pipeline._with_box_crops(base, weights, 384, tmp_path / "cache", seed=0).y) == 2
    with pytest.raises(SystemExit, match="no detector weights"):
        pipeline._with_box_crops(base, tmp_path / "none.pt", 384, tmp_path / "cache", seed=0)
    monkeypatch.setattr(pipeline, "point_scenes", lambda synth: None)
    with pytest.raises(SystemExit, match="synthetic scenes"):
        pipeline._with_box_crops(base, weights, 384, tmp_path / "cache", seed=0)
