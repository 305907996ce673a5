"""rules.names: the page's names for tiles and seats (tile names are the engine's own table)."""

from __future__ import annotations

from rules import text
from rules import tiles as T
from rules.names import seat_name, tile_name


def test_tile_names_are_the_engines_plus_no_tile_and_a_back():
    assert all(tile_name(c) == text.tile_name(c) for c in T.CODES)
    assert tile_name("中") == "中" and tile_name("東") == "东" and tile_name(" 5m ") == "五万"
    assert tile_name(None) == "—" and tile_name("back") == "背面" and tile_name("zz") == "zz"


def test_seat_names():
    assert [seat_name(s) for s in "ESWN"] == ["东家", "南家", "西家", "北家"]
    assert seat_name("X") == "X" and seat_name(None) == "None"
