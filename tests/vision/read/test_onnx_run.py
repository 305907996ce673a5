"""The shipped detector reads on ONNX Runtime exactly as torch reads it, and only while its export
was made from the weights beside it (vision.read.onnx_run)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.read import detect as reader
from vision.read import onnx_run

FIXTURES = Path(__file__).parents[2] / "fixtures" / "vision"
SAMPLE = Path(__file__).parents[3] / "datasets" / "samples" / "winning-hand.jpg"
MODELS = reader.DEFAULT_MODEL.parent
needs_model = pytest.mark.skipif(not reader.DEFAULT_MODEL.is_file(), reason="no shipped model in models/")


def _fresh(path: Path, monkeypatch, torch_only: bool) -> reader.TileModel:
    """The model at `path` loaded now (not the process's cached one), with or without the exports."""
    if torch_only:
        monkeypatch.setenv(onnx_run.TORCH_ONLY_ENV, "1")
    else:
        monkeypatch.delenv(onnx_run.TORCH_ONLY_ENV, raising=False)
    return reader._load_cached.__wrapped__(str(path))


@pytest.fixture
def model_copy(tmp_path) -> Path:
    """A copy of the shipped model folder (weights, export, model.json) that a test may damage."""
    folder = tmp_path / "model"
    shutil.copytree(MODELS, folder, ignore=shutil.ignore_patterns("*.md", "replay_*"))
    return folder


@needs_model
def test_the_shipped_export_was_made_from_the_shipped_weights():
    weights = MODELS / "tile_detector.pt"
    assert onnx_run.session_for(weights) is not None, "models/: run `python -m vision export-onnx`"
    assert not onnx_run.export_path(MODELS / "tile_classifier.pt").exists()  # torch reads it faster


@needs_model
@pytest.mark.parametrize("photo", [FIXTURES / "tiles_grid.jpg", SAMPLE], ids=["grid", "sample"])
def test_onnx_runtime_reads_as_torch_does(photo, monkeypatch):
    fast = _fresh(reader.DEFAULT_MODEL, monkeypatch, torch_only=False)
    slow = _fresh(reader.DEFAULT_MODEL, monkeypatch, torch_only=True)
    assert isinstance(fast.detector, onnx_run.OnnxDetector)
    assert not isinstance(slow.detector, onnx_run.OnnxDetector)
    a, b = reader.detect(photo, model=fast), reader.detect(photo, model=slow)
    assert len(a) >= 10
    assert [d.cls for d in a] == [d.cls for d in b]
    assert np.abs(np.array([d.xyxy for d in a]) - np.array([d.xyxy for d in b])).max() < 0.05
    assert np.abs(np.array([d.tile_conf for d in a]) - np.array([d.tile_conf for d in b])).max() < 1e-3
    assert [d.unsure for d in a] == [d.unsure for d in b]


@needs_model
def test_a_squeezed_view_reads_as_torch_does(monkeypatch):
    """The detector's views vary in shape (squeezed 4x, 8x): the export takes any size."""
    from PIL import Image

    img = np.asarray(Image.open(FIXTURES / "tiles_grid.jpg").convert("RGB"))
    fast = _fresh(reader.DEFAULT_MODEL, monkeypatch, torch_only=False)
    slow = _fresh(reader.DEFAULT_MODEL, monkeypatch, torch_only=True)
    for squeeze in ((4, 1), (1, 8)):
        view, _, _ = reader._detector_view(img, 384, squeeze)
        a = reader._boxes_of(fast.detector, view, 384, 0.05, 0.6)
        b = reader._boxes_of(slow.detector, view, 384, 0.05, 0.6)
        assert len(a[0]) == len(b[0])
        if len(a[0]):
            assert np.abs(a[0] - b[0]).max() < 0.05 and np.abs(a[1] - b[1]).max() < 1e-3


@needs_model
def test_an_export_of_other_weights_is_not_used(model_copy, monkeypatch):
    folder = model_copy
    assert isinstance(_fresh(folder / "model.json", monkeypatch, False).detector, onnx_run.OnnxDetector)
    onnx_run.stamp(folder / "tile_detector.onnx", folder / "tile_classifier.pt")  # names other weights
    assert not isinstance(_fresh(folder / "model.json", monkeypatch, False).detector, onnx_run.OnnxDetector)
    (folder / "tile_detector.onnx").write_bytes(b"not a model")  # damaged: torch reads the weights
    assert not isinstance(_fresh(folder / "model.json", monkeypatch, False).detector, onnx_run.OnnxDetector)


@needs_model
def test_the_export_names_the_classes_and_stride_of_its_weights(monkeypatch):
    """Names and stride come from the export's metadata, no torch load: the weights' own."""
    fast = _fresh(reader.DEFAULT_MODEL, monkeypatch, torch_only=False).detector
    slow = _fresh(reader.DEFAULT_MODEL, monkeypatch, torch_only=True).detector
    assert fast.names == dict(slow.names)
    assert fast.stride == int(max(slow.model.stride))


@needs_model
def test_an_export_without_ultralytics_metadata_is_read_with_torch(model_copy, monkeypatch):
    onnx = pytest.importorskip("onnx")
    folder = model_copy
    model = onnx.load(str(folder / "tile_detector.onnx"))
    kept = [p for p in model.metadata_props if p.key not in ("names", "stride")]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    onnx.save(model, str(folder / "tile_detector.onnx"))
    assert onnx_run.session_for(folder / "tile_detector.pt") is not None  # still stamped
    tm = _fresh(folder / "model.json", monkeypatch, torch_only=False)
    assert not isinstance(tm.detector, onnx_run.OnnxDetector)
    assert len(reader.detect(SAMPLE, model=tm)) >= 10


@needs_model
def test_weights_rewritten_in_place_are_hashed_again(model_copy, monkeypatch):
    """The stamp check hashes each version of the weights once: the same file is not hashed again,
    but weights rewritten at the same path (a retrain) are, and their old export is not used."""
    weights = model_copy / "tile_detector.pt"
    hashed: list[Path] = []
    real = onnx_run.sha256_of
    monkeypatch.setattr(onnx_run, "sha256_of", lambda p: hashed.append(p) or real(p))
    assert onnx_run.session_for(weights) is not None
    assert onnx_run.session_for(weights) is not None
    assert len(hashed) == 1
    entries = len(onnx_run._HASHED)
    with weights.open("r+b") as f:  # same size, same inode, other bytes
        f.seek(-1, 2)
        last = f.read(1)
        f.seek(-1, 2)
        f.write(bytes([last[0] ^ 1]))
    assert onnx_run.session_for(weights) is None
    assert len(hashed) == 2
    assert len(onnx_run._HASHED) == entries  # the new version replaced the old one's entry


@needs_model
def test_torch_only_reads_with_torch(monkeypatch):
    tm = _fresh(reader.DEFAULT_MODEL, monkeypatch, torch_only=True)
    assert not isinstance(tm.detector, onnx_run.OnnxDetector)


@pytest.mark.slow
@needs_model
def test_export_onnx_writes_the_detector_beside_a_models_weights(tmp_path, monkeypatch):
    pytest.importorskip("onnx")
    from vision.__main__ import main

    folder = tmp_path / "model"
    shutil.copytree(MODELS, folder, ignore=shutil.ignore_patterns("*.md", "replay_*", "*.onnx"))
    assert not isinstance(_fresh(folder / "model.json", monkeypatch, False).detector, onnx_run.OnnxDetector)
    assert main(["export-onnx", "--model", str(folder / "model.json")]) == 0
    tm = _fresh(folder / "model.json", monkeypatch, torch_only=False)
    assert isinstance(tm.detector, onnx_run.OnnxDetector)
    slow = _fresh(folder / "model.json", monkeypatch, torch_only=True)
    a, b = reader.detect(SAMPLE, model=tm), reader.detect(SAMPLE, model=slow)
    assert [d.cls for d in a] == [d.cls for d in b] and len(a) >= 10
    onnx_run.copy_export(folder / "tile_detector.pt", tmp_path / "tile_detector.pt")  # a player's copy
    assert (tmp_path / "tile_detector.onnx").read_bytes() == (folder / "tile_detector.onnx").read_bytes()


def test_an_export_that_cannot_be_made_leaves_no_file_and_the_weights_read_with_torch(tmp_path, monkeypatch):
    """adapt exports a player's learnt detector where it can; an exporter that fails (or no `onnx`
    package) leaves nothing beside the weights, so the reader loads them with torch as before."""
    import builtins

    weights = tmp_path / "learnt_detector.pt"
    weights.write_bytes(b"weights")

    def broken(w, imgsz):
        onnx_run.export_path(w).write_bytes(b"half an export")
        raise RuntimeError("exporter failed")

    monkeypatch.setattr(onnx_run, "export_detector", broken)
    assert onnx_run.export_if_possible(weights, 384) is None
    assert not onnx_run.export_path(weights).exists()
    real_import = builtins.__import__

    def no_onnx(name, *args, **kwargs):
        if name == "onnx":
            raise ImportError("no onnx here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_onnx)
    assert onnx_run.export_if_possible(weights, 384) is None
    assert not onnx_run.export_path(weights).exists()
