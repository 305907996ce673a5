"""The evening's files are written in turn: a new file opened by two tabs at once, a waiting writer let
in before a greedy one, and the turn file never mistaken for the lock."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from page import write_turn as wt
from page.scorebook import Scorebook, ScorebookError

ROOT = Path(__file__).resolve().parents[2]


def _connection(path: Path, busy_s: float = 5.0) -> sqlite3.Connection:
    con = sqlite3.connect(path, isolation_level=None, timeout=busy_s)
    con.execute(f"PRAGMA busy_timeout={int(busy_s * 1000)}")
    return con


def _in_thread(fn) -> tuple[threading.Thread, list]:
    """Run fn in a thread; the list gets its result or the exception it raised."""
    out: list = []

    def run() -> None:
        try:
            out.append(fn())
        except Exception as exc:  # noqa: BLE001 - handed to the test, which asserts on it
            out.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def test_a_new_file_opened_while_another_tab_writes_it_still_becomes_wal(tmp_path):
    """SQLite refuses the switch to WAL at once, without waiting, while another connection writes
    the file in its old journal mode: the first tab making the book's tables while the second opens
    it (CI at 17ca701 failed on this as a 'busy for 15 s' that never waited)."""
    path = tmp_path / "book.sqlite"
    first = _connection(path)
    first.execute("BEGIN IMMEDIATE")
    first.execute("CREATE TABLE other_tab_was_here (x)")
    thread, out = _in_thread(lambda: Scorebook(path, busy_s=5.0))
    time.sleep(0.3)  # the second tab tries the switch while the first still writes
    first.execute("COMMIT")
    first.close()
    thread.join(10)
    assert len(out) == 1 and isinstance(out[0], Scorebook), out
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()


def test_a_lock_error_other_than_busy_is_not_waited_on(tmp_path, monkeypatch):
    calls = []

    class Refusing:
        def execute(self, sql: str):
            calls.append(sql)
            if sql.startswith("PRAGMA busy_timeout"):
                return sqlite3.connect(":memory:").execute("SELECT 5000")
            exc = sqlite3.OperationalError("disk I/O error")
            exc.sqlite_errorcode = 10  # type: ignore[attr-defined]
            raise exc

    with pytest.raises(sqlite3.OperationalError, match="I/O"):
        wt.switch_to_wal(Refusing())  # type: ignore[arg-type]
    assert calls.count("PRAGMA journal_mode=WAL") == 1


def _book_file(tmp_path: Path) -> Path:
    path = tmp_path / "book.sqlite"
    Scorebook(path).ensure_evening(preset="liaoyang")
    return path


def _write_once(path: Path, busy_s: float = 5.0) -> None:
    con = _connection(path, busy_s)
    try:
        with wt.write_transaction(con):
            con.execute("INSERT INTO settings (key, value) VALUES ('t', '1') ON CONFLICT DO NOTHING")
    finally:
        con.close()


def test_a_writer_lets_one_that_waits_go_first(tmp_path):
    path = _book_file(tmp_path)
    turn = Path(str(path) + wt.TURN_SUFFIX)
    gone = threading.Event()

    def waiter_gets_its_turn() -> None:  # the other writer keeps its name fresh, then writes
        for _ in range(6):
            turn.write_text("another-writer", encoding="ascii")
            time.sleep(0.05)
        turn.unlink()
        gone.set()

    thread = threading.Thread(target=waiter_gets_its_turn)
    turn.write_text("another-writer", encoding="ascii")
    thread.start()
    _write_once(path)
    assert gone.is_set(), "wrote before the waiting writer had its turn"
    thread.join()


def test_a_stale_name_in_the_turn_file_is_not_waited_on(tmp_path):
    """A writer that died while waiting leaves its name behind; it must not hold up the table."""
    path = _book_file(tmp_path)
    turn = Path(str(path) + wt.TURN_SUFFIX)
    turn.write_text("a-writer-that-died", encoding="ascii")
    old = time.time() - 10 * wt.STALE_S
    os.utime(turn, (old, old))
    removed = threading.Event()
    timer = threading.Timer(5.0, removed.set)
    timer.start()
    try:
        _write_once(path)
        assert not removed.is_set()
    finally:
        timer.cancel()


def test_a_waiting_writer_says_so_and_takes_its_name_away_when_it_writes(tmp_path):
    path = _book_file(tmp_path)
    turn = Path(str(path) + wt.TURN_SUFFIX)
    holder = _connection(path)
    holder.execute("BEGIN IMMEDIATE")
    thread, out = _in_thread(lambda: _write_once(path))
    try:
        for _ in range(100):
            if turn.exists():
                break
            time.sleep(0.05)
        assert turn.exists() and turn.read_text(encoding="ascii").startswith(f"{os.getpid()}-")
    finally:
        holder.execute("COMMIT")
        holder.close()
    thread.join(10)
    assert out == [None]
    assert not turn.exists()


def test_a_read_only_folder_only_loses_the_courtesy(tmp_path):
    """The turn file cannot be written: writes go on (here the lock is free), nothing raises."""
    path = _book_file(tmp_path)
    turn = wt._Turn(tmp_path / "no-such-folder" / "book.sqlite-turn")
    turn.claim()
    assert not turn.someone_else_waits()
    turn.leave()
    _write_once(path)


_GREEDY = """
import sqlite3, sys, time
sys.path.insert(0, sys.argv[4])
from page.write_turn import write_transaction
path, seconds, hold_s = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
con = sqlite3.connect(path, isolation_level=None)
con.execute("PRAGMA busy_timeout=15000")
end = time.monotonic() + seconds
while time.monotonic() < end:
    with write_transaction(con):
        con.execute("INSERT INTO settings (key, value) VALUES ('greedy', '1') "
                    "ON CONFLICT (key) DO UPDATE SET value = value + 1")
        time.sleep(hold_s)
    print("committed", flush=True)
"""


def test_a_phone_gets_in_while_another_keeps_writing(tmp_path):
    """Another server process writes hand after hand through the same turn, holding the lock 50 ms
    each time (a slow disk): a phone whose whole wait is 4 x 0.3 s still records its hand while the
    other is still writing (before the turn file, SQLite's own wait let the greedy one back in
    first nearly every time, and the phone said 'busy')."""
    path = _book_file(tmp_path)
    book = Scorebook(path, busy_s=0.3)
    proc = subprocess.Popen(
        [sys.executable, "-c", _GREEDY, str(path), "8", "0.05", str(ROOT)], stdout=subprocess.PIPE
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline()  # it has committed once
        try:
            rec = book.record_draw()
        except ScorebookError as exc:
            pytest.fail(f"the phone never got its turn: {exc}")
        assert proc.poll() is None, "the other writer had already stopped"
    finally:
        proc.kill()
        proc.wait()
    assert rec.number == 1
