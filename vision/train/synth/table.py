"""Procedural table surfaces and photographic effects (light, blur, noise).

Why procedural: real tables vary (felt of many colours, wood, patterned cloth) and a detector that
only saw one background learns the background.  Textures are drawn at a quarter of the resolution
and upscaled, so a background costs a few milliseconds.
"""

from __future__ import annotations

import cv2
import numpy as np

FELT_COLOURS: tuple[tuple[int, int, int], ...] = (
    (60, 130, 40),  # green
    (40, 100, 30),
    (130, 90, 30),  # blue
    (110, 60, 20),
    (40, 40, 130),  # red
    (70, 70, 70),  # grey
    (30, 30, 30),  # black
    (90, 140, 150),  # beige
)
WOOD_COLOURS: tuple[tuple[tuple[int, int, int], tuple[int, int, int]], ...] = (
    ((40, 80, 140), (25, 55, 100)),
    ((70, 120, 170), (45, 85, 130)),
    ((30, 50, 80), (20, 35, 55)),
)


def _low_noise(h: int, w: int, rng: np.random.Generator, cells: int) -> np.ndarray:
    """Smooth noise in [-1, 1]: random grid upscaled with cubic interpolation."""
    g = rng.uniform(-1.0, 1.0, (cells, cells)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


#: Felt of automatic tables (BGR), for `Variations.felt`.
AUTO_FELT_COLOURS: tuple[tuple[int, int, int], ...] = (
    (70, 140, 40),  # green
    (40, 95, 25),  # dark green
    (35, 70, 20),
    (150, 95, 30),  # blue
    (105, 55, 15),  # dark blue
    (115, 112, 108),  # grey
    (75, 75, 75),
    (40, 35, 150),  # red
    (35, 25, 100),  # wine
    (28, 28, 28),  # black
)


def felt(
    h: int,
    w: int,
    rng: np.random.Generator,
    colours: tuple[tuple[int, int, int], ...] = FELT_COLOURS,
    render: bool = True,
) -> np.ndarray | None:
    """Felt of one of `colours`: a smooth mottle and a fine grain (None if not `render`: the
    random draws only, see `table`)."""
    base = np.array(colours[int(rng.integers(len(colours)))], np.float32)
    base = base + rng.uniform(-20, 20, 3)
    sh, sw = max(8, h // 4), max(8, w // 4)
    n = _low_noise(sh, sw, rng, 6) * 0.08 + rng.normal(0, 0.04, (sh, sw)).astype(np.float32)
    if not render:
        return None
    img = base[None, None, :] * (1 + n[..., None])
    return cv2.resize(np.clip(img, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)


def wood(h: int, w: int, rng: np.random.Generator, render: bool = True) -> np.ndarray | None:
    """Planks: long grain lines (stretched noise) in one direction, plank seams, a varnish sheen.

    Every random draw comes first, in a fixed order, so `render=False` can skip the drawing."""
    light, dark = (np.array(c, np.float32) for c in WOOD_COLOURS[int(rng.integers(len(WOOD_COLOURS)))])
    light = light + rng.uniform(-15, 15, 3)
    sh, sw = max(8, h // 2), max(8, w // 2)
    vertical = rng.random() < 0.3
    n, m = (sw, sh) if vertical else (sh, sw)  # n across the grain, m along it
    grain = rng.normal(0, 1, (n, max(4, m // 40))).astype(np.float32)
    ring_freq = rng.uniform(0.2, 0.6)
    plank = int(rng.integers(n // 6 + 2, n // 2 + 3))
    mottle = rng.uniform(-1.0, 1.0, (4, 4)).astype(np.float32)
    if not render:
        return None
    grain = cv2.resize(grain, (m, n), interpolation=cv2.INTER_CUBIC)
    grain = cv2.GaussianBlur(grain, (0, 0), sigmaX=1.0, sigmaY=0.6)
    rings = 0.5 + 0.5 * np.sin(np.arange(n, dtype=np.float32)[:, None] * ring_freq + grain * 1.5)
    t = 0.55 * rings + 0.25 * np.clip(grain * 0.5 + 0.5, 0, 1)
    t[::plank] *= 0.4  # seams between planks
    t += cv2.resize(mottle, (m, n), interpolation=cv2.INTER_CUBIC) * 0.15
    if vertical:
        t = t.T
    img = dark[None, None] + (light - dark)[None, None] * np.clip(t, 0, 1)[..., None]
    return cv2.resize(np.clip(img, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)


def cloth(h: int, w: int, rng: np.random.Generator, render: bool = True) -> np.ndarray | None:
    """Woven or checked cloth: two crossing sine patterns over a base colour.

    The patterns are separable: one row and one column of sines, broadcast (fast, same values)."""
    base = np.array(FELT_COLOURS[int(rng.integers(len(FELT_COLOURS)))], np.float32) + rng.uniform(-30, 30, 3)
    other = np.clip(base + rng.uniform(-70, 70, 3), 0, 255)
    period = rng.uniform(6, 40)
    woven = rng.random() < 0.5
    strength = rng.uniform(0.2, 0.8)
    if not render:
        return None
    a = 0.5 + 0.5 * np.sin(np.arange(w, dtype=np.float32)[None, :] * 2 * np.pi / period)
    b = 0.5 + 0.5 * np.sin(np.arange(h, dtype=np.float32)[:, None] * 2 * np.pi / period)
    t = (a * b) if woven else ((a > 0.5) ^ (b > 0.5)).astype(np.float32)
    img = base[None, None] + (other - base)[None, None] * t[..., None] * strength
    return np.clip(img, 0, 255).astype(np.uint8)


def table(h: int, w: int, rng: np.random.Generator, render: bool = True) -> np.ndarray | None:
    """A random table surface of size h×w (felt most often, like automatic tables).

    `render=False` makes the same random draws and returns None: a scene whose table another
    variation replaces still leaves its generator where the drawn table would have."""
    r = rng.random()
    if r < 0.55:
        return felt(h, w, rng, render=render)
    if r < 0.8:
        return wood(h, w, rng, render=render)
    return cloth(h, w, rng, render=render)


def automatic_table(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """`Variations.felt`: mostly the felt of automatic tables, else wood or cloth."""
    r = rng.random()
    img = (
        felt(h, w, rng, AUTO_FELT_COLOURS) if r < 0.7 else (wood(h, w, rng) if r < 0.9 else cloth(h, w, rng))
    )
    assert img is not None
    return img


def light_gradient(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uneven lighting: a linear gradient in a random direction times a soft vignette, and a white
    balance shift.  The gain map is smooth, so it is computed at 1/8 size and upscaled (speed)."""
    h, w = img.shape[:2]
    sh, sw = max(2, h // 8), max(2, w // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    yy, xx = yy / (sh - 1), xx / (sw - 1)
    ang = rng.uniform(0, 2 * np.pi)
    lin = ((xx - 0.5) * np.cos(ang) + (yy - 0.5) * np.sin(ang)) * rng.uniform(0.0, 0.6)
    cx, cy = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)
    vig = -((xx - cx) ** 2 + (yy - cy) ** 2) * rng.uniform(0.0, 0.6)
    gain = (rng.uniform(0.9, 1.3) * (1 + lin + vig)).astype(np.float32)
    gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    tint = rng.uniform(0.92, 1.08, 3).astype(np.float32)  # white balance
    gain3 = cv2.merge([gain * float(t) for t in tint])
    return np.clip(img * gain3, 0, 255).astype(np.uint8)


def camera_effects(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Blur (focus or motion) and sensor noise."""
    r = rng.random()
    if r < 0.45:
        s = rng.uniform(0.3, 1.6)
        img = cv2.GaussianBlur(img, (0, 0), s)
    elif r < 0.6:
        k = int(rng.integers(3, 8))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        m = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        kern = cv2.warpAffine(kern, m, (k, k))
        kern /= max(kern.sum(), 1e-6)
        img = cv2.filter2D(img, -1, kern)
    sigma = rng.uniform(0, 8)
    if sigma > 1:
        # sensor noise at half resolution (2×2 grain, a quarter of the random draws)
        h, w = img.shape[:2]
        half = rng.standard_normal(((h + 1) // 2, (w + 1) // 2, 3), dtype=np.float32)
        noise = cv2.resize(half, (w, h), interpolation=cv2.INTER_NEAREST)
        img = cv2.scaleAdd(noise, float(sigma), img.astype(np.float32))
        img = np.clip(img, 0, 255).astype(np.uint8)
    return img
