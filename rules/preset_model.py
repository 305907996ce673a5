"""The shape of a rule set: the types a preset table (`presets.py`) is made of, with no rows.

A `Preset` carries:

* `name` (the hand-json key), `short` (辽阳 / 辽阳在线 / 鞍山), `title` (辽阳麻将 …), `title_en`;
* `winds`: True, False, or the name of the option that decides (`include_winds`);
* `options`: name → `Option` — allowed `values` (default first) or an integer range
  (`int_range=(lo, hi)`, `nullable`), and `words` (a `Label`: `zh`, `en`, `help_zh`, `help_en`,
  one line each) plus `value_words` (value → `Label`) for the page's pickers;
* `winner_items` / `loser_items`: `FanItem` rows — one row of the item catalogue (`items.py`: key,
  side, predicate, words) scored under this preset's Chinese name and value (fixed, or switched by
  an option);
* `conditions`: the win conditions in the order of SPEC 5.3, each a reason code and a test
  (`conditions.py`), optionally switched on by a boolean option (`requires_ke`);
* `win_flags`: the `win.*` flags that mean something in this preset (a subset of `hand.WIN_FLAGS`),
  each with its `Label` (杠上开 here, 杠开 there); the page shows only these;
* `extra_inputs`: the extra hand-json keys the preset reads (宝 `bao_tile`, 枪 `gun_tile`, room
  multiplier `room_multiplier`, 长毛 `changmao`), each an `ExtraInput` with kind (tile / int),
  bounds, default and `Label`; keys not listed are ignored for this preset (SPEC 5.3);
* behaviour flags (`Behaviour`): `discarded_hun_bars_win` (打过混不能胡), `closed_discard_qidui_only`
  (闭门 may win on another's tile only with 七对), `hun_pair` (two 混 may form a pair),
  `borrow_yaojiu` (借混靠幺九), `shoubayi` (four melds may win when all are 碰/杠), `thirteen`
  (十三幺 readings), `jiqiang` (the preset has 鸡枪 types);
* `dealer`: who deals the next hand (`DealerRule`: 连庄 on a dealer win or a draw, else the next seat);
* settlement numbers: `settlement` style (`liaoyang` capped shares / `anshan` 2^n), `di` (底),
  `bao_amounts`, `baosanjia` (包三家), `wind_order_option`.

`Preset.item_words(key, side)` finds one item's words; `Preset.extra(key)` one extra input.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from .hand import SEATS
from .words import Words

WINNER, LOSER = "winner", "loser"
WIND_ORDERS = {"东南西北": ("E", "S", "W", "N"), "东西南北": ("E", "W", "S", "N")}


@dataclass(frozen=True)
class Label:
    """What the page shows for one part of a rule set: its name in Chinese and English, and a
    one-line explanation in each."""

    zh: str
    en: str
    help_zh: str = ""
    help_en: str = ""

    @property
    def name(self) -> Words:
        return Words(self.zh, self.en)

    @property
    def help(self) -> Words:
        return Words(self.help_zh, self.help_en)


@dataclass(frozen=True)
class ItemRule:
    """One row of the 番 item catalogue: the item's key, the side it counts for, how many times it
    applies to a hand (`count`: a `Ctx` for the winner, `HandFacts` and a seat for a loser; 0 = not
    at all) and its words. Calling the row calls `count`."""

    key: str
    side: str
    count: Callable[..., int]
    words: Label

    def __call__(self, *args: object) -> int:
        return self.count(*args)


@dataclass(frozen=True)
class FanItem:
    """An item as one preset scores it: its catalogue row under the preset's name and value."""

    key: str
    name: str
    fan: int | tuple[str, Mapping[object, int]]  # fixed, or (option, {option value: fan})
    side: str
    count: Callable[..., int]
    words: Label = Label("", "")

    def value(self, options: Mapping[str, object]) -> int:
        if isinstance(self.fan, int):
            return self.fan
        option, table = self.fan
        return table[options[option]]


def fan_item(rule: ItemRule, name: str, fan: int | tuple[str, Mapping[object, int]]) -> FanItem:
    """A preset's row: catalogue item `rule`, called `name` in this preset, worth `fan`."""
    words = rule.words
    return FanItem(
        rule.key, name, fan, rule.side, rule.count, Label(name, words.en, words.help_zh, words.help_en)
    )


