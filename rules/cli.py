"""Command line: `python -m rules score FILE|- [--text | --jsonl]`.

Malformed input prints one line `error: FIELD: what is wrong` on stderr and exits with status 2; a
well-formed hand that cannot win is a normal result (`"valid": false` with a reason).
In `--jsonl` mode a malformed line gives `{"version": 1, "error": "..."}` on its output line and the
run goes on. A worked example of the spec (`{"id", "note", "hand", "expect"}`) is accepted as is: its
`hand` is scored, so `python -m rules score --text ../shared/rules/examples/LY-1.json` just works.
"""

from __future__ import annotations

import argparse
import json
import sys

from .engine import score
from .errors import HandError
from .parse import loads_document
from .text import render_text


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m rules", description="Score a Liaoning mahjong hand (hand-json v1)."
    )
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("score", help="score one hand (or one per line with --jsonl)")
    s.add_argument("file", help="hand JSON file, or - for standard input")
    mode = s.add_mutually_exclusive_group()
    mode.add_argument("--text", action="store_true", help="print a table for people instead of JSON")
    mode.add_argument("--jsonl", action="store_true", help="one hand per line in, one result per line out")
    return p


def _dumps(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        text = _read(args.file)
    except (OSError, UnicodeDecodeError) as e:
        print(f"error: cannot read {args.file}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
        return 2
    if args.jsonl:
        return _jsonl(text)
    try:
        result = score(loads_document(text))
    except HandError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(render_text(result) if args.text else _dumps(result.to_dict()))
    return 0


def _jsonl(text: str) -> int:
    out = sys.stdout
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            result = score(loads_document(line)).to_dict()
        except HandError as e:
            result = {"version": 1, "error": f"line {n}: {e}"}
        out.write(_dumps(result) + "\n")
    return 0
