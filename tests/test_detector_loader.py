"""page.detector_loader: a detector from a plugged-in function or a model file, and its version string."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

import numpy as np

from page.detector_loader import Detector, model_detector, model_version, plugin_detector


def fake_run(rgb: np.ndarray) -> list:
    return [("seen", rgb.shape)]


def test_plugin_detector_calls_the_named_function():
    det = plugin_detector("tests.test_detector_loader:fake_run")
    assert isinstance(det, Detector) and det.version == "plugin:tests.test_detector_loader:fake_run"
    assert det.run(np.zeros((2, 3, 3), np.uint8)) == [("seen", (2, 3, 3))]


def test_model_version_hashes_the_file_and_the_weights_it_names(tmp_path):
    model = tmp_path / "model.json"
    model.write_bytes(b"{}")
    (tmp_path / "det.pt").write_bytes(b"weights-1")
    only_file = model_version(model, {})
    assert only_file == f"model.json@{hashlib.sha256(b'{}').hexdigest()[:12]}"
    with_weights = model_version(model, {"detector": "det.pt", "classifier": "missing.pt"})
    assert with_weights != only_file and with_weights.startswith("model.json@")
    (tmp_path / "det.pt").write_bytes(b"weights-2")  # retrained: same names, new version
    assert model_version(model, {"detector": "det.pt"}) != with_weights


def test_model_detector_loads_with_vision_detect(tmp_path, monkeypatch):
    import vision.detect

    model = tmp_path / "model.json"
    model.write_bytes(b"{}")
    loaded = SimpleNamespace(meta={})
    monkeypatch.setattr(vision.detect, "load_model", lambda path: loaded)
    monkeypatch.setattr(vision.detect, "detect", lambda rgb, model: [("by", model is loaded)])
    det = model_detector(str(model))
    assert det.version == model_version(model, {}) and det.run(np.zeros((1, 1, 3), np.uint8)) == [
        ("by", True)
    ]
