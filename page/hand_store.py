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
    rev = store.save({**state, "photo_hash": key}, None)  # later saves keep the stored photo
    if store.revision() != rev: ...                  # another tab changed the hand: load it
    store.clear()                                    # 新的一局
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime

from page.scorebook import ScorebookError, SqliteFile, in_words, write_transaction
from page.words import Words

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
)


@dataclass(frozen=True)
class Saved:
    """The hand in progress as last saved."""

    rev: int
    state: dict
    photo: bytes | None  # None when the state has no photo, or its photo could not be read back
    updated_at: str  # ISO 8601, UTC


class HandStore(SqliteFile):
    """The hand in progress per table. Cheap to create; every call opens its own connection."""

    @in_words
    def _setup(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as con:
            have = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if {"hand_state", "hand_photos"} <= have:
                return  # only read: a read-only file still loads its hand
            con.execute("PRAGMA journal_mode=WAL")
            with write_transaction(con):
                for statement in _SCHEMA:
                    con.execute(statement)

    @in_words
    def save(self, state: dict, photo: bytes | None, table: str = DEFAULT_TABLE) -> int:
        """Store the hand in progress and return its new revision.

        `photo` bytes are stored under their sha256, which is written into the stored state as
        `photo_hash`. `photo` None with `state["photo_hash"]` set keeps the photo already stored
        under that hash (a ScorebookError says so when there is none: send the bytes again); None
        without it means the hand has no photo.
        """
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
        now = _now()
        with self._write() as con:
            if photo is not None:
                con.execute(
                    "INSERT OR IGNORE INTO hand_photos (hash, data, stored_at) VALUES (?, ?, ?)",
                    (photo_hash, photo, now),
                )
            elif (
                photo_hash
                and not con.execute("SELECT 1 FROM hand_photos WHERE hash = ?", (photo_hash,)).fetchone()
            ):
                raise ScorebookError(
                    Words(
                        "服务器上没有这张照片了，请把照片再传一次",
                        "the server no longer has this photo; send the photo again",
                    )
                )
            rev = con.execute(
                "SELECT COALESCE(MAX(rev), 0) + 1 FROM hand_state WHERE table_name = ?", (table,)
            ).fetchone()[0]
            con.execute(
                "INSERT INTO hand_state (table_name, rev, state_json, photo_hash, updated_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_name) DO UPDATE SET rev = excluded.rev, "
                "state_json = excluded.state_json, photo_hash = excluded.photo_hash, "
                "updated_at = excluded.updated_at",
                (table, rev, text, photo_hash, now),
            )
            _drop_unused_photos(con)
            return int(rev)

    @in_words
    def load(self, table: str = DEFAULT_TABLE) -> Saved | None:
        """The hand in progress, or None when there is none, it was cleared, or its stored state is
        not readable (a warning in the log says why; the page then simply starts a new hand)."""
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
            if photo_hash:
                got = con.execute("SELECT data FROM hand_photos WHERE hash = ?", (photo_hash,)).fetchone()
                blob = got[0] if got else None
            con.execute("COMMIT")
        try:
            state = json.loads(bytes(raw).decode("utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            log.warning(
                "hand store %s: table %r revision %s has an unreadable state (%s)", self.path, table, rev, exc
            )
            return None
        if not isinstance(state, dict):
            log.warning("hand store %s: table %r revision %s is not a dict", self.path, table, rev)
            return None
        photo = bytes(blob) if blob is not None else None
        if photo_hash and (photo is None or hashlib.sha256(photo).hexdigest() != photo_hash):
            log.warning(
                "hand store %s: table %r photo %s is missing or damaged", self.path, table, photo_hash
            )
            photo = None
        return Saved(int(rev), state, photo, updated_at)

    @in_words
    def revision(self, table: str = DEFAULT_TABLE) -> int:
        """The table's current revision (0 before its first save); cheap enough for every page run."""
        with self._connect() as con:
            row = con.execute("SELECT rev FROM hand_state WHERE table_name = ?", (table,)).fetchone()
            return int(row[0]) if row else 0

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
