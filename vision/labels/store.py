"""Save a corrected photo as Ultralytics YOLO training data ("save for training" on the page).

Why: every photo a player corrects is a labelled example of exactly the photos the product sees, so
the page writes it where `vision.train.data` picks it up for `python -m vision train` (it reads
`datasets/labelled/data.yaml`, split `train`) and `python -m vision adapt`. The layout is the
standard one, plus hidden bookkeeping that no image reader lists:

    <root>/data.yaml                 names in the fixed class order of vision.classes
    <root>/images/{train,val}/<name>.jpg   the upright pixels (EXIF already applied)
    <root>/labels/{train,val}/<name>.txt   class cx cy w h, normalised to the saved image
    <root>/manifest.jsonl            one line per saved version (hash, UTC time, model, changes)
    <root>/.lock  .staging/  .orphans/     writers' lock, files being written, quarantine

A photo's example is COMPLETE when its manifest line, image and label all exist and agree. A save
commits in this order, each step durable (fsync) before the next: image and label written in
full to `.staging/`; label linked into `labels/`; image linked into `images/`; manifest line
appended. A crash at any point therefore leaves either nothing visible to the readers or a
complete example; what it does leave (staged files, an orphan label, an image + label without
their line) is found and mended by `python -m vision labels check DIR --repair`.

Readers: `complete_examples(root)` (used by `vision.train.data.split_images`, hence training, adapt and
evaluate) returns only complete examples, and of a photo saved several times only the newest.

Guarantees (tests/vision/labels/test_store.py, tests/vision/labels/test_faults.py): a photo's split depends only
on its pixels (content hash); the same photo with the same boxes is stored once, even by several
processes at once (`fcntl` lock); the same photo with different boxes (saved again after a fix) is
stored as a new version beside the old one, and the newest wins; nothing is ever overwritten
(`os.link` refuses existing names); a short write or a full disk is an error that leaves the
folder as it was; NaN/inf boxes, a save with no box inside the photo and a manifest line that
cannot be encoded are refused before any file is written; names derived from input are sanitised and checked
to stay inside the dataset folder.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import math
import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from PIL import Image

from vision._env import REPO_ROOT
from vision.classes import CLASS_ID, CLASS_NAMES, NUM_CLASSES
from vision.durable import (
    SaveError,
    append_line,
    explain,
    locked,
    publish,
    same_bytes,
    staged_name,
    write_synced,
)
from vision.labels.yolo_format import read_labels

DEFAULT_ROOT = REPO_ROOT / "datasets" / "labelled"
#: Share of photos that go to `val` (decided by the content hash, so it never changes for a photo).
VAL_PERCENT = 20
JPEG_QUALITY = 95
MANIFEST = "manifest.jsonl"
LOCK_FILE = ".lock"
#: Files being written live here until they are complete (hidden, outside images/ and labels/).
STAGING = ".staging"
#: `labels check --repair` moves orphans here instead of deleting them.
ORPHANS = ".orphans"
SPLITS = ("train", "val")
#: The saved JPEG carries the photo's content hash, so a lost manifest line can be rebuilt.
JPEG_COMMENT_PREFIX = "vision.labelstore photo-sha256="
_MARKER = "(vision.labels.store)"
_REQUIRED = ("hash", "image", "label", "split")
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


@dataclass(frozen=True)
class LabelBox:
    """A corrected box: class name (vision.classes) and corners in pixels of the upright image."""

    cls: str
    xyxy: tuple[float, float, float, float]


@dataclass(frozen=True)
class SaveResult:
    """Where the photo went.

    `duplicate` is True when this photo with exactly these boxes is already the newest saved
    version (nothing written). `version` counts the saved versions of this photo including this
    one (1 = first save; 2 = saved again after a fix, ...). `supersedes` is the image of the
    version this one replaces for training (kept on disk; None for a first save or a duplicate).
    """

    hash: str
    split: str
    image: Path
    label: Path
    duplicate: bool
    boxes: int
    version: int = 1
    supersedes: Path | None = None


@dataclass(frozen=True)
class Example:
    """One complete saved example: the newest version of a photo whose files and line all agree.

    `image`/`label` are absolute paths; `record` is its manifest line; `version` is its place
    among the photo's complete versions (1 = oldest).
    """

    hash: str
    split: str
    image: Path
    label: Path
    version: int
    record: dict = field(repr=False)


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
    """Refuse any path that would leave the dataset folder (belt and braces after `safe_stem`).

    The folder is resolved, the file name is not: a link squatting on the name is a taken name
    (see `_free_names`), never a reason to look where it leads.
    """
    r, p = root.resolve(), path.parent.resolve() / path.name
    if path.name in ("", ".", "..") or (r != p and r not in p.parents):
        raise ValueError(f"refusing to use a path outside the dataset folder: {path}")
    return p


def _finite_corners(i: int, b: LabelBox) -> tuple[float, float, float, float]:
    """The box's corners as floats, or one clear ValueError (NaN/inf would poison training)."""
    try:
        x1, y1, x2, y2 = (float(v) for v in b.xyxy)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"box {i + 1} ({b.cls}): corners must be 4 numbers, got {b.xyxy!r}") from exc
    if not all(math.isfinite(v) for v in (x1, y1, x2, y2)):
        raise ValueError(f"box {i + 1} ({b.cls}): corners must be finite numbers, got {b.xyxy!r}")
    return x1, y1, x2, y2


