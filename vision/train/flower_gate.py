"""The flower gate: a second small crop reader that asks one question, flower or tile.

Why its own net: the set leaves flower, season and joker tiles unlabelled, so a reader that returns
them shows a player a tile not in play, and counts as a false box on every hand with its flowers
beside it (models/MODEL_CARD.md, stop 50: most hands in a row not fully right are such). A
`flower` output among the classifier's faces took one print's 1p (a rosette) and 1s (a bird) for
flowers however it was trained (stop 51). Asked on its own, with those faces shown three times as
often as the rest, the question is answered apart from the faces: a flower gate never moves a face.

The gate is trained on 80 % of the train photos and its bar chosen on the other 20 % (by photo,
never by crop: the crops of one photo are alike), so the bar is measured on tiles the gate never
saw, not on the ones it learnt.
"""

from __future__ import annotations

import math
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from vision import _env
from vision.classes import CLASS_ID, NUM_CLASSES
from vision.read import manifest, onnx_run, safe_weights
from vision.read.tilenet import GATE_OUTPUTS, TileNet, from_state, trunk_end
from vision.train import data, replay
from vision.train.crops import (
    SRC_H,
    SRC_MARGIN,
    SRC_W,
    as_read,
    augment,
    classifier_probabilities,
    listed_crops_by_photo,
)
from vision.train.new_outputs import lowest_bar
from vision.train.strongest_channels import strongest_channels

#: The hand-checked flowers of the real set's train photos (stop 51), which the gate learns from.
DEFAULT_LISTING = _env.REPO_ROOT / "datasets" / "flowers" / "chinese-mahjong-v4-train.json"
#: The faces a flower is most like in the real set's prints (stop 51): seen this many times an epoch.
HARD_FACES = ("1p", "1s")
HARD_REPEAT = 3
#: The flowers are repeated up to this share of the tiles an epoch (817 flowers against ~16k tiles).
FLOWER_SHARE = 0.25
#: The share of the train photos kept out of training, to choose the bar on.
HELD_SHARE = 0.2
#: gate_bar's budget: at most this share of the held-out photos' tiles may read as flowers.
TILE_BUDGET = 1 / 2000
#: How soft the wide gate's answers are made for a narrower gate to imitate (train_gate's
#: `imitate`): at 2 a sure "tile" still tells how much flower the wide gate saw in the crop.
IMITATE_TEMPERATURE = 2.0
#: The values of OperatingPoint.flower_gate_below that asked_below tries, lowest first.
ASK_BELOW = (0.9, 0.95, 0.98, 0.99, 1.0)


@dataclass
class GateCrops:
    """Wide training crops (SRC size) of the labelled tiles and of the listed flowers, each with the
    index of its photo in the train split."""

    tiles: np.ndarray
    faces: np.ndarray
    tile_photo: np.ndarray
    flowers: np.ndarray
    flower_photo: np.ndarray
    photos: int


def gate_crops(source: Path, listing: Path) -> GateCrops:
    """The train split's labelled tiles and the listing's flowers (crops.ListingError in words for a
    listing naming a photo the split lacks)."""
    images = data.split_images(source, "train")
    tiles, faces, owners = data.extract_crops(images, SRC_MARGIN, (SRC_W, SRC_H))
    flowers, names = listed_crops_by_photo(listing, source)
    index = {p.name: i for i, p in enumerate(images)}
    return GateCrops(
        tiles, faces, owners, flowers, np.array([index[n] for n in names], np.int64), len(images)
    )


def held_photos(photos: int, seed: int, share: float = HELD_SHARE) -> np.ndarray:
    """Indices of the photos kept out of training (a seeded draw of `share` of them)."""
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(photos, int(photos * share), replace=False))


def gate_bar(tile_scores: np.ndarray, budget: float = TILE_BUDGET) -> float:
    """The lowest bar from 0.5 (the gate's argmax) up in steps of 0.01 at which at most `budget` of
    the held-out tiles read as flowers; 1.0 (no box is ever a flower) when none is."""

    def share_at(bar: float) -> float:
        return float((tile_scores >= bar).mean()) if len(tile_scores) else 0.0

    return lowest_bar(share_at, budget, start=0.5, step=0.01)


def asked_below(flower_faces: np.ndarray, flower_scores: np.ndarray, bar: float) -> float:
    """The lowest of ASK_BELOW at which the gate, asked only of crops whose best face reads under
    it, catches as many of the held-out flowers (best face `flower_faces`, gate `flower_scores`)
    as asked of every crop."""
    caught = flower_scores >= bar
    for below in ASK_BELOW:
        if (caught & (flower_faces < below)).sum() >= caught.sum():
            return below
    return 1.0


