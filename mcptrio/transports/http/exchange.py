"""A POST's exchange: one HTTP response as the route of a request's messages (a JSON body, or an
SSE stream), and the watch over its client while the request runs.

In ``auto`` mode the answer goes out as JSON when it is the first thing to send; anything sent
before it (progress, logs, server→client requests), or a request still running after
``stream_after`` seconds, turns the response into an event stream.  An open stream gets comment
lines (the prober, below): they keep proxies awake and reveal a client that vanished without
closing its connection, which the server then reports as ``http.disconnect`` and the request is
cancelled.
Whether a client takes the answer's forms at all is its Accept header's (``accepts``).

The watch: running POSTs watched for a client that went away, from one supervisor instead of a
task each.  While a request runs, someone must wait on the ASGI ``receive`` for
``http.disconnect`` and cancel the request when it comes; in ``auto`` mode the same watcher turns
a slow answer into an event stream (above), which the prober then keeps probed (below), beside
every other open stream, from one task.  A task per POST for that was a large part of an echo
call's time on the server (DESIGN.md, "How the code took this shape"), and almost every request
is answered long before a watcher could matter.  So a POST only *registers* here; the
supervisor, one task in the endpoint's lifespan, starts a watcher for the requests still running
``watch_after`` seconds later, and a finished POST just unregisters.  A request answered sooner
is never watched: cancelling it would come too late to save anything.  The watcher also arms
its requests' deadlines (at their original time): a request answered before ``watch_after``
never registers one with Trio.

The supervisor's nursery also runs the pumps that carry posted change notifications to POST
streams (``subscriptions/listen``) when they can't be written at once; a POST's end
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
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import attrs
import orjson
import trio

from ...auth.principal import ClientKey, Principal
from ...protocol import errors
from ...protocol.events import IncomingRequest, RequestId
from ...runtime.core import CLIENT
from ..net.config import HttpConfig
from . import sse
from .event_log import EventLog
from .server.asgi_io import Receive
from .server.parking import ParkedResponse
from .server.rfc9112 import QuietLock

if TYPE_CHECKING:
    from ...runtime.core import SessionCore

AsgiSend = Callable[[dict[str, Any]], Awaitable[None]]
JSON_HEADERS = [(b"content-type", b"application/json")]


def accepts(headers: dict[bytes, bytes], *types: bytes) -> bool:
    """Does the request's Accept header take every one of ``types`` (``*/*``, or none sent: yes)?"""
    accept = headers.get(b"accept", b"*/*").lower()
    if b"*/*" in accept:
        return True
    for media_type in types:
        if media_type not in accept:
            return False
    return True


