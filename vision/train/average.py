"""Average the weights of detectors fine-tuned from one start: a new detector, no training.

Why: every detector round since round 7 was fine-tuned from round 7's weights and each bought one
skill with another (round 9 and 13: standing tiles of an unseen print, paid with the stretched
exports or with a hand in a row). Fine-tunes of one start lie in one basin, where the straight line
between two of them is itself a good detector that keeps much of both (Wortsman et al. 2022,
"Robust fine-tuning of zero-shot models": the weight-space ensemble holds the start's robustness
while keeping the fine-tune's gain). It costs seconds on the CPU, not an hour of training, and its
result is judged by the ship rule like any candidate.

Only floating-point tensors are averaged (weights, biases, BatchNorm's running statistics); integer
buffers (BatchNorm's batch counter) are taken from the first detector. The checkpoints must share
the architecture: the same parameter names and shapes, or one clear error names the first mismatch.
The result is written in the first detector's checkpoint format (ultralytics, stripped, fp16 as
ultralytics saves a finished run), atomically, and records its sources and shares in
`train_args["average"]` so the model card's command can be checked against the file.
"""

from __future__ import annotations

import copy
import io
from collections.abc import Sequence
from pathlib import Path

import torch

from vision import durable
from vision.read.safe_weights import load_detector


class AverageError(ValueError):
    """The detectors cannot be averaged; `str()` is one line naming what is wrong."""


def shares_of(n: int, shares: Sequence[float] | None) -> list[float]:
    """The weight of each of `n` detectors: equal when not given, else as given (summing to 1)."""
    if n < 2:
        raise AverageError(f"averaging needs at least two detectors, got {n}")
    if shares is None:
        return [1.0 / n] * n
    if len(shares) != n:
        raise AverageError(f"{len(shares)} shares for {n} detectors: give one share per detector")
    if any(s < 0 for s in shares) or abs(sum(shares) - 1.0) > 1e-6:
        raise AverageError(f"shares must be ≥ 0 and sum to 1, got {list(shares)}")
    return [float(s) for s in shares]


def average_states(
    states: Sequence[dict[str, torch.Tensor]], shares: Sequence[float], names: Sequence[str]
) -> dict[str, torch.Tensor]:
    """The share-weighted mean of each floating tensor (computed in float32, cast back to the first
    state's dtype); integer tensors come from the first state."""
    first = states[0]
    for name, state in zip(names[1:], states[1:], strict=True):
        if state.keys() != first.keys():
            missing = sorted(set(first) ^ set(state))[0]
            raise AverageError(f"{name}: not the same architecture as {names[0]} (tensor {missing!r})")
        for key, tensor in state.items():
            if tensor.shape != first[key].shape:
                raise AverageError(
                    f"{name}: tensor {key!r} is {tuple(tensor.shape)}, {names[0]} has {tuple(first[key].shape)}"
                )
    out: dict[str, torch.Tensor] = {}
    for key, tensor in first.items():
        if not tensor.is_floating_point():
            out[key] = tensor.clone()
            continue
        mean = sum(share * state[key].float() for share, state in zip(shares, states, strict=True))
        out[key] = mean.to(tensor.dtype)
    return out


def detector_checkpoint(path: Path) -> dict:
    """The checkpoint dict of a detector file, loaded through the checked, restricted loader."""
    ckpt = getattr(load_detector(path), "ckpt", None)
    if not isinstance(ckpt, dict):
        raise AverageError(
            f"{path}: not a detector checkpoint (an exported or bare model cannot be averaged)"
        )
    return ckpt


def average_detectors(paths: Sequence[Path], out: Path, shares: Sequence[float] | None = None) -> Path:
    """Write the weight average of the detector checkpoints `paths` to `out` (never over a source)."""
    paths = [Path(p) for p in paths]
    weights = shares_of(len(paths), shares)
    out = Path(out)
    if any(out.resolve() == p.resolve() for p in paths):
        raise AverageError(f"{out}: the average must not overwrite one of its sources")
    checkpoints = [detector_checkpoint(p) for p in paths]
    models = []
    for path, ckpt in zip(paths, checkpoints, strict=True):
        model = ckpt.get("ema") or ckpt.get("model")
        if model is None or not hasattr(model, "state_dict"):
            raise AverageError(f"{path}: no detector in this checkpoint")
        models.append(model)
    names = [str(p) for p in paths]
    state = average_states([m.state_dict() for m in models], weights, names)
    result = dict(checkpoints[0])  # a shallow copy: its entries below are replaced, never changed
    model = copy.deepcopy(models[0])
    model.load_state_dict(state)
    result["model"], result["ema"] = model.half(), None  # fp16, as ultralytics saves a finished run
    for key in ("optimizer", "updates", "scaler", "best_fitness"):
        result[key] = None
    args = dict(result.get("train_args") or {})
    args["average"] = {"sources": names, "shares": weights}
    result["train_args"] = args
    buffer = io.BytesIO()
    torch.save(result, buffer)
    out.parent.mkdir(parents=True, exist_ok=True)
    durable.replace_synced(out, buffer.getvalue(), staging=out.parent)
    return out
