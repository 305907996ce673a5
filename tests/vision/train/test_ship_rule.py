"""The ship rule of benchmarks/reader_report.py: a real loss beyond the photos' noise blocks a
candidate, a synthetic gain never buys it back, a difference within the noise does not block."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.vision.train.reader_report_module import report
from vision.train.evaluate import ImageResult


def _photo(found: int, tiles: int = 10) -> ImageResult:
    """A photo of `tiles` tiles in a row of which the reader returned the first `found`, faces right."""
    gt = np.array([[i * 20.0, 0.0, i * 20.0 + 15, 20.0] for i in range(tiles)])
    cls = np.zeros(tiles, dtype=int)
    return ImageResult(gt, cls, gt[:found], cls[:found], np.full(found, 0.9))


def _set(name: str, found: list[int], real: bool = True) -> report.SetReading:
    return report.SetReading(name, real, [_photo(k) for k in found], 0.5)


def test_identical_readings_ship():
    base = [_set("a", [10, 9, 10, 8] * 10)]
    ships, findings = report.ship_verdict(base, base)
    assert ships and all(f.diff == 0 for f in findings)


def test_a_real_loss_beyond_the_noise_blocks_even_with_a_synthetic_gain():
    base = [_set("real", [10] * 40), _set("synthetic", [2] * 40, real=False)]
    cand = [_set("real", [8] * 40), _set("synthetic", [10] * 40, real=False)]
    ships, findings = report.ship_verdict(base, cand)
    assert not ships
    assert {f.set for f in findings} == {"real"}  # the synthetic set never enters the rule
    assert [f.metric for f in findings if f.loss] == ["tiles_returned", "all_right"]


def test_a_small_difference_within_the_noise_does_not_block():
    found = [10, 4, 10, 6, 10, 3, 9, 10] * 5
    worse = list(found)
    worse[1] -= 1  # one tile fewer on one of 40 photos that vary a lot
    ships, findings = report.ship_verdict([_set("real", found)], [_set("real", worse)])
    returned = next(f for f in findings if f.metric == "tiles_returned")
    assert returned.diff < 0 and not returned.loss and ships


def test_a_change_on_top_of_a_candidate_is_judged_against_that_candidate_too(monkeypatch, tmp_path):
    """--base NAME: every other candidate is judged against NAME as well as against the shipped
    reader (a faster classifier setting on a candidate that would ship, say)."""
    found = {"shipped.json": [8] * 40, "good.json": [10] * 40, "good_fast.json": [9] * 40}
    monkeypatch.setattr(report, "load_model", lambda path: Path(path).name)
    monkeypatch.setattr(report, "read_sets", lambda model, args: [_set("real", found[model])])
    out = tmp_path / "report.json"
    argv = ["reader_report.py", "--model", "shipped.json", "--no-seat-test", "--out", str(out)]
    argv += ["--candidate", "good=good.json", "--candidate", "fast=good_fast.json", "--base", "good"]
    monkeypatch.setattr(sys, "argv", argv)
    assert report.main() == 0
    doc = json.loads(out.read_text())
    assert doc["verdicts"]["good"]["ships"] and doc["verdicts"]["fast"]["ships"]  # both beat shipped
    assert list(doc["against"]) == ["fast vs good"]
    assert not doc["against"]["fast vs good"]["not_worse"]  # but fast loses tiles against good


def test_a_reader_that_cannot_load_stops_the_report_before_any_set_is_read(monkeypatch, tmp_path, capsys):
    def never(model, args):
        raise AssertionError("a set was read before every reader was loaded")

    monkeypatch.setattr(report, "read_sets", never)
    missing = tmp_path / "nowhere" / "model.json"
    argv = ["reader_report.py", "--no-seat-test", "--candidate", f"lost={missing}"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as stop:
        report.main()
    assert stop.value.code == 2
    assert "reader 'lost' cannot be loaded" in capsys.readouterr().err


def test_the_errors_are_counted_by_kind():
    """3 photos of 10 tiles: all right; 2 missed; one wrong face and one box on no tile."""
    wrong = _photo(10)
    wrong.pred_cls = wrong.pred_cls.copy()  # _photo's predictions share the labels' arrays
    wrong.pred_cls[4] = 1
    extra = _photo(10)
    extra = ImageResult(
        extra.gt_boxes,
        extra.gt_cls,
        np.vstack([extra.pred_boxes, [[500.0, 0, 515, 20]]]),
        np.append(extra.pred_cls, 0),
        np.append(extra.pred_conf, 0.9),
    )
    s = report.SetReading("real", True, [_photo(10), _photo(8), wrong, extra], 0.5)
    assert report.error_counts(s.per_photo()) == {
        "missed": 2,
        "extra": 1,
        "wrong_face": 1,
        "photos_not_right": 3,
    }
    assert report.set_row("shipped", s)["errors"]["photos_not_right"] == 3


def test_a_committed_reader_comes_back_with_every_file_its_model_json_names(monkeypatch, tmp_path):
    """`--candidate NAME=git:REV` writes that revision's models/ files, the flower gate among them
    (stop 55: only the detector and the classifier were written, and a reader with a gate could not
    load)."""
    from vision.read.detect import load_model

    monkeypatch.setattr(report, "CANDIDATES_DIR", tmp_path)
    path = report.materialise("head", "git:HEAD")
    written = {p.name for p in path.parent.iterdir()}
    shipped = json.loads((report.ROOT / "models" / "model.json").read_text())
    assert {shipped["detector"], shipped["classifier"], shipped["flower_gate"], "model.json"} <= written
    assert not any(name.endswith(".md") for name in written)
    assert load_model(path).flower_gate is not None
