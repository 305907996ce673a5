"""Scenes seen from the player's seat: upright tiles, oblique camera, the row at an angle.

Why: most photos players take are of their own hand still standing, shot from their seat with a
phone held low over the table: the faces stand nearly square to the camera but shortened, the tops
of the tiles (face layer in front, the coloured back layer behind) show above them, the end tile
shows its side, flat tiles on the table are strongly foreshortened and the row shrinks towards one
end.  The plain scenes look down on a flat layout; a detector trained on them alone meets these
photos as a new domain.

A tile standing upright is drawn as an oblique projection of a box: its front face, its top and
one side, offset by a depth vector (`top` pixels up, `side` pixels towards the row's near end).
Tiles of a row touch, so each one hides its neighbour's side; only the end tile shows its side.
The scene paints the row from the far end to the near end for that.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import cv2
import numpy as np

from vision.train.spines import print_titles
from vision.train.synth import tiles

#: Share of scenes seen from the seat when `Variations.seat` is on.
SEAT_SHARE = 0.35
#: Share of seat scenes shot low (LOW_ELEVATION), the way real photos of a standing hand are taken
#: (riichi-standing-dev: faces nearly full height, thin tops, the shelf behind the table in frame).
#: Round 5 saw only 35-65 deg cameras, whose faces are shortened to 0.4-0.8 of their height; on
#: real standing tiles it boxed the face alone or nothing (models/MODEL_CARD.md, round 6). 0 by
#: default (the scenes of earlier rounds, byte for byte); round 6 used `vision synth --seat-share
#: 0.5 --low-share 0.5` (set_mix). The layout reader reads fewer low scenes exactly (31 of 40 at
#: the round-6 mix, against the 90 % its test asks of the default scenes).
LOW_SHARE = 0.0
LOW_ELEVATION = (8.0, 30.0)
HIGH_ELEVATION = (35.0, 65.0)
#: A tile lying flat is never drawn thinner than this share of its height (a camera 10 deg above
#: the table would make discards slivers nobody could read or label).
MIN_FLAT = 0.25


@dataclass(frozen=True)
class SeatView:
    """One seat scene's camera: how upright and flat tiles look, and the row's turn.

    upright: face height of a standing tile as a share of its height seen square on (cos elevation)
    flat: face height of a tile lying flat, same share (sin elevation)
    depth: tile thickness as a share of the face width (riichi ~0.75, Chinese ~0.65)
    side: shown side width as a share of the face width (0 = the row square to the camera)
    near_left: the row's near end (bigger, whose tile shows its side) is on the left
    shrink: height of the row's far end relative to its near end after the turn
    fill: share of the frame the hand spans (the phone is held close to the hand)
    """

    upright: float
    flat: float
    depth: float
    side: float
    near_left: bool
    shrink: float
    fill: float
    low: bool = False  # shot low (LOW_ELEVATION): the shelf and the table's rim show behind the hand


def set_mix(seat_share: float, low_share: float) -> None:
    """Set the share of seat scenes and, of those, of low ones (each in 0..1) for this process."""
    global SEAT_SHARE, LOW_SHARE
    if not (0.0 <= seat_share <= 1.0 and 0.0 <= low_share <= 1.0):
        raise ValueError("seat and low shares must lie in [0, 1]")
    SEAT_SHARE, LOW_SHARE = float(seat_share), float(low_share)


@contextmanager
def mix(shares: tuple[float, float] | None) -> Iterator[None]:
    """Within the block, the seat and low shares are `shares` (None: as they are); then as before."""
    before = (SEAT_SHARE, LOW_SHARE)
    if shares is not None:
        set_mix(*shares)
    try:
        yield
    finally:
        set_mix(*before)


def random_seat(rng: np.random.Generator) -> SeatView:
    """A camera LOW_ELEVATION (LOW_SHARE of the scenes) or HIGH_ELEVATION degrees above the table,
    the row turned so that its far end is 65–95 % of the near end's height (harder turns made tiles
    too thin to read). Flat tiles are drawn at least MIN_FLAT of their height. With LOW_SHARE 0 no
    draw is spent on it, so the scenes are those of earlier rounds."""
    low = bool(LOW_SHARE > 0 and rng.random() < LOW_SHARE)
    elev = np.deg2rad(rng.uniform(*(LOW_ELEVATION if low else HIGH_ELEVATION)))
    shrink = float(rng.uniform(0.65, 0.95))
    return SeatView(
        upright=float(np.cos(elev)),
        flat=float(max(np.sin(elev), MIN_FLAT)),
        depth=float(rng.uniform(0.55, 0.8)),
        side=float((1.0 - shrink) * rng.uniform(0.5, 1.2)),
        near_left=bool(rng.random() < 0.5),
        shrink=shrink,
        fill=float(rng.uniform(0.75, 0.95)),
        low=low,
    )


def render_upright(surface: np.ndarray, style: tiles.TileStyle, view: SeatView) -> tiles.Sprite:
    """A standing tile seen from the seat: `surface` (the face, already at its shown size) with the
    tile's top above it and one side, drawn as an oblique box.

    The side drawn faces the row's near end (the camera stands off that end); the neighbour on that
    side is painted later and covers it, so only the end tile of a row shows its side.
    """
    fh, fw = surface.shape[:2]
    top = max(2, int(round(view.depth * view.flat * fw)))
    side = int(round(view.depth * view.side * fw))
    w, h = fw + side, fh + top
    img = np.zeros((h, w, 3), np.uint8)
    mask = np.zeros((h, w), np.uint8)
    fx = side if view.near_left else 0  # front face's left edge
    dx = -side if view.near_left else side  # depth vector (towards the back of the tile), x
    back, ivory = style.back, style.ivory
    split = 1.0 - style.back_share  # share of the depth that is the face layer

    def quad(p0: tuple[float, float], p1: tuple[float, float], d0: float, d1: float) -> np.ndarray:
        """The band of the face between depths d0 and d1 (shares of the depth) along edge p0-p1."""
        pts = [
            (p0[0] + d0 * dx, p0[1] - d0 * top),
            (p1[0] + d0 * dx, p1[1] - d0 * top),
            (p1[0] + d1 * dx, p1[1] - d1 * top),
            (p0[0] + d1 * dx, p0[1] - d1 * top),
        ]
        return np.round(np.array(pts)).astype(np.int32)

    # the top, lit from above: the face layer at the front, the back layer behind it
    tl, tr = (fx, top), (fx + fw - 1, top)
    for (d0, d1), col, f in (((0.0, split), ivory, 1.02), ((split, 1.0), back, 0.95)):
        poly = quad(tl, tr, d0, d1)
        cv2.fillConvexPoly(img, poly, tiles._shade(col, f), cv2.LINE_AA)
        cv2.fillConvexPoly(mask, poly, 255)
    if side > 0:  # the side towards the camera's side of the row, in shade
        e0, e1 = (
            ((fx, top), (fx, top + fh - 1)) if view.near_left else ((fw - 1, top), (fw - 1, top + fh - 1))
        )
        for (d0, d1), col, f in (((0.0, split), ivory, 0.72), ((split, 1.0), back, 0.62)):
            poly = quad(e0, e1, d0, d1)
            cv2.fillConvexPoly(img, poly, tiles._shade(col, f), cv2.LINE_AA)
            cv2.fillConvexPoly(mask, poly, 255)
    face_mask = tiles._rounded_mask(fw, fh, max(1, int(round(style.radius * fw * 0.6))))
    sub = face_mask > 0
    img[top : top + fh, fx : fx + fw][sub] = surface[sub]
    mask[top : top + fh, fx : fx + fw] = np.maximum(mask[top : top + fh, fx : fx + fw], face_mask)
    # the edge between the face and the top reads as the tile's rim
    cv2.line(img, (fx + 1, top), (fx + fw - 2, top), tiles._shade(ivory, 0.7), 1)
    img[mask == 0] = 0
    return tiles.Sprite(img=img, mask=mask)


def turn(w: int, h: int, cy: float, view: SeatView) -> np.ndarray:
    """Homography turning the table about a vertical axis: the far end shrinks to `view.shrink`
    about the hand's line `cy` (and is foreshortened across by the perspective itself)."""
    k = view.shrink
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    far = [[w, cy - cy * k], [w, cy + (h - cy) * k]]
    near = [[0, 0], [0, h]]
    if view.near_left:
        dst = np.float32([near[0], far[0], far[1], near[1]])
    else:
        dst = np.float32([[0, cy - cy * k], [w, 0], [w, h], [0, cy + (h - cy) * k]])
    return cv2.getPerspectiveTransform(src, dst)


