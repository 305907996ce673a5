"""`python -m vision adapt`: a tiny end-to-end run on committed fixture photos saved as the page saves
them, plus the refusals (models/ never written, wrong classes, nothing to learn)."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from vision import data, labelstore
from vision.adapt import AdaptConfig, AdaptError, adapt, read_progress
from vision.detect import DEFAULT_MODEL, MODELS_DIR, detect, load_model
from vision.imageio import load_image

FIXTURES = Path(__file__).parents[1] / "fixtures" / "vision"
REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # every test here trains or runs the CLI


def _saved_photos(root: Path) -> Path:
    """Both fixture photos saved through the page's own writer (vision.labelstore)."""
    from vision.classes import CLASS_NAMES

    for name in ("hand_rack", "tiles_grid"):
        rgb = load_image(FIXTURES / f"{name}.jpg")
        h, w = rgb.shape[:2]
        boxes = [
            labelstore.LabelBox(CLASS_NAMES[b.cls], b.xyxy(w, h))
            for b in data.read_labels(FIXTURES / f"{name}.txt")
        ]
        labelstore.save_example(rgb, boxes, root, source_name=name)
    return root


def _models_digest() -> str:
    h = hashlib.sha256()
    for p in sorted(MODELS_DIR.iterdir()):
        if p.suffix == ".md":  # the model card is prose, edited by people
            continue
        h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()


def test_adapt_end_to_end_writes_a_loadable_model_and_never_touches_models(tmp_path):
    before = _models_digest()
    saved = _saved_photos(tmp_path / "labelled")
    out = tmp_path / "mine"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "vision",
            "adapt",
            str(saved),
            "--out",
            str(out),
            "--steps",
            "6",
            "--views",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "personal model" in proc.stdout
    progress = read_progress(out)
    assert progress["done"] and progress["error"] is None and progress["fraction"] == 1.0
    meta = json.loads((out / "model.json").read_text())
    assert meta["adapt"]["photos"] == 2 and meta["adapt"]["tiles"] > 20
    assert meta["adapted_from"].startswith("model.json@")
    model = load_model(out / "model.json")
    assert model.two_stage and model.tile_conf == load_model(DEFAULT_MODEL).tile_conf
    dets = detect(FIXTURES / "hand_rack.jpg", model=model)
    assert len(dets) > 5
    assert _models_digest() == before


def test_adapt_is_seeded(tmp_path):
    saved = _saved_photos(tmp_path / "labelled")
    cfg = AdaptConfig(steps=3, seed=1, player_views=2, bank_views=1)
    a = adapt(saved, tmp_path / "a", config=cfg)
    b = adapt(saved, tmp_path / "b", config=cfg)
    import torch

    sa = torch.load(a.parent / "tile_classifier.pt", weights_only=True)
    sb = torch.load(b.parent / "tile_classifier.pt", weights_only=True)
    assert all(torch.equal(sa[k], sb[k]) for k in sa)


def test_refusals(tmp_path):
    saved = _saved_photos(tmp_path / "labelled")
    with pytest.raises(AdaptError, match="inside models"):
        adapt(saved, MODELS_DIR / "personal", config=AdaptConfig(steps=1, player_views=1, bank_views=1))
    assert not (MODELS_DIR / "personal").exists()
    empty = tmp_path / "empty"
    labelstore.ensure_dataset(empty)
    with pytest.raises(AdaptError, match="no saved photo"):
        adapt(empty, tmp_path / "o1", config=AdaptConfig(steps=1, player_views=1, bank_views=1))
    assert read_progress(tmp_path / "o1")["error"]  # the page learns what went wrong
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "data.yaml").write_text("names: [a, b]\ntrain: images\n")
    with pytest.raises(AdaptError, match="classes"):
        adapt(foreign, tmp_path / "o2", config=AdaptConfig(steps=1, player_views=1, bank_views=1))
    done = adapt(saved, tmp_path / "o3", config=AdaptConfig(steps=1, player_views=1, bank_views=1))
    with pytest.raises(AdaptError, match="already holds"):
        adapt(saved, done.parent, config=AdaptConfig(steps=1, player_views=1, bank_views=1))


def test_cli_reports_bad_input_in_one_line(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "vision", "adapt", str(tmp_path / "missing"), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "data.yaml" in proc.stderr
