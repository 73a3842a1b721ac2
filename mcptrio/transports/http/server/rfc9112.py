"""HTTP/1.1 (RFC 9112) as both servers hold to it, whichever parses the bytes (http11_server.py,
hypercorn_server.py): its connection management and its messages.

Connections.  Run the app's lifespan, accept connections (with TLS when configured) up to a
limit and refuse the next with a 503, keep one connection's writes in order (``QuietLock``),
close a connection whose client stops taking what is written to it, and at shutdown stop
accepting, close the idle connections and give the busy ones a grace period.

Requests.  RFC 9112 §6.1: a request with both Content-Length and Transfer-Encoding is read by
the latter and its connection closed after the answer (what follows may be a request smuggled
past a proxy that read it by the former); Transfer-Encoding in HTTP/1.0 is faulty framing.  The
head's size and its number of fields are held to limits of their own: hypercorn's h11 checks the
size only while a head is incomplete, so one read can take a head past it.

The built-in server reads its requests with ``RequestParser`` rather than h11, which costs
several times as much per request (bench/README.md).  It holds to what h11 checks on a request,
and refuses a few shapes h11 lets through, each a smuggling or splitting vector: a line ending in
a bare LF or CR, a control character in the head, obsolete line folding, an HTTP version other
than 1.0 and 1.1 (505), a Content-Length of more than 18 digits, a chunk size of more than 16, a
request line that starts with no letter of a method (refused at its first byte, as a TLS
handshake is).  A differential test holds it to h11 on valid and mangled requests; the attack
tests hold the server to it over sockets.  A head is parsed once it has all come (its end found
by one search, where h11 splits and matches line by line as bytes come); its size is held to
``max_head_size`` while it comes.  A body is handed over as it arrives: a Content-Length counted
down, or chunks, whose every line is checked as soon as its bytes are in (a line ending in a bare
LF would never complete; one that runs past MAX_CHUNK_LINE is refused before it does).

Responses.  They are written here, rather than by h11, because h11 spends on them (header
validation, its state machine) many times what a status line, header lines and a framing choice
take.  The checks h11 makes on the way out are kept: a header name must be a token, no header
may carry CR, LF or NUL (no response splitting), a body must match its Content-Length; a
violation is ``FramingError``, which the server treats as the app's failure (the connection is
closed).
"""

from __future__ import annotations

import logging
import math
import re
import ssl
from collections.abc import Awaitable, Callable, Collection, Sequence
from http import HTTPStatus
from types import TracebackType
from typing import Protocol

import trio
from trio.lowlevel import ParkingLot

from ....sweeps import slices, sweep_period
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


async def time_writes(connections: Collection[Watched], timeout: float) -> None:
    """Close every connection whose write has waited ``timeout`` seconds for its client to read
    (one still open: between two slices of the look, a connection may end and hand on its socket)."""
    period = sweep_period([timeout], 1.0)
    while True:
        await trio.sleep(period)
        late = trio.current_time() - timeout
        async for part in slices(connections):
            for connection in part:
                if connection.writing_since < late and connection in connections:
                    log.info("closing a connection whose client took nothing written for %g s", timeout)
                    connection.writing_since = math.inf
                    connection.abort()


# -- messages ---------------------------------------------------------------------------------------

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


# -- requests, as the built-in server reads them ------------------------------------------------------

MAX_CHUNK_LINE = 4096  # a chunk-size line with its extensions (read by no one), or a trailer field
MAX_LENGTH_DIGITS = 18  # a Content-Length of more would be over any body limit (and int()'s digit cap)
MAX_SIZE_DIGITS = 16  # a chunk size in hex: 16 digits are 16 EiB

HEAD, BODY, DONE = "head", "body", "done"  # where the parser is in the current request
_SIZE, _DATA, _DATA_END, _TRAILER = range(4)  # where it is in a chunked body

_REQUEST_LINE = re.compile(rb"([-!#$%&'*+.^_`|~0-9a-zA-Z]+) ([\x21-\x7e]+) HTTP/([0-9]\.[0-9])")
# In a head: a control character other than HTAB, or a CR or LF that is not part of a CRLF.
_FORBIDDEN = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)|(?<!\r)\n")
_CONTROLS = bytes([*range(0x09), *range(0x0A, 0x20), 0x7F])  # (deleting these is far quicker than _FORBIDDEN)
_HEX = re.compile(rb"[0-9A-Fa-f]+")
_NAMES: dict[bytes, bytes] = {}  # header names seen to be tokens, each to its lower case
_MAX_NAMES = 1024


class BadRequest(Exception):
    """A request not to serve: the status to refuse it with, and why (in the message)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Head:
    """A request's head as parsed: header names in lower case, values without surrounding blanks."""

    __slots__ = ("method", "target", "http_version", "headers", "size", "keep_alive")

    def __init__(
        self, method: bytes, target: bytes, http_version: bytes, headers: list[tuple[bytes, bytes]], size: int
    ) -> None:
        self.method = method
        self.target = target
        self.http_version = http_version
        self.headers = headers
        self.size = size  # bytes, its final CRLF included
        self.keep_alive = False  # whether the connection may carry another request after this one


