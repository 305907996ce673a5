"""page.explain: engine errors, hands that cannot win, and the result's rows, in player words."""

from __future__ import annotations

import json

import rules
from page.explain import explain_error, explain_invalid, fan_rows, hun_lines, payment_rows
from page.situation import Situation, WinnerTiles, build_hand
from tests.test_situation import EXAMPLES, _ly1


def test_explain_invalid_names_what_is_missing():
    tiles = WinnerTiles(
        ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "1p", "1p", "9m", "9m"], [], "9m"
    )
    sit = Situation(indicator="5s", winner="E", win_by="self_draw")
    result = rules.score(build_hand(tiles, sit))
    assert not result.valid and result.reason == "MISSING_SUIT"
    inv = explain_invalid(result, tiles)
    assert "条" in inv.missing and "万" not in inv.missing
    closed = Situation(indicator="5s", winner="E", win_by="discard", discarder="S")
    tiles2 = WinnerTiles(
        ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1p", "1p", "1p", "9m", "9m"], [], "9m"
    )
    r2 = rules.score(build_hand(tiles2, closed))
    assert r2.reason == "CLOSED_DISCARD_WIN"
    assert "自摸" in explain_invalid(r2, tiles2).missing


def test_explain_error_uses_tile_names():
    err = rules.HandError("players.W.melds[0].tiles", "a pong is 3 identical tiles, 7p")
    assert explain_error(err).startswith("the melds of 西家")
    assert "七饼" in explain_error(err)


def test_result_rows_show_sides_bao_and_baosanjia():
    case = json.loads((EXAMPLES / "LO-1.json").read_text(encoding="utf-8"))
    result = rules.score(case["hand"])
    rows = payment_rows(result)
    assert sum(r.payment for r in rows) == 0
    assert {r.seat for r in rows} == {"E", "S", "W", "N"}
    sides = {r.side for r in fan_rows(result)}
    assert "winner" in sides
    if case["hand"]["win"]["by"] == "discard":
        assert any("包三家" in r.paid_by for r in rows)
    tiles, sit = _ly1()
    r = rules.score(build_hand(tiles, sit))
    assert hun_lines(r) == ["三万 (混) → 三万 in 三万四万五万"]
