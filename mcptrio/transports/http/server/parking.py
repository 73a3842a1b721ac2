"""Parked responses: streamed responses that no task serves any more, their sockets watched by one.

A response that will only ever get pieces written to it by others (an event stream that waits for
notifications) need not keep its connection's task, parser and request alive: the app asks the
server to *park* it (the scope extension ``mcptrio.park``, http11_server.py), returns, and the
connection's task ends without closing the socket, which goes to ``Parking``.  What is left per
response is this module's ``ParkedResponse``: the socket, its framing and the bytes the client
has not taken yet.

One task watches every parked socket, through an epoll set of its own whose descriptor Trio
waits on (a task per socket waiting on it would cost what parking saves): a socket that turns
readable brings either the client's end (the response is gone: the app hears it through the
callback it gave) or bytes nobody will read (dropped), and one that turns writable takes the
bytes a write left.  Writes are made at once from the caller's task, as ``send_nowait`` makes
them; what the socket does not take goes out, in order, when it turns writable, and a client
more than ``max_unsent`` bytes behind is cut off.  The write timeout (rfc9112.py) covers parked
responses as it covers connections.  Linux only (epoll): elsewhere nothing is parked.
"""

from __future__ import annotations

import math
import os
import select
from collections.abc import Callable

import trio

from ....direct_io import read_now, write_now
from .rfc9112 import ResponseFraming, Watched

AVAILABLE = hasattr(select, "epoll")
_READ = getattr(select, "EPOLLIN", 0) | getattr(select, "EPOLLRDHUP", 0)
_WRITE = getattr(select, "EPOLLOUT", 0)
_END = getattr(select, "EPOLLHUP", 0) | getattr(select, "EPOLLERR", 0)
READ_SIZE = 64 * 1024


class ParkedResponse:
    """One parked response: ``write`` pieces of its body, ``end`` it; ``on_gone`` is called once
    when it ends for any reason (the client left, it was cut off or ended, the server stopped)."""

    __slots__ = ("fd", "framing", "unsent", "writing_since", "on_gone", "parking", "registered", "ending", "closed")

    def __init__(self, fd: int, framing: ResponseFraming, parking: Parking, on_gone: Callable[[], None]) -> None:
        self.fd = fd  # its connection's socket's until it is handed on (Parking.add), then this one's to close
        self.framing = framing
        self.unsent: bytes | bytearray = b""  # (a bytearray while some wait: appended to in place)
        self.writing_since = math.inf  # when the unsent bytes began to wait (the write timeout's)
        self.on_gone: Callable[[], None] | None = on_gone
        self.parking = parking
        self.registered = False  # handed on: in the epoll set, the descriptor this one's
        self.ending = False  # the last piece was written: close once the client has it
        self.closed = False

    @property
    def open(self) -> bool:
        return not (self.closed or self.ending)

    def write(self, body: bytes) -> None:
        """A piece of the body, written now; what the socket does not take goes out when it can."""
        if self.open:
            self._out(self.framing.body(body, True))

    def end(self, body: bytes = b"") -> None:
        """The last piece of the body; the connection closes once the client has taken it."""
        if self.open:
            self.ending = True
            self._out(self.framing.body(body, False))
            if not self.unsent:
                self.close()

    def _out(self, data: bytes) -> None:
        if self.unsent:
            self.unsent += data
            if len(self.unsent) > self.parking.max_unsent:
                self.abort()  # (the message is lost with the connection, as send_nowait's would be)
            return
        try:
            sent = write_now(self.fd, data)
        except OSError:  # reset, or closed by the client
            self.close()
            return
        if sent < len(data):
            self.unsent = bytearray(data[sent:])
            self.writing_since = trio.current_time()
            if self.registered:
                self.parking.want_write(self, True)

    def flush(self) -> None:
        """The socket takes more: write what is unsent (called by the watching task)."""
        if not self.unsent:
            self.parking.want_write(self, False)
            return
        try:
            sent = write_now(self.fd, self.unsent)
        except OSError:
            self.close()
            return
        if not sent:
            return
        unsent = self.unsent
        assert isinstance(unsent, bytearray)  # (some wait)
        del unsent[:sent]
        self.writing_since = trio.current_time() if self.unsent else math.inf
        if not self.unsent:
            self.unsent = b""
            if self.ending:
                self.close()
            else:
                self.parking.want_write(self, False)

    def read(self) -> None:
        """The socket is readable: the client's end, or bytes sent after the request (dropped)."""
        try:
            data = read_now(self.fd, READ_SIZE)
        except OSError:
            data = b""
        if data is None:
            return
        if not data:
            self.close()

    def abort(self) -> None:
        """Cut the client off at once (the write timeout, or too far behind)."""
        self.close()

    def close(self) -> None:
        """(Before it is handed on, its connection's task closes the socket as it ends.)"""
        if self.closed:
            return
        self.closed = True
        self.unsent, self.writing_since = b"", math.inf
        self.parking.forget(self)
        on_gone, self.on_gone = self.on_gone, None
        if on_gone is not None:
            on_gone()


class Parking:
    """Every parked response of a server, and the task (``run``) that watches their sockets."""

    def __init__(self, connections: set[Watched], max_unsent: int) -> None:
        self.connections = connections  # the server's (parked responses count, and the write timeout sees them)
        self.max_unsent = max_unsent
        self.responses: dict[int, ParkedResponse] = {}
        self._epoll: select.epoll | None = None

    @property
    def running(self) -> bool:
        return self._epoll is not None

    def park(self, fd: int, framing: ResponseFraming, on_gone: Callable[[], None]) -> ParkedResponse:
        """A response taken over from its connection, which hands it on with ``add`` when its task ends."""
        response = ParkedResponse(fd, framing, self, on_gone)
        self.connections.add(response)
        return response

    def add(self, response: ParkedResponse, sock: trio.socket.SocketType) -> None:
        """The connection's task ends: the socket is the response's from now on, watched here
        (or closed now, with the response, if this task has stopped)."""
        trio.lowlevel.notify_closing(sock)  # (for Trio, it is closed: its I/O manager lets go of it)
        sock.detach()  # (the connection's closing it then leaves the descriptor open)
        response.registered = True
        if self._epoll is None:
            response.close()
            return
        self.responses[response.fd] = response
        self._epoll.register(response.fd, _READ | (_WRITE if response.unsent else 0))

    def want_write(self, response: ParkedResponse, on: bool) -> None:
        if self._epoll is not None:
            self._epoll.modify(response.fd, _READ | (_WRITE if on else 0))

    def forget(self, response: ParkedResponse) -> None:
        self.connections.discard(response)
        if response.registered:
            if self.responses.pop(response.fd, None) is not None and self._epoll is not None:
                self._epoll.unregister(response.fd)
            os.close(response.fd)

    async def run(self) -> None:
        """Watch the parked sockets until cancelled; then close every one still open."""
        if not AVAILABLE:
            await trio.sleep_forever()
        self._epoll = epoll = select.epoll()
        try:
            while True:
                await trio.lowlevel.wait_readable(epoll.fileno())
                for fd, events in epoll.poll(0):
                    response = self.responses.get(fd)
                    if response is None:
                        continue
                    if events & _WRITE:
                        response.flush()
                    if events & (_READ | _END) and not response.closed:
                        if events & _END:
                            response.close()
                        else:
                            response.read()
        finally:
            for response in list(self.responses.values()):
                response.close()
            self._epoll = None
            epoll.close()
