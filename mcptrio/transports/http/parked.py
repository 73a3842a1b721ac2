"""Parked streams: acknowledged ``subscriptions/listen`` streams and legacy sessions' GET streams,
kept open with no task.

Once its acknowledgement is out, a listen stream only carries the notifications others post to
it, a comment line now and then, and at its end a closing result.  On the built-in server
(server/parking.py) it is parked: the handler, the POST and the connection's task end, and what
is left is a ``ParkedStream`` here (the server's ``ParkedResponse``, the closing result, the
stream slot it holds) and the app's listener.  Posts write the event at once; the prober writes
its comment lines beside the other streams'; shutdown and its token's expiry end it with its
closing result, as they end a stream whose handler still waits; the client's going away (the
server's one watching task sees it) frees its listener and its stream slot.

A legacy session's GET stream, once its priming event is out, is parked the same way: its
exchange (the session's standalone stream, with its event log) stays, and writes to a
``ParkedSink`` instead of the GET's; shutdown, the session's end and its token's expiry end it,
and the client's going away detaches it (what comes meanwhile waits in the log for a resume).
A resumed stream (``Last-Event-ID``) is not parked.  A server that can't park (hypercorn, TLS)
keeps each stream in its request, as before.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from typing import Any

import orjson
import trio

from ...auth.principal import ClientKey
from ..net.front_door import Capacity
from . import sse
from .exchange import Alarm, Exchange, Sink, Watchers
from .server.parking import ParkedResponse


class ParkedStream:
    """One parked listen stream: the route its notifications take once its POST is over."""

    __slots__ = ("response", "closing", "key", "on_end", "streams")

    def __init__(self, streams: ParkedStreams, closing: bytes, key: ClientKey, on_end: Callable[[], None]) -> None:
        self.response: ParkedResponse | None = None
        self.closing = closing  # the closing result's event
        self.key = key  # whose stream slot it holds
        self.on_end: Callable[[], None] | None = on_end
        self.streams = streams

    def post(self, message: Any) -> None:
        if self.response is not None:
            self.response.write(sse.event(orjson.dumps(message)))

    async def deliver(self, message: dict[str, Any] | list[Any]) -> None:
        self.post(message)

    @property
    def writing(self) -> bool:
        return self.response is not None and bool(self.response.unsent)

    async def probe(self) -> None:
        if self.response is not None:
            self.response.write(sse.COMMENT)

    def close(self) -> None:
        """End the stream with its closing result (shutdown, its token expired)."""
        if self.response is not None:
            self.response.end(self.closing)

    def gone(self) -> None:
        """The response ended (closed here, the client left, or it was cut off)."""
        on_end, self.on_end = self.on_end, None
        if on_end is None:
            return
        self.response = None
        self.streams.forget(self)
        on_end()


class ParkedSink(Sink):
    """A parked GET stream's sink: its exchange writes to it as to the GET's, and the pieces go to
    the parked response."""

    def __init__(self, response: ParkedResponse) -> None:
        super().__init__(self._send_parked)
        self.response = response
        self.started = True
        self.send_nowait = self._write_nowait

    async def _send_parked(self, message: dict[str, Any]) -> None:
        body = message.get("body", b"")
        if message.get("more_body", False):
            self.response.write(body)
        else:
            self.response.end(body)

    def _write_nowait(self, data: bytes) -> bool:
        self.response.write(data)  # (gone: the log has it for a resume)
        return True


class ParkedStreams:
    """A worker's parked streams; ``run`` it in a long-lived task (their tokens' expiry)."""

    def __init__(self, capacity: Capacity, watchers: Watchers) -> None:
        self.capacity = capacity
        self.watchers = watchers
        self.prober = watchers.prober
        self.streams: dict[ParkedStream, None] = {}
        self.gets: dict[object, ParkedStream] = {}  # a legacy session -> its parked GET stream
        self._expiring: list[tuple[float, int, ParkedStream]] = []  # a heap; ended streams are skipped
        self._order = itertools.count()
        self._alarm = Alarm()
        self.running = False
        self.closing = False  # shutdown began: streams stay with their requests, which the drain ends

    def park(
        self, exchange: Exchange, key: ClientKey, closing: dict[str, Any], expires: float, on_end: Callable[[], None]
    ) -> ParkedStream | None:
        """Park the exchange's open stream (``Exchange.park``), which holds ``key``'s stream slot
        from now on; None when it can't be."""
        if not self.running or self.closing or not self.prober.running:
            return None
        stream = ParkedStream(self, sse.event(orjson.dumps(closing)), key, on_end)
        response = exchange.park(stream.gone)
        if response is None:
            return None
        stream.response = response
        self._add(stream, expires)
        self.prober.add(stream, listen=True)
        return stream

    def park_get(
        self,
        session: object,
        exchange: Exchange,
        sink: Sink,
        key: ClientKey,
        expires: float,
        on_end: Callable[[], None],
    ) -> bool:
        """Park a legacy session's GET stream (its exchange quiet, its priming out), which holds
        ``key``'s stream slot from now on; False when it can't be."""
        nursery = self.watchers.nursery
        if not self.running or self.closing or not self.prober.running or nursery is None or not exchange.quiet:
            return False

        def ended() -> None:
            exchange.detach(parked)
            self.prober.discard(exchange)
            self.gets.pop(session, None)
            on_end()

        stream = ParkedStream(self, b"", key, ended)
        response = sink.hand_over(stream.gone)
        if response is None:
            return False
        stream.response = response
        parked = ParkedSink(response)
        exchange.attach(parked, nursery)
        self.gets[session] = stream
        self._add(stream, expires)
        self.prober.add(exchange, listen=True)
        return True

    def end_get(self, session: object) -> None:
        """The session ended: its parked GET stream, if it has one, ends too."""
        stream = self.gets.get(session)
        if stream is not None:
            stream.close()

    def _add(self, stream: ParkedStream, expires: float) -> None:
        self.streams[stream] = None
        if expires < math.inf:
            heapq.heappush(self._expiring, (expires, next(self._order), stream))
            self._alarm.sooner(expires)

    def forget(self, stream: ParkedStream) -> None:
        del self.streams[stream]
        self.prober.discard(stream)
        self.capacity.close_stream(stream.key)

    def close_all(self) -> None:
        """Shutdown: every parked stream ends with its closing result."""
        self.closing = True
        for stream in list(self.streams):
            stream.close()

    async def run(self) -> None:
        """End each stream whose token expired, with its closing result; until cancelled."""
        self.running = True
        try:
            while True:
                expiring, now = self._expiring, trio.current_time()
                while expiring and (expiring[0][0] <= now or expiring[0][2] not in self.streams):
                    _, _, stream = heapq.heappop(expiring)
                    stream.close()  # (one that ended already: nothing)
                await self._alarm.sleep_until(expiring[0][0] if expiring else math.inf)
        finally:
            self.running = False
            self._alarm.stop()
