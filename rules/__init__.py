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

The modules are layers, lowest first; a module imports only modules of lower layers, so no import
circle can form (`tests/rules/test_layers.py` checks every import, also those inside functions):

1. tiles, words, hand: tile codes, the one bilingual `Words`, the typed hand
2. errors, names: input problems and their words; player names of tiles, seats, melds
3. decompose, preset_model: every reading of the tiles; the types a rule set is made of
4. context, result: the facts of one hand; typed results
5. conditions, items: the win conditions; the 番 item catalogue (predicate and words per item)
6. presets: the rule-set tables, data only (dealer rotation included)
7. parse: hand-json → `Hand`, checked against the preset's table
8. readings, settle: which readings may win and on which tiles; money
9. engine: `score`
10. waits, text: 听牌; a result as text for people
11. cli: `python -m rules`
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
