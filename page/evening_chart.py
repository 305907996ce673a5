"""The evening at a glance: each seat's running total over the hands, as numbers and as a picture.

Why: the book's totals say where the evening stands now, not how it got there — who led when, when
the dealer kept the deal (连庄) and which hands were drawn (黄庄). The table asks that all evening
long, and the group chat wants the whole evening as one picture at the end of it.

Everything comes from the evening and its recorded hands (`Scorebook._snapshot` / `history`), never
recomputed from tiles: a running total is the sum of the recorded payments, so the last point of
each line is the book's total (`standing_of`). The picture is drawn with Pillow at twice the size
it is shown on a 390 px phone (780 px wide, text at least 24 px there) with the project's shipped CJK
font, loaded through `page.share` (one loader for every picture the page shares). Should no CJK font
be found, the words are English and a name is shown only when it is ASCII, as in `page.share`.

Intended use (page/panels/evening.py):

    png = chart_png(ev, hist, "zh")        # None for an evening without hands
    st.image(png, width="stretch")
    st.download_button("下载图片", evening_png(ev, hist, "zh"), "mahjong-evening.png", "image/png")
    st.code(evening_text(ev, hist, "zh"), language=None)
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from page.names import seat_words
from page.scorebook import Evening, HandRecord
from page.share import _font
from page.words import no_bidi
from rules.hand import SEATS
from rules.presets import PRESETS

WIDTH = 780  # twice the 390 px phone width: sharp on a phone screen
CHART_H = 500
MARGIN = 24
LABEL_W = 230  # the column right of the lines for "东 老王 +600"
TICK_PX, LABEL_PX, TITLE_PX, ROW_PX = 24, 26, 32, 28
LINE_W = 4
#: One colour per seat, far apart for colour-blind eyes too (Okabe–Ito), dark enough on white.
SEAT_COLOURS = {"E": (0, 114, 178), "S": (213, 94, 0), "W": (0, 150, 110), "N": (170, 80, 160)}
INK, GREY, GRID, BAND, BG = (30, 30, 30), (110, 110, 110), (228, 228, 228), (236, 236, 236), (255, 255, 255)
GREEN, RED = (20, 130, 60), (200, 30, 30)

Font = ImageFont.ImageFont | ImageFont.FreeTypeFont
#: The chart's own words (the rest are seat names, numbers and the players' names): each drawn
#: character must be in the shipped subset (tests/page/test_evening_chart.py checks).
DRAW_MARK = {"zh": "荒", "en": "draw"}
KEPT_MARK = "连"  # English draws the dot alone: the legend says what it means
AXIS = {"zh": "局", "en": "hand"}
LEGEND = {"zh": "灰底“荒”：黄庄 · 大圆点“连”：连庄", "en": "grey band: draw · big dot: dealer kept the deal"}


@dataclass(frozen=True)
class EveningSeries:
    """The evening hand by hand: `totals[seat][i]` is the seat's total after hand `numbers[i]`.

    `draws` are the 黄庄 hands (nobody won), `kept` the 连庄 hands (the dealer won and deals again),
    both as hand numbers; `dealers[i]` dealt hand `numbers[i]`.
    """

    numbers: tuple[int, ...]
    totals: dict[str, tuple[int, ...]]
    dealers: tuple[str, ...]
    draws: tuple[int, ...]
    kept: tuple[int, ...]

    def leaders(self, i: int) -> tuple[str, ...]:
        """Who leads after the i-th hand (several on a tie); nobody while every total is 0."""
        best = max(self.totals[s][i] for s in SEATS)
        return tuple(s for s in SEATS if self.totals[s][i] == best) if best > 0 else ()

    def key(self) -> tuple:
        """Everything the picture is drawn from, hashable: the page redraws on every tap, the
        picture is kept per key."""
        return (self.numbers, tuple(self.totals[s] for s in SEATS), self.dealers, self.draws, self.kept)


def series_of(hands: Sequence[HandRecord]) -> EveningSeries:
    """The running totals, 黄庄 and 连庄 of the hands in the book's order (oldest first)."""
    running = dict.fromkeys(SEATS, 0)
    totals: dict[str, list[int]] = {s: [] for s in SEATS}
    for h in hands:
        for s in SEATS:
            running[s] += int(h.payments.get(s, 0))
            totals[s].append(running[s])
    return EveningSeries(
        numbers=tuple(h.number for h in hands),
        totals={s: tuple(v) for s, v in totals.items()},
        dealers=tuple(h.dealer for h in hands),
        draws=tuple(h.number for h in hands if h.is_draw),
        kept=tuple(h.number for h in hands if not h.is_draw and h.lianzhuang),
    )


