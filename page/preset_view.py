"""What the page shows of a rule set: its name, options, win flags, extra inputs and 番 items, in words.

Why this module exists: the preset table (`rules.presets`) is the one place that says what a rule
set has (which 杠上开/海底捞 flags mean something, whether it reads a 宝 or a 枪 tile, the room
multiplier and its limits, each option's values) and how to call each thing in Chinese and English.
The page asks these questions here, never `preset == "anshan"`, and gets `Words` back; the preset
table is the only source (no page-side copy of flags or limits that could disagree with it).
"""

from __future__ import annotations

from dataclasses import dataclass

from page.words import Words
from rules.presets import PRESETS

#: Win flags every preset may know (hand-json `win.*`), in the order the page shows them.
FLAG_ORDER = ("kong_replacement", "last_tiles", "after_kong", "first_draw")
_FLAG_FALLBACK = {
    "kong_replacement": Words("杠上开", "win on a kong"),
    "last_tiles": Words("海底捞", "last tile"),
    "after_kong": Words("流泪", "discard after a kong"),
    "first_draw": Words("地胡", "first draw"),
}


def _words(w: object, fallback: Words) -> Words:
    """A `rules.preset_model.Label` (its `zh`, `en`) → page Words; empty or missing → `fallback`."""
    zh, en = getattr(w, "zh", ""), getattr(w, "en", "")
    return Words(zh or fallback.zh, en or zh or fallback.en)


def _help(w: object) -> Words:
    return Words(getattr(w, "help_zh", "") or "", getattr(w, "help_en", "") or "")


def preset_label(name: str) -> Words:
    """辽阳 · 辽阳麻将 / Liaoyang."""
    p = PRESETS[name]
    short = getattr(p, "short", "") or name
    return Words(f"{short}（{p.title}）", getattr(p, "title_en", "") or p.title)


def win_flags(name: str) -> dict[str, Words]:
    """The win flags that mean something in this preset, with their names (杠上开 here, 杠开 there)."""
    table = PRESETS[name].win_flags
    return {k: _words(table[k], _FLAG_FALLBACK.get(k, Words(k, k))) for k in FLAG_ORDER if k in table}


def win_flag_help(name: str, key: str) -> Words:
    """One line on what a win flag means in this preset (empty when the table has none)."""
    table = getattr(PRESETS[name], "win_flags", None) or {}
    return _help(table.get(key))


@dataclass(frozen=True)
class Extra:
    """An extra input of a preset (宝 / 枪 tile, room multiplier, 长毛): hand-json key and widget."""

    key: str
    kind: str  # tile | int
    label: Words
    help: Words
    default: int | None
    minimum: int
    maximum: int


def extra_inputs(name: str) -> tuple[Extra, ...]:
    """The preset's extra inputs, as the page draws them."""
    out = []
    for x in PRESETS[name].extra_inputs:
        label = _words(x.words, Words(x.key, x.key))
        default = x.default if x.kind == "int" else None
        out.append(Extra(x.key, x.kind, label, _help(x.words), default, x.minimum, x.maximum))
    return tuple(out)


def discarded_hun_counts(name: str) -> bool:
    """打过混: does this preset bar a player who discarded a 混 from winning?"""
    return bool(PRESETS[name].discarded_hun_bars_win)


def option_label(preset: str, option: str) -> Words:
    """An option's name in words (never the code key), with its code as the last resort."""
    opt = PRESETS[preset].options[option]
    return _words(getattr(opt, "words", None), Words(option.replace("_", " "), option.replace("_", " ")))


def option_help(preset: str, option: str) -> Words:
    return _help(getattr(PRESETS[preset].options[option], "words", None))


def value_label(preset: str, option: str, value: object) -> Words:
    """One value of an option in words: 是/否 for booleans, the table's words where it has them."""
    opt = PRESETS[preset].options[option]
    table = getattr(opt, "value_words", None) or {}
    for k, w in table.items():
        if k == value and type(k) is type(value):
            return _words(w, Words(str(value), str(value)))
    if isinstance(value, bool):
        return Words("是", "yes") if value else Words("否", "no")
    if value is None:
        return Words("不限", "no limit")
    return Words(str(value), str(value))


def item_help(preset: str, key: str, side: str) -> Words:
    """One line explaining a 番 item (empty when the table has no explanation)."""
    p = PRESETS[preset]
    finder = getattr(p, "item_words", None)
    if finder is None:
        return Words("", "")
    try:
        w = finder(key, side)
    except (KeyError, LookupError, TypeError, ValueError):
        return Words("", "")
    return Words(getattr(w, "help_zh", "") or "", getattr(w, "help_en", "") or "")


def item_name_en(preset: str, key: str, side: str) -> str:
    """A 番 item's English name where the table has one ('' otherwise)."""
    finder = getattr(PRESETS[preset], "item_words", None)
    if finder is None:
        return ""
    try:
        return getattr(finder(key, side), "en", "") or ""
    except (KeyError, LookupError, TypeError, ValueError):
        return ""
