"""Scoring engine for 辽阳麻将, 辽阳麻将 (online) and 鞍山麻将: `score(hand)` → `ScoreResult`, and
`waits(hand)` → `Waits` (听牌: what a hand one tile short would win on).

Pure Python; see ../shared/rules/SPEC.md for the rules and hand-json.md for the JSON contract.
"""

from .engine import score
from .errors import ERROR_WORDS, HandError
from .hand import WIN_FLAGS, Hand
from .parse import loads, parse_hand
from .presets import PRESETS
from .result import FanLine, LoserResult, ScoreResult
from .waits import Wait, Waits, waits

__all__ = [
    "ERROR_WORDS",
    "PRESETS",
    "WIN_FLAGS",
    "FanLine",
    "Hand",
    "HandError",
    "LoserResult",
    "ScoreResult",
    "Wait",
    "Waits",
    "loads",
    "parse_hand",
    "score",
    "waits",
]
