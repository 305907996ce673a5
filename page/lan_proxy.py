"""The HTTPS server of `make app-lan`: the PIN gate (`page.gate`) in front of Streamlit on 127.0.0.1.

Why a byte-level proxy on asyncio (standard library only): the gate must answer before Streamlit sees
a request, yet the app needs everything Streamlit serves, the websocket at /_stcore/stream and
uploads included. So the gate reads only each request's head; while the client has not shown the
access cookie it answers itself (never reading a body it did not ask for, so a refused upload costs
no memory), and once a request carries the cookie the connection is joined to a fresh connection to
Streamlit and bytes are copied both ways until either side closes. Later requests on that connection
come from the same TLS peer, which has shown the cookie, so they are not looked at again.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import threading
from collections import Counter
from dataclasses import dataclass, field

from page.gate import HEALTH, MAX_PIN_BODY, PASS, READ_PIN, BadRequest, Gate, Response, client_key, parse_head

HEAD_LIMIT = 32 * 1024  # bytes of request line and headers; Streamlit's own are far smaller
HEAD_TIMEOUT_S = 20.0
TLS_HANDSHAKE_TIMEOUT_S = 10.0
#: Requests the gate answers itself on one connection before it closes it.
MAX_GATE_REQUESTS = 50
#: Connections one address may hold open before the PIN; more are closed at once.
MAX_PENDING_PER_CLIENT = 32
CHUNK = 64 * 1024


@dataclass
class GateServer:
    """Listens on `host:port` (TLS when `ssl_context` is given) and proxies to Streamlit at
    `upstream_host:upstream_port`."""

    gate: Gate
    upstream_port: int
    port: int = 0
    host: str = "0.0.0.0"
    ssl_context: ssl.SSLContext | None = None
    upstream_host: str = "127.0.0.1"
    _pending: Counter = field(default_factory=Counter)
    _server: asyncio.Server | None = None

    async def start(self) -> int:
        """Start listening; the port actually bound (useful with port 0)."""
        self._server = await asyncio.start_server(
            self._handle,
            self.host,
            self.port,
            ssl=self.ssl_context,
            ssl_handshake_timeout=TLS_HANDSHAKE_TIMEOUT_S if self.ssl_context else None,
            limit=HEAD_LIMIT,
        )
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def serve_forever(self) -> None:
        if self._server is None:
            await self.start()
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    def close(self) -> None:
        if self._server is not None:
            self._server.close()

    # ------------------------------------------------------------------ one connection

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        client = client_key(peer[0] if peer else "?")
        self._pending[client] += 1
        pending = True
        try:
            if self._pending[client] > MAX_PENDING_PER_CLIENT:
                return
            for _ in range(MAX_GATE_REQUESTS):
                try:
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
                    request = parse_head(head)
                except (asyncio.IncompleteReadError, TimeoutError, ConnectionError):
                    return
                except (asyncio.LimitOverrunError, BadRequest, UnicodeError):
                    await self._send(writer, Response(400, b"bad request\n", close=True))
                    return
                decision = self.gate.decide(request, client)
                if decision == PASS:
                    self._pending[client] -= 1
                    pending = False
                    await self._join(head, reader, writer)
                    return
                if decision == HEALTH:
                    await self._health(writer, head_only=request.method == "HEAD")
                    return
                if decision == READ_PIN:
                    answer = await self._read_pin(request, reader, client)
                else:
                    assert isinstance(decision, Response)
                    answer = decision
                await self._send(writer, answer, head_only=request.method == "HEAD")
                if answer.close:
                    return
        except (ConnectionError, ssl.SSLError, OSError):
            return
        finally:
            if pending:
                self._pending[client] -= 1
                if self._pending[client] <= 0:
                    del self._pending[client]
            with contextlib.suppress(Exception):
                writer.close()

    async def _read_pin(self, request, reader: asyncio.StreamReader, client: str) -> Response:
        """The PIN form's body: a Content-Length of at most `MAX_PIN_BODY`, else refused unread."""
        length = request.header("content-length")
        if request.header("transfer-encoding") or not (length or "").isdigit():
            return Response(400, b"the PIN form needs a Content-Length\n", close=True)
        if int(length) > MAX_PIN_BODY:
            return Response(413, b"too large\n", close=True)
        try:
            body = await asyncio.wait_for(reader.readexactly(int(length)), HEAD_TIMEOUT_S)
        except (asyncio.IncompleteReadError, TimeoutError):
            return Response(400, b"", close=True)
        return self.gate.answer_pin(body, client)

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, answer: Response, head_only: bool = False) -> None:
        writer.write(answer.encode(head_only))
        await writer.drain()

    async def _upstream(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        try:
            return await asyncio.wait_for(
                asyncio.open_connection(self.upstream_host, self.upstream_port), HEAD_TIMEOUT_S
            )
        except (OSError, TimeoutError):
            return None

    async def _health(self, writer: asyncio.StreamWriter, head_only: bool) -> None:
        """Streamlit's own health answer, asked afresh (the client's request is not forwarded)."""
        up = await self._upstream()
        if up is None:
            await self._send(writer, Response(502, b"streamlit is not answering\n", close=True), head_only)
            return
        up_reader, up_writer = up
        try:
            up_writer.write(b"GET /_stcore/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            await up_writer.drain()
            answer = await asyncio.wait_for(_read_some(up_reader, CHUNK), HEAD_TIMEOUT_S)
            status = answer.split(b" ", 2)[1] if answer.startswith(b"HTTP/1.") else b"502"
            body = answer.partition(b"\r\n\r\n")[2][:64]
        except (OSError, TimeoutError, IndexError):
            status, body = b"502", b""
        finally:
            up_writer.close()
        code = int(status) if status.isdigit() else 502
        await self._send(
            writer, Response(code, body, [("Content-Type", "text/plain")], close=True), head_only
        )

    async def _join(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Hand the connection to Streamlit: the request head as it came, then bytes both ways."""
        up = await self._upstream()
        if up is None:
            await self._send(writer, Response(502, b"streamlit is not answering\n", close=True))
            return
        up_reader, up_writer = up
        up_writer.write(head)
        to_app = asyncio.create_task(_copy(reader, up_writer, half_close=True))
        to_client = asyncio.create_task(_copy(up_reader, writer))
        try:
            await to_client  # Streamlit closed (or the client went away)
        finally:
            to_app.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await to_app
            up_writer.close()


async def _read_some(reader: asyncio.StreamReader, limit: int) -> bytes:
    """Up to `limit` bytes, until the other side closes."""
    out = b""
    while len(out) < limit and (part := await reader.read(limit - len(out))):
        out += part
    return out


async def _copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter, half_close: bool = False) -> None:
    try:
        while data := await src.read(CHUNK):
            dst.write(data)
            await dst.drain()
        if half_close and dst.can_write_eof():
            dst.write_eof()  # the client is done sending; its answers may still come
    except (ConnectionError, OSError, ssl.SSLError):
        if not half_close:
            return
        dst.close()


def start_in_thread(server: GateServer) -> tuple[int, asyncio.AbstractEventLoop, threading.Thread]:
    """Run `server` on its own event loop in a daemon thread (tests, and `page.serve` beside its
    Streamlit process); the bound port, the loop and the thread. Stop with `stop(loop, server)`."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    failure: list[BaseException] = []

    async def run() -> None:
        try:
            await server.start()
        except BaseException as exc:  # noqa: BLE001 - handed to the starting thread
            failure.append(exc)
            started.set()
            return
        started.set()
        with contextlib.suppress(asyncio.CancelledError):
            await server.serve_forever()

    def main() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(run())
        rest = asyncio.all_tasks(loop)  # connections still open when the server stopped
        for task in rest:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*rest, return_exceptions=True))
        loop.close()

    thread = threading.Thread(target=main, daemon=True, name="lan-gate")
    thread.start()
    started.wait()
    if failure:
        raise failure[0]
    return server.port, loop, thread


def stop(loop: asyncio.AbstractEventLoop, server: GateServer, thread: threading.Thread | None = None) -> None:
    """Stop a server started by `start_in_thread`; with its thread, wait until its connections are closed."""
    loop.call_soon_threadsafe(server.close)
    if thread is not None:
        thread.join(timeout=10)
