"""The hand in progress kept on the server, shared by every phone of the table.

Why this module exists: phones sleep and tabs reload in the middle of a hand, and two phones of one
table look at the same hand. Each browser session holds a `HandSession` to draw, but the table's
hand is the one in `page.hand_store.HandStore` (SQLite, beside the scorebook):

- A command from a phone (`apply`) is applied to the hand **as stored now**, read inside the write
  transaction, never to that phone's copy: phone A picks 南家, phone B (not reloaded) taps 自摸,
  and the stored hand has both. The phone then shows the merged hand.
- A command that cannot apply any more — the hand it was drawn for is gone (a new photo, 新的一局,
  a new evening), or the tiles it points at were retyped — is refused in words (`STALE_WORDS`)
  and the phone shows the hand as it is now: never a silent overwrite.
- A phone notices another phone's change at its next run (`current_hand` compares revisions; the
  page also polls, see `changed_elsewhere`), takes the stored hand and gives its widgets fresh keys
  (`EPOCH`), so no field shows a value of the older hand. A tap on the page still drawn before that
  sends every widget's old value again; only a value the player changed is applied
  (`apply_widget`), never the old ones over the other phone's change.
- A stored hand that cannot be used (damaged, or written by a newer version) is put aside whole,
  the page says so (`RESTORE_FAILED`), and the table carries on with a new hand.

What stays per phone: which tile its keyboard is open on (`photo.picked`), the decoded picture and
the last "save for training" of the photo. Streamlit-free: `state` is any mutable mapping
(st.session_state on the page, a dict in the tests).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from page.hand_checks import HandProblem
from page.hand_session import HandSession, NewerHand
from page.hand_store import STALE_WORDS, HandStore, StaleHand, Stored
from page.scorebook import ScorebookError
from page.words import Words

log = logging.getLogger(__name__)

HAND = "hand"  # the HandSession
SYNCED_REV = "hand_rev"  # the store's revision this session last saw or wrote
SAVED_AT = "hand_saved_changes"  # HandSession.changes when it was last saved
EPOCH = "hand_epoch"  # bumped when the hand is replaced from outside: fresh widget keys
STORED_PHOTO = "hand_photo_hash"  # the photo the store already holds (its bytes are not sent again)
NOT_SAVED = "hand_not_saved"  # why the last save failed (the page says the hand is not kept)
MESSAGE = "hand_message"  # Words to say once: a command refused, the hand updated from another phone
RESTORE_FAILED = "hand_restore_failed"  # Words: the stored hand could not be used (put aside)
DRAWN = "hand_drawn_values"  # widget key -> the hand's value it was last drawn with (`drawn_with`)
BOUND = "hand_bound_versions"  # widget_key -> how often the hand's value moved under it (`bound_key`)
KEEP_DRAWN = 4  # epochs whose drawn values are kept

#: Commands that name a tile by its number on the photo: refused when the tiles were retyped since.
BY_TILE = frozenset({"pick", "set_face", "set_role", "set_winning", "add_tile", "take_maybe", "drop_maybe"})
_TICKET = re.compile(r"h([0-9a-zA-Z]{1,8})l(\d+)e(\d+)_")


class Refused(Exception):
    """The stored hand is not the one the command was drawn for."""


def current_hand(
    state: MutableMapping[str, Any],
    store: HandStore | None,
    make_sample: Callable[[], HandSession],
    decode: Callable[[bytes], Any] | None = None,
) -> HandSession:
    """This browser session's hand: the table's hand as stored (reloaded when another phone changed
    it), the stored one after a reload, or the sample when the table has none."""
    hand: HandSession | None = state.get(HAND)
    if hand is None:
        if _take_stored(state, store, decode):
            return state[HAND]
        _adopt(state, make_sample(), _revision(store))
        return state[HAND]
    if hand.changes != state.get(SAVED_AT):
        save(state, store)  # a change made outside the commands: saved only over the revision it came from
    if store is not None and _revision(store) != state.get(SYNCED_REV):
        _take_stored(state, store, decode)
    return state[HAND]


def changed_elsewhere(state: MutableMapping[str, Any], store: HandStore | None) -> bool:
    """Whether another phone changed the table's hand since this session drew it (the page polls)."""
    return store is not None and _revision(store) != state.get(SYNCED_REV)


