"""Whose turn it is to write one of the evening's SQLite files (the scorebook, the hand in progress).

Why not SQLite's own busy wait: it is not fair. A writer that commits and begins again at once takes
the lock back before a waiting one polls, so on a slow disk one tab's 记入记分本 ran out its wait
while another tab wrote hand after hand (CI at fc73d03, and again at 17ca701, where a tab waited a
full minute beside one that kept writing). Two fixes, each with one job:

- **The wait ends on a stuck lock, not a busy one.** The busy time is how long the lock may stay
  with no other write finished: a lock held that long is stuck and the writer says so; one whose
  holders keep committing is only busy, and the wait goes on, to PATIENCE times the busy time.
- **A waiter is let in.** A writer that found the lock taken writes its name into `<file>-turn` and
  keeps it fresh while it waits; a writer about to take the lock that finds someone else's fresh
  name there waits for it to go first (at most its own busy time). The one that got the lock takes
  its name away. The file is a courtesy between writers, never the lock: a name left by a writer that
  died goes stale within STALE_S, and where the file cannot be written (a read-only folder) writers
  only lose the courtesy.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

POLL_MS = 200
"""How long one try for the write lock waits inside SQLite before `begin_write` looks around."""
PATIENCE = 4
"""A writer waits at most this many times its busy time in all, however busy the others are."""
TURN_SUFFIX = "-turn"
STALE_S = 4 * POLL_MS / 1000
"""A waiter's name not refreshed for this long was left by one that gave up or died."""
YIELD_POLL_S = 0.01
WAITED = "waited_s"
"""The attribute a lock error from `begin_write` or `switch_to_wal` carries: seconds it waited."""
_LOCKED_CODES = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED


def primary_code(exc: BaseException) -> int:
    """SQLite's primary result code of `exc` (its extended code's low byte); 0 where it has none."""
    return (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF


def is_locked(exc: BaseException) -> bool:
    """Whether `exc` is SQLite saying another connection holds the lock (busy or locked)."""
    return primary_code(exc) in _LOCKED_CODES


def _data_version(con: sqlite3.Connection) -> int | None:
    """SQLite's count of commits by other connections (None where even that cannot be read now)."""
    try:
        return int(con.execute("PRAGMA data_version").fetchall()[0][0])
    except sqlite3.OperationalError:
        return None


def turn_file(con: sqlite3.Connection) -> Path | None:
    """`<file>-turn` beside the connection's main database (None for one in memory)."""
    try:
        rows = con.execute("PRAGMA database_list").fetchall()
    except sqlite3.Error:
        return None
    name = next((str(r[2]) for r in rows if r[1] == "main"), "")
    return Path(name + TURN_SUFFIX) if name else None


class _Turn:
    """One writer's name in the turn file: written while it waits, taken away once it writes."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.me = f"{os.getpid()}-{threading.get_ident()}-{uuid.uuid4().hex[:8]}"

    def someone_else_waits(self) -> bool:
        """A fresh name other than ours is in the file."""
        if self.path is None:
            return False
        try:
            fresh = time.time() - self.path.stat().st_mtime < STALE_S
            return fresh and self.path.read_text(encoding="ascii", errors="replace") != self.me
        except OSError:
            return False

    def let_waiters_go_first(self, limit_s: float) -> None:
        """Before taking the lock: wait while another writer waits for it, `limit_s` at most."""
        end = time.monotonic() + limit_s
        while self.someone_else_waits() and time.monotonic() < end:
            time.sleep(YIELD_POLL_S)

    def claim(self) -> None:
        """Say (again) that we wait: the name and a fresh time."""
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.write_text(self.me, encoding="ascii")

    def leave(self) -> None:
        """Take our name away (another waiter's name stays)."""
        if self.path is None:
            return
        with contextlib.suppress(OSError):
            if self.path.read_text(encoding="ascii", errors="replace") == self.me:
                self.path.unlink()


def begin_write(con: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE, fairly: let a waiting writer go first, then wait for the write lock as long
    as the other writers keep finishing (see the module's docstring). The connection's busy time
    (`PRAGMA busy_timeout`) is the one it was made with, so every caller keeps its own."""
    busy_ms = int(con.execute("PRAGMA busy_timeout").fetchall()[0][0])
    if busy_ms <= POLL_MS:
        con.execute("BEGIN IMMEDIATE")
        return
    busy_s = busy_ms / 1000
    turn = _Turn(turn_file(con))
    turn.let_waiters_go_first(busy_s)
    start = progress_at = time.monotonic()
    version = _data_version(con)
    con.execute(f"PRAGMA busy_timeout={POLL_MS}")
    try:
        while True:
            try:
                con.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not is_locked(exc):
                    raise
                turn.claim()
                now, seen = time.monotonic(), _data_version(con)
                if seen is not None and seen != version:
                    version, progress_at = seen, now
                if now - progress_at >= busy_s or now - start >= PATIENCE * busy_s:
                    setattr(exc, WAITED, now - start)
                    raise
    finally:
        turn.leave()
        con.execute(f"PRAGMA busy_timeout={busy_ms}")


def switch_to_wal(con: sqlite3.Connection) -> None:
    """PRAGMA journal_mode=WAL, waiting as a writer waits. Why a loop: SQLite answers the switch
    "database is locked" at once, without its busy wait, while another connection writes the file
    in its old journal mode; two tabs opening a new file together met exactly that (CI at 17ca701,
    reported as a 15 s wait that never happened)."""
    busy_s = int(con.execute("PRAGMA busy_timeout").fetchall()[0][0]) / 1000
    end = time.monotonic() + busy_s
    while True:
        try:
            con.execute("PRAGMA journal_mode=WAL").fetchall()
            return
        except sqlite3.OperationalError as exc:
            locked = is_locked(exc)
            if not locked or time.monotonic() >= end:
                if locked:
                    setattr(exc, WAITED, busy_s)
                raise
        time.sleep(YIELD_POLL_S)


@contextlib.contextmanager
def write_transaction(con: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction, taken with the write lock at once so reads inside it stay true."""
    begin_write(con)
    try:
        yield con
    except BaseException:
        if con.in_transaction:
            with contextlib.suppress(sqlite3.Error):  # the error being raised says more
                con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
