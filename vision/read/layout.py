"""Layout reader: from tile detections to a proposed hand (standing row, melds, winning tile, 混).

Geometry first, faces second.  Tiles that touch (gap below ~0.35 of their width, rows overlapping)
or lie on each other (the ┴ kong's fourth tile) form groups.  Long all-back groups are the wall.
Then:

* the standing hand is the big group (≥ 5 tiles) or, with 3–4 melds down, the leftmost group of the
  row furthest from the camera that is not meld-shaped;
* 3–4 tile groups are melds; the kind comes from the faces (3 same = pong, 3 consecutive in a suit =
  chi, 4 same = kong, any back = concealed kong), the ┴ top tile from overlap with the middle one;
* a lone tile in line with the standing row, past its right end, is the winning tile; any other lone
  tile is the 混 indicator.

Every decision carries a confidence in [0, 1] (margins of gaps against the threshold, agreement of
faces, detector confidences), so the app asks the player only where it is unsure.  The module takes
any objects with `cls`, `conf` and `xyxy` (see `DetectionLike`), so it needs no detector import.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

BACK = "back"
#: Gap (in tile short sides) below which neighbouring tiles belong to one group.
LINK_GAP = 0.35
#: First-pass (box) gap for joining tiles; rows are then split on their pitch at LINK_GAP, which
#: is less noisy than box edges, so the first pass may be lenient.
LINK_GAP_LOOSE = 0.5
#: Groups of at least this many backs are the wall, not a concealed kong.
WALL_MIN = 5
#: Confidence below which the app should ask the player.
ASK_BELOW = 0.6


class DetectionLike(Protocol):
    """What the reader needs from a detection (vision.read.detect.Detection satisfies it)."""

    cls: str
    conf: float
    xyxy: tuple[float, float, float, float]


@dataclass
class MeldGuess:
    """A proposed meld: detection indices left to right (a ┴ kong's top tile last)."""

    tiles: list[int]
    kind: str  # chi, pong, kong, concealed_kong
    kind_conf: float
    group_conf: float
    stacked: int | None = None

    def codes(self, dets: Sequence[DetectionLike]) -> list[str]:
        """Tile codes of the meld; backs of a concealed kong take the visible face when there is one,
        and a kong read from three tiles (hidden ┴ middle) gets its fourth."""
        faces = [dets[i].cls for i in self.tiles]
        shown = [f for f in faces if f != BACK]
        n = 4 if self.kind in ("kong", "concealed_kong") else len(faces)  # a hidden ┴ middle tile
        if self.kind in ("kong", "concealed_kong") and shown:
            return [max(shown, key=shown.count)] * n  # the majority face
        return faces + [faces[-1]] * (n - len(faces))


@dataclass
class Layout:
    """Proposed hand as indices into the detection list, with a confidence per decision."""

    standing: list[int]
    melds: list[MeldGuess]
    winning: int | None
    indicator: int | None
    ignored: list[int] = field(default_factory=list)  # wall and stray tiles
    standing_conf: float = 1.0
    winning_conf: float = 1.0
    indicator_conf: float = 1.0

    @property
    def tile_count(self) -> int:
        """Tiles in the hand with each kong counted as three: 14 for a complete winning hand."""
        n = len(self.standing) + (self.winning is not None)
        return n + sum(3 if len(m.tiles) >= 3 else len(m.tiles) for m in self.melds)

    def to_codes(self, dets: Sequence[DetectionLike]) -> dict:
        """Tile-code lists for the scoring side: standing, melds (kind, codes), winning, indicator."""
        return {
            "standing": [dets[i].cls for i in self.standing],
            "melds": [(m.kind, m.codes(dets)) for m in self.melds],
            "winning": dets[self.winning].cls if self.winning is not None else None,
            "indicator": dets[self.indicator].cls if self.indicator is not None else None,
        }

    def doubts(self, threshold: float = ASK_BELOW) -> list[str]:
        """Decisions whose confidence is below `threshold`, worded for the app's questions."""
        out = []
        if self.standing_conf < threshold:
            out.append("standing")
        for k, m in enumerate(self.melds):
            if m.group_conf < threshold:
                out.append(f"meld {k} grouping")
            if m.kind_conf < threshold:
                out.append(f"meld {k} kind")
        if self.winning_conf < threshold:
            out.append("winning")
        if self.indicator_conf < threshold:
            out.append("indicator")
        if self.tile_count != 14:  # a missed or extra detection, or a misgrouping
            out.append("tile count")
        return out

    @property
    def confidence(self) -> float:
        """The least sure decision."""
        vals = [self.standing_conf, self.winning_conf, self.indicator_conf]
        vals += [min(m.group_conf, m.kind_conf) for m in self.melds]
        if self.tile_count != 14:
            vals.append(0.3)
        return float(min(vals))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, x))))


