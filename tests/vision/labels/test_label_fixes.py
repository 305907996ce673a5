"""Reviewed label fixes: applied to the row they were written for and nowhere else, and the shipped
list still matches the dataset it corrects."""

from __future__ import annotations

import json
import logging

import pytest

from vision.classes import CLASS_NAMES
from vision.labels import fixes
from vision.labels.yolo_format import read_labels
from vision.train import data


def _fixes_file(tmp_path, entries):
    path = tmp_path / "label_fixes.json"
    path.write_text(json.dumps({"about": "test", "fixes": entries}), encoding="utf-8")
    return path


@pytest.fixture
def labels(tmp_path, monkeypatch):
    """A label file `photo.txt` (1m, 2m, 2m twice) and a fixes file for it, made the one in use."""
    label = tmp_path / "labels" / "photo.txt"
    label.parent.mkdir()
    label.write_text("0 0.1 0.5 0.05 0.1\n\n1 0.2 0.5 0.05 0.1\n1 0.2 0.5 0.05 0.1\n")
    path = _fixes_file(
        tmp_path,
        [
            {"photo": "photo", "row": 0, "was": "1m", "now": "9m", "why": "the tile is 九萬"},
            {"photo": "photo", "row": 2, "was": "2m", "now": None, "why": "a second box on row 1's tile"},
        ],
    )
    monkeypatch.setattr(fixes, "FIXES_FILE", path)
    return label


def test_a_fix_corrects_its_row_and_a_null_drops_a_second_box(labels):
    boxes = read_labels(labels)
    assert [CLASS_NAMES[b.cls] for b in boxes] == ["9m", "2m"]
    assert (boxes[0].cx, boxes[1].cx) == (0.1, 0.2)


def test_the_labels_as_the_dataset_has_them_when_fixes_are_off(labels, monkeypatch):
    monkeypatch.setenv(fixes.ENV_OFF, "0")
    assert [CLASS_NAMES[b.cls] for b in read_labels(labels)] == ["1m", "2m", "2m"]


def test_a_fix_whose_row_has_another_class_is_not_applied_and_says_so(labels, caplog):
    labels.write_text("5 0.1 0.5 0.05 0.1\n1 0.2 0.5 0.05 0.1\n1 0.2 0.5 0.05 0.1\n")
    with caplog.at_level(logging.WARNING, logger=fixes.__name__):
        boxes = read_labels(labels)
    assert [CLASS_NAMES[b.cls] for b in boxes] == ["6m", "2m"]  # row 2 still had 2m: dropped
    assert "row 0 is not 1m" in caplog.text


def test_another_photo_is_untouched(labels):
    other = labels.with_name("other.txt")
    other.write_text(labels.read_text())
    assert [CLASS_NAMES[b.cls] for b in read_labels(other)] == ["1m", "2m", "2m"]


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ({"photo": "p", "row": 0, "was": "1m", "now": "1x", "why": "w"}, "two different classes"),
        ({"photo": "p", "row": 0, "was": "1m", "now": "1m", "why": "w"}, "two different classes"),
        ({"photo": "p", "row": -1, "was": "1m", "now": "2m", "why": "w"}, "row number"),
        ({"photo": "p", "row": 0, "was": "1m", "now": "2m", "why": " "}, "say why"),
        ({"photo": "p", "row": 0, "was": "1m", "now": "2m"}, "missing 'why'"),
    ],
)
def test_a_bad_fix_is_named(tmp_path, entry, words):
    with pytest.raises(ValueError, match=words) as err:
        fixes.parse({"fixes": [entry]}, "f.json")
    assert "fix 0" in str(err.value)


def test_the_shipped_fixes_still_match_the_rows_they_correct():
    """Every fix in datasets/label_fixes.json names a photo of a real set (chinese-mahjong-v4 or
    riichi-standing-dev) whose row has `was` (a fix that no longer matches would silently do
    nothing)."""
    shipped = fixes.parse(json.loads(fixes.FIXES_FILE.read_text(encoding="utf-8")))
    assert sum(len(v) for v in shipped.values()) >= 14
    riichi = data.REAL_DATASET.parent / "riichi-standing-dev"
    if not (data.REAL_DATASET.is_dir() and riichi.is_dir()):
        pytest.skip("the real datasets are not here")
    sets = ((data.REAL_DATASET, "train"), (data.REAL_DATASET, "val"), (riichi, "val"))
    stems = {p.stem: p for folder, split in sets for p in data.split_images(folder, split)}
    for stem, fixes_of_photo in shipped.items():
        assert stem in stems, stem
        label = data.label_path_for(stems[stem])
        rows = [line.split() for line in label.read_text().splitlines() if line.strip()]
        for fix in fixes_of_photo:
            assert int(rows[fix.row][0]) == fix.was, (stem, fix.row)
        dropped = sum(f.now is None for f in fixes_of_photo)
        assert len(read_labels(label)) == len(rows) - dropped


def test_turned_off_reads_raw_inside_and_puts_the_setting_back(labels, monkeypatch):
    monkeypatch.delenv(fixes.ENV_OFF, raising=False)
    with fixes.turned_off():
        assert [CLASS_NAMES[b.cls] for b in read_labels(labels)] == ["1m", "2m", "2m"]
    assert [CLASS_NAMES[b.cls] for b in read_labels(labels)] == ["9m", "2m"]
