"""The evening's scorebook: records, totals, dealer moves, undo, CSV, restart and two writers at once."""

from __future__ import annotations

import contextlib
import copy
import csv
import io
import itertools
import json
import multiprocessing as mp
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import rules
from page import scorebook as sb
from page import write_turn as wt
from page.scorebook import Scorebook, ScorebookError
from rules.preset_model import DealerRule

EXAMPLES = Path(__file__).parents[1] / "examples"


def _example(name: str) -> tuple[dict, dict]:
    hand = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))["hand"]
    return hand, rules.score(rules.parse_hand(hand)).to_dict()


def _with(hand: dict, **changes) -> tuple[dict, dict]:
    """The same hand with other seats (dealer / winner / discarder), scored again by the engine."""
    h = copy.deepcopy(hand)
    h.update({k: v for k, v in changes.items() if k != "win_from"})
    if "win_from" in changes:
        h["win"]["from"] = changes["win_from"]
    return h, rules.score(rules.parse_hand(h)).to_dict()


@pytest.fixture
def book(tmp_path) -> Scorebook:
    return Scorebook(tmp_path / "book.sqlite")


def test_default_path_follows_the_env_vars(monkeypatch, tmp_path):
    monkeypatch.delenv(sb.ENV_FILE, raising=False)
    monkeypatch.delenv(sb.ENV_DATA_DIR, raising=False)
    assert sb.default_path() == sb.DEFAULT_DATA_DIR / "scorebook.sqlite"
    monkeypatch.setenv(sb.ENV_DATA_DIR, str(tmp_path / "data"))
    assert sb.default_path() == tmp_path / "data" / "scorebook.sqlite"
    monkeypatch.setenv(sb.ENV_FILE, str(tmp_path / "elsewhere.db"))
    assert sb.default_path() == tmp_path / "elsewhere.db"
    assert Scorebook().path == tmp_path / "elsewhere.db"
    assert (tmp_path / "elsewhere.db").is_file()


def test_the_default_file_is_git_ignored():
    ignore = (sb.DEFAULT_DATA_DIR.parent / ".gitignore").read_text(encoding="utf-8").split()
    assert "/datasets/scorebook.sqlite*" in ignore


def test_record_a_win_keeps_hand_result_photo_and_totals(book):
    ev = book.start_evening({"E": "老王", "S": " 小 李 ", "N": ""}, preset="liaoyang")
    assert ev.names == {"E": "老王", "S": "小 李", "W": "西家", "N": "北家"}
    assert ev.label("E") == "东家 老王" and ev.label("W") == "西家"
    hand, result = _example("LY-1")  # S wins on W's discard, E deals
    rec = book.record_hand(hand, result, photo_hash="ab" * 32)
    assert (rec.number, rec.winner, rec.win_by, rec.dealer) == (1, "S", "discard", "E")
    assert rec.hand_json == hand and rec.result == result and rec.photo_hash == "ab" * 32
    assert rec.payments == result["payments"] == {"E": -4, "S": 10, "W": -4, "N": -2}
    assert not rec.duplicate and not rec.lianzhuang and rec.next_dealer == "S"
    st = book.standing()
    assert st.totals == {"E": -4, "S": 10, "W": -4, "N": -2} and st.hands == 1
    assert st.dealer == "S" and st.streak == 0
    assert book.find_photo("ab" * 32).number == 1 and book.find_photo("cd" * 32) is None


def _two_hands(book) -> tuple[dict, dict]:
    """A new evening with LY-1 (photo p1) then LY-2 (photo p2) recorded; returns their results."""
    book.start_evening()
    h1, r1 = _example("LY-1")
    h2, r2 = _example("LY-2")
    book.record_hand(h1, r1, "p1")
    book.record_hand(h2, r2, "p2")
    return r1, r2


def test_totals_add_up_over_hands(book):
    r1, r2 = _two_hands(book)
    totals = book.standing().totals
    assert totals == {s: r1["payments"][s] + r2["payments"][s] for s in sb.SEATS}
    assert sum(totals.values()) == 0


def test_dealer_stays_when_the_dealer_wins_and_passes_otherwise(book):
    book.start_evening(preset="liaoyang")
    hand, _ = _example("LY-1")  # S wins on W's discard
    h, r = _with(hand, dealer="S")  # S is the dealer and wins: 连庄
    rec = book.record_hand(h, r, "p1")
    assert rec.dealer == "S" and rec.next_dealer == "S" and rec.lianzhuang
    st = book.standing()
    assert (st.dealer, st.streak) == ("S", 1)
    rec = book.record_hand(h, r, "p2")
    assert book.standing().streak == 2
    h, r = _with(hand, dealer="N")  # N deals, S wins: the deal passes from N back to E
    rec = book.record_hand(h, r, "p3")
    assert rec.next_dealer == "E" and not rec.lianzhuang
    assert (book.standing().dealer, book.standing().streak) == ("E", 0)