@dataclass
class _Group:
    members: list[int]
    sep_margin: float  # how clearly it is separated from other tiles (gap/short - LINK_GAP, min)
    link_margin: float  # how clearly its members hold together (LINK_GAP - gap/short, min)


class _Geo:
    """Box arrays and the raw pairwise 'gap' relation of the detections."""

    def __init__(self, dets: Sequence[DetectionLike]) -> None:
        b = np.array([d.xyxy for d in dets], dtype=np.float64).reshape(-1, 4)
        self.b = b
        self.w = np.maximum(b[:, 2] - b[:, 0], 1e-6)
        self.h = np.maximum(b[:, 3] - b[:, 1], 1e-6)
        self.c = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], 1)
        self.short = np.minimum(self.w, self.h)
        self.cls = [d.cls for d in dets]
        self.n = len(dets)

    def sideways(self, i: int) -> bool:
        return bool(self.w[i] > self.h[i] * 1.05)

    def gap(self, i: int, j: int) -> float:
        """Box gap between i and j in tile widths when they share a row (< 0: overlapping), -1 when
        one lies on the other (┴ kong, wall layers), inf when unrelated.

        Under camera roll, axis-aligned boxes are wider than their tiles, so this under-estimates
        gaps; rows are re-split on their pitch afterwards (`_split_row`)."""
        b = self.b
        yov = min(b[i, 3], b[j, 3]) - max(b[i, 1], b[j, 1])
        xov = min(b[i, 2], b[j, 2]) - max(b[i, 0], b[j, 0])
        if xov > 0.6 * min(self.w[i], self.w[j]) and yov > 0:
            return -1.0
        if yov > 0.3 * min(self.h[i], self.h[j]):
            return -xov / min(self.short[i], self.short[j])
        return math.inf


#: Long side over short side of a tile's face, for the width of a tile laid across.
TILE_ASPECT = 1.35


@dataclass
class _Row:
    """A row fitted through some tiles: unit direction, pitch (one upright tile's width + hairline)
    and which of its tiles lie across."""

    axis: np.ndarray
    pitch: float
    across: frozenset[int] = frozenset()

    def along(self, g: _Geo, i: int) -> float:
        return float(g.c[i] @ self.axis)

    def width(self, g: _Geo, i: int) -> float:
        return self.pitch * (TILE_ASPECT if (i in self.across or g.sideways(i)) else 1.0)

    def gap(self, g: _Geo, i: int, j: int) -> float:
        """Gap between consecutive tiles i < j along the row, in pitches (0 for touching tiles)."""
        d = abs(self.along(g, j) - self.along(g, i))
        return (d - 0.5 * (self.width(g, i) + self.width(g, j))) / self.pitch


def _across(g: _Geo, base: list[int]) -> frozenset[int]:
    """Tiles laid across: wider than tall, or much wider for their height than the row's others
    (a strong perspective squeezes a sideways tile's box towards square)."""
    ratio = g.w[base] / g.h[base]
    med = float(np.median(ratio))
    return frozenset(
        i for i, r in zip(base, ratio, strict=True) if g.sideways(i) or (r > 1.3 * med and med < 0.95)
    )


def _fit_row(g: _Geo, base: list[int]) -> _Row:
    """Row line through the box bottoms (tiles stand on one line), pitch from neighbour spacing."""
    axis = np.array([1.0, 0.0])
    xs = g.c[base, 0]
    if len(base) >= 2 and np.ptp(xs) > 0:
        slope = float(np.polyfit(xs, g.b[base, 3], 1)[0]) if len(base) >= 3 else 0.0
        axis = np.array([1.0, slope]) / math.hypot(1.0, slope)
    order = sorted(base, key=lambda i: float(g.c[i] @ axis))
    across = _across(g, base) if len(base) >= 3 else frozenset(i for i in base if g.sideways(i))
    # each neighbour pair's spacing in upright-tile widths (a tile laid across counts TILE_ASPECT)
    f = [TILE_ASPECT if i in across else 1.0 for i in order]
    p = [
        float((g.c[j] - g.c[i]) @ axis) / (0.5 * (f[k] + f[k + 1]))
        for k, (i, j) in enumerate(zip(order, order[1:], strict=False))
    ]
    widths = [g.w[i] for i in base if i not in across] or list(g.short[base])
    pitch = float(np.median(p)) if len(p) >= 2 else float(np.median(widths))
    # the median spacing is a tile width unless most neighbours are set apart: never exceed the boxes
    pitch = min(pitch, float(np.median(widths)) * 1.05) if widths else pitch
    return _Row(axis, max(pitch, 1e-6), across)


