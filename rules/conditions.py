"""Win conditions per preset family, as ordered filters (SPEC 1.3, 3.2 and the precedence of 5.3).

Each condition is (reason code, test on one reading). A hand is valid when some reading passes them
all; otherwise the reason is the first condition that no remaining reading passes.
"""

from __future__ import annotations

from collections.abc import Callable

from .context import HandFacts
from .decompose import Reading

Test = Callable[[HandFacts, Reading], bool]


def _ly_suits(f: HandFacts, r: Reading) -> bool:
    if r.form == "qidui" and not f.options.get("qidui_requires_suits_yaojiu"):
        return True
    return f.natural_suits == 3


def _ly_yaojiu(f: HandFacts, r: Reading) -> bool:
    if r.form == "qidui":
        return not f.options.get("qidui_requires_suits_yaojiu") or f.natural_yaojiu
    return f.natural_yaojiu or r.borrow_yaojiu


def _ly_ke(f: HandFacts, r: Reading) -> bool:
    return r.form == "qidui" or r.triplets >= 1 or r.pair_dragon


def _as_thirteen_like(f: HandFacts, r: Reading) -> bool:
    """七对 and 十三幺 relax the suit rule (one suit may be missing) and the shape rule."""
    return r.form in ("qidui", "thirteen") or f.all_yaojiu


def _as_suits(f: HandFacts, r: Reading) -> bool:
    return f.natural_suits >= (2 if _as_thirteen_like(f, r) else 3)


def _as_yaojiu(f: HandFacts, r: Reading) -> bool:
    return r.form != "standard" or f.natural_yaojiu


def _as_shun(f: HandFacts, r: Reading) -> bool:
    return _as_thirteen_like(f, r) or r.chows >= 1


def _as_ke(f: HandFacts, r: Reading) -> bool:
    return _as_thirteen_like(f, r) or r.triplets >= 1 or r.pair_dragon


CONDITIONS: dict[str, tuple[tuple[str, Test], ...]] = {
    "liaoyang": (("MISSING_SUIT", _ly_suits), ("NO_YAOJIU", _ly_yaojiu), ("NO_KE", _ly_ke)),
    "anshan": (
        ("MISSING_SUIT", _as_suits),
        ("NO_YAOJIU", _as_yaojiu),
        ("NO_SHUN", _as_shun),
        ("NO_KE", _as_ke),
    ),
}


def filter_readings(
    family: str, facts: HandFacts, readings: list[Reading]
) -> tuple[list[Reading], str | None]:
    """Readings that pass every condition, or ([], the first failing reason)."""
    remaining = readings
    for reason, test in CONDITIONS[family]:
        remaining = [r for r in remaining if test(facts, r)]
        if not remaining:
            return [], reason
    return remaining, None
