"""Command line: `python -m vision {detect,train,evaluate,adapt,average,export-onnx,synth,labels,
label-audit,flower-gate}`.

Errors are reported as one clear line on stderr, never a traceback: the CLI is used by people
checking photos and by scripts that read its JSON lines.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from vision import _env  # noqa: F401  (offline ultralytics settings before anything imports it)
from vision.train.config import add_arguments as add_train_arguments
from vision.train.config import from_namespace

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".heic", ".heif"}


def _err(msg: str) -> None:
    print(f"error: {msg}", file=sys.stderr, flush=True)


def _expand(paths: list[str]) -> Iterator[Path]:
    """Files as given (whatever their suffix); folders give their image files, sorted, recursively."""
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in IMAGE_SUFFIXES)
        else:
            yield p


def cmd_detect(args: argparse.Namespace) -> int:
    """One JSON line (or readable line) per image; bad files are reported and skipped. Each file is
    decoded once at reduced size (vision.read.photo_pixels.PhotoPixels, the path `detect(path)` takes);
    its full size, the pixels the boxes are in, comes from the header."""
    from vision.read.detect import PhotoPixels, detect, detect_with_maybe, load_model
    from vision.read.imageio import ImageLoadError

    try:
        model = load_model(args.model)
    except Exception as exc:  # noqa: BLE001 - the CLI must end with a line, not a traceback
        _err(f"cannot load model {args.model or '(shipped)'}: {exc}")
        return 2
    failed = 0
    for path in _expand(args.paths):
        try:
            pixels = PhotoPixels.decode(path, model.det_imgsz)
            maybe: list = []
            if args.maybe:  # the page's own reading: tiles and suggestions
                dets, maybe = detect_with_maybe(pixels, model=model, point=args.conf)
            else:
                dets = detect(pixels, conf=args.conf, model=model)
        except ImageLoadError as exc:
            _err(str(exc))
            failed += 1
            continue
        except Exception as exc:  # noqa: BLE001
            _err(f"{path}: detection failed: {type(exc).__name__}: {exc}")
            failed += 1
            continue
        w, h = pixels.size
        if args.json:
            record = {"image": str(path), "width": w, "height": h, "detections": [d.to_json() for d in dets]}
            if args.maybe:
                record["maybe_missed"] = [d.to_json() for d in maybe]
            print(json.dumps(record, ensure_ascii=False), flush=True)
        else:
            tiles = " ".join(d.cls for d in dets)
            more = f"; maybe missed: {' '.join(d.cls for d in maybe)}" if maybe else ""
            print(f"{path} ({w}x{h}): {len(dets)} tiles: {tiles}{more}", flush=True)
    return 1 if failed else 0


def _missing_data(data: str) -> bool:
    """Say so where a --data path does not exist (the command then exits 2)."""
    if Path(data).exists():
        return False
    _err(f"no such dataset: {data}")
    return True


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Print the evaluation report of a model on a labelled set."""
    from vision.read.detect import load_model
    from vision.train.evaluate import evaluate, format_report, report_json

    if _missing_data(args.data):
        return 2
    try:
        model = load_model(args.model)
        rep = evaluate(
            Path(args.data), model, conf=args.conf, split=args.split, aspect_views=not args.plain_view_only
        )
    except Exception as exc:  # noqa: BLE001
        _err(f"evaluation failed: {type(exc).__name__}: {exc}")
        return 1
    print(report_json(rep) if args.json else format_report(rep))
    return 0


def _guarded(call: Callable[[], int | None], what: str, interrupted: str = "interrupted") -> int:
    """Run a long command; Ctrl-C or a failure ends with one stderr line and an exit code, no traceback."""
    try:
        return int(call() or 0)
    except KeyboardInterrupt:
        _err(interrupted)
        return 130
    except Exception as exc:  # noqa: BLE001
        _err(f"{what} failed: {type(exc).__name__}: {exc}")
        return 1


def cmd_train(args: argparse.Namespace) -> int:
    """Train (and optionally ship) the model; see vision.train.pipeline and models/MODEL_CARD.md."""
    from vision.train.pipeline import run

    config = from_namespace(args)
    return _guarded(lambda: run(config), "training", "interrupted; continue with --resume")


def cmd_adapt(args: argparse.Namespace) -> int:
    """Learn the player's set from saved photos into a new model folder (vision.train.adapt)."""
    from vision.train.adapt import AdaptConfig, AdaptError, adapt

    config = AdaptConfig(seed=args.seed, device=args.device)
    if args.steps is not None:
        config.steps = args.steps
    if args.views is not None:
        config.player_views = config.bank_views = args.views
    if args.detector_epochs is not None:
        config.detector_epochs = args.detector_epochs
    config.cross_check = not args.no_check
    try:
        path = adapt(args.data, args.out, base=args.base, config=config, echo=lambda m: print(m, flush=True))
    except AdaptError as exc:
        _err(str(exc))
        return 2
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        _err(f"adapt failed: {type(exc).__name__}: {exc}")
        return 1
    print(f"personal model: {path}  (use it: --model {path}  or  MAHJONG_MODEL={path})", flush=True)
    return 0


