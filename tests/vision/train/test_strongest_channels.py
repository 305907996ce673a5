"""A narrower TileNet cut from a wider one's strongest channels (vision.train.strongest_channels)."""

from __future__ import annotations

import pytest
import torch

from vision.read.tilenet import TileNet
from vision.train.strongest_channels import strongest_channels


def _wide_with_dead_channels(seed: int = 0) -> tuple[TileNet, TileNet]:
    """A width-24 net whose channels outside a random width-16 choice are silenced (batch-norm scale
    and shift 0: they pass nothing on), and the width-16 net those live channels make by hand."""
    gen = torch.Generator().manual_seed(seed)
    wide, narrow = TileNet(num_classes=2, width=24), TileNet(num_classes=2, width=16)
    for p in wide.parameters():
        torch.nn.init.normal_(p, generator=gen)
    convs = [i for i, m in enumerate(wide.features) if isinstance(m, torch.nn.Conv2d)]
    kept_in = torch.arange(3)
    for i in convs:
        conv, norm = wide.features[i], wide.features[i + 1]
        size = narrow.features[i].out_channels
        kept = torch.sort(torch.randperm(conv.out_channels, generator=gen)[:size]).values
        dead = torch.ones(conv.out_channels, dtype=torch.bool)
        dead[kept] = False
        with torch.no_grad():
            norm.weight[dead] = 0
            norm.bias[dead] = 0
            norm.running_mean.uniform_(-0.5, 0.5, generator=gen)
            norm.running_var.uniform_(0.5, 2.0, generator=gen)
            narrow.features[i].weight.copy_(conv.weight[kept][:, kept_in])
            for part in ("weight", "bias", "running_mean", "running_var"):
                getattr(narrow.features[i + 1], part).copy_(getattr(norm, part)[kept])
        kept_in = kept
    cols = (kept_in[:, None] * 12 + torch.arange(12)[None, :]).flatten()
    with torch.no_grad():
        narrow.head[2].weight.copy_(wide.head[2].weight[:, cols])
        narrow.head[2].bias.copy_(wide.head[2].bias)
    return wide.eval(), narrow.eval()


def test_a_net_whose_weak_channels_pass_nothing_reads_the_same_cut_down() -> None:
    wide, by_hand = _wide_with_dead_channels()
    cut = TileNet(num_classes=2, width=16)
    cut.load_state_dict(strongest_channels(wide.state_dict(), 16))
    cut.eval()
    x = torch.rand(5, 3, 64, 48, generator=torch.Generator().manual_seed(1))
    with torch.inference_mode():
        assert torch.allclose(cut(x), wide(x), atol=1e-4, rtol=1e-4)
        assert torch.allclose(cut(x), by_hand(x), atol=1e-5, rtol=1e-5)
    for key, value in by_hand.state_dict().items():
        assert torch.equal(cut.state_dict()[key], value), key


def test_only_a_narrower_net_can_be_cut() -> None:
    state = TileNet(num_classes=2, width=12).state_dict()
    for width in (12, 16, 0):
        with pytest.raises(ValueError, match="must be narrower"):
            strongest_channels(state, width)
    assert strongest_channels(state, 8)["features.0.weight"].shape == (8, 3, 3, 3)
