"""Tiles, seats and ways of winning in the page's language: 五万 / 5 wan, 东家 / East.

Why this module exists: the page speaks one language at a time. The engine's names (`rules.names`)
are Chinese, because the rule texts are; an English page must not fall back to them for seats and
tiles in the middle of an English sentence. Both languages come from the same codes here.
"""

from __future__ import annotations

from page.words import Words
from rules import tiles as T
from rules.names import KIND_ZH, WIN_BY_ZH, seat_name, tile_name

_SUIT_EN = {"m": "wan", "p": "dots", "s": "bamboo"}
_HONOUR_EN = {"E": "East", "S": "South", "W": "West", "N": "North", "C": "Red", "F": "Green", "P": "White"}
_SEAT_EN = {"E": "East", "S": "South", "W": "West", "N": "North"}
KIND_EN = {
    "chi": "chow",
    "pong": "pong",
    "kong": "kong",
    "added_kong": "added kong",
    "concealed_kong": "hidden kong",
}
WIN_BY_EN = {"self_draw": "self-draw", "discard": "discard", "robbed_kong": "robbed kong"}


def tile_en(code: str | int | None) -> str:
    """5 wan, 3 dots, 9 bamboo, East … White, back; None is —."""
    if code is None:
        return "—"
    if code == "back":
        return "back"
    t = T.parse_code(code) if not isinstance(code, int) else code
    if t is None or not 0 <= t < T.N_TYPES:
        return str(code)
    c = T.code(t)
    return f"{c[0]} {_SUIT_EN[c[1]]}" if c[0].isdigit() else _HONOUR_EN[c]


def tile_words(code: str | int | None) -> Words:
    return Words(tile_name(code), tile_en(code))


def seat_words(seat: str | None, short: bool = False) -> Words:
    """东家 / East (东 / E with `short`)."""
    en = _SEAT_EN.get(str(seat), str(seat))
    return Words(seat_name(seat, short=short), en[0] if short and seat in _SEAT_EN else en)


def kind_words(kind: str) -> Words:
    return Words(KIND_ZH.get(kind, kind), KIND_EN.get(kind, kind))


def win_by_words(how: str) -> Words:
    return Words(WIN_BY_ZH.get(how, how), WIN_BY_EN.get(how, how))


def tiles_words(codes: list[str]) -> Words:
    """A run of tiles: 二万 三万 四万 / 2 wan 3 wan 4 wan."""
    return Words(" ".join(tile_name(c) for c in codes), ", ".join(tile_en(c) for c in codes))
