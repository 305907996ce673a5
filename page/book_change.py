"""What 改第 n 局 would change in the book, in words, before the player confirms it.

Why this module exists: a recorded hand is replaced only on purpose. The button used to say only
"这张照片已记为第 2 局——改成这样？"; a player tapping it could not see that it moved 600 points from
北家 to 南家. These lines show, per seat, what the book says now and what it would say, so the tap
that replaces a hand is a tap on what the table sees.
"""

from __future__ import annotations

from collections.abc import Mapping

from page.names import seat_words, win_by_words
from page.words import Words
from rules.hand import SEATS


def what_changes(
    number: int,
    old_winner: str | None,
    old_win_by: str | None,
    old_payments: Mapping[str, int],
    new_winner: str,
    new_win_by: str | None,
    new_payments: Mapping[str, int],
) -> list[Words]:
    """The lines of the confirmation: who won how (before → after), then each seat whose payment
    changes (before → after). A seat that stays the same is not listed."""

    def who(winner: str | None, how: str | None) -> Words:
        if winner is None:
            return Words("黄庄", "drawn")
        s, w = seat_words(winner), win_by_words(how) if how else Words("", "")
        return Words(f"{s.zh}{w.zh}胡", f"{s.en} won" + (f" by {w.en}" if w.en else ""))

    before, after = who(old_winner, old_win_by), who(new_winner, new_win_by)
    lines = [
        Words(
            f"第 {number} 局现在记的是：{before.zh}；改成：{after.zh}",
            f"Hand {number} now says: {before.en}; it would say: {after.en}",
        )
    ]
    for seat in SEATS:
        was, will = int(old_payments.get(seat, 0)), int(new_payments.get(seat, 0))
        if was != will:
            s = seat_words(seat)
            lines.append(Words(f"{s.zh} {was:+d} → {will:+d}", f"{s.en} {was:+d} → {will:+d}"))
    return lines
