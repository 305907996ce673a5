"""Drawn face bank: the 34 faces drawn procedurally, one printing style ("set") per bank column.

Why draw as well as cut (faces.py): faces cut from one real set teach the classifier that set's
printing only, yet photos show other sets too: other Chinese and Liaoning sets, Japanese riichi sets
without corner indices, 伍 for 五, 万 for 萬, a bird or a single stick for 1s, a blank or framed 白.
Drawing gives that variety of layout, colour and stroke weight, at the price of a CJK font.

Face j of every class belongs to set j: one style (ink colours, font face, stroke weight, corner
index or none, dot and stick design, 1s and 白 design, margins) plus a little per-face jitter, so a
scene can take all its faces from one set as a real table does.  Faces are drawn at `SUPER` times
the stored size and reduced with INTER_AREA, so strokes are smooth; then a slight blur and noise
bring them nearer to camera crops.  Same seed, font and library versions -> the same bytes.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.classes import FACE_NAMES
from vision.fonts import SHIPPED_CJK_FONT, shipped_cjk_font
from vision.train.synth.faces import FACE_H, FACE_W, FaceBank, cached_bank, default_cache_dir

#: Bump when drawing changes, so cached banks are rebuilt.  Version 3 added the prints of
#: `Variations.prints` (drawn after every earlier field: with `prints=False` the bank is version 2's).
DRAWN_VERSION = 3
#: The version drawn with `prints=False`.
PLAIN_VERSION = 2
DEFAULT_PER_CLASS = 24
#: Supersampling factor: faces are drawn at SUPER × the stored size.
SUPER = 4
_W, _H = FACE_W * SUPER, FACE_H * SUPER
#: Glyphs are rasterised once at this pixel size, then scaled into their boxes.
_GLYPH_PX = 160

#: Environment variable naming another font to draw with.
FONT_ENV = "VISION_CJK_FONT"

_NUMERALS = "一二三四五六七八九"
_WINDS = ("東南西北", "东南西北")
_WIND_LETTERS = "ESWN"
_DRAGON_LETTERS = "CFP"

BGR = tuple[int, int, int]


def find_cjk_font() -> Path:
    """The font the tile characters are drawn with: `$VISION_CJK_FONT`, else the shipped font.

    Never a system font: the drawn bank is training data, and one seed should draw the same faces
    on every machine, whatever fonts it has installed.  The shipped font (`vision.fonts`, a Noto
    Sans CJK SC subset) holds every character drawn here.  To draw with another font (the round-4
    classifier's drawn scenes used WenQuanYi Zen Hei), set `$VISION_CJK_FONT` to it; the bank's
    cache key names the font, so banks of different fonts never mix.  An explicit
    `$VISION_CJK_FONT` that is not a file is an error, not silently replaced: the user asked for
    that font.
    """
    env = os.environ.get(FONT_ENV)
    if env:
        p = Path(env)
        if not p.is_file():
            raise FileNotFoundError(f"{FONT_ENV}={env} is not a font file (set it to a CJK .ttf/.ttc/.otf)")
        return p
    shipped = shipped_cjk_font()
    if shipped is None:
        raise FileNotFoundError(
            f"the shipped CJK font {SHIPPED_CJK_FONT} is missing (reinstall the project, or set "
            f"{FONT_ENV} to a .ttf/.ttc/.otf with Chinese characters)"
        )
    return shipped


@lru_cache(maxsize=8)
def _n_faces(font: str) -> int:
    """Number of faces in a font file (a .ttc holds several; a .ttf one)."""
    n = 0
    for i in range(8):
        try:
            ImageFont.truetype(font, 12, index=i)
        except OSError:
            break
        n += 1
    if n == 0:
        raise FileNotFoundError(f"cannot open font {font}")
    return n


@lru_cache(maxsize=16)
def _font(font: str, index: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(font, _GLYPH_PX, index=index)


@lru_cache(maxsize=4096)
def _glyph(font: str, index: int, ch: str, weight: int) -> np.ndarray:
    """Tight uint8 mask of one character; `weight` > 0 thickens strokes, < 0 thins them."""
    f = _font(font, index)
    stroke = max(0, weight)
    left, top, right, bottom = f.getbbox(ch, stroke_width=stroke)
    img = Image.new("L", (right - left + 8, bottom - top + 8), 0)
    ImageDraw.Draw(img).text((4 - left, 4 - top), ch, fill=255, font=f, stroke_width=stroke, stroke_fill=255)
    a = np.asarray(img).copy()
    if weight < 0:
        a = cv2.erode(a, np.ones((3, 3), np.uint8), iterations=-weight)
    ys, xs = np.nonzero(a > 8)
    if len(ys) == 0:
        raise ValueError(f"font {font} (face {index}) has no glyph for {ch!r}")
    a = a[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].copy()
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class _SetStyle:
    """The printing style of one drawn set (all faces of bank column j share it)."""

    font: str
    font_index: int
    weight: int  # glyph stroke: < 0 thin, 0 as designed, > 0 bold
    stretch: float  # glyph width / height factor
    shear: float  # glyph slant (x shift per unit of height)
    bg: BGR
    num_ink: BGR  # 萬 numerals
    red: BGR
    green: BGR
    blue: BGR
    wind_ink: BGR
    man: str  # 萬 or 万
    five: str  # 五 or 伍
    winds: str
    fa: str  # 發 or 发
    man_split: float  # share of the print height given to the numeral
    index: bool  # corner index on suit tiles
    index_honours: str  # "", "letter" or "char"
    index_right: bool
    index_ink: BGR
    dot_style: str  # rings, flower, spokes, solid
    dot_scheme: str  # classic, mixed, blue
    stick_style: str  # segments, hollow, bar
    stick_alt: bool  # blue sticks mixed with the green ones
    eight_flip: bool  # 8s as M over W instead of W over M
    one_sou: str  # bird, peacock, stick
    bird_flip: bool
    white: str  # blank, frame, double
    margin_x: float
    margin_y: float
    line: float  # line weight factor for dots and sticks
    blur: float  # Gaussian sigma at the stored size
    noise: float
    red_fives: bool  # riichi sets print 5m 5p 5s in red (drawn last, so older fields keep their stream)
    # version 3 (`prints`), drawn after all of the above; the defaults draw as version 2 did
    man_scheme: str = "classic"  # red_numeral: numeral in red, 萬 in dark red or black
    man_ink: BGR = (0, 0, 0)  # 萬 ink of red_numeral sets
    bird: str = ""  # 1s as a one-ink silhouette: sparrow, crane, swallow, perched ("" = one_sou)
    bird_ink: BGR = (0, 0, 0)
    white_frame: str = ""  # 白 as corners, thick or rounded frame ("" = white)
    white_ink: BGR = (0, 0, 0)


def _ink(rng: np.random.Generator, kind: str) -> BGR:
    """A printing ink of `kind` with a random shade (BGR)."""
    lo, hi = {
        "blue": ((140, 40, 0), (210, 95, 45)),
        "navy": ((95, 25, 5), (135, 55, 35)),
        "black": ((15, 15, 15), (55, 55, 55)),
        "red": ((15, 15, 160), (60, 60, 225)),
        "green": ((30, 100, 0), (95, 160, 50)),
    }[kind]
    return tuple(int(rng.integers(a, b + 1)) for a, b in zip(lo, hi, strict=True))  # type: ignore[return-value]


def _more_prints(rng: np.random.Generator, st: _SetStyle) -> _SetStyle:
    """Version 3's variety on top of a version-2 style: a palette for numerals, winds and indices
    (blue, green, black or red prints), bold or thin strokes, riichi-style 萬 with a red numeral,
    1s birds of other shapes and colours, 白 framed in other ways and inks."""
    palette = ("classic", "classic", "blue", "green", "black", "red")[int(rng.integers(6))]
    changes: dict = {}
    if palette != "classic":
        ink = _ink(rng, palette)
        changes.update(num_ink=ink, wind_ink=ink, index_ink=ink)
        if palette == "blue":
            changes["green"] = _mix(st.green, ink, 0.6)
    stroke = ("as", "as", "bold", "thin")[int(rng.integers(4))]
    if stroke == "bold":
        changes.update(weight=max(st.weight, 2) + 2, line=st.line * 1.35)
    elif stroke == "thin":
        changes.update(weight=max(-3, min(st.weight, -1) - 1), line=st.line * 0.7)
    if rng.random() < 0.35:
        changes.update(
            man_scheme="red_numeral",
            man_ink=_mix(st.red, (0, 0, 0), 0.45) if rng.random() < 0.6 else _ink(rng, "black"),
        )
    bird = ("", "", "sparrow", "crane", "swallow", "perched")[int(rng.integers(6))]
    bird_ink = _ink(rng, ("green", "blue", "red", "black")[int(rng.integers(4))])
    white = ("", "", "corners", "thick", "rounded")[int(rng.integers(5))]
    white_ink = _ink(rng, ("blue", "blue", "green", "black", "red")[int(rng.integers(5))])
    return replace(st, **changes, bird=bird, bird_ink=bird_ink, white_frame=white, white_ink=white_ink)


def _random_set(rng: np.random.Generator, font: str, prints: bool = True) -> _SetStyle:
    """One set's style; every choice is drawn in the same order so the stream stays reproducible.

    `prints` adds version 3's variety (`_more_prints`), drawn after every version-2 field."""
    st = _version2_set(rng, font)
    return _more_prints(rng, st) if prints else st


def _version2_set(rng: np.random.Generator, font: str) -> _SetStyle:
    """The style fields of drawn bank version 2, in their drawing order."""
    red = int(rng.integers(236, 256))  # white to ivory: R >= G >= B, nearly grey
    green = red - int(rng.integers(0, 13))
    bg = (green - int(rng.integers(0, 32)), green, red)
    return _SetStyle(
        font=font,
        font_index=int(rng.integers(_n_faces(font))),
        weight=int(rng.choice([-2, -1, 0, 0, 1, 2, 3, 4])),
        stretch=float(rng.uniform(0.82, 1.18)),
        shear=float(rng.uniform(-0.1, 0.1)) if rng.random() < 0.3 else 0.0,
        bg=bg,
        num_ink=_ink(rng, ("blue", "navy", "black")[int(rng.integers(3))]),
        red=_ink(rng, "red"),
        green=_ink(rng, "green"),
        blue=_ink(rng, "blue" if rng.random() < 0.7 else "navy"),
        wind_ink=_ink(rng, ("blue", "navy", "black", "black")[int(rng.integers(4))]),
        man="万" if rng.random() < 0.15 else "萬",
        five="伍" if rng.random() < 0.3 else "五",
        winds=_WINDS[int(rng.random() < 0.12)],
        fa="发" if rng.random() < 0.15 else "發",
        man_split=float(rng.uniform(0.36, 0.46)),
        index=bool(rng.random() < 0.45),
        index_honours=("", "letter", "char")[int(rng.choice(3, p=[0.5, 0.35, 0.15]))],
        index_right=bool(rng.random() < 0.25),
        index_ink=_ink(rng, ("black", "blue", "red")[int(rng.integers(3))]),
        dot_style=("rings", "flower", "spokes", "solid")[int(rng.integers(4))],
        dot_scheme=("classic", "classic", "mixed", "blue")[int(rng.integers(4))],
        stick_style=("segments", "hollow", "bar")[int(rng.integers(3))],
        stick_alt=bool(rng.random() < 0.35),
        eight_flip=bool(rng.random() < 0.4),
        one_sou=("bird", "bird", "peacock", "stick")[int(rng.integers(4))],
        bird_flip=bool(rng.random() < 0.5),
        white=("blank", "frame", "frame", "double")[int(rng.integers(4))],
        margin_x=float(rng.uniform(0.05, 0.11)),
        margin_y=float(rng.uniform(0.04, 0.09)),
        line=float(rng.uniform(0.8, 1.3)),
        blur=float(rng.uniform(0.0, 0.6)),
        noise=float(rng.uniform(0.5, 2.5)),
        red_fives=bool(rng.random() < 0.25),
    )


# --- drawing primitives (on a uint8 BGR canvas of size _H × _W) ---------------------------------


def _pt(x: float, y: float) -> tuple[int, int]:
    return int(round(x)), int(round(y))


def _paint(canvas: np.ndarray, mask: np.ndarray, x: int, y: int, colour: BGR) -> None:
    """Alpha-blend `colour` through uint8 `mask` placed with its top-left at (x, y)."""
    h, w = canvas.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + mask.shape[1], w), min(y + mask.shape[0], h)
    if x0 >= x1 or y0 >= y1:
        return
    a = mask[y0 - y : y1 - y, x0 - x : x1 - x].astype(np.float32)[..., None] / 255.0
    sub = canvas[y0:y1, x0:x1].astype(np.float32)
    canvas[y0:y1, x0:x1] = (sub * (1 - a) + np.array(colour, np.float32) * a + 0.5).astype(np.uint8)


