"""What every kind of session shares, whatever carries its bytes: the protocol state, the
dispatcher of workers, the legacy server→client calls, and the routing of outgoing messages.

A *route* is the transport's handle for where a request's messages go: nothing on stdio (one
stream carries everything), the POST exchange on HTTP.  Messages for no request go to route None.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..protocol import errors
from ..protocol.events import Cancel, ClientReply, Dispatch, IncomingRequest, Notified, Route, Send
from ..protocol.session import ServerProtocol, error_message
from .client_calls import ClientCalls
from .limits import SessionLimits
from .worker import Dispatcher

if TYPE_CHECKING:
    from .host import Host


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
