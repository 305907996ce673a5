"""Learn a player's own tile set from a few corrected photos: `python -m vision adapt DATA --out DIR`.

Why: a player's set is always a print no training photo shows. The detector still finds its tiles
(a tile is a tile), but the classifier reads an unfamiliar print's faces with doubt. Five photos the
player corrected on the page hold ~70 tiles of that very print; fine-tuning the classifier on them,
mixed with the replay bank shipped beside the model (vision.replay, so that the faces those photos
do not show are not forgotten), takes well under a minute on a laptop CPU.

DATA is a folder in the layout the page saves (vision.labelstore: data.yaml, images/{train,val},
labels/{train,val}, manifest.jsonl; only complete examples are read) or any YOLO dataset with the
fixed class order. DIR receives model.json + weights (a complete model: the base detector is copied
beside the new classifier) that `--model` and `MAHJONG_MODEL` accept, and progress.json while it
runs, which the page polls. Nothing under models/ is ever written.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from vision import data, durable, manifest, replay, safe_weights
from vision.classes import CLASS_NAMES
from vision.crops import SRC_H, SRC_MARGIN, SRC_W, CropSet, augment
from vision.tilenet import TileNet, classifier_outputs

#: Photos the page asks for before it offers "学习我的牌" (fewer work, but learn less).
MIN_PHOTOS = 5
PROGRESS_FILE = "progress.json"


class AdaptError(ValueError):
    """Input that cannot be adapted to (one clear message for the CLI and the page)."""


@dataclass
class AdaptConfig:
    """How the classifier is fine-tuned; the defaults are the measured ones (models/MODEL_CARD.md)."""

    steps: int = 150
    batch: int = 64
    #: Share of each batch drawn from the player's crops (the rest from the replay bank).
    player_share: float = 0.5
    lr: float = 2e-3
    #: Augmented views computed per player crop and per replay crop (see fine_tune).
    player_views: int = 16
    bank_views: int = 2
    seed: int = 0
    device: str = "cpu"


#: TileNet layers kept as they are: everything up to the last conv block (indices of
#: TileNet.features). Only the last block and the head learn the new print.
FROZEN_LAYERS = 18


def read_progress(out_dir: str | Path) -> dict | None:
    """The progress record of an adapt run (see CONTRACTS: stage, fraction, message_zh/en, done,
    error), or None when there is none yet or it cannot be read."""
    try:
        return json.loads((Path(out_dir) / PROGRESS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


class Progress:
    """Writes progress.json atomically (the page polls it from another process)."""

    def __init__(self, out_dir: Path, echo: Callable[[str], None] | None = None) -> None:
        self.path = out_dir / PROGRESS_FILE
        self.echo = echo

    def __call__(
        self, stage: str, fraction: float, zh: str, en: str, done: bool = False, error: str | None = None
    ) -> None:
        record = {
            "stage": stage,
            "fraction": round(max(0.0, min(1.0, fraction)), 3),
            "message_zh": zh,
            "message_en": en,
            "done": done,
            "error": error,
            "time": time.time(),
        }
        durable.replace_synced(
            self.path, (json.dumps(record, ensure_ascii=False) + "\n").encode(), self.path.parent
        )
        if self.echo:
            self.echo(f"{stage} {record['fraction']:.0%}: {en}")


def _check_out_dir(out_dir: Path) -> None:
    """Refuse folders that would overwrite shipped or earlier models."""
    from vision.detect import MODELS_DIR

    models = MODELS_DIR.resolve()
    target = out_dir.resolve()
    if target == models or models in target.parents:
        raise AdaptError(
            f"--out {out_dir} is inside models/: a personal model never replaces the shipped one"
        )
    if (out_dir / "model.json").exists():
        raise AdaptError(f"{out_dir} already holds a model; choose a new folder")


def player_photos(data_dir: Path) -> list[Path]:
    """The labelled photos of DATA (both splits; for saved labels, the newest complete version)."""
    yaml_path = data_dir / "data.yaml" if data_dir.is_dir() else data_dir
    if not yaml_path.is_file():
        raise AdaptError(f"{data_dir}: no data.yaml (expected the folder the page saves photos to)")
    import yaml

    try:
        names = (yaml.safe_load(yaml_path.read_text(encoding="utf-8")) or {}).get("names")
    except yaml.YAMLError as exc:
        raise AdaptError(f"{yaml_path}: unreadable data.yaml ({exc})") from exc
    listed = list(names.values()) if isinstance(names, dict) else list(names or [])
    if listed and listed != list(CLASS_NAMES):
        raise AdaptError(f"{yaml_path}: classes {listed[:4]}... are not this project's 35 classes in order")
    photos = data.split_images(yaml_path, "train") + data.split_images(yaml_path, "val")
    return [p for p in dict.fromkeys(photos) if data.read_labels(data.label_path_for(p))]


def _frozen_views(
    net: TileNet, x: np.ndarray, views: int, gen: torch.Generator, device: str, tick: Callable[[float], None]
) -> torch.Tensor:
    """`views` augmented views of each wide crop, passed once through the frozen layers."""
    frozen = net.features[:FROZEN_LAYERS].to(device).eval()
    x_all = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous()
    out = []
    with torch.inference_mode():
        for v in range(views):
            for i in range(0, len(x_all), 256):
                out.append(frozen(augment(x_all[i : i + 256].float().div_(255), gen).to(device)).cpu())
            tick((v + 1) / views)
    return torch.cat(out)


def fine_tune(
    net: TileNet, mine: CropSet, bank: CropSet | None, config: AdaptConfig, tick: Callable[[float], None]
) -> TileNet:
    """Fine-tune the last conv block and the head of `net` in place on the player's crops mixed with
    the replay bank.

    Why only the tail: the early layers see strokes, dots and edges, which every print shares; what
    differs is how they combine into a face. Freezing the early layers lets each augmented view be
    computed once (forward only), after which a training step costs a tenth of a full one: the
    adaptation then takes seconds to a minute on a laptop CPU instead of many minutes, and with
    ~70 tiles to learn from, fewer free parameters also overfit less.
    """
    torch.manual_seed(config.seed)
    gen = torch.Generator().manual_seed(config.seed)
    n_sets = 2 if bank is not None else 1
    f_mine = _frozen_views(
        net, mine.x, config.player_views, gen, config.device, lambda f: tick(0.3 * f / n_sets)
    )
    y_mine = torch.from_numpy(mine.y).repeat(config.player_views)
    if bank is not None:
        f_bank = _frozen_views(
            net, bank.x, config.bank_views, gen, config.device, lambda f: tick(0.15 + 0.15 * f)
        )
        y_bank = torch.from_numpy(bank.y).repeat(config.bank_views)
    tail = torch.nn.Sequential(*net.features[FROZEN_LAYERS:], net.head).to(config.device).train()
    opt = torch.optim.AdamW(tail.parameters(), lr=config.lr, weight_decay=5e-4)
    n_mine = config.batch if bank is None else max(1, round(config.batch * config.player_share))
    for step in range(config.steps):
        for group in opt.param_groups:
            group["lr"] = config.lr * 0.5 * (1 + math.cos(math.pi * step / config.steps))
        idx = torch.randint(len(y_mine), (n_mine,), generator=gen)
        fb, yb = f_mine[idx], y_mine[idx]
        if bank is not None:
            jdx = torch.randint(len(y_bank), (config.batch - n_mine,), generator=gen)
            fb, yb = torch.cat([fb, f_bank[jdx]]), torch.cat([yb, y_bank[jdx]])
        loss = F.cross_entropy(tail(fb.to(config.device)), yb.to(config.device), label_smoothing=0.05)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 20 == 0 or step == config.steps - 1:
            tick(0.3 + 0.7 * (step + 1) / config.steps)
    return net.cpu().eval()


def adapt(
    data_dir: str | Path,
    out_dir: str | Path,
    base: str | Path | None = None,
    config: AdaptConfig | None = None,
    echo: Callable[[str], None] | None = None,
) -> Path:
    """Learn the player's set from DATA into a new model in DIR; returns DIR/model.json.

    Every failure is reported in progress.json (`error`) before it is raised, so the page that
    started this in the background can say what went wrong.
    """
    config = config or AdaptConfig()
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    _check_out_dir(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    progress = Progress(out_dir, echo)
    try:
        return _adapt(data_dir, out_dir, base, config, progress)
    except Exception as exc:
        progress("error", 1.0, f"学习失败：{exc}", f"learning failed: {exc}", done=True, error=str(exc))
        raise


def _adapt(
    data_dir: Path, out_dir: Path, base: str | Path | None, config: AdaptConfig, progress: Progress
) -> Path:
    from vision.detect import DEFAULT_MODEL

    progress("read", 0.0, "正在读取保存的照片…", "reading the saved photos...")
    base_path = Path(base) if base else DEFAULT_MODEL
    if base_path.suffix != ".json":
        raise AdaptError(f"--base {base_path}: need a two-stage model.json (detector + classifier)")
    m = manifest.read(base_path)
    if not m.classifier:
        raise AdaptError(f"--base {base_path} has no classifier to adapt")
    photos = player_photos(data_dir)
    if not photos:
        raise AdaptError(f"{data_dir}: no saved photo with tiles to learn from")
    x, y, _ = data.extract_crops(photos, SRC_MARGIN, (SRC_W, SRC_H))
    if len(y) == 0:
        raise AdaptError(f"{data_dir}: the saved photos could not be read")
    mine = CropSet(x, y)
    found = replay.read_bank(base_path.parent)
    bank = CropSet(*found) if found else None
    progress(
        "train", 0.05, f"正在学习你的牌（{len(photos)} 张照片，{len(y)} 张牌）…", f"learning {len(y)} tiles"
    )
    state = safe_weights.load_state_dict(manifest.weights_path(base_path, m.classifier))  # no code unpickled
    net = TileNet(num_classes=classifier_outputs(state), width=m.classifier_width)
    net.load_state_dict({k: v.float() for k, v in state.items()})
    tick = lambda f: progress("train", 0.05 + 0.9 * f, "正在学习你的牌…", "learning your tiles...")  # noqa: E731
    fine_tune(net, mine, bank, config, tick)
    progress("write", 0.96, "正在保存你的模型…", "writing the model...")
    torch.save({k: v.half() for k, v in net.state_dict().items()}, out_dir / "tile_classifier.pt")
    shutil.copyfile(manifest.weights_path(base_path, m.detector), out_dir / "tile_detector.pt")
    if found:
        for name in (replay.BANK_IMAGE, replay.BANK_LABELS):  # so a personal model can learn again
            shutil.copyfile(base_path.parent / name, out_dir / name)
    m.detector, m.classifier = "tile_detector.pt", "tile_classifier.pt"
    m.extra = {
        **{k: v for k, v in m.extra.items() if k not in ("sources",)},
        "adapted_from": manifest.version_of(base_path),
        "adapt": {"photos": len(photos), "tiles": int(len(y)), "steps": config.steps, "seed": config.seed},
    }
    path = manifest.write(out_dir / "model.json", m)
    progress("done", 1.0, "学好了：现在用你的牌识别", "done: reading with your set now", done=True)
    return path
