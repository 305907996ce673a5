"""Changing the evening after the fact: replace a hand, restore an undone one, reopen an evening."""

from __future__ import annotations

import copy
import json
import sqlite3
import threading
from pathlib import Path

import pytest

import rules
from page import scorebook as sb
from page.scorebook import Scorebook, ScorebookError

EXAMPLES = Path(__file__).parents[1] / "examples"


def _example(name: str, **changes) -> tuple[dict, dict]:
    hand = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))["hand"]
    hand = {**copy.deepcopy(hand), **changes}
    return hand, rules.score(rules.parse_hand(hand)).to_dict()


@pytest.fixture
def book(tmp_path) -> Scorebook:
    return Scorebook(tmp_path / "book.sqlite")


def _three_hands(book) -> list[sb.HandRecord]:
    book.start_evening()
    out = []
    for i, name in enumerate(("LY-1", "LY-2", "LY-1")):
        hand, result = _example(name)
        out.append(book.record_hand(hand, result, f"p{i + 1}"))
    return out


# ---------------------------------------------------------------------- replace_hand


def test_replace_a_hand_in_place_and_the_totals_follow(book):
    first, second, third = _three_hands(book)
    hand, result = _example("LY-1", dealer="S")  # the same photo, read again: S dealt and won
    assert result["payments"] != first.payments
    new = book.replace_hand(1, hand, result, photo_hash="p1")
    assert (new.id, new.number, new.recorded_at) == (first.id, 1, first.recorded_at)
    assert new.dealer == "S" and new.next_dealer == "S" and new.lianzhuang
    assert new.payments == result["payments"] and new.hand_json == hand and new.result == result
    assert (new.winner, new.win_by, new.photo_hash) == (result["winner"], "discard", "p1")
    hist = book.history()
    assert [h.number for h in hist] == [1, 2, 3]
    assert hist[1] == second and hist[2] == third  # later hands keep what they recorded
    totals = book.standing().totals
    assert totals == {s: new.payments[s] + second.payments[s] + third.payments[s] for s in sb.SEATS}
    assert book.find_photo("p1").number == 1


def test_replace_keeps_the_photo_hash_unless_given(book):
    _three_hands(book)
    hand, result = _example("LY-2")
    assert book.replace_hand(2, hand, result).photo_hash == "p2"
    assert book.replace_hand(2, hand, result, photo_hash="p9").photo_hash == "p9"


def test_replace_a_draw_with_a_win(book):
    book.start_evening()
    book.record_draw()
    hand, result = _example("LY-1")
    rec = book.replace_hand(1, hand, result, "p")
    assert not rec.is_draw and book.standing().draws == 0 and book.standing().totals == result["payments"]


def test_replace_refuses_what_is_not_there_or_not_a_win(book):
    ev = _three_hands(book)[0]
    hand, result = _example("LY-1")
    with pytest.raises(ScorebookError, match="第 7 局") as err:
        book.replace_hand(7, hand, result)
    assert err.value.words.en == "there is no hand 7 in the scorebook" and err.value.kind == "other"
    with pytest.raises(ScorebookError, match="只能记入能胡的牌"):
        book.replace_hand(1, hand, {**result, "valid": False})
    with pytest.raises(ScorebookError, match="第 99 晚"):
        book.replace_hand(1, hand, result, evening_id=99)
    assert book.history(ev.evening_id)[0] == ev