def _components(g: _Geo, gaps: np.ndarray) -> list[list[int]]:
    """Connected components of 'gap below LINK_GAP' (union-find)."""
    parent = list(range(g.n))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for i in range(g.n):
        for j in range(i + 1, g.n):
            if gaps[i, j] < LINK_GAP_LOOSE:
                parent[find(i)] = find(j)
    comps: dict[int, list[int]] = {}
    for i in range(g.n):
        comps.setdefault(find(i), []).append(i)
    return list(comps.values())


def _split_row(g: _Geo, members: list[int], gaps: np.ndarray) -> list[tuple[list[int], float, float]]:
    """Split a component where its row pitch shows a gap; returns (members, link, sep margins).

    Tiles lying on another member (┴ tops, upper wall layer) go with the part of the tile below."""
    on_top = {i for i in members for j in members if i != j and gaps[i, j] == -1.0 and g.c[i, 1] < g.c[j, 1]}
    base = [i for i in members if i not in on_top] or members
    row = _fit_row(g, base)
    order = sorted(base, key=lambda i: row.along(g, i))
    parts: list[list[int]] = [[order[0]]]
    links: list[float] = [-math.inf]
    seps: list[float] = []
    for i, j in zip(order, order[1:], strict=False):
        gp = row.gap(g, i, j) if len(base) >= 3 else float(gaps[i, j])
        if gp > LINK_GAP:
            seps.append(gp - LINK_GAP)
            parts.append([j])
            links.append(-math.inf)
        else:
            parts[-1].append(j)
            links[-1] = max(links[-1], gp)
    for t in on_top:  # attach to the part holding the tile underneath
        below = min(base, key=lambda k: abs(g.c[k, 0] - g.c[t, 0]) + (0 if g.c[k, 1] > g.c[t, 1] else 1e9))
        next(p for p in parts if below in p).append(t)
    out = []
    for k, p in enumerate(parts):
        link = (LINK_GAP - links[k]) if math.isfinite(links[k]) else 1.0
        sep_here = [seps[k - 1]] if k > 0 else []
        sep_here += [seps[k]] if k < len(seps) else []
        sep = min(sep_here) if sep_here else math.inf
        if len(parts) > 1 and len(p) >= 3:
            # a part has its own pitch and line (perspective changes both along a long row)
            for sub, sub_link, sub_sep in _split_row(g, p, gaps):
                out.append((sub, sub_link, min(sep, sub_sep)))
        else:
            out.append((p, link, sep))
    return out


def _groups(g: _Geo) -> list[_Group]:
    """Groups of touching tiles: raw-gap components, re-split on their row pitch, with margins."""
    n = g.n
    gaps = np.full((n, n), math.inf)
    for i in range(n):
        for j in range(i + 1, n):
            gaps[i, j] = gaps[j, i] = g.gap(i, j)
    out = []
    for comp in _components(g, gaps):
        cs = set(comp)
        outer = [gaps[i, j] for i in comp for j in range(n) if j not in cs and math.isfinite(gaps[i, j])]
        sep_out = (min(outer) - LINK_GAP) if outer else 1.0
        for members, link, sep in _split_row(g, comp, gaps):
            out.append(_Group(sorted(members, key=lambda k: g.c[k, 0]), min(sep, sep_out), link))
    return out


def _row_order(g: _Geo, members: list[int]) -> list[int]:
    """Members in reading order along their fitted row line (handles tilt and roll)."""
    row = _fit_row(g, members)
    return sorted(members, key=lambda i: row.along(g, i))


def _stacked_top(g: _Geo, members: list[int]) -> int | None:
    """The tile lying on another one (┴ kong): centred over a member's box and clearly above it."""
    best, best_d = None, 0.35
    for i in members:
        for j in members:
            if i == j or g.c[i, 1] >= g.c[j, 1] - 0.12 * g.h[j]:
                continue
            yov = min(g.b[i, 3], g.b[j, 3]) - max(g.b[i, 1], g.b[j, 1])
            d = abs(g.c[i, 0] - g.c[j, 0]) / min(g.w[i], g.w[j])
            if yov > -0.05 * g.h[i] and d < best_d:
                best, best_d = i, d
    return best


