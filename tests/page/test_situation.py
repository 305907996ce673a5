"""page.situation: page inputs → hand JSON and count hints; every other problem is the engine's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rules
from page.explain import explain_error
from page.situation import Situation, WinnerTiles, build_hand, count_check, meld_kind_for
from rules.names import tile_name

EXAMPLES = Path(__file__).parents[1] / "examples"


def _ly1() -> tuple[WinnerTiles, Situation]:
    """SPEC example LY-1 as the page would hold it: the winning 4p stands in the row."""
    tiles = WinnerTiles(
        concealed=["4m", "5m", "3m", "1s", "2s", "3s", "5s", "5s", "5p", "6p", "4p"],
        melds=[("pong", ["7p", "7p", "7p"])],
        winning="4p",
    )
    sit = Situation(
        indicator="2m",
        winner="S",
        win_by="discard",
        discarder="W",
        bao_tile="9p",
        loser_melds={
            "E": [("chi", ["6m", "7m", "8m"])],
            "W": [("pong", ["9m", "9m", "9m"])],
            "N": [("chi", ["7s", "8s", "9s"])],
        },
    )
    return tiles, sit


def test_build_hand_reproduces_the_spec_example():
    tiles, sit = _ly1()
    hand = build_hand(tiles, sit)
    expected = json.loads((EXAMPLES / "LY-1.json").read_text(encoding="utf-8"))
    assert hand["players"]["S"]["concealed"] == expected["hand"]["players"]["S"]["concealed"]
    result = rules.score(hand)
    assert result.valid
    assert result.payments == expected["expect"]["payments"]


def test_winning_tile_set_apart_is_not_removed_from_concealed():
    tiles, sit = _ly1()
    apart = WinnerTiles(tiles.concealed[:-1], tiles.melds, "4p", winning_in_concealed=False)
    assert build_hand(apart, sit) == build_hand(tiles, sit)


def test_build_hand_writes_only_keys_of_the_preset():
    tiles, sit = _ly1()
    sit.gun_tile, sit.room_multiplier = "1m", 3
    hand = build_hand(tiles, sit)
    assert "gun_tile" not in hand and "room_multiplier" not in hand and hand["bao_tile"] == "9p"
    sit.preset = "liaoyang-online"
    sit.changmao = 2
    hand = build_hand(tiles, sit)
    assert hand["room_multiplier"] == 3 and hand["changmao"] == 2
    sit.preset = "anshan"
    hand = build_hand(tiles, sit)
    assert hand["gun_tile"] == "1m" and "bao_tile" not in hand and "changmao" not in hand


def test_default_options_are_left_out_and_others_kept():
    tiles, sit = _ly1()
    sit.options = {"fan_values": "table", "bao_mode": "fan", "not_an_option": 1}
    assert build_hand(tiles, sit)["options"] == {"bao_mode": "fan"}


def test_flags_that_do_not_apply_to_the_preset_are_dropped():
    tiles, sit = _ly1()
    sit.preset = "anshan"
    sit.after_kong = True  # 流泪 is not an anshan item
    assert "after_kong" not in build_hand(tiles, sit)["win"]


def test_closed_losers_are_listed_without_melds():
    tiles, sit = _ly1()
    sit.loser_melds = {}
    hand = build_hand(tiles, sit)
    assert hand["players"]["E"] == {} and hand["players"]["N"] == {}


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.stem)
def test_every_example_round_trips_through_the_page_model(path: Path):
    """Re-enter each worked hand as page inputs: same payments (or the same reason)."""
    case = json.loads(path.read_text(encoding="utf-8"))
    if case["expect"].get("error"):
        return
    h = case["hand"]
    w = h["win"]
    seat = h["winner"]
    tiles = WinnerTiles(
        concealed=list(h["players"][seat]["concealed"]),
        melds=[(m["kind"], m["tiles"]) for m in h["players"][seat].get("melds", [])],
        winning=w["tile"],
        winning_in_concealed=False,
    )
    sit = Situation(
        preset=h["preset"],
        options=h.get("options", {}),
        indicator=h["indicator"],
        dealer=h.get("dealer", "E"),
        winner=seat,
        win_by=w["by"],
        discarder=w.get("from"),
        kong_replacement=w.get("kong_replacement", False),
        last_tiles=w.get("last_tiles", False),
        after_kong=w.get("after_kong", False),
        first_draw=w.get("first_draw", False),
        loser_melds={
            s: [(m["kind"], m["tiles"]) for m in p.get("melds", [])]
            for s, p in h["players"].items()
            if s != seat
        },
        bao_tile=h.get("bao_tile"),
        gun_tile=h.get("gun_tile"),
        room_multiplier=h.get("room_multiplier", 1),
        changmao=h.get("changmao", 0),
        discarded_hun=h["players"][seat].get("discarded_hun", False),
    )
    assert count_check(tiles).ok
    assert _problems(tiles, sit) == []
    result = rules.score(build_hand(tiles, sit)).to_dict()
    if case["expect"]["valid"]:
        assert result["payments"] == case["expect"]["payments"]
    else:
        assert result["reason"] == case["expect"]["reason"]


@pytest.mark.parametrize(
    ("drop", "hint"),
    [
        (1, "13 tiles read: one missing — add the tile you won on?"),
        (0, "14 tiles: the count is right"),
    ],
)
def test_count_check_hint(drop: int, hint: str):
    tiles, _ = _ly1()
    winning = None if drop else "4p"
    t = WinnerTiles(tiles.concealed[: len(tiles.concealed) - drop], tiles.melds, winning)
    check = count_check(t)
    assert check.hint.en == hint
    assert check.ok is (drop == 0)


def test_count_check_counts_kongs_and_extra_tiles():
    tiles = WinnerTiles(["1m"] * 2 + ["2p"] * 9, [("concealed_kong", ["C"] * 4)], "1m")
    assert count_check(tiles).expected == 15 and count_check(tiles).ok
    extra = WinnerTiles(tiles.concealed + ["5s"], tiles.melds, "1m")
    assert not count_check(extra).ok and "one too many" in count_check(extra).hint.en
    many = WinnerTiles(["1m"] * 30, [], "1m")
    assert "16 too many" in count_check(many).hint.en
    bad = WinnerTiles(["1m"] * 11, [("kong", ["C"] * 3)], "1m")
    assert "has 4 tiles" in count_check(bad).hint.en


def _problems(tiles: WinnerTiles, sit: Situation) -> list:
    """What the page shows now that it keeps no checks of its own: the engine's `rules.check`."""
    return rules.check(build_hand(tiles, sit))


