"""SPEC 7 checklist: 混/鸡枪 mapping, validity matrix, cap boundary, loser side, Anshan specifics."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules import score
from rules import tiles as T

EXAMPLE_DIR = Path(__file__).resolve().parents[1] / "examples"


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


# ---- 7.5 包三家, 7.6 Anshan, robbed kong, 七对 fours, 十三幺 ------------------------------------------

AS1 = dict(
    concealed=["7m", "8m", "9m", "4s", "4s", "4s", "2p", "3p", "5s", "5s"],
    melds=[("chi", ["1p", "2p", "3p"])],
    tile="4p",
    indicator="5m",
    gun_tile="2s",
)


@pytest.mark.parametrize(
    "dealer,by,source,expect",
    [
        ("E", "discard", "W", {"E": -2, "S": 8, "W": -4, "N": -2}),  # dealer bystander pays no dealer 番
        ("W", "discard", "W", {"E": -2, "S": 12, "W": -8, "N": -2}),  # dealer deals in: +1 +1
        ("E", "self_draw", None, {"E": -8, "S": 16, "W": -4, "N": -4}),  # 自摸为三家点炮, dealer +1
        ("S", "discard", "W", {"E": -4, "S": 16, "W": -8, "N": -4}),  # dealer wins: 坐庄 on F
    ],
)
def test_anshan_dealer_matrix(dealer, by, source, expect):
    r = score(hand("anshan", dealer=dealer, by=by, source=source, **AS1))
    assert r.payments == expect


def test_anshan_no_cap_and_fan_cap_option():
    melds = [("concealed_kong", ["9m"] * 4), ("concealed_kong", ["1s"] * 4), ("kong", ["C"] * 4)]
    args = dict(concealed=["2p", "3p", "4p", "5s"], melds=melds, tile="5s", indicator="7p", by="self_draw")
    r = score(hand("anshan", **args))
    # 暗杠 2 + 明杠 1 + 四归一 3 + 大哥大 1 + 三叉 1 + 穷胡 1 = 9 (open: the 中 kong is a 明杠)
    assert r.winner_fan_total == 9
    assert r.payments["E"] == -(2**11)
    capped = hand("anshan", options={"fan_cap": 8}, **args)
    assert score(capped).payments["E"] == -(2**8)


def test_anshan_hun_never_counts_for_qiang():
    # indicator 1m → H = 2m; gun tile 1m counts 1m and 2m, but 2m is the 混
    r = score(
        hand(
            "anshan",
            concealed=["1m", "1m", "2m", "3p", "4p", "5p", "6s", "7s", "8s", "9p", "9p", "9p", "C"],
            tile="C",
            indicator="1m",
            gun_tile="1m",
        )
    )
    assert r.valid
    assert fan(r, "anqiang") == 2 and fan(r, "mingqiang") == 2


def test_online_baosanjia_and_self_draw():
    base = json_example("LO-1")
    r = score(base)
    assert r.losers["E"].paid_by == "N" and r.losers["W"].paid_by == "N"
    assert r.losers["E"].bao_paid_by == "E"
    base["options"] = {"bao_paid_by_discarder": True}
    assert score(base).payments == {"E": 0, "S": 156, "W": 0, "N": -156}


def json_example(name: str) -> dict:
    import json

    return json.loads((EXAMPLE_DIR / f"{name}.json").read_text(encoding="utf-8"))["hand"]


ROBBED = dict(
    concealed=["4m", "5m", "6m", "1s", "2s", "3s", "5s", "5s", "5p", "6p"],
    melds=[("pong", ["7p"] * 3)],
    tile="4p",
    by="robbed_kong",
    source="W",
    indicator="2m",
    losers={"W": [("pong", ["4p"] * 3)], "E": [], "N": []},
)


def test_robbed_kong_liaoyang():
    r = score(hand("liaoyang", **ROBBED))
    assert r.winner_fan_total == 2  # 鸡枪 2s + 素胡
    w = {x.key: x.fan for x in r.losers["W"].fan}
    assert w == {"dianpao": 1, "qianggang": 1, "minggang": 1}
    assert r.payments == {"E": -16, "S": 56, "W": -32, "N": -8}
    r = score(hand("liaoyang", options={"qianggang_side": "winner"}, **ROBBED))
    assert fan(r, "qianggang") == 1 and r.payments == {"E": -32, "S": 80, "W": -32, "N": -16}


def test_robbed_kong_online_is_a_discard():
    r = score(hand("liaoyang-online", **ROBBED))
    assert r.payments == {"E": 0, "S": 40, "W": -40, "N": 0}


FOURS_QIDUI = dict(
    concealed=["1m", "1m", "1m", "1m", "4m", "4m", "9p", "9p", "2s", "2s", "6s", "6s", "C"],
    tile="C",
    indicator="5p",
    losers={
        "W": [("pong", ["9s"] * 3)],
        "E": [("pong", ["3p"] * 3)],
        "N": [("pong", ["7m"] * 3)],
    },  # no 三家闭
)


def test_qidui_with_a_natural_four():
    ly = score(hand("liaoyang", **FOURS_QIDUI))
    assert ly.form == "qidui" and fan(ly, "siguiyi") == 0
    assert ly.winner_fan_total == 2 + 1 + 1 + 1  # 七小对, 闭门, 自摸, 素胡
    an = score(hand("anshan", **FOURS_QIDUI))
    assert fan(an, "siguiyi") == 1 and fan(an, "erbajiang") == 1 and fan(an, "qidui") == 1


def test_anshan_classic_thirteen():
    r = score(
        hand(
            "anshan",
            concealed=["1m", "9m", "1p", "9p", "1s", "9s", "E", "S", "W", "N", "C", "F", "P"],
            tile="1m",
            indicator="5m",
        )
    )
    assert r.valid and r.form == "thirteen"
    assert {x.key for x in r.winner_fan} == {"shisanyao", "zhanli", "qionghu"}
    assert r.payments == {"E": -32, "S": 64, "W": -16, "N": -16}
    assert score(hand("liaoyang-online", concealed=r_codes(r), tile="1m", indicator="5m")).reason == (
        "NOT_A_WINNING_SHAPE"
    )


def r_codes(_r) -> list[str]:
    return ["1m", "9m", "1p", "9p", "1s", "9s", "E", "S", "W", "N", "C", "F", "P"]


def test_sanjiabi_modes():
    args = dict(
        winner="E",
        concealed=["1m", "2m", "3m", "5p", "6p", "2s", "3s", "4s", "6m", "6m", "6m", "7p", "7p"],
        tile="4p",
        indicator="8s",
        losers={"S": [("pong", ["2p"] * 3)], "W": [], "N": []},
    )
    r = score(hand("liaoyang", **args))
    assert fan(r, "sanjiabi") == 1 and fan(r, "sijiabi") == 0
    r = score(hand("liaoyang", options={"sanjiabi_mode": "losers"}, **args))
    assert fan(r, "sanjiabi") == 0
    args["losers"] = {"S": [], "W": [], "N": []}
    r = score(hand("liaoyang", **args))
    assert fan(r, "sanjiabi") == 0 and fan(r, "sijiabi") == 1
    r = score(hand("liaoyang", options={"sanjiabi_mode": "losers"}, **args))
    assert fan(r, "sanjiabi") == 1 and fan(r, "sijiabi") == 1


def test_bao_mode_fan_and_bao_on_top_of_cap():
    lo2 = json_example("LY-2")
    flat = score(lo2)
    assert all(lr.bao == 25 for lr in flat.losers.values())
    lo2["options"] = {"bao_mode": "fan"}
    r = score(lo2)
    assert fan(r, "bao") == 1 and all(lr.bao == 0 for lr in r.losers.values())
    assert r.payments == {"E": 32 + 32 + 64, "S": -32, "W": -32, "N": -64}  # F 4 → 5, no flat 宝
    ly6 = score(json_example("LY-6"))
    assert ly6.losers["S"].capped == 100 and ly6.losers["S"].owes == 125


def test_decomposition_maximises_the_winner_fan():
    # 混 (H = 8m) can make 1-2-3m (幺九 via 借混) or a 2m/3m triplet; only the 顺子 reading is valid
    r = score(json_example("LY-3"))
    assert r.valid
    assert any(g.kind == "chow" and g.hun_as == (0,) for g in r.decomposition)
    # 中中 pair with the winning tile: 胡单张 (单吊) only in the pair reading
    r = score(json_example("LY-X3-valid"))
    assert fan(r, "danzhang") == 1
