"""`Words`: one thing said in Chinese and English, the one bilingual type of the project.

The rules give player words for every error code and every reason a hand cannot win, and the page
builds its messages long before it knows which language is on; both carry the two sentences as one
`Words` value and pick one when they draw. `page.words` re-exports this type.
"""

from __future__ import annotations

from typing import NamedTuple


class Words(NamedTuple):
    """One message in both languages."""

    zh: str
    en: str

    def pick(self, lang: str) -> str:
        """The sentence in `lang` ("en" → English, anything else → Chinese)."""
        return self.en if lang == "en" else self.zh

    def __add__(self, other: object) -> Words:  # type: ignore[override]
        """Join two messages sentence by sentence (both languages at once)."""
        if not isinstance(other, Words):
            return NotImplemented
        return Words(self.zh + other.zh, self.en + other.en)
