"""Every tap target as drawn, and the tile keyboard wholly on the screen, in a real 390 x 844 Chromium.

Why: a rule in the page's CSS is no proof that a button is 44 px high (Streamlit's own rules won, and
its segmented controls render as `stButtonGroup`, not what the CSS named), so these tests measure the
drawn page with getBoundingClientRect: with every section open, the keyboard open and the share box
open, in Chinese and in English. And a keyboard half below the screen is a keyboard the thumb cannot
use: opened from the strip, from a tap on the photo and by a meld step, its top and bottom must be in
the viewport.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import pytest
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from tests.ui.browser_helpers import (
    PHONE,
    ROOT,
    By,
    TimeoutException,
    WebDriverWait,
    again_until,
    click_key,
    sample_tile_centre,
    screen_shot,
    settled,
    tap_photo_until,
    tap_until,
    upload,
    wait_text,
)

pytestmark = pytest.mark.slow

MIN_PX = 44

#: Everything a thumb can tap: buttons (segmented controls, pills, keys, uploader, downloads,
#: popovers), expander headers, select boxes, text fields, checkbox and toggle labels. Only what is
#: drawn counts: inside an open section, not hidden, not on a page of an earlier run.
_TARGETS_JS = """
const sel = 'button, summary, [data-baseweb="select"] > div, input:not([type=file]):not([type=checkbox]), '
  + '[data-testid="stCheckbox"] label';
const out = [];
for (const el of document.querySelectorAll(sel)) {
  if (el.closest('[data-stale="true"]')) continue;
  if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) continue;
  const box = el.closest('[class*="st-key-"]');
  const key = box ? [...box.classList].find(c => c.startsWith('st-key-')).slice(7) : '';
  const where = el.closest('[data-testid]');
  let text = el.getAttribute('aria-label') || el.innerText || el.placeholder || '';
  for (const icon of el.querySelectorAll('[data-testid="stIconMaterial"]')) text = text.replace(icon.textContent, '');
  text = text.replace(/\\s+/g, ' ');
  out.push({label: `${text.trim().slice(0, 24)} [${key || (where && where.dataset.testid) || el.tagName}]`,
            w: Math.round(r.width), h: Math.round(r.height * 10) / 10});
}
return out;
"""


def measured(driver) -> list[dict]:
    """Every visible tap target: its label (text [widget key or test id]) and drawn size."""
    return driver.execute_script(_TARGETS_JS)


def too_small(targets: list[dict]) -> list[str]:
    return [f"{t['label']} {t['w']}x{t['h']}" for t in targets if t["h"] < MIN_PX]


def open_every_section(driver) -> None:
    """Open each closed expander as a thumb would: scroll to it, let the page stop moving (the one
    opened before it is still unfolding), tap, and tap again if it did not open."""
    for _ in range(40):
        closed = [
            s
            for s in driver.find_elements(
                By.CSS_SELECTOR, "[data-testid=stExpander] details:not([open]) > summary"
            )
            if not s.find_elements(By.XPATH, "ancestor::*[@data-stale='true']")
        ]
        if not closed:
            return
        s = closed[0]
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", s)
        time.sleep(0.5)
        s.click()
        with contextlib.suppress(TimeoutException):
            WebDriverWait(driver, 3).until(
                lambda d, s=s: d.execute_script("return arguments[0].parentElement.open", s)
            )
    raise AssertionError(f"these sections never opened: {[s.text for s in closed]}")


def english(driver) -> None:
    """Switch the page to English with its toggle, as a player would."""
    toggle = driver.find_element(By.CSS_SELECTOR, ".st-key-lang_en label")
    settled(driver)  # a kept hand's open keyboard scrolls the page to it: the toggle is at the top
    driver.execute_script(
        "window.scrollTo(0, 0); document.querySelectorAll('*').forEach(e => { if (e.scrollTop) e.scrollTop = 0; })"
    )
    time.sleep(0.3)
    toggle.click()
    wait_text(driver, "Who won")
    settled(driver)


def _photo(tmp_path: Path) -> Path:
    """The sample re-encoded, a new file for each test (the table's last hand is kept on the server,
    and the same file again is the same hand): the fake reader misreads its last tile, unsure."""
    path = tmp_path / "hand.png"
    note = PngInfo()
    note.add_text("test", str(tmp_path))
    Image.open(ROOT / "datasets" / "samples" / "winning-hand.jpg").convert("RGB").save(path, pnginfo=note)
    return path


def _fresh_photo(driver, server: str, tmp_path: Path, in_english: bool) -> None:
    driver.get(server)
    wait_text(driver, "谁胡了")  # the sample, or the module's last hand (the table's hand is kept)
    if in_english:
        english(driver)
    upload(driver, _photo(tmp_path))
    wait_text(driver, "check the orange tiles" if in_english else "橙色的请看一眼")
    settled(driver)


def _score_it(driver, in_english: bool) -> None:
    """南家 self-draws with 九万 turned up: the score, its details and the share box are drawn."""
    for name, label in (
        ("winner", "South" if in_english else "南家"),
        ("win_by", "self-draw" if in_english else "自摸"),
    ):
        button = next(
            b
            for b in driver.find_elements(By.CSS_SELECTOR, f'[class*="_{name}"] button')
            if b.text.strip() == label
        )
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
        settled(driver)
    click_key(driver, "tilein_indicator_" + _hand_id(driver))
    click_key(driver, "kb_9m_indicator")
    wait_text(driver, "South receives" if in_english else "南家 收")
    settled(driver)
    if in_english:
        score = driver.find_element(By.CSS_SELECTOR, ".st-key-score")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", score)
        screen_shot(driver, "score-english")


def _hand_id(driver) -> str:
    """The 8 characters of this hand's id that its button keys end in."""
    return WebDriverWait(driver, 30).until(
        lambda d: d.execute_script(
            "const k = [...document.querySelectorAll('[class*=\"st-key-tilein_indicator_\"]')]"
            ".filter(e => !e.closest('[data-stale=\"true\"]'))"
            ".flatMap(e => [...e.classList]).find(c => c.startsWith('st-key-tilein_indicator_'));"
            "return k ? k.split('_').pop() : null"
        )
    )


