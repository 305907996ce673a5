"""Teach a trained classifier a new output without moving the ones it has (`--cls-new-only`).

Why: rounds 15, 15c and 15d fine-tuned the whole TileNet to add a "no face" crop (a light back, a
`flower` output, clutter as `other`), and each time 白 (a blank face in a blue frame) slid into the
new class: 245, 92 and 267 of the 344 real 白 read wrong (models/MODEL_CARD.md, Stop 35). Here the
features and every earlier row of the last layer stay exactly as trained; only the new rows learn,
a linear read-out on the frozen features. So a crop's earlier logits are the shipped ones to the
last bit: a face is read as before, and a tile's confidence (detector x (1 - p(other))) can only
rise, except on a box the new output reads more than any face (vision.read.detect.tile_and_face).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from vision import _env
from vision.classes import FLOWER_ID, NUM_CLASSES, OUTPUT_NAMES
from vision.read import safe_weights
from vision.read.tilenet import TileNet, classifier_outputs
from vision.train.crops import CropSet, augment, classifier_predictions


def load_init(net: TileNet, state: dict) -> None:
    """Load earlier weights into `net`; where `net` reads more outputs (a `flower` after `other`),
    the earlier outputs keep their weights and the new ones start fresh."""
    state = {k: v.float() for k, v in state.items()}
    own = net.state_dict()
    for key in ("head.2.weight", "head.2.bias"):
        old, new = state[key], own[key]
        if old.shape[0] < new.shape[0]:
            grown = new.clone()
            grown[: old.shape[0]] = old
            state[key] = grown
    net.load_state_dict(state)


def _features(net: TileNet, x: torch.Tensor) -> torch.Tensor:
    """The frozen net's input to its last layer (eval mode: batch norms fixed, no dropout)."""
    with torch.no_grad():  # not inference_mode: the new rows' gradient is taken through these
        return net.features(x).flatten(1)


def top_reads(net: TileNet, crops: CropSet) -> tuple[float, np.ndarray]:
    """(accuracy, top-1 ids) of `net` on inference-style crops, for the log: with frozen features
    the accuracy moves only where a new output tops a crop."""
    pred = classifier_predictions(net, crops)
    return float((pred == crops.y).mean()) if len(pred) else float("nan"), pred


#: flower_bar's budget: at most this share of the train tile crops may be read as flowers.
FLOWER_VETO_SHARE = 0.001


def flower_bar(probs: np.ndarray, y: np.ndarray, share: float = FLOWER_VETO_SHARE) -> float:
    """The lowest OperatingPoint.flower_at_least (a step of 0.05) at which at most `share` of the
    crops of a tile of the 34 (and `back`) would be called flowers; `probs` are a flower-reading
    classifier's on its own train crops, as the reader cuts them (crops.as_read).

    Why a bar and why from the train crops: a flower box costs a photo one fix, a tile called a
    flower costs it one tile, and round 16 without a bar lost tiles on the stretched val photos
    and the standing riichi tiles, where unfamiliar faces read a little of everything. The bar is
    set where the classifier's own tiles stay tiles, never on a set that is reported."""
    tiles = probs[y < NUM_CLASSES]
    flower, face = tiles[:, FLOWER_ID], tiles[:, :NUM_CLASSES].max(1)
    return lowest_bar(lambda bar: np.mean((flower > face) & (flower >= bar)), share, start=0.0)


#: rescue_flower_bar's budget: at most this share of the train tile crops may be kept from the rescue.
RESCUE_FLOWER_SHARE = 0.01


def rescue_flower_bar(probs: np.ndarray, y: np.ndarray, share: float = RESCUE_FLOWER_SHARE) -> float:
    """The lowest OperatingPoint.rescue_flower (a step of 0.05) at which at most `share` of the
    crops of a tile of the 34 (and `back`) read that much flower or more; `probs` as flower_bar's.

    Why a looser budget than flower_bar's: this bar only keeps a box the detector doubted from
    being put back by the row rescue; a tile kept out by it is one the reader would have missed
    without the rescue anyway. Set on the train crops, never on a set that is reported."""
    flower = probs[y < NUM_CLASSES][:, FLOWER_ID]
    return lowest_bar(lambda bar: np.mean(flower >= bar), share, start=0.05)


