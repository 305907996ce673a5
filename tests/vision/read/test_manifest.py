"""model.json format 2: classes recorded and checked, old files read with safe defaults."""

import json

import pytest

from vision.classes import CLASS_NAMES, FLOWER, OTHER
from vision.read import manifest
from vision.read.detect import DEFAULT_MODEL, load_model
from vision.read.operating_point import DEFAULT, OperatingPoint


def test_shipped_model_json_is_format_2_with_the_one_vocabulary():
    m = manifest.read(DEFAULT_MODEL)
    assert m.format_version == manifest.FORMAT_VERSION
    assert m.classes == list(CLASS_NAMES)
    assert m.classifier_classes == [*CLASS_NAMES, OTHER]
    assert 0 < m.op.tile_conf < 1 and 0 < m.op.face_conf < 1 and 0 < m.op.nms_iou < 1


def test_round_trip(tmp_path):
    op = OperatingPoint(tile_conf=0.3, nms_iou=0.5)
    m = manifest.ModelManifest(detector="d.pt", classifier="c.pt", op=op, extra={"seed": 4})
    path = manifest.write(tmp_path / "model.json", m)
    back = manifest.read(path)
    assert back == m
    written = json.loads(path.read_text())
    assert written["seed"] == 4 and written["tile_conf"] == 0.3 and written["nms_iou"] == 0.5
    assert not list(tmp_path.glob(".model-*"))  # no temp file left


def _write(tmp_path, d):
    p = tmp_path / "model.json"
    p.write_text(json.dumps(d))
    return p


def test_a_model_with_other_classes_is_refused(tmp_path):
    d = manifest.ModelManifest(detector="d.pt", classifier="c.pt").to_dict()
    d["classes"] = [*CLASS_NAMES[:-1], "flower"]
    with pytest.raises(manifest.ModelFileError, match="differ"):
        manifest.read(_write(tmp_path, d))
    d = manifest.ModelManifest(detector="d.pt", classifier="c.pt").to_dict()
    d["classifier_classes"] = [*CLASS_NAMES, "1f"]  # a 36th class that is a real face, not `other`
    with pytest.raises(manifest.ModelFileError, match="classifier outputs"):
        manifest.read(_write(tmp_path, d))


def test_format_1_reads_with_defaults_and_newer_formats_are_refused(tmp_path):
    old = {"detector": "d.pt", "classifier": "c.pt", "conf": 0.3, "det_imgsz": 384, "classifier_outputs": 36}
    m = manifest.read(_write(tmp_path, old))
    assert m.op.tile_conf == 0.3 and m.classifier_classes[-1] == OTHER
    assert m.op.face_conf == DEFAULT.face_conf and m.op.nms_iou == DEFAULT.nms_iou  # not in the file
    assert m.op.tta_below == DEFAULT.tta_below
    with pytest.raises(manifest.ModelFileError, match="newer"):
        manifest.read(_write(tmp_path, {**old, "format_version": 99}))
    with pytest.raises(manifest.ModelFileError, match="within 0..1"):
        manifest.read(_write(tmp_path, {**old, "tile_conf": 7}))
    with pytest.raises(manifest.ModelFileError, match="nms_iou must be a number"):
        manifest.read(_write(tmp_path, {**old, "nms_iou": "tight"}))
    for name, bad in (
        ("face_conf", True),
        ("tile_conf", "0.5"),
        ("learnt_conf", False),
        ("learnt_conf", -0.1),
        ("tta_below", 1.5),
    ):
        with pytest.raises(manifest.ModelFileError, match=name):  # one check for every threshold
            manifest.read(_write(tmp_path, {**old, name: bad}))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(manifest.ModelFileError, match="cannot read"):
        manifest.read(tmp_path / "bad.json")


def test_loader_refuses_a_classifier_whose_outputs_do_not_match(tmp_path):
    import shutil

    import torch

    from vision.read.detect import load_model
    from vision.read.tilenet import TileNet

    shutil.copy(DEFAULT_MODEL.parent / "tile_detector.pt", tmp_path / "d.pt")
    torch.save(TileNet(num_classes=37).state_dict(), tmp_path / "c.pt")
    manifest.write(tmp_path / "model.json", manifest.ModelManifest(detector="d.pt", classifier="c.pt"))
    with pytest.raises(manifest.ModelFileError, match="37 outputs"):
        load_model(tmp_path / "model.json")


def test_version_changes_with_the_weights_it_names(tmp_path):
    path = manifest.write(
        tmp_path / "model.json", manifest.ModelManifest(detector="det.pt", classifier="missing.pt")
    )
    (tmp_path / "det.pt").write_bytes(b"weights-1")
    v1 = manifest.version_of(path)
    assert v1.startswith("model.json@") and len(v1) == len("model.json@") + 12
    (tmp_path / "det.pt").write_bytes(b"weights-2")  # retrained: same names, new version
    assert manifest.version_of(path) != v1
    bare = tmp_path / "tiny.pt"
    bare.write_bytes(b"x")
    assert manifest.version_of(bare).startswith("tiny.pt@")


def test_the_reader_uses_the_operating_point_of_its_model_json(tmp_path):
    """Thresholds come from model.json alone: a model that says face_conf 0.99 marks more tiles
    unsure, one that says tile_conf 0.99 returns fewer boxes."""
    import shutil

    import numpy as np
    from PIL import Image

    from vision.read.detect import detect

    src = manifest.read(DEFAULT_MODEL)
    files = [name for name in (src.detector, src.classifier, src.flower_gate) if name]
    for name in files:
        shutil.copy(DEFAULT_MODEL.parent / name, tmp_path / name)
    photo = np.asarray(
        Image.open(DEFAULT_MODEL.parents[1] / "tests/fixtures/vision/tiles_grid.jpg").convert("RGB")
    )
    shipped = detect(photo, model=load_model(DEFAULT_MODEL))

    def reading(**change) -> list:
        folder = tmp_path / "-".join(change)
        folder.mkdir()
        for name in files:
            shutil.copy(tmp_path / name, folder / name)
        m = manifest.ModelManifest(**{**src.__dict__, "op": OperatingPoint(**{**src.op.to_json(), **change})})
        return detect(photo, model=load_model(manifest.write(folder / "model.json", m)))

    doubtful = reading(face_conf=0.99)
    assert sum(d.unsure for d in doubtful) > sum(d.unsure for d in shipped)
    assert len(reading(tile_conf=0.99)) < len(shipped)


def test_sources_are_recorded_relative_to_the_repository():
    """A model folder moves between machines: model.json names its training data by relative path."""
    from pathlib import Path

    from vision.train.pipeline import source_name

    sources = json.loads(DEFAULT_MODEL.read_text())["sources"]
    assert sources and not any(Path(s).is_absolute() for s in sources)
    repo = DEFAULT_MODEL.parents[1]
    assert source_name(repo / ".cache" / "synth") == ".cache/synth"
    assert source_name(repo.parent / "shared" / "datasets" / "x") == "../shared/datasets/x"


def test_a_flower_output_is_read_after_other_and_only_there(tmp_path):
    d = manifest.ModelManifest(detector="d.pt", classifier="c.pt").to_dict()
    d["classifier_classes"] = [*CLASS_NAMES, OTHER, FLOWER]
    assert manifest.read(_write(tmp_path, d)).classifier_classes[-2:] == [OTHER, FLOWER]
    d["classifier_classes"] = [*CLASS_NAMES, FLOWER]  # a flower output without `other`
    with pytest.raises(manifest.ModelFileError, match="classifier outputs"):
        manifest.read(_write(tmp_path, d))
