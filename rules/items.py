"""The 番 item catalogue: one row per item, its predicate and its words together (`ItemRule`).

A predicate returns how many times the item applies to a hand (0 = not at all). Winner-side ones take
a `Ctx` (facts + the reading being scored); loser-side ones take the `HandFacts` and the loser's seat.
`@winner_rule(key, words)` / `@loser_rule(key, words)` make the function below them a catalogue row;
two items that count the same thing under other words (素胡 / 穷胡, 流泪 / 反弹) are two rows over one
function. Which preset scores which item, under which Chinese name and for how many 番, is a line of
that preset's table (`presets.py`), so a rule change is a one-line change there and a new item is one
row here plus one line in each preset that scores it.
"""

from __future__ import annotations

from collections.abc import Callable

from . import tiles as T
from .context import Ctx, HandFacts
from .preset_model import LOSER, WINNER, ItemRule, Label


def winner_rule(key: str, words: Label) -> Callable[[Callable[[Ctx], int]], ItemRule]:
    """Make the decorated predicate the catalogue row of winner item `key`."""
    return lambda count: ItemRule(key, WINNER, count, words)


def loser_rule(key: str, words: Label) -> Callable[[Callable[[HandFacts, str], int]], ItemRule]:
    """Make the decorated predicate the catalogue row of loser item `key`."""
    return lambda count: ItemRule(key, LOSER, count, words)


# ---- winner side -------------------------------------------------------------------------------


@winner_rule("dealer", Label("庄", "dealer", "庄家胡牌加一番", "the winner is the dealer"))
def winner_is_dealer(c: Ctx) -> int:
    return int(c.hand.winner == c.hand.dealer)


@winner_rule(
    "bimen",
    Label(
        "闭门",
        "closed",
        "赢家没有吃、碰、明杠（点炮七对除外）",
        "the winner has no chow, pong or exposed kong (not seven pairs on a discard)",
    ),
)
def winner_closed_ly(c: Ctx) -> int:
    """闭门: closed winner, but not a 七对 won on another's tile (点炮七对不算闭门)."""
    if not c.facts.closed(c.hand.winner):
        return 0
    return int(not (c.reading.form == "qidui" and not c.hand.win.self_drawn))


@winner_rule(
    "zhanli", Label("站立", "closed", "没有开门（七对也算）", "the winner is closed (七对 always is)")
)
def winner_closed(c: Ctx) -> int:
    """站立 (anshan): the winner is closed; 七对 always is."""
    return int(c.facts.closed(c.hand.winner))


@winner_rule(
    "sanjiabi",
    Label("三家闭", "three closed", "赢家闭门且另有两家闭门", "the winner and exactly two losers are closed"),
)
def sanjiabi(c: Ctx) -> int:
    n = c.facts.closed_losers
    if c.opt.get("sanjiabi_mode") == "losers":
        return int(n == 3)
    return int(winner_closed_ly(c) == 1 and n == 2)


@winner_rule("sijiabi", Label("四家闭", "four closed", "四家都闭门", "all four players are closed"))
def sijiabi(c: Ctx) -> int:
    return int(winner_closed_ly(c) == 1 and c.facts.closed_losers == 3)


@winner_rule("zimo", Label("自摸", "self-draw", "自己摸到胡牌", "the winner drew the winning tile"))
def self_draw(c: Ctx) -> int:
    return int(c.hand.win.self_drawn)


@winner_rule(
    "haidi",
    Label("海底捞", "last tiles", "在最后四张（分张）胡牌", "won on one of the last four drawable tiles"),
)
def last_tiles(c: Ctx) -> int:
    return int(c.hand.win.last_tiles)


@winner_rule(
    "gangkai",
    Label("杠上开", "win on a kong", "杠后补牌胡牌", "won on the replacement tile after one's own kong"),
)
def kong_replacement(c: Ctx) -> int:
    return int(c.hand.win.kong_replacement)


@winner_rule(
    "danzhang",
    Label(
        "胡单张",
        "single wait",
        "单吊、边张或夹张胡牌",
        "won on a pair wait, an edge wait (12→3, 89→7) or a closed wait",
    ),
)
def danzhang(c: Ctx) -> int:
    """胡单张: the shape (单吊/边/夹 on a natural group); with `danzhang_wait="single"` also the only wait."""
    if not (c.reading.form == "standard" and c.reading.danzhang):
        return 0
    return int(c.opt.get("danzhang_wait") != "single" or c.facts.only_wait)