def train_gate(
    crops: GateCrops,
    init: Path,
    held: np.ndarray,
    epochs: int = 4,
    seed: int = 0,
    lr: float = 2e-3,
    batch_size: int = 256,
    log: Callable[[str], None] = print,
    width: int | None = None,
    shared: int = 0,
    start: Path | None = None,
    imitate: float = 0.0,
) -> TileNet:
    """A gate trained on the crops of the photos not `held`: tiles (HARD_FACES repeated) as 0,
    flowers (repeated to FLOWER_SHARE of the tiles) as 1, augmented as every classifier epoch.
    Of the classifier's width (None), its features start from the classifier `init` and every
    layer is fine-tuned; of another width (narrower: cheaper to read), it learns from scratch, or,
    with `start` (a wider gate's weights), from that gate's strongest channels
    (vision.train.strongest_channels), every layer fine-tuned. `imitate` (0..1, with `start`): that
    share of the loss is how far the gate's answers (softened, IMITATE_TEMPERATURE) are from the
    wide gate's on the same augmented crops, so a narrower gate learns to answer as the wide one
    does, not only to be right where the labels are. `shared` > 0: the first `shared` conv blocks
    stay the classifier's, frozen with their batch norms' statistics, so the reader can take them
    from the classifier's own pass over the crops and run only the gate's last layers
    (vision.read.tilenet.shared_convs)."""
    _env.use_every_core()
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    state = safe_weights.load_state_dict(Path(init))
    own_width = int(state["features.0.weight"].shape[0])
    net = TileNet(num_classes=GATE_OUTPUTS, width=width or own_width)
    if width in (None, own_width):
        own = net.state_dict()
        net.load_state_dict({k: own[k] if k.startswith("head.2") else v.float() for k, v in state.items()})
    elif shared:
        raise ValueError("a gate shares the classifier's conv blocks only at the classifier's width")
    if start is not None:
        if shared or width is None:
            raise ValueError("a gate started from a wider gate needs --width, and shares no block")
        wide = safe_weights.load_state_dict(Path(start))
        if int(wide["head.2.weight"].shape[0]) != GATE_OUTPUTS:
            raise ValueError(f"{start}: not a flower gate ({GATE_OUTPUTS} outputs)")
        net.load_state_dict(strongest_channels(wide, width))
    if not 0.0 <= imitate <= 1.0:
        raise ValueError(f"--imitate is a share of the loss, from 0 to 1 (not {imitate})")
    if imitate and start is None:
        raise ValueError("a gate imitates the wider gate it starts from: --imitate needs --from-gate")
    teacher = _teacher(wide) if imitate else None
    trunk = net.features[: trunk_end(net.features, shared)] if shared else torch.nn.Sequential()
    trunk.requires_grad_(False)
    kept = ~np.isin(crops.tile_photo, held)
    tiles = np.flatnonzero(kept)
    hard = tiles[np.isin(crops.faces[tiles], [CLASS_ID[f] for f in HARD_FACES])]
    tiles = np.concatenate([tiles] + [hard] * (HARD_REPEAT - 1))
    flowers = np.flatnonzero(~np.isin(crops.flower_photo, held))
    if not len(flowers) or not len(tiles):
        raise ValueError("the flower gate needs flowers and tiles in the photos it learns from")
    repeat = max(1, int(len(tiles) * FLOWER_SHARE) // len(flowers))
    x = np.concatenate([crops.tiles[tiles], np.repeat(crops.flowers[flowers], repeat, axis=0)])
    y = np.concatenate([np.zeros(len(tiles), np.int64), np.ones(len(flowers) * repeat, np.int64)])
    log(f"flower gate: {len(tiles)} tile crops, {len(flowers)} flowers x{repeat}")
    x_all, y_all = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous(), torch.from_numpy(y)
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=lr, weight_decay=5e-4)
    steps = math.ceil(len(y) / batch_size)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=epochs * steps, pct_start=0.15)
    t0 = time.monotonic()
    for epoch in range(epochs):
        net.train()
        trunk.eval()  # the shared blocks' batch norms keep the classifier's statistics
        perm = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(steps):
            idx = perm[i * batch_size : (i + 1) * batch_size]
            batch = augment(x_all[idx].float().div_(255), gen)
            out = net(batch)
            loss = F.cross_entropy(out, y_all[idx])
            if teacher is not None:
                with torch.no_grad():
                    aim = F.softmax(teacher(batch) / IMITATE_TEMPERATURE, 1)
                apart = F.kl_div(F.log_softmax(out / IMITATE_TEMPERATURE, 1), aim, reduction="batchmean")
                loss = (1 - imitate) * loss + imitate * IMITATE_TEMPERATURE**2 * apart
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        log(f"flower gate epoch {epoch + 1}/{epochs} loss {total / len(y):.4f} {time.monotonic() - t0:.0f}s")
    return net.eval()


def _teacher(state: dict[str, torch.Tensor]) -> TileNet:
    """The wide gate a narrower one imitates, as it reads (eval mode, never trained here)."""
    return from_state(state, width=int(state["features.0.weight"].shape[0])).eval().requires_grad_(False)


