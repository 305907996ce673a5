"""What every browser test needs: `streamlit run app.py` with the fake reader, a headless Chromium at
phone size (390 x 844, mobile emulation), and the taps and waits of a player.

Why a module of its own: several browser tests (the end-to-end flow, the tap-target sizes, the
keyboard in view, the first screen) drive the same page the same way; one copy of the server, the
driver and the patient taps keeps them from drifting apart. The fixtures are in tests/ui/conftest.py.

Importing it skips the importing test module when Chromium, chromedriver or selenium is missing (the
Debian packages `chromium` and `chromium-driver`, the Python package `selenium`). Nothing is
downloaded: Selenium is pointed at the system chromedriver, Chromium runs with its network off.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from page.serve import STREAMLIT_FLAGS, free_port, stop

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
PHONE = (390, 844)

if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
    pytest.skip(
        "chromium not installed (apt-get install -y chromium chromium-driver)", allow_module_level=True
    )
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install selenium)")
from selenium.common.exceptions import (  # noqa: E402
    ElementClickInterceptedException,
    ElementNotInteractableException,
    StaleElementReferenceException,
    TimeoutException,
)
from selenium.webdriver.chrome.options import Options  # noqa: E402

#: A tap that lands on a button covered, redrawn away, or caught mid-redraw at zero size: found and
#: tapped again, as a player would.
TAP_RACES = (
    ElementClickInterceptedException,
    StaleElementReferenceException,
    ElementNotInteractableException,
)
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
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


SERVER_LOGS: dict[str, Path] = {}  # url -> the server's output (quoted when a check fails)


def server_log(url: str) -> str:
    path = SERVER_LOGS.get(url)
    return path.read_text(errors="replace")[-3000:] if path and path.exists() else ""


@contextlib.contextmanager
def serve(extra_env: dict, log: Path) -> Iterator[str]:
    """`streamlit run app.py` with the fake reader and these files; yields its URL. Its output goes
    to `log` (a file: a pipe nobody reads would stop the server once it filled)."""
    port = free_port()
    env = {
        **os.environ,
        "MAHJONG_DETECTOR": "tests.fake_reader:fake_detect",
        "PYTHONPATH": str(ROOT),
        "YOLO_OFFLINE": "1",
        **extra_env,  # may name another reader (tests.slow_reader)
    }
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
        *STREAMLIT_FLAGS,  # the flags every way of serving the page uses: the players' limits
        "--server.port", str(port), "--server.address", "127.0.0.1", "--server.fileWatcherType", "none",
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
                pytest.fail(f"streamlit did not start:\n{server_log(url)[-2000:]}")
            time.sleep(0.3)
        yield url
    finally:
        stop(proc)


def chrome(profile: Path):
    """A headless Chromium emulating a 390 x 844 phone (pixel ratio 2), with its own profile folder."""
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must never fetch a driver or browser
    opts = Options()
    opts.binary_location = str(CHROMIUM)
    for f in FLAGS:
        opts.add_argument(f)
    opts.add_argument(f"--user-data-dir={profile}")
    width, height = PHONE
    opts.add_experimental_option(
        "mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2}}
    )
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    driver.set_page_load_timeout(60)
    return driver


def wait_text(driver, text: str, timeout: float = 60) -> None:
    WebDriverWait(driver, timeout, poll_frequency=0.25).until(
        lambda d: text in d.find_element(By.TAG_NAME, "body").text,
        message=f"page never showed {text!r}",
    )


def page_text(driver) -> str:
    return driver.find_element(By.TAG_NAME, "body").text


def sideways(driver) -> int:
    """How far the page can scroll sideways (0 = nothing wider than the screen)."""
    return int(driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth"))


def in_view(driver, el) -> bool:
    top, bottom = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom]", el
    )
    return top >= 0 and bottom <= driver.execute_script("return window.innerHeight")


# ---------------------------------------------------------------------- an evening at the table


def open_expander(driver, title: str) -> None:
    for s in driver.find_elements(By.CSS_SELECTOR, "[data-testid=stExpander] summary"):
        if title in s.text:
            if s.find_element(By.XPATH, "..").get_attribute("open") is None:
                driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", s)
                s.click()
            return
    raise AssertionError(f"no expander {title}")


#: Where a button is and what a finger on its centre would touch: read when a tap fails, so the
#: failure says why (folded away, covered by what, drawn at zero size) instead of only "could not tap".
_WHERE_IS = """
const b = arguments[0], r = b.getBoundingClientRect(), d = b.closest('details');
const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
return {rect: [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)],
        folded: !!(d && !d.open), stale: !!b.closest('[data-stale="true"]'),
        under: top ? (top.tagName + '.' + (top.className || '') + ' ' + (top.innerText || '').slice(0, 40)) : null,
        in: top ? [...(function* (e) { for (; e; e = e.parentElement) yield e.getAttribute('data-testid'); })(top)]
            .filter(Boolean).slice(0, 6) : null};
