"""Where a reader and a dataset's labels disagree, laid out for a person to look at
(`python -m vision label-audit`).

Why: a slip in a label counts against every reader as a miss or a wrong face, and in a train label
teaches one (stop 54 found a 九萬 labelled 1m, a 三萬 labelled 7m, tiles boxed twice). Nobody can
read six thousand labels; a reader that disagrees points at the few worth a look. The audit never
decides: it writes contact sheets (each tile cut out with its label and what the reader read) and
a JSON of the disagreements, each with a draft fix for `datasets/label_fixes.json` that a person
copies only after looking, saying why. Boxes that overlap as one tile boxed twice does are listed
whatever the reader read (their overlap says so, not the reader); in a photo the export rotated,
the axis-aligned boxes of narrow neighbours overlap as much (66 such pairs in the train split, stop
54, all neighbours), so a person looks at these too.

The labels are read as the dataset has them (fixes off), so the rows are the file's rows; the
disagreements already fixed are marked.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from vision import durable
from vision.classes import CLASS_NAMES
from vision.labels import fixes
from vision.train.evaluate import boxed_tile, collect, iou_matrix

#: Two labelled boxes overlapping this much (IoU) are one tile boxed twice.
TWIN_IOU = 0.6
CELL = (130, 150)  # width, height of one tile on a sheet
PER_ROW, PER_SHEET = 8, 40


@dataclass(frozen=True)
class Disagreement:
    """One labelled box a reader read otherwise (`read`: its face, or "missed"), or boxed twice."""

    photo: str  # the image's path
    stem: str  # its label file's stem: what a fix names
    row: int
    label: str
    read: str
    twin_row: int | None = None  # the other box on the same tile, where it is boxed twice
    already_fixed: bool = False

    def draft_fix(self) -> dict | None:
        """The line for datasets/label_fixes.json, were a person to agree ('why' left to them): the
        face read, or null (drop) for a second box; none for a tile missed (its label may be right)."""
        if self.twin_row is None and self.read not in CLASS_NAMES:
            return None
        now = None if self.twin_row is not None else self.read
        return {"photo": self.stem, "row": self.row, "was": self.label, "now": now, "why": ""}


def disagreements(images: list, conf: float, fixed: dict[str, list] | None = None) -> list[Disagreement]:
    """Every labelled box of `images` (vision.train.evaluate.ImageResult) whose face the reader read
    otherwise at `conf`, missed, or that is boxed twice, in photo order."""
    fixed = fixed or {}
    out: list[Disagreement] = []
    for im in images:
        at = im.above(conf)
        stem = Path(im.name).stem
        done = {f.row for f in fixed.get(stem, [])}
        read = {
            int(j): CLASS_NAMES[int(c)] for j, c in zip(boxed_tile(at), at.pred_cls, strict=True) if j >= 0
        }
        twins = iou_matrix(at.gt_boxes, at.gt_boxes)
        np.fill_diagonal(twins, 0.0)
        for j, cls in enumerate(np.asarray(at.gt_cls, dtype=int)):
            label, got = CLASS_NAMES[cls], read.get(j, "missed")
            twin = int(np.argmax(twins[j])) if len(twins) > 1 and twins[j].max() >= TWIN_IOU else None
            if twin is not None and twin > j:
                twin = None  # a pair is listed once, at its later row, whose fix drops it
            if got != label or twin is not None:
                out.append(Disagreement(im.name, stem, j, label, got, twin, j in done))
    return out


def _cell(rgb: np.ndarray, box: np.ndarray, caption: str) -> np.ndarray:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    crop = rgb[
        int(max(0, y0 - 0.15 * h)) : int(y1 + 0.15 * h), int(max(0, x0 - 0.15 * w)) : int(x1 + 0.15 * w)
    ]
    cell = np.full((CELL[1], CELL[0], 3), 255, np.uint8)
    if crop.size:
        s = (CELL[1] - 30) / max(crop.shape[:2])
        crop = cv2.resize(crop, (max(1, int(crop.shape[1] * s)), max(1, int(crop.shape[0] * s))))
        crop = crop[: CELL[1] - 30, : CELL[0]]
        cell[: crop.shape[0], : crop.shape[1]] = crop[:, :, ::-1]  # RGB -> BGR for cv2.imwrite
    cv2.putText(cell, caption, (2, CELL[1] - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (0, 0, 200), 1)
    return cell


def contact_sheets(
    items: list[Disagreement], images: list, load: Callable[[Path], np.ndarray], out_dir: Path
) -> list[Path]:
    """PNG sheets of the disagreements, PER_SHEET tiles each, captioned `k label>read` (k: the
    index in the JSON; D: boxed twice; F: fixed already)."""
    by_name = {im.name: im for im in images}
    cells, pixels = [], {}
    for k, d in enumerate(items):
        if d.photo not in pixels:
            pixels = {d.photo: load(Path(d.photo))}  # one photo decoded at a time
        flag = (" D" if d.twin_row is not None else "") + (" F" if d.already_fixed else "")
        cells.append(
            _cell(pixels[d.photo], by_name[d.photo].gt_boxes[d.row], f"{k} {d.label}>{d.read}{flag}")
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    sheets = []
    blank = np.full((CELL[1], CELL[0], 3), 255, np.uint8)
    for s in range(0, len(cells), PER_SHEET):
        chunk = cells[s : s + PER_SHEET]
        chunk += [blank] * (-len(chunk) % PER_ROW)
        sheet = np.vstack([np.hstack(chunk[r : r + PER_ROW]) for r in range(0, len(chunk), PER_ROW)])
        path = out_dir / f"sheet_{s // PER_SHEET:02d}.png"
        cv2.imwrite(str(path), sheet)
        sheets.append(path)
    return sheets


def audit(data_source: Path, model, out_dir: Path, split: str = "val") -> tuple[Path, list[Path]]:
    """Read `split` of a labelled set with `model` (labels as the dataset has them) and write
    `disagreements.json` and the contact sheets into `out_dir`."""
    from vision.read.imageio import load_image

    with fixes.turned_off():
        images = collect(Path(data_source), model, split)
    items = disagreements(images, model.tile_conf, fixes.load())
    sheets = contact_sheets(items, images, load_image, out_dir)
    doc = {
        "data": str(data_source),
        "split": split,
        "photos": len(images),
        "labelled_boxes": int(sum(len(im.gt_cls) for im in images)),
        "sheets": [p.name for p in sheets],
        "disagreements": [{**asdict(d), "draft_fix": d.draft_fix()} for d in items],
    }
    path = out_dir / "disagreements.json"
    # replaced whole: a reviewer's editor or `label_fixes` never reads half a list
    durable.replace_synced(path, json.dumps(doc, ensure_ascii=False, indent=1).encode("utf-8"), out_dir)
    return path, sheets
