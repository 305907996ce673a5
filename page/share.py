"""A scored hand for the group chat: as Chinese text (WeChat) and as a PNG picture.

Why both: text pastes anywhere and can be searched later; a picture shows the tiles, the 番 and who
pays what at a glance, the way players show a hand across the table. Both are built from the
engine's result (`rules.score(hand).to_dict()`), never recomputed, so what is shared is what was
scored and recorded.

The picture is drawn with Pillow. Tiles are labelled rectangles (五/万, 东, 中 …) grouped as the
engine read them; the winning tile has a red frame and 胡 above it, a 混 is gold with what it stands
for. Chinese is drawn with the shipped CJK font (`vision.fonts`; env `MAHJONG_SHARE_FONT` picks
another); should no CJK font be found at all, the picture falls back to Pillow's own font and ASCII
words (tile codes, E/S/W/N) so it stays readable.

Intended use in app.py:

    from page import share
    text = share.result_text(result_dict, hand, names=evening.names, number=rec.number)
    st.code(text, language=None)                    # the copy button copies it for WeChat
    png = share.result_png(result_dict, hand, names=evening.names, number=rec.number)
    st.download_button("保存图片", png, "mahjong-hand.png", "image/png")
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from page.words import no_bidi
from rules.hand import SEATS
from rules.names import KIND_ZH, SEAT_ZH, WIN_BY_ZH, tile_name
from rules.presets import PRESETS
from vision.fonts import SHIPPED_CJK_FONT

FONT_ENV = "MAHJONG_SHARE_FONT"
#: CJK fonts tried in order after `$MAHJONG_SHARE_FONT`: the shipped font first, so the picture looks
#: the same on every machine; then Debian's fonts-wqy-zenhei, fonts-wqy-microhei and fonts-noto-cjk,
#: for an install that lacks the shipped file.
FONT_CANDIDATES: tuple[str, ...] = (
    str(SHIPPED_CJK_FONT),
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
)
GROUP_ZH = {"pair": "将", "triplet": "刻", "chow": "顺", **KIND_ZH}
MELDS = {"chi", "pong", "kong", "added_kong", "concealed_kong"}


class ShareError(ValueError):
    """The result cannot be shared (e.g. a hand that did not win)."""


@dataclass(frozen=True)
class TileMark:
    """One tile as shown: its code, what a 混 stands for (None if natural), whether it is the win."""

    code: str
    hun_as: str | None = None
    winning: bool = False


@dataclass(frozen=True)
class GroupView:
    kind: str
    meld: bool
    tiles: tuple[TileMark, ...]


@dataclass(frozen=True)
class PictureText:
    """The words the picture and text use: Chinese, or ASCII when no CJK font can draw Chinese."""

    cjk: bool

    def seat(self, seat: str, names: Mapping[str, str] | None) -> str:
        base = SEAT_ZH.get(seat, seat) if self.cjk else seat
        name = no_bidi(str((names or {}).get(seat, "")))  # a name never turns the line around
        if not name or name == SEAT_ZH.get(seat):
            return base
        return f"{base} {name}" if self.cjk or name.isascii() else base

    def tile(self, code: str) -> str:
        return tile_name(code) if self.cjk else code

    def fan(self, item: Mapping) -> str:
        return str(item.get("name")) if self.cjk else str(item.get("key"))


def groups_of(result: Mapping, hand: Mapping | None = None) -> list[GroupView]:
    """The winner's tiles in the engine's grouping, with the 混 and the winning tile marked.

    The result lists what each group stands for and, in `hun_as`, the stand-ins of its 混 tiles; a
    stand-in is marked on one matching tile of the group. The winning tile is the hand's `win.tile`
    in the group the engine flagged `winning_tile`.
    """
    win_tile = ((hand or {}).get("win") or {}).get("tile")
    out = []
    for g in result.get("decomposition", []):
        codes = list(g["tiles"])
        hun_left = list(g.get("hun_as", []))
        marks = []
        win_left = bool(g.get("winning_tile"))
        for c in codes:
            hun = None
            if c in hun_left:
                hun_left.remove(c)
                hun = c
            win = win_left and c == win_tile and hun is None
            win_left = win_left and not win
            marks.append(TileMark(c, hun, win))
        out.append(GroupView(str(g["kind"]), bool(g.get("meld")), tuple(marks)))
    return out


def _require_valid(result: Mapping) -> None:
    if not result.get("valid"):
        raise ShareError("只能分享能胡的牌 (only a scored win can be shared)")


def _headline(result: Mapping, hand: Mapping | None, names, number, w: PictureText) -> list[str]:
    preset = str(result.get("preset", ""))
    p = PRESETS.get(preset)
    title = (p.title if w.cjk else p.name) if p else preset
    if number is not None:
        title += f" · 第{number}局" if w.cjk else f" · hand {number}"
    win = (hand or {}).get("win") or {}
    by = win.get("by")
    who = w.seat(str(result["winner"]), names)
    if w.cjk:
        how = WIN_BY_ZH.get(by, "")
        if by in ("discard", "robbed_kong") and win.get("from"):
            how = f"{w.seat(win['from'], names)} {how}"
        line = f"{who} 胡" + (f"（{how}）" if how else "")
        hun = f"混：{w.tile(result['hun'])}" if result.get("hun") else ""
    else:
        line = f"{who} wins" + (
            f" ({by}" + (f" from {win['from']})" if win.get("from") else ")") if by else ""
        )
        hun = f"hun: {result['hun']}" if result.get("hun") else ""
    return [title, line] + ([hun] if hun else [])


def _fan_line(items: list, total: int, w: PictureText) -> str:
    parts = [f"{w.fan(i)} {i['fan']}" for i in items]
    if w.cjk:
        return "番：" + ("、".join(parts) if parts else "无") + f"（共 {total} 番）"
    return "fan: " + (", ".join(parts) if parts else "none") + f" (total {total})"


def _loser_lines(result: Mapping, names, w: PictureText) -> list[str]:
    lines = []
    for seat in SEATS:
        lo = result.get("losers", {}).get(seat)
        if lo is None:
            continue
        own = ("、" if w.cjk else ", ").join(f"{w.fan(i)} {i['fan']}" for i in lo.get("fan", []))
        own = own or ("—" if w.cjk else "-")
        extra = []
        if lo.get("yao"):
            extra.append("摇" if w.cjk else "yao")
        elif lo.get("diaodi"):
            extra.append("掉底" if w.cjk else "capped")
        # 包三家: the share and the 宝 may each be paid by someone else; say who pays which part
        share, bao = lo.get("capped", 0), lo.get("bao", 0)
        if lo.get("paid_by", seat) != seat:
            who = w.seat(lo["paid_by"], names)
            extra.append(f"{share} 由{who}代付" if w.cjk else f"{share} paid by {who}")
        if bao:
            payer = lo.get("bao_paid_by", seat)
            if w.cjk:
                extra.append(f"含宝 {bao}" + (f" 由{w.seat(payer, names)}代付" if payer != seat else ""))
            else:
                extra.append(f"incl. bao {bao}" + (f" paid by {payer}" if payer != seat else ""))
        tail = f"（{'，'.join(extra)}）" if extra and w.cjk else (f" ({', '.join(extra)})" if extra else "")
        verb = "付" if w.cjk else "owes"
        sep, arrow = ("：", "→") if w.cjk else (": ", "->")
        lines.append(f"{w.seat(seat, names)}{sep}{own} {arrow} {verb} {lo.get('owes', 0)}{tail}")
    return lines


def settlement_line(result: Mapping, names: Mapping[str, str] | None = None, cjk: bool = True) -> str:
    """Each seat's signed result in words: 东家 付 4 · 南家 收 10 · …"""
    w = PictureText(cjk)
    parts = []
    for seat in SEATS:
        v = int(result.get("payments", {}).get(seat, 0))
        if cjk:
            verb = "收" if v > 0 else "付" if v < 0 else "不输不赢"
            parts.append(f"{w.seat(seat, names)} {verb}" + (f" {abs(v)}" if v else ""))
        else:
            parts.append(f"{seat} {v:+d}")
    return " · ".join(parts)


