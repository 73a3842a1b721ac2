"""The HTTP/1.1 server ``serve_http`` runs: an ASGI server on Trio, with its own request parser.

Why not hypercorn, which serves the same ASGI app (``McpHttpApp``; docs: embedding)?  Its Trio
worker, per request, starts a task for the app, passes every ASGI message through a memory
channel, stops and restarts its keep-alive timer as a task, and writes the response head apart
from the body: under it the server, not MCP, set the HTTP ceiling (bench/README.md, "mcptrio's
HTTP server against hypercorn", has the figures).

Here a connection is one task: it reads, runs the app in that same task, and writes each
response (head and body) with one ``send_all``.  rfc9112.py reads the requests (h11's
checks and a few more, at a fraction of its cost) and writes the responses; one task per server,
sweeping its connections a few times a second, closes those whose request head, or whose next
request on an idle keep-alive connection, is overdue.  A task reads on behalf of a request only
when the app waits for ``http.disconnect`` once the body is in (a request still running:
exchange.py), and stops before the connection reads the next request.  TLS, the connection
limit, the write timeout and the drain are rfc9112.py's, shared with hypercorn_server.py, and so
are the checks on a request's framing.  ``send_nowait`` (the scope extension
``mcptrio.send_nowait``) writes a piece of a streamed body from the caller's task, straight to the
socket: a change told to many listen streams costs a system call each, with no task, lock or wait
per stream.  ``park`` (the scope extension ``mcptrio.park``) lets the app give up a streamed
response that will only be written to by others: the connection's task ends without closing the
socket, which parking.py's one task watches from then on.  What is not here: HTTP/2
(hypercorn_server.py), WebSocket (transports/websocket.py).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from email.utils import formatdate
from typing import Any
from urllib.parse import unquote

import trio

from ....direct_io import plain_socket, receive_some, write_now
from ....sweeps import slices, sweep_period
from .lifespan import ASGI_VERSION
from .parking import ParkedResponse, Parking
from .rfc9112 import (
    BODY,
    CONTINUE,
    DONE,
    BadRequest,
    ConnectionServer,
    FramingError,
    Head,
    QuietLock,
    RequestParser,
    ResponseFraming,
    error_body,
    linger,
    refusal,
)

log = logging.getLogger("mcptrio.http")

MAX_RECV = 64 * 1024
# What a response's unsent bytes may grow to behind a client that reads slowly (send_nowait); past it
# the client is cut off, as the write timeout would: a change notification never waits on a reader.
MAX_UNSENT = 256 * 1024
HEAD_SWEEP = 0.25  # seconds between two looks for overdue request heads, at most (sweep_period)
DISCONNECT = {"type": "http.disconnect"}


class _Date:
    """The Date header, formatted once a second."""

    second = -1
    value = b""

    @classmethod
    def now(cls) -> bytes:
        second = int(time.time())
        if second != cls.second:
            cls.second, cls.value = second, formatdate(second, usegmt=True).encode()
        return cls.value


class Http11Server(ConnectionServer):
    """Serves one ASGI app on listeners until ``shutdown_trigger`` returns, then drains."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.parking = Parking(self.connections, MAX_UNSENT)

    def start_background(self, nursery: trio.Nursery) -> None:
        nursery.start_soon(self.parking.run)  # (cancelled at the end: the parked responses left open close)
        nursery.start_soon(self._time_heads)

    async def _time_heads(self) -> None:
        """Close every connection whose request head (or, idle, whose next request) is overdue.

        One task sweeping every connection a few times a second, rather than a deadline per
        connection moved twice a request: Trio re-registers a scope's deadline each time it moves,
        a few microseconds of every request, for a timeout that almost never fires."""
        period = sweep_period([self.header_timeout, self.keep_alive_timeout], HEAD_SWEEP)
        while True:
            await trio.sleep(period)
            now = trio.current_time()
            async for part in slices(self.connections):
                for connection in part:
                    if isinstance(connection, Connection) and connection.due <= now:
                        connection.timer.cancel()

    async def handle(self, socket_stream: trio.SocketStream) -> None:
        stream = self.secured(socket_stream)
        connection = Connection(self, stream, socket_stream)
        self.connections.add(connection)
        try:
            await connection.run()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # (a TLS handshake that failed, too)
        finally:
            self.connections.discard(connection)
            parked = connection.parked
            if parked is not None and connection.gone:
                parked.close()  # (the client left before the hand-over)
            if parked is not None and not parked.closed:  # its socket lives on without this task
                self.parking.add(parked, socket_stream.socket)
            else:
                await trio.aclose_forcefully(stream)

    async def close_idle(self) -> None:
        for connection in list(self.connections):
            if isinstance(connection, Connection):
                connection.close_when_idle()


