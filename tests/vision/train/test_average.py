"""vision.train.average: the weight average of two detectors, checked tensor by tensor."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from vision.read.detect import MODELS_DIR
from vision.train.average import AverageError, average_detectors, average_states, shares_of

SHIPPED = MODELS_DIR / "tile_detector.pt"


def _shifted_copy(tmp_path: Path, delta: float) -> Path:
    """The shipped detector with every floating weight moved by `delta` (a second 'fine-tune')."""
    from vision.train.average import detector_checkpoint

    ckpt = detector_checkpoint(SHIPPED)
    model = ckpt["model"]
    with torch.no_grad():
        for t in model.state_dict().values():
            if t.is_floating_point():
                t.add_(delta)
    ckpt["model"] = model.half()
    out = tmp_path / "shifted.pt"
    torch.save(ckpt, out)
    return out


def _state(path: Path) -> dict[str, torch.Tensor]:
    from vision.train.average import detector_checkpoint

    return {k: v.float() for k, v in detector_checkpoint(path)["model"].state_dict().items()}


def test_shares_default_to_equal_and_are_checked():
    assert shares_of(2, None) == [0.5, 0.5]
    assert shares_of(3, [0.5, 0.25, 0.25]) == [0.5, 0.25, 0.25]
    for n, shares, word in [
        (1, None, "at least two"),
        (2, [1.0], "one share per"),
        (2, [0.7, 0.7], "sum to 1"),
    ]:
        with pytest.raises(AverageError, match=word):
            shares_of(n, shares)


def test_the_average_lies_between_its_sources_and_integers_come_from_the_first(tmp_path):
    other = _shifted_copy(tmp_path, 0.25)
    out = average_detectors([SHIPPED, other], tmp_path / "avg.pt", shares=[0.75, 0.25])
    a, b, mean = _state(SHIPPED), _state(other), _state(out)
    assert mean.keys() == a.keys()
    moved = 0
    for key, t in mean.items():
        if a[key].is_floating_point() and not key.endswith("num_batches_tracked"):
            expect = (0.75 * a[key] + 0.25 * b[key]).half().float()
            assert torch.allclose(t, expect, atol=2e-3, rtol=2e-3), key
            moved += int(not torch.equal(t, a[key]))
        else:
            assert torch.equal(t, a[key]), key
    assert moved > 100  # the weights did move
    assert out.stat().st_size < 1.2 * SHIPPED.stat().st_size  # fp16, as a finished run is saved


def test_a_detector_averaged_with_itself_reads_as_before(tmp_path):
    import numpy as np

    from vision.read.safe_weights import load_detector

    out = average_detectors([SHIPPED, SHIPPED], tmp_path / "self.pt")
    mean, shipped = _state(out), _state(SHIPPED)
    assert all(torch.equal(mean[k], v) for k, v in shipped.items())
    picture = torch.from_numpy(np.random.default_rng(0).random((1, 3, 384, 384), dtype=np.float32))
    outputs = []
    for path in (SHIPPED, out):
        net = load_detector(path).model.float().eval()
        with torch.no_grad():
            outputs.append(net(picture)[0])
    assert torch.equal(outputs[0], outputs[1])
    recorded = torch.load(out, map_location="cpu", weights_only=False)["train_args"]["average"]
    assert recorded == {"sources": [str(SHIPPED), str(SHIPPED)], "shares": [0.5, 0.5]}


def test_refuses_to_overwrite_a_source_or_mix_architectures(tmp_path):
    other = _shifted_copy(tmp_path, 0.1)
    before = other.read_bytes()
    with pytest.raises(AverageError, match="must not overwrite"):
        average_detectors([SHIPPED, other], other)
    assert other.read_bytes() == before
    a = {"w": torch.zeros(2, 3), "n": torch.tensor(1)}
    with pytest.raises(AverageError, match=r"b\.pt: tensor 'w' is \(3, 2\)"):
        average_states([a, {"w": torch.zeros(3, 2), "n": torch.tensor(1)}], [0.5, 0.5], ["a.pt", "b.pt"])
    with pytest.raises(AverageError, match="not the same architecture"):
        average_states([a, {"w": torch.zeros(2, 3)}], [0.5, 0.5], ["a.pt", "b.pt"])


def test_the_command_writes_the_average_or_says_what_is_wrong(tmp_path, capsys):
    from vision.__main__ import main

    other = _shifted_copy(tmp_path, 0.1)
    assert main(["average", str(SHIPPED), str(other), "--out", str(tmp_path / "avg.pt")]) == 0
    assert "averaged detector:" in capsys.readouterr().out
    assert (
        main(["average", str(SHIPPED), str(other), "--out", str(tmp_path / "b.pt"), "--shares", "0.9"]) == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "one share per detector" in err
    assert main(["average", str(SHIPPED), str(tmp_path / "missing.pt"), "--out", str(tmp_path / "c.pt")]) == 2
    assert "missing.pt" in capsys.readouterr().err
    assert not (tmp_path / "b.pt").exists() and not (tmp_path / "c.pt").exists()
