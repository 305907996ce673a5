"""辽宁麻将计分 — the Streamlit page: a linear frame over the panels in `page/panels/`.

Phone first (390 px), Chinese first (an English toggle): photo → the score and the inputs it still
needs → the photo and its tiles (tap one, fix it on the tile keyboard) → the rest of the situation
and the details. The hand in progress is one `page.hand_session.HandSession`, kept on the server
(`page.hand_sync`), so a reload or a second phone of the table finds the same hand; the page holds no
logic of its own.

Environment: MAHJONG_MODEL (model.json or .pt; default models/model.json), MAHJONG_DETECTOR
("module:function" taking an RGB array and returning detections; used by tests), MAHJONG_LABELLED_DIR
(where "save for training" writes; default datasets/labelled), MAHJONG_PERSONAL_DIR (personal models
made by 学习我的牌), MAHJONG_SCOREBOOK / MAHJONG_DATA_DIR (the scorebook file, see page.scorebook;
the hand in progress is kept in the same file).
"""

from __future__ import annotations

import os

import streamlit as st

from page import hand_sync
from page.hand_session import HandSession
from page.hand_store import HandStore
from page.panels import book as book_panel
from page.panels import live as live_panel
from page.panels import loser_melds as loser_melds_panel
from page.panels import photo as photo_panel
from page.panels import score as score_panel
from page.panels import situation as situation_panel
from page.panels import tiles as tiles_panel
from page.panels import training as training_panel
from page.panels.common import STORE, say, style, tr
from page.panels.model import get_detector
from page.photo_state import decode_photo
from page.scorebook import ScorebookError, default_path
from page.serve import require_pin
from page.words import Words
from vision import _env  # noqa: F401,I001  (offline ultralytics settings before anything imports it)


@st.cache_resource(show_spinner=False)
def _hand_store(path: str) -> HandStore:
    return HandStore(path)


def hand_store() -> HandStore | None:
    """Where the table's hand in progress is kept (None when the file cannot be used: said above)."""
    try:
        return _hand_store(str(default_path()))
    except ScorebookError:  # the same file as the scorebook: its panel says why it cannot be used
        return None


def main() -> None:
    st.set_page_config(page_title="辽宁麻将计分", page_icon="🀄", layout="centered")
    if os.environ.get("MAHJONG_PIN"):
        get_detector()  # load the shared model before the gate, so make app-lan's warm-up loads it
    require_pin()  # the PIN gate of `make app-lan` (page.serve); nothing without MAHJONG_PIN
    ss = st.session_state
    with st.container(horizontal=True, vertical_alignment="center", key="titlebar"):
        st.markdown(f"### {tr('辽宁麻将计分', 'Liaoning mahjong scorer')}")
        st.toggle("English", key="lang_en")
    style()
    src = photo_panel.photo_source()  # the upload box first: drawn before the model and the sample
    status = st.empty()
    status.caption(tr("正在加载认牌模型…", "Loading the tile reader…"))
    detector, note = get_detector()
    status.empty()

    book, book_problem = book_panel.open_book()
    ev, standing, problem = book_panel.standing_now(book)
    store = hand_store()
    ss[STORE] = store
    hand = hand_sync.current_hand(ss, store, lambda: photo_panel.sample_hand(detector), decode_photo)
    deal = book_panel.next_deal(standing)
    evening = ev.id if ev else None
    if ss.pop("new_hand_asked", False):
        fresh = HandSession(hand.preset, hand.options)
        fresh.new_hand(*deal, evening=evening)
        hand_sync.replace_hand(ss, store, fresh)
        hand = ss[hand_sync.HAND]
    live_panel.watch(store, book)
    if ss.get(hand_sync.RESTORE_FAILED):
        say("warning", ss.pop(hand_sync.RESTORE_FAILED))
    if ss.get(hand_sync.MESSAGE):
        say("warning", ss.pop(hand_sync.MESSAGE))
    if ss.get(hand_sync.NOT_SAVED) and not hand.sample:
        say(
            "warning",
            Words(
                "这一局没能存到服务器上（刷新会丢）：",
                "This hand is not kept on the server (a reload loses it): ",
            )
            + ss[hand_sync.NOT_SAVED],
        )
    if ss.get("personal_model") and detector is not None:
        st.caption(tr("正在用你的牌识别", "Reading with your own model"))

    photo_panel.photo_input(src, detector, store, deal, evening)
    names = book_panel.names_of(ev)
    outcome = hand.evaluate(names)
    score_panel.card(outcome, book, ev, names)
    if ss.get("book_note"):
        say("success", ss.pop("book_note"))
    situation_panel.core()
    photo_panel.show_photo(note, outcome.tiles)
    tiles_panel.strip()
    tiles_panel.maybe_strip()
    tiles_panel.keyboard()
    tiles_panel.hand_line(outcome.tiles)
    st.button(
        tr("新的一局", "New hand"), key="new_hand", on_click=ss.__setitem__, args=("new_hand_asked", True)
    )
    book_panel.panel(book, book_problem or problem, ev, standing)
    with st.expander(tr("这一局的其他情况", "More about this hand"), key="sec_more"):
        situation_panel.more()
    opens = bool(outcome.meld_problems)  # a keyed section stays as left; a new problem opens it anew
    with st.expander(tr("输家的副露", "Losers' melds"), expanded=opens, key=f"sec_losers_{opens}"):
        loser_melds_panel.panel(outcome.meld_problems)
    if any(b.role.startswith("meld") for b in hand.photo.boxes):
        with st.expander(
            tr("赢家的副露", "The winner's melds"),
            expanded=(opens := any(d.startswith("meld") for d in hand.photo.doubts)),
            key=f"sec_winner_melds_{opens}",
        ):
            tiles_panel.meld_kinds()
    score_panel.details(outcome)
    with st.expander(tr("规则和选项", "Rules and options"), key="sec_rules"):
        situation_panel.rules_and_options()
    with st.expander(tr("加一张没认出的牌", "Add a missed tile"), key="sec_add"):
        tiles_panel.add_tile()
    opens = not hand.photo.boxes
    with st.expander(tr("直接输入牌", "Type the tiles instead"), expanded=opens, key=f"sec_type_{opens}"):
        tiles_panel.type_tiles()
    with st.expander(tr("保存用于训练", "Save for training"), key="sec_save"):
        training_panel.save_for_training()
    training_panel.learn_my_tiles()
    hand_sync.flush(ss, store)


if __name__ == "__main__":  # streamlit runs the page as __main__
    main()
