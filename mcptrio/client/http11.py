"""A lean HTTP/1.1 client over Trio sockets, with a pool of kept-alive connections: what a
Streamable HTTP session needs (a POST answered by JSON or an event stream, a long GET stream, a
DELETE), at a fraction of httpx's cost per request.  ``connect`` uses it unless an ``httpx.Auth``
(OAuth) has to take part in the requests; a bearer token is simply a header here.  The few
framings a response can have (a length, chunks, until the connection closes) are read here
directly: a general HTTP library's checks of every header cost more than the rest of the exchange.
"""

from __future__ import annotations

import codecs
import re
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import trio

from ..direct_io import plain_socket, receive_some, write_now
from .pooling import KEEPALIVE_EXPIRY
from .tls import failure_reason

Token = str | Callable[[], Awaitable[str]]
MAX_CONNECTIONS = 100  # open at once per client (a request beyond waits for one), as httpx's default
CHUNK = 65536
MAX_HEAD = 65536  # bytes of a response's head (or of a chunk's size line) at most
DRAIN = 1.0  # seconds the rest of a response closed early is read for, to keep its connection
USER_AGENT = "mcptrio"
_LINE_END = re.compile(r"\r\n|\r|\n")
_STATUS = re.compile(rb"HTTP/1\.([01]) ([0-9]{3})(?: .*)?")
_TOKEN = re.compile(rb"[-!#$%&'*+.^_`|~0-9A-Za-z]+")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,16}")
# A session sends the same few headers on every request and gets the same few back, and checking
# them (a pattern, a decode) costs more than a lookup: a response's header names already checked,
# to their lower-case text; a pool's request heads already made (``Pool._heads``).
CHECKED_NAMES = 512
_NAMES: dict[bytes, str] = {}


class TransportError(ConnectionError):
    """The HTTP exchange failed: the connection broke, or the server's answer was not HTTP/1.1."""


class ConnectError(TransportError):
    """No connection could be made (refused, unreachable, a TLS handshake that failed): the request
    was not sent."""


class ConnectTimeout(TransportError):
    """No connection within the connect timeout: the request was not sent."""


