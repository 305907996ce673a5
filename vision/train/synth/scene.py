"""One synthetic photo of a winning hand on a table, with tight YOLO boxes and layout truth.

Pipeline: sample the hand (content.py) -> place tiles on a flat "table plane" canvas (wall of
backs at the back, the 混 indicator set apart, the standing row, the winning tile set apart, melds
in the same row or in front) -> paint sprites into a colour layer, an alpha layer (tiles and soft
shadows) and an instance-id map -> one perspective warp of all three (the table texture is warped
with mirrored borders, it has no tiles) -> light, blur, noise, JPEG.  Boxes come from the warped
instance map, so each is the tight box of the *visible* part of its tile (occlusion by a ┴ kong's
top tile and the image border included); tiles less than 30 % visible are not labelled, except the
hand's own tiles, which are always kept fully inside the frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.classes import BACK, CLASS_ID
from vision.train.synth import clutter, content, photo, seat, table, tiles
from vision.train.synth.faces import FaceBank
from vision.train.synth.vary import ALL, Variations, stream

#: Output sizes (w, h): longest side 640–960, landscape more often (photos of a row of tiles).
SIZES: tuple[tuple[int, int], ...] = ((960, 720), (800, 600), (960, 540), (640, 640), (720, 960), (640, 480))
MIN_VISIBLE = 0.3
#: Share of close-up scenes (zoomed on part of the hand; layout truth marked partial).
CLOSEUP_SHARE = 0.2
#: Smallest face width in pixels before the warp: smaller tiles are unreadable even to people.
MIN_TILE_W = 20
#: Third seed word of the generator that decides drawn vs real faces (kept apart from the scene's).
_DRAWN_STREAM = 0xD4A3


@dataclass
class Placed:
    """A tile placed on the canvas: class, sprite, top-left position and its role in the layout."""

    cls: str
    sprite: tiles.Sprite
    x: int
    y: int
    role: str  # standing, winning, indicator, meld, wall
    group: int = -1  # meld index for role == meld
    order: float = 0.0  # reading-order key inside its group
    paint: int | None = None  # painting order key when not the placing order (upright rows)


@dataclass
class Scene:
    """A finished scene: JPEG bytes, YOLO label lines and the layout truth (label line indices)."""

    jpeg: bytes
    width: int
    height: int
    labels: list[tuple[int, float, float, float, float]]
    layout: dict = field(default_factory=dict)

    def label_text(self) -> str:
        return "".join(f"{c} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}\n" for c, cx, cy, w, h in self.labels)


class _Builder:
    """Places tiles for one scene; all sizes derive from the face width `tw`."""

    def __init__(
        self,
        bank: FaceBank,
        rng: np.random.Generator,
        tw: int,
        th: int,
        style: tiles.TileStyle,
        view: seat.SeatView | None = None,
    ):
        self.bank, self.rng, self.tw, self.th, self.style, self.view = bank, rng, tw, th, style, view
        self.placed: list[Placed] = []
        self.racks: list[tuple[int, int, int, int, tuple[int, int, int]]] = []  # x0, y0, x1, y1, colour

    def sprite(
        self, code: str, edge: str = "bottom", sideways: bool = False, upright: bool = False
    ) -> tiles.Sprite:
        """A tile's sprite; `upright` (seat views only) draws it standing, seen from the seat."""
        upright = upright and self.view is not None
        th = int(round(self.th * self.view.upright)) if upright and self.view else self.th
        if code == BACK:
            surf = tiles.back_surface(self.tw, th, self.style, self.rng)
        elif code == "P" and self.style.blank_white:
            surf = tiles.blank_surface(self.tw, th, self.style, self.rng)
        else:
            surf = tiles.face_surface(
                self.bank.pick(CLASS_ID[code], self.rng), self.tw, th, self.style, self.rng
            )
        if upright and self.view:
            return seat.render_upright(surf, self.style, self.view)
        squash = self.view.flat if self.view else 1.0
        return tiles.render_tile(
            surf, self.style, face_down=code == BACK, edge=edge, sideways=sideways, squash=squash
        )

    def gap(self, lo: float, hi: float) -> int:
        return int(round(self.rng.uniform(lo, hi) * self.tw))

    def jitter(self) -> int:
        return int(round(self.rng.normal(0, 0.02) * self.th))

    def row(self, codes: list[str], x: int, bottom: int, role: str, edge: str, upright: bool = False) -> int:
        """Tiles side by side with hairline gaps, bottoms on `bottom`; returns the right end.

        Upright tiles (seat views) are spaced by their faces, so each covers its neighbour's side;
        the row is painted from its far end so that the near end's side stays visible."""
        upright = upright and self.view is not None
        start = len(self.placed)
        for i, code in enumerate(codes):
            sp = self.sprite(code, edge=edge, upright=upright)
            side = sp.w - self.tw if upright else 0
            left = x - side if upright and self.view and self.view.near_left else x
            paint = start + len(codes) - 1 - i if upright and self.view and self.view.near_left else None
            self.placed.append(
                Placed(code, sp, left, bottom - sp.h + self.jitter(), role, order=i, paint=paint)
            )
            x += sp.w - side + self.gap(0.0, 0.06)
        return x

    def meld(self, spec: content.MeldSpec, gi: int, x: int, bottom: int) -> int:
        """Lay a meld with its left end at x and bottoms on `bottom`; returns the right end."""
        codes = [BACK if i in spec.down else f for i, f in enumerate(spec.faces)]
        if spec.shape == "stacked":
            codes, top_code = codes[:3], codes[3] if 3 not in spec.down else BACK
            if spec.kind == "concealed_kong":
                top_code = spec.faces[3]
        xs: list[int] = []
        for i, code in enumerate(codes):
            sideways = spec.sideways == i
            sp = self.sprite(code, sideways=sideways)
            self.placed.append(Placed(code, sp, x, bottom - sp.h + self.jitter(), "meld", gi, float(i)))
            xs.append(x)
            x += sp.w + self.gap(0.0, 0.05)
        if spec.shape == "stacked":
            mid = self.placed[-2]
            sp = self.sprite(top_code)
            lift = self.rng.uniform(0.3, 0.55) * self.th
            lift = int(round(lift * (self.view.flat if self.view else 1.0)))  # a low camera sees less of it
            dx = int(round(self.rng.normal(0, 0.04) * self.tw))
            self.placed.append(Placed(top_code, sp, mid.x + dx, mid.y - lift, "meld", gi, 10.0))
        return x