def _tiles_line(groups: list[GroupView], w: PictureText) -> str:
    out = []
    for g in groups:
        names = []
        for t in g.tiles:
            n = w.tile(t.code)
            if t.hun_as:
                n += "(混)" if w.cjk else "(hun)"
            if t.winning:
                n += "*"
            names.append(n)
        body = " ".join(names)
        out.append(f"[{GROUP_ZH.get(g.kind, g.kind) if w.cjk else g.kind} {body}]" if g.meld else body)
    return " | ".join(out)


def result_text(
    result: Mapping,
    hand: Mapping | None = None,
    names: Mapping[str, str] | None = None,
    number: int | None = None,
) -> str:
    """The hand's result in Chinese, one fact per line, ready to paste into WeChat."""
    _require_valid(result)
    w = PictureText(True)
    lines = _headline(result, hand, names, number, w)
    lines.append("牌：" + _tiles_line(groups_of(result, hand), w) + "（*胡的牌）")
    lines.append(_fan_line(result.get("winner_fan", []), int(result.get("winner_fan_total", 0)), w))
    lines += _loser_lines(result, names, w)
    lines.append("结算：" + settlement_line(result, names))
    return "\n".join(lines)


# ---------------------------------------------------------------------- picture


@lru_cache(maxsize=4)
def _font_path() -> str | None:
    """`$MAHJONG_SHARE_FONT` when it is a file, else the first of `FONT_CANDIDATES` found, else None.

    A character the chosen font lacks (a rare given-name character, an emoji) is drawn as the
    font's missing-glyph box: visible, and never an error.
    """
    env = os.environ.get(FONT_ENV)
    if env and Path(env).is_file():
        return env
    return next((p for p in FONT_CANDIDATES if Path(p).is_file()), None)


