"""The tile keyboard: which faces to offer first for a tile, the rows of the full keyboard, the next
tile to look at.

Why this module exists: at the table a player fixes a misread tile with one tap. The keyboard
therefore puts the model's own next guesses first (a 九条 read as 八条 is fixed by tapping 八条),
lays out the 34 faces and 背面 as a real set is sorted (万, 饼, 条, then 东南西北中发白), and after a
fix moves on to the next tile still in doubt. These are decisions worth a test, not widgets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from page.box import Box
from vision.classes import BACK, CLASS_NAMES, HONOURS, SUITS, display_name

#: The full keyboard, row by row: 一万…九万, 一饼…九饼, 一条…九条, 东南西北中发白 + 背面.
ROWS: tuple[tuple[str, ...], ...] = (
    *(tuple(f"{r}{s}" for r in range(1, 10)) for s in SUITS),
    (*HONOURS, BACK),
)
SUIT_COLOUR = {"m": "#c62828", "p": "#1565c0", "s": "#2e7d32"}
HONOUR_COLOUR = {"C": "#c62828", "F": "#2e7d32", "P": "#455a64", BACK: "#8d6e63"}
MAX_SUGGESTIONS = 4

assert sorted(c for row in ROWS for c in row) == sorted(CLASS_NAMES)


def suggestions(box: Box) -> list[str]:
    """The faces to offer first: the model's reading and its next guesses, not the face shown now."""
    out: list[str] = []
    for c in box.options[: MAX_SUGGESTIONS + 1]:
        if c != box.cls and c not in out and (c == box.model_cls or any(c == a for a, _ in box.alternatives)):
            out.append(c)
    return out[:MAX_SUGGESTIONS]


def key_label(code: str) -> str:
    """A keyboard key: the tile's Chinese name as written on a real tile (五万, 中, 背面)."""
    return display_name(code)


def colour(code: str) -> str:
    """Ink colour of a key: the suit's colour as most sets print it (万 red, 饼 blue, 条 green)."""
    if code in HONOUR_COLOUR:
        return HONOUR_COLOUR[code]
    return SUIT_COLOUR.get(code[-1], "#212121")


def next_to_check(boxes: Sequence[Box], after: int | None) -> int | None:
    """The next tile still in doubt after `after` (wrapping round), or None when all are checked."""
    doubtful = [i for i, b in enumerate(boxes) if b.needs_check and b.in_play]
    if not doubtful:
        return None
    start = -1 if after is None else after
    later = [i for i in doubtful if i > start]
    return (later or doubtful)[0]


def strip_order(boxes: Sequence[Box]) -> list[int]:
    """Tiles in the order the strip shows them: the standing hand left to right, then each meld, the
    indicator, then tiles set aside (so the strip reads like the hand on the table)."""
    rank = {
        "hand": 0,
        "meld1": 1,
        "meld2": 2,
        "meld3": 3,
        "meld4": 4,
        "indicator": 5,
        "other": 6,
        "delete": 7,
    }

    def key(i: int) -> tuple[int, float, int]:
        b = boxes[i]
        x = b.xyxy[0] if b.xyxy else float("inf")
        return (rank.get(b.role, 6), x, i)

    return sorted(range(len(boxes)), key=key)


def box_at(boxes: Sequence[Box], x: float, y: float, reach: float = 0.0) -> int | None:
    """The tile under a tap at photo pixel (x, y): the smallest box containing it (boxes may overlap
    where tiles touch), else the nearest box centre within one box size (a finger is wider than the
    gap between two tiles) or within half of `reach` (photo pixels: the smallest tap area a thumb
    can hit, as drawn — a tile 26 px high on the phone is still tapped 22 px from its centre); None
    when the tap is nowhere near a tile."""
    inside = [
        (abs((b.xyxy[2] - b.xyxy[0]) * (b.xyxy[3] - b.xyxy[1])), i)
        for i, b in enumerate(boxes)
        if b.xyxy is not None and b.xyxy[0] <= x <= b.xyxy[2] and b.xyxy[1] <= y <= b.xyxy[3]
    ]
    if inside:
        return min(inside)[1]
    best: tuple[float, float, int] | None = None
    for i, b in enumerate(boxes):
        if b.xyxy is None:
            continue
        x1, y1, x2, y2 = b.xyxy
        w, h = max(x2 - x1, reach / 2, 1.0), max(y2 - y1, reach / 2, 1.0)
        dx, dy = abs(x - (x1 + x2) / 2) / w, abs(y - (y1 + y2) / 2) / h
        near = (max(dx, dy), math.hypot(dx, dy), i)  # ties (a tap above two tiles): the closer centre
        if near[0] <= 1.0 and (best is None or near < best):
            best = near
    return None if best is None else best[2]


def tap_target(
    boxes: Sequence[Box], maybe: Sequence[Box], x: float, y: float, reach: float = 0.0
) -> tuple[str, int] | None:
    """What a tap on the photo at (x, y) means: ("tile", i) to pick tile i, ("maybe", j) to take the
    open suggestion j (page.photo_state.Photo.maybe), or None. A tap inside a tile's box is that
    tile; else inside a suggestion's box, the suggestion; else the nearest tile within reach
    (box_at), else the nearest open suggestion within reach. Tiles first: a near miss between a
    tile and a suggestion must never add a tile the player did not point at."""
    open_ = [j for j, b in enumerate(maybe) if not b.fixed and b.xyxy is not None]

    def inside(b: Box) -> bool:
        return b.xyxy is not None and b.xyxy[0] <= x <= b.xyxy[2] and b.xyxy[1] <= y <= b.xyxy[3]

    if any(inside(b) for b in boxes):
        return "tile", box_at(boxes, x, y)  # type: ignore[return-value]
    hit = [j for j in open_ if inside(maybe[j])]
    if hit:
        return "maybe", hit[0]
    i = box_at(boxes, x, y, reach)
    if i is not None:
        return "tile", i
    j = box_at([maybe[k] for k in open_], x, y, reach)
    return None if j is None else ("maybe", open_[j])
