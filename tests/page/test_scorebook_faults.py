"""Every way the scorebook file cannot be used reaches the page as words and a kind, injected for real:
a damaged file, an immutable file (chattr +i), a read-only mount, a full tmpfs, a newer schema and a
lock held by another connection. The mount and chattr tests need root and skip, saying so, without it."""

from __future__ import annotations

import json
import pickle
import sqlite3
import subprocess
from pathlib import Path

import pytest

import rules
from page.hand_store import HandStore
from page.scorebook import FAULT_KINDS, Scorebook, ScorebookError
from page.words import Words

EXAMPLES = Path(__file__).parents[1] / "examples"


def _example(name: str = "LY-1") -> tuple[dict, dict]:
    hand = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))["hand"]
    return hand, rules.score(rules.parse_hand(hand)).to_dict()


def _sh(cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, shell=True, capture_output=True, text=True, check=False)


def _check(err: pytest.ExceptionInfo, kind: str, zh: str, en: str) -> None:
    """The page shows err.words in one language: both are sentences that say what happened."""
    exc = err.value
    assert exc.kind == kind and kind in FAULT_KINDS
    assert zh in exc.words.zh and en in exc.words.en, exc.words
    assert exc.words.pick("en") == exc.words.en and "Traceback" not in str(exc)


@pytest.fixture
def immutable(tmp_path):
    """chattr +i a path for the test (root cannot write it either); undone afterwards."""
    done: list[Path] = []

    def make(path: Path) -> None:
        res = _sh(f"chattr +i '{path}'")
        if res.returncode != 0:
            pytest.skip(f"chattr +i is not available here: {res.stderr.strip()}")
        done.append(path)

    yield make
    for p in done:
        _sh(f"chattr -i '{p}'")


@pytest.fixture
def mounted(tmp_path):
    """Mount a folder for the test (`mount ARGS DIR`); unmounted afterwards."""
    done: list[Path] = []

    def make(args: str, folder: Path) -> Path:
        folder.mkdir(exist_ok=True)
        res = _sh(f"mount {args} '{folder}'")
        if res.returncode != 0:
            pytest.skip(f"cannot mount here (needs root): {res.stderr.strip()}")
        done.append(folder)
        return folder

    yield make
    for folder in reversed(done):
        if _sh(f"umount '{folder}'").returncode != 0:
            _sh(f"umount -l '{folder}'")


def _book_with_hands(path: Path, n: int = 3) -> Scorebook:
    book = Scorebook(path)
    book.start_evening({"E": "老王"})
    hand, result = _example()
    for i in range(n):
        book.record_hand(hand, result, f"p{i}")
    return book


# ---------------------------------------------------------------------- corrupt


def test_damaged_pages_are_corrupt_on_a_read(tmp_path):
    path = tmp_path / "book.sqlite"
    book = _book_with_hands(path, 60)
    con = sqlite3.connect(path)
    page = con.execute("PRAGMA page_size").fetchone()[0]
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    data = bytearray(path.read_bytes())
    assert len(data) > 8 * page
    for start in range(6 * page, len(data), page):  # the hands' pages; the schema on page 1 stays
        data[start : start + 64] = b"\xa5" * 64
    path.write_bytes(bytes(data))
    for call in (book.history, book.standing, book.export_csv):
        with pytest.raises(ScorebookError) as err:
            call()
        _check(err, "corrupt", "记分本文件坏了", "The scorebook file is damaged")
        assert "这一局照样能算分" in err.value.words.zh and "MAHJONG_SCOREBOOK" in err.value.words.en


