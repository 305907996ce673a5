"""听牌: for a hand one tile short, every tile type that would win, with its 番 and payments.

Why this module exists: a photo is often one tile short (the winning tile not yet drawn or not in
the picture); a player then wants to see what he is waiting on and what each tile would pay
("听 三万 +250 · 六万 +500"). The same question decides 胡单张 under `danzhang_wait="single"`
(SPEC [Amb-24]): the winning tile must have been the hand's only wait.

The hand is hand-json with the winner's concealed tiles *without* a winning tile (as always) and
`win.tile` absent or ignored; everything else — melds, who discards, flags, options — is the
situation each candidate tile is scored under. A candidate is every tile type of the preset's tile
set of which the winner does not already hold four (the robbed pong's tile on a 抢杠). Only the
winner's own tiles limit a wait (SPEC [Amb-24], revised 2026-12-01): copies in other seats' melds,
the indicator and the 宝 do not take a wait away. The 混 type is listed apart (`Waits.hun`): a 混
completes almost any waiting hand, and it can only be self-drawn (a discarded 混 cannot be claimed),
so it is scored as a self-draw with the other flags kept.

`wait_types` is W of [Amb-24] for `danzhang_wait="single"`: the same candidates, but for the hand's
shape before the win — won the same way (a 抢杠 as a discard by the robbed player), with no 宝 and
none of the real win's one-off flags (杠上开, 海底, 流泪, 地胡).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from . import tiles as T
from .context import HandFacts
from .decompose import StandardSearch, within_reach
from .engine import facts_of, score_facts, valid_readings
from .hand import Hand, Win
from .names import tile_name
from .parse import loads_document, own_counts, parse_hand, win_tile_allowed
from .presets import Preset, has_winds
from .result import ScoreResult


@dataclass(frozen=True)
class Wait:
    """One winning tile type and the hand's score when won on it."""

    tile: int
    result: ScoreResult

    @property
    def gain(self) -> int:
        """What the winner receives in total."""
        return self.result.payments[self.result.winner]

    def to_dict(self) -> dict:
        r = self.result
        return {
            "tile": T.code(self.tile),
            "form": r.form,
            "winner_fan": [f.to_dict() for f in r.winner_fan],
            "winner_fan_total": r.winner_fan_total,
            "gain": self.gain,
            "payments": dict(r.payments),
        }


@dataclass(frozen=True)
class Waits:
    preset: str
    winner: str
    hun: int
    waits: list[Wait] = field(default_factory=list)  # natural tile types, in tile order
    hun_wait: Wait | None = None  # drawing a 混 oneself (self-draw)

    @property
    def tiles(self) -> list[int]:
        return [w.tile for w in self.waits]

    def to_dict(self) -> dict:
        return {
            "version": 1,
            "preset": self.preset,
            "winner": self.winner,
            "hun": T.code(self.hun),
            "waits": [w.to_dict() for w in self.waits],
            "hun_wait": None if self.hun_wait is None else {**self.hun_wait.to_dict(), "by": "self_draw"},
        }

    def text(self) -> str:
        """For people: `听 三万 +250 · 六万 +500` and the 混 on its own line."""
        if self.waits:
            line = "听 " + " · ".join(f"{tile_name(w.tile)} {w.gain:+d}" for w in self.waits)
        else:
            line = "没听牌 (no tile but the 混 completes this hand)"
        hun = tile_name(self.hun)
        if self.hun_wait is not None:
            line += f"\n混 {hun}: 自摸 {self.hun_wait.gain:+d}"
        else:
            line += f"\n混 {hun}: 不能胡"
        return line


def _one_short(hand: Hand | Mapping | str) -> Hand:
    if isinstance(hand, Hand):
        return hand
    if isinstance(hand, str):
        return loads_document(hand, need_win_tile=False)
    return parse_hand(hand, need_win_tile=False)


