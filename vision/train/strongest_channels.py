"""A narrower TileNet started from a wider one: each conv layer keeps its strongest channels.

Why: the flower gate is a whole width-24 TileNet run over most of a photo's crops, ~17 ms of the
page's 12 MP path (models/MODEL_CARD.md, stop 69), and a width-16 net costs under half of that.
Learnt from scratch, a narrower gate caught far fewer flowers (width 8: 0.661 of the held-out ones
against 0.889, stop 52); started from the wide gate's own strongest channels it begins from what
that gate knows, and a fine-tune mends what the dropped channels carried.

A channel's strength is its batch norm's scale (how much of it reaches the ReLU) times its filter's
L1 norm (how much of its input it reads); the next conv keeps only the kept channels as inputs, and
the head the kept channels' cells of the flattened 4 x 3 map.
"""

from __future__ import annotations

import torch

from vision.read.tilenet import TileNet


def _conv_layers(state: dict[str, torch.Tensor]) -> list[str]:
    """The conv layers' keys ("features.K"), in order: the layers with a 4-D weight."""
    return [k[: -len(".weight")] for k, v in state.items() if k.endswith(".weight") and v.dim() == 4]


def _norm_of(conv: str) -> str:
    """The batch norm right after a conv in TileNet.features (conv K, norm K+1)."""
    head, index = conv.rsplit(".", 1)
    return f"{head}.{int(index) + 1}"


def strength(state: dict[str, torch.Tensor], conv: str) -> torch.Tensor:
    """Per output channel of `conv`: |batch-norm scale| x L1 norm of its filter."""
    weight = state[f"{conv}.weight"].float()
    scale = state[f"{_norm_of(conv)}.weight"].float().abs()
    return scale * weight.abs().flatten(1).sum(1)


def strongest_channels(state: dict[str, torch.Tensor], width: int) -> dict[str, torch.Tensor]:
    """The state dict of a TileNet of `width` (with `state`'s outputs) keeping, in each conv layer,
    the channels of largest `strength`, in their own order; raises ValueError for a width not
    narrower than the state's."""
    convs = _conv_layers(state)
    own = int(state[f"{convs[0]}.weight"].shape[0])
    if not 0 < width < own:
        raise ValueError(f"a net of width {width} cannot be cut from one of width {own}: it must be narrower")
    outputs = int(state["head.2.weight"].shape[0])
    target = TileNet(num_classes=outputs, width=width).state_dict()
    out: dict[str, torch.Tensor] = {}
    kept_in = torch.arange(3)
    for conv in convs:
        size = int(target[f"{conv}.weight"].shape[0])
        kept = torch.sort(torch.topk(strength(state, conv), size).indices).values
        out[f"{conv}.weight"] = state[f"{conv}.weight"].float()[kept][:, kept_in].clone()
        norm = _norm_of(conv)
        for part in ("weight", "bias", "running_mean", "running_var"):
            out[f"{norm}.{part}"] = state[f"{norm}.{part}"].float()[kept].clone()
        out[f"{norm}.num_batches_tracked"] = state[f"{norm}.num_batches_tracked"].clone()
        kept_in = kept
    cells = state["head.2.weight"].shape[1] // int(state[f"{convs[-1]}.weight"].shape[0])
    columns = (kept_in[:, None] * cells + torch.arange(cells)[None, :]).flatten()
    out["head.2.weight"] = state["head.2.weight"].float()[:, columns].clone()
    out["head.2.bias"] = state["head.2.bias"].float().clone()
    missing = set(target) - set(out)
    if missing:
        raise ValueError(f"not a TileNet state dict: nothing for {sorted(missing)}")
    return out
