"""benchmarks/misses_report.py: which labelled tiles a reader missed, and the surest box on each
when it reads down to a floor (a diagnosis of where a round must work)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from vision.read.detect import Detection

_SPEC = importlib.util.spec_from_file_location(
    "misses_report", Path(__file__).parents[3] / "benchmarks" / "misses_report.py"
)
misses = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(misses)

#: Three labelled tiles in a row.
TILES = np.array([[0.0, 0.0, 15.0, 20.0], [20.0, 0.0, 35.0, 20.0], [40.0, 0.0, 55.0, 20.0]])


def _box(x: float, tile_conf: float, cls: str = "1m") -> Detection:
    return Detection(cls, tile_conf, (x, 0.0, x + 15.0, 20.0), tile_conf=tile_conf)


def test_a_tile_with_a_returned_box_is_no_miss_and_the_surest_low_box_is_kept():
    returned = [_box(0.0, 0.8)]
    low = [_box(0.0, 0.8), _box(20.5, 0.3, "2m"), _box(20.0, 0.5, "3m"), _box(90.0, 0.9)]
    found = misses.misses_of_photo(TILES, returned, low)
    assert [(i, None if d is None else d.cls) for i, d in found] == [(1, "3m"), (2, None)]


def test_bands_under_the_point_and_around_it():
    assert misses.band(None, 0.55) == "no box"
    assert misses.band(0.002, 0.55) == "0–0.1"
    assert misses.band(0.25, 0.55) == "0.25–0.45"
    assert misses.band(0.54, 0.55) == "0.45–0.55"
    assert misses.band(0.6, 0.55) == "at the point or above"
    assert misses.bands(0.55) == [
        "no box",
        "0–0.1",
        "0.1–0.25",
        "0.25–0.45",
        "0.45–0.55",
        "at the point or above",
    ]


def test_no_boxes_at_all_leaves_every_tile_without_one():
    assert misses.surest_on(TILES, np.zeros((0, 4)), []).tolist() == [-1, -1, -1]
    assert [d for _, d in misses.misses_of_photo(TILES, [], [])] == [None, None, None]