@dataclass(frozen=True)
class Option:
    """A preset option: allowed `values` (default first), or an integer in `int_range` (null allowed
    when `nullable`; then null is the default)."""

    values: tuple[object, ...] = ()
    words: Label = Label("", "")
    value_words: Mapping[object, Label] = field(default_factory=dict)
    int_range: tuple[int, int] | None = None
    nullable: bool = False

    @property
    def default(self) -> object:
        return None if self.int_range is not None else self.values[0]

    @property
    def int_or_null(self) -> bool:
        """Kept for callers written before `int_range`: the option takes null or an integer."""
        return self.int_range is not None

    def accepts(self, value: object) -> bool:
        if self.int_range is not None:
            if value is None:
                return self.nullable
            lo, hi = self.int_range
            return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi
        return any(value == v and type(value) is type(v) for v in self.values)

    def expected(self) -> str:
        """The accepted values in words, for an error message."""
        if self.int_range is not None:
            lo, hi = self.int_range
            return ("null or " if self.nullable else "") + f"an integer {lo}..{hi}"
        return " | ".join(json.dumps(x, ensure_ascii=False) for x in self.values)


@dataclass(frozen=True)
class ExtraInput:
    """An extra hand-json key a preset reads: a tile (宝/枪) or a bounded integer (room, 长毛)."""

    key: str
    kind: str  # tile | int
    words: Label
    default: int | None = None
    minimum: int = 0
    maximum: int = 0


@dataclass(frozen=True)
class Condition:
    """A win condition: the reason reported when no reading passes it, and its test (a function of
    the hand's facts and one reading, `conditions.Test`).

    `option`: the condition applies only when this boolean option is true (SPEC [Amb-36] requires_ke).
    """

    reason: str
    test: Callable[..., bool]
    option: str | None = None


@dataclass(frozen=True)
class Behaviour:
    """How the rule set treats the things the seeds disagree on (see the module docstring)."""

    discarded_hun_bars_win: bool
    closed_discard_qidui_only: bool
    hun_pair: bool
    borrow_yaojiu: bool
    shoubayi: bool
    thirteen: bool
    jiqiang: bool


@dataclass(frozen=True)
class DealerRule:
    """How the deal moves after a hand."""

    stays_on_dealer_win: bool  # 连庄 when the dealer wins
    stays_on_draw: bool  # 黄庄: the same dealer deals again
    order: tuple[str, ...] = SEATS  # otherwise the next seat in this order deals


@dataclass(frozen=True)
class Preset:
    name: str
    short: str
    title: str
    title_en: str
    winds: bool | str  # True, False, or the name of the option that decides
    options: Mapping[str, Option]
    winner_items: tuple[FanItem, ...]
    loser_items: tuple[FanItem, ...]
    conditions: tuple[Condition, ...]
    behaviour: Behaviour
    win_flags: Mapping[str, Label]
    extra_inputs: tuple[ExtraInput, ...]
    settlement: str  # liaoyang (capped shares, 宝) | anshan (2^n, no cap)
    dealer: DealerRule
    di: int = 100  # 底 per room-multiplier unit
    bao_amounts: tuple[int, ...] = (0, 25, 50, 100)  # per 宝 count, per unit
    baosanjia: bool = False  # 包三家: the discarder pays the three shares
    wind_order_option: str | None = None

    def __post_init__(self) -> None:
        for side, items in ((WINNER, self.winner_items), (LOSER, self.loser_items)):
            wrong = [item.key for item in items if item.side != side]
            if wrong:
                raise ValueError(f"{self.name}: {side} items from the other side's catalogue: {wrong}")

    def with_defaults(self, options: Mapping[str, object]) -> dict[str, object]:
        return {name: options.get(name, opt.default) for name, opt in self.options.items()}

    @property
    def extra_keys(self) -> frozenset[str]:
        return frozenset(x.key for x in self.extra_inputs)

    def extra(self, key: str) -> ExtraInput | None:
        return next((x for x in self.extra_inputs if x.key == key), None)

    @property
    def discarded_hun_bars_win(self) -> bool:
        """打过混: a player who discarded a 混 cannot win the hand (SPEC [Amb-4])."""
        return self.behaviour.discarded_hun_bars_win

    @cached_property
    def tracks_danzhang(self) -> bool:
        """Whether readings must note the 胡单张 shape (only when the preset scores it)."""
        return any(item.key == "danzhang" for item in self.winner_items)

    def item_words(self, key: str, side: str = WINNER) -> Label:
        items = self.winner_items if side == WINNER else self.loser_items
        return next(item.words for item in items if item.key == key)


def wind_order(preset: Preset, options: Mapping[str, object]) -> tuple[str, ...]:
    """The wind cycle for 混 and 暗枪: the preset's option when it has one, else seat order."""
    if preset.wind_order_option:
        value = options.get(preset.wind_order_option, preset.options[preset.wind_order_option].default)
        return WIND_ORDERS[str(value)]
    return WIND_ORDERS["东南西北"]


def has_winds(preset: Preset, options: Mapping[str, object]) -> bool:
    if isinstance(preset.winds, bool):
        return preset.winds
    return bool(options.get(preset.winds, preset.options[preset.winds].default))