def test_a_replace_and_a_record_racing_on_two_connections(tmp_path):
    """One tab corrects hand 1 over and over while another records hands: no hand is lost or doubled,
    the numbers stay 1..n, hand 1 ends as the last correction and the totals add up."""
    path = tmp_path / "race.sqlite"
    Scorebook(path).start_evening()
    h1, r1 = _example("LY-1")
    h2, r2 = _example("LY-2")
    Scorebook(path).record_hand(h1, r1, "first")
    fixed, fixed_r = _example("LY-1", dealer="S")
    start = threading.Barrier(2)
    errors: list[str] = []
    n = 30

    def corrector() -> None:
        try:
            book = Scorebook(path)
            start.wait(10)
            for i in range(n):
                book.replace_hand(1, *((fixed, fixed_r) if i % 2 else (h1, r1)))
        except Exception as exc:  # noqa: BLE001 - reported to the test
            errors.append(f"replace: {exc}")

    def recorder() -> None:
        try:
            book = Scorebook(path)
            start.wait(10)
            for i in range(n):
                book.record_hand(h2, r2, f"r{i}")
        except Exception as exc:  # noqa: BLE001 - reported to the test
            errors.append(f"record: {exc}")

    threads = [threading.Thread(target=f) for f in (corrector, recorder)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    book = Scorebook(path)
    hist = book.history()
    assert [h.number for h in hist] == list(range(1, n + 2))
    assert hist[0].hand_json == fixed and hist[0].photo_hash == "first"
    assert book.standing().totals == {s: fixed_r["payments"][s] + n * r2["payments"][s] for s in sb.SEATS}
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()


# ---------------------------------------------------------------------- restore


def test_undo_then_restore_puts_the_hand_back_as_it_was(book):
    hands = _three_hands(book)
    before = book.standing()
    undone = book.undo_last()
    back = book.restore(undone)
    assert back == undone and not back.duplicate
    assert book.history() == hands and book.standing() == before


def test_restoring_twice_changes_nothing(book):
    _three_hands(book)
    undone = book.undo_last()
    book.restore(undone)
    again = book.restore(undone)
    assert again.duplicate and again.number == 3 and len(book.history()) == 3


def test_restore_after_another_hand_takes_the_next_number(book):
    hands = _three_hands(book)
    undone = book.undo_last()
    hand, result = _example("LY-2")
    taken = book.record_hand(hand, result, "new")  # number 3 again, and maybe the same row id
    back = book.restore(undone)
    assert back.number == 4 and not back.duplicate and back.id != taken.id
    assert (back.dealer, back.next_dealer, back.payments) == (
        undone.dealer,
        undone.next_dealer,
        undone.payments,
    )
    assert [h.photo_hash for h in book.history()] == ["p1", "p2", "new", "p3"]
    assert book.standing().totals == {
        s: sum(h.payments[s] for h in hands) + result["payments"][s] for s in sb.SEATS
    }


def test_restore_a_draw(book):
    book.start_evening(dealer="W")
    book.record_draw()
    st = book.standing()
    undone = book.undo_last()
    assert undone.is_draw and book.standing().draws == 0
    back = book.restore(undone)
    assert back.is_draw and back.hand_json is None and back.result is None
    assert book.standing() == st


def test_restore_refuses_a_record_that_makes_no_sense(book):
    _three_hands(book)
    undone = book.undo_last()
    bad = sb.HandRecord(**{**undone.__dict__, "payments": {"E": 5, "S": 0, "W": 0, "N": 0}})
    with pytest.raises(ScorebookError, match="不是 0"):
        book.restore(bad)
    with pytest.raises(ScorebookError, match="第 42 晚"):
        book.restore(sb.HandRecord(**{**undone.__dict__, "evening_id": 42}))
    assert len(book.history()) == 2


# ---------------------------------------------------------------------- reopen


def test_reopen_makes_an_earlier_evening_current(book):
    first = book.start_evening({"E": "老王"})
    hand, result = _example("LY-1")
    book.record_hand(hand, result, "p1")
    second = book.start_evening({"E": "小李"})
    assert book.current().id == second.id
    assert book.reopen(first.id) == first
    assert book.current() == first and book.ensure_evening().id == first.id
    assert book.standing().totals == result["payments"]  # calls without an id use it
    rec = book.record_draw()
    assert rec.evening_id == first.id and rec.number == 2
    third = book.start_evening()
    assert book.current().id == third.id  # a new evening is current again
    with pytest.raises(ScorebookError, match="第 99 晚"):
        book.reopen(99)
    assert book.current().id == third.id


def test_a_reopened_evening_survives_a_restart(tmp_path):
    path = tmp_path / "book.sqlite"
    book = Scorebook(path)
    first = book.start_evening({"E": "老王"})
    book.start_evening()
    book.reopen(first.id)
    del book
    again = Scorebook(path)
    assert again.current() == first and again.standing().evening == first


def test_current_falls_back_to_the_newest_when_the_setting_points_nowhere(book):
    book.start_evening()
    newest = book.start_evening()
    con = sqlite3.connect(book.path)
    con.execute("UPDATE settings SET value = '77' WHERE key = ?", (sb.CURRENT_EVENING,))
    con.commit()
    con.close()
    assert book.current().id == newest.id
    con = sqlite3.connect(book.path)
    con.execute("DELETE FROM settings")
    con.commit()
    con.close()
    assert book.current().id == newest.id


#: The file as the scorebook wrote it before evenings could be reopened (schema 1, no settings).
_OLDER_SCHEMA = """
CREATE TABLE evenings (id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, preset TEXT NOT NULL,
    first_dealer TEXT NOT NULL, names TEXT NOT NULL);
CREATE TABLE hands (id INTEGER PRIMARY KEY, evening_id INTEGER NOT NULL REFERENCES evenings(id),
    number INTEGER NOT NULL, recorded_at TEXT NOT NULL, preset TEXT NOT NULL, dealer TEXT NOT NULL,
    next_dealer TEXT NOT NULL, winner TEXT, win_by TEXT, photo_hash TEXT, hand_json TEXT,
    result_json TEXT, pay_e INTEGER NOT NULL, pay_s INTEGER NOT NULL, pay_w INTEGER NOT NULL,
    pay_n INTEGER NOT NULL, UNIQUE (evening_id, number));
CREATE INDEX hands_photo ON hands (evening_id, photo_hash);
INSERT INTO evenings VALUES (1, '2026-11-01T19:00:00+00:00', 'liaoyang', 'E', '{"E": "老王", "S": "南家", "W": "西家", "N": "北家"}');
INSERT INTO evenings VALUES (2, '2026-11-08T19:00:00+00:00', 'anshan', 'N', '{"E": "东家", "S": "南家", "W": "西家", "N": "北家"}');
INSERT INTO hands VALUES (1, 1, 1, '2026-11-01T19:10:00+00:00', 'liaoyang', 'E', 'E', NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0);
PRAGMA user_version = 1;
"""


def test_a_file_written_before_reopen_existed_keeps_working(tmp_path):
    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    con.executescript(_OLDER_SCHEMA)
    con.close()
    book = Scorebook(path)
    assert book.current().id == 2  # no setting yet: the newest, as before
    assert book.reopen(1).names["E"] == "老王"
    assert book.current().id == 1 and book.standing().hands == 1 and book.standing().draws == 1
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == sb.SCHEMA_VERSION == 1
    con.close()
