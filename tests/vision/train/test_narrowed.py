"""Narrowed copies (vision.train.narrowed): every real train photo also shown narrower, its labels
unchanged; the tiles they box must still be under them, and the copies made once per seed and share."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from vision.labels.yolo_format import Box, read_labels
from vision.train import data, narrowed


def _tiles_photo() -> tuple[np.ndarray, list[Box]]:
    """A dark 640x480 table with five bright 30 x 40 px tiles, and their labels."""
    w, h = 640, 480
    img = np.full((h, w, 3), 30, np.uint8)
    labels = []
    for i in range(5):
        x1, y1 = 60 + i * 110, 200
        img[y1 : y1 + 40, x1 : x1 + 30] = 230
        labels.append(Box(i, (x1 + 15) / w, (y1 + 20) / h, 30 / w, 40 / h))
    return img, labels


def _real_set(root: Path, photos: dict[str, tuple[np.ndarray, list[Box]] | bytes]) -> Path:
    for split in ("train", "val"):
        (root / split / "images").mkdir(parents=True)
        (root / split / "labels").mkdir(parents=True)
    for name, photo in photos.items():
        if isinstance(photo, bytes):
            (root / "train" / "images" / f"{name}.jpg").write_bytes(photo)
            continue
        img, labels = photo
        cv2.imwrite(str(root / "train" / "images" / f"{name}.jpg"), cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
        text = "".join(f"{b.cls} {b.cx} {b.cy} {b.w} {b.h}\n" for b in labels)
        (root / "train" / "labels" / f"{name}.txt").write_text(text)
    (root / "data.yaml").write_text(yaml.safe_dump({"train": "train/images", "val": "val/images"}))
    return root


def test_a_narrowed_copy_keeps_its_height_and_its_tiles_under_their_labels(tmp_path: Path):
    img, labels = _tiles_photo()
    src = _real_set(tmp_path / "real", {"five": (img, labels), "broken": b"not a jpeg"})
    out = tmp_path / "narrowed"
    assert narrowed.write_narrowed(out, 0.7, seed=2, source=src) == 1  # the unreadable photo is skipped
    [copy] = data.split_images(out, "train")
    assert copy.name == "narrow_five.jpg"
    picture = cv2.imread(str(copy))
    h, w = picture.shape[:2]
    assert h == 480 and 0.7 * 640 - 1 <= w <= narrowed.WIDEST_SHARE * 640 + 1
    kept = read_labels(out / "labels" / "narrow_five.txt")
    assert kept == read_labels(src / "train" / "labels" / "five.txt")
    grey = picture.mean(2)
    for b in kept:  # the middle of each box is still a bright tile, and the box is narrower in pixels
        x1, y1, x2, y2 = b.xyxy(w, h)
        assert grey[int((y1 + y2) / 2), int((x1 + x2) / 2)] > 200
        assert (x2 - x1) / (y2 - y1) < 30 / 40 * narrowed.WIDEST_SHARE + 0.02
    assert not list(out.rglob(".*"))  # no staging file left


def test_the_copies_are_the_same_for_a_seed_and_differ_for_another(tmp_path: Path):
    src = _real_set(tmp_path / "real", {f"p{i}": _tiles_photo() for i in range(4)})
    widths = {}
    for seed in (0, 0, 1):
        out = tmp_path / f"n{seed}-{len(widths)}"
        narrowed.write_narrowed(out, 0.7, seed=seed, source=src)
        widths.setdefault(seed, []).append(
            [cv2.imread(str(p)).shape[1] for p in data.split_images(out, "train")]
        )
    assert widths[0][0] == widths[0][1]
    assert widths[0][0] != widths[1][0]


def test_a_share_out_of_range_is_refused_in_one_line(tmp_path: Path):
    for low in (0.0, 0.95, 1.2):
        with pytest.raises(ValueError, match="lowest share"):
            narrowed.write_narrowed(tmp_path / "n", low, source=tmp_path)


def test_training_makes_the_copies_once_per_seed_and_share(tmp_path: Path, monkeypatch):
    from vision.train import pipeline
    from vision.train.config import TrainConfig

    assert TrainConfig().narrowed == 0.0  # off unless asked: the shipped recipes do not use them
    made = []
    real = narrowed.write_narrowed

    def counted(out: Path, low: float, seed: int) -> int:
        made.append((low, seed))
        return real(out, low, seed, source=_real_set(tmp_path / f"real{len(made)}", {"a": _tiles_photo()}))

    monkeypatch.setattr(narrowed, "write_narrowed", counted)
    out = tmp_path / "narrowed"
    for low, seed in ((0.7, 3), (0.7, 3), (0.7, 4), (0.8, 4)):
        assert pipeline.ensure_narrowed(low, seed, out) == out
    assert made == [(0.7, 3), (0.7, 4), (0.8, 4)]
    (out / "narrowed.json").unlink()  # interrupted before its stamp: made again
    pipeline.ensure_narrowed(0.8, 4, out)
    assert made[-1] == (0.8, 4) and len(made) == 4