def _lifted_middle(g: _Geo, order: list[int]) -> bool:
    """Three tiles whose middle one sits clearly higher than both neighbours: the top of a ┴ kong
    seen over a (mostly hidden, undetected) fourth tile."""
    if len(order) != 3 or any(g.sideways(i) for i in order):
        return False
    a, m, b = order
    lift = min(g.b[a, 3], g.b[b, 3]) - g.b[m, 3]
    return bool(lift > 0.2 * g.h[m])


def _is_wall(g: _Geo, grp: _Group) -> bool:
    return len(grp.members) >= WALL_MIN and all(g.cls[i] == BACK for i in grp.members)


def _kind(faces: list[str], confs: list[float]) -> tuple[str, float]:
    """Meld kind from its faces, with a confidence (pattern fit times the weakest detection)."""
    base = min(confs) if confs else 1.0
    shown = [f for f in faces if f != BACK]
    if len(faces) == 4:
        if len(shown) < 4:
            same = len(set(shown)) <= 1
            return "concealed_kong", base * (1.0 if same else 0.5)
        return "kong", base * (1.0 if len(set(shown)) == 1 else 0.4)
    if len(faces) == 3 and len(shown) == 3:
        if len(set(shown)) == 1:
            return "pong", base
        suits = {f[1] for f in shown if len(f) == 2 and f[0].isdigit()}
        if len(suits) == 1 and all(len(f) == 2 and f[0].isdigit() for f in shown):
            ranks = sorted(int(f[0]) for f in shown)
            if ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1:
                return "chi", base
        # no clean pattern: a misread face; guess from how many agree
        if len(set(shown)) == 2:
            return "pong", base * 0.4
        return "chi", base * 0.3
    return ("pong" if len(faces) == 3 else "kong"), base * 0.2


def _meld_shape(g: _Geo, members: list[int]) -> bool:
    """Whether a group is laid out like a meld: a face-down tile, a ┴ top, or a tile laid across."""
    return (
        any(g.cls[i] == BACK for i in members)
        or _stacked_top(g, members) is not None
        or any(g.sideways(i) for i in members)
    )


def _meldlike(g: _Geo, grp: _Group) -> bool:
    """Whether a 3–4 tile group looks like a meld by its shape or its faces (a pong, chi or kong)."""
    m = grp.members
    if len(m) not in (3, 4):
        return False
    if _meld_shape(g, m):
        return True
    _, conf = _kind([g.cls[i] for i in m], [1.0] * len(m))
    return conf >= 0.99


def _pick_standing(g: _Geo, multi: list[_Group], singles: list[_Group]) -> tuple[_Group | None, list[_Group]]:
    """The standing hand's group, and the lone tiles left over.

    Standing sizes are 13 - 3k (+1 with the winning tile), never 3, so: the largest group that is
    not meld-shaped.  With four melds down only one tile stands: then it is the lone tile that has
    another lone tile (the winning one) in line to its right, else the lone tile nearest the camera
    (the 混 indicator lies further out, by the wall).
    """
    cands = [grp for grp in multi if len(grp.members) != 3 and not _meldlike(g, grp)]
    if cands:
        best = max(cands, key=lambda grp: (len(grp.members), -g.c[grp.members, 0].min()))
        return best, singles
    if singles:
        idx = [s.members[0] for s in singles]

        def has_partner(i: int) -> bool:
            return any(
                j != i
                and abs(g.b[j, 3] - g.b[i, 3]) < 0.5 * g.h[i]
                and 0 < _Row(np.array([1.0, 0.0]), float(g.w[i])).gap(g, i, j) < 4.0
                for j in idx
            )

        paired = [i for i in idx if has_partner(i)]
        pick = min(paired, key=lambda i: g.c[i, 0]) if paired else max(idx, key=lambda i: g.c[i, 1])
        grp = next(s for s in singles if s.members[0] == pick)
        return grp, [s for s in singles if s is not grp]
    others = [grp for grp in multi if len(grp.members) != 3]
    if others:
        return max(others, key=lambda grp: len(grp.members)), singles
    return None, singles


