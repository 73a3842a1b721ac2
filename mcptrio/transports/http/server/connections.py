"""What both HTTP servers do around their connections, whichever parses the bytes (h11_server.py,
hypercorn_server.py): run the app's lifespan, accept connections (with TLS when configured) up to
a limit and refuse the next with a 503, keep one connection's writes in order (``QuietLock``),
close a connection whose client stops taking what is written to it, and at shutdown stop
accepting, close the idle connections and give the busy ones a grace period.
"""

from __future__ import annotations

import logging
import math
import ssl
from collections.abc import Awaitable, Callable, Iterable
from types import TracebackType
from typing import Protocol

import trio
from trio.lowlevel import ParkingLot

from .lifespan import Asgi, run_lifespan

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

    async def serve(
        self,
        listeners: list[trio.SocketListener],
        shutdown_trigger: Callable[[], Awaitable[object]],
        task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        async with trio.open_nursery() as outer:
            lifespan = await outer.start(run_lifespan, self.app)
            outer.start_soon(time_writes, self.connections, self.write_timeout)
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
