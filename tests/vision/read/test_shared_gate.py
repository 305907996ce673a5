"""A flower gate learnt on the classifier's own first conv blocks (`vision flower-gate --shared-convs`)
reads from the classifier's activations of the crops: the gate's readings as when it reads the crops
whole, with only its own last layers run. A gate whose first blocks are not the classifier's (a
player's adapted classifier beside the base's gate) is read whole, as before."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import numpy as np
import pytest
import torch

from tests.vision.read.test_detect import FIXTURES
from vision.classes import NUM_CLASSES
from vision.read import detect as reader
from vision.read import safe_weights
from vision.read.tilenet import (
    GATE_OUTPUTS,
    TileNet,
    classify_crops,
    flower_probability,
    flower_probability_on_trunk,
    for_reading,
    read_crops,
    shared_convs,
    trunk_end,
)


def _classifier(seed: int = 0) -> TileNet:
    """A TileNet with random weights and batch-norm statistics (so folding them matters)."""
    torch.manual_seed(seed)
    net = TileNet(num_classes=NUM_CLASSES + 1)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
    return net.eval()


def _gate_sharing(classifier: TileNet, convs: int, seed: int = 1) -> TileNet:
    """A gate whose first `convs` conv blocks are the classifier's, the rest its own."""
    torch.manual_seed(seed)
    gate = TileNet(num_classes=GATE_OUTPUTS)
    cut = trunk_end(gate.features, convs)
    own = gate.state_dict()
    theirs = classifier.state_dict()
    gate.load_state_dict(
        {
            k: theirs[k] if k.startswith("features.") and int(k.split(".")[1]) < cut else v
            for k, v in own.items()
        }
    )
    return gate.eval()


def test_the_leading_blocks_of_equal_weights_are_counted_and_the_last_never():
    c = _classifier()
    assert shared_convs(c.state_dict(), _gate_sharing(c, 3).state_dict()) == 3
    assert shared_convs(c.state_dict(), _gate_sharing(c, 5).state_dict()) == 5
    whole = {k: v for k, v in c.state_dict().items() if not k.startswith("head.")}
    assert shared_convs(c.state_dict(), whole) == 5  # every block equal: the gate still runs its last
    moved = _gate_sharing(c, 5).state_dict()
    moved["features.1.running_var"] = moved["features.1.running_var"] * 1.001  # the first block's statistics
    assert shared_convs(c.state_dict(), moved) == 0
    assert shared_convs(c.state_dict(), _classifier(seed=3).state_dict()) == 0


def test_blocks_are_found_in_the_weights_themselves_at_any_width(monkeypatch):
    """shared_convs builds no net (it ran at every model load): it finds each block in the weights."""
    torch.manual_seed(0)
    narrow = TileNet(num_classes=NUM_CLASSES + 1, width=12).eval().state_dict()
    gate = {k: v.clone() for k, v in narrow.items() if not k.startswith("head.")}
    gate["features.11.weight"] = gate["features.11.weight"] + 1  # the fourth block's conv differs

    def no_net(*args, **kwargs):
        raise AssertionError("a TileNet was built to compare two state dicts")

    monkeypatch.setattr(TileNet, "__init__", no_net)
    assert shared_convs(narrow, gate) == 3


def test_the_trunk_ends_where_the_next_conv_starts_folded_or_not():
    raw = TileNet()
    folded = for_reading(raw.eval())
    assert trunk_end(raw.features, 5) == 18 and isinstance(raw.features[18], torch.nn.Conv2d)
    assert trunk_end(folded.features, 5) == 13 and isinstance(folded.features[13], torch.nn.Conv2d)
    assert sum(isinstance(m, torch.nn.Conv2d) for m in folded.features[:13]) == 5
    for convs in (0, 6):
        with pytest.raises(ValueError, match="conv blocks"):
            trunk_end(raw.features, convs)


def test_the_gate_read_on_the_classifiers_trunk_is_the_gate_read_whole():
    c = for_reading(_classifier())
    g = for_reading(_gate_sharing(_classifier(), 5))
    to = trunk_end(g.features, 5)
    crops = np.random.default_rng(0).integers(0, 256, (10, 64, 48, 3), dtype=np.uint8)
    got = read_crops(c, crops, tta_below=0.6, trunk_to=to)
    assert np.allclose(got.probs, classify_crops(c, crops, tta_below=0.6), atol=1e-6)
    asked = torch.tensor([1, 4, 7])
    on_trunk = flower_probability_on_trunk(g, got.trunk[asked], to)
    assert np.allclose(on_trunk, flower_probability(g, crops[[1, 4, 7]]), atol=1e-6)
    assert read_crops(c, crops, tta_below=0.6).trunk is None  # not asked: nothing kept


