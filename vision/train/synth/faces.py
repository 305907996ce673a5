"""Face bank: real tile faces cut from the shared dataset's *train* split.

Why cut instead of draw: real faces carry the printing styles, wear, lighting and camera blur of
real sets, and need no CJK font on the CI machine.  The train split is Roboflow-augmented (90°
turns, ±45° rotations with black fill, flips), so crops are filtered:

* images with black rotation fill in a corner are skipped (their boxes are loose);
* boxes that overlap a neighbour (loose or stacked) or look too dark/saturated to be a face are skipped;
* the row direction of an image (nearest-neighbour offsets) says whether it was turned by 90°; the
  crop is turned back to portrait, then 0° vs 180° is decided by correlation with the class mean;
* crops that correlate poorly with their class mean (mislabels, clutter) are dropped.

The val split is never touched.  The bank is cached under `.cache/` keyed by the source listing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision import _env
from vision.classes import FACE_NAMES

#: Default location of the real set: `$VISION_REAL_DATA` (as in vision.train.data), else
#: `../shared/datasets/chinese-mahjong-v4` relative to the repository root.
DEFAULT_SOURCE = Path(
    os.environ.get(
        "VISION_REAL_DATA",
        str(_env.REPO_ROOT.parent / "shared" / "datasets" / "chinese-mahjong-v4"),
    )
)
#: Stored face size (w, h): large enough for the biggest rendered tile, small enough to cache.
FACE_W, FACE_H = 54, 72
MAX_PER_CLASS = 80
BANK_VERSION = 3
_CMP = (18, 24)  # size used for orientation / outlier correlation


@dataclass(frozen=True)
class FaceBank:
    """Upright face crops per class id (0..33), each an array (n, FACE_H, FACE_W, 3) uint8 BGR."""

    faces: tuple[np.ndarray, ...]

    def pick(self, cls: int, rng: np.random.Generator) -> np.ndarray:
        """A random face of class `cls` (a view; callers copy before modifying)."""
        arr = self.faces[cls]
        return arr[int(rng.integers(len(arr)))]


def cached_bank(path: Path, build: Callable[[], list[np.ndarray]]) -> FaceBank:
    """The bank cached at `path`, or `build()`'s faces cached there first.

    Written atomically (temp file + rename), so parallel `vision synth` workers never read half a file.
    """
    if path.exists():
        with np.load(path) as z:
            return FaceBank(tuple(z[f"c{c}"] for c in range(len(FACE_NAMES))))
    faces = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}.npz")
    np.savez_compressed(tmp, **{f"c{c}": a for c, a in enumerate(faces)})
    os.replace(tmp, path)
    return FaceBank(tuple(faces))


def _is_rotated_fill(img: np.ndarray) -> bool:
    """True when a corner is flat black: Roboflow's rotation/shear fill, so boxes are loose."""
    h, w = img.shape[:2]
    k = 6
    for y, x in ((0, 0), (0, w - k), (h - k, 0), (h - k, w - k)):
        if int(img[y : y + k, x : x + k].max()) < 14:
            return True
    return False


def _read_labels(path: Path, w: int, h: int) -> list[tuple[int, int, int, int, int]]:
    """YOLO label file -> [(cls, x0, y0, x1, y1)] in pixels."""
    out = []
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        p = line.split()
        if len(p) != 5:
            continue
        c = int(p[0])
        cx, cy, bw, bh = (float(v) for v in p[1:])
        x0, y0 = int(round((cx - bw / 2) * w)), int(round((cy - bh / 2) * h))
        x1, y1 = int(round((cx + bw / 2) * w)), int(round((cy + bh / 2) * h))
        out.append((c, max(0, x0), max(0, y0), min(w, x1), min(h, y1)))
    return out