def yolo_rows(boxes: Iterable[LabelBox], width: int, height: int) -> list[str]:
    """YOLO label rows (class cx cy w h, normalised), boxes clipped to the image; empty boxes dropped.

    Unknown classes and non-finite corners raise ValueError: the whole save is refused rather
    than a row silently dropped or written as `nan`.
    """
    rows = []
    for i, b in enumerate(boxes):
        if b.cls not in CLASS_ID:
            raise ValueError(f"unknown tile class {b.cls!r}")
        x1, y1, x2, y2 = _finite_corners(i, b)
        x1, x2 = sorted((min(max(x1, 0.0), width), min(max(x2, 0.0), width)))
        y1, y2 = sorted((min(max(y1, 0.0), height), min(max(y2, 0.0), height)))
        if x2 - x1 < 1 or y2 - y1 < 1:
            continue
        cx, cy = (x1 + x2) / 2 / width, (y1 + y2) / 2 / height
        rows.append(f"{CLASS_ID[b.cls]} {cx:.6f} {cy:.6f} {(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return rows


def data_yaml_text() -> str:
    """data.yaml without `path`: Ultralytics and vision.train.data then resolve splits beside the file."""
    names = "".join(f"  {i}: '{n}'\n" for i, n in enumerate(CLASS_NAMES))
    return (
        f"# Photos corrected and saved from the app {_MARKER}. Class order: vision/classes.py.\n"
        "# Train on complete examples only: vision.labels.store.complete_examples(folder).\n"
        "train: images/train\n"
        "val: images/val\n"
        f"nc: {NUM_CLASSES}\n"
        f"names:\n{names}"
    )


def is_labelstore(folder: str | Path) -> bool:
    """Whether `folder` was written by this module (its data.yaml says so, or it has a manifest)."""
    folder = Path(folder)
    if (folder / MANIFEST).is_file():
        return True
    try:
        with open(folder / "data.yaml", encoding="utf-8") as f:
            return _MARKER in f.readline()
    except (OSError, UnicodeDecodeError):
        return False


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ------------------------------------------------------------------------------ reading


@dataclass(frozen=True)
class ManifestLine:
    """One line of manifest.jsonl: `record` is None when the line is torn or not a record."""

    number: int
    raw: bytes
    record: dict | None
    terminated: bool


def manifest_lines(root: str | Path = DEFAULT_ROOT) -> list[ManifestLine]:
    """Every line of the manifest, good or bad, in order (bad = torn, not JSON, missing fields)."""
    path = Path(root) / MANIFEST
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    chunks = data.split(b"\n")
    out = []
    for i, raw in enumerate(chunks, start=1):
        last = i == len(chunks)
        if last and not raw:
            break
        out.append(ManifestLine(i, raw, _parse_record(raw), not last))
    return out


def _parse_record(raw: bytes) -> dict | None:
    try:
        rec = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(rec, dict) or not all(isinstance(rec.get(k), str) for k in _REQUIRED):
        return None
    return rec


def read_manifest(root: str | Path = DEFAULT_ROOT) -> list[dict]:
    """Manifest records (one per saved version), in order; torn or bad lines are skipped."""
    return [m.record for m in manifest_lines(root) if m.record is not None]


def label_problem(label: Path, expected_sha: str | None = None) -> str | None:
    """Why a label file is not usable (missing, changed since saved, malformed, NaN), or None."""
    try:
        data = label.read_bytes()
    except FileNotFoundError:
        return "label file missing"
    except OSError as exc:
        return f"label unreadable ({exc.strerror})"
    if expected_sha is not None and _sha256(data) != expected_sha:
        return "label differs from the one saved"
    try:
        read_labels(label)
    except (ValueError, UnicodeDecodeError) as exc:
        return f"bad label ({exc})"
    return None


def example_paths(root: Path, record: dict) -> tuple[Path, Path]:
    """Absolute image and label paths of a record; ValueError if they leave the folder or do not
    pair up the way Ultralytics pairs them (labels/<split>/<name>.txt beside images/<split>/).

    The check is lexical (no symlink resolution per record: readers run it for every line):
    the image must be a plain name directly in images/<split>, so `..` cannot leave the folder.
    """
    split = record.get("split")
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}")
    base = Path(os.path.abspath(root))
    image = Path(os.path.normpath(base / record["image"]))
    label = Path(os.path.normpath(base / record["label"]))
    if image.parent != base / "images" / split or label != base / "labels" / split / f"{image.stem}.txt":
        raise ValueError("image and label are not a pair in images/<split> and labels/<split>")
    return image, label


