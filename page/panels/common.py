"""What every panel needs: the page's language, messages shown literally, widget keys of this hand."""

from __future__ import annotations

import logging
from typing import Any

import streamlit as st

from page import hand_sync
from page.hand_session import HandSession
from page.panels.style import draw as draw_style
from page.words import Words, plain


def lang() -> str:
    return "en" if st.session_state.get("lang_en") else "zh"


def tr(zh: str | Words, en: str | None = None) -> str:
    """The sentence in the page's language: tr(Words) or tr("中文", "English")."""
    if isinstance(zh, Words):
        return zh.pick(lang())
    return en if (lang() == "en" and en is not None) else zh


def say(kind: str, words: Words | str) -> None:
    """A message box whose text is shown literally (it may quote what the player typed)."""
    text = tr(words) if isinstance(words, Words) else words
    getattr(st, kind)(plain(text))


def hand() -> HandSession:
    return st.session_state[hand_sync.HAND]


def bind(name: str, value: Any) -> str:
    """The widget key of `name` for this hand, holding the hand's value: a widget never shows a value
    the hand does not have (a new hand's keys are new, so the browser keeps nothing of the last)."""
    key = hand_sync.bound_key(st.session_state, name, value)
    st.session_state[key] = value
    hand_sync.drawn_with(st.session_state, key, value)
    return key


STORE = "hand_store"  # the table's HandStore for this run (app.py puts it here)
log = logging.getLogger(__name__)


def ticket() -> str:
    """The hand a widget is made for (`hand_sync.ticket`): every callback carries it."""
    return hand_sync.ticket(st.session_state)


def run(ticket_: str, command: str, *args: Any) -> None:
    """Call a HandSession command from a widget callback on the table's hand as stored now, kept on
    the server at once (a phone that sleeps right after a tap loses nothing; the other phone's
    changes are kept); a refused command is said on the page, never raised. A callback of a widget
    of another hand (its ticket is not this hand's) is dropped."""
    hand_sync.apply(st.session_state, st.session_state.get(STORE), ticket_, command, *args)


def run_from(key: str, command: str, *args: Any) -> None:
    """Callback of a widget bound with `bind`: the command with the widget's new value last (its key
    is its ticket: it starts with the ticket of the hand it was made for). A value the widget was
    drawn with is no change of the player's: dropped (`hand_sync.apply_widget`)."""
    hand_sync.apply_widget(st.session_state, st.session_state.get(STORE), key, command, *args)


def style() -> None:
    """The page's style sheets (page.panels.style)."""
    draw_style(lang())
