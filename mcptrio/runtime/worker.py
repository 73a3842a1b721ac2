"""The dispatcher and its workers: one task per request, each in its own cancel scope.

The worker is the one place where a handler's outcome becomes a message: a result, an
``InputRequiredResult`` (2026-07-28), a JSON-RPC error, or nothing at all when the client
cancelled the request.  No traceback text ever reaches the client; it goes to the log.
"""

from __future__ import annotations

import logging
import math
import time
from typing import TYPE_CHECKING, Any, Protocol

import attrs
import trio

from ..protocol import errors
from ..protocol.errors import McpError
from ..protocol.events import IncomingRequest
from ..protocol.request_state import seal, unseal
from ..protocol.session import META_SUBSCRIPTION_ID, ServerProtocol, error_message
from .input_required import InputRequired
from .limits import SessionLimits

if TYPE_CHECKING:
    from .host import Host

log = logging.getLogger("mcptrio.worker")

# Methods whose handlers may answer with an InputRequiredResult (mrtr.mdx, "Supported Requests").
INPUT_REQUIRED_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})

CLIENT, DEADLINE, SHUTDOWN = "client", "deadline", "shutdown"


@attrs.define(slots=True, eq=False)
class _Handle:
    scope: trio.CancelScope
    method: str
    deadline: float  # the request's own; its scope has it once armed
    cancelled_by: str | None = None


class Session(Protocol):
    """What a dispatcher needs of its session (``core.SessionCore`` is one)."""

    host: Host
    limits: SessionLimits
    protocol: ServerProtocol

    async def reply(self, request: IncomingRequest, message: dict[str, Any] | None) -> None: ...


class Dispatcher:
    """Starts a worker per request and cancels them by request id; never awaits handler work."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.nursery: trio.Nursery | None = None
        self._handles: dict[Any, _Handle] = {}
        self._idle: trio.Event | None = None  # made only while someone waits for the workers

    def start(self, request: IncomingRequest) -> bool:
        """Start a worker in the session's nursery; False when the session is at its in-flight limit."""
        assert self.nursery is not None
        handle = self._admit(request)
        if handle is None:
            return False
        self.nursery.start_soon(self._work, request, handle)
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
        await self._work(request, handle)
        return True

    def _admit(self, request: IncomingRequest, arm_deadline: bool = True) -> _Handle | None:
        if len(self._handles) >= self.session.limits.max_in_flight:
            return None
        deadline = trio.current_time() + self.session.limits.request_timeout
        if request.method == "subscriptions/listen":
            deadline = math.inf  # a stream lasts until the client or shutdown ends it
        handle = _Handle(trio.CancelScope(deadline=deadline if arm_deadline else math.inf), request.method, deadline)
        self._handles[request.id] = handle
        return handle

    def arm_deadline(self, request_id: Any) -> None:
        """Give a request run with ``arm_deadline=False`` its deadline (past already: cancelled now)."""
        handle = self._handles.get(request_id)
        if handle is not None:
            handle.scope.deadline = handle.deadline

    def cancel(self, request_id: Any, reason: str = CLIENT) -> None:
        handle = self._handles.get(request_id)
        if handle is not None and handle.cancelled_by is None:
            handle.cancelled_by = reason
            handle.scope.cancel()

    async def drain(self, grace: float) -> None:
        """Let in-flight workers finish for ``grace`` seconds, then cancel the rest.

        Subscription streams never finish by themselves, so they are closed first.
        """
        for request_id, handle in list(self._handles.items()):
            if handle.method == "subscriptions/listen":
                self.cancel(request_id, SHUTDOWN)
        if self._handles:
            self._idle = trio.Event()
            with trio.move_on_after(grace):
                await self._idle.wait()
        for request_id in list(self._handles):
            self.cancel(request_id, SHUTDOWN)

    def cancel_all(self, reason: str = CLIENT) -> None:
        for request_id in list(self._handles):
            self.cancel(request_id, reason)

    def in_flight(self) -> int:
        """How many requests have a worker now."""
        return len(self._handles)

    async def _work(self, request: IncomingRequest, handle: _Handle) -> None:
        session = self.session
        try:
            message = await self._outcome(request, handle)
            try:
                await session.reply(request, message)
            except TypeError:  # the result held something JSON cannot carry
                log.exception("the answer to %s could not be encoded as JSON", request.method)
                err = errors.internal_error("the handler returned a value that cannot be encoded as JSON")
                await session.reply(request, error_message(request.id, err))
        finally:
            session.protocol.finished(request.id)
            del self._handles[request.id]
            if not self._handles and self._idle is not None:
                self._idle.set()

    async def _outcome(self, request: IncomingRequest, handle: _Handle) -> dict[str, Any] | None:
        session = self.session
        input_state: dict[str, Any] = {}
        try:
            with handle.scope:
                responses = self._input_responses(request, input_state)
                result = await session.host.handler(session, request, handle.deadline, responses)
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
        # Only reached when the scope swallowed a cancellation: by the client, deadline or shutdown.
        return self._cancelled(request, handle)

    def _cancelled(self, request: IncomingRequest, handle: _Handle) -> dict[str, Any] | None:
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
