"""Win-condition tests (SPEC 1.3, 3.2) and the ordered filter that picks the reason (SPEC 5.3).

Each test says whether one reading passes one condition. Which tests a preset applies, in which
order and under which option, is a row of its table (`Preset.conditions`). A hand is valid when
some reading passes them all; otherwise the reason is the first condition that no remaining reading
passes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .context import HandFacts
from .decompose import Reading
from .preset_model import Condition

Test = Callable[[HandFacts, Reading], bool]


def liaoyang_suits(f: HandFacts, r: Reading) -> bool:
    """三门齐 with natural tiles; 七对 is exempt unless `qidui_requires_suits_yaojiu`."""
    if r.form == "qidui" and not f.options.get("qidui_requires_suits_yaojiu"):
        return True
    return f.natural_suits == 3


def liaoyang_yaojiu(f: HandFacts, r: Reading) -> bool:
    """A natural 幺九, or a 混 as 1/9 in a 顺子 with a natural tile (借混靠幺九)."""
    if r.form == "qidui":
        return not f.options.get("qidui_requires_suits_yaojiu") or f.natural_yaojiu
    return f.natural_yaojiu or r.borrow_yaojiu


def liaoyang_ke(f: HandFacts, r: Reading) -> bool:
    """横: a triplet/碰/杠 or a 中/发/白 pair with a natural tile; 七对 is exempt."""
    return r.form == "qidui" or r.triplets >= 1 or r.pair_dragon


def _anshan_thirteen_like(f: HandFacts, r: Reading) -> bool:
    """七对 and 十三幺 relax the suit rule (one suit may be missing) and the shape rule."""
    return r.form in ("qidui", "thirteen") or f.all_yaojiu


def anshan_suits(f: HandFacts, r: Reading) -> bool:
    return f.natural_suits >= (2 if _anshan_thirteen_like(f, r) else 3)


def anshan_yaojiu(f: HandFacts, r: Reading) -> bool:
    return r.form != "standard" or f.natural_yaojiu


def anshan_shun(f: HandFacts, r: Reading) -> bool:
    return _anshan_thirteen_like(f, r) or r.chows >= 1


def anshan_ke(f: HandFacts, r: Reading) -> bool:
    return _anshan_thirteen_like(f, r) or r.triplets >= 1 or r.pair_dragon


def filter_readings(
    conditions: Iterable[Condition], facts: HandFacts, readings: list[Reading]
) -> tuple[list[Reading], str | None]:
    """Readings that pass every condition that applies, or ([], the first failing reason)."""
    remaining = readings
    for cond in conditions:
        if cond.option is not None and not facts.options.get(cond.option):
            continue
        remaining = [r for r in remaining if cond.test(facts, r)]
        if not remaining:
            return [], cond.reason
    return remaining, None
