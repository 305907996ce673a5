"""A loser's melds from a photo in a real headless Chromium at 390 x 844, with the shipped reader:
type the winner's hand, photograph East's melds under 输家的副露, see them proposed as tiles and as
his meld text, and fix one with a tap. SHOTS=docs keeps docs/loser-melds-photo.png.

The reader takes 6 s longer than it does (tests.slow_model_reader), as on a loaded machine: longer
than the page's 2 s poll. That is how CI wiped the melds read from the photo (stops 45, 48, 49): a
poll queued during the reading sent the empty field back (page.hand_sync.bound_key)."""

from __future__ import annotations

import os
import time

import pytest

from tests.ui.browser_helpers import (
    ROOT,
    By,
    WebDriverWait,
    chrome,
    click_key,
    first_shown,
    in_view,
    open_section,
    page_text,
    screen_shot,
    serve,
    server_log,
    settled,
    sideways,
    tap_diagnosis,
    tap_until,
    wait_text,
)

pytestmark = pytest.mark.slow
FIXTURE = ROOT / "tests" / "fixtures" / "melds" / "loser_melds.jpg"


@pytest.fixture
def real_server(tmp_path, monkeypatch):
    if not (ROOT / "models" / "model.json").is_file():
        pytest.skip("no shipped model")
    monkeypatch.delenv("MAHJONG_DETECTOR", raising=False)
    env = {"MAHJONG_SCOREBOOK": str(tmp_path / "sb.sqlite"), "MAHJONG_LABELLED_DIR": str(tmp_path / "lab")}
    saved = os.environ.pop("MAHJONG_DETECTOR", None)
    reader = {"MAHJONG_DETECTOR": "tests.slow_model_reader:detect", "SLOW_READ_S": "6"}
    with serve({**env, **reader}, tmp_path / "server.log") as url:
        yield url
    if saved is not None:
        os.environ["MAHJONG_DETECTOR"] = saved


def test_a_photo_of_easts_melds_is_proposed_and_fixed_with_a_tap(real_server, tmp_path):
    d = chrome(tmp_path / "profile")
    try:
        d.get(real_server)
        wait_text(d, "南家 收", 120)
        click_key(d, "new_hand")
        settled(d)
        open_section(d, "直接输入牌")
        settled(d)
        fields = [
            i for i in d.find_elements(By.CSS_SELECTOR, "[data-testid=stForm] input") if i.is_displayed()
        ]
        fields[0].send_keys("1m 45m 456p 789s 中中中 9p9p")
        fields[1].send_keys("9p")
        next(
            b for b in d.find_elements(By.CSS_SELECTOR, "[data-testid=stForm] button") if "用这些牌" in b.text
        ).click()
        settled(d)
        open_section(d, "输家的副露")
        settled(d)
        d.find_element(By.CSS_SELECTOR, '[class*="st-key-lmup_E_"] input[type=file]').send_keys(str(FIXTURE))
        wait_text(d, "从照片读出：碰白 碰七饼", 120)
        settled(d)
        field = d.find_element(By.CSS_SELECTOR, '[class*="_melds_E"] input')
        assert field.get_attribute("value") == "碰白 碰7p"
        tiles = d.find_elements(By.CSS_SELECTOR, '[class*="st-key-lmt_E_"] button')
        assert [t.text for t in tiles] == ["白"] * 3 + ["7饼"] * 3
        assert all(t.size["height"] >= 44 for t in tiles), [t.size for t in tiles]
        d.execute_script(
            "arguments[0].scrollIntoView({block: 'start'})",
            d.find_element(By.CSS_SELECTOR, '[class*="st-key-lmup_E_"]'),
        )
        time.sleep(0.5)
        screen_shot(d, "loser-melds-photo")
        assert sideways(d) == 0
        # 白 was misread: it is 中 (each tap made again when nothing came of it: tap_until)
        bai = '[class*="st-key-lmt_E_0_0_"] button'
        keyboard = lambda x: next(iter(x.find_elements(By.CSS_SELECTOR, ".st-key-kb_C_lmE button")), None)  # noqa: E731
        key = tap_until(d, first_shown(bai), keyboard)
        melds_now = d.find_element(By.CSS_SELECTOR, '[class*="_melds_E"] input').get_attribute("value")
        assert key is not None, (
            f"taps on 白 never opened the tile keyboard ({tap_diagnosis(d, bai)}; East's melds now {melds_now!r});"
            f" server:\n{server_log(real_server)[-3000:]}"
        )
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", key)
        WebDriverWait(d, 10).until(lambda x: in_view(x, key))
        fixed = tap_until(
            d,
            first_shown(".st-key-kb_C_lmE button"),
            lambda x: (
                x.find_element(By.CSS_SELECTOR, '[class*="_melds_E"] input').get_attribute("value")
                == "碰中 碰7p"
            ),
        )
        assert fixed, "the tile keyboard's 中 never fixed East's 碰白"
        assert "Traceback" not in page_text(d)
    finally:
        d.quit()
