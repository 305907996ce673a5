"""What every panel needs: the page's language, messages shown literally, widget keys of this hand."""

from __future__ import annotations

import logging
from typing import Any

import streamlit as st

from page import hand_sync
from page import keyboard as kb
from page.hand_session import CommandError, HandSession
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
    key = hand_sync.widget_key(st.session_state, name)
    st.session_state[key] = value
    return key


STORE = "hand_store"  # the table's HandStore for this run (app.py puts it here)
log = logging.getLogger(__name__)


def ticket() -> str:
    """The hand a widget is made for (`hand_sync.ticket`): every callback carries it."""
    return hand_sync.ticket(st.session_state)


def run(ticket_: str, command: str, *args: Any) -> None:
    """Call a HandSession command from a widget callback, and keep the hand on the server at once (a
    phone that sleeps right after a tap loses nothing); a refused command is shown, not raised. A
    callback of a widget of another hand (its ticket is not this hand's) is dropped."""
    if not hand_sync.belongs(st.session_state, ticket_):
        log.warning("dropped %s%s: its widget belonged to another hand", command, args)
        return
    try:
        getattr(hand(), command)(*args)
    except (CommandError, ValueError) as exc:
        words = getattr(exc, "words", None)
        st.session_state["command_error"] = words if isinstance(words, Words) else Words(str(exc), str(exc))
        return
    hand_sync.flush(st.session_state, st.session_state.get(STORE))


def run_from(key: str, command: str, *args: Any) -> None:
    """Callback of a widget bound with `bind`: the command with the widget's new value last (its key
    is its ticket: it starts with the ticket of the hand it was made for)."""
    run(key, command, *args, st.session_state.get(key))


CSS = """
<style>
.block-container {padding-top: 3.2rem; padding-bottom: 4rem;}
@media (max-width: 640px) {
  .block-container {padding-left: .6rem; padding-right: .6rem; padding-top: 2.6rem;}
  h1, h3 {font-size: 1.4rem !important;}
}
/* one thumb: every tap target at least 44 px high */
button, [data-baseweb="select"] > div, input, [data-testid="stSegmentedControl"] button,
[data-testid="stPills"] button {min-height: 44px;}
[data-testid="stCheckbox"] label {min-height: 44px; align-items: center;}
.st-key-strip {gap: 4px !important;}
[class*="st-key-keyboard"] {scroll-margin-top: 64px;}
[class*="st-key-card_"] {gap: 2px !important;}
[class*="st-key-card_"] img {border-radius: 4px;}
[class*="st-key-pick"] button {padding: 0 2px; width: 48px; font-size: 14px;}
[class*="st-key-pickq_"] button {background: #fff3e0; border: 2px solid #ff8c00; color: #b35c00;}
[class*="st-key-cardx_"] {opacity: .45;}
[class*="st-key-kbrow"] {gap: 3px !important; flex-wrap: nowrap !important;}
[class*="st-key-kb_"] button, [class*="st-key-sug_"] button {
  min-width: 0; width: 100%; min-height: 48px; padding: 0 1px; font-size: 15px; line-height: 1.05;
  background: #fffdf5; border: 1px solid #b9b2a0; border-radius: 6px; box-shadow: 0 2px 0 #d8d2c0;
}
[class*="st-key-kb_"] {flex: 1 1 0; min-width: 0;}
[class*="st-key-kb_"] button[data-testid="stBaseButton-primary"] {background: #ffebee; border: 2px solid #c62828;}
[class*="st-key-sug_"] button {min-height: 52px; font-size: 18px; border: 2px solid #ff8c00;}
.st-key-score [data-testid="stMarkdownContainer"] p {margin-bottom: .25rem;}
</style>
"""


def uploader_words_zh() -> str:
    """Streamlit draws its uploader's own words in English ("Upload", "200MB per file"); in Chinese
    mode they are replaced by CSS (Streamlit has no setting for them), with the real size limit."""
    limit = st.get_option("server.maxUploadSize")
    return f"""
<style>
[data-testid="stFileUploaderDropzone"] button [data-testid="stMarkdownContainer"] p {{font-size: 0;}}
[data-testid="stFileUploaderDropzone"] button [data-testid="stMarkdownContainer"] p::after {{
  content: "选照片"; font-size: 15px;}}
[data-testid="stFileUploaderDropzoneInstructions"] span {{font-size: 0;}}
[data-testid="stFileUploaderDropzoneInstructions"] span::after {{
  content: "拍照或选一张照片，最大 {limit}MB"; font-size: 14px;}}
</style>
"""


def style() -> None:
    st.html(CSS)
    st.html(key_css())
    if lang() == "zh":
        st.html(uploader_words_zh())


def key_css() -> str:
    """Each keyboard key in its suit's ink (万 red, 饼 blue, 条 green)."""
    rules_ = [
        f'[class*="st-key-kb_{c}"] button, [class*="st-key-sug_{c}_"] button {{color: {kb.colour(c)};}}'
        for row in kb.ROWS
        for c in row
    ]
    return "<style>" + "\n".join(rules_) + "</style>"
