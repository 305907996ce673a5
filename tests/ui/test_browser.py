"""End to end in a real headless Chromium at phone size (390 x 844, mobile emulation): `streamlit run
app.py`, no sideways scrolling, upload a photo, tap the orange tile, fix it with one tap, see payments.

Needs the Debian packages `chromium` and `chromium-driver` (/usr/bin/chromium, /usr/bin/chromedriver)
and the Python package `selenium`; skips with the reason when any is missing. Nothing is downloaded:
Selenium is pointed at the system chromedriver, and Chromium runs with its network features off.
The fake detector of tests/ui/test_app.py stands in for the model, so the flow is the same with or
without `models/`. Set SAVE_SCREENSHOT=path.png to keep full-page screenshots of the scored sample at
phone size (path.png) and desktop size (path-desktop.png): the README's docs/screenshot-phone.png and
docs/screenshot.png are made this way.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from PIL import Image

from page.serve import stop

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

pytestmark = pytest.mark.slow

if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
    pytest.skip(
        "chromium not installed (apt-get install -y chromium chromium-driver)", allow_module_level=True
    )
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install selenium)")
from selenium.common.exceptions import (  # noqa: E402
    ElementClickInterceptedException,
    StaleElementReferenceException,
    TimeoutException,
)
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=390,844",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SERVER_LOGS: dict[str, Path] = {}  # url -> the server's output (quoted when a check fails)


def _server_log(url: str) -> str:
    path = SERVER_LOGS.get(url)
    return path.read_text(errors="replace")[-3000:] if path and path.exists() else ""


@contextlib.contextmanager
def _serve(extra_env: dict, log: Path):
    """`streamlit run app.py` with the fake reader and these files; yields its URL. Its output goes
    to `log` (a file: a pipe nobody reads would stop the server once it filled)."""
    port = _free_port()
    env = dict(
        os.environ,
        MAHJONG_DETECTOR="tests.fake_reader:fake_detect",
        PYTHONPATH=str(ROOT),
        YOLO_OFFLINE="1",
        **extra_env,
    )
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
        "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
    ]  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    SERVER_LOGS[url] = log
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                pytest.fail(f"streamlit did not start:\n{_server_log(url)[-2000:]}")
            time.sleep(0.3)
        yield url
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    book = tmp_path_factory.mktemp("book")
    env = {
        "MAHJONG_LABELLED_DIR": str(tmp_path_factory.mktemp("labelled")),
        "MAHJONG_SCOREBOOK": str(book / "scorebook.sqlite"),
    }
    with _serve(env, book / "server.log") as url:
        yield url


@pytest.fixture
def evening_server(tmp_path):
    """A server of its own with an empty scorebook (the evening starts from nothing)."""
    env = {
        "MAHJONG_SCOREBOOK": str(tmp_path / "evening.sqlite"),
        "MAHJONG_LABELLED_DIR": str(tmp_path / "lab"),
    }
    with _serve(env, tmp_path / "server.log") as url:
        yield url, env


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must never fetch a driver or browser
    opts = Options()
    opts.binary_location = str(CHROMIUM)
    for f in FLAGS:
        opts.add_argument(f)
    opts.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    opts.add_experimental_option(
        "mobileEmulation", {"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2}}
    )
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _wait_text(driver, text: str, timeout: float = 60) -> None:
    WebDriverWait(driver, timeout, poll_frequency=0.25).until(
        lambda d: text in d.find_element(By.TAG_NAME, "body").text,
        message=f"page never showed {text!r}",
    )


def _body(driver) -> str:
    return driver.find_element(By.TAG_NAME, "body").text


def _sideways(driver) -> int:
    """How far the page can scroll sideways (0 = nothing wider than the screen)."""
    return int(driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth"))


def test_phone_upload_tap_fix_and_see_payments(server, browser, tmp_path):
    browser.get(server)
    # first start: the bundled sample, already read and scored, in Chinese; never recordable
    _wait_text(browser, "南家 收 750")
    assert "Traceback" not in _body(browser)
    assert "示例牌局不能记分" in _body(browser)
    assert _sideways(browser) == 0
    shot = os.environ.get("SAVE_SCREENSHOT")
    if shot:
        _save_screenshot(browser, Path(shot), 390)
        _save_screenshot(browser, Path(shot).with_name(Path(shot).stem + "-desktop.png"), 1000)

    # upload a photo (the sample re-encoded: a new file); the fake reader misreads the last tile
    photo = tmp_path / "hand.png"
    Image.open(ROOT / "datasets" / "samples" / "winning-hand.jpg").convert("RGB").save(photo)
    _upload(browser, photo)
    _wait_text(browser, "橙色的请看一眼")
    _wait_text(browser, "还不能算：请选谁胡了")  # a new hand: nothing guessed
    assert _sideways(browser) == 0
    # the score box is on the first screen after a photo
    assert browser.find_element(By.CSS_SELECTOR, ".st-key-score").rect["y"] < 844

    # tap the orange tile on the photo itself: the keyboard opens in view; the model's next guess fixes it
    sug = _tap_photo_until(browser, _sample_tile_centre(-1), '[class*="st-key-sug_8s_"] button', server)
    WebDriverWait(browser, 10).until(lambda d: _in_view(d, sug))
    assert _sideways(browser) == 0  # the keyboard fits the phone
    sug.click()
    WebDriverWait(browser, 30).until(
        lambda d: not d.find_elements(By.CSS_SELECTOR, '[class*="st-key-pickq_"]')
    )
    body = _body(browser)
    assert "不能胡" not in body and "Traceback" not in body


def _in_view(driver, el) -> bool:
    top, bottom = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom]", el
    )
    return top >= 0 and bottom <= driver.execute_script("return window.innerHeight")


# ---------------------------------------------------------------------- an evening at the table


def _hand_widget(driver, name: str):
    """The container of this hand's widget `name` (its key is h<id>e<n>_name)."""
    return WebDriverWait(driver, 30).until(
        lambda d: d.execute_script(
            "return [...document.querySelectorAll('[class*=\"st-key-h\"]')].find(e => "
            "!e.closest('[data-stale=\"true\"]') && "
            "[...e.classList].some(c => /^st-key-h[0-9a-f]{8}e\\d+_" + name + "$/.test(c)))"
        )
    )


