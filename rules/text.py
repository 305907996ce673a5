"""A result as a table a player can read at the table (Chinese tile names, every 番, every 混)."""

from __future__ import annotations

import unicodedata

from .names import SEAT_SHORT_ZH as SEAT_ZH
from .names import tile_name
from .presets import PRESETS
from .result import ScoreResult

__all__ = ["pad", "render_text", "tile_name"]


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text: str, width: int, right: bool = False) -> str:
    """Pad to a display width (CJK characters take two columns in a terminal)."""
    fill = " " * max(0, width - _width(text))
    return fill + text if right else text + fill


def _items(lines) -> str:
    return ", ".join(f"{x.name} {x.fan}" for x in lines) or "—"


def render_text(r: ScoreResult) -> str:
    title = PRESETS[r.preset].title
    out = [f"{title} · 胡牌: {SEAT_ZH[r.winner]} ({r.winner})", f"混: {tile_name(r.hun)}"]
    if not r.valid:
        out.append(f"不能胡 ({r.reason}): {r.message}")
        return "\n".join(out)
    if r.jiqiang:
        out[-1] += f"   鸡枪: {' '.join(tile_name(t) for t in r.jiqiang)}"
    out.append(f"牌型: {r.form}")
    for g in r.decomposition:
        tiles = " ".join(tile_name(t) for t in g.tiles)
        notes = []
        if g.meld:
            notes.append(g.kind)
        if g.hun_as:
            notes.append("混=" + ",".join(tile_name(t) for t in g.hun_as))
        if g.winning_tile:
            notes.append("胡张")
        out.append(f"  [{tiles}]" + (f"  ({'; '.join(notes)})" if notes else ""))
    out.append("")
    out.append("赢家番 (winner):")
    for x in r.winner_fan:
        out.append(f"  {pad(x.name, 8)} {x.fan:>3}  ({x.key})")
    out.append(f"  {pad('合计', 8)} {r.winner_fan_total:>3}")
    out.append("")
    heads = [
        pad("座位", 5),
        pad("输家番", 30),
        pad("指数", 5, True),
        pad("原始", 9, True),
        pad("实付", 7, True),
    ]
    out.append(" ".join(heads + [pad("宝", 5, True), pad("付款人", 8, True)]))
    for seat, lr in r.losers.items():
        status = " 摇" if lr.yao else (" 掉底" if lr.diaodi else "")
        payer = SEAT_ZH[lr.paid_by]
        cells = [pad(SEAT_ZH[seat], 5), pad(_items(lr.fan), 30), f"{lr.exponent:>5}", f"{lr.raw:>9}"]
        cells += [f"{lr.capped:>7}", f"{lr.bao:>5}", pad(payer, 8, True) + status]
        out.append(" ".join(cells))
    out.append("")
    out.append("结算 (payments): " + "  ".join(f"{SEAT_ZH[s]} {v:+d}" for s, v in r.payments.items()))
    return "\n".join(out)
