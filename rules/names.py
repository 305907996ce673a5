"""Player-facing names of tiles, seats, meld kinds and ways of winning, as the page writes them.

Why this module exists: quick entry, the situation checks and the result rows all speak to a player
about the same things (五万, 东家, 碰, 点炮); naming them in one place keeps every sentence consistent.
Tile names come from the engine's own table (`rules.text.tile_name`); this adds only what a page
shows besides real tiles (no tile yet, a face-down tile) and the longer seat names (东家, not 东).
"""

from __future__ import annotations

from . import text
from . import tiles as T

SEAT_ZH = {"E": "东家", "S": "南家", "W": "西家", "N": "北家"}
KIND_ZH = {"chi": "吃", "pong": "碰", "kong": "明杠", "added_kong": "补杠", "concealed_kong": "暗杠"}
WIN_BY_ZH = {"self_draw": "自摸", "discard": "点炮", "robbed_kong": "抢杠"}
PRESET_SHORT = {"liaoyang": "辽阳", "liaoyang-online": "辽阳在线", "anshan": "鞍山"}
SUIT_ZH = {0: "万", 1: "饼", 2: "条"}


def tile_name(code: str | None) -> str:
    """一万 … 九条, 东 … 白 for a tile code or alias; `back` is 背面, None is —; unknown codes as given."""
    if code is None:
        return "—"
    if code == "back":
        return "背面"
    t = T.parse_code(code)
    return text.tile_name(t) if t is not None else str(code)


def seat_name(seat: str | None) -> str:
    """东家 … 北家 for a seat code; anything else as given."""
    return SEAT_ZH.get(str(seat), str(seat))
