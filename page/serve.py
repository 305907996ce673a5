"""`make app-lan`: the page on the phones at the table, over HTTPS, behind a PIN.

Why HTTPS: a phone's browser opens the camera (getUserMedia) only on a secure origin, and a page on
the laptop's LAN address is not one over plain HTTP. So a self-signed certificate is made on the
spot for the machine's LAN addresses (`page.cert`); each phone accepts the browser's warning once.
It is kept in `.cache/lan-cert/` and reused while it covers the same addresses.

Why a gate in front of Streamlit: anyone on the same Wi-Fi (a café, a hotel) could otherwise open
the page and the evening's scorebook, and Streamlit takes websocket sessions and file uploads from
any browser before the page's script could ask for anything. So `python -m page.serve` runs
Streamlit on 127.0.0.1 only (plain HTTP, a free port) and serves the network itself on `--port`:
HTTPS with the certificate, the PIN gate of `page.gate` and the proxy of `page.lan_proxy`. It draws
a fresh 6-digit PIN and prints it with the URL (and a QR code) in the terminal; the phones see only
the gate's PIN page, and the health check, until they give it.

Why a warm-up: Streamlit runs app.py only when a browser connects, so the first player would wait
for torch and the model to load (half a minute on a busy laptop). `warm_up` asks Streamlit's script
health check (`--server.scriptHealthCheckEnabled`) to run the page once right after the start; the
model and the sample land in the server's cache before anyone opens the page. `make app-lan` asks
Streamlit on 127.0.0.1 directly, behind the gate, so the whole page runs; `make app` runs it beside
the server as `python -m page.serve --warm URL`.

`require_pin()`, which app.py calls right after `st.set_page_config`, is the older PIN form drawn by
the page itself: it does something only when `MAHJONG_PIN` is set by hand for a page served some
other way. `make app-lan` does not set it (the gate has asked already), so there it does nothing.
Without `MAHJONG_PIN` (plain `make app` on 127.0.0.1) there is no gate and `check_pin` is True.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import ipaddress
import os
import secrets
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

from page.cert import Certificate, CertificateError, ensure_certificate
from page.gate import Gate, normalise_pin
from page.lan_proxy import GateServer

ROOT = Path(__file__).resolve().parent.parent
PIN_ENV = "MAHJONG_PIN"
PIN_DIGITS = 6
MAX_FAILURES = 5
LOCKOUT_S = 30.0
DEFAULT_PORT = 8501
CERT_DIR = ROOT / ".cache" / "lan-cert"
WARM_TIMEOUT_S = 300.0
MAX_UPLOAD_MB = 30
#: Streamlit flags every way of serving uses: no browser on the server, no usage statistics sent, the
#: script health check that `warm_up` calls, and an upload limit (the Makefile's STREAMLIT_FLAGS agree).
STREAMLIT_FLAGS: tuple[str, ...] = (
    "--server.headless", "true", "--browser.gatherUsageStats", "false",
    "--server.scriptHealthCheckEnabled", "true",
    # a phone photo is a few MB; Streamlit's default would take 200 MB a file
    "--server.maxUploadSize", str(MAX_UPLOAD_MB),
)  # fmt: skip


# ---------------------------------------------------------------------- PIN


def new_pin(digits: int = PIN_DIGITS) -> str:
    """A random PIN from the OS's secure generator, e.g. '047193'."""
    return "".join(secrets.choice("0123456789") for _ in range(digits))


class PinGate:
    """The page's own PIN form's lock (`require_pin`): one for the whole Streamlit process, which sees
    no client addresses. `make app-lan` counts per address in its gate (`page.gate.ClientLocks`)."""

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
    """Whether the page itself asks for a PIN (`MAHJONG_PIN` set by hand; not by `make app-lan`)."""
    return bool(env.get(PIN_ENV, "").strip())


def check_pin(entered: str, env: Mapping[str, str] = os.environ) -> bool:
    """Is `entered` this server's PIN? Always True when the server has no PIN (plain `make app`)."""
    if not pin_required(env):
        return True
    return _GATE.check(entered, env[PIN_ENV])


def pin_locked_for() -> float:
    """Seconds the page should ask the player to wait after too many wrong PINs."""
    return _GATE.locked_for()


