"""听牌: `rules.waits` and `python -m rules waits` list every winning tile with its 番 and payments."""

from __future__ import annotations

import copy
import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import rules
from rules import HandError, ScoreResult, score
from rules import tiles as T
from rules.hand import WIN_FLAGS, Win
from rules.presets import PRESETS, has_winds
from tests.rules.cli import run_rules
from tests.rules.strategies import hands

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = Path(__file__).parents[1] / "examples"


def _hand(name: str) -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))["hand"]


def _short(hand: dict) -> dict:
    """The same hand one tile short: hand-json's concealed tiles never include the winning tile."""
    h = copy.deepcopy(hand)
    h["win"].pop("tile")
    return h


def test_ly1_waits_with_fan_and_payments():
    """LY-1 before the win: 4m5m⟨混⟩ 5p6p 123s 55s [碰 7p], W to discard; 混 = 3m."""
    w = rules.waits(_short(_hand("LY-1")))
    assert [T.code(t) for t in w.tiles] == ["6m", "4p", "7p"]
    by_tile = {T.code(x.tile): x for x in w.waits}
    assert by_tile["4p"].result.payments == {"E": -4, "S": 10, "W": -4, "N": -2}  # the worked example
    assert by_tile["6m"].gain == 10  # 鸡枪 1, the same losers' items
    assert by_tile["7p"].result.winner_fan_total == 2  # 7p ×4 natural, not a kong: 四归一 + 鸡枪
    assert {f.key for f in by_tile["7p"].result.winner_fan} == {"siguiyi", "jiqiang"}
    assert by_tile["7p"].gain == 20
    # the 混 apart: drawn by S himself: 自摸 1 + 鸡枪 1 → E 庄 8, W 4, N 4
    assert w.hun_wait is not None and T.code(w.hun_wait.tile) == "3m" and w.hun_wait.gain == 16
    assert w.text() == "听 六万 +10 · 四饼 +10 · 七饼 +20\n混 三万: 自摸 +16"


def test_the_winning_tile_in_the_input_is_ignored():
    full, short = rules.waits(_hand("LY-1")), rules.waits(_short(_hand("LY-1")))
    assert full.to_dict() == short.to_dict()


def test_a_hand_that_waits_on_nothing():
    hand = _short(_hand("LY-X3"))  # all 顺子 in liaoyang: no tile gives a 横 … except the 混 pair
    w = rules.waits(hand)
    assert w.waits == [] and w.text().startswith("没听牌")


def test_waits_json_shape():
    d = rules.waits(_short(_hand("LY-1"))).to_dict()
    assert d["version"] == 1 and d["preset"] == "liaoyang" and d["winner"] == "S" and d["hun"] == "3m"
    first = d["waits"][0]
    assert set(first) == {"tile", "form", "winner_fan", "winner_fan_total", "gain", "payments"}
    assert d["hun_wait"]["by"] == "self_draw" and d["hun_wait"]["tile"] == "3m"


def test_malformed_short_hand_is_a_hand_error():
    hand = _short(_hand("LY-1"))
    hand["players"]["S"]["concealed"].append("9s")
    with pytest.raises(HandError) as e:
        rules.waits(hand)
    assert e.value.field == "players.S.concealed"


def _own(hand: dict, code: str) -> int:
    """Copies of `code` the winner holds before the win (concealed tiles and melds)."""
    p = hand["players"][hand["winner"]]
    return p["concealed"].count(code) + sum(m["tiles"].count(code) for m in p.get("melds", []))


def _score_on(hand: dict, win: dict) -> ScoreResult | None:
    """The hand won as `win` says, through the parser; a hand refused only because copies of the
    winning tile sit elsewhere (other seats, the indicator, the 宝) is still a win — SPEC [Amb-24]
    revised: only the winner's own tiles limit a wait — scored from the parsed real hand."""
    h = copy.deepcopy(hand)
    h["win"] = win
    problems = rules.check(h)
    if not problems:
        return score(h)
    if all(p.code == "COPIES" for p in problems) and _own(hand, win["tile"]) < 4:
        real = rules.parse_hand(hand)
        w = Win(T.INDEX[win["tile"]], win["by"], win.get("from"), **{k: win.get(k, False) for k in WIN_FLAGS})
        return score(replace(real, win=w))
    return None


def _brute_waits(hand: dict) -> tuple[dict, dict | None]:
    """Score the full hand-json with every tile type as the winning tile, through the parser."""
    preset = PRESETS[hand["preset"]]
    parsed = rules.parse_hand(hand)
    winds = has_winds(preset, parsed.options)
    hun = score(hand).hun
    found = {}
    for t in range(T.N_TYPES):
        if (T.is_wind(t) and not winds) or t == hun:
            continue
        r = _score_on(hand, {**hand["win"], "tile": T.code(t)})
        if r is not None and r.valid:
            found[T.code(t)] = r.payments
    win = {k: v for k, v in hand["win"].items() if k not in ("from", "after_kong")}
    r = _score_on(hand, {**win, "tile": T.code(hun), "by": "self_draw"})
    return found, (r.payments if r is not None and r.valid else None)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
@given(hands())
def test_waits_agree_with_scoring_every_tile_through_the_parser(hand):
    w = rules.waits(hand)
    found, hun_wait = _brute_waits(hand)
    assert {T.code(x.tile): x.result.payments for x in w.waits} == found
    assert (w.hun_wait.result.payments if w.hun_wait else None) == hun_wait


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return run_rules("waits", *args, stdin=stdin)


@pytest.mark.slow
def test_cli_waits_json_text_and_example_files():
    proc = _run(str(EXAMPLES / "LY-1.json"))  # a worked example file: its hand, winning tile ignored
    assert proc.returncode == 0, proc.stderr
    assert [x["tile"] for x in json.loads(proc.stdout)["waits"]] == ["6m", "4p", "7p"]
    proc = _run("--text", "-", stdin=json.dumps(_short(_hand("LY-1"))))
    assert proc.returncode == 0 and proc.stdout.startswith("听 六万 +10 · 四饼 +10 · 七饼 +20")


@pytest.mark.slow
def test_cli_waits_errors_and_batches():
    proc = _run("-", stdin='{"version": 1, "preset": "shenyang"}')
    assert proc.returncode == 2 and proc.stderr.startswith("error: preset: ")
    batch = "\n".join([json.dumps(_short(_hand("LY-1"))), "", json.dumps(_hand("AS-1"))]) + "\n"
    proc = _run("--jsonl", "-", stdin=batch)
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(out) == 3 and out[0]["waits"] and "error" in out[1] and out[2]["preset"] == "anshan"


@pytest.mark.slow
def test_a_wait_whose_copies_sit_elsewhere_is_still_listed():
    """SPEC [Amb-24] revised: only the winner's own tiles limit a wait (here all four 9m are in E's
    明杠, and in the 宝 case three in E's hand and the 宝)."""
    for name in ("LY-DZ3-single-copies-elsewhere", "LY-DZ4-single-bao"):
        w = rules.waits(_short(_hand(name)))
        assert [T.code(t) for t in w.tiles] == ["6m", "9m"], name
    proc = _run("--text", str(EXAMPLES / "LY-DZ3-single-copies-elsewhere.json"))
    assert (
        proc.returncode == 0 and proc.stdout.startswith("听 六万 ") and "九万" in proc.stdout.splitlines()[0]
    )
