"""`rules.check`: every problem of a hand at once, missing inputs apart from wrong ones, and the
first of them is exactly what `rules.score` raises (one set of checks for both)."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules
from rules import ERROR_WORDS, REASON_WORDS, HandError, Problem, check, score
from rules.errors import input_of
from rules.parse import loads_document
from rules.result import REASON_MESSAGES
from tests.rules.cli import run_rules
from tests.rules.strategies import hands
from tests.rules.test_errors import BAD, _variant
from tests.rules.test_hostile import HOSTILE

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = Path(__file__).parents[1] / "examples"
#: S wins on W's discard of 4p; 混 = 3m (indicator 2m); E 吃678m, W 碰999m, N 吃789s.
LY1 = json.loads((EXAMPLES / "LY-1.json").read_text(encoding="utf-8"))["hand"]


def _ly1(**top) -> dict:
    h = copy.deepcopy(LY1)
    h.update(top)
    return h


def _found(hand: object) -> list[tuple[str, str]]:
    return [(p.field, p.code) for p in check(hand)]


def _first_error(hand: object) -> HandError | None:
    try:
        score(hand)
    except HandError as e:
        return e
    return None


def test_a_good_hand_has_no_problem():
    assert check(LY1) == [] and check(json.dumps(LY1)) == []
    assert check(rules.parse_hand(LY1)) == []


def test_every_problem_at_once_in_the_order_score_meets_them():
    h = _ly1(indicator=None)
    h["players"]["S"]["concealed"][0] = "0m"  # not a tile
    h["players"]["S"]["concealed"][1] = "back"  # a face-down tile the page could not name
    h["win"]["kong_replacement"] = True  # on a discard
    h["players"]["E"]["melds"].append({"kind": "kong", "tiles": ["5s"] * 4})  # 4 + S's two 5s
    assert _found(h) == [
        ("indicator", "MISSING"),
        ("win.kong_replacement", "SITUATION"),
        ("players.S.concealed[0]", "TILE"),
        ("players.S.concealed[1]", "TILE"),
        ("players.S.concealed[6]", "COPIES"),  # E's kong holds four 5s: S's first 5s is the fifth
    ]
    with pytest.raises(HandError) as e:
        score(h)
    assert (e.value.field, e.value.code) == ("indicator", "MISSING")


def test_missing_inputs_are_told_apart_from_wrong_ones():
    """What the page lists as "还不能算：请选…": the winner, the indicator, the discarder, the tile."""
    h = _ly1(winner=None, indicator=None)
    h["win"] = {"by": "discard"}
    h["players"]["S"]["concealed"][0] = "0m"
    problems = check(h)
    missing = [p.field for p in problems if p.missing]
    wrong = [p.field for p in problems if not p.missing]
    assert missing == ["winner", "indicator", "win.tile", "win.from"]
    assert wrong == ["players.S.concealed[0]"]
    assert all(p.code == "MISSING" for p in problems if p.missing)


def test_problem_words_and_dict():
    (p,) = check(_ly1(indicator="0m"))
    assert isinstance(p, Problem) and p.field == "indicator" and p.code == "TILE" and not p.missing
    assert (p.zh, p.en) == (ERROR_WORDS["TILE"].zh, ERROR_WORDS["TILE"].en)
    assert p.to_dict() == {
        "field": "indicator",
        "code": "TILE",
        "missing": False,
        "input": "indicator",
        "message": 'unknown tile "0m"',
        "zh": ERROR_WORDS["TILE"].zh,
        "en": ERROR_WORDS["TILE"].en,
    }
    assert str(p) == 'indicator: unknown tile "0m"' == str(p.error())


def test_each_problem_names_the_input_to_fix():
    h = _ly1(winner=None)
    h["win"] = {"tile": "4p", "by": "discard", "after_kong": True}
    h["players"]["E"]["melds"][0]["tiles"][2] = "9m"
    h["players"]["W"]["discarded_hun"] = 1
    h["bao_tile"] = "x"
    assert [(p.field, p.input) for p in check(h)] == [
        ("winner", "winner"),
        ("win.from", "discarder"),
        ("players.E.melds[0].tiles", "melds.E"),
        ("players.W.discarded_hun", "discarded_hun.W"),
        ("bao_tile", "bao"),
    ]
    assert input_of("win.kong_replacement") == "flags.kong_replacement"
    assert input_of("win.tile") == "winning_tile" and input_of("hand.win.tile") == "winning_tile"
    assert input_of("players.S.concealed[3]") == "concealed.S" and input_of("players.S") == "players.S"
    assert input_of("options.fan_values") == "options" and input_of("") == input_of("hand") == "hand"


def test_reasons_and_errors_share_one_table_of_words():
    assert set(REASON_WORDS) == set(REASON_MESSAGES)
    for key, words in REASON_WORDS.items():
        assert REASON_MESSAGES[key] == f"{words.zh}: {words.en}"
    r = score(json.loads((EXAMPLES / "LY-X3.json").read_text(encoding="utf-8"))["hand"])
    assert r.message == REASON_MESSAGES[r.reason]


# ---- what page.situation.contradictions checked, now answered by the engine ---------------------


def _edit(**changes) -> dict:
    """LY-1 with `changes` applied: keys are dotted paths (`win.by`), a value None removes the key."""
    h = copy.deepcopy(LY1)
    for path, value in changes.items():
        *head, last = path.split("__")
        obj = h
        for k in head:
            obj = obj[int(k)] if k.isdigit() else obj[k]
        if value is None and not last.isdigit():
            obj.pop(last, None)
        else:
            obj[int(last) if last.isdigit() else last] = value
    return h


def _win(**w) -> dict:
    return {"tile": "4p", "by": "discard", "from": "W", **w}


KONG_N = {"kind": "kong", "tiles": ["1p"] * 4}
PAGE_CHECKS: dict[str, tuple[dict, str, str]] = {
    "unknown preset": (_edit(preset="shenyang"), "preset", "PRESET"),
    "no indicator": (_edit(indicator=None), "indicator", "MISSING"),
    "no winning tile": (_edit(win=_win(tile=None)), "win.tile", "MISSING"),
    "a discard with no discarder": (_edit(win=_win(**{"from": None})), "win.from", "MISSING"),
    "a robbed kong with no robbed player": (
        _edit(win=_win(by="robbed_kong", **{"from": None})),
        "win.from",
        "MISSING",
    ),
    "the winner feeds himself": (_edit(win=_win(**{"from": "S"})), "win.from", "SELF_FEED"),
    "a self-draw with a discarder": (_edit(win=_win(by="self_draw")), "win.from", "SITUATION"),
    "杠上开 on a discard": (_edit(win=_win(kong_replacement=True)), "win.kong_replacement", "SITUATION"),
    "杠上开 without a kong": (
        _edit(win={"tile": "4p", "by": "self_draw", "kong_replacement": True}),
        "win.kong_replacement",
        "SITUATION",
    ),
    "流泪 on a self-draw": (
        _edit(win={"tile": "4p", "by": "self_draw", "after_kong": True}),
        "win.after_kong",
        "SITUATION",
    ),
    "流泪 without the discarder's kong": (_edit(win=_win(after_kong=True)), "win.after_kong", "SITUATION"),
    "地胡 on a robbed kong": (
        _edit(win=_win(by="robbed_kong", first_draw=True)),
        "win.first_draw",
        "SITUATION",
    ),
    "地胡 with 杠上开": (
        _edit(win={"tile": "4p", "by": "self_draw", "first_draw": True, "kong_replacement": True}),
        "win.first_draw",
        "SITUATION",
    ),
    "地胡 with melds": (_edit(win=_win(first_draw=True)), "win.first_draw", "SITUATION"),
    "抢杠 without the robbed pong": (_edit(win=_win(by="robbed_kong")), "win.from", "SITUATION"),
    "a face-down tile": (_edit(players__S__concealed__0="back"), "players.S.concealed[0]", "TILE"),
    "not a tile": (_edit(players__S__concealed__0="11m"), "players.S.concealed[0]", "TILE"),
    "a wind in liaoyang": (_edit(players__S__concealed__0="E"), "players.S.concealed[0]", "WIND"),
    "a wind in a loser's meld": (
        _edit(players__E__melds=[{"kind": "pong", "tiles": ["N"] * 3}]),
        "players.E.melds[0].tiles[0]",
        "WIND",
    ),
    "the 混 in the winner's meld": (
        _edit(players__S__melds=[{"kind": "pong", "tiles": ["3m"] * 3}]),
        "players.S.melds[0].tiles[0]",
        "HUN_IN_MELD",
    ),
    "the 混 in a loser's meld": (
        _edit(players__N__melds=[{"kind": "chi", "tiles": ["2m", "3m", "4m"]}]),
        "players.N.melds[0].tiles[1]",
        "HUN_IN_MELD",
    ),
    "a discarded 混 won on": (_edit(win=_win(tile="3m")), "win.tile", "HUN_CLAIMED"),
    "five copies across seats": (
        _edit(players__E__melds=[{"kind": "kong", "tiles": ["5s"] * 4}]),
        "players.S.concealed[6]",
        "COPIES",
    ),
    "four of the indicator's type": (
        _edit(players__E__melds=[{"kind": "kong", "tiles": ["2m"] * 4}]),
        "players.E.melds[0].tiles[3]",
        "COPIES",
    ),
    "the 宝 a copy too many": (
        _edit(players__E__melds=[{"kind": "pong", "tiles": ["6p"] * 3}], bao_tile="6p"),
        "bao_tile",
        "COPIES",
    ),
}


@pytest.mark.parametrize("name", sorted(PAGE_CHECKS))
def test_the_page_checks_are_the_engines(name):
    hand, field, code = PAGE_CHECKS[name]
    assert (field, code) in _found(hand), check(hand)
    err = _first_error(hand)
    assert err is not None and (err.field, err.code) == (check(hand)[0].field, check(hand)[0].code)


def test_first_draw_on_the_dealers_win_has_no_effect_and_is_not_a_problem():
    """SPEC 5.3: `first_draw` on a dealer's win has no effect (天胡 is not scored)."""
    h = json.loads((EXAMPLES / "LY-1.json").read_text(encoding="utf-8"))["hand"]
    h["dealer"] = "S"
    for p in h["players"].values():
        p.pop("melds", None)
    h["players"]["S"]["concealed"] = [
        "4m",
        "5m",
        "3m",
        "1s",
        "2s",
        "3s",
        "5s",
        "5s",
        "5p",
        "6p",
        "7p",
        "7p",
        "7p",
    ]
    h["win"] = {"tile": "4p", "by": "self_draw", "first_draw": True}
    assert check(h) == []
    assert "dihu" not in {f.key for f in score(h).winner_fan}