@winner_rule(
    "minggang", Label("明杠", "exposed kong", "每个明杠（大明杠、补杠）一番", "one per exposed kong")
)
def winner_exposed_kongs(c: Ctx) -> int:
    return sum(1 for m in c.facts.winner.melds if m.exposed_kong)


@winner_rule("angang", Label("暗杠", "concealed kong", "每个暗杠", "per concealed kong"))
def winner_concealed_kongs(c: Ctx) -> int:
    return sum(1 for m in c.facts.winner.melds if m.kind == "concealed_kong")


@winner_rule(
    "dageda",
    Label(
        "大哥大",
        "dragon triplet",
        "每副中、发、白的横（不用混）",
        "one per natural triplet of Red, Green or White",
    ),
)
def winner_dragon_triplets(c: Ctx) -> int:
    """大哥大: natural 中/发/白 横 in the reading (option: one natural tile is enough)."""
    if c.opt.get("hun_counts_for_zhang_dageda") is True:
        return c.reading.anchored_dragon_triplets
    return c.reading.natural_dragon_triplets


@winner_rule(
    "jiqiang", Label("鸡枪", "jiqiang tiles", "每张鸡枪牌一番", "one per jiqiang (鸡枪) tile in the hand")
)
def winner_jiqiang(c: Ctx) -> int:
    return c.facts.count_natural(set(c.facts.jiqiang), c.hand.winner_tiles)


@winner_rule("sancha", Label("三叉", "three triplets", "三副不用混的横", "three natural triplets or kongs"))
def sancha(c: Ctx) -> int:
    return int(c.reading.natural_triplets >= 3)


@winner_rule(
    "sicha",
    Label(
        "四叉",
        "four triplets",
        "四副不用混的横（在三叉上再加一番）",
        "four natural triplets: one more on top of three triplets",
    ),
)
def sicha(c: Ctx) -> int:
    return int(c.reading.natural_triplets >= 4)


@winner_rule("piao", Label("飘胡", "all triplets", "四副都是横", "all four sets are triplets"))
def piao(c: Ctx) -> int:
    return int(c.reading.form == "standard" and c.reading.chows == 0)


@winner_rule(
    "shoubayi",
    Label("手把一", "four melds", "四副副露，单钓最后一张", "four melds down, won on the last single tile"),
)
def shoubayi(c: Ctx) -> int:
    return int(len(c.facts.winner.melds) == 4)


def _no_hun(c: Ctx) -> int:
    """素胡 / 穷胡: no 混 anywhere in the winner's complete hand."""
    return int(c.facts.hun_in_hand == 0)


suhu = ItemRule(
    "suhu",
    WINNER,
    _no_hun,
    Label("素胡", "no wild tile", "手里没有混", "no wild tile (混) anywhere in the winning hand"),
)
qionghu = ItemRule(
    "qionghu",
    WINNER,
    _no_hun,
    Label("穷胡", "no wild tile", "手里没有混", "no wild tile (混) anywhere in the winning hand"),
)


@winner_rule("qidui", Label("七小对", "seven pairs", "七个对子", "seven pairs"))
def qidui(c: Ctx) -> int:
    return int(c.reading.form == "qidui")


@winner_rule(
    "siguiyi",
    Label("四归一", "four of a kind", "四张一样的牌，不是杠", "four natural copies of a tile, not a kong"),
)
def siguiyi_ly(c: Ctx) -> int:
    return c.facts.four_natural_not_kong if c.reading.form == "standard" else 0


@winner_rule(
    "zhang",
    Label("2或8掌", "pair of 2s or 8s", "将是一对二或八（不用混）", "the pair is a natural pair of 2s or 8s"),
)
def zhang_28(c: Ctx) -> int:
    if c.reading.form != "standard":
        return 0
    if c.opt.get("hun_counts_for_zhang_dageda") is True:
        return int(c.reading.pair_anchored_28)
    return int(c.reading.pair_natural_28)


@winner_rule(
    "dihu",
    Label("地胡", "earthly win", "闲家在任何人吃碰杠之前胡牌", "a non-dealer wins before anyone melds"),
)
def dihu(c: Ctx) -> int:
    return int(c.hand.win.first_draw and c.hand.winner != c.hand.dealer)