def apply(
    state: MutableMapping[str, Any], store: HandStore | None, ticket_: str, command: str, *args: Any
) -> bool:
    """Run a HandSession command from a widget of the hand `ticket_` names, on the hand as stored
    now; True when it was applied. A refusal is left in `state[MESSAGE]` in words."""
    hand: HandSession | None = state.get(HAND)
    if hand is None or not belongs(state, ticket_):
        log.warning("dropped %s%s: its widget belonged to another hand", command, args)
        return False
    if store is None or hand.sample or state.get(NOT_SAVED):
        return _apply_here(state, store, command, args)
    done: dict[str, HandSession] = {}

    def change(now: Stored | None) -> dict:
        current = _stored_for(now, state, ticket_, command)
        getattr(current, command)(*args)
        done["hand"] = current
        return current.to_state()

    try:
        rev = store.update(change)
    except Refused:
        state[MESSAGE] = STALE_WORDS
        state[SYNCED_REV] = -1  # the next run (right after this callback) takes the stored hand
        return False
    except ScorebookError as exc:  # the file cannot be written: the hand goes on in this tab
        log.warning("hand in progress not saved: %s", exc)
        state[NOT_SAVED] = exc.words
        return _apply_here(state, None, command, args)
    except ValueError as exc:  # the command's own refusal (HandProblem, a typed hand's EntryError)
        state[MESSAGE] = _words(exc)
        return False
    _settle(state, done["hand"], rev)
    return True


def apply_widget(
    state: MutableMapping[str, Any], store: HandStore | None, key: str, command: str, *args: Any
) -> bool:
    """A bound widget's callback: `command` with the widget's value (`state[key]`) last, applied as
    `apply` does, unless the value is the one the widget was drawn with (`changed_by_player`)."""
    value = state.get(key)
    if not changed_by_player(state, key, value):
        log.info("dropped %s from %s: the value it was drawn with, resent by an older page", command, key)
        return False
    return apply(state, store, key, command, *args, value)


def replace_hand(state: MutableMapping[str, Any], store: HandStore | None, hand: HandSession) -> bool:
    """Put a different HandSession in place (a new photo, 新的一局) and store it. Only over the hand
    this session shows: when another phone started another hand meanwhile, nothing is replaced,
    `state[MESSAGE]` says why, and False comes back."""
    shown: HandSession | None = state.get(HAND)
    drawn_id = shown.id if shown is not None and not shown.sample else None
    not_saved = state.get(NOT_SAVED)
    if store is not None and not not_saved:

        def change(now: Stored | None) -> dict:
            stored_id = (now.state or {}).get("id") if now is not None else None
            if now is not None and stored_id != drawn_id:
                raise Refused
            return hand.to_state()

        try:
            rev = store.update(change, photo=hand.photo_data)
        except Refused:
            state[MESSAGE] = STALE_WORDS
            state[SYNCED_REV] = -1
            return False
        except ScorebookError as exc:
            log.warning("hand in progress not saved: %s", exc)
            not_saved = exc.words
        else:
            _adopt(state, hand, rev)
            return True
    _adopt(state, hand, _revision(store))
    if not_saved and store is not None:
        state[NOT_SAVED] = not_saved  # the hand goes on in this tab only; the page says so
    return True


def save(state: MutableMapping[str, Any], store: HandStore | None) -> None:
    """Write the session's hand over the revision it came from (the sample never: it is not the
    table's hand). Refused when another phone wrote since: the stored hand is taken instead."""
    hand: HandSession = state[HAND]
    state[SAVED_AT] = hand.changes
    if store is None or hand.sample:
        return
    photo = hand.photo_data
    if photo is not None and state.get(STORED_PHOTO) == hand.photo.key:
        photo = None  # already on the server: keep the stored bytes
    expect = state.get(SYNCED_REV)
    try:
        state[SYNCED_REV] = store.save(
            hand.to_state(), photo, expect_rev=expect if isinstance(expect, int) else None
        )
    except StaleHand:
        state[MESSAGE] = STALE_WORDS
        state[SYNCED_REV] = -1
        return
    except Exception as exc:  # noqa: BLE001 - the hand goes on in this tab; the page says it is not kept
        log.warning("hand in progress not saved: %s", exc)
        state[NOT_SAVED] = getattr(exc, "words", Words(str(exc), str(exc)))
        return
    state.pop(NOT_SAVED, None)
    state[STORED_PHOTO] = hand.photo.key if hand.photo_data is not None else None


