"""The evening's scorebook: who sits where, every scored hand, running totals and who deals next.

Why a file and not session state: the table plays for hours, phones lock, tabs get closed and the
server gets restarted; the totals must survive all of that. One SQLite file (stdlib `sqlite3`) holds
every evening; each hand keeps its photo hash, the hand JSON and the engine's result
(`rules.score(hand).to_dict()`), so any total can be re-checked later.

Where the file is: env `MAHJONG_SCOREBOOK` (the file itself), else `<data folder>/scorebook.sqlite`
where the data folder is env `MAHJONG_DATA_DIR`, else `datasets/` in the repository (the file and its
`-wal`/`-shm` companions are git-ignored).

Two browser tabs (or two server processes) may write at once: the file is in WAL mode, every write is
one `BEGIN IMMEDIATE` transaction (the hand number is read and written under the same lock) and a
busy timeout makes the second writer wait instead of failing. Each call opens its own short-lived
connection, so a `Scorebook` object is safe to share between Streamlit sessions and threads.

The dealer: 连庄 when the dealer wins or the hand is drawn (黄庄), otherwise the deal passes to the
next seat in play order E → S → W → N (seed 000 §一.3 and 001 §二 for 辽阳; the 鞍山 seed says nothing,
so it follows the same custom). `rules.presets` carries no dealer field, so the rule lives here in
`DEALER_RULES`, one row per preset.

Intended use in app.py (the page engineer wires it):

    from page.scorebook import Scorebook, ScorebookError
    book = Scorebook()                      # default path; cheap, open per run or cache_resource
    ev = book.current()                     # None before the first evening
    ev = book.ensure_evening(preset="liaoyang")  # the latest evening, or a new one (atomic)
    book.start_evening({"E": "老王", "S": "小李"}, preset="liaoyang")  # 新的一晚: totals from 0
    st_ = book.standing(ev.id)              # .dealer prefills the situation; .totals / .names shown
    rec = book.record_hand(hand, result.to_dict(), photo_hash=photo.key, evening_id=ev.id)
    if rec.duplicate: ...                   # the same photo + hand was already recorded (double tap)
    book.record_draw(ev.id)                 # 黄庄: nobody won, the dealer stays
    book.undo_last(ev.id)                   # returns the removed hand (or None)
    book.history(ev.id)                     # list[HandRecord], oldest first
    st.download_button("导出 CSV", book.export_csv(ev.id), "scorebook.csv", "text/csv")
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from rules.hand import SEATS
from rules.names import PRESET_SHORT, WIN_BY_ZH, seat_name

ENV_FILE = "MAHJONG_SCOREBOOK"
ENV_DATA_DIR = "MAHJONG_DATA_DIR"
DEFAULT_DATA_DIR = Path(__file__).resolve().parent.parent / "datasets"
FILE_NAME = "scorebook.sqlite"
MAX_NAME_LEN = 16
BUSY_TIMEOUT_S = 15.0
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class DealerRule:
    """How the deal moves after a hand."""

    stays_on_dealer_win: bool  # 连庄 when the dealer wins
    stays_on_draw: bool  # 黄庄: the same dealer deals again
    order: tuple[str, ...] = SEATS  # otherwise the next seat in this order deals


#: One row per preset (rules.presets has no dealer field). 辽阳: seed 000 §一.3 "庄家如果胡牌，则下一把可
#: 继续连庄，否则即由庄家的下家做庄" and §一.17 "黄庄…还是原有的玩家当庄"; 001 says the same. 鞍山 (002) is silent.
DEALER_RULES: dict[str, DealerRule] = {
    "liaoyang": DealerRule(stays_on_dealer_win=True, stays_on_draw=True),
    "liaoyang-online": DealerRule(stays_on_dealer_win=True, stays_on_draw=True),
    "anshan": DealerRule(stays_on_dealer_win=True, stays_on_draw=True),
}


class ScorebookError(ValueError):
    """Bad input to the scorebook, with one sentence a player can read (Chinese first)."""


def next_dealer(preset: str, dealer: str, winner: str | None) -> str:
    """Who deals the next hand; `winner` None means 黄庄 (nobody won)."""
    rule = DEALER_RULES.get(preset)
    if rule is None:
        raise ScorebookError(f"未知规则 {preset!r} (unknown preset)")
    _check_seat(dealer, "庄家 dealer")
    if winner is None:
        stays = rule.stays_on_draw
    else:
        _check_seat(winner, "赢家 winner")
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
    hand: dict | None
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
"""

_HAND_COLS = (
    "id, evening_id, number, recorded_at, preset, dealer, next_dealer, winner, win_by, "
    "photo_hash, hand_json, result_json, pay_e, pay_s, pay_w, pay_n"
)