# ---- one source of truth: score raises the first problem check lists ----------------------------


@pytest.mark.parametrize("name", sorted(BAD))
def test_score_raises_the_first_problem(name):
    edit, _ = BAD[name]
    hand = _variant(edit)
    err = _first_error(hand)
    problems = check(hand)
    assert err is not None and problems and problems[0] == err.problem


@pytest.mark.parametrize(("text", "field"), HOSTILE, ids=[f"h{i}" for i in range(len(HOSTILE))])
def test_hostile_text_first_problem_is_the_error(text, field):
    with pytest.raises(HandError) as e:
        score(loads_document(text))
    problems = rules.parse.check_document(text)
    assert problems[0] == e.value.problem


_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 20),
    st.sampled_from(["", "0m", "E", "back", "3m", "5s", "S", "W", "discard", "self_draw", "robbed_kong"]),
    st.lists(st.sampled_from(["1m", "5s", "3m", "x"]), max_size=5),
    st.just({}),
)


def _paths(obj: object, path: tuple) -> list[tuple]:
    """Every key or index path inside `obj`."""
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    out: list[tuple] = []
    for k, v in items:
        out += [(*path, k), *_paths(v, (*path, k))]
    return out


@st.composite
def _corrupted(draw) -> dict:
    """A generated hand with one to three values anywhere in it replaced by junk."""
    hand = draw(hands())
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(hand, ())
        path = draw(st.sampled_from(paths))
        obj = hand
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = draw(_JUNK)
    return hand


