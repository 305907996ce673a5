"""benchmarks/view_report.py: which view each reader reads each photo through and how near the
distortion test's ratio it lies (a diagnosis of where two readers part, stop 68)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

from vision.read.detect import ViewVerdict

_SPEC = importlib.util.spec_from_file_location(
    "view_report", Path(__file__).parents[3] / "benchmarks" / "view_report.py"
)
views = importlib.util.module_from_spec(_SPEC)
sys.modules["view_report"] = views  # its dataclass looks its module up
_SPEC.loader.exec_module(views)

TILES = np.array([[0.0, 0.0, 15.0, 20.0], [20.0, 0.0, 35.0, 20.0], [40.0, 0.0, 55.0, 20.0]])


def _read(elongation: float | None, squeeze=(1.0, 1.0), returned: int = 3) -> object:
    distorted = elongation is None or elongation > 2.0
    return views.PhotoRead(ViewVerdict(5, elongation, 2.0, distorted, squeeze), returned, 3)


def test_a_tile_counts_as_returned_where_a_box_lies_on_it():
    boxes = np.array([[0.5, 0.0, 15.0, 20.0], [41.0, 1.0, 56.0, 21.0], [90.0, 0.0, 99.0, 9.0]])
    assert views.returned_tiles(TILES, boxes) == 2
    assert views.returned_tiles(TILES, np.zeros((0, 4))) == 0


def test_near_the_edge_counts_either_side_and_never_a_photo_too_few_tiles_to_tell():
    reads = [_read(1.97), _read(2.04), _read(2.08), _read(2.5), _read(None)]
    assert views.near_edge(reads, 0.05) == 2
    assert views.near_edge(reads, 0.1) == 3


def test_two_readers_part_where_their_kept_views_differ():
    base = [_read(2.1, (1.0, 2.0)), _read(2.1, (1.0, 2.0), 2), _read(1.5)]
    other = [_read(2.1, (1.0, 2.0)), _read(1.95, (1.0, 1.0), 1), _read(1.5)]
    assert views.parted(base, other) == [1]
    line = views.summary("shipped", base)
    assert "3 of 3 photos told (median 2.10), 2 distorted" in line
    assert "0 within 0.05" in line and "8 of 9 tiles returned" in line
