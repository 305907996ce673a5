"""The CJK font the project ships, and a Pillow-only check of which characters a font can draw.

Why ship one: the share picture and the drawn synthetic tile faces both draw Chinese, and a fresh
machine has no CJK font.  `vision/assets/fonts/` holds a subset of Noto Sans CJK SC Regular (SIL
OFL 1.1; see its README for the characters kept and the command that made it).  Only Pillow is
needed to use it; fontTools is needed only to regenerate it.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

FONTS_DIR = Path(__file__).resolve().parent / "assets" / "fonts"
#: The shipped subset: one weight, GB2312 + frequent traditional hanzi + the project's own words.
SHIPPED_CJK_FONT = FONTS_DIR / "NotoSansCJKsc-Regular-subset.otf"
#: A code point no font maps (the last private-use one): what a missing character renders as.
_UNMAPPED = "\U0010fffd"
_PROBE_PX = 24


def shipped_cjk_font() -> Path | None:
    """The shipped font, or None when the install lacks it (e.g. a package built without data)."""
    return SHIPPED_CJK_FONT if SHIPPED_CJK_FONT.is_file() else None


@lru_cache(maxsize=8)
def _probe_font(path: str) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, _PROBE_PX)


def _mask(font: ImageFont.FreeTypeFont, ch: str) -> tuple[tuple[int, int], bytes]:
    m = font.getmask(ch)
    return m.size, bytes(m)


def missing_chars(font: Path | str, text: str) -> list[str]:
    """The characters of `text` (in order, once each) that `font` draws as its missing-glyph box.

    Pillow has no cmap query, so a character counts as missing when it rasterises exactly like a
    code point no font maps.  Spaces and control characters are never reported.
    """
    f = _probe_font(str(font))
    notdef = _mask(f, _UNMAPPED)
    seen: dict[str, None] = {}
    for ch in text:
        if ch in seen or not ch.isprintable() or ch.isspace():
            continue
        if _mask(f, ch) == notdef:
            seen[ch] = None
    return list(seen)