@pytest.mark.parametrize("preset", sorted(rules.PRESETS))
def test_next_dealer_table(preset):
    assert sb.next_dealer(preset, "E", "E") == "E"
    assert sb.next_dealer(preset, "E", "S") == "S"
    assert sb.next_dealer(preset, "N", "W") == "E"
    assert sb.next_dealer(preset, "W", None) == "W"  # 黄庄


def test_every_preset_has_a_dealer_rule():
    assert all(isinstance(p.dealer, DealerRule) for p in rules.PRESETS.values())


def test_a_draw_keeps_the_dealer_and_counts_for_changmao(book):
    book.start_evening(dealer="W")
    rec = book.record_draw()
    assert rec.is_draw and rec.winner is None and rec.payments == dict.fromkeys(sb.SEATS, 0)
    assert rec.dealer == "W" and rec.next_dealer == "W"
    book.record_draw()
    st = book.standing()
    assert (st.dealer, st.draws, st.hands) == ("W", 2, 2)
    hand, result = _example("LY-1")
    book.record_hand(hand, result, "p")
    assert book.standing().draws == 0


def test_quan_counts_four_passes_of_the_deal(book):
    book.start_evening()
    hand, _ = _example("LY-1")  # S wins
    for dealer in ("E", "W", "N"):  # the deal passes each time (S does not deal)
        h, r = _with(hand, dealer=dealer)
        book.record_hand(h, r, f"p{dealer}")
    assert book.standing().quan == 1
    h, r = _with(hand, dealer="N")
    book.record_hand(h, r, "p4")
    assert book.standing().quan == 2


def test_the_same_photo_and_hand_is_not_recorded_twice(book):
    book.start_evening()
    hand, result = _example("LY-1")
    first = book.record_hand(hand, result, "same")
    again = book.record_hand(copy.deepcopy(hand), dict(result), "same")
    assert again.duplicate and again.id == first.id
    assert book.standing().hands == 1
    # without a photo hash nothing can tell a double tap from a new hand: both count
    book.record_hand(hand, result)
    book.record_hand(hand, result)
    assert book.standing().hands == 3


def test_undo_removes_the_last_hand_only(book):
    r1, r2 = _two_hands(book)
    undone = book.undo_last()
    assert undone.number == 2 and undone.photo_hash == "p2"
    assert [h.number for h in book.history()] == [1]
    assert book.standing().totals == r1["payments"]
    assert book.record_hand(_example("LY-2")[0], r2, "p2").number == 2  # re-recording after undo works
    book.undo_last()
    book.undo_last()
    assert book.undo_last() is None
    assert book.standing().totals == dict.fromkeys(sb.SEATS, 0)
    assert book.standing().dealer == "E"


def test_evenings_are_separate(book):
    first = book.start_evening({"E": "A"})
    hand, result = _example("LY-1")
    book.record_hand(hand, result, "p1")
    second = book.start_evening({"E": "B"}, preset="anshan", dealer="N")
    assert book.current().id == second.id
    assert book.standing().hands == 0 and book.standing().dealer == "N"
    assert book.standing(first.id).hands == 1
    assert [e.id for e in book.evenings()] == [second.id, first.id]
    assert book.history(first.id)[0].photo_hash == "p1"


def test_ensure_evening_starts_one_only_when_there_is_none(book):
    first = book.ensure_evening({"E": "A"}, preset="anshan", dealer="S")
    assert (first.preset, first.first_dealer, first.names["E"]) == ("anshan", "S", "A")
    assert book.ensure_evening(preset="liaoyang").id == first.id
    later = book.start_evening(preset="liaoyang")
    assert book.ensure_evening().id == later.id
    with pytest.raises(ScorebookError, match="未知规则"):
        book.ensure_evening(preset="riichi")


def test_rename_keeps_the_seats_totals(book):
    ev = book.start_evening({"E": "A"})
    hand, result = _example("LY-1")
    book.record_hand(hand, result, "p1")
    ev2 = book.rename(ev.id, {"E": "C", "S": "D"})
    assert ev2.names["E"] == "C" and ev2.names["S"] == "D"
    assert book.standing().totals["E"] == result["payments"]["E"]