@winner_rule(
    "bao", Label("宝", "bonus as fan", "宝按番算（1/3/4番）", "the bonus tile (宝) counted as fan (1/3/4)")
)
def bao_as_fan(c: Ctx) -> int:
    """宝 as 番 (option bao_mode=fan): 1 宝 = 1, 2 = 3, 3 = 4."""
    if c.opt.get("bao_mode") != "fan":
        return 0
    return (0, 1, 3, 4)[bao_count(c.facts)]


@winner_rule(
    "qianggang",
    Label("抢杠", "robbing a kong", "抢别人补杠的牌胡", "won on the tile of another's added kong"),
)
def qianggang_winner(c: Ctx) -> int:
    return int(c.hand.win.by == "robbed_kong" and c.opt.get("qianggang_side") == "winner")


@winner_rule(
    "changmao",
    Label(
        "长毛", "after draws", "前面每连续一把黄庄加一番", "one per consecutive drawn hand before this one"
    ),
)
def changmao(c: Ctx) -> int:
    n = c.hand.changmao
    cap = c.opt.get("changmao_max")
    return min(n, cap) if isinstance(cap, int) else n


# anshan


@winner_rule(
    "siguiyi",
    Label(
        "四归一",
        "four of a kind",
        "每个杠、四张一样的牌、或三张指示牌",
        "each kong, four natural copies, or the 3 live indicators",
    ),
)
def siguiyi_as(c: Ctx) -> int:
    """四归一 (anshan): each kong (option), each natural four not in a kong, all 3 live indicators."""
    f = c.facts
    kongs = sum(1 for m in f.winner.melds if m.is_kong) if c.opt.get("kong_counts_siguiyi", True) else 0
    indicator_three = int(f.natural_counts[c.hand.indicator] == 3 and f.hun != c.hand.indicator)
    return kongs + f.four_natural_not_kong + indicator_three


@winner_rule(
    "erbajiang",
    Label("二八将", "pair of 2s or 8s", "将是一对二或八（七对里有一对即可）", "a natural pair of 2s or 8s"),
)
def erbajiang(c: Ctx) -> int:
    return int(c.reading.pair_natural_28)


@winner_rule(
    "shisanyao",
    Label("十三幺", "all terminals", "除混外全是幺九", "every tile but the 混 is a 1, 9 or honour"),
)
def thirteen(c: Ctx) -> int:
    return int(c.reading.form == "thirteen" or c.facts.all_yaojiu)


@winner_rule(
    "shangqiangtou",
    Label("上墙头", "win on the indicator", "胡的是混指示牌那种牌", "won on a tile of the indicator's type"),
)
def shangqiangtou(c: Ctx) -> int:
    ind = c.hand.indicator
    if c.hand.win.tile != ind:
        return 0
    if c.opt.get("shangqiangtou") == "triplet":
        return int(c.facts.natural_counts[ind] == 3)
    return 1


@winner_rule(
    "mingqiang",
    Label("明枪", "open gun", "手里每张与混指示牌相同的牌", "one per tile of the indicator's type"),
)
def mingqiang(c: Ctx) -> int:
    if c.opt.get("mingqiang") is False:
        return 0
    return c.facts.count_natural({c.hand.indicator}, c.hand.winner_tiles)


@winner_rule(
    "anqiang",
    Label(
        "暗枪",
        "hidden gun",
        "胡后翻的牌及其下一张，手里每张一番",
        "one per tile matching the flipped tile or the next",
    ),
)
def anqiang(c: Ctx) -> int:
    g = c.hand.gun_tile
    if g is None:
        return 0
    return c.facts.count_natural({g, T.next_tile(g, c.facts.wind_order)}, c.hand.winner_tiles)


# ---- physical counts shared with settlement ------------------------------------------------------


def bao_count(f: HandFacts) -> int:
    """n_bao: winner's tiles identical to the 宝 tile, 混 excluded (0..3)."""
    b = f.hand.bao_tile
    if b is None or b == f.hun:
        return 0
    return min(3, sum(1 for t in f.hand.winner_tiles if t == b))


# ---- loser side --------------------------------------------------------------------------------


@loser_rule("dealer", Label("庄", "dealer", "庄家输也加番", "the loser is the dealer"))
def loser_is_dealer(f: HandFacts, seat: str) -> int:
    return int(seat == f.hand.dealer)


@loser_rule(
    "bimen", Label("闭门", "closed", "输家没有吃、碰、明杠", "the loser has no chow, pong or exposed kong")
)
def loser_closed(f: HandFacts, seat: str) -> int:
    return int(f.closed(seat))


