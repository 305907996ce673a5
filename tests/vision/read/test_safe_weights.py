"""Model files are loaded without unpickling code, and model.json names only files in its own folder."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import torch

from vision.read import manifest, safe_weights
from vision.read.detect import DEFAULT_MODEL, load_model
from vision.read.tilenet import TileNet

SHIPPED = DEFAULT_MODEL.parent


class _Payload:
    """Unpickles as a shell command that creates `marker` (what a hostile .pt does)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch '{self.marker}'",))


def _hostile_pt(path: Path, marker: Path, legacy: bool = False) -> Path:
    kw = {"_use_new_zipfile_serialization": False} if legacy else {}
    torch.save({"model": _Payload(marker), "ema": None}, path, **kw)
    return path


def _model_folder(
    tmp_path: Path, detector: str = "tile_detector.pt", classifier: str = "tile_classifier.pt"
) -> Path:
    """A copy of the shipped model folder whose model.json names `detector` and `classifier`."""
    folder = tmp_path / "model"
    folder.mkdir()
    doc = json.loads(DEFAULT_MODEL.read_text(encoding="utf-8"))
    for name in ("tile_detector.pt", "tile_classifier.pt", doc.get("flower_gate")):
        if name:
            shutil.copy(SHIPPED / name, folder / name)
    doc.update(detector=detector, classifier=classifier)
    (folder / "model.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder / "model.json"


def _refused(path: Path, match: str) -> str:
    with pytest.raises(ValueError, match=match) as err:
        load_model(path)
    text = str(err.value)
    assert "\n" not in text, text
    return text


def test_hostile_detector_named_by_model_json_is_refused_unrun(tmp_path):
    marker = tmp_path / "ran"
    model = _model_folder(tmp_path, detector="evil.pt")
    _hostile_pt(model.parent / "evil.pt", marker)
    text = _refused(model, "refused, loading it would run code")
    assert "posix.system" in text and not marker.exists()


def test_hostile_bare_detector_is_refused_unrun(tmp_path):
    marker = tmp_path / "ran"
    _refused(_hostile_pt(tmp_path / "evil.pt", marker), "refused")
    assert not marker.exists()


def test_hostile_legacy_pickle_is_refused_unrun(tmp_path):
    marker = tmp_path / "ran"
    _refused(_hostile_pt(tmp_path / "old.pt", marker, legacy=True), "not a readable torch checkpoint")
    assert not marker.exists()


def test_the_load_itself_is_restricted_even_without_the_scan(tmp_path, monkeypatch):
    """Defence in depth: with the name scan switched off, the unpickler still refuses the payload."""
    marker = tmp_path / "ran"
    monkeypatch.setattr(safe_weights, "check_detector", lambda path: None)
    _refused(_hostile_pt(tmp_path / "evil.pt", marker), "not a loadable detector")
    assert not marker.exists()


def test_hostile_classifier_is_refused_unrun(tmp_path):
    marker = tmp_path / "ran"
    model = _model_folder(tmp_path, classifier="evil.pt")
    _hostile_pt(model.parent / "evil.pt", marker)
    text = _refused(model, "a classifier file holds tensors only")
    assert "posix.system" in text and not marker.exists()


def test_a_pickled_module_as_classifier_is_refused(tmp_path):
    model = _model_folder(tmp_path, classifier="whole.pt")
    torch.save(TileNet(num_classes=36), model.parent / "whole.pt")
    _refused(model, "refused")


@pytest.mark.parametrize("name", ["../tile_detector.pt", "/etc/passwd", "sub/../../x.pt", "", "a\\..\\b.pt"])
def test_weights_outside_the_model_folder_are_refused(tmp_path, name):
    model = _model_folder(tmp_path, detector=name)
    shutil.copy(SHIPPED / "tile_detector.pt", tmp_path / "tile_detector.pt")
    _refused(model, "outside the model's folder|not a file name|must be the weights file's name")
    with pytest.raises(manifest.ModelFileError):
        manifest.version_of(model)


def test_a_symlink_leading_out_of_the_folder_is_refused(tmp_path):
    marker = tmp_path / "ran"
    outside = _hostile_pt(tmp_path / "elsewhere.pt", marker)
    model = _model_folder(tmp_path, detector="linked.pt")
    (model.parent / "linked.pt").symlink_to(outside)
    _refused(model, r"leads outside the model's folder \(a link\)")
    assert not marker.exists()


def test_a_subfolder_inside_the_model_folder_is_fine(tmp_path):
    model = _model_folder(tmp_path, detector="w/det.pt")
    (model.parent / "w").mkdir()
    shutil.move(model.parent / "tile_detector.pt", model.parent / "w" / "det.pt")
    assert manifest.weights_path(model, "w/det.pt") == model.parent.resolve() / "w" / "det.pt"


def test_shipped_model_loads_restricted_and_reads_as_before(tmp_path):
    """The shipped files pass the scan and the restricted loader, and the process switch is restored."""
    from ultralytics.nn import tasks

    before = tasks.SAFE_LOAD
    assert safe_weights.unsafe_globals(SHIPPED / "tile_classifier.pt") == []
    safe_weights.check_detector(SHIPPED / "tile_detector.pt")
    model = _model_folder(tmp_path)
    tm = load_model(model)
    assert tm.two_stage and before == tasks.SAFE_LOAD


def test_an_ultralytics_without_the_restricted_loader_is_refused(tmp_path, monkeypatch):
    """Never fall back to a full unpickle: an ultralytics too old for weights_only loading is an error."""
    from ultralytics.nn import tasks

    monkeypatch.delattr(tasks, "_SafeLoad")
    text = _refused(_model_folder(tmp_path), "cannot load weights without unpickling code")
    assert "8.4.190" in text
