"""The one request handler an App hands the runtime: context, middleware, method handler.

With no middleware it is one call to the method handler.  With middleware, exceptions they
raise are answered as a handler's would be (``guard``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Awaitable

from ..protocol.errors import McpError
from ..runtime.input_required import InputRequired
from .context import Context
from .methods import METHODS, TOOL_FAILURES, handler_errors, tool_error
from .middleware import CallNext, Middleware, Request, chain

if TYPE_CHECKING:
    from ..protocol.events import IncomingRequest
    from ..runtime.core import SessionCore

log = logging.getLogger("mcptrio.app")


def build(app: Any, middleware: list[Middleware]) -> Any:
    """The runtime's ``RequestHandler`` for ``app`` with ``middleware`` (outermost first)."""
    if not middleware:
        def handle(session: SessionCore, request: IncomingRequest, deadline: float,
                   responses: dict[str, Any]) -> Awaitable[dict[str, Any]]:
            # (not a coroutine of its own: the worker awaits the method's)
            return METHODS[request.method](app, Context(session, request, deadline, responses, app), request.params)

        return handle

    async def endpoint(request: Request) -> dict[str, Any]:
        return await METHODS[request.context.method](app, request.context, request.params)

    pipeline: CallNext = chain(middleware, endpoint)

    async def handle_through_pipeline(session: SessionCore, request: IncomingRequest, deadline: float,
                                      responses: dict[str, Any]) -> dict[str, Any]:
        ctx = Context(session, request, deadline, responses, app)
        try:
            return await pipeline(Request(ctx, request.params))
        except (McpError, InputRequired):
            raise
        except Exception as exc:
            return guard(request, exc)

    return handle_through_pipeline


def guard(request: IncomingRequest, exc: Exception) -> dict[str, Any]:
    """An exception from middleware, answered as the method's handler raising it would be."""
    if request.method == "tools/call":
        if isinstance(exc, TOOL_FAILURES):
            return tool_error(str(exc))
        name = request.params.get("name")
        log.error("middleware failed on tools/call %r", name, exc_info=exc)
        return tool_error(f"tool {name!r} failed with an internal error ({type(exc).__name__})")
    with handler_errors():
        raise exc
    raise AssertionError("unreachable")  # pragma: no cover