class Scorebook:
    """The scorebook file. Cheap to create; every method opens and closes its own connection."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as con:
                con.execute("PRAGMA journal_mode=WAL")
                version = con.execute("PRAGMA user_version").fetchone()[0]
                if version > SCHEMA_VERSION:
                    raise ScorebookError(
                        f"记分本 {self.path} 来自更新的版本 (schema {version} > {SCHEMA_VERSION}); "
                        "update the app or set MAHJONG_SCOREBOOK to another file"
                    )
                con.executescript(_SCHEMA)
                con.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except (sqlite3.DatabaseError, OSError) as exc:
            raise ScorebookError(f"记分本文件打不开 {self.path}: {exc}") from exc

    # ------------------------------------------------------------------ connections

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        con = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            con.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
            con.execute("PRAGMA foreign_keys=ON")
            yield con
        finally:
            con.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken with the write lock at once so reads inside it stay true."""
        with self._connect() as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")

    # ------------------------------------------------------------------ evenings

    def start_evening(
        self, names: Mapping[str, str] | None = None, preset: str = "liaoyang", dealer: str = "E"
    ) -> Evening:
        """A new evening (new totals): names per seat (missing ones become 东家 …), the first dealer."""
        clean = _evening_settings(names, preset, dealer)
        with self._write() as con:
            return self._insert_evening(con, clean, preset, dealer)

    def ensure_evening(
        self, names: Mapping[str, str] | None = None, preset: str = "liaoyang", dealer: str = "E"
    ) -> Evening:
        """The latest evening, or a new one with these settings. One transaction, so two tabs recording
        the very first hand at once still share one evening."""
        clean = _evening_settings(names, preset, dealer)
        with self._write() as con:
            row = con.execute("SELECT id FROM evenings ORDER BY id DESC LIMIT 1").fetchone()
            if row is not None:
                return self._evening(con, row[0])
            return self._insert_evening(con, clean, preset, dealer)

    @staticmethod
    def _insert_evening(con: sqlite3.Connection, names: dict[str, str], preset: str, dealer: str) -> Evening:
        started = _now()
        cur = con.execute(
            "INSERT INTO evenings (started_at, preset, first_dealer, names) VALUES (?, ?, ?, ?)",
            (started, preset, dealer, json.dumps(names, ensure_ascii=False)),
        )
        return Evening(int(cur.lastrowid), started, preset, dealer, names)

    def rename(self, evening_id: int, names: Mapping[str, str]) -> Evening:
        """Change the names (a player swaps in); the seats' totals stay with the seats."""
        clean = clean_names(names)
        with self._write() as con:
            self._evening(con, evening_id)
            con.execute(
                "UPDATE evenings SET names = ? WHERE id = ?",
                (json.dumps(clean, ensure_ascii=False), evening_id),
            )
            return self._evening(con, evening_id)

    def current(self) -> Evening | None:
        """The latest evening, or None before the first one."""
        with self._connect() as con:
            row = con.execute("SELECT id FROM evenings ORDER BY id DESC LIMIT 1").fetchone()
            return self._evening(con, row[0]) if row else None

    def evening(self, evening_id: int) -> Evening:
        with self._connect() as con:
            return self._evening(con, evening_id)

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
            raise ScorebookError(f"记分本里没有第 {evening_id} 晚 (no evening {evening_id})")
        return Evening(row[0], row[1], row[2], row[3], json.loads(row[4]))

    # ------------------------------------------------------------------ hands

    def record_hand(
        self, hand: Mapping, result: Mapping, photo_hash: str | None = None, evening_id: int | None = None
    ) -> HandRecord:
        """Record a scored win. `result` is `rules.score(hand).to_dict()` and must be a valid win.

        The same photo with the same hand already in this evening is not recorded twice (a double
        tap, or the same result in two tabs): the existing record comes back with `duplicate=True`.
        """
        payments = _payments(result)
        winner = _check_seat(result.get("winner"), "赢家 winner")
        preset = str(result.get("preset") or hand.get("preset"))
        if preset not in DEALER_RULES:
            raise ScorebookError(f"未知规则 {preset!r} (unknown preset)")
        dealer = _check_seat(hand.get("dealer", "E"), "庄家 dealer")
        win = hand.get("win") if isinstance(hand.get("win"), Mapping) else {}
        win_by = win.get("by")
        hand_json = json.dumps(hand, ensure_ascii=False, sort_keys=True)
        result_json = json.dumps(result, ensure_ascii=False, sort_keys=True)
        with self._write() as con:
            eid = self._resolve(con, evening_id)
            if photo_hash:
                row = con.execute(
                    f"SELECT {_HAND_COLS} FROM hands WHERE evening_id = ? AND photo_hash = ? AND hand_json = ?",
                    (eid, photo_hash, hand_json),
                ).fetchone()
                if row is not None:
                    return _record(row, duplicate=True)
            return self._insert(
                con, eid, preset, dealer, winner, win_by, photo_hash, hand_json, result_json, payments
            )

    def record_draw(self, evening_id: int | None = None, dealer: str | None = None) -> HandRecord:
        """Record a 黄庄 (nobody won, nobody pays): the dealer stays, the 长毛 count grows."""
        with self._write() as con:
            eid = self._resolve(con, evening_id)
            ev = self._evening(con, eid)
            last = self._last(con, eid)
            deal = (
                _check_seat(dealer, "庄家 dealer")
                if dealer
                else (last.next_dealer if last else ev.first_dealer)
            )
            preset = last.preset if last else ev.preset
            zero = dict.fromkeys(SEATS, 0)
            return self._insert(con, eid, preset, deal, None, None, None, None, None, zero)

    def undo_last(self, evening_id: int | None = None) -> HandRecord | None:
        """Remove the evening's last hand and return it (None when there is none)."""
        with self._write() as con:
            eid = self._resolve(con, evening_id)
            last = self._last(con, eid)
            if last is not None:
                con.execute("DELETE FROM hands WHERE id = ?", (last.id,))
            return last

    def history(self, evening_id: int | None = None) -> list[HandRecord]:
        """The evening's hands, oldest first."""
        with self._connect() as con:
            eid = self._resolve(con, evening_id)
            rows = con.execute(
                f"SELECT {_HAND_COLS} FROM hands WHERE evening_id = ? ORDER BY number", (eid,)
            ).fetchall()
        return [_record(r) for r in rows]

    def find_photo(self, photo_hash: str, evening_id: int | None = None) -> HandRecord | None:
        """The hand recorded from this photo this evening, if any (the page says 已记入第 n 局)."""
        with self._connect() as con:
            eid = self._resolve(con, evening_id)
            row = con.execute(
                f"SELECT {_HAND_COLS} FROM hands WHERE evening_id = ? AND photo_hash = ? "
                "ORDER BY number DESC LIMIT 1",
                (eid, photo_hash),
            ).fetchone()
        return _record(row) if row else None

    def standing(self, evening_id: int | None = None) -> Standing:
        """Totals per seat and the next hand's dealer, from one consistent read."""
        with self._connect() as con:
            con.execute("BEGIN")  # one snapshot for the evening and its hands
            eid = self._resolve(con, evening_id)
            ev = self._evening(con, eid)
            rows = con.execute(
                f"SELECT {_HAND_COLS} FROM hands WHERE evening_id = ? ORDER BY number", (eid,)
            ).fetchall()
            con.execute("COMMIT")
        return standing_of(ev, [_record(r) for r in rows])

    def export_csv(self, evening_id: int | None = None) -> bytes:
        """The evening as CSV, UTF-8 with a BOM so Excel (phone or PC) shows the Chinese."""
        eid = evening_id if evening_id is not None else self._current_id()
        return evening_csv(self.evening(eid), self.history(eid))

    # ------------------------------------------------------------------ helpers

    def _current_id(self) -> int:
        ev = self.current()
        if ev is None:
            raise ScorebookError("还没有开始记分 (no evening started yet)")
        return ev.id

    def _resolve(self, con: sqlite3.Connection, evening_id: int | None) -> int:
        if evening_id is None:
            row = con.execute("SELECT id FROM evenings ORDER BY id DESC LIMIT 1").fetchone()
            if row is None:
                raise ScorebookError("还没有开始记分 (no evening started yet)")
            return int(row[0])
        self._evening(con, evening_id)
        return int(evening_id)

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
    if preset not in DEALER_RULES:
        raise ScorebookError(f"未知规则 {preset!r} (unknown preset)")
    _check_seat(dealer, "庄家 dealer")
    return clean_names(names or {})


