"""One set of checks for the fields of a hand: what a command accepts is what a stored hand may hold.

Why this module exists: the hand in progress is kept on the server (`page.hand_store`) and read back
on every reload and by every phone of the table. A stored hand can be damaged (a torn write, a
hand-edited file) or written by a newer version; before, 10 of 48 such states raised on every
reload (a flag set to a string, a box class `zz`, `photo.winning: "x"`) and the page never drew
the scorebook or 新的一局 again. So a stored hand is rebuilt only through these checks, the same
ones the commands use, and one that fails any of them is refused as a whole with `HandProblem`
(in words) — the page then puts it aside and starts a new hand.

Each check returns the value (normalised where a command would normalise it) or raises
`HandProblem`, a ValueError carrying `.words` (`page.words.Words`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from page.preset_view import Extra, extra_inputs
from page.roles import ROLES
from page.words import Words
from rules import tiles as T
from rules.hand import SEATS
from rules.presets import PRESETS
from vision.classes import CLASS_NAMES

WIN_BY = ("self_draw", "discard", "robbed_kong")
#: Win flags and 打过混: per-hand yes/no inputs (the preset says which ones mean something).
FLAGS = ("kong_replacement", "last_tiles", "after_kong", "first_draw", "discarded_hun")
MELD_KINDS = ("chi", "pong", "kong", "added_kong", "concealed_kong")
MELD_ROLES = tuple(r for r in ROLES if r.startswith("meld"))
MAX_BOXES = 200  # the page shows 60; a photo of a whole table is well under this
MAX_TEXT = 2000  # a loser's melds typed, a note, a file name


class HandProblem(ValueError):
    """A value a hand cannot hold: refused in the player's words (`.words`)."""

    def __init__(self, words: Words | str) -> None:
        self.words = words if isinstance(words, Words) else Words(words, words)
        super().__init__(self.words.en)


def seat(value: object, allow_none: bool = False) -> str | None:
    if value is None and allow_none:
        return None
    if value not in SEATS:
        raise HandProblem(Words(f"座位只能是东南西北：{value!r}", f"not a seat: {value!r}"))
    return str(value)


def tile(value: object, allow_none: bool = False, allow_back: bool = False) -> str | None:
    """A tile code (1m … 9s, E S W N, C F P; `back` for a face-down tile where allowed)."""
    if value is None and allow_none:
        return None
    if allow_back and value == "back":
        return "back"
    if not isinstance(value, str) or T.parse_code(value) is None:
        raise HandProblem(Words(f"不是一张牌：{value!r}", f"not a tile: {value!r}"))
    return value


def win_by(value: object, allow_none: bool = True) -> str | None:
    if value is None and allow_none:
        return None
    if value not in WIN_BY:
        raise HandProblem(Words(f"不是一种胡法：{value!r}", f"not a way of winning: {value!r}"))
    return str(value)


def flag(key: object, on: object) -> tuple[str, bool]:
    if key not in FLAGS:
        raise HandProblem(Words(f"没有这个选项：{key!r}", f"not a flag: {key!r}"))
    if not isinstance(on, bool):
        raise HandProblem(Words(f"{key} 只能是是或否：{on!r}", f"{key} must be yes or no: {on!r}"))
    return str(key), on


def preset(value: object) -> str:
    if value not in PRESETS:
        raise HandProblem(Words(f"没有这个规则：{value!r}", f"unknown rule set {value!r}"))
    return str(value)


def option(preset_name: str, name: object, value: object) -> tuple[str, object]:
    opt = PRESETS[preset_name].options.get(name) if isinstance(name, str) else None
    if opt is None or not opt.accepts(value):
        raise HandProblem(
            Words(
                f"{preset_name} 没有这个选项值：{name}={value!r}",
                f"{name}={value!r} is not an option of {preset_name}",
            )
        )
    return str(name), value


def extra_input(preset_name: str, key: object) -> Extra:
    """One of the preset's extra inputs, by its key."""
    x = {e.key: e for e in extra_inputs(preset_name)}.get(key) if isinstance(key, str) else None
    if x is None:
        raise HandProblem(
            Words(f"{preset_name} 没有这一项：{key!r}", f"{key!r} is not an input of {preset_name}")
        )
    return x


def extra(preset_name: str, key: object, value: object) -> tuple[str, object]:
    """宝 / 枪 tile, room multiplier, 长毛: the preset's extra inputs, typed and in range."""
    x = extra_input(preset_name, key)
    if x.kind == "tile":
        return x.key, tile(value)
    number = value
    if isinstance(number, str) and number.strip().lstrip("-").isdigit():
        number = int(number)  # a number input's text
    if not isinstance(number, int) or isinstance(number, bool) or not x.minimum <= number <= x.maximum:
        raise HandProblem(
            Words(
                f"{x.label.zh}要在 {x.minimum}–{x.maximum} 之间：{value!r}",
                f"{x.label.en} must be {x.minimum}–{x.maximum}: {value!r}",
            )
        )
    return x.key, number


def role(value: object) -> str:
    if value not in ROLES:
        raise HandProblem(Words(f"没有这个位置：{value!r}", f"not a place: {value!r}"))
    return str(value)


def meld_kind(value: object) -> str:
    if value not in MELD_KINDS:
        raise HandProblem(Words(f"不是一种副露：{value!r}", f"not a meld kind: {value!r}"))
    return str(value)


def meld_role(value: object) -> str:
    if value not in MELD_ROLES:
        raise HandProblem(Words(f"不是一个副露：{value!r}", f"not a meld: {value!r}"))
    return str(value)


def index(value: object, count: int, allow_none: bool = True) -> int | None:
    """A tile's number on the photo (0 … count-1)."""
    if value is None and allow_none:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < count:
        raise HandProblem(Words(f"没有第 {value!r} 张牌", f"no tile {value!r}"))
    return value


def text(value: object, what: str, allow_none: bool = False, limit: int = MAX_TEXT) -> str | None:
    if value is None and allow_none:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise HandProblem(Words(f"{what} 不是一段文字", f"{what} is not a text"))
    return value


def number(
    value: object, what: str, allow_none: bool = True, low: float = 0.0, high: float = 1e9
) -> float | None:
    if value is None and allow_none:
        return None
    if (
        not isinstance(value, (int, float))
        or isinstance(value, bool)
        or not math.isfinite(value)
        or not low <= value <= high
    ):
        raise HandProblem(Words(f"{what} 不是一个数：{value!r}", f"{what} is not a number: {value!r}"))
    return float(value)


def whole(value: object, what: str, low: int = 0, high: int = 10**9) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise HandProblem(
            Words(f"{what} 不是一个整数：{value!r}", f"{what} is not a whole number: {value!r}")
        )
    return value


def mapping(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise HandProblem(Words(f"{what} 坏了", f"{what} is damaged"))
    return value


def sequence(value: object, what: str, limit: int = MAX_BOXES) -> list:
    if not isinstance(value, list) or len(value) > limit:
        raise HandProblem(Words(f"{what} 坏了", f"{what} is damaged"))
    return value


def words_pair(value: object, what: str) -> Words:
    """A message stored as [zh, en]."""
    pair = sequence(value, what, 2)
    if len(pair) != 2:
        raise HandProblem(Words(f"{what} 坏了", f"{what} is damaged"))
    return Words(text(pair[0], what), text(pair[1], what))  # type: ignore[arg-type]


def box_class(value: object) -> str:
    if value not in CLASS_NAMES:
        raise HandProblem(Words(f"不是一张牌：{value!r}", f"not a tile: {value!r}"))
    return str(value)
