"""vision.read.melds: a loser's laid-down melds from the geometry and faces of the detections."""

from __future__ import annotations

from dataclasses import dataclass

from vision.read.melds import read_melds


@dataclass
class D:
    cls: str
    conf: float
    xyxy: tuple[float, float, float, float]


def _row(faces: list[str], x0: float = 0.0, gap: float = 1.0, w: float = 40.0, y: float = 100.0) -> list[D]:
    """Tiles upright side by side, `gap` px apart (touching: a meld, or melds laid together)."""
    return [D(f, 0.9, (x0 + k * (w + gap), y, x0 + k * (w + gap) + w, y + 56)) for k, f in enumerate(faces)]


def test_two_pongs_laid_touching_are_cut_by_their_faces():
    dets = _row(["P", "P", "P", "7p", "7p", "7p"])
    got = read_melds(dets)
    assert got.codes(dets) == [("pong", ["P"] * 3), ("pong", ["7p"] * 3)] and got.ignored == []


def test_a_chow_a_pong_and_a_kong_apart():
    dets = _row(["3m", "4m", "5m"]) + _row(["9s"] * 3, x0=200) + _row(["E"] * 4, x0=400)
    got = read_melds(dets)
    assert got.codes(dets) == [("chi", ["3m", "4m", "5m"]), ("pong", ["9s"] * 3), ("kong", ["E"] * 4)]


def test_a_concealed_kong_shows_its_face_when_one_tile_is_up():
    dets = _row(["back", "C", "C", "back"])
    assert read_melds(dets).codes(dets) == [("concealed_kong", ["C"] * 4)]


def test_a_run_no_cut_fits_and_lone_tiles_are_left_for_the_player():
    dets = _row(["1m", "5p", "9s", "E", "C"]) + _row(["2s"], x0=400) + _row(["3s", "3s"], x0=600)
    got = read_melds(dets)
    assert got.melds == [] and got.ignored == list(range(len(dets))) and got.confidence < 0.5


def test_the_cut_prefers_the_surer_reading():
    # 5m5m5m6m7m8m: 碰5m + 吃678m, or 吃567m with 5m5m left — only the first explains every tile
    dets = _row(["5m", "5m", "5m", "6m", "7m", "8m"])
    assert read_melds(dets).codes(dets) == [("pong", ["5m"] * 3), ("chi", ["6m", "7m", "8m"])]


def test_nothing_on_the_photo():
    got = read_melds([])
    assert got.melds == [] and got.confidence == 1.0


def test_a_tile_against_the_melds_at_the_edge_is_left_out():
    dets = _row(["N", "6m", "7m", "8m", "6m", "7m", "8m"])  # a sliver of the next player's tile
    got = read_melds(dets)
    assert got.codes(dets) == [("chi", ["6m", "7m", "8m"])] * 2 and got.ignored == [0]


def test_four_tiles_that_are_no_kong_are_a_meld_and_a_stray():
    dets = _row(["3s", "4s", "5s", "E"])
    got = read_melds(dets)
    assert got.codes(dets) == [("chi", ["3s", "4s", "5s"])] and got.ignored == [3]