# ---------------------------------------------------------------------- words


def signed(points: int) -> str:
    """+600, -200, and 0 for even (not +0): how the book writes a total."""
    return f"{points:+d}" if points else "0"


def _clean(name: object) -> str:
    """A typed name safe to draw: no bidi controls (a U+202E would turn the line around), one line."""
    return " ".join(no_bidi(str(name or "")).split())


def seat_label(ev: Evening, seat: str, lang: str, cjk: bool = True, short: bool = False) -> str:
    """东家 老王 / East 老王 (东 老王 / E 老王 with `short`); without a CJK font only ASCII names."""
    words = seat_words(seat, short=short)
    base = words.en if (lang == "en" or not cjk) else words.zh
    name = _clean(ev.names.get(seat, ""))
    if not name or name == seat_words(seat).zh:
        return base
    return f"{base} {name}" if cjk or name.isascii() else base


def _title(ev: Evening, n: int, lang: str) -> str:
    """2026-12-01 · 辽阳麻将 · 4 局: which evening the picture is of."""
    p = PRESETS.get(ev.preset)
    day = ev.started_at[:10]
    if lang == "en":
        return f"{day} · {p.title_en if p else ev.preset} · {n} hand{'s' if n != 1 else ''}"
    return f"{day} · {p.title if p else ev.preset} · {n} 局"


def _lead_runs(series: EveningSeries) -> list[tuple[int, int, tuple[str, ...]]]:
    """(first hand, last hand, leaders) for each stretch of the evening with the same leaders."""
    runs: list[tuple[int, int, tuple[str, ...]]] = []
    for i, number in enumerate(series.numbers):
        who = series.leaders(i)
        if runs and runs[-1][2] == who:
            runs[-1] = (runs[-1][0], number, who)
        else:
            runs.append((number, number, who))
    return [r for r in runs if r[2]]


def evening_text(ev: Evening, hands: Sequence[HandRecord], lang: str = "zh") -> str | None:
    """The evening for the group chat: totals per seat, who leads, who led when; None without hands."""
    if not hands:
        return None
    series = series_of(hands)
    en = lang == "en"
    last = len(series.numbers) - 1
    leaders = series.leaders(last)
    lines = [_title(ev, len(hands), lang)]
    for s in SEATS:
        mark = (" (leads)" if en else "（领先）") if s in leaders else ""
        lines.append(f"{seat_label(ev, s, lang)} {signed(series.totals[s][last])}{mark}")
    runs = _lead_runs(series)
    if runs:
        parts = []
        for first, end, who in runs:
            names = "/".join(seat_words(s).pick(lang) for s in who)
            span = f"{first}" if first == end else f"{first}–{end}"
            parts.append(f"hand {span} {names}" if en else f"第 {span} 局 {names}")
        lines.append("Lead: " + ", ".join(parts) if en else "领先：" + "，".join(parts))
    if series.draws or series.kept:
        if en:
            lines.append(f"Draws: {len(series.draws)} · dealer kept the deal: {len(series.kept)}")
        else:
            lines.append(f"黄庄 {len(series.draws)} 局 · 连庄 {len(series.kept)} 次")
    return "\n".join(lines)


