"""The page draws Chinese in a CJK font on a device that has none, in a real Chromium.

Why: every Streamlit text is set in "Source Sans", which has no hanzi; a browser on a machine
without a CJK font (a fresh laptop, this project's test machines) drew every Chinese character as
the same empty box, and no test saw it, since boxes have a width. The page now adds the shipped
subset (vision/assets/fonts, served at app/static/) to that family for the CJK ranges only
(page/panels/style.py). What is checked is what the browser draws with the page's own font: two
different hanzi must come out as two different pictures, neither of them the missing-glyph box.
"""

from __future__ import annotations

import hashlib
import urllib.request

import pytest

from page.panels.style import CJK_FONT_URL
from tests.ui.browser_helpers import screen_shot, wait_text
from vision.fonts import SHIPPED_CJK_FONT

pytestmark = pytest.mark.slow

#: Draws each text in the page's body font on a canvas and returns, per text, which pixels got ink
#: (a string of 0/1), after the font's faces for those texts have loaded; and the faces' states.
_DRAW = """
const [texts, done] = [arguments[0], arguments[arguments.length - 1]];
const font = '40px "Source Sans"';
Promise.all(texts.map(t => document.fonts.load(font, t))).then(loaded => {
  const c = document.createElement('canvas'); c.width = 64; c.height = 64;
  const g = c.getContext('2d', {willReadFrequently: true});
  const ink = texts.map(t => {
    g.clearRect(0, 0, 64, 64); g.font = font; g.fillStyle = '#000'; g.fillText(t, 6, 50);
    const px = g.getImageData(0, 0, 64, 64).data;
    let bits = ''; for (let i = 3; i < px.length; i += 4) bits += px[i] > 96 ? '1' : '0';
    return bits;
  });
  done({ink: ink, faces: loaded.flat().map(f => f.status)});
}, err => done({error: String(err)}));
"""


def test_the_shipped_font_is_served_as_it_is(server):
    with urllib.request.urlopen(f"{server}/{CJK_FONT_URL}", timeout=10) as r:
        assert r.status == 200
        assert r.read() == SHIPPED_CJK_FONT.read_bytes()


def test_chinese_is_drawn_as_glyphs_not_boxes(server, browser):
    browser.get(server)
    wait_text(browser, "谁胡了")
    # two hanzi of the page, and a code point no font maps (what a missing glyph looks like)
    got = browser.execute_async_script(_DRAW, ["胡", "和", "\U0010fffd"])
    assert "error" not in got, got
    inks = got["ink"]
    assert inks[0].count("1") > 40 and inks[1].count("1") > 40, "a hanzi drew (almost) no ink"
    hu, he, missing = (hashlib.sha256(i.encode()).hexdigest()[:12] for i in inks)  # short failures
    assert hu != he, "two different hanzi drew the same picture: the missing-glyph box"
    assert hu != missing and he != missing, "a hanzi drew as the missing-glyph box"
    assert "loaded" in got["faces"], got["faces"]
    screen_shot(browser, "cjk-font")
