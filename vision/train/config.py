"""Every option of `python -m vision train`, with its one default, as a dataclass.

Why: the defaults used to live in three places (argparse, the training functions' keyword
defaults, the model card's commands) and drifted apart (the detector's epochs were 30 in the CLI
and 40 in the function). Now the dataclass is the one place; the CLI flags are generated from it
(`add_arguments`), and `vision.train.pipeline.run` takes a `TrainConfig` (an argparse namespace built from
it works too).
"""

from __future__ import annotations

import argparse
from dataclasses import MISSING, dataclass, field, fields

from vision import _env


def _opt(default, help: str, **extra):  # noqa: A002 - mirrors argparse's own keyword
    return field(default=default, metadata={"help": help, **extra})


@dataclass
class TrainConfig:
    """Options of a training run (see models/MODEL_CARD.md for the commands behind the shipped model)."""

    stage: str = _opt(
        "all",
        "what to run; replay: only (re)build the replay bank that `adapt` mixes in",
        choices=["all", "detector", "classifier", "ship", "replay"],
    )
    arch: str = _opt("two-stage", "model kind", choices=["two-stage", "single"])
    name: str = _opt("shipped", "run folder under runs/train/")
    device: str = _opt(
        "cpu",
        "cpu, or a CUDA device: 0 / cuda:0; several GPUs as 0,1,2,3 (the detector trains with "
        "ultralytics' own DDP, the classifier on the first)",
    )
    imgsz: int = _opt(384, "detector input size")
    det_epochs: int = _opt(30, "detector epochs")
    det_hours: float | None = _opt(None, "wall-time cap for the detector")
    det_init: str | None = _opt(None, "start the detector from these weights")
    det_batch: int = _opt(16, "detector batch size (raise it on a GPU)")
    close_up_repeat: int = _opt(1, "link close-up train photos this many times (detector)")
    real_repeat: int = _opt(
        1, "link every real train photo this many times (detector; weighs the scenes less)"
    )
    strips: bool = _opt(
        False,
        "the detector also trains on strips: rows of the real train photos stretched as an export into "
        "a square and squeezed back as the reader's aspect views do (vision.train.strips)",
    )
    narrowed: float = _opt(
        0.0,
        "above 0: the detector also trains on every real train photo narrowed to a share of its width "
        "drawn between this and 0.95, labels unchanged (vision.train.narrowed: the train exports "
        "taught tiles squatter than a camera shows them); 0: off, every round up to stop 56",
    )
    other_detector: str = _opt(
        str(_env.REPO_ROOT / "models" / "tile_detector.pt"),
        "detector whose boxes in tile-free train photos teach the classifier `other` ('' = off)",
    )
    other_rows: bool = _opt(
        False,
        "the classifier also learns `other` from the unlabelled detector boxes on the labelled rows "
        "of the real photos (flower and season tiles in a hand; round 15, not shipped)",
    )
    flower_rows: bool = _opt(
        False,
        "with --other-rows: those crops are a `flower` output of their own (a 37th), which does not "
        "lower tile confidence; a box read as a flower more than as any face is not returned",
    )
    flower_lines: bool = _opt(
        False,
        "with --flower-rows: the `flower` crops are the unlabelled boxes that continue a row or a "
        "column of labelled tiles in every real train photo (a grid of tiles too), not only a hand's row",
    )
    flower_boxes: str | None = _opt(
        None,
        "with --flower-rows: the `flower` crops are the boxes of this hand-checked listing "
        "(datasets/flowers/chinese-mahjong-v4-train.json: flower, season and joker tiles of the train "
        "photos, each looked at) instead of mined ones",
    )
    other_scenes: bool = _opt(
        False,
        "the classifier also learns `other` from the detector's boxes on no labelled tile of the "
        "synthetic train scenes (complete labels: clutter such as book spines)",
    )
    cls_relearn_other: bool = _opt(
        False,
        "with --cls-new-only: the `other` output learns again too (features and face rows frozen)",
    )
    other_spines: int = _opt(
        0,
        "the classifier also learns `other` from this many crops of drawn book spines with printed "
        "titles, each seen once an epoch (vision.train.spines; round 29)",
    )
    cls_boxes_from: str | None = _opt(
        None,
        "the classifier also learns from this detector's own boxes on the synthetic train scenes, "
        "each with the face of the labelled tile it boxes (no backs): the crops it will be handed "
        "(round 21: the whole standing tile as round 20 boxes it)",
    )
    detector_drawn: bool = _opt(False, "the detector trains on the drawn-face scenes too")
    close_mosaic: int = _opt(10, "final detector epochs without mosaic")
    det_scale: float = _opt(
        0.5,
        "the detector's random zoom (ultralytics `scale`): each training picture is resized by a "
        "gain drawn from 1 - this .. 1 + this; 0.5 (ultralytics' default) in every round up to 23",
    )
    det_lr0: float | None = _opt(
        None,
        "the detector's starting learning rate, with AdamW; default: ultralytics' own choice "
        "(AdamW at 0.002 for a run under 10,000 batches, every round up to 26)",
    )
    det_freeze: int = _opt(
        0,
        "keep the detector's first N layers as they start (ultralytics `freeze`; 10: YOLOv8n's "
        "whole backbone, only the neck and head learn); 0: every layer learns, every round up to 27",
    )
    cls_epochs: int = _opt(14, "classifier epochs")
    cls_minutes: float | None = _opt(None, "wall-time cap for the classifier")
    cls_init: str | None = _opt(None, "start the classifier from these weights (a tile_classifier.pt)")
    cls_lr: float = _opt(3e-3, "classifier peak learning rate (one-cycle)")
    cls_low_res: float = _opt(
        0.0,
        "share of the classifier's training crops that lose resolution (each axis down to 0.35-1 "
        "and back up) as a squeezed export or a far tile reaches it; 0: as before",
    )
    cls_any_turn: float = _opt(
        0.0,
        "share of the classifier's training crops whose tile is turned by up to 45 degrees either "
        "way and cut as a detector boxes a turned tile (a pile of tiles at a real table); 0: as before",
    )
    cls_side_light: float = _opt(
        0.0,
        "share of the classifier's training crops lit from one side (a brightness ramp across the "
        "crop, its ends 1 -/+ 0.15..0.45); 0: as before",
    )
    cls_backs_at_most: int = _opt(
        0,
        "at most this many face-down `back` crops in the classifier's training crops (the scenes "
        "give ~4,100, every other class under 1,100); 0: all, as before",
    )
    cls_new_only: bool = _opt(
        False,
        "with --cls-init: only the outputs it lacks learn (the `flower` of --flower-rows); its "
        "features and earlier outputs stay as they are, so every face reads as before (minutes on the "
        "CPU: --resume, --cls-minutes and --device do not apply; the ship stage keeps the shipped point)",
    )
    cls_replay: str | None = _opt(
        None,
        "rehearse the replay bank of this model folder (e.g. models) in the classifier's crops: a "
        "fine-tune that adds crops without the synthetic scenes keeps the faces they taught",
        metavar="DIR",
    )
    seed: int = _opt(0, "random seed")
    no_synth: bool = _opt(False, "real (+ saved labels) data only")
    hold_out: str | None = _opt(
        None,
        "leave one group of the real set out (datasets/groups/*.json, vision.train.groups)",
        metavar="FILE:GROUP",
    )
    synth_n: int = _opt(400, "scenes to generate if none exist yet")
    drawn_synth_n: int = _opt(400, "drawn-face scenes for the classifier (0 = none)")
    conf: float | None = _opt(None, "operating point (tile_conf) to ship (default: chosen on synthetic val)")
    point_group: str | None = _opt(
        None,
        "choose the shipped tile_conf on the real val photos of this group instead of synthetic val "
        "(no detector trains on val photos; report without them: reader_report --without-group)",
        metavar="FILE:GROUP",
    )
    ship: bool = _opt(False, "copy the result into models/ (or --models-dir)")
    detector: str | None = _opt(None, "ship these detector weights instead of the run's")
    classifier: str | None = _opt(
        None, "ship these classifier weights instead of the run's (e.g. keep models/tile_classifier.pt)"
    )
    models_dir: str | None = _opt(None, "ship into this folder instead of models/ (staging)")
    resume: bool = _opt(False, "continue an interrupted run")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One `--flag` per TrainConfig field, with the field's default, type and help."""
    for f in fields(TrainConfig):
        flag = "--" + f.name.replace("_", "-")
        meta = dict(f.metadata)
        default = f.default if f.default is not MISSING else None
        if f.type in ("bool", bool):
            parser.add_argument(flag, action="store_true", help=meta["help"])
            continue
        kind = {"int": int, "float": float, "int | None": int, "float | None": float}.get(str(f.type), str)
        parser.add_argument(flag, type=kind, default=default, **meta)


def from_namespace(ns: argparse.Namespace) -> TrainConfig:
    """The TrainConfig of parsed CLI arguments (extra attributes such as `command` are ignored)."""
    return TrainConfig(**{f.name: getattr(ns, f.name) for f in fields(TrainConfig) if hasattr(ns, f.name)})


def torch_device(device: str) -> str:
    """The torch device for the classifier: "0,1" or "0" -> "cuda:0"; "cpu"/"cuda:1" as given."""
    first = device.split(",")[0].strip()
    return f"cuda:{first}" if first.isdigit() else first
