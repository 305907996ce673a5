"""A phone shows what the other phone of the table did within a few seconds, without a tap.

Why: two phones look at one hand and one book. A command is always applied to the stored hand
(`page.hand_sync`), so nothing is lost, but a phone that is not redrawn keeps showing the hand and
the totals as they were, and its player taps on an old picture. A small fragment polls the stored
revisions (two indexed reads) and redraws the whole page when either moved.
"""

from __future__ import annotations

import logging

import streamlit as st

from page import hand_sync

log = logging.getLogger(__name__)

POLL_S = 2.0  # how often a phone looks for the other phone's change
BOOK_DRAWN = "book_rev_drawn"  # the book's revision this page run drew


def book_revision(book) -> int | None:
    """The book's revision, or None when it cannot be read (its panel says why)."""
    if book is None:
        return None
    try:
        return int(book.revision())
    except Exception as exc:  # noqa: BLE001 - the book panel says what is wrong with the file
        log.warning("scorebook revision unreadable: %s", exc)
        return None


def watch(store, book) -> None:
    """Remember what this run draws, and start the poll."""
    st.session_state[BOOK_DRAWN] = book_revision(book)
    _poll(store, book)


@st.fragment(run_every=POLL_S)
def _poll(store, book) -> None:
    ss = st.session_state
    if hand_sync.HAND not in ss:
        return
    if hand_sync.changed_elsewhere(ss, store) or book_revision(book) != ss.get(BOOK_DRAWN):
        st.rerun(scope="app")
