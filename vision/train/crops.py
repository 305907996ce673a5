"""Classifier training crops: how they are cut, cached, mixed and augmented.

Why its own module: the full training run (vision.train.pipeline) and the few-photo adaptation to a
player's set (vision.train.adapt) must cut and augment crops the same way; the crops' geometry is
defined once here, next to the inference crops of vision.read.tilenet.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from vision.classes import BACK_ID, OTHER_ID
from vision.read.row_rescue import rescued
from vision.read.tilenet import CROP_H, CROP_MARGIN, CROP_W, TileNet, crop_tiles, crops_to_tensor
from vision.train import data, rows

#: Training crops are cut wider than inference crops, leaving room for shift/scale/rotation.
SRC_MARGIN = 0.2
SRC_W, SRC_H = 60, 80
#: The share of a wide training crop's side that the reader's crop of the same box covers.
READ_SHARE = (1 + 2 * CROP_MARGIN) / (1 + 2 * SRC_MARGIN)
#: `other` crops are few (~280 from 48 photos, ~1 % of all crops); each is seen this many times per
#: epoch (differently augmented) so the class is learnt, like any other class of ~1,000 crops.
OTHER_REPEAT = 4


@dataclass
class CropSet:
    """Training crops (wide margin, SRC size) with class ids."""

    x: np.ndarray
    y: np.ndarray


def _cached_crops(cache: Path | None, build: Callable[[], CropSet]) -> CropSet:
    """The crops cached at `cache` (.npz), or `build()`'s, cached there first (None: no cache)."""
    if cache is not None and cache.is_file():
        with np.load(cache) as z:
            return CropSet(z["x"], z["y"])
    out = build()
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, x=out.x, y=out.y)
    return out


def load_crops(sources: list[Path], split: str = "train", cache: Path | None = None) -> CropSet:
    """Crops of every labelled box in the sources' split, cached as .npz (cutting takes ~1 min)."""

    def build() -> CropSet:
        xs, ys = [], []
        for src in sources:
            x, y, _ = data.extract_crops(data.split_images(src, split), SRC_MARGIN, (SRC_W, SRC_H))
            xs.append(x)
            ys.append(y)
        return CropSet(np.concatenate(xs), np.concatenate(ys))

    return _cached_crops(cache, build)


