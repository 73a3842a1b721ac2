"""What every kind of session shares, whatever carries its bytes: the protocol state, the legacy
server→client calls, the routing of outgoing messages, and the dispatcher, whose workers run each
request in a cancel scope.

A *route* is the transport's handle for where a request's messages go: nothing on stdio (one
stream carries everything), the POST exchange on HTTP.  Messages for no request go to route None.

The worker turns a handler's outcome into a message: its result, or what is JSON-RPC's to say
(an ``McpError`` it raised, an internal error for anything else, the answer to a deadline or a
shutdown), or nothing at all when the client cancelled the request.  How a handler's own failures
are answered is the host's business (an App's: ``app/pipeline.py``), and so is what a request
that ran out of time answers, if not the JSON-RPC error.  No traceback text ever reaches the
client; it goes to the log.

Stream sessions (stdio, memory, WebSocket, legacy SSE) keep their workers, because starting a
Trio task, switching to it and entering a cancel scope with a deadline cost four times what the
rest of an echo call does.  The reader appends each request to ``pending``; one worker at a time
takes them in order, under a cancel scope only it uses, for as long as each handler answers
without waiting for anything.  The moment a handler is about to wait, its worker keeps that
request alone and another worker (a waiting one, else a new one) takes up the rest, so no
request waits for another's handler, exactly as with a task per request; a handler that never
waits could not have been interleaved with anything anyway.  A cancelled request spends the
scope (the worker takes a fresh one).  Each request still runs in a copy of the reader's
context variables (``in_context``), and its deadline is put on the scope when its handler first
waits (one that never waits cannot be cancelled).  Every ``ANSWERS_PER_TURN`` answers the
worker lets the scheduler run the writer, so that a burst's first answers are on their way while
the rest are made.  An answer that must wait for room in the outbox is sent outside the scope,
as over HTTP, where ``run`` serves a request in the POST's own task.
"""

from __future__ import annotations

import collections
import contextvars
import logging
import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import outcome
import trio
from trio.lowlevel import Abort, Task, current_task, reschedule, wait_task_rescheduled

from ..protocol import errors
from ..protocol.errors import McpError
from ..protocol.events import Cancel, ClientReply, Dispatch, IncomingRequest, Notified, RequestId, Route, Send
from ..protocol.session import META_SUBSCRIPTION_ID, ServerProtocol, error_message
from .client_calls import ClientCalls
from .in_context import run_in_context
from .limits import SessionLimits

if TYPE_CHECKING:
    from .host import Host

log = logging.getLogger("mcptrio.worker")

CLIENT, DEADLINE, SHUTDOWN = "client", "deadline", "shutdown"

# Workers kept waiting for the next request; one finishing while as many wait, ends.
IDLE_WORKERS = 64
# Answers a worker queues before it lets the writer send them: the peer reads them (and sends more)
# while the rest of a burst is being answered, instead of waiting idle for the whole burst.
ANSWERS_PER_TURN = 16
WORKER_NAME = "mcptrio.worker"


class _Handle:
    """A request in flight: the scope that cancels it, and why it was cancelled."""

    __slots__ = ("scope", "stream", "deadline", "cancelled_by", "armed")

    def __init__(self, scope: trio.CancelScope | None, stream: bool, deadline: float) -> None:
        self.scope = scope  # a pooled request's: its worker's, from when the worker takes it
        self.stream = stream  # (subscriptions/listen: closed first at shutdown)
        self.deadline = deadline  # the request's own; its scope has it once armed
        self.cancelled_by: str | None = None
        self.armed = False  # (pooled) the deadline is on the worker's scope

    def arm(self) -> None:
        """Put the request's deadline on its worker's scope (its handler is about to wait)."""
        if self.deadline < math.inf and self.scope is not None:
            self.scope.deadline = self.deadline
            self.armed = True


class _Worker:
    """A stream session's worker: whether it is taking the pending requests, and the one it serves."""

    __slots__ = ("dispatcher", "task", "taking", "handle", "abort")

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher
        self.task = current_task()
        self.taking = True  # (started to take them)
        self.handle: _Handle | None = None

        def abort(_: Any) -> Abort:  # cancelled while idle (the session is ending)
            dispatcher._waiting.remove(self.task)
            return Abort.SUCCEEDED

        self.abort = abort

    def suspending(self) -> None:
        """The handler of its request is about to wait for the first time: its deadline starts to
        count, and another worker takes the pending requests."""
        assert self.handle is not None
        self.handle.arm()
        self.dispatcher._hand_over(self)


