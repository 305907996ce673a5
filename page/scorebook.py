"""The evening's scorebook: who sits where, every scored hand, running totals and who deals next.

Why a file and not session state: the table plays for hours, phones lock, tabs get closed and the
server gets restarted; the totals must survive all of that. One SQLite file (stdlib `sqlite3`) holds
every evening; each hand keeps its photo hash, the hand JSON and the engine's result
(`rules.score(hand).to_dict()`), so any total can be re-checked later.

Where the file is: env `MAHJONG_SCOREBOOK` (the file itself), else `<data folder>/scorebook.sqlite`
where the data folder is env `MAHJONG_DATA_DIR`, else `datasets/` in the repository (the file and its
`-wal`/`-shm` companions are git-ignored).

Two browser tabs (or two server processes) may write at once: the file is in WAL mode, every write is
one `BEGIN IMMEDIATE` transaction (the hand number is read and written under the same lock) and the
second writer waits its turn instead of failing (`page.write_turn`: a waiting writer is let in, and
the wait ends only on a lock that nothing moves). Each call opens its own short-lived
connection, so a `Scorebook` object is safe to share between Streamlit sessions and threads.

The dealer: 连庄 when the dealer wins or the hand is drawn (黄庄), otherwise the deal passes to the
next seat in play order E → S → W → N (seed 000 §一.3 and 001 §二 for 辽阳; the 鞍山 seed says nothing,
so it follows the same custom). The rule is part of each preset's table: `rules.PRESETS[name].dealer`.

What can go wrong with the file (damaged, read-only, disk full, written by a newer version, locked
by another program) comes out of every method, reads included, as a `ScorebookError` with `.words`
(a `page.words.Words`: one sentence in Chinese and English that also says this hand still scores)
and `.kind` (one of FAULT_KINDS), never as a bare sqlite3 or OS error. Bad input is kind "other".
A file that cannot be written still shows its evenings and totals; only its writes fail.

Which evening is current: the one last started (新的一晚) or reopened (重开), kept in the file's
`settings` table so every tab and a restart agree; the newest when none was chosen. The table was
added without a schema change: an older file gains it when first opened, older code ignores it.

Intended use in app.py (the page engineer wires it):

    from page.scorebook import Scorebook, ScorebookError
    book = Scorebook()                      # default path; cheap, open per run or cache_resource
    ev = book.current()                     # None before the first evening
    ev = book.ensure_evening(preset="liaoyang")  # the current evening, or a new one (atomic)
    book.start_evening({"E": "老王", "S": "小李"}, preset="liaoyang")  # 新的一晚: totals from 0
    book.reopen(old.id)                     # back to an earlier evening (it becomes current)
    st_ = book.standing(ev.id)              # .dealer prefills the situation; .totals / .names shown
    rec = book.record_hand(hand, result.to_dict(), photo_hash=photo.key, evening_id=ev.id)
    if rec.duplicate: ...                   # the same photo + hand was already recorded (double tap)
    done = book.find_photo(photo.key, ev.id)  # 这张照片已记为第 n 局 — 改成这样？
    book.replace_hand(done.number, hand, result.to_dict(), photo.key, ev.id)
    book.record_draw(ev.id)                 # 黄庄: nobody won, the dealer stays
    gone = book.undo_last(ev.id)            # 撤销: returns the removed hand (or None) ...
    book.restore(gone)                      # ... and 恢复 puts it back
    book.history(ev.id)                     # list[HandRecord], oldest first
    st.download_button("导出 CSV", book.export_csv(ev.id), "scorebook.csv", "text/csv")
    except ScorebookError as exc: say("warning", exc.words)  # exc.kind: what to offer
"""

from __future__ import annotations

import contextlib
import csv
import errno
import functools
import io
import json
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from page.words import Words, no_bidi
from page.write_turn import WAITED, is_locked, primary_code, switch_to_wal, write_transaction
from rules.hand import SEATS
from rules.names import WIN_BY_ZH, seat_name
from rules.presets import PRESET_SHORT, PRESETS

ENV_FILE = "MAHJONG_SCOREBOOK"
ENV_DATA_DIR = "MAHJONG_DATA_DIR"
DEFAULT_DATA_DIR = Path(__file__).resolve().parent.parent / "datasets"
FILE_NAME = "scorebook.sqlite"
MAX_NAME_LEN = 16
BUSY_TIMEOUT_S = 15.0
SCHEMA_VERSION = 1


#: Every `ScorebookError.kind`: what the page can do about it differs (try again when "locked",
#: free space when "disk_full", use another file for the rest), so the page can tell them apart.
FAULT_KINDS = ("corrupt", "read_only", "disk_full", "newer_version", "locked", "other")


class ScorebookError(ValueError):
    """Anything the scorebook cannot do, as one sentence in both languages (`.words`, a `Words`).

    `.kind` is one of FAULT_KINDS; bad input (an invalid result, an unknown seat, no evening yet) is
    "other". It stays a ValueError, and `str()` carries both sentences, for callers that only log it.
    """

    def __init__(self, words: Words | str, kind: str = "other") -> None:
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown scorebook fault kind {kind!r}")
        self.words = words if isinstance(words, Words) else Words(words, words)
        self.kind = kind
        zh, en = self.words
        super().__init__(zh if zh == en else f"{zh} ({en})")

    def __reduce__(self) -> tuple:
        """Words and kind survive pickling (a worker process reporting to the page)."""
        return (type(self), (self.words, self.kind))


_NOT_STARTED = Words("还没有开始记分", "no evening has been started yet")