def _warp_points(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float64), m).reshape(-1, 2)


def _homography(w: int, h: int, rng: np.random.Generator, strength: float) -> np.ndarray:
    """Camera tilt (top edge narrower and lower: an oblique view foreshortens the table), a small
    roll, zoom and corner jitter."""
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    inset = rng.uniform(0.0, 0.18) * strength * w
    drop = rng.uniform(0.0, 0.3) * strength * h
    dst = np.array([[inset, drop], [w - inset, drop], [w, h], [0, h]], np.float64)
    dst += rng.uniform(-0.03, 0.03, (4, 2)) * strength * np.array([w, h])
    ang = np.deg2rad(rng.uniform(-8, 8) * strength)
    zoom = 1 + rng.uniform(-0.08, 0.08) * strength
    c = np.array([w / 2, h / 2])
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    dst = (dst - c) @ rot.T * zoom + c
    return cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))


def _plan(hand: content.HandSpec, rng: np.random.Generator, w: int, h: int) -> tuple[str, int, int]:
    """Choose meld placement and a face size that fits the frame.

    'row': melds to the right of the hand (and winning tile) on the same line; 'front': a row of
    melds nearer the camera; 'behind': a row of melds beyond the hand, towards the table centre.
    """
    aspect = rng.uniform(1.25, 1.45)
    n_s = len(hand.standing)
    meld_len = sum(4 if m.shape == "row" and len(m.faces) == 4 else 3 for m in hand.melds)
    meld_len += sum(0.4 for m in hand.melds if m.sideways is not None) + 1.2 * max(0, len(hand.melds) - 1)
    win = 2.6 if hand.winning_apart else 0.0
    row_len = n_s * 1.06 + win + (2.2 + meld_len if hand.melds else 0)
    split_len = max(n_s * 1.06 + win, meld_len)
    placement = "row" if not hand.melds else ("row", "front", "behind")[int(rng.choice(3, p=[0.4, 0.3, 0.3]))]

    def fit(placement: str) -> float:
        length = row_len if placement == "row" else split_len
        rows = 2.0 + (1.3 if placement != "row" else 0) + (1 if hand.indicator else 0)
        return min(0.94 * w / length, 0.85 * h / (rows * aspect * 1.6))

    tw_fit = fit(placement)
    if placement == "row" and hand.melds and tw_fit < MIN_TILE_W / 0.8:
        # one long row would make tiles too small to read: put the melds in a row of their own
        placement = "front" if rng.random() < 0.5 else "behind"
        tw_fit = fit(placement)
    tw = int(min(tw_fit * rng.uniform(0.8, 1.0), 80))
    tw = max(tw, MIN_TILE_W, 12)
    return placement, tw, int(round(tw * aspect))