def _font(size: int) -> tuple[ImageFont.ImageFont | ImageFont.FreeTypeFont, bool]:
    """(font, can draw Chinese)."""
    return _font_at(_font_path(), size)


@lru_cache(maxsize=16)
def _font_at(path: str | None, size: int) -> tuple[ImageFont.ImageFont | ImageFont.FreeTypeFont, bool]:
    """Loaded once per file and size: reading a CJK .ttc costs tens of ms."""
    if path:
        try:
            return ImageFont.truetype(path, size), True
        except OSError:
            pass
    return ImageFont.load_default(size=size), False


TILE_W, TILE_H, TILE_GAP, GROUP_GAP, MARGIN = 40, 56, 3, 10, 20
WIDTH = 720
INK, RED, GREEN, GREY = (30, 30, 30), (200, 30, 30), (20, 130, 60), (110, 110, 110)
IVORY, GOLD, BG = (250, 246, 232), (246, 205, 90), (255, 255, 255)


def _tile_face(code: str, cjk: bool) -> tuple[str, str, tuple[int, int, int]]:
    """(big character, small suit character, ink) for a tile rectangle."""
    if not cjk:
        return code[:-1] if code[-1] in "mps" else code, code[-1] if code[-1] in "mps" else "", INK
    name = tile_name(code)
    colour = RED if code in ("C", "中") or code.endswith("m") else GREEN if code in ("F", "发") else INK
    return (name[0], name[1:], colour) if len(name) > 1 else (name, "", colour)


def _layout_rows(groups: list[GroupView], width: int) -> list[list[GroupView]]:
    rows: list[list[GroupView]] = [[]]
    x = MARGIN
    for g in groups:
        gw = len(g.tiles) * (TILE_W + TILE_GAP) - TILE_GAP
        if rows[-1] and x + gw > width - MARGIN:
            rows.append([])
            x = MARGIN
        rows[-1].append(g)
        x += gw + GROUP_GAP
    return rows


def _draw_tile(d: ImageDraw.ImageDraw, x: int, y: int, t: TileMark, cjk: bool, fonts) -> None:
    big_f, small_f, tag_f = fonts
    fill = GOLD if t.hun_as else IVORY
    d.rounded_rectangle((x, y, x + TILE_W, y + TILE_H), radius=6, fill=fill, outline=GREY, width=1)
    big, small, ink = _tile_face(t.code, cjk)
    if small:
        d.text((x + TILE_W / 2, y + 20), big, font=big_f, fill=ink, anchor="mm")
        d.text((x + TILE_W / 2, y + 43), small, font=small_f, fill=ink, anchor="mm")
    else:
        d.text((x + TILE_W / 2, y + TILE_H / 2), big, font=big_f, fill=ink, anchor="mm")
    if t.hun_as:
        d.text((x + TILE_W / 2, y + TILE_H + 10), "混" if cjk else "hun", font=tag_f, fill=INK, anchor="mm")
    if t.winning:
        d.rounded_rectangle((x - 2, y - 2, x + TILE_W + 2, y + TILE_H + 2), radius=7, outline=RED, width=3)
        d.text((x + TILE_W / 2, y - 12), "胡" if cjk else "win", font=tag_f, fill=RED, anchor="mm")


