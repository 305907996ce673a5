"""`python -m vision flower-gate` (vision.train.flower_gate): the gate is learnt on some train
photos, its bar chosen on the others, and the model written beside it reads with it."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from tests.vision.train.test_train import _make_dataset
from vision.__main__ import main
from vision.classes import CLASS_ID
from vision.read import manifest, safe_weights
from vision.read.detect import MODELS_DIR, load_model
from vision.read.tilenet import shared_convs
from vision.train import flower_gate
from vision.train.crops import SRC_H, SRC_W, as_read
from vision.train.strongest_channels import strongest_channels


def test_the_bar_is_the_lowest_at_which_the_held_out_tiles_stay_within_budget():
    scores = np.array([0.1] * 3996 + [0.62, 0.71, 0.88, 0.97])
    assert flower_gate.gate_bar(scores, budget=1 / 2000) == 0.72  # two of 4,000 may read as flowers
    assert flower_gate.gate_bar(scores, budget=0.0) == 0.98
    assert flower_gate.gate_bar(np.array([0.999]), budget=0.0) == 1.0  # no bar holds: never a flower


def test_the_gate_is_asked_below_the_lowest_face_certainty_that_loses_no_caught_flower():
    faces = np.array([0.5, 0.93, 0.97, 0.999])
    scores = np.array([0.99, 0.95, 0.2, 0.1])  # the first two caught at 0.9
    assert flower_gate.asked_below(faces, scores, bar=0.9) == 0.95
    assert flower_gate.asked_below(faces, np.array([0.99, 0.95, 0.95, 0.1]), bar=0.9) == 0.98
    assert flower_gate.asked_below(faces, np.array([0.1, 0.1, 0.1, 0.99]), bar=0.9) == 1.0


def test_the_held_out_photos_are_a_seeded_fifth_drawn_by_photo():
    a, b = flower_gate.held_photos(100, seed=0), flower_gate.held_photos(100, seed=0)
    assert a.tolist() == b.tolist() and len(a) == 20 and len(set(a.tolist())) == 20
    assert a.tolist() != flower_gate.held_photos(100, seed=1).tolist()


def _tiny_crops(n_tiles: int = 48, n_flowers: int = 8) -> flower_gate.GateCrops:
    """Random wide crops: tiles of 1p and 2m on photos 0..3, flowers on photos 0..3."""
    rng = np.random.default_rng(0)
    wide = (SRC_H, SRC_W, 3)
    return flower_gate.GateCrops(
        rng.integers(0, 256, (n_tiles, *wide), dtype=np.uint8),
        np.array([CLASS_ID["1p"], CLASS_ID["2m"]] * (n_tiles // 2)),
        np.arange(n_tiles) % 4,
        rng.integers(0, 256, (n_flowers, *wide), dtype=np.uint8),
        np.arange(n_flowers) % 4,
        4,
    )


def test_a_gate_sharing_the_classifiers_blocks_learns_only_its_own_layers():
    """--shared-convs 5: the first five conv blocks come out the classifier's, byte for byte once
    stored as the weights file stores them, so the reader shares them (tilenet.shared_convs)."""
    init = MODELS_DIR / "tile_classifier.pt"
    cls_state = safe_weights.load_state_dict(init)
    net = flower_gate.train_gate(
        _tiny_crops(), init, held=np.array([3]), epochs=1, log=lambda _: None, shared=5
    )
    stored = {k: v.detach().half() for k, v in net.state_dict().items()}
    assert shared_convs(cls_state, stored) == 5
    learnt = net.state_dict()["features.18.weight"]  # its own last block learnt (one small step)
    assert not torch.equal(learnt, cls_state["features.18.weight"].float())
    whole = flower_gate.train_gate(_tiny_crops(), init, held=np.array([3]), epochs=1, log=lambda _: None)
    assert shared_convs(cls_state, {k: v.detach().half() for k, v in whole.state_dict().items()}) == 0
    with pytest.raises(ValueError, match="width"):
        flower_gate.train_gate(
            _tiny_crops(), init, np.array([3]), epochs=1, log=lambda _: None, width=8, shared=5
        )


def test_a_narrower_gate_starts_from_the_wide_gates_strongest_channels(tmp_path):
    """--width 16 --from-gate: before any step the narrow gate is the shipped gate's strongest
    channels (lr 0 keeps them); a classifier is refused as the start, and so is a start without a
    narrower width."""
    init = MODELS_DIR / "tile_classifier.pt"
    wide = MODELS_DIR / "flower_gate.pt"
    net = flower_gate.train_gate(
        _tiny_crops(), init, np.array([3]), epochs=1, lr=0.0, log=lambda _: None, width=16, start=wide
    )
    cut = strongest_channels(safe_weights.load_state_dict(wide), 16)
    for key, value in cut.items():
        if not key.endswith(
            ("running_mean", "running_var", "num_batches_tracked")
        ):  # a step in train mode moves these
            assert torch.equal(net.state_dict()[key], value), key
    with pytest.raises(ValueError, match="not a flower gate"):
        flower_gate.train_gate(
            _tiny_crops(), init, np.array([3]), epochs=1, log=lambda _: None, width=16, start=init
        )
    with pytest.raises(ValueError, match="needs --from-gate"):
        flower_gate.train_gate(
            _tiny_crops(), init, np.array([3]), epochs=1, log=lambda _: None, width=16, imitate=0.5
        )
    with pytest.raises(ValueError, match="from 0 to 1"):
        flower_gate.train_gate(
            _tiny_crops(),
            init,
            np.array([3]),
            epochs=1,
            log=lambda _: None,
            width=16,
            start=wide,
            imitate=1.5,
        )
    with pytest.raises(ValueError, match="needs --width"):
        flower_gate.train_gate(_tiny_crops(), init, np.array([3]), epochs=1, log=lambda _: None, start=wide)


def test_a_gate_imitating_the_wide_one_comes_nearer_its_answers_than_one_learning_the_labels_alone():
    """--imitate 1: the loss is only how far the narrow gate's answers are from the wide gate's, so
    a few steps on random crops (their labels unrelated to what the wide gate answers) leave it
    nearer the wide gate's answers than the same steps on the labels alone."""
    init, wide = MODELS_DIR / "tile_classifier.pt", MODELS_DIR / "flower_gate.pt"
    crops = _tiny_crops()
    teacher = flower_gate._teacher(safe_weights.load_state_dict(wide))
    x = torch.from_numpy(as_read(crops.tiles)).permute(0, 3, 1, 2).float().div(255)
    with torch.inference_mode():
        aim = torch.softmax(teacher(x), 1)[:, 1]

    def apart(imitate: float) -> float:
        net = flower_gate.train_gate(
            crops,
            init,
            np.array([3]),
            epochs=3,
            lr=2e-3,
            log=lambda _: None,
            width=16,
            start=wide,
            imitate=imitate,
        )
        with torch.inference_mode():
            return float((torch.softmax(net(x), 1)[:, 1] - aim).abs().mean())

    assert apart(1.0) < apart(0.0)