def held_scores(net: TileNet, crops: GateCrops, held: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The gate's flower probability on the held-out photos' tiles and flowers, cut as the reader cuts."""

    def scores(wide: np.ndarray) -> np.ndarray:
        return classifier_probabilities(net, as_read(wide))[:, 1] if len(wide) else np.zeros(0)

    return (
        scores(crops.tiles[np.isin(crops.tile_photo, held)]),
        scores(crops.flowers[np.isin(crops.flower_photo, held)]),
    )


def best_faces(model_json: Path, wide: np.ndarray) -> np.ndarray:
    """How surely the model's classifier reads the best face of each crop, as the reader reads it
    (its turned views where it doubts: tta_below), over the 35 faces. Only the classifier is
    loaded: the detector (and its ONNX session) has nothing to say here."""
    from vision.read.tilenet import classify_crops, for_reading, from_state

    if not len(wide):
        return np.zeros(0)
    m = manifest.read(model_json)
    state = safe_weights.load_state_dict(manifest.weights_path(model_json, m.classifier))
    classifier = for_reading(from_state(state, m.classifier_width).eval())
    probs = classify_crops(classifier, as_read(wide), tta_below=m.op.tta_below)[:, :NUM_CLASSES]
    return (probs / np.maximum(probs.sum(1, keepdims=True), 1e-9)).max(1)


def copy_model(model_json: Path, out_dir: Path) -> manifest.ModelManifest:
    """The model's weights (with the detector's export) and replay bank copied into `out_dir`, a new
    folder or the model's own; its manifest returned for the caller to change and write."""
    m = manifest.read(model_json)
    out_dir.mkdir(parents=True, exist_ok=True)
    if out_dir.resolve() == model_json.parent.resolve():
        return m
    for name in (m.detector, m.classifier, m.learnt_detector):
        if name:
            shutil.copyfile(manifest.weights_path(model_json, name), out_dir / name)
    onnx_run.copy_export(manifest.weights_path(model_json, m.detector), out_dir / m.detector)
    for name in (replay.BANK_IMAGE, replay.BANK_LABELS):
        if (model_json.parent / name).is_file():
            shutil.copyfile(model_json.parent / name, out_dir / name)
    return m


def make_gated_model(
    model_json: Path,
    listing: Path,
    out_dir: Path,
    source: Path = data.REAL_DATASET,
    epochs: int = 4,
    seed: int = 0,
    log: Callable[[str], None] = print,
    width: int | None = None,
    lr: float = 2e-3,
    shared: int = 0,
    start: Path | None = None,
    imitate: float = 0.0,
) -> Path:
    """The model at `model_json` with a flower gate learnt from `listing`'s flowers and `source`'s
    train tiles, written to `out_dir` (its model.json returned): the gate's weights, its bar
    (OperatingPoint.flower_gate_at_least, gate_bar on the held-out photos) and what it was measured
    at there."""
    m = manifest.read(model_json)
    if not m.classifier:
        raise manifest.ModelFileError(
            f"{model_json}: a flower gate starts from a classifier; this model has none"
        )
    crops = gate_crops(source, listing)
    held = held_photos(crops.photos, seed)
    init = manifest.weights_path(model_json, m.classifier)
    net = train_gate(
        crops,
        init,
        held,
        epochs,
        seed,
        lr=lr,
        log=log,
        width=width,
        shared=shared,
        start=start,
        imitate=imitate,
    )
    tile_scores, flower_scores = held_scores(net, crops, held)
    bar = gate_bar(tile_scores)
    below = asked_below(
        best_faces(model_json, crops.flowers[np.isin(crops.flower_photo, held)]), flower_scores, bar
    )
    caught = float((flower_scores >= bar).mean()) if len(flower_scores) else float("nan")
    flagged = int((tile_scores >= bar).sum())
    log(
        f"flower gate bar {bar}: held-out flowers caught {caught:.3f} of {len(flower_scores)}, "
        f"held-out tiles read as flowers {flagged} of {len(tile_scores)}; asked below best face {below}"
    )
    m = copy_model(model_json, out_dir)
    torch.save(
        {k: v.detach().cpu().half() for k, v in net.state_dict().items()}, out_dir / manifest.FLOWER_GATE_FILE
    )
    m.flower_gate = manifest.FLOWER_GATE_FILE
    m.op = replace(m.op, flower_gate_at_least=bar, flower_gate_below=below)
    m.extra = {
        **m.extra,
        "flower_gate_from": {
            "listing": listing.name,
            "epochs": epochs,
            "seed": seed,
            "width": int(net.features[0].out_channels),
            "lr": lr,
            "shared_convs": shared,
            **({"from_gate": Path(start).name} if start is not None else {}),
            **({"imitate": imitate} if imitate else {}),
            "held_photos": len(held),
            "held_tiles": len(tile_scores),
            "held_tiles_read_as_flowers": flagged,
            "held_flowers": len(flower_scores),
            "held_flowers_caught": round(caught, 4),
        },
    }
    return manifest.write(out_dir / "model.json", m)
