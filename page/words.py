"""What the page says, Chinese first with an English twin, and user text made safe to show.

Why this module exists: the page is used at a Liaoning table, so every label, hint and message is
Chinese first; an English toggle serves visitors and bug reports. Messages are built deep inside the
helpers (a count check, a contradiction, a note about the photo), long before the page knows which
language is on, so they carry both sentences as one `Words` value and the page picks one when it
draws. Text the player typed or chose (file names, typed hands, player names) must never be read
as Markdown or HTML by Streamlit (`![i](http://…)` in a file name fetched an image): `plain()`
escapes it before it goes into any Markdown-rendering widget. Nor may it turn the text around it:
a right-to-left override (U+202E) in a player's name drew "西家 002 付" for "西家 付 200", so
`no_bidi()` drops the bidirectional controls, and `plain()` applies it.
"""

from __future__ import annotations

import re

from rules.words import Words

__all__ = ["LANGS", "Words", "no_bidi", "plain"]

LANGS = ("zh", "en")


#: Every ASCII punctuation mark that Markdown, Streamlit's directives (`:red[...]`, `:smile:`) or
#: its LaTeX (`$...$`) could act on; CommonMark renders a backslash-escaped one as the mark itself.
_MARKUP = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&\"'=^])")


#: The bidirectional controls (embeddings, overrides, isolates, marks) that reorder the text drawn
#: after them; names, file names and typed hands never need them.
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def no_bidi(text: str) -> str:
    """`text` without bidirectional controls, so it cannot reverse what is drawn after it."""
    return _BIDI.sub("", text)


def plain(text: object) -> str:
    """`text` escaped so that a Markdown widget shows it literally (no links, images, HTML, LaTeX),
    without bidirectional controls."""
    s = no_bidi(str(text)).replace("\r", " ").replace("\n", " ")
    return _MARKUP.sub(r"\\\1", s)
