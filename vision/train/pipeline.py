"""Train the shipped two-stage tile model (or the single-stage baseline) reproducibly on CPU.

Stages:
  detector    one-class ("tile") YOLOv8n from scratch on real + synthetic + saved-label photos;
  classifier  TileNet on crops cut from the same photos' labelled boxes (35 classes incl. `back`);
  ship        copy both into models/ with model.json (operating point, sizes).

Everything is checkpointed (ultralytics last.pt, classifier last.pt every epoch), so a session that
stops loses at most one epoch; `--resume` continues both. Seeds are fixed; on CPU with the same
data and thread count the run is repeatable.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from vision import _env
from vision.classes import BACK_ID, CLASS_NAMES, EXTRA_OUTPUTS, FLOWER_ID, NUM_CLASSES, OTHER_ID, OUTPUT_NAMES
from vision.read import manifest, safe_weights
from vision.read.detect import MODELS_DIR
from vision.read.onnx_run import weights_sha256
from vision.read.operating_point import DEFAULT, OperatingPoint
from vision.read.tilenet import TileNet, classifier_outputs, from_state
from vision.train import data, replay
from vision.train.config import TrainConfig, torch_device
from vision.train.crops import (
    OTHER_REPEAT,
    SRC_H,
    SRC_MARGIN,
    SRC_W,
    CropSet,
    as_read,
    at_most_of_class,
    augment,
    box_crops,
    classifier_crops,
    classifier_predictions,
    classifier_probabilities,
    detector_boxes,
    listed_crops,
    negative_images,
    other_crops,
    read_listing,
    row_images,
    unlabelled,
    unlabelled_in_lines,
    unlabelled_on_row,
    val_crops,
    weakest_class,
)
from vision.train.new_outputs import (
    FLOWER_VETO_SHARE,
    RESCUE_FLOWER_SHARE,
    flower_bar,
    load_init,
    rescue_flower_bar,
    train_new_outputs,
)
from vision.train.spines import spine_crops

RUNS_DIR = _env.REPO_ROOT / "runs" / "train"
COMPUTE_LOG = "compute.jsonl"


def record_compute(run_dir: Path, stage: str, epochs: int, seconds: float, device: str) -> dict:
    """Append what one training chunk cost to RUN/compute.jsonl and say it: the model card quotes
    epochs per hour from here, measured, never guessed (a chunk is at most 2 h on a 2-core CPU)."""
    row = {
        "stage": stage,
        "epochs": epochs,
        "hours": round(seconds / 3600, 3),
        "epochs_per_hour": round(epochs / (seconds / 3600), 1) if seconds > 0 else None,
        "device": device,
        "cores": os.cpu_count(),
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    run_dir.mkdir(parents=True, exist_ok=True)
    with open(run_dir / COMPUTE_LOG, "a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")
    print(f"{stage}: {epochs} epochs in {row['hours']} h = {row['epochs_per_hour']} epochs/hour", flush=True)
    return row


def _epochs_logged(run_dir: Path) -> int:
    """Epochs ultralytics has logged in run_dir/results.csv (one row each)."""
    csv = run_dir / "results.csv"
    return max(0, len(csv.read_text().splitlines()) - 1) if csv.is_file() else 0


def train_detector(
    data_yaml: Path,
    name: str,
    imgsz: int = 384,
    epochs: int = 40,
    hours: float | None = None,
    seed: int = 0,
    resume: bool = False,
    weights: Path | None = None,
    cfg: str = "yolov8n.yaml",
    batch: int = 16,
    workers: int = 0,
    project: Path = RUNS_DIR,
    close_mosaic: int = 10,
    device: str = "cpu",
    scale: float = 0.5,
    lr0: float | None = None,
    freeze: int = 0,
) -> Path:
    """Train a YOLO detector from a model .yaml (no downloads) and return its best weights.

    `hours`, when given, caps wall time (ultralytics then fits the LR schedule to it). `lr0`, when
    given, starts AdamW there instead of at ultralytics' own choice (a gentler fine-tune); `freeze`
    keeps the first layers as they start. `weights`
    starts from earlier weights (e.g. the architecture-comparison run) instead of random init.
    plots=False keeps ultralytics from fetching a font. `device` is ultralytics' own: "cpu", "0",
    or "0,1,2,3" for several GPUs (ultralytics then trains with DDP, one process per GPU). AMP stays
    off: ultralytics' AMP self-check downloads a model, which this project never does.
    """
    from ultralytics import YOLO

    _env.use_every_core()
    run_dir = Path(project) / name
    last = run_dir / "weights" / "last.pt"
    started, epochs_before = time.monotonic(), _epochs_logged(run_dir)
    if resume and last.is_file():
        YOLO(str(last)).train(resume=True, workers=workers, plots=False, device=device)
    else:
        # Continuing from our own one-class weights: start from that checkpoint itself, so every
        # layer carries over (YOLO(cfg).load() would re-initialise the 80-class yaml's class head).
        model = YOLO(str(weights)) if weights else YOLO(cfg)
        kwargs = {"time": hours} if hours else {}
        if lr0:  # "auto" ignores lr0: name what it picks for a short run (AdamW, beta1 0.9, no bias kick)
            kwargs.update(optimizer="AdamW", lr0=lr0, momentum=0.9, warmup_bias_lr=0.0)
        if freeze:
            kwargs["freeze"] = freeze
        model.train(
            data=str(data_yaml),
            imgsz=imgsz,
            epochs=epochs,
            batch=batch,
            workers=workers,
            device=device,
            seed=seed,
            deterministic=True,
            plots=False,
            amp=False,
            val=False,  # validate once at the end only: a val pass costs as much as 1/4 epoch here
            cache="ram",
            patience=1000,
            close_mosaic=close_mosaic,  # last epochs on whole photos: close-ups' tiles stay whole
            scale=scale,  # the random zoom: how many sizes of each tile the detector sees
            project=str(project),
            name=name,
            exist_ok=True,
            **kwargs,
        )
    record_compute(
        Path(project), "detector", _epochs_logged(run_dir) - epochs_before, time.monotonic() - started, device
    )
    best = run_dir / "weights" / "best.pt"
    return best if best.is_file() else last


# ----------------------------------------------------------------------------------------------
# Classifier


def _val_line(net: TileNet, val: CropSet | None) -> str:
    """The classifier's val accuracy and its weakest face, for the epoch's log line."""
    if val is None or not len(val.y):
        return "val_acc nan"
    pred = classifier_predictions(net, val)
    worst, worst_acc = weakest_class(val.y, pred)
    return f"val_acc {float((pred == val.y).mean()):.4f} (weakest {OUTPUT_NAMES[worst]} {worst_acc:.3f})"


def train_classifier(
    train: CropSet,
    out_dir: Path,
    epochs: int = 12,
    seed: int = 0,
    batch_size: int = 128,
    lr: float = 3e-3,
    val: CropSet | None = None,
    resume: bool = False,
    minutes: float | None = None,
    log=print,
    num_classes: int = NUM_CLASSES,
    device: str = "cpu",
    init: Path | None = None,
    low_res: float = 0.0,
    any_turn: float = 0.0,
    side_light: float = 0.0,
) -> Path:
    """Train TileNet with AdamW + one-cycle LR; checkpoint every epoch; return final weights path.

    The final epoch is shipped (no checkpoint selection on val: val only reports).
    `minutes` caps wall time for budgeted comparisons (the LR schedule still assumes `epochs`).
    `num_classes` is 36 when the crops include the `other` class; `low_res`, `any_turn`, `side_light`: crops.augment.
    """
    _env.use_every_core()
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    net = TileNet(num_classes=num_classes)
    if init is not None:  # continue from earlier weights, e.g. to add new drawn prints or an output
        load_init(net, torch.load(init, map_location="cpu", weights_only=True))
    net.to(device)
    steps_per_epoch = math.ceil(len(train.y) / batch_size)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=epochs * steps_per_epoch, pct_start=0.15)
    ckpt = out_dir / "last.pt"
    start = 0
    if resume and ckpt.is_file():
        state = torch.load(ckpt, map_location="cpu", weights_only=True)  # our own checkpoint: plain data
        net.load_state_dict(state["net"])
        net.to(device)
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        gen.set_state(state["gen"])
        start = state["epoch"] + 1
    x_all = torch.from_numpy(train.x).permute(0, 3, 1, 2).contiguous()  # uint8, converted per batch
    y_all = torch.from_numpy(train.y)
    t0 = time.monotonic()
    for epoch in range(start, epochs):
        net.train()
        perm = torch.randperm(len(y_all), generator=gen)
        total, seen = 0.0, 0
        for i in range(steps_per_epoch):
            idx = perm[i * batch_size : (i + 1) * batch_size]
            xb = augment(x_all[idx].float().div_(255), gen, low_res, any_turn, side_light).to(device)
            loss = F.cross_entropy(net(xb), y_all[idx].to(device), label_smoothing=0.05)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
            seen += len(idx)
            if minutes and time.monotonic() - t0 > minutes * 60:
                break
        log(
            f"classifier epoch {epoch + 1}/{epochs} loss {total / max(seen, 1):.4f} {_val_line(net.cpu(), val)} "
            f"elapsed {time.monotonic() - t0:.0f}s"
        )
        net.to(device)
        torch.save(
            {
                "net": net.state_dict(),
                "opt": opt.state_dict(),
                "sched": sched.state_dict(),
                "gen": gen.get_state(),
                "epoch": epoch,
            },
            ckpt,
        )
        if minutes and time.monotonic() - t0 > minutes * 60:
            break
    record_compute(
        out_dir.parent,
        "classifier",
        epoch + 1 - start if epochs > start else 0,
        time.monotonic() - t0,
        device,
    )
    weights = out_dir / "tile_classifier.pt"
    torch.save({k: v.detach().cpu().half() for k, v in net.state_dict().items()}, weights)
    return weights


# ----------------------------------------------------------------------------------------------
# Shipping


def ship(
    detector: Path,
    classifier: Path | None,
    conf: float,
    det_imgsz: int,
    extra: dict | None = None,
    models_dir: Path = MODELS_DIR,
    kept: OperatingPoint = DEFAULT,
    flower_at_least: float = DEFAULT.flower_at_least,
    rescue_flower: float = DEFAULT.rescue_flower,
    gate: ShippedGate | None = None,
) -> Path:
    """Copy trained weights into models/ and write models/model.json (what detect.load_model reads).
    `kept`: the shipped reader's operating point (shipped_op), whose reading rules (every field but
    the point `conf`/`tile_conf`, `face_conf` and the flower bars this run chooses) the run keeps, a
    new field too without a line here; a change of one is its own candidate, judged by the ship
    rule like any other. `gate`: the shipped flower gate (shipped_gate), kept with its bars (in
    `kept`) for the same reason: a new detector judged without the gate would be judged as two
    changes at once."""
    models_dir.mkdir(parents=True, exist_ok=True)
    extra = dict(extra or {})
    gate = gate if classifier else None  # a gate reads the classifier's boxes: none without one
    if gate is not None and gate.made_from is not None:
        extra.setdefault("flower_gate_from", gate.made_from)
    classifier_classes = list(CLASS_NAMES)
    if classifier:
        state = torch.load(classifier, map_location="cpu", weights_only=True)
        classifier_classes += EXTRA_OUTPUTS[classifier_outputs(state) - NUM_CLASSES]
    m = manifest.ModelManifest(
        detector="tile_detector.pt",
        classifier="tile_classifier.pt" if classifier else None,
        classifier_classes=classifier_classes,
        op=replace(
            kept,
            conf=conf,
            tile_conf=float(extra.pop("tile_conf", conf)),
            face_conf=float(extra.pop("face_conf", DEFAULT.face_conf)),
            flower_at_least=flower_at_least,
            rescue_flower=rescue_flower,
        ),
        det_imgsz=det_imgsz,
        architecture="two-stage" if classifier else "single-stage",
        flower_gate=manifest.FLOWER_GATE_FILE if gate is not None else None,
        extra=extra,
    )
    if gate is not None:
        (models_dir / manifest.FLOWER_GATE_FILE).write_bytes(gate.weights)  # read before any probe wrote here
    for source, name in ((detector, "tile_detector.pt"), (classifier, "tile_classifier.pt")):
        if source and Path(source).resolve() != (models_dir / name).resolve():  # keeping a shipped file
            shutil.copyfile(source, models_dir / name)
    return manifest.write(models_dir / "model.json", m)


def _export_for_reading(model_json: Path) -> None:
    """Export the shipped detector for ONNX Runtime (vision.read.onnx_run), so new weights are read
    as fast as the old; without the `onnx` package they are read with torch, and it says so."""
    from vision.read.onnx_run import export_model

    try:
        print(f"exported for reading: {export_model(model_json)}", flush=True)
    except ImportError as exc:
        print(f"not exported for ONNX Runtime ({exc}): read with torch until `python -m vision export-onnx`")


def source_name(source: Path) -> str:
    """A training source as model.json records it: relative to the repository (a model folder
    moves between machines; an absolute path names one machine's disk). Symlinks are not followed:
    a `../shared` that links elsewhere is still recorded as `../shared`."""
    return Path(os.path.relpath(os.path.abspath(source), _env.REPO_ROOT)).as_posix()


def ensure_synth(n: int, seed: int, out: Path = data.SYNTH_DIR, drawn_share: float = 0.0) -> Path | None:
    """Synthetic scenes (with face-down tiles, absent from the real set), generated once if the
    generator exists; None when it does not (training then uses real data only).
    `drawn_share` is the share of scenes with drawn faces (other sets' styles)."""
    if (out / "data.yaml").is_file():
        return out
    try:
        from vision.train.synth.cli import main as synth_main
    except ImportError:
        print("synthetic generator not available: training on real data only", flush=True)
        return None
    rc = synth_main(
        ["--out", str(out), "--n", str(n), "--seed", str(seed), "--drawn-share", str(drawn_share)]
    )
    if rc or not (out / "data.yaml").is_file():
        raise RuntimeError(f"synthetic generator failed (exit {rc})")
    return out


#: The operating point of a model with no shipped reader to keep the point of (see shipped_point).
DEFAULT_CONF = DEFAULT.conf
#: "Clear": tile-level F1 higher by more than this: above the noise of the synthetic val scenes
#: between two classifiers of equal quality (measured in models/MODEL_CARD.md).
CONF_MARGIN = 0.005
#: The farthest the point may move from the shipped one in one round (on the synthetic val scenes,
#: or on one session's real val photos with --point-group: a step the report has judged before).
#: Why a bound: those scenes guide, they do not decide. Round 12's scenes moved it 0.55 -> 0.2 and
#: every real set paid (the stretched exports: 0.95 -> 0.26 of tiles returned); a step of 0.1 is
#: what the real sets have absorbed before (round 11: 0.55 -> 0.45), and a real loss still stops it
#: at the ship rule (benchmarks/reader_report.py).
MAX_POINT_MOVE = 0.1


def shipped_op(models_dir: Path = MODELS_DIR) -> OperatingPoint:
    """The operating point of the reader shipped now, which a new candidate keeps unless held-out
    data shows a clear gain elsewhere (choose_conf, for tile_conf); DEFAULT_CONF without one.

    Why the shipped point and not DEFAULT_CONF: a candidate fine-tuned from the shipped weights is
    judged against the shipped reader at its point, so moving the point is a change that must earn
    its place like any other. Round 8's scenes (a fresh seed) put F1 at 0.25 within the margin of
    the best, and the old rule fell back to 0.25 from round 7's 0.55 on that alone."""
    from vision.read import manifest

    try:
        return manifest.read(models_dir / "model.json").op
    except manifest.ModelFileError:  # also a missing or unreadable file (manifest.read)
        return OperatingPoint(conf=DEFAULT_CONF, tile_conf=DEFAULT_CONF)


@dataclass(frozen=True)
class ShippedGate:
    """The shipped reader's flower gate as it was when the run began: its weights' bytes and what
    they were learnt from (model.json's `flower_gate_from`). Held in memory because shipping into
    models/ itself (`--ship`) writes a probe model.json there first."""

    weights: bytes
    made_from: dict | None


def shipped_gate(models_dir: Path = MODELS_DIR) -> ShippedGate | None:
    """The flower gate of the reader shipped now (ShippedGate), or None where it has none. The gate
    reads a crop on its own weights (it shares the classifier's first blocks only where their weights
    are the same, tilenet.shared_convs), so it is kept with a new detector or classifier alike."""
    try:
        m = manifest.read(models_dir / "model.json")
    except manifest.ModelFileError:
        return None
    if not m.flower_gate:
        return None
    path = manifest.weights_path(models_dir / "model.json", m.flower_gate)
    if not path.is_file():
        raise manifest.ModelFileError(f"{models_dir / 'model.json'}: its flower gate {path.name} is missing")
    return ShippedGate(path.read_bytes(), m.extra.get("flower_gate_from"))


def shipped_point(models_dir: Path = MODELS_DIR) -> float:
    """The shipped reader's tile_conf (shipped_op)."""
    return shipped_op(models_dir).tile_conf


def point_scenes(synth: Path | None) -> Path | None:
    """The synthetic scenes whose val split the operating point is chosen on: the run's, else the
    cached ones (data.SYNTH_DIR) even when they trained nothing (--no-synth), else None (the shipped
    point is kept). Which data a model learnt from and where its point is chosen are two questions,
    and a reported real set must never answer the second."""
    if synth is not None:
        return synth
    return data.SYNTH_DIR if (data.SYNTH_DIR / "data.yaml").is_file() else None


def point_photos(spec: str, run_dir: Path) -> Path:
    """The real val photos of one group (`FILE:GROUP`, vision.train.groups) as a dataset whose val
    split the operating point is chosen on. Why real val photos: no detector trains on them, so
    they are new to every candidate, as a player's photos are, and unlike synthetic scenes they do
    not disagree with the photos a player takes; why one group only: the report leaves that group
    out of the val sets it judges (benchmarks/reader_report.py --without-group), so what chose the
    point is never what is reported."""
    from vision.train import groups

    name, _, only = groups.split_by_spec(data.REAL_DATASET, spec, run_dir / "groups")
    print(f"operating point chosen on the real val photos of group {name} ({only})", flush=True)
    return only


def choose_conf(
    images: list,
    grid: np.ndarray | None = None,
    default: float = DEFAULT_CONF,
    margin: float = CONF_MARGIN,
    max_move: float | None = MAX_POINT_MOVE,
) -> float:
    """Operating point: `default`, unless another threshold within `max_move` of it (None: any)
    beats its tile-level F1 by > `margin`; then the best F1 there (ties: more photos with every
    tile right, then the lower threshold).

    Called on data that is NOT the reported val set (held-out synthetic scenes, or with
    --point-group the val photos of a group the report then leaves out), so the reported val
    numbers stay honest. F1 counts every tile (~1,200 in 40 scenes); the share of photos with
    every tile right moves in steps of 1/40 there, so it only breaks ties. The bound keeps those
    scenes a guide (MAX_POINT_MOVE): they disagreed with real photos before.
    """
    from vision.train.evaluate import all_tiles_right, precision_recall

    grid = np.round(np.arange(0.05, 0.96, 0.05), 2) if grid is None else grid
    if max_move is not None:
        grid = np.array([c for c in grid if abs(float(c) - default) <= max_move + 1e-9])

    def score(c: float) -> tuple[float, float]:
        kept = [im.above(float(c)) for im in images]
        p, r, *_ = precision_recall(kept)
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        return f1, float(np.mean([all_tiles_right(im) for im in kept]))

    scores = {float(c): score(float(c)) for c in grid}
    best_f1 = max(f1 for f1, _ in scores.values())
    default_f1 = scores[default][0] if default in scores else score(default)[0]
    if default_f1 >= best_f1 - margin:
        return default
    best = max((round(f1, 3), right, -c) for c, (f1, right) in scores.items())
    return -best[2]


def _drawn_scenes(args) -> Path | None:
    """The drawn-face scene set (generated once), or None with a printed reason (e.g. no CJK font)."""
    try:
        return ensure_synth(args.drawn_synth_n, args.seed, data.SYNTH_DRAWN_DIR, drawn_share=1.0)
    except RuntimeError as exc:
        print(f"drawn-face scenes unavailable ({exc}); training without them", flush=True)
        return None


def _with_other(
    crops: CropSet,
    sources: list[Path],
    detector: Path,
    imgsz: int,
    cache_dir: Path,
    rows: bool = False,
    rows_label: int = OTHER_ID,
    scenes: Path | None = None,
    lines: bool = False,
    listed: Path | None = None,
) -> CropSet:
    """`crops` plus the `other` crops, each OTHER_REPEAT times: every box found in the sources'
    tile-free photos, and with `rows` (--other-rows) the unlabelled boxes on the labelled rows of
    the real photos (the first source): flower and season tiles in a hand, read as 1s or 1p; with
    `lines` (--flower-lines) those that continue any line of labelled tiles in every train photo;
    with `listed` (--flower-boxes) the boxes of that hand-checked listing instead of mined ones."""
    find = detector_boxes(detector, imgsz)
    negatives = negative_images(sources)
    other = [other_crops(negatives, find, cache_dir / "crops_other.npz")]
    print(f"`other` crops: {len(other[0].y)} from {len(negatives)} tile-free photos", flush=True)
    if rows:
        on_rows, n_photos = _row_crops(sources[0], find, cache_dir, lines, listed)
        other.append(CropSet(on_rows.x, np.full(len(on_rows.y), rows_label, np.int64)))
        print(
            f"`{OUTPUT_NAMES[rows_label]}` crops: {len(on_rows.y)} unlabelled tiles in {n_photos} train photos",
            flush=True,
        )
    n = OTHER_REPEAT
    out = CropSet(
        np.concatenate([crops.x, *[o.x for o in other] * n]),
        np.concatenate([crops.y, *[o.y for o in other] * n]),
    )
    if scenes is not None:  # like the others OTHER_REPEAT times, at most OTHER_SCENES_MAX in all
        shots = data.split_images(scenes, "train")
        found = other_crops(shots, find, cache_dir / "crops_other_scenes.npz", keep=unlabelled)
        pick = np.tile(np.random.default_rng(0).permutation(len(found.y)), n)[:OTHER_SCENES_MAX]
        print(
            f"`other` crops: {len(found.y)} on no tile in {len(shots)} scenes, {len(pick)} a epoch",
            flush=True,
        )
        out = CropSet(np.concatenate([out.x, found.x[pick]]), np.concatenate([out.y, found.y[pick]]))
    return out


def _row_crops(
    source: Path,
    find: Callable[[np.ndarray], np.ndarray],
    cache_dir: Path,
    lines: bool,
    listed: Path | None,
) -> tuple[CropSet, int]:
    """The unlabelled tiles of `source`'s train photos (--other-rows / --flower-rows) and how many
    photos they come from: the boxes of a hand-checked listing (--flower-boxes), else the detector's
    boxes continuing any line of labelled tiles (--flower-lines), else those on a hand's row."""
    if listed is not None:
        got = listed_crops(listed, source, OTHER_ID, cache_dir / f"crops_listed_{listed.stem}.npz")
        return got, len({name for name, _ in read_listing(listed)[1]})
    if lines:
        photos, keep, cache = data.split_images(source, "train"), unlabelled_in_lines, "crops_other_lines.npz"
    else:
        photos, keep, cache = row_images(source), unlabelled_on_row, "crops_other_rows.npz"
    return other_crops(photos, find, cache_dir / cache, keep=keep), len(photos)


def _classifier_training_crops(args, sources: list[Path], drawn: Path | None, run_dir: Path) -> CropSet:
    """The classifier's training crops (cached per source under the run): real, synthetic, drawn,
    and `other` when an other-detector is given. The ship stage samples the replay bank from them."""
    cls_sources = sources + ([drawn] if drawn else [])
    print("classifier sources:", ", ".join(map(str, cls_sources)), flush=True)
    crops = classifier_crops(cls_sources, run_dir / "classifier", args.seed)
    crops = at_most_of_class(crops, BACK_ID, getattr(args, "cls_backs_at_most", 0), args.seed)
    if getattr(args, "cls_boxes_from", None):
        crops = _with_box_crops(
            crops, Path(args.cls_boxes_from), args.imgsz, run_dir / "classifier", args.seed
        )
    if args.other_detector and Path(args.other_detector).is_file():
        other_from = (Path(args.other_detector), args.imgsz, run_dir / "classifier")
        flower = getattr(args, "flower_rows", False)
        rows = getattr(args, "other_rows", False) or flower
        scenes = point_scenes(None) if getattr(args, "other_scenes", False) else None
        crops = _with_other(
            crops,
            sources,
            *other_from,
            rows=rows,
            rows_label=FLOWER_ID if flower else OTHER_ID,
            scenes=scenes,
            lines=flower and getattr(args, "flower_lines", False),
            listed=Path(args.flower_boxes) if flower and getattr(args, "flower_boxes", None) else None,
        )
    if getattr(args, "other_spines", 0):
        crops = _with_spines(crops, args.other_spines, args.seed)
    if getattr(args, "cls_replay", None):
        crops = _with_replay(crops, Path(args.cls_replay))
    return crops


def _with_spines(crops: CropSet, n: int, seed: int) -> CropSet:
    """`crops` plus `n` crops of drawn book spines with titles, as `other` (vision.train.spines)."""
    x, y = spine_crops(n, seed, SRC_MARGIN, (SRC_W, SRC_H))
    print(f"`other` crops: {len(y)} of drawn book spines with titles", flush=True)
    return CropSet(np.concatenate([crops.x, x]), np.concatenate([crops.y, y]))


#: The most crops of a detector's boxes on the scenes (--cls-boxes-from): as many as any synthetic
#: source gives (classifier_crops' max_extra), so the real crops still weigh most.
BOX_CROPS_MAX = 7000


def _with_box_crops(crops: CropSet, detector: Path, imgsz: int, cache_dir: Path, seed: int) -> CropSet:
    """`crops` plus at most BOX_CROPS_MAX crops of `detector`'s boxes on the cached synthetic train
    scenes, each with its labelled tile's face (vision.train.crops.box_crops; their labels are
    complete, and seat scenes show standing tiles). Cached per detector file's contents."""
    scenes = point_scenes(None)
    if scenes is None:
        raise SystemExit(f"--cls-boxes-from needs the synthetic scenes in {data.SYNTH_DIR} (vision synth)")
    if not detector.is_file():
        raise SystemExit(f"--cls-boxes-from: no detector weights at {detector}")
    digest = weights_sha256(detector)[:12]
    shots = data.split_images(scenes, "train")
    found = box_crops(shots, detector_boxes(detector, imgsz), cache_dir / f"crops_boxes_{digest}.npz")
    pick = np.random.default_rng(seed).permutation(len(found.y))[:BOX_CROPS_MAX]
    print(
        f"crops of {detector}'s boxes: {len(found.y)} on labelled tiles of {len(shots)} scenes, {len(pick)} kept",
        flush=True,
    )
    return CropSet(np.concatenate([crops.x, found.x[pick]]), np.concatenate([crops.y, found.y[pick]]))


#: The most `other` crops an epoch from the synthetic scenes' clutter (--other-scenes, repeats
#: included): about the other `other` crops together, so the class does not outweigh a face tenfold.
OTHER_SCENES_MAX = 2000


#: Each replay-bank crop is seen this many times an epoch (differently augmented) when rehearsed:
#: 16 crops of a class the real photos lack (`back`) then weigh 160 crops, against ~200 a face.
REPLAY_REPEAT = 10


def _with_replay(crops: CropSet, folder: Path) -> CropSet:
    """`crops` plus the replay bank beside a model (vision.train.replay), each REPLAY_REPEAT times.

    Why: a fine-tune on the real crops alone would forget what only the synthetic scenes show (the
    face-down `back`, other prints). Today's scenes cannot stand in for the ones the shipped
    classifier learnt from: their light-coloured backs read as 白 to it, and 6 epochs on them turned
    245 of the 344 real 白 of the val photos into `back` (round 15, models/MODEL_CARD.md). The bank
    is the shipped classifier's own training crops, as `adapt` rehearses them."""
    bank = replay.read_bank(folder)
    if bank is None:
        raise SystemExit(f"no replay bank in {folder} ({replay.BANK_IMAGE} + {replay.BANK_LABELS})")
    x, y = bank
    if x.shape[1:] != crops.x.shape[1:]:
        raise SystemExit(
            f"the replay bank in {folder} holds {x.shape[1:]} crops, training uses {crops.x.shape[1:]}"
        )
    print(f"replay bank rehearsed: {len(y)} crops from {folder}, each x{REPLAY_REPEAT}", flush=True)
    n = REPLAY_REPEAT
    return CropSet(np.concatenate([crops.x, *[x] * n]), np.concatenate([crops.y, *[y] * n]))


def _hold_out(spec: str, sources: list[Path], synth: Path | None, run_dir: Path) -> tuple[list[Path], Path]:
    """Sources for a leave-one-group-out run: the real set without the group replaces the real set,
    and the cut-face synthetic scenes are dropped (their faces are cut from every real train photo,
    the held-out group's included). Returns (sources, the in-distribution val set)."""
    from vision.train import groups

    name, without, _ = groups.split_by_spec(data.REAL_DATASET, spec, run_dir / "groups")
    kept = [without] + [s for s in sources[1:] if synth is None or Path(s) != Path(synth)]
    print(f"holding out group {name}: training on {without} (+ {len(kept) - 1} other sources)", flush=True)
    return kept, without


def _made_once(out: Path, made: bool, write: Callable[[], int], what: str) -> Path:
    """`out` as it is where `made` (its stamp names these rules, this seed), else emptied and
    written again by `write` (which returns how many it made), with one line saying so."""
    if made:
        return out
    if out.exists():
        shutil.rmtree(out)
    t = time.time()
    n = write()
    print(f"{what}: {n} made from the real train photos in {time.time() - t:.0f} s -> {out}", flush=True)
    return out


def ensure_strips(seed: int, out: Path = data.STRIPS_DIR) -> Path:
    """The strips of the real train photos for this seed (vision.train.strips), made when missing,
    made for another seed or by older rules (strips.STRIPS_VERSION)."""
    from vision.train import strips

    made = out / "strips.json"
    stamp = json.loads(made.read_text()) if made.is_file() else {}
    current = stamp.get("seed") == seed and stamp.get("version") == strips.STRIPS_VERSION
    return _made_once(out, current, lambda: strips.write_strips(out, seed), "strips")


def ensure_narrowed(low: float, seed: int, out: Path = data.NARROWED_DIR) -> Path:
    """The narrowed copies of the real train photos (vision.train.narrowed) for this seed and
    lowest share, made when missing or made by other rules."""
    from vision.train import narrowed

    made = narrowed.is_made(out, low, seed)
    return _made_once(out, made, lambda: narrowed.write_narrowed(out, low, seed), "narrowed copies")


def _train_new_only(args, crops: CropSet, num_classes: int, run_dir: Path, real_val: Path) -> Path:
    """--cls-new-only: the --cls-init classifier with only its new outputs learnt (vision.train.new_outputs)."""
    if not args.cls_init:
        raise SystemExit("--cls-new-only needs --cls-init: the classifier whose outputs stay as they are")
    t0 = time.monotonic()
    weights = train_new_outputs(
        crops,
        run_dir / "classifier",
        Path(args.cls_init),
        num_classes,
        epochs=args.cls_epochs,
        seed=args.seed,
        lr=args.cls_lr,
        val=val_crops(real_val),
        first=OTHER_ID if getattr(args, "cls_relearn_other", False) else None,
    )
    record_compute(run_dir, "classifier-new-outputs", args.cls_epochs, time.monotonic() - t0, "cpu")
    return weights


def _flower_bars(args, classifier: Path, sources: list[Path], run_dir: Path) -> tuple[float, float]:
    """OperatingPoint.flower_at_least and .rescue_flower for the classifier to ship: chosen on the
    labelled tiles of its sources (new_outputs.flower_bar, rescue_flower_bar) when it reads
    `flower`, else the defaults (no flowers)."""
    none = (DEFAULT.flower_at_least, DEFAULT.rescue_flower)
    if args.arch != "two-stage" or not Path(classifier).is_file():
        return none
    state = safe_weights.load_state_dict(Path(classifier))
    if classifier_outputs(state) <= FLOWER_ID:
        return none
    net = from_state(state)
    tiles = classifier_crops(sources, run_dir / "classifier", args.seed)
    probs = classifier_probabilities(net, as_read(tiles.x))
    bar, rescue = flower_bar(probs, tiles.y), rescue_flower_bar(probs, tiles.y)
    print(
        f"flower_at_least {bar}: chosen on {len(tiles.y)} train crops (at most {FLOWER_VETO_SHARE:.1%} called flowers); "
        f"rescue_flower {rescue} (at most {RESCUE_FLOWER_SHARE:.0%} kept from the row rescue)"
    )
    return bar, rescue


def _check_groups(args: TrainConfig) -> None:
    """A --hold-out or --point-group that names no group stops the run at once, in one line, not
    after an hour of training; so does a --point-group that could choose nothing (a --conf given,
    or --cls-new-only, which keeps the shipped point): a point the command line asked for is never
    silently chosen some other way."""
    from vision.train import groups

    if args.point_group and (args.conf is not None or getattr(args, "cls_new_only", False)):
        fixed = f"--conf {args.conf}" if args.conf is not None else "--cls-new-only (the shipped point)"
        raise SystemExit(f"--point-group chooses tile_conf, but {fixed} fixes it: give one of them")
    for flag, spec in (("--hold-out", args.hold_out), ("--point-group", args.point_group)):
        if spec:
            try:
                groups.parse_spec(spec)
            except (OSError, ValueError) as exc:
                raise SystemExit(f"{flag}: {exc}") from None


def run(args: TrainConfig) -> int:
    """The `python -m vision train` pipeline (options and defaults: vision.train.config.TrainConfig)."""
    _check_groups(args)
    run_dir = RUNS_DIR / args.name
    run_dir.mkdir(parents=True, exist_ok=True)
    synth = None if args.no_synth else ensure_synth(args.synth_n, args.seed)
    sources = data.default_sources(synth=synth)
    real_val = data.REAL_DATASET
    if getattr(args, "hold_out", None):
        sources, real_val = _hold_out(args.hold_out, sources, synth, run_dir)
    print("training sources:", ", ".join(map(str, sources)), flush=True)
    mode = data.TILES if args.arch == "two-stage" else data.FACES
    det_weights = Path(args.detector) if args.detector else run_dir / "detector" / "weights" / "best.pt"
    train_det = args.stage in ("all", "detector")
    train_cls = args.arch == "two-stage" and args.stage in ("all", "classifier")
    drawn = None
    if args.drawn_synth_n > 0 and (train_cls or (train_det and args.detector_drawn)):
        drawn = _drawn_scenes(args)
    if train_det:
        det_sources = sources + ([drawn] if drawn and args.detector_drawn else [])
        if getattr(args, "strips", False):
            det_sources.append(ensure_strips(args.seed))
        if getattr(args, "narrowed", 0.0) > 0:
            det_sources.append(ensure_narrowed(args.narrowed, args.seed))
        print("detector sources:", ", ".join(map(str, det_sources)), flush=True)
        yaml_path = data.assemble(
            f"{args.name}_{mode}",
            mode,
            det_sources,
            close_up_repeat=args.close_up_repeat,
            real_repeat=args.real_repeat,
        )
        det_weights = train_detector(
            yaml_path,
            "detector",
            imgsz=args.imgsz,
            epochs=args.det_epochs,
            hours=args.det_hours,
            seed=args.seed,
            resume=args.resume,
            weights=args.det_init,
            project=run_dir,
            close_mosaic=args.close_mosaic,
            batch=args.det_batch,
            device=args.device,
            scale=args.det_scale,
            lr0=args.det_lr0,
            freeze=args.det_freeze,
        )
        print(f"detector weights: {det_weights}", flush=True)
    cls_weights = Path(args.classifier) if args.classifier else run_dir / "classifier" / "tile_classifier.pt"
    if train_cls:
        crops = _classifier_training_crops(args, sources, drawn, run_dir)
        num_classes = max(int(crops.y.max()) + 1, NUM_CLASSES)
        print(
            f"classifier crops: {len(crops.y)} ({np.bincount(crops.y, minlength=num_classes).tolist()})",
            flush=True,
        )
        if getattr(args, "cls_new_only", False):
            cls_weights = _train_new_only(args, crops, num_classes, run_dir, real_val)
        else:
            cls_weights = train_classifier(
                crops,
                run_dir / "classifier",
                epochs=args.cls_epochs,
                seed=args.seed,
                val=val_crops(real_val),
                resume=args.resume,
                minutes=args.cls_minutes,
                num_classes=num_classes,
                device=torch_device(args.device),
                init=Path(args.cls_init) if args.cls_init else None,
                lr=args.cls_lr,
                low_res=getattr(args, "cls_low_res", 0.0),
                any_turn=getattr(args, "cls_any_turn", 0.0),
                side_light=getattr(args, "cls_side_light", 0.0),
            )
        print(f"classifier weights: {cls_weights}", flush=True)
    if args.ship or args.stage == "ship":
        # A staging folder lets a candidate be evaluated before it replaces the shipped model.
        models_dir = Path(args.models_dir) if args.models_dir else MODELS_DIR
        kept, gate = shipped_op(), shipped_gate()  # read before a probe may write over models/
        bar, rescue_bar = _flower_bars(args, cls_weights, sources, run_dir)
        conf = args.conf
        if conf is None and getattr(args, "cls_new_only", False):
            conf = kept.tile_conf
            print(f"--cls-new-only: the shipped point {conf} is kept (every earlier output as shipped)")
        if conf is None:
            conf = kept.tile_conf
            probe_set = point_photos(args.point_group, run_dir) if args.point_group else point_scenes(synth)
            if probe_set is not None and data.split_images(probe_set, "val"):
                from vision.read.detect import load_model
                from vision.train.evaluate import collect

                probe = ship(
                    det_weights,
                    cls_weights if args.arch == "two-stage" else None,
                    conf,
                    args.imgsz,
                    models_dir=models_dir,
                    kept=kept,
                    flower_at_least=bar,
                    gate=gate,
                )
                conf = choose_conf(collect(probe_set, load_model(probe), "val"), default=kept.tile_conf)
        path = ship(
            det_weights,
            cls_weights if args.arch == "two-stage" else None,
            conf,
            args.imgsz,
            {"seed": args.seed, "sources": [source_name(s) for s in sources]},
            models_dir=models_dir,
            kept=kept,
            flower_at_least=bar,
            rescue_flower=rescue_bar,
            gate=gate,
        )
        print(f"shipped: {path} (conf {conf}{', the shipped flower gate kept' if gate else ''})", flush=True)
        _export_for_reading(path)
    if args.arch == "two-stage" and (args.ship or args.stage in ("ship", "replay")):
        if drawn is None and args.drawn_synth_n > 0:
            drawn = _drawn_scenes(args)
        crops = _classifier_training_crops(args, sources, drawn, run_dir)
        models_dir = Path(args.models_dir) if args.models_dir else MODELS_DIR
        bank = replay.write_bank(models_dir, *replay.sample(crops.x, crops.y, seed=args.seed))
        print(f"replay bank for `adapt`: {bank}", flush=True)
    return 0
