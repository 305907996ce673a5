"""page.explain: engine errors, hands that cannot win, and the result's rows, in player words."""

from __future__ import annotations

import json

import rules
from page.explain import explain_error, explain_invalid, fan_rows, hun_lines, payments
from page.situation import Situation, WinnerTiles, build_hand
from tests.page.test_situation import EXAMPLES, _ly1


def test_explain_invalid_names_what_is_missing():
    tiles = WinnerTiles(
        ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "1p", "1p", "9m", "9m"], [], "9m"
    )
    sit = Situation(indicator="5s", winner="E", win_by="self_draw")
    result = rules.score(build_hand(tiles, sit))
    assert not result.valid and result.reason == "MISSING_SUIT"
    inv = explain_invalid(result, tiles)
    assert "条" in inv.missing.zh and "万" not in inv.missing.zh and inv.title.zh == "缺门"
    assert "条" in inv.missing.en
    closed = Situation(indicator="5s", winner="E", win_by="discard", discarder="S")
    tiles2 = WinnerTiles(
        ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1p", "1p", "1p", "9m", "9m"], [], "9m"
    )
    r2 = rules.score(build_hand(tiles2, closed))
    assert r2.reason == "CLOSED_DISCARD_WIN"
    assert "自摸" in explain_invalid(r2, tiles2).missing.zh


def test_explain_error_uses_tile_names():
    err = rules.HandError("players.W.melds[0].tiles", "a pong is 3 identical tiles, 7p")
    words = explain_error(err)
    assert words.en.startswith("the melds of West") and "7 dots" in words.en  # English names in English
    assert words.zh.startswith("西家的副露：")


def test_payments_in_words_once_per_seat_with_bao_and_baosanjia():
    case = json.loads((EXAMPLES / "LO-1.json").read_text(encoding="utf-8"))
    result = rules.score(case["hand"])
    rows = payments(result, dealer=case["hand"].get("dealer", "E"), names={"E": "老王"})
    assert sum(r.amount for r in rows) == 0
    assert sorted(r.seat for r in rows) == ["E", "N", "S", "W"]  # every seat once, the winner first
    assert rows[0].seat == result.winner and rows[0].words.zh.endswith(f"收 {result.payments[result.winner]}")
    for r in rows[1:]:
        assert r.words.zh.endswith(f"付 {-r.amount}") or r.amount >= 0
        assert "番" in r.how.zh and "2 的" in r.how.zh
    assert any("老王" in r.words.zh for r in rows)
    sides = {r.side for r in fan_rows(result)}
    assert "winner" in sides
    if case["hand"]["win"]["by"] == "discard":
        assert any("包三家" in r.how.zh for r in rows)
    tiles, sit = _ly1()
    r = rules.score(build_hand(tiles, sit))
    assert [w.en for w in hun_lines(r)] == ["3 wan (混) → 3 wan in 3 wan, 4 wan, 5 wan"]
    assert hun_lines(r)[0].zh == "三万（混）当 三万 用，在 三万四万五万 里"