#: A caller's step inside a scorebook write, on the same connection and transaction: it may check
#: (the hand in progress is still the one the button was drawn for) or write (the fresh hand of a
#: new evening) on the same file; an exception it raises undoes the whole write.
Then = Callable[[sqlite3.Connection, Any], None]


class AlreadyRecorded(ScorebookError):
    """This photo (or typed hand) is already a hand of the evening, with another reading: it is
    replaced only through 改第 n 局, never recorded a second time."""

    def __init__(self, number: int) -> None:
        self.number = number
        super().__init__(
            Words(
                f"这张照片已记为第 {number} 局，没有再记一次；要改它请点“改第 {number} 局”。",
                f"This photo is already hand {number}; it was not recorded again — "
                f"use “Replace hand {number}” to change it.",
            )
        )

    def __reduce__(self) -> tuple:
        return (type(self), (self.number,))


class ChangedMeanwhile(ScorebookError):
    """What a button was drawn for changed before it was pressed (another phone): nothing written."""

    def __init__(self, words: Words) -> None:
        super().__init__(words)

    def __reduce__(self) -> tuple:
        return (type(self), (self.words,))


def next_dealer(preset: str, dealer: str, winner: str | None) -> str:
    """Who deals the next hand; `winner` None means 黄庄 (nobody won)."""
    if preset not in PRESETS:
        raise ScorebookError(Words(f"未知规则 {preset!r}", f"unknown preset {preset!r}"))
    _check_seat(dealer, ("庄家", "dealer"))
    rule = PRESETS[preset].dealer
    if winner is None:
        stays = rule.stays_on_draw
    else:
        _check_seat(winner, ("赢家", "winner"))
        stays = rule.stays_on_dealer_win and winner == dealer
    if stays:
        return dealer
    return rule.order[(rule.order.index(dealer) + 1) % len(rule.order)]


@dataclass(frozen=True)
class Evening:
    """One evening at the table: the players' names by seat and who dealt first."""

    id: int
    started_at: str  # ISO 8601, UTC
    preset: str
    first_dealer: str
    names: dict[str, str]  # seat -> the name the players typed (or 东家 … when none)

    def label(self, seat: str) -> str:
        """东家 老王, or just 东家 when the seat has no name."""
        default = seat_name(seat)
        name = self.names.get(seat, "")
        return f"{default} {name}" if name and name != default else default


@dataclass(frozen=True)
class HandRecord:
    """One recorded hand: a scored win or a 黄庄 (winner None)."""

    id: int
    evening_id: int
    number: int  # 第 n 局 of the evening, from 1
    recorded_at: str
    preset: str
    dealer: str
    next_dealer: str
    winner: str | None
    win_by: str | None  # self_draw | discard | robbed_kong; None for 黄庄
    photo_hash: str | None
    hand_json: dict | None  # the hand as rules.score read it
    result: dict | None
    payments: dict[str, int]  # signed, sums to 0
    duplicate: bool = False  # record_hand found this very hand already recorded

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    @property
    def lianzhuang(self) -> bool:
        """连庄: the same dealer deals the next hand."""
        return self.next_dealer == self.dealer


@dataclass(frozen=True)
class Standing:
    """Where the evening stands now: totals and who deals next."""

    evening: Evening
    hands: int
    totals: dict[str, int] = field(default_factory=dict)
    dealer: str = "E"  # dealer of the next hand
    streak: int = 0  # how many times in a row the next dealer has kept the deal (连庄 count)
    draws: int = 0  # consecutive 黄庄 just before the next hand (长毛 in 辽阳在线)
    quan: int = 1  # 第几圈: a 圈 ends when the deal has passed all four seats


def default_path() -> Path:
    """The scorebook file: $MAHJONG_SCOREBOOK, else $MAHJONG_DATA_DIR/scorebook.sqlite, else datasets/."""
    env = os.environ.get(ENV_FILE)
    if env:
        return Path(env).expanduser()
    return Path(os.environ.get(ENV_DATA_DIR) or DEFAULT_DATA_DIR).expanduser() / FILE_NAME


# ---------------------------------------------------------------------- the file's faults, in words

_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_READ_ONLY_CODES = {8}  # SQLITE_READONLY (every extended code)
_FULL_CODES = {13}  # SQLITE_FULL
_IOERR = 10  # SQLITE_IOERR: a write that failed; on a full disk SQLite often says only this
_CANTOPEN = 14
#: Free space under which an I/O error of a write is taken for a full disk (SQLite reports a failed
#: write of its WAL as "disk I/O error", not SQLITE_FULL, when the disk fills up under it).
FULL_BELOW_BYTES = 1 << 20
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_READ_ONLY_ERRNOS = {errno.EROFS, errno.EACCES, errno.EPERM}


def fault_kind(exc: BaseException, path: Path) -> str:
    """Which of FAULT_KINDS an error from sqlite3, the OS or a stored JSON text is."""
    if isinstance(exc, sqlite3.Error):
        code = primary_code(exc)
        if code in _CORRUPT_CODES:
            return "corrupt"
        if code in _READ_ONLY_CODES:
            return "read_only"
        if code in _FULL_CODES:
            return "disk_full"
        if is_locked(exc):
            return "locked"
        if code == _IOERR and _nearly_full(path):
            return "disk_full"
        if code == _CANTOPEN and _exists_but_not_writable(path):
            return "read_only"  # a read-only mount: the -wal and -shm files cannot be made
        return "other"
    if isinstance(exc, OSError):
        if exc.errno in _FULL_ERRNOS:
            return "disk_full"
        if exc.errno in _READ_ONLY_ERRNOS:
            return "read_only"
        return "other"
    if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError)):
        return "corrupt"  # a row the file gave back is not the JSON text that was written
    return "other"


