"""Domain randomisation of the synthetic scenes (vision.train.synth.vary, photo, seat, drawn v3).

What must hold: every switch can be turned off and changes the scenes when on; the geometry-free
variations leave labels and layout alone; seat views still give boxes that fit the tiles painted;
the same seed and switches give the same bytes; the photometric effects do what they say.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.train.synth_marks import HAS_REAL, needs_font, needs_real
from vision.classes import CLASS_NAMES
from vision.train.synth import cli, drawn, photo, scene, seat, table, tiles
from vision.train.synth.faces import DEFAULT_SOURCE, FaceBank, load_face_bank
from vision.train.synth.vary import ALL, NONE, STREAMS, Variations, stream

SEED = 7


@pytest.fixture(scope="module")
def bank() -> FaceBank:
    if not HAS_REAL:
        pytest.skip(f"real tile set not at {DEFAULT_SOURCE}")
    return load_face_bank()


# --- the switches --------------------------------------------------------------------------------


def test_parse_all_none_lists_and_unknown_names() -> None:
    assert Variations.parse("all") == ALL and Variations.parse("none") == NONE
    v = Variations.parse("felt, glare")
    assert v.felt and v.glare and not v.seat and v.label() == "felt,glare"
    w = Variations.parse("all", "seat,jpeg")
    assert not w.seat and not w.jpeg and w.prints and w.noise
    assert Variations.parse("all", ",".join(Variations.names())) == NONE
    with pytest.raises(ValueError, match="unknown variation sparkle"):
        Variations.parse("felt,sparkle")
    with pytest.raises(ValueError, match="unknown variation"):
        Variations.parse("all", "nope")
    assert set(STREAMS) == set(Variations.names()) - {"prints"}  # one generator per drawn variation


def test_cli_rejects_an_unknown_variation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["--out", str(tmp_path), "--n", "1", "--no-vary", "glitter"])
    assert e.value.code == 2 and "unknown variation glitter" in capsys.readouterr().err


def test_streams_are_seeded_per_scene_and_apart() -> None:
    a = stream(1, 2, "glare").random(4)
    assert np.array_equal(a, stream(1, 2, "glare").random(4))
    assert not np.array_equal(a, stream(1, 3, "glare").random(4))
    assert not np.array_equal(a, stream(1, 2, "noise").random(4))


_PLAIN: dict[int, scene.Scene] = {}


def _plain(bank: FaceBank, i: int) -> scene.Scene:
    """Scene i with every switch off, rendered once for all the tests that compare with it."""
    if i not in _PLAIN:
        _PLAIN[i] = scene.make_scene(bank, SEED, i, vary=NONE)
    return _PLAIN[i]


def _first_change(bank: FaceBank, on: Variations, tries: int = 8) -> int | None:
    """Index of the first scene whose bytes differ from the plain scene (None: none did)."""
    for i in range(tries):
        if scene.make_scene(bank, SEED, i, vary=on).jpeg != _plain(bank, i).jpeg:
            return i
    return None


@needs_real
@pytest.mark.parametrize("name", [n for n in Variations.names() if n not in ("prints", "titles")])
def test_each_switch_changes_scenes_alone(bank: FaceBank, name: str) -> None:
    """One switch on (all others off) changes some scene; the geometry-free ones keep its labels and
    layout (the boxes stay those of the unvaried scene)."""
    only = dataclasses.replace(NONE, **{name: True})
    i = _first_change(bank, only)
    assert i is not None, f"{name} changed nothing in 8 scenes"
    if name != "seat":
        a, b = scene.make_scene(bank, SEED, i, vary=only), _plain(bank, i)
        assert a.labels == b.labels and a.layout == b.layout


@needs_real
def test_titles_print_on_a_low_scenes_shelf_and_move_nothing_else(bank: FaceBank) -> None:
    """`titles` draws from its own generator over the shelf of a low seat scene: the scene's labels
    and layout are those without it, its bytes are not."""
    base = dataclasses.replace(NONE, seat=True)
    with seat.mix((1.0, 1.0)):
        a = scene.make_scene(bank, SEED, 0, vary=dataclasses.replace(base, titles=True))
        b = scene.make_scene(bank, SEED, 0, vary=base)
    assert a.jpeg != b.jpeg and a.labels == b.labels and a.layout == b.layout


@needs_real
def test_same_seed_and_switches_same_bytes(bank: FaceBank) -> None:
    for i in range(3):
        a = scene.make_scene(bank, SEED, i, vary=ALL)
        assert a.jpeg == scene.make_scene(bank, SEED, i, vary=ALL).jpeg
        assert a.jpeg != scene.make_scene(bank, SEED + 1, i, vary=ALL).jpeg


@needs_real
def test_leaving_one_out_keeps_the_others(bank: FaceBank) -> None:
    """Turning glare off changes no other variation's draw: all-but-glare equals all where this
    scene has no glare drawn, and the labels never move."""
    no_glare = dataclasses.replace(ALL, glare=False)
    for i in range(4):
        a, b = scene.make_scene(bank, SEED, i, vary=ALL), scene.make_scene(bank, SEED, i, vary=no_glare)
        assert a.labels == b.labels
        glare_drawn = stream(SEED, i, "glare").random() >= 0.6
        assert (a.jpeg == b.jpeg) == (not glare_drawn)


# --- seat views ----------------------------------------------------------------------------------


def _seat_indices(n: int) -> list[int]:
    return [i for i in range(40) if stream(SEED, i, "seat").random() < seat.SEAT_SHARE][:n]


@needs_real
def test_seat_boxes_fit_the_tiles_painted(bank: FaceBank, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each seat scene rendered twice, on a black and on a white table (no rack): the pixels that do
    not change are tile.  Every labelled box is mostly tile and touches tile at all four edges, and
    the boxes cover the tiles (none left unlabelled)."""
    paint = scene._paint
    monkeypatch.setattr(scene, "_paint", lambda placed, racks, w, h, rng: paint(placed, [], w, h, rng))
    only_seat = dataclasses.replace(NONE, seat=True)

    def render(i: int, grey: int) -> tuple[scene.Scene, np.ndarray]:
        monkeypatch.setattr(
            scene.table, "table", lambda h, w, rng, render=True: np.full((h, w, 3), grey, np.uint8)
        )
        sc = scene.make_scene(bank, SEED, i, vary=only_seat, closeup_share=0.0)
        return sc, cv2.imdecode(np.frombuffer(sc.jpeg, np.uint8), cv2.IMREAD_COLOR).astype(int)

    for i in _seat_indices(3):
        (sc, dark), (sc2, light) = render(i, 0), render(i, 255)
        assert sc.labels == sc2.labels
        diff = np.abs(light - dark).max(-1)
        tile, blurred_tile = diff < 40, diff < 160  # (blur mixes a tile's outline with the table)
        h, w = tile.shape
        covered = np.zeros_like(tile)
        top = h  # the hand's top: beyond it lies the wall, whose mostly hidden tiles go unlabelled
        for line, (_, cx, cy, bw, bh) in enumerate(sc.labels):
            if line not in sc.layout["wall"]:
                top = min(top, int((cy - bh / 2) * h))
            x0, y0 = int(round((cx - bw / 2) * w)), int(round((cy - bh / 2) * h))
            x1, y1 = int(round((cx + bw / 2) * w)), int(round((cy + bh / 2) * h))
            box = tile[y0:y1, x0:x1]
            assert box.mean() > 0.5, (i, x0, y0, x1, y1)
            edges = blurred_tile[y0:y1, x0:x1]
            for edge in (edges[:3], edges[-3:], edges[:, :3], edges[:, -3:]):
                assert edge.sum() >= 2, (i, x0, y0, x1, y1)  # a turned tile touches its box at corners
            covered[max(0, y0 - 3) : y1 + 3, max(0, x0 - 3) : x1 + 3] = True
        assert (tile & ~covered)[top:].sum() < 0.02 * tile[top:].sum(), i
        assert sc.layout["standing"] and not sc.layout["partial"]


