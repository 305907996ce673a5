"""How the page looks on a phone: one thumb, 44 px targets, a tile keyboard that fits the screen.

Why this module exists: Streamlit's own rules decide most sizes, and a rule of ours only counts when
it is more specific than Streamlit's or `!important`: a plain `button {min-height: 44px}` lost to
Streamlit's 40 px, and a rule for `stSegmentedControl` matched nothing (segmented controls and pills
are drawn as `stButtonGroup` since Streamlit 1.4x). The selectors below are those of the installed
Streamlit (1.67), checked on the drawn page by tests/ui/test_targets.py, which measures every target
with getBoundingClientRect rather than reading this file.
"""

from __future__ import annotations

import streamlit as st

from page import keyboard as kb
from vision.fonts import SHIPPED_CJK_FONT

#: The smallest tap target, CSS px (Apple's and Android's guidance; the README promises it).
TARGET_PX = 44

#: Everything a thumb taps, as Streamlit 1.67 draws it.
_TARGETS = ", ".join(
    (
        '[data-testid^="stBaseButton-"]',  # buttons, form submits, downloads, the uploader's "Upload"
        '[data-testid="stPopoverButton"]',  # 分享, 打开以前的一晚
        '[data-testid="stButtonGroup"] button',  # segmented controls and pills
        '[data-testid="stExpander"] summary',  # section headers
        '[data-testid="stSelectbox"] input',  # select boxes (react-aria combo boxes) ...
        '[data-testid="stSelectbox"] button',  # ... and their arrow
        'input:not([type="checkbox"]):not([type="file"])',  # text and number fields
        '[data-testid="stNumberInput"] button',  # − and +
        '[data-testid="stMainMenuButton"]',
        '[data-testid="stCameraInputButton"]',  # Take Photo / Clear photo
    )
)

#: Where Streamlit serves the shipped CJK font: `static/` is a link to vision/assets/fonts (one copy
#: of the file), served because .streamlit/config.toml sets server.enableStaticServing. Relative to
#: the page, so it also works behind the LAN gate and under a base URL.
CJK_FONT_URL = f"app/static/{SHIPPED_CJK_FONT.name}"
#: The scripts the shipped font draws for the page: CJK radicals to punctuation and kana, the
#: unified ideographs and their extension A, compatibility ideographs, full- and half-width forms.
CJK_RANGES = "U+2E80-2FDF, U+3000-30FF, U+3100-312F, U+31C0-31EF, U+3200-4DBF, U+4E00-9FFF, U+F900-FAFF, U+FE30-FE4F, U+FF00-FFEF"
#: A device's own CJK font where it has one (no download on a phone), else the shipped subset.
_LOCAL_CJK = ", ".join(
    f'local("{name}")'
    for name in (
        "Noto Sans CJK SC", "NotoSansCJKsc-Regular", "Source Han Sans SC", "SourceHanSansSC-Regular",
        "PingFang SC Regular", "PingFangSC-Regular", "Microsoft YaHei", "Noto Sans SC",
    )
)  # fmt: skip

#: Why a font face for "Source Sans": it is the family every Streamlit text is set in, and it has no
#: Chinese. Where the device has no CJK font either (a fresh laptop, a headless test machine), every
#: hanzi drew as an empty box. Faces of one family add up by unicode-range, so this face draws only
#: the CJK characters and Streamlit's own face everything else; no Streamlit rule is overridden.
#: Italic too: Streamlit has an italic face of its own, and italic text looks among italic faces.
FONT_CSS = "\n".join(
    f"""@font-face {{
  font-family: "Source Sans"; font-style: {style}; font-weight: 100 900; font-display: swap;
  src: {_LOCAL_CJK}, url("{CJK_FONT_URL}") format("opentype");
  unicode-range: {CJK_RANGES};
}}"""
    for style in ("normal", "italic")
)

