"""What the runtime is handed by the layer above it: one request handler and a few hooks.

The runtime knows nothing of tools, prompts, contexts or middleware.  An ``App`` (``mcptrio.app``)
satisfies ``Host``; so can anything else that answers requests.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager as ContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..protocol.events import IncomingRequest
    from ..protocol.session import ServerIdentity
    from .limits import SessionLimits

# (session, request, deadline) -> the result object, or an McpError raised.  The session is the
# ``core.SessionCore`` the request arrived on (typed loosely here: host.py sits below core.py,
# which is handed a Host).  The params reach it as the client sent them (a 2026-07-28
# ``requestState`` too: sealing it is the host's business).
RequestHandler = Callable[[Any, "IncomingRequest", float], Awaitable[dict[str, Any]]]
Session = Any


class Host(Protocol):
    """The server a session belongs to, as the runtime needs it."""

    identity: ServerIdentity
    limits: SessionLimits

    @property
    def handler(self) -> RequestHandler:
        """The one async callable that answers every request a worker runs."""

    def timed_out(self, request: IncomingRequest, timeout: float) -> dict[str, Any] | None:
        """The result that answers a request whose ``timeout`` (seconds) ran out, if it has one;
        None: it gets the runtime's JSON-RPC error."""

    def attach(self, session: Session) -> ContextManager[None]:
        """The session is live (change notifications may go to it) for the block."""

    def detach(self, session: Session) -> None:
        """The session ended."""

    def on_client_notification(self, session: Session, method: str, params: dict[str, Any]) -> None:
        """A client notification the protocol does not consume itself (e.g. roots/list_changed)."""

    def switch_session(self, session: Session, on: bool, names: tuple[str, ...], tags: tuple[str, ...]) -> None:
        """Switch what ``names`` and ``tags`` name on or off for ``session`` alone."""
