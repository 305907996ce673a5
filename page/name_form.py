"""The players' names form when two phones of one table both type names.

Why this module exists: Streamlit keeps a text field's value in the session once drawn, so a field
shows what this phone last had, not what the other phone saved since; and 保存名字 sent all four
fields, writing this phone's stale names over the other phone's. Here each field remembers the
name it was drawn with (`DRAWN`): a field the player has not touched follows the book, a field
typed in keeps what is typed (a redraw never wipes half a name), and saving sends what each field
was drawn with, so `page.scorebook.Scorebook.rename` changes only the seats typed on this phone.
A field's key is its seat alone, not the evening: a key that changed when phone A's first record
or save started the evening would make phone B's browser drop the half-typed name in it (Streamlit
sends a form's fields only on submit, so the text lived only in B's browser), and a new or
reopened evening's names reach an untouched field through the book anyway.
Streamlit-free: `state` is st.session_state on the page, a dict in the tests.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from rules.hand import SEATS
from rules.names import seat_name

if TYPE_CHECKING:
    from page.scorebook import Scorebook

DRAWN = "names_drawn"  # field key -> the name the field was (re)drawn with


def shown_names(names: Mapping[str, str]) -> dict[str, str]:
    """The evening's names as the fields show them: "" for a seat that has only its own (东家)."""
    return {s: "" if names.get(s, "") == seat_name(s) else names.get(s, "") for s in SEATS}


def field_key(seat: str) -> str:
    return f"name_{seat}"


def sync_fields(state: MutableMapping[str, Any], shown: Mapping[str, str]) -> dict[str, str]:
    """Before the fields are drawn: each field's key, its value set to the book's name where this
    phone has not typed in it (`shown`: the names as the fields show them, "" for a seat's own)."""
    drawn: dict[str, str] = state.setdefault(DRAWN, {})
    keys = {}
    for seat in SEATS:
        key = keys[seat] = field_key(seat)
        now = shown.get(seat, "")
        if key not in state or state[key] == drawn.get(key):  # new, or untouched here: the book's
            if state.get(key) != now:  # set only when it moves: a value set is sent to the field
                state[key] = now
            drawn[key] = now
        elif state[key] == now:  # typed here and saved (or the same name typed): in step again
            drawn[key] = now
    return keys


def drawn_names(state: Mapping[str, Any]) -> dict[str, str]:
    """What each field was drawn with: what 保存名字 tells the book this phone saw."""
    drawn = state.get(DRAWN) or {}
    return {s: drawn.get(field_key(s), "") for s in SEATS}


def save_names(book: Scorebook, typed: Mapping[str, str], drawn: Mapping[str, str], preset: str) -> None:
    """保存名字: the first names start the evening, unless the other phone started it a moment ago
    (its first record or its own 保存名字); then, as in any rename, only the seats typed here change."""
    ev = book.ensure_evening(typed, preset)
    book.rename(ev.id, typed, drawn)
