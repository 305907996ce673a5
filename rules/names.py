"""Player-facing names of tiles, seats, meld kinds and ways of winning — the one table.

Why this module exists: the engine's text output, the page, the layout reader and the detector's
class list all speak to a player about the same things (五万, 东家, 碰, 点炮); they read them here,
so a name is changed in one place. Only names of the rules' *content* (rule sets, 番 items, options,
win flags, extra inputs) live with the rule they describe (`presets.py`, `items.py`).
"""

from __future__ import annotations

from . import tiles as T

NUMERALS = "一二三四五六七八九"
SUIT_ZH = {0: "万", 1: "饼", 2: "条"}
HONOUR_ZH = {"E": "东", "S": "南", "W": "西", "N": "北", "C": "中", "F": "发", "P": "白"}

#: Every canonical tile code → its Chinese name (一万 … 九条, 东 … 白).
TILE_ZH: dict[str, str] = {
    **{f"{r}{s}": NUMERALS[r - 1] + SUIT_ZH[i] for i, s in enumerate(T.SUITS) for r in range(1, 10)},
    **HONOUR_ZH,
}
BACK = "back"
BACK_ZH = "背面"

#: Seats are named after their wind: 东 (short, tables) and 东家 (sentences).
SEAT_SHORT_ZH = {s: HONOUR_ZH[s] for s in T.WINDS}
SEAT_ZH = {s: f"{n}家" for s, n in SEAT_SHORT_ZH.items()}
KIND_ZH = {"chi": "吃", "pong": "碰", "kong": "明杠", "added_kong": "补杠", "concealed_kong": "暗杠"}
WIN_BY_ZH = {"self_draw": "自摸", "discard": "点炮", "robbed_kong": "抢杠"}


def tile_name(code: str | int | None) -> str:
    """一万 … 九条, 东 … 白 for a tile index, code or alias; `back` is 背面, None is —; unknown as given."""
    if code is None:
        return "—"
    if isinstance(code, int) and not isinstance(code, bool):
        return TILE_ZH[T.code(code)] if 0 <= code < T.N_TYPES else str(code)
    if code == BACK:
        return BACK_ZH
    t = T.parse_code(code)
    return TILE_ZH[T.code(t)] if t is not None else str(code)


def seat_name(seat: str | None, short: bool = False) -> str:
    """东家 … 北家 (or 东 … 北 with `short`) for a seat code; anything else as given."""
    table = SEAT_SHORT_ZH if short else SEAT_ZH
    return table.get(str(seat), str(seat))
