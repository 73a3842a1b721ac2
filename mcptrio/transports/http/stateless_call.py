"""One 2026-07-28 POST: a request (or a client's answer) with no session behind it.

It has what the runtime needs to run the request — protocol state for this one message, a
dispatcher — and its messages go to the POST's own response; there is nothing to keep after it,
so no session id, no event log, no standalone stream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...protocol.events import Route
from ...runtime.core import SessionCore

if TYPE_CHECKING:
    from ...app import App
    from ...runtime.limits import SessionLimits
    from .event_log import EventLog


class StatelessCall(SessionCore):
    """Messages go to the request's route; a message for no request has nowhere to go."""

    transport = "http"
    log: EventLog | None = None  # (a stateless response is never resumed)

    def __init__(self, app: App, limits: SessionLimits, client_address: str | None) -> None:
        super().__init__(app, limits)
        self.client_address = client_address

    async def send(self, message: dict[str, Any] | list[Any], route: Route | None = None) -> None:
        if route is not None:
            await route.deliver(message)

    def post(self, message: dict[str, Any], route: Route | None = None) -> None:
        if route is not None:
            route.post(message)
