"""The three presets as data — a preset is one place: everything the engine and the page need to
know about a rule set is a row of this file, so adding a rule set (say 沈阳) or changing a rule is an
edit here (plus a predicate in `items.py` for a new 番 item), never a `preset == "anshan"` test.

A `Preset` carries:

* `name` (the hand-json key), `short` (辽阳 / 辽阳在线 / 鞍山), `title` (辽阳麻将 …), `title_en`;
* `winds`: True, False, or the name of the option that decides (`include_winds`);
* `options`: name → `Option` — allowed `values` (default first) or an integer range
  (`int_range=(lo, hi)`, `nullable`), and `words` (`Words`: `zh`, `en`, `help_zh`, `help_en`, one
  line each) plus `value_words` (value → `Words`) for the page's pickers;
* `winner_items` / `loser_items`: `FanItem` rows — key, Chinese name, value (fixed or switched by an
  option), side, predicate (`items.py`) and `words` (English name and one-line explanations);
* `conditions`: the win conditions in the order of SPEC 5.3, each a reason code and a test
  (`conditions.py`), optionally switched on by a boolean option (`requires_ke`);
* `win_flags`: the `win.*` flags that mean something in this preset (a subset of `hand.WIN_FLAGS`),
  each with its `Words` (杠上开 here, 杠开 there); the page shows only these;
* `extra_inputs`: the extra hand-json keys the preset reads (宝 `bao_tile`, 枪 `gun_tile`, room
  multiplier `room_multiplier`, 长毛 `changmao`), each an `ExtraInput` with kind (tile / int),
  bounds, default and `Words`; keys not listed are ignored for this preset (SPEC 5.3);
* behaviour flags (`Behaviour`): `discarded_hun_bars_win` (打过混不能胡), `closed_discard_qidui_only`
  (闭门 may win on another's tile only with 七对), `hun_pair` (two 混 may form a pair),
  `borrow_yaojiu` (借混靠幺九), `shoubayi` (four melds may win when all are 碰/杠), `thirteen`
  (十三幺 readings), `jiqiang` (the preset has 鸡枪 types);
* settlement numbers: `settlement` style (`liaoyang` capped shares / `anshan` 2^n), `di` (底),
  `bao_amounts`, `baosanjia` (包三家), `wind_order_option`.

`Preset.item_words(key, side)` finds one item's words; `Preset.extra(key)` one extra input.

For the page, besides this table: `rules.names` (tile/seat/kind names, `PRESET_SHORT`),
`rules.errors.ERROR_WORDS` (player words per `HandError.code`), `rules.hand.WIN_FLAGS`, and
`rules.waits(hand)` (听牌: each winning tile with its 番 and payments, the 混 apart).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from . import conditions as C
from . import items as I  # noqa: E741 - short alias keeps the tables readable
from .hand import WIN_FLAGS

WINNER, LOSER = "winner", "loser"


@dataclass(frozen=True)
class Words:
    """A label in Chinese and English, with a one-line explanation in each (for the page)."""

    zh: str
    en: str
    help_zh: str = ""
    help_en: str = ""


@dataclass(frozen=True)
class FanItem:
    key: str
    name: str
    fan: int | tuple[str, Mapping[object, int]]  # fixed, or (option, {option value: fan})
    side: str
    count: Callable
    words: Words = Words("", "")

    def value(self, options: Mapping[str, object]) -> int:
        if isinstance(self.fan, int):
            return self.fan
        option, table = self.fan
        return table[options[option]]


@dataclass(frozen=True)
class Option:
    """A preset option: allowed `values` (default first), or an integer in `int_range` (null allowed
    when `nullable`; then null is the default)."""

    values: tuple[object, ...] = ()
    words: Words = Words("", "")
    value_words: Mapping[object, Words] = field(default_factory=dict)
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
    words: Words
    default: int | None = None
    minimum: int = 0
    maximum: int = 0


@dataclass(frozen=True)
class Condition:
    """A win condition: the reason reported when no reading passes it, and its test.

    `option`: the condition applies only when this boolean option is true (SPEC [Amb-36] requires_ke).
    """

    reason: str
    test: C.Test
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
    win_flags: Mapping[str, Words]
    extra_inputs: tuple[ExtraInput, ...]
    settlement: str  # liaoyang (capped shares, 宝) | anshan (2^n, no cap)
    di: int = 100  # 底 per room-multiplier unit
    bao_amounts: tuple[int, ...] = (0, 25, 50, 100)  # per 宝 count, per unit
    baosanjia: bool = False  # 包三家: the discarder pays the three shares
    wind_order_option: str | None = None

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

    def item_words(self, key: str, side: str = WINNER) -> Words:
        items = self.winner_items if side == WINNER else self.loser_items
        return next(item.words for item in items if item.key == key)


# ---- words shared by the presets' rows -------------------------------------------------------

_ITEM_WORDS: dict[str, Words] = {
    "dealer": Words("庄", "dealer", "庄家胡牌加一番", "the winner is the dealer"),
    "bimen": Words(
        "闭门",
        "closed",
        "赢家没有吃、碰、明杠（点炮七对除外）",
        "the winner has no 吃/碰/明杠 (not 七对 on a discard)",
    ),
    "sanjiabi": Words(
        "三家闭", "three closed", "赢家闭门且另有两家闭门", "the winner and exactly two losers are closed"
    ),
    "sijiabi": Words("四家闭", "four closed", "四家都闭门", "all four players are closed"),
    "zimo": Words("自摸", "self-draw", "自己摸到胡牌", "the winner drew the winning tile"),
    "haidi": Words(
        "海底捞", "last tiles", "在最后四张（分张）胡牌", "won on one of the last four drawable tiles"
    ),
    "gangkai": Words(
        "杠上开", "win on a kong", "杠后补牌胡牌", "won on the replacement tile after one's own kong"
    ),
    "danzhang": Words(
        "胡单张",
        "single wait",
        "单吊、边张或夹张胡牌",
        "won on a pair wait, an edge wait (12→3, 89→7) or a closed wait",
    ),
    "minggang": Words("明杠", "exposed kong", "每个明杠（大明杠、补杠）一番", "one per exposed kong"),
    "angang": Words("暗杠", "concealed kong", "每个暗杠", "per concealed kong"),
    "dageda": Words(
        "大哥大", "dragon triplet", "每副中、发、白的横（不用混）", "one per natural 中/发/白 triplet"
    ),
    "jiqiang": Words("鸡枪", "jiqiang tiles", "每张鸡枪牌一番", "one per 鸡枪 tile in the hand"),
    "sancha": Words("三叉", "three triplets", "三副不用混的横", "three natural triplets or kongs"),
    "sicha": Words(
        "四叉",
        "four triplets",
        "四副不用混的横（在三叉上再加一番）",
        "four natural triplets: one more on top of 三叉",
    ),
    "piao": Words("飘胡", "all triplets", "四副都是横", "all four sets are triplets"),
    "shoubayi": Words(
        "手把一", "four melds", "四副副露，单钓最后一张", "four melds down, won on the last single tile"
    ),
    "suhu": Words("素胡", "no 混", "手里没有混", "no 混 tile anywhere in the winning hand"),
    "qidui": Words("七小对", "seven pairs", "七个对子", "seven pairs"),
    "siguiyi": Words(
        "四归一", "four of a kind", "四张一样的牌，不是杠", "four natural copies of a tile, not a kong"
    ),
    "zhang": Words(
        "2或8掌", "pair of 2s or 8s", "将是一对二或八（不用混）", "the pair is a natural pair of 2s or 8s"
    ),
    "dihu": Words(
        "地胡", "earthly win", "闲家在任何人吃碰杠之前胡牌", "a non-dealer wins before anyone melds"
    ),
    "bao": Words("宝", "bao as 番", "宝按番算（1/3/4番）", "宝 counted as 番 (1/3/4)"),
    "qianggang": Words(
        "抢杠", "robbing a kong", "抢别人补杠的牌胡", "won on the tile of another's added kong"
    ),
    "changmao": Words(
        "长毛", "after draws", "前面每连续一把黄庄加一番", "one per consecutive drawn hand before this one"
    ),
    "zhanli": Words("站立", "closed", "没有开门（七对也算）", "the winner is closed (七对 always is)"),
    "qionghu": Words("穷胡", "no 混", "手里没有混", "no 混 tile anywhere in the winning hand"),
    "erbajiang": Words(
        "二八将", "pair of 2s or 8s", "将是一对二或八（七对里有一对即可）", "a natural pair of 2s or 8s"
    ),
    "shisanyao": Words(
        "十三幺", "all terminals", "除混外全是幺九", "every tile but the 混 is a 1, 9 or honour"
    ),
    "shangqiangtou": Words(
        "上墙头", "win on the indicator", "胡的是混指示牌那种牌", "won on a tile of the indicator's type"
    ),
    "mingqiang": Words(
        "明枪", "open gun", "手里每张与混指示牌相同的牌", "one per tile of the indicator's type"
    ),
    "anqiang": Words(
        "暗枪",
        "hidden gun",
        "胡后翻的牌及其下一张，手里每张一番",
        "one per tile matching the flipped tile or the next",
    ),
}

_LOSER_WORDS: dict[str, Words] = {
    "dealer": Words("庄", "dealer", "庄家输也加番", "the loser is the dealer"),
    "bimen": Words("闭门", "closed", "输家没有吃、碰、明杠", "the loser has no 吃/碰/明杠"),
    "dianpao": Words("点炮", "discarder", "打出胡牌的人加番", "the loser fed the win"),
    "liulei": Words(
        "流泪", "after a kong", "杠后打出的牌被胡", "the winning discard came right after his kong"
    ),
    "fantan": Words(
        "反弹",
        "after a kong",
        "杠后打出的牌被胡，点炮者多输一番",
        "the winning discard came right after his kong",
    ),
    "qianggang": Words("抢杠", "robbed", "被抢杠的人加番", "his added kong was robbed"),
    "minggang": Words("明杠", "exposed kong", "输家每个明杠", "one per exposed kong of the loser"),
    "angang": Words("暗杠", "concealed kong", "输家每个暗杠", "per concealed kong of the loser"),
    "dageda": Words(
        "大哥大", "dragon meld", "输家每副中、发、白的碰/杠", "one per dragon 碰/杠 of the loser"
    ),
    "jiqiang": Words("鸡枪", "jiqiang tiles", "输家副露里每张鸡枪", "one per 鸡枪 tile in the loser's melds"),
    "sancha": Words("三叉", "three triplets", "输家三副碰/杠", "three 碰/杠 melds"),
    "sicha": Words("四叉", "four triplets", "输家四副碰/杠", "four 碰/杠 melds"),
    "shoubayi": Words("手把一", "four melds", "输家四副副露", "the loser has four melds"),
}
_ANSHAN_LOSER_WORDS: dict[str, Words] = {
    "dianpao": Words(
        "点炮",
        "pays as discarder",
        "点炮者（自摸时三家都算）加一番",
        "the discarder, or everyone on a self-draw",
    ),
    "dealer": Words("庄", "dealer", "庄家点炮再加一番", "the dealer pays one more when he is a 点炮 payer"),
}


def W(key: str, name: str, fan, count: Callable, words: Words | None = None) -> FanItem:  # noqa: N802
    w = words or _ITEM_WORDS[key]
    return FanItem(key, name, fan, WINNER, count, Words(name, w.en, w.help_zh, w.help_en))


def L(key: str, name: str, fan, count: Callable, words: Words | None = None) -> FanItem:  # noqa: N802
    w = words or _LOSER_WORDS[key]
    return FanItem(key, name, fan, LOSER, count, Words(name, w.en, w.help_zh, w.help_en))


_BOOL_WORDS = {True: Words("是", "yes"), False: Words("否", "no")}


def _flag(words: Words, default: bool = False) -> Option:
    return Option((default, not default), words, _BOOL_WORDS)


PROSE = "fan_values"

_SHARED_LY_OPTIONS = {
    "qidui_requires_suits_yaojiu": _flag(
        Words(
            "七对要三门齐和幺九",
            "七对 needs all suits and 幺九",
            "沈阳的读法",
            "the Shenyang reading ([Amb-9])",
        )
    ),
    "hun_counts_for_zhang_dageda": _flag(
        Words(
            "掌和大哥大可以用混",
            "混 counts for 掌/大哥大",
            "有一张真牌即可算掌、大哥大",
            "one natural tile is enough for 掌 and 大哥大 ([Amb-30])",
        )
    ),
}

_LIAOYANG_OPTIONS = {
    "fan_values": Option(
        ("table", "prose"),
        Words("番数读法", "fan values", "按番数表还是按正文", "the fan table or the prose ([Amb-11])"),
        {
            "table": Words("番数表", "table", "暗杠2、飘胡2、七小对2", "暗杠 2, 飘胡 2, 七小对 2"),
            "prose": Words("正文", "prose", "暗杠1、飘胡1、七小对1", "暗杠 1, 飘胡 1, 七小对 1"),
        },
    ),
    "bao_mode": Option(
        ("flat", "fan"),
        Words(
            "宝的算法", "宝", "每家另付25/50/100分，或按番算", "flat 25/50/100 per loser, or as 番 ([Amb-11])"
        ),
        {"flat": Words("另付分", "flat"), "fan": Words("算番", "as 番")},
    ),
    "sanjiabi_mode": Option(
        ("households", "losers"),
        Words(
            "三家闭怎么数",
            "三家闭 counts",
            "算上赢家，还是只数三个输家",
            "with the winner, or the three losers ([Amb-14])",
        ),
        {"households": Words("含赢家", "with the winner"), "losers": Words("三个输家", "the losers")},
    ),
    "qianggang_side": Option(
        ("loser", "winner"),
        Words(
            "抢杠的番算谁的",
            "抢杠 goes to",
            "被抢的人，还是赢家",
            "the robbed player or the winner ([Amb-15])",
        ),
        {"loser": Words("被抢的人", "robbed player"), "winner": Words("赢家", "winner")},
    ),
    **_SHARED_LY_OPTIONS,
    "danzhang_wait": Option(
        ("shape", "single"),
        Words(
            "胡单张怎么算",
            "胡单张",
            "只看牌型，还是还要只听这一张",
            "by shape, or also the winning tile was the only wait ([Amb-24])",
        ),
        {
            "shape": Words("看牌型", "by shape", "单吊、边、夹就算", "a pair, edge or closed wait"),
            "single": Words(
                "只听一张",
                "only wait",
                "还要只听这一张（混除外）",
                "and no other tile (but the 混) would win",
            ),
        },
    ),
}

_LIAOYANG_FLAGS = {
    "kong_replacement": Words(
        "杠上开", "win on a kong", "杠后补牌胡", "won on the replacement tile after one's own kong"
    ),
    "last_tiles": Words("海底捞", "last tiles", "最后四张里胡", "won on one of the last four drawable tiles"),
    "after_kong": Words(
        "流泪", "after a kong", "点炮的人刚杠完打出", "the discard came right after the discarder's kong"
    ),
    "first_draw": Words("地胡", "earthly win", "任何人吃碰杠之前胡", "won before anyone's 吃/碰/杠"),
}

_BAO = ExtraInput(
    "bao_tile", "tile", Words("宝", "宝 tile", "胡后牌墙的下一张", "the next wall tile after the win")
)

LIAOYANG = Preset(
    name="liaoyang",
    short="辽阳",
    title="辽阳麻将",
    title_en="Liaoyang",
    winds=False,
    options=_LIAOYANG_OPTIONS,
    settlement="liaoyang",
    behaviour=Behaviour(
        discarded_hun_bars_win=True,
        closed_discard_qidui_only=True,
        hun_pair=True,
        borrow_yaojiu=True,
        shoubayi=True,
        thirteen=False,
        jiqiang=True,
    ),
    conditions=(
        Condition("MISSING_SUIT", C.ly_suits),
        Condition("NO_YAOJIU", C.ly_yaojiu),
        Condition("NO_KE", C.ly_ke),
    ),
    win_flags=_LIAOYANG_FLAGS,
    extra_inputs=(_BAO,),
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
)

LIAOYANG_ONLINE = Preset(
    name="liaoyang-online",
    short="辽阳在线",
    title="辽阳麻将（在线）",
    title_en="Liaoyang (online)",
    winds="include_winds",
    options={
        "include_winds": _flag(
            Words("有风牌", "with winds", "136张（有东南西北）", "136 tiles with 东南西北 ([Amb-1])"),
            default=True,
        ),
        **_SHARED_LY_OPTIONS,
        "changmao_max": Option(
            words=Words(
                "长毛上限", "长毛 cap", "长毛最多算几番（空=不限）", "the most 番 长毛 adds (empty: no cap)"
            ),
            int_range=(0, 64),
            nullable=True,
        ),
        "bao_paid_by_discarder": _flag(
            Words(
                "宝也由点炮的人包",
                "discarder pays 宝",
                "点炮时三家的宝都由点炮者付",
                "under 包三家 the discarder also pays 宝",
            )
        ),
        "requires_ke": _flag(
            Words(
                "要有横",
                "needs a 横",
                "和牌必须有横或中发白的将",
                "a triplet or a 中/发/白 pair is required ([Amb-36])",
            )
        ),
    },
    settlement="liaoyang",
    behaviour=LIAOYANG.behaviour,
    conditions=(
        Condition("MISSING_SUIT", C.ly_suits),
        Condition("NO_YAOJIU", C.ly_yaojiu),
        Condition("NO_KE", C.ly_ke, option="requires_ke"),
    ),
    win_flags={
        "kong_replacement": Words(
            "杠开", "win on a kong", "杠后补牌胡", "won on the replacement tile after one's own kong"
        ),
        "last_tiles": _LIAOYANG_FLAGS["last_tiles"],
        "after_kong": Words(
            "反弹", "after a kong", "点炮的人刚杠完打出", "the discard came right after the discarder's kong"
        ),
    },
    extra_inputs=(
        _BAO,
        ExtraInput(
            "room_multiplier",
            "int",
            Words("房间倍数", "room multiplier", "底和宝都乘这个数", "底 and 宝 are multiplied by it"),
            default=1,
            minimum=1,
            maximum=1_000_000,
        ),
        ExtraInput(
            "changmao",
            "int",
            Words("长毛", "draws before", "之前连续黄庄的把数", "consecutive drawn hands before this one"),
            default=0,
            minimum=0,
            maximum=64,
        ),
    ),
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
)

ANSHAN = Preset(
    name="anshan",
    short="鞍山",
    title="鞍山麻将",
    title_en="Anshan",
    winds=True,
    options={
        "wind_cycle": Option(
            ("东西南北", "东南西北"),
            Words(
                "风牌顺序",
                "wind cycle",
                "混和暗枪里风牌的下一张",
                "which wind follows which for 混 and 暗枪 ([Amb-B1])",
            ),
            {
                "东西南北": Words(
                    "东西南北",
                    "E→W→S→N",
                    "按鞍山规则的例子：东的下一张是西",
                    "the seed's example: after 东 comes 西",
                ),
                "东南西北": Words(
                    "东南西北", "E→S→W→N", "按座位顺序：东的下一张是南", "seat order: after 东 comes 南"
                ),
            },
        ),
        "mingqiang": _flag(
            Words(
                "算明枪",
                "明枪",
                "手里与混指示牌相同的牌算枪",
                "tiles of the indicator's type count as 枪 ([Amb-B2])",
            ),
            default=True,
        ),
        "shangqiangtou": Option(
            ("tile", "triplet"),
            Words(
                "上墙头",
                "上墙头",
                "胡指示牌那种牌，或还要凑成刻",
                "won on the indicator's type, or also a triplet ([Amb-B3])",
            ),
            {"tile": Words("胡这张就算", "the tile"), "triplet": Words("要凑成刻", "a triplet")},
        ),
        "kong_counts_siguiyi": _flag(
            Words(
                "杠也算四归一",
                "kong is 四归一",
                "每个杠另加四归一一番",
                "each kong also scores 四归一 ([Amb-B4])",
            ),
            default=True,
        ),
        "dealer_loser": Option(
            ("dianpao", "always"),
            Words(
                "庄家输时加番",
                "losing dealer",
                "只在点炮时，还是总是",
                "only as a 点炮 payer, or always ([Amb-B8])",
            ),
            {"dianpao": Words("点炮时", "when 点炮"), "always": Words("总是", "always")},
        ),
        "fan_cap": Option(
            words=Words(
                "番数上限",
                "fan cap",
                "每家最多付几番（空=不限）",
                "the most 番 one payment counts (empty: no cap)",
            ),
            int_range=(0, 64),
            nullable=True,
        ),
    },
    settlement="anshan",
    behaviour=Behaviour(
        discarded_hun_bars_win=False,
        closed_discard_qidui_only=False,
        hun_pair=False,
        borrow_yaojiu=False,
        shoubayi=False,
        thirteen=True,
        jiqiang=False,
    ),
    conditions=(
        Condition("MISSING_SUIT", C.as_suits),
        Condition("NO_YAOJIU", C.as_yaojiu),
        Condition("NO_SHUN", C.as_shun),
        Condition("NO_KE", C.as_ke),
    ),
    win_flags={
        "kong_replacement": Words(
            "杠开", "win on a kong", "杠后补牌胡", "won on the replacement tile after one's own kong"
        )
    },
    extra_inputs=(
        ExtraInput(
            "gun_tile",
            "tile",
            Words("枪", "gun tile", "胡后翻的牌（暗枪）", "the tile flipped after the win (暗枪)"),
        ),
    ),
    wind_order_option="wind_cycle",
    winner_items=(
        W("dealer", "坐庄", 1, I.winner_is_dealer),
        W("zhanli", "站立", 1, I.winner_closed),
        W("qionghu", "穷胡", 1, I.no_hun),
        W("gangkai", "杠开", 1, I.kong_replacement),
        W("minggang", "明杠", 1, I.winner_exposed_kongs),
        W("angang", "暗杠", 1, I.winner_concealed_kongs),
        W(
            "siguiyi",
            "四归一",
            1,
            I.siguiyi_as,
            Words(
                "",
                "four of a kind",
                "每个杠、四张一样的牌、或三张指示牌",
                "each kong, four natural copies, or the 3 live indicators",
            ),
        ),
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
        L("dianpao", "点炮", 1, I.anshan_payer, _ANSHAN_LOSER_WORDS["dianpao"]),
        L("dealer", "庄", 1, I.anshan_dealer_payer, _ANSHAN_LOSER_WORDS["dealer"]),
    ),
)

PRESETS: dict[str, Preset] = {p.name: p for p in (LIAOYANG, LIAOYANG_ONLINE, ANSHAN)}
WIND_ORDERS = {"东南西北": ("E", "S", "W", "N"), "东西南北": ("E", "W", "S", "N")}
assert all(set(p.win_flags) <= set(WIN_FLAGS) for p in PRESETS.values())


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
