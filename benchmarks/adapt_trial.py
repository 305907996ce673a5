"""What `python -m vision adapt` buys on a group of photos: adapt on N of them, measure on the rest.

    python benchmarks/adapt_trial.py --group datasets/groups/chinese-mahjong-v4.json:g0 \
        --model runs/lopo-g0/model/model.json --photos 5 --out runs/adapt-trial-g0
    python benchmarks/adapt_trial.py --data ../shared/datasets/riichi-standing-dev/data.yaml \
        --camera-aspect 1.7778 --model models/model.json --photos 5 --out runs/adapt-trial-riichi

`--data` takes every photo of a labelled set instead of a group (a set of a print never trained on:
the player's photos and the new photos of that set); `--camera-aspect W/H` first resizes each photo
to that aspect, keeping its height (riichi-standing-dev's frames were 16:9, exported stretched to a
square), into OUT/photos, so the learnt and the tested photos look as the camera saw them.

The N photos are drawn at random (seeded) from the group's val photos and saved exactly as the page
saves them (vision.labels.store); the rest of the group's val photos are the test. Both the base model
and the adapted one are measured on that same rest, so the difference is what adapting did. Use a
base model trained WITHOUT the group (`train --hold-out`) for the honest "new print" number.
Prints one JSON object (also written to OUT/result.json): adapt wall time, and per model tiles
returned, faces right of those, photos fully right, mAP50. `--other-set DATA` also reads another
set's val photos with both models ("at another table": the player's model on a print it never
learnt, where it should lose as little as it can against the base).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("YOLO_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from vision.classes import CLASS_NAMES  # noqa: E402
from vision.labels import store as labelstore
from vision.read.detect import load_model  # noqa: E402
from vision.read.imageio import load_image  # noqa: E402
from vision.train import data, groups  # noqa: E402
from vision.train.adapt import AdaptConfig, adapt  # noqa: E402
from vision.train.evaluate import evaluate  # noqa: E402


def save_as_page(images: list[Path], root: Path) -> None:
    """Save photos with their ground-truth boxes through the page's writer."""
    for path in images:
        rgb = load_image(path)
        h, w = rgb.shape[:2]
        boxes = [
            labelstore.LabelBox(CLASS_NAMES[b.cls], b.xyxy(w, h))
            for b in data.read_labels(data.label_path_for(path))
        ]
        labelstore.save_example(rgb, boxes, root, source_name=path.stem[:30])


def at_aspect(images: list[Path], aspect: float, out: Path) -> list[Path]:
    """Each photo resized to `aspect` (W/H, height kept) as a JPEG in out/images, its labels (normalised,
    so they follow) copied to out/labels; the new paths, in the same order."""
    import shutil

    import cv2

    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    made = []
    for path in images:
        rgb = load_image(path)
        h = rgb.shape[0]
        wide = cv2.resize(rgb, (round(h * aspect), h), interpolation=cv2.INTER_CUBIC)
        target = out / "images" / f"{path.stem}.jpg"
        cv2.imwrite(str(target), wide[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, 95])
        shutil.copyfile(data.label_path_for(path), out / "labels" / f"{path.stem}.txt")
        made.append(target)
    return made


def measure(model_path: Path, test_yaml: Path) -> dict:
    rep = evaluate(test_yaml, load_model(model_path))
    return {
        "tiles_returned": rep.tiles_returned,
        "tile_precision": rep.tile_precision,
        "faces_right": rep.faces_right,
        "all_right": rep.all_right,
        "map50": rep.map50,
        "unsure_share": rep.unsure_share,
        "images": rep.n_images,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--group", help="FILE:GROUP (vision.train.groups): that group's val photos")
    which.add_argument("--data", help="a labelled set's data.yaml: all its photos")
    ap.add_argument("--camera-aspect", type=float, default=None, help="resize photos to this W/H first")
    ap.add_argument("--model", required=True, help="base model.json")
    ap.add_argument("--photos", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--only",
        default=None,
        help="keep only photos whose file name holds one of these comma-separated strings "
        "(a session of the set: tune a recipe on one session, report it on another)",
    )
    ap.add_argument("--learnt-confs", default=None, help="comma-separated learnt_conf values the check tries")
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--detector-epochs", type=int, default=None, help="0: the classifier only")
    ap.add_argument("--detector-lr", type=float, default=None)
    ap.add_argument("--detector-frozen", type=int, default=None, help="detector layers kept as they are")
    ap.add_argument(
        "--other-set",
        default=None,
        help="also read this data.yaml (or dataset folder) of another print with both models",
    )
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    out = Path(args.out)
    if args.group:
        grouping, name = groups.parse_spec(args.group)
        members = groups.photos_of(data.REAL_DATASET, "val", grouping, name)
    else:
        name = Path(args.data).parent.name
        members = data.split_images(Path(args.data), "train") + data.split_images(Path(args.data), "val")
        members = list(dict.fromkeys(members))
    if args.only:
        keys = [k for k in args.only.split(",") if k]
        members = [p for p in members if any(k in p.name for k in keys)]
        if len(members) <= args.photos:
            ap.error(f"--only {args.only}: {len(members)} photos, need more than --photos {args.photos}")
    if args.camera_aspect:
        members = at_aspect(members, args.camera_aspect, out / "photos")
    rng = np.random.default_rng(args.seed)
    chosen = set(rng.choice(len(members), args.photos, replace=False).tolist())
    learn = [p for i, p in enumerate(members) if i in chosen]
    test = [p for i, p in enumerate(members) if i not in chosen]
    save_as_page(learn, out / "labelled")
    test_yaml = data.write_dataset(out / "test", {"val": [("t", p) for p in test]})
    config = AdaptConfig(seed=args.seed)
    if args.steps:
        config.steps = args.steps
    if args.detector_epochs is not None:
        config.detector_epochs = args.detector_epochs
    if args.detector_lr is not None:
        config.detector_lr = args.detector_lr
    if args.detector_frozen is not None:
        config.detector_frozen = args.detector_frozen
    if args.learnt_confs:
        config.learnt_confs = tuple(float(c) for c in args.learnt_confs.split(","))
    t0 = time.perf_counter()
    adapted = adapt(out / "labelled", out / "model", base=args.model, config=config)
    seconds = time.perf_counter() - t0
    result = {
        "group": name,
        "learn_photos": [p.name for p in learn],
        "test_photos": len(test),
        "adapt_seconds": round(seconds, 1),
        "only": args.only,
        "detector": {
            k: getattr(config, k)
            for k in ("detector_epochs", "detector_lr", "detector_frozen", "learnt_confs")
        },
        "kept": json.loads(adapted.read_text(encoding="utf-8")).get("adapt", {}),
        "base": measure(Path(args.model), test_yaml),
        "adapted": measure(adapted, test_yaml),
    }
    if args.other_set:
        other = Path(args.other_set)
        result["other_set"] = {
            "data": str(other),
            "base": measure(Path(args.model), other),
            "adapted": measure(adapted, other),
        }
    (out / "result.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