def classifier_crops(sources: list[Path], cache_dir: Path, seed: int, max_extra: int = 7000) -> CropSet:
    """All real crops, plus at most `max_extra` crops from each further source (synthetic scenes hold
    ~30 tiles each; most of their value is the face-down `back` class, absent from the real set, so
    they are subsampled to keep epochs short on CPU)."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for i, src in enumerate(sources):
        c = load_crops([src], "train", cache=cache_dir / f"crops_train_{src.name}.npz")
        if i > 0 and len(c.y) > max_extra:
            keep = np.sort(rng.choice(len(c.y), max_extra, replace=False))
            c = CropSet(c.x[keep], c.y[keep])
        xs.append(c.x)
        ys.append(c.y)
    return CropSet(np.concatenate(xs), np.concatenate(ys))


def at_most_of_class(crops: CropSet, cls: int, most: int, seed: int) -> CropSet:
    """`crops` with at most `most` crops of class `cls` (a random sample of them, the rest kept).

    Why: the synthetic scenes give the face-down `back` about 4,100 of the classifier's ~34,700
    training crops (the other classes 700-1,000 each); a fine-tune on them reads real 白 (a framed
    blank face) as `back` (models/MODEL_CARD.md, stop 64), as round 15 saw."""
    of = np.flatnonzero(crops.y == cls)
    if most <= 0 or len(of) <= most:
        return crops
    drop = np.random.default_rng(seed).choice(of, len(of) - most, replace=False)
    keep = np.setdiff1d(np.arange(len(crops.y)), drop)
    return CropSet(crops.x[keep], crops.y[keep])


def negative_images(sources: list[Path], split: str = "train") -> list[Path]:
    """Photos whose label file exists and is empty: labelled as holding no tile of the 35.

    In the real set these show only flower/season tiles (not used in Liaoning rules).
    """
    out = []
    for src in sources:
        for img in data.split_images(src, split):
            lbl = data.label_path_for(img)
            if lbl.is_file() and not data.read_labels(lbl):
                out.append(img)
    return out


def row_images(source: Path, split: str = "train") -> list[Path]:
    """Photos of `source` whose labelled tiles form one hand in a row (vision.train.rows)."""
    out = []
    for img in data.split_images(source, split):
        labels = data.read_labels(data.label_path_for(img))
        if rows.in_a_row(data.pixel_boxes(labels, 1, 1)):  # a row is told from the label file alone
            out.append(img)
    return out


#: A found box overlapping a labelled tile by more than this IoU is (part of) that tile, not `other`.
OTHER_MAX_IOU = 0.2


def unlabelled_on_row(found: np.ndarray, labelled: np.ndarray) -> np.ndarray:
    """Per found box: whether it lies on the labelled row and on no labelled tile. In the real set
    these are flower and season tiles (vision.train.rows), read as 1s or 1p without this."""
    row = rows.fit_row(labelled)
    if row is None:
        return np.zeros(len(found), dtype=bool)
    return row.contains(found) & unlabelled(found, labelled)


def unlabelled_in_lines(found: np.ndarray, labelled: np.ndarray) -> np.ndarray:
    """Per found box: on no labelled tile, and continuing a line (a row or a column) of labelled
    tiles of its size, as the reader's row rescue would put it back (vision.read.row_rescue.rescued,
    the labels as the sure tiles). The set labels all 34 tiles and skips the flower and season
    tiles, so in a hand or a grid of tiles these are flowers: a grid is no hand in a row, and
    unlabelled_on_row never saw its flowers (models/MODEL_CARD.md, stop 50)."""
    if not len(found) or not len(labelled):
        return np.zeros(len(found), dtype=bool)
    boxes = np.concatenate([np.asarray(labelled, np.float64), np.asarray(found, np.float64)])
    sure = np.arange(len(boxes)) < len(labelled)
    back = rescued(boxes, np.ones(len(boxes)), sure, low=0.5)
    return back[len(labelled) :] & unlabelled(found, labelled)


class ListingError(ValueError):
    """A box listing (datasets/flowers/...) that cannot be read, or names a photo the set lacks."""


def read_listing(listing: Path) -> tuple[str, list[tuple[str, list[float]]]]:
    """A box listing's split and its (photo file name, box in 0..1) entries; ListingError, in words,
    for a file that cannot be read or holds no such entries."""
    try:
        spec = json.loads(Path(listing).read_text(encoding="utf-8"))
        return spec.get("split", "train"), [(e["image"], [float(v) for v in e["box"]]) for e in spec["boxes"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ListingError(f"box listing {listing}: not readable ({e})") from e


def listed_crops(listing: Path, source: Path, label: int, cache: Path | None = None) -> CropSet:
    """Training crops (SRC_MARGIN, SRC size) of the boxes a hand-checked listing names, each of class
    `label`: {"split": "train", "boxes": [{"image": file name, "box": [x1, y1, x2, y2] in 0..1}]}.

    Why a listing: the set skips flower, season and joker tiles, and mining the detector's
    unlabelled boxes either saw only a hand's row (unlabelled_on_row) or took the real tiles the
    labellers skipped as flowers (unlabelled_in_lines, models/MODEL_CARD.md stop 50). Boxes looked
    at one by one teach neither mistake, and the listing keeps that work for the next run."""

    def build() -> CropSet:
        x, _ = listed_crops_by_photo(listing, source)
        return CropSet(x, np.full(len(x), label, np.int64))

    return _cached_crops(cache, build)


def listed_crops_by_photo(listing: Path, source: Path) -> tuple[np.ndarray, list[str]]:
    """The listing's crops (SRC_MARGIN, SRC size), grouped by photo in the order the listing first
    names each, and each crop's photo file name: for splitting by photo (vision.train.flower_gate).
    ListingError, in words, for a listing naming a photo `source` lacks."""
    split, entries = read_listing(listing)
    photos = {p.name: p for p in data.split_images(source, split)}
    lacking = sorted({name for name, _ in entries} - set(photos))
    if lacking:
        raise ListingError(f"box listing {listing}: {len(lacking)} photos not in {source}, e.g. {lacking[0]}")
    by_photo: dict[str, list[list[float]]] = {}
    for name, box in entries:
        by_photo.setdefault(name, []).append(box)
    from vision.read.imageio import load_image

    xs, owners = [], []
    for name, boxes in by_photo.items():
        rgb = load_image(photos[name])
        scale = np.array([rgb.shape[1], rgb.shape[0]] * 2, np.float64)
        xs.append(crop_tiles(rgb, np.array(boxes) * scale, margin=SRC_MARGIN, size=(SRC_W, SRC_H)))
        owners += [name] * len(boxes)
    x = np.concatenate(xs) if xs else np.zeros((0, SRC_H, SRC_W, 3), np.uint8)
    return x, owners


def unlabelled(found: np.ndarray, labelled: np.ndarray) -> np.ndarray:
    """Per found box: whether it lies on no labelled tile. In a synthetic scene, whose labels are
    complete by construction, such a box is no tile at all: a book spine, a card, a cup (the
    scenes' clutter), the rim; the shipped reader returns book spines of a shelf behind the hand
    as tiles (riichi-standing-dev, models/MODEL_CARD.md Stop 35)."""
    from vision.train.evaluate import iou_matrix

    if not len(found) or not len(labelled):
        return np.ones(len(found), dtype=bool)
    return iou_matrix(found, labelled).max(1) <= OTHER_MAX_IOU


def other_crops(
    images: list[Path],
    find_boxes: Callable[[np.ndarray], np.ndarray],
    cache: Path | None = None,
    keep: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> CropSet:
    """Crops labelled `other`: the boxes `find_boxes` (a tile detector) finds in `images`, all of
    them (tile-free photos) or those `keep(found, labelled)` marks (unlabelled_on_row).

    Why: a one-class detector rightly finds flower/season tiles too; without examples of them the
    classifier must name them as one of the 35 faces, and the page would show a tile that is not
    in play. Detector boxes (not labels) are the only boxes these tiles have.
    """

    def classes_of(image: Path, rgb: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        chosen = (
            np.ones(len(boxes), dtype=bool)
            if keep is None
            else keep(boxes, data.labelled_tiles(image, rgb)[0])
        )
        return np.where(chosen, OTHER_ID, -1)

    return _cached_crops(cache, lambda: _found_crops(images, find_boxes, classes_of))


def _found_crops(
    images: list[Path],
    find_boxes: Callable[[np.ndarray], np.ndarray],
    classes_of: Callable[[Path, np.ndarray, np.ndarray], np.ndarray],
) -> CropSet:
    """Training crops (SRC_MARGIN, SRC size) of the boxes `find_boxes` finds in each photo, each with
    the class `classes_of(image, rgb, boxes)` gives it (-1: no crop). One loop for other_crops and
    box_crops; a photo that cannot be read is skipped."""
    from vision.read.imageio import ImageLoadError, load_image

    xs, ys = [], []
    for image in images:
        try:
            rgb = load_image(image)
        except ImageLoadError:
            continue
        boxes = np.asarray(find_boxes(rgb), np.float64).reshape(-1, 4)
        classes = np.asarray(classes_of(image, rgb, boxes), np.int64)
        if (classes >= 0).any():
            xs.append(crop_tiles(rgb, boxes[classes >= 0], margin=SRC_MARGIN, size=(SRC_W, SRC_H)))
            ys.append(classes[classes >= 0])
    if not xs:
        return CropSet(np.zeros((0, SRC_H, SRC_W, 3), np.uint8), np.zeros(0, np.int64))
    return CropSet(np.concatenate(xs), np.concatenate(ys))


#: A detector box is the crop of a labelled tile when they overlap by at least this IoU (the
#: match every report uses).
MATCH_IOU = 0.5


def label_of_each_box(found: np.ndarray, labelled: np.ndarray, min_iou: float = MATCH_IOU) -> np.ndarray:
    """Per found box: the index of the labelled tile it boxes, or -1. Best overlaps are paired
    first, and each box and each tile is paired at most once, so a box across two tiles or a
    second box on one tile teaches no face."""
    from vision.train.evaluate import iou_matrix

    out = np.full(len(found), -1, np.int64)
    if not len(found) or not len(labelled):
        return out
    iou = iou_matrix(found, labelled)
    taken = np.zeros(len(labelled), dtype=bool)
    for flat in np.argsort(-iou, axis=None, kind="stable"):
        i, j = divmod(int(flat), len(labelled))
        if iou[i, j] < min_iou:
            break
        if out[i] < 0 and not taken[j]:
            out[i], taken[j] = j, True
    return out


def box_crops(
    images: list[Path],
    find_boxes: Callable[[np.ndarray], np.ndarray],
    cache: Path | None = None,
    skip: tuple[int, ...] = (BACK_ID,),
) -> CropSet:
    """Crops of a detector's own boxes on labelled photos, each with the face of the labelled tile
    it boxes (label_of_each_box); boxes on no tile, and tiles of the `skip` classes, give none.

    Why: the classifier reads what the detector boxes, not what the labeller boxed. On standing
    tiles a detector that boxes the whole tile (face, top and the side seen low: round 20) hands the
    classifier crops unlike the labelled faces it learnt from, and it reads them less surely
    (models/MODEL_CARD.md, Stop 40; round 21 learnt these crops of the scenes and read the unseen
    print worse, Stop 41). `back` is skipped by default: today's scenes' light backs taught the
    classifier to read real 白 as `back` (round 15).
    """

    def classes_of(image: Path, rgb: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        labelled, classes = data.labelled_tiles(image, rgb)
        face = np.append(classes, -1)[label_of_each_box(boxes, labelled)]  # index -1: on no tile
        return np.where(np.isin(face, skip), -1, face)

    return _cached_crops(cache, lambda: _found_crops(images, find_boxes, classes_of))


def detector_boxes(weights: Path, imgsz: int, conf: float = 0.3) -> Callable[[np.ndarray], np.ndarray]:
    """`find_boxes` for other_crops: the given one-class detector's boxes (pixels) above `conf`."""
    from dataclasses import replace

    from vision.read.detect import detect, load_model

    base = load_model(weights)  # bare weights: single-stage
    tm = replace(base, op=replace(base.op, conf=conf), det_imgsz=imgsz)
    # The plain view only: these are ordinary photos, and with no classifier to read faces the
    # aspect views' choice would rest on detector confidence alone (it took 406 boxes, not 276).
    return lambda rgb: np.array([d.xyxy for d in detect(rgb, model=tm, aspect_views=False)])


def val_crops(source: Path = data.REAL_DATASET) -> CropSet:
    """Crops of the real val boxes exactly as inference cuts them (margin, size)."""
    x, y, _ = data.extract_crops(data.split_images(source, "val"), CROP_MARGIN, (CROP_W, CROP_H))
    return CropSet(x, y)


#: `augment`'s any_turn crops turn their tile by up to this many degrees either way: crop_tiles turns
#: every box wider than high, so a tile lying at any angle reaches the classifier within 45 degrees
#: of upright (or of upside down, the 180-degree turn).
ANY_TURN_DEGREES = 45.0


def turned_box_widths(angle: torch.Tensor, tall: float) -> tuple[torch.Tensor, torch.Tensor]:
    """How many times wider and higher than a tile (`tall` = its height / width) is the upright box
    around it turned by `angle` (radians): what a detector boxes, and crop_tiles squeezes into the
    portrait crop, for a tile lying at that angle."""
    c, s = torch.cos(angle).abs(), torch.sin(angle).abs()
    return c + tall * s, s / tall + c


def augment(
    batch: torch.Tensor,
    gen: torch.Generator,
    low_res: float = 0.0,
    any_turn: float = 0.0,
    side_light: float = 0.0,
) -> torch.Tensor:
    """Random geometry + colour on a batch of wide crops (N x 3 x SRC_H x SRC_W, 0..1) -> CROP size.

    Mirror (the real train set holds flipped photos, so mirrored characters must read the same),
    180-degree turns (tiles face the camera either way up), rare 90-degree turns (square-ish boxes),
    small rotation/scale/shift (loose or tight detector boxes), brightness/contrast/colour casts;
    with `low_res` > 0 that share of the crops also loses resolution (lose_resolution); with
    `any_turn` > 0 that share shows its tile turned as a tile lying in a pile is (turned_box_widths);
    with `side_light` > 0 that share is lit from one side (lit_from_one_side).
    With all three 0 the random draws are exactly those of every run before them.
    """
    n = batch.shape[0]

    def u(lo: float, hi: float) -> torch.Tensor:
        return torch.rand(n, generator=gen) * (hi - lo) + lo

    angle = u(-12, 12) * math.pi / 180
    angle = angle + math.pi * (torch.rand(n, generator=gen) < 0.5)
    angle = angle + (math.pi / 2) * (torch.rand(n, generator=gen) < 0.08)
    scale = READ_SHARE * u(0.88, 1.12)  # around the reader's view of the box (CROP_MARGIN)
    mirror = torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0)
    widen_x, widen_y = torch.ones(n), torch.ones(n)
    if any_turn > 0:
        free = torch.rand(n, generator=gen) < any_turn
        turn = u(-ANY_TURN_DEGREES, ANY_TURN_DEGREES) * math.pi / 180
        flip = math.pi * (torch.rand(n, generator=gen) < 0.5)
        angle = torch.where(free, turn + flip, angle)
        wx, wy = turned_box_widths(turn, CROP_H / CROP_W)
        widen_x, widen_y = torch.where(free, wx, widen_x), torch.where(free, wy, widen_y)
    aspect = SRC_H / SRC_W
    cos, sin = torch.cos(angle), torch.sin(angle)
    theta = torch.zeros(n, 2, 3)
    # Rotation in pixel space expressed in normalised coords (the crop is not square); the widening
    # scales the output's axes before the turn, so the crop covers the box around the turned tile.
    theta[:, 0, 0] = cos * scale * mirror * widen_x
    theta[:, 0, 1] = -sin * scale * aspect * widen_y
    theta[:, 1, 0] = sin * scale * mirror / aspect * widen_x
    theta[:, 1, 1] = cos * scale * widen_y
    theta[:, 0, 2] = u(-0.07, 0.07)
    theta[:, 1, 2] = u(-0.07, 0.07)
    grid = F.affine_grid(theta, (n, 3, CROP_H, CROP_W), align_corners=False)
    out = F.grid_sample(batch, grid, padding_mode="border", align_corners=False)
    out = lose_resolution(out, low_res, gen)
    gain = u(0.6, 1.35).view(n, 1, 1, 1) * (1 + 0.12 * (torch.rand(n, 3, 1, 1, generator=gen) - 0.5))
    mean = out.mean(dim=(1, 2, 3), keepdim=True)
    contrast = u(0.7, 1.3).view(n, 1, 1, 1)
    out = (out - mean) * contrast + mean
    out = out * gain
    if side_light > 0:
        out = lit_from_one_side(out, side_light, gen)
    gray = (torch.rand(n, generator=gen) < 0.1).view(n, 1, 1, 1)
    out = torch.where(gray, out.mean(1, keepdim=True).expand_as(out), out)
    out = out + 0.02 * torch.randn(out.shape, generator=gen)
    return out.clamp_(0, 1)