def test_every_method_says_corrupt_when_the_file_goes_bad_under_it(tmp_path):
    """The file is replaced by garbage after opening: every read and write speaks, none tracebacks."""
    path = tmp_path / "book.sqlite"
    book = _book_with_hands(path, 2)
    record = book.history()[-1]
    store = HandStore(path)
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        p.unlink(missing_ok=True)
    path.write_bytes(b"\x00garbage" * 1000)
    hand, result = _example()
    calls = {
        "start_evening": book.start_evening,
        "ensure_evening": book.ensure_evening,
        "reopen": lambda: book.reopen(1),
        "rename": lambda: book.rename(1, {"E": "A"}),
        "current": book.current,
        "evening": lambda: book.evening(1),
        "evenings": book.evenings,
        "record_hand": lambda: book.record_hand(hand, result, "x"),
        "replace_hand": lambda: book.replace_hand(1, hand, result),
        "record_draw": book.record_draw,
        "undo_last": book.undo_last,
        "restore": lambda: book.restore(record),
        "history": book.history,
        "find_photo": lambda: book.find_photo("p1"),
        "standing": book.standing,
        "export_csv": book.export_csv,
        "save": lambda: store.save({}, None),
        "load": store.load,
        "revision": store.revision,
        "book revision": book.revision,
        "clear": store.clear,
        "update": lambda: store.update(lambda now: {}),
        "put_aside": lambda: store.put_aside(1, "damaged"),
        "aside": store.aside,
    }
    public = {n for n in dir(Scorebook) + dir(HandStore) if not n.startswith("_")}
    # save_in / rev_in run inside a transaction the caller holds (and turns into words)
    in_transaction = {"save_in", "rev_in"}
    assert public - {"path", "busy_s"} - in_transaction == {n.removeprefix("book ") for n in calls}
    for name, call in calls.items():
        with pytest.raises(ScorebookError) as err:
            call()
        assert err.value.kind == "corrupt", name


def test_a_row_with_broken_json_is_corrupt(tmp_path):
    path = tmp_path / "book.sqlite"
    book = _book_with_hands(path, 1)
    con = sqlite3.connect(path)
    con.execute("UPDATE hands SET result_json = '{\"valid\": tr'")
    con.commit()
    con.close()
    with pytest.raises(ScorebookError) as err:
        book.history()
    _check(err, "corrupt", "记分本文件坏了", "damaged")


