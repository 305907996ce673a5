"""The flower gate (OperatingPoint.flower_gate_at_least, model.json's `flower_gate`): a box the gate
reads as a flower is not in play: never returned, never rescued. It is asked only of the boxes the
reader could return whose face it doubts (OperatingPoint.flower_gate_below)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch

from tests.vision.read.test_small_view import ROW, WIDTH, SizedDetector
from vision.classes import NUM_CLASSES
from vision.read import detect as reader
from vision.read import manifest
from vision.read.operating_point import OperatingPoint
from vision.read.tilenet import GATE_OUTPUTS, TileNet, flower_probability

FLOWER = (124, 20, 154, 60)  # a fifth box beside the row: the flower tile, drawn white


def _photo() -> np.ndarray:
    img = np.full((100, WIDTH, 3), 90, np.uint8)
    img[FLOWER[1] : FLOWER[3], FLOWER[0] : FLOWER[2]] = 255
    return img


def _white_is_flower(gate: TileNet, crops: np.ndarray) -> np.ndarray:  # noqa: ARG001 - the reader's signature
    """A stand-in gate: a crop mostly white reads as a flower, 0.97 sure; any other 0.02."""
    return np.where(crops.reshape(len(crops), -1).mean(1) > 200, 0.97, 0.02)


def _model(
    bar: float, row_rescue: float = 0.0, flower_det: float = 0.9, below: float = 1.0
) -> reader.TileModel:
    boxes = [(*b, 0.9) for b in ROW] + [(*FLOWER, flower_det)]
    op = OperatingPoint(
        conf=0.55, tile_conf=0.55, flower_gate_at_least=bar, row_rescue=row_rescue, flower_gate_below=below
    )
    faces = TileNet(num_classes=NUM_CLASSES).eval()  # 35 faces, no `other`: tile confidence = detector's
    gate = TileNet(num_classes=GATE_OUTPUTS).eval()
    return reader.TileModel(SizedDetector({384: boxes}), faces, op, 384, None, {}, flower_gate=gate)  # type: ignore[arg-type]


def test_a_box_the_gate_reads_as_a_flower_is_not_returned(monkeypatch):
    monkeypatch.setattr(reader, "flower_probability", _white_is_flower)
    found = reader.detect(_photo(), model=_model(0.95))
    assert sorted(round(d.xyxy[0]) for d in found) == [0, 31, 62, 93]


def test_under_the_bar_or_without_a_bar_the_flower_is_returned_as_before(monkeypatch):
    monkeypatch.setattr(reader, "flower_probability", _white_is_flower)
    assert len(reader.detect(_photo(), model=_model(0.98))) == 5  # the gate reads 0.97
    assert len(reader.detect(_photo(), model=_model(0.0))) == 5  # every model.json before it


def test_a_gated_box_is_neither_maybe_missed_nor_rescued(monkeypatch):
    monkeypatch.setattr(reader, "flower_probability", _white_is_flower)
    model = _model(0.95, row_rescue=0.25)
    found, maybe = reader.detect_with_maybe(_photo(), model=model)
    assert len(found) == 4 and all(round(d.xyxy[0]) != FLOWER[0] for d in maybe)


def test_the_gate_is_asked_only_of_returnable_boxes_whose_face_is_doubted(monkeypatch):
    """A box under the point is not asked (a flower there may be offered as maybe missed, as before
    the gate); nor is a box whose best face reads at least flower_gate_below."""
    asked: list[int] = []

    def counting(gate, crops):
        asked.append(len(crops))
        return _white_is_flower(gate, crops)

    monkeypatch.setattr(reader, "flower_probability", counting)
    found, maybe = reader.detect_with_maybe(_photo(), model=_model(0.95, flower_det=0.4))
    assert asked == [4] and len(found) == 4 and any(round(d.xyxy[0]) == FLOWER[0] for d in maybe)
    asked.clear()
    # the stand-in classifier's best face reads far under 1.0 (random weights over 35 faces)
    assert len(reader.detect(_photo(), model=_model(0.95, below=1e-6))) == 5 and asked == []
    assert OperatingPoint.from_json({}).flower_gate_below == 1.0


def test_in_a_photo_that_looks_distorted_no_box_is_a_flower():
    reading = reader._ViewReading(
        np.zeros((2, 4)), np.array([0.9, 0.9]), np.zeros(2, int), np.full((2, NUM_CLASSES), 1 / NUM_CLASSES),
        gate=np.array([0.99, 0.01]), gate_at_least=0.9,
    )  # fmt: skip
    assert reader.tile_and_face(reading)[0].tolist() == [0.0, 0.9]
    from dataclasses import replace

    assert reader.tile_and_face(replace(reading, flowers=False))[0].tolist() == [0.9, 0.9]


def test_the_gate_is_one_pass_over_the_crops_as_they_are():
    gate = TileNet(num_classes=GATE_OUTPUTS).eval()
    with torch.no_grad():
        gate.head[2].weight.zero_()
        gate.head[2].bias.copy_(torch.tensor([0.0, np.log(3.0)]))  # flower 3:1
    p = flower_probability(gate, np.zeros((3, 64, 48, 3), np.uint8))
    assert p.shape == (3,) and np.allclose(p, 0.75)


def _model_folder(tmp_path, gate_state: dict | None):
    """The shipped model copied into tmp_path, with `gate_state` as its flower gate."""
    folder = tmp_path / "m"
    folder.mkdir(parents=True)
    d = json.loads((reader.MODELS_DIR / "model.json").read_text())
    d.pop("flower_gate", None)
    for name in (d["detector"], d["classifier"]):
        shutil.copyfile(reader.MODELS_DIR / name, folder / name)
    if gate_state is not None:
        torch.save(gate_state, folder / manifest.FLOWER_GATE_FILE)
        d.update(flower_gate=manifest.FLOWER_GATE_FILE, flower_gate_at_least=0.9)
    (folder / "model.json").write_text(json.dumps(d))
    return folder / "model.json"


def test_a_model_folder_loads_its_gate_and_refuses_weights_that_are_no_gate(tmp_path):
    gate = TileNet(num_classes=GATE_OUTPUTS)
    good = _model_folder(tmp_path / "a", {k: v.half() for k, v in gate.state_dict().items()})
    tm = reader.load_model(good)
    assert tm.flower_gate is not None and tm.op.flower_gate_at_least == 0.9
    assert manifest.read(good).to_dict()["flower_gate"] == manifest.FLOWER_GATE_FILE
    faces = TileNet(num_classes=NUM_CLASSES + 1)  # a classifier, not a gate
    bad = _model_folder(tmp_path / "b", {k: v.half() for k, v in faces.state_dict().items()})
    with pytest.raises(manifest.ModelFileError, match="flower_gate.pt is not a flower gate"):
        reader.load_model(bad)


def test_the_classifier_and_the_gate_refuse_wrong_weights_alike(tmp_path):
    """One loader for both nets: a classifier file whose outputs model.json does not name, or of
    another width, is refused with one message naming the file, as a gate's is."""
    plain = _model_folder(tmp_path / "a", None)
    d = json.loads(plain.read_text())
    wrong = TileNet(num_classes=NUM_CLASSES + 2)  # a classifier with `flower`, named with 36 outputs
    torch.save({k: v.half() for k, v in wrong.state_dict().items()}, plain.parent / d["classifier"])
    with pytest.raises(
        manifest.ModelFileError, match="tile_classifier.pt is not a tile classifier: it has 37"
    ):
        reader.load_model(plain)
    narrow = TileNet(num_classes=NUM_CLASSES + 1, width=8)
    torch.save({k: v.half() for k, v in narrow.state_dict().items()}, plain.parent / d["classifier"])
    with pytest.raises(manifest.ModelFileError, match="does not fit a width-24 TileNet"):
        reader.load_model(plain)


