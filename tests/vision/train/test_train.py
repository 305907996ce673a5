"""Training smoke run: a few generated images, tiny sizes, one epoch; never touches models/."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.classes import CLASS_ID
from vision.read.detect import MODELS_DIR, detect, load_model
from vision.train import crops as vcrops
from vision.train import data

pytestmark = pytest.mark.slow


def _make_dataset(root: Path, n: int = 4) -> Path:
    """Tiny YOLO dataset: light 'tiles' with a coloured mark on a green table."""
    rng = np.random.default_rng(0)
    for split in ("train", "val"):
        (root / split / "images").mkdir(parents=True)
        (root / split / "labels").mkdir(parents=True)
        for i in range(n):
            img = np.zeros((96, 128, 3), np.uint8)
            img[:] = (30, 110, 40)
            rows = []
            for k in range(3):
                x, y = 10 + 38 * k, 20 + int(rng.integers(0, 30))
                img[y : y + 34, x : x + 26] = 235
                cls = ("1m", "5p", "back")[k]
                img[y + 10 : y + 24, x + 8 : x + 18] = (200, 30, 30) if k == 0 else (30, 30, 200)
                rows.append(
                    f"{CLASS_ID[cls]} {(x + 13) / 128:.4f} {(y + 17) / 96:.4f} {26 / 128:.4f} {34 / 96:.4f}"
                )
            Image.fromarray(img).save(root / split / "images" / f"{i}.png")
            (root / split / "labels" / f"{i}.txt").write_text("\n".join(rows) + "\n")
    (root / "data.yaml").write_text("path: .\ntrain: train/images\nval: val/images\n")
    return root


def _digest(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*")) if p.is_file()
    }


def test_two_stage_training_smoke(tmp_path, monkeypatch):
    from vision.train import pipeline as train

    monkeypatch.setattr(data, "DATASETS_DIR", tmp_path / "assembled")
    before = _digest(MODELS_DIR)
    src = _make_dataset(tmp_path / "src")
    assert len(data.split_images(src, "train")) == 4

    yaml_path = data.assemble("smoke", data.TILES, [src], val_source=src)
    assert (tmp_path / "assembled" / "smoke" / "train" / "labels" / "s0_0.txt").read_text().startswith("0 ")
    det = train.train_detector(yaml_path, "det", imgsz=64, epochs=1, batch=4, project=tmp_path / "runs")
    assert det.is_file()
    # continuing from our own one-class weights carries every layer over
    det2 = train.train_detector(
        yaml_path,
        "det2",
        imgsz=64,
        epochs=1,
        batch=4,
        project=tmp_path / "runs",
        weights=det,
        scale=0.7,
        lr0=0.0005,
        freeze=10,
    )
    assert det2.is_file()
    # the random zoom (--det-scale), the starting rate (--det-lr0) and the frozen layers (--det-freeze)
    # asked for are what ultralytics used
    used = (tmp_path / "runs" / "det2" / "args.yaml").read_text().splitlines()
    assert {"scale: 0.7", "optimizer: AdamW", "lr0: 0.0005", "warmup_bias_lr: 0.0", "freeze: 10"} <= set(used)

    crops = vcrops.load_crops([src], "train")
    assert crops.x.shape == (12, vcrops.SRC_H, vcrops.SRC_W, 3)
    lines: list[str] = []
    cls = train.train_classifier(
        crops, tmp_path / "cls", epochs=1, batch_size=8, val=vcrops.val_crops(src), log=lines.append
    )
    assert cls.is_file()
    assert "val_acc" in lines[0] and "(weakest " in lines[0]  # one face gone wrong shows per epoch
    # every chunk says what it cost (the model card's epochs per hour come from here)
    import json

    costs = [json.loads(x) for x in (tmp_path / "runs" / train.COMPUTE_LOG).read_text().splitlines()]
    assert [(c["stage"], c["epochs"]) for c in costs] == [("detector", 1), ("detector", 1)]
    assert all(c["epochs_per_hour"] > 0 and c["cores"] >= 1 for c in costs)
    cls_cost = json.loads((tmp_path / train.COMPUTE_LOG).read_text())
    assert cls_cost["stage"] == "classifier" and cls_cost["epochs"] == 1

    model_json = train.ship(det, cls, conf=0.01, det_imgsz=64, models_dir=tmp_path / "models")
    model = load_model(model_json)
    dets = detect(np.asarray(Image.open(src / "val" / "images" / "0.png").convert("RGB")), model=model)
    assert all(len(d.alternatives) <= 5 for d in dets)  # an untrained model may find nothing; it must run
    # ship a new detector beside the classifier already there (`--classifier models/...`): kept as is
    kept = (tmp_path / "models" / "tile_classifier.pt").read_bytes()
    train.ship(det2, tmp_path / "models" / "tile_classifier.pt", 0.02, 64, models_dir=tmp_path / "models")
    assert (tmp_path / "models" / "tile_classifier.pt").read_bytes() == kept
    assert (tmp_path / "models" / "tile_detector.pt").read_bytes() == det2.read_bytes()
    assert json.loads(model_json.read_text())["tile_conf"] == 0.02
    assert _digest(MODELS_DIR) == before, "smoke training must not touch the shipped model"


def test_split_images_with_a_relative_yaml_path(tmp_path, monkeypatch):
    """A data.yaml given by a relative path (as the README's `../shared/...`) finds its images."""
    root = tmp_path / "sets" / "real"
    (root / "val" / "images").mkdir(parents=True)
    (root / "val" / "images" / "a.jpg").write_bytes(b"x")
    (root / "data.yaml").write_text("val: val/images\nnames: ['1m']\n")
    monkeypatch.chdir(tmp_path / "sets")
    assert [p.name for p in data.split_images(Path("real/data.yaml"), "val")] == ["a.jpg"]
    assert [p.name for p in data.split_images(Path("real"), "val")] == ["a.jpg"]


def test_close_up_photos_are_repeated_in_the_assembled_train_split(tmp_path, monkeypatch):
    monkeypatch.setattr(data, "DATASETS_DIR", tmp_path / "assembled")
    src = _make_dataset(tmp_path / "src")  # tiles 26x34 px in 128x96: median side ~0.25 of the image
    far = src / "train" / "labels" / "3.txt"
    far.write_text("0 0.5 0.5 0.05 0.06\n")  # a distant tile
    (src / "train" / "labels" / "2.txt").write_text("")  # no tile of the 35
    assert data.is_close_up(src / "train" / "images" / "0.png")
    assert not data.is_close_up(src / "train" / "images" / "3.png")
    assert not data.is_close_up(src / "train" / "images" / "2.png")
    yaml_path = data.assemble("rep", data.TILES, [src], val_source=src, close_up_repeat=3)
    names = sorted(p.name for p in (yaml_path.parent / "train" / "images").iterdir())
    assert names == sorted(
        [
            "s0_0.png",
            "s0r1_0.png",
            "s0r2_0.png",
            "s0_1.png",
            "s0r1_1.png",
            "s0r2_1.png",
            "s0_2.png",
            "s0_3.png",
        ]
    )
    labels = yaml_path.parent / "train" / "labels"
    assert (labels / "s0r2_1.txt").read_text() == (labels / "s0_1.txt").read_text()


def test_other_crops_come_from_tile_free_photos_only(tmp_path):
    from vision.classes import OTHER_ID

    src = _make_dataset(tmp_path / "src")
    (src / "train" / "labels" / "1.txt").write_text("")
    negatives = vcrops.negative_images([src])
    assert negatives == [src / "train" / "images" / "1.png"]
    calls = []

    def two_boxes(rgb: np.ndarray) -> np.ndarray:
        calls.append(rgb.shape)
        return np.array([[10, 20, 36, 54], [48, 20, 74, 54]], np.float64)

    cache = tmp_path / "other.npz"
    crops = vcrops.other_crops(negatives, two_boxes, cache)
    assert crops.x.shape == (2, vcrops.SRC_H, vcrops.SRC_W, 3)
    assert crops.y.tolist() == [OTHER_ID, OTHER_ID]
    assert calls == [(96, 128, 3)]
    again = vcrops.other_crops(negatives, two_boxes, cache)  # from the cache: the detector is not run
    assert calls == [(96, 128, 3)] and np.array_equal(again.x, crops.x)


def test_other_crops_on_a_row_are_the_unlabelled_boxes_on_it_only(tmp_path):
    """A flower tile in a labelled hand (the labellers skipped it) becomes `other`; a labelled tile,
    and an unlabelled tile of a pile off the row, do not."""
    from vision.classes import OTHER_ID

    root = tmp_path / "rows"
    for split in ("train", "val"):
        (root / split / "images").mkdir(parents=True)
        (root / split / "labels").mkdir(parents=True)
    (root / "data.yaml").write_text("path: .\ntrain: train/images\nval: val/images\n")
    img = np.zeros((120, 400, 3), np.uint8)
    img[:] = (30, 110, 40)
    xs = [10 + 24 * k for k in range(10)]  # ten tiles 20 x 28 side by side, y 70..98
    labels = [f"0 {(x + 10) / 400:.4f} {84 / 120:.4f} {20 / 400:.4f} {28 / 120:.4f}" for x in xs[1:]]
    Image.fromarray(img).save(root / "train" / "images" / "row.png")
    (root / "train" / "labels" / "row.txt").write_text("\n".join(labels) + "\n")  # xs[0] skipped
    Image.fromarray(img).save(root / "train" / "images" / "few.png")
    (root / "train" / "labels" / "few.txt").write_text("\n".join(labels[:3]) + "\n")  # no row
    assert vcrops.row_images(root) == [root / "train" / "images" / "row.png"]

    flower = [xs[0], 70, xs[0] + 20, 98]
    labelled = [xs[4], 70, xs[4] + 20, 98]
    pile = [xs[4], 10, xs[4] + 20, 38]  # above the hand

    def found(rgb: np.ndarray) -> np.ndarray:
        return np.array([flower, labelled, pile], np.float64)

    crops = vcrops.other_crops(vcrops.row_images(root), found, keep=vcrops.unlabelled_on_row)
    assert crops.y.tolist() == [OTHER_ID]
    only = vcrops.other_crops([root / "train" / "images" / "row.png"], lambda rgb: np.array([flower]))
    assert np.array_equal(crops.x, only.x)  # the crop is the flower's


def test_other_crop_boxes_come_from_the_plain_view(monkeypatch):
    """`other` crops are boxes on ordinary photos: the aspect views (chosen by detector mass alone
    for a bare detector) must not change which boxes the shipped classifier was trained on."""
    from vision.read import detect as vdetect

    weights = vdetect.MODELS_DIR / "tile_detector.pt"
    if not weights.is_file():
        pytest.skip("no shipped detector")
    seen = []
    monkeypatch.setattr(vdetect, "detect", lambda rgb, **kw: seen.append(kw) or [])
    boxes = vcrops.detector_boxes(weights, 384)(np.zeros((32, 32, 3), np.uint8))
    assert len(boxes) == 0 and seen and seen[0]["aspect_views"] is False
    assert seen[0]["model"].conf == 0.3 and seen[0]["model"].det_imgsz == 384


def test_real_repeat_links_every_photo_of_the_first_source_only(tmp_path, monkeypatch):
    monkeypatch.setattr(data, "DATASETS_DIR", tmp_path / "assembled")
    real = _make_dataset(tmp_path / "real")
    scenes = _make_dataset(tmp_path / "scenes")
    for src in (real, scenes):  # distant tiles: no photo is a close-up, so only real_repeat counts
        for label in (src / "train" / "labels").iterdir():
            label.write_text("0 0.5 0.5 0.05 0.06\n")
    yaml_path = data.assemble("real2", data.TILES, [real, scenes], val_source=real, real_repeat=2)
    names = sorted(p.name for p in (yaml_path.parent / "train" / "images").iterdir())
    real_names = [n for n in names if n.startswith("s0")]
    scene_names = [n for n in names if n.startswith("s1")]
    assert len(real_names) == 2 * len(data.split_images(real, "train"))
    assert len(scene_names) == len(data.split_images(scenes, "train"))
    assert "s0r1_0.png" in real_names and not any(n.startswith("s1r") for n in names)


def test_real_repeat_and_close_up_repeat_multiply(tmp_path, monkeypatch):
    monkeypatch.setattr(data, "DATASETS_DIR", tmp_path / "assembled")
    src = _make_dataset(tmp_path / "src")  # photo 0 is a close-up
    yaml_path = data.assemble("both", data.TILES, [src], val_source=src, close_up_repeat=2, real_repeat=3)
    names = [p.name for p in (yaml_path.parent / "train" / "images").iterdir()]
    assert sum(n.endswith("_0.png") for n in names) == 6


def test_a_rehearsed_replay_bank_is_mixed_in_and_a_missing_one_is_named(tmp_path):
    """--cls-replay DIR: the bank beside a model joins the classifier's crops REPLAY_REPEAT times
    (the `back` faces the real photos lack); a folder without a bank stops with its name."""
    from vision.train import pipeline, replay

    rng = np.random.default_rng(0)
    bank_x = rng.integers(0, 255, (3, vcrops.SRC_H, vcrops.SRC_W, 3), dtype=np.uint8)
    replay.write_bank(tmp_path / "model", bank_x, np.array([0, 34, 35]))
    real = vcrops.CropSet(np.zeros((2, vcrops.SRC_H, vcrops.SRC_W, 3), np.uint8), np.array([5, 6]))
    mixed = pipeline._with_replay(real, tmp_path / "model")
    assert len(mixed.y) == 2 + 3 * pipeline.REPLAY_REPEAT
    assert np.bincount(mixed.y, minlength=36)[34] == pipeline.REPLAY_REPEAT
    with pytest.raises(SystemExit, match="no replay bank in"):
        pipeline._with_replay(real, tmp_path / "empty")


def test_the_weakest_face_is_named_with_its_accuracy():
    y = np.array([33, 33, 33, 33, 0, 0, 5])
    pred = np.array([34, 34, 34, 33, 0, 0, 5])  # 白 read as `back` three times in four
    assert vcrops.weakest_class(y, pred) == (33, 0.25)


def test_a_classifier_grows_a_flower_output_from_weights_without_it(tmp_path):
    """--cls-init with 36-output weights into a 37-output net: the 36 keep their weights."""
    import torch

    from vision.read.tilenet import TileNet
    from vision.train import pipeline

    old = TileNet(num_classes=36)
    new = TileNet(num_classes=37)
    pipeline.load_init(new, old.state_dict())
    assert torch.equal(new.state_dict()["head.2.weight"][:36], old.state_dict()["head.2.weight"])
    assert torch.equal(new.state_dict()["features.0.weight"], old.state_dict()["features.0.weight"])


def test_the_row_crops_are_flowers_with_flower_rows(tmp_path, monkeypatch):
    """--flower-rows: the same row crops, labelled `flower` (the 37th output), the tile-free ones
    still `other`."""
    from vision.classes import FLOWER_ID, OTHER_ID
    from vision.train import pipeline

    rows_x = np.ones((2, vcrops.SRC_H, vcrops.SRC_W, 3), np.uint8)
    free_x = np.zeros((1, vcrops.SRC_H, vcrops.SRC_W, 3), np.uint8)
    monkeypatch.setattr(pipeline, "detector_boxes", lambda weights, imgsz: None)
    monkeypatch.setattr(pipeline, "negative_images", lambda sources: [])
    monkeypatch.setattr(pipeline, "row_images", lambda source: [])

    def crops(images, find, cache, keep=None):
        x = free_x if keep is None else rows_x
        return vcrops.CropSet(x, np.full(len(x), OTHER_ID, np.int64))

    monkeypatch.setattr(pipeline, "other_crops", crops)
    base = vcrops.CropSet(free_x[:0], np.zeros(0, np.int64))
    out = pipeline._with_other(base, [tmp_path], tmp_path, 64, tmp_path, rows=True, rows_label=FLOWER_ID)
    counts = np.bincount(out.y, minlength=FLOWER_ID + 1)
    assert counts[OTHER_ID] == vcrops.OTHER_REPEAT and counts[FLOWER_ID] == 2 * vcrops.OTHER_REPEAT


def test_boxes_on_no_labelled_tile_of_a_scene_are_unlabelled():
    """--other-scenes: a scene's labels are complete, so a box on none of them is clutter."""
    labelled = np.array([[0.0, 0.0, 20.0, 30.0], [30.0, 0.0, 50.0, 30.0]])
    found = np.array([[1.0, 0.0, 21.0, 30.0], [100.0, 0.0, 120.0, 30.0], [15.0, 0.0, 35.0, 30.0]])
    assert vcrops.unlabelled(found, labelled).tolist() == [False, True, True]  # a box across two: IoU 0.14
    assert vcrops.unlabelled(found, labelled[:0]).tolist() == [True, True, True]
    assert vcrops.unlabelled(found[:0], labelled).tolist() == []


def test_scene_clutter_joins_other_repeated_and_capped(tmp_path, monkeypatch):
    from vision.classes import OTHER_ID
    from vision.train import pipeline

    clutter = np.zeros((3, vcrops.SRC_H, vcrops.SRC_W, 3), np.uint8)
    monkeypatch.setattr(pipeline, "detector_boxes", lambda weights, imgsz: None)
    monkeypatch.setattr(pipeline, "negative_images", lambda sources: [])
    monkeypatch.setattr(pipeline.data, "split_images", lambda source, split: ["a.png", "b.png"])
    seen = {}

    def crops(images, find, cache, keep=None):
        seen[cache.name] = keep
        x = clutter if keep is not None else clutter[:0]
        return vcrops.CropSet(x, np.full(len(x), OTHER_ID, np.int64))

    monkeypatch.setattr(pipeline, "other_crops", crops)
    base = vcrops.CropSet(clutter[:0], np.zeros(0, np.int64))
    out = pipeline._with_other(base, [tmp_path], tmp_path, 64, tmp_path, scenes=tmp_path)
    assert seen["crops_other_scenes.npz"] is vcrops.unlabelled
    assert (out.y == OTHER_ID).sum() == 3 * vcrops.OTHER_REPEAT
    monkeypatch.setattr(pipeline, "OTHER_SCENES_MAX", 5)
    assert len(pipeline._with_other(base, [tmp_path], tmp_path, 64, tmp_path, scenes=tmp_path).y) == 5


def test_a_flower_continuing_a_line_of_labelled_tiles_is_found_in_a_grid_too():
    """unlabelled_in_lines: in a grid of labelled tiles, an unlabelled box in a gap or at a line's
    end is a flower (the set skips them); a box far from the tiles, or on a labelled tile, is not.
    unlabelled_on_row finds no row in a grid."""
    lab = np.array(
        [[0, 0, 10, 14], [11, 0, 21, 14], [22, 0, 32, 14], [0, 15, 10, 29], [22, 15, 32, 29]], float
    )
    gap, end, far, on_tile = [11, 15, 21, 29], [33, 0, 43, 14], [100, 100, 110, 114], [0.5, 0, 10.5, 14]
    found = np.array([gap, end, far, on_tile], float)
    assert vcrops.unlabelled_in_lines(found, lab).tolist() == [True, True, False, False]
    assert not vcrops.unlabelled_on_row(found, lab).any()
    assert vcrops.unlabelled_in_lines(found, lab[:0]).tolist() == [False] * 4


def _listing(path: Path, boxes: list[dict]) -> Path:
    import json

    path.write_text(json.dumps({"split": "train", "boxes": boxes}), encoding="utf-8")
    return path


def test_a_listing_s_boxes_are_cut_from_the_photos_it_names_with_its_label(tmp_path):
    """listed_crops (--flower-boxes): each listed box is cut from its own photo, with the margin of
    every training crop, and carries the label given; the crop shows that tile's mark."""
    from vision.classes import FLOWER_ID

    src = _make_dataset(tmp_path / "ds", n=2)
    labels = (src / "train" / "labels" / "0.txt").read_text().split("\n")
    _, cx, cy, w, h = (float(v) for v in labels[0].split())  # the 1m tile: a red mark
    red = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]
    other = (src / "train" / "labels" / "1.txt").read_text().split("\n")
    _, cx, cy, w, h = (float(v) for v in other[1].split())  # photo 1's 5p tile: a blue mark
    blue = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]
    listing = _listing(tmp_path / "l.json", [{"image": "0.png", "box": red}, {"image": "1.png", "box": blue}])
    got = vcrops.listed_crops(listing, src, FLOWER_ID)
    assert got.x.shape == (2, vcrops.SRC_H, vcrops.SRC_W, 3) and got.y.tolist() == [FLOWER_ID] * 2
    centre = got.x[:, vcrops.SRC_H // 2, vcrops.SRC_W // 2].astype(int)
    assert centre[0, 0] > 150 > centre[0, 2] and centre[1, 2] > 150 > centre[1, 0]


def test_a_listing_naming_a_missing_photo_or_malformed_is_refused_in_words(tmp_path):
    src = _make_dataset(tmp_path / "ds", n=1)
    lost = _listing(tmp_path / "l.json", [{"image": "gone.png", "box": [0, 0, 0.5, 0.5]}])
    with pytest.raises(vcrops.ListingError, match="1 photos not in .*gone.png"):
        vcrops.listed_crops(lost, src, 0)
    bad = tmp_path / "bad.json"
    bad.write_text('{"boxes": [{"image": "0.png"}]}')
    with pytest.raises(vcrops.ListingError, match="not readable"):
        vcrops.listed_crops(bad, src, 0)


def test_flower_boxes_take_the_listing_and_mine_no_row(tmp_path, monkeypatch):
    """--flower-boxes: the flower crops are the listing's, the detector's row boxes are not mined."""
    from vision.classes import FLOWER_ID, OTHER_ID
    from vision.train import pipeline

    src = _make_dataset(tmp_path / "ds", n=1)
    listing = _listing(tmp_path / "l.json", [{"image": "0.png", "box": [0.1, 0.2, 0.3, 0.6]}])
    free_x = np.zeros((1, vcrops.SRC_H, vcrops.SRC_W, 3), np.uint8)
    monkeypatch.setattr(pipeline, "detector_boxes", lambda weights, imgsz: None)
    monkeypatch.setattr(pipeline, "negative_images", lambda sources: [])

    def crops(images, find, cache, keep=None):
        assert keep is None, "no row is mined when a listing is given"
        return vcrops.CropSet(free_x, np.full(1, OTHER_ID, np.int64))

    monkeypatch.setattr(pipeline, "other_crops", crops)
    base = vcrops.CropSet(free_x[:0], np.zeros(0, np.int64))
    out = pipeline._with_other(
        base, [src], tmp_path, 64, tmp_path, rows=True, rows_label=FLOWER_ID, listed=listing
    )
    counts = np.bincount(out.y, minlength=FLOWER_ID + 1)
    assert counts[OTHER_ID] == vcrops.OTHER_REPEAT and counts[FLOWER_ID] == vcrops.OTHER_REPEAT


def test_the_shipped_flower_listing_is_well_formed():
    """datasets/flowers/chinese-mahjong-v4-train.json: train photos only, boxes inside the photo,
    no box twice; where the set is at hand, every photo it names is in its train split."""
    import json

    from vision import _env

    spec = json.loads((_env.REPO_ROOT / "datasets" / "flowers" / "chinese-mahjong-v4-train.json").read_text())
    assert spec["split"] == "train" and len(spec["boxes"]) > 500
    boxes = np.array([b["box"] for b in spec["boxes"]])
    assert (
        ((boxes >= 0) & (boxes <= 1)).all()
        and (boxes[:, 2] > boxes[:, 0]).all()
        and (boxes[:, 3] > boxes[:, 1]).all()
    )
    keys = {(b["image"], tuple(b["box"])) for b in spec["boxes"]}
    assert len(keys) == len(spec["boxes"])
    if data.REAL_DATASET.is_dir():
        names = {p.name for p in data.split_images(data.REAL_DATASET, "train")}
        assert {b["image"] for b in spec["boxes"]} <= names


def test_the_ship_stage_keeps_the_shipped_flower_gate_even_after_a_probe_in_the_same_folder(tmp_path):
    """A candidate detector is the shipped reader with its detector replaced: the flower gate and
    where it came from stay (stop 68 found the ship stage dropping them, which would have judged a
    new detector and a reader without its gate as one change)."""
    import json
    import shutil

    from vision.read import manifest
    from vision.train import pipeline as train

    folder = tmp_path / "models"
    shutil.copytree(MODELS_DIR, folder, ignore=shutil.ignore_patterns("*.onnx", "replay_crops.*", "*.md"))
    shipped = json.loads((MODELS_DIR / "model.json").read_text())
    gate = train.shipped_gate(folder)
    assert gate is not None and gate.weights == (MODELS_DIR / shipped["flower_gate"]).read_bytes()
    det, cls = folder / "tile_detector.pt", folder / "tile_classifier.pt"
    kept = train.shipped_op(folder)
    # a probe written over the folder without the gate (as `--ship` into models/ does) loses nothing
    train.ship(det, cls, 0.5, 384, models_dir=folder, kept=kept)
    (folder / "flower_gate.pt").unlink()
    assert train.shipped_gate(folder) is None
    model_json = train.ship(det, cls, 0.5, 384, models_dir=folder, kept=kept, gate=gate)
    written = json.loads(model_json.read_text())
    assert written["flower_gate"] == "flower_gate.pt"
    assert (folder / "flower_gate.pt").read_bytes() == gate.weights
    assert written["flower_gate_from"] == shipped["flower_gate_from"]
    assert written["flower_gate_at_least"] == shipped["flower_gate_at_least"]
    assert load_model(model_json).flower_gate is not None
    # a model.json naming a gate that is not there is said in words
    (folder / "flower_gate.pt").unlink()
    with pytest.raises(manifest.ModelFileError, match="flower gate flower_gate.pt is missing"):
        train.shipped_gate(folder)