def result_png(
    result: Mapping,
    hand: Mapping | None = None,
    names: Mapping[str, str] | None = None,
    number: int | None = None,
    width: int = WIDTH,
) -> bytes:
    """The hand's result as a PNG: headline, the tiles as the engine grouped them, 番 and payments.

    The page redraws on every tap while the result stays the same, so the last pictures are kept
    (keyed by everything drawn, the font included)."""
    _require_valid(result)
    key = json.dumps([result, hand, names, number, width, _font_path()], sort_keys=True, ensure_ascii=False)
    return _png(key)


@lru_cache(maxsize=16)
def _png(key: str) -> bytes:
    result, hand, names, number, width, _ = json.loads(key)
    title_f, cjk = _font(30)
    text_f, _ = _font(22)
    fonts = (_font(26)[0], _font(18)[0], _font(14)[0])
    w = PictureText(cjk)
    head = _headline(result, hand, names, number, w)
    groups = groups_of(result, hand)
    rows = _layout_rows(groups, width)
    body = [_fan_line(result.get("winner_fan", []), int(result.get("winner_fan_total", 0)), w)]
    body += _loser_lines(result, names, w)
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    body = [part for line in body for part in _wrap(measure, line, text_f, width)]  # every 番 shown
    pay = [
        (seat, int(result.get("payments", {}).get(seat, 0)))
        for seat in SEATS
        if seat in result.get("payments", {})
    ]
    line_h = 34
    tiles_h = len(rows) * (TILE_H + 40)
    height = (
        MARGIN + 44 + line_h * (len(head) - 1) + 20 + tiles_h + line_h * (len(body) + len(pay)) + 30 + MARGIN
    )
    img = Image.new("RGB", (width, height), BG)
    d = ImageDraw.Draw(img)
    y = MARGIN
    d.text((MARGIN, y), head[0], font=title_f, fill=INK)
    y += 44
    for line in head[1:]:
        d.text((MARGIN, y), _fit(d, line, text_f, width), font=text_f, fill=INK)
        y += line_h
    y += 30
    for row in rows:
        x = MARGIN
        for g in row:
            if g.meld:
                gw = len(g.tiles) * (TILE_W + TILE_GAP) - TILE_GAP
                d.rectangle((x - 4, y - 4, x + gw + 4, y + TILE_H + 4), outline=GREY, width=1)
            for t in g.tiles:
                _draw_tile(d, x, y, t, cjk, fonts)
                x += TILE_W + TILE_GAP
            x += GROUP_GAP - TILE_GAP
        y += TILE_H + 40
    for line in body:
        d.text((MARGIN, y), _fit(d, line, text_f, width), font=text_f, fill=INK)
        y += line_h
    y += 10
    for seat, v in pay:
        if cjk:
            words = f"{w.seat(seat, names)}  " + ("收" if v > 0 else "付" if v < 0 else "不输不赢")
        else:
            words = f"{w.seat(seat, names)}  " + ("gets" if v > 0 else "pays" if v < 0 else "even")
        colour = GREEN if v > 0 else RED if v < 0 else GREY
        d.text((MARGIN, y), words, font=text_f, fill=INK)
        d.text((width - MARGIN, y), f"{v:+d}" if v else "0", font=text_f, fill=colour, anchor="ra")
        y += line_h
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)  # a flat drawing: the fastest level compresses it about as well
    return buf.getvalue()


def _wrap(d: ImageDraw.ImageDraw, text: str, font, width: int) -> list[str]:
    """A line broken into lines that fit the picture (never cut: every 番 item must be seen), at
    item separators where possible."""
    limit = width - 2 * MARGIN
    out: list[str] = []
    rest = text
    while rest and d.textlength(rest, font=font) > limit:
        cut = len(rest)
        while cut > 1 and d.textlength(rest[:cut], font=font) > limit:
            cut -= 1
        for sep in ("、", ", ", "；", " "):
            at = rest.rfind(sep, 0, cut)
            if at > 0:
                cut = at + len(sep)
                break
        out.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        out.append(rest)
    return out


def _fit(d: ImageDraw.ImageDraw, text: str, font, width: int) -> str:
    """Cut a line that would run off the picture, with … at the end."""
    limit = width - 2 * MARGIN
    if d.textlength(text, font=font) <= limit:
        return text
    while text and d.textlength(text + "…", font=font) > limit:
        text = text[:-1]
    return text + "…"