#: lit_from_one_side's ramp: its two ends are 1 - s and 1 + s of the light, s drawn in this range.
SIDE_LIGHT_RAMP = (0.15, 0.45)


def lit_from_one_side(batch: torch.Tensor, share: float, gen: torch.Generator) -> torch.Tensor:
    """`share` of the crops (N x 3 x H x W) lit from one side: their brightness ramps linearly across
    the crop in a random direction, from 1 - s to 1 + s (SIDE_LIGHT_RAMP), the middle as it was.
    Why: a standing tile at a real table is often lit from a window or a lamp on one side (issue
    23), and `augment` otherwise changes a crop's light only as a whole."""
    n, _, h, w = batch.shape
    lit = torch.rand(n, generator=gen) < share
    angle = torch.rand(n, generator=gen) * 2 * math.pi
    lo, hi = SIDE_LIGHT_RAMP
    strength = torch.rand(n, generator=gen) * (hi - lo) + lo
    ys = torch.linspace(-1, 1, h).view(1, h, 1)
    xs = torch.linspace(-1, 1, w).view(1, 1, w)
    along = xs * torch.cos(angle).view(n, 1, 1) + ys * torch.sin(angle).view(n, 1, 1)
    along = along / along.abs().amax(dim=(1, 2), keepdim=True).clamp_min(1e-6)  # -1 .. 1 corner to corner
    ramp = 1 + (strength * lit).view(n, 1, 1) * along
    return batch * ramp.unsqueeze(1)


