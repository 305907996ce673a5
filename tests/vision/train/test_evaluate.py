"""Evaluation maths on hand-made boxes: matching, AP, P/R, all-tiles-right, confusions."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from vision.classes import CLASS_ID
from vision.read.detect import MODELS_DIR as MODELS
from vision.read.operating_point import DEFAULT
from vision.train.evaluate import (
    EXTRA,
    MISSED,
    ImageResult,
    all_tiles_right,
    average_precision,
    confusions,
    iou_matrix,
    match_predictions,
    mean_ap,
    precision_recall,
    summarise,
)

A = [0, 0, 10, 10]
B = [20, 0, 30, 10]
C = [40, 0, 50, 10]


def img(gt, gt_cls, pred=(), pred_cls=(), conf=()) -> ImageResult:
    """Build an ImageResult from lists of boxes and class names."""
    return ImageResult(
        np.array(gt, dtype=float).reshape(-1, 4),
        np.array([CLASS_ID[c] for c in gt_cls], dtype=int),
        np.array(pred, dtype=float).reshape(-1, 4),
        np.array([CLASS_ID[c] for c in pred_cls], dtype=int),
        np.array(conf, dtype=float),
    )


def test_iou_known_values():
    ious = iou_matrix([A, [5, 0, 15, 10]], [A, B])
    assert ious[0, 0] == pytest.approx(1.0)
    assert ious[0, 1] == 0.0
    assert ious[1, 0] == pytest.approx(50 / 150)


def test_matching_is_class_aware_and_one_to_one():
    gt = np.array([A, B], float)
    flags = match_predictions(
        gt, np.array([1, 2]), np.array([A, A, B], float), np.array([1, 1, 3]), np.array([0.9, 0.8, 0.7])
    )
    # second prediction of A is a duplicate; B has the wrong class
    assert flags.tolist() == [True, False, False]


def test_matching_prefers_higher_confidence():
    flags = match_predictions(
        np.array([A], float), np.array([0]), np.array([A, A], float), np.array([0, 0]), np.array([0.3, 0.9])
    )
    assert flags.tolist() == [False, True]


def test_iou_threshold():
    shifted = [4, 0, 14, 10]  # IoU 6/14 = 0.43 with A
    assert not match_predictions(np.array([A], float), [0], np.array([shifted], float), [0], [1.0])[0]
    assert match_predictions(np.array([A], float), [0], np.array([shifted], float), [0], [1.0], iou_thr=0.4)[
        0
    ]


def test_average_precision_perfect_and_half():
    assert average_precision(np.array([True, True]), np.array([0.9, 0.8]), 2) == pytest.approx(1.0)
    # one hit ranked first, one miss: recall stops at 0.5 with precision 1 -> AP ~ 0.5
    assert average_precision(np.array([True, False]), np.array([0.9, 0.8]), 2) == pytest.approx(51 / 101)
    # a false positive ranked above the only hit: precision 0.5 at every recall
    assert average_precision(np.array([False, True]), np.array([0.9, 0.8]), 1) == pytest.approx(0.5)
    assert np.isnan(average_precision(np.array([]), np.array([]), 0))


def test_mean_ap_over_present_classes_only():
    im = img([A, B], ["1m", "2m"], [A, B], ["1m", "2m"], [0.9, 0.9])
    assert mean_ap([im]) == pytest.approx(1.0)
    im_bad = img([A, B], ["1m", "2m"], [A, B], ["1m", "3m"], [0.9, 0.9])
    assert mean_ap([im_bad]) == pytest.approx(0.5)  # 1m perfect, 2m zero; 3m has no GT: ignored


def test_precision_recall_counts():
    im = img([A, B, C], ["1m", "2m", "3m"], [A, B, [60, 0, 70, 10]], ["1m", "5p", "E"], [0.9, 0.8, 0.7])
    p, r, tp, fp, fn = precision_recall([im])
    assert (tp, fp, fn) == (1, 2, 2)
    assert p == pytest.approx(1 / 3)
    assert r == pytest.approx(1 / 3)


def test_all_tiles_right():
    assert all_tiles_right(img([A, B], ["1m", "2m"], [B, A], ["2m", "1m"], [0.5, 0.6]))
    assert not all_tiles_right(img([A, B], ["1m", "2m"], [A], ["1m"], [0.5]))  # missed one
    assert not all_tiles_right(img([A], ["1m"], [A, B], ["1m", "2m"], [0.5, 0.5]))  # extra one
    assert not all_tiles_right(img([A], ["1m"], [A], ["2m"], [0.5]))  # wrong face
    assert all_tiles_right(img([], []))  # nothing there, nothing reported


def test_confusions():
    im = img([A, B, C], ["1m", "2m", "3m"], [A, B, [60, 0, 70, 10]], ["1m", "5p", "E"], [0.9, 0.8, 0.7])
    conf = confusions([im])
    assert conf == {("2m", "5p"): 1, ("3m", MISSED): 1, (EXTRA, "E"): 1}


def test_summarise_operating_point():
    im = img([A, B], ["1m", "2m"], [A, B, C], ["1m", "2m", "W"], [0.9, 0.8, 0.1])
    rep = summarise([im], conf=0.5)
    assert rep.all_right == 1.0 and rep.precision == 1.0 and rep.recall == 1.0
    assert rep.map50 == pytest.approx(1.0)
    rep_low = summarise([im], conf=0.05)
    assert rep_low.all_right == 0.0
    assert ("(extra)", "W", 1) in rep_low.top_confusions


def test_operating_point_is_the_best_tile_f1_lowest_on_ties():
    from vision.train.pipeline import choose_conf

    gt = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], float)
    preds = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]], float)
    # two tiles read at 0.9 and 0.5, one false box at 0.2: F1 is best for 0.2 < conf <= 0.5
    im = ImageResult(gt, np.array([0, 1]), preds, np.array([0, 1, 2]), np.array([0.9, 0.5, 0.2]))
    assert choose_conf([im], max_move=None) == 0.25
    # a faint true tile at 0.12, the false box at 0.06: only 0.1 keeps F1 = 1
    im2 = ImageResult(gt, np.array([0, 1]), preds, np.array([0, 1, 2]), np.array([0.9, 0.12, 0.06]))
    assert choose_conf([im2], max_move=None) == 0.1


def test_operating_point_stays_at_the_default_within_the_noise():
    from vision.train.pipeline import choose_conf

    gt = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], float)
    preds = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]], float)
    im = ImageResult(gt, np.array([0, 1]), preds, np.array([0, 1, 2]), np.array([0.9, 0.5, 0.3]))
    # F1 is 1.0 for 0.3 < conf <= 0.5 and 0.8 at the default 0.25: a clear gain, so it moves
    assert choose_conf([im]) == 0.35
    # ... but not when the gain is within the margin
    assert choose_conf([im], margin=0.25) == 0.25


def test_synthetic_scenes_move_the_point_at_most_max_point_move():
    from vision.train.pipeline import MAX_POINT_MOVE, choose_conf

    # round 12's case: F1 on the scenes keeps rising down to 0.2, the shipped point is 0.55
    gt = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10], [60, 0, 70, 10]], float)
    im = ImageResult(gt, np.arange(4), gt.copy(), np.arange(4), np.array([0.9, 0.47, 0.32, 0.22]))
    assert choose_conf([im], default=0.55, max_move=None) <= 0.2  # unbounded: the far point
    moved = choose_conf([im], default=0.55)
    assert moved == 0.45  # the best F1 within the bound, not the far point
    assert abs(moved - 0.55) <= MAX_POINT_MOVE + 1e-9
    # no gain within the bound: the shipped point is kept
    im_far = ImageResult(gt, np.arange(4), gt.copy(), np.arange(4), np.array([0.9, 0.3, 0.25, 0.22]))
    assert choose_conf([im_far], default=0.55) == 0.55


def test_a_new_candidate_keeps_the_shipped_point_unless_a_clear_gain_elsewhere(tmp_path):
    from vision.train.pipeline import DEFAULT_CONF, choose_conf, shipped_point

    shutil.copyfile(MODELS / "model.json", tmp_path / "model.json")
    point = shipped_point(tmp_path)
    assert point == json.loads((MODELS / "model.json").read_text())["tile_conf"]
    gt = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], float)
    preds = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], float)
    im = ImageResult(gt, np.array([0, 1]), preds, np.array([0, 1]), np.array([0.97, 0.96]))
    assert choose_conf([im], default=point) == point  # every point up to 0.95 reads it all: kept
    assert shipped_point(tmp_path / "none") == DEFAULT_CONF  # nothing shipped: the default


def test_a_shipped_candidate_keeps_the_shipped_readers_reading_rules(tmp_path):
    """`train --stage ship` writes a model.json with the shipped reader's reading rules (tta_below,
    turn_below, the views, the row rescue's), not the module defaults: a new round is judged on its weights, not on a silently reset setting."""
    from vision.read import manifest
    from vision.train.pipeline import ship, shipped_op

    shipped = json.loads((MODELS / "model.json").read_text())
    (tmp_path / "shipped").mkdir()
    (tmp_path / "shipped" / "model.json").write_text(
        json.dumps(
            {
                **shipped,
                **{"tta_below": 0.4, "turn_below": 0.7, "mild_view": 0.25, "square_views": 0.02},
                **{"small_view": 0.8333, "row_rescue": 0.25, "rescue_face": 0.5, "rescue_gaps": 1.0},
                "flower_tile_share": 0.0,
                "small_view_plain_first": 1.0,
            }
        )
    )
    kept = shipped_op(tmp_path / "shipped")
    assert kept.tta_below == 0.4 and kept.turn_below == 0.7 and kept.tile_conf == shipped["tile_conf"]
    out = ship(
        MODELS / "tile_detector.pt",
        MODELS / "tile_classifier.pt",
        0.5,
        384,
        models_dir=tmp_path / "cand",
        kept=kept,
    )
    op = manifest.read(out).op
    assert op.tta_below == 0.4 and op.turn_below == 0.7 and op.mild_view == 0.25 and op.tile_conf == 0.5
    assert op.square_views == 0.02 and op.small_view == 0.8333
    assert (op.row_rescue, op.rescue_face, op.rescue_gaps, op.rescue_flower) == (0.25, 0.5, 1.0, 0.0)
    assert op.flower_tile_share == 0.0 and op.small_view_plain_first == 1.0
    assert shipped_op(tmp_path / "none").tta_below == DEFAULT.tta_below  # nothing shipped: default


def test_the_point_is_chosen_on_cached_scenes_even_when_they_trained_nothing(tmp_path, monkeypatch):
    """--no-synth trains on real photos only; the point is still chosen on the synthetic val scenes
    when they exist, and kept (None) when there are none."""
    from vision.train import data, pipeline

    run_scenes = tmp_path / "run"
    assert pipeline.point_scenes(run_scenes) == run_scenes
    monkeypatch.setattr(data, "SYNTH_DIR", tmp_path / "cached")
    assert pipeline.point_scenes(None) is None
    (tmp_path / "cached").mkdir()
    (tmp_path / "cached" / "data.yaml").write_text("path: .\n")
    assert pipeline.point_scenes(None) == tmp_path / "cached"
