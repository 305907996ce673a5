"""The rule sets as data: one table per preset, everything the engine, the page and the scorebook
need to know about it — options, 番 items, win conditions, win flags, extra inputs, behaviour,
settlement and who deals next. Adding a rule set (say 沈阳) is a new table here; changing a rule is
one line of a table. A table only names things defined below it: the types it is made of are in
`preset_model.py`, its 番 items are rows of the catalogue `items.py` (predicate and words), its win
conditions tests of `conditions.py`; a new item, condition or settlement style is written there
once and then used by name.

For the page, besides these tables: `rules.names` (tile/seat/kind names), `PRESET_SHORT` below,
`rules.errors.ERROR_WORDS` (player words per `HandError.code`), `rules.hand.WIN_FLAGS`, and
`rules.waits(hand)` (听牌: each winning tile with its 番 and payments, the 混 apart).
"""

from __future__ import annotations

from . import conditions, items
from .hand import WIN_FLAGS
from .preset_model import (
    LOSER,
    WIND_ORDERS,
    WINNER,
    Behaviour,
    Condition,
    DealerRule,
    ExtraInput,
    FanItem,
    Label,
    Option,
    Preset,
    fan_item,
    has_winds,
    wind_order,
)

__all__ = [
    "ANSHAN",
    "LIAOYANG",
    "LIAOYANG_ONLINE",
    "LOSER",
    "PRESETS",
    "PRESET_SHORT",
    "WINNER",
    "WIND_ORDERS",
    "Behaviour",
    "Condition",
    "DealerRule",
    "ExtraInput",
    "FanItem",
    "Label",
    "Option",
    "Preset",
    "has_winds",
    "wind_order",
]

_BOOL_WORDS = {True: Label("是", "yes"), False: Label("否", "no")}


def _flag(words: Label, default: bool = False) -> Option:
    return Option((default, not default), words, _BOOL_WORDS)


FAN_VALUES = "fan_values"  # the option that switches 暗杠, 飘胡 and 七小对 between table and prose

_SHARED_LIAOYANG_OPTIONS = {
    "qidui_requires_suits_yaojiu": _flag(
        Label(
            "七对要三门齐和幺九",
            "seven pairs (七对) need all suits and a 1, 9 or honour",
            "沈阳的读法",
            "the Shenyang reading ([Amb-9])",
        )
    ),
    "hun_counts_for_zhang_dageda": _flag(
        Label(
            "掌和大哥大可以用混",
            "wild tile counts for palm and dragon triplets (掌/大哥大)",
            "有一张真牌即可算掌、大哥大",
            "one natural tile is enough for them ([Amb-30])",
        )
    ),
}

_LIAOYANG_OPTIONS = {
    "fan_values": Option(
        ("table", "prose"),
        Label("番数读法", "fan values", "按番数表还是按正文", "the fan table or the prose ([Amb-11])"),
        {
            "table": Label(
                "番数表", "table", "暗杠2、飘胡2、七小对2", "hidden kong 2, all triplets 2, seven pairs 2"
            ),
            "prose": Label(
                "正文", "prose", "暗杠1、飘胡1、七小对1", "hidden kong 1, all triplets 1, seven pairs 1"
            ),
        },
    ),
    "bao_mode": Option(
        ("flat", "fan"),
        Label(
            "宝的算法",
            "bonus tile (宝)",
            "每家另付25/50/100分，或按番算",
            "flat 25/50/100 per loser, or as fan ([Amb-11])",
        ),
        {"flat": Label("另付分", "flat"), "fan": Label("算番", "as fan")},
    ),
    "sanjiabi_mode": Option(
        ("households", "losers"),
        Label(
            "三家闭怎么数",
            "three closed (三家闭) counts",
            "算上赢家，还是只数三个输家",
            "with the winner, or the three losers ([Amb-14])",
        ),
        {"households": Label("含赢家", "with the winner"), "losers": Label("三个输家", "the losers")},
    ),
    "qianggang_side": Option(
        ("loser", "winner"),
        Label(
            "抢杠的番算谁的",
            "robbed kong (抢杠) fan goes to",
            "被抢的人，还是赢家",
            "the robbed player or the winner ([Amb-15])",
        ),
        {"loser": Label("被抢的人", "robbed player"), "winner": Label("赢家", "winner")},
    ),
    **_SHARED_LIAOYANG_OPTIONS,
    "danzhang_wait": Option(
        ("shape", "single"),
        Label(
            "胡单张怎么算",
            "single wait (胡单张)",
            "只看牌型，还是还要只听这一张",
            "by shape, or also the winning tile was the only wait ([Amb-24])",
        ),
        {
            "shape": Label("看牌型", "by shape", "单吊、边、夹就算", "a pair, edge or closed wait"),
            "single": Label(
                "只听一张",
                "only wait",
                "还要只听这一张（混除外）",
                "and no other tile (but the 混) would win",
            ),
        },
    ),
}

