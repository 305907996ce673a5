"""model.json format 2: classes recorded and checked, old files read with safe defaults."""

import json

import pytest

from vision import manifest
from vision.classes import CLASS_NAMES, OTHER
from vision.detect import DEFAULT_MODEL


def test_shipped_model_json_is_format_2_with_the_one_vocabulary():
    m = manifest.read(DEFAULT_MODEL)
    assert m.format_version == manifest.FORMAT_VERSION
    assert m.classes == list(CLASS_NAMES)
    assert m.classifier_classes == [*CLASS_NAMES, OTHER]
    assert 0 < m.tile_conf < 1 and 0 < m.face_conf < 1


def test_round_trip(tmp_path):
    m = manifest.ModelManifest(detector="d.pt", classifier="c.pt", tile_conf=0.3, extra={"seed": 4})
    path = manifest.write(tmp_path / "model.json", m)
    back = manifest.read(path)
    assert back == m
    assert json.loads(path.read_text())["seed"] == 4
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
    assert m.tile_conf == 0.3 and m.classifier_classes[-1] == OTHER
    with pytest.raises(manifest.ModelFileError, match="newer"):
        manifest.read(_write(tmp_path, {**old, "format_version": 99}))
    with pytest.raises(manifest.ModelFileError, match="within 0..1"):
        manifest.read(_write(tmp_path, {**old, "tile_conf": 7}))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(manifest.ModelFileError, match="cannot read"):
        manifest.read(tmp_path / "bad.json")


def test_loader_refuses_a_classifier_whose_outputs_do_not_match(tmp_path):
    import shutil

    import torch

    from vision.detect import load_model
    from vision.tilenet import TileNet

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