@loser_rule("dianpao", Label("点炮", "discarder", "打出胡牌的人加番", "the loser fed the win"))
def loser_dianpao(f: HandFacts, seat: str) -> int:
    return int(seat == f.discarder)


def _loser_after_kong(f: HandFacts, seat: str) -> int:
    return int(seat == f.discarder and f.hand.win.after_kong)


liulei = ItemRule(
    "liulei",
    LOSER,
    _loser_after_kong,
    Label("流泪", "after a kong", "杠后打出的牌被胡", "the winning discard came right after his kong"),
)
fantan = ItemRule(
    "fantan",
    LOSER,
    _loser_after_kong,
    Label(
        "反弹",
        "after a kong",
        "杠后打出的牌被胡，点炮者多输一番",
        "the winning discard came right after his kong",
    ),
)


@loser_rule("qianggang", Label("抢杠", "robbed", "被抢杠的人加番", "his added kong was robbed"))
def loser_robbed(f: HandFacts, seat: str) -> int:
    win = f.hand.win
    return int(win.by == "robbed_kong" and seat == win.source and f.options.get("qianggang_side") != "winner")


@loser_rule("minggang", Label("明杠", "exposed kong", "输家每个明杠", "one per exposed kong of the loser"))
def loser_exposed_kongs(f: HandFacts, seat: str) -> int:
    """明杠 of a loser; a robbed 补杠 still counts as his 明杠."""
    n = sum(1 for m in f.hand.players[seat].melds if m.exposed_kong)
    win = f.hand.win
    return n + int(win.by == "robbed_kong" and seat == win.source)


@loser_rule("angang", Label("暗杠", "concealed kong", "输家每个暗杠", "per concealed kong of the loser"))
def loser_concealed_kongs(f: HandFacts, seat: str) -> int:
    return sum(1 for m in f.hand.players[seat].melds if m.kind == "concealed_kong")


@loser_rule(
    "dageda", Label("大哥大", "dragon meld", "输家每副中、发、白的碰/杠", "one per dragon 碰/杠 of the loser")
)
def loser_dragon_melds(f: HandFacts, seat: str) -> int:
    return sum(1 for m in f.hand.players[seat].melds if m.is_triplet and T.is_dragon(m.tiles[0]))


@loser_rule(
    "jiqiang", Label("鸡枪", "jiqiang tiles", "输家副露里每张鸡枪", "one per 鸡枪 tile in the loser's melds")
)
def loser_jiqiang(f: HandFacts, seat: str) -> int:
    return f.count_natural(set(f.jiqiang), f.hand.players[seat].meld_tiles)


def _loser_triplet_melds(f: HandFacts, seat: str) -> int:
    return sum(1 for m in f.hand.players[seat].melds if m.is_triplet)


@loser_rule("sancha", Label("三叉", "three triplets", "输家三副碰/杠", "three 碰/杠 melds"))
def loser_sancha(f: HandFacts, seat: str) -> int:
    return int(_loser_triplet_melds(f, seat) >= 3)


@loser_rule("sicha", Label("四叉", "four triplets", "输家四副碰/杠", "four 碰/杠 melds"))
def loser_sicha(f: HandFacts, seat: str) -> int:
    return int(_loser_triplet_melds(f, seat) >= 4)


@loser_rule("shoubayi", Label("手把一", "four melds", "输家四副副露", "the loser has four melds"))
def loser_shoubayi(f: HandFacts, seat: str) -> int:
    return int(len(f.hand.players[seat].melds) == 4)


@loser_rule(
    "dianpao",
    Label(
        "点炮",
        "pays as discarder",
        "点炮者（自摸时三家都算）加一番",
        "the discarder, or everyone on a self-draw",
    ),
)
def anshan_payer(f: HandFacts, seat: str) -> int:
    """点炮 set P: the discarder (or robbed player); everyone on a self-draw (自摸为三家点炮)."""
    return int(f.hand.win.self_drawn or seat == f.discarder)


@loser_rule(
    "dealer",
    Label("庄", "dealer", "庄家点炮再加一番", "the dealer pays one more when he discarded the winning tile"),
)
def anshan_dealer_payer(f: HandFacts, seat: str) -> int:
    if seat != f.hand.dealer:
        return 0
    return 1 if f.options.get("dealer_loser") == "always" else anshan_payer(f, seat)
