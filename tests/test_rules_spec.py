"""SPEC 7 checklist: 混/鸡枪 mapping, validity matrix, cap boundary, loser side, Anshan specifics."""

from __future__ import annotations

import pytest

from rules import score
from rules import tiles as T


def hand(preset="liaoyang", winner="S", concealed=(), melds=(), tile="1m", by="self_draw", source=None, **kw):
    h = {
        "version": 1,
        "preset": preset,
        "dealer": kw.pop("dealer", "E"),
        "indicator": kw.pop("indicator", "5m"),
        "winner": winner,
        "win": {"tile": tile, "by": by, **kw.pop("win", {})},
        "players": {
            winner: {"concealed": list(concealed), "melds": [{"kind": k, "tiles": t} for k, t in melds]}
        },
    }
    if source:
        h["win"]["from"] = source
    for seat, ms in kw.pop("losers", {}).items():
        h["players"][seat] = {"melds": [{"kind": k, "tiles": t} for k, t in ms]}
    h.update(kw)
    return h


def fan(result, key):
    return sum(x.fan for x in result.winner_fan if x.key == key)


# ---- 7.1 混 and 鸡枪 -----------------------------------------------------------------------------


@pytest.mark.parametrize("suit", "mps")
@pytest.mark.parametrize("r", range(1, 10))
def test_suited_hun_and_jiqiang(suit, r):
    i = T.INDEX[f"{r}{suit}"]
    assert T.code(T.hun_of(i)) == f"{r % 9 + 1}{suit}"
    assert sorted(T.code(j) for j in T.jiqiang_of(i)) == sorted(f"{r}{s}" for s in "mps" if s != suit)


@pytest.mark.parametrize(
    "ind,hun,jq",
    [
        ("C", "F", {"P", "C"}),
        ("F", "P", {"C", "F"}),
        ("P", "C", {"F", "P"}),
        ("E", "S", {"W", "N"}),
        ("S", "W", {"N", "E"}),
        ("W", "N", {"E", "S"}),
        ("N", "E", {"S", "W"}),
    ],
)
def test_honour_hun_and_jiqiang(ind, hun, jq):
    i = T.INDEX[ind]
    assert T.code(T.hun_of(i)) == hun
    assert {T.code(j) for j in T.jiqiang_of(i)} == jq


def test_anshan_wind_cycle_option():
    assert T.code(T.hun_of(T.INDEX["E"], ("E", "W", "S", "N"))) == "W"


# ---- 7.2 validity matrix --------------------------------------------------------------------------

CLOSED_STD = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5m", "5m", "5m", "8p"]
QIDUI = ["1m", "1m", "4m", "4m", "9p", "9p", "2s", "2s", "6s", "6s", "C", "C", "7s"]


def test_qidui_by_discard_valid_everywhere():
    for preset in ("liaoyang", "liaoyang-online", "anshan"):
        r = score(hand(preset, concealed=QIDUI, tile="7s", by="discard", source="W", indicator="3p"))
        assert r.valid and r.form == "qidui", preset


def test_closed_standard_by_discard():
    ly = score(hand("liaoyang", concealed=CLOSED_STD, tile="8p", by="discard", source="E", indicator="3s"))
    assert ly.reason == "CLOSED_DISCARD_WIN"
    an = score(hand("anshan", concealed=CLOSED_STD, tile="8p", by="discard", source="E", indicator="3s"))
    assert an.valid and fan(an, "zhanli") == 1


PIAO = dict(
    concealed=["1m", "1m", "1m", "5p", "5p", "5p", "9s", "9s", "9s", "2s"],
    melds=[("pong", ["C"] * 3)],
    tile="2s",
    by="discard",
    source="W",
    indicator="3s",
)


def test_piao_liaoyang_valid_anshan_invalid():
    ly = score(hand("liaoyang", **PIAO))
    assert ly.valid and fan(ly, "piao") == 2 and fan(ly, "sicha") == 1 and fan(ly, "sancha") == 1
    assert fan(ly, "danzhang") == 1 and fan(ly, "zhang") == 1
    assert score(hand("anshan", **PIAO)).reason == "NO_SHUN"


def test_shoubayi_only_with_piao():
    melds = [("pong", ["1m"] * 3), ("pong", ["9p"] * 3), ("pong", ["C"] * 3), ("pong", ["5s"] * 3)]
    ly = score(
        hand("liaoyang", concealed=["2s"], melds=melds, tile="2s", by="discard", source="W", indicator="4p")
    )
    assert ly.valid and fan(ly, "shoubayi") == 1 and fan(ly, "piao") == 2
    an = score(
        hand("anshan", concealed=["2s"], melds=melds, tile="2s", by="discard", source="W", indicator="4p")
    )
    assert an.reason == "SHOUBAYI_NOT_ALLOWED"


