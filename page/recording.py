"""记入记分本 pressed: the one path from a phone's button to the book, checked where it is written.

Why this module exists: a player trusts the book first, so a wrong payment is worse than a missed
tile. A press can be stale (drawn before the other phone fixed the winner), repeated (two phones at
the same moment, a double tap) or late (after 新的一晚). So the button carries what it was drawn for
(`Drawn`), and `press` records only if, inside the scorebook's write transaction, the table's hand
is still at that revision (`page.hand_sync.check_drawn`), the photo is not already another hand of
the evening (`Scorebook.record_hand`), and a replacement replaces the hand the player was shown
(`Scorebook.replace_hand(expect=...)`). Streamlit-free, so two phones can be raced in a test.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from page import hand_sync
from page.hand_session import RecordPlan
from page.hand_store import STALE_WORDS, HandStore
from page.scorebook import ChangedMeanwhile, Scorebook
from page.words import Words


@dataclass(frozen=True)
class Drawn:
    """What a 记入记分本 / 改第 n 局 button was drawn for."""

    ticket: str  # the hand (page.hand_sync.ticket)
    rev: int | None  # the stored revision of the hand
    plan: RecordPlan  # record anew, or replace hand n as it was then
    evening: int | None  # the evening shown


def drawn_now(state: MutableMapping[str, Any], plan: RecordPlan, evening: int | None) -> Drawn:
    return Drawn(hand_sync.ticket(state), state.get(hand_sync.SYNCED_REV), plan, evening)


def press(
    state: MutableMapping[str, Any], store: HandStore | None, book: Scorebook, drawn: Drawn
) -> tuple[bool, Words]:
    """Record the hand the button was drawn for: (recorded, what to say). Never raises."""
    h = state.get(hand_sync.HAND)
    if (
        h is None
        or not hand_sync.belongs(state, drawn.ticket)
        or state.get(hand_sync.SYNCED_REV) != drawn.rev
    ):
        return False, STALE_WORDS  # the hand changed since this button was drawn
    try:
        evening = book.current() or book.ensure_evening(preset=h.preset, dealer=h.inputs.dealer)
        if drawn.evening is not None and evening.id != drawn.evening:
            raise ChangedMeanwhile(
                Words(
                    "记分本刚换到了另一晚，这一局没记；请看一眼再点。",
                    "The scorebook just moved to another evening; nothing was recorded — have a look first.",
                )
            )
        rec = h.record(
            book,
            h.evaluate(),
            evening.id,
            drawn=drawn.plan,
            then=lambda con, _rec: hand_sync.check_drawn(state, store, con, drawn.rev),
        )
    except Exception as exc:  # noqa: BLE001 - said in words, never a traceback
        words = getattr(exc, "words", None)
        return False, words if isinstance(words, Words) else Words(f"没记上：{exc}", f"Not recorded: {exc}")
    if drawn.plan.replaces is not None and not rec.duplicate:
        return True, Words(f"第 {rec.number} 局已改好。", f"Hand {rec.number} was replaced.")
    return True, Words(f"已记入第 {rec.number} 局。", f"Recorded as hand {rec.number}.")
