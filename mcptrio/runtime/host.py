"""What the runtime is handed by the layer above it: one request handler and a few hooks.

The runtime knows nothing of tools, prompts, contexts or middleware.  An ``App`` (``mcptrio.app``)
satisfies ``Host``; so can anything else that answers requests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable, ContextManager, Protocol, Sequence

if TYPE_CHECKING:
    from ..protocol.events import IncomingRequest
    from ..protocol.session import ServerIdentity
    from .limits import SessionLimits

# (session, request, deadline, input responses gathered so far) -> the result object.  The
# session is the ``core.SessionCore`` the request arrived on (typed loosely here: host.py sits
# below core.py, which is handed a Host).
RequestHandler = Callable[[Any, "IncomingRequest", float, "dict[str, Any]"], Awaitable[dict[str, Any]]]
Session = Any


class Host(Protocol):
    """The server a session belongs to, as the runtime needs it."""

    identity: ServerIdentity
    limits: SessionLimits

    @property
    def state_keys(self) -> Sequence[bytes]:
        """Seal 2026-07-28 requestState: the current key first, then any still accepted (rotation)."""

    @property
    def handler(self) -> RequestHandler:
        """The one async callable that answers every request a worker runs."""

    def attach(self, session: Session) -> ContextManager[None]:
        """The session is live (change notifications may go to it) for the block."""

    def detach(self, session: Session) -> None:
        """The session ended."""

    def on_client_notification(self, session: Session, method: str, params: dict[str, Any]) -> None:
        """A client notification the protocol does not consume itself (e.g. roots/list_changed)."""
