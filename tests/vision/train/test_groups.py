"""Session groups for leave-one-group-out: source ids, repeatable k-means, the committed grouping."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.train import groups
from vision.train.evaluate import ImageResult, tile_precision, tiles_returned

REPO = Path(__file__).resolve().parents[3]


def test_source_id_joins_augmented_variants():
    assert groups.source_id("a/123_456_n_jpg.rf.0123abcd.jpg") == "123_456_n"
    assert groups.source_id("IMG_1.rf.png") == "IMG_1.rf"  # not a Roboflow export name
    assert groups.source_id("photo.jpg") == "photo"


def _photo(path: Path, bgr: tuple[int, int, int]) -> Path:
    img = np.full((48, 64, 3), bgr, np.uint8)
    cv2.rectangle(img, (20, 10), (40, 30), (240, 240, 240), -1)  # a "tile"
    cv2.imwrite(str(path), img)
    return path


def test_group_photos_is_repeatable_and_keeps_variants_together(tmp_path):
    green = [_photo(tmp_path / f"g{i}_jpg.rf.{i:08x}.jpg", (40, 160, 40)) for i in range(4)]
    grey = [_photo(tmp_path / f"s{i}_jpg.rf.{i + 16:08x}.jpg", (128, 128, 128)) for i in range(4)]
    green.append(_photo(tmp_path / "g0_jpg.rf.eeeeeeee.jpg", (40, 160, 40)))  # a second variant of g0
    twin = _photo(tmp_path / "g0_jpg.rf.ffffffff.jpg", (130, 130, 130))  # a third, in grey
    images = green + grey + [twin]
    a = groups.group_photos(images, k=2, seed=0)
    b = groups.group_photos(images, k=2, seed=0)
    assert a.groups == b.groups
    assert a.group_of(green[1]) == a.group_of(green[2]) != a.group_of(grey[0])
    assert a.group_of(twin) == a.group_of(green[0])  # one group per source photo: its majority's
    file = tmp_path / "groups.json"
    file.write_text(a.to_json())
    back, name = groups.parse_spec(f"{file}:{a.group_of(grey[0])}")
    assert back.members(name) == {f"s{i}" for i in range(4)}
    with pytest.raises(ValueError, match="no group"):
        groups.parse_spec(f"{file}:nope")
    with pytest.raises(ValueError, match="FILE:GROUP"):
        groups.parse_spec("nofile")


def test_committed_grouping_covers_the_real_set():
    d = json.loads((REPO / "datasets" / "groups" / "chinese-mahjong-v4.json").read_text())
    assert sum(d["sizes"].values()) == len(d["groups"]) > 500
    assert set(d["groups"].values()) == set(d["sizes"])


def test_tiles_returned_counts_boxes_whatever_their_face():
    gt = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]], float)
    pred = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [60, 0, 70, 10]], float)
    im = ImageResult(
        gt, np.array([1, 2, 3]), pred, np.array([1, 5, 3]), np.ones(3), "", None, np.array([0, 1, 0], bool)
    )
    returned, right, unsure = tiles_returned([im])
    assert returned == pytest.approx(2 / 3)  # the third prediction is elsewhere
    assert right == pytest.approx(1 / 2)  # of the two boxed tiles, one has the right face
    assert unsure == pytest.approx(1 / 3)
    assert tile_precision([im]) == pytest.approx(2 / 3)  # one box of three is no tile at all
    assert tile_precision([im.above(2.0)]) == 0.0  # nothing returned: no division by zero


def test_photos_of_a_group_are_one_selection_inside_and_out(tmp_path):
    """adapt_trial --group and the held-out / point datasets read a group through one function."""
    for split in ("train", "valid"):
        (tmp_path / split / "images").mkdir(parents=True)
    for stem in ("a_jpg.rf.00000001", "b_jpg.rf.00000002", "c_jpg.rf.00000003"):
        _photo(tmp_path / "valid" / "images" / f"{stem}.jpg", (40, 160, 40))
    _photo(tmp_path / "train" / "images" / "a_jpg.rf.00000004.jpg", (40, 160, 40))
    (tmp_path / "data.yaml").write_text("path: .\ntrain: train/images\nval: valid/images\nnames: ['t']\n")
    grouping = groups.Grouping("toy", {"a": "g0", "b": "g1", "c": "g0"})
    inside = groups.photos_of(tmp_path, "val", grouping, "g0")
    outside = groups.photos_of(tmp_path, "val", grouping, "g0", inside=False)
    assert sorted(groups.source_id(p) for p in inside) == ["a", "c"]
    assert [groups.source_id(p) for p in outside] == ["b"]
    assert [groups.source_id(p) for p in groups.photos_of(tmp_path, "train", grouping, "g0")] == ["a"]
