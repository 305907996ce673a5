"""`make app-lan`: the page on the phones at the table, over HTTPS, behind a PIN.

Why HTTPS: a phone's browser opens the camera (getUserMedia) only on a secure origin, and a page on
the laptop's LAN address is not one over plain HTTP. So a self-signed certificate is made on the
spot for the machine's LAN addresses (`page.cert`); each phone accepts the browser's warning once.
It is kept in `.cache/lan-cert/` and reused while it covers the same addresses.

Why a warm-up: Streamlit runs app.py only when a browser connects, so the first player would wait
for torch and the model to load (half a minute on a busy laptop). `warm_up` asks Streamlit's script
health check (`--server.scriptHealthCheckEnabled`) to run the page once right after the start; the
model and the sample land in the server's cache before anyone opens the page. `make app` runs it
beside the server as `python -m page.serve --warm URL`.

Why a PIN: anyone on the same Wi-Fi (a café, a hotel) could otherwise open the page and the evening's
scorebook. `python -m page.serve` draws a fresh 6-digit PIN, prints it with the URL (and a QR code)
in the terminal, and hands it to Streamlit in env `MAHJONG_PIN`. The page asks for it once per
browser session before it shows anything; app.py calls, right after `st.set_page_config`:

    from page.serve import require_pin
    require_pin()   # no-op without MAHJONG_PIN; else a PIN form, st.stop() until it is right

(or builds its own form on `pin_required`, `check_pin`, `pin_locked_for`, `access_token` and
`check_token`; after the right PIN, `?t=<access_token>` in the address lets a reload through).

`check_pin` compares in constant time, accepts full-width digits and spaces (a Chinese keyboard),
and after `MAX_FAILURES` wrong tries in a row refuses every try for `LOCKOUT_S` seconds (one lock for
the whole server, so opening new tabs does not reset it): guessing 6 digits would take months.
Without `MAHJONG_PIN` (plain `make app` on 127.0.0.1) there is no gate and `check_pin` is True.
"""

from __future__ import annotations

import argparse
import contextlib
import hmac
import ipaddress
import os
import secrets
import socket
import ssl
import subprocess
import sys
import threading
import time
import unicodedata
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

from page.cert import Certificate, CertificateError, ensure_certificate

ROOT = Path(__file__).resolve().parent.parent
PIN_ENV = "MAHJONG_PIN"
PIN_DIGITS = 6
MAX_FAILURES = 5
LOCKOUT_S = 30.0
DEFAULT_PORT = 8501
CERT_DIR = ROOT / ".cache" / "lan-cert"
WARM_TIMEOUT_S = 300.0
#: Streamlit flags every way of serving uses: no browser on the server, no usage statistics sent, and
#: the script health check that `warm_up` calls.
STREAMLIT_FLAGS: tuple[str, ...] = (
    "--server.headless", "true", "--browser.gatherUsageStats", "false",
    "--server.scriptHealthCheckEnabled", "true",
)  # fmt: skip


# ---------------------------------------------------------------------- PIN


def new_pin(digits: int = PIN_DIGITS) -> str:
    """A random PIN from the OS's secure generator, e.g. '047193'."""
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def normalise_pin(text: str) -> str:
    """What the player meant: full-width digits (Chinese keyboards) made ASCII; spaces and dashes dropped."""
    plain = unicodedata.normalize("NFKC", str(text))
    return "".join(ch for ch in plain if not ch.isspace() and ch not in "-_")


class PinGate:
    """Checks PINs for the whole server process; after repeated wrong tries it refuses for a while."""

    def __init__(self, max_failures: int = MAX_FAILURES, lockout_s: float = LOCKOUT_S, clock=time.monotonic):
        self.max_failures = max_failures
        self.lockout_s = lockout_s
        self._clock = clock
        self._failures = 0
        self._locked_until = 0.0
        self._lock = threading.Lock()

    def locked_for(self) -> float:
        """Seconds until tries are accepted again (0 when they are)."""
        with self._lock:
            return max(0.0, self._locked_until - self._clock())

    def check(self, entered: str, expected: str) -> bool:
        """True when `entered` is the PIN. A locked gate says False without looking at the PIN."""
        with self._lock:
            if self._clock() < self._locked_until:
                return False
            ok = hmac.compare_digest(normalise_pin(entered).encode(), normalise_pin(expected).encode())
            if ok:
                self._failures = 0
            else:
                self._failures += 1
                if self._failures >= self.max_failures:
                    self._failures = 0
                    self._locked_until = self._clock() + self.lockout_s
            return ok


_GATE = PinGate()


