"""What the player looks at while checking a reading: the photo with numbered boxes, tile crops, names.

Why a module: the page must redraw on every correction, so drawing works on a display-sized copy
(a 12 MP photo is scaled once, boxes are scaled with it) and stays fast; and the picker's order
(the model's next guesses first) and the "unsure" rule are decisions worth a test. Labels drawn on
the photo are tile names (五万, 中; 5m, C in English) in the CJK font the project ships (`vision.fonts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from page.box import Box
from vision.classes import BACK, display_name
from vision.fonts import shipped_cjk_font

COLOURS = {
    "sure": (46, 160, 67),
    "unsure": (255, 140, 0),
    "added": (30, 120, 230),
    "ignored": (150, 150, 150),
    "selected": (220, 30, 60),
    "picked": (140, 40, 200),
    "maybe": (0, 150, 200),
}


@dataclass(frozen=True)
class Mark:
    """One box to draw: its number on the page, its label, and how to colour it."""

    number: int
    xyxy: tuple[float, float, float, float]
    label: str
    style: str = "sure"  # sure | unsure | added | ignored | selected | picked | maybe

    @property
    def is_tile(self) -> bool:
        """A tile of the reading (numbered), not a "maybe missed" suggestion."""
        return self.style != "maybe"


def face_label(code: str) -> str:
    """`五万 · 5m` for pickers: the name a player reads, with the code the photo labels show."""
    return f"{display_name(code)} · {code}"


def display_scale(width: int, height: int, max_side: int) -> float:
    """Factor from photo pixels to display pixels (never enlarges)."""
    return min(1.0, max_side / max(width, height, 1))


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """The shipped CJK font (tile names on the photo), else Pillow's own."""
    path = shipped_cjk_font()
    try:
        if path is not None:
            return ImageFont.truetype(str(path), size)
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # pragma: no cover - Pillow without FreeType
        return ImageFont.load_default()


def shrink(rgb: np.ndarray, max_side: int) -> np.ndarray:
    """A display copy of the photo (area-averaged when shrinking)."""
    h, w = rgb.shape[:2]
    s = display_scale(w, h, max_side)
    if s >= 1.0:
        return rgb
    im = Image.fromarray(rgb).resize((max(1, round(w * s)), max(1, round(h * s))), Image.Resampling.BOX)
    return np.asarray(im)


def draw_marks(display: np.ndarray, marks: Sequence[Mark], scale: float) -> np.ndarray:
    """Draw numbered boxes on a display copy; `scale` maps photo pixels to it. Returns a new array."""
    im = Image.fromarray(display).convert("RGB")
    draw = ImageDraw.Draw(im)
    h, w = display.shape[:2]
    line = max(2, round(max(w, h) / 400))
    font = _font(max(11, round(max(w, h) / 55)))
    for m in marks:
        x1, y1, x2, y2 = (v * scale for v in m.xyxy)
        colour = COLOURS.get(m.style, COLOURS["sure"])
        width = line * 2 if m.style in ("unsure", "selected", "picked") else line
        if m.is_tile:
            draw.rectangle((x1, y1, x2, y2), outline=colour, width=width)
            text = f"{m.number}:{m.label}" if m.label else str(m.number)
        else:
            _dashed_rectangle(draw, (x1, y1, x2, y2), colour, width, dash=4 * line)
            text = m.label
        tb = draw.textbbox((0, 0), text, font=font)
        tw, th = tb[2] - tb[0], tb[3] - tb[1]
        ty = y1 - th - 2 * line if y1 - th - 2 * line >= 0 else y2 + line
        tx = min(max(0, x1), max(0, w - tw - 2 * line))
        draw.rectangle((tx, ty, tx + tw + 2 * line, ty + th + 2 * line), fill=colour)
        draw.text((tx + line - tb[0], ty + line - tb[1]), text, fill=(255, 255, 255), font=font)
    return np.asarray(im)


def _dashed_rectangle(
    draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], colour: tuple, width: int, dash: int
) -> None:
    """A rectangle drawn in dashes (Pillow has none): a suggestion, not a tile."""
    x1, y1, x2, y2 = box
    for a, b, horizontal, at in (
        (x1, x2, True, y1),
        (x1, x2, True, y2),
        (y1, y2, False, x1),
        (y1, y2, False, x2),
    ):
        start = a
        while start < b:
            end = min(start + dash, b)
            draw.line((start, at, end, at) if horizontal else (at, start, at, end), fill=colour, width=width)
            start += 2 * dash


def annotate(rgb: np.ndarray, marks: Sequence[Mark], max_side: int = 1280) -> np.ndarray:
    """The photo scaled for display with every mark drawn on it."""
    h, w = rgb.shape[:2]
    return draw_marks(shrink(rgb, max_side), marks, display_scale(w, h, max_side))


def tile_crop(rgb: np.ndarray, xyxy: Sequence[float], height: int = 72, margin: float = 0.06) -> np.ndarray:
    """A small picture of one tile cut from the photo (shown beside its picker), `height` px tall."""
    h, w = rgb.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in xyxy)
    bw, bh = x2 - x1, y2 - y1
    xa, xb = int(max(0, x1 - margin * bw)), int(min(w, x2 + margin * bw))
    ya, yb = int(max(0, y1 - margin * bh)), int(min(h, y2 + margin * bh))
    if xb - xa < 2 or yb - ya < 2:
        return np.full((height, max(1, height * 3 // 4), 3), 230, np.uint8)
    crop = Image.fromarray(np.ascontiguousarray(rgb[ya:yb, xa:xb]))
    new_w = max(1, round(crop.width * height / crop.height))
    return np.asarray(crop.resize((new_w, height), Image.Resampling.BOX))


def marks_for(
    boxes: Sequence[Box],
    winning: int | None = None,
    picked: int | None = None,
    lang: str = "zh",
    maybe: Sequence[Box] = (),
) -> list[Mark]:
    """Marks for the page's boxes, always from their current state (drawn after every correction).

    Numbers are 1-based positions in the list, which is how the page names tiles ("tile 7"). A box set
    aside (不在手里 / 删除) is grey whatever else is true of it; the winning tile is red, the tile being
    fixed purple; then added (blue), unsure (orange) and sure (green). Labels are the tile names a
    player reads (五万, 背面), codes in English (5m, back). The "maybe missed" suggestions still open
    (`maybe`: page.photo_state.Photo.maybe) are drawn dashed, unnumbered, labelled "+五万?": a tap
    takes one (page.keyboard.tap_target).
    """
    out = []
    for i, b in enumerate(boxes):
        if b.xyxy is None:
            continue
        if not b.in_play:
            style = "ignored"
        elif i == picked:
            style = "picked"
        elif i == winning:
            style = "selected"
        elif b.origin == "added":
            style = "added"
        elif b.needs_check:
            style = "unsure"
        else:
            style = "sure"
        out.append(Mark(i + 1, (b.xyxy[0], b.xyxy[1], b.xyxy[2], b.xyxy[3]), _label(b.cls, lang), style))
    for b in maybe:
        if b.xyxy is None or b.fixed:
            continue
        out.append(Mark(0, (b.xyxy[0], b.xyxy[1], b.xyxy[2], b.xyxy[3]), f"+{_label(b.cls, lang)}?", "maybe"))
    return out


def _label(code: str, lang: str) -> str:
    """A mark's tile name: as a player reads it (五万, 背面), or the code in English (5m, back)."""
    return display_name(code) if lang == "zh" else ("back" if code == BACK else code)
