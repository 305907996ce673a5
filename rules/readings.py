"""Which readings of a hand may win (SPEC 4.2, 5.3), and on which tiles a hand one short may win.

`facts_of(hand)` is the preset and the `HandFacts` every condition and 番 item reads. `valid_readings`
enumerates the readings the preset allows (七对, standard, 十三幺) and filters them through the
preset's win conditions in order, or says the one reason none can win. `WaitSearch` tries every
candidate winning tile of a hand one tile short with one shared search; `wait_types` is W of
[Amb-24] for `danzhang_wait="single"`: the candidates on which the hand before the win, won the same
way (a 抢杠 as a discard by the robbed player), with no 宝 and none of the real win's one-off flags
(杠上开, 海底, 流泪, 地胡), is a valid win — its shape only. `waits.py` scores each wait with the engine.
"""

from __future__ import annotations

import copy
from dataclasses import replace

from . import tiles as T
from .conditions import filter_readings
from .context import HandFacts
from .decompose import (
    Reading,
    StandardSearch,
    qidui_reading,
    standard_readings,
    thirteen_reading,
    within_reach,
)
from .hand import Hand, Win
from .parse import own_counts, win_tile_allowed
from .preset_model import Preset, has_winds, wind_order
from .presets import PRESETS


def facts_of(hand: Hand) -> tuple[Preset, HandFacts]:
    preset = PRESETS[hand.preset]
    return preset, HandFacts(hand, hand.options, wind_order(preset, hand.options), wait_types)


def valid_readings(
    preset: Preset, facts: HandFacts, search: StandardSearch | None = None
) -> tuple[list[Reading], str | None]:
    """The readings that may win, or the one reason why none can (precedence of SPEC 5.3).

    `search` (optional) is a shared search without 胡单张 tracking; it is used where that tracking is
    not needed, which never changes which hands are valid.
    """
    hand = facts.hand
    winner = facts.winner
    rules = preset.behaviour
    if rules.discarded_hun_bars_win and winner.discarded_hun:
        return [], "DISCARDED_HUN"

    counts = [0] * T.N_TYPES
    h = 0
    for t in (*(winner.concealed or ()), hand.win.tile):
        if t == facts.hun:
            h += 1
        else:
            counts[t] += 1
    win = None if hand.win.tile == facts.hun else hand.win.tile
    melds = winner.melds

    readings: list[Reading] = []
    if not melds:
        q = qidui_reading(counts, h, facts.hun, win, allow_hun_pair=rules.hun_pair)
        if q is not None:
            readings.append(q)
    closed_discard = rules.closed_discard_qidui_only and winner.closed and not hand.win.self_drawn
    if closed_discard and not readings:
        return [], "CLOSED_DISCARD_WIN"
    if len(melds) == 4:
        if not rules.shoubayi:
            return [], "SHOUBAYI_NOT_ALLOWED"
        if any(m.kind == "chi" for m in melds):
            return [], "SHOUBAYI_WITH_CHI"
    if not closed_discard:
        standard = standard_readings(
            counts,
            h,
            facts.hun,
            melds,
            win,
            borrow=rules.borrow_yaojiu,
            danzhang=preset.tracks_danzhang and search is None,
            search=search,
        )
        if not rules.hun_pair:
            standard = [r for r in standard if r.pair_hun < 2]  # 混对 is not allowed
        readings += standard
        if rules.thirteen and not melds:
            t = thirteen_reading(counts, h, win)
            if t is not None:
                readings.append(t)
    if not readings:
        return [], "NOT_A_WINNING_SHAPE"
    return filter_readings(preset.conditions, facts, readings)


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


class WaitSearch:
    """Tries one hand one tile short with each candidate winning tile, sharing one search.

    A candidate out of reach of every natural tile in the hand can only join 混 in a group, so its
    search starts from the same sub-problems for all such candidates (`StandardSearch.prime`).
    """

    def __init__(self, short: Hand) -> None:
        self.short = short
        self.preset, self.facts = facts_of(short)
        hun = self.facts.hun
        concealed = short.winner_player.concealed or ()
        naturals = [t for t in concealed if t != hun]
        self.hun_count = len(concealed) - len(naturals)
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
            self.search.prime(tuple(counts), t, self.hun_count)
        return facts_of(with_tile(self.short, t))[1]

    def valid(self, t: int) -> bool:
        return valid_readings(self.preset, self.facts_for(t), self.search)[1] is None


def with_tile(hand: Hand, t: int, **win_changes: object) -> Hand:
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
    search = WaitSearch(_before_the_win(hand))
    return {t for t in search.candidates() if search.valid(t)}


def _before_the_win(hand: Hand) -> Hand:
    """The hand as W sees it: the same winner and discarder, no 宝/枪, no one-off flags; a 抢杠 is a
    win on the robbed player's tile like a discard."""
    by = "discard" if hand.win.by == "robbed_kong" else hand.win.by
    return replace(hand, win=Win(hand.win.tile, by, hand.win.source), bao_tile=None, gun_tile=None)
