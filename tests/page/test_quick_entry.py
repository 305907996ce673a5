"""page.quick_entry: tiles and melds typed as a player writes them, and back."""

from __future__ import annotations

import pytest

from page.quick_entry import EntryError, format_melds, parse_melds, parse_tiles


def test_parse_tiles_and_melds():
    assert parse_tiles("123m 55p 中 东") == ["1m", "2m", "3m", "5p", "5p", "C", "E"]
    assert parse_tiles("1m2m3m") == ["1m", "2m", "3m"]
    assert parse_tiles("") == []
    with pytest.raises(EntryError, match="cannot read") as err:
        parse_tiles("12x")
    assert err.value.words.zh.startswith("看不懂“12x”")
    melds = parse_melds("碰7p, 吃345m 暗杠中 补杠9m 吃3s")
    assert melds == [
        ("pong", ["7p"] * 3),
        ("chi", ["3m", "4m", "5m"]),
        ("concealed_kong", ["C"] * 4),
        ("added_kong", ["9m"] * 4),
        ("chi", ["3s", "4s", "5s"]),
    ]
    assert parse_melds(format_melds(melds)) == melds
    assert parse_melds("  ") == []
    for bad in ["碰", "x7p", "吃8s", "碰7p7p"]:
        with pytest.raises(ValueError):
            parse_melds(bad)
