"""The dispatcher and its workers: each request runs in a worker, in a cancel scope of its own.

The worker is the one place where a handler's outcome becomes a message: a result, an
``InputRequiredResult`` (2026-07-28), a JSON-RPC error, or nothing at all when the client
cancelled the request.  No traceback text ever reaches the client; it goes to the log.

Stream sessions (stdio, memory, WebSocket, legacy SSE) keep their workers: a worker done with
one request waits for the next instead of ending, because starting a Trio task and entering a
cancel scope with a deadline cost three times what the rest of an echo call does.  A worker
serves one request at a time, under a cancel scope only it uses; a cancelled request spends
that scope and the worker takes a new one.  Each request still runs in a copy of the reader's
context variables (``in_context``), and its deadline is put on the scope the first time its
handler waits for anything (a handler that never waits cannot be cancelled anyway).  A request
whose answer must wait for room in the outbox is answered outside the scope, as over HTTP, where
``run`` serves a request in the POST's own task.
"""

from __future__ import annotations

import contextvars
import logging
import math
import time
from typing import TYPE_CHECKING, Any, Protocol

import outcome
import trio
from trio.lowlevel import Abort, Task, current_task, reschedule, wait_task_rescheduled

from ..protocol import errors
from ..protocol.errors import McpError
from ..protocol.events import IncomingRequest
from ..protocol.request_state import seal, unseal
from ..protocol.session import META_SUBSCRIPTION_ID, ServerProtocol, error_message
from .in_context import run_in_context
from .input_required import InputRequired
from .limits import SessionLimits

if TYPE_CHECKING:
    from .host import Host

log = logging.getLogger("mcptrio.worker")

# Methods whose handlers may answer with an InputRequiredResult (mrtr.mdx, "Supported Requests").
INPUT_REQUIRED_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})

CLIENT, DEADLINE, SHUTDOWN = "client", "deadline", "shutdown"

# Workers kept waiting for the next request; one finishing while as many wait, ends.
IDLE_WORKERS = 64
WORKER_NAME = "mcptrio.worker"


class _Handle:
    """A request in flight: the scope that cancels it, and why it was cancelled."""

    __slots__ = ("scope", "method", "deadline", "cancelled_by", "armed")

    def __init__(self, scope: trio.CancelScope | None, method: str, deadline: float) -> None:
        self.scope = scope  # a pooled request's: its worker's, from when the worker takes it
        self.method = method
        self.deadline = deadline  # the request's own; its scope has it once armed
        self.cancelled_by: str | None = None
        self.armed = False  # (pooled) the deadline is on the worker's scope

    def arm(self) -> None:
        """Put the request's deadline on its worker's scope (its handler is about to wait)."""
        if self.deadline < math.inf and self.scope is not None:
            self.scope.deadline = self.deadline
            self.armed = True


class Session(Protocol):
    """What a dispatcher needs of its session (``core.SessionCore`` is one)."""

    host: Host
    limits: SessionLimits
    protocol: ServerProtocol

    async def reply(self, request: IncomingRequest, message: dict[str, Any] | None) -> None: ...

    def reply_nowait(self, request: IncomingRequest, message: dict[str, Any] | None) -> bool: ...


