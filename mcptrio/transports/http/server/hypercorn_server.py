"""The endpoint on hypercorn: HTTP/1.1, and HTTP/2 over TLS (ALPN ``h2``), with years of hardening.

mcptrio accepts the connections (rfc9112.py: TLS, the connection limit, the write timeout,
the drain) and hands each to hypercorn's connection server, so a connection is held to what
mcptrio's own server holds it to.  Two things are fitted on the way, without changing hypercorn:

- the socket stream it writes on (``GuardedStream``): hypercorn sends its EOF outside its send
  lock, and a send meeting it raised ``trio.BusyResourceError`` in a task whose failure ended the
  whole process; here the EOF waits for the send.  Its writes are timed, and its close lingers;
- the app (``RequestGuard``): each request's head is checked as mcptrio's own server checks it
  (rfc9112.py) before ``McpHttpApp`` sees it, and an answer that must close its connection
  says so in HTTP/1.1 and not in HTTP/2 (which has no Connection header).  In HTTP/2 an answer
  ends only once the request's body has come, read by the app or not: hypercorn forgets a stream
  when its answer ends, and a piece of body for it then raised ``KeyError``, which took the
  connection (and ended the process when hypercorn ran on its own).  In HTTP/1.1 the app is
  offered what is already queued of the body without waiting, through the same scope extension
  the built-in server offers (``mcptrio.receive_nowait``).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any, cast

import trio
from hypercorn.config import Config
from hypercorn.trio.tcp_server import TCPServer
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ASGIFramework
from hypercorn.utils import wrap_app

from .asgi_io import Receive, Send
from .lifespan import Asgi
from .rfc9112 import LINGER, ConnectionServer, QuietLock, Watched, error_body, must_close, read_to_the_end, refusal

log = logging.getLogger("mcptrio.http")

CLOSE = (b"connection", b"close")
QUIET = 0.05  # seconds without a write before a connection hypercorn closes gets its EOF


class HypercornServer(ConnectionServer):
    """Serves one ASGI app with hypercorn's HTTP/1.1 and HTTP/2 until the trigger returns, then drains."""

    alpn = ("h2", "http/1.1")

    def __init__(self, app: Asgi, **options: Any) -> None:
        super().__init__(app, **options)
        self.config = Config()
        self.config.accesslog = None
        self.config.errorlog = logging.getLogger("mcptrio.http.hypercorn")
        self.config.include_server_header = False
        self.config.keep_alive_timeout = self.keep_alive_timeout  # (it also times the wait for a first head)
        self.config.ssl_handshake_timeout = self.header_timeout
        self.config.h11_max_incomplete_size = self.max_head_size
        self.config.h2_max_header_list_size = self.max_head_size
        self.context = WorkerContext(None)
        self.guarded = wrap_app(
            cast(ASGIFramework, RequestGuard(app, self.max_head_size, self.max_headers)),
            self.config.wsgi_max_body_size,
            "asgi",
        )

    async def handle(self, socket_stream: trio.SocketStream) -> None:
        stream = GuardedStream(socket_stream, self.connections)
        try:
            await TCPServer(self.guarded, self.config, self.context, {}, cast(Any, self.secured(stream))).run()
        except Exception:  # one connection's failure inside hypercorn must not end the server
            log.exception("hypercorn failed on a connection from %s", stream.peer)
        finally:
            self.connections.discard(stream)
            await trio.aclose_forcefully(socket_stream)

    async def close_idle(self) -> None:
        await self.context.terminated.set()  # hypercorn closes idle connections, and the others after their answer