class Connection:
    """One client's connection: requests one after the other, each answered before the next is read."""

    def __init__(self, server: Http11Server, stream: trio.abc.Stream, socket_stream: trio.SocketStream) -> None:
        self.server = server
        self.stream = stream
        self.socket_stream = socket_stream
        self.parser = RequestParser(server.max_head_size)
        self.timer = trio.CancelScope()  # cancelled when ``due`` passes (``Http11Server._time_heads``)
        self.clock = trio.lowlevel.current_clock()  # (read twice a request: one call, not trio.current_time's three)
        self.due = math.inf  # when the wait for a request head ends (+inf: none is under way)
        self.idle = True  # waiting for a request head with nothing of it read
        self.writing_since = math.inf  # when the write under way began (connections.time_writes)
        self.client = _address(socket_stream, "getpeername")
        self.local = _address(socket_stream, "getsockname")
        self.scheme = "http" if stream is socket_stream else "https"
        # Plain TCP where a socket is a file descriptor (not Windows): read and written with system
        # calls made at once, and its responses can be written to, and parked, from other tasks.
        self.plain = stream is socket_stream and plain_socket(socket_stream) is not None
        self._lock = QuietLock()
        self._nursery: trio.Nursery | None = None
        self.extensions: dict[str, object] = {"mcptrio.receive_nowait": self.receive_nowait}
        if self.plain:  # (with TLS the bytes on the socket are not the body's)
            self.extensions["mcptrio.send_nowait"] = self.send_nowait
            self.extensions["mcptrio.park"] = self.park
        self.parked: ParkedResponse | None = None  # the response it gave up, socket and all (park)
        self.unsent = bytearray()  # written by send_nowait, not yet taken by the socket (flushed by _flush)
        self._reset_request()

    def _reset_request(self) -> None:
        self.head: tuple[int, list[tuple[bytes, bytes]]] | None = None
        self.framing = ResponseFraming()
        self.keep_alive = True  # what the request allows (HTTP/1.1, no Connection: close)
        self.http11 = True
        self.sent_continue = False
        self.written = False  # some of the response went out
        self.started = False  # the app sent http.response.start
        self.done = False  # the app sent its last body
        self.body_done = False  # the request body was read to its end
        self.disconnected: trio.Event | None = None  # made when someone waits for a disconnect
        self.gone = False  # the client closed (or broke) the connection
        self.broken = False  # a write was cut: the connection can carry nothing more
        self.head_request = False  # a HEAD: the response has headers only
        self.refused: str | None = None  # why the request's body was refused (a 400 takes the app's answer's place)
        self._reader: trio.CancelScope | None = None
        self._reader_done: trio.Event | None = None

    def close_when_idle(self) -> None:
        if self.idle:
            self.timer.cancel()

    def abort(self) -> None:
        self.socket_stream.socket.close()  # (a write waiting on it fails at once)

    async def run(self) -> None:
        with self.timer:
            self.due = self.clock.current_time() + self.server.header_timeout
            if isinstance(self.stream, trio.SSLStream):
                await self.stream.do_handshake()  # (within the time a request head has)
            async with trio.open_nursery() as self._nursery:
                wait = self.server.header_timeout  # (a new connection: its first head is due)
                while True:
                    self.due = self.clock.current_time() + wait
                    wait = self.server.keep_alive_timeout
                    try:
                        head = await self._next_head()
                    except BadRequest as exc:
                        await self._refuse(exc.status, exc.reason)
                        await self._linger()
                        return
                    if head is None:
                        return  # the client is done
                    self.idle = False  # (a pipelined request came with no read: set here too)
                    self.due = math.inf
                    server = self.server
                    problem = refusal(
                        head.http_version, head.headers, head.size, server.max_head_size, server.max_headers
                    )
                    if problem is not None:
                        await self._refuse(*problem)
                        await self._linger()
                        return
                    await self._handle(head)
                    if self.parked is not None:
                        return  # the socket is the parked response's now
                    if not self._keep_alive():
                        await self._linger()
                        return
                    self.parser.next_request()
                    self._reset_request()
                    self.idle = True
                    if self.server.closing:
                        return

    async def _next_head(self) -> Head | None:
        """The next request's head; None if the client closes the connection first."""
        parser = self.parser
        head = parser.next_head()
        if head is not None:  # pipelined: the other connections get a turn first (writes don't yield)
            self.idle = False  # (it is here: the drain serves it)
            await trio.lowlevel.cancel_shielded_checkpoint()
            return head
        while True:
            data = await self._recv()
            if not data:
                return None  # (with part of a head, too: nobody is left to answer)
            if self.idle:  # a request's first bytes: its head is due within header_timeout of them
                due = self.clock.current_time() + self.server.header_timeout
                if due < self.due:
                    self.due = due
            self.idle = False
            parser.feed(data)
            head = parser.next_head()
            if head is not None:
                return head

    async def _recv(self) -> bytes:
        """The next bytes from the client (empty: it is gone).  Plain TCP is read straight from the
        socket, as it is written (``direct_io``)."""
        if self.plain:
            try:
                return await receive_some(self.socket_stream.socket, MAX_RECV)
            except (OSError, trio.BrokenResourceError, trio.ClosedResourceError):  # (reset, or closed by abort)
                return b""
        try:
            received = await self.stream.receive_some(MAX_RECV)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return b""
        return received if isinstance(received, bytes) else bytes(received)  # (TLS reads are bytearrays)

    async def _refuse(self, status: int, reason: str) -> None:
        """A request not to serve (malformed, over a limit): its status and reason, then close."""
        body = error_body(status, reason)
        head = ResponseFraming().head(
            status,
            [(b"content-type", b"text/plain; charset=utf-8")],
            body,
            head_request=False,
            http11=True,
            keep_alive=False,
            date=_Date.now(),
        )
        await self._write(head + body)

    def _keep_alive(self) -> bool:
        if self.gone or self.broken or self.refused or not self.done or self.framing.close:
            return False
        return self.parser.skip_body()  # (a body the app did not read is passed over, if it is all here)

    async def _linger(self) -> None:
        """Close gently a connection the client may still be writing to (connections.linger): one
        whose request was not read to its end, or that had sent more behind it."""
        if not self.gone and (self.refused or self.parser.state is not DONE or self.parser.buffer):
            await linger(self.stream)

    async def _handle(self, request: Head) -> None:
        target = request.target
        self.head_request = request.method == b"HEAD"
        headers = request.headers  # (lower-cased names)
        self.http11 = request.http_version == b"1.1"
        self.keep_alive = request.keep_alive
        path, _, query = target.partition(b"?")
        scope = {
            "type": "http",
            "asgi": ASGI_VERSION,
            "http_version": request.http_version.decode(),
            "method": request.method.decode(),
            "scheme": self.scheme,
            "path": unquote(path.decode("latin-1")) if b"%" in path else path.decode("latin-1"),
            "raw_path": path,
            "query_string": query,
            "root_path": "",
            "headers": headers,
            "client": self.client,
            "server": self.local,
            "extensions": self.extensions,
        }
        try:
            await self.server.app(scope, self._receive, self._send)
        except Exception:
            log.exception("the ASGI app failed on %s %s", scope["method"], scope["path"])
        finally:
            if self._reader is not None:
                self._reader.cancel()
                assert self._reader_done is not None
                with trio.CancelScope(shield=True):
                    await self._reader_done.wait()  # (it must not read once this task reads again)
        if self.refused is not None and not self.written:
            await self._refuse(400, self.refused)
            return
        if self.done or self.gone or self.broken or self.refused:
            return
        if self.written:
            self.broken = True  # the app stopped mid-response: only closing the connection ends it
        else:  # it failed, or returned, before any of its answer went out: a 500 in its place
            self.started, self.head, self.framing = False, None, ResponseFraming()
            await self._send(
                {
                    "type": "http.response.start",
                    "status": 500,
                    "headers": [(b"content-type", b"text/plain"), (b"connection", b"close")],
                }
            )
            await self._send({"type": "http.response.body", "body": b"Internal Server Error"})

    # -- the ASGI receive and send of the current request --------------------------------

    async def _receive(self) -> dict[str, Any]:
        while True:
            if self.body_done or self.gone or self.done or self.refused:
                return await self._wait_disconnect()
            message = self.receive_nowait()
            if message is not None:
                return message
            if self.parser.expects_continue and not self.sent_continue:
                self.sent_continue = True
                await self._write(CONTINUE)
            data = await self._recv()
            if not data:
                self._set_gone()
                return DISCONNECT
            self.parser.feed(data)

    def receive_nowait(self) -> dict[str, Any] | None:
        """The body that has arrived (all of it, or what there is so far), else None: no waiting.
        Apps reach it through the scope's ``extensions["mcptrio.receive_nowait"]``."""
        if self.body_done or self.gone or self.refused:
            return None
        parser = self.parser
        try:
            body = parser.read_body()
        except BadRequest as exc:  # a malformed body (bad chunking): refused with a 400
            self.refused = exc.reason
            if self.disconnected is not None:
                self.disconnected.set()
            return DISCONNECT
        self.body_done = parser.state is not BODY
        if not body and not self.body_done:
            return None
        return {"type": "http.request", "body": body, "more_body": not self.body_done}

    async def _wait_disconnect(self) -> dict[str, Any]:
        """The request is in: until the client goes away (or the response is complete, after which
        ASGI has every receive answer http.disconnect), one task reads for everyone waiting."""
        if self.disconnected is None:
            self.disconnected = trio.Event()
            if self.gone or self.done or self.refused:
                self.disconnected.set()
            else:
                self._reader, self._reader_done = trio.CancelScope(), trio.Event()
                assert self._nursery is not None
                self._nursery.start_soon(self._read_until_gone, self._reader, self._reader_done)
        await self.disconnected.wait()
        return DISCONNECT

    async def _read_until_gone(self, scope: trio.CancelScope, done: trio.Event) -> None:
        try:
            with scope:
                while True:
                    data = await self._recv()
                    if not data:
                        self._set_gone()
                        return
                    # The next request, pipelined: kept for after this one (and no more read past a head's worth).
                    self.parser.feed(data)
                    if len(self.parser.buffer) > self.server.max_head_size:
                        await trio.sleep_forever()
        finally:
            done.set()

    def _set_gone(self) -> None:
        self.gone = True
        if self.disconnected is not None:
            self.disconnected.set()

    async def _send(self, message: dict[str, Any]) -> None:
        if self.done or self.gone or self.broken or self.refused:
            return  # after the end, to a client that left or a request refused: nothing to do (as ASGI allows)
        kind = message["type"]
        if kind == "http.response.start":
            if self.started:
                raise RuntimeError("http.response.start sent twice")
            self.started = True
            self.head = (message["status"], list(message.get("headers", ())))
            return
        if kind != "http.response.body":
            return
        if not self.started:
            raise RuntimeError("http.response.body before http.response.start")
        body = message.get("body", b"")
        more = message.get("more_body", False)
        try:
            if self.head is not None:
                (status, headers), self.head = self.head, None
                keep_alive = self.keep_alive and not self.server.closing
                data = self.framing.head(
                    status,
                    headers,
                    None if more else body,
                    head_request=self.head_request,
                    http11=self.http11,
                    keep_alive=keep_alive,
                    date=_Date.now(),
                )
                data += self.framing.body(body, more)
            else:
                data = self.framing.body(body, more)
        except FramingError:
            self.broken = self.written  # (then only closing the connection can tell the client; else a 500)
            raise
        if not more:
            self.done = True
            if self.disconnected is not None:
                self.disconnected.set()
        await self._write(data)

    @property
    def streaming(self) -> bool:
        """A response's body is under way (its head sent, not ended) on a connection still sound."""
        return self.started and self.head is None and not (self.done or self.gone or self.broken or self.refused)

    def send_nowait(self, body: bytes) -> bool:
        """A piece of the body of the response under way (its head sent), written now: what the
        socket does not take at once goes out in order, before any later write, from a task
        started only then.  False, and nothing written, when it can't be so: no response is
        streaming, or a write is under way (the caller then awaits its write, behind that one).
        A client more than MAX_UNSENT bytes behind is cut off (the message is lost: True)."""
        if not self.streaming:
            return False
        if not self.unsent and self._lock.locked():  # (with bytes unsent, a flush is due: these join them)
            return False
        data = self.framing.body(body, True)
        self.written = True
        if self.unsent:
            self.unsent += data
            if len(self.unsent) > MAX_UNSENT:
                self.broken = True
                self.abort()
            return True
        sent = self._write_at_once(data)
        if sent < len(data):
            self.unsent += data[sent:]
            assert self._nursery is not None
            self._nursery.start_soon(self._flush)
        return True

    def park(self, on_gone: Callable[[], None]) -> ParkedResponse | None:
        """Give up the response under way (its head sent, nothing unsent or being written): the
        app returns, this connection's task ends, and the socket carries the response on, written
        to by whoever holds the ParkedResponse, until it ends or ``on_gone`` tells it is gone.
        None: it can't be parked (the app keeps serving it as before)."""
        parking = self.server.parking
        if not parking.running or self.parked is not None or self.server.closing:
            return None
        if not self.streaming:
            return None
        if self.unsent or self._lock.locked() or self.parser.buffer:
            return None
        self.done = True  # (to this connection, the response is over: it writes no more of it)
        self.parked = parking.park(self.socket_stream.socket.fileno(), self.framing, on_gone)
        return self.parked

    def _write_at_once(self, data: bytes) -> int:
        """Write what the socket takes now (plain TCP only), with no trip through the scheduler:
        how much it took (all of it, for a client gone: nothing more is to be written)."""
        try:
            return write_now(self.socket_stream.socket.fileno(), data)
        except OSError:  # reset, or closed by the client: its read sees the end
            self._set_gone()
            return len(data)

    async def _flush(self) -> None:
        async with self._lock:
            await self._drain()

    async def _drain(self) -> None:
        """Write the unsent bytes as the client takes them, holding the lock: what send_nowait
        writes meanwhile joins them, in order, instead of waiting for its own turn."""
        socket = self.socket_stream.socket
        while self.unsent and not (self.gone or self.broken):
            self.writing_since = trio.current_time()  # (the write timeout counts from each piece)
            try:
                sent = await socket.send(bytes(self.unsent[:MAX_RECV]))
            except (OSError, trio.ClosedResourceError):  # reset, or cut off (abort)
                self._set_gone()
                sent = len(self.unsent)
            except BaseException:
                self.broken = True  # cut mid-write (cancelled): what went out is unknown
                raise
            finally:
                self.writing_since = math.inf
            del self.unsent[:sent]

    async def _write(self, data: bytes) -> None:
        async with self._lock:
            if self.gone or self.broken or not data:
                return
            if self.unsent or (self.written and self.plain):
                # More of a streamed body (or bytes send_nowait left): through the unsent buffer, so
                # pieces written by send_nowait while this one waits on the client join it in order.
                self.unsent += data
                await self._drain()
                return
            self.written = True
            if self.plain:  # (what the socket takes now is written)
                sent = self._write_at_once(data)
                if sent == len(data):
                    return
                data = data[sent:]
            self.writing_since = trio.current_time()
            try:
                await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self._set_gone()  # (or the client took nothing for write_timeout: aborted)
            except BaseException:
                self.broken = True  # cut mid-write (cancelled): what went out is unknown
                raise
            finally:
                self.writing_since = math.inf


def _address(stream: trio.SocketStream, which: str) -> tuple[str, int] | None:
    try:
        address = getattr(stream.socket, which)()
    except OSError:
        return None
    return (address[0], address[1]) if isinstance(address, tuple) else None
