"""Span and duplicate boxes (vision.read.suppress) on hand-made boxes: one box per tile survives."""

import numpy as np

from vision.read.suppress import duplicate_boxes, keep_one_per_tile, span_boxes


def _row(n: int, w: float = 30, h: float = 40, gap: float = 2) -> np.ndarray:
    """n tiles side by side."""
    return np.array([[i * (w + gap), 0, i * (w + gap) + w, h] for i in range(n)], dtype=float)


def test_a_box_over_two_found_tiles_is_dropped():
    tiles = _row(4)
    wide = np.array([[tiles[1, 0] - 1, -1, tiles[2, 2] + 1, 41]])  # spans tiles 1 and 2
    boxes = np.vstack([tiles, wide])
    assert span_boxes(boxes).tolist() == [False] * 4 + [True]
    keep = keep_one_per_tile(boxes, np.array([0.9, 0.9, 0.9, 0.9, 0.95]))
    assert keep.tolist() == [True] * 4 + [False]


def test_neighbouring_tiles_are_never_suppressed():
    tiles = _row(14, gap=0)  # touching tiles of a hand on a rack
    assert keep_one_per_tile(tiles, np.linspace(0.3, 0.9, 14)).all()


def test_a_half_box_on_a_tile_is_a_duplicate_and_the_better_box_stays():
    tile = np.array([[0, 0, 30, 40]], dtype=float)
    half = np.array([[0, 0, 30, 22]], dtype=float)  # covers the top half only: area ratio ~1.8
    same = np.array([[1, 1, 29, 39]], dtype=float)  # a second box on the same tile
    boxes = np.vstack([tile, same])
    dup = duplicate_boxes(boxes, np.array([0.6, 0.8]))
    assert dup.tolist() == [True, False]  # the better-scored one stays
    # A box on half of the tile (area ratio ~1.8) is one tile with it too: the better box stays.
    assert duplicate_boxes(np.vstack([tile, half]), np.array([0.9, 0.5])).tolist() == [False, True]
    assert duplicate_boxes(np.vstack([tile, half]), np.array([0.5, 0.9])).tolist() == [True, False]


def test_a_face_box_and_a_box_around_the_whole_tile_are_one_tile():
    """Seen at a slant, a detector may box a tile's face and, a little less sure, the face with its
    body (side and top): about twice the area, holding the face. One box stays, the better one."""
    face = np.array([[10, 10, 40, 50]], dtype=float)
    body = np.array([[0, 0, 45, 62]], dtype=float)  # area ratio ~2.3
    assert duplicate_boxes(np.vstack([face, body]), np.array([0.8, 0.3])).tolist() == [False, True]
    # Far larger (3x and more) holding one found tile: a span over it and a missed one, kept.
    wide = np.array([[0, 0, 95, 62]], dtype=float)
    assert not duplicate_boxes(np.vstack([face, wide]), np.array([0.8, 0.3])).any()


def test_a_span_does_not_hide_the_tiles_it_covers():
    tiles = _row(2)
    wide = np.array([[-1, -1, 63, 41]], dtype=float)
    keep = keep_one_per_tile(np.vstack([wide, tiles]), np.array([0.99, 0.4, 0.4]))
    assert keep.tolist() == [False, True, True]


def test_empty_input():
    assert keep_one_per_tile(np.zeros((0, 4)), np.zeros(0)).tolist() == []