class GuardedStream(trio.abc.HalfCloseableStream):
    """A connection's socket stream as hypercorn uses it, fitted where hypercorn's use of it fails.

    hypercorn closes a connection (EOF, then close) from whichever task meets the reason, its
    reader too, while the app's task may be writing an answer: the EOF met the send under way
    (``trio.BusyResourceError``, which ended the process) or came between an answer's head and its
    body (a truncated 200).  Here the close waits until writing has been quiet for a moment, then
    sends the EOF and lingers (rfc9112.py).  Writes are timed (``time_writes``).  And a
    connection whose client has closed is closed at once and leaves the count: hypercorn's task
    for it may wait out its keep-alive timer.
    """

    def __init__(self, stream: trio.SocketStream, connections: set[Watched]) -> None:
        self.stream = stream
        self.socket = stream.socket  # (hypercorn reads the addresses from it)
        self.connections = connections
        self.writing_since = math.inf
        self.eof = False  # the client ended its side
        self._sending = QuietLock()
        self._last_write = -math.inf
        self._receiving = 0
        self._eof_seen = trio.Event()
        self._closed: trio.Event | None = None
        connections.add(self)

    @property
    def peer(self) -> object:
        try:
            return self.socket.getpeername()
        except OSError:
            return "a client gone"

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        async with self._sending:
            self.writing_since = trio.current_time()
            try:
                await self.stream.send_all(data)
            finally:
                self.writing_since = math.inf
                self._last_write = trio.current_time()

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        """(hypercorn's, just before it closes: the close sends the EOF when the writes are out)"""

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        self._receiving += 1
        try:
            data = await self.stream.receive_some(max_bytes)
        finally:
            self._receiving -= 1
        if not data:
            self.eof = True
            self._eof_seen.set()
            self.connections.discard(self)
            if not self._sending.locked():
                self.socket.close()  # (hypercorn drops what the app writes after this)
        return data

    def abort(self) -> None:
        self.socket.close()  # (a write waiting on it fails at once)

    async def aclose(self) -> None:
        if self._closed is not None:
            await self._closed.wait()
            return
        self._closed = trio.Event()
        try:
            with trio.move_on_after(LINGER):
                if not self.eof:  # (else the client has closed: nothing to wait for)
                    await self._writes_done()
                    async with self._sending:
                        await self.stream.send_eof()
                    if self._receiving:  # hypercorn's reader reads on: wait for the client's end
                        await self._eof_seen.wait()
                    else:
                        await read_to_the_end(self)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self._closed.set()
            self.connections.discard(self)
            await trio.aclose_forcefully(self.stream)

    async def _writes_done(self) -> None:
        """Until no write is under way and none has come for QUIET seconds, nor since the close
        began: an answer's head and its body are two writes, from a task other than the one closing."""
        self._last_write = max(self._last_write, trio.current_time())
        while True:
            async with self._sending:
                pass
            wait = self._last_write + QUIET - trio.current_time()
            if wait <= 0:
                return
            await trio.sleep(wait)


class RequestGuard:
    """An ASGI app with each request's head checked first, and its answer's Connection header fitted."""

    def __init__(self, app: Asgi, max_head_size: int, max_headers: int) -> None:
        self.app = app
        self.max_head_size = max_head_size
        self.max_headers = max_headers

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = scope["headers"]
        version = scope["http_version"]
        problem = refusal(version.encode(), headers, head_size(scope), self.max_head_size, self.max_headers)
        if problem is not None:
            status, reason = problem
            body = error_body(status, reason)
            closing = [CLOSE] if version != "2" else []
            await send(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"), *closing],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        if version == "2":
            watch = BodyWatch(receive)
            await self.app(scope, watch.receive, watch.sending(send))
            return
        if must_close(headers):
            send = _closing(send)
        nowait = _queued_body(receive)
        if nowait is not None:
            scope = {**scope, "extensions": {**(scope.get("extensions") or {}), "mcptrio.receive_nowait": nowait}}
        await self.app(scope, receive, send)


def _queued_body(receive: Receive) -> Callable[[], dict[str, Any] | None] | None:
    """What hypercorn has queued for the app, without waiting: its Trio worker hands the app a
    memory channel's ``receive`` (the one place that knows it); None for any other ``receive``."""
    channel = getattr(receive, "__self__", None)
    if not isinstance(channel, trio.MemoryReceiveChannel):
        return None

    def nowait() -> dict[str, Any] | None:
        try:
            message: dict[str, Any] = channel.receive_nowait()
        except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
            return None
        return message

    return nowait


class BodyWatch:
    """A request's ASGI ``receive``, noting when its body has ended (or its client gone)."""

    def __init__(self, receive: Receive) -> None:
        self._receive = receive
        self.ended = False

    async def receive(self) -> dict[str, Any]:
        message = await self._receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.ended = True
        return message

    def sending(self, send: Send) -> Send:
        """``send`` for HTTP/2: no Connection header, and the answer's end after the request's."""

        async def http2_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {
                    **message,
                    "headers": [
                        (name, value) for name, value in message.get("headers", ()) if name.lower() != b"connection"
                    ],
                }
            elif not message.get("more_body", False) and not self.ended:
                with trio.move_on_after(LINGER):  # (the rest of a body the app did not read, dropped)
                    while not self.ended:
                        await self.receive()
            await send(message)

        return http2_send


def head_size(scope: dict[str, Any]) -> int:
    """The size of the request head as it came (HTTP/1.1 request line, header lines, blank line)."""
    query = scope.get("query_string", b"")
    size = len(scope["method"]) + len(scope.get("raw_path") or scope["path"]) + 13 + (len(query) + 1 if query else 0)
    return size + sum(len(name) + len(value) + 4 for name, value in scope["headers"]) + 2


def _closing(send: Send) -> Send:
    async def closing(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start" and CLOSE not in message.get("headers", ()):
            message = {**message, "headers": [*message.get("headers", ()), CLOSE]}
        await send(message)

    return closing
