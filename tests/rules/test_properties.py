"""Property tests: zero-sum, order independence, SPEC 4.3 invariants, fast search == brute force."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules.readings as readings
from rules import HandError, score
from tests.rules.bruteforce import brute_standard_readings
from tests.rules.strategies import hands

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example, HealthCheck.data_too_large],
)


def _score(hand: dict):
    try:
        return score(hand)
    except HandError as e:  # the generator aims at well-formed hands; tell us if it misses
        pytest.fail(f"generated hand rejected: {e}\n{hand}")


def _comparable(result) -> dict:
    d = result.to_dict()
    d.pop("decomposition", None)
    d.pop("form", None)
    return d


@SETTINGS
@given(hands())
def test_payments_sum_to_zero(hand):
    r = _score(hand)
    if r.valid:
        assert sum(r.payments.values()) == 0
        assert r.payments[hand["winner"]] > 0


@SETTINGS
@given(hands(), st.randoms(use_true_random=False))
def test_order_of_tiles_does_not_matter(hand, rnd: random.Random):
    before = _comparable(_score(hand))
    shuffled = dict(hand)
    players = {s: dict(p) for s, p in hand["players"].items()}
    w = players[hand["winner"]]
    w["concealed"] = rnd.sample(w["concealed"], len(w["concealed"]))
    w["melds"] = rnd.sample(w["melds"], len(w["melds"]))
    shuffled["players"] = dict(rnd.sample(list(players.items()), len(players)))
    assert _comparable(_score(shuffled)) == before


@SETTINGS
@given(hands())
def test_spec_invariants(hand):
    r = _score(hand)
    if not r.valid:
        assert r.reason and r.message
        return
    if hand["preset"] == "anshan":
        for lr in r.losers.values():
            assert lr.capped >= 1 and lr.capped & (lr.capped - 1) == 0  # a power of two
        return
    unit = hand.get("room_multiplier", 1)
    di = 100 * unit
    shares = [lr.capped for lr in r.losers.values()]
    for lr in r.losers.values():
        power = lr.capped // unit
        assert lr.capped in (di, 2 * di) or (lr.capped < di and power & (power - 1) == 0)
    if 2 * di in shares:
        assert shares == [2 * di] * 3  # 摇 is all or nothing


@SETTINGS
@given(hands())
def test_each_hun_says_what_it_stands_for(hand):
    r = _score(hand)
    if not r.valid:
        return
    winner = hand["players"][hand["winner"]]
    hun_code = r.to_dict()["hun"]
    physical = winner["concealed"] + [hand["win"]["tile"]]
    n_hun = sum(1 for t in physical if t == hun_code)
    stand_ins = sum(len(g.hun_as) for g in r.decomposition)
    assert stand_ins == n_hun
    assert (
        sum(len(g.tiles) for g in r.decomposition)
        == 14 + sum(1 for m in winner["melds"] if "kong" in m["kind"])
        or r.form == "thirteen"
    )


def _check_against_brute(hand: dict, monkeypatch) -> None:
    """Same validity, reason, best 番 total and money; equal-scoring readings may list other items."""
    fast = _comparable(_score(hand))
    with monkeypatch.context() as m:
        m.setattr(readings, "standard_readings", brute_standard_readings)
        slow = _comparable(_score(hand))
    fast.pop("winner_fan", None)
    slow.pop("winner_fan", None)
    assert fast == slow


BRUTE = settings(
    SETTINGS, suppress_health_check=[*SETTINGS.suppress_health_check, HealthCheck.function_scoped_fixture]
)


@settings(BRUTE, max_examples=150)
@given(hand=hands(max_hun=2))
def test_fast_search_matches_brute_force_up_to_two_hun(hand, monkeypatch):
    _check_against_brute(hand, monkeypatch)


@settings(BRUTE, max_examples=40)
@given(hand=hands(max_hun=4, min_melds_for_many_hun=2))
def test_fast_search_matches_brute_force_three_or_four_hun(hand, monkeypatch):
    _check_against_brute(hand, monkeypatch)
