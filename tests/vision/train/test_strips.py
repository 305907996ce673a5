"""Strips (vision.train.strips): a row of tiles from a train photo, shown as the reader's squeezed view
shows a stretched export; the labels must stay on the tiles through the stretch, the squeeze and
the turn."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import yaml

from vision.labels.yolo_format import Box, read_labels
from vision.train import data, strips


def _row_photo(n: int = 12, rows: int = 1) -> tuple[np.ndarray, list[Box]]:
    """A dark table with `rows` rows of `n` bright tiles (30 x 40 px, 4 px apart), and their labels."""
    w, h = 640, 480
    img = np.full((h, w, 3), 30, np.uint8)
    labels = []
    for r in range(rows):
        y1 = 100 + r * 160
        for i in range(n):
            x1 = 40 + i * 34
            img[y1 : y1 + 40, x1 : x1 + 30] = 230
            labels.append(Box(i % 9, (x1 + 15) / w, (y1 + 20) / h, 30 / w, 40 / h))
    return img, labels


def _brightness_inside(picture: np.ndarray, boxes: list[Box]) -> tuple[float, float]:
    """Mean brightness inside the boxes (shrunk a little) and outside every box."""
    h, w = picture.shape[:2]
    grey = picture.mean(2)
    mask = np.zeros((h, w), bool)
    inside = []
    for b in boxes:
        x1, y1, x2, y2 = b.xyxy(w, h)
        mx, my = (x2 - x1) * 0.2, (y2 - y1) * 0.2
        inside.append(grey[int(y1 + my) : int(np.ceil(y2 - my)), int(x1 + mx) : int(np.ceil(x2 - mx))].mean())
        mask[int(y1) : int(np.ceil(y2)), int(x1) : int(np.ceil(x2))] = True
    return float(np.min(inside)), float(grey[~mask].mean())


def test_the_longest_row_is_found_among_two():
    img, labels = _row_photo(rows=2)
    boxes = np.array([b.xyxy(640, 480) for b in labels])
    boxes = np.concatenate([boxes, [[300, 400, 330, 440]]])  # a lone tile further down
    row = strips.longest_row(boxes)
    assert len(row) == 12
    assert len({round((boxes[i, 1] + boxes[i, 3]) / 2) for i in row}) == 1
    assert len(strips.longest_row(boxes[:4])) == 0  # too few tiles for a row


def test_labels_stay_on_the_tiles_through_stretch_squeeze_and_turn():
    img, labels = _row_photo()
    seen = set()
    for seed in range(8):
        picture, boxes = strips.strip_of(img, labels, np.random.default_rng(seed))
        assert len(boxes) == 12
        assert sorted(b.cls for b in boxes) == sorted(b.cls for b in labels)
        tiles, table = _brightness_inside(picture, boxes)
        assert tiles > 200 and table < 60
        assert max(picture.shape[:2]) == strips.EXPORT_SIDE
        seen.add(picture.shape[:2])
    # rows and columns, squeezed 4x and 8x: the four shapes the reader's views have
    assert seen <= {(160, 640), (640, 160), (80, 640), (640, 80)} and len(seen) >= 3


def test_a_photo_without_a_long_enough_row_gives_no_strip():
    img, labels = _row_photo(n=4)
    assert strips.strip_of(img, labels, np.random.default_rng(0)) is None
    assert strips.strip_of(img, [], np.random.default_rng(0)) is None


def test_strips_are_written_as_a_train_set(tmp_path: Path):
    src = tmp_path / "real"
    for split in ("train", "val"):
        (src / split / "images").mkdir(parents=True)
        (src / split / "labels").mkdir(parents=True)
    img, labels = _row_photo()
    for name, photo in (("row", img), ("short", _row_photo(n=3)[0])):
        cv2.imwrite(str(src / "train" / "images" / f"{name}.jpg"), photo)
        rows = labels if name == "row" else labels[:3]
        text = "".join(f"{b.cls} {b.cx} {b.cy} {b.w} {b.h}\n" for b in rows)
        (src / "train" / "labels" / f"{name}.txt").write_text(text)
    (src / "data.yaml").write_text(yaml.safe_dump({"train": "train/images", "val": "val/images"}))
    out = tmp_path / "strips"
    assert strips.write_strips(out, seed=1, source=src) == 1
    written = data.split_images(out, "train")
    assert [p.name for p in written] == ["strip_row.jpg"]
    assert len(read_labels(out / "labels" / "strip_row.txt")) == 12
    assert not list(out.rglob(".*"))  # no staging file left


def test_training_makes_the_strips_once_per_seed(tmp_path: Path, monkeypatch):
    from vision.train import pipeline
    from vision.train.config import TrainConfig

    assert TrainConfig().strips is False  # off unless asked: the shipped recipes do not use them
    made = []

    def fake_write(out: Path, seed: int) -> int:
        made.append(seed)
        (out / "images").mkdir(parents=True)
        (out / "strips.json").write_text(f'{{"seed": {seed}, "version": {strips.STRIPS_VERSION}}}')
        return 0

    monkeypatch.setattr(strips, "write_strips", fake_write)
    out = tmp_path / "strips"
    assert pipeline.ensure_strips(3, out) == out
    assert pipeline.ensure_strips(3, out) == out
    assert pipeline.ensure_strips(4, out) == out
    assert made == [3, 4]
    (out / "strips.json").write_text('{"seed": 4, "version": 1}')  # made by older rules: made again
    assert pipeline.ensure_strips(4, out) == out
    assert made == [3, 4, 4]


def test_a_pile_is_no_row():
    """Rows 44 px apart (tiles 40 px high): a band around one cuts into its neighbours: no strip."""
    img, labels = _row_photo(rows=1)
    labels = labels + [Box(b.cls, b.cx, b.cy + 44 / 480, b.w, b.h) for b in labels]
    labels = labels + [Box(b.cls, b.cx + 17 / 640, b.cy + 22 / 480, b.w, b.h) for b in labels[:12]]
    assert strips.strip_of(img, labels, np.random.default_rng(0)) is None


def test_a_slanted_row_whose_boxes_overlap_is_no_strip():
    """Tiles seen at a slant: each upright box takes in a third of the next tile: no strip (a
    detector taught on it boxes across tiles); 4 px apart, square to the camera, it is one."""
    img, labels = _row_photo()
    assert strips.strip_of(img, labels, np.random.default_rng(0)) is not None
    slanted = [Box(b.cls, b.cx, b.cy + i * 3 / 480, b.w * 1.5, b.h) for i, b in enumerate(labels)]
    assert strips.overlapping(np.array([b.xyxy(640, 480) for b in slanted]))
    assert strips.strip_of(img, slanted, np.random.default_rng(0)) is None


def test_a_tilted_row_or_one_seen_in_perspective_is_no_strip():
    """A row whose boxes climb half a tile height from end to end, or whose far tiles are a third
    shorter than its near ones, is not square to the camera: no strip. Level, it is one."""
    img, labels = _row_photo()
    boxes = np.array([b.xyxy(640, 480) for b in labels])
    assert strips.level(boxes)
    tilted = [Box(b.cls, b.cx, b.cy + i * 2 / 480, b.w, b.h) for i, b in enumerate(labels)]  # 22 px
    assert not strips.level(np.array([b.xyxy(640, 480) for b in tilted]))
    assert strips.strip_of(img, tilted, np.random.default_rng(0)) is None
    far = [Box(b.cls, b.cx, b.cy, b.w, b.h * (1 - 0.03 * i)) for i, b in enumerate(labels)]  # 40 -> 27 px
    assert not strips.level(np.array([b.xyxy(640, 480) for b in far]))
    assert strips.strip_of(img, far, np.random.default_rng(0)) is None
