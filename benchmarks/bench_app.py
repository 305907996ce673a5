"""How long the player waits on the page (target: the scored sample within 3 s of the first request).

First load, measured the way a phone sees it: a real `streamlit run app.py` (the same flags as
`make app`) and headless Chromium (/usr/bin/chromium via Selenium) emulating a 390 x 844 phone. Each
visit is a fresh browser with an empty cache (a phone that never opened the page); the time is the
browser's own clock from the navigation's start (the first request) to:

- "first words": the page shows something (the title bar), i.e. no blank screen;
- "scored sample": the bundled sample photo read by the model and scored (the score card shows who
  won and the payments).

The server is started and warmed up as `make app` does it (`page.serve.warm_up`: Streamlit's script
health check runs the page once, which loads the model); the first visit after that is reported
apart (`--no-warm`: the first visit loads the model itself). The target is the median over the
following visits, "on a warm server", in a new browser each time and in a returning one.

Second, without a browser, what the page computes when a photo arrives (target: ≤ 2 s): decode,
detect, layout, score and draw, on the sample as shipped and upscaled to a 12 MP phone JPEG.

Run: `python benchmarks/bench_app.py [--n 7] [--fake] [--part first-load|photo] [--baseline]`
(`--fake`: the sample's checked boxes stand in for the model, to time the page without detection).
The first part needs chromium, chromium-driver and selenium.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # page/ and tests/ as the page sees them
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
PHONE = {"width": 390, "height": 844, "pixelRatio": 3.0}
#: What counts as drawn: the title bar, and the score card once it names the winner (…胡 · N 番…).
FIRST_WORDS_CSS = ".st-key-titlebar"
SCORED_CSS = ".st-key-score"
SCORED_TEXT = " 番"
TIMEOUT_S = 120

#: Resolves with performance.now() (ms since the navigation started) once an element matching the
#: selector shows the text; a MutationObserver sees it the moment React puts it in the page.
_WAIT_JS = """
const [css, text, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const hit = () => [...document.querySelectorAll(css)].some(e => e.innerText.includes(text));
if (hit()) { done(performance.now()); return; }
const obs = new MutationObserver(() => { if (hit()) { obs.disconnect(); done(performance.now()); } });
obs.observe(document.documentElement, {childList: true, subtree: true, characterData: true});
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: The floor on this machine: the same two marks on a page that does nothing else (`--baseline`).
BASELINE_APP = """import streamlit as st
with st.container(key="titlebar"):
    st.markdown("### baseline")
with st.container(key="score"):
    st.markdown("南家 胡 · 1 番")
"""


def start_server(
    fake: bool, data_dir: Path, app: Path = ROOT / "app.py"
) -> tuple[subprocess.Popen, str, float]:
    """`streamlit run app.py` as `make app` runs it; returns once /_stcore/health answers."""
    port = _free_port()
    env = dict(os.environ, MAHJONG_DATA_DIR=str(data_dir), MAHJONG_SCOREBOOK=str(data_dir / "book.sqlite"))
    env.update(MAHJONG_LABELLED_DIR=str(data_dir / "labelled"), PYTHONPATH=str(ROOT), YOLO_OFFLINE="1")
    env.pop("MAHJONG_PIN", None)
    if fake:
        env["MAHJONG_DETECTOR"] = "tests.fake_reader:fake_detect"
    from page.serve import STREAMLIT_FLAGS, wait_healthy

    cmd = [
        sys.executable, "-m", "streamlit", "run", str(app), *STREAMLIT_FLAGS,
        "--server.address", "127.0.0.1", "--server.port", str(port), "--server.fileWatcherType", "none",
    ]  # fmt: skip
    t0 = time.perf_counter()
    log = data_dir / "streamlit.log"  # a file, not a pipe nobody reads (a full pipe would stall it)
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    if not wait_healthy(url, TIMEOUT_S, alive=lambda: proc.poll() is None):
        proc.kill()
        raise SystemExit(f"streamlit did not start:\n{log.read_text(errors='replace')[-2000:]}")
    return proc, url, time.perf_counter() - t0


def _browser(profile: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must never fetch anything
    opts = Options()
    opts.binary_location = str(CHROMIUM)
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={profile}",
    ):  # fmt: skip
        opts.add_argument(flag)
    opts.add_experimental_option("mobileEmulation", {"deviceMetrics": PHONE})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    driver.set_page_load_timeout(TIMEOUT_S)
    driver.set_script_timeout(TIMEOUT_S)
    return driver


def _timed_get(driver, url: str) -> tuple[float, float]:
    """Open the page in this browser: (first words, scored sample), seconds from the navigation start."""
    driver.get(url)
    words = driver.execute_async_script(_WAIT_JS, FIRST_WORDS_CSS, "")
    scored = driver.execute_async_script(_WAIT_JS, SCORED_CSS, SCORED_TEXT)
    body = driver.execute_script("return document.body.innerText")
    if "Traceback" in body:
        raise SystemExit(f"the page shows a traceback:\n{body[-1500:]}")
    return words / 1000, scored / 1000


def fresh_visit(url: str, workdir: Path) -> tuple[float, float]:
    """A phone opening the page for the first time: a new browser, nothing cached."""
    with tempfile.TemporaryDirectory(dir=workdir) as profile:
        driver = _browser(Path(profile))
        try:
            return _timed_get(driver, url)
        finally:
            driver.quit()


def cached_visits(url: str, workdir: Path, n: int) -> list[tuple[float, float]]:
    """A phone that opened the page before (Streamlit's scripts cached) opening it again, n times."""
    with tempfile.TemporaryDirectory(dir=workdir) as profile:
        driver = _browser(Path(profile))
        try:
            _timed_get(driver, url)  # fills the cache
            return [_timed_get(driver, url) for _ in range(n)]
        finally:
            driver.quit()


def _line(label: str, runs: list[tuple[float, float]]) -> str:
    scored = [r[1] for r in runs]
    return (
        f"{label}, n={len(runs)}: first words median {statistics.median(r[0] for r in runs):.2f} s; "
        f"scored sample median {statistics.median(scored):.2f} s (min {min(scored):.2f}, max {max(scored):.2f})"
    )


def first_load(n: int, fake: bool, baseline: bool = False, warm: bool = True) -> dict[str, float]:
    """Start the server, visit once (the first visit), then n fresh and n cached visits; print the numbers."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        raise SystemExit(
            "needs /usr/bin/chromium and /usr/bin/chromedriver (apt-get install chromium chromium-driver)"
        )
    with tempfile.TemporaryDirectory(prefix="bench-app-") as tmp:
        work = Path(tmp)
        app = ROOT / "app.py"
        if baseline:
            app = work / "baseline.py"
            app.write_text(BASELINE_APP, encoding="utf-8")
        from page.serve import stop, warm_up

        proc, url, start_s = start_server(fake, work, app)
        try:
            warm_s = warm_up(url) if warm else None
            first = fresh_visit(url, work)
            fresh = [fresh_visit(url, work) for _ in range(n)]
            cached = cached_visits(url, work, n)
        finally:
            stop(proc)
    what = "fake reader (the sample's checked boxes)" if fake else "the shipped model"
    if baseline:
        what = "none: BASELINE, a two-line Streamlit page (the floor on this machine)"
    print(f"server start → healthy {start_s:.2f} s; reader: {what}; phone 390x844")
    how = f"after make app's warm-up ({warm_s:.1f} s)" if warm_s is not None else "without a warm-up"
    print(
        f"first visit after the start, {how} (new browser): first words {first[0]:.2f} s, "
        f"scored sample {first[1]:.2f} s"
    )
    print(_line("warm server, new browser each visit", fresh) + "; target ≤ 3 s")
    print(_line("warm server, returning browser (scripts cached)", cached))
    return {
        "start": start_s,
        "first_visit": first[1],
        "fresh": statistics.median(r[1] for r in fresh),
        "cached": statistics.median(r[1] for r in cached),
    }


def _first_result(data: bytes, name: str, detector, situation: dict) -> float | None:
    """The page's work for a new photo up to the payments and the drawn photo (app.py's order:
    read_photo, a new HandSession with the sample's inputs, evaluate, the drawn photo); returns the
    reader's own seconds."""
    from page.annotate import display_scale, draw_marks, marks_for, shrink
    from page.hand_session import HandSession
    from page.photo_state import read_photo

    photo = read_photo(data, name, detector)
    hand = HandSession(situation.get("preset", "liaoyang"))
    hand.start_photo(photo, data, dealer=situation.get("dealer", "E"))
    hand.set_winner(situation["winner"])
    hand.set_win_by(situation["win_by"])
    hand.set_indicator(situation["indicator"])
    hand.evaluate()
    if photo.rgb is not None:
        side = 1280  # page.panels.photo.DISPLAY_SIDE
        scale = display_scale(photo.rgb.shape[1], photo.rgb.shape[0], side)
        draw_marks(shrink(photo.rgb, side), marks_for(photo.boxes, winning=photo.winning), scale)
    return photo.seconds


def photo_to_result(n: int, fake: bool) -> None:
    """Upload → first result without the browser: the sample as shipped and as 12 MP."""
    import io
    import json

    import numpy as np
    from PIL import Image

    from page.detector_loader import Detector, model_detector
    from vision import _env  # noqa: F401  (offline ultralytics settings)
    from vision.read import detect as vdetect

    sample = ROOT / "datasets" / "samples"
    doc = json.loads((sample / "sample.json").read_text(encoding="utf-8"))
    sit = doc["situation"]
    if fake:
        from tests.fake_reader import fake_detect

        detector = Detector(fake_detect, "fake")
    else:
        t0 = time.perf_counter()
        detector = model_detector(os.environ.get("MAHJONG_MODEL") or str(vdetect.DEFAULT_MODEL))
        print(f"model {detector.version} loaded in {time.perf_counter() - t0:.2f} s (excluded)")
    small = (sample / doc["photo"]).read_bytes()
    buf = io.BytesIO()
    rgb = np.asarray(Image.open(io.BytesIO(small)).convert("RGB"))
    Image.fromarray(rgb).resize((5000, 2400), Image.Resampling.BICUBIC).save(buf, "JPEG", quality=92)
    for label, data in (("sample 640x300", small), ("sample upscaled to 12 MP (5000x2400)", buf.getvalue())):
        _first_result(data, "warm.jpg", detector, sit)  # warm-up: the first call allocates
        times, reads = [], []
        for i in range(n):
            payload = data + bytes([i % 251])  # a new file each time: no cache can help
            t = time.perf_counter()
            reads.append(_first_result(payload, "photo.jpg", detector, sit) or 0.0)
            times.append(time.perf_counter() - t)
        print(
            f"{label}: photo → first result median {statistics.median(times):.3f} s "
            f"(max {max(times):.3f} s; detect + layout {statistics.median(reads):.3f} s), n={n}"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--n", type=int, default=7, help="visits on the warm server (median reported)")
    ap.add_argument("--fake", action="store_true", help="the sample's checked boxes instead of the model")
    ap.add_argument("--baseline", action="store_true", help="time a two-line Streamlit page instead")
    ap.add_argument("--part", choices=("all", "first-load", "photo"), default="all")
    ap.add_argument("--no-warm", action="store_true", help="no warm-up: the first visit loads the model")
    args = ap.parse_args()
    print(f"load average now: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    if args.part in ("all", "first-load"):
        first_load(args.n, args.fake, args.baseline, warm=not args.no_warm)
    if args.part in ("all", "photo") and not args.baseline:
        photo_to_result(max(args.n, 5), args.fake)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
