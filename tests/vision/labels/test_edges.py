"""Saved-label edge cases: hidden files and links in the folder, saves that must leave nothing behind."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from vision.labels import store as labelstore
from vision.labels.check import check, main
from vision.labels.store import LabelBox, complete_examples, encode_jpeg, read_manifest, save_example

BOXES = [LabelBox("3p", (4, 4, 20, 30)), LabelBox("F", (30, 6, 44, 28))]


def _photo(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 255, (48, 64, 3), dtype=np.uint8)


def _files(root: Path) -> dict[str, bytes]:
    """Every regular file under root (links not followed), by relative path."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink() and p.name != ".lock":
            out[p.relative_to(root).as_posix()] = p.read_bytes()
    return out


def test_dot_named_files_are_moved_to_orphans_never_deleted(tmp_path: Path):
    root = tmp_path / "ds"
    save_example(_photo(1), BOXES, root)
    made = {
        "images/train/.notes.txt": b"which evening these were",
        "labels/val/.DS_Store": b"\x00\x00\x00\x01Bud1",
        "images/val/.tmp-k2j3.jpg": b"\xff\xd8\xff half",
        ".tmp-older": b"older version's temp",
        ".staging/notes-by-hand.txt": b"a person put this here",
    }
    for rel, data in made.items():
        (root / rel).write_bytes(data)
    found = {f.path: f.kind for f in check(root)}
    assert found == {
        "images/train/.notes.txt": "hidden-file",
        "labels/val/.DS_Store": "hidden-file",
        "images/val/.tmp-k2j3.jpg": "temp-file",
        ".tmp-older": "temp-file",
        ".staging/notes-by-hand.txt": "stray-file",
    }
    check(root, repair=True)
    after = _files(root)
    for rel, data in made.items():
        assert after[f".orphans/{rel}"] == data, rel
    assert check(root) == [] and len(complete_examples(root)) == 1


def test_a_staged_part_file_is_still_deleted(tmp_path: Path):
    root = tmp_path / "ds"
    save_example(_photo(2), BOXES, root)
    (root / ".staging" / "x.jpg.123.0a1b2c3d.part").write_bytes(b"\xff\xd8")
    assert [(f.kind, f.fix) for f in check(root)] == [("temp-file", "deleted")]
    check(root, repair=True)
    assert not list((root / ".staging").iterdir()) and not (root / ".orphans").exists()


def test_links_are_findings_never_followed(tmp_path: Path, capsys):
    root = tmp_path / "ds"
    save_example(_photo(3), BOXES, root)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.jpg").write_bytes(encode_jpeg(_photo(4), "0" * 64))
    (outside / "secret.txt").write_text("0 0.5 0.5 0.2 0.2\n")
    (root / "images" / "train" / "leak.jpg").symlink_to(outside / "secret.jpg")
    (root / "labels" / "train" / "leak.txt").symlink_to(outside / "secret.txt")
    (root / "labels" / "val" / "dangling.txt").symlink_to(tmp_path / "nowhere.txt")
    found = check(root)
    assert sorted((f.kind, f.path) for f in found) == [
        ("link", "images/train/leak.jpg"),
        ("link", "labels/train/leak.txt"),
        ("link", "labels/val/dangling.txt"),
    ]
    assert all("never followed" in f.detail and "\n" not in f.line() for f in found)
    assert main(["check", str(root)]) == 1
    out = capsys.readouterr()
    assert "link" in out.out and out.err == ""
    assert main(["check", str(root), "--repair"]) == 0
    assert os.readlink(root / ".orphans" / "images" / "train" / "leak.jpg") == str(outside / "secret.jpg")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.jpg", "secret.txt"]  # untouched
    assert len(complete_examples(root)) == 1 and check(root) == []