def flush(state: MutableMapping[str, Any], store: HandStore | None) -> None:
    """Save the hand if it was changed outside the commands during this run (the end of every run)."""
    hand: HandSession | None = state.get(HAND)
    if hand is not None and hand.changes != state.get(SAVED_AT):
        save(state, store)


@dataclass
class FreshHand:
    """The next hand, written inside a scorebook transaction (黄庄, 新的一晚): `then` is the
    scorebook's hook; `settle` shows it on this phone once the transaction is committed.
    `drawn_rev`: the stored revision the button was drawn at (a second press is refused)."""

    state: MutableMapping[str, Any]
    store: HandStore | None
    make: Callable[[Any], HandSession]  # standing -> the fresh hand
    drawn_rev: int | None
    hand: HandSession | None = None
    rev: int | None = None

    def then(self, con: Any, standing: Any) -> None:
        check_drawn(self.state, self.store, con, self.drawn_rev)
        self.hand = self.make(standing)
        if self.store is not None and not self.state.get(NOT_SAVED):
            self.rev = self.store.save_in(con, self.hand.to_state(), None)

    def settle(self) -> None:
        if self.hand is None:
            return
        _adopt(self.state, self.hand, self.rev if self.rev is not None else _revision(self.store))


def check_drawn(
    state: MutableMapping[str, Any], store: HandStore | None, con: Any, drawn_rev: int | None
) -> None:
    """Inside a scorebook transaction on the hand store's file: the table's hand is still at the
    revision this phone drew the button at; else `StaleHand` undoes the whole transaction. Nothing
    to check where the hand is not kept on the server (no store, a save that failed)."""
    if store is None or state.get(NOT_SAVED) or drawn_rev is None:
        return
    if HandStore.rev_in(con) != drawn_rev:
        raise StaleHand()


def widget_key(state: MutableMapping[str, Any], name: str) -> str:
    """A widget key that belongs to this hand only: a new or replaced hand never shows old values."""
    return ticket(state) + name


def bound_key(state: MutableMapping[str, Any], name: str, value: Any) -> str:
    """The key of the widget that shows the hand's `value` of `name`: `widget_key`, and a fresh one
    each time the hand's value moved under the widget by anything but the widget itself.

    Why: a field drawn empty, then filled by a photo of the melds (or a tap on the tile keyboard),
    keeps its key within one drawing of the hand, and the browser's next message can still carry the
    empty value it had (a poll queued while the photo was read): Streamlit calls the field back as if
    the player had emptied it, and the melds read from the photo were wiped (a slow reader in a real
    Chromium, CI at stops 45, 48, 49). Under a fresh key, the old value comes back under the old
    key, which was drawn with it (`changed_by_player`: dropped)."""
    base = widget_key(state, name)
    versions = state.setdefault(BOUND, {})
    version = int(versions.get(base, 0))
    key = _versioned(base, version)
    drawn = state.get(DRAWN) or {}
    if key in drawn and key in state and state[key] != value:
        version += 1
        versions[base] = version
        key = _versioned(base, version)
    return key


def _versioned(base: str, version: int) -> str:
    return base if version == 0 else f"{base}_v{version}"


def ticket(state: MutableMapping[str, Any]) -> str:
    """Which hand, which tile list of it, and which drawing of it a widget was made for: the prefix
    of its keys.

    Why: Streamlit can still fire the callback of a widget of the hand before — a field's last value
    arrives with the next tap, a key is tapped while the page redraws. Applied to the new hand it
    would type the old hand's melds or faces into it and silently change a payment, so every
    callback carries its ticket and `belongs` turns away the ones of another hand; a command that
    names a tile by number is also turned away when the tile list was retyped since."""
    hand: HandSession = state[HAND]
    return f"h{hand.id[:8]}l{hand.photo.rev}e{int(state.get(EPOCH, 0))}_"


