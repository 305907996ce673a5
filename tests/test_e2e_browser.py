"""End to end in a real headless Chromium at phone size (390 x 844, mobile emulation): `streamlit run
app.py`, no sideways scrolling, upload a photo, tap the orange tile, fix it with one tap, see payments.

Needs the Debian packages `chromium` and `chromium-driver` (/usr/bin/chromium, /usr/bin/chromedriver)
and the Python package `selenium`; skips with the reason when any is missing. Nothing is downloaded:
Selenium is pointed at the system chromedriver, and Chromium runs with its network features off.
The fake detector of tests/test_app.py stands in for the model, so the flow is the same with or
without `models/`. Set SAVE_SCREENSHOT=path.png to keep full-page screenshots of the scored sample at
phone size (path.png) and desktop size (path-desktop.png): the README's docs/screenshot-phone.png and
docs/screenshot.png are made this way.
"""

from __future__ import annotations

import base64
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

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

pytestmark = pytest.mark.slow

if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
    pytest.skip(
        "chromium not installed (apt-get install -y chromium chromium-driver)", allow_module_level=True
    )
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install selenium)")
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


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    env = dict(
        os.environ,
        MAHJONG_DETECTOR="tests.fake_reader:fake_detect",
        MAHJONG_LABELLED_DIR=str(tmp_path_factory.mktemp("labelled")),
        MAHJONG_SCOREBOOK=str(tmp_path_factory.mktemp("book") / "scorebook.sqlite"),
        PYTHONPATH=str(ROOT),
        YOLO_OFFLINE="1",
    )
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
        "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
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
                out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
                pytest.fail(f"streamlit did not start:\n{out[-2000:]}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


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
    # first start: the bundled sample, already read and scored, in Chinese
    _wait_text(browser, "南家 收 750")
    assert "Traceback" not in _body(browser)
    assert _sideways(browser) == 0
    photo_top = WebDriverWait(browser, 30).until(
        lambda d: d.execute_script(
            "const i = document.querySelector('img.mj-tap');"
            "return i ? i.getBoundingClientRect().top + scrollY : null"
        )
    )
    score_top = browser.find_element(By.CSS_SELECTOR, ".st-key-score").rect["y"]
    assert score_top - photo_top < 844, "the score is more than one screen below the photo"
    shot = os.environ.get("SAVE_SCREENSHOT")
    if shot:
        _save_screenshot(browser, Path(shot), 390)
        _save_screenshot(browser, Path(shot).with_name(Path(shot).stem + "-desktop.png"), 1000)

    # upload a photo (the sample re-encoded: a new file); the fake reader misreads the last tile
    photo = tmp_path / "hand.png"
    Image.open(ROOT / "datasets" / "samples" / "winning-hand.jpg").convert("RGB").save(photo)
    browser.find_element(By.CSS_SELECTOR, 'input[type="file"]').send_keys(str(photo))
    _wait_text(browser, "橙色的请看一眼")
    _wait_text(browser, "本局情况已重置")  # a new photo is a new hand: the situation was reset
    assert _sideways(browser) == 0

    # tap the orange tile on the photo itself, then the model's next guess (八条): one tap fixes it
    _tap_photo(browser, _sample_tile_centre(-1))
    WebDriverWait(browser, 30).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, '[class*="st-key-sug_8s_"] button')
    )
    assert _sideways(browser) == 0  # the keyboard fits the phone
    browser.find_element(By.CSS_SELECTOR, '[class*="st-key-sug_8s_"] button').click()
    WebDriverWait(browser, 30).until(
        lambda d: not d.find_elements(By.CSS_SELECTOR, '[class*="st-key-pickq_"]')
    )
    _wait_text(browser, "请选混指示牌")  # the new hand has no 混 indicator yet: the page asks for it
    body = _body(browser)
    assert "不能胡" not in body and "Traceback" not in body


def _sample_tile_centre(i: int) -> tuple[float, float]:
    """Where tile i of the bundled sample lies, as fractions of the photo's width and height."""
    doc = json.loads((ROOT / "datasets" / "samples" / "sample.json").read_text(encoding="utf-8"))
    x1, y1, x2, y2 = doc["tiles"][i]["xyxy"]
    return (x1 + x2) / 2 / 640, (y1 + y2) / 2 / 300


def _tap_photo(driver, where: tuple[float, float]) -> None:
    """A tap on the photo at (x, y) in fractions of its size (the photo is the page's widest picture)."""
    img = WebDriverWait(driver, 30).until(
        lambda d: next(
            (i for i in d.find_elements(By.CSS_SELECTOR, "img.mj-tap") if i.size["width"] > 200), None
        )
    )
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", img)
    w, h = img.size["width"], img.size["height"]
    ActionChains(driver).move_to_element_with_offset(
        img, where[0] * w - w / 2, where[1] * h - h / 2
    ).click().perform()


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
