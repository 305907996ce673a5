"""The rules CLI on input no hand looks like: keys given twice, a byte order mark opening a batch,
and lines or files far too long to be a hand (answered without reading them whole)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rules import HandError, check, score
from rules.cli import MAX_INPUT
from rules.parse import loads_document

EXAMPLE_DIR = Path(__file__).resolve().parents[1] / "examples"
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = EXAMPLE_DIR / "LY-1.json"
LY1 = json.loads(EXAMPLE.read_text(encoding="utf-8"))["hand"]
VALID = json.dumps(LY1, ensure_ascii=False)
PAYMENTS = {"E": -4, "S": 10, "W": -4, "N": -2}


def _run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rules", *args], input=stdin, capture_output=True, cwd=ROOT, timeout=120
    )


def _twice(text: str, key: str, value: str) -> str:
    """`text` with `"key": value` written once more right after the first `"key": ...` opens."""
    at = text.index(f'"{key}": ')
    return text[:at] + f'"{key}": {value}, ' + text[at:]


# ---- keys given twice ----------------------------------------------------------------------------

TWICE = [
    (_twice(VALID, "preset", '"anshan"'), "preset"),
    (_twice(VALID, "by", '"self_draw"'), "win.by"),
    (_twice(VALID, "kind", '"chi"'), "players.E.melds[0].kind"),
    (_twice(VALID, "options", "{}"), "options"),
    (json.dumps({"id": "x", "hand": LY1}).replace('"id": "x"', '"id": "x", "id": "y"'), "id"),
    (_twice(json.dumps({"id": "x", "hand": LY1}), "winner", '"E"'), "hand.winner"),
]


@pytest.mark.parametrize(("text", "field"), TWICE, ids=[f for _, f in TWICE])
def test_a_key_given_twice_is_an_error_naming_it(text, field):
    with pytest.raises(HandError) as e:
        score(loads_document(text))
    assert (e.value.field, e.value.code, str(e.value)) == (field, "DUPLICATE_KEY", f"{field}: given twice")


@pytest.mark.slow
def test_a_key_given_twice_in_every_mode(tmp_path):
    text = _twice(VALID, "preset", '"anshan"')
    hand = tmp_path / "hand.json"
    hand.write_text(text, encoding="utf-8")
    for command in ("score", "waits", "check"):
        proc = _run(command, "--text", str(hand))
        assert proc.returncode == 2, command
        out = proc.stdout if command == "check" else proc.stderr
        assert out.decode().splitlines() == ["error: preset: given twice"], command
    tile_twice = _twice(VALID, "tile", '"5p"')
    proc = _run("score", "--jsonl", "-", stdin=f"{VALID}\n{tile_twice}\n{text}\n".encode())
    first, second, third = (json.loads(x) for x in proc.stdout.splitlines())
    assert first["payments"] == PAYMENTS
    assert (second["code"], second["field"], second["error"]) == (
        "DUPLICATE_KEY",
        "win.tile",
        "line 2: win.tile: given twice",
    )
    assert third == {
        "version": 1,
        "error": "line 3: preset: given twice",
        "code": "DUPLICATE_KEY",
        "field": "preset",
    }
    assert [p.field for p in check(text)] == ["preset"]


def test_nested_flag_given_twice():
    text = VALID.replace('"by": "discard"', '"by": "discard", "last_tiles": false, "last_tiles": true')
    with pytest.raises(HandError, match=r"^win\.last_tiles: given twice$"):
        score(loads_document(text))


# ---- the byte order mark -------------------------------------------------------------------------


@pytest.mark.slow
def test_a_bom_opening_a_batch_is_accepted():
    proc = _run(
        "score", "--jsonl", "-", stdin=b"\xef\xbb\xbf" + VALID.encode() + b"\n" + VALID.encode() + b"\n"
    )
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    assert proc.returncode == 0 and [r["payments"] for r in out] == [PAYMENTS, PAYMENTS]
    proc = _run("score", "-", stdin=b"\xef\xbb\xbf" + VALID.encode())  # the file mode already did
    assert proc.returncode == 0 and json.loads(proc.stdout)["payments"] == PAYMENTS


# ---- far too long ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_lines_at_and_over_the_limit():
    at_limit = b" " * (MAX_INPUT - len(VALID.encode())) + VALID.encode()  # a hand padded to the limit
    over = b" " + at_limit
    batch = b"\n".join([at_limit, over, VALID.encode(), over]) + b"\n" + over  # the last one unended
    proc = _run("score", "--jsonl", "-", stdin=batch)
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    assert proc.returncode == 0 and len(out) == 5
    assert out[0]["payments"] == PAYMENTS and out[2]["payments"] == PAYMENTS
    for k in (2, 4, 5):
        assert out[k - 1]["code"] == "TOO_LONG" and out[k - 1]["error"].startswith(
            f"line {k}: more than 1 MB"
        )
        assert f"({MAX_INPUT + 1} bytes)" in out[k - 1]["error"]


_MEASURE = """
import contextlib, io, resource, sys
from rules.cli import main
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
    rc = main(sys.argv[1:])
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(rc, grown // 1024, repr(out.getvalue()))
"""


def _measure(*args: str) -> tuple[int, int, str]:
    """Run the CLI in a fresh process; its exit status, how far its peak memory grew (MB), its output."""
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    rc, grown, out = proc.stdout.split(" ", 2)
    return int(rc), int(grown), eval(out)  # noqa: S307 - our own repr() of a string


@pytest.mark.slow
def test_a_100_mb_line_is_skipped_without_reading_it_whole(tmp_path):
    big = tmp_path / "big.jsonl"
    with big.open("wb") as f:
        f.write(VALID.encode() + b"\n" + b'{"version": 1, "note": "')
        block = b"x" * (1 << 20)
        for _ in range(100):
            f.write(block)
        f.write(b'"}\n' + VALID.encode() + b"\n")
    rc, grown, out = _measure("score", "--jsonl", str(big))
    lines = [json.loads(x) for x in out.splitlines()]
    assert rc == 0 and len(lines) == 3
    assert lines[0]["payments"] == PAYMENTS and lines[2]["payments"] == PAYMENTS  # line 3 answers line 3
    assert lines[1]["code"] == "TOO_LONG" and lines[1]["error"].startswith("line 2: more than 1 MB")
    assert grown < 60, f"peak memory grew by {grown} MB"

    rc, grown, out = _measure("score", str(big))  # the file mode refuses it, unread
    assert rc == 2 and out.startswith(f"error: {big}: more than 1 MB") and grown < 60