def test_yaojiu_borrowed_through_hun_in_a_chow():
    # LY-3: the 混 (8m) stands for 1m in 1-2-3m
    args = dict(
        concealed=["2m", "3m", "8m", "4s", "5s", "6s", "3p", "4p", "6p", "6p"],
        melds=[("pong", ["5p"] * 3)],
        tile="2p",
        by="discard",
        source="E",
        indicator="7m",
    )
    ly = score(hand("liaoyang", **args))
    assert ly.valid
    assert any(g.hun_as == (T.INDEX["1m"],) for g in ly.decomposition)
    assert score(hand("anshan", **args)).reason == "NO_YAOJIU"


def test_hun_never_fills_a_suit():
    r = score(
        hand(
            concealed=["1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "C", "C", "C", "6m"],
            tile="6m",
            indicator="5s",
        )
    )
    assert r.reason == "MISSING_SUIT"
    r = score(
        hand(
            concealed=["1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "C", "C", "C", "6s"],
            tile="6m",
            indicator="5s",
        )
    )
    assert r.reason == "MISSING_SUIT"  # 6s is the 混


# ---- 7.3 cap boundary -----------------------------------------------------------------------------


def _k_hand(extra_losers=None, **kw):
    """Closed dealer self-draw, F = 庄 1 + 闭门 1 + 自摸 1 + 素胡 1 = 4 (LY-2)."""
    return hand(
        "liaoyang",
        winner="E",
        concealed=["1m", "2m", "3m", "5p", "6p", "2s", "3s", "4s", "6m", "6m", "6m", "7p", "7p"],
        tile="4p",
        indicator="8s",
        losers=extra_losers or {"S": [("pong", ["2p"] * 3)], "W": [("chi", ["3s", "4s", "5s"])], "N": []},
        **kw,
    )


def test_cap_boundary_k6_and_k7():
    r = score(
        _k_hand(
            {"S": [("pong", ["2p"] * 3)], "W": [("chi", ["3s", "4s", "5s"]), ("kong", ["9m"] * 4)], "N": []}
        )
    )
    # W: 明杠 1 → k = 5; N closed → k = 5 (no 三家闭: E and N only)
    assert r.losers["W"].raw == 32
    r = score(
        _k_hand(
            {
                "S": [("pong", ["2p"] * 3)],
                "W": [("concealed_kong", ["9m"] * 4), ("pong", ["C"] * 3)],
                "N": [("chi", ["1s", "2s", "3s"])],
            }
        )
    )
    w = r.losers["W"]  # 暗杠 2 + 大哥大 1 → k = 7 → 掉底
    assert w.exponent == 7 and w.raw == 128 and w.capped == 100 and w.diaodi and not w.yao
    assert r.losers["S"].capped == 16
    r = score(
        _k_hand(
            {
                "S": [("chi", ["1p", "2p", "3p"])],
                "W": [("concealed_kong", ["9m"] * 4), ("chi", ["4m", "5m", "6m"])],
                "N": [],
            }
        )
    )
    assert r.losers["W"].exponent == 6 and r.losers["W"].capped == 64


def test_yao_needs_all_three():
    r = score(hand(**PIAO))  # LY-5-like F is large: everyone 掉底 → 摇 200 each
    assert all(lr.yao and lr.capped == 200 for lr in r.losers.values())
    assert r.payments["S"] == 600


def test_online_room_multiplier_three():
    h = hand("liaoyang-online", **PIAO, room_multiplier=3, bao_tile="1m")
    r = score(h)
    assert all(lr.capped == 600 for lr in r.losers.values())  # 摇 = 2 × 底 300
    assert all(lr.bao == 90 for lr in r.losers.values())  # 3 宝 × 10m
    assert r.payments["W"] == -(3 * 600 + 90)  # 包三家 + own 宝


# ---- 7.4 loser side -------------------------------------------------------------------------------


def test_loser_side_items():
    losers = {
        "S": [("concealed_kong", ["8p"] * 4)],
        "W": [("pong", ["C"] * 3), ("pong", ["3m"] * 3), ("pong", ["4m"] * 3), ("pong", ["7s"] * 3)],
        "N": [],
    }
    r = score(_k_hand(losers, bao_tile="9p"))
    s_items = {x.key: x.fan for x in r.losers["S"].fan}
    assert s_items == {"angang": 2, "jiqiang": 4, "bimen": 1}  # 暗杠 keeps him closed; J = {8m, 8p}
    w_items = {x.key: x.fan for x in r.losers["W"].fan}
    assert (
        w_items["dageda"] == 1
        and w_items["sancha"] == 1
        and w_items["sicha"] == 1
        and w_items["shoubayi"] == 1
    )
    online = _k_hand(losers)
    online["preset"] = "liaoyang-online"
    assert {x.key: x.fan for x in score(online).losers["S"].fan}["angang"] == 1
