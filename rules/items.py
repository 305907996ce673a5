"""番 item predicates: each returns how many times the item applies (0 = not at all).

Winner-side predicates take a `Ctx` (facts + the reading being scored); loser-side ones take the
`HandFacts` and the loser's seat. Values, names and which preset uses which item live in
`presets.py`, so a rule change is a one-line change there.
"""

from __future__ import annotations

from . import tiles as T
from .context import Ctx, HandFacts

# ---- winner side -------------------------------------------------------------------------------


def winner_is_dealer(c: Ctx) -> int:
    return int(c.hand.winner == c.hand.dealer)


def winner_closed_ly(c: Ctx) -> int:
    """闭门: closed winner, but not a 七对 won on another's tile (点炮七对不算闭门)."""
    if not c.facts.closed(c.hand.winner):
        return 0
    return int(not (c.reading.form == "qidui" and not c.hand.win.self_drawn))


def winner_closed(c: Ctx) -> int:
    """站立 (anshan): the winner is closed; 七对 always is."""
    return int(c.facts.closed(c.hand.winner))


def sanjiabi(c: Ctx) -> int:
    n = c.facts.closed_losers
    if c.opt.get("sanjiabi_mode") == "losers":
        return int(n == 3)
    return int(winner_closed_ly(c) == 1 and n == 2)


def sijiabi(c: Ctx) -> int:
    return int(winner_closed_ly(c) == 1 and c.facts.closed_losers == 3)


def self_draw(c: Ctx) -> int:
    return int(c.hand.win.self_drawn)


def last_tiles(c: Ctx) -> int:
    return int(c.hand.win.last_tiles)


def kong_replacement(c: Ctx) -> int:
    return int(c.hand.win.kong_replacement)


def danzhang(c: Ctx) -> int:
    """胡单张: the shape (单吊/边/夹 on a natural group); with `danzhang_wait="single"` also the only wait."""
    if not (c.reading.form == "standard" and c.reading.danzhang):
        return 0
    return int(c.opt.get("danzhang_wait") != "single" or c.facts.only_wait)


def winner_exposed_kongs(c: Ctx) -> int:
    return sum(1 for m in c.facts.winner.melds if m.exposed_kong)


def winner_concealed_kongs(c: Ctx) -> int:
    return sum(1 for m in c.facts.winner.melds if m.kind == "concealed_kong")


def winner_dragon_triplets(c: Ctx) -> int:
    """大哥大: natural 中/发/白 横 in the reading (option: one natural tile is enough)."""
    if c.opt.get("hun_counts_for_zhang_dageda") is True:
        return c.reading.anchored_dragon_triplets
    return c.reading.natural_dragon_triplets


def winner_jiqiang(c: Ctx) -> int:
    return c.facts.count_natural(set(c.facts.jiqiang), c.hand.winner_tiles)


def sancha(c: Ctx) -> int:
    return int(c.reading.natural_triplets >= 3)


def sicha(c: Ctx) -> int:
    return int(c.reading.natural_triplets >= 4)


def piao(c: Ctx) -> int:
    return int(c.reading.form == "standard" and c.reading.chows == 0)


def shoubayi(c: Ctx) -> int:
    return int(len(c.facts.winner.melds) == 4)


def no_hun(c: Ctx) -> int:
    """素胡 / 穷胡: no 混 anywhere in the winner's complete hand."""
    return int(c.facts.hun_in_hand == 0)


def qidui(c: Ctx) -> int:
    return int(c.reading.form == "qidui")


def siguiyi_ly(c: Ctx) -> int:
    return c.facts.four_natural_not_kong if c.reading.form == "standard" else 0


def zhang_28(c: Ctx) -> int:
    if c.reading.form != "standard":
        return 0
    if c.opt.get("hun_counts_for_zhang_dageda") is True:
        return int(c.reading.pair_anchored_28)
    return int(c.reading.pair_natural_28)


def dihu(c: Ctx) -> int:
    return int(c.hand.win.first_draw and c.hand.winner != c.hand.dealer)


def bao_as_fan(c: Ctx) -> int:
    """宝 as 番 (option bao_mode=fan): 1 宝 = 1, 2 = 3, 3 = 4."""
    if c.opt.get("bao_mode") != "fan":
        return 0
    return (0, 1, 3, 4)[bao_count(c.facts)]


