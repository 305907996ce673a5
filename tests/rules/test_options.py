"""The three options of the revised SPEC: requires_ke [Amb-36], wind_cycle [Amb-B1], danzhang_wait [Amb-24].

Their worked cases are files in tests/examples (LO-K1*, LY-DZ*, AS-W1*), checked with every other
example by test_rules_examples; these tests pin the mechanics behind them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from rules import HandError, parse_hand, score
from rules import tiles as T
from rules.context import HandFacts
from rules.presets import PRESETS, wind_order
from rules.waits import wait_types
from tests.rules.bruteforce import brute_wait_types
from tests.rules.strategies import hands

EXAMPLES = Path(__file__).parents[1] / "examples"


def _hand(name: str) -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))["hand"]


def _with(hand: dict, **options) -> dict:
    h = copy.deepcopy(hand)
    h["options"] = {**h.get("options", {}), **options}
    return h


# ---- [Amb-36] requires_ke -----------------------------------------------------------------------


def test_online_needs_no_ke_by_default_and_liaoyang_still_does():
    ly = _hand("LY-X3")
    assert score(ly).reason == "NO_KE"
    online = dict(copy.deepcopy(ly), preset="liaoyang-online")
    assert score(online).valid
    assert score(_with(online, requires_ke=True)).reason == "NO_KE"
    assert score(_with(online, requires_ke=False)).valid


def test_requires_ke_is_an_online_option_only():
    with pytest.raises(HandError) as e:
        score(_with(_hand("LY-1"), requires_ke=False))
    assert e.value.field == "options.requires_ke" and e.value.code == "OPTION"


def test_a_dragon_pair_satisfies_requires_ke():
    online = dict(_hand("LY-X3-valid"), preset="liaoyang-online")
    assert score(_with(online, requires_ke=True)).valid


# ---- [Amb-B1] wind_cycle --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cycle", "after"),
    [
        ("东西南北", {"E": "W", "W": "S", "S": "N", "N": "E"}),
        ("东南西北", {"E": "S", "S": "W", "W": "N", "N": "E"}),
    ],
)
def test_anshan_hun_follows_the_wind_cycle(cycle, after):
    order = wind_order(PRESETS["anshan"], {"wind_cycle": cycle})
    for ind, hun in after.items():
        assert T.code(T.hun_of(T.INDEX[ind], order)) == hun


def test_anshan_default_cycle_is_the_seeds_example():
    hand = _hand("AS-W1")
    parsed = parse_hand(hand)
    facts = HandFacts(parsed, parsed.options, wind_order(PRESETS["anshan"], parsed.options))
    assert T.code(facts.hun) == "W"  # 东 → 西
    assert score(_with(hand, wind_cycle="东南西北")).hun == T.INDEX["S"]


def test_liaoyang_online_winds_always_cycle_in_seat_order():
    assert wind_order(PRESETS["liaoyang-online"], {}) == ("E", "S", "W", "N")


# ---- [Amb-24] danzhang_wait -----------------------------------------------------------------------


def test_only_wait_is_computed_on_the_hand_before_the_win():
    assert wait_types(parse_hand(_hand("LY-DZ1"))) == {T.INDEX["3m"], T.INDEX["6m"]}
    assert wait_types(parse_hand(_hand("LY-DZ2-single"))) == {T.INDEX["3s"]}


def test_single_wait_drops_danzhang_only_when_another_tile_would_win():
    shape = {x.key for x in score(_hand("LY-DZ1")).winner_fan}
    single = {x.key for x in score(_hand("LY-DZ1-single")).winner_fan}
    assert shape - single == {"danzhang"}
    assert "danzhang" in {x.key for x in score(_hand("LY-DZ2-single")).winner_fan}


def test_single_wait_keeps_the_spec_examples_with_a_true_single_wait():
    for name in ("LY-5", "LY-X3-valid"):
        hand = _hand(name)
        assert score(_with(hand, danzhang_wait="single")).to_dict() == score(hand).to_dict(), name


def test_the_hun_type_is_not_a_wait_that_breaks_single():
    """A 混 completes every waiting hand, so it is left out of W (LY-X3-valid waits on 中 and the 混)."""
    hand = parse_hand(_hand("LY-X3-valid"))
    assert wait_types(hand) == {T.INDEX["C"]}


def test_only_the_winners_own_tiles_limit_w():
    """[Amb-24] revised: copies in other seats' melds, the 宝 and 抢杠/杠上开 do not shrink W."""
    nine, six = T.INDEX["9m"], T.INDEX["6m"]
    for name in ("LY-DZ3-single-copies-elsewhere", "LY-DZ4-single-bao", "LY-DZ6-single-gangshangkai"):
        assert wait_types(parse_hand(_hand(name))) == {six, nine}, name
        assert "danzhang" in {x.key for x in score(_with(_hand(name), danzhang_wait="shape")).winner_fan}
        assert "danzhang" not in {x.key for x in score(_hand(name)).winner_fan}
    assert wait_types(parse_hand(_hand("LY-DZ5-single-qianggang"))) == {T.INDEX["4m"], T.INDEX["5m"]}


def test_a_type_the_winner_holds_four_of_is_not_a_wait():
    """6666m 123s 789p [碰白] + a fifth 6m would read 666m + 66m: not a wait, he holds all four."""
    hand = _hand("LY-DZ5-single-qianggang")
    hand["players"]["S"]["concealed"] = ["6m", "6m", "6m", "6m", "1s", "2s", "3s", "7p", "8p", "9p"]
    hand["win"] = {"tile": "1m", "by": "discard", "from": "W"}  # not a win: what matters is W
    hand["players"]["W"] = {}
    assert T.INDEX["6m"] not in wait_types(parse_hand(hand))


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
@given(hands())
def test_w_agrees_with_the_spec_text_reference(hand):
    assert {T.code(t) for t in wait_types(parse_hand(hand))} == brute_wait_types(hand)
