"""score(): validate, find the readings that may win, pick the best reading, settle (SPEC 4.2).

Everything that differs between rule sets is read from the preset's table (`presets.py`): its
behaviour flags, its ordered win conditions (`readings.py`), its 番 items and its settlement style.
"""

from __future__ import annotations

from collections.abc import Mapping

from .context import Ctx, HandFacts
from .decompose import StandardSearch, groups_of, within_reach
from .hand import Hand
from .parse import loads, parse_hand
from .preset_model import FanItem, Preset
from .readings import facts_of, valid_readings
from .result import REASON_MESSAGES, FanLine, ScoreResult
from .settle import settle


def score(hand: Hand | Mapping | str) -> ScoreResult:
    """Score one hand (a `Hand`, a decoded hand-json dict, or JSON text).

    Raises `HandError` for malformed input; an impossible-but-well-formed hand gives
    `ScoreResult(valid=False, reason=...)`.
    """
    if isinstance(hand, str):
        hand = loads(hand)
    elif not isinstance(hand, Hand):
        hand = parse_hand(hand)
    return score_facts(*facts_of(hand))


def score_facts(preset: Preset, facts: HandFacts, search: StandardSearch | None = None) -> ScoreResult:
    """Score a parsed hand whose facts are known (`waits` scores many hands that differ by one tile
    and passes one `search` for all of them)."""
    hand = facts.hand
    if search is not None and preset.tracks_danzhang and _may_be_danzhang(facts):
        search = None  # this hand's search must note 胡单张 shapes, which the shared one does not
    readings, reason = valid_readings(preset, facts, search)
    if reason is not None:
        return ScoreResult(
            valid=False,
            preset=hand.preset,
            winner=hand.winner,
            hun=facts.hun,
            reason=reason,
            message=REASON_MESSAGES[reason],
        )

    best_f, best_lines, best = -1, [], readings[0]
    for r in readings:
        lines = _fan_lines(preset.winner_items, hand.options, lambda item, r=r: item.count(Ctx(facts, r)))
        f = sum(x.fan for x in lines)
        if f > best_f:
            best_f, best_lines, best = f, lines, r

    loser_fan = {
        seat: _fan_lines(preset.loser_items, hand.options, lambda item, seat=seat: item.count(facts, seat))
        for seat in sorted(hand.losers, key="ESWN".index)
    }
    losers, payments = settle(preset, facts, best_f, loser_fan)
    return ScoreResult(
        valid=True,
        preset=hand.preset,
        winner=hand.winner,
        hun=facts.hun,
        jiqiang=facts.jiqiang if preset.behaviour.jiqiang else (),
        form=best.form,
        decomposition=groups_of(best),
        winner_fan=best_lines,
        winner_fan_total=best_f,
        losers=losers,
        payments=payments,
    )


def _may_be_danzhang(facts: HandFacts) -> bool:
    """Whether the winning tile could sit in a natural group (the only place 胡单张 is scored)."""
    win = facts.hand.win.tile
    if win == facts.hun:
        return False
    return win in within_reach(t for t in facts.winner.concealed or () if t != facts.hun)


def _fan_lines(items: tuple[FanItem, ...], options: Mapping[str, object], count) -> list[FanLine]:
    lines = []
    for item in items:
        n = count(item)
        if n:
            lines.append(FanLine(item.key, item.name, item.value(options) * n))
    return lines