def test_a_recorded_image_replaced_by_a_link_is_not_training_data(tmp_path: Path):
    root = tmp_path / "ds"
    res = save_example(_photo(5), BOXES, root)
    copy = tmp_path / "elsewhere.jpg"
    copy.write_bytes(res.image.read_bytes())
    res.image.unlink()
    res.image.symlink_to(copy)  # same bytes, but outside the folder
    assert complete_examples(root) == []
    assert sorted(f.kind for f in check(root)) == ["bad-record", "link", "orphan-label"]
    check(root, repair=True)
    assert complete_examples(root) == [] and copy.is_file() and check(root) == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {"model_version": "model-\udcff"},  # a lone surrogate, as os.fsdecode gives for a bad byte
        {"extra": {"note": "\ud800"}},
        {"extra": {"when": object()}},
        {"extra": {"score": float("nan")}},
    ],
    ids=["surrogate-model", "surrogate-extra", "object", "nan"],
)
def test_a_save_whose_line_cannot_be_written_leaves_nothing_repair_would_promote(tmp_path: Path, kwargs):
    root = tmp_path / "ds"
    save_example(_photo(6), BOXES, root)
    before = _files(root)
    with pytest.raises(ValueError, match="cannot be stored as UTF-8 JSON") as err:
        save_example(_photo(7), BOXES, root, **kwargs)
    assert "\n" not in str(err.value)
    assert _files(root) == before
    assert check(root, repair=True) == []
    assert len(read_manifest(root)) == 1 and len(complete_examples(root)) == 1


def test_a_failure_after_the_files_are_published_removes_them(tmp_path: Path, monkeypatch):
    root = tmp_path / "ds"
    save_example(_photo(8), BOXES, root)
    before = _files(root)

    def refuse(path, line):
        raise UnicodeEncodeError("utf-8", "x", 0, 1, "simulated")

    monkeypatch.setattr(labelstore, "append_line", refuse)
    with pytest.raises(ValueError):
        save_example(_photo(9), BOXES, root)
    monkeypatch.undo()
    assert _files(root) == before and check(root, repair=True) == []


@pytest.mark.parametrize(
    "boxes",
    [
        [LabelBox("1m", (100, 100, 120, 130)), LabelBox("2m", (-40, -40, -5, -5))],
        [],
        [LabelBox("E", (3, 3, 3.4, 9))],
    ],
    ids=["all-outside", "none", "degenerate"],
)
def test_a_save_with_no_tile_inside_the_photo_is_refused(tmp_path: Path, boxes):
    root = tmp_path / "ds"
    save_example(_photo(10), BOXES, root)
    before = _files(root)
    with pytest.raises(ValueError, match="no tile box lies inside the 64x48 photo"):
        save_example(_photo(11), boxes, root)
    assert _files(root) == before


def test_repair_does_not_promote_an_empty_label(tmp_path: Path):
    """An image + empty label (an older version's save) is set aside, not made training data."""
    root = tmp_path / "ds"
    save_example(_photo(12), BOXES, root)
    digest = "ab" * 32
    image = root / "images" / "train" / f"photo_{digest[:16]}_00000000.jpg"
    image.write_bytes(encode_jpeg(_photo(13), digest))
    (root / "labels" / "train" / f"{image.stem}.txt").write_text("")
    kinds = sorted(f.kind for f in check(root, repair=True))
    assert kinds == ["orphan-image", "orphan-label"]
    assert len(complete_examples(root)) == 1
    assert all(json.loads(line)["boxes"] for line in (root / "manifest.jsonl").read_text().splitlines())


def test_a_save_never_adopts_a_link_squatting_on_its_name(tmp_path: Path):
    """A link where the save's file would go (even to the very same bytes) is left alone: the save
    takes the next name and its example is made of regular files inside the folder."""
    probe = save_example(_photo(14), BOXES, tmp_path / "probe")
    root = tmp_path / "ds"
    save_example(_photo(15), BOXES, root)
    rel = probe.image.relative_to(tmp_path / "probe")
    copy = tmp_path / "copy.jpg"
    copy.write_bytes(probe.image.read_bytes())
    (root / rel).symlink_to(copy)
    res = save_example(_photo(14), BOXES, root)
    assert res.image != root / rel and not res.image.is_symlink() and res.image.name.endswith("-2.jpg")
    assert res.hash in {e.hash for e in complete_examples(root)}
    assert os.readlink(root / rel) == str(copy)
