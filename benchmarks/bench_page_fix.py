"""A fix → the rescored hand, as a phone sees it: real `streamlit run app.py` + headless Chromium at
390×844, the fake reader (tests/fake_reader.py) so only the page is timed. Each round uploads a new
photo, chooses 东家 · 自摸 · 九万, taps the misread tile on the photo, and times the tap on the
model's next guess (八条) until the new payments are on the screen.

Run: `python benchmarks/bench_page_fix.py [--n 5]` (needs Debian's chromium and chromium-driver).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--n", type=int, default=5)
    n = ap.parse_args().n
    os.chdir(ROOT)
    from PIL import Image
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    import tests.ui.test_browser as E

    opts = Options()
    opts.binary_location = str(E.CHROMIUM)
    for f in E.FLAGS:
        opts.add_argument(f)
    opts.add_experimental_option(
        "mobileEmulation", {"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2}}
    )
    d = webdriver.Chrome(service=Service(str(E.CHROMEDRIVER)), options=opts)
    times = []
    with tempfile.TemporaryDirectory() as tmp, E._serve({"MAHJONG_SCOREBOOK": f"{tmp}/b.sqlite"}) as url:
        d.get(url)
        E._wait_text(d, "南家 收 750")
        for k in range(n):
            photo = Path(tmp) / f"fix{k}.png"
            im = Image.open(ROOT / "datasets" / "samples" / "winning-hand.jpg").convert("RGB")
            im.putpixel((0, 0), (k, k, k))  # a new file each round
            im.save(photo)
            E._upload(d, photo)
            E._wait_text(d, "橙色的请看一眼")
            E._choose(d, "winner", "东家")
            E._choose(d, "win_by", "自摸")
            E._pick_indicator(d, "9m")
            E._wait_text(d, "不能胡")
            E._tap_photo(d, E._sample_tile_centre(-1))
            sug = WebDriverWait(d, 30).until(
                lambda d: next(
                    iter(d.find_elements(By.CSS_SELECTOR, '[class*="st-key-sug_8s_"] button')), None
                )
            )
            t = time.perf_counter()
            sug.click()
            E._wait_text(d, "东家（庄） 收")
            times.append(time.perf_counter() - t)
    d.quit()
    print(f"load average now: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    print(
        f"fix → rescored, n={n}: median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
