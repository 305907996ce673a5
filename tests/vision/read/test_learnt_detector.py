"""A player's model reads the base detector and the learnt one side by side: the learnt detector's
boxes are added where the base found nothing, and take a base box away only where adapt's check
kept the veto (vision.read.learnt, run by vision.read.detect; written by vision.train.adapt, named in
model.json as `learnt_detector`, `learnt_conf`, `learnt_veto`), and with `learnt_refit` a base box
the learnt detector outlines differently takes the learnt outline."""

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from vision.read import detect as reader
from vision.read import manifest
from vision.read.operating_point import OperatingPoint


class FakeDetector:
    """Answers `predict` like ultralytics with fixed boxes (view pixels) and confidences."""

    def __init__(self, rows: list[tuple[float, float, float, float, float]]) -> None:
        self.rows = rows
        self.names = {0: "tile"}

    def predict(self, view, imgsz, conf, iou, verbose, device):  # noqa: ARG002 - ultralytics' signature
        kept = [r for r in self.rows if r[4] >= conf]
        t = torch.tensor(kept, dtype=torch.float32).reshape(-1, 5)
        boxes = SimpleNamespace(xyxy=t[:, :4], conf=t[:, 4], cls=torch.zeros(len(t)))
        return [SimpleNamespace(boxes=boxes)]


def _model(
    base_rows, learnt_rows=None, learnt_conf=0.5, learnt_veto=0.0, learnt_refit=0.0
) -> reader.TileModel:
    op = OperatingPoint(conf=0.45, tile_conf=0.45)
    learnt = FakeDetector(learnt_rows) if learnt_rows is not None else None
    return reader.TileModel(
        FakeDetector(base_rows),
        None,
        op,
        384,
        None,
        {},
        learnt,
        learnt_conf,
        learnt_veto,  # type: ignore[arg-type]
        learnt_refit,
    )


VIEW = np.zeros((100, 300, 3), np.uint8)
BASE = [(10, 10, 40, 50, 0.9), (50, 10, 80, 50, 0.3)]  # one sure tile, one the base doubts


def _read(tm: reader.TileModel, floor: float = 0.01) -> reader._ViewReading:
    return reader._read_view(tm, VIEW, 1.0, (300, 100), (1, 1), floor)


def test_without_a_learnt_detector_the_reading_is_the_base_detectors():
    r = _read(_model(BASE))
    assert r.boxes.tolist() == [[10, 10, 40, 50], [50, 10, 80, 50]]
    assert r.det_conf.round(3).tolist() == [0.9, 0.3]


def test_learnt_boxes_are_added_and_none_of_the_base_is_lost():
    learnt = [
        (11, 11, 41, 51, 0.6),  # the base's sure tile again: one tile, the surer box stays
        (52, 10, 82, 50, 0.55),  # the tile the base doubted: now returned, at the reader's point
        (200, 10, 230, 50, 0.7),  # a tile the base never saw
        (250, 10, 280, 50, 0.2),  # under the learnt detector's own point: not added
    ]
    r = _read(_model(BASE, learnt, learnt_conf=0.5))
    boxes = [tuple(round(v) for v in b) for b in r.boxes]
    assert (10, 10, 40, 50) in boxes and (200, 10, 230, 50) in boxes
    assert (11, 11, 41, 51) not in boxes and not any(b[0] == 250 for b in boxes)
    conf = dict(zip(boxes, r.det_conf, strict=True))
    assert conf[10, 10, 40, 50] == pytest.approx(0.9)
    # a learnt box at its own point counts as a tile at the reader's point (mapped onto [0.45, 1])
    assert conf[52, 10, 82, 50] >= 0.45 and conf[200, 10, 230, 50] > conf[52, 10, 82, 50]
    tiles = [d for d in reader._decide(_model(BASE), r, 0.45)]
    assert len(tiles) == 3  # the base's sure tile, the doubted one (learnt), the new one


def test_a_learnt_detector_that_finds_nothing_changes_nothing():
    assert _read(_model(BASE, [])).boxes.tolist() == _read(_model(BASE)).boxes.tolist()


def test_with_a_veto_base_boxes_the_learnt_detector_does_not_confirm_are_dropped():
    """A player's model whose check kept the veto: the base's box on the shelf (no learnt box
    there) is dropped; a base tile the learnt detector confirms only weakly (under its adding point,
    over the veto) stays; a weak learnt box is still not added; without the veto nothing is dropped."""
    base = [(10, 10, 40, 50, 0.9), (100, 10, 130, 50, 0.8), (150, 10, 180, 50, 0.9)]
    learnt = [
        (11, 11, 41, 51, 0.3),  # confirms the first base box, weakly
        (152, 10, 182, 50, 0.1),  # under the veto's confidence: confirms nothing
        (200, 10, 230, 50, 0.3),  # a weak box of its own: not added
    ]
    kept = [tuple(round(v) for v in b) for b in _read(_model(base, learnt, 0.5, learnt_veto=0.25)).boxes]
    assert kept == [(10, 10, 40, 50)]
    assert len(_read(_model(base, learnt, 0.5)).boxes) == 3
    assert _read(_model(base, learnt, 0.5, learnt_veto=0.05)).boxes[:, 0].round().tolist() == [10, 150]