def _nearly_full(path: Path) -> bool:
    """Whether the file's disk has (almost) no free space left."""
    try:
        return shutil.disk_usage(path.parent).free < FULL_BELOW_BYTES
    except OSError:
        return False


def _exists_but_not_writable(path: Path) -> bool:
    folder = path.parent
    if not folder.is_dir():
        return False
    if path.exists():
        return not (os.access(path, os.W_OK) and os.access(folder, os.W_OK))
    return not os.access(folder, os.W_OK)


def fault_words(kind: str, path: Path, detail: str, busy_s: float = BUSY_TIMEOUT_S) -> Words:
    """The sentence the page shows for a fault: what happened, that scoring still works, what to do."""
    if kind == "corrupt":
        return Words(
            f"记分本文件坏了：{path}（{detail}）；这一局照样能算分，记分本请换一个文件（MAHJONG_SCOREBOOK）",
            f"The scorebook file is damaged: {path} ({detail}); this hand still scores — "
            "set MAHJONG_SCOREBOOK to another file for the scorebook",
        )
    if kind == "read_only":
        return Words(
            f"记分本文件只能读、不能写：{path}，没记上；这一局照样能算分，请让它能写，或换一个文件（MAHJONG_SCOREBOOK）",
            f"The scorebook file is read-only: {path}, nothing was recorded; this hand still scores — "
            "make it writable or set MAHJONG_SCOREBOOK to another file",
        )
    if kind == "disk_full":
        return Words(
            f"磁盘满了，没记上（{path}）；这一局照样能算分，腾出空间后再记一次",
            f"The disk is full, nothing was recorded ({path}); this hand still scores — "
            "free some space and record it again",
        )
    if kind == "locked":
        waited = f"{round(busy_s, 1):g}"  # 0.2, 15, 61.3: never "0" for a short wait
        return Words(
            f"记分本正被别的程序占用，等了 {waited} 秒还没轮到（{path}）；这一局照样能算分，请再试一次",
            f"The scorebook is busy in another program; waited {waited} s ({path}); "
            "this hand still scores — try again",
        )
    return Words(
        f"记分本文件打不开：{path}（{detail}）；这一局照样能算分",
        f"The scorebook file cannot be used: {path} ({detail}); this hand still scores",
    )


def file_fault(exc: BaseException, path: Path, busy_s: float = BUSY_TIMEOUT_S) -> ScorebookError:
    """`exc` (from sqlite3, the OS or a stored row) as a ScorebookError the page can show. A wait for
    the write lock says how long it really waited (`page.write_turn.WAITED`), not the busy time."""
    kind = fault_kind(exc, path)
    waited = getattr(exc, WAITED, None)
    return ScorebookError(fault_words(kind, path, str(exc), busy_s if waited is None else waited), kind)


_Method = TypeVar("_Method", bound=Callable[..., Any])


def in_words(method: _Method) -> _Method:
    """Decorate a method of an object with `.path` (and `.busy_s`): any fault of the file, on a read
    or a write, reaches the caller as a ScorebookError, never as a bare sqlite3 or OS traceback."""

    @functools.wraps(method)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except ScorebookError:
            raise
        except (sqlite3.Error, OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise file_fault(exc, self.path, getattr(self, "busy_s", BUSY_TIMEOUT_S)) from exc

    return guarded  # type: ignore[return-value]


def connect(path: Path, busy_s: float = BUSY_TIMEOUT_S) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit) that waits `busy_s` for a lock.

    A WAL file on a read-only mount cannot be opened the usual way (its -shm cannot be made); there
    the file is opened as immutable, so it can still be read; every write then fails as read_only.
    """
    con = _open(path, busy_s, immutable=False)
    try:
        con.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()  # finished: no read lock kept
    except sqlite3.OperationalError as exc:
        con.close()
        cantopen = primary_code(exc) == _CANTOPEN
        if not (cantopen and path.is_file() and _exists_but_not_writable(path)):
            raise
        con = _open(path, busy_s, immutable=True)
    return con


def _open(path: Path, busy_s: float, immutable: bool) -> sqlite3.Connection:
    target: str | Path = path
    if immutable:
        target = f"{path.resolve().as_uri()}?immutable=1"
    con = sqlite3.connect(target, timeout=busy_s, isolation_level=None, uri=immutable)
    try:
        con.execute(f"PRAGMA busy_timeout={int(busy_s * 1000)}")
        con.execute("PRAGMA foreign_keys=ON")
    except BaseException:
        con.close()
        raise
    return con


_SCHEMA = """
CREATE TABLE IF NOT EXISTS evenings (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    preset TEXT NOT NULL,
    first_dealer TEXT NOT NULL,
    names TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS hands (
    id INTEGER PRIMARY KEY,
    evening_id INTEGER NOT NULL REFERENCES evenings(id),
    number INTEGER NOT NULL,
    recorded_at TEXT NOT NULL,
    preset TEXT NOT NULL,
    dealer TEXT NOT NULL,
    next_dealer TEXT NOT NULL,
    winner TEXT,
    win_by TEXT,
    photo_hash TEXT,
    hand_json TEXT,
    result_json TEXT,
    pay_e INTEGER NOT NULL,
    pay_s INTEGER NOT NULL,
    pay_w INTEGER NOT NULL,
    pay_n INTEGER NOT NULL,
    UNIQUE (evening_id, number)
);
CREATE INDEX IF NOT EXISTS hands_photo ON hands (evening_id, photo_hash);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT
);
"""
#: The tables this code makes. `settings` came later without a new schema version: only `evenings`
#: and `hands` are needed to read a file (an older one opened read-only has no `settings`).
_TABLES = ("evenings", "hands", "settings")
CURRENT_EVENING = "current_evening"  # settings key: the evening 新的一晚 or 重开 made current
BOOK_REV = "book_rev"  # settings key: grows with every write (Scorebook.revision)

_HAND_COLS = (
    "id, evening_id, number, recorded_at, preset, dealer, next_dealer, winner, win_by, "
    "photo_hash, hand_json, result_json, pay_e, pay_s, pay_w, pay_n"
)


@dataclass(frozen=True)
class _Win:
    """A scored win checked and turned into the columns of one hands row."""

    preset: str
    dealer: str
    winner: str
    win_by: str | None
    hand_json: str
    result_json: str
    payments: dict[str, int]

    @classmethod
    def of(cls, hand: Mapping, result: Mapping) -> _Win:
        payments = _payments(result)
        winner = _check_seat(result.get("winner"), ("赢家", "winner"))
        preset = str(result.get("preset") or hand.get("preset"))
        if preset not in PRESETS:
            raise ScorebookError(Words(f"未知规则 {preset!r}", f"unknown preset {preset!r}"))
        dealer = _check_seat(hand.get("dealer", "E"), ("庄家", "dealer"))
        win = hand.get("win") if isinstance(hand.get("win"), Mapping) else {}
        return cls(
            preset,
            dealer,
            winner,
            win.get("by"),
            json.dumps(hand, ensure_ascii=False, sort_keys=True),
            json.dumps(result, ensure_ascii=False, sort_keys=True),
            payments,
        )


class SqliteFile:
    """One SQLite file of the evening (the scorebook, the hand in progress): where it is, how long a
    writer waits for the lock, and a short-lived connection per call, so one object is safe to share
    between Streamlit sessions and threads. Subclasses make their tables in `_setup`."""

    def __init__(self, path: str | Path | None = None, busy_s: float = BUSY_TIMEOUT_S) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.busy_s = busy_s
        self._setup()

    def _setup(self) -> None:
        raise NotImplementedError

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        con = connect(self.path, self.busy_s)
        try:
            yield con
        finally:
            con.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken with the write lock at once so reads inside it stay true."""
        with self._connect() as con, write_transaction(con):
            yield con