def _rows_vertical(boxes: list[tuple[int, int, int, int, int]]) -> bool:
    """Whether tiles in this image line up vertically (the image was turned by 90°)."""
    if len(boxes) < 3:
        return False
    c = np.array([((b[1] + b[3]) / 2, (b[2] + b[4]) / 2) for b in boxes], dtype=np.float64)
    d = ((c[:, None, :] - c[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    nn = d.argmin(1)
    off = np.abs(c[nn] - c)
    return int((off[:, 1] > off[:, 0]).sum()) > len(boxes) / 2


def _overlaps(i: int, boxes: list[tuple[int, int, int, int, int]]) -> bool:
    """Whether box i overlaps another box by more than a sliver (loose or stacked boxes)."""
    _, x0, y0, x1, y1 = boxes[i]
    a = max(1, (x1 - x0) * (y1 - y0))
    for j, (_, u0, v0, u1, v1) in enumerate(boxes):
        if j == i:
            continue
        iw, ih = min(x1, u1) - max(x0, u0), min(y1, v1) - max(y0, v0)
        if iw > 0 and ih > 0 and iw * ih > 0.08 * a:
            return True
    return False


def _looks_like_face(crop: np.ndarray) -> bool:
    """Bright, mostly unsaturated crop: an ivory/white face rather than table or a tile back."""
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    return float(np.median(hsv[..., 2])) > 120 and float(np.median(hsv[..., 1])) < 90


def _norm(a: np.ndarray) -> np.ndarray:
    g = cv2.resize(cv2.cvtColor(a, cv2.COLOR_BGR2GRAY), _CMP, interpolation=cv2.INTER_AREA).astype(np.float32)
    g = g.ravel() - g.mean()
    return g / (np.linalg.norm(g) + 1e-6)


def _collect(source: Path) -> dict[int, list[np.ndarray]]:
    """Candidate crops per class, turned to portrait (0° or 180° still undecided)."""
    cand: dict[int, list[np.ndarray]] = {c: [] for c in range(len(FACE_NAMES))}
    img_dir = source / "train" / "images"
    lab_dir = source / "train" / "labels"
    for f in sorted(img_dir.glob("*.jpg")):
        img = cv2.imread(str(f))
        if img is None or _is_rotated_fill(img):
            continue
        h, w = img.shape[:2]
        boxes = _read_labels(lab_dir / (f.stem + ".txt"), w, h)
        if not boxes:
            continue
        vertical = _rows_vertical(boxes)
        for i, (c, x0, y0, x1, y1) in enumerate(boxes):
            if c >= len(FACE_NAMES) or x1 - x0 < 18 or y1 - y0 < 18 or _overlaps(i, boxes):
                continue
            crop = img[y0:y1, x0:x1]
            if vertical:
                crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
            ch, cw = crop.shape[:2]
            if not 0.45 <= cw / ch <= 1.15 or not _looks_like_face(crop):
                continue
            cand[c].append(cv2.resize(crop, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA))
    return cand


def _variants(c: np.ndarray) -> list[np.ndarray]:
    """The portrait-preserving symmetries: as is, turned 180°, mirrored, mirrored vertically."""
    return [c, cv2.rotate(c, cv2.ROTATE_180), cv2.flip(c, 1), cv2.flip(c, 0)]


def _orient_and_filter(crops: list[np.ndarray]) -> list[np.ndarray]:
    """Undo 180° turns and Roboflow's mirror flips by agreement with the class mean (most crops are
    upright and unmirrored), then drop the worst-correlating third (mislabels, clutter)."""
    if not crops:
        return crops
    crops = list(crops)
    for _ in range(4):
        mean = np.stack([_norm(c) for c in crops]).mean(0)
        changed = False
        for i, c in enumerate(crops):
            vs = _variants(c)
            scores = [float(_norm(v) @ mean) for v in vs]
            best = int(np.argmax(scores))
            if best != 0 and scores[best] > scores[0] + 1e-6:
                crops[i] = vs[best]
                changed = True
        if not changed:
            break
    vecs = np.stack([_norm(c) for c in crops])
    score = vecs @ vecs.mean(0)
    keep = np.argsort(-score, kind="stable")[: max(3, int(len(crops) * 0.67))]
    keep = np.sort(keep)
    if len(keep) > MAX_PER_CLASS:
        keep = keep[np.linspace(0, len(keep) - 1, MAX_PER_CLASS).round().astype(int)]
    return [crops[i] for i in keep]


def _cache_key(source: Path) -> str:
    h = hashlib.sha1(f"{BANK_VERSION}|{FACE_W}x{FACE_H}|{MAX_PER_CLASS}".encode())
    img_dir = source / "train" / "images"
    for f in sorted(img_dir.glob("*.jpg")):
        h.update(f"{f.name}:{f.stat().st_size};".encode())
    return h.hexdigest()[:16]


def default_cache_dir() -> Path:
    """Cache folder: `$VISION_SYNTH_CACHE` or the repository's git-ignored `.cache/synth-faces`
    (not `.cache/synth`, where training keeps its generated scenes)."""
    env = os.environ.get("VISION_SYNTH_CACHE")
    return Path(env) if env else _env.CACHE_DIR / "synth-faces"


def load_face_bank(source: Path | str = DEFAULT_SOURCE, cache_dir: Path | None = None) -> FaceBank:
    """Build (or load from cache) the face bank from `source`'s train split.

    Raises FileNotFoundError when the set is missing, so the CLI can say where it looked.
    """
    source = Path(source)
    if not (source / "train" / "images").is_dir():
        raise FileNotFoundError(f"real tile set not found at {source} (need train/images, train/labels)")
    cache_dir = cache_dir or default_cache_dir()
    path = cache_dir / f"faces-{_cache_key(source)}.npz"

    def build() -> list[np.ndarray]:
        cand = _collect(source)
        faces = []
        for c in range(len(FACE_NAMES)):
            kept = _orient_and_filter(cand[c])
            if not kept:
                raise RuntimeError(f"no usable face crops for class {FACE_NAMES[c]} in {source}")
            faces.append(np.stack(kept))
        return faces

    return cached_bank(path, build)
