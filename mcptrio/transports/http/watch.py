"""Watching running POSTs for a client that went away, from one supervisor instead of a task each.

While a request runs, someone must wait on the ASGI ``receive`` for ``http.disconnect`` and
cancel the request when it comes; in ``auto`` mode the same watcher turns a slow answer into an
event stream (see exchange.py), which the prober then keeps probed (below), beside every
other open stream, from one task.  A task per POST for that was a large part of an echo
call's time on the server (DESIGN.md, "How the code took this shape"), and almost every request
is answered long before a watcher could matter.  So a POST only *registers* here; the
supervisor, one task in the endpoint's lifespan, starts a watcher for the requests still running
``watch_after`` seconds later, and a finished POST just unregisters.  A request answered sooner
is never watched: cancelling it would come too late to save anything.  The watcher also arms
its requests' deadlines (at their original time): a request answered before ``watch_after``
never registers one with Trio.

The supervisor's nursery also runs the pumps that carry posted change notifications to POST
streams (``subscriptions/listen``; exchange.py) when they can't be written at once; a POST's end
closes its pump's queue.

In a legacy session, a client that goes away after an event id reached it is not cancelling:
it may resume with ``Last-Event-ID`` (2025-11-25: a disconnection "SHOULD NOT be interpreted
as the client cancelling its request").  Its request runs on, its messages go to the log, and
only ``notifications/cancelled`` or ``orphan_timeout`` without a client cancels it.  The
2026-07-28 era keeps disconnect = cancel, as its transport requires.

Without a lifespan (an ASGI server that doesn't run one), each POST watches for itself in a
nursery of its own, from the start, and probes its own stream.

The prober: comment lines on open event streams, written by one task for all of them, spread
evenly in time.

A comment (``:``) on a stream keeps proxies from closing it while it is quiet, and on a running
call's stream it shows up a client that went away without closing its connection (its host gone,
a NAT that forgot it): the write meets a reset and the server reports ``http.disconnect``.  A client
that closes its connection needs no write: the server's read sees it at once.

Why one task and not a timer per stream: a timer costs a timeout delivered through the ASGI
``receive`` and a write per probe, in pieces that run between the scheduler passes of every other
request (bench/README.md, "Fast calls among slow ones", has the figures).  Here the watchers wait
for a disconnect without a timeout, and one task, the prober, keeps the streams' turns:
running calls, each about every ``probe_interval``,
and ``subscriptions/listen`` streams, every ``keepalive_interval``.  A stream's first turn falls at
a random point of its first interval and keeps its place after, so the writes are spread evenly
however the streams arrived.  Calls' probes stay within ``max_probe_rate`` a second: with more
calls open each is probed less often, but at least every ``keepalive_interval``.  Each probe is a
task of its own, so a client that stopped reading holds up no other, and a stream whose last
write has not finished is skipped.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
from typing import TYPE_CHECKING

import attrs
import trio

from ...protocol.events import IncomingRequest
from ...runtime.core import CLIENT
from ..net.config import HttpConfig
from .exchange import Exchange, Sink
from .server.asgi_io import Receive

if TYPE_CHECKING:
    from ...runtime.core import SessionCore


@attrs.define(slots=True, eq=False)
class Watch:
    """One POST whose request(s) may need cancelling when its client goes away."""

    receive: Receive
    core: SessionCore  # the POST's legacy session, or its stateless call
    requests: list[IncomingRequest]
    exchange: Exchange
    sink: Sink  # the POST's own response: its disconnect is the one we hear
    since: float
    scope: trio.CancelScope | None = None  # the watcher's, once one runs
    over: bool = False  # the POST is finished: a watcher starting late has nothing to do

    def arm_deadlines(self) -> None:
        """From now on its requests time out (at their original deadlines): see Dispatcher.run."""
        for request in self.requests:
            self.core.dispatcher.arm_deadline(request.id)


PACE_FLOOR = 0.001  # the prober wakes at most this often (faster paces probe a few streams a wake)


class Ring:
    """Streams probed in turn, each about every ``interval``: stretched to stay within ``max_rate``
    probes a second, but never beyond ``ceiling``.  A stream's first turn is at a random point of
    the first interval, so streams that open together are probed apart."""

    def __init__(self, interval: float, max_rate: float = math.inf, ceiling: float = math.inf) -> None:
        self.base, self.max_rate, self.ceiling = interval, max_rate, ceiling
        self.members: dict[Exchange, float] = {}  # stream -> its next turn
        self._turns: list[tuple[float, int, Exchange]] = []  # a heap; turns of ended streams are skipped
        self._order = itertools.count()

    @property
    def interval(self) -> float:
        return min(self.ceiling, max(self.base, len(self.members) / self.max_rate))

    def add(self, exchange: Exchange, now: float) -> None:
        self._schedule(exchange, now + random.random() * self.interval)

    def discard(self, exchange: Exchange) -> None:
        self.members.pop(exchange, None)
        if len(self._turns) > 2 * len(self.members) + 64:  # turns of ended streams hold them: drop them now
            self._turns = [(turn, next(self._order), member) for member, turn in self.members.items()]
            heapq.heapify(self._turns)

    def due(self, now: float) -> list[Exchange]:
        """The streams whose turn has come; their next turn is one interval after this one."""
        taken = []
        while self._turns and self._turns[0][0] <= now:
            turn, _, exchange = heapq.heappop(self._turns)
            if self.members.get(exchange) == turn:
                taken.append((turn, exchange))
        interval = self.interval
        for turn, exchange in taken:
            self._schedule(exchange, turn + interval if turn + interval > now else now + interval)
        return [exchange for _, exchange in taken]

    def next_turn(self) -> float:
        turns, members = self._turns, self.members
        while turns and members.get(turns[0][2]) != turns[0][0]:
            heapq.heappop(turns)  # a stream that ended
        return turns[0][0] if turns else math.inf

    def _schedule(self, exchange: Exchange, turn: float) -> None:
        self.members[exchange] = turn
        heapq.heappush(self._turns, (turn, next(self._order), exchange))


class Prober:
    """``run`` it in a long-lived nursery; ``add`` a stream once it is open, ``discard`` it at its end."""

    def __init__(self, config: HttpConfig) -> None:
        self.calls = Ring(config.probe_interval, config.max_probe_rate, config.keepalive_interval)
        self.listens = Ring(config.keepalive_interval)
        self.running = False
        self._sleep: trio.CancelScope | None = None

    def add(self, exchange: Exchange, *, listen: bool = False) -> None:
        """Probe this stream from now on (first within one interval, then every interval)."""
        ring = self.listens if listen else self.calls
        ring.add(exchange, trio.current_time())
        if self._sleep is not None:
            self._sleep.deadline = min(self._sleep.deadline, ring.next_turn())

    def discard(self, exchange: Exchange) -> None:
        self.calls.discard(exchange)
        self.listens.discard(exchange)

    async def _probe(self, exchange: Exchange) -> None:
        # Not if its POST ended meanwhile (discard): its response may be over, and the ASGI call too.
        if exchange in self.calls.members or exchange in self.listens.members:
            await exchange.probe()

    async def run(self, nursery: trio.Nursery) -> None:
        """Probe the streams whose turn came, each in a task of ``nursery``; sleep until the next turn."""
        self.running = True
        try:
            while True:
                now = trio.current_time()
                for ring in (self.calls, self.listens):
                    for exchange in ring.due(now):
                        if not exchange.writing:
                            nursery.start_soon(self._probe, exchange)
                wake = max(now + PACE_FLOOR, min(self.calls.next_turn(), self.listens.next_turn()))
                with trio.CancelScope(deadline=wake) as self._sleep:
                    await trio.sleep_forever()
                self._sleep = None
        finally:
            self.running = False
            self._sleep = None


class Watchers:
    """The supervisor: ``run`` it in a long-lived task; ``add``/``discard`` around each POST."""

    def __init__(self, config: HttpConfig) -> None:
        self.config = config
        self.prober = Prober(config)  # the open streams' comment lines, run beside the supervisor
        self.nursery: trio.Nursery | None = None  # set while the supervisor runs
        self._waiting: dict[Watch, None] = {}  # registration order = age order
        self._wake: trio.Event | None = None

    @property
    def running(self) -> bool:
        return self.nursery is not None

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        after = self.config.watch_after
        try:
            async with trio.open_nursery() as nursery:
                self.nursery = nursery
                nursery.start_soon(self.prober.run, nursery)
                task_status.started()
                while True:
                    if not self._waiting:
                        self._wake = trio.Event()
                        await self._wake.wait()
                        self._wake = None
                    await trio.sleep(after)
                    now = trio.current_time()
                    for watch in list(self._waiting):
                        if now - watch.since < after:
                            break  # the rest are younger still
                        del self._waiting[watch]
                        nursery.start_soon(self.watch, watch)
        finally:
            self.nursery = None
            for watch in list(self._waiting):  # stopped: POSTs still registered go unwatched
                del self._waiting[watch]
                watch.arm_deadlines()  # but not without their deadlines

    def add(self, watch: Watch) -> None:
        self._waiting[watch] = None
        if self._wake is not None:
            self._wake.set()

    def discard(self, watch: Watch) -> None:
        """The POST is over: forget it, or stop its watcher (and its probes, at once)."""
        watch.over = True
        self.prober.discard(watch.exchange)
        if watch in self._waiting:
            del self._waiting[watch]  # the usual case: answered before anyone watched
        elif watch.scope is not None:
            watch.scope.cancel()

    async def watch(self, watch: Watch) -> None:
        """Turn a slow answer into a stream with probes (auto/sse modes), and cancel the
        request(s) when the client closes the response."""
        if watch.over:
            return
        watch.arm_deadlines()  # quick requests never pay for a registered deadline
        config = self.config
        exchange = watch.exchange
        stream_after = {"auto": config.stream_after, "sse": 0.0}.get(config.response_mode, math.inf)
        # A listen stream does no work that a gone client wastes: its comments keep proxies awake
        # (keepalive_interval), not probe for a disconnect twice a second.
        listen = all(request.spec.stream for request in watch.requests)
        with trio.CancelScope() as watch.scope:
            with trio.move_on_at(watch.since + stream_after) as streaming:  # (json mode: no timeout)
                await _disconnected(watch.receive)
            if streaming.cancelled_caught:  # still running: an event stream from now on, with probes
                if not exchange.done:
                    await exchange.open_stream()
                    await exchange.probe()
                if self.prober.running:
                    self.prober.add(exchange, listen=listen)
                    try:
                        await _disconnected(watch.receive)
                    finally:
                        self.prober.discard(exchange)
                else:  # no supervisor (an ASGI server without lifespan): this POST probes for itself
                    await self._probe_until_disconnected(watch, listen)
            # The client is gone (the POST's end cancels this scope instead, and nothing below runs).
            if exchange.sink is not watch.sink or exchange.done:
                # The server ended this response itself (SEP-1699 polling; a resuming GET may
                # carry the stream by now): not a cancellation.
                return
            exchange.detach(watch.sink)
            if exchange.era == "legacy" and exchange.resumable:
                # The client holds an event id: it may come back with Last-Event-ID, so a broken
                # stream is not a cancel (2025-11-25 transport); its messages go to the log.
                await self._orphaned(watch)
                return
            _cancel(watch)

    async def _probe_until_disconnected(self, watch: Watch, listen: bool) -> None:
        interval = self.config.keepalive_interval if listen else self.config.probe_interval
        while True:
            with trio.move_on_after(interval):
                await _disconnected(watch.receive)
                return
            await watch.exchange.probe()

    async def _orphaned(self, watch: Watch) -> None:
        """Cancel the request(s) once no client has carried their stream for ``orphan_timeout``
        (a resume starts the wait again at its own end); the POST's end stops this watcher."""
        exchange = watch.exchange
        while not exchange.done:
            if exchange.sink is not None or exchange.carried_elsewhere:
                await exchange.sink_changed()
                continue
            deadline = exchange.detached_at + self.config.orphan_timeout
            if trio.current_time() >= deadline:
                _cancel(watch)
                return
            with trio.move_on_at(deadline):
                await exchange.sink_changed()


async def _disconnected(receive: Receive) -> None:
    """Until the client closes its connection (the server's read for it sees that at once)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def _cancel(watch: Watch) -> None:
    for request in watch.requests:
        watch.core.dispatcher.cancel(request.id, CLIENT)
