"""page.recording: a press of 记入记分本 records the hand it was drawn for, once, or nothing.

Two phones of one table are two session states on one file; their presses are raced in threads.
"""

from __future__ import annotations

import contextlib
import threading

from page import hand_sync, recording
from page.detector_loader import Detector
from page.hand_session import HandSession
from page.hand_store import HandStore
from page.photo_state import decode_photo, read_photo
from page.scorebook import Scorebook
from tests.fake_reader import fake_detect, marked_photo


def _Reader() -> Detector:  # noqa: N802 - stands where a reader class stood
    return Detector(fake_detect, "fake")


def _sample() -> HandSession:
    s = HandSession()
    s.sample = True
    return s


def _table(tmp_path, k: int = 0):
    """Phone A reads a photo and says who won; phone B opens the same hand."""
    path = tmp_path / "book.sqlite"
    store, book = HandStore(path), Scorebook(path)
    a: dict = {}
    hand_sync.current_hand(a, store, _sample)
    data = marked_photo(k)
    h = HandSession()
    h.start_photo(read_photo(data, "hand.png", _Reader()), data)
    hand_sync.replace_hand(a, store, h)
    for command, arg in (("set_winner", "S"), ("set_win_by", "self_draw"), ("set_indicator", "9m")):
        assert hand_sync.apply(a, store, hand_sync.ticket(a), command, arg)
    b: dict = {}
    hand_sync.current_hand(b, store, _sample, decode_photo)
    return store, book, a, b


def _drawn(tab, book) -> recording.Drawn:
    """The button as this phone draws it now."""
    h = tab[hand_sync.HAND]
    ev = book.current()
    outcome = h.evaluate()
    recorded = book.find_photo(h.record_key, ev.id) if ev else None
    plan = h.record_plan(outcome, recorded, ev.id if ev else None)
    assert plan.allowed
    return recording.drawn_now(tab, plan, ev.id if ev else None)


def test_a_press_records_the_hand_once(tmp_path):
    store, book, a, _ = _table(tmp_path)
    drawn = _drawn(a, book)
    ok, words = recording.press(a, store, book, drawn)
    assert ok and words.zh == "已记入第 1 局。"
    ok, words = recording.press(a, store, book, drawn)  # a double tap: the same hand, nothing new
    assert ok and len(book.history()) == 1


def test_simultaneous_presses_with_different_readings_record_one_hand(tmp_path):
    """100 trials: B reads the winner as 北家 while A still shows 南家, and both press at once. One
    photo is one hand, and the hand recorded is the one both screens then show."""
    store, book, a, b = _table(tmp_path)
    for trial in range(100):
        if trial:
            book.start_evening()
            a.pop(hand_sync.HAND)  # both phones reload onto the same stored hand
            b.pop(hand_sync.HAND)
            hand_sync.current_hand(a, store, _sample, decode_photo)
            hand_sync.current_hand(b, store, _sample, decode_photo)
            assert hand_sync.apply(a, store, hand_sync.ticket(a), "set_winner", "S")
            hand_sync.current_hand(b, store, _sample, decode_photo)
        drawn_a = _drawn(a, book)  # A's button: 南家
        assert hand_sync.apply(b, store, hand_sync.ticket(b), "set_winner", "N")
        drawn_b = _drawn(b, book)  # B's button: 北家 (A has not polled yet)
        go = threading.Barrier(2)
        said: dict = {}

        def press(name, tab, drawn, go=go, said=said):
            go.wait()
            said[name] = recording.press(tab, store, book, drawn)

        threads = [
            threading.Thread(target=press, args=("a", a, drawn_a)),
            threading.Thread(target=press, args=("b", b, drawn_b)),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        hist = book.history()
        assert len(hist) == 1, (trial, said)
        assert hist[0].winner == "N"  # the stored hand's reading; A's stale press is refused
        assert said["b"][0] and not said["a"][0]
        assert "另一部手机" in said["a"][1].zh or "已记为第 1 局" in said["a"][1].zh  # refused in words
        for tab in (a, b):
            assert hand_sync.current_hand(tab, store, _sample, decode_photo).inputs.winner == "N"


def test_a_press_after_a_new_evening_records_nothing(tmp_path):
    store, book, a, b = _table(tmp_path)
    book.ensure_evening()
    drawn_b = _drawn(b, book)
    fresh = hand_sync.FreshHand(a, store, lambda st_: _fresh(st_), a[hand_sync.SYNCED_REV])
    book.start_evening(then=fresh.then)
    fresh.settle()
    ok, words = recording.press(b, store, book, drawn_b)
    assert not ok and book.standing().hands == 0 and len(book.evenings()) == 2
    assert book.history(1) == []


def _fresh(standing) -> HandSession:
    h = HandSession()
    h.new_hand(standing.dealer, standing.draws, standing.evening.id)
    return h


def test_a_second_press_of_a_draw_records_nothing(tmp_path):
    store, book, a, _ = _table(tmp_path)
    book.start_evening()
    rev = a[hand_sync.SYNCED_REV]
    for _ in range(2):  # the same 确定, pressed twice
        fresh = hand_sync.FreshHand(a, store, _fresh, rev)
        try:
            book.record_draw(then=fresh.then)
        except Exception as exc:  # noqa: BLE001
            assert "另一部手机" in exc.words.zh
        else:
            fresh.settle()
    assert book.standing().hands == 1 and book.standing().draws == 1


def test_a_kill_inside_new_evening_leaves_the_old_evening_and_hand(tmp_path):
    store, book, a, _ = _table(tmp_path)
    book.ensure_evening()

    def killed(con, standing):
        store.save_in(con, _fresh(standing).to_state(), None)
        raise KeyboardInterrupt  # the process dies between the evening and its fresh hand

    before = store.load().state["id"]
    with contextlib.suppress(KeyboardInterrupt):
        book.start_evening(then=killed)
    assert len(book.evenings()) == 1 and store.load().state["id"] == before
