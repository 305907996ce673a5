"""The evening at a glance: running totals per seat, 黄庄 and 连庄 marked, drawn and shared."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFont

import rules
from page import evening_chart as ec
from page.scorebook import Evening, HandRecord, Scorebook, next_dealer, standing_of
from rules.hand import SEATS
from vision.fonts import SHIPPED_CJK_FONT, missing_chars

EXAMPLES = Path(__file__).parents[1] / "examples"
EV = Evening(
    7, "2026-12-01T11:00:00+00:00", "liaoyang", "E", {"E": "老王", "S": "小李", "W": "西家", "N": "Anna"}
)


def _scored(**changes) -> tuple[dict, dict]:
    """LY-1 (南家 wins on 西家's discard, 东家 deals) with other seats, scored by the engine."""
    hand = json.loads((EXAMPLES / "LY-1.json").read_text(encoding="utf-8"))["hand"]
    h = copy.deepcopy(hand)
    h.update({k: v for k, v in changes.items() if k != "win_from"})
    if "win_from" in changes:
        h["win"]["from"] = changes["win_from"]
    return h, rules.score(rules.parse_hand(h)).to_dict()


def _rec(number: int, dealer: str, winner: str | None, pay: tuple[int, int, int, int]) -> HandRecord:
    """A recorded hand as the book gives it back, its next dealer by the 辽阳 rule."""
    return HandRecord(
        id=number,
        evening_id=EV.id,
        number=number,
        recorded_at="2026-12-01T12:00:00+00:00",
        preset="liaoyang",
        dealer=dealer,
        next_dealer=next_dealer("liaoyang", dealer, winner),
        winner=winner,
        win_by="self_draw" if winner else None,
        photo_hash=None,
        hand_json=None,
        result=None,
        payments=dict(zip(SEATS, pay, strict=True)),
    )


#: 南 wins, 黄庄, 南 wins again as dealer (连庄), 西 wins: the deal passes to 西.
FOUR = [
    _rec(1, "E", "S", (-200, 600, -200, -200)),
    _rec(2, "S", None, (0, 0, 0, 0)),
    _rec(3, "S", "S", (-300, 900, -300, -300)),
    _rec(4, "S", "W", (-100, -250, 450, -100)),
]


def _img(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _band_columns(png: bytes) -> np.ndarray:
    """The x of every column that is 黄庄-band grey over 100 rows (not a grey edge of some text)."""
    return np.nonzero((_img(png) == ec.BAND).all(axis=2).sum(axis=0) > 100)[0]


def test_the_series_is_the_books_total_after_every_hand(tmp_path):
    book = Scorebook(tmp_path / "book.sqlite")
    ev = book.start_evening({"E": "老王"}, "liaoyang", "E")
    book.record_hand(*_scored(), photo_hash="p1", evening_id=ev.id)  # 南 wins, the deal passes
    book.record_draw(ev.id)  # 黄庄: 南 keeps the deal
    book.record_hand(*_scored(dealer="S"), photo_hash="p3", evening_id=ev.id)  # 南 wins as dealer
    book.record_hand(*_scored(dealer="S", win_from="E"), photo_hash="p4", evening_id=ev.id)
    book.undo_last(ev.id)
    book.record_hand(*_scored(dealer="S", win_from="N"), photo_hash="p5", evening_id=ev.id)
    ev, hands = book._snapshot(ev.id)
    series = ec.series_of(hands)
    assert series.numbers == (1, 2, 3, 4)
    for i in range(len(hands)):
        book_totals = standing_of(ev, hands[: i + 1]).totals
        assert {s: series.totals[s][i] for s in SEATS} == book_totals
    assert series.draws == (2,)
    assert series.kept == (3, 4)  # 南 won as dealer twice: 连庄 both times (the draw is not counted)
    assert series.dealers == ("E", "S", "S", "S")


def test_draws_and_kept_deals_are_where_they_happened():
    series = ec.series_of(FOUR)
    assert series.draws == (2,) and series.kept == (3,)
    assert series.leaders(0) == ("S",) and series.leaders(3) == ("S",)
    assert ec.series_of(FOUR[1:2]).leaders(0) == ()  # every total 0: nobody leads


def test_the_draw_band_is_drawn_over_its_hand():
    at_2 = _band_columns(ec.chart_png(EV, FOUR))
    moved = [FOUR[0], _rec(2, "S", "S", (-100, 300, -100, -100)), _rec(3, "S", None, (0, 0, 0, 0)), FOUR[3]]
    at_3 = _band_columns(ec.chart_png(EV, moved))
    assert at_2.size and at_3.size
    width = at_2[-1] - at_2[0] + 1  # one hand wide ...
    assert abs((at_3[0] - at_2[0]) - width) <= 2  # ... and one hand further right when the draw is
    assert not _band_columns(ec.chart_png(EV, [FOUR[0], FOUR[2]])).size  # no draw, no band


def test_a_kept_deal_is_marked():
    """The same payments with the deal kept (南 deals hand 3) or passed (东 deals it): only the 连庄
    mark tells the two charts apart, so they must differ, in both languages."""
    passed = [FOUR[0], FOUR[1], _rec(3, "E", "S", (-300, 900, -300, -300))]
    assert ec.series_of(passed).kept == ()
    for lang in ("zh", "en"):
        a, b = _img(ec.chart_png(EV, FOUR[:3], lang)), _img(ec.chart_png(EV, passed, lang))
        assert (a != b).any(axis=2).sum() > 80  # more than an edge of antialiasing


def test_the_chart_is_a_780_px_png_drawn_from_the_evening():
    png = ec.chart_png(EV, FOUR)
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.size == (780, ec.CHART_H)
    other = ec.chart_png(EV, FOUR[:3])
    assert other != png and _img(other).shape == _img(png).shape and (_img(other) != _img(png)).any()
    assert (_img(png) != ec.BG).any(axis=2).mean() > 0.03  # not a blank picture
    assert ec.chart_png(EV, FOUR, "en") != png


def test_the_evening_picture_has_the_totals_above_the_chart():
    png = ec.evening_png(EV, FOUR)
    img = Image.open(io.BytesIO(png))
    assert img.size[0] == 780 and img.size[1] > ec.CHART_H + 200
    chart = _img(ec.chart_png(EV, FOUR))
    assert (_img(png)[-ec.CHART_H :] == chart).all()  # the chart at the bottom, as the book shows it
    assert ec.evening_png(EV, FOUR[:3]) != png


def test_the_evening_as_text():
    assert ec.evening_text(EV, FOUR).splitlines() == [
        "2026-12-01 · 辽阳麻将 · 4 局",
        "东家 老王 -600",
        "南家 小李 +1250（领先）",
        "西家 -50",
        "北家 Anna -600",
        "领先：第 1–4 局 南家",
        "黄庄 1 局 · 连庄 1 次",
    ]
    passing = [_rec(1, "E", "E", (300, -100, -100, -100)), _rec(2, "E", "S", (-400, 600, -100, -100))]
    en = ec.evening_text(EV, passing, "en").splitlines()
    assert en[0] == "2026-12-01 · Liaoyang · 2 hands"
    assert en[1:3] == ["East 老王 -100", "South 小李 +500 (leads)"]
    assert en[-2:] == ["Lead: hand 1 East, hand 2 South", "Draws: 0 · dealer kept the deal: 1"]


def test_an_even_total_is_zero_and_nobody_leads_an_evening_of_draws():
    text = ec.evening_text(EV, [FOUR[1]]).splitlines()
    assert text[1:5] == ["东家 老王 0", "南家 小李 0", "西家 0", "北家 Anna 0"]
    assert not any(line.startswith("领先") for line in text) and "（领先）" not in "".join(text)


def test_an_evening_without_hands_has_no_chart():
    assert ec.chart_png(EV, []) is None
    assert ec.evening_png(EV, []) is None
    assert ec.evening_text(EV, []) is None


def test_names_lose_their_bidi_controls():
    evil = Evening(
        EV.id, EV.started_at, EV.preset, "E", {"E": "\u202e王老", "S": "小李\u2066", "W": "西家", "N": "Anna"}
    )
    clean = Evening(
        EV.id, EV.started_at, EV.preset, "E", {"E": "王老", "S": "小李", "W": "西家", "N": "Anna"}
    )
    text = ec.evening_text(evil, FOUR)
    assert "\u202e" not in text and "\u2066" not in text and "东家 王老 -600" in text
    assert ec.seat_label(evil, "E", "en", short=True) == "E 王老"
    assert ec.chart_png(evil, FOUR) == ec.chart_png(clean, FOUR)
    assert ec.evening_png(evil, FOUR) == ec.evening_png(clean, FOUR)


def test_without_a_cjk_font_the_words_are_english(monkeypatch):
    monkeypatch.setattr(ec, "_font", lambda size: (ImageFont.load_default(size=size), False))
    ec._chart_cached.cache_clear()
    drawn, cjk, labels = ec._words(EV, "zh")
    assert (drawn, cjk) == ("en", False)
    assert labels == ("E", "S", "W", "N Anna")  # a Chinese name cannot be drawn: the seat alone
    assert Image.open(io.BytesIO(ec.chart_png(EV, FOUR))).size == (780, ec.CHART_H)
    ec._chart_cached.cache_clear()


@pytest.mark.parametrize("n", [1, 2, 7, 13, 40, 101])
def test_a_long_evening_keeps_its_hand_numbers_apart(n):
    every = 3
    shown = ec._ticks(n, every)
    assert shown[0] == 1 and shown[-1] == n
    assert n <= every or all(b - a >= every for a, b in zip(shown, shown[1:], strict=False))
    hands = [
        _rec(k, "E", "S" if k % 2 else "N", (-100, 300, -100, -100) if k % 2 else (-100, -100, -100, 300))
        for k in range(1, n + 1)
    ]
    img = Image.open(io.BytesIO(ec.chart_png(EV, hands)))
    assert img.size == (780, ec.CHART_H)


def test_end_labels_never_overlap():
    placed = ec._spread([100.0, 100.0, 101.0, 400.0], 32, 40, 420)
    assert all(b - a >= 32 for a, b in zip(placed, placed[1:], strict=False))
    low = ec._spread([410.0, 415.0, 420.0, 420.0], 32, 40, 420)
    assert low[-1] <= 420 and all(b - a >= 32 for a, b in zip(low, low[1:], strict=False))


def test_every_character_drawn_is_in_the_shipped_font():
    """The words the pictures draw beside the players' names: none may come out as a box."""
    words = [ec.evening_text(EV, FOUR, lang) for lang in ("zh", "en")]
    words += [*ec.DRAW_MARK.values(), ec.KEPT_MARK, *ec.AXIS.values(), *ec.LEGEND.values(), "领先 leads …"]
    assert SHIPPED_CJK_FONT.is_file()
    assert missing_chars(SHIPPED_CJK_FONT, "".join(words)) == []