def clean_names(names: Mapping[str, str]) -> dict[str, str]:
    """Names per seat, trimmed and at most MAX_NAME_LEN characters; an empty name is the seat's name."""
    unknown = set(names) - set(SEATS)
    if unknown:
        raise ScorebookError(f"座位只能是 东南西北 (E S W N), not {sorted(unknown)}")
    out = {}
    for s in SEATS:
        raw = names.get(s)
        name = " ".join(str(raw).split()) if raw is not None else ""
        if len(name) > MAX_NAME_LEN:
            raise ScorebookError(f"{seat_name(s)}的名字太长 (at most {MAX_NAME_LEN} characters)")
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


def _check_seat(seat: object, what: str) -> str:
    if seat not in SEATS:
        raise ScorebookError(f"{what} 必须是 E/S/W/N, not {seat!r}")
    return str(seat)


def _payments(result: Mapping) -> dict[str, int]:
    if not result.get("valid"):
        raise ScorebookError("只能记入能胡的牌 (only a valid, scored win can be recorded)")
    pay = result.get("payments")
    if not isinstance(pay, Mapping) or set(pay) - set(SEATS):
        raise ScorebookError("结果里没有四家的输赢 (the result has no payments per seat)")
    out = {}
    for s in SEATS:
        v = pay.get(s, 0)
        if not isinstance(v, int) or isinstance(v, bool):
            raise ScorebookError(f"{seat_name(s)}的输赢不是整数 (payment {v!r})")
        out[s] = v
    if sum(out.values()) != 0:
        raise ScorebookError(f"四家输赢加起来不是 0 (payments {out} do not sum to 0)")
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
        hand=json.loads(row[10]) if row[10] else None,
        result=json.loads(row[11]) if row[11] else None,
        payments=dict(zip(SEATS, row[12:16], strict=True)),
        duplicate=duplicate,
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
