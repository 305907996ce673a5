"""The hand in progress kept on the server: saved on every change, found again after a reload.

Why this module exists: phones sleep and tabs reload in the middle of a hand; before, a reload showed
the sample hand with the players' real names and a live 记入记分本. Now the page's one
`HandSession` is written to the table's `page.hand_store.HandStore` (SQLite, beside the scorebook)
whenever a command changed it, and a browser session that starts without one (a reload, a second
phone of the same table) takes the stored hand. A tab whose hand was changed by another tab takes
the newer one at its next run, and its widgets get fresh keys (`widget_epoch`), so no field shows a
value of the older hand. Streamlit-free: `state` is any mutable mapping (st.session_state on the
page, a dict in the tests).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, MutableMapping
from typing import Any

from page.hand_session import HandSession

log = logging.getLogger(__name__)

HAND = "hand"  # the HandSession
SYNCED_REV = "hand_rev"  # the store's revision this session last saw or wrote
SAVED_AT = "hand_saved_changes"  # HandSession.changes when it was last saved
EPOCH = "hand_epoch"  # bumped when the hand is replaced from outside: fresh widget keys
STORED_PHOTO = "hand_photo_hash"  # the photo the store already holds (its bytes are not sent again)
NOT_SAVED = "hand_not_saved"  # why the last save failed (the page says the hand is not kept)


def current_hand(
    state: MutableMapping[str, Any],
    store: Any | None,
    make_sample: Callable[[], HandSession],
    decode: Callable[[bytes], Any] | None = None,
) -> HandSession:
    """This browser session's hand: its own (saved if a command changed it), the table's newer one,
    the stored one after a reload, or the sample when the table has none."""
    hand: HandSession | None = state.get(HAND)
    if hand is None:
        restored = _load(store, decode)
        if restored is not None:
            hand, rev = restored
            _adopt(state, hand, rev)
            return hand
        hand = make_sample()
        _adopt(state, hand, _revision(store))
        return hand
    if hand.changes != state.get(SAVED_AT):
        save(state, store)
        return hand
    if store is not None and _revision(store) != state.get(SYNCED_REV):
        restored = _load(store, decode)
        if restored is not None:
            hand, rev = restored
            _adopt(state, hand, rev)
    return hand


def replace_hand(state: MutableMapping[str, Any], store: Any | None, hand: HandSession) -> None:
    """Put a different HandSession in place (a new photo, 新的一局) and save it at once."""
    state[HAND] = hand
    state[EPOCH] = int(state.get(EPOCH, 0)) + 1
    save(state, store)


def save(state: MutableMapping[str, Any], store: Any | None) -> None:
    """Write the session's hand to the store (the sample never: it is not the table's hand)."""
    hand: HandSession = state[HAND]
    state[SAVED_AT] = hand.changes
    if store is None or hand.sample:
        return
    photo = hand.photo_data
    stored_hash = state.get(STORED_PHOTO)
    if photo is not None and stored_hash == hand.photo.key:
        photo = None  # already on the server: keep the stored bytes
    try:
        state[SYNCED_REV] = store.save(hand.to_state(), photo)
    except Exception as exc:  # noqa: BLE001 - the hand goes on in this tab; the page says it is not kept
        log.warning("hand in progress not saved: %s", exc)
        state[NOT_SAVED] = str(exc)
        return
    state.pop(NOT_SAVED, None)
    state[STORED_PHOTO] = hand.photo.key if hand.photo_data is not None else None


def flush(state: MutableMapping[str, Any], store: Any | None) -> None:
    """Save the hand if a command changed it during this run (the end of every page run)."""
    hand: HandSession | None = state.get(HAND)
    if hand is not None and hand.changes != state.get(SAVED_AT):
        save(state, store)


def widget_key(state: MutableMapping[str, Any], name: str) -> str:
    """A widget key that belongs to this hand only: a new or replaced hand never shows old values."""
    return ticket(state) + name


def ticket(state: MutableMapping[str, Any]) -> str:
    """Which hand, and which drawing of it, a widget was made for: the prefix of its keys.

    Why: Streamlit can still fire the callback of a widget of the hand before — a field's last value
    arrives with the next tap, a key is tapped while the page redraws. Applied to the new hand it
    would type the old hand's melds or faces into it and silently change a payment, so every
    callback carries its ticket and `belongs` turns away the ones of another hand."""
    hand: HandSession = state[HAND]
    return f"h{hand.id[:8]}e{int(state.get(EPOCH, 0))}_"


def belongs(state: MutableMapping[str, Any], ticket_or_key: str) -> bool:
    """Whether a widget's ticket (or its `widget_key`) is of the hand shown now."""
    return HAND in state and ticket_or_key.startswith(ticket(state))


def _adopt(state: MutableMapping[str, Any], hand: HandSession, rev: int) -> None:
    state[HAND] = hand
    state[SYNCED_REV] = rev
    state[SAVED_AT] = hand.changes
    state[EPOCH] = int(state.get(EPOCH, 0)) + 1
    state[STORED_PHOTO] = hand.photo.key if hand.photo_data is not None else None


def _revision(store: Any | None) -> int:
    if store is None:
        return 0
    try:
        return int(store.revision())
    except Exception as exc:  # noqa: BLE001
        log.warning("hand store unreadable: %s", exc)
        return 0


def _load(store: Any | None, decode: Callable[[bytes], Any] | None) -> tuple[HandSession, int] | None:
    if store is None:
        return None
    try:
        saved = store.load()
    except Exception as exc:  # noqa: BLE001 - a broken store: start from the sample, say nothing lost here
        log.warning("hand store unreadable: %s", exc)
        return None
    if saved is None:
        return None
    try:
        return HandSession.from_state(saved.state, saved.photo, decode), int(saved.rev)
    except Exception as exc:  # noqa: BLE001 - a state from another version: not restorable
        log.warning("stored hand not restorable: %s", exc)
        return None