def checked_paths(root: Path, record: dict) -> tuple[Path, Path] | str:
    """The record's (image, label) if they form a complete example, else why not.

    Cheap enough for every training run: the label is read and checked, the image only stat'ed
    (its size against the manifest); `labels check` also decodes and hashes the image.
    """
    try:
        image, label = example_paths(root, record)
    except ValueError as exc:
        return str(exc)
    try:
        info = os.lstat(image)
    except OSError:
        return "image file missing"
    if not stat.S_ISREG(info.st_mode):
        return "image is not a regular file (a link or folder is never followed)"
    size = info.st_size
    with contextlib.suppress(OSError):
        if not stat.S_ISREG(os.lstat(label).st_mode):
            return "label is not a regular file (a link or folder is never followed)"
    if "image_bytes" in record and size != record["image_bytes"]:
        return "image differs from the one saved (size)"
    if size == 0:
        return "image file empty"
    return label_problem(label, record.get("label_sha256")) or (image, label)


def example_problem(root: Path, record: dict) -> str | None:
    """Why a manifest record is not a complete example, or None if it is (see checked_paths)."""
    found = checked_paths(root, record)
    return found if isinstance(found, str) else None


def photo_versions(root: str | Path = DEFAULT_ROOT, only: str | None = None) -> dict[str, list[Example]]:
    """Every complete version of every saved photo (or only of the photo hashed `only`), by
    content hash, oldest first.

    Order is the manifest's: lines are appended under the lock, so the last line is the newest
    save whatever the clock did (`labels check --repair` inserts a restored line where its save
    time puts it, so an old save whose line was lost never outranks a newer one).
    """
    root = Path(root).resolve()
    by_hash: dict[str, list[tuple[int, dict, tuple[Path, Path]]]] = {}
    for m in manifest_lines(root):
        wanted = m.record is not None and (only is None or m.record["hash"] == only)
        found = checked_paths(root, m.record) if wanted else ""
        if not isinstance(found, str):
            by_hash.setdefault(m.record["hash"], []).append((m.number, m.record, found))
    out: dict[str, list[Example]] = {}
    for digest, items in by_hash.items():
        out[digest] = [
            Example(digest, rec["split"], *paths, version=i, record=rec)
            for i, (_, rec, paths) in enumerate(items, start=1)
        ]
    return out


def complete_examples(root: str | Path = DEFAULT_ROOT, split: str | None = None) -> list[Example]:
    """THE reader for saved labels: the newest complete version of every saved photo.

    Use this (or `vision.train.data.split_images`, which calls it for a labelstore folder) wherever
    saved labels are trained on or evaluated: files a crash left behind, old versions of a
    corrected photo, and lines whose files are missing or changed are never returned. `split`
    ("train"/"val") filters; the order is stable (by image path). Takes no lock: everything it
    returns was complete before its manifest line was written.
    """
    newest = [versions[-1] for versions in photo_versions(root).values()]
    return sorted((e for e in newest if split is None or e.split == split), key=lambda e: str(e.image))