def _paint(placed: list[Placed], racks: list, w: int, h: int, rng: np.random.Generator):
    """Colour layer, alpha layer (racks, tiles, soft shadows) and instance map (id = index + 1)."""
    colour = np.zeros((h, w, 3), np.uint8)
    alpha = np.zeros((h, w), np.float32)
    ids = np.zeros((h, w), np.int16)
    shadow = np.zeros((h, w), np.float32)
    sdx, sdy = int(rng.integers(-3, 4)), int(rng.integers(1, 5))
    order = sorted(range(len(placed)), key=lambda k: k if placed[k].paint is None else placed[k].paint)
    for p in placed:
        x0, y0 = p.x + sdx, p.y + sdy
        _blit_mask(shadow, p.sprite.mask.astype(np.float32) / 255.0, x0, y0, np.maximum)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 2.5) * rng.uniform(0.25, 0.6)
    alpha[:] = shadow
    for x0, y0, x1, y1, col in racks:  # a rack under the standing tiles: lit top face, darker front
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x0 >= x1 or y0 >= y1:
            continue
        ramp = np.linspace(1.15, 0.6, y1 - y0, dtype=np.float32)[:, None, None]
        colour[y0:y1, x0:x1] = np.clip(np.array(col, np.float32)[None, None] * ramp, 0, 255).astype(np.uint8)
        alpha[y0:y1, x0:x1] = 1.0
    for k in order:
        p = placed[k]
        sp = p.sprite
        x0, y0, x1, y1 = max(p.x, 0), max(p.y, 0), min(p.x + sp.w, w), min(p.y + sp.h, h)
        if x0 >= x1 or y0 >= y1:
            continue
        sub = sp.mask[y0 - p.y : y1 - p.y, x0 - p.x : x1 - p.x] > 127
        colour[y0:y1, x0:x1][sub] = sp.img[y0 - p.y : y1 - p.y, x0 - p.x : x1 - p.x][sub]
        alpha[y0:y1, x0:x1][sub] = 1.0
        ids[y0:y1, x0:x1][sub] = k + 1
    return colour, alpha, ids


def _blit_mask(dst: np.ndarray, m: np.ndarray, x: int, y: int, op) -> None:
    h, w = dst.shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + m.shape[1], w), min(y + m.shape[0], h)
    if x0 < x1 and y0 < y1:
        dst[y0:y1, x0:x1] = op(dst[y0:y1, x0:x1], m[y0 - y : y1 - y, x0 - x : x1 - x])


def _corners(p: Placed) -> np.ndarray:
    return np.array(
        [[p.x, p.y], [p.x + p.sprite.w, p.y], [p.x + p.sprite.w, p.y + p.sprite.h], [p.x, p.y + p.sprite.h]]
    )


def _meld_span(hand: content.HandSpec, tw: int, th: int) -> int:
    """Rough width of all melds laid side by side with their gaps."""
    est = sum(4.2 if len(m.faces) == 4 and m.shape == "row" else 3.2 for m in hand.melds) * tw
    est += sum((th - tw) for m in hand.melds if m.sideways is not None)
    return int(est + 1.5 * tw * (len(hand.melds) - 1))


def _lay_melds(hand: content.HandSpec, b: _Builder, x: int, bottom: int) -> None:
    for gi, m in enumerate(hand.melds):
        if gi:
            x += b.gap(0.6, 1.5)
        x = b.meld(m, gi, x, bottom)