class RequestParser:
    """One connection's requests, one after the other: ``feed`` it what arrives, take a head with
    ``next_head``, then its body with ``read_body``; ``next_request`` moves on once one is DONE."""

    __slots__ = ("buffer", "state", "max_head_size", "expects_continue", "_searched", "_left", "_chunked", "_phase")

    def __init__(self, max_head_size: int) -> None:
        self.buffer = bytearray()  # received, not yet read (the next request's bytes, too)
        self.state = HEAD
        self.max_head_size = max_head_size
        self.expects_continue = False  # Expect: 100-continue, and none of the body read yet
        self._searched = 0  # where the search for the head's end resumes
        self._left = 0  # bytes due: of the body (Content-Length) or of the current chunk
        self._chunked = False
        self._phase = _SIZE

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def next_request(self) -> None:
        """After a request is DONE: read the next one from what is left (pipelined bytes)."""
        self.state, self._searched, self.expects_continue = HEAD, 0, False

    # -- the head ---------------------------------------------------------------------------

    def next_head(self) -> Head | None:
        """The head, if it has all come (None: it has not); BadRequest if it can't be served."""
        buffer = self.buffer
        end = buffer.find(b"\r\n\r\n", self._searched)
        if end == -1:
            if buffer and not 0x21 <= buffer[0] <= 0x7E:  # (TLS spoken to a plain port, say: no wait)
                raise BadRequest(400, "the request line is not HTTP")
            if len(buffer) > self.max_head_size:
                raise BadRequest(431, f"the request head runs over the limit of {self.max_head_size} bytes")
            # What came since the last search, checked now: a head ended by a bare LF would never end.
            _refuse_forbidden(buffer, self._searched, len(buffer) - buffer.endswith(b"\r"))
            self._searched = max(0, len(buffer) - 3)
            return None
        raw = bytes(buffer[:end])
        del buffer[: end + 4]
        self._searched = 0
        head = _parse_head(raw, end + 4)
        self._frame(head)
        return head

    def _frame(self, head: Head) -> None:
        """How the body is framed (RFC 9112 section 6.3), with h11's checks on both headers."""
        length: bytes | None = None
        chunked = False
        hosts = 0
        expect = close = False
        kept: list[tuple[bytes, bytes]] = []
        for name, value in head.headers:
            if name == b"content-length":
                lengths = {part.strip(b" \t") for part in value.split(b",")}
                if len(lengths) != 1:
                    raise BadRequest(400, "conflicting Content-Length headers")
                value = lengths.pop()
                if not value.isdigit():
                    raise BadRequest(400, f"Content-Length {value[:40]!r} is not a number")
                if len(value) > MAX_LENGTH_DIGITS:
                    raise BadRequest(400, f"Content-Length of {len(value)} digits")
                if length is not None:
                    if value != length:
                        raise BadRequest(400, "conflicting Content-Length headers")
                    continue  # (a repeat of the same length: kept once)
                length = value
            elif name == b"transfer-encoding":
                if chunked:
                    raise BadRequest(501, "more than one Transfer-Encoding header")
                value = value.lower()
                if value != b"chunked":
                    raise BadRequest(501, "only Transfer-Encoding: chunked is supported")
                chunked = True
            elif name == b"host":
                hosts += 1
            elif name == b"expect":
                expect = expect or b"100-continue" in value.lower()
            elif name == b"connection":
                close = close or b"close" in value.lower()
            kept.append((name, value))
        head.headers = kept
        if hosts > 1:
            raise BadRequest(400, "more than one Host header")
        if hosts == 0 and head.http_version == b"1.1":
            raise BadRequest(400, "an HTTP/1.1 request with no Host header")
        self._chunked, self._phase = chunked, _SIZE
        self._left = 0 if chunked or length is None else int(length)
        self.state = BODY if chunked or self._left else DONE
        self.expects_continue = expect and head.http_version == b"1.1" and self.state is BODY
        # With both Content-Length and Transfer-Encoding, what follows may be a smuggled request:
        # the answer closes the connection (RFC 9112 section 6.1, above).
        head.keep_alive = head.http_version == b"1.1" and not close and not (chunked and length is not None)

    # -- the body ---------------------------------------------------------------------------

    def read_body(self) -> bytes:
        """What of the body has arrived and was not read yet (maybe nothing); the state is DONE
        once its end is read.  BadRequest: the chunked framing is broken."""
        if self.state is not BODY:
            return b""
        buffer = self.buffer
        if not self._chunked:
            if not buffer:
                return b""
            self.expects_continue = False
            taken = min(self._left, len(buffer))
            data = bytes(buffer[:taken])
            del buffer[:taken]
            self._left -= taken
            if not self._left:
                self.state = DONE
            return data
        pieces: list[bytes] = []
        while self._chunk_step(pieces):
            pass
        if pieces or self.state is DONE:
            self.expects_continue = False
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)

    def _chunk_step(self, pieces: list[bytes]) -> bool:
        """Read one part of a chunked body (a size line, data, a CRLF, a trailer line) if it is
        here: False when it is not, or the body is done."""
        buffer = self.buffer
        phase = self._phase
        if phase == _DATA:
            if not buffer:
                return False
            taken = min(self._left, len(buffer))
            pieces.append(bytes(buffer[:taken]))
            del buffer[:taken]
            self._left -= taken
            if not self._left:
                self._phase = _DATA_END
            return True
        if phase == _DATA_END:
            if buffer[:2] == b"\r\n":
                del buffer[:2]
                self._phase = _SIZE
                return True
            if len(buffer) >= 2 or (buffer and buffer[0] != 0x0D):
                raise BadRequest(400, "malformed request body: a chunk not followed by CRLF")
            return False
        line = _chunk_line(buffer)
        if line is None:
            return False
        if phase == _SIZE:
            size, extension, _ = line.partition(b";")
            if not extension:
                size = size.rstrip(b" \t")  # (blanks after the size: h11 lets them through, as servers send them)
            if not _HEX.fullmatch(size):
                raise BadRequest(400, f"malformed request body: chunk size {size[:20]!r}")
            if len(size) > MAX_SIZE_DIGITS:
                raise BadRequest(400, f"malformed request body: a chunk size of {len(size)} hex digits")
            self._left = int(size, 16)
            self._phase = _DATA if self._left else _TRAILER
            return True
        if not line:  # the empty line after the trailer fields: the body's end
            self.state = DONE
            return False
        name, colon, _ = line.partition(b":")
        if not colon or not _TOKEN.fullmatch(name) or _FORBIDDEN.search(line):
            raise BadRequest(400, "malformed request body: a trailer field that is not one")
        return True

    def skip_body(self) -> bool:
        """Pass over what of the body has arrived: True if that was all of it."""
        try:
            while self.state is BODY and self.read_body():
                pass
        except BadRequest:
            return False
        return self.state is DONE


