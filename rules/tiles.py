"""Tiles: canonical codes, input aliases, the 混 cycles and tile classes used by the rules.

A tile type is an int index 0..33 so that hands can be count vectors: 0-8 万 (1m-9m), 9-17 饼 (1p-9p),
18-26 条 (1s-9s), 27-30 winds E S W N, 31-33 dragons C F P (中 发 白). Codes on the wire are the
canonical ASCII of `hand-json.md`; the Chinese characters are accepted as aliases on input.
"""

from __future__ import annotations

SUITS = "mps"
WINDS = ("E", "S", "W", "N")
DRAGONS = ("C", "F", "P")
CODES: tuple[str, ...] = tuple(f"{r}{s}" for s in SUITS for r in range(1, 10)) + WINDS + DRAGONS
INDEX: dict[str, int] = {code: i for i, code in enumerate(CODES)}
N_TYPES = len(CODES)

ALIASES: dict[str, str] = {
    "东": "E",
    "南": "S",
    "西": "W",
    "北": "N",
    "中": "C",
    "发": "F",
    "白": "P",
    "東": "E",
    "發": "F",
}

WIND_IDS = tuple(INDEX[w] for w in WINDS)
DRAGON_IDS = tuple(INDEX[d] for d in DRAGONS)


def parse_code(text: object) -> int | None:
    """Tile index for a code or alias, or None when it is not a tile."""
    if not isinstance(text, str):
        return None
    code = ALIASES.get(text.strip(), text.strip())
    return INDEX.get(code)


def code(t: int) -> str:
    return CODES[t]


def is_suited(t: int) -> bool:
    return t < 27


def suit_of(t: int) -> int:
    """0 万, 1 饼, 2 条; -1 for honours."""
    return t // 9 if t < 27 else -1


def rank(t: int) -> int:
    """1..9 for suited tiles, 0 for honours."""
    return t % 9 + 1 if t < 27 else 0


def is_wind(t: int) -> bool:
    return 27 <= t <= 30


def is_dragon(t: int) -> bool:
    return t >= 31


def is_yaojiu(t: int) -> bool:
    """幺九: 1 and 9 of each suit, every wind and every dragon."""
    return t >= 27 or rank(t) in (1, 9)


def is_two_or_eight(t: int) -> bool:
    return t < 27 and rank(t) in (2, 8)


def next_tile(t: int, wind_order: tuple[str, ...] = WINDS) -> int:
    """The tile after `t` in its cycle (1→…→9→1, winds in `wind_order`, 中→发→白→中)."""
    if t < 27:
        return t - 8 if rank(t) == 9 else t + 1
    if is_wind(t):
        order = [INDEX[w] for w in wind_order]
        return order[(order.index(t) + 1) % 4]
    return DRAGON_IDS[(DRAGON_IDS.index(t) + 1) % 3]


def hun_of(indicator: int, wind_order: tuple[str, ...] = WINDS) -> int:
    """H = next(I) (下滚混)."""
    return next_tile(indicator, wind_order)


def jiqiang_of(indicator: int) -> tuple[int, int]:
    """鸡枪 types J(I) (SPEC 1.2): same rank in the two other suits; for honours the two after H."""
    if indicator < 27:
        r = indicator % 9
        s = indicator // 9
        a, b = (x for x in range(3) if x != s)
        return (a * 9 + r, b * 9 + r)
    h = next_tile(indicator)
    j1 = next_tile(h)
    return (j1, next_tile(j1))
