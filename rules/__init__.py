"""Scoring engine for 辽阳麻将, 辽阳麻将 (online) and 鞍山麻将: `score(hand)` → `ScoreResult`, and
`waits(hand)` → `Waits` (听牌: what a hand one tile short would win on).

`check(hand)` → `list[Problem]`: every problem of the input at once (`score` raises the first of
them as a `HandError`, and no other). Each `Problem` has `field` (the JSON path: `winner`,
`indicator`, `win.from`, `win.kong_replacement`, `players.E.melds[0].tiles`, `bao_tile`…), `code`
(a key of `ERROR_WORDS`, whose `zh`/`en` words it carries), `message`, `input` (the thing to fix,
coarser than the path: `winner`, `discarder`, `indicator`, `winning_tile`, `melds.E`, `concealed.S`,
`bao`, `flags.kong_replacement`…), and `missing`: true for an input not given yet (code `MISSING`:
no winner, no indicator, no discarder…), false for one given wrong, so a page can ask for all
missing inputs in one sentence. `REASON_WORDS` are the words for why
a well-formed hand cannot win (`ScoreResult.reason`), kept beside `ERROR_WORDS`.

Pure Python; see ../shared/rules/SPEC.md for the rules and hand-json.md for the JSON contract.
"""

from .engine import score
from .errors import ERROR_WORDS, REASON_WORDS, HandError, Problem
from .hand import WIN_FLAGS, Hand
from .parse import check, loads, parse_hand
from .presets import PRESETS
from .result import FanLine, LoserResult, ScoreResult
from .waits import Wait, Waits, waits

__all__ = [
    "ERROR_WORDS",
    "PRESETS",
    "REASON_WORDS",
    "WIN_FLAGS",
    "FanLine",
    "Hand",
    "HandError",
    "LoserResult",
    "Problem",
    "ScoreResult",
    "Wait",
    "Waits",
    "check",
    "loads",
    "parse_hand",
    "score",
    "waits",
]
