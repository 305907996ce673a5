"""rules.names: the one table of player names (tiles, seats, kinds) that the engine, page and vision read."""

from __future__ import annotations

from rules import tiles as T
from rules.names import SEAT_SHORT_ZH, TILE_ZH, seat_name, tile_name
from rules.presets import PRESET_SHORT, PRESETS
from rules.text import tile_name as text_tile_name
from vision.classes import CLASS_NAMES, display_name


def test_every_tile_has_one_name_everywhere():
    assert set(TILE_ZH) == set(T.CODES)
    assert all(tile_name(c) == TILE_ZH[c] == text_tile_name(c) for c in T.CODES)
    assert all(tile_name(i) == TILE_ZH[c] for i, c in enumerate(T.CODES))
    assert [display_name(c) for c in CLASS_NAMES] == [tile_name(c) for c in CLASS_NAMES]
    assert tile_name("5m") == "五万" and tile_name("9s") == "九条" and tile_name("1p") == "一饼"


def test_tile_name_of_aliases_backs_and_non_tiles():
    assert tile_name("中") == "中" and tile_name("東") == "东" and tile_name(" 5m ") == "五万"
    assert tile_name(None) == "—" and tile_name("back") == "背面" and tile_name("zz") == "zz"
    assert tile_name(99) == "99"


def test_seat_names_long_and_short():
    assert [seat_name(s) for s in "ESWN"] == ["东家", "南家", "西家", "北家"]
    assert (
        [seat_name(s, short=True) for s in "ESWN"] == ["东", "南", "西", "北"] == list(SEAT_SHORT_ZH.values())
    )
    assert seat_name("X") == "X" and seat_name(None) == "None"


def test_preset_short_names_are_a_view_of_the_preset_table():
    assert {k: p.short for k, p in PRESETS.items()} == PRESET_SHORT
    assert PRESET_SHORT["anshan"] == "鞍山"
