"""The winner's tiles: the strip of tile pictures, the tile keyboard, melds, added and typed tiles."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from page import hand_sync
from page import keyboard as kb
from page.names import kind_words, tile_words, tiles_words
from page.panels.common import STORE, bind, hand, lang, run, run_from, say, ticket, tr
from page.photo_state import tile_thumbnail
from page.roles import ROLE_WORDS, ROLES
from page.situation import WinnerTiles
from page.words import Words, plain
from vision.classes import FACE_NAMES

MAX_TILES_SHOWN = 60
THUMB_H = 56
KINDS = ("chi", "pong", "kong", "added_kong", "concealed_kong")

_SCROLL_JS = """
export default function(component) {
  const { parentElement } = component;
  const box = parentElement.closest('[class*="st-key-keyboard"]') || parentElement;
  const place = () => {
    const head = document.querySelector('[data-testid="stHeader"]');
    const top = head ? Math.max(0, head.getBoundingClientRect().bottom) : 0;
    const r = box.getBoundingClientRect();
    if (r.top >= top && r.bottom <= window.innerHeight) return;
    const fits = r.height <= window.innerHeight - top;
    box.scrollIntoView({block: fits ? "nearest" : "start"});
  };
  place();
  setTimeout(place, 300);  // once the pictures above it have their height
}
"""


@st.cache_resource(show_spinner=False)
def _scroller():
    """A component that scrolls the tile keyboard into view when it opens (no iframe, nothing fetched)."""
    try:
        from streamlit.components.v2 import component
    except ImportError:
        return None
    return component("mahjong_scroll_into_view", html="<span></span>", js=_SCROLL_JS, isolate_styles=False)


def short(code: str) -> str:
    """二万 → 2万 (short enough for a 48 px button); honours and 背 stay one character."""
    if code == "back":
        return tr("背", "bk")
    w = tile_words(code)
    if lang() == "en":
        return code
    return f"{code[0]}{w.zh[-1]}" if code[0].isdigit() else w.zh


def strip() -> None:
    """Every tile as a picture cut from the photo with its name under it: tap to fix it."""
    h = hand()
    photo = h.photo
    boxes = photo.boxes
    if not boxes:
        return
    pk = photo.widget_prefix + h.id[:6]
    if len(boxes) > MAX_TILES_SHOWN:
        say(
            "warning",
            Words(
                f"认出了 {len(boxes)} 个框——远多于一手牌。只显示前 {MAX_TILES_SHOWN} 个。",
                f"{len(boxes)} boxes were read — far more than one hand. Showing the first {MAX_TILES_SHOWN}.",
            ),
        )
    check = photo.to_check()
    head = tr("点照片上或下面的一张牌来改", "Tap a tile on the photo or below to fix it")
    if check:
        names = "、".join(f"{i + 1} {tr(tile_words(boxes[i].cls))}" for i in check)
        head += tr(f" · 橙色的请看一眼：{names}", f" · check the orange tiles: {names}")
    st.caption(plain(head))
    with st.container(horizontal=True, key="strip", gap=None):
        for i in kb.strip_order(boxes)[:MAX_TILES_SHOWN]:
            b = boxes[i]
            state = "x" if not b.in_play else ("q" if b.needs_check else "")
            with st.container(key=f"card{state}_{pk}_{i}", width=48, gap=None):
                thumb = tile_thumbnail(photo, b.xyxy, THUMB_H)
                if thumb is not None:
                    st.image(thumb, width=44)
                label = f"{i + 1}·{short(b.cls)}" if b.xyxy is not None else short(b.cls)
                st.button(
                    label,
                    key=f"pick{state}_{pk}_{i}",
                    on_click=run,
                    args=(ticket(), "pick", None if photo.picked == i else i),
                    type="primary" if photo.picked == i else "secondary",
                )


def maybe_strip() -> None:
    """The boxes the reader doubted (Photo.maybe), each a picture cut from the photo: one tap adds
    it as a tile with the reader's face, one tap on 都不是 puts the rest away. Shown only while
    some are open; they never count until taken."""
    h = hand()
    photo = h.photo
    open_ = photo.open_maybe()
    if not open_:
        return
    pk = photo.widget_prefix + h.id[:6]
    st.caption(
        tr(
            "可能漏认的牌（照片上的虚线框）：是牌就点一下加上",
            "Maybe missed (dashed on the photo): tap one that is a tile to add it",
        )
    )
    with st.container(horizontal=True, key="maybe_strip", gap=None):
        for i in sorted(open_, key=lambda k: photo.maybe[k].xyxy[0] if photo.maybe[k].xyxy else 0.0):
            b = photo.maybe[i]  # left to right, as the tiles lie
            with st.container(key=f"maybecard_{pk}_{i}", width=48, gap=None):
                thumb = tile_thumbnail(photo, b.xyxy, THUMB_H)
                if thumb is not None:
                    st.image(thumb, width=44)
                st.button(
                    f"+{short(b.cls)}", key=f"maybe_{pk}_{i}", on_click=run, args=(ticket(), "take_maybe", i)
                )
        st.button(
            tr("都不是", "None of these"),
            key=f"maybe_none_{pk}",
            on_click=run,
            args=(ticket(), "drop_maybe", None),
        )


def tile_keys(
    target: str, current: str | None, on_pick: Callable, args: tuple, with_back: bool = True
) -> None:
    """The full tile keyboard (万, 饼, 条, honours): one tap calls on_pick(*args, code)."""
    for r, row in enumerate(kb.ROWS):
        with st.container(horizontal=True, key=f"kbrow{r}_{target}", gap=None):
            for c in row:
                if c == "back" and not with_back:
                    continue
                st.button(
                    tr(tile_words(c)) if lang() == "zh" else c,
                    key=f"kb_{c}_{target}",
                    on_click=on_pick,
                    args=(*args, c),
                    type="primary" if c == current else "secondary",
                )


def keyboard() -> None:
    """The tapped tile: one tap for the model's next guesses, its place, then the whole keyboard.
    It opens where the thumb is: scrolled into view when it is off the screen."""
    h = hand()
    photo = h.photo
    i = photo.picked
    if i is None or i >= len(photo.boxes):
        return
    b = photo.boxes[i]
    pk = photo.widget_prefix + h.id[:6]
    with st.container(border=True, key="keyboard"):
        scroll = _scroller()
        if scroll is not None:
            scroll(data={"i": i}, key=f"scroll_{pk}_{i}")
        top = tr(f"第 {i + 1} 张：{tile_words(b.cls).zh}", f"Tile {i + 1}: {tile_words(b.cls).en}")
        if b.needs_check:
            top += tr("（没认准）", " (unsure)")
        st.markdown(f"**{plain(top)}**")
        sugg = kb.suggestions(b)
        if sugg:
            st.caption(tr("可能是：", "Maybe:"))
            with st.container(horizontal=True, key="sugrow", gap="small"):
                for c in sugg:
                    st.button(
                        tr(tile_words(c)),
                        key=f"sug_{c}_{pk}_{i}",
                        on_click=run,
                        args=(ticket(), "set_face", i, c),
                        width=80,
                    )
        role_key = bind(f"role_{i}", b.role)
        st.pills(
            tr("位置", "Place"),
            list(ROLES),
            format_func=lambda r: tr(ROLE_WORDS[r]),
            key=role_key,
            on_change=run_from,
            args=(role_key, "set_role", i),
        )
        if b.role == "hand" and photo.winning != i:
            st.button(
                tr("胡的是这张", "I won on this tile"),
                key=f"won_{pk}_{i}",
                on_click=run,
                args=(ticket(), "set_winning", i),
            )
        st.caption(tr("全部牌：", "All tiles:"))
        tile_keys("face", b.cls, run, (ticket(), "set_face", i))
        st.button(
            tr("收起", "Close"), key="kbclose", on_click=run, args=(ticket(), "pick", None), type="tertiary"
        )


def hand_line(tiles: WinnerTiles) -> None:
    """One line: 手牌 … · 碰 … · 胡 五万, and the reader's doubts."""
    h = hand()
    parts = [tr("手牌 ", "Hand ") + (tr(tiles_words(tiles.concealed)) or "—")]
    for kind, ts in tiles.melds:
        parts.append(f"{tr(kind_words(kind))} " + tr(tiles_words(ts)))
    if tiles.winning is not None:
        parts.append(tr("胡 ", "Won on ") + tr(tile_words(tiles.winning)))
    st.markdown(plain(" · ".join(parts)))
    doubts = h.photo.doubts
    if "standing" in doubts:
        say(
            "warning",
            Words(
                "请检查哪些是手牌：没认准手牌到哪里为止。", "Please check which tiles are the standing hand."
            ),
        )
    if "winning" in doubts and tiles.winning is not None:
        say(
            "warning",
            Words("请检查胡的是哪张：点那张牌，再点“胡的是这张”。", "Please check which tile you won on."),
        )


