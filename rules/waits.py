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

`wait_types` (from `readings.py`) is W of [Amb-24] for `danzhang_wait="single"`: the same
candidates, but for the hand's shape before the win.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from . import tiles as T
from .engine import score_facts
from .hand import Hand
from .names import tile_name
from .parse import loads_document, parse_hand
from .readings import WaitSearch, facts_of, valid_readings, wait_types, with_tile
from .result import ScoreResult

__all__ = ["Wait", "Waits", "wait_types", "waits"]


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


class _Scorer(WaitSearch):
    """Scores each candidate winning tile of a hand one tile short (`WaitSearch` shares the search)."""

    def score(self, t: int) -> ScoreResult | None:
        f = self.facts_for(t)
        if self.preset.tracks_danzhang and valid_readings(self.preset, f, self.search)[1] is not None:
            return None  # not a win: skip the search that also notes 胡单张 shapes
        result = score_facts(self.preset, f, self.search)
        return result if result.valid else None


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
        drawn = with_tile(short, hun, by="self_draw", source=None, after_kong=False)
        result = score_facts(*facts_of(drawn), scorer.search)
        if result.valid:
            hun_wait = Wait(hun, result)
    return Waits(short.preset, short.winner, hun, found, hun_wait)