class Dispatcher:
    """Hands each request to a worker and cancels them by request id; never awaits handler work."""

    def __init__(self, session: SessionCore) -> None:
        self.session = session
        self.nursery: trio.Nursery | None = None  # where stream sessions' workers run
        self._handles: dict[RequestId, _Handle] = {}
        self._drained: trio.Event | None = None  # made only while someone waits for the workers
        self._clock: trio.abc.Clock | None = None
        # Made by the first start(): over HTTP the workers run in the requests' own tasks (run), and
        # a deque is most of what an idle session or a parked stream's session would keep.
        self._pending: collections.deque[tuple[IncomingRequest, _Handle, contextvars.Context]] | None = None
        self._taking = False  # a worker is (or is about to be) taking the pending requests
        self._waiting: list[Task] = []  # idle workers, the latest last
        self._closed = False

    def start(self, request: IncomingRequest) -> bool:
        """Queue the request for the worker taking them (waking or starting one if none is);
        False when the session is at its in-flight limit.  Called from the reader: its context
        variables are the ones the handler sees."""
        assert self.nursery is not None
        handle = self._admit(request, pooled=True)
        if handle is None:
            return False
        pending = self._pending
        if pending is None:
            pending = self._pending = collections.deque()
        pending.append((request, handle, contextvars.copy_context()))
        if not self._taking:
            self._wake()
        return True

    async def run(self, request: IncomingRequest, *, arm_deadline: bool = True) -> bool:
        """Run a worker in the caller's own task (an HTTP request's); False when at the limit.

        ``arm_deadline=False``: the caller arms the deadline later (``arm_deadline``), at its
        original time, if the request is still running then.  Trio registers a scope's deadline
        on entry and unregisters it on exit, a fifth of what a quick request's scope costs.
        """
        handle = self._admit(request, arm_deadline)
        if handle is None:
            return False
        scope = handle.scope
        assert scope is not None
        try:
            with scope:
                message = await self._answer(request, handle)
            if scope.cancelled_caught:
                message = self._cancelled(request, handle)
            await self._reply(request, message)
        finally:
            self._finish(request)
        return True

    def _admit(self, request: IncomingRequest, arm_deadline: bool = True, pooled: bool = False) -> _Handle | None:
        if len(self._handles) >= self.session.limits.max_in_flight:
            return None
        stream = request.spec.stream
        if stream:
            deadline = math.inf  # a stream lasts until the client or shutdown ends it
        else:
            if self._clock is None:
                self._clock = trio.lowlevel.current_clock()  # (one call per request, not three)
            deadline = self._clock.current_time() + self.session.limits.request_timeout
        scope = None if pooled else trio.CancelScope(deadline=deadline if arm_deadline else math.inf)
        handle = self._handles[request.id] = _Handle(scope, stream, deadline)
        return handle

    def arm_deadline(self, request_id: RequestId) -> None:
        """Give a request run with ``arm_deadline=False`` its deadline (past already: cancelled now)."""
        handle = self._handles.get(request_id)
        if handle is not None and handle.scope is not None:
            handle.scope.deadline = handle.deadline

    def cancel(self, request_id: RequestId, reason: str = CLIENT) -> None:
        handle = self._handles.get(request_id)
        if handle is not None and handle.cancelled_by is None:
            handle.cancelled_by = reason
            if handle.scope is not None:  # (else its worker has yet to take it, and cancels it then)
                handle.scope.cancel()

    async def drain(self, grace: float) -> None:
        """Let in-flight workers finish for ``grace`` seconds, then cancel the rest.

        Subscription streams never finish by themselves, so they are closed first.
        """
        for request_id, handle in list(self._handles.items()):
            if handle.stream:
                self.cancel(request_id, SHUTDOWN)
        if self._handles:
            self._drained = trio.Event()
            with trio.move_on_after(grace):
                await self._drained.wait()
        for request_id in list(self._handles):
            self.cancel(request_id, SHUTDOWN)

    def cancel_all(self, reason: str = CLIENT) -> None:
        for request_id in list(self._handles):
            self.cancel(request_id, reason)

    def close(self) -> None:
        """No requests will come: idle workers end, and busy ones when they are done."""
        self._closed = True
        while self._waiting:
            reschedule(self._waiting.pop(), outcome.Value(False))

    def in_flight(self) -> int:
        """How many requests have a worker now."""
        return len(self._handles)

    # -- stream sessions' workers ---------------------------------------------------------

    def _wake(self) -> None:
        """Make a worker the one taking the pending requests: an idle one, else a new one."""
        self._taking = True
        if self._waiting:
            reschedule(self._waiting.pop(), outcome.Value(True))
        else:
            assert self.nursery is not None
            self.nursery.start_soon(self._serve, name=WORKER_NAME)

    def _hand_over(self, worker: _Worker) -> None:
        """``worker`` is about to wait: another takes the pending requests from here on."""
        if worker.taking:
            worker.taking = self._taking = False
            if self._pending:
                self._wake()

    async def _serve(self) -> None:
        worker = _Worker(self)
        try:
            while True:
                await self._take(worker)
                if not await self._idle(worker):
                    return
        except BaseException:
            if worker.taking:  # (the session is ending)
                worker.taking = self._taking = False
            raise

    async def _take(self, worker: _Worker) -> None:
        """Serve pending requests in order, each under this worker's scope, until there are
        none or one has to wait (for its handler, or for room in the outbox)."""
        session = self.session
        pending = self._pending
        assert pending is not None  # (a worker is woken by start)
        request = None
        answered = 0
        try:
            while worker.taking and pending:
                with trio.CancelScope() as scope:
                    while worker.taking and pending:
                        request, handle, context = pending.popleft()
                        handle.scope = scope
                        worker.handle = handle
                        if handle.cancelled_by is not None:  # cancelled before it was taken
                            scope.cancel()
                        message = await self._answer(request, handle, context, worker.suspending)
                        if handle.armed:
                            scope.deadline = math.inf
                        try:
                            queued = session.reply_nowait(request, message)
                        except TypeError:  # the result held something JSON cannot carry
                            message = _unencodable(request)
                            queued = session.reply_nowait(request, message)
                        if not queued:
                            break  # it waits for room in the outbox, outside the scope
                        self._finish(request)
                        request = None
                        # A cancel that came during the answer, or its deadline: this scope is spent.
                        # (Nothing else cancels it; a request that never waited had no deadline on it,
                        # and asking the scope reads the clock.)
                        if (handle.armed or handle.cancelled_by is not None) and scope.cancel_called:
                            break
                        answered += 1
                        if answered == ANSWERS_PER_TURN:
                            answered = 0
                            await trio.lowlevel.cancel_shielded_checkpoint()
                if request is not None:
                    if scope.cancelled_caught:
                        message = self._cancelled(request, handle)
                    self._hand_over(worker)
                    await self._reply(request, message)
                    self._finish(request)
                    request = None
        finally:
            if request is not None:
                self._finish(request)
        if worker.taking:  # none left
            worker.taking = self._taking = False

    async def _idle(self, worker: _Worker) -> bool:
        """Wait until woken to take pending requests (True), or to end (False)."""
        if self._closed or len(self._waiting) >= IDLE_WORKERS:
            return False
        self._waiting.append(worker.task)
        worker.taking = await wait_task_rescheduled(worker.abort)
        return worker.taking

    # -- what every worker does -----------------------------------------------------------

    async def _answer(
        self,
        request: IncomingRequest,
        handle: _Handle,
        context: contextvars.Context | None = None,
        suspending: Callable[[], None] | None = None,
    ) -> dict[str, Any] | None:
        """The handler's outcome as a message; a cancellation passes through to the scope."""
        session = self.session
        try:
            call = session.host.handler(session, request, handle.deadline)
            if context is not None:
                call = run_in_context(context, call, suspending)
            result = await call
            return session.protocol.result_message(request, result)
        except McpError as err:
            return error_message(request.id, err)
        except Exception:
            log.exception("the handler of %s failed", request.method)
            return error_message(request.id, errors.internal_error())

    async def _reply(self, request: IncomingRequest, message: dict[str, Any] | None) -> None:
        try:
            await self.session.reply(request, message)
        except TypeError:  # the result held something JSON cannot carry
            await self.session.reply(request, _unencodable(request))

    def _finish(self, request: IncomingRequest) -> None:
        self.session.protocol.finished(request.id)
        del self._handles[request.id]
        if not self._handles and self._drained is not None:
            self._drained.set()

    def closing_message(self, request: IncomingRequest) -> dict[str, Any]:
        """What a long-lived request (a listen stream) ends with at shutdown: a plain result
        naming it (graceful closure, subscriptions.mdx)."""
        return self.session.protocol.result_message(request, {"_meta": {META_SUBSCRIPTION_ID: request.id}})

    def _cancelled(self, request: IncomingRequest, handle: _Handle) -> dict[str, Any] | None:
        """The answer to a request whose scope caught a cancellation: by the client, deadline or shutdown."""
        if handle.cancelled_by == CLIENT:
            return None  # a cancelled request is never answered
        if handle.cancelled_by == SHUTDOWN and request.spec.stream:
            return self.closing_message(request)
        if handle.cancelled_by == SHUTDOWN:
            err = errors.internal_error("the server is shutting down; the request was cancelled")
            return error_message(request.id, err)
        timeout = self.session.limits.request_timeout
        result = self.session.host.timed_out(request, timeout)
        if result is not None:
            return self.session.protocol.result_message(request, result)
        return error_message(request.id, errors.internal_error(f"request timed out after {timeout:g} s"))


