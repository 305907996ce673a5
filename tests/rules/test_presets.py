"""The preset table is the one place a rule set is described: every row carries what the page shows."""

from __future__ import annotations

import pytest

from rules import HandError, items, score
from rules.errors import ERROR_WORDS
from rules.hand import WIN_FLAGS
from rules.preset_model import ItemRule
from rules.presets import PRESETS, Label, Option

PRESET_NAMES = sorted(PRESETS)


def _complete(w: Label) -> bool:
    return all(x.strip() for x in (w.zh, w.en, w.help_zh, w.help_en))


def test_every_item_of_a_preset_is_a_row_of_the_catalogue():
    rows = [row for row in vars(items).values() if isinstance(row, ItemRule)]
    assert all(_complete(row.words) for row in rows)
    by_count = {(row.side, row.key, row.count) for row in rows}
    for p in PRESETS.values():
        for item in (*p.winner_items, *p.loser_items):
            assert (item.side, item.key, item.count) in by_count, (p.name, item.key)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_option_item_flag_and_input_has_words(name):
    p = PRESETS[name]
    assert p.short and p.title and p.title_en
    for key, opt in p.options.items():
        assert _complete(opt.words), key
        for v in opt.values:
            assert opt.value_words[v].zh and opt.value_words[v].en, (key, v)
    for item in (*p.winner_items, *p.loser_items):
        assert _complete(item.words), (item.side, item.key)
        assert item.words.zh == item.name
    assert set(p.win_flags) <= set(WIN_FLAGS)
    assert all(_complete(w) for w in p.win_flags.values())
    for x in p.extra_inputs:
        assert x.kind in ("tile", "int") and _complete(x.words)
        assert x.kind == "tile" or x.minimum <= (x.default or 0) <= x.maximum


def test_what_the_page_reads_per_preset():
    ly, lo, an = PRESETS["liaoyang"], PRESETS["liaoyang-online"], PRESETS["anshan"]
    assert set(ly.win_flags) == set(WIN_FLAGS)
    assert set(lo.win_flags) == {"kong_replacement", "last_tiles", "after_kong"}
    assert set(an.win_flags) == {"kong_replacement"}
    assert lo.win_flags["after_kong"].zh == "反弹" and ly.win_flags["after_kong"].zh == "流泪"
    assert ly.extra_keys == {"bao_tile"} and an.extra_keys == {"gun_tile"}
    assert lo.extra_keys == {"bao_tile", "room_multiplier", "changmao"}
    assert (lo.extra("room_multiplier").minimum, lo.extra("room_multiplier").maximum) == (1, 1_000_000)
    assert (lo.extra("changmao").minimum, lo.extra("changmao").maximum) == (0, 64)
    assert ly.discarded_hun_bars_win and not an.discarded_hun_bars_win
    assert ly.behaviour.jiqiang and not an.behaviour.jiqiang and an.behaviour.thirteen
    assert ly.tracks_danzhang and not lo.tracks_danzhang
    assert ly.item_words("danzhang").en == "single wait"


def test_spec_defaults_of_the_revised_options():
    assert PRESETS["liaoyang-online"].options["requires_ke"].default is False
    assert PRESETS["anshan"].options["wind_cycle"].default == "东西南北"
    assert PRESETS["liaoyang"].options["danzhang_wait"].default == "shape"
    assert "requires_ke" not in PRESETS["liaoyang"].options  # liaoyang always requires a 横


def test_option_values_are_typed_and_bounded():
    cap = PRESETS["anshan"].options["fan_cap"]
    assert cap.accepts(None) and cap.accepts(0) and cap.accepts(64)
    assert not cap.accepts(65) and not cap.accepts(-1) and not cap.accepts(True) and not cap.accepts(1.0)
    flag = PRESETS["liaoyang-online"].options["requires_ke"]
    assert flag.accepts(True) and not flag.accepts(1) and not flag.accepts("true")
    assert "0..64" in cap.expected() and Option(("a", "b")).expected() == '"a" | "b"'


def test_every_hand_error_carries_a_code_with_player_words():
    assert all(w.zh and w.en for w in ERROR_WORDS.values())
    with pytest.raises(HandError) as e:
        score({"version": 1, "preset": "shenyang"})
    assert e.value.code == "PRESET" and e.value.field == "preset"
    assert e.value.words("zh") == ERROR_WORDS["PRESET"].zh and e.value.words("en") == ERROR_WORDS["PRESET"].en
    with pytest.raises(KeyError):
        HandError("x", "y", "NO_SUCH_CODE")