class Scorebook(SqliteFile):
    """The scorebook file. Cheap to create; every method opens and closes its own connection.

    Every method raises ScorebookError (with `.words` and `.kind`) for anything that goes wrong,
    the file's faults included; nothing else escapes to the page.
    """

    @in_words
    def _setup(self) -> None:
        """Make the tables that are missing. A file that already has them is only read, so a
        read-only scorebook still shows its totals (its writes then say read_only)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as con:
            # fetchall, not fetchone: a statement left unfinished keeps a read lock, and two tabs
            # opening a new file at once would each wait for the other to let go before WAL mode
            version = con.execute("PRAGMA user_version").fetchall()[0][0]
            if version > SCHEMA_VERSION:
                raise ScorebookError(
                    Words(
                        f"记分本 {self.path} 来自更新版本的程序（第 {version} 版，这里只认到第 {SCHEMA_VERSION} 版）；"
                        "这一局照样能算分，请更新程序，或换一个文件（MAHJONG_SCOREBOOK）",
                        f"The scorebook {self.path} was written by a newer version of the app (schema "
                        f"{version}, this one knows up to {SCHEMA_VERSION}); this hand still scores — "
                        "update the app or set MAHJONG_SCOREBOOK to another file",
                    ),
                    "newer_version",
                )
            have = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            mode = con.execute("PRAGMA journal_mode").fetchall()[0][0]
            if set(_TABLES) <= have and version == SCHEMA_VERSION and mode == "wal":
                return
            try:
                switch_to_wal(con)
                with write_transaction(con):
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            con.execute(statement)
                    con.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            except sqlite3.Error as exc:
                usable = {"evenings", "hands"} <= have and version == SCHEMA_VERSION
                if not (usable and fault_kind(exc, self.path) == "read_only"):
                    raise

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction that also moves the book's `revision()` on (other phones poll it)."""
        with super()._write() as con:
            yield con
            con.execute(
                "INSERT INTO settings (key, value) VALUES (?, '1') ON CONFLICT (key) "
                "DO UPDATE SET value = CAST(value AS INTEGER) + 1",
                (BOOK_REV,),
            )

    # ------------------------------------------------------------------ evenings

    @in_words
    def start_evening(
        self,
        names: Mapping[str, str] | None = None,
        preset: str = "liaoyang",
        dealer: str = "E",
        then: Then | None = None,
    ) -> Evening:
        """A new evening (new totals), made the current one: names per seat (missing ones become
        东家 …), the first dealer. `then(con, standing)` runs in the same transaction (the page
        stores the evening's fresh hand there)."""
        clean = _evening_settings(names, preset, dealer)
        with self._write() as con:
            ev = self._insert_evening(con, clean, preset, dealer)
            if then is not None:
                then(con, standing_of(ev, []))
            return ev

    @in_words
    def ensure_evening(
        self, names: Mapping[str, str] | None = None, preset: str = "liaoyang", dealer: str = "E"
    ) -> Evening:
        """The current evening, or a new one with these settings. One transaction, so two tabs
        recording the very first hand at once still share one evening."""
        clean = _evening_settings(names, preset, dealer)
        with self._write() as con:
            eid = _current_id(con)
            if eid is not None:
                return self._evening(con, eid)
            return self._insert_evening(con, clean, preset, dealer)

    @in_words
    def reopen(self, evening_id: int) -> Evening:
        """Make an earlier evening the current one again (the players came back to it): `current()`,
        and every call without an evening id, use it until another is reopened or started."""
        with self._write() as con:
            ev = self._evening(con, evening_id)
            _set_current(con, ev.id)
            return ev

    @staticmethod
    def _insert_evening(con: sqlite3.Connection, names: dict[str, str], preset: str, dealer: str) -> Evening:
        started = _now()
        cur = con.execute(
            "INSERT INTO evenings (started_at, preset, first_dealer, names) VALUES (?, ?, ?, ?)",
            (started, preset, dealer, json.dumps(names, ensure_ascii=False)),
        )
        eid = int(cur.lastrowid)
        _set_current(con, eid)
        return Evening(eid, started, preset, dealer, names)

    @in_words
    def rename(
        self, evening_id: int, names: Mapping[str, str], drawn: Mapping[str, str] | None = None
    ) -> Evening:
        """Change the names (a player swaps in); the seats' totals stay with the seats.

        `drawn`: the names the form showed. Only the seats typed differently from it change, over
        the names as stored now: a phone whose form was drawn before the other phone renamed a seat
        does not write the old name back (two phones of one table, each naming a player)."""
        clean = clean_names(names)
        before = clean_names(drawn) if drawn is not None else None
        with self._write() as con:
            now = self._evening(con, evening_id)
            if before is not None:
                clean = {s: clean[s] if clean[s] != before[s] else now.names.get(s, clean[s]) for s in SEATS}
            con.execute(
                "UPDATE evenings SET names = ? WHERE id = ?",
                (json.dumps(clean, ensure_ascii=False), evening_id),
            )
            return self._evening(con, evening_id)

    @in_words
    def current(self) -> Evening | None:
        """The current evening: the one last started or reopened (else the newest), None before the first."""
        with self._connect() as con:
            eid = _current_id(con)
            return self._evening(con, eid) if eid is not None else None

    @in_words
    def evening(self, evening_id: int) -> Evening:
        with self._connect() as con:
            return self._evening(con, evening_id)

    @in_words
    def evenings(self) -> list[Evening]:
        """Every evening in the file, newest first."""
        with self._connect() as con:
            ids = [r[0] for r in con.execute("SELECT id FROM evenings ORDER BY id DESC")]
            return [self._evening(con, i) for i in ids]

    @staticmethod
    def _evening(con: sqlite3.Connection, evening_id: int) -> Evening:
        row = con.execute(
            "SELECT id, started_at, preset, first_dealer, names FROM evenings WHERE id = ?", (evening_id,)
        ).fetchone()
        if row is None:
            raise ScorebookError(
                Words(f"记分本里没有第 {evening_id} 晚", f"there is no evening {evening_id} in the scorebook")
            )
        names = json.loads(row[4])
        if not isinstance(names, dict):
            raise ScorebookError(
                Words("记分本里的名字坏了", "the names in the scorebook are damaged"), "corrupt"
            )
        # names written before bidi controls were stripped still draw left to right
        return Evening(row[0], row[1], row[2], row[3], {str(k): no_bidi(str(v)) for k, v in names.items()})

    # ------------------------------------------------------------------ hands

    @in_words
    def record_hand(
        self,
        hand: Mapping,
        result: Mapping,
        photo_hash: str | None = None,
        evening_id: int | None = None,
        then: Then | None = None,
    ) -> HandRecord:
        """Record a scored win. `result` is `rules.score(hand).to_dict()` and must be a valid win.

        One photo (or typed hand) is at most one hand of an evening, checked under the write lock:
        the same photo with the same hand again (a double tap, or the same reading on two phones)
        returns the existing record with `duplicate=True`; the same photo with another reading
        raises `AlreadyRecorded` (only `replace_hand`, the confirmed 改第 n 局, changes a recorded
        hand). `then(con, record)` runs in the same transaction after the hand is written.
        """
        win = _Win.of(hand, result)
        with self._write() as con:
            eid = self._resolve(con, evening_id)
            if photo_hash:
                row = con.execute(
                    f"SELECT {_HAND_COLS} FROM hands WHERE evening_id = ? AND photo_hash = ? "
                    "ORDER BY number LIMIT 1",
                    (eid, photo_hash),
                ).fetchone()
                if row is not None:
                    done = _record(row, duplicate=True)
                    if _dumps_or_none(done.hand_json) != win.hand_json:
                        raise AlreadyRecorded(done.number)
                    return done
            rec = self._insert(
                con,
                eid,
                win.preset,
                win.dealer,
                win.winner,
                win.win_by,
                photo_hash,
                win.hand_json,
                win.result_json,
                win.payments,
            )
            if then is not None:
                then(con, rec)
            return rec

    @in_words
    def replace_hand(
        self,
        number: int,
        hand: Mapping,
        result: Mapping,
        photo_hash: str | None = None,
        evening_id: int | None = None,
        expect: Mapping | None = None,
        then: Then | None = None,
    ) -> HandRecord:
        """Put a corrected hand in place of hand `number` (the same 第 n 局, the same time it was
        recorded): dealer, next dealer, winner, how, payments, hand and result are all the new
        hand's, so the totals follow. `photo_hash` None keeps the photo hash already recorded.
        `expect`: the hand JSON hand `number` had when the player was shown what changes; when it
        has another now (replaced on another phone), `ChangedMeanwhile` is raised and nothing
        changes. `then(con, record)` runs in the same transaction.

        The hands after it keep what they recorded (their dealers included): each was played as it
        was, so a correction that changes who deals next does not rewrite them. A 黄庄 can be
        replaced by a win this way.
        """
        win = _Win.of(hand, result)
        with self._write() as con:
            eid = self._resolve(con, evening_id)
            row = con.execute(
                "SELECT id, hand_json FROM hands WHERE evening_id = ? AND number = ?", (eid, number)
            ).fetchone()
            if row is None:
                raise ScorebookError(
                    Words(f"记分本里没有第 {number} 局", f"there is no hand {number} in the scorebook")
                )
            if expect is not None and row[1] != _dumps_or_none(expect):
                raise ChangedMeanwhile(
                    Words(
                        f"第 {number} 局刚在另一部手机上改过，这里没改；请看一眼再决定。",
                        f"Hand {number} was just changed on another phone; nothing was changed here — "
                        "have a look first.",
                    )
                )
            row = row[:1]
            con.execute(
                "UPDATE hands SET preset = ?, dealer = ?, next_dealer = ?, winner = ?, win_by = ?, "
                "photo_hash = COALESCE(?, photo_hash), hand_json = ?, result_json = ?, "
                "pay_e = ?, pay_s = ?, pay_w = ?, pay_n = ? WHERE id = ?",
                (
                    win.preset,
                    win.dealer,
                    next_dealer(win.preset, win.dealer, win.winner),
                    win.winner,
                    win.win_by,
                    photo_hash,
                    win.hand_json,
                    win.result_json,
                    *(win.payments[s] for s in SEATS),
                    row[0],
                ),
            )
            rec = _record(con.execute(f"SELECT {_HAND_COLS} FROM hands WHERE id = ?", row).fetchone())
            if then is not None:
                then(con, rec)
            return rec

    @in_words
    def record_draw(
        self, evening_id: int | None = None, dealer: str | None = None, then: Then | None = None
    ) -> HandRecord:
        """Record a 黄庄 (nobody won, nobody pays): the dealer stays, the 长毛 count grows.
        `then(con, standing)` runs in the same transaction with the standing after the draw (the
        page checks the hand the button was drawn for and stores the next, fresh hand there)."""
        with self._write() as con:
            eid = self._resolve(con, evening_id)
            ev = self._evening(con, eid)
            last = self._last(con, eid)
            deal = (
                _check_seat(dealer, ("庄家", "dealer"))
                if dealer
                else (last.next_dealer if last else ev.first_dealer)
            )
            preset = last.preset if last else ev.preset
            zero = dict.fromkeys(SEATS, 0)
            rec = self._insert(con, eid, preset, deal, None, None, None, None, None, zero)
            if then is not None:
                then(con, standing_of(ev, self._hands(con, eid)))
            return rec

    @in_words
    def undo_last(self, evening_id: int | None = None) -> HandRecord | None:
        """Remove the evening's last hand and return it (None when there is none); `restore` puts
        it back."""
        with self._write() as con:
            eid = self._resolve(con, evening_id)
            last = self._last(con, eid)
            if last is not None:
                con.execute("DELETE FROM hands WHERE id = ?", (last.id,))
            return last

    @in_words
    def restore(self, record: HandRecord) -> HandRecord:
        """Put back a hand `undo_last` removed (恢复 after 撤销), a win or a 黄庄, as it was recorded.

        It keeps its number when that is still free, else it becomes the evening's next hand (a
        hand was recorded in between); either way it keeps its own dealer and next dealer, like
        every recorded hand. Restoring a hand that is already there (a double tap on 恢复) returns
        it with `duplicate=True` and changes nothing. A hand whose photo is a hand of the evening
        again (撤销, then 记入记分本 of the same photo) is not put back: `AlreadyRecorded`.
        """
        _check_record(record)
        hand_json = _dumps_or_none(record.hand_json)
        result_json = _dumps_or_none(record.result)
        with self._write() as con:
            self._evening(con, record.evening_id)
            row = con.execute(f"SELECT {_HAND_COLS} FROM hands WHERE id = ?", (record.id,)).fetchone()
            if row is not None and _same_hand(_record(row), record):
                return _record(row, duplicate=True)
            if record.photo_hash:
                again = con.execute(
                    "SELECT number FROM hands WHERE evening_id = ? AND photo_hash = ?",
                    (record.evening_id, record.photo_hash),
                ).fetchone()
                if again is not None:
                    raise AlreadyRecorded(int(again[0]))
            taken = con.execute(
                "SELECT 1 FROM hands WHERE evening_id = ? AND number = ?", (record.evening_id, record.number)
            ).fetchone()
            number = record.number
            if taken:
                number = con.execute(
                    "SELECT COALESCE(MAX(number), 0) + 1 FROM hands WHERE evening_id = ?",
                    (record.evening_id,),
                ).fetchone()[0]
            cur = con.execute(
                f"INSERT INTO hands ({_HAND_COLS}) VALUES ({', '.join('?' * 16)})",
                (
                    record.id if row is None else None,  # its own id again when nobody took it
                    record.evening_id,
                    number,
                    record.recorded_at,
                    record.preset,
                    record.dealer,
                    record.next_dealer,
                    record.winner,
                    record.win_by,
                    record.photo_hash,
                    hand_json,
                    result_json,
                    *(int(record.payments[s]) for s in SEATS),
                ),
            )
            return _record(
                con.execute(f"SELECT {_HAND_COLS} FROM hands WHERE id = ?", (cur.lastrowid,)).fetchone()
            )

    @in_words
    def history(self, evening_id: int | None = None) -> list[HandRecord]:
        """The evening's hands, oldest first."""
        with self._connect() as con:
            return self._hands(con, self._resolve(con, evening_id))

    @in_words
    def revision(self) -> int:
        """A number that grows with every write of the book (a hand, a name, an evening): a phone
        compares it with the one it drew to notice that another phone changed the book."""
        with self._connect() as con:
            try:
                row = con.execute("SELECT value FROM settings WHERE key = ?", (BOOK_REV,)).fetchone()
            except sqlite3.OperationalError as exc:
                if "no such table" not in str(exc):
                    raise
                return 0
            return int(row[0]) if row and str(row[0]).isdigit() else 0

    @in_words
    def find_photo(self, photo_hash: str, evening_id: int | None = None) -> HandRecord | None:
        """The hand recorded from this photo this evening, if any (the page asks 这张照片已记为第 n 局 —
        改成这样？ and then calls `replace_hand`)."""
        with self._connect() as con:
            eid = self._resolve(con, evening_id)
            row = con.execute(
                f"SELECT {_HAND_COLS} FROM hands WHERE evening_id = ? AND photo_hash = ? "
                "ORDER BY number DESC LIMIT 1",
                (eid, photo_hash),
            ).fetchone()
            return _record(row) if row else None

    @in_words
    def standing(self, evening_id: int | None = None) -> Standing:
        """Totals per seat and the next hand's dealer, from one consistent read."""
        return standing_of(*self._snapshot(evening_id))

    @in_words
    def export_csv(self, evening_id: int | None = None) -> bytes:
        """The evening as CSV, UTF-8 with a BOM so Excel (phone or PC) shows the Chinese."""
        return evening_csv(*self._snapshot(evening_id))

    def _snapshot(self, evening_id: int | None) -> tuple[Evening, list[HandRecord]]:
        """The evening and its hands from one consistent read (a writer in another tab cannot
        slip a hand in between)."""
        with self._connect() as con:
            con.execute("BEGIN")
            eid = self._resolve(con, evening_id)
            ev = self._evening(con, eid)
            hands = self._hands(con, eid)
            con.execute("COMMIT")
        return ev, hands

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _resolve(con: sqlite3.Connection, evening_id: int | None) -> int:
        if evening_id is None:
            eid = _current_id(con)
            if eid is None:
                raise ScorebookError(_NOT_STARTED)
            return eid
        Scorebook._evening(con, evening_id)
        return int(evening_id)

    @staticmethod
    def _hands(con: sqlite3.Connection, evening_id: int) -> list[HandRecord]:
        rows = con.execute(
            f"SELECT {_HAND_COLS} FROM hands WHERE evening_id = ? ORDER BY number", (evening_id,)
        ).fetchall()
        return [_record(r) for r in rows]

    @staticmethod
    def _last(con: sqlite3.Connection, evening_id: int) -> HandRecord | None:
        row = con.execute(
            f"SELECT {_HAND_COLS} FROM hands WHERE evening_id = ? ORDER BY number DESC LIMIT 1",
            (evening_id,),
        ).fetchone()
        return _record(row) if row else None

    def _insert(
        self,
        con: sqlite3.Connection,
        evening_id: int,
        preset: str,
        dealer: str,
        winner: str | None,
        win_by: str | None,
        photo_hash: str | None,
        hand_json: str | None,
        result_json: str | None,
        payments: Mapping[str, int],
    ) -> HandRecord:
        number = con.execute(
            "SELECT COALESCE(MAX(number), 0) + 1 FROM hands WHERE evening_id = ?", (evening_id,)
        ).fetchone()[0]
        nxt = next_dealer(preset, dealer, winner)
        cur = con.execute(
            f"INSERT INTO hands ({_HAND_COLS.split(', ', 1)[1]}) VALUES ({', '.join('?' * 15)})",
            (
                evening_id,
                number,
                _now(),
                preset,
                dealer,
                nxt,
                winner,
                win_by,
                photo_hash,
                hand_json,
                result_json,
                *(int(payments[s]) for s in SEATS),
            ),
        )
        row = con.execute(f"SELECT {_HAND_COLS} FROM hands WHERE id = ?", (cur.lastrowid,)).fetchone()
        return _record(row)