def pin_required(env: Mapping[str, str] = os.environ) -> bool:
    """Whether this server was started behind a PIN (`make app-lan`)."""
    return bool(env.get(PIN_ENV, "").strip())


def check_pin(entered: str, env: Mapping[str, str] = os.environ) -> bool:
    """Is `entered` this server's PIN? Always True when the server has no PIN (plain `make app`)."""
    if not pin_required(env):
        return True
    return _GATE.check(entered, env[PIN_ENV])


def pin_locked_for() -> float:
    """Seconds the page should ask the player to wait after too many wrong PINs."""
    return _GATE.locked_for()


def access_token(env: Mapping[str, str] = os.environ) -> str:
    """What the page puts in the address (?t=…) after the right PIN, so a reload does not ask again.

    Derived from this server's PIN (a keyed hash), so it ends with the server; 80 bits cannot be
    guessed online, and whoever has it could read it off the phone as easily as the PIN.
    """
    return hmac.new(
        normalise_pin(env.get(PIN_ENV, "")).encode(), b"mahjong-lan-access", "sha256"
    ).hexdigest()[:20]


def check_token(token: str, env: Mapping[str, str] = os.environ) -> bool:
    """Is `token` this server's `access_token`? True when the server has no PIN."""
    if not pin_required(env):
        return True
    return hmac.compare_digest(str(token).encode(), access_token(env).encode())


def require_pin() -> None:
    """The PIN gate for the top of app.py (after st.set_page_config): shows only a PIN form and stops
    the script until this browser session gave the right PIN. Nothing to do without `MAHJONG_PIN`."""
    import streamlit as st

    ss = st.session_state
    if ss.get("pin_ok"):
        return
    if check_token(st.query_params.get("t", "")):  # no PIN on this server, or a reload after the PIN
        ss["pin_ok"] = True
        return
    st.markdown("### 麻将计分 · PIN")
    with st.form("pin_form"):
        pin = st.text_input(
            "请输入电脑上显示的 PIN / the PIN shown on the computer",
            type="password",
            max_chars=12,
            key="pin_entry",
        )
        sent = st.form_submit_button("进入 / Enter", type="primary")
    if sent:
        if check_pin(pin):
            ss["pin_ok"] = True
            st.query_params["t"] = access_token()  # a reload of this page does not ask again
            st.rerun()
        wait = pin_locked_for()
        st.error(
            "PIN 不对 / wrong PIN" + (f"：请 {wait:.0f} 秒后再试 / try again in {wait:.0f} s" if wait else "")
        )
    st.stop()


# ---------------------------------------------------------------------- addresses


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses a phone on the same network can reach (no loopback), best first.

    The address of the default route comes first: connecting a UDP socket sends nothing, it only asks
    the OS which interface it would use. Then the addresses the host name resolves to.
    """
    found: list[str] = []
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 1))
        found.append(probe.getsockname()[0])
    except OSError:
        pass
    finally:
        probe.close()
    with contextlib.suppress(OSError):
        found += [i[4][0] for i in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    out: list[str] = []
    for a in found:
        ip = ipaddress.ip_address(a)
        if not (ip.is_loopback or ip.is_unspecified or ip.is_link_local) and a not in out:
            out.append(a)
    return sorted(out, key=lambda a: not ipaddress.ip_address(a).is_private)


# ---------------------------------------------------------------------- serving


def streamlit_command(
    cert: Certificate, port: int = DEFAULT_PORT, app: Path = ROOT / "app.py", python: str = sys.executable
) -> list[str]:
    """The Streamlit command line: every interface, HTTPS with the certificate, no statistics."""
    return [
        python, "-m", "streamlit", "run", str(app), *STREAMLIT_FLAGS,
        "--server.address", "0.0.0.0", "--server.port", str(port),
        # our banner says where to go; Streamlit's own would look up the public IP on the internet
        "--logger.hideWelcomeMessage", "true",
        "--server.sslCertFile", str(cert.cert), "--server.sslKeyFile", str(cert.key),
    ]  # fmt: skip


def page_has_gate(app: Path) -> bool:
    """Whether the page calls the PIN gate: the LAN is never served by a page that would ignore the PIN."""
    try:
        source = app.read_text(encoding="utf-8")
    except OSError:
        return False
    return "require_pin(" in source or "check_pin(" in source


def urls(addresses: Sequence[str], port: int) -> list[str]:
    return [f"https://{a}:{port}" for a in addresses]


def qr_text(url: str) -> str | None:
    """The URL as a QR code drawn in the terminal (None when `segno` is not installed)."""
    try:
        import segno
    except ImportError:
        return None
    import io

    out = io.StringIO()
    segno.make(url, micro=False).terminal(out=out, compact=True)
    return out.getvalue()


def banner(addresses: Sequence[str], port: int, pin: str, cert: Certificate) -> str:
    """What the terminal shows the table: where to go, what to accept, which PIN to type."""
    links = urls(addresses, port) or [f"https://<this computer's address>:{port}"]
    lines = [
        "",
        "麻将记分 · 局域网 (phones on the same Wi-Fi)",
        "  在手机上打开 / open on the phone:",
        *(f"    {u}" for u in links),
        f"  PIN: {pin[:3]} {pin[3:]}",
        "  证书是这台电脑刚生成的自签名证书：浏览器提示“不安全 / 不是私密连接”时，点“高级”→“继续访问”。",
        "  (self-signed certificate: accept the browser's warning once; it allows the camera)",
        f"  certificate: {cert.cert} ({'new' if cert.made_now else 'reused'}, valid until {cert.not_after:%Y-%m-%d})",
        "  Ctrl+C stops the server.",
    ]
    if not addresses:
        lines.insert(4, "  (no network address found: is this computer on Wi-Fi?)")
    qr = qr_text(links[0]) if addresses else None
    if qr:
        lines += ["", qr]
    return "\n".join(lines)


def wait_healthy(
    url: str, timeout_s: float, context: ssl.SSLContext | None = None, alive=lambda: True
) -> bool:
    """Wait until the Streamlit server at `url` answers its health check; False after `timeout_s` or
    as soon as `alive()` says the server is gone."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5, context=context) as r:
                if r.read().strip() == b"ok":
                    return True
        except OSError:
            pass
        if time.monotonic() > deadline or not alive():
            return False
        time.sleep(0.3)


