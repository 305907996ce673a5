"""听牌: for a hand one tile short, every tile type that would win, with its 番 and payments.

Why this module exists: a photo is often one tile short (the winning tile not yet drawn or not in
the picture); a player then wants to see what he is waiting on and what each tile would pay
("听 三万 +250 · 六万 +500"). The same question decides 胡单张 under `danzhang_wait="single"`
(SPEC [Amb-24]): the winning tile must have been the hand's only wait.

The hand is hand-json with the winner's concealed tiles *without* a winning tile (as always) and
`win.tile` absent or ignored; everything else — melds, who discards, flags, options — is the
situation each candidate tile is scored under. A candidate is every tile type of the preset's tile
set that the input leaves a live copy of (not a fifth copy, not a fourth of the indicator, the
robbed pong's tile on a 抢杠). The 混 type is listed apart (`Waits.hun`): a 混 completes almost any
waiting hand, and it can only be self-drawn (a discarded 混 cannot be claimed), so it is scored as
a self-draw with the other flags kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from . import tiles as T
from .context import HandFacts
from .engine import facts_of, score_facts, valid_readings
from .hand import Hand
from .names import tile_name
from .parse import copy_limit, listed_counts, loads_document, parse_hand, win_tile_allowed
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
    if not isinstance(hand, Mapping):
        return parse_hand(hand, need_win_tile=False)  # says what is wrong with it
    data = dict(hand)
    if isinstance(data.get("win"), dict):
        data["win"] = {k: v for k, v in data["win"].items() if k != "tile"}
    return parse_hand(data, need_win_tile=False)


def _candidates(preset: Preset, facts: HandFacts) -> list[int]:
    """Tile types that could complete the hand: with no 混 in it, only tiles beside a held one."""
    hand = facts.hand
    winds = has_winds(preset, hand.options)
    types = [t for t in range(T.N_TYPES) if winds or not T.is_wind(t)]
    concealed = hand.winner_player.concealed or ()
    if facts.hun in concealed:
        return types
    near: set[int] = set(concealed)
    for t in concealed:
        if T.is_suited(t):
            near.update(u for u in range(t - 2, t + 3) if 0 <= u < 27 and T.suit_of(u) == T.suit_of(t))
    if preset.behaviour.thirteen and not hand.winner_player.melds:
        near.update(t for t in types if T.is_yaojiu(t))
    return [t for t in types if t in near]


def _with_tile(hand: Hand, t: int, **win_changes: object) -> Hand:
    return replace(hand, win=replace(hand.win, tile=t, **win_changes))


def wait_types(hand: Hand) -> set[int]:
    """W of [Amb-24]: the natural tile types (混 type excluded) on which this hand is a valid win."""
    preset, facts = facts_of(hand)
    counts = listed_counts(hand)
    out = set()
    for t in _candidates(preset, facts):
        if t == facts.hun or not win_tile_allowed(hand, facts.hun, t, counts):
            continue
        _, f = facts_of(_with_tile(hand, t))
        if valid_readings(preset, f)[1] is None:
            out.add(t)
    return out


def waits(hand: Hand | Mapping | str) -> Waits:
    """Every tile that would win this hand one tile short, scored; raises `HandError` if malformed."""
    short = _one_short(hand)
    preset, facts = facts_of(short)
    hun = facts.hun
    counts = listed_counts(short)
    found: list[Wait] = []
    for t in _candidates(preset, facts):
        if t == hun or not win_tile_allowed(short, hun, t, counts):
            continue
        result = score_facts(*facts_of(_with_tile(short, t)))
        if result.valid:
            found.append(Wait(t, result))
    hun_wait = None
    if counts[hun] < copy_limit(short, hun):
        drawn = _with_tile(short, hun, by="self_draw", source=None, after_kong=False)
        result = score_facts(*facts_of(drawn))
        if result.valid:
            hun_wait = Wait(hun, result)
    return Waits(short.preset, short.winner, hun, found, hun_wait)