def close_in(pts: np.ndarray, w: int, h: int, view: SeatView) -> np.ndarray:
    """Zoom (never out) centred so that the points `pts` (the hand, already warped) span
    `view.fill` of the frame and stay inside it: a phone held close to the hand."""
    x0, y0 = pts.min(0)
    x1, y1 = pts.max(0)
    z = max(1.0, min(view.fill * w / max(x1 - x0, 1.0), view.fill * h / max(y1 - y0, 1.0)))
    # after zooming about the origin, shift the box's centre to the frame's centre
    tx = w / 2 - z * (x0 + x1) / 2
    ty = h / 2 - z * (y0 + y1) / 2
    return np.array([[z, 0.0, tx], [0.0, z, ty], [0.0, 0.0, 1.0]])


def backdrop(
    img: np.ndarray, tiles_top: int, rng: np.random.Generator, titles: np.random.Generator | None = None
) -> np.ndarray:
    """What a low camera sees beyond the table, painted above the topmost tile (`tiles_top`, the
    first image row holding a labelled tile), never over one: the table's dark rim, and above it a
    shelf of upright book spines with titles, a white box or two and a dark gadget. Unlabelled, so
    the detector learns them as background; upright and unwarped, as the real shelves stand.
    With `titles` (the `titles` variation's own generator) each spine also gets printed titles
    (vision.train.spines.print_titles), drawn after the shelf so that nothing else moves: a real
    shelf's spines carry columns of print, and the reader took them for tiles."""
    h, w = img.shape[:2]
    if tiles_top < 24:
        return img
    out = img.copy()
    rim_bottom = int(tiles_top * rng.uniform(0.45, 0.9))
    rim_top = max(0, rim_bottom - int(h * rng.uniform(0.03, 0.09)))
    rim = tuple(int(v) for v in rng.integers(25, 80, 3))
    cv2.rectangle(out, (0, rim_top), (w, rim_bottom), rim, -1)
    cv2.line(out, (0, rim_top), (w, rim_top), tuple(min(255, c + 40) for c in rim), 2)
    if rim_top < 12:
        return out
    wall = tuple(int(v) for v in rng.integers(30, 120, 3))
    out[:rim_top] = wall
    x = float(rng.uniform(-0.1, 0.1)) * w
    spines: list[tuple[int, int, int, int]] = []
    while x < w:
        kind = rng.random()
        bw = w * (rng.uniform(0.015, 0.05) if kind < 0.8 else rng.uniform(0.06, 0.14))
        bh = rim_top * rng.uniform(0.6, 1.0)
        y0 = int(rim_top - bh)
        colour = tuple(int(v) for v in rng.integers(15, 245, 3))
        if kind >= 0.9:  # a white box (a manual, a tissue box)
            colour = tuple(int(v) for v in rng.integers(215, 250, 3))
        elif 0.8 <= kind < 0.9:  # a dark gadget
            colour = tuple(int(v) for v in rng.integers(10, 50, 3))
        cv2.rectangle(out, (int(x), y0), (int(x + bw), rim_top), colour, -1)
        if kind < 0.8:  # a title: thin bands across the spine (never dots: pips are a tile's)
            spines.append((int(x), y0, int(x + bw), rim_top))
            ink = (20, 20, 20) if sum(colour) > 380 else (235, 235, 235)
            for _ in range(int(rng.integers(0, 3))):
                ty = int(rng.uniform(y0, rim_top - 4))
                band = max(1, int(bh * rng.uniform(0.02, 0.06)))
                cv2.rectangle(out, (int(x + bw * 0.2), ty), (int(x + bw * 0.8), ty + band), ink, -1)
        x += bw * rng.uniform(1.0, 1.2)
    if titles is not None:
        print_titles(out, spines, titles)
    return out