# ------------------------------------------------------------------------------ writing


def _ensure_layout(root: Path) -> Path:
    """Folders and data.yaml (never rewriting an existing one); the caller holds the lock."""
    for sub in ("images/train", "images/val", "labels/train", "labels/val", STAGING):
        (root / sub).mkdir(parents=True, exist_ok=True)
    yaml_path = root / "data.yaml"
    text = data_yaml_text().encode("utf-8")
    if not yaml_path.exists():
        staged = staged_name(root / STAGING, yaml_path.name)
        write_synced(staged, text)
        try:
            publish(staged, yaml_path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staged)
        return yaml_path
    if foreign_classes(yaml_path):
        raise ValueError(f"{yaml_path}: class names differ from vision.classes; not adding to it")
    return yaml_path


def foreign_classes(yaml_path: Path) -> bool:
    """Whether an existing data.yaml names other classes than vision.classes (or is unreadable).

    Our own text is recognised without parsing (pure-Python YAML costs ~40 ms per save).
    """
    try:
        text = yaml_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return True
    if text == data_yaml_text():
        return False
    import yaml

    try:
        cfg = yaml.safe_load(text) or {}
        names = cfg.get("names")
    except (yaml.YAMLError, AttributeError):
        return True
    names = list(names.values()) if isinstance(names, dict) else list(names or [])
    return names != list(CLASS_NAMES)


