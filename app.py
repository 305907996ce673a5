"""辽宁麻将计分 — the Streamlit page. Widgets only: every decision is in `page/` and unit-tested there.

Phone first (390 px), Chinese first (an English toggle): photo → the tiles as a strip of pictures
(tap one, fix it on the tile keyboard) → the score at once → the situation and the details below.
A new photo is a new hand (the situation goes back to its defaults, the dealer as the scorebook
says). State lives in st.session_state: the `page.photo_state.Photo` of the current photo and the
situation's widget keys (`page.situation_form`); every change to the tiles happens in a button
callback, before the page is drawn, so the photo's boxes never lag one interaction behind.

Environment: MAHJONG_MODEL (model.json or .pt; default models/model.json), MAHJONG_DETECTOR
("module:function" taking an RGB array and returning detections; used by tests), MAHJONG_LABELLED_DIR
(where "save for training" writes; default datasets/labelled), MAHJONG_PERSONAL_DIR (personal models
made by 学习我的牌), MAHJONG_SCOREBOOK / MAHJONG_DATA_DIR (the scorebook file, see page.scorebook).
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import streamlit as st

import rules
from page import keyboard as kb
from page import learn
from page import situation_form as form
from page.annotate import display_scale, draw_marks, marks_for, shrink, tile_crop
from page.box import player_box
from page.detector_loader import Detector, model_detector, plugin_detector
from page.explain import explain_error, explain_invalid, fan_rows, hun_lines, payments, waits_line
from page.photo_state import (
    UPLOAD_TYPES,
    Photo,
    Saved,
    box_right_of,
    boxes_signature,
    photo_key,
    read_photo,
    sample_photo,
    typed_hand,
)
from page.preset_view import item_help, item_name_en, option_help, option_label, preset_label, value_label
from page.roles import ROLE_WORDS, ROLES, changed_count, default_winning, meld_kind, winner_tiles_from_boxes
from page.serve import require_pin
from page.situation import Situation, WinnerTiles, build_hand, contradictions, count_check
from page.words import Words, plain
from rules.hand import SEATS
from rules.names import KIND_ZH, seat_name, tile_name
from rules.result import ScoreResult
from vision import _env  # noqa: F401,I001  (offline ultralytics settings before anything imports it)
from vision.classes import FACE_NAMES

ROOT = Path(__file__).resolve().parent
DISPLAY_SIDE = 1280
MAX_TILES_SHOWN = 60
THUMB_H = 56


# ------------------------------------------------------------------------------------------ words


def lang() -> str:
    return "en" if st.session_state.get("lang_en") else "zh"


def tr(zh: str | Words, en: str | None = None) -> str:
    """The sentence in the page's language: tr(Words) or tr("中文", "English")."""
    if isinstance(zh, Words):
        return zh.pick(lang())
    return en if (lang() == "en" and en is not None) else zh


def say(kind: str, words: Words | str) -> None:
    """A message box whose text is shown literally (it may quote what the player typed)."""
    text = tr(words) if isinstance(words, Words) else words
    getattr(st, kind)(plain(text))


# ------------------------------------------------------------------------------------------ model


def get_detector() -> tuple[Detector | None, Words | None]:
    """The detector (the personal one when the player chose it), or None with a plain reason.

    Not cached itself: a missing model is looked for again on the next run; loading is cached per
    (file, modification time), once for the whole server (st.cache_resource)."""
    plug = os.environ.get("MAHJONG_DETECTOR")
    if plug:
        return _plugin_detector(plug), None
    from vision import detect as vdetect

    personal = st.session_state.get("personal_model")
    path = Path(personal or os.environ.get("MAHJONG_MODEL") or vdetect.DEFAULT_MODEL)
    if not path.is_file():
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        return None, Words(
            f"没有安装认牌模型（缺 {shown}），照片不会自动认牌。请在下面输入牌——计分一样。",
            f"No tile-reading model is installed ({shown} is missing), so photos are not read automatically. "
            "Type the tiles below instead — scoring works the same.",
        )
    try:
        return _model_detector(str(path), path.stat().st_mtime_ns), None
    except Exception as exc:  # noqa: BLE001 - a broken model must not break the page
        name = type(exc).__name__
        return None, Words(
            f"认牌模型加载失败（{name}）。请在下面输入牌。",
            f"The tile-reading model could not be loaded ({name}: {exc}). Type the tiles below instead.",
        )


@st.cache_resource(show_spinner=False)
def _plugin_detector(plug: str) -> Detector:
    return plugin_detector(plug)


@st.cache_resource(show_spinner=False)
def _model_detector(path: str, mtime_ns: int) -> Detector:
    """Load once per model file version (`mtime_ns` is only the cache key)."""
    return model_detector(path)


@st.cache_resource(show_spinner=False)
def _sample(version: str | None, _detector: Detector | None) -> Photo:
    """The bundled sample, read once per model for the whole server; each session gets a copy."""
    return sample_photo(_detector)


# ------------------------------------------------------------------------------------------ style

_CSS = """
<style>
.block-container {padding-top: 3.2rem; padding-bottom: 4rem;}
@media (max-width: 640px) {
  .block-container {padding-left: .7rem; padding-right: .7rem; padding-top: 2.6rem;}
  h1 {font-size: 1.5rem !important;}
}
.st-key-strip {gap: 4px !important;}
[class*="st-key-card_"] {gap: 2px !important;}
[class*="st-key-card_"] img {border-radius: 4px;}
[class*="st-key-pick"] button {min-height: 2rem; padding: 0 2px; width: 48px; font-size: 14px;}
[class*="st-key-pickq_"] button {background: #fff3e0; border: 2px solid #ff8c00; color: #b35c00;}
[class*="st-key-cardx_"] {opacity: .45;}
[class*="st-key-kbrow"] {gap: 3px !important; flex-wrap: nowrap !important;}
[class*="st-key-kb_"] button, [class*="st-key-sug_"] button {
  min-width: 0; width: 100%; min-height: 2.9rem; padding: 0 1px; font-size: 15px; line-height: 1.05;
  background: #fffdf5; border: 1px solid #b9b2a0; border-radius: 6px; box-shadow: 0 2px 0 #d8d2c0;
}
[class*="st-key-kb_"] {flex: 1 1 0; min-width: 0;}
[class*="st-key-kb_"] button[data-testid="stBaseButton-primary"] {background: #ffebee; border: 2px solid #c62828;}
[class*="st-key-sug_"] button {min-height: 3.2rem; font-size: 18px; border: 2px solid #ff8c00;}
.st-key-score [data-testid="stMarkdownContainer"] p {margin-bottom: .25rem;}
</style>
"""


