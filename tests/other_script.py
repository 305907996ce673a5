"""Words of the other language in a text the page shows: English in Chinese mode, Chinese in English.

Why a module of its own: "one language at a time" is checked on the page (tests/ui/test_one_language.py)
and on messages built far from it (the image loader's refusals), with the same allowances: tile codes
(7p, 123m), file names, numbers and units (MB, px), format names (JPEG, HEIC, GIF: any acronym), the "English"
toggle itself; in English, a Chinese term may follow its English words in brackets ("wild tile (混)").
"""

from __future__ import annotations

import re

#: Latin words a Chinese page may show: the language toggle, formats, units, the JSON it offers.
ALLOWED_LATIN = frozenset(
    {"English", "JPEG", "PNG", "WebP", "HEIC", "HEIF", "BMP", "TIFF", "JSON", "CSV", "MB", "KB", "px", "PIN"}
)
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_ACRONYM = re.compile(r"[A-Z]{2,5}")  # a format named as the file names it (GIF, PDF, AVIF)
_TILE_CODES = re.compile(r"\b[1-9]+[mps]\b|\b[ESWNCFP]+\b")
_FILE_NAME = re.compile(r"[\w.-]+\.(?:png|jpe?g|heic|heif|webp|bmp|tiff?)\b", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_BRACKETED = re.compile(r"\([^()]*\)|（[^（）]*）")


def english_in(text: str) -> list[str]:
    """Latin words of two letters or more in `text`, less tile codes, file names (the player's own)
    and the allowed words."""
    text = _TILE_CODES.sub(" ", _FILE_NAME.sub(" ", text))
    return [w for w in _LATIN_WORD.findall(text) if w not in ALLOWED_LATIN and not _ACRONYM.fullmatch(w)]


def chinese_in(text: str) -> list[str]:
    """Chinese characters of `text` outside brackets (a term in brackets after its English is fine)."""
    return _CJK.findall(_BRACKETED.sub(" ", text))