def _chunk_line(buffer: bytearray) -> bytes | None:
    """The line at the start of a chunked body's ``buffer`` without its CRLF, taken from it; None if
    it has not all come; BadRequest if it ends in a bare LF or runs too long."""
    end = buffer.find(b"\n", 0, MAX_CHUNK_LINE + 1)
    if end == -1:
        if len(buffer) > MAX_CHUNK_LINE:
            raise BadRequest(
                400,
                "malformed request body: a line of the chunked body (chunk size and extensions, or trailer) "
                f"over {MAX_CHUNK_LINE} bytes",
            )
        return None
    if end == 0 or buffer[end - 1] != 0x0D:
        raise BadRequest(400, "malformed request body: a line of the chunked body ends in a bare LF, not CRLF")
    line = bytes(buffer[: end - 1])
    del buffer[: end + 1]
    return line


def _refuse_forbidden(data: bytes | bytearray, start: int, end: int) -> None:
    """BadRequest if ``data[start:end]`` holds a control character or a bare CR or LF."""
    bad = _FORBIDDEN.search(data, start, end)
    if bad is not None:
        found = bad.group()
        what = "a bare LF" if found == b"\n" else "a bare CR" if found == b"\r" else "a control character"
        raise BadRequest(400, f"the request head holds {what}")


def _parse_head(raw: bytes, size: int) -> Head:
    """The head in ``raw`` (its bytes up to the empty line that ends it)."""
    if len(raw) - len(raw.translate(None, _CONTROLS)) != 2 * raw.count(b"\r\n"):
        _refuse_forbidden(raw, 0, len(raw))
    lines = raw.split(b"\r\n")
    match = _REQUEST_LINE.fullmatch(lines[0])
    if match is None:
        raise BadRequest(400, f"malformed request line {lines[0][:80]!r}")
    method, target, version = match.groups()
    if version != b"1.1" and version != b"1.0":
        raise BadRequest(505, f"HTTP/{version.decode()} is not served: HTTP/1.1 is")
    headers = []
    names = _NAMES
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        lower = names.get(name) if colon else None
        if lower is None:
            if line[:1] in (b" ", b"\t"):
                raise BadRequest(400, "obsolete line folding in the request head (RFC 9112 section 5.2)")
            if not colon:
                raise BadRequest(400, f"a header line with no colon: {line[:80]!r}")
            if not _TOKEN.fullmatch(name):  # (a blank before the colon, too)
                raise BadRequest(400, f"malformed header name {name[:80]!r}")
            lower = name.lower()
            if len(names) < _MAX_NAMES:
                names[name] = lower
        headers.append((lower, value.strip(b" \t")))
    return Head(method, target, version, headers, size)