class Sink:
    """The ASGI ``send`` of one HTTP response, serialised, tolerant of a vanished client."""

    def __init__(self, send: AsgiSend) -> None:
        self._send = send
        self._lock = QuietLock()
        self.started = False
        self.ended = False
        self.body_read = False  # the request body was consumed (else an error must close the connection)
        self.unread_body = False  # the request declared a body (Content-Length > 0 or chunked)
        self._held = b""  # goes out with the next write
        self._head: tuple[int, list[tuple[bytes, bytes]]] | None = None  # a start held for the first write
        # Set by a POST's own task, which sends the request's final answer as it unwinds (send_final):
        # the writes then suspend that task at the top of its call chain, not twenty frames down.
        self.owner_sends_final = False
        self.client_address: str | None = None  # the peer's address (ASGI scope["client"]), if known
        self.principal: Principal | None = None  # who the request's bearer token says sent it (with authorization)
        self.request_headers: dict[bytes, bytes] = {}  # the request's, for ctx.http (a POST's)
        # The server's "the body so far, without waiting" (scope extension mcptrio.receive_nowait), if it has one.
        self.receive_nowait: Callable[[], dict[str, Any] | None] | None = None
        # The server's "write this piece of the streamed body now" (mcptrio.send_nowait), if it has one.
        self.send_nowait: Callable[[bytes], bool] | None = None
        # The server's "take this streamed response off the app's hands" (mcptrio.park), if it has one.
        self.park: Callable[[Callable[[], None]], ParkedResponse | None] | None = None
        self._final: list[dict[str, Any]] = []

    async def start(self, status: int, headers: list[tuple[bytes, bytes]]) -> None:
        async with self._lock:
            if self.started:
                return
            await self._send({"type": "http.response.start", "status": status, "headers": headers})
            self.started = True

    def hold_start(self, status: int, headers: list[tuple[bytes, bytes]]) -> None:
        """Start the response with its first write, with a Content-Length when that write is also
        the last: a quick answer on an event stream then costs the writes a JSON answer does
        (no chunked encoding, no separate terminator)."""
        if not self.started:
            self.started = True
            self._head = (status, headers)

    async def write(self, data: bytes, *, end: bool = False, final: bool = False) -> None:
        """Send ``data`` (and what is held); ``final``: it is the request's answer (see send_final)."""
        async with self._lock:
            if self.ended:
                return
            self.ended = end
            if self._held:
                data, self._held = self._held + data, b""
            messages = []
            if self._head is not None:
                (status, headers), self._head = self._head, None
                if end:
                    headers = headers + [(b"content-length", str(len(data)).encode())]
                messages.append({"type": "http.response.start", "status": status, "headers": headers})
            messages.append({"type": "http.response.body", "body": data, "more_body": not end})
            await self._emit(messages, final and end)

    @property
    def _idle(self) -> bool:
        """The stream is open (its head out) and nothing of it is held back or being written."""
        return self.started and self._head is None and not self._held and not self.ended and not self._lock.locked()

    def write_nowait(self, data: bytes) -> bool:
        """Write ``data`` on the open stream without waiting, if the server can (and nothing of this
        response is being written or held back); False: nothing written, ``write`` it instead."""
        send_nowait = self.send_nowait
        return send_nowait is not None and self._idle and send_nowait(data)

    def hand_over(self, on_gone: Callable[[], None]) -> ParkedResponse | None:
        """Park the open stream with the server (nothing of it held back or being written): this
        response is then over for the app, and the ParkedResponse carries its socket on."""
        park = self.park
        if park is None or not self._idle:
            return None
        parked = park(on_gone)
        if parked is not None:
            self.ended = True
        return parked

    def hold(self, data: bytes) -> None:
        """Send ``data`` with the next write instead of on its own (one socket write fewer)."""
        self._held += data

    async def flush(self) -> None:
        """Send what is held (the start, the priming event) now."""
        if self._held or self._head is not None:
            await self.write(b"")

    async def respond(
        self, status: int, body: bytes, headers: list[tuple[bytes, bytes]], *, final: bool = False
    ) -> None:
        """The whole response at once (nothing was started): status, headers and a sized body."""
        headers = headers + [(b"content-length", str(len(body)).encode())]
        if self.unread_body and not self.body_read and (b"connection", b"close") not in headers:
            # Answered before its body was read: the connection can't carry another request.
            headers.append((b"connection", b"close"))
        async with self._lock:
            if self.started:
                return
            self.started = self.ended = True
            await self._emit(
                [
                    {"type": "http.response.start", "status": status, "headers": headers},
                    {"type": "http.response.body", "body": body, "more_body": False},
                ],
                final,
            )

    async def _emit(self, messages: list[dict[str, Any]], final: bool) -> None:
        if final and self.owner_sends_final:
            self._final = messages
            return
        for message in messages:
            await self._send(message)

    async def send_final(self) -> None:
        """The owner's task, at the end of its work: send the answer its request left (if any).

        Every nested ``await`` between a task's top frame and the one that suspends is paid
        again at each trip through the scheduler, and the server's writes make four or five per
        answer; sent from here, a POST's answer costs them at the depth of a bare ASGI app.
        """
        messages, self._final = self._final, []
        for message in messages:
            await self._send(message)


RETRY_STATUS = {errors.RATE_LIMITED: 429, errors.UNAVAILABLE: 503}


def retry_headers(message: Any, status: int) -> list[tuple[bytes, bytes]]:
    """``Retry-After`` (whole seconds, rounded up) for a 429 or 503 whose error has ``data.retryAfter``."""
    if status not in (429, 503):
        return []
    data = message["error"].get("data")
    seconds = data.get("retryAfter") if isinstance(data, dict) else None
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        return []
    return [(b"retry-after", str(max(1, math.ceil(seconds))).encode())]


def status_for(message: Any, era: str, protocol_level: bool) -> int:
    """HTTP status of a JSON-RPC answer sent as a plain JSON body before any streaming.

    ``protocol_level``: the error came from the envelope/era checks, before any handler ran.
    """
    if not isinstance(message, dict) or "error" not in message:
        return 200
    code = message["error"].get("code")
    if code in RETRY_STATUS:
        return RETRY_STATUS[code]  # rate limited or unavailable: a status proxies and clients act on
    if era == "modern" and code in (-32020, -32021, -32022):
        return 400  # the spec requires 400 for these wherever they arise
    if not protocol_level:
        return 200
    if code in (-32700, -32600):
        return 400
    if era == "modern":
        if code == -32601:
            return 404
        if code == -32602:
            return 400
    return 200