def cmd_synth(argv: list[str]) -> int:
    """Forward to the synthetic scene generator (vision.train.synth.cli.main), imported lazily."""
    try:
        from vision.train.synth.cli import main as synth_main
    except ImportError as exc:
        _err(f"the synthetic scene generator is not available (vision.train.synth.cli: {exc})")
        return 2
    return _guarded(lambda: synth_main(argv), "synthetic generation")


def cmd_export_onnx(args: argparse.Namespace) -> int:
    """Export a model's detector for ONNX Runtime, beside its weights (vision.read.onnx_run: read in
    their place while the weights are unchanged)."""
    from vision.read.detect import DEFAULT_MODEL
    from vision.read.manifest import ModelFileError
    from vision.read.onnx_run import export_model

    try:
        made = export_model(Path(args.model or DEFAULT_MODEL))
    except ImportError as exc:
        _err(f"exporting needs the `onnx` package (pip install onnx): {exc}")
        return 2
    except (ModelFileError, OSError) as exc:
        _err(str(exc))
        return 2
    print(f"exported: {made} ({made.stat().st_size / 1e6:.1f} MB)", flush=True)
    return 0


def cmd_flower_gate(args: argparse.Namespace) -> int:
    """Write a model with a flower gate (vision.train.flower_gate): the given model's weights, a
    gate learnt from a hand-checked flower listing, and its bar chosen on held-out train photos."""
    from vision.read.detect import DEFAULT_MODEL
    from vision.read.manifest import ModelFileError
    from vision.train.crops import ListingError
    from vision.train.data import REAL_DATASET, split_images
    from vision.train.flower_gate import DEFAULT_LISTING, make_gated_model

    source = Path(args.data) if args.data else REAL_DATASET
    if not split_images(source, "train"):  # a folder or its data.yaml, as every other command
        _err(f"no train split in {source}: the gate learns from its labelled train photos")
        return 2
    try:
        made = make_gated_model(
            Path(args.model or DEFAULT_MODEL),
            Path(args.boxes) if args.boxes else DEFAULT_LISTING,
            Path(args.out),
            source,
            args.epochs,
            args.seed,
            width=args.width,
            lr=args.lr,
            shared=args.shared_convs,
            start=Path(args.from_gate) if args.from_gate else None,
            imitate=args.imitate,
        )
    except (ListingError, ModelFileError, ValueError, OSError) as exc:
        _err(str(exc))
        return 2
    print(f"model with a flower gate: {made}", flush=True)
    return 0


def cmd_average(args: argparse.Namespace) -> int:
    """Write the weight average of detectors fine-tuned from one start (vision.train.average); the
    ship stage turns it into a candidate like any trained detector."""
    from vision.read.safe_weights import WeightsError
    from vision.train.average import AverageError, average_detectors

    try:
        out = average_detectors([Path(p) for p in args.detectors], Path(args.out), args.shares)
    except (AverageError, WeightsError, OSError) as exc:
        _err(str(exc))
        return 2
    print(f"averaged detector: {out} ({out.stat().st_size / 1e6:.1f} MB)", flush=True)
    return 0


