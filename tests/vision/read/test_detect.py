"""End-to-end detection with the shipped model on committed fixture photos (see fixtures README)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.classes import CLASS_NAMES, NUM_CLASSES
from vision.read.detect import (
    DEFAULT_MODEL,
    Detection,
    _ViewReading,
    choose_view,
    detect,
    load_model,
    switch_bar,
    tile_and_face,
)
from vision.train.data import read_labels
from vision.train.evaluate import iou_matrix

FIXTURES = Path(__file__).parents[2] / "fixtures" / "vision"
REPO = Path(__file__).resolve().parents[3]
#: Minimum tiles read right (IoU >= 0.5, right class) per fixture at the shipped operating point.
MIN_RIGHT = {"tiles_grid": 12, "hand_rack": 10}

pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model in models/")


def _truth(name: str) -> tuple[np.ndarray, list[str]]:
    boxes = read_labels(FIXTURES / f"{name}.txt")
    return np.array([b.xyxy(640, 640) for b in boxes]), [CLASS_NAMES[b.cls] for b in boxes]


def _right(dets: list[dict], name: str) -> int:
    """Ground-truth tiles found with the right class (greedy one-to-one, IoU >= 0.5)."""
    gt, gt_cls = _truth(name)
    if not dets:
        return 0
    ious = iou_matrix(np.array([d["xyxy"] for d in dets]), gt)
    used: set[int] = set()
    right = 0
    for i, d in enumerate(dets):
        for j in np.argsort(-ious[i]):
            if ious[i, j] < 0.5:
                break
            if j not in used and gt_cls[j] == d["cls"]:
                used.add(int(j))
                right += 1
                break
    return right


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vision", "detect", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_cli_reads_fixture_photos_and_reports_bad_files(tmp_path):
    bad = tmp_path / "broken.jpg"
    bad.write_text("not a photo")
    proc = _cli(str(FIXTURES / "tiles_grid.jpg"), str(bad), str(FIXTURES / "hand_rack.jpg"), "--json")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    err_lines = proc.stderr.strip().splitlines()
    assert len(err_lines) == 1 and "broken.jpg" in err_lines[0]
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [Path(r["image"]).stem for r in records] == ["tiles_grid", "hand_rack"]
    for rec in records:
        name = Path(rec["image"]).stem
        assert (rec["width"], rec["height"]) == (640, 640)
        for d in rec["detections"]:
            assert d["cls"] in CLASS_NAMES and 0 < d["conf"] <= 1
            x1, y1, x2, y2 = d["xyxy"]
            assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 640
        right = _right(rec["detections"], name)
        assert right >= MIN_RIGHT[name], f"{name}: only {right} tiles right"


def _cli_here(capsys, *args: str) -> tuple[int, str, str]:
    """The same CLI in this process (the model stays loaded): (exit status, stdout, stderr). The
    subprocess runs above and below keep `python -m vision` itself covered."""
    from vision.__main__ import main

    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_folder_and_missing_model(tmp_path, capsys):
    rc, out, err = _cli_here(capsys, "detect", str(FIXTURES), "--json", "--conf", "0.5")
    assert rc == 0, err
    assert len(out.splitlines()) == 2
    rc, out, err = _cli_here(
        capsys, "detect", str(FIXTURES / "tiles_grid.jpg"), "--model", str(tmp_path / "none.json")
    )
    assert rc == 2 and "Traceback" not in err and "model" in err and len(err.strip().splitlines()) == 1


def test_api_alternatives_and_low_conf():
    model = load_model()
    assert load_model() is model  # cached
    dets = detect(FIXTURES / "tiles_grid.jpg")
    low = detect(FIXTURES / "tiles_grid.jpg", conf=0.01)
    assert len(low) >= len(dets) > 0
    assert min(d.tile_conf for d in low) < model.tile_conf or len(low) == len(dets)
    for d in low:
        assert isinstance(d, Detection)
        assert d.tile_conf >= 0.01
        assert d.conf == pytest.approx(d.tile_conf * d.face_conf)
        assert d.unsure == (d.face_conf < model.face_conf)
        alt = d.alternatives
        assert len(alt) <= 5
        assert all(c != d.cls and c in CLASS_NAMES for c, _ in alt)
        faces = [d.face_conf] + [p for _, p in alt]
        assert faces == sorted(faces, reverse=True) and sum(faces) <= 1 + 1e-6
    # The operating point is on tile_conf: every tile returned is a sure tile, whatever its face.
    assert all(d.tile_conf >= model.tile_conf for d in dets)
    record = dets[0].to_json()
    assert {"tile_conf", "face_conf", "unsure", "alternatives", "conf"} <= set(record)


def test_exif_rotated_photo_gives_upright_boxes(tmp_path):
    upright = np.asarray(Image.open(FIXTURES / "tiles_grid.jpg").convert("RGB"))
    stored = np.rot90(upright, k=1)  # stored turned 90 degrees counter-clockwise ...
    exif = Image.Exif()
    exif[0x0112] = 6  # ... so viewers turn it 90 degrees clockwise
    path = tmp_path / "sideways.jpg"
    Image.fromarray(stored).save(path, quality=95, exif=exif.tobytes())
    a = detect(upright)
    b = detect(path)
    assert len(b) >= len(a) - 1
    ious = iou_matrix(np.array([d.xyxy for d in a]), np.array([d.xyxy for d in b]))
    assert (ious.max(axis=1) > 0.7).mean() > 0.9


def test_array_input_validation():
    with pytest.raises(ValueError):
        detect(np.zeros((10, 10), np.uint8))


def _model_with_other_classifier(tmp_path: Path, other_bias: float) -> Path:
    """The shipped detector with a 36-output TileNet whose only opinion is its biases."""
    import shutil

    import torch

    from vision.classes import OTHER_ID
    from vision.read.detect import MODELS_DIR
    from vision.read.tilenet import TileNet

    net = TileNet(num_classes=OTHER_ID + 1)
    with torch.no_grad():
        net.head[2].weight.zero_()
        net.head[2].bias.zero_()
        net.head[2].bias[OTHER_ID] = other_bias
        net.head[2].bias[CLASS_NAMES.index("5p")] = 1.0
    torch.save(net.state_dict(), tmp_path / "cls.pt")
    shutil.copyfile(MODELS_DIR / "tile_detector.pt", tmp_path / "det.pt")
    meta = json.loads(DEFAULT_MODEL.read_text())
    meta.update(detector="det.pt", classifier="cls.pt")
    if meta.get("flower_gate"):  # the shipped flower gate, beside the test's classifier
        shutil.copyfile(MODELS_DIR / meta["flower_gate"], tmp_path / meta["flower_gate"])
    (tmp_path / "model.json").write_text(json.dumps(meta))
    return tmp_path / "model.json"


def test_other_output_is_never_a_detection_class(tmp_path):
    """A classifier sure a box is `other` (e.g. a flower tile) pushes it under the operating point;
    at a tiny threshold it still comes back, named by the best real class, `other` in no list."""
    model = load_model(_model_with_other_classifier(tmp_path, other_bias=12.0))
    assert model.classifier.head[2].out_features == 36
    assert detect(FIXTURES / "tiles_grid.jpg", model=model) == []
    low = detect(FIXTURES / "tiles_grid.jpg", conf=1e-9, model=model)
    assert low
    for d in low:
        assert d.cls == "5p"
        assert all(c in CLASS_NAMES for c, _ in d.alternatives)


def test_classifier_with_unexpected_outputs_is_refused(tmp_path):
    import torch

    from vision.read.tilenet import TileNet

    path = _model_with_other_classifier(tmp_path, other_bias=0.0)
    torch.save(TileNet(num_classes=40).state_dict(), tmp_path / "cls.pt")
    with pytest.raises(ValueError, match="40 outputs"):
        load_model(path)


@pytest.mark.parametrize("axis", [0, 1])
def test_photo_stretched_out_of_aspect_is_read_through_a_squeezed_view(axis):
    """A photo stretched 8x along one axis (as dataset exports do to fit a square) turns tiles into
    bars the detector misses; the aspect views read it like the original, boxes in stretched pixels."""
    import cv2

    img = np.asarray(Image.open(FIXTURES / "tiles_grid.jpg").convert("RGB"))
    stretched = cv2.resize(
        img, (640 * 8, 640) if axis == 0 else (640, 640 * 8), interpolation=cv2.INTER_LINEAR
    )
    gt, gt_cls = _truth("tiles_grid")
    gt[:, [0, 2] if axis == 0 else [1, 3]] *= 8

    def right(dets: list[Detection]) -> int:
        if not dets:
            return 0
        ious = iou_matrix(np.array([d.xyxy for d in dets]), gt)
        return sum(
            1 for i, d in enumerate(dets) if ious[i].max() >= 0.5 and gt_cls[ious[i].argmax()] == d.cls
        )

    shipped = load_model()
    # the views themselves, on a photo of any shape (which shapes the shipped reader reads them for:
    # OperatingPoint.square_views, tests/vision/read/test_square_views.py)
    any_shape = replace(shipped, op=replace(shipped.op, square_views=0.0))
    assert right(detect(stretched, model=any_shape)) >= MIN_RIGHT["tiles_grid"]
    assert right(detect(stretched, model=any_shape, aspect_views=False)) <= 2
    # the shipped reader reads them for a square only: an export's stretch leaves one, and an 8:1
    # photo is no export (the price of not reading every phone photo seven more times)
    assert shipped.op.square_views > 0 and right(detect(stretched, model=shipped)) <= 2


def _kept(base: float, scores: list[float]) -> int:
    """choose_view with every view on the default bar against a plain view that reads `base`."""
    return choose_view(scores, [switch_bar(base)] * len(scores))


def test_choose_view_keeps_ordinary_photos_on_the_plain_view():
    assert _kept(7.0, [10.5, 3.0]) == -1  # better, but not twice as good: keep the photo as it is
    assert _kept(0.0, [0.5, 0.9]) == -1  # a tile-free photo: a stray box is not a reading
    assert _kept(0.3, [1.5, 7.0, 2.0]) == 1  # the best view that clears both bars
    assert _kept(2.0, [4.1]) == 0 and _kept(2.0, [4.0]) == -1  # a tie with the bar: the photo as it is
    assert _kept(5.0, []) == -1


def _view(boxes: list[list[float]], squeeze: tuple[int, int], face: float, other: float) -> _ViewReading:
    """A view reading whose every box has detector confidence 0.8, best face `face`, p(other) `other`."""
    n = len(boxes)
    probs = np.zeros((n, NUM_CLASSES + 1))
    probs[:, 1:NUM_CLASSES] = (1.0 - face - other) / (NUM_CLASSES - 1)  # each below `face`
    probs[:, 0], probs[:, NUM_CLASSES] = face, other
    return _ViewReading(np.array(boxes, float), np.full(n, 0.8), np.zeros(n, int), probs, squeeze)


def test_a_view_scores_the_tiles_it_would_read_right_expected():
    """A view is worth the tiles it would return (tile confidence at the operating point, whatever
    the face) weighted by how sure their faces are: the blurred tiles of a stretched photo squeezed
    back (faces 0.3 sure, p(other) 0) count 0.8 x 0.3 each, and still beat a view with none."""
    blurred = _view([[0, 0, 640, 50], [0, 60, 640, 110]], (8, 1), face=0.3, other=0.0)
    assert blurred.score(0.45) == pytest.approx(2 * 0.8 * 0.3)
    assert _kept(0.0, [blurred.score(0.45)]) == -1  # 0.48: not yet a reading (bar +1.0)
    twelve = _view([[0, 60 * i, 640, 60 * i + 50] for i in range(12)], (8, 1), face=0.3, other=0.0)
    assert _kept(0.0, [twelve.score(0.45)]) == 0
    not_tiles = _view([[0, 0, 640, 50]], (8, 1), face=0.3, other=0.6)
    assert not_tiles.score(0.45) == 0.0  # tile confidence 0.8 x 0.4 < 0.45: not returned, not counted


def test_many_tiles_with_doubtful_faces_are_an_ordinary_photo():
    """A print the classifier never saw, seen from the seat: fourteen tiles of a tile's shape, faces
    0.1 sure. That is no distorted photo: squeezing it (8x) makes tall blends that read as confident
    backs, so the views are not even tried. Three tiles are too few to tell; strips 12:1 look
    distorted however well they read."""
    squares = [[40 * i, 0, 40 * i + 30, 30] for i in range(14)]
    assert not _view(squares, (1, 1), face=0.1, other=0.0).looks_distorted(0.45)
    assert _view(squares[:3], (1, 1), face=0.9, other=0.0).looks_distorted(0.45)
    strips = [[0, 60 * i, 640, 60 * i + 50] for i in range(14)]
    assert _view(strips, (1, 1), face=0.9, other=0.0).looks_distorted(0.45)


def test_only_boxes_of_a_tiles_shape_in_their_view_count():
    """The same 640 x 50 strips are 12:1 in the photo as it is (no tile), 80 x 50 squeezed 8x (a tile
    lying sideways); the half tiles of a wrong view (30 x 240, 8:1) do not count either."""
    strips = [[0, 0, 640, 50], [0, 60, 640, 110]]
    assert _view(strips, (1, 1), face=1.0, other=0.0).score(0.45) == 0.0
    assert _view(strips, (8, 1), face=1.0, other=0.0).score(0.45) == pytest.approx(1.6)
    assert _view([[0, 0, 30, 240]], (1, 1), face=1.0, other=0.0).score(0.45) == 0.0
    assert _view([[0, 0, 30, 240]], (1, 8), face=1.0, other=0.0).score(0.45) == pytest.approx(0.8)


def test_a_flower_is_a_tile_that_is_not_returned_and_costs_no_face_its_tile_confidence():
    """With a `flower` output: a box read as a flower more than as any face gets tile confidence 0
    (not in play); a tile whose face is in doubt with some flower mass keeps the detector's
    confidence less only p(other). Without it (36 outputs) nothing changes."""
    probs = np.zeros((3, NUM_CLASSES + 2))
    probs[0, [0, NUM_CLASSES, NUM_CLASSES + 1]] = 0.2, 0.1, 0.7  # a flower
    probs[1, [0, 1, NUM_CLASSES, NUM_CLASSES + 1]] = 0.35, 0.25, 0.1, 0.3  # an unfamiliar 1m
    probs[2, [0, NUM_CLASSES]] = 0.6, 0.4  # half a cup
    reading = _ViewReading(np.zeros((3, 4)), np.full(3, 0.8), np.zeros(3, int), probs, (1, 1))
    tile, face = tile_and_face(reading)
    assert tile == pytest.approx([0.0, 0.8 * 0.9, 0.8 * 0.6])
    assert face[1, 0] == pytest.approx(0.35 / 0.6) and face.shape[1] == NUM_CLASSES
    old = _ViewReading(np.zeros((3, 4)), np.full(3, 0.8), np.zeros(3, int), probs[:, :-1], (1, 1))
    assert tile_and_face(old)[0] == pytest.approx([0.8 * 0.2, 0.8 * 0.6, 0.8 * 0.6])
    barred = _ViewReading(np.zeros((3, 4)), np.full(3, 0.8), np.zeros(3, int), probs, (1, 1), 0.75)
    assert tile_and_face(barred)[0] == pytest.approx(
        [0.8 * 0.9, 0.8 * 0.9, 0.8 * 0.6]
    )  # 0.7 < the bar: a tile
    distorted = replace(reading, flowers=False)  # a photo that looks distorted calls nothing a flower
    assert tile_and_face(distorted)[0] == pytest.approx([0.8 * 0.9, 0.8 * 0.9, 0.8 * 0.6])


def test_flower_tile_share_counts_only_that_share_of_a_flower_as_a_tile():
    """OperatingPoint.flower_tile_share: at 0.0 a box that reads mostly flower under the bar is no
    tile in play (stop 51: faces 0.02, flower 0.62 was lifted over the point at 1.0); a photo that
    looks distorted still counts its flower as a tile; 1.0 is stop 36's rule, the default."""
    probs = np.zeros((2, NUM_CLASSES + 2))
    probs[0, [0, NUM_CLASSES, NUM_CLASSES + 1]] = 0.02, 0.36, 0.62  # flower under the bar 0.7
    probs[1, [0, NUM_CLASSES + 1]] = 0.8, 0.2  # a tile with some flower mass
    args = (np.zeros((2, 4)), np.full(2, 0.86), np.zeros(2, int), probs, (1, 1), 0.7)
    assert _ViewReading(*args).flower_tile_share == 1.0
    assert tile_and_face(_ViewReading(*args))[0] == pytest.approx([0.86 * 0.64, 0.86])
    none = _ViewReading(*args, flower_tile_share=0.0)
    assert tile_and_face(none)[0] == pytest.approx([0.86 * 0.02, 0.86 * 0.8])
    assert tile_and_face(replace(none, flowers=False))[0] == pytest.approx([0.86 * 0.64, 0.86])


