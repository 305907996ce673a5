"""Scores and errors in player words: an engine error, a hand that cannot win, and the result's rows.

Why this module exists: the engine reports JSON fields and reason codes (`players.S.melds`,
`MISSING_SUIT`); a player needs to read which part of the page is wrong and what his hand lacks, and
the page needs each 番, each payment ("东家 付 250") and each 混 spelled out, in Chinese first and in
English. These are sentences and rows, not widgets, so they are unit-tested here and app.py only
lays them out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from page.names import seat_words, tile_en
from page.situation import WinnerTiles
from page.words import Words
from rules import tiles as T
from rules.errors import HandError
from rules.hand import SEATS
from rules.names import SUIT_ZH, seat_name, tile_name
from rules.result import ScoreResult


def seat_en(seat: str) -> str:
    return seat_words(seat).en


_FIELD_WORDS = [
    (r"^win\.kong_replacement", Words("杠上开", "win on a kong (杠上开)")),
    (r"^win\.after_kong", Words("流泪", "discard after a kong (流泪)")),
    (r"^win\.first_draw", Words("地胡", "first draw (地胡)")),
    (r"^win\.from", Words("点炮的人", "who discarded")),
    (r"^win\.tile", Words("胡的那张牌", "the winning tile")),
    (r"^indicator", Words("混指示牌", "the wild-tile indicator (混)")),
    (r"^bao_tile", Words("宝牌", "the bonus tile (宝)")),
    (r"^gun_tile", Words("枪牌", "the gun tile (枪)")),
    (r"^players\.(\w)\.melds", Words("{seat}的副露", "the melds of {seat}")),
    (r"^players\.(\w)\.concealed", Words("{seat}的手牌", "the hand of {seat}")),
    (r"^options", Words("规则选项", "the rule options")),
]


def explain_error(err: HandError) -> Words:
    """An engine HandError in player words: which part of the page, then what is wrong.

    Chinese uses the rules' table of words per error code (`HandError.words`) where the engine has
    one; English keeps the engine's precise sentence, tile codes turned into names."""
    where = err.field or ""
    words = getattr(err, "words", None)
    zh = words("zh") if callable(words) else _tile_words(err.message)
    en = _tile_words(err.message, tile_en)
    for pattern, place in _FIELD_WORDS:
        m = re.match(pattern, where)
        if m:
            seat, seat_e = (seat_name(m.group(1)), seat_en(m.group(1))) if m.groups() else ("", "")
            return Words(f"{place.zh.format(seat=seat)}：{zh}", f"{place.en.format(seat=seat_e)}: {en}")
    return Words(zh, en)


def _tile_words(text: str, name: Callable[[str], str] = tile_name) -> str:
    """Replace tile codes in an engine message by their names (7p → 七饼, or 7 dots in English)."""
    return re.sub(r"\b([1-9][mps]|[ESWNCFP])\b(?=[\s:,.)]|$)", lambda m: name(m.group(1)), text)


@dataclass(frozen=True)
class Invalid:
    """Why a hand cannot win and what is missing, for a player."""

    title: Words
    missing: Words


_INVALID = {
    "NO_YAOJIU": (
        Words("没有幺九", "no 1, 9 or honour (没有幺九)"),
        Words(
            "要有一张真的 1 或 9（或中、发、白，带风时也可以是风牌）；混不算",
            "the hand needs a real 1 or 9 (or Red, Green, White, or a wind where winds are played); a wild tile does not count",
        ),
    ),
    "NO_KE": (
        Words("没有横", "no triplet (没有横)"),
        Words(
            "要有一个横：三张一样的（暗刻或碰/杠），或一对中/发/白",
            "the hand needs a triplet: three of a kind (concealed, pong or kong), or a pair of Red, Green or White",
        ),
    ),
    "NO_SHUN": (
        Words("没有顺子", "no run (没有顺子)"),
        Words(
            "鞍山要至少一个顺子（例如 345万）；全是刻子不能胡",
            "Anshan rules need at least one run (e.g. 3, 4, 5 wan)",
        ),
    ),
    "NOT_A_WINNING_SHAPE": (
        Words("不成胡牌", "the tiles do not form a winning hand (不成胡牌)"),
        Words(
            "用上混也凑不成 4 组 + 1 对（或七对）：检查照片认出的牌",
            "they do not split into 4 sets + 1 pair (or seven pairs), even using the wild tile: check the tiles read from the photo",
        ),
    ),
    "CLOSED_DISCARD_WIN": (
        Words("闭门不能点炮胡", "a closed hand cannot win on a discard (闭门不能点炮胡)"),
        Words(
            "没有吃、碰、明杠时只能自摸（七对除外）：是自摸吗？还是漏了一组副露？",
            "with no chow, pong or exposed kong the winner may only win by self-draw (or with seven pairs): was it a self-draw, or did you forget a meld?",
        ),
    ),
    "DISCARDED_HUN": (
        Words("打过混", "the winner discarded a wild tile (打过混)"),
        Words("打过混的人这一局不能胡", "a player who discarded a wild tile cannot win this hand"),
    ),
    "SHOUBAYI_WITH_CHI": (
        Words("手把一只能飘胡", "four melds with a 吃 (手把一只能飘胡)"),
        Words(
            "四组副露都下来时，必须都是碰/杠：检查副露的种类",
            "with four melds down, all of them must be pongs or kongs",
        ),
    ),
    "SHOUBAYI_NOT_ALLOWED": (
        Words("鞍山不许手把一", "four melds down (鞍山不许手把一)"),
        Words(
            "鞍山四组副露、手里只剩一张时不能胡",
            "under Anshan rules a hand with four melds and one tile left cannot win",
        ),
    ),
}