def _keyboard(driver):
    return WebDriverWait(driver, 30).until(
        lambda d: next(
            (
                k
                for k in d.find_elements(By.CSS_SELECTOR, '[class*="st-key-keyboard"]')
                if not k.find_elements(By.XPATH, "ancestor-or-self::*[@data-stale='true']")
            ),
            None,
        ),
        message="the tile keyboard never opened",
    )


def keyboard_span(driver) -> tuple[float, float]:
    """(top, bottom) of the open tile keyboard in the viewport, once it has stopped moving."""
    kb = _keyboard(driver)
    last = None
    for _ in range(20):
        now = driver.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom]", kb
        )
        if now == last:
            return now[0], now[1]
        last = now
        time.sleep(0.25)
    return last[0], last[1]


def assert_wholly_in_view(driver, how: str) -> None:
    """The keyboard's top below Streamlit's fixed header and its bottom above the screen's edge."""
    top, bottom = keyboard_span(driver)
    header = driver.execute_script(
        "const h = document.querySelector('[data-testid=\"stHeader\"]');"
        "return h ? Math.max(0, h.getBoundingClientRect().bottom) : 0"
    )
    height = PHONE[1]
    assert top >= header and bottom <= height, (
        f"keyboard opened {how}: top {top:.0f} (header ends at {header:.0f}), bottom {bottom:.0f} of {height}"
    )


@pytest.mark.parametrize("in_english", [False, True], ids=["zh", "en"])
def test_every_tap_target_is_44px_as_drawn(server, browser, tmp_path, in_english):
    _fresh_photo(browser, server, tmp_path, in_english)
    click_key(browser, "pickq_" + _strip_suffix(browser, 13))  # the orange tile, fixed by its suggestion
    fixed = again_until(  # a tap that lands while the page redraws is tapped again, as a player would
        lambda: click_key(browser, "sug_8s_" + _strip_suffix(browser, 13)),
        lambda: WebDriverWait(browser, 10).until(
            lambda d: not d.find_elements(By.CSS_SELECTOR, '[class*="st-key-pickq_"]')
        ),
    )
    assert fixed, "the orange tile was never fixed by its suggestion"
    _score_it(browser, in_english)
    click_key(browser, "pick_" + _strip_suffix(browser, 13))  # open again: the model's 9s is offered
    WebDriverWait(browser, 30).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, '[class*="st-key-sug_9s_"]'),
        message="no suggestion offered",
    )
    settled(browser)
    open_every_section(browser)
    share = browser.find_element(By.CSS_SELECTOR, '.st-key-score_actions [data-testid="stPopoverButton"]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", share)
    share.click()
    WebDriverWait(browser, 30).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, ".st-key-share_png button"),
        message="the share box never opened",
    )
    targets = measured(browser)
    assert len(targets) > 100, f"only {len(targets)} targets found: the page was not all open"
    small = too_small(targets)
    print(f"{len(targets)} tap targets measured, {len(small)} under {MIN_PX} px")
    assert not small, f"{len(small)} of {len(targets)} tap targets under {MIN_PX} px:\n" + "\n".join(small)


def _strip_suffix(driver, i: int) -> str:
    """`<hand prefix>_<i>` of strip tile i (its button key is pick[q|x]_<prefix>_<i>)."""
    found = WebDriverWait(driver, 30).until(
        lambda d: d.execute_script(
            "const k = [...document.querySelectorAll('[class*=\"st-key-pick\"]')]"
            ".filter(e => !e.closest('[data-stale=\"true\"]'))"
            ".flatMap(e => [...e.classList]).find(c => /^st-key-pick[qx]?_.+_" + str(i) + "$/.test(c));"
            "return k || null"
        )
    )
    return found.split("_", 1)[1]


def test_the_keyboard_opens_wholly_in_view(server, browser, tmp_path):
    """From the strip (a tile in the middle), from a tap on the photo, and after a meld step."""
    _fresh_photo(browser, server, tmp_path, False)
    click_key(browser, "pick_" + _strip_suffix(browser, 6))
    assert_wholly_in_view(browser, "from the strip")
    screen_shot(browser, "keyboard-strip")
    click_key(browser, "kbclose")
    WebDriverWait(browser, 30).until(
        lambda d: not d.find_elements(By.CSS_SELECTOR, ".st-key-kbclose"), message="the keyboard never closed"
    )
    settled(browser)
    tap_photo_until(browser, sample_tile_centre(2), ".st-key-kbclose button", server)
    assert_wholly_in_view(browser, "from the photo")
    screen_shot(browser, "keyboard-photo")
    moved = tap_until(  # tile 3 joins 副露1: the keyboard moves on to tile 4
        browser,
        lambda d: next(
            (
                b
                for b in d.find_elements(By.CSS_SELECTOR, '[class*="_role_2"] button')
                if b.text.strip() == "副露1"
            ),
            None,
        ),
        lambda d: d.find_elements(By.CSS_SELECTOR, '[class*="_role_3"]'),
        wait=30,
    )
    assert moved, "the meld step never moved on"
    assert_wholly_in_view(browser, "by a meld step")
