"""The boxes the reader doubted, offered as "maybe missed" (vision.read.maybe_missed.split_doubted)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.read.maybe_missed import MAX_MAYBE, MAYBE_FLOOR, split_doubted

POINT = 0.55


@dataclass
class D:
    xyxy: tuple[float, float, float, float]
    tile_conf: float


def row(n: int, conf: float, x0: float = 0) -> list[D]:
    return [D((x0 + 32.0 * i, 0.0, x0 + 32.0 * i + 30, 40.0), conf) for i in range(n)]


def test_tiles_at_the_point_stay_tiles_and_a_doubted_tile_beside_them_is_offered():
    tiles = row(4, 0.9)
    doubted = D((128.0, 0.0, 158.0, 40.0), 0.4)
    kept, maybe = split_doubted([*tiles, doubted], POINT)
    assert kept == tiles
    assert maybe == [doubted]


def test_under_the_floor_on_a_tile_already_there_or_on_a_surer_suggestion_is_not_offered():
    tiles = row(3, 0.9)
    faint = D((200.0, 0.0, 230.0, 40.0), MAYBE_FLOOR - 0.01)
    on_a_tile = D((2.0, 1.0, 31.0, 41.0), 0.5)  # a second box on the first tile
    half_of_a_tile = D((34.0, 0.0, 48.0, 40.0), 0.5)  # inside the second tile
    sure_one = D((100.0, 0.0, 130.0, 40.0), 0.45)
    its_twin = D((104.0, 2.0, 132.0, 40.0), 0.3)
    _, maybe = split_doubted([*tiles, faint, on_a_tile, half_of_a_tile, its_twin, sure_one], POINT)
    assert maybe == [sure_one]


def test_a_book_spine_and_a_box_of_another_size_are_not_offered():
    tiles = row(4, 0.9)
    spine = D((300.0, 0.0, 312.0, 80.0), 0.5)  # 80 x 12: far longer than a tile
    huge = D((400.0, 0.0, 480.0, 100.0), 0.5)  # a tile's shape, 6.7x the tiles' area
    tiny = D((500.0, 0.0, 512.0, 16.0), 0.5)  # 0.16x
    like_a_tile = D((600.0, 0.0, 628.0, 38.0), 0.3)
    _, maybe = split_doubted([*tiles, spine, huge, tiny, like_a_tile], POINT)
    assert maybe == [like_a_tile]


def test_at_most_a_short_row_surest_first():
    tiles = row(2, 0.9)
    doubted = [
        D((100.0 + 40 * i, 0.0, 130.0 + 40 * i, 40.0), c) for i, c in enumerate(np.linspace(0.3, 0.5, 12))
    ]
    _, maybe = split_doubted([*tiles, *doubted], POINT)
    assert len(maybe) == MAX_MAYBE
    confs = [d.tile_conf for d in maybe]
    assert confs == sorted(confs, reverse=True) and confs[0] == doubted[-1].tile_conf


def test_without_a_tile_found_a_doubted_box_is_still_offered_by_its_shape():
    lone = D((10.0, 10.0, 40.0, 50.0), 0.4)
    spine = D((60.0, 0.0, 70.0, 90.0), 0.4)
    assert split_doubted([lone, spine], POINT) == ([], [lone])
