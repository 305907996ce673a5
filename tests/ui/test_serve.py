"""Serving at the table: `make app` flags, the PIN gate, the self-signed certificate, HTTPS for real."""

from __future__ import annotations

import ipaddress
import json
import shutil
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from page import cert as C
from page import serve
from tests.page.test_cert import available_tools

ROOT = Path(__file__).resolve().parents[2]
HOSTS = ["192.168.1.23", "localhost", "127.0.0.1"]


# ---------------------------------------------------------------------- make


def _make_n(target: str) -> str:
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    return subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_make_app_listens_on_localhost_only_without_statistics():
    line = next(x for x in _make_n("app").splitlines() if "streamlit run app.py" in x)
    args = line.split()
    assert args[args.index("--server.address") + 1] == "127.0.0.1"
    assert args[args.index("--browser.gatherUsageStats") + 1] == "false"
    assert args[args.index("--server.headless") + 1] == "true"
    assert args[args.index("--server.maxUploadSize") + 1] == "30"  # a phone photo, not 200 MB
    flags = " ".join(serve.STREAMLIT_FLAGS)
    assert flags in line  # the Makefile and page.serve agree, flag by flag and value by value


def test_make_app_lan_runs_page_serve():
    out = _make_n("app-lan")
    assert "-m page.serve --port 8501" in out


def test_make_app_warms_the_page_up_beside_the_server():
    out = _make_n("app")
    assert "-m page.serve --warm http://127.0.0.1:8501 &" in out
    assert "--server.scriptHealthCheckEnabled true" in out


def test_warm_up_gives_up_when_no_server_answers():
    t0 = time.monotonic()
    assert serve.warm_up(f"http://127.0.0.1:{serve.free_port()}", timeout_s=1.5) is None
    assert time.monotonic() - t0 < 10


# ---------------------------------------------------------------------- PIN


def test_new_pins_are_six_random_digits():
    pins = {serve.new_pin() for _ in range(30)}
    assert all(len(p) == 6 and p.isdigit() for p in pins)
    assert len(pins) > 25


def test_pin_typed_on_a_chinese_keyboard_still_counts():
    assert serve.normalise_pin("１２３ ４５６") == "123456"
    assert serve.normalise_pin(" 123-456\n") == "123456"


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_gate_locks_after_repeated_wrong_pins_then_opens_again():
    clock = FakeClock()
    gate = serve.PinGate(max_failures=3, lockout_s=30, clock=clock)
    assert gate.check("123 456", "123456")
    assert not gate.check("000000", "123456")
    assert not gate.check("111111", "123456")
    assert gate.locked_for() == 0
    assert not gate.check("222222", "123456")  # third wrong try: locked
    assert gate.locked_for() == 30
    assert not gate.check("123456", "123456")  # even the right PIN waits out the lock
    clock.t += 31
    assert gate.locked_for() == 0
    assert gate.check("123456", "123456")


def test_a_right_pin_resets_the_count_of_wrong_ones():
    gate = serve.PinGate(max_failures=3, lockout_s=30, clock=FakeClock())
    for _ in range(5):
        assert not gate.check("9", "123456")
        assert not gate.check("8", "123456")
        assert gate.check("123456", "123456")
    assert gate.locked_for() == 0


def test_check_pin_compares_in_constant_time(monkeypatch):
    calls = []
    real = serve.hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(serve.hmac, "compare_digest", spy)
    monkeypatch.setattr(serve, "_GATE", serve.PinGate())
    env = {serve.PIN_ENV: "482913"}
    assert serve.check_pin("482913", env) and not serve.check_pin("482914", env)
    assert calls == [(b"482913", b"482913"), (b"482914", b"482913")]


def test_without_a_pin_there_is_no_gate(monkeypatch):
    monkeypatch.setattr(serve, "_GATE", serve.PinGate())
    assert not serve.pin_required({})
    assert not serve.pin_required({serve.PIN_ENV: "  "})
    assert serve.check_pin("anything", {})
    env = {serve.PIN_ENV: "482913"}
    assert serve.pin_required(env)
    assert not serve.check_pin("", env) and not serve.check_pin("48291", env)
    monkeypatch.setenv(serve.PIN_ENV, "111222")
    assert serve.pin_required() and serve.check_pin("111 222") and serve.pin_locked_for() == 0


def _gated_page() -> None:
    """A page behind the gate, as app.py uses it."""
    import streamlit as st

    from page.serve import require_pin

    st.set_page_config(page_title="t")
    require_pin()
    st.markdown("the scorebook: 东家 +250")


def _gate_app(query: dict | None = None):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_gated_page, default_timeout=60)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    return at.run()


