"""The plain HTTP a WebSocket endpoint answers besides its upgrades: with authorization on, the
Protected Resource Metadata (RFC 9728) at its well-known paths, where a client refused with 401 looks
for it (at the ``http://`` origin of the ``ws://`` URL, as the challenge's ``resource_metadata``
says).  trio-websocket answers every request that is not an upgrade with 400, so each connection's
request head is read here first; an upgrade goes on to trio-websocket with that head (``Replayed``).
"""

from __future__ import annotations

import re

import trio

from ..auth.gate import Gate
from .net.authorization import serve_metadata

_REQUEST_LINE = re.compile(rb"([A-Z]+) (\S+) HTTP/1\.[01]")
_REASONS = {200: "OK", 204: "No Content", 400: "Bad Request", 405: "Method Not Allowed", 431: "Too Large"}


class Replayed(trio.abc.Stream):
    """A stream whose first bytes (the request head, read already) are received again."""

    def __init__(self, stream: trio.abc.Stream, head: bytes) -> None:
        self.stream, self.head = stream, head

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        if self.head:
            size = len(self.head) if max_bytes is None else max_bytes
            data, self.head = self.head[:size], self.head[size:]
            return data
        return await self.stream.receive_some(max_bytes)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        await self.stream.aclose()


async def read_head(stream: trio.abc.Stream, limit: int) -> bytes | None:
    """What came up to the end of the request head (and any of the body or frames after it);
    None when the connection ended first or the head is over ``limit`` bytes."""
    head = b""
    while b"\r\n\r\n" not in head:
        if len(head) > limit:
            return None
        data = await stream.receive_some(65536)
        if not data:
            return None
        head += data
    return head


class _Responder:
    """``net.authorization``'s ``Responder`` on a raw stream: one HTTP/1.1 response, then close."""

    def __init__(self, stream: trio.abc.Stream, head_only: bool) -> None:
        self.stream, self.head_only, self.started = stream, head_only, False

    async def respond(self, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
        self.started = True
        lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}".encode()]
        lines += [name + b": " + value for name, value in headers]
        lines += [b"content-length: %d" % len(body), b"connection: close"]
        await self.stream.send_all(b"\r\n".join(lines) + b"\r\n\r\n" + (b"" if self.head_only else body))


async def answered_plainly(stream: trio.abc.Stream, head: bytes, gate: Gate | None) -> bool:
    """Answer the request if it is for the resource metadata and no upgrade (True: answered)."""
    found = _REQUEST_LINE.match(head)
    if gate is None or found is None or b"\r\nupgrade:" in head.split(b"\r\n\r\n", 1)[0].lower():
        return False
    method, target = found.group(1).decode(), found.group(2).decode("latin-1")
    if target.split("?", 1)[0].rstrip("/") not in gate.metadata_paths:
        return False
    await serve_metadata(gate, method, _Responder(stream, head_only=method == "HEAD"))
    return True