def test_the_flower_bar_is_a_model_json_key(tmp_path):
    """OperatingPoint.flower_at_least is a model.json key like tile_conf; an old model.json
    without it reads 0.0 (a flower only has to top every face)."""
    from vision.read.operating_point import OperatingPoint

    assert OperatingPoint.from_json({"flower_at_least": 0.6}).flower_at_least == 0.6
    assert OperatingPoint.from_json({}).flower_at_least == 0.0
    with pytest.raises(ValueError, match="flower_at_least"):
        OperatingPoint.from_json({"flower_at_least": 2})


@pytest.mark.slow
def test_evaluate_cli_on_the_fixture_photos(tmp_path, capsys):
    """`python -m vision evaluate` on a folder of the two fixture photos: JSON report with the
    measured numbers; `--plain-view-only` runs too; a missing dataset is one clear line."""
    import shutil

    for sub in ("images", "labels"):
        (tmp_path / sub).mkdir()
    for name in MIN_RIGHT:
        shutil.copy(FIXTURES / f"{name}.jpg", tmp_path / "images" / f"{name}.jpg")
        shutil.copy(FIXTURES / f"{name}.txt", tmp_path / "labels" / f"{name}.txt")

    cmd = [sys.executable, "-m", "vision", "evaluate", "--data", str(tmp_path), "--json"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    reports = [json.loads(proc.stdout)]
    rc, out, err = _cli_here(capsys, "evaluate", "--data", str(tmp_path), "--json", "--plain-view-only")
    assert rc == 0, err
    reports.append(json.loads(out))
    for rep in reports:
        assert rep["n_images"] == 2 and rep["conf"] == load_model().conf
        assert rep["map50"] > 0.5 and 0.8 < rep["precision"] <= 1 and 0.7 < rep["recall"] <= 1
        assert 0.8 < rep["tile_precision"] <= 1
    assert reports[0]["map50"] == reports[1]["map50"]  # ordinary photos keep the plain view
    rc, out, err = _cli_here(capsys, "evaluate", "--data", str(tmp_path / "nope"))
    assert rc == 2 and "Traceback" not in err and "nope" in err
