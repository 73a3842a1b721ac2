"""A lean HTTP/1.1 client on h11 over Trio sockets, with a pool of kept-alive connections: what a
Streamable HTTP session needs (a POST answered by JSON or an event stream, a long GET stream, a
DELETE), at a fraction of httpx's cost per request.  ``connect`` uses it unless an ``httpx.Auth``
(OAuth) has to take part in the requests; a bearer token is simply a header here.
"""

from __future__ import annotations

import codecs
import re
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from urllib.parse import urlsplit

import h11
import trio

from .pooling import KEEPALIVE_EXPIRY
from .tls import failure_reason

Token = str | Callable[[], Awaitable[str]]
MAX_CONNECTIONS = 100  # open at once per client (a request beyond waits for one), as httpx's default
CHUNK = 65536
DRAIN = 1.0  # seconds the rest of a response closed early is read for, to keep its connection
USER_AGENT = "mcptrio"
_LINE_END = re.compile(r"\r\n|\r|\n")


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
    """One kept-alive connection and its h11 state."""

    def __init__(self, stream: trio.abc.Stream, origin: Origin) -> None:
        self.stream = stream
        self.origin = origin
        self.h11 = h11.Connection(h11.CLIENT)
        self.idle_since = 0.0

    def is_stale(self) -> bool:
        """The server has closed it, or sent something unasked, while it was idle: not to be used."""
        tcp = self.stream.transport_stream if isinstance(self.stream, trio.SSLStream) else self.stream
        socket = getattr(tcp, "socket", None)
        return socket is None or bool(socket.is_readable())

    async def send(self, *events: h11.Event) -> None:
        data = b"".join(self.h11.send(event) or b"" for event in events)
        if data:
            await self.stream.send_all(data)

    async def next_event(self) -> h11.Event:
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise TransportError(f"the server's HTTP answer is malformed: {exc}") from None
            if event is not h11.NEED_DATA:
                return event  # type: ignore[return-value]  # (h11's sentinels are classes)
            try:
                data = await self.stream.receive_some(CHUNK)
            except (trio.BrokenResourceError, OSError) as exc:
                raise TransportError(f"the connection broke: {failure_reason(exc)}") from exc
            try:
                self.h11.receive_data(bytes(data))
            except h11.RemoteProtocolError as exc:
                raise TransportError(f"the server's HTTP answer is malformed: {exc}") from None

    def reusable(self) -> bool:
        return self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE

    async def aclose(self) -> None:
        await trio.aclose_forcefully(self.stream)


class Response:
    """A response whose body is read as it comes (``aread``, ``aiter_lines``); ``aclose`` gives its
    connection back to the pool when the body was read to its end, and closes it otherwise."""

    def __init__(self, pool: Pool, connection: Connection, status: int, headers: dict[str, str]) -> None:
        self.status_code = status
        self.headers = headers
        self._pool = pool
        self._connection: Connection | None = connection
        self._done = False
        self.content = b""

    @property
    def text(self) -> str:
        return self.content.decode(errors="replace")

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        connection = self._connection
        while connection is not None and not self._done:
            event = await connection.next_event()
            if isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, h11.EndOfMessage):
                self._done = True
            elif isinstance(event, h11.ConnectionClosed):
                raise TransportError("the server closed the connection before the end of its answer")

    async def aread(self) -> bytes:
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
            await self._pool.release(connection, keep=self._done)


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
        self._limit = trio.CapacityLimiter(MAX_CONNECTIONS)
        self._closed = False

    async def open(self, method: str, url: str, *, content: bytes = b"", headers: dict[str, str]) -> Response:
        """Send a request and return once the response's head has come (its body is streamed)."""
        origin = Origin(url)
        fields = [("host", origin.host_header), ("user-agent", USER_AGENT)]
        fields += [(name, value) for name, value in headers.items() if name.lower() not in ("host", "content-length")]
        if self.token is not None:
            token = self.token if isinstance(self.token, str) else await self.token()
            fields.append(("authorization", f"Bearer {token}"))
        if content or method in ("POST", "PUT"):
            fields.append(("content-length", str(len(content))))
        await self._limit.acquire()
        connection: Connection | None = None
        try:
            connection = await self._connection(origin)
            with trio.fail_after(self.connect_timeout):
                try:  # (head and body in one write)
                    await connection.send(
                        h11.Request(method=method, target=target_of(url), headers=fields),
                        *([h11.Data(data=content)] if content else []),
                        h11.EndOfMessage(),
                    )
                except (trio.BrokenResourceError, OSError) as exc:
                    raise TransportError(f"the connection broke: {failure_reason(exc)}") from exc
            while True:
                event = await connection.next_event()
                if isinstance(event, h11.Response):
                    break
                if isinstance(event, h11.ConnectionClosed):
                    raise TransportError("the server closed the connection without an answer")
                # (an h11.InformationalResponse, 1xx: the answer follows)
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
        headers_in = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in event.headers}
        return Response(self, connection, event.status_code, headers_in)

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
        if keep and not self._closed and connection.reusable():
            connection.h11.start_next_cycle()
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