def warm_up(
    url: str, timeout_s: float = WARM_TIMEOUT_S, context: ssl.SSLContext | None = None
) -> float | None:
    """Wait for the server at `url`, then have it run the page once; seconds the run took, or None.

    Gives up (None) when the server never answers within `timeout_s`, when the process that started
    this one is gone (the server stopped), or when the health check is off or fails.
    """
    parent = os.getppid()
    if not wait_healthy(url, timeout_s, context, alive=lambda: os.getppid() == parent):
        return None
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(
            f"{url}/_stcore/script-health-check", timeout=timeout_s, context=context
        ) as r:
            ok = r.status == 200
    except OSError:
        return None
    return time.monotonic() - t0 if ok else None


def _warm_and_say(url: str, context: ssl.SSLContext | None = None) -> None:
    took = warm_up(url, context=context)
    if took is not None:
        print(f"\n  页面已预热，可以打开了 / ready: {url} (warm-up {took:.1f} s)\n", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m page.serve",
        description="Serve the page to phones on the local network: HTTPS (self-signed) behind a PIN.",
    )
    ap.add_argument("--port", type=int, default=DEFAULT_PORT)
    ap.add_argument("--cert-dir", type=Path, default=CERT_DIR, help="where the certificate is kept")
    ap.add_argument("--host", action="append", default=[], help="another address or name to certify")
    ap.add_argument("--dry-run", action="store_true", help="make the certificate, print, do not serve")
    ap.add_argument("--app", type=Path, default=ROOT / "app.py", help=argparse.SUPPRESS)
    ap.add_argument("--warm", metavar="URL", help="only warm up the server at URL (make app runs this)")
    args = ap.parse_args(argv)
    if args.warm:
        _warm_and_say(args.warm)
        return 0
    if not page_has_gate(args.app):
        print(
            f"make app-lan: {args.app} does not ask for the PIN (no require_pin() call), so it is not "
            "served to the network; use `make app` on this computer",
            file=sys.stderr,
        )
        return 2
    addresses = lan_addresses()
    hosts = list(dict.fromkeys([*addresses, *args.host, "localhost", "127.0.0.1"]))
    try:
        cert = ensure_certificate(args.cert_dir, hosts)
    except CertificateError as exc:
        print(f"make app-lan: {exc}", file=sys.stderr)
        return 2
    pin = new_pin()
    print(banner(addresses, args.port, pin, cert), flush=True)
    cmd = streamlit_command(cert, args.port, args.app)
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    env = {**os.environ, PIN_ENV: pin}
    local = ssl.create_default_context(cafile=str(cert.cert))
    threading.Thread(
        target=_warm_and_say, args=(f"https://127.0.0.1:{args.port}", local), daemon=True
    ).start()
    try:
        return subprocess.call(cmd, env=env)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