def _model_with_gate(tmp_path, gate_state: dict) -> object:
    """The shipped model copied into tmp_path with `gate_state` as its flower gate, asked of every box
    it could return, its bar at 0.5."""
    d = json.loads((reader.MODELS_DIR / "model.json").read_text())
    for name in (d["detector"], d["classifier"], "tile_detector.onnx"):
        if (reader.MODELS_DIR / name).is_file():
            shutil.copyfile(reader.MODELS_DIR / name, tmp_path / name)
    torch.save({k: v.half() for k, v in gate_state.items()}, tmp_path / "gate.pt")
    d.update(flower_gate="gate.pt", flower_gate_at_least=0.5, flower_gate_below=1.0)
    (tmp_path / "model.json").write_text(json.dumps(d))
    reader._load_cached.cache_clear()
    return reader.load_model(tmp_path / "model.json")


def _head_reading_flowers_half_the_time(state: dict) -> dict:
    """The shipped classifier's features with a gate head of its own (random, fixed seed)."""
    torch.manual_seed(0)
    head = TileNet(num_classes=GATE_OUTPUTS).head[2]
    out = {k: v.float() for k, v in state.items() if not k.startswith("head.")}
    out["head.2.weight"], out["head.2.bias"] = head.weight.detach() * 20, head.bias.detach()
    return out


def test_a_model_whose_gate_shares_the_classifier_reads_as_with_the_gate_read_whole(tmp_path, monkeypatch):
    shipped = json.loads((reader.MODELS_DIR / "model.json").read_text())
    cls_state = safe_weights.load_state_dict(reader.MODELS_DIR / shipped["classifier"])
    tm = _model_with_gate(tmp_path, _head_reading_flowers_half_the_time(cls_state))
    assert tm.gate_trunk == 13
    whole, ungated = replace(tm, gate_trunk=0), replace(tm, flower_gate=None)
    dropped = 0
    for photo in ("tiles_grid.jpg", "hand_rack.jpg"):
        want = reader.detect(FIXTURES / photo, model=whole)
        with monkeypatch.context() as m:  # the gate's whole pass is never run
            m.setattr(reader, "flower_probability", lambda *a: pytest.fail("the gate read the crops whole"))
            got = reader.detect(FIXTURES / photo, model=tm)
        assert [(d.cls, [round(v, 3) for v in d.xyxy]) for d in got] == [
            (d.cls, [round(v, 3) for v in d.xyxy]) for d in want
        ]
        dropped += len(reader.detect(FIXTURES / photo, model=ungated)) - len(got)
    assert dropped > 0  # the stand-in gate took some boxes for flowers: the comparison saw it work


def test_a_gate_beside_a_classifier_it_does_not_share_is_read_whole(tmp_path):
    shipped = json.loads((reader.MODELS_DIR / "model.json").read_text())
    cls_state = safe_weights.load_state_dict(reader.MODELS_DIR / shipped["classifier"])
    gate = _head_reading_flowers_half_the_time(cls_state)
    gate["features.0.weight"] = gate["features.0.weight"] + 0.01  # as after adapt moved the classifier
    assert _model_with_gate(tmp_path, gate).gate_trunk == 0
    reader._load_cached.cache_clear()


def test_each_crop_nets_weights_are_read_once_when_a_model_loads(tmp_path, monkeypatch):
    """The classifier's file and the gate's are each read once: both reading nets and the check
    whether the gate shares the classifier's blocks are made from the same state dicts."""
    shipped = json.loads((reader.MODELS_DIR / "model.json").read_text())
    cls_state = safe_weights.load_state_dict(reader.MODELS_DIR / shipped["classifier"])
    read: list[str] = []
    real = safe_weights.load_state_dict

    def counted(path):
        read.append(path.name)
        return real(path)

    monkeypatch.setattr(safe_weights, "load_state_dict", counted)
    tm = _model_with_gate(tmp_path, _head_reading_flowers_half_the_time(cls_state))
    assert tm.gate_trunk == 13  # the shared blocks were compared, on the states read once
    assert read.count(shipped["classifier"]) == 1 and read.count("gate.pt") == 1
    reader._load_cached.cache_clear()
