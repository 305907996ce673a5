"""`python -m rules …` as the tests run it: a fresh interpreter in the repository, text in and out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_rules(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The rules CLI with `args` (e.g. "check", a file), `stdin` as its input."""
    return subprocess.run(
        [sys.executable, "-m", "rules", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