def _candidates(preset: Preset, facts: HandFacts, reach: set[int]) -> list[int]:
    """Tile types that could complete the hand: with no 混 in it, only tiles within reach of a held one
    (or, for 十三幺, any 幺九)."""
    hand = facts.hand
    winds = has_winds(preset, hand.options)
    types = [t for t in range(T.N_TYPES) if winds or not T.is_wind(t)]
    if facts.hun in (hand.winner_player.concealed or ()):
        return types
    near = set(reach)
    if preset.behaviour.thirteen and not hand.winner_player.melds:
        near.update(t for t in types if T.is_yaojiu(t))
    return [t for t in types if t in near]


class _Scorer:
    """Scores one hand one tile short with each candidate winning tile, sharing one search.

    A candidate out of reach of every natural tile in the hand can only join 混 in a group, so its
    search starts from the same sub-problems for all such candidates (`StandardSearch.prime`).
    """

    def __init__(self, short: Hand) -> None:
        self.short = short
        self.preset, self.facts = facts_of(short)
        hun = self.facts.hun
        concealed = short.winner_player.concealed or ()
        naturals = [t for t in concealed if t != hun]
        self.h = len(concealed) - len(naturals)
        self.base = [0] * T.N_TYPES
        for t in naturals:
            self.base[t] += 1
        self.reach = within_reach(naturals)
        self.counts = own_counts(short)
        self.search = StandardSearch(hun, None, self.preset.behaviour.borrow_yaojiu, danzhang=False)

    def candidates(self) -> list[int]:
        hun = self.facts.hun
        return [
            t
            for t in _candidates(self.preset, self.facts, self.reach)
            if t != hun and win_tile_allowed(self.short, hun, t, self.counts)
        ]

    def facts_for(self, t: int) -> HandFacts:
        if t not in self.reach:
            counts = list(self.base)
            counts[t] += 1
            self.search.prime(tuple(counts), t, self.h)
        return facts_of(_with_tile(self.short, t))[1]

    def valid(self, t: int) -> bool:
        return valid_readings(self.preset, self.facts_for(t), self.search)[1] is None

    def score(self, t: int) -> ScoreResult | None:
        f = self.facts_for(t)
        if self.preset.tracks_danzhang and valid_readings(self.preset, f, self.search)[1] is not None:
            return None  # not a win: skip the search that also notes 胡单张 shapes
        result = score_facts(self.preset, f, self.search)
        return result if result.valid else None


def _with_tile(hand: Hand, t: int, **win_changes: object) -> Hand:
    """The hand won on `t` (a shallow copy: `dataclasses.replace` would re-run every field's init)."""
    out = copy.copy(hand)
    object.__setattr__(out, "win", replace(hand.win, tile=t, **win_changes) if win_changes else _win(hand, t))
    return out


def _win(hand: Hand, t: int) -> Win:
    w = copy.copy(hand.win)
    object.__setattr__(w, "tile", t)
    return w


def wait_types(hand: Hand) -> set[int]:
    """W of [Amb-24]: the natural tile types (混 type excluded) on which the hand before the win,
    won the same way, is a valid win — its shape only (see the module docstring)."""
    scorer = _Scorer(_before_the_win(hand))
    return {t for t in scorer.candidates() if scorer.valid(t)}


def _before_the_win(hand: Hand) -> Hand:
    """The hand as W sees it: the same winner and discarder, no 宝/枪, no one-off flags; a 抢杠 is a
    win on the robbed player's tile like a discard."""
    by = "discard" if hand.win.by == "robbed_kong" else hand.win.by
    return replace(hand, win=Win(hand.win.tile, by, hand.win.source), bao_tile=None, gun_tile=None)


def waits(hand: Hand | Mapping | str) -> Waits:
    """Every tile that would win this hand one tile short, scored; raises `HandError` if malformed."""
    short = _one_short(hand)
    scorer = _Scorer(short)
    found = []
    for t in scorer.candidates():
        result = scorer.score(t)
        if result is not None:
            found.append(Wait(t, result))
    hun = scorer.facts.hun
    hun_wait = None
    if scorer.counts[hun] < 4:
        drawn = _with_tile(short, hun, by="self_draw", source=None, after_kong=False)
        result = score_facts(*facts_of(drawn), scorer.search)
        if result.valid:
            hun_wait = Wait(hun, result)
    return Waits(short.preset, short.winner, hun, found, hun_wait)