class Dispatcher:
    """Hands each request to a worker and cancels them by request id; never awaits handler work."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.nursery: trio.Nursery | None = None  # where stream sessions' workers run
        self._handles: dict[Any, _Handle] = {}
        self._drained: trio.Event | None = None  # made only while someone waits for the workers
        self._waiting: list[Task] = []  # workers waiting for a request, the latest last
        self._closed = False

    def start(self, request: IncomingRequest) -> bool:
        """Give the request to a waiting worker, else to a new one in the session's nursery; False
        when the session is at its in-flight limit.  Called from the reader: its context variables
        are the ones the handler sees."""
        assert self.nursery is not None
        handle = self._admit(request, pooled=True)
        if handle is None:
            return False
        job = (request, handle, contextvars.copy_context())
        if self._waiting:
            reschedule(self._waiting.pop(), outcome.Value(job))
        else:
            self.nursery.start_soon(self._serve, job, name=WORKER_NAME)
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
        if request.method == "subscriptions/listen":
            deadline = math.inf  # a stream lasts until the client or shutdown ends it
        else:
            deadline = trio.current_time() + self.session.limits.request_timeout
        scope = None if pooled else trio.CancelScope(deadline=deadline if arm_deadline else math.inf)
        handle = self._handles[request.id] = _Handle(scope, request.method, deadline)
        return handle

    def arm_deadline(self, request_id: Any) -> None:
        """Give a request run with ``arm_deadline=False`` its deadline (past already: cancelled now)."""
        handle = self._handles.get(request_id)
        if handle is not None and handle.scope is not None:
            handle.scope.deadline = handle.deadline

    def cancel(self, request_id: Any, reason: str = CLIENT) -> None:
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
            if handle.method == "subscriptions/listen":
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
        """No requests will come: waiting workers end, and busy ones when they are done."""
        self._closed = True
        while self._waiting:
            reschedule(self._waiting.pop(), outcome.Value(None))

    def in_flight(self) -> int:
        """How many requests have a worker now."""
        return len(self._handles)

    # -- a pooled worker ------------------------------------------------------------------

    async def _serve(self, job: Any) -> None:
        while job is not None:
            job = await self._serve_in_scope(job)

    async def _serve_in_scope(self, job: Any) -> Any:
        """Serve requests under one cancel scope until one is cancelled or must wait to be answered,
        or the scope is spent; returns the next request to serve (None: end the worker)."""
        session = self.session
        request, handle, context = job
        try:
            with trio.CancelScope() as scope:
                while True:
                    handle.scope = scope
                    if handle.cancelled_by is not None:  # cancelled before this worker took it
                        scope.cancel()
                    message = await self._answer(request, handle, context)
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
                    if scope.cancel_called:
                        break  # a cancel that came after the answer: this scope is spent
                    job = await self._next_job()
                    if job is None:
                        return None
                    request, handle, context = job
            if request is not None:
                if scope.cancelled_caught:
                    message = self._cancelled(request, handle)
                await self._reply(request, message)
        finally:
            if request is not None:
                self._finish(request)
        return await self._next_job()

    async def _next_job(self) -> Any:
        """Wait for ``start`` to hand this worker a request; None: end (closed, or enough wait)."""
        if self._closed or len(self._waiting) >= IDLE_WORKERS:
            return None
        task = current_task()
        self._waiting.append(task)

        def abort(_: Any) -> Abort:
            self._waiting.remove(task)
            return Abort.SUCCEEDED

        return await wait_task_rescheduled(abort)

    # -- what every worker does -----------------------------------------------------------

    async def _answer(self, request: IncomingRequest, handle: _Handle,
                      context: contextvars.Context | None = None) -> dict[str, Any] | None:
        """The handler's outcome as a message; a cancellation passes through to the scope."""
        session = self.session
        input_state: dict[str, Any] = {}
        try:
            responses = self._input_responses(request, input_state)
            call = session.host.handler(session, request, handle.deadline, responses)  # type: ignore[arg-type]
            if context is not None:
                call = run_in_context(context, call, handle.arm)
            result = await call
            return session.protocol.result_message(request, result)
        except InputRequired as needed:
            if request.method not in INPUT_REQUIRED_METHODS:
                log.error("the handler of %s asked for client input, which that method does not allow",
                          request.method)
                err = errors.internal_error(f"the handler asked for client input, which {request.method} does not allow")
                return error_message(request.id, err)
            return session.protocol.result_message(request, self._input_required(request, needed, input_state))
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

    def _cancelled(self, request: IncomingRequest, handle: _Handle) -> dict[str, Any] | None:
        """The answer to a request whose scope caught a cancellation: by the client, deadline or shutdown."""
        if handle.cancelled_by == CLIENT:
            return None  # a cancelled request is never answered
        if handle.cancelled_by == SHUTDOWN and request.method == "subscriptions/listen":
            # Graceful closure: the long-lived request ends with a plain result (subscriptions.mdx).
            closing = {"_meta": {META_SUBSCRIPTION_ID: request.id}}
            return self.session.protocol.result_message(request, closing)
        if handle.cancelled_by == SHUTDOWN:
            err = errors.internal_error("the server is shutting down; the request was cancelled")
            return error_message(request.id, err)
        timeout = self.session.limits.request_timeout
        text = f"request timed out after {timeout:g} s"
        if request.method == "tools/call":
            name = request.params.get("name")
            result = {"content": [{"type": "text", "text": f"tool {name!r} timed out after {timeout:g} s"}],
                      "isError": True}
            return self.session.protocol.result_message(request, result)
        return error_message(request.id, errors.internal_error(text))

    def _input_responses(self, request: IncomingRequest, input_state: dict[str, Any]) -> dict[str, Any]:
        """Modern era: the answers gathered so far, from the sealed state and this retry."""
        if request.era != "modern":
            return {}
        params = request.params
        responses: dict[str, Any] = {}
        if "requestState" in params:
            keys = self.session.host.state_keys
            responses.update(unseal(keys, params["requestState"], request.method, params, time.time(),
                                    _owner(request)))
        fresh = params.get("inputResponses")
        if fresh is not None:
            if not isinstance(fresh, dict) or not all(isinstance(v, dict) for v in fresh.values()):
                raise errors.invalid_params('"inputResponses" must be an object of result objects')
            responses.update(fresh)
        input_state["responses"] = responses
        return responses

    def _input_required(self, request: IncomingRequest, needed: InputRequired,
                        input_state: dict[str, Any]) -> dict[str, Any]:
        responses = input_state.get("responses", {})
        expires = time.time() + self.session.limits.input_state_ttl
        state = seal(self.session.host.state_keys[0], request.method, request.params, responses, expires, _owner(request))
        return {"resultType": "input_required", "inputRequests": needed.requests, "requestState": state}



def _owner(request: IncomingRequest) -> str:
    """What a request's state is bound to: its principal's binding (with authorization), else ""."""
    return getattr(request.principal, "binding", "") if request.principal is not None else ""


def _unencodable(request: IncomingRequest) -> dict[str, Any]:
    log.exception("the answer to %s could not be encoded as JSON", request.method)
    err = errors.internal_error("the handler returned a value that cannot be encoded as JSON")
    return error_message(request.id, err)
