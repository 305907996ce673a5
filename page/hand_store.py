"""The hand in progress, kept on the server: a reload, a locked phone or a second tab finds it again.

Why on the server and not in Streamlit's session state: session state dies with the browser tab, and
the table cannot redo ten minutes of tile fixes because a phone went to sleep. The state lives in the
scorebook's SQLite file (`page.scorebook.default_path()`), in tables of its own; the scorebook's
tables and its `PRAGMA user_version` are never touched, so either can change without the other.

Why photos are stored apart: the page saves its state on every tap, and a phone photo is megabytes.
A photo is stored once per content hash (sha256, the page's `Photo.key`) in `hand_photos`; a state
row names its photo by that hash, and a photo no table's state names any more is deleted in the same
transaction that dropped the last reference.

Each table (a name the page chooses, "default" for one table) has a revision that only grows, clear
included, so a page run can compare `revision()` with the one it loaded and notice that another tab
changed the hand. Every write is one `BEGIN IMMEDIATE` transaction in WAL mode with a busy timeout, as
in the scorebook; every fault of the file is a `ScorebookError` with `.words` and `.kind`.

    from page.hand_store import HandStore
    store = HandStore()                              # the scorebook's file
    saved = store.load()                             # Saved(rev, state, photo, updated_at) or None
    rev = store.save(state, photo_bytes)             # the first save of a photo sends its bytes
    rev = store.save({**state, "photo_hash": key}, None, expect_rev=rev)  # refused if another phone wrote
    rev = store.update(lambda now: change(now))      # a command, applied to the hand as stored now
    if store.revision() != rev: ...                  # another tab changed the hand: load it
    store.put_aside(saved.rev, words)                # a stored hand that cannot be used: kept, not lost
    store.clear()                                    # forget the hand

Why `update` and `expect_rev`: two phones of one table each hold a copy of the hand. A phone that
saved its whole copy would undo what the other phone did since it last looked (a fixed tile, the
winner). So a command is applied to the hand as stored, read inside the same write transaction, and
a whole-hand save names the revision it was made from; one made from an older revision is refused
(`StaleHand`) instead of overwriting.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from page.scorebook import ScorebookError, SqliteFile, in_words
from page.words import Words
from page.write_turn import switch_to_wal, write_transaction

log = logging.getLogger(__name__)

MAX_STATE_BYTES = 1_000_000  # the page's state is tile lists and a few fields; more is a bug
MAX_PHOTO_BYTES = 40_000_000  # a phone photo is a few MB; the page's upload limit is below this
DEFAULT_TABLE = "default"
PHOTO_KEY = "photo_hash"  # the state key that names the stored photo

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS hand_state (
        table_name TEXT PRIMARY KEY,
        rev INTEGER NOT NULL,
        state_json TEXT,
        photo_hash TEXT,
        updated_at TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS hand_photos (
        hash TEXT PRIMARY KEY,
        data BLOB NOT NULL,
        stored_at TEXT NOT NULL
    )""",
    # A stored hand the page could not use (damaged, or written by a newer version): kept here with
    # its photo, so nothing is lost when the table carries on with a new hand.
    """CREATE TABLE IF NOT EXISTS hand_state_aside (
        id INTEGER PRIMARY KEY,
        table_name TEXT NOT NULL,
        rev INTEGER NOT NULL,
        state_json BLOB,
        photo BLOB,
        why TEXT NOT NULL,
        put_at TEXT NOT NULL
    )""",
)
_TABLES = {"hand_state", "hand_photos", "hand_state_aside"}
MAX_ASIDE = 20  # the newest stored hands put aside are kept; older ones go


class StaleHand(ScorebookError):
    """The hand changed on another phone since this one drew it: nothing was written."""

    def __init__(self) -> None:
        super().__init__(STALE_WORDS)


STALE_WORDS = Words(
    "这一局在另一部手机上变了，已更新。", "This hand was changed on another phone; it is updated now."
)


@dataclass(frozen=True)
class Stored:
    """The hand as stored now, read inside a write transaction (`HandStore.update`)."""

    rev: int
    state: dict | None  # None when the stored text cannot be read as a state
    photo_hash: str | None


@dataclass(frozen=True)
class Saved:
    """The hand in progress as last saved."""

    rev: int
    state: dict | None  # None: the stored text is not a readable state (`problem` says why)
    photo: bytes | None  # None when the state has no photo, its photo could not be read back, or
    #                      it is the `known_photo` the caller already holds
    updated_at: str  # ISO 8601, UTC
    photo_hash: str | None = None
    problem: str | None = None  # why the stored state is unreadable


