"""The three presets as data: tile set, options with their defaults, 番 items and settlement numbers.

Each 番 item is one row: key, Chinese name, value, side and predicate (see `items.py`). A value that
an option switches (e.g. `fan_values="prose"`) is written as `{option_value: fan}` next to the
option's name. Changing a rule is changing one row here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from . import items as I  # noqa: E741 - short alias keeps the tables readable

WINNER, LOSER = "winner", "loser"


@dataclass(frozen=True)
class FanItem:
    key: str
    name: str
    fan: int | tuple[str, Mapping[object, int]]  # fixed, or (option, {option value: fan})
    side: str
    count: Callable

    def value(self, options: Mapping[str, object]) -> int:
        if isinstance(self.fan, int):
            return self.fan
        option, table = self.fan
        return table[options[option]]


@dataclass(frozen=True)
class Option:
    """A preset option: allowed values (default first); `int_or_null` accepts null or an int >= 0."""

    values: tuple[object, ...] = ()
    int_or_null: bool = False

    @property
    def default(self) -> object:
        return None if self.int_or_null else self.values[0]

    def accepts(self, value: object) -> bool:
        if self.int_or_null:
            return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)
        return any(value == v and type(value) is type(v) for v in self.values)


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    winds: bool | str  # True, False, or the name of the option that decides
    options: Mapping[str, Option]
    winner_items: tuple[FanItem, ...]
    loser_items: tuple[FanItem, ...]
    settlement: str  # liaoyang | anshan
    family: str  # liaoyang | anshan: which win conditions apply
    di: int = 100  # 底 per room-multiplier unit
    bao_amounts: tuple[int, ...] = (0, 25, 50, 100)  # per 宝 count, per unit
    baosanjia: bool = False  # 包三家: the discarder pays the three shares
    wind_order_option: str | None = None
    extra_keys: frozenset[str] = field(default_factory=frozenset)

    def with_defaults(self, options: Mapping[str, object]) -> dict[str, object]:
        return {name: options.get(name, opt.default) for name, opt in self.options.items()}

    @property
    def discarded_hun_bars_win(self) -> bool:
        """打过混: in the Liaoyang family a player who discarded a 混 cannot win the hand (SPEC)."""
        return self.family == "liaoyang"


def W(key: str, name: str, fan, count: Callable) -> FanItem:  # noqa: N802 - table constructor
    return FanItem(key, name, fan, WINNER, count)


def L(key: str, name: str, fan, count: Callable) -> FanItem:  # noqa: N802 - table constructor
    return FanItem(key, name, fan, LOSER, count)


PROSE = "fan_values"

_LIAOYANG_OPTIONS = {
    "fan_values": Option(("table", "prose")),
    "bao_mode": Option(("flat", "fan")),
    "sanjiabi_mode": Option(("households", "losers")),
    "qianggang_side": Option(("loser", "winner")),
    "qidui_requires_suits_yaojiu": Option((False, True)),
    "hun_counts_for_zhang_dageda": Option((False, True)),
}

LIAOYANG = Preset(
    name="liaoyang",
    title="辽阳麻将",
    winds=False,
    options=_LIAOYANG_OPTIONS,
    family="liaoyang",
    settlement="liaoyang",
    winner_items=(
        W("dealer", "庄", 1, I.winner_is_dealer),
        W("bimen", "闭门", 1, I.winner_closed_ly),
        W("sanjiabi", "三家闭", 1, I.sanjiabi),
        W("sijiabi", "四家闭", 1, I.sijiabi),
        W("zimo", "自摸", 1, I.self_draw),
        W("haidi", "海底捞", 1, I.last_tiles),
        W("gangkai", "杠上开", 1, I.kong_replacement),
        W("danzhang", "胡单张", 1, I.danzhang),
        W("minggang", "明杠", 1, I.winner_exposed_kongs),
        W("angang", "暗杠", (PROSE, {"table": 2, "prose": 1}), I.winner_concealed_kongs),
        W("dageda", "大哥大", 1, I.winner_dragon_triplets),
        W("jiqiang", "鸡枪", 1, I.winner_jiqiang),
        W("sancha", "三叉", 1, I.sancha),
        W("sicha", "四叉", 1, I.sicha),
        W("piao", "飘胡", (PROSE, {"table": 2, "prose": 1}), I.piao),
        W("shoubayi", "手把一", 1, I.shoubayi),
        W("suhu", "素胡", 1, I.no_hun),
        W("qidui", "七小对", (PROSE, {"table": 2, "prose": 1}), I.qidui),
        W("siguiyi", "四归一", 1, I.siguiyi_ly),
        W("zhang", "2或8掌", 1, I.zhang_28),
        W("dihu", "地胡", 5, I.dihu),
        W("bao", "宝", 1, I.bao_as_fan),
        W("qianggang", "抢杠", 1, I.qianggang_winner),
    ),
    loser_items=(
        L("dealer", "庄", 1, I.loser_is_dealer),
        L("bimen", "闭门", 1, I.loser_closed),
        L("dianpao", "点炮", 1, I.loser_dianpao),
        L("liulei", "流泪", 1, I.loser_after_kong),
        L("qianggang", "抢杠", 1, I.loser_robbed),
        L("minggang", "明杠", 1, I.loser_exposed_kongs),
        L("angang", "暗杠", (PROSE, {"table": 2, "prose": 1}), I.loser_concealed_kongs),
        L("dageda", "大哥大", 1, I.loser_dragon_melds),
        L("jiqiang", "鸡枪", 1, I.loser_jiqiang),
        L("sancha", "三叉", 1, I.loser_sancha),
        L("sicha", "四叉", 1, I.loser_sicha),
        L("shoubayi", "手把一", 1, I.loser_shoubayi),
    ),
    extra_keys=frozenset({"bao_tile"}),
)

LIAOYANG_ONLINE = Preset(
    name="liaoyang-online",
    title="辽阳麻将（在线）",
    winds="include_winds",
    options={
        "include_winds": Option((True, False)),
        "qidui_requires_suits_yaojiu": Option((False, True)),
        "hun_counts_for_zhang_dageda": Option((False, True)),
        "changmao_max": Option(int_or_null=True),
        "bao_paid_by_discarder": Option((False, True)),
    },
    family="liaoyang",
    settlement="liaoyang",
    bao_amounts=(0, 10, 20, 30),
    baosanjia=True,
    winner_items=(
        W("dealer", "庄", 1, I.winner_is_dealer),
        W("bimen", "闭门", 1, I.winner_closed_ly),
        W("zimo", "自摸", 1, I.self_draw),
        W("haidi", "海底捞", 1, I.last_tiles),
        W("gangkai", "杠开", 1, I.kong_replacement),
        W("minggang", "明杠", 1, I.winner_exposed_kongs),
        W("angang", "暗杠", 1, I.winner_concealed_kongs),
        W("dageda", "大哥大", 1, I.winner_dragon_triplets),
        W("jiqiang", "鸡枪", 1, I.winner_jiqiang),
        W("sancha", "三岔", 1, I.sancha),
        W("sicha", "四岔", 1, I.sicha),
        W("piao", "飘和", 1, I.piao),
        W("shoubayi", "手把一", 1, I.shoubayi),
        W("suhu", "素和", 1, I.no_hun),
        W("qidui", "七对", 1, I.qidui),
        W("siguiyi", "四归一", 1, I.siguiyi_ly),
        W("zhang", "2或8掌", 1, I.zhang_28),
        W("changmao", "长毛", 1, I.changmao),
    ),
    loser_items=(
        L("dealer", "庄", 1, I.loser_is_dealer),
        L("bimen", "闭门", 1, I.loser_closed),
        L("dianpao", "点炮", 1, I.loser_dianpao),
        L("fantan", "反弹", 1, I.loser_after_kong),
        L("minggang", "明杠", 1, I.loser_exposed_kongs),
        L("angang", "暗杠", 1, I.loser_concealed_kongs),
        L("dageda", "大哥大", 1, I.loser_dragon_melds),
        L("jiqiang", "鸡枪", 1, I.loser_jiqiang),
        L("sancha", "三岔", 1, I.loser_sancha),
        L("sicha", "四岔", 1, I.loser_sicha),
        L("shoubayi", "手把一", 1, I.loser_shoubayi),
    ),
    extra_keys=frozenset({"bao_tile", "room_multiplier", "changmao"}),
)

ANSHAN = Preset(
    name="anshan",
    title="鞍山麻将",
    winds=True,
    options={
        "wind_cycle": Option(("东南西北", "东西南北")),
        "mingqiang": Option((True, False)),
        "shangqiangtou": Option(("tile", "triplet")),
        "kong_counts_siguiyi": Option((True, False)),
        "dealer_loser": Option(("dianpao", "always")),
        "fan_cap": Option(int_or_null=True),
    },
    family="anshan",
    settlement="anshan",
    wind_order_option="wind_cycle",
    winner_items=(
        W("dealer", "坐庄", 1, I.winner_is_dealer),
        W("zhanli", "站立", 1, I.winner_closed),
        W("qionghu", "穷胡", 1, I.no_hun),
        W("gangkai", "杠开", 1, I.kong_replacement),
        W("minggang", "明杠", 1, I.winner_exposed_kongs),
        W("angang", "暗杠", 1, I.winner_concealed_kongs),
        W("siguiyi", "四归一", 1, I.siguiyi_as),
        W("dageda", "大哥大", 1, I.winner_dragon_triplets),
        W("sancha", "三叉", 1, I.sancha),
        W("erbajiang", "二八将", 1, I.erbajiang),
        W("qidui", "七对", 1, I.qidui),
        W("shisanyao", "十三幺", 1, I.thirteen),
        W("shangqiangtou", "上墙头", 1, I.shangqiangtou),
        W("mingqiang", "明枪", 1, I.mingqiang),
        W("anqiang", "暗枪", 1, I.anqiang),
    ),
    loser_items=(
        L("dianpao", "点炮", 1, I.anshan_payer),
        L("dealer", "庄", 1, I.anshan_dealer_payer),
    ),
    extra_keys=frozenset({"gun_tile"}),
)

PRESETS: dict[str, Preset] = {p.name: p for p in (LIAOYANG, LIAOYANG_ONLINE, ANSHAN)}
WIND_ORDERS = {"东南西北": ("E", "S", "W", "N"), "东西南北": ("E", "W", "S", "N")}


def wind_order(preset: Preset, options: Mapping[str, object]) -> tuple[str, ...]:
    if preset.wind_order_option:
        return WIND_ORDERS[str(options[preset.wind_order_option])]
    return WIND_ORDERS["东南西北"]


def has_winds(preset: Preset, options: Mapping[str, object]) -> bool:
    return preset.winds if isinstance(preset.winds, bool) else bool(options[preset.winds])
