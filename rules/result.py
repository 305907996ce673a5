"""Typed score results and their hand-json output form."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import tiles as T
from .decompose import Group
from .errors import REASON_MESSAGES

__all__ = ["REASON_MESSAGES", "FanLine", "LoserResult", "ScoreResult", "group_dict"]


@dataclass(frozen=True)
class FanLine:
    key: str
    name: str
    fan: int  # value × count

    def to_dict(self) -> dict:
        return {"key": self.key, "name": self.name, "fan": self.fan}


@dataclass
class LoserResult:
    seat: str
    fan: list[FanLine]
    fan_total: int
    exponent: int  # F + L_i (after any cap on the exponent)
    raw: int
    capped: int  # the share after 底 and 摇
    bao: int
    owes: int  # capped + bao: what this loser's account is charged
    paid_by: str  # who pays the share (the discarder under 包三家)
    bao_paid_by: str
    diaodi: bool = False
    yao: bool = False

    def to_dict(self) -> dict:
        return {
            "fan": [f.to_dict() for f in self.fan],
            "fan_total": self.fan_total,
            "exponent": self.exponent,
            "raw": self.raw,
            "capped": self.capped,
            "diaodi": self.diaodi,
            "yao": self.yao,
            "bao": self.bao,
            "owes": self.owes,
            "paid_by": self.paid_by,
            "bao_paid_by": self.bao_paid_by,
        }


def group_dict(g: Group) -> dict:
    d: dict = {"kind": g.kind, "tiles": [T.code(t) for t in g.tiles]}
    if g.hun_as:
        d["hun_as"] = [T.code(t) for t in g.hun_as]
    if g.meld:
        d["meld"] = True
    if g.winning_tile:
        d["winning_tile"] = True
    return d


@dataclass
class ScoreResult:
    valid: bool
    preset: str
    winner: str
    hun: int
    reason: str | None = None
    message: str | None = None
    jiqiang: tuple[int, ...] = ()
    form: str | None = None
    decomposition: list[Group] = field(default_factory=list)
    winner_fan: list[FanLine] = field(default_factory=list)
    winner_fan_total: int = 0
    losers: dict[str, LoserResult] = field(default_factory=dict)
    payments: dict[str, int] = field(default_factory=dict)

    @property
    def hun_stand_ins(self) -> list[tuple[str, str]]:
        """(group label, stand-in) for every 混 in the chosen reading, for people."""
        out = []
        for g in self.decomposition:
            label = "".join(T.code(t) for t in g.tiles)
            out += [(label, T.code(t)) for t in g.hun_as]
        return out

    def to_dict(self) -> dict:
        if not self.valid:
            return {
                "version": 1,
                "valid": False,
                "preset": self.preset,
                "winner": self.winner,
                "reason": self.reason,
                "message": self.message,
            }
        d: dict = {
            "version": 1,
            "valid": True,
            "preset": self.preset,
            "winner": self.winner,
            "hun": T.code(self.hun),
        }
        if self.jiqiang:
            d["jiqiang"] = [T.code(t) for t in self.jiqiang]
        d.update(
            {
                "form": self.form,
                "decomposition": [group_dict(g) for g in self.decomposition],
                "winner_fan": [f.to_dict() for f in self.winner_fan],
                "winner_fan_total": self.winner_fan_total,
                "losers": {s: r.to_dict() for s, r in self.losers.items()},
                "payments": dict(self.payments),
            }
        )
        return d