def _choose(driver, name: str, label: str) -> None:
    """Tap the option `label` of the segmented control `name` (谁胡了, 怎么胡的 …); a tap that lands
    while the page is redrawing is tapped again, as a player would."""
    for _ in range(3):
        box = _hand_widget(driver, name)
        button = next(b for b in box.find_elements(By.TAG_NAME, "button") if b.text.strip() == label)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
        try:
            WebDriverWait(driver, 10, ignored_exceptions=(StaleElementReferenceException,)).until(
                lambda d: _state_of(d, name, label) == "selected"
            )
            return
        except TimeoutException:
            continue
    raise AssertionError(f"{label} never became selected in {name}")


def _state_of(driver, name: str, label: str) -> str:
    box = _hand_widget(driver, name)
    for b in box.find_elements(By.TAG_NAME, "button"):
        if b.text.strip() == label:
            return (
                "selected"
                if b.get_attribute("aria-checked") == "true"
                or "Active" in (b.get_attribute("data-testid") or "")
                else "not"
            )
    return "missing"


def _pick_indicator(driver, code: str) -> None:
    button = WebDriverWait(driver, 30).until(
        lambda d: next(
            iter(d.find_elements(By.CSS_SELECTOR, '[class*="st-key-tilein_indicator_"] button')), None
        )
    )
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    key = WebDriverWait(driver, 30).until(
        lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, f".st-key-kb_{code}_indicator button")), None)
    )
    WebDriverWait(driver, 10).until(lambda d: _in_view(d, key))  # the tile keyboard opens in view
    key.click()
    WebDriverWait(driver, 30).until(
        lambda d: not d.find_elements(By.CSS_SELECTOR, f".st-key-kb_{code}_indicator")
    )


def _type_melds(driver, seat: str, text: str) -> None:
    """A loser's melds: the field of this hand only (a new hand's field is a new, empty one)."""
    _settled(driver)  # one drawing of the page: no element of the run before
    _open_expander(driver, "输家的副露")
    field = _hand_widget(driver, f"melds_{seat}").find_element(By.TAG_NAME, "input")
    value = field.get_attribute("value")
    seen = driver.execute_script(
        "return [...document.querySelectorAll('[class*=\"_melds_\"]')].map(e => [e.className, "
        "e.closest('[data-stale]') && e.closest('[data-stale]').getAttribute('data-stale'), "
        "(e.querySelector('input') || {}).value])"
    )
    assert value == "", (
        f"{seat}: {value!r} carried over from an earlier hand; fields: {seen}\n"
        f"server:\n{_server_log(driver.current_url.split('/?')[0].rstrip('/'))}"
    )
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", field)
    field.send_keys(text + "\n")
    time.sleep(0.5)


def _open_expander(driver, title: str) -> None:
    for s in driver.find_elements(By.CSS_SELECTOR, "[data-testid=stExpander] summary"):
        if title in s.text:
            if s.find_element(By.XPATH, "..").get_attribute("open") is None:
                driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", s)
                s.click()
            return
    raise AssertionError(f"no expander {title}")