def test_upright_tile_shows_its_top_and_one_side() -> None:
    """The upright sprite is the face plus the top (face layer then back layer going back) and, when
    the row is turned, a shaded side on the near end's side."""
    style = tiles.TileStyle(ivory=(230, 240, 245), back=(40, 160, 40), thick=0.3, back_share=0.5, radius=0.1)
    face = np.full((60, 40, 3), 200, np.uint8)
    view = seat.SeatView(upright=0.8, flat=0.6, depth=0.7, side=0.3, near_left=True, shrink=0.7, fill=0.9)
    sp = seat.render_upright(face, style, view)
    top, side = sp.h - 60, sp.w - 40
    assert top == round(0.7 * 0.6 * 40) and side == round(0.7 * 0.3 * 40)
    assert np.array_equal(sp.img[top + 30, side + 20], face[30, 20])
    back_row = sp.img[1, side + 10].astype(int)  # the far part of the top: the back layer, green
    assert back_row[1] > back_row[0] + 40 and back_row[1] > back_row[2] + 40
    grey = face[0, 0]
    # near end on the left: the shaded side left of the face, the top shifted left (back goes left)
    assert sp.mask[top + 30, 2] == 255 and not np.array_equal(sp.img[top + 30, 2], grey)
    assert np.array_equal(sp.img[top + 30, sp.w - 1], grey) and sp.mask[0, sp.w - 1] == 0
    right = seat.render_upright(face, style, dataclasses.replace(view, near_left=False))
    assert np.array_equal(right.img[top + 30, 2], grey) and right.mask[0, 0] == 0
    assert right.mask[top + 30, right.w - 3] == 255 and not np.array_equal(
        right.img[top + 30, right.w - 3], grey
    )


