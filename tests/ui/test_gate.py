"""The PIN gate of `make app-lan` (page.gate, page.lan_proxy): attacks tried against a real gate.

The gate runs on a real socket in front of a stand-in for Streamlit that records what reaches it; the
client speaks raw HTTP so the tests send exactly what an attacker would. 127.0.0.2 is a second
client address on the loopback (Linux routes all of 127/8 there).
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from page import gate as G
from page.lan_proxy import GateServer, start_in_thread, stop
from tests.ui.gate_client import send_partly

PIN = "482913"
APP = b"<html>the scorebook: dongjia +250</html>"


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


# ---------------------------------------------------------------------- the lock table


def test_a_client_is_locked_after_repeated_wrong_tries_and_the_others_are_not():
    clock = FakeClock()
    locks = G.ClientLocks(max_failures=3, lockout_s=30, clock=clock)
    assert locks.failed("10.0.0.9") == 0 and locks.failed("10.0.0.9") == 0
    assert locks.failed("10.0.0.9") == 30
    assert locks.locked_for("10.0.0.9") == 30 and locks.locked_for("10.0.0.7") == 0
    clock.t += 31
    assert locks.locked_for("10.0.0.9") == 0


def test_each_further_lockout_of_an_address_lasts_longer_up_to_a_cap():
    clock = FakeClock()
    locks = G.ClientLocks(max_failures=2, lockout_s=30, max_lockout_s=100, clock=clock)
    waits = []
    for _ in range(4):
        locks.failed("a")
        waits.append(locks.failed("a"))
        clock.t += 1000
    assert waits == [30, 60, 100, 100]
    locks.succeeded("a")  # the right PIN: a fresh start
    locks.failed("a")
    assert locks.failed("a") == 30


def test_the_lock_table_is_bounded_and_forgets_unlocked_addresses_first():
    clock = FakeClock()
    locks = G.ClientLocks(max_failures=2, lockout_s=60, max_clients=3, clock=clock)
    locks.failed("locked")
    locks.failed("locked")
    for i in range(50):
        locks.failed(f"10.0.1.{i}")
        clock.t += 0.01
    assert len(locks) == 3
    assert locks.locked_for("locked") > 0  # a flood of new addresses does not free the locked one


def test_the_lock_belongs_to_the_address_and_an_ipv6_host_to_its_64():
    assert G.client_key("192.168.1.5") == "192.168.1.5"
    assert G.client_key("::ffff:192.168.1.5") == "192.168.1.5"
    assert G.client_key("2001:db8:1:2:aaaa::1") == G.client_key("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert G.client_key("fe80::1%eth0") == "fe80::/64"


def test_the_token_is_random_long_and_not_made_from_the_pin():
    a, b = G.Gate(PIN), G.Gate(PIN)
    token_a = a.cookie_value().partition(".")[2]
    assert a.cookie_value() != b.cookie_value() and len(token_a) >= 43  # 256 bits, url-safe base64
    assert PIN not in token_a
    cookie = a.set_cookie()
    for attribute in ("HttpOnly", "Secure", "SameSite=Strict", "Path=/"):
        assert attribute in cookie


def test_the_pin_is_compared_in_constant_time(monkeypatch):
    calls = []
    real = G.hmac.compare_digest
    monkeypatch.setattr(G.hmac, "compare_digest", lambda a, b: calls.append((a, b)) or real(a, b))
    gate = G.Gate(PIN)
    assert gate.check_pin("４８２ ９１３", "c")[0]  # full-width digits from a Chinese keyboard
    assert not gate.check_pin("482914", "c")[0]
    assert calls == [(b"482913", b"482913"), (b"482914", b"482913")]


# ---------------------------------------------------------------------- a real gate


class Upstream:
    """A stand-in for Streamlit on 127.0.0.1 that records every request and body byte reaching it."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        self.body_bytes = 0
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def _answer(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                upstream.requests.append(("GET", self.path))
                self._answer(200, b"ok" if self.path == "/_stcore/health" else APP)

            def do_PUT(self) -> None:
                upstream.requests.append(("PUT", self.path))
                n = int(self.headers.get("Content-Length") or 0)
                while n > 0:
                    got = len(self.rfile.read(min(n, 1 << 16)))
                    upstream.body_bytes += got
                    n -= got
                    if not got:
                        break
                self._answer(204, b"")

            do_POST = do_PUT

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def app_requests(self) -> list[tuple[str, str]]:
        return [r for r in self.requests if r[1] != "/_stcore/health"]


@pytest.fixture
def served():
    upstream = Upstream()
    gate = G.Gate(PIN, G.ClientLocks(max_failures=5, lockout_s=60))
    server = GateServer(gate, upstream.port, host="127.0.0.1")
    port, loop, thread = start_in_thread(server)
    yield gate, port, upstream
    stop(loop, server, thread)
    upstream.httpd.shutdown()


def _get(port: int, path: str = "/", cookie: str | None = None, source: str = "127.0.0.1", **headers):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    if cookie is not None:
        headers["Cookie"] = f"{G.COOKIE}={cookie}"
    conn.request("GET", path, headers=headers)
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, body, r


def _post_pin(port: int, pin: str, source: str = "127.0.0.1"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    body = f"pin={pin}".encode()
    conn.request("POST", G.PIN_PATH, body, {"Content-Type": "application/x-www-form-urlencoded"})
    r = conn.getresponse()
    r.read()
    conn.close()
    return r


def test_before_the_pin_only_the_pin_page_and_the_health_check_answer(served):
    _, port, upstream = served
    status, body, r = _get(port)
    assert status == 200 and "请输入电脑上显示的".encode() in body and b"Enter the 6-digit PIN" in body
    assert body.index("请输入".encode()) < body.index(b"Enter the")  # Chinese first
    assert b'name="viewport"' in body and b"<script" not in body
    assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
    assert _get(port, "/_stcore/host-config")[0] == 403
    assert _get(port, "/_stcore/script-health-check")[0] == 403  # would run the page for anyone
    assert _get(port, "/_stcore/health")[:2] == (200, b"ok")  # relayed from Streamlit
    assert upstream.app_requests() == []


def test_the_right_pin_sets_the_cookie_and_then_the_page_is_streamlits(served):
    gate, port, upstream = served
    r = _post_pin(port, "４８２ ９１３")
    assert r.status == 303 and r.headers["Location"] == "/"
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith(f"{G.COOKIE}={gate.cookie_value()};")
    for attribute in ("HttpOnly", "Secure", "SameSite=Strict"):
        assert attribute in cookie
    assert _get(port, "/", gate.cookie_value())[:2] == (200, APP)
    assert upstream.app_requests() == [("GET", "/")]


def test_wrong_pins_lock_only_the_address_that_sent_them(served):
    gate, port, _ = served
    statuses = [_post_pin(port, "000000").status for _ in range(5)]
    assert statuses == [403, 403, 403, 403, 429]
    assert _post_pin(port, PIN).status == 429  # even the right PIN waits out the lock
    assert _post_pin(port, PIN, source="127.0.0.2").status == 303  # another phone of the table


def test_guessing_the_token_is_counted_and_locked_out(served):
    gate, port, upstream = served
    run_id = gate.cookie_value().partition(".")[0]
    answers = [_get(port, "/", f"{run_id}.guess{i}") for i in range(5)]
    assert [a[0] for a in answers] == [403, 403, 403, 403, 429]
    assert "Max-Age=0" in answers[0][2].headers["Set-Cookie"]  # the wrong cookie is cleared
    assert gate.locks.locked_for("127.0.0.1") > 0
    assert _get(port, "/", gate.cookie_value())[0] == 429  # the right token does not get in either
    assert upstream.app_requests() == []
    assert _get(port, "/", gate.cookie_value(), source="127.0.0.2")[:2] == (200, APP)  # not locked


def test_a_cookie_of_an_earlier_run_is_not_a_guess(served):
    gate, port, _ = served
    for _ in range(10):
        assert _get(port, "/", "0badc0de.yesterdays-token")[0] == 200  # the PIN page, nothing counted
    assert gate.locks.locked_for("127.0.0.1") == 0


def _raw(port: int, head: str, body_bytes: int = 0) -> tuple[bytes, int]:
    """Send a request head and up to `body_bytes` of body; the answer and how much body went out."""
    return send_partly(socket.create_connection(("127.0.0.1", port), timeout=10), head, body_bytes)


def test_an_upload_before_the_pin_is_refused_unread(served):
    _, port, upstream = served
    size = 40 * 1024 * 1024
    t0 = time.monotonic()
    answer, sent = _raw(
        port,
        f"PUT /_stcore/upload_file/s/f HTTP/1.1\r\nHost: x\r\nContent-Length: {size}\r\n"
        "Content-Type: multipart/form-data; boundary=b\r\n\r\n",
        size,
    )
    assert answer.startswith(b"HTTP/1.1 403") and b"Connection: close" in answer
    assert sent < size // 2 and time.monotonic() - t0 < 10
    assert upstream.body_bytes == 0 and upstream.app_requests() == []


def test_a_websocket_before_the_pin_is_refused(served):
    _, port, upstream = served
    answer, _ = _raw(
        port,
        "GET /_stcore/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    assert answer.startswith(b"HTTP/1.1 403") and b"101" not in answer.split(b"\r\n")[0]
    assert upstream.app_requests() == []


def test_a_forged_forwarded_for_does_not_move_the_lock(served):
    gate, port, _ = served
    for i in range(5):
        _get(port, "/", f"{gate.run_id}.guess{i}", **{"X-Forwarded-For": f"10.9.9.{i}"})
    assert gate.locks.locked_for("127.0.0.1") > 0


def test_an_oversized_head_or_pin_body_is_refused(served):
    _, port, _ = served
    answer, _ = _raw(port, "GET / HTTP/1.1\r\nX-Big: " + "a" * 100_000 + "\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400")
    answer, _ = _raw(port, f"POST {G.PIN_PATH} HTTP/1.1\r\nContent-Length: 100000\r\n\r\n", 100_000)
    assert answer.startswith(b"HTTP/1.1 413")
    answer, _ = _raw(port, f"POST {G.PIN_PATH} HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400")