def ensure_dataset(root: str | Path = DEFAULT_ROOT) -> Path:
    """Create the folder layout and data.yaml (never rewriting an existing one); returns data.yaml.

    An existing data.yaml with another class list is an error: mixing class orders would silently
    poison training.
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    with locked(root / LOCK_FILE):
        return _ensure_layout(root)


def encode_jpeg(rgb: np.ndarray, digest: str) -> bytes:
    """The saved JPEG: deterministic for the same pixels, carrying the content hash as a comment."""
    buf = io.BytesIO()
    comment = (JPEG_COMMENT_PREFIX + digest).encode("ascii")
    Image.fromarray(rgb).save(buf, format="JPEG", quality=JPEG_QUALITY, comment=comment)
    return buf.getvalue()


def _free_names(root: Path, split: str, base: str, label: bytes, image: bytes) -> tuple[Path, Path]:
    """Image and label paths for `base` whose names are free or already hold exactly these bytes.

    A foreign file squatting on a name (or a leftover of another Pillow's encoding) is never
    replaced and never blocks the save: the next name (`base-2`, ...) is taken instead.
    """
    for k in range(1, 100):
        name = base if k == 1 else f"{base}-{k}"
        image_path = _inside(root, root / "images" / split / f"{name}.jpg")
        label_path = _inside(root, root / "labels" / split / f"{name}.txt")
        if all(
            not os.path.lexists(p) or same_bytes(p, d) for p, d in ((label_path, label), (image_path, image))
        ):
            return image_path, label_path
    raise SaveError(
        errno.EEXIST, f"no free file name for {base} in {root}; run `python -m vision labels check`"
    )


def _store_files(root: Path, image_path: Path, label_path: Path, label: bytes, image: bytes) -> list[Path]:
    """Stage both files in full, then publish label, then image; returns what this call published
    (for rollback). Files already there with the same bytes are reused."""
    staged: list[Path] = []
    published: list[Path] = []
    try:
        for final, data in ((label_path, label), (image_path, image)):
            staged.append(staged_name(root / STAGING, final.name))
            write_synced(staged[-1], data)
        # Label first: an image without its label would read as "no tiles here" to Ultralytics.
        for st, (final, data) in zip(staged, ((label_path, label), (image_path, image)), strict=True):
            if publish(st, final):
                published.append(final)
            elif not same_bytes(final, data):
                raise SaveError(errno.EEXIST, f"{final} appeared while saving; not overwriting it")
    except BaseException:
        _unlink_all(published)
        raise
    finally:
        _unlink_all(staged)
    return published


def _encoded_line(record: dict) -> bytes:
    """The manifest line of `record`, or one clear ValueError when a field cannot be written as
    UTF-8 JSON (a lone surrogate from a file name, an object JSON has no form for)."""
    try:
        return (json.dumps(record, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n").encode(
            "utf-8"
        )
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError is a ValueError
        bad = sorted(k for k, v in record.items() if not _writable(v))
        raise ValueError(
            f"manifest field(s) {', '.join(bad) or '?'} cannot be stored as UTF-8 JSON text"
        ) from exc


def _writable(value: object) -> bool:
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError):
        return False
    return True


def _unlink_all(paths: Iterable[Path]) -> None:
    for p in paths:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(p)


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root.resolve()).as_posix()


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
    """Save one corrected photo (upright RGB pixels) and its boxes as a complete example.

    The same photo with the same boxes as its newest version is a duplicate (nothing written).
    With other boxes (saved again after a fix) it becomes a new version: new files beside the
    old ones, a new manifest line, and readers use it from then on. `changed` is how many boxes
    the player changed (class fixed, box deleted or added); it goes to the manifest so retraining
    can weigh or audit corrected photos. `extra` adds manifest fields (never replacing ours).

    Raises ValueError for bad input (image shape, unknown class, NaN/inf corners, no box left
    inside the photo, a manifest field that cannot be written as UTF-8 JSON, a foreign data.yaml;
    all checked before any file is written) and `vision.durable.SaveError` (an OSError with a one-line message, e.g. "the disk
    is full") when the disk refuses; in both cases nothing new is visible in the folder.
    """
    rgb = np.asarray(rgb)
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError("image must be H x W x 3 uint8 RGB (upright)")
    root = Path(root)
    height, width = rgb.shape[:2]
    rows = yolo_rows(boxes, width, height)
    if not rows:
        raise ValueError(
            f"no tile box lies inside the {width}x{height} photo ({len(boxes)} given): nothing to save as training data"
        )
    fields = {**(extra or {}), "model_version": model_version, "changed": int(changed)}
    _encoded_line(fields)  # a field that cannot be written refuses the save before any file exists
    digest = content_hash(rgb)
    split = split_for(digest)
    label_bytes = ("\n".join(rows) + "\n").encode()
    try:
        root.mkdir(parents=True, exist_ok=True)
        with locked(root / LOCK_FILE):
            _ensure_layout(root)
            versions = photo_versions(root, only=digest).get(digest, [])
            newest = versions[-1] if versions else None
            if newest is not None and same_bytes(newest.label, label_bytes):
                return SaveResult(
                    digest, newest.split, newest.image, newest.label, True, len(rows), version=len(versions)
                )
            earlier = next((v for v in reversed(versions) if same_bytes(v.label, label_bytes)), None)
            reuse = earlier is not None  # back to an earlier version: a new line for its files
            if reuse:
                image_path, label_path = earlier.image, earlier.label
                image_bytes = image_path.read_bytes()
            else:
                image_bytes = encode_jpeg(rgb, digest)
                base = f"{safe_stem(source_name)}_{digest[:16]}_{_sha256(label_bytes)[:8]}"
                image_path, label_path = _free_names(root, split, base, label_bytes, image_bytes)
            record = {
                **fields,
                "hash": digest,
                "image": _relative(root, image_path),
                "label": _relative(root, label_path),
                "split": split,
                "saved_utc": datetime.now(UTC).strftime(_TIME_FORMAT),
                "width": width,
                "height": height,
                "boxes": len(rows),
                "version": len(versions) + 1,
                "label_sha256": _sha256(label_bytes),
                "image_sha256": _sha256(image_bytes),
                "image_bytes": len(image_bytes),
            }
            line = _encoded_line(record)  # complete before the first file is written
            published: list[Path] = []
            try:
                if not reuse:
                    published = _store_files(root, image_path, label_path, label_bytes, image_bytes)
                append_line(root / MANIFEST, line)  # the commit point
            except BaseException:
                _unlink_all(published)
                raise
    except OSError as exc:
        raise explain(exc, f"could not save the photo in {root}") from exc
    return SaveResult(
        digest,
        split,
        image_path,
        label_path,
        False,
        len(rows),
        version=len(versions) + 1,
        supersedes=newest.image if newest is not None else None,
    )