def test_the_veto_is_not_used_on_a_photo_of_a_set_the_learnt_detector_never_learnt():
    """Six sure base tiles. The learnt detector confirms four: the other two (the shelf) are
    dropped. It confirms one: this is another set (a player's model at a friend's table), and the
    photo is read as the shipped detector reads it: every base box, no learnt box added."""
    base = [(x, 10, x + 30, 50, 0.9) for x in range(0, 240, 40)]
    own = [(x + 1, 10, x + 31, 50, 0.6) for x in range(0, 160, 40)]
    assert len(_read(_model(base, own, 0.5, learnt_veto=0.25)).boxes) == 4
    other = [(1, 10, 31, 50, 0.6), (250, 60, 280, 95, 0.9)]
    assert _boxes(_read(_model(base, other, 0.5, learnt_veto=0.25))) == _boxes(_read(_model(base)))
    few = base[:3]  # under VETO_MIN_SURE sure tiles: too few to tell, the veto holds
    assert len(_read(_model(few, other[:1], 0.5, learnt_veto=0.25)).boxes) == 1


def _boxes(r: reader._ViewReading) -> list[tuple[int, ...]]:
    return [tuple(round(v) for v in b) for b in r.boxes]


def test_with_refit_a_base_box_on_a_tiles_face_takes_the_learnt_outline_of_the_whole_tile():
    """A standing tile of a new print: the base boxes its face only (IoU 0.5 with the tile), the
    learnt detector the whole tile. Without the refit the learnt box is not added (the base box sits
    there) and the face box is what the player gets; with it the base box takes the learnt outline,
    its confidence the base's."""
    base = [(10, 30, 40, 60, 0.7)]  # the face: the lower half of the tile
    learnt = [(10, 0, 40, 60, 0.9)]  # the whole tile, face and top
    assert _boxes(_read(_model(base, learnt))) == [(10, 30, 40, 60)]
    r = _read(_model(base, learnt, learnt_refit=0.7))
    assert _boxes(r) == [(10, 0, 40, 60)]
    assert r.det_conf.tolist() == pytest.approx([0.7])


def test_refit_leaves_boxes_that_agree_spans_doubted_boxes_and_weak_learnt_boxes_alone():
    base = [
        (10, 10, 40, 50, 0.9),  # the learnt box agrees (IoU over 0.7): kept as it is
        (100, 20, 130, 50, 0.8),  # inside a learnt box that also covers the next tile: a span
        (130, 20, 160, 50, 0.8),
        (200, 30, 230, 60, 0.3),  # under the point: the base doubts it, so no refit (the learnt box
        (250, 30, 280, 60, 0.8),  # replaces a doubted box anyway); a weak learnt box never refits
    ]
    learnt = [
        (10, 12, 40, 50, 0.9),
        (100, 0, 160, 50, 0.9),
        (200, 0, 230, 60, 0.9),
        (250, 0, 280, 60, 0.3),
    ]
    got = _boxes(_read(_model(base, learnt, learnt_refit=0.7)))
    assert (10, 10, 40, 50) in got and (100, 20, 130, 50) in got and (130, 20, 160, 50) in got
    assert (250, 30, 280, 60) in got and (250, 0, 280, 60) not in got
    assert (200, 0, 230, 60) in got and (200, 30, 230, 60) not in got  # the doubted box gave way


def test_model_json_names_the_learnt_detector_inside_its_folder(tmp_path):
    m = manifest.ModelManifest(detector="tile_detector.pt", classifier="c.pt")
    assert "learnt_detector" not in m.to_dict() and "learnt_conf" not in m.to_dict()
    assert "learnt_veto" not in m.to_dict()
    assert "learnt_refit" not in m.to_dict()
    mine = replace(
        m, learnt_detector="learnt_detector.pt", learnt_conf=0.4, learnt_veto=0.25, learnt_refit=0.7
    )
    back = manifest.from_dict(mine.to_dict())
    assert back.learnt_detector == "learnt_detector.pt" and back.learnt_conf == 0.4
    assert back.learnt_veto == 0.25 and back.learnt_refit == 0.7
    older = {k: v for k, v in mine.to_dict().items() if k not in ("learnt_veto", "learnt_refit")}  # stop 41
    assert manifest.from_dict(older).learnt_veto == 0.0 and manifest.from_dict(older).learnt_refit == 0.0
    bads = (
        {"learnt_conf": 2},
        {"learnt_conf": "x"},
        {"learnt_detector": ""},
        {"learnt_veto": -1},
        {"learnt_refit": 3},
    )
    for bad in bads:
        with pytest.raises(manifest.ModelFileError):
            manifest.from_dict({**mine.to_dict(), **bad})
    with pytest.raises(manifest.ModelFileError, match="outside"):
        manifest.weights_path(tmp_path / "model.json", "../learnt_detector.pt")