def require_pin() -> None:
    """The page's own PIN form for the top of app.py (after st.set_page_config): shows only a PIN form
    and stops the script until this browser session gave the right PIN. Nothing to do without
    `MAHJONG_PIN`, which `make app-lan` does not set: its gate (`page.gate`) asked before Streamlit."""
    import streamlit as st

    ss = st.session_state
    if ss.get("pin_ok"):
        return
    if not pin_required():
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


def streamlit_command(port: int, app: Path = ROOT / "app.py", python: str = sys.executable) -> list[str]:
    """Streamlit behind the gate: 127.0.0.1 only, plain HTTP (the gate speaks HTTPS), no statistics."""
    return [
        python, "-m", "streamlit", "run", str(app), *STREAMLIT_FLAGS,
        "--server.address", "127.0.0.1", "--server.port", str(port),
        # our banner says where to go; Streamlit's would name its inner port and look up the public IP
        "--logger.hideWelcomeMessage", "true",
    ]  # fmt: skip


def free_port(host: str = "127.0.0.1", other_than: int = 0) -> int:
    """A port nobody listens on now, for Streamlit behind the gate; never `other_than`, the gate's
    own port: it is chosen before the gate binds that port, and the system may offer the same free
    port again (CI: Streamlit found the gate on "its" port and exited)."""
    while True:
        with socket.socket() as s:
            s.bind((host, 0))
            port = s.getsockname()[1]
        if port != other_than:
            return port


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


def _warm_and_say(url: str, context: ssl.SSLContext | None = None, shown: str | None = None) -> None:
    took = warm_up(url, context=context)
    if took is not None:
        print(f"\n  页面已预热，可以打开了 / ready: {shown or url} (warm-up {took:.1f} s)\n", flush=True)


def server_context(cert: Certificate) -> ssl.SSLContext:
    """TLS for the phones with the self-signed certificate (TLS 1.2 or newer)."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(str(cert.cert), str(cert.key))
    return ctx


async def _serve_while(server: GateServer, proc: subprocess.Popen) -> None:
    """Serve the gate until Streamlit exits (it stops on Ctrl+C like us, or on an error of its own)."""
    task = asyncio.create_task(server.serve_forever())
    try:
        while proc.poll() is None and not task.done():
            await asyncio.sleep(0.5)
    finally:
        server.close()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def stop(proc: subprocess.Popen, timeout_s: float = 15) -> None:
    """End a server process: terminate, and kill it if it has not gone after `timeout_s` (the page's
    servers, the benchmarks' and the tests' all stop this way)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


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
    addresses = lan_addresses()
    hosts = list(dict.fromkeys([*addresses, *args.host, "localhost", "127.0.0.1"]))
    try:
        cert = ensure_certificate(args.cert_dir, hosts)
    except CertificateError as exc:
        print(f"make app-lan: {exc}", file=sys.stderr)
        return 2
    pin = new_pin()
    inner = free_port(other_than=args.port)
    cmd = streamlit_command(inner, args.app)
    print(banner(addresses, args.port, pin, cert), flush=True)
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    server = GateServer(Gate(pin), inner, port=args.port, host="0.0.0.0", ssl_context=server_context(cert))
    return asyncio.run(_run(server, cmd, urls(addresses, args.port)[:1]))


async def _run(server: GateServer, cmd: list[str], shown: list[str]) -> int:
    try:
        await server.start()  # the port first: when it is taken, Streamlit is not started at all
    except OSError as exc:
        print(f"make app-lan: port {server.port} is not free ({exc.strerror})", file=sys.stderr)
        return 2
    env = {k: v for k, v in os.environ.items() if k != PIN_ENV}  # the gate asks; the page does not
    with contextlib.suppress(NotImplementedError, RuntimeError):  # a kill (SIGTERM) ends like Ctrl+C,
        task = asyncio.current_task()  # so Streamlit is stopped with us, never left running alone
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)  # type: ignore[union-attr]
    proc = subprocess.Popen(cmd, env=env)
    inner = f"http://127.0.0.1:{server.upstream_port}"
    threading.Thread(target=_warm_and_say, args=(inner, None, (shown or [None])[0]), daemon=True).start()
    stopped = False
    try:
        await _serve_while(server, proc)
    except asyncio.CancelledError:  # Ctrl+C
        stopped = True
    finally:
        stop(proc, timeout_s=5)  # well inside the 15 s a caller gives us: Streamlit may hang on exit
    rc = proc.returncode or 0
    return 0 if stopped or rc == 0 else (rc if rc > 0 else 1)  # Streamlit failed: say so


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        raise SystemExit(0) from None