def _layout(hand: content.HandSpec, b: _Builder, placement: str, w: int, h: int) -> None:
    """Place every tile of the scene on the canvas (in drawing order: far to near).

    Rows from the camera outwards: melds ('front'), the standing hand (+ winning tile, + melds for
    'row'), melds ('behind'), the 混 indicator, the wall.  Rows are spaced by more than a ┴ kong's lift
    so that groups never touch across rows.
    """
    rng, tw, th = b.rng, b.tw, b.th
    t = int(round(b.style.thick * tw))
    tile_h = th + t
    lift = int(0.6 * th) if any(m.shape == "stacked" for m in hand.melds) else 0
    n_s = len(hand.standing)
    row_w = int(n_s * tw * 1.03) + (int(2.6 * tw) if hand.winning_apart else 0)
    y = h - int(rng.uniform(0.04, 0.15) * h)
    front_bottom = hand_bottom = behind_bottom = y
    if placement == "front":
        hand_bottom = y - tile_h - lift - int(rng.uniform(0.4, 1.0) * th)
    far = hand_bottom - tile_h  # top of the hand row
    if placement == "behind":
        behind_bottom = far - int(rng.uniform(0.4, 1.0) * th)
        far = behind_bottom - tile_h - lift
    x_hand = int(rng.uniform(0.02, 0.1) * w)
    if placement != "row":
        x_hand = int(rng.uniform(0.02, 1.0) * max(1, w - row_w - 0.04 * w))
    # the 混 indicator: a lone tile beyond the hand rows
    ind_bottom = None
    if hand.indicator:
        ind_bottom = far - int(rng.uniform(0.6, 1.2) * th)
        far = ind_bottom - tile_h
    # wall of backs, one or two layers, beyond everything (may run out of the frame on the right)
    if rng.random() < 0.65 and far - int(0.3 * th) > tile_h + t + 2:
        wall_bottom = int(rng.uniform(tile_h + t + 2, far - int(0.3 * th)))
        n_wall = int(rng.integers(7, 15))
        wx = int(rng.uniform(0.0, 0.45) * w)
        layers = 2 if rng.random() < 0.5 else 1
        for layer in range(layers):
            x = wx
            for _ in range(n_wall):
                sp = b.sprite(BACK)
                b.placed.append(Placed(BACK, sp, x, wall_bottom - sp.h - layer * t, "wall"))
                x += sp.w
    if hand.indicator and ind_bottom is not None:
        sp = b.sprite(hand.indicator)
        ix = int(rng.uniform(0.03 * w, 0.95 * w - tw))
        b.placed.append(Placed(hand.indicator, sp, ix, ind_bottom - sp.h, "indicator"))
    if placement == "behind":
        span = _meld_span(hand, tw, th)
        _lay_melds(hand, b, int(rng.uniform(0.02 * w, max(0.02 * w + 1, 0.97 * w - span))), behind_bottom)
    x = b.row(hand.standing, x_hand, hand_bottom, "standing", edge="top", upright=True)
    if rng.random() < 0.35:  # a rack (or the table's edge strip) under the standing tiles
        col = ((40, 40, 40), (30, 60, 110), (50, 110, 50), (200, 200, 200))[int(rng.integers(4))]
        pad = int(0.3 * tw)
        b.racks.append(
            (x_hand - pad, hand_bottom - int(0.12 * th), x + pad, hand_bottom + int(0.3 * th), col)
        )
    if hand.winning_apart:
        x += b.gap(0.6, 1.6)
        sp = b.sprite(hand.winning)
        b.placed.append(Placed(hand.winning, sp, x, hand_bottom - sp.h + b.jitter(), "winning"))
        x += sp.w
    if placement == "row":
        _lay_melds(hand, b, x + b.gap(1.0, 2.2), hand_bottom)
    elif placement == "front":
        span = _meld_span(hand, tw, th)
        _lay_melds(hand, b, int(rng.uniform(0.02 * w, max(0.02 * w + 1, 0.97 * w - span))), front_bottom)


def _boxes(
    ids: np.ndarray, placed: list[Placed], m: np.ndarray, strict: bool = False
) -> list[tuple[float, float, float, float] | None]:
    """Tight visible box of each placed tile in the warped instance map.

    None for a tile that is not visible, and for a wall tile (any tile when `strict`, in close-ups)
    less than 30 % visible: too little of it shows to be read."""
    h, w = ids.shape
    out: list[tuple[float, float, float, float] | None] = []
    for k, p in enumerate(placed):
        poly = _warp_points(m, _corners(p))
        full = abs(cv2.contourArea(poly.astype(np.float32))) * (p.sprite.mask > 127).mean()
        x0 = int(np.clip(np.floor(poly[:, 0].min()) - 2, 0, w))
        x1 = int(np.clip(np.ceil(poly[:, 0].max()) + 2, 0, w))
        y0 = int(np.clip(np.floor(poly[:, 1].min()) - 2, 0, h))
        y1 = int(np.clip(np.ceil(poly[:, 1].max()) + 2, 0, h))
        if x1 <= x0 or y1 <= y0:
            out.append(None)
            continue
        sub = ids[y0:y1, x0:x1] == k + 1
        n = int(sub.sum())
        keep_any = p.role != "wall" and not strict
        if n == 0 or (not keep_any and n < MIN_VISIBLE * max(full, 1.0)):
            out.append(None)
            continue
        bx, by, bw, bh = cv2.boundingRect(sub.astype(np.uint8))
        out.append((float(x0 + bx), float(y0 + by), float(x0 + bx + bw), float(y0 + by + bh)))
    return out


