"""The PIN gate of `make app-lan`: who may reach Streamlit, decided before Streamlit sees a byte.

Why in front of Streamlit and not in app.py: Streamlit accepts a websocket session and file uploads
(`/_stcore/upload_file`) from any browser before the script runs, so a PIN form drawn by the script
cannot stop an upload. Here the gate answers every request itself until the client shows this run's
access cookie; only then is the connection handed to Streamlit (`page.lan_proxy`).

What passes without the PIN: the PIN page, the PIN form's POST and the health check. Everything else
(the app, its websocket, uploads, any other method) gets the PIN page or a refusal, and a request
body is never read except the PIN form's few bytes.

The access token is random (`secrets`, 256 bits) for each server run, so it cannot be derived from
the PIN; it lives in an HttpOnly, Secure, SameSite=Strict cookie together with this run's public id.
A cookie of an earlier run (another id) is just ignored; a cookie of this run with a wrong token is a
guess and counts like a wrong PIN.

Wrong PINs and wrong tokens are counted per client address (`ClientLocks`), so one sender locks only
itself out, never the other phones of the table. The address is the TCP peer the gate sees; the gate
ignores X-Forwarded-For (anyone can write it), and Streamlit, behind the gate, sees only 127.0.0.1.
"""

from __future__ import annotations

import hmac
import html
import ipaddress
import secrets
import threading
import time
import unicodedata
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

MAX_FAILURES = 5
LOCKOUT_S = 30.0
#: Each further lockout of the same address lasts twice as long, up to this.
MAX_LOCKOUT_S = 3600.0
#: Addresses remembered; when full, the longest-untouched unlocked one is forgotten first.
MAX_CLIENTS = 4096
COOKIE = "mahjong_gate"
COOKIE_MAX_AGE_S = 12 * 3600  # an evening; a new server run needs the PIN again anyway
PIN_PATH = "/_gate/pin"
HEALTH_PATHS = frozenset({"/_stcore/health", "/healthz"})
MAX_PIN_BODY = 512


def normalise_pin(text: str) -> str:
    """What the player meant: full-width digits (Chinese keyboards) made ASCII; spaces and dashes dropped."""
    plain = unicodedata.normalize("NFKC", str(text))
    return "".join(ch for ch in plain if not ch.isspace() and ch not in "-_")


def client_key(host: str) -> str:
    """The address a lockout belongs to: the IPv4 address, or the /64 of an IPv6 one (one device can
    pick any address in its /64, so counting single IPv6 addresses would give it endless tries)."""
    try:
        ip = ipaddress.ip_address(str(host).split("%", 1)[0])
    except ValueError:
        return str(host)
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


@dataclass
class _Record:
    failures: int = 0
    strikes: int = 0  # lockouts so far: each one is longer
    locked_until: float = 0.0


class ClientLocks:
    """Wrong tries per client address; after `max_failures` in a row that address waits (longer each
    time), the others do not. The table is bounded: a flood of addresses forgets unlocked ones first."""

    def __init__(
        self,
        max_failures: int = MAX_FAILURES,
        lockout_s: float = LOCKOUT_S,
        max_lockout_s: float = MAX_LOCKOUT_S,
        max_clients: int = MAX_CLIENTS,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.max_failures = max_failures
        self.lockout_s = lockout_s
        self.max_lockout_s = max_lockout_s
        self.max_clients = max_clients
        self._clock = clock
        self._records: OrderedDict[str, _Record] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._records)

    def locked_for(self, client: str) -> float:
        """Seconds until `client` may try again (0 when it may)."""
        with self._lock:
            rec = self._records.get(client)
            return max(0.0, rec.locked_until - self._clock()) if rec else 0.0

    def failed(self, client: str) -> float:
        """Count a wrong PIN or token from `client`; the seconds it is now locked for (0 if not)."""
        with self._lock:
            now = self._clock()
            rec = self._records.get(client)
            if rec is None:
                self._make_room(now)
                rec = self._records[client] = _Record()
            self._records.move_to_end(client)
            rec.failures += 1
            if rec.failures >= self.max_failures:
                rec.failures = 0
                wait = min(self.lockout_s * 2**rec.strikes, self.max_lockout_s)
                rec.strikes += 1
                rec.locked_until = now + wait
            return max(0.0, rec.locked_until - now)

    def succeeded(self, client: str) -> None:
        """The right PIN from `client`: its count starts again."""
        with self._lock:
            self._records.pop(client, None)

    def _make_room(self, now: float) -> None:
        while len(self._records) >= self.max_clients:
            victim = next((k for k, r in self._records.items() if r.locked_until <= now), None)
            self._records.pop(victim if victim is not None else next(iter(self._records)))


