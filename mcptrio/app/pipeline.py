"""The one request handler an App hands the runtime: context, middleware, method handler.

Innermost, under the method handler, is the boundary (``boundary.guarded``), and it is under each
middleware the app and its plugins add too: see ``boundary.py``.  With no middleware at all, a
request is one call of the method handler through the boundary.  A 2026-07-28 request's answers
from earlier rounds are unsealed before any middleware sees it (``input_rounds.gathered``).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from .boundary import guarded
from .context import Context
from .input_rounds import NO_ANSWERS, gathered
from .methods import HANDLERS
from .middleware import CallNext, Middleware, Request, chain

if TYPE_CHECKING:
    from ..protocol.events import IncomingRequest
    from ..runtime.core import SessionCore
    from ..runtime.host import RequestHandler


def build(app: Any, builtin: list[Middleware], middleware: list[Middleware]) -> RequestHandler:
    """The runtime's ``RequestHandler`` for ``app``: the ``builtin`` features' middleware outermost,
    then the app's and plugins' ``middleware`` (each over a boundary of its own)."""
    if not builtin and not middleware:

        def handle(session: SessionCore, request: IncomingRequest, deadline: float) -> Awaitable[dict[str, Any]]:
            # (not a coroutine of its own: the worker awaits the boundary's)
            answers = gathered(app, request) if request.era == "modern" else NO_ANSWERS
            ctx = Context(session, request, deadline, answers, app)
            return guarded(ctx, request.params, HANDLERS[request.method](app, ctx, request.params))

        return handle

    def endpoint(request: Request) -> Awaitable[dict[str, Any]]:
        ctx = request.context
        return guarded(ctx, request.params, HANDLERS[ctx.method](app, ctx, request.params))

    pipeline: CallNext = chain(builtin, chain(middleware, endpoint, guarded))

    async def handle_through_pipeline(
        session: SessionCore, request: IncomingRequest, deadline: float
    ) -> dict[str, Any]:
        answers = gathered(app, request) if request.era == "modern" else NO_ANSWERS
        ctx = Context(session, request, deadline, answers, app)
        return await pipeline(Request(ctx, request.params))

    return handle_through_pipeline
