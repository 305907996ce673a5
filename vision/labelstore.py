"""Save a corrected photo as Ultralytics YOLO training data ("save for training" on the page).

Why: every photo a player corrects is a labelled example of exactly the photos the product sees, so
the page writes it where `vision.data` picks it up for `python -m vision train` (it reads
`datasets/labelled/data.yaml`, split `train`). The folder layout is the standard one:

    <root>/data.yaml                 names in the fixed class order of vision.classes
    <root>/images/{train,val}/<name>.jpg   the upright pixels (EXIF already applied)
    <root>/labels/{train,val}/<name>.txt   class cx cy w h, normalised to the saved image
    <root>/manifest.jsonl            one line per saved photo (hash, UTC time, model, changes)

Guarantees (tests in tests/test_labelstore.py): a photo's split depends only on its pixels (content
hash), so it is deterministic; the same photo saved twice is stored once; nothing is ever
overwritten (a file is published by `os.link`, which fails if the name exists); every file appears
complete or not at all (temp file, fsync, then link/rename); names derived from input are sanitised
and checked to stay inside the dataset folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import tempfile
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from PIL import Image

from vision._env import REPO_ROOT
from vision.classes import CLASS_ID, CLASS_NAMES, NUM_CLASSES

DEFAULT_ROOT = REPO_ROOT / "datasets" / "labelled"
#: Share of photos that go to `val` (decided by the content hash, so it never changes for a photo).
VAL_PERCENT = 20
JPEG_QUALITY = 95
_LOCK = threading.Lock()


@dataclass(frozen=True)
class LabelBox:
    """A corrected box: class name (vision.classes) and corners in pixels of the upright image."""

    cls: str
    xyxy: tuple[float, float, float, float]


@dataclass(frozen=True)
class SaveResult:
    """Where the photo went; `duplicate` is True when it had been saved before (nothing written)."""

    hash: str
    split: str
    image: Path
    label: Path
    duplicate: bool
    boxes: int


def content_hash(rgb: np.ndarray) -> str:
    """SHA-256 of the upright pixels and their shape: the same photo gives the same hash however it
    was encoded or uploaded, and its split therefore never changes."""
    a = np.ascontiguousarray(rgb)
    h = hashlib.sha256(f"{a.shape}|{a.dtype}".encode())
    h.update(a.tobytes())
    return h.hexdigest()


def split_for(digest: str, val_percent: int = VAL_PERCENT) -> str:
    """Deterministic train/val split from the content hash."""
    return "val" if int(digest[:8], 16) % 100 < val_percent else "train"


_SAFE = re.compile(r"[^A-Za-z0-9_-]+")


def safe_stem(name: str | None, max_len: int = 40) -> str:
    """A file-name stem from untrusted input: letters, digits, `_` and `-` only, never empty,
    never a path (`../x` → `x`), short enough for any file system."""
    if not name:
        return "photo"
    stem = Path(str(name).replace("\\", "/")).name
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    stem = _SAFE.sub("_", stem).strip("_-")[:max_len]
    return stem or "photo"


def _inside(root: Path, path: Path) -> Path:
    """Refuse any path that would leave the dataset folder (belt and braces after `safe_stem`)."""
    r, p = root.resolve(), path.resolve()
    if r != p and r not in p.parents:
        raise ValueError(f"refusing to write outside the dataset folder: {path}")
    return p


def yolo_rows(boxes: Iterable[LabelBox], width: int, height: int) -> list[str]:
    """YOLO label rows (class cx cy w h, normalised), boxes clipped to the image; empty boxes dropped."""
    rows = []
    for b in boxes:
        if b.cls not in CLASS_ID:
            raise ValueError(f"unknown tile class {b.cls!r}")
        x1, y1, x2, y2 = (float(v) for v in b.xyxy)
        x1, x2 = sorted((min(max(x1, 0.0), width), min(max(x2, 0.0), width)))
        y1, y2 = sorted((min(max(y1, 0.0), height), min(max(y2, 0.0), height)))
        if x2 - x1 < 1 or y2 - y1 < 1:
            continue
        cx, cy = (x1 + x2) / 2 / width, (y1 + y2) / 2 / height
        rows.append(f"{CLASS_ID[b.cls]} {cx:.6f} {cy:.6f} {(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return rows


def data_yaml_text() -> str:
    """data.yaml without `path`: Ultralytics and vision.data then resolve splits beside the file."""
    names = "".join(f"  {i}: '{n}'\n" for i, n in enumerate(CLASS_NAMES))
    return (
        "# Photos corrected and saved from the app (vision.labelstore). Class order: vision/classes.py.\n"
        "train: images/train\n"
        "val: images/val\n"
        f"nc: {NUM_CLASSES}\n"
        f"names:\n{names}"
    )


def _write_new(path: Path, data: bytes) -> bool:
    """Publish `data` at `path` atomically and only if `path` does not exist; False if it did.

    Temp file in the same folder + fsync, then `os.link` (atomic, never replaces). On file systems
    without hard links, fall back to an existence check + `os.replace` under the process lock.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            os.fchmod(f.fileno(), 0o644)  # mkstemp's 0600 would hide the data from other users
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError:
            if path.exists():
                return False
            os.replace(tmp, path)
        _fsync_dir(path.parent)
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _append_line(path: Path, record: dict) -> None:
    line = (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def read_manifest(root: str | Path = DEFAULT_ROOT) -> list[dict]:
    """Manifest records (one per saved photo); unreadable lines are skipped, not fatal."""
    path = Path(root) / "manifest.jsonl"
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            out.append(json.loads(line))
    return out


def _existing(root: Path, digest: str) -> Path | None:
    for split in ("train", "val"):
        for p in (root / "images" / split).glob(f"*_{digest[:16]}.jpg"):
            return p
    return None


def ensure_dataset(root: str | Path = DEFAULT_ROOT) -> Path:
    """Create the folder layout and data.yaml (never rewriting an existing one); returns data.yaml.

    An existing data.yaml with another class list is an error: mixing class orders would silently
    poison training.
    """
    root = Path(root)
    for sub in ("images/train", "images/val", "labels/train", "labels/val"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    yaml_path = root / "data.yaml"
    if not _write_new(yaml_path, data_yaml_text().encode("utf-8")):
        import yaml

        cfg = yaml.safe_load(yaml_path.read_text(encoding="utf-8")) or {}
        names = cfg.get("names")
        names = list(names.values()) if isinstance(names, dict) else list(names or [])
        if names != list(CLASS_NAMES):
            raise ValueError(f"{yaml_path}: class names differ from vision.classes; not adding to it")
    return yaml_path


def save_example(
    rgb: np.ndarray,
    boxes: Sequence[LabelBox],
    root: str | Path = DEFAULT_ROOT,
    *,
    source_name: str | None = None,
    model_version: str | None = None,
    changed: int = 0,
    extra: dict | None = None,
) -> SaveResult:
    """Save one corrected photo (upright RGB pixels) and its boxes; idempotent per photo.

    `changed` is how many boxes the player changed (class fixed, box deleted or added); it goes to
    the manifest so that retraining can weigh or audit corrected photos.
    """
    rgb = np.asarray(rgb)
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError("image must be H x W x 3 uint8 RGB (upright)")
    root = Path(root)
    height, width = rgb.shape[:2]
    rows = yolo_rows(boxes, width, height)
    digest = content_hash(rgb)
    split = split_for(digest)
    with _LOCK:
        ensure_dataset(root)
        found = _existing(root, digest)
        if found is not None:
            label = root / "labels" / found.parent.name / (found.stem + ".txt")
            return SaveResult(digest, found.parent.name, found, label, True, len(rows))
        name = f"{safe_stem(source_name)}_{digest[:16]}"
        image_path = _inside(root, root / "images" / split / f"{name}.jpg")
        label_path = _inside(root, root / "labels" / split / f"{name}.txt")
        buf = io.BytesIO()
        Image.fromarray(rgb).save(buf, format="JPEG", quality=JPEG_QUALITY)
        # Label first: an image without its label would read as "no tiles here" to Ultralytics.
        label_bytes = ("\n".join(rows) + ("\n" if rows else "")).encode()
        if not _write_new(label_path, label_bytes) and label_path.read_bytes() != label_bytes:
            # (the same bytes there = a save interrupted before its image: finish it)
            raise FileExistsError(f"{label_path} exists; not overwriting")
        if not _write_new(image_path, buf.getvalue()):
            raise FileExistsError(f"{image_path} exists; not overwriting")
        record = {
            "hash": digest,
            "image": image_path.relative_to(root.resolve()).as_posix(),
            "label": label_path.relative_to(root.resolve()).as_posix(),
            "split": split,
            "saved_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "model_version": model_version,
            "width": width,
            "height": height,
            "boxes": len(rows),
            "changed": int(changed),
            **(extra or {}),
        }
        _append_line(root / "manifest.jsonl", record)
    return SaveResult(digest, split, image_path, label_path, False, len(rows))
