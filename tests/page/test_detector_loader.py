"""page.detector_loader: a detector from a plugged-in function or a model file, and its version string."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from page.detector_loader import Detector, model_detector, plugin_detector
from vision.read import manifest


def fake_run(rgb: np.ndarray) -> list:
    return [("seen", rgb.shape)]


def test_plugin_detector_calls_the_named_function():
    det = plugin_detector("tests.page.test_detector_loader:fake_run")
    assert isinstance(det, Detector) and det.version == "plugin:tests.page.test_detector_loader:fake_run"
    assert det.run(np.zeros((2, 3, 3), np.uint8)) == [("seen", (2, 3, 3))]


def test_model_detector_loads_with_vision_detect(tmp_path, monkeypatch):
    import vision.read.detect

    model = manifest.write(tmp_path / "model.json", manifest.ModelManifest(detector="det.pt"))
    loaded = SimpleNamespace(meta={})
    monkeypatch.setattr(vision.read.detect, "load_model", lambda path: loaded)
    monkeypatch.setattr(vision.read.detect, "detect", lambda rgb, model: [("by", model is loaded)])
    det = model_detector(str(model))
    assert det.version == manifest.version_of(model) and det.run(np.zeros((1, 1, 3), np.uint8)) == [
        ("by", True)
    ]
