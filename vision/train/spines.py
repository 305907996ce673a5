"""Drawn book spines with printed titles, cut like tiles: `other` crops for the classifier.

Why: photographed from the seat, a hand stands in front of whatever is behind the table, often a
shelf of books. On riichi-standing-dev the shipped reader's false boxes are mostly book spines:
white or coloured, with a column of characters, a tile's width, standing shoulder to shoulder like
tiles (models/MODEL_CARD.md, stops 46, 47 and 49). Neither network had ever seen one: the synthetic
scenes' books (vision.train.synth.clutter) are plain rectangles with a band, and their clutter crops
taught `other` with framed blank shapes that read like 白 (round 15d). A spine here always carries
text, so it teaches "a column of print on a strip", never "a blank face".

The spines are drawn from what a shelf looks like (light, coloured or dark covers; one or two
vertical columns of hanzi or kana from the shipped font; bands; light from one side), never from a
photo a report holds. Each crop is a tile-shaped box on one spine, cut with the training crops'
wide margin (vision.train.crops), so its neighbours show at the sides as a real shelf's do.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.classes import OTHER_ID
from vision.fonts import missing_chars, shipped_cjk_font
from vision.read.tilenet import crop_tiles

#: Spine widths on the drawn shelf (px): the crops are cut from them at a tile's width, so the
#: text is drawn at about the resolution a tile's face is cut at.
SPINE_W = (22, 70)
#: A crop's box: width / height as a standing tile's, width against the spine's (a detector box
#: may take in a little of the neighbours).
BOX_ASPECT = (0.55, 0.85)
BOX_WIDTH = (0.8, 1.3)


@lru_cache(maxsize=1)
def title_chars() -> str:
    """Characters a title may use: GB2312's common hanzi and the kana, those the shipped font draws."""
    hanzi = bytes(b for hi in range(0xB0, 0xB8) for lo in range(0xA1, 0xFF) for b in (hi, lo))
    pool = hanzi.decode("gb2312", errors="ignore")
    pool += "".join(map(chr, range(0x3042, 0x3094, 2))) + "".join(map(chr, range(0x30A2, 0x30F4, 2)))
    font = shipped_cjk_font()
    if font is None:
        raise RuntimeError("the shipped CJK font is missing (vision/assets/fonts)")
    missing = set(missing_chars(font, pool))
    return "".join(c for c in pool if c not in missing)


@lru_cache(maxsize=16)
def _font(px: int) -> ImageFont.FreeTypeFont:
    font = shipped_cjk_font()
    assert font is not None  # title_chars() said so first
    return ImageFont.truetype(str(font), px)


def _cover(rng: np.random.Generator) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(cover colour, ink colour): mostly light covers with dark print, as most spines are."""
    kind = rng.random()
    if kind < 0.55:
        base = rng.integers(205, 250)
        cover = tuple(int(np.clip(base + rng.integers(-12, 13), 0, 255)) for _ in range(3))
        ink = (int(rng.integers(0, 60)),) * 3 if rng.random() < 0.75 else _strong(rng)
    elif kind < 0.85:
        cover = tuple(int(v) for v in rng.integers(30, 230, 3))
        ink = (250, 250, 245) if np.mean(cover) < 130 else (int(rng.integers(0, 50)),) * 3
    else:
        cover = (int(rng.integers(10, 60)),) * 3
        ink = (int(rng.integers(200, 256)),) * 3 if rng.random() < 0.7 else (200, 170, 60)
    return cover, ink  # type: ignore[return-value]


def _strong(rng: np.random.Generator) -> tuple[int, int, int]:
    """A printed colour other than black: the blue or red of a title."""
    return ((20, 40, 160), (170, 20, 30), (20, 110, 60))[int(rng.integers(0, 3))]


def _spine(
    draw: ImageDraw.ImageDraw, rng: np.random.Generator, box: tuple[float, float, float, float]
) -> tuple[float, float]:
    """One spine: its cover, up to two bands, one or two columns of title. Returns the title's
    span (top, bottom): crops are cut on the print, never on a bare stretch of cover, which would
    teach `other` with a blank face (白) or a lone ring (一饼)."""
    x0, y0, x1, y1 = box
    h = y1 - y0
    cover, ink = _cover(rng)
    draw.rectangle((x0, y0, x1, y1), fill=cover)
    for _ in range(int(rng.integers(0, 3))):
        by = y0 + h * rng.uniform(0, 0.9)
        draw.rectangle(
            (x0, by, x1, by + h * rng.uniform(0.02, 0.08)),
            fill=tuple(int(v) for v in rng.integers(0, 256, 3)),
        )
    return _title(draw, rng, box, ink)


def _title(
    draw: ImageDraw.ImageDraw,
    rng: np.random.Generator,
    box: tuple[float, float, float, float],
    ink: tuple[int, int, int],
) -> tuple[float, float]:
    """One or two vertical columns of print down a spine in `ink`; returns their span (top, bottom)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    chars = title_chars()
    columns = 1 if rng.random() < 0.75 else 2
    px = max(8, int(w * rng.uniform(0.4, 0.72) / columns))
    font = _font(px)
    start = y0 + h * rng.uniform(0.03, 0.3)
    end = y0 + h * rng.uniform(0.55, 0.95)
    last = start
    for c in range(columns):
        cx = x0 + w * (c + 0.5) / columns - px / 2
        y = start
        colour = ink if c == 0 or rng.random() < 0.5 else _strong(rng)
        while y + px < end:
            draw.text((cx, y), chars[int(rng.integers(0, len(chars)))], font=font, fill=colour)
            y += px * rng.uniform(1.0, 1.3)
        last = max(last, y)
    return start, last


