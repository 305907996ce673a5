"""The players' names form when two phones of one table both type names.

Why this module exists: Streamlit keeps a text field's value in the session once drawn, so a field
shows what this phone last had, not what the other phone saved since; and 保存名字 sent all four
fields, writing this phone's stale names over the other phone's. Here each field remembers the
name it was drawn with (`DRAWN`): a field the player has not touched follows the book, a field
typed in keeps what is typed (a redraw never wipes half a name), and saving sends what each field
was drawn with, so `page.scorebook.Scorebook.rename` changes only the seats typed on this phone.
Streamlit-free: `state` is st.session_state on the page, a dict in the tests.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from rules.hand import SEATS
from rules.names import seat_name

DRAWN = "names_drawn"  # field key -> the name the field was (re)drawn with


def shown_names(names: Mapping[str, str]) -> dict[str, str]:
    """The evening's names as the fields show them: "" for a seat that has only its own (东家)."""
    return {s: "" if names.get(s, "") == seat_name(s) else names.get(s, "") for s in SEATS}


def field_key(evening_id: int | None, seat: str) -> str:
    return f"name_{seat}_{evening_id or 0}"


def sync_fields(
    state: MutableMapping[str, Any], evening_id: int | None, shown: Mapping[str, str]
) -> dict[str, str]:
    """Before the fields are drawn: each field's key, its value set to the book's name where this
    phone has not typed in it (`shown`: the names as the fields show them, "" for a seat's own)."""
    drawn: dict[str, str] = state.setdefault(DRAWN, {})
    keys = {}
    for seat in SEATS:
        key = keys[seat] = field_key(evening_id, seat)
        now = shown.get(seat, "")
        if key not in state or state[key] == drawn.get(key):  # new, or untouched here: the book's
            if state.get(key) != now:  # set only when it moves: a value set is sent to the field
                state[key] = now
            drawn[key] = now
        elif state[key] == now:  # typed here and saved (or the same name typed): in step again
            drawn[key] = now
    return keys


def drawn_names(state: Mapping[str, Any], evening_id: int | None) -> dict[str, str]:
    """What each field was drawn with: what 保存名字 tells the book this phone saw."""
    drawn = state.get(DRAWN) or {}
    return {s: drawn.get(field_key(evening_id, s), "") for s in SEATS}