def qianggang_winner(c: Ctx) -> int:
    return int(c.hand.win.by == "robbed_kong" and c.opt.get("qianggang_side") == "winner")


def changmao(c: Ctx) -> int:
    n = c.hand.changmao
    cap = c.opt.get("changmao_max")
    return min(n, cap) if isinstance(cap, int) else n


# anshan


def siguiyi_as(c: Ctx) -> int:
    """四归一 (anshan): each kong (option), each natural four not in a kong, all 3 live indicators."""
    f = c.facts
    kongs = sum(1 for m in f.winner.melds if m.is_kong) if c.opt.get("kong_counts_siguiyi", True) else 0
    indicator_three = int(f.natural_counts[c.hand.indicator] == 3 and f.hun != c.hand.indicator)
    return kongs + f.four_natural_not_kong + indicator_three


def erbajiang(c: Ctx) -> int:
    return int(c.reading.pair_natural_28)


def thirteen(c: Ctx) -> int:
    return int(c.reading.form == "thirteen" or c.facts.all_yaojiu)


def shangqiangtou(c: Ctx) -> int:
    ind = c.hand.indicator
    if c.hand.win.tile != ind:
        return 0
    if c.opt.get("shangqiangtou") == "triplet":
        return int(c.facts.natural_counts[ind] == 3)
    return 1


def mingqiang(c: Ctx) -> int:
    if c.opt.get("mingqiang") is False:
        return 0
    return c.facts.count_natural({c.hand.indicator}, c.hand.winner_tiles)


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


def loser_is_dealer(f: HandFacts, seat: str) -> int:
    return int(seat == f.hand.dealer)


def loser_closed(f: HandFacts, seat: str) -> int:
    return int(f.closed(seat))


def loser_dianpao(f: HandFacts, seat: str) -> int:
    return int(seat == f.discarder)


def loser_after_kong(f: HandFacts, seat: str) -> int:
    return int(seat == f.discarder and f.hand.win.after_kong)


def loser_robbed(f: HandFacts, seat: str) -> int:
    win = f.hand.win
    return int(win.by == "robbed_kong" and seat == win.source and f.options.get("qianggang_side") != "winner")


def loser_exposed_kongs(f: HandFacts, seat: str) -> int:
    """明杠 of a loser; a robbed 补杠 still counts as his 明杠."""
    n = sum(1 for m in f.hand.players[seat].melds if m.exposed_kong)
    win = f.hand.win
    return n + int(win.by == "robbed_kong" and seat == win.source)


def loser_concealed_kongs(f: HandFacts, seat: str) -> int:
    return sum(1 for m in f.hand.players[seat].melds if m.kind == "concealed_kong")


def loser_dragon_melds(f: HandFacts, seat: str) -> int:
    return sum(1 for m in f.hand.players[seat].melds if m.is_triplet and T.is_dragon(m.tiles[0]))


def loser_jiqiang(f: HandFacts, seat: str) -> int:
    return f.count_natural(set(f.jiqiang), f.hand.players[seat].meld_tiles)


def _loser_triplet_melds(f: HandFacts, seat: str) -> int:
    return sum(1 for m in f.hand.players[seat].melds if m.is_triplet)


def loser_sancha(f: HandFacts, seat: str) -> int:
    return int(_loser_triplet_melds(f, seat) >= 3)


def loser_sicha(f: HandFacts, seat: str) -> int:
    return int(_loser_triplet_melds(f, seat) >= 4)


def loser_shoubayi(f: HandFacts, seat: str) -> int:
    return int(len(f.hand.players[seat].melds) == 4)


def anshan_payer(f: HandFacts, seat: str) -> int:
    """点炮 set P: the discarder (or robbed player); everyone on a self-draw (自摸为三家点炮)."""
    return int(f.hand.win.self_drawn or seat == f.discarder)


def anshan_dealer_payer(f: HandFacts, seat: str) -> int:
    if seat != f.hand.dealer:
        return 0
    return 1 if f.options.get("dealer_loser") == "always" else anshan_payer(f, seat)
