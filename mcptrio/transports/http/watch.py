"""Watching running POSTs for a client that went away, from one supervisor instead of a task each.

While a request runs, someone must wait on the ASGI ``receive`` for ``http.disconnect`` and
cancel the request when it comes; in ``auto`` mode the same watcher turns a slow answer into an
event stream (see exchange.py), which the prober then keeps probed (probes.py), beside every
other open stream, from one task.  A task per POST for that cost about a third of an
echo call's time on the server, and almost every request is answered long before a watcher
could matter.  So a POST only *registers* here; the supervisor, one task in the endpoint's
lifespan, starts a watcher for the requests still running ``watch_after`` seconds later, and a
finished POST just unregisters.  A request answered sooner is never watched: cancelling it would
come too late to save anything.  The watcher also arms its requests' deadlines (at their
original time): a request answered before ``watch_after`` never registers one with Trio.

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
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ...protocol.events import IncomingRequest
from ...runtime.worker import CLIENT
from ..net.config import HttpConfig
from .exchange import Exchange, Sink
from .probes import Prober

if TYPE_CHECKING:
    from .legacy.sessions import HttpSession
    from .stateless_call import StatelessCall

Receive = Callable[[], Awaitable[dict[str, Any]]]


@attrs.define(slots=True, eq=False)
class Watch:
    """One POST whose request(s) may need cancelling when its client goes away."""

    receive: Receive
    core: HttpSession | StatelessCall
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