def drawn_with(state: MutableMapping[str, Any], key: str, value: Any) -> None:
    """Remember the hand's value a bound widget (`widget_key`) is drawn with (`_adopt` forgets the
    values of old epochs)."""
    state.setdefault(DRAWN, {})[key] = value


def changed_by_player(state: MutableMapping[str, Any], key: str, value: Any) -> bool:
    """Whether a bound widget's callback carries a value the player chose, not the one it was drawn
    with.

    Why: a phone's page can still show widgets of an older drawing of the hand when its session has
    already taken the other phone's change (fresh keys, `EPOCH`). A tap there sends the old page's
    values of every widget, and Streamlit, which no longer knows those keys, calls back each one as
    if changed: the old winner, 自摸, the flags would be written over the other phone's change
    (seen in a browser test: 19 such callbacks after the other phone recorded the hand). Only a
    value that differs from what the widget was drawn with is a tap to apply (and merged, as any
    tap on a page not yet redrawn)."""
    drawn = state.get(DRAWN) or {}
    if key in drawn:
        return drawn[key] != value
    parsed = _TICKET.match(key)  # not remembered: a widget of this drawing was never bound (apply it),
    return parsed is None or int(parsed.group(3)) >= int(state.get(EPOCH, 0))  # one too old is dropped


def belongs(state: MutableMapping[str, Any], ticket_or_key: str) -> bool:
    """Whether a widget's ticket (or its `widget_key`) is of the hand shown now."""
    hand: HandSession | None = state.get(HAND)
    parsed = _TICKET.match(ticket_or_key)
    return hand is not None and parsed is not None and parsed.group(1) == hand.id[:8]


# ---------------------------------------------------------------------- taking the stored hand


def _stored_for(
    now: Stored | None, state: MutableMapping[str, Any], ticket_: str, command: str
) -> HandSession:
    """The hand as stored, ready for `command` drawn with `ticket_` (inside the write transaction)."""
    mine: HandSession = state[HAND]
    if now is None:
        return _copy(mine)  # the table has no hand (put aside, never saved): this phone's becomes it
    if now.state is None:
        raise Refused  # damaged: the next run puts it aside
    try:
        stored = HandSession.from_state(now.state, None)
    except HandProblem:
        raise Refused from None
    parsed = _TICKET.match(ticket_)
    if stored.id[:8] != (parsed.group(1) if parsed else None):
        raise Refused
    if command in BY_TILE and parsed is not None and int(parsed.group(2)) != stored.photo.rev:
        raise Refused
    _carry(mine, stored)
    return stored


def _take_stored(
    state: MutableMapping[str, Any], store: HandStore | None, decode: Callable[[bytes], Any] | None
) -> bool:
    """Show the table's stored hand in this session; False when there is none it can use."""
    if store is None:
        return False
    mine: HandSession | None = state.get(HAND)
    known = mine.photo.key if mine is not None and mine.photo.has_picture else None
    try:
        saved = store.load(known_photo=known)
    except ScorebookError as exc:
        log.warning("hand store unreadable: %s", exc)
        return False
    if saved is None:
        if mine is not None:
            state[SYNCED_REV] = _revision(store)
        return False
    try:
        if saved.state is None:
            raise HandProblem(Words("存的内容读不出来", saved.problem or "unreadable"))
        photo = None if known and saved.photo_hash == known else saved.photo
        hand = HandSession.from_state(saved.state, photo, decode)
    except Exception as exc:  # noqa: BLE001 - any stored hand that cannot be used is put aside
        _put_aside(state, store, saved.rev, exc)
        return False
    if mine is not None:
        _carry(mine, hand)
    _adopt(state, hand, saved.rev)
    return True