def _key_css() -> str:
    """Each keyboard key in its suit's ink (万 red, 饼 blue, 条 green)."""
    rules_ = [
        f'[class*="st-key-kb_{c}"] button, [class*="st-key-sug_{c}_"] button {{color: {kb.colour(c)};}}'
        for row in kb.ROWS
        for c in row
    ]
    return "<style>" + "\n".join(rules_) + "</style>"


# ------------------------------------------------------------------------------------------ photo


def photo_input(detector: Detector | None) -> Photo:
    """Upload / camera; a new photo (new hash) is read once, replaces the current one and starts a new hand."""
    ss = st.session_state
    n = ss.get("hand_no", 0)
    up = st.file_uploader(
        tr("拍照或选一张胡牌的照片", "Photo of the winning hand"), type=UPLOAD_TYPES, key=f"upload_{n}"
    )
    cam = None
    if st.toggle(tr("用相机拍", "Use the camera"), key="use_camera"):
        cam = st.camera_input(tr("拍下赢家的牌", "Take a photo of the winning hand"), key=f"camera_{n}")
    src = up or cam
    if src is not None:
        data = src.getvalue()
        key = photo_key(data)
        current = ss.get("photo")
        if current is None or current.key != key:
            with st.spinner(tr("正在认牌…", "Reading the tiles…")):
                ss.photo = read_photo(data, getattr(src, "name", "camera.jpg"), detector)
            start_new_hand(announce=True)
    elif "photo" not in ss:
        with st.spinner(tr("正在读取示例照片…", "Reading the sample photo…")):
            ss.photo = copy.deepcopy(_sample(getattr(detector, "version", None), detector))
        form.apply_sample(ss, ss.photo.sample["situation"])
    return ss.photo


def start_new_hand(announce: bool) -> None:
    """Every per-hand input back to its default; the dealer (and the 长毛 count of drawn hands before
    this one) as the scorebook carries them."""
    dealer, draws = None, 0
    book = scorebook()
    if book is not None:
        try:
            ev = book.current()
            standing = book.standing(ev.id) if ev else None
        except Exception:  # noqa: BLE001 - a scorebook problem must not block scoring
            standing = None
        if standing is not None:
            dealer, draws = standing.dealer, int(getattr(standing, "draws", 0) or 0)
    ss = st.session_state
    form.new_hand(ss, dealer)
    if draws and form.PREFIX + "changmao" in ss:  # only presets with 长毛 have the field
        ss[form.PREFIX + "changmao"] = draws
    if announce:
        d = seat_name(ss[form.PREFIX + "dealer"])
        ss["new_hand_note"] = Words(
            f"新的一局：本局情况已重置（庄家 {d}，自摸，没有混指示牌）。",
            f"A new hand: the situation is back to its defaults (dealer {d}, self-draw, no 混 indicator).",
        )


def new_hand_button() -> None:
    """新的一局: clear the photo and the situation (the uploader gets a fresh key, so it empties)."""

    def go() -> None:
        ss = st.session_state
        ss["hand_no"] = ss.get("hand_no", 0) + 1
        ss.photo = Photo(key="none", name="")
        start_new_hand(announce=True)

    st.button(tr("新的一局", "New hand"), key="new_hand", on_click=go)


def show_photo(photo: Photo, note: Words | None) -> None:
    """The photo with numbered boxes in their current state, and the notes about this reading."""
    if note:
        say("info", note)
    if photo.error:
        say("error", photo.error)
        return
    for n in photo.notes:
        say("info", n)
    if photo.rgb is None:
        return
    if photo.display is None:  # scale a 12 MP photo once, not on every correction
        photo.display = shrink(photo.rgb, DISPLAY_SIDE)
        photo.display_scale = display_scale(photo.rgb.shape[1], photo.rgb.shape[0], DISPLAY_SIDE)
    marks = marks_for(photo.boxes, winning=photo.winning, picked=photo.picked)
    drawn = draw_marks(photo.display, marks, photo.display_scale)
    h, w = photo.rgb.shape[:2]
    caption = f"{plain(photo.name)} · {w}×{h} · " + tr(f"{len(marks)} 张", f"{len(marks)} boxes")
    if photo.seconds is not None:
        caption += tr(f" · 认牌 {photo.seconds:.2f} 秒", f" · read in {photo.seconds:.2f} s")
    shown, tapped = photo_with_taps(drawn, photo.widget_prefix)
    if not shown:
        st.image(drawn, width="stretch")
    elif tapped is not None:
        i = kb.box_at(photo.boxes, tapped[0] * w, tapped[1] * h)
        if i is not None and i != photo.picked:
            photo.picked = i
            st.rerun()  # draw the photo and the strip again with the tapped tile picked
    st.caption(caption)
    if photo.model_reading:
        with st.expander(tr("模型自己认的示例", "The detector's own reading of the sample")):
            st.image(
                draw_marks(photo.display, marks_for(photo.model_reading), photo.display_scale),
                caption=tr("模型认的：", "As read by the model: ")
                + " ".join(tile_name(b.cls) for b in photo.model_reading),
                width="stretch",
            )


_TAP_JS = """
export default function(component) {
  const { data, setTriggerValue, parentElement } = component;
  const img = parentElement.querySelector("img.mj-tap");
  img.src = data.src;
  img.alt = data.alt;
  img.onclick = (e) => {
    const r = img.getBoundingClientRect();
    setTriggerValue("tap", [(e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height]);
  };
}
"""