class HandStore(SqliteFile):
    """The hand in progress per table. Cheap to create; every call opens its own connection."""

    @in_words
    def _setup(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as con:
            have = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if have >= _TABLES:
                return  # only read: a read-only file still loads its hand
            switch_to_wal(con)
            with write_transaction(con):
                for statement in _SCHEMA:
                    con.execute(statement)

    @in_words
    def save(
        self,
        state: dict,
        photo: bytes | None,
        table: str = DEFAULT_TABLE,
        expect_rev: int | None = None,
    ) -> int:
        """Store the hand in progress and return its new revision.

        `photo` bytes are stored under their sha256, which is written into the stored state as
        `photo_hash`. `photo` None with `state["photo_hash"]` set keeps the photo already stored
        under that hash (a ScorebookError says so when there is none: send the bytes again); None
        without it means the hand has no photo. `expect_rev`: the revision this state was made
        from; when the table is at another one, `StaleHand` is raised and nothing is written.
        """
        text, photo_hash = _state_text(state, photo)
        with self._write() as con:
            if expect_rev is not None and _rev(con, table) != expect_rev:
                raise StaleHand()
            return _write_state(con, table, text, photo_hash, photo)

    @in_words
    def update(
        self, change: Callable[[Stored | None], dict], table: str = DEFAULT_TABLE, photo: bytes | None = None
    ) -> int:
        """Apply `change` to the hand as stored now and store what it returns; the new revision.

        `change` runs inside the write transaction, so no other phone writes between the read and
        the write; it gets None when the table has no hand, and may raise to write nothing (the
        exception goes to the caller). The returned state keeps the stored photo (by its hash), or
        names `photo`, whose bytes are stored with it (a new photo's hand).
        """
        with self._write() as con:
            row = con.execute(
                "SELECT rev, CAST(state_json AS BLOB), photo_hash FROM hand_state WHERE table_name = ?",
                (table,),
            ).fetchone()
            now = None
            if row is not None and row[1] is not None:
                now = Stored(int(row[0]), _parse(bytes(row[1]))[0], row[2])
            text, photo_hash = _state_text(change(now), photo)
            return _write_state(con, table, text, photo_hash, photo)

    def save_in(
        self, con: sqlite3.Connection, state: dict, photo: bytes | None, table: str = DEFAULT_TABLE
    ) -> int:
        """`save` inside a transaction the caller holds on this same file (新的一晚 starts the
        evening and its fresh hand in one transaction: a kill between them cannot leave the last
        evening's hand offered in the new one)."""
        text, photo_hash = _state_text(state, photo)
        return _write_state(con, table, text, photo_hash, photo)

    @staticmethod
    def rev_in(con: sqlite3.Connection, table: str = DEFAULT_TABLE) -> int:
        """The table's revision read inside a transaction the caller holds (记入记分本 checks that
        the hand it was drawn for is still the stored one in the same transaction it records in)."""
        return _rev(con, table)

    @in_words
    def load(self, table: str = DEFAULT_TABLE, known_photo: str | None = None) -> Saved | None:
        """The hand in progress, or None when there is none or it was cleared. A stored text that is
        not a readable state comes back with `state` None and `problem` saying why (the page puts it
        aside and says so). `known_photo`: the hash of a photo the caller already holds; its bytes
        are not read again (a 12 MP photo is not fetched and decoded on every change of the other
        phone)."""
        with self._connect() as con:
            con.execute("BEGIN")  # the state and its photo from one snapshot
            row = con.execute(
                "SELECT rev, CAST(state_json AS BLOB), photo_hash, updated_at FROM hand_state WHERE table_name = ?",
                (table,),
            ).fetchone()
            if row is None or row[1] is None:
                con.execute("COMMIT")
                return None
            rev, raw, photo_hash, updated_at = row  # bytes: a torn text must not fail the read
            blob = None
            if photo_hash and photo_hash != known_photo:
                got = con.execute("SELECT data FROM hand_photos WHERE hash = ?", (photo_hash,)).fetchone()
                blob = got[0] if got else None
            con.execute("COMMIT")
        state, problem = _parse(bytes(raw))
        if problem:
            log.warning("hand store %s: table %r revision %s: %s", self.path, table, rev, problem)
        photo = bytes(blob) if blob is not None else None
        if (
            photo_hash
            and photo_hash != known_photo
            and (photo is None or hashlib.sha256(photo).hexdigest() != photo_hash)
        ):
            log.warning(
                "hand store %s: table %r photo %s is missing or damaged", self.path, table, photo_hash
            )
            photo = None
        return Saved(int(rev), state, photo, updated_at, photo_hash, problem)

    @in_words
    def revision(self, table: str = DEFAULT_TABLE) -> int:
        """The table's current revision (0 before its first save); cheap enough for every page run."""
        with self._connect() as con:
            return _rev(con, table)

    @in_words
    def put_aside(self, rev: int, why: str, table: str = DEFAULT_TABLE) -> bool:
        """Move the stored hand of revision `rev` (one the page cannot use) out of the way, photo and
        all, into `hand_state_aside`; the table then has no hand. False when the table is no longer
        at `rev` (another phone already replaced it): nothing moves."""
        with self._write() as con:
            row = con.execute(
                "SELECT rev, CAST(state_json AS BLOB), photo_hash FROM hand_state WHERE table_name = ?",
                (table,),
            ).fetchone()
            if row is None or int(row[0]) != rev or row[1] is None:
                return False
            photo = None
            if row[2]:
                got = con.execute("SELECT data FROM hand_photos WHERE hash = ?", (row[2],)).fetchone()
                photo = got[0] if got else None
            con.execute(
                "INSERT INTO hand_state_aside (table_name, rev, state_json, photo, why, put_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (table, rev, row[1], photo, why, _now()),
            )
            con.execute(
                "DELETE FROM hand_state_aside WHERE id NOT IN "
                "(SELECT id FROM hand_state_aside ORDER BY id DESC LIMIT ?)",
                (MAX_ASIDE,),
            )
            con.execute(
                "UPDATE hand_state SET rev = rev + 1, state_json = NULL, photo_hash = NULL, updated_at = ? "
                "WHERE table_name = ?",
                (_now(), table),
            )
            _drop_unused_photos(con)
            return True

    @in_words
    def aside(self, table: str = DEFAULT_TABLE) -> list[tuple[int, str, str]]:
        """(revision, why, when) of the stored hands put aside, newest first."""
        with self._connect() as con:
            return [
                (int(r[0]), r[1], r[2])
                for r in con.execute(
                    "SELECT rev, why, put_at FROM hand_state_aside WHERE table_name = ? ORDER BY id DESC",
                    (table,),
                )
            ]

    @in_words
    def clear(self, table: str = DEFAULT_TABLE) -> int:
        """Forget the hand in progress (新的一局); returns the new revision, which still grows so other
        tabs notice. Its photo goes too unless another table uses it."""
        with self._write() as con:
            row = con.execute("SELECT rev FROM hand_state WHERE table_name = ?", (table,)).fetchone()
            if row is None:
                return 0
            con.execute(
                "UPDATE hand_state SET rev = rev + 1, state_json = NULL, photo_hash = NULL, updated_at = ? "
                "WHERE table_name = ?",
                (_now(), table),
            )
            _drop_unused_photos(con)
            return int(row[0]) + 1


def _state_text(state: dict, photo: bytes | None) -> tuple[str, str | None]:
    """The state as the JSON text stored, with its photo's hash: checked before any lock is taken."""
    if not isinstance(state, dict):
        raise ScorebookError(Words("这一局的状态必须是字典", "the hand state must be a dict"))
    if photo is not None and len(photo) > MAX_PHOTO_BYTES:
        raise _too_big("照片", "photo", len(photo), MAX_PHOTO_BYTES)
    photo_hash = hashlib.sha256(photo).hexdigest() if photo is not None else state.get(PHOTO_KEY)
    stored = {**state, PHOTO_KEY: photo_hash} if photo_hash else state
    try:
        text = json.dumps(stored, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ScorebookError(
            Words(f"这一局的状态存不了（{exc}）", f"the hand state cannot be stored ({exc})")
        ) from exc
    size = len(text.encode("utf-8"))
    if size > MAX_STATE_BYTES:
        raise _too_big("这一局的状态", "hand state", size, MAX_STATE_BYTES)
    return text, photo_hash


def _write_state(
    con: sqlite3.Connection, table: str, text: str, photo_hash: str | None, photo: bytes | None
) -> int:
    """Write one state (and its photo's bytes, when sent) in the caller's transaction; the new rev."""
    now = _now()
    if photo is not None:
        con.execute(
            "INSERT OR IGNORE INTO hand_photos (hash, data, stored_at) VALUES (?, ?, ?)",
            (photo_hash, photo, now),
        )
    elif photo_hash and not con.execute("SELECT 1 FROM hand_photos WHERE hash = ?", (photo_hash,)).fetchone():
        raise ScorebookError(
            Words(
                "服务器上没有这张照片了，请把照片再传一次",
                "the server no longer has this photo; send the photo again",
            )
        )
    rev = _rev(con, table) + 1
    con.execute(
        "INSERT INTO hand_state (table_name, rev, state_json, photo_hash, updated_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_name) DO UPDATE SET rev = excluded.rev, "
        "state_json = excluded.state_json, photo_hash = excluded.photo_hash, "
        "updated_at = excluded.updated_at",
        (table, rev, text, photo_hash, now),
    )
    _drop_unused_photos(con)
    return rev


def _rev(con: sqlite3.Connection, table: str) -> int:
    row = con.execute("SELECT rev FROM hand_state WHERE table_name = ?", (table,)).fetchone()
    return int(row[0]) if row else 0


def _parse(raw: bytes) -> tuple[dict | None, str | None]:
    """A stored state text as a dict, or None and why not (a torn write, another program's text)."""
    try:
        state = json.loads(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return None, f"unreadable state ({exc})"
    if not isinstance(state, dict):
        return None, f"the state is a {type(state).__name__}, not a dict"
    return state, None


def _drop_unused_photos(con: sqlite3.Connection) -> None:
    con.execute(
        "DELETE FROM hand_photos WHERE hash NOT IN "
        "(SELECT photo_hash FROM hand_state WHERE photo_hash IS NOT NULL)"
    )


def _too_big(zh: str, en: str, size: int, limit: int) -> ScorebookError:
    return ScorebookError(
        Words(
            f"{zh}太大了（{size / 1e6:.1f} MB，最多 {limit / 1e6:g} MB），没存上",
            f"the {en} is too big ({size / 1e6:.1f} MB, at most {limit / 1e6:g} MB); it was not stored",
        )
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")