def test_a_rename_from_a_form_drawn_before_another_rename_keeps_both(book):
    ev = book.start_evening({"E": "A"})
    shown = dict(ev.names)  # phone A's form
    book.rename(ev.id, {**ev.names, "S": "B"})  # phone B names the south seat
    typed = {**shown, "W": "C"}  # A types the west seat only, the south field still as drawn
    ev2 = book.rename(ev.id, typed, drawn=shown)
    assert (ev2.names["E"], ev2.names["S"], ev2.names["W"]) == ("A", "B", "C")


def test_it_survives_a_restart(tmp_path):
    path = tmp_path / "book.sqlite"
    first = Scorebook(path)
    first.start_evening({"E": "老王"})
    hand, result = _example("LY-1")
    first.record_hand(hand, result, "p1")
    del first
    again = Scorebook(path)
    assert again.current().names["E"] == "老王"
    assert again.history()[0].result == result
    assert again.standing().totals == result["payments"]


@pytest.mark.parametrize(
    "mutate, words",
    [
        (lambda r: {**r, "valid": False}, "只能记入能胡的牌"),
        (lambda r: {**r, "payments": {**r["payments"], "E": r["payments"]["E"] + 1}}, "不是 0"),
        (lambda r: {**r, "payments": {**r["payments"], "X": 0}}, "没有四家的输赢"),
        (lambda r: {**r, "payments": {**r["payments"], "E": "4"}}, "不是整数"),
        (lambda r: {**r, "winner": "Q"}, "赢家"),
        (lambda r: {**r, "preset": "sichuan"}, "未知规则"),
    ],
)
def test_bad_results_are_refused_with_one_clear_message(book, mutate, words):
    book.start_evening()
    hand, result = _example("LY-1")
    with pytest.raises(ScorebookError, match=words):
        book.record_hand(hand, mutate(result), "p")
    assert book.standing().hands == 0


def test_bad_setup_is_refused(book):
    with pytest.raises(ScorebookError, match="还没有开始记分"):
        book.standing()
    with pytest.raises(ScorebookError, match="座位"):
        book.start_evening({"X": "A"})
    with pytest.raises(ScorebookError, match="太长"):
        book.start_evening({"E": "A" * 40})
    with pytest.raises(ScorebookError, match="庄家"):
        book.start_evening(dealer="Z")
    with pytest.raises(ScorebookError, match="第 99 晚"):
        book.standing(99)