def test_close_in_keeps_the_hand_inside() -> None:
    view = seat.SeatView(upright=0.8, flat=0.6, depth=0.7, side=0.2, near_left=False, shrink=0.8, fill=0.9)
    pts = np.array([[100.0, 300.0], [400.0, 300.0], [400.0, 360.0], [100.0, 360.0]])
    z = seat.close_in(pts, 800, 600, view)
    q = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), z).reshape(-1, 2)
    assert q[:, 0].min() >= 0 and q[:, 0].max() <= 800 and q[:, 1].min() >= 0 and q[:, 1].max() <= 600
    assert np.isclose(q[:, 0].max() - q[:, 0].min(), 0.9 * 800)


def test_a_low_seat_scene_shows_the_shelf_above_every_tile_and_the_mix_is_put_back(tmp_path: Path) -> None:
    """Round 6's mix (`vision synth --seat-share 1 --low-share 1` here): low cameras, their faces
    near full height, a backdrop above the topmost tile that no label touches; generate puts the
    module's mix back, so later scenes in the process are the default ones."""
    before = (seat.SEAT_SHARE, seat.LOW_SHARE)
    rng = np.random.default_rng(0)
    seat.set_mix(1.0, 1.0)
    try:
        views = [seat.random_seat(rng) for _ in range(20)]
    finally:
        seat.set_mix(*before)
    assert all(v.low and v.upright > np.cos(np.deg2rad(31)) and v.flat >= seat.MIN_FLAT for v in views)
    img = np.full((200, 300, 3), 90, np.uint8)
    out = seat.backdrop(img, 120, np.random.default_rng(1))
    assert (out[120:] == img[120:]).all() and (out[:100] != img[:100]).any()  # nothing at or under a tile
    titled = seat.backdrop(img, 120, np.random.default_rng(1), np.random.default_rng(2))
    printed = (titled != out).any(2)
    assert printed.any() and not printed[120:].any()  # print on the shelf, the same shelf, nothing below
    with pytest.raises(ValueError):
        seat.set_mix(1.5, 0.0)
    if HAS_REAL:
        cli.generate(tmp_path, 2, SEED, val_fraction=0.0, seat_mix=(1.0, 1.0))
        assert before == (seat.SEAT_SHARE, seat.LOW_SHARE)
        assert len(list((tmp_path / "images").glob("*.jpg"))) == 2


# --- photometric effects -------------------------------------------------------------------------


def _photo() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    img = np.clip(rng.normal(128, 40, (120, 160, 3)), 0, 255).astype(np.uint8)
    alpha = np.zeros((120, 160), np.float32)
    alpha[40:80, 40:120] = 1.0
    return img, alpha


def test_exposure_curves_darken_and_brighten() -> None:
    means = [photo._exposure_curve(np.random.default_rng(s)).mean() for s in range(60)]
    assert min(means) < 0.35 and max(means) > 0.6  # under- and over-exposed photos both occur
    for s in range(20):
        c = photo._exposure_curve(np.random.default_rng(s))
        assert np.all(np.diff(c) >= -1e-9) and c[0] >= 0 and c[-1] <= 1  # monotone tone curve


