"""Layout reader: hand-made layouts and generated scenes with known layout."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from vision.read.layout import Layout, read_layout
from vision.train.synth.faces import DEFAULT_SOURCE
from vision.train.synth.truth import layout_errors, load_scene

W, H = 40.0, 54.0  # an upright tile's box


@dataclass
class Det:
    cls: str
    conf: float
    xyxy: tuple[float, float, float, float]
    alternatives: list = field(default_factory=list)


def tile(cls: str, x: float, bottom: float, sideways: bool = False, conf: float = 0.95) -> Det:
    w, h = (H, W) if sideways else (W, H)
    return Det(cls, conf, (x, bottom - h, x + w, bottom))


def row(codes: list[str], x: float, bottom: float, gap: float = 1.0) -> tuple[list[Det], float]:
    """Tiles side by side; returns them and the x after the last one."""
    out = []
    for c in codes:
        out.append(tile(c, x, bottom))
        x += W + gap
    return out, x


#: Standing tiles of a complete hand with one meld down (winning tile in the row).
STAND = ["1m", "2m", "3m", "4p", "4p", "5s", "6s", "7s", "E", "E", "E"]
NS = len(STAND)


def check(dets: list[Det], layout: Layout) -> None:
    for v in (layout.standing_conf, layout.winning_conf, layout.indicator_conf, layout.confidence):
        assert 0.0 <= v <= 1.0
    for m in layout.melds:
        assert 0.0 <= m.kind_conf <= 1.0 and 0.0 <= m.group_conf <= 1.0
    used = layout.standing + [i for m in layout.melds for i in m.tiles]
    used += [i for i in (layout.winning, layout.indicator) if i is not None]
    assert len(used) == len(set(used)) and all(0 <= i < len(dets) for i in used)


def test_stacked_kong_is_read_as_kong() -> None:
    dets, x = row(STAND, 50, 300)
    base = [tile("W", x + 60 + k * (W + 1), 300) for k in range(3)]
    top = tile("W", x + 60 + W + 1 + 2, 300 - 0.45 * H)
    dets += base + [top]
    lay = read_layout(dets)
    check(dets, lay)
    assert lay.standing == list(range(NS))
    assert len(lay.melds) == 1
    m = lay.melds[0]
    assert m.kind == "kong" and m.stacked == NS + 3 and sorted(m.tiles) == list(range(NS, NS + 4))
    assert m.codes(dets) == ["W"] * 4
    assert lay.winning is None and lay.indicator is None
    assert not lay.doubts()


def test_stacked_kong_with_hidden_middle_tile() -> None:
    """Only three tiles detected, the middle one raised: a ┴ kong whose fourth tile is hidden."""
    dets, x = row(STAND, 50, 300)
    dets += [
        tile("W", x + 60, 300),
        tile("W", x + 60 + W + 1, 300 - 0.35 * H),
        tile("W", x + 60 + 2 * W + 2, 300),
    ]
    lay = read_layout(dets)
    check(dets, lay)
    assert [m.kind for m in lay.melds] == ["kong"] and lay.melds[0].stacked == NS + 1
    assert lay.melds[0].codes(dets) == ["W"] * 4
    assert "meld 0 kind" in lay.doubts()


def test_concealed_kong_with_backs() -> None:
    dets, x = row(STAND, 50, 300)
    dets += row(["back", "C", "C", "back"], x + 70, 300)[0]
    lay = read_layout(dets)
    check(dets, lay)
    assert [m.kind for m in lay.melds] == ["concealed_kong"]
    assert lay.melds[0].tiles == list(range(NS, NS + 4))
    assert lay.to_codes(dets)["melds"] == [("concealed_kong", ["C"] * 4)]


def test_all_backs_kong_and_wall() -> None:
    """Four backs are a concealed kong; a long row of backs is the wall and is ignored."""
    wall = row(["back"] * 12, 40, 80, gap=0.0)[0]
    hand, x = row(STAND, 50, 300)
    kong = row(["back"] * 4, x + 70, 300)[0]
    dets = wall + hand + kong
    lay = read_layout(dets)
    check(dets, lay)
    assert lay.standing == list(range(12, 12 + NS))
    assert [m.kind for m in lay.melds] == ["concealed_kong"]
    assert set(range(12)) <= set(lay.ignored)


def test_set_apart_winning_tile_and_indicator() -> None:
    codes = ["1m", "1m", "2p", "3p", "4p", "5s", "5s", "5s", "7s", "8s", "9s", "N", "N"]
    dets, x = row(codes, 30, 400)
    dets.append(tile("N", x + 0.9 * W, 400))  # winning, set apart
    dets.append(tile("F", 300, 200))  # 混 indicator, off the row
    lay = read_layout(dets)
    check(dets, lay)
    assert lay.standing == list(range(13))
    assert lay.winning == 13 and lay.indicator == 14
    assert lay.winning_conf > 0.6
    codes_out = lay.to_codes(dets)
    assert codes_out["winning"] == "N" and codes_out["indicator"] == "F"


def test_winning_tile_in_row_is_not_set_apart() -> None:
    dets, _ = row(["1m", "1m", "2p", "3p", "4p", "5s", "5s", "5s", "7s", "8s", "9s", "N", "N", "N"], 30, 400)
    lay = read_layout(dets)
    assert lay.standing == list(range(14)) and lay.winning is None and not lay.melds


def test_chi_with_sideways_tile_and_pong_in_front_row() -> None:
    dets, x = row(["1m", "2m", "3m", "4p", "5p", "6p", "E"], 40, 300)
    dets.append(tile("E", x + 0.8 * W, 300))  # winning
    y = 300 + H + 30  # meld row nearer the camera
    dets.append(tile("4s", 60, y, sideways=True))
    dets += [tile("5s", 60 + H + 1, y), tile("6s", 60 + H + W + 2, y)]
    dets += row(["P", "P", "P"], 60 + H + 2 * W + 50, y)[0]
    lay = read_layout(dets)
    check(dets, lay)
    assert lay.standing == list(range(7)) and lay.winning == 7
    assert [(m.kind, m.tiles) for m in lay.melds] == [("chi", [8, 9, 10]), ("pong", [11, 12, 13])]


def test_tilted_row_reading_order_from_shuffled_detections() -> None:
    """A 6° roll: boxes of turned tiles overlap their neighbours, the order follows the row line."""
    ang = math.radians(6)
    dets = []
    codes = STAND + ["9p", "9p", "9p", "S"]
    for k, c in enumerate(codes):
        cx, cy = 60 + k * 41 * math.cos(ang), 300 + k * 41 * math.sin(ang)
        bw = W * math.cos(ang) + H * math.sin(ang)
        bh = W * math.sin(ang) + H * math.cos(ang)
        dets.append(Det(c, 0.9, (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2)))
    order = [5, 0, 13, 2, 9, 11, 1, 7, 3, 12, 4, 8, 6, 10]
    shuffled = [dets[i] for i in order]
    lay = read_layout(shuffled)
    assert [order[i] for i in lay.standing] == list(range(14))


def test_misread_meld_face_lowers_kind_confidence() -> None:
    dets, x = row(STAND, 50, 300)
    dets += row(["3s", "3s", "8m"], x + 70, 300)[0]
    lay = read_layout(dets)
    assert len(lay.melds) == 1 and lay.melds[0].kind_conf < 0.6
    assert lay.doubts() == ["meld 0 kind"]


def test_missing_tile_is_flagged_by_count() -> None:
    dets, x = row(STAND[:-1], 50, 300)  # one standing tile not detected
    dets += row(["P", "P", "P"], x + 70, 300)[0]
    lay = read_layout(dets)
    assert lay.tile_count == 13 and "tile count" in lay.doubts() and lay.confidence < 0.6


def test_empty_input() -> None:
    lay = read_layout([])
    assert lay.standing == [] and lay.melds == [] and lay.confidence == 0.0


@pytest.mark.skipif(not (DEFAULT_SOURCE / "train" / "images").is_dir(), reason="real tile set absent")
def test_generated_scenes_exact_layout(tmp_path: Path) -> None:
    """Ground-truth boxes as detections: at least 90 % of generated scenes read exactly
    (benchmarks/bench_layout.py measures the rate on more scenes)."""
    from vision.train.synth.cli import generate, scene_name

    n = 40
    generate(tmp_path, n, seed=11, val_fraction=0.0, closeup_share=0.0)
    ok = 0
    for i in range(n):
        dets, truth = load_scene(tmp_path, scene_name(i))
        lay = read_layout(dets)
        check(dets, lay)
        ok += not layout_errors(lay, truth)
    assert ok / n >= 0.9
