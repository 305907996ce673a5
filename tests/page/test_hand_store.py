"""The hand in progress on the server: revisions, photos stored once, clear, torn rows, size guards."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading

import pytest

from page import hand_store as hs
from page import scorebook as sb
from page.hand_store import HandStore
from page.scorebook import Scorebook, ScorebookError

PHOTO = b"\xff\xd8 a photo " * 1000
OTHER = b"\xff\xd8 another photo " * 1000


@pytest.fixture
def path(tmp_path):
    return tmp_path / "book.sqlite"


@pytest.fixture
def store(path) -> HandStore:
    return HandStore(path)


def _photo_rows(path) -> list[str]:
    con = sqlite3.connect(path)
    try:
        return sorted(r[0] for r in con.execute("SELECT hash FROM hand_photos"))
    finally:
        con.close()


def test_nothing_saved_yet(store):
    assert store.load() is None and store.revision() == 0 and store.clear() == 0


def test_save_and_load_round_trip_chinese_and_photo(store, path):
    state = {"tiles": ["1m", "中"], "note": "东家 老王", "n": 3}
    rev = store.save(state, PHOTO)
    assert rev == 1 and store.revision() == 1 and "photo_hash" not in state  # the caller's dict stays
    got = store.load()
    key = hashlib.sha256(PHOTO).hexdigest()
    assert got.rev == 1 and got.photo == PHOTO and got.state == {**state, "photo_hash": key}
    assert got.updated_at.startswith("20")
    con = sqlite3.connect(path)
    text = con.execute("SELECT state_json FROM hand_state").fetchone()[0]
    con.close()
    assert "东家 老王" in text  # written with ensure_ascii=False


def test_revision_grows_per_table_and_through_clear(store):
    assert [store.save({"i": i}, None) for i in range(3)] == [1, 2, 3]
    assert store.save({"t": 2}, None, table="table2") == 1
    assert store.clear() == 4 and store.revision() == 4 and store.load() is None
    assert store.save({"i": 9}, None) == 5
    assert store.load("table2").state == {"t": 2} and store.revision("table2") == 1


def test_a_photo_is_stored_once_and_kept_by_hash(store, path):
    store.save({"a": 1}, PHOTO)
    key = hashlib.sha256(PHOTO).hexdigest()
    con = sqlite3.connect(path)
    stored_at = con.execute("SELECT stored_at FROM hand_photos").fetchone()[0]
    con.close()
    for i in range(5):  # a tap: the state changes, the photo is named by its hash only
        store.save({"a": i, "photo_hash": key}, None)
    store.save({"a": 9}, PHOTO)  # the same bytes again are not written again
    con = sqlite3.connect(path)
    assert con.execute("SELECT stored_at FROM hand_photos").fetchall() == [(stored_at,)]
    con.close()
    got = store.load()
    assert got.photo == PHOTO and got.state["a"] == 9


def test_unused_photos_go_in_the_same_save(store, path):
    store.save({}, PHOTO)
    store.save({}, PHOTO, table="other")  # two tables share one photo
    store.save({}, OTHER)  # default moves on: the first photo is still used by "other"
    assert _photo_rows(path) == sorted(hashlib.sha256(p).hexdigest() for p in (PHOTO, OTHER))
    store.clear("other")
    assert _photo_rows(path) == [hashlib.sha256(OTHER).hexdigest()]
    store.save({"no": "photo"}, None)
    assert _photo_rows(path) == [] and store.load().photo is None


def test_keeping_a_photo_that_is_gone_says_send_it_again(store):
    with pytest.raises(ScorebookError, match="再传一次") as err:
        store.save({"photo_hash": "ab" * 32}, None)
    assert "send the photo again" in err.value.words.en and store.revision() == 0


def test_size_guards(store, monkeypatch):
    with pytest.raises(ScorebookError, match="太大") as err:
        store.save({"x": "字" * 400_000}, None)  # 1.2 MB of UTF-8
    assert "hand state is too big" in err.value.words.en
    monkeypatch.setattr(hs, "MAX_PHOTO_BYTES", 1000)  # 40 MB of test data is not needed for the guard
    with pytest.raises(ScorebookError, match="照片太大"):
        store.save({}, PHOTO)
    assert store.revision() == 0


def test_a_state_that_is_not_json_is_refused(store):
    with pytest.raises(ScorebookError, match="存不了"):
        store.save({"x": object()}, None)
    with pytest.raises(ScorebookError, match="存不了"):
        store.save({"x": float("nan")}, None)
    with pytest.raises(ScorebookError, match="字典"):
        store.save(["not", "a", "dict"], None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "torn",
    [b'{"tiles": ["1m", "2', b"\xe4\xb8", b"[1, 2]"],
    ids=["cut-json", "cut-utf8", "not-a-dict"],
)
def test_a_torn_state_row_says_why_and_can_be_put_aside(store, path, caplog, torn):
    store.save({"tiles": ["1m"]}, PHOTO)
    con = sqlite3.connect(path)
    con.execute("UPDATE hand_state SET state_json = CAST(? AS TEXT)", (torn,))
    con.commit()
    con.close()
    with caplog.at_level(logging.WARNING, logger="page.hand_store"):
        got = store.load()
    assert got.state is None and got.problem and got.rev == 1 and got.photo == PHOTO
    assert "table 'default'" in caplog.text
    assert store.put_aside(got.rev, got.problem)  # kept, photo and all, out of the way
    assert not store.put_aside(got.rev, got.problem)  # once
    assert store.load() is None and store.revision() == 2
    con = sqlite3.connect(path)
    kept = con.execute("SELECT rev, CAST(state_json AS BLOB), photo FROM hand_state_aside").fetchall()
    con.close()
    assert kept == [(1, torn, PHOTO)]
    assert [r[0] for r in store.aside()] == [1]
    assert store.save({"fresh": 1}, None) == 3  # the page starts over and saving works


def test_a_save_from_an_older_revision_is_refused(store):
    rev = store.save({"winner": "S"}, None)
    store.save({"winner": "S", "win_by": "self_draw"}, None, expect_rev=rev)  # this phone, up to date
    with pytest.raises(hs.StaleHand) as err:
        store.save({"winner": None}, None, expect_rev=rev)  # the other phone's old copy
    assert "另一部手机" in err.value.words.zh
    assert store.load().state == {"winner": "S", "win_by": "self_draw"}


def test_update_applies_a_change_to_the_hand_as_stored_now(store):
    store.save({"winner": "S", "flags": {}}, PHOTO)

    def self_draw(now):
        return {**now.state, "win_by": "self_draw"}

    assert store.update(self_draw) == 2
    got = store.load()
    assert got.state["winner"] == "S" and got.state["win_by"] == "self_draw" and got.photo == PHOTO

    def refuse(now):
        raise ValueError("no")

    with pytest.raises(ValueError):
        store.update(refuse)
    assert store.revision() == 2  # nothing written


def test_updates_from_two_threads_are_both_kept(store):
    store.save({"n": 0, "seen": []}, None)

    def add(k):
        def change(now):
            return {"n": now.state["n"] + 1, "seen": [*now.state["seen"], k]}

        for _ in range(20):
            store.update(change)

    threads = [threading.Thread(target=add, args=(k,)) for k in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = store.load().state
    assert got["n"] == 40 and sorted(got["seen"]) == ["a"] * 20 + ["b"] * 20


def test_a_damaged_photo_loads_the_state_without_it(store, path, caplog):
    store.save({"a": 1}, PHOTO)
    con = sqlite3.connect(path)
    con.execute("UPDATE hand_photos SET data = ?", (PHOTO[:100],))
    con.commit()
    con.close()
    with caplog.at_level(logging.WARNING, logger="page.hand_store"):
        got = store.load()
    assert got.state["a"] == 1 and got.photo is None and "damaged" in caplog.text


def test_it_shares_the_scorebook_file_without_touching_it(path, monkeypatch):
    monkeypatch.setenv(sb.ENV_FILE, str(path))
    store = HandStore()
    assert store.path == path
    store.save({"a": 1}, PHOTO)
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == 0  # the scorebook sets its own
    con.close()
    book = Scorebook()
    book.start_evening()
    assert HandStore().load().state["a"] == 1 and book.current() is not None
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == sb.SCHEMA_VERSION
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()


def test_two_tabs_saving_at_once_get_distinct_revisions(path):
    """Two connections (one per tab) save in a race: every revision is handed out exactly once."""
    HandStore(path)
    start = threading.Barrier(2)
    revs: dict[str, list[int]] = {"a": [], "b": []}
    errors: list[str] = []

    def tab(tag: str, photo: bytes) -> None:
        try:
            store = HandStore(path)
            start.wait(10)
            for i in range(30):
                revs[tag].append(store.save({"tab": tag, "i": i}, photo if i % 10 == 0 else None))
        except Exception as exc:  # noqa: BLE001 - reported to the test
            errors.append(f"{tag}: {exc}")

    threads = [threading.Thread(target=tab, args=(t, p)) for t, p in (("a", PHOTO), ("b", OTHER))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert sorted(revs["a"] + revs["b"]) == list(range(1, 61))
    assert HandStore(path).revision() == 60