def read_layout(dets: Sequence[DetectionLike]) -> Layout:
    """Propose the hand's layout from detections (pixels, any order)."""
    if not dets:
        return Layout([], [], None, None, standing_conf=0.0, winning_conf=0.0, indicator_conf=0.0)
    g = _Geo(dets)
    groups = _groups(g)
    wall = sorted(i for grp in groups if _is_wall(g, grp) for i in grp.members)
    rest = [grp for grp in groups if not _is_wall(g, grp)]
    tile_h = float(np.median([g.h[i] for grp in rest for i in grp.members])) if rest else 1.0
    multi = [grp for grp in rest if len(grp.members) > 1]
    singles = [grp for grp in rest if len(grp.members) == 1]

    standing, left = _pick_standing(g, multi, singles)
    layout = _assemble(g, dets, multi, left, standing, wall, tile_h)
    if layout.tile_count != 14:
        # a 4-tile standing hand of one face reads as a kong: try it as the standing hand instead
        for alt in multi:
            if alt is standing or len(alt.members) != 4 or _meld_shape(g, alt.members):
                continue
            cand = _assemble(g, dets, multi, singles, alt, wall, tile_h)
            if cand.tile_count == 14:
                cand.standing_conf = min(cand.standing_conf, 0.5)  # ask the player
                return cand
    return layout


def _assemble(
    g: _Geo,
    dets: Sequence[DetectionLike],
    multi: list[_Group],
    singles: list[_Group],
    standing: _Group | None,
    wall: list[int],
    tile_h: float,
) -> Layout:
    """The layout for a given standing group: other groups become melds, lone tiles the winning
    tile (in line, past the row's end) or the indicator."""
    ignored = list(wall)
    singles = [s for s in singles if s is not standing]
    melds: list[MeldGuess] = []
    for grp in multi:
        if grp is standing:
            continue
        if len(grp.members) in (3, 4):
            top = _stacked_top(g, grp.members) if len(grp.members) == 4 else None
            base = [i for i in grp.members if i != top]
            order = _row_order(g, base) + ([top] if top is not None else [])
            kind, kconf = _kind([g.cls[i] for i in order], [dets[i].conf for i in order])
            gconf = _sigmoid(min(grp.sep_margin, grp.link_margin) / 0.08)
            if kind == "pong" and _lifted_middle(g, order):
                # ┴ kong whose hidden middle tile was not detected: a kong, but ask
                kind, kconf, top = "kong", min(kconf, 0.5), order[1]
            melds.append(MeldGuess(order, kind, kconf, gconf, top))
        else:
            ignored.extend(grp.members)  # 2 or 5+ loose tiles: not a meld; let the player decide
    melds.sort(key=lambda m: (round(float(g.c[m.tiles, 1].mean()) / tile_h), float(g.c[m.tiles, 0].min())))

    standing_idx = _row_order(g, standing.members) if standing else []
    standing_conf = _sigmoid(min(standing.sep_margin, standing.link_margin) / 0.08) if standing else 0.0

    winning, winning_conf = None, 1.0
    indicator, indicator_conf = None, 1.0
    if standing_idx:
        # a lone tile in line with the row, just past its right end
        last = standing_idx[-1]
        row = _fit_row(g, standing_idx)
        normal = np.array([-row.axis[1], row.axis[0]])
        base_off = float(np.median(g.b[standing_idx, 3] * normal[1] + g.c[standing_idx, 0] * normal[0]))
        scored = []
        for s in singles:
            i = s.members[0]
            dy = abs(float(g.b[i, 3] * normal[1] + g.c[i, 0] * normal[0]) - base_off) / tile_h
            dx = row.gap(g, last, i) if row.along(g, i) > row.along(g, last) else -1.0
            if dx > -0.2 and dy < 0.5 and dx < 4.0:
                scored.append((dx, dy, i))
        if scored:
            dx, dy, winning = min(scored)
            winning_conf = (
                _sigmoid((0.5 - dy) / 0.1) * _sigmoid((4.0 - dx) / 0.5) * _sigmoid((dx - LINK_GAP) / 0.1)
            )
            winning_conf *= dets[winning].conf
        else:
            # no tile set apart: sure when the row's right end is far from any lone tile
            winning_conf = 0.9
    others = [s.members[0] for s in singles if s.members[0] != winning]
    if others:
        # the indicator: a lone tile off the hand row; nearest the wall if several
        indicator = min(others, key=lambda i: g.c[i, 1])
        indicator_conf = dets[indicator].conf * (1.0 if len(others) == 1 else 0.4)
        ignored.extend(i for i in others if i != indicator)
    return Layout(
        standing=standing_idx,
        melds=melds,
        winning=winning,
        indicator=indicator,
        ignored=sorted(ignored),
        standing_conf=standing_conf,
        winning_conf=winning_conf,
        indicator_conf=indicator_conf,
    )