def _shown(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_the_gate_shows_nothing_until_the_right_pin(monkeypatch):
    monkeypatch.setenv(serve.PIN_ENV, "482913")
    monkeypatch.setattr(serve, "_GATE", serve.PinGate())
    at = _gate_app()
    assert "东家" not in _shown(at) and "PIN" in _shown(at)
    at.text_input(key="pin_entry").input("111111")
    at.button[0].click().run()
    assert "东家" not in _shown(at) and "PIN 不对" in at.error[0].value
    at.text_input(key="pin_entry").input("４８２ ９１３")  # full-width digits from a Chinese keyboard
    at.button[0].click().run()
    assert "东家 +250" in _shown(at) and not at.error
    assert "t" not in at.query_params  # no reload token in the address: the LAN gate keeps a cookie
    at.run()  # later runs of the same session: no PIN form
    assert "东家 +250" in _shown(at) and not at.text_input


def test_the_gate_says_wait_after_too_many_wrong_pins(monkeypatch):
    monkeypatch.setenv(serve.PIN_ENV, "482913")
    monkeypatch.setattr(serve, "_GATE", serve.PinGate(max_failures=2, lockout_s=60))
    at = _gate_app()
    for _ in range(2):
        at.text_input(key="pin_entry").input("000000")
        at.button[0].click().run()
    assert "秒后再试" in at.error[0].value
    at.text_input(key="pin_entry").input("482913")
    at.button[0].click().run()
    assert "东家" not in _shown(at)  # locked: even the right PIN waits


def test_without_a_pin_the_page_shows_at_once(monkeypatch):
    monkeypatch.delenv(serve.PIN_ENV, raising=False)
    at = _gate_app()
    assert "东家 +250" in _shown(at) and not at.text_input


# ---------------------------------------------------------------------- addresses, banner, command


def test_lan_addresses_are_reachable_ipv4_addresses():
    for a in serve.lan_addresses():
        ip = ipaddress.ip_address(a)
        assert ip.version == 4 and not ip.is_loopback and not ip.is_link_local


def _fake_cert(tmp_path: Path, made_now: bool = True) -> C.Certificate:
    return C.Certificate(
        tmp_path / "cert.pem", tmp_path / "key.pem", tuple(HOSTS), datetime.now(UTC), made_now
    )


def test_streamlit_behind_the_gate_listens_on_localhost_only_without_statistics():
    cmd = serve.streamlit_command(9444, python="py")
    assert cmd[:4] == ["py", "-m", "streamlit", "run"] and cmd[4].endswith("app.py")
    pairs = dict(zip(cmd[5::2], cmd[6::2], strict=True))
    assert pairs["--server.address"] == "127.0.0.1" and pairs["--server.port"] == "9444"
    assert not any(k.startswith("--server.ssl") for k in pairs)  # the gate speaks HTTPS to the phones
    assert pairs["--browser.gatherUsageStats"] == "false" and pairs["--server.headless"] == "true"
    assert pairs["--logger.hideWelcomeMessage"] == "true"  # no public-IP lookup on the internet
    assert pairs["--server.maxUploadSize"] == "30"  # a phone photo, not Streamlit's 200 MB


def test_banner_shows_url_pin_and_how_to_accept_the_certificate(tmp_path):
    text = serve.banner(["192.168.1.23"], 8501, "482913", _fake_cert(tmp_path))
    assert "https://192.168.1.23:8501" in text and "PIN: 482 913" in text
    assert "继续访问" in text and "same Wi-Fi" in text
    try:
        import segno  # noqa: F401
    except ImportError:
        return
    assert "█" in text or "▀" in text  # the QR code


def test_banner_without_a_network_says_so(tmp_path):
    text = serve.banner([], 8501, "482913", _fake_cert(tmp_path))
    assert "no network address found" in text and "https://<this computer's address>:8501" in text


def test_dry_run_makes_a_certificate_and_prints_the_command(tmp_path, monkeypatch, capsys):
    if not available_tools():
        pytest.skip("neither openssl nor cryptography")
    monkeypatch.setattr(serve, "lan_addresses", lambda: ["192.168.1.23"])
    argv = ["--dry-run", "--cert-dir", str(tmp_path / "c"), "--port", "9443"]
    assert serve.main(argv) == 0
    out = capsys.readouterr().out
    assert "https://192.168.1.23:9443" in out and "PIN: " in out
    assert "--server.address 127.0.0.1" in out and (tmp_path / "c" / "cert.pem").is_file()
    meta = json.loads((tmp_path / "c" / "cert.json").read_text())
    assert meta["hosts"] == ["192.168.1.23", "localhost", "127.0.0.1"]


def test_streamlits_port_is_never_the_gates_own(monkeypatch):
    """The inner port is chosen before the gate binds its port, and the system may offer that free
    port again (CI, stop 66: Streamlit found the gate on its port and exited): it is asked again."""
    offered = iter([8765, 8765, 41234])

    class _Socket:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def bind(self, address):
            self.port = next(offered)

        def getsockname(self):
            return ("127.0.0.1", self.port)

    monkeypatch.setattr(serve.socket, "socket", _Socket)
    assert serve.free_port(other_than=8765) == 41234