def cmd_label_audit(args: argparse.Namespace) -> int:
    """Lay out where a reader and a set's labels disagree, for a person to look at (vision.train.label_audit)."""
    from vision.read.detect import load_model
    from vision.train.label_audit import audit

    if _missing_data(args.data):
        return 2

    def run() -> int:
        path, sheets = audit(Path(args.data), load_model(args.model), Path(args.out), args.split)
        n = len(json.loads(path.read_text(encoding="utf-8"))["disagreements"])
        print(f"{n} labelled boxes to look at: {path} and {len(sheets)} sheet(s) in {args.out}", flush=True)
        return 0

    return _guarded(run, "audit")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (without `synth`, whose arguments belong to the generator)."""
    parser = argparse.ArgumentParser(prog="python -m vision", description="Mahjong tile vision tools.")
    sub = parser.add_subparsers(dest="command", required=True)

    d = sub.add_parser("detect", help="read the tiles in photos")
    d.add_argument("paths", nargs="+", help="image files or folders")
    d.add_argument("--conf", type=float, default=None, help="confidence threshold (default: model's)")
    d.add_argument("--model", default=None, help="model.json or YOLO .pt (default: shipped model)")
    d.add_argument("--json", action="store_true", help="one JSON line per image")
    d.add_argument(
        "--maybe",
        action="store_true",
        help="also the boxes the reader doubted, as the page offers them ('maybe missed'; never counted as tiles)",
    )

    e = sub.add_parser("evaluate", help="measure a model on a labelled set")
    e.add_argument("--data", required=True, help="data.yaml or dataset folder")
    e.add_argument("--model", default=None)
    e.add_argument("--conf", type=float, default=None, help="operating point (default: model's)")
    e.add_argument("--split", default="val")
    e.add_argument("--plain-view-only", action="store_true", help="no aspect views (measure what they add)")
    e.add_argument("--json", action="store_true")

    a = sub.add_parser("adapt", help="learn a player's own tile set from a few saved photos")
    a.add_argument("data", help="folder of saved photos (the page's layout: data.yaml, images/, labels/)")
    a.add_argument("--out", required=True, help="new folder for the personal model (never models/)")
    a.add_argument("--base", default=None, help="model.json to start from (default: the shipped model)")
    a.add_argument("--steps", type=int, default=None, help="fine-tuning steps (default: AdaptConfig)")
    a.add_argument("--views", type=int, default=None, help="augmented views per tile (default: AdaptConfig)")
    a.add_argument(
        "--detector-epochs", type=int, default=None, help="detector fine-tuning passes; 0 keeps the detector"
    )
    a.add_argument(
        "--no-check", action="store_true",
        help="keep every stage without reading each photo by a model adapted on the others (faster)",
    )  # fmt: skip
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--device", default="cpu", help="cpu, cuda, cuda:0 ...")

    x = sub.add_parser(
        "export-onnx", help="export a model's detector for ONNX Runtime (read in its place, faster)"
    )
    x.add_argument("--model", default=None, help="model.json (default: the shipped model)")

    v = sub.add_parser("average", help="average the weights of detectors fine-tuned from one start")
    v.add_argument(
        "detectors", nargs="+", help="detector .pt files (ultralytics checkpoints, same architecture)"
    )
    v.add_argument("--out", required=True, help="the averaged detector .pt (never one of the sources)")
    v.add_argument(
        "--shares",
        type=float,
        nargs="+",
        default=None,
        help="one weight per detector, summing to 1 (default: equal)",
    )

    g = sub.add_parser(
        "flower-gate", help="teach a model which boxes are flower, season or joker tiles (never returned)"
    )
    g.add_argument(
        "--boxes",
        default=None,
        help="hand-checked listing of flower boxes in the set's train photos "
        "(default: the project's datasets/flowers/chinese-mahjong-v4-train.json, from any folder)",
    )
    g.add_argument("--model", default=None, help="model.json to add the gate to (default: the shipped model)")
    g.add_argument("--out", required=True, help="folder for the model with its gate")
    g.add_argument("--data", default=None, help="the dataset the listing names (default: the real set)")
    g.add_argument("--epochs", type=int, default=4)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument(
        "--width",
        type=int,
        default=None,
        help="the gate's width (default: the classifier's, its features the start; narrower learns from scratch)",
    )
    g.add_argument("--lr", type=float, default=2e-3)
    g.add_argument(
        "--shared-convs",
        type=int,
        default=0,
        help="keep the classifier's first N conv blocks, frozen: the reader then runs only the gate's "
        "last layers on the classifier's own activations (0: the gate is a whole net of its own)",
    )
    g.add_argument(
        "--from-gate",
        default=None,
        help="a wider gate's weights (e.g. models/flower_gate.pt) that a narrower --width gate starts "
        "from: each conv layer's strongest channels, then fine-tuned (default: from scratch)",
    )
    g.add_argument(
        "--imitate",
        type=float,
        default=0.0,
        help="with --from-gate: this share of the loss is matching the wider gate's answers on the same "
        "crops (0: the labels alone)",
    )

    la = sub.add_parser(
        "label-audit",
        help="lay out where a reader and a set's labels disagree, for a person to look at "
        "(fixes go into datasets/label_fixes.json)",
    )
    la.add_argument("--data", required=True, help="data.yaml or dataset folder")
    la.add_argument("--model", default=None, help="model.json (default: the shipped model)")
    la.add_argument("--split", default="val")
    la.add_argument("--out", required=True, help="folder for disagreements.json and the contact sheets")

    t = sub.add_parser(
        "train", help="train the tile model (models/MODEL_CARD.md: the commands behind the shipped one)"
    )
    add_train_arguments(t)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "synth":
        return cmd_synth(argv[1:])
    if argv and argv[0] == "labels":  # `labels check DIR [--repair]`: vision.labels.check
        from vision.labels.check import main as labels_main

        return labels_main(argv[1:])
    args = build_parser().parse_args(argv)
    handlers = {
        "detect": cmd_detect,
        "evaluate": cmd_evaluate,
        "train": cmd_train,
        "adapt": cmd_adapt,
        "export-onnx": cmd_export_onnx,
        "average": cmd_average,
        "flower-gate": cmd_flower_gate,
        "label-audit": cmd_label_audit,
    }
    return handlers[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