#: The least share of a crop's width or height kept by lose_resolution (each axis drawn apart).
LOW_RES_LEAST = 0.35


def lose_resolution(batch: torch.Tensor, share: float, gen: torch.Generator) -> torch.Tensor:
    """`share` of the crops (N x 3 x H x W) resampled down to fx by fy of their size (each uniform
    in LOW_RES_LEAST..1, area) and back up (bilinear); the rest as they are.

    Why it was tried (round 22, --cls-low-res; not shipped, models/MODEL_CARD.md Stop 41): a tile
    of a 16:9 frame exported into a square has 0.56 of its width in pixels, a far tile few either
    way, and the training crops rarely look like that. Said there too: for the export the premise
    was wrong, as a crop is resized to the classifier's size whatever its box, so the export and the
    frame resized back give nearly the same crop. Each axis is drawn apart because an export
    squeezes one. `share` 0 draws nothing, so earlier recipes keep their random stream.
    """
    if share <= 0:
        return batch
    n, _, h, w = batch.shape
    pick = torch.rand(n, generator=gen) < share
    fx = torch.rand(n, generator=gen) * (1 - LOW_RES_LEAST) + LOW_RES_LEAST
    fy = torch.rand(n, generator=gen) * (1 - LOW_RES_LEAST) + LOW_RES_LEAST
    out = batch.clone()
    for i in torch.nonzero(pick).flatten().tolist():
        size = (max(2, round(h * float(fy[i]))), max(2, round(w * float(fx[i]))))
        small = F.interpolate(batch[i : i + 1], size=size, mode="area")
        out[i : i + 1] = F.interpolate(small, size=(h, w), mode="bilinear", align_corners=False)
    return out


