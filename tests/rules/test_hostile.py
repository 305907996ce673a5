"""Hostile input (hand-json.md "Errors", "Command line"): one error naming the field, never another
exception; a `--jsonl` batch answers every line, in order, as it reads them, whatever a line holds."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import Hand, HandError, score
from rules.errors import ERROR_WORDS
from rules.parse import loads_document, parse_hand
from rules.waits import waits

EXAMPLE_DIR = Path(__file__).resolve().parents[1] / "examples"
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(EXAMPLE_DIR.glob("*.json"))
LY1 = json.loads((EXAMPLE_DIR / "LY-1.json").read_text(encoding="utf-8"))["hand"]
LO2 = json.loads((EXAMPLE_DIR / "LO-2.json").read_text(encoding="utf-8"))["hand"]
AS1 = json.loads((EXAMPLE_DIR / "AS-1.json").read_text(encoding="utf-8"))["hand"]
HUGE = "9" * 5000


def _edit(hand: dict, **top) -> str:
    h = copy.deepcopy(hand)
    h.update(top)
    return json.dumps(h)  # a lone surrogate is written as the JSON escape "\ud800", as the issue has it


def _raw(hand: dict, key: str, literal: str) -> str:
    """The hand with `key` set to a JSON literal that Python would not write (a 5000-digit integer)."""
    h = copy.deepcopy(hand)
    h[key] = "@@"
    return json.dumps(h).replace('"@@"', literal)


# (JSON text, the field the error must name) — the hostile inputs and their neighbours
HOSTILE: list[tuple[str, str]] = [
    ('{"version":1,"preset":[]}', "preset"),
    ('{"version":1,"preset":{}}', "preset"),
    (_raw(LO2, "room_multiplier", HUGE), "room_multiplier"),
    (HUGE, "hand"),
    ("[" * 100_000, ""),
    ('{"a":' * 50_000 + "1" + "}" * 50_000, ""),
    (_edit(LO2, changmao=20_000), "changmao"),
    (_edit(LO2, changmao=10**10), "changmao"),
    (_edit(LO2, changmao=-1), "changmao"),
    (_edit(LO2, changmao=True), "changmao"),
    (_edit(LO2, changmao=2.0), "changmao"),
    (_edit(LO2, room_multiplier=10**300), "room_multiplier"),
    (_edit(LO2, room_multiplier=0), "room_multiplier"),
    (_edit(LO2, room_multiplier=1_000_001), "room_multiplier"),
    (_edit(LO2, options={"changmao_max": 65}), "options.changmao_max"),
    (_edit(AS1, options={"fan_cap": 10**30}), "options.fan_cap"),
    (_edit(AS1, options={"fan_cap": True}), "options.fan_cap"),
    (_edit(LY1, indicator="\ud800"), "indicator"),
    (_edit(LY1, version=True), "version"),
    (_edit(LY1, version=1.0), "version"),
    (_edit(LY1, version="1"), "version"),
    (_edit(LY1, dealer=["E"]), "dealer"),
    (_edit(LY1, winner={"S": 1}), "winner"),
    (_edit(LY1, win={"tile": ["4p"], "by": "discard", "from": "W"}), "win.tile"),
    (_edit(LY1, win={"tile": "4p", "by": [], "from": "W"}), "win.by"),
    (_edit(LY1, players=[]), "players"),
    (_edit(LY1, options=[]), "options"),
    (json.dumps({**LY1, "\ud800" * 3: 1}), "\ud800"),
    (json.dumps({**LY1, "x" * 10_000: 1}), "xxxx"),
    ("", ""),
    ("   ", ""),
    ("null", "hand"),
    ("NaN", "hand"),
    ('"\\ud800"', "hand"),
]


@pytest.mark.parametrize(("text", "field"), HOSTILE, ids=[f"h{i}" for i in range(len(HOSTILE))])
def test_hostile_input_is_one_hand_error_naming_the_field(text, field):
    with pytest.raises(HandError) as e:
        score(loads_document(text))
    assert field in e.value.field or (field == "" and e.value.field == "")
    assert e.value.code in ERROR_WORDS
    assert "\n" not in str(e.value) and len(str(e.value)) < 300


def test_impossible_situations_are_malformed_input():
    robbed_self = copy.deepcopy(LY1)
    robbed_self["win"] = {"tile": "4p", "by": "self_draw", "after_kong": True}
    with pytest.raises(HandError) as e:
        score(robbed_self)
    assert e.value.field == "win.after_kong" and e.value.code == "SITUATION"


# ---- the batch ---------------------------------------------------------------------------------

VALID = json.dumps(LY1, ensure_ascii=False)
EXAMPLE_WITH_BREAKS = json.dumps(
    {"id": "x", "note": "U+2028 \u2028, U+2029 \u2029, NEL \x85 stay inside the line", "hand": LY1},
    ensure_ascii=False,
)
BATCH: list[bytes] = [
    *(t.encode("utf-8", "surrogatepass") for t, _ in HOSTILE),
    b"",
    VALID.encode(),
    b"\xff\xfe{}",  # invalid UTF-8
    b'{"version": 1, "indicator": "\xed\xa0\x80"}',  # a UTF-8-encoded lone surrogate: invalid UTF-8
    EXAMPLE_WITH_BREAKS.encode(),
    b"\r",
    VALID.encode() + b"\r",  # CRLF line ending
    VALID.encode(),  # the last line has no newline
]


@pytest.mark.slow
def test_hostile_batch_is_answered_line_for_line(tmp_path):
    batch = tmp_path / "hostile.jsonl"
    batch.write_bytes(b"\n".join(BATCH))
    proc = subprocess.run(
        [sys.executable, "-m", "rules", "score", "--jsonl", str(batch)],
        capture_output=True,
        cwd=ROOT,
        timeout=120,  # a hang guard, not a speed test: the batch runs in well under a second
    )
    assert proc.returncode == 0 and proc.stderr == b""
    lines = proc.stdout.split(b"\n")
    assert lines[-1] == b"" and len(lines) - 1 == len(BATCH)
    out = [json.loads(x) for x in lines[:-1]]
    for k, (raw, result) in enumerate(zip(BATCH, out, strict=True), 1):
        assert result["version"] == 1
        valid_line = raw.strip() in (VALID.encode(), EXAMPLE_WITH_BREAKS.encode())
        if valid_line:
            assert result["valid"] is True and result["payments"] == {"E": -4, "S": 10, "W": -4, "N": -2}, k
        else:
            assert result["error"].startswith(f"line {k}: ") and result["code"] in ERROR_WORDS, (k, result)


@pytest.mark.slow
def test_jsonl_answers_each_line_as_soon_as_it_is_read():
    proc = subprocess.Popen(
        [sys.executable, "-m", "rules", "score", "--jsonl", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
    )
    answers: list[bytes] = []

    def read_two() -> None:
        assert proc.stdout is not None
        answers.append(proc.stdout.readline())
        answers.append(proc.stdout.readline())

    reader = threading.Thread(target=read_two, daemon=True)
    reader.start()
    try:
        assert proc.stdin is not None
        proc.stdin.write(VALID.encode() + b"\n")
        proc.stdin.flush()
        for _ in range(600):  # the first answer arrives while stdin is still open
            if answers:
                break
            reader.join(0.1)
        assert answers and json.loads(answers[0])["valid"] is True
        proc.stdin.write(b"\n")
        proc.stdin.close()
        reader.join(60)
        assert "error" in json.loads(answers[1])
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.slow
@pytest.mark.parametrize("i", [0, 2, 4, 7, 17, 18])
def test_cli_single_hand_hostile_exit_2_one_line(i, tmp_path):
    text, field = HOSTILE[i]
    f = tmp_path / "hand.json"
    f.write_bytes(text.encode("utf-8", "surrogatepass"))
    proc = subprocess.run(
        [sys.executable, "-m", "rules", "score", str(f)], capture_output=True, cwd=ROOT, timeout=120
    )
    assert proc.returncode == 2 and proc.stdout == b""
    err = proc.stderr.decode("utf-8")
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ") and field in err
    assert "Traceback" not in err


@pytest.mark.slow
def test_cli_invalid_utf8_file_is_one_error_line(tmp_path):
    f = tmp_path / "hand.json"
    f.write_bytes(b'{"version": 1, "preset": "\xff"}')
    proc = subprocess.run([sys.executable, "-m", "rules", "score", str(f)], capture_output=True, cwd=ROOT)
    assert proc.returncode == 2 and proc.stderr.startswith(b"error: ") and b"UTF-8" in proc.stderr


# ---- fuzzing the parser -------------------------------------------------------------------------

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
    | st.sampled_from(
        ["1m", "9s", "E", "C", "中", "self_draw", "discard", "pong", "kong", "S", "W", "anshan"]
    )
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5),
    max_leaves=12,
)
FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _paths(obj: object, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated_hands(draw) -> object:
    """A worked example's hand with one to three parts replaced, deleted or added."""
    path_file = draw(st.sampled_from(EXAMPLES))
    hand = json.loads(path_file.read_text(encoding="utf-8"))["hand"]
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(hand)
        path = draw(st.sampled_from(paths))
        if not path:
            hand = draw(JSON_VALUES)
            continue
        parent = hand
        for k in path[:-1]:
            parent = parent[k]
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "replace":
            parent[path[-1]] = draw(JSON_VALUES)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=6))] = draw(JSON_VALUES)
        if not isinstance(hand, (dict, list)):
            break
    return hand


def _result_or_hand_error(fn, value) -> None:
    try:
        fn(value)
    except HandError as e:
        assert e.code in ERROR_WORDS and "\n" not in str(e)


@FUZZ
@given(mutated_hands())
def test_fuzzed_hands_give_a_result_or_a_hand_error(hand):
    _result_or_hand_error(score, hand)


@FUZZ
@given(mutated_hands())
def test_fuzzed_hands_one_tile_short_give_waits_or_a_hand_error(hand):
    _result_or_hand_error(waits, hand)


@FUZZ
@given(JSON_VALUES)
def test_fuzzed_json_values_give_a_result_or_a_hand_error(value):
    _result_or_hand_error(score, value)


@FUZZ
@given(st.text(max_size=60) | mutated_hands().map(lambda h: json.dumps(h)[: len(json.dumps(h)) // 2]))
def test_fuzzed_text_gives_a_result_or_a_hand_error(text):
    _result_or_hand_error(lambda t: score(loads_document(t)), text)


def test_a_parsed_hand_is_scored_without_parsing_again():
    assert isinstance(parse_hand(LY1), Hand)