def test_white_balance_casts_both_ways() -> None:
    gains = np.array([photo._white_balance(np.random.default_rng(s)) for s in range(40)])
    assert (gains[:, 2] > gains[:, 0] + 0.1).any() and (gains[:, 0] > gains[:, 2] + 0.1).any()


def test_glare_brightens_mostly_tiles() -> None:
    img, alpha = _photo()
    hits = 0
    for s in range(12):
        out = photo.glare(img, alpha, np.random.default_rng(s))
        assert out.shape == img.shape and out.dtype == np.uint8
        diff = out.astype(int) - img.astype(int)
        assert diff.min() >= 0  # glare only adds light
        if diff.any():
            hits += 1
            assert diff.max() < 255 * 0.86  # faces show through the hottest glare
    assert 2 <= hits <= 10  # some scenes have glare, not all


def test_blur_noise_and_recompression_change_the_photo_and_keep_its_shape() -> None:
    img, _ = _photo()
    for effect in (photo.blur, photo.noise, photo.recompress):
        outs = [effect(img, np.random.default_rng(s)) for s in range(10)]
        assert all(o.shape == img.shape and o.dtype == np.uint8 for o in outs)
        assert any(not np.array_equal(o, img) for o in outs), effect.__name__
        again = effect(img, np.random.default_rng(3))
        assert np.array_equal(again, outs[3]), effect.__name__  # seeded
    sharp = np.zeros((64, 64, 3), np.uint8)
    sharp[:, 32:] = 255
    blurred = [photo.blur(sharp, np.random.default_rng(s)) for s in range(10)]
    assert any(np.count_nonzero((b > 10) & (b < 245)) > 64 for b in blurred)  # edges soften


def test_apply_with_nothing_on_is_the_identity() -> None:
    img, alpha = _photo()
    assert np.array_equal(photo.apply(img, alpha, NONE, 1, 2), img)
    assert not np.array_equal(photo.apply(img, alpha, ALL, 1, 2), img)


# --- colours -------------------------------------------------------------------------------------


def test_body_and_back_colours_cover_the_palettes() -> None:
    backs = np.array([tiles.back_colour(np.random.default_rng(s)) for s in range(200)])
    bodies = np.array([tiles.body_colour(np.random.default_rng(s)) for s in range(60)])
    b, g, r = backs.T.astype(int)
    assert ((r > g + 60) & (g > b)).any()  # orange
    assert ((r > g + 60) & (b > g + 30)).any()  # pink
    assert ((b > r + 60) & (b > g)).any()  # blue
    assert ((g > r + 60) & (g > b + 60)).any()  # green
    assert ((r > 180) & (g > 140) & (b < 90)).any()  # yellow
    assert (
        bodies.min() > 140
        and (bodies[:, 2] - bodies[:, 0] > 50).any()
        and (np.ptp(bodies, axis=1) < 10).any()
    )


