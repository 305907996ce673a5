"""`make app-lan`: the page on the phones at the table, over HTTPS, behind a PIN.

Why HTTPS: a phone's browser opens the camera (getUserMedia) only on a secure origin, and a page on
the laptop's LAN address is not one over plain HTTP. So a self-signed certificate is made on the
spot (the `openssl` command, else the `cryptography` package; nothing is downloaded) for the
machine's LAN addresses; each phone accepts the browser's warning once. The certificate is kept in
`.cache/lan-cert/` and reused while it still covers the same addresses, so the warning does not come
back every evening.

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
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIN_ENV = "MAHJONG_PIN"
PIN_DIGITS = 6
MAX_FAILURES = 5
LOCKOUT_S = 30.0
DEFAULT_PORT = 8501
CERT_DIR = ROOT / ".cache" / "lan-cert"
CERT_DAYS = 90  # well under the 825 days iOS accepts for a server certificate
RENEW_BEFORE = timedelta(days=2)
#: Streamlit flags every way of serving uses: no browser on the server, no usage statistics sent.
STREAMLIT_FLAGS: tuple[str, ...] = ("--server.headless", "true", "--browser.gatherUsageStats", "false")


class ServeError(RuntimeError):
    """Serving on the local network cannot start; the message says what to do."""


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


# ---------------------------------------------------------------------- certificate


@dataclass(frozen=True)
class Certificate:
    cert: Path
    key: Path
    hosts: tuple[str, ...]  # what the certificate names (IP addresses and DNS names)
    not_after: datetime
    made_now: bool  # False when an earlier certificate was reused


def _san_entries(hosts: Iterable[str]) -> list[str]:
    out = []
    for h in hosts:
        try:
            ipaddress.ip_address(h)
            out.append(f"IP:{h}")
        except ValueError:
            out.append(f"DNS:{h}")
    return out


def _make_with_openssl(cert: Path, key: Path, hosts: Sequence[str], days: int) -> None:
    cmd = [
        "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", str(key), "-out", str(cert), "-days", str(days),
        "-subj", "/CN=Mahjong scorer (self-signed)",
        "-addext", "subjectAltName=" + ",".join(_san_entries(hosts)),
        "-addext", "basicConstraints=critical,CA:FALSE",
        "-addext", "keyUsage=critical,digitalSignature",
        "-addext", "extendedKeyUsage=serverAuth",
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise ServeError(f"openssl could not make the certificate: {done.stderr.strip()[-300:]}")


def _make_with_cryptography(cert: Path, key: Path, hosts: Sequence[str], days: int) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    pkey = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Mahjong scorer (self-signed)")])
    alt = []
    for h in hosts:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            alt.append(x509.DNSName(h))
    now = datetime.now(UTC)
    built = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(pkey.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(pkey, hashes.SHA256())
    )
    key.write_bytes(
        pkey.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    cert.write_bytes(built.public_bytes(serialization.Encoding.PEM))


def certificate_tool() -> str | None:
    """What can make the certificate here: 'openssl', 'cryptography' or None."""
    if shutil.which("openssl"):
        return "openssl"
    try:
        import cryptography  # noqa: F401
    except ImportError:
        return None
    return "cryptography"


def make_certificate(
    cert_dir: Path, hosts: Sequence[str], days: int = CERT_DAYS, tool: str | None = None
) -> Certificate:
    """A new self-signed certificate and key for `hosts` in `cert_dir` (the key readable by its owner only)."""
    tool = tool or certificate_tool()
    if tool is None:
        raise ServeError(
            "no way to make a certificate: install the openssl command (apt install openssl) "
            "or the Python package cryptography (pip install cryptography)"
        )
    cert_dir.mkdir(parents=True, exist_ok=True)
    cert, key = cert_dir / "cert.pem", cert_dir / "key.pem"
    old_umask = os.umask(0o077)
    try:
        (_make_with_openssl if tool == "openssl" else _make_with_cryptography)(cert, key, hosts, days)
    finally:
        os.umask(old_umask)
    key.chmod(0o600)
    not_after = datetime.now(UTC) + timedelta(days=days)
    meta = {"hosts": list(hosts), "not_after": not_after.isoformat(), "tool": tool}
    (cert_dir / "cert.json").write_text(json.dumps(meta), encoding="utf-8")
    return Certificate(cert, key, tuple(hosts), not_after, True)


def ensure_certificate(cert_dir: Path, hosts: Sequence[str], days: int = CERT_DAYS) -> Certificate:
    """The certificate in `cert_dir` if it covers `hosts` and is not about to expire, else a new one."""
    cert, key, meta_path = cert_dir / "cert.pem", cert_dir / "key.pem", cert_dir / "cert.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        not_after = datetime.fromisoformat(meta["not_after"])
        covered = set(hosts) <= set(meta["hosts"])
        if covered and cert.is_file() and key.is_file() and not_after - datetime.now(UTC) > RENEW_BEFORE:
            return Certificate(cert, key, tuple(meta["hosts"]), not_after, False)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return make_certificate(cert_dir, hosts, days)


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
    args = ap.parse_args(argv)
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
    except ServeError as exc:
        print(f"make app-lan: {exc}", file=sys.stderr)
        return 2
    pin = new_pin()
    print(banner(addresses, args.port, pin, cert), flush=True)
    cmd = streamlit_command(cert, args.port, args.app)
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    env = {**os.environ, PIN_ENV: pin}
    try:
        return subprocess.call(cmd, env=env)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
