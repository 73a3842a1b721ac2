"""What the protocol state machine hands back to the runtime after each received frame."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import attrs

if TYPE_CHECKING:
    from .methods import MethodSpec

RequestId = str | int


class Route(Protocol):
    """Where one request's messages go, as its transport decides (HTTP: the POST's response).

    A request with no route (stdio, WebSocket, messages for no request) is answered on its
    session's own stream.
    """

    async def deliver(self, message: dict[str, Any] | list[Any]) -> None:
        """Send a message for the request; its response (or a batch's array) is the last."""

    def post(self, message: dict[str, Any]) -> None:
        """Queue a notification without waiting on the client."""


@attrs.define(slots=True, eq=False)
class IncomingRequest:
    """A client request that passed the envelope and era checks and needs a handler."""

    id: RequestId
    method: str
    params: dict[str, Any]
    era: str  # "legacy" or "modern"
    version: str
    client_capabilities: dict[str, Any]
    client_info: dict[str, Any] | None
    log_level: str | None  # modern: per request; legacy: None (read from the session)
    progress_token: str | int | None
    spec: MethodSpec  # the method's row of ``methods.TABLE``
    batch: BatchReply | None = None
    route: Route | None = None
    principal: Any = None  # who sent it, when the transport authenticates its peer
    http: object = None  # the HTTP request it came in (``app.http_request.HttpRequest``), set by that transport


@attrs.define(slots=True, eq=False)
class BatchReply:
    """Collects the answers to one JSON-RPC batch (2025-03-26) so they leave as one array."""

    replies: list[dict[str, Any]] = attrs.field(factory=list)
    pending: int = 0

    def add(self, message: dict[str, Any] | None) -> list[dict[str, Any]] | None:
        """Record one request's answer (None: it was cancelled); return the array when complete."""
        if message is not None:
            self.replies.append(message)
        self.pending -= 1
        if self.pending == 0 and self.replies:
            return self.replies
        return None


@attrs.frozen
class Send:
    """Write this message (or batch array) to the client now."""

    message: dict[str, Any] | list[dict[str, Any]]


@attrs.define(slots=True)  # (not frozen: one is made per request, and a frozen init costs twice as much)
class Dispatch:
    """Run a handler for this request in its own worker."""

    request: IncomingRequest


@attrs.frozen
class Cancel:
    """The client cancelled an in-flight request (``notifications/cancelled``)."""

    request_id: RequestId
    reason: str | None


@attrs.frozen
class ClientReply:
    """The client answered one of our server→client requests."""

    request_id: RequestId
    result: dict[str, Any] | None
    error: dict[str, Any] | None


@attrs.frozen
class Notified:
    """Any other client notification the application may care about."""

    method: str
    params: dict[str, Any]


Event = Send | Dispatch | Cancel | ClientReply | Notified