def test_without_a_gate_model_json_names_none_and_the_version_covers_the_gate(tmp_path):
    plain = _model_folder(tmp_path / "a", None)
    assert "flower_gate" not in manifest.read(plain).to_dict()
    state = {k: v.half() for k, v in TileNet(num_classes=GATE_OUTPUTS).state_dict().items()}
    gated = _model_folder(tmp_path / "b", state)
    before = manifest.version_of(gated)
    torch.save({k: v + 1 for k, v in state.items()}, gated.parent / manifest.FLOWER_GATE_FILE)
    assert manifest.version_of(gated) != before


@pytest.mark.skipif(not reader.DEFAULT_MODEL.is_file(), reason="no shipped model in models/")
def test_the_shipped_reader_leaves_out_the_fixture_hand_s_three_flowers_and_keeps_its_bird():
    """tests/fixtures/vision/hand_rack.jpg: 梅, 秋 and 冬 at the hand's left (unlabelled, as the set
    leaves every flower), then 14 labelled tiles, among them a 1s drawn as a bird. The shipped
    reader returns the 14 and no flower; without its gate it returned flowers (as 1s) too."""
    from dataclasses import replace

    from vision.read.imageio import load_image
    from vision.train import data
    from vision.train.evaluate import iou_matrix

    fixtures = reader.MODELS_DIR.parent / "tests" / "fixtures" / "vision"
    photo = load_image(fixtures / "hand_rack.jpg")
    labels = data.read_labels(fixtures / "hand_rack.txt")
    want = data.pixel_boxes(labels, photo.shape[1], photo.shape[0])
    shipped = reader.load_model()
    found = reader.detect(photo, model=shipped)
    boxes = np.array([d.xyxy for d in found])
    assert len(found) == len(want) == 14 and (iou_matrix(boxes, want).max(1) >= 0.5).all()
    assert [d.cls for d in found].count("1s") == 1
    ungated = reader.detect(photo, model=replace(shipped, op=replace(shipped.op, flower_gate_at_least=0.0)))
    extra = [d for d in ungated if (iou_matrix(np.array([d.xyxy]), want).max() < 0.5)]
    assert extra and all(d.xyxy[2] <= want[:, 0].min() + 2 for d in extra)  # flowers, left of the hand
