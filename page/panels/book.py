"""The evening's scorebook on the page: names, totals, who deals next, history, and the actions
that change the evening (黄庄, 撤销, 新的一晚, reopen) — each asks first or can be undone."""

from __future__ import annotations

import streamlit as st

from page import hand_sync, name_form
from page.hand_session import HandSession
from page.names import seat_words
from page.panels.common import STORE, hand, say, tr
from page.panels.evening import at_a_glance
from page.scorebook import Scorebook, ScorebookError, Standing, default_path
from page.words import Words, plain
from rules.hand import SEATS

CONFIRM = "book_confirm"  # the evening action waiting for its 确定
UNDONE = "book_undone"  # the last hand taken back by 撤销, offered as 恢复


@st.cache_resource(show_spinner=False)
def _open(path: str) -> Scorebook:
    return Scorebook(path)


def open_book() -> tuple[Scorebook | None, Words | None]:
    """The scorebook, or None and why in words (corrupt, read-only, full disk …): scoring goes on."""
    try:
        return _open(str(default_path())), None
    except ScorebookError as exc:  # every fault of the file comes as one, in words
        return None, exc.words


def standing_now(book: Scorebook | None) -> tuple[object | None, object | None, Words | None]:
    """(evening, standing, problem): what the page needs of the book on every run."""
    if book is None:
        return None, None, None
    try:
        ev = book.current()
        return ev, (book.standing(ev.id) if ev else None), None
    except ScorebookError as exc:
        return None, None, exc.words


def next_deal(standing: Standing | None) -> tuple[str | None, int]:
    """(dealer, 长毛 count) the scorebook carries into a new hand."""
    if standing is None:
        return None, 0
    return standing.dealer, standing.draws


def names_of(ev) -> dict[str, str]:
    return {s: n for s, n in (ev.names if ev else {}).items() if n and n != seat_words(s).zh}


def _guard(action, *args) -> bool:
    """Run a scorebook change from a callback; its failure is kept to be said on the page."""
    try:
        action(*args)
    except ScorebookError as exc:
        st.session_state["book_error"] = exc.words
    except Exception as exc:  # noqa: BLE001
        st.session_state["book_error"] = Words(f"没做成：{exc}", f"Not done: {exc}")
    else:
        return True
    return False


def panel(book: Scorebook | None, book_problem: Words | None, ev, standing) -> None:
    """今晚的记分本: names per seat, totals, who deals next, the evening's actions, history."""
    ss = st.session_state
    if book_problem is not None:
        say("warning", Words("记分本用不了：", "The scorebook cannot be used: ") + book_problem)
    if ss.get("book_error"):
        say("error", ss.pop("book_error"))
    if book is None:
        return
    title = tr("今晚的记分本", "Tonight's scorebook")
    if standing is not None:
        title += " · " + " · ".join(
            f"{tr(seat_words(s, short=True))}{standing.totals.get(s, 0):+d}" for s in SEATS
        )
    with st.expander(plain(title), expanded=bool(ss.get(CONFIRM) or ss.get(UNDONE)), key="sec_book"):
        _names(book, ev)
        if ev is None:
            st.caption(
                tr(
                    "还没开始：记第一局时自动开始，也可以先写名字。",
                    "Not started: it starts with the first recorded hand.",
                )
            )
            _reopen(book, ev)
            return
        st.markdown(
            plain(
                tr(
                    f"下一局庄家：{ev.label(standing.dealer)}",
                    f"Next dealer: {seat_words(standing.dealer).en}",
                )
            )
        )
        for s in SEATS:
            st.markdown(
                plain(
                    f"{tr(Words(ev.label(s), seat_words(s).en + _en_name(ev, s)))}  {standing.totals.get(s, 0):+d}"
                )
            )
        hist = book.history(ev.id)
        at_a_glance(ev, hist)  # the running totals as a chart, 分享这一晚
        _actions(book, ev, hist)
        for h in reversed(hist[-10:]):
            who = tr("黄庄", "draw") if h.is_draw else tr(seat_words(h.winner))
            pays = " ".join(f"{tr(seat_words(s, short=True))}{v:+d}" for s, v in h.payments.items())
            st.caption(plain(f"{tr(f'第 {h.number} 局', f'Hand {h.number}')} · {who} · {pays}"))
        _reopen(book, ev)


def _en_name(ev, seat: str) -> str:
    name = ev.names.get(seat, "")
    return f" {name}" if name and name != seat_words(seat).zh else ""


def _names(book: Scorebook, ev) -> None:
    """The players' names; 保存名字 changes only the seats typed on this phone (`page.name_form`)."""
    keys = name_form.sync_fields(st.session_state, name_form.shown_names(ev.names if ev else {}))
    with st.form("names", border=False):
        typed = {s: st.text_input(tr(seat_words(s)), key=keys[s], max_chars=16) for s in SEATS}
        if st.form_submit_button(tr("保存名字", "Save names")):
            _guard(name_form.save_names, book, typed, name_form.drawn_names(st.session_state), hand().preset)
            st.rerun()


