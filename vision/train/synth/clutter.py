"""Things on and around a mahjong table that are not tiles: the negatives of the synthetic scenes.

Why: photographed from the seat, a table shows more than the hand — books and a shelf behind it,
playing cards, a phone, a cup, the chip tray, the players' hands — and a detector that never saw
them took rows of book spines for tiles (tile precision 0.70 on such photos). Drawn on the table
before the tiles are laid, so a tile always covers them, and never labelled: the detector learns to
leave them alone. Deliberately plain shapes (flat, no tile body or side), so that none of them is a
tile in disguise.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

#: Share of scenes with clutter (when the `clutter` variation is on).
CLUTTER_SHARE = 0.5


def _colour(rng: np.random.Generator, lo: int = 20, hi: int = 235) -> tuple[int, int, int]:
    return tuple(int(v) for v in rng.integers(lo, hi, 3))  # type: ignore[return-value]


def _box(rng: np.random.Generator, h: int, w: int, long: float, aspect: float) -> np.ndarray:
    """Corners of a rotated rectangle `long` px long with short/long `aspect`, anywhere on the table."""
    centre = (float(rng.uniform(0, w)), float(rng.uniform(0, h)))
    size = (long, long * aspect) if rng.random() < 0.5 else (long * aspect, long)
    return cv2.boxPoints((centre, size, float(rng.uniform(0, 180)))).astype(np.int32)


def _books(img: np.ndarray, rng: np.random.Generator, scale: float) -> None:
    """A shelf of spines: tall thin rectangles side by side, each with a title band."""
    h, w = img.shape[:2]
    x = float(rng.uniform(-0.2, 0.9)) * w
    top, height = float(rng.uniform(0, 0.6)) * h, scale * rng.uniform(0.5, 1.2)
    for _ in range(int(rng.integers(4, 14))):
        bw = scale * rng.uniform(0.05, 0.16)
        bh = height * rng.uniform(0.75, 1.0)
        y0 = top + height - bh
        cv2.rectangle(img, (int(x), int(y0)), (int(x + bw), int(top + height)), _colour(rng), -1)
        band = y0 + bh * rng.uniform(0.15, 0.6)
        cv2.rectangle(
            img,
            (int(x + bw * 0.15), int(band)),
            (int(x + bw * 0.85), int(band + bh * 0.12)),
            _colour(rng),
            -1,
        )
        x += bw * rng.uniform(1.0, 1.15)


def _cards(img: np.ndarray, rng: np.random.Generator, scale: float) -> None:
    """Playing cards: flat white with a border and a few red or black pips."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(1, 4))):
        pts = _box(rng, h, w, scale * rng.uniform(0.25, 0.45), 0.71)
        cv2.fillPoly(img, [pts], (245, 245, 240))
        cv2.polylines(img, [pts], True, (150, 150, 150), 1)
        ink = (30, 30, 200) if rng.random() < 0.5 else (30, 30, 30)
        centre = pts.mean(0)
        for _ in range(int(rng.integers(1, 6))):
            p = centre + (pts[int(rng.integers(4))] - centre) * rng.uniform(0.1, 0.6)
            cv2.circle(img, (int(p[0]), int(p[1])), max(1, int(scale * 0.015)), ink, -1)


def _phone(img: np.ndarray, rng: np.random.Generator, scale: float) -> None:
    """A phone: dark rounded slab with a lit screen."""
    h, w = img.shape[:2]
    pts = _box(rng, h, w, scale * rng.uniform(0.35, 0.6), 0.48)
    cv2.fillPoly(img, [pts], (25, 25, 28))
    centre = pts.mean(0)
    screen = (centre + (pts - centre) * 0.88).astype(np.int32)
    cv2.fillPoly(img, [screen], _colour(rng, 60, 250))


def _cup(img: np.ndarray, rng: np.random.Generator, scale: float) -> None:
    """A cup seen from above at an angle: rim ellipse, drink, a handle."""
    h, w = img.shape[:2]
    c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
    r = int(scale * rng.uniform(0.1, 0.2))
    axes = (r, int(r * rng.uniform(0.6, 1.0)))
    body = _colour(rng, 120, 250)
    cv2.ellipse(img, (c[0], c[1] + r // 2), axes, 0, 0, 360, body, -1)
    cv2.ellipse(img, c, axes, 0, 0, 360, body, -1)
    cv2.ellipse(img, c, (int(axes[0] * 0.85), int(axes[1] * 0.85)), 0, 0, 360, _colour(rng, 10, 120), -1)
    cv2.ellipse(img, (c[0] + r, c[1] + r // 3), (r // 3, r // 4), 0, 0, 360, body, max(1, r // 8))


def _chips(img: np.ndarray, rng: np.random.Generator, scale: float) -> None:
    """The chip tray: a grey tray with rows of small coloured counters."""
    h, w = img.shape[:2]
    x0, y0 = int(rng.uniform(0, w)), int(rng.uniform(0, h))
    tw, th = int(scale * rng.uniform(0.4, 0.8)), int(scale * rng.uniform(0.15, 0.3))
    cv2.rectangle(img, (x0, y0), (x0 + tw, y0 + th), _colour(rng, 60, 160), -1)
    r = max(2, int(th * 0.14))
    for row in range(int(rng.integers(1, 3))):
        colour = _colour(rng)
        for k in range(int(rng.integers(3, 12))):
            cv2.circle(img, (x0 + r + k * int(r * 2.1), y0 + r + row * int(r * 2.4)), r, colour, -1)


def _hand(img: np.ndarray, rng: np.random.Generator, scale: float) -> None:
    """A player's hand resting on the table: palm and fingers in a skin tone, soft edges."""
    h, w = img.shape[:2]
    skin = (int(rng.integers(90, 170)), int(rng.integers(120, 190)), int(rng.integers(170, 235)))
    layer = np.zeros_like(img)
    mask = np.zeros(img.shape[:2], np.uint8)
    c = np.array([rng.uniform(0, w), rng.uniform(0, h)])
    r = scale * rng.uniform(0.15, 0.3)
    angle = rng.uniform(0, 2 * np.pi)
    cv2.ellipse(mask, (int(c[0]), int(c[1])), (int(r), int(r * 0.8)), np.degrees(angle), 0, 360, 255, -1)
    for k in range(4):
        a = angle + (k - 1.5) * 0.3
        tip = c + np.array([np.cos(a), np.sin(a)]) * r * 2.0
        cv2.line(mask, (int(c[0]), int(c[1])), (int(tip[0]), int(tip[1])), 255, max(2, int(r * 0.35)))
    layer[:] = skin
    soft = cv2.GaussianBlur(mask, (0, 0), max(1.0, r * 0.05)).astype(np.float32)[..., None] / 255
    img[:] = (img * (1 - soft) + layer * soft).astype(np.uint8)


DRAWERS: dict[str, Callable[[np.ndarray, np.random.Generator, float], None]] = {
    "books": _books,
    "cards": _cards,
    "phone": _phone,
    "cup": _cup,
    "chips": _chips,
    "hand": _hand,
}


def add_clutter(table: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The table (BGR) with one to four things that are not tiles drawn on it."""
    img = table.copy()
    scale = float(min(img.shape[:2]))
    for _ in range(int(rng.integers(1, 5))):
        DRAWERS[tuple(DRAWERS)[int(rng.integers(len(DRAWERS)))]](img, rng, scale)
    return img
