"""The evening at a glance on the page: the book section shows the chart and 分享这一晚 once a hand
is recorded, and nothing of them before."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.ui.test_app import _no_traceback, _real_hand, _texts, app  # noqa: F401 - the page fixture


def _book(at: AppTest):
    """The scorebook section (its key is sec_book)."""
    found = [e for e in at.expander if "记分本" in e.label or "scorebook" in e.label]
    assert found, [e.label for e in at.expander]
    return found[0]


def _popovers(node) -> list:
    """Every popover block under `node`, by walking its children."""
    out = []
    for kid in (getattr(node, "children", None) or {}).values():
        if getattr(kid, "type", None) == "popover":
            out.append(kid)
        out += _popovers(kid)
    return out


def test_the_book_shows_the_evening_chart_and_shares_it(app):  # noqa: F811 - the fixture
    at = app.run()
    _real_hand(at, 0, "S")
    assert not _book(at).image  # no hand yet: no chart
    at.button(key="record").click().run()
    at.button(key="draw").click().run()
    at.button(key="confirm_yes").click().run()  # hand 2: 黄庄
    _no_traceback(at)
    book = _book(at)
    assert len(book.image) == 2  # the chart, and the evening picture in the share popover
    shares = [p for p in _popovers(book) if p.proto.popover.label == "分享这一晚"]
    assert len(shares) == 1
    inside = [(k.type, getattr(k, "key", None)) for k in shares[0].children.values()]
    assert inside == [("image", None), ("download_button", "evening_png"), ("code", None)]
    texts = _texts(at, "code")
    assert "辽阳麻将 · 2 局" in texts and "南家 +600（领先）" in texts and "黄庄 1 局" in texts
    at.button(key="new_evening").click().run()
    at.button(key="confirm_yes").click().run()  # a new evening, no hand yet: no chart, nothing breaks
    _no_traceback(at)
    assert not _book(at).image
    assert [p.proto.popover.label for p in _popovers(_book(at))] == ["打开以前的一晚"]  # no 分享这一晚