# ---------------------------------------------------------------------- the chart


def _nice_step(span: float, ticks: int = 5) -> int:
    """A round gridline step (1, 2, 5 × 10^k) giving about `ticks` lines over `span` points."""
    raw = max(span / ticks, 1)
    mag = 10 ** math.floor(math.log10(raw))
    return int(next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw))


def _y_range(series: EveningSeries) -> tuple[int, int, int]:
    """(low, high, step): round bounds that hold 0 and every total."""
    values = [0, *(v for s in SEATS for v in series.totals[s])]
    lo, hi = min(values), max(values)
    step = _nice_step(hi - lo)
    return step * math.floor(lo / step), step * math.ceil(hi / step) or step, step


def _fit(d: ImageDraw.ImageDraw, text: str, font: Font, width: float) -> str:
    """`text` cut with … so it fits `width` (a long name must not run off the picture)."""
    if d.textlength(text, font=font) <= width:
        return text
    while text and d.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def _spread(ys: list[float], gap: float, top: float, bottom: float) -> list[float]:
    """Label positions near `ys` (sorted), at least `gap` apart, inside [top, bottom]: two seats
    with the same total still get a readable label each."""
    out = list(ys)
    for i in range(1, len(out)):
        out[i] = max(out[i], out[i - 1] + gap)
    if out and out[-1] > bottom:
        out[-1] = bottom
        for i in range(len(out) - 2, -1, -1):
            out[i] = min(out[i], out[i + 1] - gap)
    if out and out[0] < top:
        shift = top - out[0]
        out = [y + shift for y in out]
    return out


def _lifts(series: EveningSeries) -> dict[str, list[float]]:
    """Pixels each seat's point is moved down at the start and after each hand: seats with the
    same total are drawn as stripes side by side (else the last line drawn hides the others);
    a total no other seat has is drawn where it is."""
    out: dict[str, list[float]] = {s: [] for s in SEATS}
    for i in range(len(series.numbers) + 1):
        at = {s: series.totals[s][i - 1] if i else 0 for s in SEATS}
        for s in SEATS:
            same = [t for t in SEATS if at[t] == at[s]]
            out[s].append((same.index(s) - (len(same) - 1) / 2) * LINE_W)
    return out


def _ticks(n: int, every: int) -> list[int]:
    """Which of hands 1..n get their number under the axis: the first, every `every`-th after it
    and always the last (in place of a neighbour too close to it), so numbers never overlap."""
    shown = list(range(1, n + 1, every))
    if shown[-1] != n:
        if n - shown[-1] < every and len(shown) > 1:
            shown.pop()
        shown.append(n)
    return shown


@dataclass(frozen=True)
class _Frame:
    """Where the plot lies in the picture, and how hands and points map into it."""

    left: float
    right: float
    top: float
    bottom: float
    n: int
    lo: int
    hi: int

    def x(self, i: int) -> float:
        """x of the point after hand i (i = 0 is the start of the evening, every total 0)."""
        return self.left + (self.right - self.left) * i / self.n

    def y(self, value: float) -> float:
        return self.bottom - (self.bottom - self.top) * (value - self.lo) / (self.hi - self.lo)