def print_titles(
    img_bgr: np.ndarray, spines: list[tuple[int, int, int, int]], rng: np.random.Generator
) -> None:
    """Print a title down each spine (x0, y0, x1, y1) of a scene's shelf, in place, in an ink that
    stands out from the cover already painted there (vision.train.synth.seat.backdrop): dark on a
    light cover, light on a dark one, now and then a coloured one."""
    h, w = img_bgr.shape[:2]
    for x0, y0, x1, y1 in spines:
        x0, x1, y0, y1 = max(0, x0), min(w, x1), max(0, y0), min(h, y1)
        if x1 - x0 < 4 or y1 - y0 < 8:
            continue
        region = Image.fromarray(np.ascontiguousarray(img_bgr[y0:y1, x0:x1, ::-1]))
        light = float(np.asarray(region).mean()) > 127
        ink = (int(rng.integers(0, 50)),) * 3 if light else (int(rng.integers(215, 256)),) * 3
        if rng.random() < 0.2:
            ink = _strong(rng)
        _title(ImageDraw.Draw(region), rng, (0, 0, x1 - x0, y1 - y0), ink)
        img_bgr[y0:y1, x0:x1] = np.asarray(region)[..., ::-1]


def shelf(
    rng: np.random.Generator, width: int = 640
) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """A drawn shelf (RGB uint8) and, per spine, (left, right, title top, title bottom)."""
    height = int(rng.integers(300, 480))
    back = tuple(int(v) for v in rng.integers(10, 90, 3))
    img = Image.new("RGB", (width, height), back)
    draw = ImageDraw.Draw(img)
    spines = []
    x = float(rng.uniform(-20, 0))
    while x < width:
        w = float(rng.uniform(*SPINE_W))
        top = height * float(rng.uniform(0.0, 0.3))
        spines.append((x, x + w, *_spine(draw, rng, (x, top, x + w, float(height)))))
        x += w + float(rng.choice([0, 0, 1, 2, 3]))
    rgb = np.asarray(img, dtype=np.float32)
    light = np.linspace(rng.uniform(0.55, 1.0), rng.uniform(0.85, 1.1), width, dtype=np.float32)
    rgb *= (light if rng.random() < 0.5 else light[::-1])[None, :, None]
    sigma = float(rng.uniform(0.0, 1.2))
    if sigma > 0.3:
        rgb = cv2.GaussianBlur(rgb, (0, 0), sigma)
    rgb += rng.normal(0, 3, rgb.shape).astype(np.float32)
    return np.clip(rgb, 0, 255).astype(np.uint8), spines


def spine_crops(n: int, seed: int, margin: float, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """`n` crops (uint8 N x H x W x 3) of tile-shaped boxes on drawn spines, all labelled `other`,
    cut as vision.train.crops cuts a labelled box (`margin`, `size`). Seeded: the same crops each run."""
    rng = np.random.default_rng(seed)
    out: list[np.ndarray] = []
    while len(out) < n:
        img, spines = shelf(rng)
        picks = rng.permutation(len(spines))[:8]
        boxes = []
        for i in picks:
            x0, x1, t0, t1 = spines[int(i)]
            bw = (x1 - x0) * rng.uniform(*BOX_WIDTH)
            bh = bw / rng.uniform(*BOX_ASPECT)
            if bh > (t1 - t0) or x0 < 0 or x1 > img.shape[1]:
                continue  # a title shorter than the box, or a spine cut by the shelf's edge
            cx = (x0 + x1) / 2 + (x1 - x0) * rng.uniform(-0.15, 0.15)
            top = rng.uniform(t0, t1 - bh)
            boxes.append((cx - bw / 2, top, cx + bw / 2, top + bh))
        if boxes:
            out.extend(crop_tiles(img, np.asarray(boxes, np.float32), margin=margin, size=size))
    x = np.stack(out[:n]) if n else np.zeros((0, size[1], size[0], 3), np.uint8)
    return x, np.full(len(x), OTHER_ID, np.int64)
