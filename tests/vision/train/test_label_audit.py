"""`python -m vision label-audit`: a slipped label and a tile boxed twice are laid out for a person,
with the fix they would copy; a fix already made is marked; the labels are read as the set has them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2

from vision.__main__ import main
from vision.labels import fixes

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "vision"


def _slipped_set(tmp_path: Path) -> Path:
    """hand_rack with its first row's face changed to the next class and its fourth row boxed twice."""
    root = tmp_path / "set"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    shutil.copy(FIXTURES / "hand_rack.jpg", root / "images" / "hand_rack.jpg")
    rows = [r for r in (FIXTURES / "hand_rack.txt").read_text().splitlines() if r.strip()]
    first = rows[0].split()
    rows[0] = " ".join([str(int(first[0]) + 1), *first[1:]])
    rows.append(rows[3])
    (root / "labels" / "hand_rack.txt").write_text("\n".join(rows) + "\n")
    return root


def _audit(root: Path, out: Path) -> list[dict]:
    assert main(["label-audit", "--data", str(root), "--split", "train", "--out", str(out)]) == 0
    return json.loads((out / "disagreements.json").read_text(encoding="utf-8"))["disagreements"]


def test_a_slip_and_a_twin_are_laid_out_with_the_fix_to_copy(tmp_path, capsys):
    original = [r.split() for r in (FIXTURES / "hand_rack.txt").read_text().splitlines() if r.strip()]
    found = _audit(_slipped_set(tmp_path), tmp_path / "out")
    assert "2 labelled boxes to look at" in capsys.readouterr().out
    slip, twin = found
    assert (slip["row"], slip["draft_fix"]["now"]) == (0, fixes.CLASS_NAMES[int(original[0][0])])
    assert slip["label"] == fixes.CLASS_NAMES[int(original[0][0]) + 1] and not slip["already_fixed"]
    assert (twin["row"], twin["twin_row"], twin["draft_fix"]["now"]) == (len(original), 3, None)
    sheet = cv2.imread(str(tmp_path / "out" / "sheet_00.png"))
    assert sheet is not None and sheet.shape[0] >= 150 and sheet.shape[1] >= 2 * 130


def test_a_fix_already_made_is_marked_and_the_rows_are_the_files(tmp_path, monkeypatch):
    root = _slipped_set(tmp_path)
    slipped = fixes.CLASS_NAMES[int((root / "labels" / "hand_rack.txt").read_text().split()[0])]
    original = fixes.CLASS_NAMES[int((FIXTURES / "hand_rack.txt").read_text().split()[0])]
    made = tmp_path / "label_fixes.json"
    made.write_text(
        json.dumps(
            {"fixes": [{"photo": "hand_rack", "row": 0, "was": slipped, "now": original, "why": "looked"}]}
        )
    )
    monkeypatch.setattr(fixes, "FIXES_FILE", made)
    found = _audit(root, tmp_path / "out")
    n = len((FIXTURES / "hand_rack.txt").read_text().split("\n")) - 1  # the twin is the file's last row
    assert [(d["row"], d["already_fixed"]) for d in found] == [(0, True), (n, False)]


def test_a_missing_set_is_one_clear_line(tmp_path, capsys):
    assert main(["label-audit", "--data", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    assert "no such dataset" in capsys.readouterr().err


def test_a_second_audit_replaces_the_list_whole_or_leaves_the_first(tmp_path, monkeypatch):
    """disagreements.json is what a person copies fixes from: a run stopped while writing it (here
    the disk refusing the new file) leaves the earlier list as it was, never half of one."""
    from vision import durable

    root, out = _slipped_set(tmp_path), tmp_path / "out"
    first = (_audit(root, out), (out / "disagreements.json").read_bytes())

    def full_disk(path, data):  # noqa: ARG001 - durable.write_synced's signature
        raise OSError(28, "No space left on device")

    assert len(first[0]) == 2
    # the set mended (slip and twin): the next list would be empty
    shutil.copy(FIXTURES / "hand_rack.txt", root / "labels" / "hand_rack.txt")
    monkeypatch.setattr(durable, "write_synced", full_disk)
    assert main(["label-audit", "--data", str(root), "--split", "train", "--out", str(out)]) != 0
    assert (out / "disagreements.json").read_bytes() == first[1]
    assert not [p.name for p in out.iterdir() if p.name.endswith(".part")]