def _draw_chart(
    d: ImageDraw.ImageDraw, top: int, series: EveningSeries, labels: tuple[str, ...], lang: str, cjk: bool
) -> None:
    """The chart into `d` from y=`top`: gridlines, 黄庄 bands, one line per seat, 连庄 dots, labels."""
    tick_f, label_f = _font(TICK_PX)[0], _font(LABEL_PX)[0]
    en = lang == "en" or not cjk
    lo, hi, step = _y_range(series)
    grid = list(range(lo, hi + 1, step))
    y_w = max(d.textlength(signed(v), font=tick_f) for v in grid)
    n = len(series.numbers)
    f = _Frame(MARGIN + y_w + 12, WIDTH - MARGIN - LABEL_W, top + 44, top + CHART_H - 96, n, lo, hi)
    half = (f.right - f.left) / n / 2
    for number in series.draws:  # 黄庄: a grey band over the hand, 荒 on top
        i = series.numbers.index(number) + 1
        d.rectangle((max(f.left, f.x(i) - half), f.top, min(f.right, f.x(i) + half), f.bottom), fill=BAND)
        mark = DRAW_MARK["en" if en else "zh"]
        if d.textlength(mark, font=tick_f) <= 2 * half + 8:
            d.text((f.x(i), f.top - 6), mark, font=tick_f, fill=GREY, anchor="md")
    for v in grid:
        d.line(
            (f.left, f.y(v), f.right, f.y(v)), fill=(90, 90, 90) if v == 0 else GRID, width=3 if v == 0 else 1
        )
        d.text((f.left - 10, f.y(v)), signed(v), font=tick_f, fill=GREY, anchor="rm")
    every = max(1, math.ceil(48 / (2 * half)))  # hand numbers at least 48 px apart
    for i in _ticks(n, every):
        d.text((f.x(i), f.bottom + 10), str(series.numbers[i - 1]), font=tick_f, fill=GREY, anchor="ma")
    d.text((f.left - 10, f.bottom + 10), AXIS["en" if en else "zh"], font=tick_f, fill=GREY, anchor="ra")
    lifts = _lifts(series)
    for s in SEATS:
        pts = [(f.x(i), f.y(v) + lifts[s][i]) for i, v in enumerate((0, *series.totals[s]))]
        d.line(pts, fill=SEAT_COLOURS[s], width=LINE_W, joint="curve")
        for x, y in pts[1:]:
            d.ellipse((x - 5, y - 5, x + 5, y + 5), fill=SEAT_COLOURS[s])
    said: list[tuple[float, float]] = []  # where a 连 is written: the next one must not sit on it
    for number in series.kept:  # 连庄: a big dot on the dealer's line, 连 above it
        i = series.numbers.index(number)
        s = series.dealers[i]
        x, y = f.x(i + 1), f.y(series.totals[s][i]) + lifts[s][i + 1]
        d.ellipse((x - 11, y - 11, x + 11, y + 11), fill=SEAT_COLOURS[s], outline=BG, width=3)
        if not en and all(abs(x - x0) >= TICK_PX + 4 or abs(y - y0) >= TICK_PX + 4 for x0, y0 in said):
            d.text((x, y - 14), KEPT_MARK, font=tick_f, fill=SEAT_COLOURS[s], anchor="md")
            said.append((x, y))
    _end_labels(d, f, series, labels, label_f)
    legend = LEGEND["en" if en else "zh"]
    d.text((MARGIN, top + CHART_H - 36), _fit(d, legend, tick_f, WIDTH - 2 * MARGIN), font=tick_f, fill=GREY)


def _end_labels(
    d: ImageDraw.ImageDraw, f: _Frame, series: EveningSeries, labels: tuple[str, ...], font: Font
) -> None:
    """Each seat's name and total at the end of its line, moved apart where totals are close."""
    last = len(series.numbers) - 1
    order = sorted(SEATS, key=lambda s: (-series.totals[s][last], SEATS.index(s)))
    wanted = [f.y(series.totals[s][last]) for s in order]
    placed = _spread(wanted, LABEL_PX + 6, f.top - 20, f.bottom + 20)
    for s, y_line, y in zip(order, wanted, placed, strict=True):
        x = f.right + 14
        d.line((f.right + 2, y_line, x - 2, y), fill=SEAT_COLOURS[s], width=2)
        words = f"{labels[SEATS.index(s)]} {signed(series.totals[s][last])}"
        d.text((x, y), _fit(d, words, font, WIDTH - MARGIN - x), font=font, fill=SEAT_COLOURS[s], anchor="lm")