def lowest_bar(share_at: Callable[[float], float], share: float, start: float, step: float = 0.05) -> float:
    """The lowest bar from `start` up in steps of `step` (under 1) at which `share_at(bar)`, the
    share of the tile crops the bar would catch, is at most `share`; 1.0 (nothing caught) when
    none is. One search for every bar chosen on crops (flower_bar, rescue_flower_bar, the flower
    gate's gate_bar)."""
    for bar in np.round(np.arange(start, 1.0 - step / 2, step), 2):
        if share_at(float(bar)) <= share:
            return float(bar)
    return 1.0


def train_new_outputs(
    train: CropSet,
    out_dir: Path,
    init: Path,
    num_classes: int,
    epochs: int = 4,
    seed: int = 0,
    batch_size: int = 256,
    lr: float = 1e-2,
    val: CropSet | None = None,
    log=print,
    first: int | None = None,
) -> Path:
    """Train only the outputs `init` lacks (ids init's count .. num_classes - 1) on `train`'s crops,
    augmented as any classifier epoch; return the weights' path. `first` (below init's count) learns
    outputs from that id on again too, starting from init's rows: `other` (OTHER_ID) taught new
    kinds of clutter while every face row stays as shipped (round 29b, --cls-relearn-other).

    The loss is the full softmax cross-entropy over every output with the earlier logits fixed,
    so the new rows learn to stay under the true face on every tile crop, not only to fire on
    their own crops. No checkpoints: the whole run is minutes (one forward pass a crop an epoch;
    80 s an epoch over 28k crops on 2 cores), so a stopped run is run again."""
    _env.use_every_core()
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    state = safe_weights.load_state_dict(Path(init))
    had = classifier_outputs(state)
    old = had if first is None else first
    if old >= num_classes or old > had:
        raise SystemExit(
            f"{init} reads {had} outputs: nothing to learn from output {old} (the crops name {num_classes})"
        )
    net = TileNet(num_classes=num_classes)
    load_init(net, state)
    net.eval()
    last = net.head[2]
    fixed_w, fixed_b = last.weight[:old].detach().clone(), last.bias[:old].detach().clone()
    new = nn.Linear(last.in_features, num_classes - old)
    with torch.no_grad():  # an output learnt again starts from what it knew
        new.weight[: had - old] = last.weight[old:had]
        new.bias[: had - old] = last.bias[old:had]
    opt = torch.optim.AdamW(new.parameters(), lr=lr, weight_decay=5e-4)
    steps = math.ceil(len(train.y) / batch_size)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=epochs * steps, pct_start=0.15)
    x_all = torch.from_numpy(train.x).permute(0, 3, 1, 2).contiguous()
    y_all = torch.from_numpy(train.y)
    t0 = time.monotonic()
    for epoch in range(epochs):
        perm = torch.randperm(len(y_all), generator=gen)
        total = 0.0
        for i in range(steps):
            idx = perm[i * batch_size : (i + 1) * batch_size]
            feats = _features(net, augment(x_all[idx].float().div_(255), gen))
            logits = torch.cat((feats @ fixed_w.T + fixed_b, new(feats)), 1)
            loss = F.cross_entropy(logits, y_all[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        with torch.no_grad():
            last.weight[old:] = new.weight
            last.bias[old:] = new.bias
        line = f"new outputs epoch {epoch + 1}/{epochs} loss {total / len(y_all):.4f}"
        if val is not None and len(val.y):
            acc, pred = top_reads(net, val)
            line += f" val_acc {acc:.4f}, val crops read as {'/'.join(OUTPUT_NAMES[old:num_classes])}: "
            line += f"{int((pred >= old).sum())} of {len(pred)}"
        log(f"{line} elapsed {time.monotonic() - t0:.0f}s")
    out_dir.mkdir(parents=True, exist_ok=True)
    weights = out_dir / "tile_classifier.pt"
    torch.save({k: v.detach().cpu().half() for k, v in net.state_dict().items()}, weights)
    return weights