"""


def _shown_button(driver, key: str):
    """The button with this widget key that is drawn (a copy left over from the run before, folded
    away or at zero size, comes after it), or None while there is none yet."""
    return first_shown(f".st-key-{key} button")(driver)


def _unfold(driver, button) -> bool:
    """Open the section around `button` if a redraw folded it (True when a tap on its title was made)."""
    summary = driver.execute_script(
        "const d = arguments[0].closest('details'); return d && !d.open ? d.querySelector('summary') : null",
        button,
    )
    if summary is None:
        return False
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
    summary.click()
    return True


def _close_popover(driver) -> bool:
    """Close an open popover (分享这一晚 shows a picture over the buttons below it), as a player
    would by tapping beside it; True when one was open. CI failed once on 新的一晚 under it."""
    if not driver.find_elements(By.CSS_SELECTOR, "[data-testid=stPopoverBody]"):
        return False
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    with contextlib.suppress(TimeoutException):
        WebDriverWait(driver, 5).until(
            lambda d: not d.find_elements(By.CSS_SELECTOR, "[data-testid=stPopoverBody]")
        )
    return True


def click_key(driver, key: str) -> None:
    """Tap the button with this widget key, again if the page was still moving under the finger: a
    section folded by a redraw is opened first, as a player would, and the page is let settle between
    tries. A button that stays covered still fails, saying what covers it."""
    why = []
    for attempt in range(5):
        button = WebDriverWait(driver, 30).until(lambda d: _shown_button(d, key))
        try:
            if _unfold(driver, button):
                why.append("folded")
                settled(driver)
                continue
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
            button.click()
            return
        except TAP_RACES as race:
            with contextlib.suppress(*TAP_RACES):
                why.append(f"{type(race).__name__} {driver.execute_script(_WHERE_IS, button)}")
            if _close_popover(driver):
                why.append("a popover lay over it: closed")
                continue
            time.sleep(0.5 * (attempt + 1))  # covered, redrawn away or caught mid-redraw: again
            settled(driver)
    raise AssertionError(f"could not tap {key}: " + "; ".join(why))


def settled(driver) -> None:
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


def again_until(tap, shown, tries: int = 3):
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


def tap_until(driver, find, shown, wait: float = 15, tries: int = 3):
    """Tap what `find(driver)` returns (an element, or None while there is none) until
    `shown(driver)` returns something within `wait` s (returned); None after `tries` taps. A tap that
    lands while the page redraws can come to nothing: a player taps again, and so does a test, never
    while the first could still be answered (`wait`), so a toggle is not tapped shut. An element
    `shown` reads that is redrawn meanwhile (a field given a fresh key: page.hand_sync.bound_key) is
    read again, not an error."""

    def tap() -> None:
        element = find(driver)
        if element is None:
            return
        with contextlib.suppress(*TAP_RACES):  # redrawn under the finger: the next try taps again
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
            element.click()

    def answered():
        return WebDriverWait(driver, wait, ignored_exceptions=(StaleElementReferenceException,)).until(shown)

    return again_until(tap, answered, tries)


def tap_diagnosis(driver, css: str) -> str:
    """What a tap on the first element `css` finds would meet, for a failure message: where it is
    and what lies on its centre (_WHERE_IS), and the page's running/connection status."""
    found = driver.find_elements(By.CSS_SELECTOR, css)
    where = None
    with contextlib.suppress(*TAP_RACES):
        where = driver.execute_script(_WHERE_IS, found[0]) if found else None
    status = [e.text for e in driver.find_elements(By.CSS_SELECTOR, '[data-testid="stStatusWidget"]')]
    return f"{len(found)} found, first {where}; status {status}"