def _fields(tiles: WinnerTiles, sit: Situation) -> set[str]:
    return {
        p.field.split(".")[0] if not p.field.startswith("win.") else p.field for p in _problems(tiles, sit)
    }


def test_kong_replacement_on_a_discard_is_the_engines_problem():
    tiles, sit = _ly1()
    sit.kong_replacement = True
    problems = _problems(tiles, sit)
    assert {p.field for p in problems} == {"win.kong_replacement"}  # on a discard, and with no kong
    assert "杠上开" in explain_error(problems[0].error()).en
    with pytest.raises(rules.HandError):  # score raises the first of the same problems
        rules.score(build_hand(tiles, sit))


def test_kong_replacement_needs_a_kong():
    tiles, sit = _ly1()
    sit.win_by, sit.discarder, sit.kong_replacement = "self_draw", None, True
    assert "win.kong_replacement" in _fields(tiles, sit)


def test_seat_and_flag_problems():
    tiles, sit = _ly1()
    sit.after_kong = True
    assert "win.after_kong" in _fields(tiles, sit)
    sit.loser_melds["W"] = [("kong", ["9m"] * 4)]
    assert _problems(tiles, sit) == []
    tiles, sit = _ly1()
    sit.first_draw = True
    assert "win.first_draw" in _fields(tiles, sit)


def test_robbed_kong_needs_the_robbed_pong():
    tiles, sit = _ly1()
    sit.win_by, sit.discarder = "robbed_kong", "N"
    assert _problems(tiles, sit)
    sit.loser_melds["N"] = [("pong", ["4p"] * 3)]
    assert _problems(tiles, sit) == []


def test_tile_problems_are_found_all_at_once():
    tiles, sit = _ly1()
    tiles.concealed[0] = "E"
    assert _problems(tiles, sit)  # 辽阳 is played without winds
    sit.preset = "liaoyang-online"
    assert _problems(tiles, sit) == []
    tiles, sit = _ly1()
    tiles.concealed[:5] = ["5s"] * 5
    assert _problems(tiles, sit)  # five of one tile
    tiles, sit = _ly1()
    sit.indicator = "6p"  # 混 = 7p, which is inside the winner's 碰
    assert _problems(tiles, sit)
    tiles, sit = _ly1()
    sit.indicator, sit.after_kong, sit.first_draw = None, True, True
    found = _problems(tiles, sit)
    assert len(found) >= 3 and any(p.missing for p in found)  # every problem, not only the first


def test_small_helpers():
    assert tile_name("5m") == "五万" and tile_name("P") == "白" and tile_name("back") == "背面"
    assert meld_kind_for(["3m", "5m", "4m"]) == "chi"
    assert meld_kind_for(["C", "C", "C"]) == "pong"
    assert meld_kind_for(["back", "C", "C", "back"]) == "concealed_kong"
    assert meld_kind_for(["1m", "5m", "4m"]) is None


def test_the_hun_in_the_checks_follows_the_presets_wind_cycle():
    """The 混 the engine checks is the preset's: 鞍山 may cycle the winds 东西南北; other presets never do."""
    tiles = WinnerTiles(
        ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "1p", "1p", "2p"], [], "2p"
    )
    pong_w = [("pong", ["W", "W", "W"])]
    for preset, cycle, hun_is_w in [
        ("anshan", "东西南北", True),
        ("anshan", "东南西北", False),
        ("liaoyang-online", "东西南北", False),
    ]:
        sit = Situation(
            preset=preset, options={"wind_cycle": cycle}, indicator="E", winner="S", loser_melds={"W": pong_w}
        )
        found = any("melds" in p.field for p in _problems(tiles, sit))
        assert found == hun_is_w, (preset, cycle, _problems(tiles, sit))


def test_discarded_hun_is_written_for_liaoyang_only():
    tiles, sit = _ly1()
    sit.discarded_hun = True
    hand = build_hand(tiles, sit)
    assert hand["players"]["S"]["discarded_hun"] is True
    result = rules.score(hand)
    assert not result.valid and result.reason == "DISCARDED_HUN"
    sit.preset = "anshan"
    assert "discarded_hun" not in build_hand(tiles, sit)["players"]["S"]