# ---------------------------------------------------------------------- requests and answers


class BadRequest(ValueError):
    """A request head the gate does not parse; answered 400 and the connection closed."""


@dataclass(frozen=True)
class Request:
    method: str
    target: str
    headers: tuple[tuple[str, str], ...]  # names lower-cased, in order

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k == name), None)

    def cookies(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for k, v in self.headers:
            if k == "cookie":
                for part in v.split(";"):
                    name, eq, value = part.strip().partition("=")
                    if eq:
                        out.setdefault(name, value)
        return out

    @property
    def is_websocket(self) -> bool:
        return (self.header("upgrade") or "").lower() == "websocket"


def parse_head(head: bytes) -> Request:
    """The request line and headers up to the blank line (latin-1, as HTTP/1.1 says)."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest("not an HTTP/1.x request line")
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise BadRequest("malformed header")
        headers.append((name.lower(), value.strip()))
    return Request(parts[0], parts[1], tuple(headers))


@dataclass
class Response:
    """An answer the gate gives itself. `close`: end the connection after it (the body of the request,
    if any, was not read, so the connection cannot carry another request)."""

    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    close: bool = False

    _REASONS = {200: "OK", 303: "See Other", 400: "Bad Request", 403: "Forbidden", 404: "Not Found",
                413: "Content Too Large", 429: "Too Many Requests", 502: "Bad Gateway"}  # fmt: skip

    def encode(self, head_only: bool = False) -> bytes:
        lines = [f"HTTP/1.1 {self.status} {self._REASONS.get(self.status, 'Error')}"]
        lines += [f"{k}: {v}" for k, v in self.headers]
        lines += [f"Content-Length: {len(self.body)}", "Cache-Control: no-store"]
        lines += ["X-Frame-Options: DENY", "Referrer-Policy: no-referrer", "X-Content-Type-Options: nosniff"]
        if self.close:
            lines.append("Connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (b"" if head_only else self.body)


#: What the gate does with a request: hand the connection to Streamlit, relay its health check, or
#: read the PIN form's body (at most `MAX_PIN_BODY` bytes) and give it to `Gate.answer_pin`.
PASS = "pass"
HEALTH = "health"
READ_PIN = "read-pin"


_PAGE = """<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>麻将计分 · PIN</title>
<style>
body{{font-family:system-ui,-apple-system,"PingFang SC","Microsoft YaHei",sans-serif;margin:0;padding:2rem 1rem;
background:#fafafa;color:#222}}
main{{max-width:22rem;margin:0 auto}}
h1{{font-size:1.5rem;margin:0 0 1rem}}
p{{margin:.4rem 0}} small{{color:#666}}
input{{font-size:1.6rem;letter-spacing:.3rem;width:100%;box-sizing:border-box;padding:.6rem;margin:1rem 0 .6rem;
border:1px solid #bbb;border-radius:.4rem;text-align:center}}
button{{font-size:1.2rem;width:100%;padding:.7rem;border:0;border-radius:.4rem;background:#c62828;color:#fff}}
.err{{color:#c62828;margin-top:1rem}}
</style></head>
<body><main>
<h1>🀄 麻将计分</h1>
<p>请输入电脑上显示的 6 位 PIN</p>
<p><small>Enter the 6-digit PIN shown on the computer</small></p>
<form method="post" action="{action}">
<input name="pin" type="password" inputmode="numeric" autocomplete="one-time-code" maxlength="12"
 aria-label="PIN" autofocus required>
<button type="submit">进入 / Enter</button>
</form>
{message}
</main></body></html>
"""

_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"


def pin_page(
    status: int = 200, message: str = "", close: bool = False, set_cookie: str | None = None
) -> Response:
    """The gate's own page: a PIN form, plain HTML that works on any phone browser, no script."""
    note = f'<p class="err" role="alert">{html.escape(message)}</p>' if message else ""
    body = _PAGE.format(action=PIN_PATH, message=note).encode("utf-8")
    headers = [("Content-Type", "text/html; charset=utf-8"), ("Content-Security-Policy", _CSP)]
    if set_cookie:
        headers.append(("Set-Cookie", set_cookie))
    return Response(status, body, headers, close)


def wrong_message(wait: float) -> str:
    if wait > 0:
        return f"PIN 不对或尝试太多：请 {wait:.0f} 秒后再试 / wrong PIN: try again in {wait:.0f} s"
    return "PIN 不对 / wrong PIN"


# ---------------------------------------------------------------------- the gate


class Gate:
    """One server run's PIN, access token and lockouts; `decide` says what to do with each request."""

    def __init__(self, pin: str, locks: ClientLocks | None = None, token: str | None = None):
        if not normalise_pin(pin):
            raise ValueError("the gate needs a PIN")
        self._pin = normalise_pin(pin).encode()
        self.locks = locks or ClientLocks()
        self.run_id = secrets.token_hex(4)  # public: tells this run's cookie from an earlier run's
        self._token = token or secrets.token_urlsafe(32)

    def cookie_value(self) -> str:
        return f"{self.run_id}.{self._token}"

    def set_cookie(self) -> str:
        return (
            f"{COOKIE}={self.cookie_value()}; Path=/; Max-Age={COOKIE_MAX_AGE_S}; "
            "HttpOnly; Secure; SameSite=Strict"
        )

    def check_pin(self, entered: str, client: str) -> tuple[bool, float]:
        """(right?, seconds locked). A locked client gets False without the PIN being looked at."""
        wait = self.locks.locked_for(client)
        if wait > 0:
            return False, wait
        if hmac.compare_digest(normalise_pin(entered).encode(), self._pin):
            self.locks.succeeded(client)
            return True, 0.0
        return False, self.locks.failed(client)

    def check_cookie(self, request: Request, client: str) -> bool | None:
        """True: this run's token. False: a wrong one (counted), or any while `client` is locked.
        None: no cookie of this run (none, or an earlier run's), which is not a guess."""
        value = request.cookies().get(COOKIE)
        if not value:
            return None
        run_id, _, token = value.partition(".")
        if run_id != self.run_id:
            return None
        if self.locks.locked_for(client) > 0:
            return False
        if hmac.compare_digest(token.encode(), self._token.encode()):
            return True
        self.locks.failed(client)
        return False

    def decide(self, request: Request, client: str) -> Response | str:
        """PASS (to Streamlit), HEALTH, READ_PIN, or the gate's own answer. Reads no request body."""
        if request.path in HEALTH_PATHS and request.method in ("GET", "HEAD") and not request.is_websocket:
            return HEALTH
        if request.path == PIN_PATH and request.method == "POST":
            return READ_PIN
        was_locked = self.locks.locked_for(client) > 0
        ok = self.check_cookie(request, client)
        if ok:
            return PASS
        has_body = request.is_websocket or request.method not in ("GET", "HEAD")
        if ok is False:  # a locked client, or a wrong token (then the cookie is cleared)
            wait = self.locks.locked_for(client)
            expired = (
                None if was_locked else f"{COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict"
            )
            return pin_page(429 if wait else 403, wrong_message(wait), has_body, expired)
        if has_body:
            return pin_page(403, close=True)
        return pin_page(200 if request.path == "/" else 403)

    def answer_pin(self, body: bytes, client: str) -> Response:
        """The PIN form's POST (its body already read): the cookie and back to the page, or the form."""
        form = urllib.parse.parse_qs(body.decode("utf-8", "replace"), max_num_fields=4)
        ok, wait = self.check_pin((form.get("pin") or [""])[0][:32], client)
        if ok:
            return Response(303, b"", [("Location", "/"), ("Set-Cookie", self.set_cookie())])
        return pin_page(429 if wait else 403, wrong_message(wait))
