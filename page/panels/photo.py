"""The photo: upload or camera (a new photo is a new hand), and the photo drawn with its boxes."""

from __future__ import annotations

import base64
import copy
import io

import streamlit as st
from PIL import Image
from streamlit.runtime.uploaded_file_manager import UploadedFile

from page import hand_sync
from page import keyboard as kb
from page.annotate import display_scale, draw_marks, marks_for, shrink
from page.detector_loader import Detector
from page.hand_session import HandSession
from page.names import tiles_words
from page.panels import camera
from page.panels.common import hand, lang, run, say, ticket, tr
from page.panels.style import TARGET_PX
from page.photo_state import DISPLAY_SIDE, UPLOAD_TYPES, Photo, photo_key, read_photo, sample_photo
from page.situation import WinnerTiles
from page.words import Words, plain


@st.cache_resource(show_spinner=False)
def _sample(version: str | None, _detector: Detector | None) -> Photo:
    """The bundled sample, read once per model for the whole server; each session gets a copy."""
    return sample_photo(_detector)


def sample_hand(detector: Detector | None) -> HandSession:
    """The sample hand, shown (and scored) until the table starts its own; never recordable."""
    s = HandSession()
    s.show_sample(copy.deepcopy(_sample(getattr(detector, "version", None), detector)))
    return s


UPLOAD_GEN = "upload_gen"  # the upload box's generation: a new one is an empty box


def photo_source() -> UploadedFile | None:
    """The upload box and the camera, drawn first of all (before the model loads and the sample is
    scored: the first screen is there at once); the file or picture taken, else None. Its widget
    key changes once a file was used or refused, so no chip of an old file stays in the box."""
    gen = st.session_state.get(UPLOAD_GEN, 0)
    up = st.file_uploader(
        tr("拍照或选一张胡牌的照片", "Photo of the winning hand"),
        type=UPLOAD_TYPES,
        key=f"upload_{gen}",
        label_visibility="collapsed",
    )
    if st.toggle(tr("用相机拍", "Use the camera"), key="use_camera"):
        return up or camera.take(gen)
    return up


def _empty_box() -> None:
    st.session_state[UPLOAD_GEN] = st.session_state.get(UPLOAD_GEN, 0) + 1


def photo_input(
    src: UploadedFile | None,
    detector: Detector | None,
    store,
    dealer: tuple[str | None, int],
    evening: int | None,
) -> None:
    """The photo taken (`photo_source`). A new photo replaces the hand (every input of the last one
    goes); a file that is not a photo is refused with one sentence, its chip leaves the upload box
    and the current hand stays as it was."""
    ss = st.session_state
    h = hand()
    if src is None:
        return
    data = src.getvalue()
    key = photo_key(data)
    if key == h.photo.key or key == ss.get("refused_photo"):
        return
    with st.spinner(tr("正在认牌…", "Reading the tiles…")):
        photo = read_photo(data, getattr(src, "name", "camera.jpg"), detector, key=key)
    if photo.error is not None and not photo.boxes:
        ss["refused_photo"] = key
        ss["photo_error"] = photo.error
        _empty_box()
        st.rerun()
    new = HandSession(h.preset, h.options)
    new.start_photo(photo, data, dealer=dealer[0], changmao=dealer[1], evening=evening)
    # the score box then asks for who won, how and the 混; refused (and said) when another phone
    # started another hand that this one has not shown yet
    hand_sync.replace_hand(ss, store, new)
    _empty_box()
    st.rerun()


def show_photo(note: Words | None, tiles: WinnerTiles) -> None:
    """The photo with numbered boxes in their current state, and the notes about this reading."""
    ss = st.session_state
    if note:
        say("info", note)
    if ss.get("photo_error"):
        say(
            "error",
            ss.pop("photo_error") + Words("（当前这一局没动。）", " (The current hand is unchanged.)"),
        )
    photo = hand().photo
    if photo.error:
        say("error", photo.error)
    for n in photo.notes:
        say("info", n)
    if not photo.has_picture:
        return
    if photo.display is None:  # a hand restored from its bytes: scale it once, not on every fix
        photo.display = shrink(photo.rgb, DISPLAY_SIDE)
        photo.display_scale = display_scale(photo.rgb.shape[1], photo.rgb.shape[0], DISPLAY_SIDE)
    won = tiles.winning is not None  # a hand one tile short has no 胡 tile on the photo
    marks = marks_for(
        photo.boxes,
        winning=photo.winning if won else None,
        picked=photo.picked,
        lang=lang(),
        maybe=photo.maybe,
    )
    drawn = draw_marks(photo.display, marks, photo.display_scale)
    w, h = photo.size or (photo.display.shape[1], photo.display.shape[0])
    n = sum(m.is_tile for m in marks)
    caption = f"{plain(photo.name)} · {w}×{h} · " + tr(f"{n} 张", f"{n} boxes")
    if photo.seconds is not None:
        caption += tr(f" · 认牌 {photo.seconds:.2f} 秒", f" · read in {photo.seconds:.2f} s")
    shown, tapped = photo_with_taps(drawn, photo.widget_prefix + hand().id[:6])
    if not shown:
        st.image(drawn, width="stretch")
    elif tapped is not None:
        drawn_w = tapped[2] if len(tapped) > 2 and tapped[2] > 0 else w  # CSS px of the picture
        target = kb.tap_target(
            photo.boxes, photo.maybe, tapped[0] * w, tapped[1] * h, reach=TARGET_PX * w / drawn_w
        )
        if target is not None and target[0] == "maybe":
            run(ticket(), "take_maybe", target[1])
            st.rerun()  # the suggestion is a tile now: draw the photo and the strip again
        elif target is not None and target[1] != photo.picked:
            run(ticket(), "pick", target[1])
            st.rerun()  # draw the photo and the strip again with the tapped tile picked
    st.caption(caption)
    if photo.model_reading:
        with st.expander(tr("模型自己认的示例", "The detector's own reading of the sample"), key="sec_model"):
            st.image(
                draw_marks(photo.display, marks_for(photo.model_reading, lang=lang()), photo.display_scale),
                caption=tr("模型认的：", "As read by the model: ")
                + tr(tiles_words([b.cls for b in photo.model_reading])),
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
    setTriggerValue("tap", [(e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height, r.width]);
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


def photo_with_taps(drawn, prefix: str) -> tuple[bool, tuple[float, ...] | None]:
    """Show the drawn photo as a tappable picture: (shown, the tap as (x, y) in 0..1 of the photo and
    the picture's drawn width in CSS px, on the run it happened, else None). Not shown where v2
    components are missing: use st.image."""
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
    if isinstance(where, (list, tuple)) and len(where) in (2, 3):
        return True, tuple(float(v) for v in where)
    return True, None
