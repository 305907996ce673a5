"""The operating point chosen on one session's real val photos, and the report that leaves them out.

`vision train --point-group FILE:GROUP` chooses tile_conf on the val photos of one group;
`benchmarks/reader_report.py --without-group FILE:GROUP` judges every reader on the val photos of
the other groups. Here: each side sees exactly its photos, and a wrong group is one clear error
before anything is read or trained.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.train.reader_report_module import report
from vision.train import data, groups, pipeline
from vision.train.config import TrainConfig

#: Source photo -> (split, group): two sessions, each with train and val photos.
PHOTOS = {
    "a1": ("train", "g0"),
    "a2": ("val", "g0"),
    "a3": ("val", "g0"),
    "b1": ("train", "g1"),
    "b2": ("val", "g1"),
}


@pytest.fixture
def real_set(tmp_path) -> tuple[Path, Path]:
    """A tiny real set laid out as chinese-mahjong-v4 (data.yaml, split/images, split/labels) and
    its grouping file."""
    root = tmp_path / "real"
    for src, (split, _) in PHOTOS.items():
        (root / split / "images").mkdir(parents=True, exist_ok=True)
        (root / split / "labels").mkdir(parents=True, exist_ok=True)
        stem = f"{src}_jpg.rf.0123abcd"
        cv2.imwrite(str(root / split / "images" / f"{stem}.jpg"), np.full((32, 32, 3), 128, np.uint8))
        (root / split / "labels" / f"{stem}.txt").write_text("0 0.5 0.5 0.2 0.3\n")
    names = "\n".join(f"  {i}: '{n}'" for i, n in enumerate(data.CLASS_NAMES))
    (root / "data.yaml").write_text(f"train: train/images\nval: val/images\nnames:\n{names}\n")
    grouping = groups.Grouping("tiny", {src: g for src, (_, g) in PHOTOS.items()})
    file = tmp_path / "groups.json"
    file.write_text(grouping.to_json())
    return root, file


def _sources(dataset: Path, split: str = "val") -> set[str]:
    """The source photos of a split (a linked dataset names its photos `r_<name>`: from the real set)."""
    return {groups.source_id(p).removeprefix("r_") for p in data.split_images(dataset, split)}


def test_the_point_is_chosen_on_the_groups_val_photos_only(real_set, tmp_path, monkeypatch):
    root, file = real_set
    monkeypatch.setattr(data, "REAL_DATASET", root)
    chosen_on = pipeline.point_photos(f"{file}:g0", tmp_path / "run")
    assert _sources(chosen_on) == {"a2", "a3"}  # g0's val photos: no detector trained on them


def test_the_report_judges_the_other_groups_val_photos(real_set, tmp_path, monkeypatch):
    root, file = real_set
    seen = []

    def read_sets(model, args):
        seen.append(_sources(Path(args.real)))
        return []

    monkeypatch.setattr(report, "REPORT_GROUPS_DIR", tmp_path / "report-groups")
    monkeypatch.setattr(report, "load_model", lambda path: Path(path).name)
    monkeypatch.setattr(report, "read_sets", read_sets)
    argv = ["reader_report.py", "--no-seat-test", "--real", str(root), "--without-group", f"{file}:g0"]
    monkeypatch.setattr(sys, "argv", argv)
    assert report.main() == 0
    assert seen == [{"b2"}]  # g0's photos chose the point: they judge nothing


def test_a_group_that_is_not_there_is_one_clear_error_before_anything_runs(real_set, monkeypatch, capsys):
    root, file = real_set
    monkeypatch.setattr(report, "read_sets", lambda model, args: pytest.fail("a set was read"))
    argv = ["reader_report.py", "--no-seat-test", "--real", str(root), "--without-group", f"{file}:g9"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as stop:
        report.main()
    assert stop.value.code == 2 and "no group 'g9'" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="--point-group.*no group 'g9'"):
        pipeline.run(TrainConfig(name="never", point_group=f"{file}:g9", no_synth=True))


def test_a_point_group_with_a_fixed_point_is_one_clear_error_before_anything_runs(real_set):
    """--point-group chooses tile_conf; --conf or --cls-new-only fix it: asked together, the run
    stops at once instead of silently using one of them."""
    _, file = real_set
    spec = f"{file}:g0"
    with pytest.raises(SystemExit, match="--point-group chooses tile_conf, but --conf 0.5 fixes it"):
        pipeline.run(TrainConfig(name="never", point_group=spec, conf=0.5, no_synth=True))
    with pytest.raises(SystemExit, match="--cls-new-only"):
        pipeline.run(TrainConfig(name="never", point_group=spec, cls_new_only=True, no_synth=True))
