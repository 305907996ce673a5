"""Command line: `python -m rules score|waits|check FILE|- [--text | --jsonl]`.

`check` lists every problem of the input at once (`rules.check`), not only the first: JSON
`{"version": 1, "problems": [{"field", "code", "missing", "message", "zh", "en"}, ...]}`, or with
`--text` one line each (`missing: FIELD: ...` for an input not given yet, `error: FIELD: ...` for
one given wrong, `ok` when there is none); the exit status is 2 when there is any problem.

Malformed input prints one line `error: FIELD: what is wrong` on stderr and exits with status 2; a
well-formed hand that cannot win is a normal result (`"valid": false` with a reason). A worked
example of the spec (`{"id", "note", "hand", "expect"}`) is accepted as is: its `hand` is used.

`--jsonl` is for batches from anywhere, so it must never die (hand-json.md "Command line"): input is
read as bytes and split on `\\n` only (never on U+2028 or `\\x85`); each line is decoded on its own
and answered as soon as it is read (output flushed), so output line k always answers input line k —
a blank line, invalid UTF-8, deep nesting or a huge number each get an error line
`{"version": 1, "error": "line k: ...", "code": ..., "field": ...}` and the run goes on. A line over
`MAX_INPUT` bytes is answered with one error line and skipped a chunk at a time, never read whole
(file mode refuses a bigger file the same way); a UTF-8 byte order mark opening line 1 is dropped.
A key given twice is an error naming it (`preset: given twice`, `win.by: given twice`). Output is
written as UTF-8 with lone surrogates backslash-escaped (`\\ud800` is then a JSON escape), so no
input can make the writer fail.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import BinaryIO

from .engine import score
from .errors import HandError, Problem
from .parse import check_document, loads_document
from .text import render_text
from .waits import waits


def _score_json(text: str) -> dict:
    return score(loads_document(text)).to_dict()


def _score_text(text: str) -> str:
    return render_text(score(loads_document(text)))


def _waits_json(text: str) -> dict:
    return waits(loads_document(text, need_win_tile=False)).to_dict()


def _waits_text(text: str) -> str:
    return waits(loads_document(text, need_win_tile=False)).text()


def check_dict(problems: list[Problem]) -> dict:
    return {"version": 1, "problems": [p.to_dict() for p in problems]}


def check_text(problems: list[Problem]) -> str:
    if not problems:
        return "ok"
    return "\n".join(f"{'missing' if p.missing else 'error'}: {p}" for p in problems)


def _check_json(text: str) -> dict:
    return check_dict(check_document(text))


def _check_text(text: str) -> str:
    return check_text(check_document(text))


COMMANDS: dict[str, tuple[Callable[[str], dict], Callable[[str], str], str]] = {
    "score": (_score_json, _score_text, "score one hand (or one per line with --jsonl)"),
    "waits": (
        _waits_json,
        _waits_text,
        "听牌: every tile that would win a hand one tile short, with its 番 and payments",
    ),
    "check": (_check_json, _check_text, "list every problem of the input (not only the first)"),
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m rules", description="Score a Liaoning mahjong hand (hand-json v1)."
    )
    sub = p.add_subparsers(dest="command", required=True)
    for name, (_, _, help_text) in COMMANDS.items():
        s = sub.add_parser(name, help=help_text)
        s.add_argument("file", help="hand JSON file, or - for standard input")
        mode = s.add_mutually_exclusive_group()
        mode.add_argument("--text", action="store_true", help="print a table for people instead of JSON")
        mode.add_argument(
            "--jsonl", action="store_true", help="one hand per line in, one result per line out"
        )
    return p


def _emit(text: str, stream: object = None) -> None:
    """Write one line that no input can make unwritable, and flush it (results stream)."""
    out = stream or sys.stdout
    data = text.encode("utf-8", "backslashreplace") + b"\n"
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        out.flush()  # type: ignore[attr-defined]
        buffer.write(data)
        buffer.flush()
    else:  # a text-only stream (e.g. a test's capture)
        out.write(data.decode("utf-8"))  # type: ignore[attr-defined]
        out.flush()  # type: ignore[attr-defined]


_LINE_BREAKS = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})


def _dumps(obj: dict) -> str:
    """One JSON line; the characters some readers take for line breaks are escaped (they can only
    occur inside strings, where the escape means the same)."""
    return json.dumps(obj, ensure_ascii=False).translate(_LINE_BREAKS)


#: The most bytes one hand may take: a file in file mode, a line in `--jsonl` (a hand is a few KB).
MAX_INPUT = 1 << 20
_CHUNK = 1 << 16  # what is read at a time while skipping the rest of a line over MAX_INPUT
_BOM = b"\xef\xbb\xbf"


def _too_long(n: int) -> str:
    return f"more than {MAX_INPUT // (1 << 20)} MB ({n} bytes): far too long to be a hand"


def _open(path: str) -> BinaryIO:
    if path == "-":
        return sys.stdin.buffer
    return open(path, "rb")  # noqa: SIM115 - closed by the caller


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    as_json, as_text, _ = COMMANDS[args.command]
    try:
        stream = _open(args.file)
    except OSError as e:
        _emit(f"error: cannot read {args.file}: {e.strerror or e}", sys.stderr)
        return 2
    try:
        if args.jsonl:
            return _jsonl(stream, as_json)
        try:
            data = stream.read(MAX_INPUT + 1)
            if len(data) > MAX_INPUT:  # not read further: the input may be endless
                _emit(f"error: {args.file}: {_too_long(len(data))}", sys.stderr)
                return 2
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            _emit(f"error: {args.file}: not UTF-8 text ({_bad_byte(e)})", sys.stderr)
            return 2
        except OSError as e:
            _emit(f"error: cannot read {args.file}: {e.strerror or e}", sys.stderr)
            return 2
        if args.command == "check":
            problems = check_document(text)
            _emit(check_text(problems) if args.text else _dumps(check_dict(problems)))
            return 2 if problems else 0
        try:
            out = as_text(text) if args.text else _dumps(as_json(text))
        except HandError as e:
            _emit(f"error: {e}", sys.stderr)
            return 2
        _emit(out)
        return 0
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def _bad_byte(e: UnicodeDecodeError) -> str:
    return f"byte 0x{e.object[e.start]:02x} at position {e.start}"


def answer_line(raw: bytes, n: int, as_json: Callable[[str], dict]) -> dict:
    """The output object for input line `n` (1-based): a result, or an error object — never raises."""
    try:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise HandError("", f"not UTF-8 text ({_bad_byte(e)})", "JSON") from None
        return as_json(text)
    except HandError as e:
        return {"version": 1, "error": f"line {n}: {e}", "code": e.code, "field": e.field}
    except Exception as e:  # noqa: BLE001 - the batch goes on whatever one line does
        # A bug must not take the rest of the batch with it; say so on this line and on stderr.
        print(f"rules: internal error on line {n}: {type(e).__name__}: {e}", file=sys.stderr)
        return {"version": 1, "error": f"line {n}: internal error ({type(e).__name__})", "code": "INTERNAL"}


def _jsonl(stream: BinaryIO, as_json: Callable[[str], dict]) -> int:
    n = 0
    while True:
        raw = stream.readline(MAX_INPUT + 1)
        if not raw:
            return 0
        n += 1
        if n == 1 and raw.startswith(_BOM):  # a UTF-8 byte order mark, as editors on Windows write
            raw = raw[len(_BOM) :]
        ended = raw.endswith(b"\n")
        line = raw[:-1] if ended else raw
        if len(line) > MAX_INPUT:
            size = len(line) + (0 if ended else _skip_line(stream))
            error = HandError("", _too_long(size), "TOO_LONG")
            _emit(_dumps({"version": 1, "error": f"line {n}: {error}", "code": error.code, "field": ""}))
            continue
        _emit(_dumps(answer_line(line, n, as_json)))


def _skip_line(stream: BinaryIO) -> int:
    """Read past the rest of a line a chunk at a time (never holding it whole); its length."""
    skipped = 0
    while True:
        chunk = stream.readline(_CHUNK)
        if not chunk:
            return skipped
        if chunk.endswith(b"\n"):
            return skipped + len(chunk) - 1
        skipped += len(chunk)
