"""Settlement: from the winner's exponent F and each loser's items to money (SPEC 1.5, 2.4, 3.4)."""

from __future__ import annotations

from .context import HandFacts
from .items import bao_count
from .preset_model import Preset
from .result import FanLine, LoserResult


def settle(
    preset: Preset, facts: HandFacts, f_total: int, loser_fan: dict[str, list[FanLine]]
) -> tuple[dict[str, LoserResult], dict[str, int]]:
    """Per-loser amounts and the zero-sum payment vector."""
    if preset.settlement == "anshan":
        losers = _anshan(facts, f_total, loser_fan)
    else:
        losers = _liaoyang(preset, facts, f_total, loser_fan)
    hand = facts.hand
    payments = {s: 0 for s in ("E", "S", "W", "N")}
    for r in losers.values():
        payments[r.paid_by] -= r.capped
        payments[r.bao_paid_by] -= r.bao
        payments[hand.winner] += r.capped + r.bao
    return losers, payments


def _anshan(facts: HandFacts, f_total: int, loser_fan: dict[str, list[FanLine]]) -> dict[str, LoserResult]:
    cap = facts.options.get("fan_cap")
    out = {}
    for seat, lines in loser_fan.items():
        total = sum(x.fan for x in lines)
        n = f_total + total
        if isinstance(cap, int):
            n = min(n, cap)
        amount = 2**n
        out[seat] = LoserResult(seat, lines, total, n, amount, amount, 0, amount, seat, seat)
    return out


def _liaoyang(
    preset: Preset, facts: HandFacts, f_total: int, loser_fan: dict[str, list[FanLine]]
) -> dict[str, LoserResult]:
    hand = facts.hand
    unit = hand.room_multiplier
    di = preset.di * unit
    bao_flat = facts.options.get("bao_mode", "flat") == "flat"
    bao = preset.bao_amounts[bao_count(facts)] * unit if bao_flat else 0
    discarder = facts.discarder
    share_payer = discarder if preset.baosanjia and discarder else None
    bao_payer = discarder if facts.options.get("bao_paid_by_discarder") and discarder else None

    out = {}
    for seat, lines in loser_fan.items():
        total = sum(x.fan for x in lines)
        k = f_total + total
        raw = unit * 2**k
        out[seat] = LoserResult(
            seat=seat,
            fan=lines,
            fan_total=total,
            exponent=k,
            raw=raw,
            capped=min(raw, di),
            bao=bao,
            owes=0,
            paid_by=share_payer or seat,
            bao_paid_by=bao_payer or seat,
            diaodi=raw >= di,
        )
    if out and all(r.diaodi for r in out.values()):  # 摇: all three 掉底 pay twice the 底
        for r in out.values():
            r.yao = True
            r.capped = 2 * di
    for r in out.values():
        r.owes = r.capped + r.bao
    return out