def first_shown(css: str):
    """A `find` for tap_until: the first element `css` finds that is drawn (else the first, else None)."""

    def find(driver):
        found = driver.find_elements(By.CSS_SELECTOR, css)
        for element in found:
            with contextlib.suppress(*TAP_RACES):
                if element.is_displayed():
                    return element
        return found[0] if found else None

    return find


def type_into(driver, css: str, text: str, wait: float = 15) -> None:
    """Type `text` into the field `css` finds once it is drawn and can take it, as a thumb waits for
    a section to finish unfolding: a field found while its section still opens is not interactable
    yet, so typing waits and tries again (a redrawn field is found afresh)."""

    def typed(d) -> bool:
        with contextlib.suppress(*TAP_RACES):
            field = d.find_element(By.CSS_SELECTOR, css)
            if field.is_displayed() and field.is_enabled():
                field.send_keys(text)
                return True
        return False

    WebDriverWait(driver, wait, poll_frequency=0.2).until(typed)


def upload(driver, path: Path) -> None:
    """Pick `path` in the page's first upload box once the page has finished its run, as a player
    picks a photo on a page that is drawn: a pick sent while a run still redraws the page was
    lost now and then (CI, stop 56: twice in five runs, in two tests)."""
    WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, 'input[type="file"]'))
    settled(driver)
    driver.find_element(By.CSS_SELECTOR, 'input[type="file"]').send_keys(str(path))


def sample_tile_centre(i: int) -> tuple[float, float]:
    """Where tile i of the bundled sample lies, as fractions of the photo's width and height."""
    doc = json.loads((ROOT / "datasets" / "samples" / "sample.json").read_text(encoding="utf-8"))
    x1, y1, x2, y2 = doc["tiles"][i]["xyxy"]
    return (x1 + x2) / 2 / 640, (y1 + y2) / 2 / 300


def tap_photo(driver, where: tuple[float, float]) -> None:
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


def tap_photo_until(driver, where: tuple[float, float], css: str, server: str, tries: int = 3):
    """Tap the photo until the element `css` shows, as a player taps again when a tap landed while
    the page was redrawing; fails with the server's log after `tries` taps."""
    found = again_until(
        lambda: tap_photo(driver, where),
        lambda: WebDriverWait(driver, 15).until(
            lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, css)), None)
        ),
        tries,
    )
    if found is None:
        pytest.fail(f"{tries} taps on the photo never showed {css}; server:\n{server_log(server)[-3000:]}")
    return found


def save_screenshot(driver, path: Path, width: int) -> None:
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


def screen_shot(driver, name: str) -> None:
    """With SHOTS=DIR, what the phone's screen shows now (390 x 844, no scrolling) as DIR/name.png,
    390 px wide (docs/ keeps these: the first screen, the keyboard, the English score)."""
    folder = os.environ.get("SHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    time.sleep(0.5)
    png = base64.b64decode(driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})["data"])
    im = Image.open(io.BytesIO(png)).convert("RGB")
    im = im.resize((PHONE[0], round(im.height * PHONE[0] / im.width)), Image.Resampling.LANCZOS)
    im.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(Path(folder) / f"{name}.png", optimize=True)


def open_section(driver, title: str, tries: int = 3) -> None:
    """Open the section (expander) titled `title` as a thumb would: scroll to it, let the page stop
    moving, tap, and tap again if it did not open (a tap while a section above still unfolds)."""
    for _ in range(tries):
        summary = next(
            (
                s
                for s in driver.find_elements(By.CSS_SELECTOR, "[data-testid=stExpander] summary")
                if title in s.text and not s.find_elements(By.XPATH, "ancestor::*[@data-stale='true']")
            ),
            None,
        )
        if summary is None:
            raise AssertionError(f"no section {title}")
        if driver.execute_script("return arguments[0].parentElement.open", summary):
            return
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
        time.sleep(0.5)
        with contextlib.suppress(ElementClickInterceptedException, StaleElementReferenceException):
            summary.click()
        with contextlib.suppress(TimeoutException, StaleElementReferenceException):
            WebDriverWait(driver, 3).until(
                lambda d, s=summary: d.execute_script("return arguments[0].parentElement.open", s)
            )
    raise AssertionError(f"section {title} never opened")
