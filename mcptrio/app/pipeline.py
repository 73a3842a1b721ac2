"""The one request handler an App hands the runtime: context, middleware, method handler, and
under them the boundary where exceptions become answers.

Innermost, under the method handler, is the boundary (``guarded``), and it is under each
middleware the app and its plugins add too.  With no middleware at all, a request is one call of
the method handler through the boundary.

A 2026-07-28 request may take more than one round trip, and a round begins and ends here.  A
handler that asks the client for input it does not have yet ends the round with an
``InputRequiredResult`` whose ``requestState`` seals the answers gathered so far
(``protocol/request_state.py``: bound to the method, the params, an expiry and the principal).
The client's retry brings that state back with the new answers, unsealed before any middleware
sees it (``gathered``); the handler runs again from the start and finds them all.  The runtime
passes ``requestState`` through untouched.

The boundary is the one place between what handlers raise and what clients get (in the spirit
of Starlette's ``ExceptionMiddleware``): every middleware sees an answer, never a handler's
exception, and what a middleware raises is answered as a handler's failure would be.  The
runtime below maps only what is JSON-RPC's: an ``McpError`` to its error, a cancellation, a
deadline, anything else that reaches it to an internal error.

* ``tools/call``: the tool's failure is its result, with ``isError``: a ``ToolError`` (and
  arguments that don't fit, a client that can't or didn't answer) with its own text, anything
  else with a generic text (the detail goes to the log); so is a deadline (``timed_out``).
* Other methods: a ``ToolError`` is ``-32602`` with its text, asking a client for what it can't
  do ``-32600``, a client's error answer that error (in ``data.clientError``), a client that did
  not answer in time or anything else ``-32603``.
* ``InputRequired`` (2026-07-28): the ``InputRequiredResult`` that ends the round, on the
  methods that may answer one (``protocol/methods.py``).
* ``McpError`` is an answer already, and a cancellation is none: both pass.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..protocol import errors
from ..protocol.errors import McpError
from ..protocol.request_state import seal, unseal
from ..runtime.client_calls import ClientRequestFailed
from . import results
from .context import NO_ANSWERS, Context
from .errors import ClientCapabilityMissing, InputRequired, ToolError
from .middleware import CallNext, Middleware, Request, chain
from .signature import ArgumentError, OutputError

if TYPE_CHECKING:
    from ..protocol.events import IncomingRequest
    from ..runtime.core import SessionCore
    from ..runtime.host import RequestHandler

log = logging.getLogger("mcptrio.app")

# A method handler (methods.py): (app, ctx, params) -> its result, awaited through the boundary.
MethodHandler = Callable[[Any, Context, dict[str, Any]], Awaitable[dict[str, Any]]]

# Failures a tool reports as an isError result with their own text.
TOOL_FAILURES = (ToolError, ArgumentError, ClientCapabilityMissing, ClientRequestFailed)


async def guarded(ctx: Context, params: dict[str, Any], call: Awaitable[dict[str, Any]]) -> dict[str, Any]:
    """``await call`` (a handler's, or a middleware's with what it wraps), its failure answered."""
    try:
        return await call
    except McpError:
        raise
    except Exception as exc:
        return answer(ctx, params, exc)


def answer(ctx: Context, params: dict[str, Any], exc: Exception) -> dict[str, Any]:
    """The result that answers ``exc``, raised serving ``ctx``'s request with ``params``; or the
    ``McpError`` that does, raised."""
    if isinstance(exc, InputRequired):
        return _input_required(ctx, exc)
    method = ctx.method
    if method == "tools/call":
        return _tool_failure(params.get("name"), exc)
    if isinstance(exc, ToolError):
        raise errors.invalid_params(str(exc)) from None
    if isinstance(exc, ClientCapabilityMissing):
        raise errors.invalid_request(str(exc)) from None
    if isinstance(exc, ClientRequestFailed):
        if exc.code is None:
            raise errors.internal_error(str(exc)) from None
        client_error: dict[str, Any] = {"code": exc.code, "message": exc.message}
        if exc.data is not None:
            client_error["data"] = exc.data
        raise McpError(exc.code, str(exc), {"clientError": client_error}) from None
    log.error("the handler of %s failed", method, exc_info=exc)
    raise errors.internal_error() from None


def timed_out(request: IncomingRequest, timeout: float) -> dict[str, Any] | None:
    """What a request whose ``timeout`` ran out answers: a tool call, an ``isError`` result saying
    so; None for the rest (the runtime's JSON-RPC error)."""
    if request.method == "tools/call":
        return tool_error(f"tool {request.params.get('name')!r} timed out after {timeout:g} s")
    return None


def tool_error(text: str) -> dict[str, Any]:
    return {"content": [results.text_block(text)], "isError": True}


def _tool_failure(name: object, exc: Exception) -> dict[str, Any]:
    if isinstance(exc, TOOL_FAILURES):
        return tool_error(str(exc))
    if isinstance(exc, OutputError):
        log.error("tool %r returned a value that does not match its outputSchema: %s", name, exc)
        return tool_error(f"tool {name!r} returned a result that does not match its output schema")
    log.error("tool %r failed", name, exc_info=exc)
    return tool_error(f"tool {name!r} failed with an internal error ({type(exc).__name__})")


def _input_required(ctx: Context, needed: InputRequired) -> dict[str, Any]:
    request = ctx.incoming
    if not request.spec.input:
        log.error("the handler of %s asked for client input, which that method does not allow", request.method)
        raise errors.internal_error(f"the handler asked for client input, which {request.method} does not allow")
    return input_required(ctx.app.state_key, ctx.session.limits.input_state_ttl, request, ctx.input_responses, needed)


def build(
    app: Any, handlers: Mapping[str, MethodHandler], builtin: list[Middleware], middleware: list[Middleware]
) -> RequestHandler:
    """The runtime's ``RequestHandler`` for ``app`` and its method ``handlers`` (methods.py's
    ``HANDLERS``, which runs its task calls through ``guarded``): the ``builtin`` features'
    middleware outermost, then the app's and plugins' ``middleware`` (each over a boundary of its
    own)."""
    if not builtin and not middleware:

        def handle(session: SessionCore, request: IncomingRequest, deadline: float) -> Awaitable[dict[str, Any]]:
            # (not a coroutine of its own: the worker awaits the boundary's)
            answers = gathered(app, request) if request.era == "modern" else NO_ANSWERS
            ctx = Context(session, request, deadline, answers, app)
            return guarded(ctx, request.params, handlers[request.method](app, ctx, request.params))

        return handle

    def endpoint(request: Request) -> Awaitable[dict[str, Any]]:
        ctx = request.context
        return guarded(ctx, request.params, handlers[ctx.method](app, ctx, request.params))

    pipeline: CallNext = chain(builtin, chain(middleware, endpoint, guarded))

    async def handle_through_pipeline(
        session: SessionCore, request: IncomingRequest, deadline: float
    ) -> dict[str, Any]:
        answers = gathered(app, request) if request.era == "modern" else NO_ANSWERS
        ctx = Context(session, request, deadline, answers, app)
        return await pipeline(Request(ctx, request.params))

    return handle_through_pipeline


# -- a 2026-07-28 round's answers ---------------------------------------------------------------


class Keys(Protocol):
    @property
    def state_keys(self) -> Sequence[bytes]:
        """The sealing keys in use, the current one first (``App.state_keys``)."""


def gathered(app: Keys, request: IncomingRequest) -> Mapping[str, Any]:
    """The answers a 2026-07-28 request carries: unsealed (with ``app``'s keys) from its
    ``requestState``, and its ``inputResponses``; refused (``McpError``) when the state fails
    verification or has lapsed."""
    params = request.params
    fresh = params.get("inputResponses")
    if fresh is None and "requestState" not in params:
        return NO_ANSWERS
    responses: dict[str, Any] = {}
    if "requestState" in params:
        state = params["requestState"]
        responses.update(unseal(app.state_keys, state, request.method, params, time.time(), _owner(request)))
    if fresh is not None:
        if not isinstance(fresh, dict) or not all(isinstance(v, dict) for v in fresh.values()):
            raise errors.invalid_params('"inputResponses" must be an object of result objects')
        responses.update(fresh)
    return responses


def input_required(
    key: bytes, ttl: float, request: IncomingRequest, responses: Mapping[str, Any], needed: InputRequired
) -> dict[str, Any]:
    """The ``InputRequiredResult`` that ends this round: what is asked, and the sealed answers so far
    (valid for ``ttl`` seconds)."""
    state = seal(key, request.method, request.params, dict(responses), time.time() + ttl, _owner(request))
    return {"resultType": "input_required", "inputRequests": needed.requests, "requestState": state}


def _owner(request: IncomingRequest) -> str:
    """What a request's state is bound to: its principal's binding (with authorization), else ""."""
    return getattr(request.principal, "binding", "") if request.principal is not None else ""
