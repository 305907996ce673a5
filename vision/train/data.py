"""Assemble training data into a writable Ultralytics dataset outside the tracked tree.

Why: the shared real set is read-only (ultralytics cannot write its label cache there), synthetic
scenes and the app's saved labels live elsewhere, and the two-stage model needs the same photos
relabelled as one class ("tile"). So every source is linked (never copied) image by image into
`.cache/datasets/<name>/{train,val}/images` with rewritten label files beside it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import yaml

from vision._env import CACHE_DIR, REPO_ROOT
from vision.classes import CLASS_NAMES
from vision.labels import store as labelstore
from vision.labels.yolo_format import Box, label_path_for, pixel_boxes, read_labels

#: The label format, read here by every trainer.
__all__ = ["Box", "label_path_for", "labelled_tiles", "pixel_boxes", "read_labels"]

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".heic", ".heif"}
REAL_DATASET = Path(
    os.environ.get("VISION_REAL_DATA", str(REPO_ROOT.parent / "shared" / "datasets" / "chinese-mahjong-v4"))
)
LABELLED_DATASET = REPO_ROOT / "datasets" / "labelled"
SYNTH_DIR = CACHE_DIR / "synth"
#: Scenes whose faces are all drawn (other printing styles); used for the classifier only.
SYNTH_DRAWN_DIR = CACHE_DIR / "synth-drawn"
DATASETS_DIR = CACHE_DIR / "datasets"
#: Rows of the real train photos as the reader's aspect views show a stretched export (vision.train.strips).
STRIPS_DIR = CACHE_DIR / "strips"
#: Every real train photo a little narrower (vision.train.narrowed).
NARROWED_DIR = CACHE_DIR / "narrowed"

#: Label modes: all 35 classes, or every tile (face or back) as the single class "tile".
FACES = "faces"
TILES = "tiles"


def _list_images(entry: str | list[str], root: Path) -> list[Path]:
    entries = entry if isinstance(entry, list) else [entry]
    images: list[Path] = []
    for e in entries:
        p = Path(e)
        p = p if p.is_absolute() else root / p
        if p.is_dir():
            # hidden names are never photos: temp files of interrupted writes, editors' swap files
            images += sorted(
                f for f in p.rglob("*") if f.suffix.lower() in IMAGE_SUFFIXES and not f.name.startswith(".")
            )
        elif p.suffix == ".txt" and p.is_file():
            for line in p.read_text().splitlines():
                if line.strip():
                    q = Path(line.strip())
                    images.append(q if q.is_absolute() else (p.parent / q).resolve())
    return images


def split_images(source: Path, split: str) -> list[Path]:
    """Images of one split ("train" or "val") of a dataset given as a data.yaml or its folder.

    A folder without data.yaml but with `images/` counts as a one-split set (returned for "train").
    Missing splits give an empty list, so optional sources (saved labels) may be absent or empty.
    A folder of saved labels (vision.labels.store) gives only its complete examples, newest version
    of each photo: never a file an interrupted save left behind.
    """
    source = Path(source)
    yaml_path = source if source.suffix in {".yaml", ".yml"} else source / "data.yaml"
    if labelstore.is_labelstore(yaml_path.parent):
        return [e.image for e in labelstore.complete_examples(yaml_path.parent, split)]
    if yaml_path.is_file():
        cfg = yaml.safe_load(yaml_path.read_text()) or {}
        # `path` is relative to the yaml's folder; without it the folder itself is the root
        root = yaml_path.parent / cfg["path"] if cfg.get("path") else yaml_path.parent
        if split not in cfg:
            return []
        return _list_images(cfg[split], root)
    folder = source if source.is_dir() else source.parent
    if split == "train" and (folder / "images").is_dir():
        return _list_images("images", folder)
    return []


def write_whole(path: Path, blob: bytes) -> None:
    """Write `blob` under a hidden name, then give it its own: a derived training picture (a strip,
    a narrowed copy) is never half there, and hidden names are never listed as photos."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(blob)
    tmp.replace(path)


def _link(src: Path, dst: Path) -> None:
    if dst.is_symlink() or dst.exists():
        dst.unlink()
    dst.symlink_to(src.resolve())


