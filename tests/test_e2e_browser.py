"""End to end in a real headless Chromium: `streamlit run app.py`, upload a photo, fix a tile, see payments.

Needs the Debian packages `chromium` and `chromium-driver` (/usr/bin/chromium, /usr/bin/chromedriver)
and the Python package `selenium`; skips with the reason when any is missing. Nothing is downloaded:
Selenium is pointed at the system chromedriver, and Chromium runs with its network features off.
The fake detector of tests/test_app.py stands in for the model, so the flow is the same with or
without `models/`. Set SAVE_SCREENSHOT=path to keep a screenshot of the scored sample (the README's
docs/screenshot.png is made this way).
"""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
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
    "--window-size=1400,2400",
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
        MAHJONG_DETECTOR="tests.test_app:fake_detect",
        MAHJONG_LABELLED_DIR=str(tmp_path_factory.mktemp("labelled")),
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
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _wait_text(driver, text: str, timeout: float = 60) -> None:
    WebDriverWait(driver, timeout, poll_frequency=0.25).until(
        lambda d: text in d.find_element(By.TAG_NAME, "body").text,
        message=f"page never showed {text!r}",
    )


def _metric(driver, label: str) -> str:
    for m in driver.find_elements(By.CSS_SELECTOR, '[data-testid="stMetric"]'):
        if label in m.text:
            return m.text
    return ""


def test_upload_fix_and_see_payments(server, browser, tmp_path):
    browser.get(server)
    # first start: the bundled sample, already read and scored
    _wait_text(browser, "6 · The score")
    WebDriverWait(browser, 60).until(lambda d: "+750" in _metric(d, "payment 南家"))
    assert "Traceback" not in browser.find_element(By.TAG_NAME, "body").text
    shot = os.environ.get("SAVE_SCREENSHOT")
    if shot:
        _save_screenshot(browser, Path(shot))

    # upload a photo (the sample re-encoded: a new file); the fake reader misreads the last tile
    photo = tmp_path / "hand.png"
    Image.open(ROOT / "datasets" / "samples" / "winning-hand.jpg").convert("RGB").save(photo)
    browser.find_element(By.CSS_SELECTOR, 'input[type="file"]').send_keys(str(photo))
    _wait_text(browser, "Check the orange tiles")
    _wait_text(browser, "This hand cannot win")

    # fix tile 14 with its picker: the model's next guess (八条) is offered first after the reading
    box = next(
        el
        for el in browser.find_elements(By.CSS_SELECTOR, '[data-testid="stSelectbox"]')
        if el.text.startswith("#14")
    )
    box.find_element(By.CSS_SELECTOR, "input").click()
    options = WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, '[role="option"]'))
    assert "八条" in options[1].text
    options[1].click()
    WebDriverWait(browser, 60).until(lambda d: "+750" in _metric(d, "payment 南家"))
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "This hand cannot win" not in body and "Traceback" not in body
    assert "-250" in _metric(browser, "payment 东家")


def _save_screenshot(driver, path: Path) -> None:
    """Viewport screenshot, reduced to a palette PNG so the README image stays small (< 500 KB)."""
    size = driver.get_window_size()
    driver.set_window_size(1400, 5200)
    time.sleep(1.5)
    png = driver.get_screenshot_as_png()
    driver.set_window_size(size["width"], size["height"])
    im = Image.open(io.BytesIO(png)).convert("RGB")
    arr = np.asarray(im)
    rows = np.nonzero((arr < 250).any(axis=(1, 2)))[0]
    if len(rows):
        im = im.crop((0, 0, im.width, min(im.height, rows.max() + 20)))
    im = im.resize((im.width * 3 // 4, im.height * 3 // 4), Image.Resampling.LANCZOS)
    im.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