def _actions(book: Scorebook, ev, hist) -> None:
    """黄庄, 撤销上一局, 新的一晚: a first tap asks, 确定 does it; 撤销 can itself be taken back."""
    ss = st.session_state
    asking = ss.get(CONFIRM)
    if asking:
        words = {
            "draw": Words(
                "记一局黄庄（没人胡，庄家不变）？", "Record a drawn hand (nobody won, the dealer stays)?"
            ),
            "undo": Words("撤销上一局？", "Take back the last hand?"),
            "new_evening": Words(
                "开始新的一晚？今晚的分数会留在记分本里，可以再打开。",
                "Start a new evening? Tonight's scores stay in the book and can be reopened.",
            ),
        }[asking]
        say("warning", words)
        with st.container(horizontal=True, key="confirm_row"):
            st.button(
                tr("确定", "Yes"),
                key="confirm_yes",
                type="primary",
                on_click=_confirmed,
                args=(book, ev, asking, ss.get(hand_sync.SYNCED_REV)),
            )
            st.button(tr("取消", "Cancel"), key="confirm_no", on_click=ss.pop, args=(CONFIRM, None))
        return
    undone = ss.get(UNDONE)
    if undone is not None and undone.evening_id == ev.id:
        again = next((h for h in hist if undone.photo_hash and h.photo_hash == undone.photo_hash), None)
        if again is not None:  # recorded again since: putting it back would count it twice
            st.caption(
                plain(
                    tr(
                        f"撤销的第 {undone.number} 局已经重新记为第 {again.number} 局。",
                        f"The hand taken back is recorded again as hand {again.number}.",
                    )
                )
            )
        else:
            st.caption(plain(tr(f"已撤销第 {undone.number} 局。", f"Hand {undone.number} was taken back.")))
            st.button(tr("恢复刚撤销的一局", "Put it back"), key="restore", on_click=_restore, args=(book,))
    with st.container(horizontal=True, key="book_actions"):
        st.button(
            tr("黄庄（没人胡）", "Drawn hand"), key="draw", on_click=ss.__setitem__, args=(CONFIRM, "draw")
        )
        if hist:
            st.button(
                tr("撤销上一局", "Undo the last hand"),
                key="undo",
                on_click=ss.__setitem__,
                args=(CONFIRM, "undo"),
            )
            st.download_button(
                tr("导出 CSV", "Export CSV"), book.export_csv(ev.id), "scorebook.csv", "text/csv", key="csv"
            )
        st.button(
            tr("新的一晚", "New evening"),
            key="new_evening",
            on_click=ss.__setitem__,
            args=(CONFIRM, "new_evening"),
        )


def _confirmed(book: Scorebook, ev, action: str, drawn_rev: int | None) -> None:
    """确定: 黄庄 and 新的一晚 write the book and the next, fresh hand in one transaction, and only
    while the table's hand is still the one this phone drew (a second press, or a press after the
    other phone moved on, records nothing)."""
    ss = st.session_state
    ss.pop(CONFIRM, None)
    ss.pop(UNDONE, None)
    h = hand()
    fresh = hand_sync.FreshHand(ss, ss.get(STORE), lambda standing: _fresh(h, standing), drawn_rev)
    if action == "draw":
        if _guard(book.record_draw, ev.id, None, fresh.then):
            fresh.settle()
    elif action == "undo":
        try:
            ss[UNDONE] = book.undo_last(ev.id)
        except ScorebookError as exc:
            ss["book_error"] = exc.words
    elif action == "new_evening" and _guard(
        book.start_evening, ev.names, ev.preset, ev.first_dealer, fresh.then
    ):
        fresh.settle()


def _fresh(last: HandSession, standing: Standing) -> HandSession:
    """The next hand as the book now says: its dealer, the 长毛 count, its evening; the table's rule
    set and options stay."""
    nxt = HandSession(last.preset, last.options)
    nxt.new_hand(standing.dealer, standing.draws, standing.evening.id)
    return nxt


def _restore(book: Scorebook) -> None:
    _guard(book.restore, st.session_state.pop(UNDONE))


def _reopen(book: Scorebook, ev) -> None:
    """An earlier evening can be made the current one again (a 新的一晚 tapped by mistake)."""
    try:
        others = [e for e in book.evenings() if ev is None or e.id != ev.id]
    except ScorebookError:
        return
    if not others:
        return
    with st.popover(tr("打开以前的一晚", "Reopen an earlier evening")):
        for e in others[:8]:
            who = "、".join(e.label(s) for s in SEATS)
            st.button(
                plain(f"{e.started_at[:16].replace('T', ' ')} · {who}"),
                key=f"reopen_{e.id}",
                on_click=_guard,
                args=(book.reopen, e.id),
            )
