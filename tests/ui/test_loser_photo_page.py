"""On the page (AppTest, the shipped model): a photo of East's melds under 输家的副露 is read and
proposed as his melds, tapping a tile fixes it on the tile keyboard, and the payments are exactly
those of the same melds typed."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.ui.test_app import APP, MODEL, _hand, _no_traceback, _payments, _texts, _w, typed_win

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "melds" / "loser_melds.jpg"


@pytest.fixture
def real_page(monkeypatch, tmp_path):
    if not MODEL.is_file():
        pytest.skip("no shipped model")
    monkeypatch.delenv("MAHJONG_DETECTOR", raising=False)
    monkeypatch.delenv("MAHJONG_MODEL", raising=False)
    monkeypatch.setenv("MAHJONG_SCOREBOOK", str(tmp_path / "sb.sqlite"))
    monkeypatch.setenv("MAHJONG_LABELLED_DIR", str(tmp_path / "labelled"))
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()


def test_a_photo_of_a_losers_melds_pays_as_the_typed_melds(real_page):
    at = AppTest.from_file(APP, default_timeout=120).run()
    typed_win(at)  # South wins a hand with no 白 and no 七饼
    up = next(u for u in at.file_uploader if str(u.key).startswith("lmup_E_"))
    up.set_value((FIXTURE.name, FIXTURE.read_bytes(), "image/jpeg")).run()
    _no_traceback(at)
    assert _hand(at).inputs.loser_melds == {"E": "碰白 碰7p"}
    assert "从照片读出：碰白 碰七饼" in _texts(at, "info")
    from_photo = _payments(at)
    tiles = [b for b in at.button if str(b.key).startswith("lmt_E_")]
    assert len(tiles) == 6  # his two pongs as tiles to tap
    typed = AppTest.from_file(APP, default_timeout=120).run()  # another phone types the same melds
    _w(typed, "text_input", "melds_E").set_value("碰白 碰7p").run()
    assert _payments(typed) == from_photo
    # a misread face is fixed with one tap on the tile and one on the keyboard: 碰白 → 碰中
    tiles[0].click().run()
    next(b for b in at.button if str(b.key) == "kb_C_lmE").click().run()
    _no_traceback(at)
    assert _hand(at).inputs.loser_melds == {"E": "碰中 碰7p"}