def _click_key(driver, key: str) -> None:
    """Tap the button with this widget key (again if the page was still moving under the finger)."""
    for attempt in range(5):
        button = WebDriverWait(driver, 30).until(
            lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, f".st-key-{key} button")), None)
        )
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        try:
            button.click()
            return
        except (ElementClickInterceptedException, StaleElementReferenceException):
            time.sleep(0.5 * (attempt + 1))
    raise AssertionError(f"could not tap {key}")


def _settled(driver) -> None:
    """The page has finished its run (Streamlit's running indicator is gone)."""
    time.sleep(0.3)
    WebDriverWait(driver, 30).until(
        lambda d: (
            not d.find_elements(
                By.CSS_SELECTOR,
                '[data-testid="stStatusWidget"] [data-testid*="Running"], [data-testid="stStatusWidgetRunningIcon"]',
            )
        )
    )
    time.sleep(0.3)


def _again_until(tap, shown, tries: int = 3):
    """Tap, and tap again as a player would when a tap landed while the page was redrawing, until
    `shown()` returns something (returned); None after `tries` taps. `shown` raises TimeoutException
    when it gives up waiting."""
    for _ in range(tries):
        tap()
        try:
            return shown()
        except TimeoutException:
            continue
    return None


def _tap_until(driver, key: str, text: str) -> None:
    """Tap `key` until the page shows `text` (a tap during a redraw is lost, as on a phone)."""
    if (
        _again_until(lambda: _click_key(driver, key), lambda: _wait_text(driver, text, timeout=10) or True)
        is None
    ):
        _wait_text(driver, text, timeout=1)


def _upload(driver, path: Path) -> None:
    WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, 'input[type="file"]'))
    driver.find_element(By.CSS_SELECTOR, 'input[type="file"]').send_keys(str(path))


def _book(server_env: dict):
    from page.scorebook import Scorebook

    return Scorebook(server_env["MAHJONG_SCOREBOOK"])


def _expected(k: int, dealer: str, winner: str, melds: dict[str, str]) -> dict:
    """The hand JSON of HANDS[k] as the players said it, built here, not by the page."""
    from page.quick_entry import parse_melds
    from tests.fake_reader import HANDS

    tiles = list(HANDS[k])
    players = {s: {} for s in "ESWN"}
    players[winner] = {"concealed": tiles[:-1]}
    for seat, text in melds.items():
        players[seat] = {"melds": [{"kind": kd, "tiles": ts} for kd, ts in parse_melds(text)]}
    return {"version": 1, "preset": "liaoyang", "dealer": dealer, "indicator": "9m", "winner": winner,
            "win": {"tile": tiles[-1], "by": "self_draw"}, "players": players}  # fmt: skip


def test_an_evening_of_four_hands_adds_up(evening_server, browser, tmp_path):
    """Four hands with different winners and losers' melds, one fixed and recorded again (it replaces
    the hand), a reload in the middle of a hand (restored), 新的一晚 confirmed: the book's totals are
    the engine's payments of the same inputs, and no input of one hand shows in the next."""
    import rules
    from tests.fake_reader import marked_photo

    url, env = evening_server
    browser.get(url)
    _wait_text(browser, "南家 收 750")
    plan = [  # (photo, winner, losers' melds typed, dealer the book deals)
        (0, "南家", {"N": "吃678m"}, "E"),
        (1, "西家", {"E": "碰发"}, "S"),
        (2, "北家", {"S": "碰5s"}, "W"),
        (3, "南家", {}, "N"),
    ]
    seat_of = {"东家": "E", "南家": "S", "西家": "W", "北家": "N"}
    expected = []
    for n, (k, winner, melds, dealer) in enumerate(plan, start=1):
        photo = tmp_path / f"hand{k}.png"
        photo.write_bytes(marked_photo(k))
        _upload(browser, photo)
        _wait_text(browser, "还不能算：请选谁胡了")
        assert _sideways(browser) == 0
        _choose(browser, "winner", winner)
        if n == 4:  # the phone sleeps mid-hand: a reload finds the hand as it was
            _settled(browser)
            browser.refresh()
            _wait_text(browser, "还不能算：请选怎么胡的")
            assert "示例" not in _body(browser)
            WebDriverWait(browser, 30, ignored_exceptions=(StaleElementReferenceException,)).until(
                lambda d, w=winner: _state_of(d, "winner", w) == "selected"
            )
            _evening_shot(browser, "hand4-after-reload")
        _choose(browser, "win_by", "自摸")
        _pick_indicator(browser, "9m")
        for seat, text in melds.items():
            _type_melds(browser, seat, text)
        hand = _expected(k, dealer, seat_of[winner], melds)
        want = rules.score(hand).payments
        _wait_text(browser, f"{winner} 收 {want[seat_of[winner]]}")
        _tap_until(browser, "record", f"已记入第 {n} 局")
        _evening_shot(browser, f"hand{n}-recorded")
        if n == 3:  # a misread winner, fixed after recording: the same photo replaces hand 3
            _choose(browser, "winner", "东家")
            _wait_text(browser, "这张照片已记为第 3 局——改成这样？")
            _tap_until(browser, "record", "第 3 局已改好")
            _evening_shot(browser, "hand3-replaced")
            hand = _expected(k, dealer, "E", melds)
            want = rules.score(hand).payments
        expected.append(want)
    book = _book(env)
    hist = book.history()
    assert [h.number for h in hist] == [1, 2, 3, 4] and [h.winner for h in hist] == ["S", "W", "E", "S"]
    totals = {s: sum(p[s] for p in expected) for s in "ESWN"}
    assert book.standing().totals == totals
    title = next(
        s.text for s in browser.find_elements(By.CSS_SELECTOR, "[data-testid=stExpander] summary")
        if "今晚的记分本" in s.text
    )  # fmt: skip
    assert all(
        f"{zh}{totals[s]:+d}" in title.replace(" ", "") for s, zh in zip("ESWN", "东南西北", strict=True)
    )
    # 新的一晚 asks first; confirmed, the totals start from zero and the old evening can be reopened
    _open_expander(browser, "今晚的记分本")
    _evening_shot(browser, "book")
    _tap_until(browser, "new_evening", "开始新的一晚？")
    _click_key(browser, "confirm_yes")
    WebDriverWait(browser, 30).until(lambda d: book.standing().totals == dict.fromkeys("ESWN", 0))
    assert len(book.evenings()) == 2
    assert "Traceback" not in _body(browser)


