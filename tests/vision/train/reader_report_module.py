"""benchmarks/reader_report.py loaded as a module (it is a script, not a package), once for every
test file that checks it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "reader_report", Path(__file__).parents[3] / "benchmarks" / "reader_report.py"
)
report = importlib.util.module_from_spec(_SPEC)
sys.modules["reader_report"] = report  # its dataclasses look their module up there
_SPEC.loader.exec_module(report)
