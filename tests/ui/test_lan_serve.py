"""`python -m page.serve` for real: the gate over HTTPS in front of a real Streamlit, attacked and used.

One server for the module (a tiny page instead of app.py, so no model loads): the warm-up runs the
page before anyone comes; before the PIN an upload and a websocket are refused and the server holds
no more memory for it; after the PIN the page, its websocket and an upload go through the gate; a
headless Chromium does it all the way a phone does.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from page import gate as G
from page.serve import free_port, stop
from tests.page.test_cert import available_tools
from tests.ui.gate_client import send_partly

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
PAGE = """
import streamlit as st
open({ran!r}, "a").write("x")
st.markdown("the scorebook ok")
photo = st.file_uploader("photo")
if photo is not None:
    st.markdown(f"got {{len(photo.getvalue())}} bytes")
"""


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(c) for c in (task / "children").read_text().split()]
    return out


class Served:
    def __init__(self, proc: subprocess.Popen, port: int, pin: str, ctx: ssl.SSLContext, ran: Path):
        self.proc, self.port, self.pin, self.ctx, self.ran = proc, port, pin, ctx, ran
        self.output: list[str] = []

    def conn(self) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection("127.0.0.1", self.port, timeout=30, context=self.ctx)

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        c = self.conn()
        c.request(method, path, body, headers or {})
        r = c.getresponse()
        data = r.read()
        c.close()
        return r, data

    def raw(self, head: str, body_bytes: int = 0) -> tuple[bytes, int]:
        """A request head and up to `body_bytes` of body over TLS; the answer (until the server closes)
        and how much of the body went out before the server stopped taking it."""
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        return send_partly(self.ctx.wrap_socket(sock, server_hostname="127.0.0.1"), head, body_bytes)

    def healthy(self, within_s: float = 60) -> bool:
        """Whether the server, PIN printed, answers its health check within `within_s` (False when
        it exited: a port taken meanwhile, said in its output)."""
        deadline = time.monotonic() + within_s
        while self.pin and self.proc.poll() is None and time.monotonic() < deadline:
            try:
                if self.request("GET", "/_stcore/health")[1] == b"ok":
                    return True
            except OSError:
                pass
            time.sleep(0.3)
        return False

    def cookie(self) -> str:
        r, _ = self.request(
            "POST",
            G.PIN_PATH,
            f"pin={self.pin}".encode(),
            {"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert r.status == 303, r.status
        return r.headers["Set-Cookie"].split(";", 1)[0]


def _start(tmp: Path, page: Path, ran: Path, env: dict) -> Served:
    """`python -m page.serve` on a free port, its PIN read from what it prints."""
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "page.serve",
        "--port",
        str(port),
        "--cert-dir",
        str(tmp / "c"),
        "--app",
        str(page),
    ]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True).start()
    deadline, pin = time.monotonic() + 60, None
    while pin is None and time.monotonic() < deadline and proc.poll() is None:
        found = re.search(r"PIN: (\d{3}) (\d{3})", "".join(lines))
        pin = found and found[1] + found[2]
        time.sleep(0.1)
    cert = tmp / "c" / "cert.pem"
    ctx = ssl.create_default_context(cafile=str(cert)) if pin else ssl.create_default_context()
    served = Served(proc, port, pin or "", ctx, ran)
    served.output = lines
    return served


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    if not available_tools():
        pytest.skip("neither openssl nor cryptography")
    tmp = tmp_path_factory.mktemp("lan")
    ran = tmp / "ran.txt"
    page = tmp / "tiny.py"
    page.write_text(PAGE.format(ran=str(ran)))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("MAHJONG_PIN", None)
    for _ in range(3):  # a port free when asked can be taken before the server binds it (CI, stops 65, 66)
        served = _start(tmp, page, ran, env)
        if served.healthy():
            break
        stop(served.proc)
        said = "".join(served.output)  # the gate's port or Streamlit's was taken before it bound it
        if "is not free" not in said and "is not available" not in said:
            pytest.fail(said)
    else:
        pytest.fail("".join(served.output))
    try:
        yield served
    finally:
        stop(served.proc)


def test_the_warm_up_runs_the_page_before_anyone_gave_the_pin(served):
    deadline = time.monotonic() + 90
    while not served.ran.exists() and time.monotonic() < deadline:
        time.sleep(0.3)
    assert served.ran.exists(), "".join(served.output)  # the whole page ran: the model would be loaded
    while "ready:" not in "".join(served.output) and time.monotonic() < deadline:
        time.sleep(0.3)
    assert "ready: https://" in "".join(served.output)


def test_streamlit_itself_is_not_on_the_network(served):
    with pytest.raises(OSError):  # plain HTTP on the gate's port is not served
        c = http.client.HTTPConnection("127.0.0.1", served.port, timeout=5)
        c.request("GET", "/_stcore/health")
        c.getresponse().read()
    # Streamlit listens on 127.0.0.1 only, on another port
    out = Path(f"/proc/{_children(served.proc.pid)[0]}/cmdline").read_bytes().split(b"\0")
    assert out[out.index(b"--server.address") + 1] == b"127.0.0.1"


def test_before_the_pin_uploads_and_websockets_are_refused_and_cost_no_memory(served):
    pids = [served.proc.pid, *_children(served.proc.pid)]
    before = sum(_rss_kib(p) for p in pids)
    size = 40 * 1024 * 1024
    for i in range(4):
        answer, sent = served.raw(
            f"PUT /_stcore/upload_file/s{i}/f{i} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {size}\r\n"
            "Content-Type: multipart/form-data; boundary=b\r\n\r\n",
            size,
        )
        assert answer.startswith(b"HTTP/1.1 403"), answer[:200]
        assert "请输入".encode() in answer and sent < size // 2  # the gate's answer, the body unread
    answer, _ = served.raw(
        "GET /_stcore/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    assert answer.startswith(b"HTTP/1.1 403"), answer[:200]
    time.sleep(1)
    grown_mib = (sum(_rss_kib(p) for p in pids) - before) / 1024
    print(f"memory after 4 refused 40 MiB uploads: {grown_mib:+.1f} MiB")
    assert grown_mib < 20, f"server memory grew {grown_mib:.0f} MiB after refused uploads"


def test_after_the_pin_the_page_its_websocket_and_uploads_go_through(served):
    cookie = served.cookie()
    r, body = served.request("GET", "/", headers={"Cookie": cookie})
    assert r.status == 200 and b"Streamlit" in body and "请输入".encode() not in body
    ws = pytest.importorskip("websockets.sync.client")
    started = time.monotonic()
    try:
        conn = ws.connect(
            f"wss://127.0.0.1:{served.port}/_stcore/stream",
            ssl=served.ctx,
            additional_headers={"Cookie": cookie, "Origin": f"https://127.0.0.1:{served.port}"},
            subprotocols=["streamlit"],
            open_timeout=20,
        )
    except TimeoutError:  # seen once in CI (stop 40): say what the server said, for whoever sees it next
        health = served.request("GET", "/_stcore/health", headers={"Cookie": cookie})
        pytest.fail(
            f"no websocket answer in {time.monotonic() - started:.1f} s; health then: {health[0].status} "
            f"{health[1][:40]!r}; server output:\n" + "".join(served.output)[-3000:]
        )
    with conn:
        assert conn.response.status_code == 101
    r, body = served.request(
        "PUT", "/_stcore/upload_file/s/f", b"x", {"Cookie": cookie, "Content-Type": "text/plain"}
    )
    assert "请输入".encode() not in body  # Streamlit's answer (it wants its own XSRF token), not the gate's


CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


def test_a_phone_browser_gives_the_pin_and_uploads_a_photo(served, tmp_path):
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("chromium not installed")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    os.environ.setdefault("SE_OFFLINE", "true")
    opts = Options()
    opts.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--ignore-certificate-errors", "--window-size=390,844"):  # fmt: skip
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={tmp_path / 'profile'}")
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    try:
        driver.set_page_load_timeout(60)
        driver.get(f"https://127.0.0.1:{served.port}/")
        assert "请输入" in driver.find_element(By.TAG_NAME, "body").text
        driver.find_element(By.NAME, "pin").send_keys(served.pin)
        driver.find_element(By.TAG_NAME, "button").click()
        wait = WebDriverWait(
            driver, 60, poll_frequency=0.25, ignored_exceptions=(StaleElementReferenceException,)
        )
        wait.until(lambda d: "the scorebook ok" in d.find_element(By.TAG_NAME, "body").text)
        photo = tmp_path / "photo.jpg"
        photo.write_bytes(b"\xff\xd8" + b"\0" * 123_454)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "input[type=file]"))  # drawn after the text
        driver.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(photo))
        wait.until(lambda d: "got 123456 bytes" in d.find_element(By.TAG_NAME, "body").text)
        driver.refresh()  # a reload keeps the phone in: the cookie, no PIN again
        wait.until(lambda d: "the scorebook ok" in d.find_element(By.TAG_NAME, "body").text)
    finally:
        driver.quit()
    shutil.rmtree(tmp_path / "profile", ignore_errors=True)


def _streamlit_of(page: Path) -> list[int]:
    """Pids of the Streamlit processes serving `page` (read from /proc)."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"streamlit" in b" ".join(cmd) and str(page).encode() in cmd:
                found.append(int(d.name))
    return found


def test_a_killed_server_takes_streamlit_with_it(tmp_path):
    """SIGTERM (a kill, a CI teardown) stops the gate's Streamlit too: nothing keeps serving alone."""
    if not available_tools():
        pytest.skip("neither openssl nor cryptography")
    page = tmp_path / "tiny.py"
    page.write_text(PAGE.format(ran=str(tmp_path / "ran.txt")))
    cmd = [sys.executable, "-m", "page.serve", "--port", str(free_port()), "--cert-dir", str(tmp_path / "c"),
           "--app", str(page)]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not _streamlit_of(page) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _streamlit_of(page), "Streamlit never started"
    finally:
        stop(proc)
    deadline = time.monotonic() + 20
    while _streamlit_of(page) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _streamlit_of(page)