def explain_invalid(result: ScoreResult, tiles: WinnerTiles | None = None) -> Invalid:
    """Turn an invalid ScoreResult's reason code into what the hand lacks."""
    present: set[int] = set()
    hun = result.hun
    if tiles is not None:
        present = {T.parse_code(t) for t in tiles.all_tiles()} - {None}  # type: ignore[assignment]
    reason = result.reason or ""
    if reason == "MISSING_SUIT":
        suits = {T.suit_of(t) for t in present if t != hun and T.is_suited(t)}
        lacking = [SUIT_ZH[s] for s in range(3) if s not in suits]
        what = "、".join(lacking) if lacking else "一门"
        what_en = "、".join(lacking) if lacking else "one suit"
        return Invalid(
            Words("缺门", "a suit is missing (缺门)"),
            Words(
                f"至少要有一张真的{what}（混不能补门）",
                f"the hand needs at least one real {what_en} tile (a wild tile never fills a suit)",
            ),
        )
    if reason in _INVALID:
        return Invalid(*_INVALID[reason])
    msg = result.message or reason
    return Invalid(Words("不能胡", "cannot win"), Words(msg, msg))


@dataclass(frozen=True)
class FanRow:
    side: str  # "winner" or a loser seat
    key: str
    name: str
    fan: int


def fan_rows(result: ScoreResult) -> list[FanRow]:
    """Every 番 item with its side: the winner's first (they count for every loser), then each loser's."""
    rows = [FanRow("winner", f.key, f.name, f.fan) for f in result.winner_fan]
    for seat, lr in result.losers.items():
        rows += [FanRow(seat, f.key, f.name, f.fan) for f in lr.fan]
    return rows


@dataclass(frozen=True)
class Payment:
    """One seat's money for the hand, in words: 东家 付 250 (庄) / 南家 收 750."""

    seat: str
    amount: int  # + receives, - pays
    words: Words
    how: Words  # how the share came about: 番 → 2^n → 掉底 / 摇, 宝, 包三家 ('' for the winner)


def payments(
    result: ScoreResult, dealer: str | None = None, names: dict[str, str] | None = None
) -> list[Payment]:
    """Each seat's payment as a sentence (the winner first), and how each loser's share was worked out.

    `names` are the players' names per seat (from the scorebook); they are the player's own text, so
    the page must show these sentences as plain text."""
    names = names or {}

    def who(seat: str) -> Words:
        name = names.get(seat, "")
        zh = seat_name(seat) + (f" {name}" if name else "") + ("（庄）" if seat == dealer else "")
        en = seat_en(seat) + (f" {name}" if name else "") + (" (dealer)" if seat == dealer else "")
        return Words(zh, en)

    out: list[Payment] = []
    win = result.winner
    got = result.payments.get(win, 0)
    w = who(win)
    out.append(Payment(win, got, Words(f"{w.zh} 收 {got}", f"{w.en} receives {got}"), Words("", "")))
    for seat in SEATS:
        lr = result.losers.get(seat)
        if seat == win or lr is None:
            continue
        amount = result.payments.get(seat, 0)
        w = who(seat)
        total = result.winner_fan_total + lr.fan_total
        zh = [f"{result.winner_fan_total} + {lr.fan_total} = {total} 番，2 的 {lr.exponent} 次方 = {lr.raw}"]
        en = [f"{result.winner_fan_total} + {lr.fan_total} = {total} fan, 2^{lr.exponent} = {lr.raw}"]
        if lr.yao:
            zh.append(f"摇（封顶）{lr.capped}")
            en.append(f"the cap (摇) {lr.capped}")
        elif lr.diaodi:
            zh.append(f"掉底 {lr.capped}")
            en.append(f"the floor (掉底) {lr.capped}")
        if lr.bao:
            zh.append(f"宝 {lr.bao}")
            en.append(f"bonus (宝) {lr.bao}")
        if lr.paid_by != seat:
            zh.append(f"包三家：这份由{seat_name(lr.paid_by)}付")
            en.append(f"this share is paid by {seat_en(lr.paid_by)} (包三家)")
        if lr.bao and lr.bao_paid_by != seat:
            zh.append(f"宝由{seat_name(lr.bao_paid_by)}付")
            en.append(f"the bonus paid by {seat_en(lr.bao_paid_by)}")
        if amount < 0:
            said = Words(f"{w.zh} 付 {-amount}", f"{w.en} pays {-amount}")
        else:
            said = Words(f"{w.zh} 不用付", f"{w.en} pays nothing")
        out.append(Payment(seat, amount, said, Words("；".join(zh), "; ".join(en))))
    return out


def hun_lines(result: ScoreResult) -> list[Words]:
    """What each 混 stood for, e.g. "三万（混）当 六万，在 4m5m6m 里"."""
    hun = tile_name(T.code(result.hun))
    out = []
    for label, stand_in in result.hun_stand_ins:
        group = "".join(
            tile_name(label[i : i + 2]) if label[i].isdigit() else tile_name(label[i])
            for i in _code_starts(label)
        )
        group_en = ", ".join(
            tile_en(label[i : i + 2]) if label[i].isdigit() else tile_en(label[i])
            for i in _code_starts(label)
        )
        out.append(
            Words(
                f"{hun}（混）当 {tile_name(stand_in)} 用，在 {group} 里",
                f"{tile_en(T.code(result.hun))} (混) → {tile_en(stand_in)} in {group_en}",
            )
        )
    return out


def _code_starts(label: str) -> list[int]:
    """Start offsets of the tile codes in a concatenated label like `4m5m6m` or `CCC`."""
    idx, i = [], 0
    while i < len(label):
        idx.append(i)
        i += 2 if label[i].isdigit() else 1
    return idx