def _text(
    canvas: np.ndarray,
    st: _SetStyle,
    ch: str,
    box: tuple[float, float, float, float],
    colour: BGR,
    weight: int | None = None,
    stretch: float | None = None,
) -> None:
    """Draw character `ch` as large as fits in `box` (x0, y0, x1, y1), centred, in the set's style."""
    g = _glyph(st.font, st.font_index, ch, st.weight if weight is None else weight)
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    gh, gw = g.shape
    sx = st.stretch if stretch is None else stretch
    s = min(bw / (gw * sx), bh / gh)
    tw, th = max(1, int(round(gw * sx * s))), max(1, int(round(gh * s)))
    m = cv2.resize(np.ascontiguousarray(g), (tw, th), interpolation=cv2.INTER_AREA)
    if st.shear:  # italic: the top leans right for a positive shear
        pad = int(abs(st.shear) * th / 2) + 1
        a = np.float32([[1, -st.shear, st.shear * th / 2 + pad], [0, 1, 0]])
        m = cv2.warpAffine(m, a, (tw + 2 * pad, th), flags=cv2.INTER_LINEAR)
        tw += 2 * pad
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    _paint(canvas, m, int(round(cx - tw / 2)), int(round(cy - th / 2)), colour)


def _mix(a: BGR, b: BGR, t: float) -> BGR:
    return tuple(int(round(x * (1 - t) + y * t)) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def _ring_of_dots(
    canvas: np.ndarray,
    c: tuple[float, float],
    dist: float,
    n: int,
    dot_r: float,
    col: BGR,
    phase: float = 0.0,
) -> None:
    """`n` filled dots of radius `dot_r` evenly round centre `c` at distance `dist` (circle designs)."""
    for k in range(n):
        t = 2 * np.pi * k / n + phase
        cv2.circle(
            canvas, _pt(c[0] + dist * np.cos(t), c[1] + dist * np.sin(t)), int(dot_r), col, -1, cv2.LINE_AA
        )


def _spokes(canvas: np.ndarray, c: tuple[float, float], half: float, n: int, col: BGR, thick: int) -> None:
    """`n` lines through centre `c`, each `2 * half` long, evenly turned over half a circle."""
    for k in range(n):
        t = np.pi * k / n
        dx, dy = half * np.cos(t), half * np.sin(t)
        cv2.line(canvas, _pt(c[0] - dx, c[1] - dy), _pt(c[0] + dx, c[1] + dy), col, thick, cv2.LINE_AA)


def _dot(canvas: np.ndarray, st: _SetStyle, c: tuple[float, float], r: float, col: BGR, alt: BGR) -> None:
    """One 筒 circle in the set's design: concentric rings, a rosette, a spoked wheel or a solid coin."""
    lw = st.line
    aa = cv2.LINE_AA
    if st.dot_style == "rings":
        cv2.circle(canvas, _pt(*c), int(r * (1 - 0.08 * lw)), col, max(1, int(0.16 * r * lw)), aa)
        cv2.circle(canvas, _pt(*c), int(r * 0.55), alt, max(1, int(0.11 * r * lw)), aa)
        cv2.circle(canvas, _pt(*c), int(r * 0.22), col, -1, aa)
    elif st.dot_style == "flower":
        cv2.circle(canvas, _pt(*c), int(r * (1 - 0.05 * lw)), col, max(1, int(0.1 * r * lw)), aa)
        _ring_of_dots(canvas, c, 0.58 * r, 8, 0.2 * r, alt)
        cv2.circle(canvas, _pt(*c), int(r * 0.2), col, -1, aa)
    elif st.dot_style == "spokes":
        cv2.circle(canvas, _pt(*c), int(r * (1 - 0.07 * lw)), col, max(1, int(0.14 * r * lw)), aa)
        _spokes(canvas, c, 0.8 * r, 4, alt, max(1, int(0.09 * r * lw)))
        cv2.circle(canvas, _pt(*c), int(r * 0.3), st.bg, -1, aa)
        cv2.circle(canvas, _pt(*c), int(r * 0.3), col, max(1, int(0.08 * r * lw)), aa)
        cv2.circle(canvas, _pt(*c), int(r * 0.12), col, -1, aa)
    else:  # solid coin
        cv2.circle(canvas, _pt(*c), int(r * 0.97), col, -1, aa)
        cv2.circle(canvas, _pt(*c), int(r * 0.62), st.bg, max(1, int(0.1 * r * lw)), aa)
        cv2.circle(canvas, _pt(*c), int(r * 0.25), alt, -1, aa)


def _big_dot(
    canvas: np.ndarray, st: _SetStyle, c: tuple[float, float], r: float, rng: np.random.Generator
) -> None:
    """1p: one large ornate circle (rings, a petal wreath and a centre), in the set's three inks."""
    aa = cv2.LINE_AA
    cols = [st.green, st.blue, st.red]
    order = rng.permutation(3)
    c1, c2, c3 = (cols[int(i)] for i in order)
    cv2.circle(canvas, _pt(*c), int(r * 0.97), c1, max(2, int(0.07 * r * st.line)), aa)
    n = int(rng.integers(12, 19))
    for k in range(n):
        t = 2 * np.pi * k / n
        cv2.ellipse(
            canvas,
            _pt(c[0] + 0.8 * r * np.cos(t), c[1] + 0.8 * r * np.sin(t)),
            (int(0.13 * r), int(0.07 * r)),
            float(np.degrees(t)),
            0,
            360,
            c2,
            -1,
            aa,
        )
    cv2.circle(canvas, _pt(*c), int(r * 0.62), c1, max(2, int(0.06 * r * st.line)), aa)
    if st.dot_style in ("spokes", "solid"):
        _spokes(canvas, c, 0.5 * r, 8, c3, max(2, int(0.05 * r)))
    else:
        _ring_of_dots(canvas, c, 0.42 * r, 8, 0.1 * r, c3, phase=np.pi / 8)
    cv2.circle(canvas, _pt(*c), int(r * 0.24), c3, -1, aa)
    cv2.circle(canvas, _pt(*c), int(r * 0.12), st.bg, -1, aa)
    cv2.circle(canvas, _pt(*c), int(r * 0.05), c2, -1, aa)


def _stick(
    canvas: np.ndarray,
    st: _SetStyle,
    c: tuple[float, float],
    length: float,
    width: float,
    angle: float,
    col: BGR,
) -> None:
    """One 條 bamboo stick: two segments with a node in the middle and at both ends.

    `angle` in degrees, positive leans the top to the right."""
    aa = cv2.LINE_AA
    t = np.radians(angle)
    d = np.array([np.sin(t), -np.cos(t)])  # towards the top
    n = np.array([np.cos(t), np.sin(t)])  # across
    cc = np.array(c, np.float64)
    hl, hw = length / 2, width / 2
    dark = _mix(col, (0, 0, 0), 0.3)
    light = _mix(col, st.bg, 0.55)
    if st.stick_style in ("segments", "hollow"):
        for sgn in (-1, 1):
            e = cc + sgn * d * hl / 2
            axes = (max(1, int(hw)), max(1, int(hl / 2 * 0.96)))
            if st.stick_style == "segments":
                cv2.ellipse(canvas, _pt(*e), axes, angle, 0, 360, col, -1, aa)
                cv2.line(
                    canvas,
                    _pt(*(e - d * hl * 0.3)),
                    _pt(*(e + d * hl * 0.3)),
                    light,
                    max(1, int(0.3 * hw)),
                    aa,
                )
            else:
                cv2.ellipse(canvas, _pt(*e), axes, angle, 0, 360, col, max(3, int(0.5 * hw * st.line)), aa)
    else:  # straight bar with rounded ends
        cv2.line(canvas, _pt(*(cc - d * (hl - hw))), _pt(*(cc + d * (hl - hw))), col, max(2, int(2 * hw)), aa)
        cv2.line(
            canvas, _pt(*(cc - d * hl * 0.8)), _pt(*(cc + d * hl * 0.8)), light, max(1, int(0.3 * hw)), aa
        )
    for k in (-1.0, 0.0, 1.0):  # nodes
        p = cc + k * d * hl * (0.97 if k else 1.0)
        half = hw * (1.25 if k == 0 else 0.9)
        cv2.line(
            canvas, _pt(*(p - n * half)), _pt(*(p + n * half)), dark, max(2, int(0.45 * hw * st.line)), aa
        )


def _bird(
    canvas: np.ndarray, st: _SetStyle, box: tuple[float, float, float, float], rng: np.random.Generator
) -> None:
    """1s as a bird: green body, blue wing, red head with a beak and crest, a fan tail of feathers.

    Sets differ in which way it faces; `bird_flip` mirrors it."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    aa = cv2.LINE_AA
    f = -1.0 if st.bird_flip else 1.0

    def P(u: float, v: float) -> tuple[int, int]:
        return _pt(x0 + (1 - u if st.bird_flip else u) * w, y0 + v * h)

    def lw(k: float) -> int:
        return max(2, int(k * w * st.line))

    cols = [st.red, st.blue, st.green]
    nf = int(rng.integers(3, 6))
    for k in range(nf):  # tail feathers fanning down and away from the head
        u = 0.72 + 0.24 * k / max(1, nf - 1) + rng.uniform(-0.03, 0.03)
        v = 0.97 - 0.22 * k / max(1, nf - 1)
        cv2.line(canvas, P(0.6, 0.62), P(u, v), st.green, lw(0.03), aa)
        cv2.ellipse(canvas, P(u, v), (int(0.08 * w), int(0.035 * h)), 40.0 * f, 0, 360, cols[k % 3], -1, aa)
    cv2.line(canvas, P(0.45, 0.7), P(0.4, 0.94), st.red, lw(0.025), aa)  # legs
    cv2.line(canvas, P(0.53, 0.7), P(0.53, 0.96), st.red, lw(0.025), aa)
    cv2.line(canvas, P(0.32, 0.3), P(0.44, 0.52), st.green, lw(0.1), aa)  # neck
    cv2.ellipse(canvas, P(0.5, 0.58), (int(0.27 * w), int(0.16 * h)), -30.0 * f, 0, 360, st.green, -1, aa)
    cv2.ellipse(canvas, P(0.58, 0.53), (int(0.2 * w), int(0.08 * h)), -35.0 * f, 0, 360, st.blue, -1, aa)
    cv2.circle(canvas, P(0.3, 0.26), int(0.13 * w), st.red, -1, aa)  # head
    beak = np.array([P(0.2, 0.21), P(0.03, 0.3), P(0.21, 0.31)], np.int32)
    cv2.fillPoly(canvas, [beak], _mix(st.red, (0, 200, 255), 0.6), aa)
    cv2.circle(canvas, P(0.27, 0.23), int(0.035 * w), st.bg, -1, aa)  # eye
    cv2.circle(canvas, P(0.27, 0.23), max(1, int(0.016 * w)), (20, 20, 20), -1, aa)
    cv2.line(canvas, P(0.33, 0.15), P(0.43, 0.05), st.red, lw(0.02), aa)  # crest
    cv2.line(canvas, P(0.3, 0.14), P(0.31, 0.03), st.blue, lw(0.02), aa)


def _silhouette_bird(canvas: np.ndarray, st: _SetStyle, box: tuple[float, float, float, float]) -> None:
    """1s as a one-ink bird silhouette (sparrow, crane, swallow, or a sparrow perched on a stick),
    as plainer and modern sets print it; `bird_flip` mirrors it."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    aa = cv2.LINE_AA
    col = st.bird_ink
    f = -1.0 if st.bird_flip else 1.0

    def P(u: float, v: float) -> tuple[int, int]:
        return _pt(x0 + (1 - u if st.bird_flip else u) * w, y0 + v * h)

    def poly(pts: list[tuple[float, float]], c: BGR = col) -> None:
        cv2.fillPoly(canvas, [np.array([P(u, v) for u, v in pts], np.int32)], c, aa)

    def lw(k: float) -> int:
        return max(2, int(k * w * st.line))

    if st.bird == "crane":  # long legs, long neck, a red crown
        cv2.ellipse(canvas, P(0.55, 0.45), (int(0.26 * w), int(0.11 * h)), -20.0 * f, 0, 360, col, -1, aa)
        poly([(0.72, 0.4), (0.98, 0.3), (0.8, 0.52)])  # tail
        cv2.line(canvas, P(0.36, 0.42), P(0.3, 0.12), col, lw(0.07), aa)  # neck
        cv2.circle(canvas, P(0.3, 0.11), int(0.07 * w), col, -1, aa)
        poly([(0.26, 0.09), (0.02, 0.14), (0.26, 0.14)])  # beak
        cv2.circle(canvas, P(0.31, 0.07), max(2, int(0.035 * w)), st.red, -1, aa)
        cv2.line(canvas, P(0.52, 0.54), P(0.48, 0.97), col, lw(0.03), aa)
        cv2.line(canvas, P(0.6, 0.54), P(0.68, 0.8), col, lw(0.03), aa)
        cv2.line(canvas, P(0.68, 0.8), P(0.56, 0.78), col, lw(0.03), aa)
        return
    if st.bird == "swallow":  # in flight: swept wings and a forked tail
        cv2.ellipse(canvas, P(0.5, 0.5), (int(0.22 * w), int(0.08 * h)), 15.0 * f, 0, 360, col, -1, aa)
        cv2.circle(canvas, P(0.28, 0.45), int(0.09 * w), col, -1, aa)
        poly([(0.45, 0.45), (0.72, 0.08), (0.62, 0.47)])
        poly([(0.48, 0.55), (0.85, 0.88), (0.62, 0.53)])
        poly([(0.68, 0.52), (0.98, 0.45), (0.8, 0.56), (0.98, 0.66)])
        poly([(0.2, 0.43), (0.1, 0.47), (0.2, 0.48)])
        cv2.circle(canvas, P(0.26, 0.43), max(2, int(0.025 * w)), st.bg, -1, aa)
        return
    # sparrow (perched: on a bamboo stick)
    top = 0.05 if st.bird == "sparrow" else 0.0
    if st.bird == "perched":
        _stick(canvas, st, (x0 + 0.5 * w, y0 + 0.86 * h), 0.9 * w, 0.12 * w, 90.0, st.green)
    cv2.ellipse(canvas, P(0.52, 0.5 + top), (int(0.3 * w), int(0.2 * h)), 0.0, 0, 360, col, -1, aa)
    cv2.circle(canvas, P(0.3, 0.3 + top), int(0.16 * w), col, -1, aa)
    poly([(0.74, 0.48 + top), (0.99, 0.3 + top), (0.99, 0.44 + top), (0.8, 0.6 + top)])  # tail
    poly([(0.16, 0.26 + top), (0.03, 0.33 + top), (0.17, 0.35 + top)], _mix(col, (0, 140, 230), 0.5))  # beak
    cv2.ellipse(
        canvas,
        P(0.56, 0.47 + top),
        (int(0.2 * w), int(0.09 * h)),
        20.0 * f,
        0,
        360,
        _mix(col, st.bg, 0.35),
        -1,
        aa,
    )
    cv2.circle(canvas, P(0.27, 0.27 + top), max(2, int(0.035 * w)), st.bg, -1, aa)
    if st.bird == "sparrow":
        cv2.line(canvas, P(0.45, 0.68 + top), P(0.42, 0.9), col, lw(0.025), aa)
        cv2.line(canvas, P(0.56, 0.68 + top), P(0.58, 0.9), col, lw(0.025), aa)


def _white_frame(canvas: np.ndarray, st: _SetStyle, box: tuple[float, float, float, float]) -> None:
    """白 framed in version 3's ways: four corner brackets, a thick frame or a rounded frame."""
    x0, y0, x1, y1 = box
    aw, ah = x1 - x0, y1 - y0
    fx0, fy0, fx1, fy1 = x0 + 0.1 * aw, y0 + 0.08 * ah, x1 - 0.1 * aw, y1 - 0.08 * ah
    col, aa = st.white_ink, cv2.LINE_AA
    if st.white_frame == "corners":
        t = max(3, int(0.08 * aw * st.line))
        lx, ly = 0.3 * (fx1 - fx0), 0.22 * (fy1 - fy0)
        for cx, sx in ((fx0, 1), (fx1, -1)):
            for cy, sy in ((fy0, 1), (fy1, -1)):
                cv2.line(canvas, _pt(cx, cy), _pt(cx + sx * lx, cy), col, t, aa)
                cv2.line(canvas, _pt(cx, cy), _pt(cx, cy + sy * ly), col, t, aa)
    elif st.white_frame == "thick":
        cv2.rectangle(canvas, _pt(fx0, fy0), _pt(fx1, fy1), col, max(5, int(0.14 * aw * st.line)), aa)
    else:  # rounded
        r = 0.18 * aw
        t = max(3, int(0.06 * aw * st.line))
        cv2.line(canvas, _pt(fx0 + r, fy0), _pt(fx1 - r, fy0), col, t, aa)
        cv2.line(canvas, _pt(fx0 + r, fy1), _pt(fx1 - r, fy1), col, t, aa)
        cv2.line(canvas, _pt(fx0, fy0 + r), _pt(fx0, fy1 - r), col, t, aa)
        cv2.line(canvas, _pt(fx1, fy0 + r), _pt(fx1, fy1 - r), col, t, aa)
        for (cx, cy), a0 in (
            ((fx0 + r, fy0 + r), 180),
            ((fx1 - r, fy0 + r), 270),
            ((fx1 - r, fy1 - r), 0),
            ((fx0 + r, fy1 - r), 90),
        ):
            cv2.ellipse(canvas, _pt(cx, cy), (int(r), int(r)), 0, a0, a0 + 90, col, t, aa)


def _peacock(
    canvas: np.ndarray, st: _SetStyle, box: tuple[float, float, float, float], rng: np.random.Generator
) -> None:
    """1s as a peacock: a fan of eyed feathers over a small body."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    aa = cv2.LINE_AA
    base = (x0 + 0.5 * w, y0 + 0.7 * h)
    nf = int(rng.integers(5, 8))
    for k in range(nf):
        t = np.radians(-65 + 130 * k / (nf - 1))
        tip = (base[0] + 0.42 * w * np.sin(t) * 1.1, base[1] - 0.55 * h * np.cos(t))
        cv2.line(canvas, _pt(*base), _pt(*tip), st.green, max(2, int(0.025 * w * st.line)), aa)
        cv2.circle(canvas, _pt(*tip), int(0.085 * w), st.green, -1, aa)
        cv2.circle(canvas, _pt(*tip), int(0.055 * w), st.blue, -1, aa)
        cv2.circle(canvas, _pt(*tip), int(0.025 * w), st.red, -1, aa)
    cv2.ellipse(
        canvas, _pt(base[0], base[1] + 0.06 * h), (int(0.14 * w), int(0.13 * h)), 0, 0, 360, st.blue, -1, aa
    )
    cv2.circle(canvas, _pt(base[0], base[1] - 0.1 * h), int(0.07 * w), st.blue, -1, aa)
    cv2.circle(canvas, _pt(base[0] + 0.02 * w, base[1] - 0.11 * h), int(0.02 * w), st.bg, -1, aa)
    cv2.line(
        canvas,
        _pt(base[0] - 0.04 * w, base[1] + 0.18 * h),
        _pt(base[0] - 0.06 * w, y1),
        st.red,
        max(2, int(0.02 * w)),
        aa,
    )
    cv2.line(
        canvas,
        _pt(base[0] + 0.04 * w, base[1] + 0.18 * h),
        _pt(base[0] + 0.06 * w, y1),
        st.red,
        max(2, int(0.02 * w)),
        aa,
    )


# --- layouts -------------------------------------------------------------------------------------

#: 筒 layouts: (u, v) centres in the print area (0..1 each way), circle radius as a share of its width.
_DOTS: dict[int, tuple[list[tuple[float, float]], float]] = {
    1: ([(0.5, 0.5)], 0.48),
    2: ([(0.5, 0.25), (0.5, 0.75)], 0.29),
    3: ([(0.2, 0.15), (0.5, 0.5), (0.8, 0.85)], 0.2),
    4: ([(0.26, 0.25), (0.74, 0.25), (0.26, 0.75), (0.74, 0.75)], 0.23),
    5: ([(0.22, 0.17), (0.78, 0.17), (0.22, 0.83), (0.78, 0.83), (0.5, 0.5)], 0.2),
    6: ([(0.27, 0.14), (0.73, 0.14), (0.27, 0.56), (0.73, 0.56), (0.27, 0.86), (0.73, 0.86)], 0.2),
    7: (
        [(0.19, 0.1), (0.5, 0.23), (0.81, 0.36), (0.27, 0.62), (0.73, 0.62), (0.27, 0.88), (0.73, 0.88)],
        0.17,
    ),
    8: ([(u, v) for v in (0.12, 0.375, 0.625, 0.88) for u in (0.27, 0.73)], 0.17),
    9: ([(u, v) for v in (0.15, 0.5, 0.85) for u in (0.18, 0.5, 0.82)], 0.155),
}
#: The usual colours of each circle (b blue, g green, r red), in `_DOTS` order.
_DOT_COLOURS: dict[int, str] = {
    2: "gb",
    3: "brg",
    4: "bggb",
    5: "bggbr",
    6: "ggrrrr",
    7: "gggrrrr",
    8: "bbbbbbbb",
    9: "bbbrrrggg",
}

#: 條 layouts: (u, v, angle°) per stick, stick length as a share of the print height.
_STICKS: dict[int, tuple[list[tuple[float, float, float]], float]] = {
    2: ([(0.5, 0.26, 0), (0.5, 0.74, 0)], 0.42),
    3: ([(0.5, 0.26, 0), (0.27, 0.74, 0), (0.73, 0.74, 0)], 0.42),
    4: ([(0.27, 0.26, 0), (0.73, 0.26, 0), (0.27, 0.74, 0), (0.73, 0.74, 0)], 0.42),
    5: ([(0.19, 0.26, 0), (0.81, 0.26, 0), (0.5, 0.5, 0), (0.19, 0.74, 0), (0.81, 0.74, 0)], 0.42),
    6: ([(u, v, 0) for v in (0.26, 0.74) for u in (0.2, 0.5, 0.8)], 0.42),
    7: ([(0.5, 0.16, 0)] + [(u, v, 0) for v in (0.5, 0.84) for u in (0.2, 0.5, 0.8)], 0.29),
    8: (
        [(0.13, 0.26, 0), (0.36, 0.26, 17), (0.64, 0.26, -17), (0.87, 0.26, 0)]
        + [(0.13, 0.74, 0), (0.36, 0.74, -17), (0.64, 0.74, 17), (0.87, 0.74, 0)],
        0.4,
    ),
    9: ([(u, v, 0) for v in (0.17, 0.5, 0.83) for u in (0.2, 0.5, 0.8)], 0.3),
}
#: Which sticks are red in most sets (the rest are green, some blue in two-colour sets).
_STICK_RED: dict[int, set[int]] = {5: {2}, 7: {0}, 9: {1, 4, 7}}


def _dot_colours(st: _SetStyle, rank: int, rng: np.random.Generator) -> list[BGR]:
    ink = {"b": st.blue, "g": st.green, "r": st.red}
    scheme = _DOT_COLOURS[rank]
    if st.dot_scheme == "blue":
        scheme = "".join("r" if (rank == 5 and i == 4) else "b" for i in range(len(scheme)))
    elif st.dot_scheme == "mixed":
        scheme = "".join("bgr"[int(rng.integers(3))] for _ in scheme)
        if rank == 5:
            scheme = scheme[:4] + "r"
    return [ink[k] for k in scheme]


def _area(st: _SetStyle, index_side: bool) -> tuple[float, float, float, float]:
    """Print area of the face (inside the margins), narrowed on the index corner's side."""
    x0, x1 = st.margin_x * _W, _W - st.margin_x * _W
    y0, y1 = st.margin_y * _H, _H - st.margin_y * _H
    if index_side:
        if st.index_right:
            x1 -= 0.07 * _W
        else:
            x0 += 0.07 * _W
        y0 += 0.03 * _H
    return x0, y0, x1, y1


def _index(canvas: np.ndarray, st: _SetStyle, label: str) -> None:
    """A small corner index (Arabic digit, letter or character), top left or top right."""
    size = 0.17 * _H
    wid = 0.12 * _W if label.isascii() else 0.17 * _W
    x0 = _W - 0.02 * _W - wid if st.index_right else 0.025 * _W
    y0 = 0.02 * _H
    _text(
        canvas, st, label, (x0, y0, x0 + wid, y0 + size), st.index_ink, weight=min(st.weight, 1), stretch=1.0
    )


def _draw_face(cls: int, st: _SetStyle, rng: np.random.Generator) -> np.ndarray:
    """Face of class `cls` (0..33) in style `st`, at the stored size (FACE_H × FACE_W, uint8 BGR)."""
    canvas = np.empty((_H, _W, 3), np.uint8)
    canvas[:] = st.bg
    suit, rank = (cls // 9, cls % 9 + 1) if cls < 27 else (3, cls - 26)
    with_index = (suit < 3 and st.index) or (suit == 3 and bool(st.index_honours) and rank < 7)
    x0, y0, x1, y1 = _area(st, with_index)
    # per-face jitter: the print shifts and scales a little from tile to tile
    s = rng.uniform(0.96, 1.03)
    cx, cy = (x0 + x1) / 2 + rng.normal(0, 0.01) * _W, (y0 + y1) / 2 + rng.normal(0, 0.01) * _H
    hw, hh = (x1 - x0) / 2 * s, (y1 - y0) / 2 * s
    x0, y0, x1, y1 = cx - hw, cy - hh, cx + hw, cy + hh
    aw, ah = x1 - x0, y1 - y0
    red_five = st.red_fives and rank == 5 and suit < 3
    if suit == 0:  # 萬: numeral over 萬
        split = y0 + st.man_split * ah
        num = st.five if rank == 5 else _NUMERALS[rank - 1]
        num_ink = st.red if red_five or st.man_scheme == "red_numeral" else st.num_ink
        man_ink = st.man_ink if st.man_scheme == "red_numeral" else st.red
        _text(canvas, st, num, (x0 + 0.1 * aw, y0, x1 - 0.1 * aw, split - 0.02 * ah), num_ink)
        _text(canvas, st, st.man, (x0, split + 0.03 * ah, x1, y1), man_ink)
    elif suit == 1:  # 筒
        if rank == 1:
            _big_dot(canvas, st, ((x0 + x1) / 2, (y0 + y1) / 2), 0.49 * aw, rng)
        else:
            pos, r = _DOTS[rank]
            cols = [st.red] * len(pos) if red_five else _dot_colours(st, rank, rng)
            alt_ink = [st.blue, st.green, st.red]
            for (u, v), col in zip(pos, cols, strict=True):
                alt = col if red_five or rng.random() < 0.6 else alt_ink[int(rng.integers(3))]
                _dot(canvas, st, (x0 + u * aw, y0 + v * ah), r * aw, col, alt)
    elif suit == 2:  # 條
        box = (x0, y0, x1, y1)
        if rank == 1:
            if st.bird:
                _silhouette_bird(canvas, st, box)
            elif st.one_sou == "bird":
                _bird(canvas, st, box, rng)
            elif st.one_sou == "peacock":
                _peacock(canvas, st, box, rng)
            else:
                # one large stick with red knobs: the plainer sets' 1s
                cx = (x0 + x1) / 2
                _stick(canvas, st, (cx, (y0 + y1) / 2), 0.86 * ah, 0.34 * aw, 0.0, st.green)
                for y in (y0 + 0.05 * ah, y1 - 0.05 * ah):
                    cv2.circle(canvas, _pt(cx, y), int(0.1 * aw), st.red, -1, cv2.LINE_AA)
                    cv2.circle(canvas, _pt(cx, y), int(0.04 * aw), st.bg, -1, cv2.LINE_AA)
        else:
            pos, length = _STICKS[rank]
            if rank == 8 and st.eight_flip:
                pos = [(u, v, -a) for u, v, a in pos]
            red = _STICK_RED.get(rank, set())
            width = (0.15 if rank < 8 else 0.12) * aw * st.line
            for i, (u, v, a) in enumerate(pos):
                col = st.red if i in red or red_five else (st.blue if st.stick_alt and i % 2 else st.green)
                _stick(canvas, st, (x0 + u * aw, y0 + v * ah), length * ah, width, a, col)
    else:  # honours: 東 南 西 北 中 發 白
        if rank <= 4:
            _text(
                canvas,
                st,
                st.winds[rank - 1],
                (x0 + 0.04 * aw, y0 + 0.12 * ah, x1 - 0.04 * aw, y1 - 0.12 * ah),
                st.wind_ink,
            )
        elif rank == 5:
            _text(canvas, st, "中", (x0 + 0.06 * aw, y0 + 0.1 * ah, x1 - 0.06 * aw, y1 - 0.1 * ah), st.red)
        elif rank == 6:
            _text(canvas, st, st.fa, (x0 + 0.02 * aw, y0 + 0.1 * ah, x1 - 0.02 * aw, y1 - 0.1 * ah), st.green)
        elif st.white_frame:
            _white_frame(canvas, st, (x0, y0, x1, y1))
        elif st.white != "blank":
            t = max(3, int(0.07 * aw * st.line))
            fx0, fy0 = x0 + 0.1 * aw, y0 + 0.08 * ah
            fx1, fy1 = x1 - 0.1 * aw, y1 - 0.08 * ah
            cv2.rectangle(canvas, _pt(fx0, fy0), _pt(fx1, fy1), st.blue, t, cv2.LINE_AA)
            if st.white == "double":
                g = 2.2 * t
                cv2.rectangle(
                    canvas, _pt(fx0 + g, fy0 + g), _pt(fx1 - g, fy1 - g), st.blue, max(2, t // 2), cv2.LINE_AA
                )
    if with_index:
        if suit < 3:
            label = str(rank)
        elif st.index_honours == "letter":
            label = (_WIND_LETTERS + _DRAGON_LETTERS)[rank - 1]
        else:
            label = (st.winds + "中" + st.fa)[rank - 1]
        _index(canvas, st, label)
    return _finish(canvas, st, rng)


def _finish(canvas: np.ndarray, st: _SetStyle, rng: np.random.Generator) -> np.ndarray:
    """Reduce to the stored size; add a faint light gradient, slight blur and sensor noise."""
    img = cv2.resize(canvas, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA).astype(np.float32)
    yy = np.linspace(-1.0, 1.0, FACE_H, dtype=np.float32)[:, None]
    xx = np.linspace(-1.0, 1.0, FACE_W, dtype=np.float32)[None, :]
    gx, gy = rng.uniform(-0.04, 0.04, 2)
    img *= (1.0 + gx * xx + gy * yy)[..., None]
    if st.blur > 0.15:
        img = cv2.GaussianBlur(img, (0, 0), st.blur)
    img += rng.normal(0.0, st.noise, img.shape).astype(np.float32)
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


def _build(seed: int, per_class: int, font: str, prints: bool = True) -> list[np.ndarray]:
    """All faces: column j of every class drawn in set j's style (generators keyed by (seed, j, cls))."""
    faces = [np.empty((per_class, FACE_H, FACE_W, 3), np.uint8) for _ in range(len(FACE_NAMES))]
    for j in range(per_class):
        st = _random_set(np.random.default_rng([seed, j]), font, prints)
        for c in range(len(FACE_NAMES)):
            faces[c][j] = _draw_face(c, st, np.random.default_rng([seed, j, c + 1]))
    return faces


def _font_tag(font: Path) -> str:
    """Short key of the font file, so a bank drawn with another font is not taken from the cache."""
    return hashlib.sha1(f"{font.name}:{font.stat().st_size}".encode()).hexdigest()[:8]


def drawn_face_bank(
    seed: int = 0,
    per_class: int = DEFAULT_PER_CLASS,
    font: Path | None = None,
    cache_dir: Path | None = None,
    prints: bool = True,
) -> FaceBank:
    """The drawn bank for `seed`: `per_class` sets, face j of each class drawn in set j's style.

    `prints=False` draws version 2's bank (without `Variations.prints`).
    Cached as `drawn-<seed>-<per_class>-v<version>-<font tag>.npz` in the face cache folder,
    so `vision synth` workers load what the parent drew.  Raises FileNotFoundError when no CJK font
    is found (see `find_cjk_font`).
    """
    if per_class < 1:
        raise ValueError("per_class must be >= 1")
    font = Path(font) if font is not None else find_cjk_font()
    if not font.is_file():
        raise FileNotFoundError(f"CJK font {font} not found")
    cache_dir = cache_dir or default_cache_dir()
    version = DRAWN_VERSION if prints else PLAIN_VERSION
    path = cache_dir / f"drawn-{seed}-{per_class}-v{version}-{_font_tag(font)}.npz"
    return cached_bank(path, lambda: _build(seed, per_class, str(font), prints))


def contact_sheet(bank: FaceBank, per_class: int = 6) -> np.ndarray:
    """A BGR image for eyeballing a bank: one row per bank column (a drawn set), classes across in
    class order (1m..9m 1p..9p 1s..9s E S W N C F P), with grey gutters between suits."""
    gap = 2
    n = min(per_class, min(len(f) for f in bank.faces))
    cols = len(bank.faces)
    extra = 3 * 4 * gap  # wider gutters after 9m, 9p, 9s
    sheet = np.full((n * (FACE_H + gap) + gap, cols * (FACE_W + gap) + gap + extra, 3), 96, np.uint8)
    for c in range(cols):
        x = gap + c * (FACE_W + gap) + (min(c // 9, 3) * 4 * gap)
        for j in range(n):
            y = gap + j * (FACE_H + gap)
            sheet[y : y + FACE_H, x : x + FACE_W] = bank.faces[c][j]
    return sheet