def write_dataset(
    out_dir: Path,
    splits: dict[str, Iterable[tuple[str, Path]]],
    mode: str = FACES,
) -> Path:
    """Write a linked Ultralytics dataset and return its data.yaml.

    `splits` maps "train"/"val" to (prefix, image path) pairs; the prefix keeps names from different
    sources apart. In TILES mode every class becomes 0 ("tile").
    """
    if mode not in (FACES, TILES):
        raise ValueError(f"unknown mode {mode!r}")
    out_dir = Path(out_dir)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    for split, items in splits.items():
        img_dir, lbl_dir = out_dir / split / "images", out_dir / split / "labels"
        img_dir.mkdir(parents=True)
        lbl_dir.mkdir(parents=True)
        for prefix, image in items:
            if image.name.startswith("."):  # a temp file of an interrupted write, never a photo
                continue
            name = f"{prefix}_{image.name}"
            _link(image, img_dir / name)
            boxes = read_labels(label_path_for(image))
            rows = [
                f"{0 if mode == TILES else b.cls} {b.cx:.6f} {b.cy:.6f} {b.w:.6f} {b.h:.6f}" for b in boxes
            ]
            (lbl_dir / name).with_suffix(".txt").write_text("\n".join(rows) + ("\n" if rows else ""))
    names = ["tile"] if mode == TILES else list(CLASS_NAMES)
    cfg = {
        "path": str(out_dir.resolve()),
        "train": "train/images",
        "val": "val/images",
        "names": dict(enumerate(names)),
    }
    yaml_path = out_dir / "data.yaml"
    yaml_path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True))
    return yaml_path


def default_sources(synth: Path | None = SYNTH_DIR, labelled: Path | None = LABELLED_DATASET) -> list[Path]:
    """Training sources that exist: the real set, then synthetic scenes, then the app's saved labels."""
    sources = [REAL_DATASET]
    for extra in (synth, labelled):
        if extra is not None and Path(extra).exists():
            sources.append(Path(extra))
    return sources


#: A photo is a close-up when its median tile side is at least this fraction of the image side.
CLOSE_UP_SIDE = 0.19


def is_close_up(image: Path, min_side: float = CLOSE_UP_SIDE) -> bool:
    """Whether the photo's tiles are large (median sqrt(w*h) of its boxes, normalised).

    Why: close-ups are a small share of the real train photos, and a detector trained on the set as
    is found far fewer of their tiles than of the others (measured in models/MODEL_CARD.md).
    """
    boxes = read_labels(label_path_for(image))
    if not boxes:
        return False
    return float(np.median([np.sqrt(b.w * b.h) for b in boxes])) >= min_side


def assemble(
    name: str,
    mode: str = FACES,
    sources: list[Path] | None = None,
    val_source: Path = REAL_DATASET,
    close_up_repeat: int = 1,
    real_repeat: int = 1,
) -> Path:
    """Assemble train (all sources' train splits) and val (the real set's val) into `.cache/datasets`.

    `close_up_repeat` > 1 links every close-up training photo that many times (under distinct
    names), rebalancing the detector's training by tile scale. `real_repeat` > 1 links every photo
    of the first source (the real set) that many times: the synthetic scenes then weigh less
    without being fewer (round 6 lost ground on flat real photos with the scenes at a third).
    The two multiply for a real close-up.
    """
    sources = default_sources() if sources is None else sources

    def train_items() -> Iterator[tuple[str, Path]]:
        for i, src in enumerate(sources):
            for img in split_images(src, "train"):
                copies = (close_up_repeat if close_up_repeat > 1 and is_close_up(img) else 1) * (
                    real_repeat if i == 0 else 1
                )
                yield f"s{i}", img
                for k in range(1, copies):
                    yield f"s{i}r{k}", img

    splits = {
        "train": list(train_items()),
        "val": [("v", img) for img in split_images(val_source, "val")],
    }
    return write_dataset(DATASETS_DIR / name, splits, mode)


def extract_crops(
    images: Iterable[Path], margin: float, size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cut every labelled box of the given images into classifier crops.

    Returns (crops uint8 N x H x W x 3, class ids int64 N, index of the source image int64 N); the
    source index lets callers split by photo, never by crop (crops of one photo are correlated).
    Unreadable images are skipped: one bad file in a folder of saved labels must not stop training.
    """
    from vision.read.imageio import ImageLoadError, load_image
    from vision.read.tilenet import crop_tiles

    crops, classes, owners = [], [], []
    for idx, image in enumerate(images):
        boxes = read_labels(label_path_for(image))
        if not boxes:
            continue
        try:
            rgb = load_image(image)
        except ImageLoadError:
            continue
        h, w = rgb.shape[:2]
        xyxy = pixel_boxes(boxes, w, h)
        crops.append(crop_tiles(rgb, xyxy, margin=margin, size=size))
        classes += [b.cls for b in boxes]
        owners += [idx] * len(boxes)
    if not crops:
        return np.zeros((0, size[1], size[0], 3), np.uint8), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(crops), np.array(classes, np.int64), np.array(owners, np.int64)


def labelled_tiles(image: Path, rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The labelled tiles of `image`: their boxes (x1, y1, x2, y2) in `rgb`'s pixels and their class
    ids. One reading of a photo's label file for the crops of training and the reports that compare
    a reader with the labels."""
    labels = read_labels(label_path_for(image))
    classes = np.array([b.cls for b in labels], np.int64)
    return pixel_boxes(labels, rgb.shape[1], rgb.shape[0]), classes