def meld_kinds() -> None:
    """Each of the winner's melds: its kind (吃/碰/明杠/补杠/暗杠), guessed again as tiles join it."""
    h = hand()
    photo = h.photo
    for k in range(1, 5):
        role = f"meld{k}"
        members = [b.cls for b in photo.boxes if b.role == role]
        if not members:
            continue
        guess = h.meld_kind_of(role)
        unsure = f"meld {k - 1} kind" in photo.doubts or f"meld {k - 1} grouping" in photo.doubts
        label = tr(f"副露{k}", f"Meld {k}") + ": " + tr(tiles_words(members))
        if unsure:
            label += tr("——对吗？", " — is this right?")
        key = bind(f"kind_{role}", guess)
        st.segmented_control(
            plain(label),
            list(KINDS),
            format_func=lambda c: tr(kind_words(c)),
            key=key,
            on_change=run_from,
            args=(key, "set_meld_kind", role),
        )
        if guess == "concealed_kong" and all(f == "back" for f in members):
            st.caption(tr(f"暗杠{k}是哪张牌？", f"Which tile is hidden kong {k}?"))
            tile_keys(
                f"kong{k}",
                photo.kong_faces.get(role),
                run,
                (ticket(), "set_kong_face", role),
                with_back=False,
            )


def add_tile() -> None:
    """A tile the detector missed: its face, its place, and beside which tile it lies."""
    h = hand()
    boxes = h.photo.boxes
    with st.form(f"add_{h.id[:8]}", clear_on_submit=True, border=False):
        face = st.selectbox(
            tr("牌", "Tile"), FACE_NAMES, format_func=lambda c: tr(tile_words(c)), key=f"add_face_{h.id[:8]}"
        )
        role = st.selectbox(
            tr("位置", "Place"),
            ROLES[:-1],
            format_func=lambda r: tr(ROLE_WORDS[r]),
            key=f"add_role_{h.id[:8]}",
        )
        beside_opts: list[int | None] = [None, *range(len(boxes))]
        standing = [i for i, b in enumerate(boxes) if b.role == "hand" and b.xyxy]
        default = beside_opts.index(max(standing, key=lambda i: boxes[i].xyxy[2])) if standing else 0  # type: ignore[index]
        beside = st.selectbox(
            tr("在哪张牌右边", "Right of tile"),
            beside_opts,
            index=default,
            format_func=lambda i: (
                tr("—（位置不知道）", "— (position unknown)")
                if i is None
                else f"{i + 1} {tr(tile_words(boxes[i].cls))}"
            ),
            key=f"add_beside_{h.id[:8]}",
        )
        won = st.checkbox(tr("胡的就是这张", "This is the tile I won on"), key=f"add_won_{h.id[:8]}")
        if st.form_submit_button(tr("加上这张", "Add tile")):
            run(ticket(), "add_tile", face, role, beside, won)
            st.rerun()


def type_tiles() -> None:
    """Manual entry: type the whole hand (no model, or a photo the reader cannot cope with)."""
    h = hand()
    st.caption(
        tr(
            "牌写成 123m 55p 789s 中中中（m 万、p 饼、s 条；东南西北中发白）。副露：碰7p 吃345m 暗杠中。",
            "Write tiles like 123m 55p 789s CCC (m wan, p dots, s bamboo; E S W N; C F P for Red, Green, White). Melds: pong 7p, chow 345m, concealed_kong C.",
        )
    )
    with st.form(f"type_{h.id[:8]}", border=False):
        conc = st.text_input(tr("手里立着的牌（包括胡的那张）", "Standing tiles, incl. the winning tile"))
        win = st.text_input(tr("胡的那张", "The tile you won on"), max_chars=4)
        melds = st.text_input(tr("赢家的副露（没有就空着）", "Your melds (chow, pong, kong), empty if none"))
        if st.form_submit_button(tr("用这些牌", "Use these tiles")):
            if not hand_sync.apply(
                st.session_state, st.session_state.get(STORE), ticket(), "type_hand", conc, win, melds
            ):
                say("error", st.session_state.pop(hand_sync.MESSAGE, Words("没用上", "Not used")))
                return
            st.rerun()
