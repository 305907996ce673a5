"""One language at a time: every word the page draws, in Chinese mode and in English mode.

Why: messages are built far from the page (the image loader's refusals, the preset table's option
labels, the engine's explanations) and each one that forgets its other language leaks into a page in
the other one ("corrupt or truncated image data" on a Chinese page, "9 番 · 混 Green" on an English
one). This walks the page in Streamlit's AppTest through the states a player meets — the scored
sample, the tile keyboard, the 混 keyboard, a refused file, a fresh photo, each rule set's options,
a photo a tile short with its maybe-missed cards, a hand that cannot win — and lists every string of the other script (tests/other_script.py says what
is allowed: tile codes, units, format names, a Chinese term in brackets after its English).
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from page.panels import book, common, photo, score, situation, tiles, training  # noqa: F401
from rules.presets import PRESETS
from tests.fake_reader import MISSED, marked_photo
from tests.other_script import chinese_in, english_in
from tests.ui.test_app import _sample_png, _uploader, app  # noqa: F401 - the page fixture

#: Proto fields that carry words a player reads (labels, help, placeholders, bodies, options).
_TEXT_FIELDS = {"label", "help", "placeholder", "body", "options", "content", "caption"}
#: Elements whose strings are not words on the page: style sheets, the hand JSON, component code.
_NOT_WORDS = {"html", "code", "bidi_component"}


def _strings(message) -> list[str]:
    out = []
    for field, value in message.ListFields():
        values = value if type(value).__name__.startswith("Repeated") else [value]
        for v in values:
            if isinstance(v, str):
                if field.name in _TEXT_FIELDS:
                    out.append(v.replace("\\", ""))
            elif hasattr(v, "ListFields"):
                out += _strings(v)
    return out


def page_words(at: AppTest) -> list[str]:
    """Every string the page shows now, element by element (Markdown escapes removed)."""
    found: list[str] = []

    def walk(node) -> None:
        if getattr(node, "type", None) in _NOT_WORDS:
            return
        proto = getattr(node, "proto", None)
        if proto is not None:
            found.extend(s for s in _strings(proto) if s.strip())
        kids = getattr(node, "children", None) or {}
        for kid in kids.values() if isinstance(kids, dict) else kids:
            walk(kid)

    walk(at._tree)
    return found


def _key_button(at: AppTest, start: str):
    return next(b for b in at.button if str(b.key).startswith(start))


def _walk_states(at: AppTest, english: bool) -> dict[str, list[str]]:
    """The page's words in each state a player meets, by state."""
    seen: dict[str, list[str]] = {}
    at.run()
    if english:
        at.toggle(key="lang_en").set_value(True).run()
    seen["the scored sample"] = page_words(at)
    _key_button(at, "pick_").click().run()
    seen["the tile keyboard"] = page_words(at)
    _key_button(at, "tilein_indicator_").click().run()
    seen["the 混 keyboard"] = page_words(at)
    for name, data in (("notes.jpg", b"not an image at all"), ("cut.png", _sample_png()[:400])):
        _uploader(at).set_value((name, data, "image/png")).run()
        seen[f"a refused file ({name})"] = page_words(at)
    for preset in ("anshan", "liaoyang-online"):
        box = next(s for s in at.selectbox if str(s.key).endswith("_preset"))
        box.select_index(list(PRESETS).index(preset)).run()
        seen[f"the {preset} rules"] = page_words(at)
    _uploader(at).set_value(("short.png", marked_photo(MISSED), "image/png")).run()
    seen["a photo a tile short, with maybe-missed cards"] = page_words(at)
    assert any(
        ("Maybe missed" if english else "可能漏认的牌") in w
        for w in seen["a photo a tile short, with maybe-missed cards"]
    )
    _uploader(at).set_value(("hand.png", _sample_png(), "image/png")).run()
    seen["a fresh photo"] = page_words(at)
    next(s for s in at.segmented_control if str(s.key).endswith("_win_by")).set_value("discard").run()
    seen["a hand that cannot win"] = page_words(at)
    assert not at.exception, [e.value for e in at.exception]
    return seen


@pytest.mark.parametrize("english", [False, True], ids=["zh", "en"])
def test_the_page_speaks_one_language_at_a_time(app, english, monkeypatch):  # noqa: F811 - the fixture
    # AppTest formats a select box's value between runs, outside the page's session, where tr()
    # would fall back to Chinese: the page's language is the test's there too. The panels were
    # imported above, so their own `lang` is the page's, never this stand-in.
    monkeypatch.setattr(common, "lang", lambda: "en" if english else "zh")
    other = chinese_in if english else english_in
    leaks = sorted(
        {f"{state}: {text!r} ({' '.join(bad)})" for state, texts in _walk_states(app, english).items()
         for text in texts if (bad := other(text))}
    )  # fmt: skip
    assert not leaks, f"{len(leaks)} strings of the other language:\n" + "\n".join(leaks)
