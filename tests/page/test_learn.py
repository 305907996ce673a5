"""page.learn: which finished `adapt` runs the page switches to (tested without Streamlit)."""

from __future__ import annotations

import json
from pathlib import Path

from page.learn import latest_model, learnt_something


def _run(root: Path, name: str, meta: dict) -> Path:
    (root / name).mkdir(parents=True)
    path = root / name / "model.json"
    path.write_text(json.dumps(meta), encoding="utf-8")
    return path


def test_a_run_counts_when_it_kept_a_stage_or_moved_the_operating_point(tmp_path):
    same = {"tile_conf": 0.45, "adapt": {"kept": "base", "tile_conf_from": 0.45}}
    moved = {"tile_conf": 0.55, "adapt": {"kept": "base", "tile_conf_from": 0.45}}
    faces = {"tile_conf": 0.45, "adapt": {"kept": "faces", "tile_conf_from": 0.45}}
    old = {"tile_conf": 0.25, "adapt": {"kept": "base"}}  # before the check tried points
    assert not learnt_something(_run(tmp_path, "a", same))
    assert learnt_something(_run(tmp_path, "b", moved))
    assert learnt_something(_run(tmp_path, "c", faces))
    assert not learnt_something(_run(tmp_path, "d", old))
    assert latest_model(tmp_path) == tmp_path / "c" / "model.json"  # newest that learnt something


def test_an_unreadable_run_is_not_switched_to(tmp_path):
    bad = tmp_path / "x" / "model.json"
    bad.parent.mkdir()
    bad.write_text("{not json", encoding="utf-8")
    assert not learnt_something(bad)
    assert not learnt_something(_run(tmp_path, "y", {"adapt": ["not", "a", "dict"]}))
