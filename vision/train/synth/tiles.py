"""Tile sprites: a face (real crop) or a back, with the visible thickness edge of a Liaoning set.

A sprite is drawn as the tile appears on the table seen from the player's seat: the top surface
(face or back) plus a strip of the tile's side towards the camera (`edge='bottom'`, a tile lying
flat) or the top edge seen above a standing tile (`edge='top'`).  Liaoning sets are two layers: an
ivory face layer and a coloured (green, blue or yellow) back layer, so the side strip shows both.
Sprites come with a mask, so the scene can paint an instance map and derive tight visible boxes.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: Back colours (BGR) of common sets: green, blue, yellow, dark green, teal.
BACK_COLOURS: tuple[tuple[int, int, int], ...] = (
    (60, 140, 40),
    (150, 90, 30),
    (40, 170, 215),
    (50, 100, 30),
    (120, 120, 20),
)


#: Tile body colours (BGR) for `Variations.bodies`: bright white, white, ivory, cream, yellowish.
BODY_COLOURS: tuple[tuple[int, int, int], ...] = (
    (250, 251, 252),
    (236, 242, 245),
    (212, 236, 248),
    (182, 224, 244),
    (160, 212, 236),
)
#: Back colours (BGR) for `Variations.backs`: the sets sold for automatic tables come in many colours.
MORE_BACK_COLOURS: tuple[tuple[int, int, int], ...] = (
    (60, 140, 40),  # green
    (40, 95, 25),  # dark green
    (160, 95, 25),  # blue
    (215, 160, 70),  # light blue
    (40, 185, 230),  # yellow
    (30, 120, 235),  # orange
    (175, 130, 245),  # pink
    (45, 45, 185),  # red
    (130, 60, 110),  # purple
    (35, 35, 40),  # black
)


@dataclass(frozen=True)
class TileStyle:
    """Per-scene look of the set: ivory tint, back colour, thickness ratio, corner rounding."""

    ivory: tuple[int, int, int]
    back: tuple[int, int, int]
    thick: float  # side-strip height as a fraction of the face width
    back_share: float  # share of the side strip that is the coloured back layer
    radius: float  # corner radius as a fraction of the face width
    blank_white: bool = False  # 白 drawn blank (many Liaoning sets) instead of the framed real crops


def random_style(rng: np.random.Generator) -> TileStyle:
    """A plausible set: white to ivory faces, one of the usual back colours, 20–40 % thickness."""
    ivory = (
        int(rng.integers(205, 245)),
        int(rng.integers(225, 252)),
        int(rng.integers(232, 255)),
    )
    base = np.array(BACK_COLOURS[int(rng.integers(len(BACK_COLOURS)))], dtype=np.int32)
    back = tuple(int(v) for v in np.clip(base + rng.integers(-25, 26, 3), 0, 255))
    return TileStyle(
        ivory=ivory,
        back=back,  # type: ignore[arg-type]
        thick=float(rng.uniform(0.2, 0.4)),
        back_share=float(rng.uniform(0.45, 0.7)),
        radius=float(rng.uniform(0.06, 0.14)),
        blank_white=bool(rng.random() < 0.35),
    )


def body_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    """A tile body colour from `BODY_COLOURS` with a small random shift."""
    base = np.array(BODY_COLOURS[int(rng.integers(len(BODY_COLOURS)))], np.int32)
    return tuple(int(v) for v in np.clip(base + rng.integers(-6, 7, 3), 0, 255))  # type: ignore[return-value]


def back_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    """A back colour from `MORE_BACK_COLOURS`, shifted a little (prints and plastics differ)."""
    base = np.array(MORE_BACK_COLOURS[int(rng.integers(len(MORE_BACK_COLOURS)))], np.int32)
    return tuple(int(v) for v in np.clip(base + rng.integers(-20, 21, 3), 0, 255))  # type: ignore[return-value]


def _rounded_mask(w: int, h: int, r: int) -> np.ndarray:
    """Filled rounded rectangle mask (uint8 0/255) of size h×w."""
    m = np.zeros((h, w), np.uint8)
    r = max(0, min(r, w // 2 - 1, h // 2 - 1))
    if r <= 0:
        m[:] = 255
        return m
    cv2.rectangle(m, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, lineType=cv2.LINE_AA)
    return m


def _shade(colour: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    return tuple(int(np.clip(c * f, 0, 255)) for c in colour)  # type: ignore[return-value]


def back_surface(w: int, h: int, style: TileStyle, rng: np.random.Generator) -> np.ndarray:
    """The coloured back of a face-down tile: flat colour, a soft sheen and a faint rim."""
    img = np.empty((h, w, 3), np.uint8)
    img[:] = style.back
    yy = np.linspace(-1.0, 1.0, h, dtype=np.float32)[:, None]
    xx = np.linspace(-1.0, 1.0, w, dtype=np.float32)[None, :]
    sheen = 1.0 + 0.12 * np.exp(-((xx - rng.uniform(-0.5, 0.5)) ** 2 + (yy + 0.3) ** 2) * 1.5)
    img = np.clip(img.astype(np.float32) * sheen[..., None], 0, 255).astype(np.uint8)
    rim = max(1, w // 14)
    cv2.rectangle(img, (rim, rim), (w - 1 - rim, h - 1 - rim), _shade(style.back, 0.85), 1)
    return img


def blank_surface(w: int, h: int, style: TileStyle, rng: np.random.Generator) -> np.ndarray:
    """A blank 白: plain ivory with a faint sheen and a slightly darker rim."""
    img = np.empty((h, w, 3), np.uint8)
    img[:] = style.ivory
    yy = np.linspace(-1.0, 1.0, h, dtype=np.float32)[:, None]
    xx = np.linspace(-1.0, 1.0, w, dtype=np.float32)[None, :]
    shade = 1.0 - 0.06 * (xx**2 + yy**2) + rng.uniform(-0.03, 0.03)
    img = np.clip(img.astype(np.float32) * shade[..., None], 0, 255).astype(np.uint8)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), _shade(style.ivory, 0.85), 1)
    return img


def face_surface(face: np.ndarray, w: int, h: int, style: TileStyle, rng: np.random.Generator) -> np.ndarray:
    """A real face crop fitted to the tile, with its ivory tinted a little towards the set's ivory."""
    img = cv2.resize(face, (w, h), interpolation=cv2.INTER_AREA if w < face.shape[1] else cv2.INTER_LINEAR)
    ivory = np.array(style.ivory, np.float32)
    gain = (1.0 - 0.6 * (1.0 - ivory / ivory.max())) * rng.uniform(0.9, 1.06)  # tint, per-tile light
    img = np.clip(img.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    return img


@dataclass
class Sprite:
    """A tile drawn in its own frame: `img` BGR and `mask` (255 inside the tile)."""

    img: np.ndarray
    mask: np.ndarray

    @property
    def w(self) -> int:
        return int(self.img.shape[1])

    @property
    def h(self) -> int:
        return int(self.img.shape[0])


def render_tile(
    surface: np.ndarray,
    style: TileStyle,
    face_down: bool,
    edge: str = "bottom",
    sideways: bool = False,
    squash: float = 1.0,
) -> Sprite:
    """Compose a tile sprite from its top surface (face or back) and a two-layer side strip.

    `sideways` turns the surface by 90° (a claimed tile laid across) while the side strip stays
    towards the camera, as it would on a real table.  `squash` < 1 shortens the surface (after the
    turn) as a low camera sees a tile lying flat.
    """
    if sideways:
        surface = cv2.rotate(surface, cv2.ROTATE_90_COUNTERCLOCKWISE)
    if squash != 1.0:
        sw, sh = surface.shape[1], max(4, int(round(surface.shape[0] * squash)))
        surface = cv2.resize(surface, (sw, sh), interpolation=cv2.INTER_AREA)
    h, w = surface.shape[:2]
    short = min(w, h)
    t = max(2, int(round(style.thick * short)))
    r = max(1, int(round(style.radius * short)))
    full_h = h + t
    img = np.zeros((full_h, w, 3), np.uint8)
    top_y = t if edge == "top" else 0
    side_y = 0 if edge == "top" else h
    # side strip: the layer nearer the surface first, then the other layer
    near, far = (style.back, style.ivory) if face_down else (style.ivory, style.back)
    n_near = max(1, int(round(t * ((1 - style.back_share) if not face_down else style.back_share))))
    strip = np.empty((t, w, 3), np.uint8)
    if edge == "bottom":
        strip[:n_near] = _shade(near, 0.82)
        strip[n_near:] = _shade(far, 0.7)
    else:
        strip[: t - n_near] = _shade(far, 0.75)
        strip[t - n_near :] = _shade(near, 0.88)
    img[side_y : side_y + t] = strip
    img[top_y : top_y + h] = surface
    mask = _rounded_mask(w, full_h, r)
    # a darker outline where the surface meets the side reads as the tile's edge
    line_y = top_y + h - 1 if edge == "bottom" else top_y
    cv2.line(img, (r, line_y), (w - 1 - r, line_y), _shade(near, 0.6), 1)
    img[mask == 0] = 0
    return Sprite(img=img, mask=mask)