HYPOTHESIS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


@settings(HYPOTHESIS, max_examples=150)
@given(_corrupted())
def test_check_is_empty_exactly_when_score_raises_nothing(hand):
    problems = check(hand)
    err = _first_error(hand)
    if err is None:
        assert problems == []
    else:
        assert problems and problems[0] == err.problem
        assert all(p.code in ERROR_WORDS for p in problems)


@settings(HYPOTHESIS, max_examples=60)
@given(hands())
def test_generated_hands_have_no_problem(hand):
    assert check(hand) == []


# ---- python -m rules check ---------------------------------------------------------------------


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return run_rules("check", *args, stdin=stdin)


@pytest.mark.slow
def test_cli_check_prints_every_problem():
    h = _ly1(indicator=None)
    h["players"]["S"]["concealed"][0] = "0m"
    proc = _run("--text", "-", stdin=json.dumps(h))
    assert proc.returncode == 2
    assert proc.stdout.splitlines() == [
        "missing: indicator: the 混 indicator tile is required",
        'error: players.S.concealed[0]: unknown tile "0m"',
    ]
    out = json.loads(_run("-", stdin=json.dumps(h)).stdout)
    assert [(p["field"], p["missing"]) for p in out["problems"]] == [
        ("indicator", True),
        ("players.S.concealed[0]", False),
    ]
    ok = _run("--text", str(EXAMPLES / "LY-1.json"))  # a worked example: its hand
    assert ok.returncode == 0 and ok.stdout == "ok\n"


@pytest.mark.slow
def test_cli_check_jsonl():
    batch = "\n".join([json.dumps(LY1), "{", json.dumps(_ly1(indicator=None))]) + "\n"
    proc = _run("--jsonl", "-", stdin=batch)
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    assert proc.returncode == 0 and len(out) == 3
    assert out[0]["problems"] == [] and out[1]["problems"][0]["code"] == "JSON"
    assert out[2]["problems"][0]["field"] == "indicator"