def _put_aside(state: MutableMapping[str, Any], store: HandStore, rev: int, exc: Exception) -> None:
    why = getattr(exc, "words", None)
    reason = why.en if isinstance(why, Words) else str(exc)
    log.warning("stored hand revision %s not restorable: %s", rev, reason)
    try:
        store.put_aside(rev, reason)
    except ScorebookError as err:
        log.warning("stored hand could not be put aside: %s", err)
    newer = isinstance(exc, NewerHand)
    state[RESTORE_FAILED] = Words(
        "服务器上存的那一局是更新版本的程序存的，这里打不开" if newer else "服务器上存的那一局坏了，没法恢复",
        f"The hand kept on the server could not be restored ({reason})",
    ) + Words(
        "；它已另外保存，没有丢。请拍一张新照片或点“新的一局”。",
        "; it is kept aside, nothing is lost. Take a new photo or tap “New hand”.",
    )
    mine: HandSession | None = state.get(HAND)
    state[SYNCED_REV] = _revision(store)
    if mine is not None and not mine.sample:
        save(state, store)  # this phone's own hand becomes the table's again


def _carry(mine: HandSession, stored: HandSession) -> None:
    """What stays with this phone when it takes the stored hand of the same photo: the decoded
    picture, its bytes, the last save for training, and where its own keyboard is open."""
    if stored.id != mine.id or stored.photo.key != mine.photo.key:
        return
    if not stored.photo.has_picture:
        stored.photo.take_picture(mine.photo)
    if stored.photo_data is None:
        stored.photo_data = mine.photo_data
    stored.photo.saved = mine.photo.saved
    if stored.photo.rev == mine.photo.rev:
        picked = mine.photo.picked
        stored.photo.picked = picked if picked is None or picked < len(stored.photo.boxes) else None


def _copy(hand: HandSession) -> HandSession:
    """A copy to run a command on (this phone's hand stays as it was if the write fails)."""
    twin = HandSession.from_state(hand.to_state(), None)
    _carry(hand, twin)
    twin.sample = hand.sample
    return twin


def _apply_here(state: MutableMapping[str, Any], store: HandStore | None, command: str, args: tuple) -> bool:
    """The command on this session's own hand (the sample, or a store that cannot be written)."""
    try:
        getattr(state[HAND], command)(*args)
    except ValueError as exc:
        state[MESSAGE] = _words(exc)
        return False
    flush(state, store)
    return True


def _words(exc: Exception) -> Words:
    words = getattr(exc, "words", None)
    return words if isinstance(words, Words) else Words(str(exc), str(exc))


def _settle(state: MutableMapping[str, Any], hand: HandSession, rev: int) -> None:
    """This phone's command is stored as `rev`: show that hand (fresh keys only if it came with
    another phone's changes, so the field being typed in is not redrawn under the thumb)."""
    _adopt(state, hand, rev, fresh_keys=state.get(SYNCED_REV) != rev - 1)


def _adopt(state: MutableMapping[str, Any], hand: HandSession, rev: int, fresh_keys: bool = True) -> None:
    """Show `hand`, stored as revision `rev`, in this session (its widgets get fresh keys unless told)."""
    state[HAND] = hand
    state[SYNCED_REV] = rev
    state[SAVED_AT] = hand.changes
    if fresh_keys:
        state[EPOCH] = int(state.get(EPOCH, 0)) + 1
        _forget_old_drawings(state)
    state[STORED_PHOTO] = hand.photo.key if hand.photo_data is not None else None
    if not hand.sample:
        state.pop(NOT_SAVED, None)  # this phone shows the server's hand


def _forget_old_drawings(state: MutableMapping[str, Any]) -> None:
    """Drop the drawn values of widgets `KEEP_DRAWN` or more epochs old (a page in the browser is a
    drawing or two behind its session at most; the dict does not grow through an evening)."""
    drawn = state.get(DRAWN)
    if not drawn:
        return
    epoch = int(state.get(EPOCH, 0))

    def recent(key: str) -> bool:
        return (m := _TICKET.match(key)) is not None and int(m.group(3)) > epoch - KEEP_DRAWN

    state[DRAWN] = {k: v for k, v in drawn.items() if recent(k)}
    state[BOUND] = {k: v for k, v in (state.get(BOUND) or {}).items() if recent(k)}


def _revision(store: HandStore | None) -> int:
    if store is None:
        return 0
    try:
        return int(store.revision())
    except Exception as exc:  # noqa: BLE001
        log.warning("hand store unreadable: %s", exc)
        return 0