@st.cache_resource(show_spinner=False)
def _tap_component():
    """The photo as a tappable picture (st.components.v2: inline JS, no iframe, nothing fetched),
    registered once per server; None where this Streamlit has no v2 components."""
    try:
        from streamlit.components.v2 import component
    except ImportError:
        return None
    css = "img.mj-tap {width: 100%; display: block; border-radius: .5rem; cursor: pointer;}"
    return component(
        "mahjong_photo_tap", html='<img class="mj-tap" alt="">', css=css, js=_TAP_JS, isolate_styles=False
    )


def photo_with_taps(drawn, prefix: str) -> tuple[bool, tuple[float, float] | None]:
    """Show the drawn photo as a tappable picture: (shown, the tap as (x, y) in 0..1 of the photo on
    the run it happened, else None). Not shown where v2 components are missing: use st.image."""
    import base64
    import io

    from PIL import Image

    tap = _tap_component()
    if tap is None:
        return False, None
    buf = io.BytesIO()
    Image.fromarray(drawn).save(buf, format="JPEG", quality=85)
    src = "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    result = tap(
        data={"src": src, "alt": tr("照片", "photo")}, key=f"tap_{prefix}", on_tap_change=lambda: None
    )
    where = getattr(result, "tap", None)
    if isinstance(where, (list, tuple)) and len(where) == 2:
        return True, (float(where[0]), float(where[1]))
    return True, None


# ------------------------------------------------------------------------------------------ tiles


def _pick(i: int | None) -> None:
    st.session_state.photo.picked = i


def _set_face(i: int, face: str) -> None:
    """A face tapped on the keyboard: fix the tile and move on to the next one still in doubt."""
    photo: Photo = st.session_state.photo
    photo.boxes[i].set_face(face)
    photo.picked = kb.next_to_check(photo.boxes, i)


def _set_role(i: int, key: str) -> None:
    photo: Photo = st.session_state.photo
    role = st.session_state.get(key)
    if role in ROLES:
        photo.boxes[i].role = role
        if photo.winning == i and role != "hand":
            photo.winning = default_winning(photo.boxes)


def _set_winning(i: int) -> None:
    st.session_state.photo.winning = i


def tile_strip(photo: Photo) -> None:
    """Every tile as a picture cut from the photo with its name under it: tap to fix it."""
    boxes = photo.boxes
    pk = photo.widget_prefix
    if not boxes:
        return
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
        names = "、".join(f"{i + 1} {tile_name(boxes[i].cls)}" for i in check)
        head += tr(f" · 橙色的请看一眼：{names}", f" · check the orange tiles: {names}")
    st.caption(plain(head))
    with st.container(horizontal=True, key="strip", gap=None):
        for i in kb.strip_order(boxes)[:MAX_TILES_SHOWN]:
            b = boxes[i]
            state = "x" if not b.in_play else ("q" if b.needs_check else "")
            with st.container(key=f"card{state}_{pk}_{i}", width=48, gap=None):
                if b.xyxy is not None and photo.rgb is not None:
                    st.image(tile_crop(photo.rgb, b.xyxy, height=THUMB_H), width=44)
                label = f"{i + 1}·{_short(b.cls)}" if b.xyxy is not None else _short(b.cls)
                st.button(
                    label,
                    key=f"pick{state}_{pk}_{i}",
                    on_click=_pick,
                    args=(None if photo.picked == i else i,),
                    type="primary" if photo.picked == i else "secondary",
                )


def _short(code: str) -> str:
    """二万 → 2万 (short enough for a 48 px button); honours and 背 stay one character."""
    if code == "back":
        return "背"
    name = tile_name(code)
    return f"{code[0]}{name[-1]}" if code[0].isdigit() else name


def tile_keyboard(photo: Photo) -> None:
    """The tapped tile: one tap for the model's next guesses, its place, then the whole keyboard."""
    i = photo.picked
    if i is None or i >= len(photo.boxes):
        return
    b = photo.boxes[i]
    pk = photo.widget_prefix
    with st.container(border=True, key="keyboard"):
        top = tr(f"第 {i + 1} 张：{tile_name(b.cls)}", f"Tile {i + 1}: {tile_name(b.cls)}")
        if b.needs_check:
            top += tr("（没认准）", " (unsure)")
        st.markdown(f"**{plain(top)}**")
        sugg = kb.suggestions(b)
        if sugg:
            st.caption(tr("可能是：", "Maybe:"))
            with st.container(horizontal=True, key="sugrow", gap="small"):
                for c in sugg:
                    st.button(
                        kb.key_label(c), key=f"sug_{c}_{pk}_{i}", on_click=_set_face, args=(i, c), width=72
                    )
        role_key = f"role_{pk}_{i}"
        st.session_state[role_key] = b.role
        st.pills(
            tr("位置", "Place"),
            list(ROLES),
            format_func=lambda r: tr(ROLE_WORDS[r]),
            key=role_key,
            on_change=_set_role,
            args=(i, role_key),
        )
        if b.role == "hand" and photo.winning != i:
            st.button(
                tr("胡的是这张", "I won on this tile"), key=f"won_{pk}_{i}", on_click=_set_winning, args=(i,)
            )
        st.caption(tr("全部牌：", "All tiles:"))
        for r, row in enumerate(kb.ROWS):
            with st.container(horizontal=True, key=f"kbrow{r}", gap=None):
                for c in row:
                    st.button(
                        kb.key_label(c),
                        key=f"kb_{c}",
                        on_click=_set_face,
                        args=(i, c),
                        type="primary" if c == b.cls else "secondary",
                    )
        st.button(tr("收起", "Close"), key="kbclose", on_click=_pick, args=(None,), type="tertiary")