# ---------------------------------------------------------------------- pure helpers


def standing_of(evening: Evening, hands: list[HandRecord]) -> Standing:
    """Totals, next dealer, 连庄 streak, 黄庄 run and 圈 from the hands in order."""
    totals = dict.fromkeys(SEATS, 0)
    for h in hands:
        for s in SEATS:
            totals[s] += h.payments[s]
    dealer = hands[-1].next_dealer if hands else evening.first_dealer
    streak = 0
    for h in reversed(hands):
        if h.dealer != dealer or h.next_dealer != dealer:
            break
        streak += 1
    draws = 0
    for h in reversed(hands):
        if not h.is_draw:
            break
        draws += 1
    passes = sum(h.next_dealer != h.dealer for h in hands)
    return Standing(evening, len(hands), totals, dealer, streak, draws, passes // len(SEATS) + 1)


def _evening_settings(names: Mapping[str, str] | None, preset: str, dealer: str) -> dict[str, str]:
    """Check an evening's preset and first dealer; the names cleaned."""
    if preset not in PRESETS:
        raise ScorebookError(Words(f"未知规则 {preset!r}", f"unknown preset {preset!r}"))
    _check_seat(dealer, ("庄家", "dealer"))
    return clean_names(names or {})


def clean_names(names: Mapping[str, str]) -> dict[str, str]:
    """Names per seat, trimmed and at most MAX_NAME_LEN characters; an empty name is the seat's name."""
    unknown = set(names) - set(SEATS)
    if unknown:
        raise ScorebookError(
            Words(f"座位只能是 东南西北，不是 {sorted(unknown)}", f"seats are E S W N, not {sorted(unknown)}")
        )
    out = {}
    for s in SEATS:
        raw = names.get(s)
        name = " ".join(no_bidi(str(raw)).split()) if raw is not None else ""
        if len(name) > MAX_NAME_LEN:
            raise ScorebookError(
                Words(
                    f"{seat_name(s)}的名字太长（最多 {MAX_NAME_LEN} 个字）",
                    f"the {s} name is too long (at most {MAX_NAME_LEN} characters)",
                )
            )
        out[s] = name or seat_name(s)
    return out


def evening_csv(evening: Evening, hands: list[HandRecord]) -> bytes:
    """One row per hand: number, time, preset, dealer, winner, how, 番, each seat's payment and total."""
    buf = io.StringIO()
    w = csv.writer(buf)
    who = [evening.label(s) for s in SEATS]  # starts with 东家 …: a name like "=1+1" is never a formula
    w.writerow(
        ["局", "时间 (UTC)", "规则", "庄", "赢家", "方式", "番", *who, *(f"累计 {x}" for x in who), "照片"]
    )
    totals = dict.fromkeys(SEATS, 0)
    for h in hands:
        for s in SEATS:
            totals[s] += h.payments[s]
        fan = h.result.get("winner_fan_total", "") if h.result else ""
        w.writerow(
            [
                h.number,
                h.recorded_at.replace("T", " ")[:19],
                PRESET_SHORT.get(h.preset, h.preset),
                seat_name(h.dealer),
                seat_name(h.winner) if h.winner else "黄庄",
                WIN_BY_ZH.get(h.win_by or "", ""),
                fan,
                *(h.payments[s] for s in SEATS),
                *(totals[s] for s in SEATS),
                (h.photo_hash or "")[:12],
            ]
        )
    return buf.getvalue().encode("utf-8-sig")


def _check_seat(seat: object, what: tuple[str, str]) -> str:
    if seat not in SEATS:
        raise ScorebookError(
            Words(
                f"{what[0]}必须是东南西北之一，不是 {seat!r}",
                f"the {what[1]} must be E, S, W or N, not {seat!r}",
            )
        )
    return str(seat)


def _current_id(con: sqlite3.Connection) -> int | None:
    """The evening last started or reopened; the newest when none is set, or it is gone."""
    try:
        row = con.execute(
            "SELECT e.id FROM settings s JOIN evenings e ON e.id = CAST(s.value AS INTEGER) WHERE s.key = ?",
            (CURRENT_EVENING,),
        ).fetchone()
    except sqlite3.OperationalError as exc:
        if "no such table" not in str(exc):
            raise
        row = None  # an older file opened read-only has no settings table yet
    if row is None:
        row = con.execute("SELECT id FROM evenings ORDER BY id DESC LIMIT 1").fetchone()
    return int(row[0]) if row else None


def _set_current(con: sqlite3.Connection, evening_id: int) -> None:
    con.execute(
        "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (CURRENT_EVENING, str(evening_id)),
    )


def _dumps_or_none(obj: object) -> str | None:
    return None if obj is None else json.dumps(obj, ensure_ascii=False, sort_keys=True)


def _same_hand(a: HandRecord, b: HandRecord) -> bool:
    """The same recorded hand, whatever its number now (a row id can be reused after an undo)."""

    def key(h: HandRecord) -> tuple:
        return (
            h.evening_id,
            h.recorded_at,
            h.preset,
            h.dealer,
            h.next_dealer,
            h.winner,
            h.win_by,
            h.photo_hash,
            _dumps_or_none(h.hand_json),
            _dumps_or_none(h.result),
            tuple(h.payments.get(s) for s in SEATS),
        )

    return key(a) == key(b)


def _check_record(record: HandRecord) -> None:
    """A record to restore must still make sense: known preset, seats, payments that sum to 0."""
    if record.preset not in PRESETS:
        raise ScorebookError(Words(f"未知规则 {record.preset!r}", f"unknown preset {record.preset!r}"))
    _check_seat(record.dealer, ("庄家", "dealer"))
    _check_seat(record.next_dealer, ("庄家", "dealer"))
    if record.winner is not None:
        _check_seat(record.winner, ("赢家", "winner"))
    _payments({"valid": True, "payments": record.payments})


def _payments(result: Mapping) -> dict[str, int]:
    if not result.get("valid"):
        raise ScorebookError(Words("只能记入能胡的牌", "only a valid, scored win can be recorded"))
    pay = result.get("payments")
    if not isinstance(pay, Mapping) or set(pay) - set(SEATS):
        raise ScorebookError(Words("结果里没有四家的输赢", "the result has no payments per seat"))
    out = {}
    for s in SEATS:
        v = pay.get(s, 0)
        if not isinstance(v, int) or isinstance(v, bool):
            raise ScorebookError(
                Words(
                    f"{seat_name(s)}的输赢不是整数（{v!r}）", f"the {s} payment is not a whole number ({v!r})"
                )
            )
        out[s] = v
    if sum(out.values()) != 0:
        raise ScorebookError(Words(f"四家输赢加起来不是 0（{out}）", f"the payments {out} do not sum to 0"))
    return out


def _record(row: tuple, duplicate: bool = False) -> HandRecord:
    return HandRecord(
        id=row[0],
        evening_id=row[1],
        number=row[2],
        recorded_at=row[3],
        preset=row[4],
        dealer=row[5],
        next_dealer=row[6],
        winner=row[7],
        win_by=row[8],
        photo_hash=row[9],
        hand_json=json.loads(row[10]) if row[10] else None,
        result=json.loads(row[11]) if row[11] else None,
        payments=dict(zip(SEATS, row[12:16], strict=True)),
        duplicate=duplicate,
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
