"""A loser's laid-down melds from one photo: 吃/碰/明杠/暗杠, read with the layout reader's geometry.

Why a reader of its own: a loser photographs only his open melds (no standing hand, no wall, no
indicator), usually laid side by side with little or no gap. `vision.read.layout.read_layout`
looks for a standing hand of five or more tiles and would take two touching pongs for it. Here
every group of touching tiles is melds: a group of 3 (or a 4 that is a kong) is one meld (its kind
from its faces, the ┴ kong's top tile as there), and a longer run is cut into melds by its faces —
the cut that makes every piece a 吃, 碰 or 杠, preferring the one most sure of its faces; when no
cut fits, a tile at either end (a neighbour's, or one cut by the photo's edge) may be left out.
Tiles no meld explains (a lone tile, two tiles, a run no cut fits) are reported, so the player is
asked about them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from vision.read.layout import (
    BACK,
    DetectionLike,
    MeldGuess,
    _Geo,
    _groups,
    _kind,
    _lifted_middle,
    _row_order,
    _sigmoid,
    _stacked_top,
)

#: A piece of a cut must fit a meld at least this well (`layout._kind`'s pattern confidence).
CLEAN = 0.99


@dataclass
class MeldReading:
    """The melds read from a loser's photo (left to right, then top to bottom) and what is left."""

    melds: list[MeldGuess]
    ignored: list[int] = field(default_factory=list)  # detections no meld explains

    def codes(self, dets: Sequence[DetectionLike]) -> list[tuple[str, list[str]]]:
        """(kind, tile codes) per meld, as `page.quick_entry.parse_melds` gives them."""
        return [(m.kind, m.codes(dets)) for m in self.melds]

    @property
    def confidence(self) -> float:
        """The least sure decision (1.0 for an empty photo that has nothing left over)."""
        vals = [min(m.group_conf, m.kind_conf) for m in self.melds]
        if self.ignored:
            vals.append(0.3)
        return float(min(vals)) if vals else (0.3 if self.ignored else 1.0)


def read_melds(dets: Sequence[DetectionLike]) -> MeldReading:
    """The melds on a photo of one player's laid-down melds (detections in pixels, any order)."""
    if not dets:
        return MeldReading([])
    g = _Geo(dets)
    melds: list[MeldGuess] = []
    ignored: list[int] = []
    for grp in _groups(g):
        gconf = _sigmoid(min(grp.sep_margin, grp.link_margin) / 0.08)
        members = grp.members
        if len(members) == 3 or (len(members) == 4 and _is_one_meld(g, members)):
            melds.append(_one_meld(g, dets, members, gconf))
            continue
        if len(members) >= 4:
            order = _row_order(g, members)
            for keep in _trimmed(order):
                pieces = _cut(g, dets, keep)
                if pieces is not None:
                    melds.extend(
                        MeldGuess(p, *_kind([g.cls[i] for i in p], [dets[i].conf for i in p]), gconf)
                        for p in pieces
                    )
                    ignored.extend(i for i in order if i not in keep)
                    break
            else:
                ignored.extend(members)
            continue
        ignored.extend(members)
    tile_h = float(sum(g.h) / g.n)
    melds.sort(key=lambda m: (round(float(g.c[m.tiles, 1].mean()) / tile_h), float(g.c[m.tiles, 0].min())))
    return MeldReading(melds, sorted(ignored))


def _is_one_meld(g: _Geo, members: list[int]) -> bool:
    """Four touching tiles are one meld (a 杠, a ┴ kong, a 暗杠) rather than a meld and a stray."""
    faces = [g.cls[i] for i in members]
    return _stacked_top(g, members) is not None or BACK in faces or len(set(faces)) == 1


def _trimmed(order: list[int]) -> list[list[int]]:
    """The run, then the run without a tile at one end or both: a tile of the next player's melds,
    or a part-visible tile at the photo's edge, that lies against the melds."""
    return [order, order[1:], order[:-1], order[1:-1]]


def _one_meld(g: _Geo, dets: Sequence[DetectionLike], members: list[int], gconf: float) -> MeldGuess:
    """A group of 3–4 tiles as one meld, the ┴ kong's top tile last (as `read_layout` does)."""
    top = _stacked_top(g, members) if len(members) == 4 else None
    base = [i for i in members if i != top]
    order = _row_order(g, base) + ([top] if top is not None else [])
    kind, kconf = _kind([g.cls[i] for i in order], [dets[i].conf for i in order])
    if kind == "pong" and _lifted_middle(g, order):
        kind, kconf, top = "kong", min(kconf, 0.5), order[1]
    return MeldGuess(order, kind, kconf, gconf, top)


def _cut(g: _Geo, dets: Sequence[DetectionLike], order: list[int]) -> list[list[int]] | None:
    """Cut a run of touching tiles into pieces of 3 or 4 that are each a clean meld; of the cuts,
    the one whose least sure piece is surest (then fewer pieces). None when no cut fits."""
    n = len(order)
    best: list[tuple[float, int, list[list[int]]] | None] = [None] * (n + 1)
    best[0] = (1.0, 0, [])
    for end in range(3, n + 1):
        for size in (3, 4):
            start = end - size
            if start < 0 or best[start] is None:
                continue
            piece = order[start:end]
            faces = [g.cls[i] for i in piece]
            _, fit = _kind(faces, [1.0] * size)
            if fit < CLEAN or (size == 4 and BACK not in faces and len(set(faces)) != 1):
                continue
            sure = min(dets[i].conf for i in piece)
            prev_sure, prev_count, prev_pieces = best[start]  # type: ignore[misc]
            cand = (min(prev_sure, sure), prev_count + 1, [*prev_pieces, piece])
            if best[end] is None or (cand[0], -cand[1]) > (best[end][0], -best[end][1]):  # type: ignore[index]
                best[end] = cand
    return best[n][2] if best[n] is not None else None