def add_tile(photo: Photo) -> None:
    """A tile the detector missed: its face, its place, and beside which tile it lies."""
    boxes = photo.boxes
    with st.form(f"add_{photo.widget_prefix}", clear_on_submit=True, border=False):
        face = st.selectbox(tr("牌", "Tile"), FACE_NAMES, format_func=tile_name, key="add_face")
        role = st.selectbox(
            tr("位置", "Place"), ROLES[:-1], format_func=lambda r: tr(ROLE_WORDS[r]), key="add_role"
        )
        beside_opts: list[int | None] = [None, *range(len(boxes))]
        hand = [i for i, b in enumerate(boxes) if b.role == "hand" and b.xyxy]
        default = beside_opts.index(max(hand, key=lambda i: boxes[i].xyxy[2])) if hand else 0  # type: ignore[index]
        beside = st.selectbox(
            tr("在哪张牌右边", "Right of tile"),
            beside_opts,
            index=default,
            format_func=lambda i: (
                tr("—（位置不知道）", "— (position unknown)")
                if i is None
                else f"{i + 1} {tile_name(boxes[i].cls)}"
            ),
            key="add_beside",
        )
        won = st.checkbox(tr("胡的就是这张", "This is the tile I won on"), key="add_won")
        if st.form_submit_button(tr("加上这张", "Add tile")):
            xyxy = None
            if beside is not None and boxes[beside].xyxy:
                xyxy = box_right_of(boxes[beside].xyxy, photo.rgb)  # type: ignore[arg-type]
            boxes.append(player_box(face, role, "added", xyxy))
            if won and role == "hand":
                photo.winning = len(boxes) - 1
            st.rerun()


def type_tiles(photo: Photo) -> None:
    """Manual entry: type the whole hand (no model, or a photo the reader cannot cope with)."""
    st.caption(
        tr(
            "牌写成 123m 55p 789s 中中中（m 万、p 饼、s 条；东南西北中发白）。副露：碰7p 吃345m 暗杠中。",
            "Write tiles like 123m 55p 789s 中中中 (m 万, p 饼, s 条; 东南西北中发白). Melds: 碰7p 吃345m 暗杠中.",
        )
    )
    conc = st.text_input(
        tr("手里立着的牌（包括胡的那张）", "Standing tiles, incl. the winning tile"), key="type_concealed"
    )
    win = st.text_input(tr("胡的那张", "The tile you won on"), key="type_winning", max_chars=4)
    melds = st.text_input(
        tr("赢家的副露（没有就空着）", "Your melds (吃/碰/杠), empty if none"), key="type_melds"
    )
    if st.button(tr("用这些牌", "Use these tiles"), key="type_go"):
        try:
            boxes, winning, kinds = typed_hand(conc, win, melds)
        except ValueError as exc:
            say("error", getattr(exc, "words", Words(str(exc), str(exc))))
            return
        photo.meld_kinds.update(kinds)
        photo.boxes = boxes
        photo.winning = winning
        photo.picked = None
        photo.rev += 1  # fresh widget keys for the new tile list
        st.rerun()


# ------------------------------------------------------------------------------------------ hand


def hand_tiles(photo: Photo) -> WinnerTiles:
    """The winner's tiles as the boxes say now (the winning tile guessed when unset)."""
    hand = [i for i, b in enumerate(photo.boxes) if b.role == "hand"]
    if photo.winning not in hand:
        photo.winning = default_winning(photo.boxes)
    return winner_tiles_from_boxes(photo.boxes, photo.winning, photo.meld_kinds, photo.kong_faces)


def hand_line(photo: Photo, tiles: WinnerTiles) -> None:
    """One line: 手牌 … · 碰 … · 胡 五万, the count check, and the reader's doubts."""
    parts = [tr("手牌 ", "Hand ") + (" ".join(tile_name(t) for t in tiles.concealed) or "—")]
    for kind, ts in tiles.melds:
        parts.append(f"{KIND_ZH[kind]} " + " ".join(tile_name(t) for t in ts))
    parts.append(tr("胡 ", "Won on ") + tile_name(tiles.winning))
    st.markdown(plain(" · ".join(parts)))
    doubts = photo.doubts
    if "standing" in doubts:
        say(
            "warning",
            Words(
                "请检查哪些是手牌：没认准手牌到哪里为止。", "Please check which tiles are the standing hand."
            ),
        )
    if "indicator" in doubts:
        say(
            "warning",
            Words("请检查混指示牌：点那张牌，位置选“混指示牌”。", "Please check the 混 indicator tile."),
        )
    if "winning" in doubts:
        say(
            "warning",
            Words("请检查胡的是哪张：点那张牌，再点“胡的是这张”。", "Please check which tile you won on."),
        )


def _store_choice(target: dict, role: str, key: str) -> None:
    """A meld's kind or a face-down kong's tile, stored before the page is drawn again (the score
    above the widget then already counts it)."""
    target[role] = st.session_state[key]


def meld_kinds(photo: Photo) -> None:
    """Each meld's kind (吃/碰/明杠/补杠/暗杠), asked where the reader was unsure."""
    pk = photo.widget_prefix
    for k in range(1, 5):
        role = f"meld{k}"
        members = [b.cls for b in photo.boxes if b.role == role]
        if not members:
            continue
        guess = meld_kind(members, photo.meld_kinds.get(role))
        unsure = f"meld {k - 1} kind" in photo.doubts or f"meld {k - 1} grouping" in photo.doubts
        kinds = list(KIND_ZH)
        label = tr(f"副露{k}", f"Meld {k}") + ": " + " ".join(tile_name(f) for f in members)
        if unsure:
            label += tr("——对吗？", " — is this right?")
        photo.meld_kinds[role] = st.radio(
            plain(label),
            kinds,
            index=kinds.index(guess) if guess in kinds else 1,
            format_func=KIND_ZH.get,
            horizontal=True,
            key=f"kind_{pk}_{role}",
            on_change=_store_choice,
            args=(photo.meld_kinds, role, f"kind_{pk}_{role}"),
        )
        if photo.meld_kinds[role] == "concealed_kong" and all(f == "back" for f in members):
            photo.kong_faces[role] = st.selectbox(
                tr(f"暗杠{k}是哪张牌？", f"Which tile is 暗杠 {k}?"),
                FACE_NAMES,
                format_func=tile_name,
                key=f"kongface_{pk}_{role}",
                on_change=_store_choice,
                args=(photo.kong_faces, role, f"kongface_{pk}_{role}"),
            )


# ------------------------------------------------------------------------------------------ situation