class Exchange:
    """The route of one POST's request(s), or of a legacy session's standalone GET stream."""

    def __init__(
        self,
        sink: Sink | None,
        config: HttpConfig,
        *,
        era: str,
        headers: list[tuple[bytes, bytes]],
        log: EventLog | None = None,
        priming: bool = False,
        error_status: bool = True,
        standalone: bool = False,
    ) -> None:
        self.sink = sink
        self.config = config
        self.era = era
        self.headers = headers
        self.log = log
        self.stream = log.new_stream(standalone) if log is not None else 0
        self.priming = priming
        self.error_status = error_status  # protocol-level errors map to 4xx while nothing was sent
        self._seq = 0
        self.done = False  # the final answer was sent (or the stream was ended)
        self.nursery: trio.Nursery | None = None  # where a pump for posted messages may run
        self.on_stream: Callable[[Exchange], None] | None = None  # called once, when the SSE stream opens
        # Held across "JSON or SSE?", opening the stream and each event: messages of concurrent
        # workers (and probes) never interleave with the response start.
        self._lock = QuietLock()
        self._posted: trio.MemorySendChannel[Any] | None = None
        self._queued = 0  # posted messages the pump has not written yet (none: post writes at once)
        # An event id reached the client (priming, event): it can resume this stream after a
        # disconnect, which is then not a cancellation (legacy sessions; see the watch, below).
        self.resumable = False
        self.request_id: RequestId | None = None  # the request this stream answers (one; not a batch's)
        self.carried_elsewhere = False  # a client follows this stream from another worker (shared state)
        self.detached_at = 0.0  # when the last client carrying this stream went away
        self._sink_change: trio.Event | None = None
        self.slot: ClientKey | None = None  # the stream slot its listen stream holds (asgi.py): it may park
        self.parked = False  # handed to the server: its POST ends, the stream does not

    async def deliver(self, message: Any) -> None:
        """Send one message for this route; a response (or a batch array) is the final one."""
        async with self._lock:
            await self._deliver(message)

    async def _deliver(self, message: Any) -> None:
        if self.done:
            return
        final = isinstance(message, list) or "method" not in message
        data = orjson.dumps(message)
        sink = self.sink
        if sink is not None and not sink.started and self.config.response_mode != "sse":
            if final:
                status = status_for(message, self.era, self.error_status)
                await sink.respond(
                    status, data, JSON_HEADERS + self.headers + retry_headers(message, status), final=True
                )
                self.done = True
                return
            if self.config.response_mode == "json":
                return  # JSON-only mode has no place for notifications
        await self._open_stream()
        event_id = self._record(data, final)
        if self.sink is not None:
            await self.sink.write(sse.event(data, event_id), end=final, final=final)
            self.resumable = self._seq > 0
        if final:
            self.done = True

    def park(self, on_gone: Callable[[], None]) -> ParkedResponse | None:
        """Hand the open stream to the server, if nothing of it is queued or being written (a
        stateless stream only: a legacy one may be resumed); from then on this exchange is done
        and the POST can end.  None: not possible here, the stream stays this POST's."""
        sink = self.sink
        if self.slot is None or sink is None or self.log is not None or not self.quiet:
            return None
        parked = sink.hand_over(on_gone)
        if parked is not None:
            self.done = self.parked = True
            self.sink = None
        return parked

    def _record(self, data: bytes, final: bool = False) -> str | None:
        """Put an event in the session's log (legacy); its id, or None when there is no log."""
        if self.log is None:
            return None
        self._seq += 1
        self.log.append(self.stream, self._seq, data, final, self.request_id)
        return f"{self.stream}-{self._seq}"

    def post(self, message: Any) -> None:
        """Send a notification that must never wait on this client (change notifications).

        It is logged first (legacy sessions), so nothing posted is lost to a resuming client.
        It is written at once when the server can (``Sink.write_nowait``: no other write of this
        stream under way or queued), else queued for a pump task.  Both are bounded: a client that
        stops reading gets its stream ended instead of growing the server's memory; with no
        client attached the message only goes to the log.
        """
        if self.done:
            return
        data = orjson.dumps(message)
        event_id = self._record(data)
        sink = self.sink
        if not self._queued and sink is not None and not self._lock.locked():
            if sink.write_nowait(sse.event(data, event_id)):  # the usual case: no task, no queue
                self.resumable = self._seq > 0
                return
        if self._posted is None:
            if self.sink is None or self.nursery is None:
                return
            self._posted, receive = trio.open_memory_channel[Any](self.config.stream_buffer)
            self.nursery.start_soon(self._pump, receive, self.sink, self._posted)
        try:
            self._posted.send_nowait((data, event_id))
            self._queued += 1
        except (trio.WouldBlock, trio.ClosedResourceError):
            self._posted.close()  # the pump ends the stream once it drains what it has

    async def _pump(
        self, posted: trio.MemoryReceiveChannel[Any], sink: Sink, queue: trio.MemorySendChannel[Any]
    ) -> None:
        async for data, event_id in posted:
            try:
                async with self._lock:
                    if self.sink is not sink or self.done:
                        return
                    await self._open_stream()
                    event = sse.event(data, event_id)
                    if not sink.write_nowait(event):  # (a slow client's socket: not waited on while it can be)
                        await sink.write(event)
                    self.resumable = self._seq > 0
            finally:
                if self._posted is queue:  # (a queue let go of took its count along)
                    self._queued -= 1
        if not self.done:
            await self.close_stream()  # the queue overflowed: this client stopped reading

    def release(self) -> None:
        """The POST that carried this exchange is over: keep no reference to its HTTP machinery
        (a resumable exchange stays in the session's table for Last-Event-ID)."""
        if self.sink is not None and self.sink.ended:
            self.sink = None
        self.nursery = None
        if self._posted is not None:
            self._posted.close()  # its pump may run in a longer-lived nursery (the watch, below): end it
            self._posted, self._queued = None, 0

    def attach(self, sink: Sink, nursery: trio.Nursery) -> None:
        """A client's GET now carries this stream; posted messages flow through ``nursery``."""
        self.sink, self.nursery = sink, nursery

    def detach(self, sink: Sink) -> None:
        """That response ended (a GET, or a POST whose client went away): forget it, and the
        queue that fed it (the log keeps the events)."""
        if self.sink is sink:
            self.sink = None
            self.detached_at = trio.current_time()
            self._sink_changed()
        self.nursery = None
        if self._posted is not None:
            self._posted.close()
            self._posted, self._queued = None, 0

    async def open_stream(self) -> None:
        """Start the SSE response now (idempotent)."""
        async with self._lock:
            await self._open_stream()

    async def _open_stream(self) -> None:
        sink = self.sink
        if sink is None or sink.started:
            return
        if self.on_stream is not None:
            self.on_stream(self)
        sink.hold_start(200, sse.SSE_HEADERS + self.headers)  # sent with the first event or probe
        if self.priming and self.log is not None:
            self._seq += 1
            self.log.append(self.stream, self._seq, b"", False, self.request_id)
            # It leaves with the first event, probe or end of the stream, whichever comes first.
            sink.hold(sse.priming(f"{self.stream}-{self._seq}", self.config.retry_ms))

    @property
    def quiet(self) -> bool:
        """Nothing of it is queued or being written (it may change hands: parked.py)."""
        return not self._queued and not self._lock.locked()

    @property
    def writing(self) -> bool:
        """A message or probe is being written now (to a client that may have stopped reading)."""
        return self._lock.locked()

    async def probe(self) -> None:
        """A comment line on an open stream (keeps proxies awake, reveals a vanished client);
        written at once when it can be, so it holds no lock while a slow client takes it."""
        sink = self.sink
        if sink is not None and not self._queued and not self._lock.locked() and sink.write_nowait(sse.COMMENT):
            self.resumable = self._seq > 0
            return
        async with self._lock:
            if self.sink is not None and self.sink.started and not self.sink.ended:
                await self.sink.write(sse.COMMENT)  # (with the held priming event, if any)
                self.resumable = self._seq > 0

    async def close_stream(self) -> None:
        """The server ends this HTTP response early; later messages wait in the log for a resume."""
        async with self._lock:
            sink, self.sink = self.sink, None
            if sink is not None and sink.started:
                await sink.write(b"", end=True)

    async def resume(self, sink: Sink, after_seq: int) -> None:
        """A client reconnected with Last-Event-ID: replay what it missed, then continue live."""
        assert self.log is not None
        async with self._lock:  # no event can slip between the replay and going live
            await sink.start(200, sse.SSE_HEADERS + self.headers)
            while True:
                missed = self.log.after(self.stream, after_seq)
                if not missed:
                    break  # caught up; nothing awaits between this check and going live
                for event_id, data in missed:
                    after_seq = int(event_id.rsplit("-", 1)[1])
                    if data:
                        await sink.write(sse.event(data, event_id))
            if self.done:
                await sink.write(b"", end=True)
            else:
                await sink.write(b"")  # the head now, if nothing was missed: the stream may stay quiet
                self.sink = sink
                self.resumable = True
                self._sink_changed()

    def carried(self, on: bool) -> None:
        """Another worker started (or stopped) carrying this stream to a resumed client."""
        self.carried_elsewhere = on
        if not on:
            self.detached_at = trio.current_time()
        self._sink_changed()

    def _sink_changed(self) -> None:
        if self._sink_change is not None:
            self._sink_change.set()
            self._sink_change = None

    async def sink_changed(self) -> None:
        """Wait until a client resumes this stream or the one carrying it goes away."""
        if self._sink_change is None:
            self._sink_change = trio.Event()
        await self._sink_change.wait()

    async def finish(self) -> None:
        """No final answer will come (cancelled): end whatever was started."""
        async with self._lock:
            self.done = True
            sink = self.sink
            if sink is None or sink.ended:
                return
            if not sink.started:
                await sink.respond(202, b"", self.headers)
            else:
                await sink.write(b"", end=True)


