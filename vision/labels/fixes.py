"""Reviewed corrections to a read-only dataset's labels (`datasets/label_fixes.json`).

Why: the real set's labels are a person's work and have slips: a 九萬 labelled 1m, a tile boxed
twice. A slip in a val label charges the reader with a miss or a wrong face it did not make (stop 54:
three of the four photos of a hand in a row that were "not fully right" were label slips), and one in
a train label teaches a wrong face. The dataset is read-only and shared, so its slips are corrected
here, where they are listed one per line with why, and every reader of its labels (training,
evaluation, the reader report) gets the corrected rows from `vision.labels.yolo_format.read_labels`.

A fix names the label file (its stem), the row (non-empty rows from 0), the class the row has
(`was`) and the one it should have (`now`; null drops the row). A fix whose row no longer has `was`
is not applied and is logged: the list never changes a row it was not written for.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from vision._env import REPO_ROOT
from vision.classes import CLASS_NAMES

log = logging.getLogger(__name__)

FIXES_FILE = REPO_ROOT / "datasets" / "label_fixes.json"
#: Set to "0" to read the labels exactly as the dataset has them (the report's --as-labelled).
ENV_OFF = "MAHJONG_LABEL_FIXES"


@dataclass(frozen=True)
class LabelFix:
    """One reviewed correction: in label file `photo`.txt, row `row` is class `was`, should be `now`."""

    photo: str
    row: int
    was: int
    now: int | None  # None: the row is dropped (a second box on a tile already labelled)
    why: str


def parse(doc: object, source: str = "label fixes") -> dict[str, list[LabelFix]]:
    """The fixes of a label_fixes.json document, by label file stem; ValueError names a bad entry."""
    if not isinstance(doc, dict) or not isinstance(doc.get("fixes"), list):
        raise ValueError(f"{source}: expected an object with a list 'fixes'")
    out: dict[str, list[LabelFix]] = {}
    for i, entry in enumerate(doc["fixes"]):
        where = f"{source}: fix {i}"
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: expected an object")
        try:
            photo, row, was, now, why = (entry[k] for k in ("photo", "row", "was", "now", "why"))
        except KeyError as exc:
            raise ValueError(f"{where}: missing {exc.args[0]!r}") from None
        if not (isinstance(photo, str) and photo and isinstance(row, int) and row >= 0):
            raise ValueError(f"{where}: 'photo' must name a label file and 'row' be a row number")
        if was not in CLASS_NAMES or (now is not None and now not in CLASS_NAMES) or was == now:
            raise ValueError(f"{where}: 'was' and 'now' must be two different classes (now may be null)")
        if not (isinstance(why, str) and why.strip()):
            raise ValueError(f"{where}: say why")
        fix = LabelFix(
            photo, row, CLASS_NAMES.index(was), None if now is None else CLASS_NAMES.index(now), why
        )
        out.setdefault(photo, []).append(fix)
    return out


@contextlib.contextmanager
def turned_off() -> Iterator[None]:
    """Labels read as the dataset has them inside the block (MAHJONG_LABEL_FIXES=0), as before it after."""
    before = os.environ.get(ENV_OFF)
    os.environ[ENV_OFF] = "0"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV_OFF, None)
        else:
            os.environ[ENV_OFF] = before


_cache: dict[tuple[Path, float], dict[str, list[LabelFix]]] = {}


def load(path: Path | None = None) -> dict[str, list[LabelFix]]:
    """The fixes in `path` (none where it is missing or MAHJONG_LABEL_FIXES=0); read again when it
    changes."""
    path = FIXES_FILE if path is None else path
    if os.environ.get(ENV_OFF, "1") == "0" or not path.is_file():
        return {}
    key = (path, path.stat().st_mtime)
    if key not in _cache:
        _cache.clear()
        _cache[key] = parse(json.loads(path.read_text(encoding="utf-8")), str(path))
    return _cache[key]


def corrected(
    label_file: Path, rows: list[tuple[int, tuple]], path: Path | None = None
) -> list[tuple[int, tuple]]:
    """`rows` (class, rest) of `label_file` with its reviewed fixes applied."""
    fixes = load(path).get(label_file.stem)
    if not fixes:
        return rows
    out: list[tuple[int, tuple] | None] = list(rows)
    for fix in fixes:
        if fix.row >= len(rows) or rows[fix.row][0] != fix.was:
            log.warning(
                "label fix not applied: %s row %d is not %s", label_file, fix.row, CLASS_NAMES[fix.was]
            )
            continue
        out[fix.row] = None if fix.now is None else (fix.now, rows[fix.row][1])
    return [r for r in out if r is not None]
