"""`python -m vision labels check DIR [--repair]`: every kind of damage found, mended, nothing lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.labels.check import check, main
from vision.labels.store import (
    LabelBox,
    complete_examples,
    encode_jpeg,
    read_manifest,
    save_example,
)
from vision.train import data as vdata

BOXES = [LabelBox("3p", (4, 4, 20, 30)), LabelBox("F", (30, 6, 44, 28))]


def _photo(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 255, (48, 64, 3), dtype=np.uint8)


def _damaged(root: Path) -> dict:
    """A folder with one of each problem an interrupted save (or an older version) leaves."""
    kept = save_example(_photo(1), BOXES, root)
    fixed = save_example(_photo(1), BOXES[:1], root)  # a second version: both stay
    unrecorded = save_example(_photo(2), BOXES, root)
    lost_image = save_example(_photo(3), BOXES, root)
    lines = (root / "manifest.jsonl").read_bytes().splitlines(True)
    # photo 2's line lost (crash before the commit); photo 3's image lost; a torn line at the end
    (root / "manifest.jsonl").write_bytes(lines[0] + lines[1] + lines[3] + b'{"hash": "ab", "ima')
    lost_image.image.unlink()
    orphan_image = root / "images" / "val" / "lonely_0123456789abcdef_00000000.jpg"
    orphan_image.write_bytes(encode_jpeg(_photo(4), "0" * 64))
    (root / "images" / "train" / ".tmp-k2j3.jpg").write_bytes(b"\xff\xd8\xff half")  # older versions
    (root / ".staging" / "x.jpg.123.ab.part").write_bytes(b"\xff\xd8")
    return {
        "kept": kept,
        "fixed": fixed,
        "unrecorded": unrecorded,
        "lost_image": lost_image,
        "orphan_image": orphan_image,
    }


def test_check_finds_every_kind_and_repair_restores_the_folder(tmp_path: Path):
    root = tmp_path / "ds"
    d = _damaged(root)
    found = check(root)
    kinds = sorted(f.kind for f in found)
    assert kinds == [
        "bad-record",
        "orphan-image",
        "orphan-label",
        "temp-file",
        "temp-file",
        "torn-line",
        "unrecorded",
    ]
    assert all(f.action is None and f.fix for f in found)
    assert [e.image for e in complete_examples(root)] == [d["fixed"].image]  # before repair

    repaired = check(root, repair=True)
    assert sorted(f.kind for f in repaired) == kinds and all(f.action for f in repaired)
    assert check(root) == [] and check(root, repair=True) == []  # clean, and repair is idempotent
    # the photo whose line was lost is back, under its own hash (read from the JPEG comment)
    examples = {e.hash: e for e in complete_examples(root)}
    assert set(examples) == {d["fixed"].hash, d["unrecorded"].hash}
    assert examples[d["unrecorded"].hash].image == d["unrecorded"].image
    assert examples[d["fixed"].hash].image == d["fixed"].image  # still the newest version
    assert d["kept"].image.is_file()  # the older version stays on disk
    # nothing a person saved was deleted: orphans and removed lines are under .orphans/
    orphans = root / ".orphans"
    assert (orphans / "images" / "val" / d["orphan_image"].name).is_file()
    assert (orphans / "labels" / d["lost_image"].split / d["lost_image"].label.name).is_file()
    removed = (orphans / "manifest-removed.txt").read_text().splitlines()
    assert removed[-1] == '{"hash": "ab", "ima' and json.loads(removed[0])["hash"] == d["lost_image"].hash
    assert not list((root / "images").rglob(".*")) and not list((root / ".staging").iterdir())
    # the trainer's view: only the two complete, newest examples
    listed = [*vdata.split_images(root, "train"), *vdata.split_images(root, "val")]
    assert sorted(listed) == sorted(e.image for e in examples.values())
    rec = next(r for r in read_manifest(root) if r["hash"] == d["unrecorded"].hash)
    assert rec["restored"].endswith("(hash from jpeg comment)") and rec["boxes"] == 2


def test_a_folder_reached_through_a_link_is_checked_the_same(tmp_path: Path):
    root = tmp_path / "ds"
    save_example(_photo(9), BOXES, root)
    (tmp_path / "link").symlink_to(root)
    assert check(tmp_path / "link") == [] and check(tmp_path / "link", repair=True) == []
    assert len(complete_examples(tmp_path / "link")) == 1


def test_a_restored_line_does_not_outrank_a_newer_save(tmp_path: Path):
    root = tmp_path / "ds"
    old = save_example(_photo(5), BOXES, root)
    (root / "manifest.jsonl").unlink()  # the first save's line never made it
    os.utime(old.image, (1_600_000_000, 1_600_000_000))  # ... and it was long ago
    new = save_example(_photo(5), BOXES[:1], root)
    assert [f.kind for f in check(root, repair=True)] == ["unrecorded"]
    assert [e.image for e in complete_examples(root)] == [new.image]


def test_hand_edited_label_is_re_recorded(tmp_path: Path):
    """A label changed after saving no longer matches its line; repair records it as it is now."""
    root = tmp_path / "ds"
    res = save_example(_photo(6), BOXES, root)
    res.label.write_text("0 0.5 0.5 0.2 0.2\n")
    assert complete_examples(root) == []  # changed under the manifest: not trusted as is
    assert sorted(f.kind for f in check(root, repair=True)) == ["bad-record", "unrecorded"]
    (example,) = complete_examples(root)
    assert example.image == res.image and len(vdata.read_labels(example.label)) == 1


def test_cli_exit_codes_and_json(tmp_path: Path, capsys):
    root = tmp_path / "ds"
    _damaged(root)
    assert main(["check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "run with --repair" in out and "orphan-image" in out
    assert main(["check", str(root), "--repair", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[-1]["problems"] == 7 and lines[-1]["remaining"] == 0 and lines[-1]["photos"] == 2
    assert all(x["action"] for x in lines[:-1])
    assert main(["check", str(root)]) == 0
    assert "0 problem(s): clean" in capsys.readouterr().out
    assert main(["check", str(tmp_path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_a_foreign_data_yaml_is_reported_and_left_alone(tmp_path: Path, capsys):
    root = tmp_path / "ds"
    save_example(_photo(7), BOXES, root)
    (root / "data.yaml").write_text("names: ['a', 'b']\n")
    assert main(["check", str(root), "--repair"]) == 1
    assert "class names differ" in capsys.readouterr().out
    assert (root / "data.yaml").read_text() == "names: ['a', 'b']\n"


@pytest.mark.parametrize("missing", ["images folder", "data.yaml"])
def test_missing_layout_is_created(tmp_path: Path, missing):
    root = tmp_path / "ds"
    res = save_example(_photo(8), BOXES, root)
    if missing == "data.yaml":
        target = root / "data.yaml"
        target.unlink()
    else:  # the split folder the photo did not go to (still empty)
        target = root / "images" / ("val" if res.split == "train" else "train")
        target.rmdir()
    assert [f.kind for f in check(root)] == ["layout"]
    check(root, repair=True)
    assert target.exists() and check(root) == []


@pytest.mark.slow
def test_python_m_vision_labels_check(tmp_path: Path):
    root = tmp_path / "ds"
    _damaged(root)
    run = [sys.executable, "-m", "vision", "labels", "check", str(root)]
    first = subprocess.run([*run, "--repair"], capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert "all mended" in first.stdout and first.stderr == ""
    again = subprocess.run(run, capture_output=True, text=True)
    assert again.returncode == 0 and "clean" in again.stdout