# -- the watch --------------------------------------------------------------------------------------


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


class Probed(Protocol):
    """An open stream as the prober sees it (an Exchange, or a parked listen stream: parked.py)."""

    @property
    def writing(self) -> bool:
        """A write to it has not finished (its probe is skipped)."""

    async def probe(self) -> None:
        """Write a comment line."""


class Alarm:
    """A task's sleep until a deadline that others may bring forward (``sooner``)."""

    def __init__(self) -> None:
        self._scope: trio.CancelScope | None = None

    async def sleep_until(self, deadline: float) -> None:
        with trio.CancelScope(deadline=deadline) as self._scope:
            await trio.sleep_forever()
        self._scope = None

    def sooner(self, deadline: float) -> None:
        """Wake the sleeper by ``deadline`` at the latest (if it sleeps now)."""
        if self._scope is not None:
            self._scope.deadline = min(self._scope.deadline, deadline)

    def stop(self) -> None:
        self._scope = None


PACE_FLOOR = 0.001  # the prober wakes at most this often (faster paces probe a few streams a wake)


class Ring:
    """Streams probed in turn, each about every ``interval``: stretched to stay within ``max_rate``
    probes a second, but never beyond ``ceiling``.  A stream's first turn is at a random point of
    the first interval, so streams that open together are probed apart."""

    def __init__(self, interval: float, max_rate: float = math.inf, ceiling: float = math.inf) -> None:
        self.base, self.max_rate, self.ceiling = interval, max_rate, ceiling
        self.members: dict[Probed, float] = {}  # stream -> its next turn
        self._turns: list[tuple[float, int, Probed]] = []  # a heap; turns of ended streams are skipped
        self._order = itertools.count()

    @property
    def interval(self) -> float:
        return min(self.ceiling, max(self.base, len(self.members) / self.max_rate))

    def add(self, exchange: Probed, now: float) -> None:
        self._schedule(exchange, now + random.random() * self.interval)

    def discard(self, exchange: Probed) -> None:
        self.members.pop(exchange, None)
        if len(self._turns) > 2 * len(self.members) + 64:  # turns of ended streams hold them: drop them now
            self._turns = [(turn, next(self._order), member) for member, turn in self.members.items()]
            heapq.heapify(self._turns)

    def due(self, now: float) -> list[Probed]:
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

    def _schedule(self, exchange: Probed, turn: float) -> None:
        self.members[exchange] = turn
        heapq.heappush(self._turns, (turn, next(self._order), exchange))


class Prober:
    """``run`` it in a long-lived nursery; ``add`` a stream once it is open, ``discard`` it at its end."""

    def __init__(self, config: HttpConfig) -> None:
        self.calls = Ring(config.probe_interval, config.max_probe_rate, config.keepalive_interval)
        self.listens = Ring(config.keepalive_interval)
        self.running = False
        self._alarm = Alarm()

    def add(self, exchange: Probed, *, listen: bool = False) -> None:
        """Probe this stream from now on (first within one interval, then every interval)."""
        ring = self.listens if listen else self.calls
        ring.add(exchange, trio.current_time())
        self._alarm.sooner(ring.next_turn())

    def discard(self, exchange: Probed) -> None:
        self.calls.discard(exchange)
        self.listens.discard(exchange)

    async def _probe(self, exchange: Probed) -> None:
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
                await self._alarm.sleep_until(
                    max(now + PACE_FLOOR, min(self.calls.next_turn(), self.listens.next_turn()))
                )
        finally:
            self.running = False
            self._alarm.stop()


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
        if watch in self._waiting:
            del self._waiting[watch]  # the usual case: answered before anyone watched (or probed) it
            return
        self.prober.discard(watch.exchange)
        if watch.scope is not None:
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