def _unencodable(request: IncomingRequest) -> dict[str, Any]:
    log.exception("the answer to %s could not be encoded as JSON", request.method)
    err = errors.internal_error("the handler returned a value that cannot be encoded as JSON")
    return error_message(request.id, err)


class SessionCore:
    """Subclasses provide ``send(message, route)``; handlers reach the rest through their Context."""

    transport = "memory"  # what carries this session's bytes: stdio, http, websocket, sse, memory
    session_id: str | None = None  # the transport's session id, where it has one (legacy HTTP)
    client_address: str | None = None  # the peer's network address, where there is one (http, websocket)
    principal: Any = None  # who the connection authenticated as (websocket, legacy SSE), else None
    call_prefix = "mcptrio-"  # ids of server→client requests start with it
    switches: Any = None  # what was switched on or off for this session alone (the host's: app/visibility.py)

    def __init__(self, host: Host, limits: SessionLimits | None = None, protocol: ServerProtocol | None = None) -> None:
        self.host = host
        self.limits = limits or host.limits
        self.protocol = protocol or ServerProtocol(host.identity)
        self._client_calls: ClientCalls | None = None  # made on first use: 2026-07-28 sessions never call the client
        self.dispatcher = Dispatcher(self)
        self.subscriptions: set[str] = set()  # legacy resources/subscribe

    def disable(self, *names: str, tags: Iterable[str] = ()) -> None:
        """Hide these components (by name, URI or tag) from this session alone; the host decides
        what they are, and tells the session its lists changed."""
        self.host.switch_session(self, False, names, tuple(tags))

    def enable(self, *names: str, tags: Iterable[str] = ()) -> None:
        """Show these components to this session again, even those hidden server-wide."""
        self.host.switch_session(self, True, names, tuple(tags))

    @property
    def client_calls(self) -> ClientCalls:
        """The legacy server→client requests of this session, pending by id."""
        if self._client_calls is None:
            self._client_calls = ClientCalls(self.send, self.call_prefix)
        return self._client_calls

    async def send(self, message: dict[str, Any] | list[Any], route: Route | None = None) -> None:
        raise NotImplementedError

    def post(self, message: dict[str, Any], route: Route | None = None) -> None:
        """Send without waiting (change notifications): a session that can't take it drops it."""
        raise NotImplementedError

    async def notify(self, request: IncomingRequest, method: str, params: dict[str, Any]) -> None:
        """A notification about ``request`` (progress, log) while it is in flight."""
        await self.send({"jsonrpc": "2.0", "method": method, "params": params}, request.route)

    async def close_stream(self, request: IncomingRequest) -> None:
        """End the transport stream carrying ``request`` without cancelling it (HTTP only)."""

    def park(self, request: IncomingRequest, on_end: Callable[[], None]) -> Route | None:
        """Hand the stream of ``request``, which from now on only carries notifications (an
        acknowledged listen stream), to the transport, to be kept open with no task of its own:
        the route to post them to from then on, and ``on_end`` is called once when it ends (the
        client gone, shutdown; it ends with ``Dispatcher.closing_message``).  None: this transport
        keeps no such streams, and the handler waits as before.  The request must not be answered
        once parked (its answer goes nowhere)."""
        return None

    async def call_client(self, method: str, params: dict[str, Any], route: Route | None = None) -> dict[str, Any]:
        return await self.client_calls.call(method, params, self.limits.client_request_timeout, route)

    async def reply(self, request: IncomingRequest, message: dict[str, Any] | None) -> None:
        """Send a request's answer (None: it was cancelled), through its batch if it had one."""
        if request.batch is not None:
            complete = request.batch.add(message)
            if complete is not None:
                await self.send(complete, request.route)
        elif message is not None:
            await self.send(message, request.route)

    def reply_nowait(self, request: IncomingRequest, message: dict[str, Any] | None) -> bool:
        """Queue a request's answer if that needs no waiting; False: answer it with ``reply``."""
        return False

    def dispatch(self, request: IncomingRequest, route: Route | None = None) -> bool:
        """Start a worker for a request that arrived on ``route``; False at the in-flight limit."""
        request.route = route
        if self.principal is not None:
            request.principal = self.principal
        return self.dispatcher.start(request)

    async def handle_event(self, event: Any, route: Route | None = None) -> None:
        """Act on one protocol event from a frame that arrived on ``route``."""
        if isinstance(event, Dispatch):
            if not self.dispatch(event.request, route):
                await self.refuse_busy(event.request)
        elif isinstance(event, Send):
            await self.send(event.message, route)
        elif isinstance(event, Cancel):
            self.dispatcher.cancel(event.request_id)
        elif isinstance(event, ClientReply):
            self.client_calls.reply(event.request_id, event.result, event.error)
        elif isinstance(event, Notified):
            self.host.on_client_notification(self, event.method, event.params)

    async def refuse_busy(self, request: IncomingRequest) -> None:
        self.protocol.finished(request.id)
        err = errors.internal_error(f"too many requests in flight (limit {self.limits.max_in_flight}); retry later")
        await self.reply(request, error_message(request.id, err))