def _flower_listing(src, path):
    """Every 5p tile of the tiny set's train photos listed as a flower (a blue mark, as a stand-in)."""
    boxes = []
    for label in sorted((src / "train" / "labels").glob("*.txt")):
        for line in label.read_text().split("\n"):
            if line.startswith(f"{CLASS_ID['5p']} "):
                _, cx, cy, w, h = (float(v) for v in line.split())
                boxes.append(
                    {"image": label.stem + ".png", "box": [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]}
                )
    path.write_text(json.dumps({"split": "train", "boxes": boxes}))
    return path


@pytest.mark.slow
def test_the_command_writes_a_model_that_reads_with_its_gate(tmp_path, capsys):
    src = _make_dataset(tmp_path / "ds", n=10)
    listing = _flower_listing(src, tmp_path / "flowers.json")
    out = tmp_path / "gated"
    code = main(
        ["flower-gate", "--boxes", str(listing), "--data", str(src), "--out", str(out), "--epochs", "1"]
    )
    assert code == 0, capsys.readouterr().err
    m = manifest.read(out / "model.json")
    assert m.flower_gate == manifest.FLOWER_GATE_FILE and 0.5 <= m.op.flower_gate_at_least <= 1.0
    assert m.op.flower_gate_below in flower_gate.ASK_BELOW
    made = m.extra["flower_gate_from"]
    assert made["held_photos"] == 2 and made["held_tiles"] == 6 and made["held_flowers"] == 2
    shipped = manifest.read(MODELS_DIR / "model.json")
    assert m.op.tile_conf == shipped.op.tile_conf and m.classifier_classes == shipped.classifier_classes
    assert load_model(out / "model.json").flower_gate is not None
    assert not (MODELS_DIR / manifest.FLOWER_GATE_FILE).exists() or shipped.flower_gate


def test_a_listing_naming_a_photo_the_set_lacks_is_refused_in_words(tmp_path, capsys):
    src = _make_dataset(tmp_path / "ds", n=1)
    listing = tmp_path / "l.json"
    listing.write_text(
        json.dumps({"split": "train", "boxes": [{"image": "gone.png", "box": [0, 0, 0.5, 0.5]}]})
    )
    code = main(["flower-gate", "--boxes", str(listing), "--data", str(src), "--out", str(tmp_path / "o")])
    assert code == 2 and "gone.png" in capsys.readouterr().err
    assert main(["flower-gate", "--data", str(tmp_path / "nothing"), "--out", str(tmp_path / "o")]) == 2
    assert "no train split" in capsys.readouterr().err