def _tile_choice(key: str, label: str, help_: str | None) -> None:
    opts = [None, *FACE_NAMES]
    st.selectbox(
        label,
        opts,
        format_func=lambda c: tr("—（没有）", "— none") if c is None else tile_name(c),
        key=key,
        help=help_ or None,
        placeholder=tr("请选一张牌", "Pick a tile"),
    )


def situation_inputs() -> None:
    """The situation, drawn from the field table (page.situation_form); values live in session state."""
    ss = st.session_state
    preset = ss[form.PRESET_FIELD.key]
    st.markdown(f"**{tr('这一局', 'This hand')}**")
    winner = ss[form.PREFIX + "winner"]
    for f in form.CORE_FIELDS:
        label = tr(f.label)
        if f.widget == "seat":
            st.segmented_control(label, list(SEATS), format_func=seat_name, key=f.key, required=True)
        elif f.widget == "win_by":
            st.segmented_control(
                label, list(form.WIN_BY), format_func=lambda w: tr(form.WIN_BY[w]), key=f.key, required=True
            )
        elif f.widget == "discarder":
            if ss[form.PREFIX + "win_by"] == "self_draw":
                continue
            choices = form.discarder_choices(winner)
            if ss.get(f.key) not in choices:
                ss[f.key] = choices[0]
            if ss[form.PREFIX + "win_by"] == "robbed_kong":
                label = tr("抢的谁的杠", "Robbed player")
            st.segmented_control(label, choices, format_func=seat_name, key=f.key, required=True)
        elif f.widget == "tile":
            _tile_choice(f.key, label, None)
    extras = form.preset_fields(preset)
    flags = [f for f in extras if f.widget == "flag"]
    if flags:
        with st.container(horizontal=True, key="flags"):
            for f in flags:
                st.checkbox(tr(f.label), key=f.key, help=tr(f.help) or None)
    for f in extras:
        if f.widget == "tile":
            _tile_choice(f.key, tr(f.label), tr(f.help))
        elif f.widget == "int":
            st.number_input(
                tr(f.label), f.minimum, f.maximum or None, key=f.key, step=1, help=tr(f.help) or None
            )


def rules_and_options() -> None:
    """The rule set and its options (the table's words, never the code keys), defaults shown."""
    ss = st.session_state
    import rules.presets as P

    st.selectbox(
        tr(form.PRESET_FIELD.label),
        list(P.PRESETS),
        format_func=lambda p: tr(preset_label(p)),
        key=form.PRESET_FIELD.key,
    )
    preset = ss[form.PRESET_FIELD.key]
    for name, opt in P.PRESETS[preset].options.items():
        key = form.option_key(preset, name)
        label = tr(option_label(preset, name))
        help_ = tr(option_help(preset, name)) or None
        if opt.int_or_null:
            ss.setdefault(key, opt.default)
            st.number_input(
                label + tr("（空着 = 不限）", " (empty = no limit)"), min_value=0, step=1, key=key, help=help_
            )
        else:
            st.selectbox(
                label,
                list(opt.values),
                format_func=lambda v, n=name: tr(value_label(preset, n, v)),
                key=key,
                help=help_,
            )


def loser_melds(winner: str, problems: list) -> None:
    st.caption(
        tr(
            "输家的副露，写成 碰7p 吃345m 明杠9m；空着 = 闭门。",
            "Losers' open melds, like 碰7p 吃345m 明杠9m; empty = closed (闭门).",
        )
    )
    for seat in form.discarder_choices(winner):
        st.text_input(seat_name(seat), key=form.melds_key(seat), placeholder=tr("闭门", "closed"))
    for p in problems:
        say("warning", p.text)


# ------------------------------------------------------------------------------------------ score


def score(tiles: WinnerTiles, sit: Situation) -> tuple[dict | None, ScoreResult | None, list[Words]]:
    """(hand JSON, result, why not scored): the engine's answer or the reasons it was not asked."""
    problems: list[Words] = []
    check = count_check(tiles)
    if not check.ok:
        problems.append(Words("还不能算：" + check.hint.zh, "Not scored yet — " + check.hint.en))
        if check.got == check.expected - 1:  # the winning tile is not in the photo: what it waits on
            waiting = waits_line(tiles, sit)
            if waiting is not None:
                problems.append(waiting)
        return None, None, problems
    found = contradictions(tiles, sit)
    if found:
        return None, None, [Words("还不能算：" + p.text.zh, "Not scored yet — " + p.text.en) for p in found]
    hand = build_hand(tiles, sit)
    try:
        return hand, rules.score(hand), []
    except rules.HandError as exc:
        e = explain_error(exc)
        return hand, None, [Words("还不能算：" + e.zh, "Not scored yet — " + e.en)]
    except Exception as exc:  # noqa: BLE001 - a scorer bug: say so, keep the JSON for the report
        name = type(exc).__name__
        return (
            hand,
            None,
            [
                Words(
                    f"计分出错了（{name}）。请把下面的牌局 JSON 发给我们。",
                    f"The scorer failed on this hand ({name}). Please send the hand JSON below as a bug report.",
                )
            ],
        )


def score_card(
    tiles: WinnerTiles, hand: dict | None, result: ScoreResult | None, problems: list[Words], sit: Situation
) -> None:
    """The score, high on the page: who wins how much and who pays what, in words."""
    with st.container(border=True, key="score"):
        if problems:
            for p in problems:
                say("warning", p)
            return
        if result is None:
            return
        if not result.valid:
            inv = explain_invalid(result, tiles)
            say(
                "error",
                Words(
                    f"这手牌不能胡：{inv.title.zh}。{_end(inv.missing.zh, '。')}",
                    f"This hand cannot win: {inv.title.en}. {_end(inv.missing.en, '.')}",
                ),
            )
            return
        names = evening_names()
        pays = payments(result, dealer=sit.dealer, names=names)
        hun = tile_name(rules.tiles.code(result.hun))
        st.markdown(
            plain(
                tr(
                    f"{seat_name(result.winner)} 胡 · {result.winner_fan_total} 番 · 混 {hun}",
                    f"{seat_name(result.winner)} wins · {result.winner_fan_total} 番 · 混 {hun}",
                )
            )
        )
        for p in pays:
            line = plain(tr(p.words))
            st.markdown(f"**{line}**" if p.seat == result.winner else line)
        with st.container(horizontal=True, vertical_alignment="center", key="score_actions"):
            record_button(hand, result)
            share(hand, result, names)


