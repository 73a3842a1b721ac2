"""HTTP/1.1 (RFC 9112) as both servers hold to it, whichever parses the bytes (h11_server.py,
hypercorn_server.py): its connection management and its messages.

Connections.  Run the app's lifespan, accept connections (with TLS when configured) up to a
limit and refuse the next with a 503, keep one connection's writes in order (``QuietLock``),
close a connection whose client stops taking what is written to it, and at shutdown stop
accepting, close the idle connections and give the busy ones a grace period.

Requests.  RFC 9112 §6.1: a request with both Content-Length and Transfer-Encoding is read by
the latter and its connection closed after the answer (what follows may be a request smuggled
past a proxy that read it by the former); Transfer-Encoding in HTTP/1.0 is faulty framing.  The
head's size and its number of fields are held to limits of their own: h11 checks the size only
while a head is incomplete, so one read can take a head past it.  And the line at a chunk
boundary (a chunk size, or after the last chunk a trailer field) is checked as it arrives, which
h11 leaves until its CRLF comes: one ending in a bare LF would never complete.

Responses.  h11 parses every request (h11_server.py); the response side is written here because
it is half of h11's cost per request (header validation, its state machine) for what is a status
line, header lines and a framing choice.  The checks h11 makes on the way out are kept: a header
name must be a token, no header may carry CR, LF or NUL (no response splitting), a body must
match its Content-Length; a violation is ``FramingError``, which the server treats as the app's
failure (the connection is closed).
"""

from __future__ import annotations

import logging
import math
import re
import ssl
from collections.abc import Awaitable, Callable, Iterable, Sequence
from http import HTTPStatus
from types import TracebackType
from typing import Protocol

import trio
from trio.lowlevel import ParkingLot

from .lifespan import Asgi, run_lifespan

# -- connections ------------------------------------------------------------------------------------

log = logging.getLogger("mcptrio.http")

LINGER = 1.0  # seconds a closing connection reads what its client still sends, so no reset takes the answer
LINGER_BYTES = 1024 * 1024


class Watched(Protocol):
    """A connection as the write timer sees it."""

    writing_since: float  # when the write under way began (math.inf: none is)

    def abort(self) -> None:
        """Close the socket at once: the write waiting on it fails, and the connection ends."""


class QuietLock:
    """A FIFO lock that is free when nobody holds it: no schedule point on the uncontended path.

    ``trio.Lock`` checkpoints on every acquire, a trip through the scheduler that costs about as
    much as the work an HTTP answer does under it (DESIGN.md, "Locks that are free when free").
    This one only parks when the lock is held, and hands it straight to the first waiter on release.
    It is not a cancellation point when free: callers must not rely on it to be one."""

    __slots__ = ("_held", "_waiters")

    def __init__(self) -> None:
        self._held = False
        self._waiters: ParkingLot | None = None  # made by the first contender: most locks never see one

    def locked(self) -> bool:
        return self._held

    async def __aenter__(self) -> None:
        if self._held:
            if self._waiters is None:
                self._waiters = ParkingLot()
            await self._waiters.park()  # woken by release() as the new holder (or cancelled: not the holder)
        else:
            self._held = True

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._waiters:
            self._waiters.unpark()  # ownership passes on; _held stays True
        else:
            self._held = False


