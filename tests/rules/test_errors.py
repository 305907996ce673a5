"""Malformed input: one clear line naming the field, exit status 2 from the CLI, HandError from the API."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rules import HandError, score

EXAMPLE_DIR = Path(__file__).resolve().parents[1] / "examples"
ROOT = Path(__file__).resolve().parents[2]
BASE = json.loads((EXAMPLE_DIR / "LY-1.json").read_text(encoding="utf-8"))["hand"]


def _variant(edit) -> dict:
    hand = copy.deepcopy(BASE)
    edit(hand)
    return hand


def _set(path: str, value):
    def edit(hand):
        keys = path.split(".")
        obj = hand
        for k in keys[:-1]:
            obj = obj[int(k)] if k.isdigit() else obj[k]
        last = keys[-1]
        if last.isdigit():
            obj[int(last)] = value
        else:
            obj[last] = value

    return edit


BAD = {
    "unknown top-level key": (_set("bonus", 1), "bonus"),
    "unknown option": (_set("options", {"fan_value": "prose"}), "options.fan_value"),
    "bad option value": (_set("options", {"fan_values": "proze"}), "options.fan_values"),
    "unknown preset": (_set("preset", "shenyang"), "preset"),
    "unknown tile": (_set("players.S.concealed.3", "0m"), "players.S.concealed[3]"),
    "too few tiles": (lambda h: h["players"]["S"]["concealed"].pop(), "players.S.concealed"),
    "too many tiles": (lambda h: h["players"]["S"]["concealed"].append("9s"), "players.S.concealed"),
    "five copies": (
        lambda h: h["players"]["N"]["melds"].append({"kind": "kong", "tiles": ["5s"] * 4}),
        "5s too many",
    ),
    "four of the indicator's type": (
        lambda h: (
            h["players"]["N"]["melds"].append({"kind": "pong", "tiles": ["2m"] * 3})
            or h["players"]["S"]["concealed"].__setitem__(3, "2m")
        ),
        "indicator",
    ),
    "hun inside a meld": (
        lambda h: h["players"]["E"]["melds"].append({"kind": "pong", "tiles": ["3m"] * 3}),
        "混",
    ),
    "wind in liaoyang": (_set("players.S.concealed.0", "E"), "not part of the liaoyang tile set"),
    "chinese wind alias in liaoyang": (_set("players.S.concealed.0", "东"), "players.S.concealed[0]"),
    "kong_replacement on a discard": (_set("win.kong_replacement", True), "win.kong_replacement"),
    "after_kong without a kong": (_set("win.after_kong", True), "win.after_kong"),
    "self-draw with a discarder": (_set("win.by", "self_draw"), "win.from"),
    "discard without a discarder": (lambda h: h["win"].pop("from"), "win.from"),
    "winner feeds himself": (_set("win.from", "S"), "win.from"),
    "robbed kong without the pong": (_set("win.by", "robbed_kong"), "win.from"),
    "bad chi": (_set("players.E.melds.0.tiles", ["6m", "7m", "9m"]), "players.E.melds[0].tiles"),
    "bad meld kind": (_set("players.E.melds.0.kind", "chow"), "players.E.melds[0].kind"),
    "bad seat": (lambda h: h["players"].update({"X": {}}), "players.X"),
    "wrong version": (_set("version", 2), "version"),
    "flag not a bool": (_set("win.last_tiles", "yes"), "win.last_tiles"),
    "first draw with melds": (_set("win.first_draw", True), "win.first_draw"),
    "win on a discarded hun": (
        lambda h: h["players"]["S"]["concealed"].__setitem__(2, "4p") or h["win"].__setitem__("tile", "3m"),
        "win.tile",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_api(name):
    edit, needle = BAD[name]
    with pytest.raises(HandError) as err:
        score(_variant(edit))
    assert needle in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["unknown tile", "wind in liaoyang", "five copies", "kong_replacement on a discard"]
)
def test_bad_input_cli_exit_2_one_line(name, tmp_path):
    edit, needle = BAD[name]
    f = tmp_path / "hand.json"
    f.write_text(json.dumps(_variant(edit), ensure_ascii=False), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "rules", "score", str(f)], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0]


@pytest.mark.slow
@pytest.mark.parametrize("text", ["", "{", "[1, 2]", '{"version": 1', "null"])
def test_malformed_json(text):
    proc = subprocess.run(
        [sys.executable, "-m", "rules", "score", "-"], input=text, capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_missing_file():
    proc = subprocess.run(
        [sys.executable, "-m", "rules", "score", "/nonexistent/hand.json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and proc.stderr.startswith("error: cannot read")


def test_aliases_accepted():
    hand = _variant(_set("players.N.melds.0.tiles", ["7s", "8s", "9s"]))
    hand["players"]["S"]["melds"][0] = {"kind": "pong", "tiles": ["7p", "7p", "7p"]}
    assert score(hand).valid
    an = json.loads((EXAMPLE_DIR / "AS-2.json").read_text(encoding="utf-8"))["hand"]
    an["indicator"] = "中"
    an["players"]["W"]["concealed"] = [{"P": "白"}.get(t, t) for t in an["players"]["W"]["concealed"]]
    assert score(an).payments == {"E": -64, "S": -32, "W": 128, "N": -32}


def test_contradictions_get_exit_2_not_a_result():
    hand = _variant(_set("win.kong_replacement", True))
    with pytest.raises(HandError, match="杠上开"):
        score(hand)
