"""The request pipeline: middleware around every MCP request, in both eras, on every transport.

A middleware is ``async def mw(request: Request, call_next) -> dict``.  It may look at the
request, change ``request.params``, answer by itself (return a result without calling
``call_next``), fail it (raise ``McpError`` or ``ToolError``), or time what ``call_next`` takes.
What ``call_next`` gives back is an answer: a result, or an ``McpError`` raised (or a
cancellation), never a handler's own exception.  An exception a middleware raises is answered
right where it leaves it, as one raised by a handler would be (``pipeline.py``).

Order: the first middleware added (``app.use`` or ``@plugin.use``, plugins in the order they
are included) is the outermost: it sees the request first and the result last.  Built-in
features the operator turns on (OpenTelemetry, logging of each request, scopes, limits) run
outside all of them, in that order; the boundary runs inside all of them.

What goes through the pipeline: every request a method handler answers (tools, resources,
prompts, completion, ``subscriptions/listen``).  The requests the protocol answers by itself,
at once and without a handler (``initialize``, ``ping``, ``logging/setLevel``,
``server/discover``), and notifications do not; client notifications have their own hook,
``Registry.on_notification``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..auth.principal import Principal
    from .context import Context

CallNext = Callable[["Request"], Awaitable[dict[str, Any]]]
Middleware = Callable[["Request", CallNext], Awaitable[dict[str, Any]]]
# (context, params, the call) -> its answer: ``pipeline.guarded``
Guard = Callable[["Context", dict[str, Any], Awaitable[dict[str, Any]]], Awaitable[dict[str, Any]]]


class Request:
    """One MCP request on its way to its method handler; ``context`` is what the handler gets."""

    __slots__ = ("context", "params", "state")

    def __init__(self, context: Context, params: dict[str, Any]) -> None:
        self.context = context
        self.params = params  # replace or change it to change what the handler sees
        self.state: dict[str, Any] = {}  # scratch space shared by the middleware of this request

    @property
    def method(self) -> str:
        return self.context.method

    @property
    def name(self) -> str | None:
        """The tool or prompt name, or the resource URI, the request is about (else None): the
        target ``protocol/methods.py`` names for its method."""
        target = self.context.incoming.spec.target
        value = self.params.get(target.param) if target is not None else None
        return value if isinstance(value, str) else None

    @property
    def request_id(self) -> str | int:
        return self.context.request_id

    @property
    def era(self) -> str:
        """``"legacy"`` (initialize handshake) or ``"modern"`` (2026-07-28)."""
        return self.context.era

    @property
    def protocol_version(self) -> str:
        return self.context.protocol_version

    @property
    def session_id(self) -> str | None:
        """The transport's session id (legacy Streamable HTTP), else None."""
        return self.context.session_id

    @property
    def transport(self) -> str:
        return self.context.transport

    @property
    def client_address(self) -> str | None:
        """The client's network address over HTTP and WebSocket, else None."""
        return self.context.client_address

    @property
    def principal(self) -> Principal | None:
        """Who made the request, once authorization is on; None without it."""
        return self.context.principal

    @property
    def deadline(self) -> float:
        """The request's deadline on the Trio clock."""
        return self.context.deadline

    def __repr__(self) -> str:
        target = f" {self.name!r}" if self.name else ""
        return f"<Request {self.method}{target} id={self.request_id!r} era={self.era}>"


def chain(middleware: list[Middleware], endpoint: CallNext, guard: Guard | None = None) -> CallNext:
    """``middleware[0]`` outermost, ``endpoint`` innermost; no frame of its own per layer but the
    ``guard``'s, when each layer is to run under one."""
    handler = endpoint
    for layer in reversed(middleware):
        handler = _bind(layer, handler) if guard is None else _guard(layer, handler, guard)
    return handler


def _bind(layer: Middleware, call_next: CallNext) -> CallNext:
    return lambda request: layer(request, call_next)


def _guard(layer: Middleware, call_next: CallNext, guard: Guard) -> CallNext:
    return lambda request: guard(request.context, request.params, layer(request, call_next))