def test_a_file_that_is_not_a_scorebook_says_so(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(ScorebookError, match="记分本文件坏了") as err:
        Scorebook(bad)
    assert err.value.kind == "corrupt" and "damaged" in err.value.words.en
    with pytest.raises(ScorebookError, match="打不开") as err:  # its folder is a file
        Scorebook(bad / "book.sqlite")
    assert err.value.kind == "other" and "cannot be used" in err.value.words.en


def test_csv_has_a_bom_chinese_headers_running_totals_and_safe_names(book):
    book.start_evening({"E": "=HYPERLINK(1)", "S": "小李"})
    h1, r1 = _example("LY-1")
    book.record_hand(h1, r1, "f" * 64)
    book.record_draw()
    data = book.export_csv()
    assert data.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    head = rows[0]
    assert head[:7] == ["局", "时间 (UTC)", "规则", "庄", "赢家", "方式", "番"]
    assert head[7] == "东家 =HYPERLINK(1)" and head[8] == "南家 小李"
    first = dict(zip(head, rows[1], strict=True))
    assert first["赢家"] == "南家" and first["方式"] == "点炮" and first["规则"] == "辽阳"
    assert first["南家 小李"] == "10" and first["累计 南家 小李"] == "10"
    second = dict(zip(head, rows[2], strict=True))
    assert second["赢家"] == "黄庄" and second["累计 南家 小李"] == "10" and second["南家 小李"] == "0"


def test_wal_mode_is_on(book):
    con = sqlite3.connect(book.path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()


def _writer(path: str, tag: str, n: int, start, errors) -> None:
    """One 'browser tab' in its own process: records n hands as fast as it can."""
    try:
        book = Scorebook(path)
        hand, result = _example("LY-1")
        start.wait(30)
        book.ensure_evening(preset="liaoyang")  # both tabs record the evening's first hand at once
        for i in range(n):
            book.record_hand(hand, result, f"{tag}-{i}")
            if i % 7 == 3:
                book.standing()
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which fails the test
        errors.put(f"{tag}: {type(exc).__name__}: {exc} (from {exc.__cause__!r})")


@pytest.mark.slow
def test_two_processes_writing_at_once_do_not_corrupt_it(tmp_path):
    path = tmp_path / "shared.sqlite"
    ctx = mp.get_context("spawn")
    start, errors = ctx.Event(), ctx.Queue()
    n = 40
    procs = [ctx.Process(target=_writer, args=(str(path), tag, n, start, errors)) for tag in ("a", "b")]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(120)
    msgs = []
    while not errors.empty():
        msgs.append(errors.get())
    assert not msgs, msgs
    assert all(p.exitcode == 0 for p in procs)
    book = Scorebook(path)
    assert len(book.evenings()) == 1
    hands = book.history()
    assert [h.number for h in hands] == list(range(1, 2 * n + 1))
    assert sorted(h.photo_hash for h in hands) == sorted(f"{t}-{i}" for t in "ab" for i in range(n))
    _, result = _example("LY-1")
    assert book.standing().totals == {s: 2 * n * v for s, v in result["payments"].items()}
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()


_GREEDY = """
import sqlite3, sys, time
path, seconds, hold_s = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
con = sqlite3.connect(path, isolation_level=None)
end = time.monotonic() + seconds
while time.monotonic() < end:
    con.execute("BEGIN IMMEDIATE")
    con.execute("INSERT INTO settings (key, value) VALUES ('greedy', '1') "
                "ON CONFLICT (key) DO UPDATE SET value = value + 1")
    time.sleep(hold_s)
    con.execute("COMMIT")
    print("committed", flush=True)
"""


@contextlib.contextmanager
def _beside_a_greedy_writer(path: Path, seconds: float) -> Iterator[None]:
    """Another program that writes again the moment it has committed, holding the lock 50 ms each
    time (a slow disk): SQLite's own busy wait almost never finds the lock free between two. Its
    own process, as a second phone's server would be (a thread would hand the lock over at each
    switch of Python's interpreter lock)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _GREEDY, str(path), str(seconds), "0.05"], stdout=subprocess.PIPE
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline()  # it has committed once
        yield
    finally:
        proc.kill()
        proc.wait()


def test_a_writer_waits_for_as_long_as_the_other_keeps_finishing(tmp_path):
    path = tmp_path / "book.sqlite"
    book = Scorebook(path, busy_s=1.0)
    book.ensure_evening(preset="liaoyang")
    with _beside_a_greedy_writer(path, 2.5):
        t0 = time.monotonic()
        rec = book.record_draw()  # past its 1 s busy time, but the other writer kept committing
        waited = time.monotonic() - t0
    assert rec.number == 1 and book.standing().hands == 1
    assert waited < wt.PATIENCE * 1.0


def _refused_beside_a_held_lock(book: Scorebook) -> tuple[ScorebookError, float]:
    """Record a draw while another program holds the write lock: the error, and how long it took."""
    other = sqlite3.connect(book.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        t0 = time.monotonic()
        with pytest.raises(ScorebookError) as err:
            book.record_draw()
        return err.value, time.monotonic() - t0
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_a_writer_beside_one_that_never_lets_go_ends_in_words(tmp_path, monkeypatch):
    """The lock is held for good while SQLite's count of others' commits keeps moving (made up here:
    a real holder that commits also lets go now and then): the wait still ends, at PATIENCE times
    the busy time."""
    book = Scorebook(tmp_path / "book.sqlite", busy_s=0.5)
    book.ensure_evening(preset="liaoyang")
    commits = itertools.count()
    monkeypatch.setattr(wt, "_data_version", lambda con: next(commits))
    err, waited = _refused_beside_a_held_lock(book)
    assert err.kind == "locked" and "请再试一次" in err.words.zh
    assert wt.PATIENCE * 0.5 <= waited < wt.PATIENCE * 0.5 + 1.0
    said = re.search(r"等了 ([\d.]+) 秒", err.words.zh).group(1)  # how long it waited, not the busy time
    assert abs(float(said) - waited) <= 0.2 and f"waited {said} s" in err.words.en


def test_a_lock_held_with_nothing_finishing_ends_after_the_busy_time(tmp_path):
    book = Scorebook(tmp_path / "book.sqlite", busy_s=0.6)
    book.ensure_evening(preset="liaoyang")
    err, waited = _refused_beside_a_held_lock(book)
    assert err.kind == "locked"
    assert 0.5 <= waited < 0.6 * wt.PATIENCE  # the busy time, not the longer wait for a busy lock
    assert book.record_draw().number == 1