class Origin:
    """Where requests go: scheme, host and port of a URL, and the ``Host`` header for them."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self.secure = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.secure else 80)
        address = f"[{self.host}]" if ":" in self.host else self.host
        self.host_header = address if parts.port is None else f"{address}:{self.port}"

    @property
    def key(self) -> tuple[bool, str, int]:
        return self.secure, self.host, self.port


def target_of(url: str) -> str:
    """The request target of a URL: its path (``/`` at least) and query."""
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


class Connection:
    """One kept-alive connection: requests written as they are, responses parsed as they come."""

    def __init__(self, stream: trio.abc.Stream, origin: Origin) -> None:
        self.stream = stream
        self.origin = origin
        self.buffer = bytearray()
        self.idle_since = 0.0
        # A plain TCP connection is read and written with system calls made at once (``direct_io``):
        # Trio's own socket calls pass through the scheduler after each that succeeds, twice per
        # exchange.  TLS goes through its stream.
        self._socket = plain_socket(stream)

    def is_stale(self) -> bool:
        """The server has closed it, or sent something unasked, while it was idle: not to be used."""
        tcp = self.stream.transport_stream if isinstance(self.stream, trio.SSLStream) else self.stream
        socket = getattr(tcp, "socket", None)
        return socket is None or bool(socket.is_readable())

    def send_now(self, data: bytes) -> bytes:
        """Write what the socket takes at once (plain TCP); what is left to ``send``."""
        if self._socket is None:
            return data
        try:
            sent = write_now(self._socket.fileno(), data)
        except OSError as exc:
            raise TransportError(f"the connection broke: {failure_reason(exc)}") from exc
        return data[sent:]

    async def send(self, data: bytes) -> None:
        try:
            await self.stream.send_all(data)
        except (trio.BrokenResourceError, OSError) as exc:
            raise TransportError(f"the connection broke: {failure_reason(exc)}") from exc

    async def fill(self) -> bool:
        """More of what the server sent into ``buffer``; False when it has closed the connection."""
        try:
            data = await (
                receive_some(self._socket, CHUNK) if self._socket is not None else self.stream.receive_some(CHUNK)
            )
        except (trio.BrokenResourceError, OSError) as exc:
            raise TransportError(f"the connection broke: {failure_reason(exc)}") from exc
        self.buffer += data
        return bool(data)

    async def line(self, what: str) -> bytes:
        """The next CR LF-ended line (without its end), at most ``MAX_HEAD`` bytes."""
        while (end := self.buffer.find(b"\r\n")) < 0:
            if len(self.buffer) > MAX_HEAD:
                raise malformed(f"{what} longer than {MAX_HEAD} bytes")
            if not await self.fill():
                raise TransportError(f"the server closed the connection in the middle of {what}")
        found = bytes(self.buffer[:end])
        del self.buffer[: end + 2]
        return found

    async def head(self) -> tuple[int, dict[str, str], bool]:
        """The status, headers (lower-case names; repeated ones joined with commas) and whether the
        connection may be kept, of the next final response (1xx ones are passed over)."""
        while True:
            while (end := self.buffer.find(b"\r\n\r\n")) < 0:
                if len(self.buffer) > MAX_HEAD:
                    raise malformed(f"a head longer than {MAX_HEAD} bytes")
                if not await self.fill():
                    if self.buffer:
                        raise TransportError("the server closed the connection in the middle of its answer's head")
                    raise TransportError("the server closed the connection without an answer")
            status_line, *lines = bytes(self.buffer[:end]).split(b"\r\n")
            del self.buffer[: end + 4]
            found = _STATUS.fullmatch(status_line)
            if found is None:
                raise malformed(f"not an HTTP/1.x status line: {status_line[:80]!r}")
            headers: dict[str, str] = {}
            for line in lines:
                name, colon, value = line.partition(b":")
                key = _NAMES.get(name) if colon else None
                if key is None:
                    if not colon or not _TOKEN.fullmatch(name):
                        raise malformed(f"not a header line: {line[:80]!r}")
                    key = _remember(_NAMES, name, name.decode("ascii").lower())
                text = value.strip(b" \t").decode("latin-1")
                headers[key] = f"{headers[key]}, {text}" if key in headers else text
            status = int(found[2])
            if not 100 <= status < 200:
                keep = found[1] == b"1" and "close" not in headers.get("connection", "").lower()
                return status, headers, keep

    async def aclose(self) -> None:
        await trio.aclose_forcefully(self.stream)


def malformed(why: str) -> TransportError:
    return TransportError(f"the server's HTTP answer is malformed: {why}")


def request_lines(method: str, target: str, fields: list[tuple[str, str]]) -> bytes:
    """A request's line and header lines as they go on the wire (the blank line that ends the head
    not yet); a header name that is not a token, or a value with a line break, is a ValueError."""
    lines = [f"{method} {target} HTTP/1.1\r\n"]
    for name, value in fields:
        if not _TOKEN.fullmatch(name.encode("latin-1")):
            raise ValueError(f"not a valid HTTP header name: {name!r}")
        if "\r" in value or "\n" in value:
            raise ValueError(f"not a valid HTTP header: {name!r}: {value!r}")
        lines.append(f"{name}: {value}\r\n")
    return "".join(lines).encode("latin-1")


def _remember(cache: dict[Any, Any], key: Any, value: Any) -> Any:
    """``value``, kept in ``cache`` under ``key`` (emptied when full: a session's names repeat)."""
    if len(cache) >= CHECKED_NAMES:
        cache.clear()
    cache[key] = value
    return value


class Response:
    """A response whose body is read as it comes (``aread``, ``aiter_lines``); ``aclose`` gives its
    connection back to the pool when the body was read to its end, and closes it otherwise."""

    def __init__(
        self, pool: Pool, connection: Connection, status: int, headers: dict[str, str], *, keep: bool, bodiless: bool
    ) -> None:
        self.status_code = status
        self.headers = headers
        self.content = b""
        self._pool = pool
        self._connection: Connection | None = connection
        self._done = False
        self._in_chunk = False
        self._remaining = 0  # bytes left of the body (Content-Length) or of the current chunk
        if bodiless:
            self._mode = "length"
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            self._mode = "chunked"
        elif "content-length" in headers:
            length = headers["content-length"]
            if not length.isdigit():
                raise malformed(f"Content-Length {length[:40]!r}")
            self._mode, self._remaining = "length", int(length)
        else:  # (the body ends when the server closes the connection)
            self._mode, keep = "close", False
        self._keep = keep

    @property
    def text(self) -> str:
        return self.content.decode(errors="replace")

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's bytes as they come (chunked or not), until its end."""
        connection = self._connection
        while connection is not None and not self._done:
            if self._mode == "chunked" and self._remaining == 0:
                await self._next_chunk(connection)
                continue
            if self._mode == "length" and self._remaining == 0:
                self._done = True
                break
            if not connection.buffer and not await connection.fill():
                if self._mode != "close":
                    raise TransportError("the server closed the connection before the end of its answer")
                self._done = True
                break
            buffer = connection.buffer
            take = len(buffer) if self._mode == "close" else min(len(buffer), self._remaining)
            piece = bytes(buffer[:take])
            del buffer[:take]
            self._remaining -= take
            yield piece

    async def _next_chunk(self, connection: Connection) -> None:
        if self._in_chunk and await connection.line("a chunk") != b"":
            raise malformed("a chunk longer than its size")
        line = await connection.line("a chunk size")
        size = line.split(b";", 1)[0].strip()
        if not _HEX.fullmatch(size):
            raise malformed(f"a chunk size {line[:40]!r}")
        self._remaining, self._in_chunk = int(size, 16), True
        if self._remaining == 0:
            while await connection.line("the trailers"):
                pass
            self._done = True

    async def aread(self) -> bytes:
        connection = self._connection
        if self._mode == "length" and connection is not None and len(connection.buffer) >= self._remaining:
            # (the usual answer: a length, all of it come with the head)
            buffer, take = connection.buffer, self._remaining
            self.content, self._remaining, self._done = bytes(buffer[:take]), 0, True
            del buffer[:take]
            return self.content
        parts = [chunk async for chunk in self.aiter_bytes()]
        self.content = b"".join(parts)
        return self.content

    async def aiter_lines(self) -> AsyncIterator[str]:
        """The body's lines as they come, split at CR LF, CR or LF (server-sent events' rule)."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        async for chunk in self.aiter_bytes():
            text = pending + decoder.decode(chunk)
            held = text.endswith("\r")  # (maybe the first half of a CR LF: split once the next chunk says)
            *lines, pending = _LINE_END.split(text[:-1] if held else text)
            if held:
                pending += "\r"
            for line in lines:
                yield line
        pending += decoder.decode(b"", final=True)
        if pending:
            yield pending.removesuffix("\r")

    async def aclose(self) -> None:
        """Closed before the end of its body (an event stream, once its answer came): the rest is
        read for up to ``DRAIN`` seconds (a server ends such a stream at once), so the connection
        can be used again; a response closed by cancelling (a request aborted) closes it."""
        connection = self._connection
        if connection is None:
            return
        try:
            if not self._done:
                with trio.move_on_after(DRAIN):
                    async for _ in self.aiter_bytes():
                        pass
        except TransportError:
            pass
        finally:
            self._connection = None
            await self._pool.release(connection, keep=self._done and self._keep and not connection.buffer)


class Pool:
    """Connections to any number of origins, each kept for ``KEEPALIVE_EXPIRY`` seconds idle.

    ``token``: a bearer token, or an async callable giving one, put on every request.
    ``context``: the TLS context of ``https://`` origins.  ``connect_timeout``: seconds for a
    connection and its TLS handshake, and for sending a request; reading has no limit (an
    event stream may stay quiet for a long time)."""

    refused: type[Exception] = ConnectError
    not_sent: tuple[type[Exception], ...] = (ConnectError, ConnectTimeout)
    failed: type[Exception] = TransportError

    def __init__(self, context: ssl.SSLContext, *, token: Token | None = None, connect_timeout: float = 30.0) -> None:
        self.context = context
        self.token = token
        self.connect_timeout = connect_timeout
        self._idle: dict[tuple[bool, str, int], list[Connection]] = {}
        self._origins: dict[str, tuple[Origin, str]] = {}
        # Request heads already made, by method, URL and headers: a session's requests differ in
        # their length (and token) only, which are added to the head each time.  Not those that
        # mirror a call's arguments (Mcp-Param-*): they differ by call, and may hold secrets.
        self._heads: dict[tuple[object, ...], bytes] = {}
        # (a semaphore, not a limiter: a response is released by whichever task reads it to its end)
        self._limit = trio.Semaphore(MAX_CONNECTIONS)
        self._closed = False

    async def open(self, method: str, url: str, *, content: bytes = b"", headers: dict[str, str]) -> Response:
        """Send a request and return once the response's head has come (its body is streamed)."""
        if url not in self._origins:  # (a session's requests all go to one URL: parsed once)
            self._origins[url] = Origin(url), target_of(url)
        origin, target = self._origins[url]
        key = (method, url, *headers.items())
        head = self._heads.get(key)
        if head is None:
            fields = [("host", origin.host_header), ("user-agent", USER_AGENT)]
            fields += [
                (name, value) for name, value in headers.items() if name.lower() not in ("host", "content-length")
            ]
            head = request_lines(method, target, fields)
            if not any(name.startswith("mcp-param-") for name in headers):
                _remember(self._heads, key, head)
        if self.token is not None:
            token = self.token if isinstance(self.token, str) else await self.token()
            if "\r" in token or "\n" in token:
                raise ValueError("not a valid bearer token: it has a line break in it")
            head += f"authorization: Bearer {token}\r\n".encode("latin-1")
        if content or method in ("POST", "PUT"):
            head += b"content-length: %d\r\n" % len(content)
        data = head + b"\r\n" + content  # (head and body in one write)
        try:
            self._limit.acquire_nowait()
        except trio.WouldBlock:
            await self._limit.acquire()
        connection: Connection | None = None
        try:
            connection = await self._connection(origin)
            rest = connection.send_now(data)  # (the usual case: all of it)
            if rest:
                with trio.fail_after(self.connect_timeout):
                    await connection.send(rest)
            status, headers_in, keep = await connection.head()
            response = Response(
                self, connection, status, headers_in, keep=keep, bodiless=method == "HEAD" or status in (204, 304)
            )
        except trio.TooSlowError:
            if connection is not None:
                await connection.aclose()
            self._limit.release()
            raise TransportError(f"the request could not be sent within {self.connect_timeout:g} s") from None
        except BaseException:
            if connection is not None:
                await connection.aclose()
            self._limit.release()
            raise
        return response

    async def _connection(self, origin: Origin) -> Connection:
        idle = self._idle.get(origin.key)
        now = trio.current_time()
        while idle:
            found = idle.pop()  # (the most recently used: the least likely to have been closed)
            if now - found.idle_since < KEEPALIVE_EXPIRY and not found.is_stale():
                return found
            await found.aclose()
        return Connection(await self._connect(origin), origin)

    async def _connect(self, origin: Origin) -> trio.abc.Stream:
        stream: trio.abc.Stream | None = None
        try:
            with trio.fail_after(self.connect_timeout):
                tcp = await trio.open_tcp_stream(origin.host, origin.port)
                stream = tcp
                if origin.secure:
                    stream = trio.SSLStream(tcp, self.context, server_hostname=origin.host, https_compatible=True)
                    await stream.do_handshake()
                return stream
        except trio.TooSlowError:
            if stream is not None:
                await trio.aclose_forcefully(stream)
            raise ConnectTimeout(f"no connection to {origin.host_header} within {self.connect_timeout:g} s") from None
        except (OSError, trio.BrokenResourceError) as exc:
            if stream is not None:
                await trio.aclose_forcefully(stream)
            raise ConnectError(str(exc)) from exc

    async def release(self, connection: Connection, *, keep: bool) -> None:
        self._limit.release()
        if keep and not self._closed:
            connection.idle_since = trio.current_time()
            self._idle.setdefault(connection.origin.key, []).append(connection)
        else:
            await connection.aclose()

    async def request(self, method: str, url: str, *, content: bytes = b"", headers: dict[str, str]) -> Response:
        """A whole exchange: the response with its body read (``content``, ``text``)."""
        response = await self.open(method, url, content=content, headers=headers)
        try:
            await response.aread()
        finally:
            await response.aclose()
        return response

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                await connection.aclose()
