"""Where each tile of a photo belongs (its role) and the winner's tiles that the roles make.

Why this module exists: the page keeps one `page.box.Box` per tile (a detection, a typed or an added tile)
and lets the player say where it belongs: the standing hand, meld K, the 混 indicator, not in the hand,
or not a tile at all. Turning a proposed layout (`vision.read.layout.Layout`) into those roles, guessing the
winning tile, and turning the roles back into `page.situation.WinnerTiles` is logic about photo
detections for the page, so it lives in `page/` and is unit-tested; app.py only draws the pickers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from page.situation import WinnerTiles, meld_kind_for
from page.words import Words
from rules import tiles as T

if TYPE_CHECKING:  # page.box is the typed box; roles only reads its fields
    from page.box import Box

#: What a tile on the photo is, as the page lets the player say it.
ROLES = ("hand", "meld1", "meld2", "meld3", "meld4", "indicator", "other", "delete")
ROLE_WORDS = {
    "hand": Words("手牌", "hand"),
    "meld1": Words("副露1", "meld 1"),
    "meld2": Words("副露2", "meld 2"),
    "meld3": Words("副露3", "meld 3"),
    "meld4": Words("副露4", "meld 4"),
    "indicator": Words("混指示牌", "wild-tile indicator"),
    "other": Words("不在手里", "not in the hand"),
    "delete": Words("不是牌", "not a tile"),
}


def roles_from_layout(layout: object, n: int) -> tuple[list[str], int | None, dict[str, str]]:
    """Roles for n boxes from a `vision.read.layout.Layout` (duck-typed): standing → hand, melds → meld k,
    the lone winning tile → hand (and returned as the winning index), the indicator, the rest other.

    Returns (roles, winning index or None, {meld role: kind})."""
    roles = ["other"] * n
    for i in getattr(layout, "standing", []):
        roles[i] = "hand"
    kinds: dict[str, str] = {}
    for k, meld in enumerate(getattr(layout, "melds", [])[:4]):
        for i in meld.tiles:
            roles[i] = f"meld{k + 1}"
        kinds[f"meld{k + 1}"] = meld.kind
    winning = getattr(layout, "winning", None)
    if winning is not None:
        roles[winning] = "hand"
    indicator = getattr(layout, "indicator", None)
    if indicator is not None:
        roles[indicator] = "indicator"
    return roles, winning, kinds


#: A tile joins the group of the nearest tile when their centres lie within this many of its own
#: long sides (the next tile of a row is one away, a tile across a small gap two).
BESIDE = 2.0


def role_beside(boxes: list[Box], xyxy: list[float] | None) -> str:
    """Where a tile at `xyxy` belongs: with the nearest standing or meld tile within BESIDE of its
    long sides (a tile missed in a meld joins the meld), else the standing hand."""
    if xyxy is None:
        return "hand"
    cx, cy, size = (xyxy[0] + xyxy[2]) / 2, (xyxy[1] + xyxy[3]) / 2, max(xyxy[2] - xyxy[0], xyxy[3] - xyxy[1])
    best, role = BESIDE * size, "hand"
    for b in boxes:
        if b.xyxy is None or not (b.role == "hand" or b.role.startswith("meld")):
            continue
        d = math.hypot((b.xyxy[0] + b.xyxy[2]) / 2 - cx, (b.xyxy[1] + b.xyxy[3]) / 2 - cy)
        if d <= best:
            best, role = d, b.role
    return role


def default_winning(boxes: list[Box]) -> int | None:
    """With no tile set apart, the winning tile is most often the last one of the standing row."""
    hand = [i for i, b in enumerate(boxes) if b.role == "hand"]
    if not hand:
        return None

    def right_end(i: int) -> tuple[float, float]:
        xy = boxes[i].xyxy
        return (float(xy[2]), i) if xy else (float("-inf"), i)

    return max(hand, key=right_end)


def meld_kind(faces: list[str], confirmed: str | None = None) -> str:
    """A meld's kind: what the player confirmed, else what its faces look like, else 明杠 for four, 碰."""
    return confirmed or meld_kind_for(faces) or ("kong" if len(faces) == 4 else "pong")


def winner_tiles_from_boxes(
    boxes: list[Box],
    winning: int | None,
    meld_kinds: Mapping[str, str],
    kong_faces: Mapping[str, str] | None = None,
) -> WinnerTiles:
    """The winner's tiles from the page's tile list: role `hand` is concealed (winning tile included),
    `meldK` tiles form meld K with the kind the player confirmed (or the kind its faces show).

    A 暗杠 shows backs: its tile is the face shown on it, or (all four face down) `kong_faces[role]`.
    The boxes keep `back` as their class, which is what the photo shows and what training must learn."""
    concealed = [b.cls for b in boxes if b.role == "hand"]
    melds: list[tuple[str, list[str]]] = []
    for k in range(1, 5):
        role = f"meld{k}"
        faces = [b.cls for b in boxes if b.role == role]
        if not faces:
            continue
        kind = meld_kind(faces, meld_kinds.get(role))
        if kind == "concealed_kong":
            shown = [f for f in faces if f != "back"] or [(kong_faces or {}).get(role, "back")]
            faces = [shown[0]] * len(faces)
        elif kind == "chi" and all(T.parse_code(f) is not None for f in faces):
            faces = sorted(faces, key=lambda f: T.parse_code(f) or 0)  # 六七八, however they lie
        melds.append((kind, faces))
    win = None
    if winning is not None and 0 <= winning < len(boxes) and boxes[winning].role == "hand":
        win = boxes[winning].cls
    return WinnerTiles(concealed, melds, win, winning_in_concealed=True)


def changed_count(boxes: list[Box]) -> int:
    """How many boxes the player changed: a fixed face, a deleted false box, an added tile."""
    n = 0
    for b in boxes:
        if b.origin == "added":
            n += b.role != "delete"
        elif b.role == "delete" or (b.model_cls is not None and b.cls != b.model_cls):
            n += 1
    return n