def _end(sentence: str, stop: str) -> str:
    """A sentence with one closing mark (no "?." when it already ends in a question)."""
    return sentence if sentence.endswith(("。", "？", "?", ".", "！", "!")) else sentence + stop


def share(hand: dict | None, result: ScoreResult, names: dict[str, str]) -> None:
    """分享: the result as a picture (tiles, 番, payments) and as text to paste into a chat."""
    try:
        from page.share import result_png, result_text
    except ImportError:
        return
    with st.popover(tr("分享", "Share")):
        try:
            text = result_text(result.to_dict(), hand, names)
            png = result_png(result.to_dict(), hand, names)
        except Exception as exc:  # noqa: BLE001 - sharing is extra: say so, never a traceback
            say("warning", Words(f"分享做不出来：{exc}", f"Sharing failed: {exc}"))
            return
        st.image(png, width="stretch")
        st.download_button(
            tr("下载图片", "Download picture"), png, "mahjong-result.png", "image/png", key="share_png"
        )
        st.code(text, language=None)


# ------------------------------------------------------------------------------------------ details


def details(tiles: WinnerTiles, hand: dict | None, result: ScoreResult | None, sit: Situation) -> None:
    """番 items (one line each), each 混, how each payment came about, the JSON."""
    if result is not None and result.valid:
        with st.expander(tr("番的明细", "番 items"), expanded=False):
            for r in fan_rows(result):
                side = tr("赢家", "winner") if r.side == "winner" else seat_name(r.side)
                name = (
                    r.name
                    if lang() == "zh"
                    else (item_name_en(result.preset, r.key, _side(r.side)) or r.name)
                )
                line = f"{side} · {name} {r.fan} 番"
                explain = tr(item_help(result.preset, r.key, _side(r.side)))
                st.markdown(plain(line) + (f"  \n{plain(explain)}" if explain else ""))
            st.caption(
                tr(
                    "赢家的番每个输家都算；输家自己的番只算在他自己那份里。",
                    "The winner's items count in every loser's payment; a loser's own items only in his.",
                )
            )
        with st.expander(tr("混和每份怎么算的", "混 and how each share was worked out")):
            lines = hun_lines(result)
            for w in lines:
                st.markdown(plain(tr(w)))
            if not lines:
                st.markdown(
                    plain(
                        tr(
                            f"这手牌里没有混（{tile_name(rules.tiles.code(result.hun))}）。",
                            f"No 混 ({tile_name(rules.tiles.code(result.hun))}) in this hand.",
                        )
                    )
                )
            for p in payments(result, dealer=sit.dealer):
                if p.how.zh:
                    st.markdown(plain(f"{seat_name(p.seat)}：{tr(p.how)}"))
    if hand is not None:
        with st.expander(
            tr("复制牌局 JSON（分享或报错用）", "Copy as hand JSON (for sharing or a bug report)")
        ):
            st.code(json.dumps(hand, ensure_ascii=False, indent=1), language="json")
            doc = {"hand": hand, "result": result.to_dict() if result is not None else None}
            st.download_button(
                tr("下载牌局和结果 JSON", "Download hand + result JSON"),
                json.dumps(doc, ensure_ascii=False, indent=1),
                file_name="mahjong-hand.json",
                mime="application/json",
            )


def _side(side: str) -> str:
    return "winner" if side == "winner" else "loser"


# ------------------------------------------------------------------------------------------ scorebook


@st.cache_resource(show_spinner=False)
def _scorebook(path: str):
    from page.scorebook import Scorebook

    return Scorebook(path)


def scorebook():
    """The evening's scorebook (None when the module is missing or the file cannot be opened)."""
    try:
        from page.scorebook import default_path
    except ImportError:
        return None
    try:
        return _scorebook(str(default_path()))
    except Exception:  # noqa: BLE001 - scoring works without a scorebook
        return None


def evening_names() -> dict[str, str]:
    book = scorebook()
    try:
        ev = book.current() if book else None
    except Exception:  # noqa: BLE001
        return {}
    return {s: n for s, n in (ev.names if ev else {}).items() if n and n != seat_name(s)}


def record_button(hand: dict | None, result: ScoreResult) -> None:
    """记入记分本: record this scored hand (once per photo and hand)."""
    book = scorebook()
    if book is None or hand is None:
        return
    photo: Photo = st.session_state.photo
    try:
        ev = book.current()
        done = book.find_photo(photo.key, ev.id) if ev else None
    except Exception as exc:  # noqa: BLE001
        say("warning", Words(f"记分本打不开：{exc}", f"The scorebook cannot be opened: {exc}"))
        return
    if done is not None and done.hand == hand:
        st.caption(plain(tr(f"已记入第 {done.number} 局", f"Recorded as hand {done.number}")))
        return

    def go() -> None:
        try:
            if book.current() is None:
                book.start_evening(preset=hand["preset"], dealer=hand.get("dealer", "E"))
            book.record_hand(hand, result.to_dict(), photo_hash=photo.key)
        except Exception as exc:  # noqa: BLE001 - shown, never a traceback
            st.session_state["book_error"] = str(exc)

    st.button(tr("记入记分本", "Record in the scorebook"), key="record", on_click=go, type="primary")
    if st.session_state.get("book_error"):
        say("error", Words("没记上：" + st.session_state.pop("book_error"), "Not recorded."))