CSS = f"""
<style>
{FONT_CSS}
.block-container {{padding-top: 3.2rem; padding-bottom: 4rem;}}
@media (max-width: 640px) {{
  .block-container {{padding-left: .6rem; padding-right: .6rem; padding-top: 3.6rem;}}
  h1, h3 {{font-size: 1.4rem !important;}}
}}
/* one thumb: every tap target at least {TARGET_PX} px high, as drawn */
{_TARGETS} {{min-height: {TARGET_PX}px !important;}}
[data-testid="stMainMenuButton"] {{min-width: {TARGET_PX}px !important;}}
/* a field's (?) keeps its small icon, but a thumb-sized tap area around it */
button[aria-label^="Help for"] {{
  min-width: {TARGET_PX}px !important; min-height: {TARGET_PX}px !important; margin: -14px !important;}}
[data-testid="stBaseButton-tertiary"] {{padding: 0 12px !important;}}
[data-testid="stExpander"] summary {{display: flex; align-items: center;}}
[data-testid="stCheckbox"] label {{min-height: {TARGET_PX}px; align-items: center;}}
[data-testid="stFileUploaderDeleteBtn"] button {{
  min-width: {TARGET_PX}px !important; min-height: {TARGET_PX}px !important;}}
/* the strip: a tile picture and its button; a tap on the picture must not go full screen */
.st-key-strip {{gap: 4px !important;}}
[class*="st-key-card"] [data-testid="stElementToolbar"] {{display: none;}}
[class*="st-key-card_"] {{gap: 2px !important;}}
[class*="st-key-card_"] img {{border-radius: 4px;}}
[class*="st-key-pick"] button {{padding: 0 2px; width: 48px; font-size: 14px;}}
[class*="st-key-pickq_"] button {{background: #fff3e0; border: 2px solid #ff8c00; color: #b35c00;}}
[class*="st-key-cardx_"] {{opacity: .45;}}
/* "maybe missed": the same cards, dashed, the + button one tap */
.st-key-maybe_strip {{gap: 4px !important; align-items: flex-end;}}
[class*="st-key-maybecard_"] {{gap: 2px !important;}}
[class*="st-key-maybecard_"] [data-testid="stElementToolbar"] {{display: none;}}
[class*="st-key-maybecard_"] img {{border-radius: 4px; outline: 2px dashed #1e78e6; outline-offset: -2px;}}
[class*="st-key-maybe_"] button {{padding: 0 2px; min-width: 48px; font-size: 14px; color: #1e5bb0;}}
/* the tile keyboard fits an 844 px screen: tight rows, keys still {TARGET_PX} px */
[class*="st-key-keyboard"] {{gap: 8px !important; scroll-margin-top: 64px; scroll-margin-bottom: 8px;}}
[class*="st-key-keyboard"] [data-testid="stCaptionContainer"] {{margin-bottom: 0 !important;}}
[class*="st-key-keyboard"] [data-testid="stCaptionContainer"] p {{margin: 0; line-height: 1.4;}}
[class*="st-key-keyboard"] [data-testid="stWidgetLabel"] {{margin-bottom: 0; min-height: 0;}}
[class*="st-key-keyboard"] [data-testid="stButtonGroup"] button {{padding: 0 8px;}}
[class*="st-key-kbrow"] {{gap: 3px !important; flex-wrap: nowrap !important;}}
[class*="st-key-kb_"] button, [class*="st-key-sug_"] button {{
  min-width: 0; width: 100%; min-height: {TARGET_PX}px !important; padding: 0 1px; font-size: 15px;
  line-height: 1.05; background: #fffdf5; border: 1px solid #b9b2a0; border-radius: 6px;
  box-shadow: 0 2px 0 #d8d2c0;
}}
[class*="st-key-kb_"] {{flex: 1 1 0; min-width: 0;}}
[class*="st-key-kb_"] button[data-testid="stBaseButton-primary"] {{background: #ffebee; border: 2px solid #c62828;}}
[class*="st-key-sug_"] button {{min-height: 52px !important; font-size: 18px; border: 2px solid #ff8c00;}}
.st-key-score [data-testid="stMarkdownContainer"] p {{margin-bottom: .25rem;}}
</style>
"""


def uploader_words_zh(limit_mb: int) -> str:
    """Streamlit draws its uploader's and camera's own words in English ("Upload", "200MB per file",
    "Take Photo", "This app would like to use your camera."); in Chinese mode they are replaced by
    CSS (Streamlit has no setting for them), with the real size limit."""
    return f"""
<style>
[data-testid="stFileUploaderDropzone"] button [data-testid="stMarkdownContainer"] p {{font-size: 0;}}
[data-testid="stFileUploaderDropzone"] button [data-testid="stMarkdownContainer"] p::after {{
  content: "选照片"; font-size: 15px;}}
[data-testid="stFileUploaderDropzoneInstructions"] span {{font-size: 0;}}
[data-testid="stFileUploaderDropzoneInstructions"] span::after {{
  content: "拍照或选一张照片，最大 {limit_mb}MB"; font-size: 14px;}}
[data-testid="stCameraInputButton"] {{font-size: 0 !important;}}
[data-testid="stCameraInputButton"]::after {{content: "拍照 / 重拍"; font-size: 15px;}}
[data-testid="stCameraInputWebcamComponent"] p {{font-size: 0;}}
[data-testid="stCameraInputWebcamComponent"] p::after {{
  content: "这个页面要用相机：请在浏览器里允许。"; font-size: 14px;}}
</style>
"""


#: Streamlit's hint in a focused text field ("Press Enter to submit form • 2/16", "Press Enter to
#: apply") is English only; a Chinese page says it in Chinese (the count goes: max_chars still holds).
INPUT_HINT_ZH = """
<style>
[data-testid="InputInstructions"] {font-size: 0 !important;}
[data-testid="InputInstructions"]::after {content: "按回车确认"; font-size: 12px;}
</style>
"""


def key_css() -> str:
    """Each keyboard key in its suit's ink (万 red, 饼 blue, 条 green)."""
    rules_ = [
        f'[class*="st-key-kb_{c}"] button, [class*="st-key-sug_{c}_"] button {{color: {kb.colour(c)};}}'
        for row in kb.ROWS
        for c in row
    ]
    return "<style>" + "\n".join(rules_) + "</style>"


def draw(language: str) -> None:
    """The page's style sheets, in the page's language where they carry words."""
    st.html(CSS)
    st.html(key_css())
    if language == "zh":
        st.html(uploader_words_zh(st.get_option("server.maxUploadSize")))
        st.html(INPUT_HINT_ZH)