def _png(img: Image.Image) -> bytes:
    """The picture as PNG at the fastest level: on these flat drawings `optimize` saves a fifth of
    the bytes and costs six times the time (25 ms against 155 ms, drawn again after every hand)."""
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


def _words(ev: Evening, lang: str) -> tuple[str, bool, tuple[str, ...]]:
    """(language drawn, CJK font found, short seat labels): English when no CJK font exists."""
    cjk = _font(TICK_PX)[1]
    drawn = lang if cjk else "en"
    return drawn, cjk, tuple(seat_label(ev, s, drawn, cjk, short=True) for s in SEATS)


def chart_png(ev: Evening, hands: Sequence[HandRecord], lang: str = "zh") -> bytes | None:
    """The running totals as a PNG 780 px wide (shown 390 px wide); None for an evening without hands."""
    if not hands:
        return None
    drawn, cjk, labels = _words(ev, lang)
    return _chart_cached(series_of(hands).key(), labels, drawn, cjk)


def _series(key: tuple) -> EveningSeries:
    numbers, totals, dealers, draws, kept = key
    return EveningSeries(numbers, dict(zip(SEATS, totals, strict=True)), dealers, draws, kept)


@lru_cache(maxsize=16)
def _chart_cached(key: tuple, labels: tuple[str, ...], lang: str, cjk: bool) -> bytes:
    img = Image.new("RGB", (WIDTH, CHART_H), BG)
    _draw_chart(ImageDraw.Draw(img), 0, _series(key), labels, lang, cjk)
    return _png(img)


def evening_png(ev: Evening, hands: Sequence[HandRecord], lang: str = "zh") -> bytes | None:
    """The evening to share as one PNG: title, each seat's total (the leader marked), the chart."""
    if not hands:
        return None
    drawn, cjk, labels = _words(ev, lang)
    rows = tuple(seat_label(ev, s, drawn, cjk) for s in SEATS)
    return _evening_cached(series_of(hands).key(), labels, rows, _title(ev, len(hands), drawn), drawn, cjk)


@lru_cache(maxsize=16)
def _evening_cached(
    key: tuple, labels: tuple[str, ...], rows: tuple[str, ...], title: str, lang: str, cjk: bool
) -> bytes:
    series = _series(key)
    title_f, row_f = _font(TITLE_PX)[0], _font(ROW_PX)[0]
    row_h = ROW_PX + 16
    head = MARGIN + TITLE_PX + 20 + row_h * len(SEATS) + 8
    img = Image.new("RGB", (WIDTH, head + CHART_H), BG)
    d = ImageDraw.Draw(img)
    d.text((MARGIN, MARGIN), _fit(d, title, title_f, WIDTH - 2 * MARGIN), font=title_f, fill=INK)
    last = len(series.numbers) - 1
    leaders = series.leaders(last)
    y = MARGIN + TITLE_PX + 20
    lead_word = "leads" if lang == "en" else "领先"
    for s, words in zip(SEATS, rows, strict=True):
        total = series.totals[s][last]
        d.rounded_rectangle((MARGIN, y + 8, MARGIN + 22, y + 30), radius=4, fill=SEAT_COLOURS[s])
        room = (
            WIDTH - 2 * MARGIN - 36 - 120 - (d.textlength(lead_word, font=row_f) + 16 if s in leaders else 0)
        )
        d.text((MARGIN + 36, y + 19), _fit(d, words, row_f, room), font=row_f, fill=INK, anchor="lm")
        colour = GREEN if total > 0 else RED if total < 0 else GREY
        d.text((WIDTH - MARGIN, y + 19), signed(total), font=row_f, fill=colour, anchor="rm")
        if s in leaders:
            d.text((WIDTH - MARGIN - 130, y + 19), lead_word, font=row_f, fill=GREEN, anchor="rm")
        y += row_h
    d.line((MARGIN, head - 4, WIDTH - MARGIN, head - 4), fill=GRID, width=2)
    _draw_chart(d, head, series, labels, lang, cjk)
    return _png(img)