def _evening_shot(driver, name: str) -> None:
    """With EVENING_SHOTS=DIR, a full-page phone screenshot of this moment of the evening (to look at)."""
    folder = os.environ.get("EVENING_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        _settled(driver)
        _save_screenshot(driver, Path(folder) / f"{name}.png", 390)


def _sample_tile_centre(i: int) -> tuple[float, float]:
    """Where tile i of the bundled sample lies, as fractions of the photo's width and height."""
    doc = json.loads((ROOT / "datasets" / "samples" / "sample.json").read_text(encoding="utf-8"))
    x1, y1, x2, y2 = doc["tiles"][i]["xyxy"]
    return (x1 + x2) / 2 / 640, (y1 + y2) / 2 / 300


def _tap_photo(driver, where: tuple[float, float]) -> None:
    """A tap on the photo at (x, y) in fractions of its size (the photo is the page's widest picture),
    once the picture is drawn: its data URL decodes after the element exists, and a tap on a picture
    still 0 px high lands on its top edge, where no tile is."""
    img = WebDriverWait(driver, 30).until(
        lambda d: d.execute_script(
            "return [...document.querySelectorAll('img.mj-tap')].find(i => !i.closest('[data-stale=\"true\"]')"
            " && i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width > 200"
            " && i.getBoundingClientRect().height > 100)"
        ),
        message="the photo was never drawn",
    )
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", img)
    w, h = img.size["width"], img.size["height"]
    ActionChains(driver).move_to_element_with_offset(
        img, where[0] * w - w / 2, where[1] * h - h / 2
    ).click().perform()


def _tap_photo_until(driver, where: tuple[float, float], css: str, server: str, tries: int = 3):
    """Tap the photo until the element `css` shows, as a player taps again when a tap landed while
    the page was redrawing; fails with the server's log after `tries` taps."""
    found = _again_until(
        lambda: _tap_photo(driver, where),
        lambda: WebDriverWait(driver, 15).until(
            lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, css)), None)
        ),
        tries,
    )
    if found is None:
        pytest.fail(f"{tries} taps on the photo never showed {css}; server:\n{_server_log(server)[-3000:]}")
    return found


def _save_screenshot(driver, path: Path, width: int) -> None:
    """Full-page screenshot at `width` CSS px, reduced to a palette PNG so the README image stays small."""
    height = int(driver.execute_script('return document.querySelector("[data-testid=stMain]").scrollHeight'))
    phone = width < 500
    metrics = {"width": width, "height": height + 40, "deviceScaleFactor": 2 if phone else 1, "mobile": phone}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    time.sleep(2)
    png = base64.b64decode(driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})["data"])
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    im = Image.open(io.BytesIO(png)).convert("RGB")
    if phone:
        im = im.resize((im.width // 2, im.height // 2), Image.Resampling.LANCZOS)
    im.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