def as_read(wide: np.ndarray) -> np.ndarray:
    """Wide training crops (SRC size, SRC_MARGIN) as the reader cuts them (CROP size, CROP_MARGIN):
    the middle of each, resized. For measuring a trained classifier on its own training crops."""
    w, h = round(SRC_W * READ_SHARE), round(SRC_H * READ_SHARE)
    x0, y0 = (SRC_W - w) // 2, (SRC_H - h) // 2
    out = np.empty((len(wide), CROP_H, CROP_W, 3), np.uint8)
    for i, crop in enumerate(wide):
        out[i] = cv2.resize(crop[y0 : y0 + h, x0 : x0 + w], (CROP_W, CROP_H), interpolation=cv2.INTER_AREA)
    return out


def classifier_probabilities(net: TileNet, crops: np.ndarray) -> np.ndarray:
    """Softmax outputs of `net` on inference-style crops (N x CROP_H x CROP_W x 3), in batches."""
    net.eval()
    out = [np.zeros((0, net.head[2].out_features), np.float32)]
    with torch.inference_mode():
        for i in range(0, len(crops), 512):
            out.append(torch.softmax(net(crops_to_tensor(crops[i : i + 512])), 1).numpy())
    return np.concatenate(out)


def classifier_predictions(net: TileNet, crops: CropSet) -> np.ndarray:
    """Top-1 class ids of inference-style crops."""
    return classifier_probabilities(net, crops.x).argmax(1).astype(np.int64)


def weakest_class(y: np.ndarray, pred: np.ndarray) -> tuple[int, float]:
    """(class id, accuracy) of the class read worst among those present in `y`.

    Why: the overall accuracy hides one face going wrong. Round 15's first classifier lost 3.5
    points overall while reading 245 of the 344 real 白 as `back`; printed per epoch, that is one
    glance at the log, not a diagnosis after a report."""
    classes = np.unique(y)
    acc = [float((pred[y == c] == c).mean()) for c in classes]
    worst = int(np.argmin(acc))
    return int(classes[worst]), acc[worst]
