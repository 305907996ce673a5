"""Talk to the LAN gate as a hostile client would: a request head and a body it may refuse to read."""

from __future__ import annotations

import socket


def send_partly(s: socket.socket, head: str, body_bytes: int = 0) -> tuple[bytes, int]:
    """Send `head` and up to `body_bytes` of body on `s`; the answer (until the server closes) and how
    much of the body went out before the server stopped taking it. Closes `s`."""
    s.sendall(head.encode())
    sent, chunk = 0, b"\0" * (1 << 16)
    try:
        while sent < body_bytes:
            sent += s.send(chunk[: body_bytes - sent])
    except OSError:
        pass  # the gate answered and closed: the rest is refused
    answer = b""
    try:
        while part := s.recv(1 << 16):
            answer += part
    except OSError:
        pass
    s.close()
    return answer, sent