def scorebook_panel() -> None:
    """今晚的记分本: names per seat, totals, who deals next, undo, history, CSV."""
    book = scorebook()
    if book is None:
        return
    try:
        ev = book.current()
        standing = book.standing(ev.id) if ev else None
    except Exception as exc:  # noqa: BLE001
        say("warning", Words(f"记分本打不开：{exc}", f"The scorebook cannot be opened: {exc}"))
        return
    title = tr("今晚的记分本", "Tonight's scorebook")
    if standing:
        totals = " · ".join(f"{seat_name(s)} {standing.totals.get(s, 0):+d}" for s in SEATS)
        title += f" · {totals}"
    with st.expander(plain(title)):
        if ev is None:
            st.caption(
                tr(
                    "还没开始：记第一局时自动开始，也可以先写名字。",
                    "Not started: it starts with the first recorded hand.",
                )
            )
        names = ev.names if ev else {}
        with st.form("names", border=False):
            typed = {
                s: st.text_input(
                    seat_name(s),
                    value=names.get(s, "") if names.get(s) != seat_name(s) else "",
                    key=f"name_{s}",
                    max_chars=16,
                )
                for s in SEATS
            }
            if st.form_submit_button(tr("保存名字", "Save names")):
                try:
                    if ev is None:
                        book.start_evening(typed, preset=st.session_state[form.PRESET_FIELD.key])
                    else:
                        book.rename(ev.id, typed)
                except Exception as exc:  # noqa: BLE001
                    say("error", str(exc))
                st.rerun()
        if standing is None:
            return
        st.markdown(
            plain(tr(f"下一局庄家：{ev.label(standing.dealer)}", f"Next dealer: {ev.label(standing.dealer)}"))
        )
        for s in SEATS:
            st.markdown(plain(f"{ev.label(s)}  {standing.totals.get(s, 0):+d}"))
        hist = book.history(ev.id)
        with st.container(horizontal=True, key="book_actions"):
            st.button(
                tr("黄庄（没人胡）", "Drawn hand (nobody won)"),
                key="draw",
                on_click=_book_draw,
                args=(ev.id,),
            )
            if hist:
                st.button(
                    tr("撤销上一局", "Undo the last hand"), key="undo", on_click=_book_undo, args=(ev.id,)
                )
                st.download_button(
                    tr("导出 CSV", "Export CSV"),
                    book.export_csv(ev.id),
                    "scorebook.csv",
                    "text/csv",
                    key="csv",
                )
                st.button(
                    tr("新的一晚", "New evening"), key="new_evening", on_click=_book_new_evening, args=(ev,)
                )
        if hist:
            for h in reversed(hist[-10:]):
                who = tr("黄庄", "draw") if h.is_draw else seat_name(h.winner)
                pays = " ".join(f"{seat_name(s)}{v:+d}" for s, v in h.payments.items())
                st.caption(plain(f"{tr(f'第 {h.number} 局', f'Hand {h.number}')} · {who} · {pays}"))


def _book_draw(evening_id: int) -> None:
    """黄庄: recorded (the dealer stays, 长毛 grows); the next photo starts the next hand."""
    book = scorebook()
    if book is not None:
        book.record_draw(evening_id)  # the hand after the last recorded one: the book knows its dealer
        start_new_hand(announce=True)


def _book_undo(evening_id: int) -> None:
    book = scorebook()
    if book is not None:
        book.undo_last(evening_id)


def _book_new_evening(ev) -> None:
    book = scorebook()
    if book is not None:
        book.start_evening(ev.names, preset=ev.preset)


# ------------------------------------------------------------------------------------------ training


def save_for_training(photo: Photo) -> None:
    """Store the corrected photo and boxes as training data; the message says what is on disk."""
    from vision.labelstore import DEFAULT_ROOT, LabelBox, save_example, yolo_rows

    boxes = [b for b in photo.boxes if b.role != "delete"]
    boxed = [b for b in boxes if b.xyxy is not None]
    if photo.rgb is None or not boxed:
        st.caption(
            tr(
                "保存用于训练需要一张框出了牌的照片。",
                "Saving for training needs a photo with tiles boxed on it.",
            )
        )
        return
    changed = changed_count(photo.boxes)
    sig = boxes_signature(photo.boxes)
    st.caption(
        tr(
            f"把照片和 {len(boxed)} 个改好的框（你改了 {changed} 个）存为训练数据。",
            f"Saves the photo and its {len(boxed)} corrected boxes ({changed} changed by you) as training data.",
        )
    )
    root = Path(os.environ.get("MAHJONG_LABELLED_DIR") or DEFAULT_ROOT)
    saved = photo.saved
    again = saved is not None and saved.signature != sig
    label = tr("保存修改", "Save the changes") if again else tr("保存用于训练", "Save for training")
    if (saved is None or again) and st.button(label, key=f"save_{photo.widget_prefix}"):
        label_boxes = [LabelBox(b.cls, tuple(b.xyxy)) for b in boxed]  # type: ignore[arg-type]
        try:
            res = save_example(
                photo.rgb,
                label_boxes,
                root,
                source_name=photo.name,
                model_version=photo.model_version,
                changed=changed,
                extra={
                    "added_boxes_estimated": sum(b.origin == "added" and b.xyxy is not None for b in boxes)
                },
            )
        except (OSError, ValueError) as exc:
            say("error", Words(f"没存上：{exc}", f"Could not save: {exc}"))
            return
        h, w = photo.rgb.shape[:2]
        want = yolo_rows(label_boxes, w, h)
        try:
            on_disk = Path(res.label).read_text().split("\n")[: len(want)] == want and len(
                Path(res.label).read_text().splitlines()
            ) == len(want)
        except OSError:
            on_disk = False
        photo.saved = saved = Saved(res, sig, on_disk)
        again = False
    if saved is None:
        return
    name = Path(saved.result.image).name
    if again:
        say(
            "info",
            Words(
                "保存后你又改了牌：点“保存修改”把改正后的版本存下来。",
                "You changed tiles after saving: press “Save the changes” to store the corrected version.",
            ),
        )
    elif saved.on_disk:
        version = int(getattr(saved.result, "version", 1) or 1)
        nth = Words(f"第 {version} 版，", f"version {version}, ") if version > 1 else Words("", "")
        say(
            "success",
            Words(
                f"已保存（{saved.result.split}）：{name}，{nth.zh}{saved.result.boxes} 个框，和现在的牌一致。",
                f"Saved to {saved.result.split}: {name}, {nth.en}{saved.result.boxes} boxes, as shown now.",
            ),
        )
    else:
        say(
            "warning",
            Words(
                f"这张照片以前存过（{saved.result.split}）；磁盘上还是以前的版本，这次的修改没有存进去。",
                f"This photo was saved before ({saved.result.split}); the disk still holds the earlier version, this fix was not stored.",
            ),
        )