def test_a_file_that_is_not_a_database_is_corrupt_for_both(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not sqlite at all " * 300)
    for make in (Scorebook, HandStore):
        with pytest.raises(ScorebookError) as err:
            make(bad)
        _check(err, "corrupt", "坏了", "damaged")


# ---------------------------------------------------------------------- read-only


def test_an_immutable_file_still_reads_but_writes_say_read_only(tmp_path, immutable):
    path = tmp_path / "book.sqlite"
    _book_with_hands(path, 2)
    HandStore(path).save({"a": 1}, b"photo")
    immutable(path)
    book = Scorebook(path)  # opening only reads a file that has its tables
    assert book.standing().hands == 2 and book.current().names["E"] == "老王"
    hand, result = _example()
    writes = [
        lambda: book.record_hand(hand, result, "new"),
        lambda: book.replace_hand(1, hand, result),
        book.record_draw,
        book.undo_last,
        lambda: book.start_evening(),
        lambda: book.reopen(1),
    ]
    for write in writes:
        with pytest.raises(ScorebookError) as err:
            write()
        _check(err, "read_only", "只能读", "read-only")
    store = HandStore(path)
    assert store.load().state["a"] == 1
    with pytest.raises(ScorebookError) as err:
        store.save({"a": 2}, None)
    _check(err, "read_only", "只能读", "read-only")


def test_an_older_immutable_file_without_settings_still_reads(tmp_path, immutable):
    path = tmp_path / "old.sqlite"
    _book_with_hands(path, 1)
    con = sqlite3.connect(path)
    con.execute("DROP TABLE settings")
    con.commit()
    con.close()
    immutable(path)
    book = Scorebook(path)
    assert book.current().names["E"] == "老王" and book.standing().hands == 1


def test_a_read_only_mount_still_reads_and_says_read_only(tmp_path, mounted):
    folder = tmp_path / "ro"
    folder.mkdir()
    _book_with_hands(folder / "book.sqlite", 2)
    HandStore(folder / "book.sqlite").save({"a": 1}, b"photo")
    Scorebook(folder / "other.sqlite")  # a scorebook file without the hand store's tables
    mounted(f"--bind '{folder}'", folder)
    if _sh(f"mount -o remount,bind,ro '{folder}'").returncode != 0:
        pytest.skip("cannot remount read-only here")
    book = Scorebook(folder / "book.sqlite")  # no -shm can be made: opened as immutable
    assert book.standing().hands == 2 and book.current().names["E"] == "老王"
    assert HandStore(folder / "book.sqlite").load().photo == b"photo"
    for write in (book.record_draw, lambda: book.reopen(1), lambda: HandStore(book.path).clear()):
        with pytest.raises(ScorebookError) as err:
            write()
        _check(err, "read_only", "只能读", "read-only")
    for make, name in ((HandStore, "other.sqlite"), (Scorebook, "new.sqlite")):
        with pytest.raises(ScorebookError) as err:  # tables that cannot be made, a file that cannot be
            make(folder / name)
        _check(err, "read_only", "只能读", "read-only")


# ---------------------------------------------------------------------- disk full


def test_a_full_disk_says_so_and_loses_nothing_recorded(tmp_path, mounted):
    folder = mounted("-t tmpfs -o size=192k tmpfs", tmp_path / "small")
    book = Scorebook(folder / "book.sqlite")
    book.start_evening()
    hand, result = _example()
    big = {**hand, "note": "字" * 3000}  # 9 KB a hand: the disk fills in a few dozen
    recorded = 0
    with pytest.raises(ScorebookError) as err:
        for i in range(200):
            book.record_hand(big, result, f"p{i}")
            recorded += 1
    _check(err, "disk_full", "磁盘满了，没记上", "The disk is full")
    assert recorded > 0
    assert [h.number for h in book.history()] == list(range(1, recorded + 1))  # reads still work
    assert book.standing().totals["S"] == recorded * result["payments"]["S"]


def test_a_full_disk_refuses_a_hand_store_photo(tmp_path, mounted):
    folder = mounted("-t tmpfs -o size=256k tmpfs", tmp_path / "small")
    store = HandStore(folder / "book.sqlite")
    store.save({"a": 1}, None)
    with pytest.raises(ScorebookError) as err:
        store.save({"a": 2}, b"\x89PNG" * 200_000)  # 800 KB photo
    _check(err, "disk_full", "磁盘满了", "disk is full")
    assert store.load().state == {"a": 1} and store.revision() == 1


# ---------------------------------------------------------------------- newer schema, locked


def test_a_newer_schema_is_refused_in_words(tmp_path):
    path = tmp_path / "book.sqlite"
    _book_with_hands(path, 1)
    con = sqlite3.connect(path)
    con.execute("PRAGMA user_version = 7")
    con.close()
    with pytest.raises(ScorebookError) as err:
        Scorebook(path)
    _check(err, "newer_version", "更新版本的程序", "newer version of the app")
    assert HandStore(path).revision() == 0  # the hand store does not depend on the scorebook's schema


def test_a_lock_held_by_another_program_says_try_again(tmp_path):
    path = tmp_path / "book.sqlite"
    _book_with_hands(path, 1)
    HandStore(path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    try:
        book = Scorebook(path, busy_s=0.2)
        assert book.standing().hands == 1  # WAL: reading goes on under a writer
        with pytest.raises(ScorebookError) as err:
            book.record_draw()
        _check(err, "locked", "请再试一次", "try again")
        assert "0.2 秒" in err.value.words.zh
        with pytest.raises(ScorebookError) as err:
            HandStore(path, busy_s=0.2).save({"a": 1}, None)
        _check(err, "locked", "占用", "busy")
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert Scorebook(path).record_draw().number == 2  # and it works once the lock is gone


def test_errors_keep_working_as_value_errors_for_old_callers():
    err = ScorebookError("只有中文")
    assert isinstance(err, ValueError) and err.kind == "other" and err.words == ("只有中文", "只有中文")
    with pytest.raises(ValueError, match="unknown scorebook fault kind"):
        ScorebookError("x", kind="bad")
    sent = pickle.loads(pickle.dumps(ScorebookError(Words("磁盘满了", "disk full"), "disk_full")))
    assert sent.words == Words("磁盘满了", "disk full") and sent.kind == "disk_full"


def test_an_io_error_on_a_nearly_full_disk_says_disk_full(tmp_path, monkeypatch):
    """SQLite reports a WAL write that hit a full disk as "disk I/O error" (SQLITE_IOERR), not
    SQLITE_FULL: with no space left on the file's disk it is said in the full-disk words."""
    from page import scorebook as sbm

    err = sqlite3.OperationalError("disk I/O error")
    err.sqlite_errorcode = 778  # SQLITE_IOERR_WRITE
    path = tmp_path / "book.sqlite"
    assert sbm.fault_kind(err, path) == "other"  # plenty of space here: some other I/O fault
    monkeypatch.setattr(sbm.shutil, "disk_usage", lambda p: type("U", (), {"free": 4096})())
    assert sbm.fault_kind(err, path) == "disk_full"
    assert "磁盘满了" in sbm.file_fault(err, path).words.zh