class ConnectionServer:
    """Serves an ASGI app on listeners until ``shutdown_trigger`` returns, then drains; a subclass
    serves one connection (``handle``) and closes its idle ones at shutdown (``close_idle``)."""

    alpn: tuple[str, ...] = ("http/1.1",)

    def __init__(
        self,
        app: Asgi,
        *,
        header_timeout: float = 30.0,
        keep_alive_timeout: float = 30.0,
        max_head_size: int = 64 * 1024,
        max_headers: int = 100,
        write_timeout: float = 30.0,
        max_connections: int = 25_000,
        graceful_timeout: float = 10.0,
        tls: ssl.SSLContext | None = None,
        refusal_tls: ssl.SSLContext | None = None,
    ) -> None:
        self.app = app
        self.header_timeout = header_timeout
        self.keep_alive_timeout = keep_alive_timeout
        self.max_head_size = max_head_size
        self.max_headers = max_headers
        self.write_timeout = write_timeout
        self.max_connections = max_connections
        self.graceful_timeout = graceful_timeout
        self.tls = tls
        self.refusal_tls = refusal_tls or tls  # (offering HTTP/1.1 only: a refusal is written in it)
        self.connections: set[Watched] = set()
        self.closing = False

    async def handle(self, socket_stream: trio.SocketStream) -> None:
        """Serve one connection until it ends (``secured``: in TLS when the server speaks it)."""
        raise NotImplementedError

    def secured(self, stream: trio.abc.Stream) -> trio.abc.Stream:
        """``stream`` in TLS if the server speaks it (the handshake comes with the first read or write)."""
        if self.tls is None:
            return stream
        return trio.SSLStream(stream, self.tls, server_side=True, https_compatible=True)

    async def close_idle(self) -> None:
        """Shutdown: close the connections waiting for a request; the others close after their answer."""
        raise NotImplementedError

    def start_background(self, nursery: trio.Nursery) -> None:
        """Start a subclass's own long-lived tasks (cancelled once the connections are done)."""

    async def serve(
        self,
        listeners: list[trio.SocketListener],
        shutdown_trigger: Callable[[], Awaitable[object]],
        task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        async with trio.open_nursery() as outer:
            lifespan = await outer.start(run_lifespan, self.app)
            outer.start_soon(time_writes, self.connections, self.write_timeout)
            self.start_background(outer)
            async with trio.open_nursery() as handlers:
                accepting = trio.CancelScope()

                async def accept(task_status: trio.TaskStatus[object]) -> None:
                    with accepting:
                        await trio.serve_listeners(
                            self._accepted, listeners, handler_nursery=handlers, task_status=task_status
                        )

                await handlers.start(accept)
                task_status.started(listeners)
                await shutdown_trigger()
                accepting.cancel()
                for listener in listeners:
                    await listener.aclose()
                self.closing = True
                await self.close_idle()
                handlers.cancel_scope.deadline = trio.current_time() + self.graceful_timeout
            await lifespan.shutdown()
            outer.cancel_scope.cancel()

    async def _accepted(self, stream: trio.SocketStream) -> None:
        if len(self.connections) >= self.max_connections:
            await self._refuse(stream)
        else:
            await self.handle(stream)

    async def _refuse(self, socket_stream: trio.SocketStream) -> None:
        """Over the connection limit: a 503 saying so, in TLS if the server speaks it, then close."""
        body = (
            f"503 Service Unavailable: the server has its limit of {self.max_connections} connections "
            "open; retry in a moment\n"
        ).encode()
        head = (
            b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"content-length: %d\r\nretry-after: 1\r\nconnection: close\r\n\r\n" % len(body)
        )
        stream: trio.abc.Stream = socket_stream
        if self.refusal_tls is not None:
            stream = trio.SSLStream(socket_stream, self.refusal_tls, server_side=True, https_compatible=True)
        with trio.move_on_after(LINGER):
            try:
                await stream.send_all(head + body)
                await linger(stream)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
        await trio.aclose_forcefully(stream)


async def linger(stream: trio.abc.Stream) -> None:
    """Before closing a connection whose client may still be writing: stop writing, then read what
    comes (a moment, a MiB at most), so the kernel does not reset the connection and take the answer
    just sent with it."""
    with trio.move_on_after(LINGER):
        try:
            if isinstance(stream, trio.abc.HalfCloseableStream):
                await stream.send_eof()
            await read_to_the_end(stream)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return


async def read_to_the_end(stream: trio.abc.ReceiveStream) -> None:
    """Read and drop what the client still sends, until it closes or LINGER_BYTES have come."""
    received = 0
    while received < LINGER_BYTES:
        data = await stream.receive_some(65536)
        if not data:
            return
        received += len(data)


async def time_writes(connections: Iterable[Watched], timeout: float) -> None:
    """Close every connection whose write has waited ``timeout`` seconds for its client to read."""
    period = min(1.0, timeout / 4)
    while True:
        await trio.sleep(period)
        late = trio.current_time() - timeout
        for connection in list(connections):
            if connection.writing_since < late:
                log.info("closing a connection whose client took nothing written for %g s", timeout)
                connection.writing_since = math.inf
                connection.abort()


# -- messages ---------------------------------------------------------------------------------------

MAX_CHUNK_LINE = 4096  # a chunk-size line with its extensions (read by no one), or a trailer field
PHRASES = {status.value: status.phrase for status in HTTPStatus}


def refusal(
    http_version: bytes, headers: Sequence[tuple[bytes, bytes]], head_size: int, max_head_size: int, max_headers: int
) -> tuple[int, str] | None:
    """(status, reason) of a request head to refuse, else None; ``headers`` with lower-case names."""
    if head_size > max_head_size:
        return 431, f"the request head is {head_size} bytes, over the limit of {max_head_size}"
    if len(headers) > max_headers:
        return 431, f"the request has {len(headers)} header fields, over the limit of {max_headers}"
    if http_version == b"1.0" and any(name == b"transfer-encoding" for name, _ in headers):
        return 400, "Transfer-Encoding in an HTTP/1.0 request: its framing can't be trusted (RFC 9112 section 6.1)"
    return None


def must_close(headers: list[tuple[bytes, bytes]]) -> bool:
    """Content-Length and Transfer-Encoding both: answer, then close the connection (RFC 9112 §6.1)."""
    length = encoding = False
    for name, _ in headers:
        if name == b"content-length":
            length = True
        elif name == b"transfer-encoding":
            encoding = True
    return length and encoding


def chunk_line_problem(pending: bytes, after_chunk: bool) -> str | None:
    """What is wrong with the line at the start of ``pending`` (the bytes of a chunked body not yet
    parsed, at a chunk boundary), if anything: a bare LF, or no end in sight."""
    if after_chunk and pending.startswith(b"\r\n"):
        pending = pending[2:]  # the CRLF that ends the chunk before
    end = pending.find(b"\n", 0, MAX_CHUNK_LINE + 1)
    if end == -1:
        if len(pending) > MAX_CHUNK_LINE:
            return f"a line of the chunked body (chunk size and extensions, or trailer) over {MAX_CHUNK_LINE} bytes"
        return None
    if end == 0 or pending[end - 1] != 0x0D:
        return "a line of the chunked body ends in a bare LF, not CRLF"
    return None


def error_body(status: int, reason: str) -> bytes:
    """The plain-text body of a refusal: its status, its phrase and why, on one line."""
    return f"{status} {PHRASES.get(status, '')}: {reason}\n".encode()


_TOKEN = re.compile(rb"[-!#$%&'*+.^_`|~0-9a-zA-Z]+")
_CHECKED_NAMES: set[bytes] = set()  # names seen to be tokens (an app sends the same few again and again)
_STATUS_LINES = {code: b"HTTP/1.1 %d %s\r\n" % (code, phrase.encode()) for code, phrase in PHRASES.items()}
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


class FramingError(Exception):
    """A response that can't be written as HTTP/1.1: a bad header, or a body that breaks its framing."""


def status_line(status: int) -> bytes:
    line = _STATUS_LINES.get(status)
    if line is None:
        if not 100 <= status <= 999:
            raise FramingError(f"status {status} is not a three-digit HTTP status")
        line = b"HTTP/1.1 %d \r\n" % status
    return line


class ResponseFraming:
    """How the body of one response goes out, decided with its head."""

    __slots__ = ("chunked", "remaining", "no_body", "close")

    def __init__(self) -> None:
        self.chunked = False
        self.remaining: int | None = None  # bytes still due under a Content-Length
        self.no_body = False  # HEAD, 1xx, 204, 304: whatever the app gives is not sent
        self.close = False  # the connection ends after this response

    def head(
        self,
        status: int,
        headers: list[tuple[bytes, bytes]],
        whole_body: bytes | None,
        *,
        head_request: bool,
        http11: bool,
        keep_alive: bool,
        date: bytes,
    ) -> bytes:
        """The head, given the app's headers; ``whole_body``: the body, when it is all in the first write."""
        lines = [status_line(status)]
        length = None
        self.close = not keep_alive
        for name, value in headers:
            lower = name.lower()
            if lower not in _CHECKED_NAMES:
                if not _TOKEN.fullmatch(lower):
                    raise FramingError(f"header name {name!r} is not a token")
                _CHECKED_NAMES.add(lower)
            if lower == b"content-length":
                if not value.isdigit():
                    raise FramingError(f"Content-Length {value!r} is not a number")
                length = int(value)
            elif lower == b"transfer-encoding":
                if value.strip().lower() != b"chunked":
                    raise FramingError(f"Transfer-Encoding {value!r}: only chunked is written")
                self.chunked = True
                if not http11:
                    continue  # an HTTP/1.0 client gets the body to the close instead
            elif lower == b"connection":
                if b"close" in value.lower():
                    self.close = True
                continue  # written below, once
            lines.append(b"%s: %s\r\n" % (name, value))
        bodiless = status < 200 or status in (204, 304)
        self.no_body = head_request or bodiless
        if not bodiless and length is None and not self.chunked:
            if whole_body is not None:  # (for a HEAD too: the length its GET would have)
                length = len(whole_body)
                lines.append(b"content-length: %d\r\n" % length)
            elif head_request:
                pass
            elif http11:
                self.chunked = True
                lines.append(b"transfer-encoding: chunked\r\n")
            else:
                self.close = True  # HTTP/1.0: the body ends with the connection
        if self.chunked and not http11:
            self.chunked, self.close = False, True
        if length is not None and self.chunked:
            raise FramingError("both Content-Length and Transfer-Encoding")
        self.remaining = None if self.no_body else length
        if self.close:
            lines.append(b"connection: close\r\n")
        lines.append(b"date: %s\r\n\r\n" % date)
        data = b"".join(lines)
        # One line break per line, each a CRLF, and no NUL: nothing the app gave split a header.
        breaks = len(lines) + 1
        if data.count(b"\n") != breaks or data.count(b"\r") != breaks or b"\0" in data:
            raise FramingError("a header value holds CR, LF or NUL")
        return data

    def body(self, data: bytes, more: bool) -> bytes:
        """The bytes for the next piece of the body (``more``: not the last)."""
        if self.no_body:
            return b""
        if self.chunked:
            out = b"%x\r\n%s\r\n" % (len(data), data) if data else b""
            return out if more else out + b"0\r\n\r\n"
        if self.remaining is not None:
            self.remaining -= len(data)
            if self.remaining < 0 or (not more and self.remaining > 0):
                raise FramingError("the body does not match its Content-Length")
        return data
