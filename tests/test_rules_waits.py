"""听牌: `rules.waits` and `python -m rules waits` list every winning tile with its 番 and payments."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import rules
from rules import HandError, score
from rules import tiles as T
from rules.presets import PRESETS, has_winds
from tests.rules_strategies import hands

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = Path(__file__).parent / "examples"


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
        h = copy.deepcopy(hand)
        h["win"]["tile"] = T.code(t)
        try:
            r = score(h)
        except HandError:
            continue
        if r.valid:
            found[T.code(t)] = r.payments
    h = copy.deepcopy(hand)
    h["win"] = {k: v for k, v in h["win"].items() if k not in ("from", "after_kong")}
    h["win"].update(tile=T.code(hun), by="self_draw")
    try:
        r = score(h)
        hun_wait = r.payments if r.valid else None
    except HandError:
        hun_wait = None
    return found, hun_wait


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
    return subprocess.run(
        [sys.executable, "-m", "rules", "waits", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_cli_waits_json_text_and_example_files():
    proc = _run(str(EXAMPLES / "LY-1.json"))  # a worked example file: its hand, winning tile ignored
    assert proc.returncode == 0, proc.stderr
    assert [x["tile"] for x in json.loads(proc.stdout)["waits"]] == ["6m", "4p", "7p"]
    proc = _run("--text", "-", stdin=json.dumps(_short(_hand("LY-1"))))
    assert proc.returncode == 0 and proc.stdout.startswith("听 六万 +10 · 四饼 +10 · 七饼 +20")


def test_cli_waits_errors_and_batches():
    proc = _run("-", stdin='{"version": 1, "preset": "shenyang"}')
    assert proc.returncode == 2 and proc.stderr.startswith("error: preset: ")
    batch = "\n".join([json.dumps(_short(_hand("LY-1"))), "", json.dumps(_hand("AS-1"))]) + "\n"
    proc = _run("--jsonl", "-", stdin=batch)
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(out) == 3 and out[0]["waits"] and "error" in out[1] and out[2]["preset"] == "anshan"
