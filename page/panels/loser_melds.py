"""输家的副露 on the page: per seat a photo of his melds (read and proposed), his melds as tiles to
tap and fix on the tile keyboard, and the typed field as the fallback — all one truth, the seat's
meld text in the hand (`HandSession.inputs.loser_melds`)."""

from __future__ import annotations

import streamlit as st

from page.hand_session import KINDS
from page.loser_photo import melds_from_photo
from page.names import kind_words, seat_words
from page.panels.common import bind, hand, run, run_from, say, ticket, tr
from page.panels.model import get_detector
from page.panels.tiles import short, tile_keys
from page.photo_state import UPLOAD_TYPES, photo_key
from page.quick_entry import parse_melds
from page.words import Words, plain
from rules.hand import SEATS

PICK = "loser_tile_pick"  # (hand id, seat, meld, tile) whose keyboard is open
READ = "loser_photos_read"  # (hand id, seat) -> the photo already read (a rerun reads nothing again)
NOTE = "loser_photo_note"  # (hand id, seat) -> what the last photo proposed


def panel(problems: tuple[Words, ...]) -> None:
    """Every loser: photo, tiles, typed field; then the texts that cannot be read."""
    h = hand()
    st.caption(
        tr(
            "拍一张他摆出来的副露，或写成 碰7p 吃345m 明杠9m；空着 = 闭门。",
            "Take a photo of his laid-down melds, or type them like pong 7p, chow 345m, kong 9m; empty = closed.",
        )
    )
    for seat in SEATS:
        if seat == h.inputs.winner:
            continue
        st.markdown(f"**{plain(tr(seat_words(seat)))}**")
        _photo(seat)
        _tiles(seat)
        # hand() again: a photo just read was stored, and the hand shown is the stored one now
        key = bind(f"melds_{seat}", hand().inputs.loser_melds.get(seat, ""))
        st.text_input(
            tr(f"{seat_words(seat).zh}的副露（文字）", f"{seat_words(seat).en}'s melds (typed)"), key=key,
            placeholder=tr("闭门", "closed"), on_change=run_from, args=(key, "set_loser_melds", seat),
        )  # fmt: skip
    for p in problems:
        say("warning", p)


def _photo(seat: str) -> None:
    """A photo of this seat's melds: read once, proposed as his melds (the field below shows them)."""
    h = hand()
    ss = st.session_state
    up = st.file_uploader(
        tr(f"拍{seat_words(seat).zh}的副露", f"Photo of {seat_words(seat).en}'s melds"),
        type=UPLOAD_TYPES,
        key=f"lmup_{seat}_{h.id[:8]}",
    )
    read = ss.setdefault(READ, {})
    if up is not None:
        data = up.getvalue()
        key = photo_key(data)
        if read.get((h.id, seat)) != key:
            detector, _ = get_detector()
            with st.spinner(tr("正在认副露…", "Reading the melds…")):
                proposal = melds_from_photo(data, getattr(up, "name", "melds.jpg"), detector)
            read[(h.id, seat)] = key
            ss.setdefault(NOTE, {})[(h.id, seat)] = proposal.words
            if proposal.text:
                run(ticket(), "set_loser_melds", seat, proposal.text)
    note = ss.get(NOTE, {}).get((h.id, seat))
    if note is not None and up is not None:
        say("info", note)


def _tiles(seat: str) -> None:
    """His melds as tiles: one tap opens the tile keyboard on that tile (a 碰 changes as a whole)."""
    h = hand()
    ss = st.session_state
    try:
        melds = parse_melds(h.inputs.loser_melds.get(seat, ""))
    except ValueError:
        return  # the typed text cannot be read: its problem is said below the fields
    if not melds:
        return
    picked = ss.get(PICK)
    with st.container(horizontal=True, key=f"lmrow_{seat}", gap="small"):
        for k, (_kind, tiles) in enumerate(melds):
            with st.container(horizontal=True, key=f"lmmeld_{seat}_{k}", gap=None, width="content"):
                for j, code in enumerate(tiles):
                    here = (h.id, seat, k, j)
                    st.button(
                        short(code),
                        key=f"lmt_{seat}_{k}_{j}_{h.id[:6]}",
                        type="primary" if picked == here else "secondary",
                        on_click=ss.__setitem__,
                        args=(PICK, None if picked == here else here),
                    )
    if not (isinstance(picked, tuple) and picked[:2] == (h.id, seat) and picked[2] < len(melds)):
        return
    _, _, k, j = picked
    kind, tiles = melds[k]
    with st.container(border=True, key=f"keyboard_lm_{seat}"):
        key = bind(f"lmkind_{seat}_{k}", kind)
        st.segmented_control(
            tr(f"第 {k + 1} 组是", f"Meld {k + 1} is"), list(KINDS), format_func=lambda c: tr(kind_words(c)),
            key=key, on_change=run_from, args=(key, "set_loser_meld_kind", seat, k),
        )  # fmt: skip
        tile_keys(f"lm{seat}", tiles[min(j, len(tiles) - 1)], _fix, (ticket(), seat, k, j), with_back=False)
        st.button(
            tr("这组不是他的，删掉", "Not his: remove this meld"),
            key=f"lmdrop_{seat}_{k}_{h.id[:6]}",
            on_click=_drop,
            args=(ticket(), seat, k),
        )


def _fix(ticket_: str, seat: str, k: int, j: int, code: str) -> None:
    st.session_state.pop(PICK, None)
    run(ticket_, "set_loser_meld_face", seat, k, j, code)


def _drop(ticket_: str, seat: str, k: int) -> None:
    st.session_state.pop(PICK, None)
    run(ticket_, "drop_loser_meld", seat, k)