_LIAOYANG_FLAGS = {
    "kong_replacement": Label(
        "杠上开", "win on a kong", "杠后补牌胡", "won on the replacement tile after one's own kong"
    ),
    "last_tiles": Label("海底捞", "last tiles", "最后四张里胡", "won on one of the last four drawable tiles"),
    "after_kong": Label(
        "流泪", "after a kong", "点炮的人刚杠完打出", "the discard came right after the discarder's kong"
    ),
    "first_draw": Label(
        "地胡", "earthly win", "任何人吃碰杠之前胡", "won before anyone's chow, pong or kong"
    ),
}

_BAO = ExtraInput(
    "bao_tile", "tile", Label("宝", "bonus tile (宝)", "胡后牌墙的下一张", "the next wall tile after the win")
)

LIAOYANG = Preset(
    name="liaoyang",
    short="辽阳",
    title="辽阳麻将",
    title_en="Liaoyang",
    winds=False,
    options=_LIAOYANG_OPTIONS,
    settlement="liaoyang",
    # seed 000 §一.3 "庄家如果胡牌，则下一把可继续连庄，否则即由庄家的下家做庄", §一.17 "黄庄…还是原有的玩家当庄"
    dealer=DealerRule(stays_on_dealer_win=True, stays_on_draw=True),
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
        Condition("MISSING_SUIT", conditions.liaoyang_suits),
        Condition("NO_YAOJIU", conditions.liaoyang_yaojiu),
        Condition("NO_KE", conditions.liaoyang_ke),
    ),
    win_flags=_LIAOYANG_FLAGS,
    extra_inputs=(_BAO,),
    winner_items=(
        fan_item(items.winner_is_dealer, "庄", 1),
        fan_item(items.winner_closed_ly, "闭门", 1),
        fan_item(items.sanjiabi, "三家闭", 1),
        fan_item(items.sijiabi, "四家闭", 1),
        fan_item(items.self_draw, "自摸", 1),
        fan_item(items.last_tiles, "海底捞", 1),
        fan_item(items.kong_replacement, "杠上开", 1),
        fan_item(items.danzhang, "胡单张", 1),
        fan_item(items.winner_exposed_kongs, "明杠", 1),
        fan_item(items.winner_concealed_kongs, "暗杠", (FAN_VALUES, {"table": 2, "prose": 1})),
        fan_item(items.winner_dragon_triplets, "大哥大", 1),
        fan_item(items.winner_jiqiang, "鸡枪", 1),
        fan_item(items.sancha, "三叉", 1),
        fan_item(items.sicha, "四叉", 1),
        fan_item(items.piao, "飘胡", (FAN_VALUES, {"table": 2, "prose": 1})),
        fan_item(items.shoubayi, "手把一", 1),
        fan_item(items.suhu, "素胡", 1),
        fan_item(items.qidui, "七小对", (FAN_VALUES, {"table": 2, "prose": 1})),
        fan_item(items.siguiyi_ly, "四归一", 1),
        fan_item(items.zhang_28, "2或8掌", 1),
        fan_item(items.dihu, "地胡", 5),
        fan_item(items.bao_as_fan, "宝", 1),
        fan_item(items.qianggang_winner, "抢杠", 1),
    ),
    loser_items=(
        fan_item(items.loser_is_dealer, "庄", 1),
        fan_item(items.loser_closed, "闭门", 1),
        fan_item(items.loser_dianpao, "点炮", 1),
        fan_item(items.liulei, "流泪", 1),
        fan_item(items.loser_robbed, "抢杠", 1),
        fan_item(items.loser_exposed_kongs, "明杠", 1),
        fan_item(items.loser_concealed_kongs, "暗杠", (FAN_VALUES, {"table": 2, "prose": 1})),
        fan_item(items.loser_dragon_melds, "大哥大", 1),
        fan_item(items.loser_jiqiang, "鸡枪", 1),
        fan_item(items.loser_sancha, "三叉", 1),
        fan_item(items.loser_sicha, "四叉", 1),
        fan_item(items.loser_shoubayi, "手把一", 1),
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
            Label("有风牌", "with winds", "136张（有东南西北）", "136 tiles, with the winds ([Amb-1])"),
            default=True,
        ),
        **_SHARED_LIAOYANG_OPTIONS,
        "changmao_max": Option(
            words=Label(
                "长毛上限",
                "draw bonus (长毛) cap",
                "长毛最多算几番（空=不限）",
                "the most fan the draws add (empty: no cap)",
            ),
            int_range=(0, 64),
            nullable=True,
        ),
        "bao_paid_by_discarder": _flag(
            Label(
                "宝也由点炮的人包",
                "discarder pays the bonus",
                "点炮时三家的宝都由点炮者付",
                "when the discarder pays for all three (包三家), he pays their bonus too",
            )
        ),
        "requires_ke": _flag(
            Label(
                "要有横",
                "needs a triplet",
                "和牌必须有横或中发白的将",
                "a triplet or a pair of Red, Green or White is required ([Amb-36])",
            )
        ),
    },
    settlement="liaoyang",
    dealer=DealerRule(stays_on_dealer_win=True, stays_on_draw=True),  # seed 001 §二: as 辽阳
    behaviour=LIAOYANG.behaviour,
    conditions=(
        Condition("MISSING_SUIT", conditions.liaoyang_suits),
        Condition("NO_YAOJIU", conditions.liaoyang_yaojiu),
        Condition("NO_KE", conditions.liaoyang_ke, option="requires_ke"),
    ),
    win_flags={
        "kong_replacement": Label(
            "杠开", "win on a kong", "杠后补牌胡", "won on the replacement tile after one's own kong"
        ),
        "last_tiles": _LIAOYANG_FLAGS["last_tiles"],
        "after_kong": Label(
            "反弹", "after a kong", "点炮的人刚杠完打出", "the discard came right after the discarder's kong"
        ),
    },
    extra_inputs=(
        _BAO,
        ExtraInput(
            "room_multiplier",
            "int",
            Label(
                "房间倍数",
                "room multiplier",
                "底和宝都乘这个数",
                "the base and the bonus are multiplied by it",
            ),
            default=1,
            minimum=1,
            maximum=1_000_000,
        ),
        ExtraInput(
            "changmao",
            "int",
            Label("长毛", "draws before", "之前连续黄庄的把数", "consecutive drawn hands before this one"),
            default=0,
            minimum=0,
            maximum=64,
        ),
    ),
    bao_amounts=(0, 10, 20, 30),
    baosanjia=True,
    winner_items=(
        fan_item(items.winner_is_dealer, "庄", 1),
        fan_item(items.winner_closed_ly, "闭门", 1),
        fan_item(items.self_draw, "自摸", 1),
        fan_item(items.last_tiles, "海底捞", 1),
        fan_item(items.kong_replacement, "杠开", 1),
        fan_item(items.winner_exposed_kongs, "明杠", 1),
        fan_item(items.winner_concealed_kongs, "暗杠", 1),
        fan_item(items.winner_dragon_triplets, "大哥大", 1),
        fan_item(items.winner_jiqiang, "鸡枪", 1),
        fan_item(items.sancha, "三岔", 1),
        fan_item(items.sicha, "四岔", 1),
        fan_item(items.piao, "飘和", 1),
        fan_item(items.shoubayi, "手把一", 1),
        fan_item(items.suhu, "素和", 1),
        fan_item(items.qidui, "七对", 1),
        fan_item(items.siguiyi_ly, "四归一", 1),
        fan_item(items.zhang_28, "2或8掌", 1),
        fan_item(items.changmao, "长毛", 1),
    ),
    loser_items=(
        fan_item(items.loser_is_dealer, "庄", 1),
        fan_item(items.loser_closed, "闭门", 1),
        fan_item(items.loser_dianpao, "点炮", 1),
        fan_item(items.fantan, "反弹", 1),
        fan_item(items.loser_exposed_kongs, "明杠", 1),
        fan_item(items.loser_concealed_kongs, "暗杠", 1),
        fan_item(items.loser_dragon_melds, "大哥大", 1),
        fan_item(items.loser_jiqiang, "鸡枪", 1),
        fan_item(items.loser_sancha, "三岔", 1),
        fan_item(items.loser_sicha, "四岔", 1),
        fan_item(items.loser_shoubayi, "手把一", 1),
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
            Label(
                "风牌顺序",
                "wind cycle",
                "混和暗枪里风牌的下一张",
                "which wind follows which for the wild tile and the hidden gun ([Amb-B1])",
            ),
            {
                "东西南北": Label(
                    "东西南北",
                    "E→W→S→N",
                    "按鞍山规则的例子：东的下一张是西",
                    "the seed's example: after East comes West",
                ),
                "东南西北": Label(
                    "东南西北", "E→S→W→N", "按座位顺序：东的下一张是南", "seat order: after East comes South"
                ),
            },
        ),
        "mingqiang": _flag(
            Label(
                "算明枪",
                "open gun (明枪)",
                "手里与混指示牌相同的牌算枪",
                "tiles of the indicator's type count as guns ([Amb-B2])",
            ),
            default=True,
        ),
        "shangqiangtou": Option(
            ("tile", "triplet"),
            Label(
                "上墙头",
                "win on the indicator (上墙头)",
                "胡指示牌那种牌，或还要凑成刻",
                "won on the indicator's type, or also a triplet ([Amb-B3])",
            ),
            {"tile": Label("胡这张就算", "the tile"), "triplet": Label("要凑成刻", "a triplet")},
        ),
        "kong_counts_siguiyi": _flag(
            Label(
                "杠也算四归一",
                "a kong is four-of-one (四归一)",
                "每个杠另加四归一一番",
                "each kong also scores four-of-one ([Amb-B4])",
            ),
            default=True,
        ),
        "dealer_loser": Option(
            ("dianpao", "always"),
            Label(
                "庄家输时加番",
                "losing dealer",
                "只在点炮时，还是总是",
                "only when he discarded the winning tile, or always ([Amb-B8])",
            ),
            {"dianpao": Label("点炮时", "on his discard"), "always": Label("总是", "always")},
        ),
        "fan_cap": Option(
            words=Label(
                "番数上限",
                "fan cap",
                "每家最多付几番（空=不限）",
                "the most fan one payment counts (empty: no cap)",
            ),
            int_range=(0, 64),
            nullable=True,
        ),
    },
    settlement="anshan",
    dealer=DealerRule(stays_on_dealer_win=True, stays_on_draw=True),  # seed 002 is silent: the same custom
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
        Condition("MISSING_SUIT", conditions.anshan_suits),
        Condition("NO_YAOJIU", conditions.anshan_yaojiu),
        Condition("NO_SHUN", conditions.anshan_shun),
        Condition("NO_KE", conditions.anshan_ke),
    ),
    win_flags={
        "kong_replacement": Label(
            "杠开", "win on a kong", "杠后补牌胡", "won on the replacement tile after one's own kong"
        )
    },
    extra_inputs=(
        ExtraInput(
            "gun_tile",
            "tile",
            Label("枪", "gun tile", "胡后翻的牌（暗枪）", "the tile flipped after the win (暗枪)"),
        ),
    ),
    wind_order_option="wind_cycle",
    winner_items=(
        fan_item(items.winner_is_dealer, "坐庄", 1),
        fan_item(items.winner_closed, "站立", 1),
        fan_item(items.qionghu, "穷胡", 1),
        fan_item(items.kong_replacement, "杠开", 1),
        fan_item(items.winner_exposed_kongs, "明杠", 1),
        fan_item(items.winner_concealed_kongs, "暗杠", 1),
        fan_item(items.siguiyi_as, "四归一", 1),
        fan_item(items.winner_dragon_triplets, "大哥大", 1),
        fan_item(items.sancha, "三叉", 1),
        fan_item(items.erbajiang, "二八将", 1),
        fan_item(items.qidui, "七对", 1),
        fan_item(items.thirteen, "十三幺", 1),
        fan_item(items.shangqiangtou, "上墙头", 1),
        fan_item(items.mingqiang, "明枪", 1),
        fan_item(items.anqiang, "暗枪", 1),
    ),
    loser_items=(
        fan_item(items.anshan_payer, "点炮", 1),
        fan_item(items.anshan_dealer_payer, "庄", 1),
    ),
)

PRESETS: dict[str, Preset] = {p.name: p for p in (LIAOYANG, LIAOYANG_ONLINE, ANSHAN)}
PRESET_SHORT = {key: p.short for key, p in PRESETS.items()}  # 辽阳 / 辽阳在线 / 鞍山, for the page
assert all(set(p.win_flags) <= set(WIN_FLAGS) for p in PRESETS.values())