@st.fragment(run_every=2)
def _learn_progress(run: str) -> None:
    """The running adapt job's progress bar, redrawn every 2 s on its own; the whole page once done."""
    prog = learn.progress(Path(run)) or {}
    if prog.get("done") or prog.get("error"):
        st.rerun(scope="app")
    msg = prog.get("message_en" if lang() == "en" else "message_zh") or tr("正在开始…", "Starting…")
    st.progress(min(1.0, max(0.0, float(prog.get("fraction") or 0.0))), text=plain(msg))


def learn_my_tiles() -> None:
    """学习我的牌: after a few saved photos, fine-tune a personal model in the background."""
    if not learn.available():
        return
    from vision.labelstore import DEFAULT_ROOT

    ss = st.session_state
    labelled = Path(os.environ.get("MAHJONG_LABELLED_DIR") or DEFAULT_ROOT)
    have, need = learn.saved_photos(labelled), learn.min_photos()
    run = ss.get("learn_run")
    with st.expander(tr("学习我的牌", "Learn my tiles")):
        if ss.get("personal_model"):
            st.success(tr("正在用你的牌识别（个人模型）。", "Reading with your own model."))
            if st.button(tr("换回原来的模型", "Switch back to the shipped model"), key="personal_off"):
                ss.pop("personal_model")
                st.rerun()
        if run:
            prog = learn.progress(Path(run)) or {}
            if prog.get("error"):
                say("error", Words(f"学习失败：{prog['error']}", f"Learning failed: {prog['error']}"))
                ss.pop("learn_run")
            elif prog.get("done") and learn.model_file(Path(run)):
                if st.button(
                    tr("用我的牌的模型认牌", "Read with my model"), key="personal_on", type="primary"
                ):
                    ss["personal_model"] = str(learn.model_file(Path(run)))
                    ss.pop("learn_run")
                    st.rerun()
            else:
                _learn_progress(run)
            return
        st.caption(
            tr(
                f"存了 {have} 张改好的照片；满 {need} 张后可以用它们教模型认你的牌（几分钟，在后台）。",
                f"{have} corrected photos saved; from {need} on, the model can learn your set from them (a few minutes, in the background).",
            )
        )
        if have >= need and st.button(tr("学习我的牌", "Learn my tiles"), key="learn_go"):
            try:
                ss["learn_run"] = str(learn.start(labelled))
            except OSError as exc:
                say("error", Words(f"没能开始：{exc}", f"Could not start: {exc}"))
            st.rerun()
        latest = learn.latest_model()
        if (
            latest
            and not ss.get("personal_model")
            and st.button(tr("用上次学好的模型", "Use the last personal model"), key="personal_last")
        ):
            ss["personal_model"] = str(latest)
            st.rerun()


# ------------------------------------------------------------------------------------------ page


def main() -> None:
    st.set_page_config(page_title="辽宁麻将计分", page_icon="🀄", layout="centered")
    if os.environ.get("MAHJONG_PIN"):
        get_detector()  # load the shared model before the gate, so make app-lan's warm-up loads it (shows nothing)
    require_pin()  # the PIN gate of `make app-lan` (page.serve); nothing without MAHJONG_PIN
    st.html(_CSS)
    st.html(_key_css())
    ss = st.session_state
    for k in [
        k for k in ss if isinstance(k, str) and k.startswith((form.PREFIX, form.OPTION_PREFIX, "name_"))
    ]:
        ss[k] = ss[k]  # keep the situation when its widgets are not drawn on a run (e.g. a bad photo)
    with st.container(horizontal=True, vertical_alignment="center", key="titlebar"):
        st.markdown(f"### {tr('辽宁麻将计分', 'Liaoning mahjong scorer')}")
        st.toggle("English", key="lang_en")
    status = st.empty()
    status.caption(tr("正在加载认牌模型…", "Loading the tile reader…"))
    detector, note = get_detector()
    status.empty()
    if ss.get("personal_model") and detector is not None:
        st.caption(tr("正在用你的牌识别", "Reading with your own model"))
    scorebook_panel()
    photo = photo_input(detector)
    form.fill_defaults(ss, ss.get(form.PRESET_FIELD.key, form.PRESET_FIELD.default))
    if ss.get("new_hand_note"):
        say("info", ss.pop("new_hand_note"))
    new_hand_button()
    show_photo(photo, note)
    if photo.error and not photo.boxes:
        type_tiles(photo)
        return
    tile_strip(photo)
    tile_keyboard(photo)
    tiles = hand_tiles(photo)
    hand_line(photo, tiles)
    sit, meld_problems = form.situation_from_state(ss)
    hand, result, problems = score(tiles, sit)
    score_card(tiles, hand, result, problems, sit)
    situation_inputs()
    with st.expander(tr("输家的副露", "Losers' melds"), expanded=bool(meld_problems)):
        loser_melds(sit.winner, meld_problems)
    if any(b.role.startswith("meld") for b in photo.boxes):
        with st.expander(
            tr("赢家的副露", "The winner's melds"), expanded=any(d.startswith("meld") for d in photo.doubts)
        ):
            meld_kinds(photo)
    details(tiles, hand, result, sit)
    with st.expander(tr("规则和选项", "Rules and options")):
        rules_and_options()
    with st.expander(tr("加一张没认出的牌", "Add a missed tile")):
        add_tile(photo)
    with st.expander(tr("直接输入牌", "Type the tiles instead"), expanded=not photo.boxes):
        type_tiles(photo)
    with st.expander(tr("保存用于训练", "Save for training")):
        save_for_training(photo)
    learn_my_tiles()


if __name__ == "__main__":  # streamlit runs the page as __main__; benchmarks import its helpers
    main()