def test_a_replaced_table_still_makes_its_draws() -> None:
    """`table(render=False)` leaves the generator where drawing the table would (felt, wood and
    cloth all occur in 40 seeds), so turning `felt` on moves nothing else in the scene."""
    kinds = set()
    for s in range(40):
        a, b = np.random.default_rng(s), np.random.default_rng(s)
        img = table.table(60, 80, a)
        assert img is not None and img.shape == (60, 80, 3)
        assert table.table(60, 80, b, render=False) is None
        assert a.random() == b.random()
        kinds.add(float(np.random.default_rng(s).random()) // 0.05)
    assert min(kinds) < 11 and max(kinds) >= 16  # felt (< 0.55) and cloth (>= 0.8) both drawn


# --- drawn bank version 3 ------------------------------------------------------------------------


@needs_font
def test_prints_keep_version_2_draws_and_add_variety() -> None:
    """The version-3 fields are drawn after version 2's: with `prints` off the style is version 2's,
    and on, the earlier fields it does not restyle are unchanged."""
    font = str(drawn.find_cjk_font())
    kept = ("font_index", "stretch", "shear", "bg", "red", "man", "five", "dot_style", "one_sou", "red_fives")
    seen: dict[str, set] = {"man_scheme": set(), "bird": set(), "white_frame": set()}
    for s in range(30):
        v2 = drawn._random_set(np.random.default_rng(s), font, prints=False)
        v3 = drawn._random_set(np.random.default_rng(s), font, prints=True)
        assert v2 == drawn._version2_set(np.random.default_rng(s), font)
        assert all(getattr(v2, k) == getattr(v3, k) for k in kept)
        for k in seen:
            seen[k].add(getattr(v3, k))
    assert seen["man_scheme"] == {"classic", "red_numeral"}
    assert seen["bird"] >= {"", "sparrow", "crane", "swallow", "perched"}
    assert seen["white_frame"] >= {"", "corners", "thick", "rounded"}


@needs_font
def test_version_3_faces_draw_what_they_say() -> None:
    st = drawn._random_set(np.random.default_rng(3), str(drawn.find_cjk_font()), prints=False)

    def face(name: str, **kw: object) -> np.ndarray:
        style = dataclasses.replace(st, **kw)
        return drawn._draw_face(CLASS_NAMES.index(name), style, np.random.default_rng(7)).astype(int)

    def red_ink(img: np.ndarray) -> int:
        return int(((img[..., 2] - img[..., 1] > 60) & (img[..., 2] - img[..., 0] > 60)).sum())

    top = slice(0, drawn.FACE_H // 2)  # the numeral's half of a 萬 face
    dark = (40, 40, 40)
    assert red_ink(face("3m", man_scheme="red_numeral", man_ink=dark)[top]) > red_ink(face("3m")[top]) + 30
    for bird in ("sparrow", "crane", "swallow", "perched"):
        one = face("1s", bird=bird, bird_ink=(20, 120, 20))
        assert not np.array_equal(one, face("1s")) and one.std() > 15, bird
    blank = face("P", white="blank")
    for frame in ("corners", "thick", "rounded"):
        framed = face("P", white="blank", white_frame=frame, white_ink=(180, 60, 10))
        assert np.abs(framed - blank).sum(-1).max() > 150, frame  # blue ink where the blank was plain
    assert np.array_equal(face("4p", bird="crane", white_frame="thick"), face("4p"))


@needs_font
def test_drawn_bank_versions_are_cached_apart(tmp_path: Path) -> None:
    v3 = drawn.drawn_face_bank(seed=2, per_class=1, cache_dir=tmp_path)
    v2 = drawn.drawn_face_bank(seed=2, per_class=1, cache_dir=tmp_path, prints=False)
    names = sorted(p.name for p in tmp_path.glob("*.npz"))
    assert len(names) == 2 and any("-v3-" in n for n in names) and any("-v2-" in n for n in names)
    assert any(a.tobytes() != b.tobytes() for a, b in zip(v2.faces, v3.faces, strict=True))


# --- the dataset on disk -------------------------------------------------------------------------


@needs_real
def test_cli_vary_none_is_all_switches_off(tmp_path: Path) -> None:
    names = ",".join(Variations.names())
    assert cli.main(["--out", str(tmp_path / "a"), "--n", "1", "--seed", "4", "--vary", "none"]) == 0
    assert cli.main(["--out", str(tmp_path / "b"), "--n", "1", "--seed", "4", "--no-vary", names]) == 0
    assert cli.main(["--out", str(tmp_path / "c"), "--n", "1", "--seed", "4"]) == 0
    name = cli.scene_name(0)
    a, b, c = ((tmp_path / k / "images" / f"{name}.jpg").read_bytes() for k in "abc")
    assert a == b and a != c
    layout = json.loads((tmp_path / "c" / "layout" / f"{name}.json").read_text())
    assert layout["width"] * layout["height"] > 0


def test_clutter_draws_things_that_are_no_tile() -> None:
    """Each kind of clutter paints the table, and never where nothing was asked for."""
    from vision.train.synth import clutter

    table_ = np.full((300, 400, 3), (40, 120, 40), np.uint8)
    for name, draw in clutter.DRAWERS.items():
        img = table_.copy()
        draw(img, np.random.default_rng(3), 300.0)
        assert (img != table_).any(axis=2).mean() > 0.002, f"{name} drew nothing"
    again = clutter.add_clutter(table_, np.random.default_rng(5))
    assert np.array_equal(again, clutter.add_clutter(table_, np.random.default_rng(5)))
    assert not np.array_equal(again, table_) and np.array_equal(table_, np.full_like(table_, (40, 120, 40)))