def make_scene(
    bank: FaceBank,
    seed: int,
    index: int,
    quality: tuple[int, int] = (55, 95),
    closeup_share: float = CLOSEUP_SHARE,
    drawn: FaceBank | None = None,
    drawn_share: float = 0.0,
    vary: Variations = ALL,
) -> Scene:
    """Render scene `index` of run `seed`; the same (seed, index, vary) always gives the same bytes.

    With `drawn_share` > 0, that share of scenes takes all its faces from one set (bank column) of
    the `drawn` bank instead of `bank`: one table, one set.  The choice comes from its own generator,
    so scenes that keep `bank` are byte-identical to a run without drawn faces.  `vary` switches the
    domain randomisation (vision.train.synth.vary); `vary=NONE` renders the scenes of earlier versions.
    """
    if drawn_share > 0:
        if drawn is None:
            raise ValueError("drawn_share > 0 needs the drawn face bank")
        pick = np.random.default_rng([seed, index, _DRAWN_STREAM])
        if pick.random() < drawn_share:
            j = int(pick.integers(min(len(f) for f in drawn.faces)))
            bank = FaceBank(tuple(f[j : j + 1] for f in drawn.faces))
    rng = np.random.default_rng([seed, index])
    w, h = SIZES[int(rng.integers(len(SIZES)))]
    hand = content.random_hand(rng)
    placement, tw, th = _plan(hand, rng, w, h)
    style = tiles.random_style(rng)
    if vary.bodies:
        style = replace(style, ivory=tiles.body_colour(stream(seed, index, "bodies")))
    if vary.backs:
        style = replace(style, back=tiles.back_colour(stream(seed, index, "backs")))
    view = None
    if vary.seat:
        srng = stream(seed, index, "seat")
        view = seat.random_seat(srng) if srng.random() < seat.SEAT_SHARE else None
    for _ in range(6):  # shrink until every hand tile lies inside the canvas
        b = _Builder(bank, rng, tw, th, style, view)
        _layout(hand, b, placement, w, h)
        pts = [_corners(p) for p in b.placed if p.role != "wall"]
        if not pts:
            break
        q = np.concatenate(pts)
        if q[:, 0].min() >= 0 and q[:, 1].min() >= 0 and q[:, 0].max() <= w and q[:, 1].max() <= h:
            break
        tw, th = max(8, int(tw * 0.85)), max(10, int(th * 0.85))
    placed = b.placed
    colour, alpha, ids = _paint(placed, b.racks, w, h, rng)
    # a warp that keeps every hand tile inside the frame (fall back to milder ones)
    hand_pts = np.concatenate([_corners(p) for p in placed if p.role != "wall"]).astype(np.float64)
    m = np.eye(3)
    turn = np.eye(3)
    if view is not None:  # the row turned away from the camera about the hand's line
        row_y = [p.y + p.sprite.h / 2 for p in placed if p.role == "standing"]
        turn = seat.turn(w, h, float(np.mean(row_y)), view)
    for strength in (1.0, 0.6, 0.3, 0.0):
        cand = (_homography(w, h, rng, strength) if strength > 0 else np.eye(3)) @ turn
        q = _warp_points(cand, hand_pts)
        if q[:, 0].min() >= 2 and q[:, 1].min() >= 2 and q[:, 0].max() <= w - 2 and q[:, 1].max() <= h - 2:
            m = cand
            break
    if view is not None:
        m = seat.close_in(_warp_points(m, hand_pts), w, h, view) @ m
    closeup = rng.random() < closeup_share
    if closeup:
        # zoom in on a random hand tile: bigger tiles like real close photos; part of the hand leaves
        # the frame, so the layout truth is partial
        q = _warp_points(m, hand_pts)
        c = q[int(rng.integers(len(q)))]
        z = rng.uniform(1.3, 1.9)
        zoom = np.array([[z, 0, (1 - z) * c[0]], [0, z, (1 - z) * c[1]], [0, 0, 1]])
        m = zoom @ m
    # the plain table's draws are made even when `felt` replaces it: the main generator stays put
    plain = table.table(h, w, rng, render=not vary.felt)
    bg = table.automatic_table(h, w, stream(seed, index, "felt")) if plain is None else plain
    if vary.clutter:  # under the tiles, never labelled: what the detector must leave alone
        crng = stream(seed, index, "clutter")
        if crng.random() < clutter.CLUTTER_SHARE:
            bg = clutter.add_clutter(bg, crng)
    bg = cv2.warpPerspective(bg, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    colour = cv2.warpPerspective(colour, m, (w, h), flags=cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(alpha, m, (w, h), flags=cv2.INTER_LINEAR)
    ids = cv2.warpPerspective(ids, m, (w, h), flags=cv2.INTER_NEAREST)
    a = alpha[..., None]
    img = (bg.astype(np.float32) * (1 - a) + colour.astype(np.float32) * a).astype(np.uint8)
    if view is not None and view.low:  # beyond the table: rim and shelf, above every tile
        rows = np.flatnonzero((ids > 0).any(1) | (alpha > 0.01).any(1))
        titles = stream(seed, index, "titles") if vary.titles else None
        img = seat.backdrop(img, int(rows[0]) if len(rows) else h, srng, titles)
    img = table.light_gradient(img, rng)
    img = table.camera_effects(img, rng)
    img = photo.apply(img, alpha, vary, seed, index)
    q = int(rng.integers(quality[0], quality[1] + 1))
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    boxes = _boxes(ids, placed, m, strict=closeup)
    kept = [k for k, bx in enumerate(boxes) if bx is not None]
    perm = rng.permutation(len(kept))  # label order carries no layout information
    line_of: dict[int, int] = {}
    labels: list[tuple[int, float, float, float, float]] = [None] * len(kept)  # type: ignore[list-item]
    for li, pi in zip(perm.tolist(), kept, strict=True):
        x0, y0, x1, y1 = boxes[pi]  # type: ignore[misc]
        labels[li] = (
            CLASS_ID[placed[pi].cls],
            (x0 + x1) / 2 / w,
            (y0 + y1) / 2 / h,
            (x1 - x0) / w,
            (y1 - y0) / h,
        )
        line_of[pi] = li
    layout = _truth(hand, placed, line_of, placement, w, h)
    layout["partial"] = closeup
    return Scene(jpeg=enc.tobytes(), width=w, height=h, labels=labels, layout=layout)


def _truth(
    hand: content.HandSpec, placed: list[Placed], line_of: dict[int, int], placement: str, w: int, h: int
) -> dict:
    """Layout ground truth in label line indices (schema in the `vision.train.synth` package docstring)."""

    def lines(role: str, group: int = -1) -> list[int]:
        ps = [
            (p.order, k) for k, p in enumerate(placed) if p.role == role and p.group == group and k in line_of
        ]
        return [line_of[k] for _, k in sorted(ps)]

    melds = []
    for gi, spec in enumerate(hand.melds):
        members = [
            (p.order, k) for k, p in enumerate(placed) if p.role == "meld" and p.group == gi and k in line_of
        ]
        members.sort()
        if not members:  # out of the frame (close-up)
            continue
        idx = [line_of[k] for _, k in members]
        top = [line_of[k] for o, k in members if o >= 10.0]
        side = [line_of[k] for o, k in members if spec.sideways is not None and o == spec.sideways]
        melds.append(
            {
                "kind": spec.kind,
                "tiles": idx,
                "faces": list(spec.faces),
                "shape": spec.shape,
                "stacked": top[0] if top else None,
                "sideways": side[0] if side else None,
                "backs": [line_of[k] for _, k in members if placed[k].cls == BACK],
            }
        )
    win = lines("winning")
    ind = lines("indicator")
    return {
        "width": w,
        "height": h,
        "standing": lines("standing"),
        "winning": win[0] if win else None,
        "winning_face": hand.winning,
        "winning_in_standing": not hand.winning_apart,
        "indicator": ind[0] if ind else None,
        "melds": melds,
        "meld_placement": placement if hand.melds else None,
        "wall": sorted(line_of[k] for k, p in enumerate(placed) if p.role == "wall" and k in line_of),
    }
