"""Scores and errors in player words: an engine error, a hand that cannot win, and the result's rows.

Why this module exists: the engine reports JSON fields and reason codes (`players.S.melds`,
`MISSING_SUIT`); a player needs to read which part of the page is wrong and what his hand lacks, and
the page's tables need each 番, each payment and each 混 spelled out. These are sentences and rows,
not widgets, so they are unit-tested here and app.py only lays them out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from page.situation import WinnerTiles
from rules import tiles as T
from rules.errors import HandError
from rules.hand import SEATS
from rules.names import SUIT_ZH, seat_name, tile_name
from rules.result import ScoreResult

_FIELD_WORDS = [
    (r"^win\.kong_replacement", "杠上开"),
    (r"^win\.after_kong", "流泪"),
    (r"^win\.first_draw", "地胡"),
    (r"^win\.from", "who discarded"),
    (r"^win\.tile", "the winning tile"),
    (r"^indicator", "the 混 indicator"),
    (r"^bao_tile", "the 宝 tile"),
    (r"^gun_tile", "the 枪 tile"),
    (r"^players\.(\w)\.melds", "the melds of {seat}"),
    (r"^players\.(\w)\.concealed", "the hand of {seat}"),
    (r"^options", "the rule options"),
]


def explain_error(err: HandError) -> str:
    """An engine HandError in player words: which part of the page, then the engine's reason."""
    where = err.field or ""
    for pattern, words in _FIELD_WORDS:
        m = re.match(pattern, where)
        if m:
            seat = seat_name(m.group(1)) if m.groups() else ""
            return f"{words.format(seat=seat)}: {_tile_words(err.message)}"
    return _tile_words(err.message)


def _tile_words(text: str) -> str:
    """Replace tile codes in an engine message by their names (7p → 七饼)."""
    return re.sub(r"\b([1-9][mps]|[ESWNCFP])\b(?=[\s:,.)]|$)", lambda m: tile_name(m.group(1)), text)


@dataclass(frozen=True)
class Invalid:
    """Why a hand cannot win and what is missing, for a player."""

    title: str
    missing: str


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
        what = "、".join(lacking) if lacking else "one suit"
        return Invalid(
            "缺门 — a suit is missing",
            f"the hand needs at least one real {what} tile (a 混 never fills a suit)",
        )
    texts = {
        "NO_YAOJIU": (
            "没有幺九 — no 1, 9 or honour",
            "the hand needs a real 1 or 9 (or 中/发/白, or a wind where winds are played); a 混 does not count",
        ),
        "NO_KE": (
            "没有横 — no triplet",
            "the hand needs a 横: three of a kind (concealed or 碰/杠), or a pair of 中/发/白",
        ),
        "NO_SHUN": (
            "没有顺子 — no run",
            "鞍山 needs at least one run (顺子, e.g. 345万); an all-triplet hand cannot win",
        ),
        "NOT_A_WINNING_SHAPE": (
            "不成胡牌 — the tiles do not form a winning hand",
            "they do not split into 4 sets + 1 pair (or 七对), even using the 混: check the tiles read from the photo",
        ),
        "CLOSED_DISCARD_WIN": (
            "闭门不能点炮胡 — a closed hand cannot win on a discard",
            "with no 吃/碰/明杠 the winner may only win by 自摸 (or with 七对): was it 自摸, or did you forget a meld?",
        ),
        "DISCARDED_HUN": (
            "打过混 — the winner discarded a 混",
            "a player who discarded a 混 cannot win this hand",
        ),
        "SHOUBAYI_WITH_CHI": (
            "手把一只能飘胡 — four melds with a 吃",
            "with four melds down, all of them must be 碰/杠: check the meld kinds",
        ),
        "SHOUBAYI_NOT_ALLOWED": (
            "鞍山不许手把一 — four melds down",
            "in 鞍山 a hand with four melds and one tile left cannot win",
        ),
    }
    title, missing = texts.get(reason, ("cannot win", result.message or reason))
    return Invalid(title, missing)


@dataclass(frozen=True)
class FanRow:
    side: str  # "winner" or a loser seat
    name: str
    fan: int


def fan_rows(result: ScoreResult) -> list[FanRow]:
    """Every 番 item with its side: the winner's first (they count for every loser), then each loser's."""
    rows = [FanRow("winner", f.name, f.fan) for f in result.winner_fan]
    for seat, lr in result.losers.items():
        rows += [FanRow(seat, f.name, f.fan) for f in lr.fan]
    return rows


@dataclass(frozen=True)
class PaymentRow:
    seat: str
    role: str  # 赢家 / 输家
    fan: str  # "F + L = k"
    share: str  # the share in words: 2^k = raw, 掉底 → 底, 摇 …
    bao: int
    paid_by: str
    payment: int


def payment_rows(result: ScoreResult) -> list[PaymentRow]:
    """Each seat's line of the settlement, with 底 / 掉底 / 摇 / 宝 / 包三家 spelled out."""
    rows: list[PaymentRow] = []
    for seat in SEATS:
        if seat == result.winner:
            rows.append(
                PaymentRow(
                    seat, "赢家", f"{result.winner_fan_total}", "", 0, "", result.payments.get(seat, 0)
                )
            )
            continue
        lr = result.losers.get(seat)
        if lr is None:
            continue
        share = f"2^{lr.exponent} = {lr.raw}"
        if lr.yao:
            share += f" → 摇 {lr.capped}"
        elif lr.diaodi:
            share += f" → 掉底 {lr.capped}"
        paid_by = ""
        if lr.paid_by != seat:
            paid_by = f"包三家: share paid by {seat_name(lr.paid_by)}"
        if lr.bao and lr.bao_paid_by != seat:
            paid_by += ("; " if paid_by else "") + f"宝 paid by {seat_name(lr.bao_paid_by)}"
        rows.append(
            PaymentRow(
                seat,
                "输家",
                f"{result.winner_fan_total} + {lr.fan_total}",
                share,
                lr.bao,
                paid_by,
                result.payments.get(seat, 0),
            )
        )
    return rows


def hun_lines(result: ScoreResult) -> list[str]:
    """What each 混 stood for, e.g. "三万 (混) → 六万 in 4m5m6m"."""
    hun = tile_name(T.code(result.hun))
    out = []
    for label, stand_in in result.hun_stand_ins:
        group = "".join(
            tile_name(label[i : i + 2]) if label[i].isdigit() else tile_name(label[i])
            for i in _code_starts(label)
        )
        out.append(f"{hun} (混) → {tile_name(stand_in)} in {group}")
    return out


def _code_starts(label: str) -> list[int]:
    """Start offsets of the tile codes in a concatenated label like `4m5m6m` or `CCC`."""
    idx, i = [], 0
    while i < len(label):
        idx.append(i)
        i += 2 if label[i].isdigit() else 1
    return idx
