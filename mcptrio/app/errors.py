"""Exceptions a handler raises (or meets) that the app layer turns into MCP answers."""

from __future__ import annotations

from typing import Any


class ToolError(Exception):
    """Raise from a tool to return an ``isError`` result whose text is this message (from a
    resource or prompt handler: a -32602 error with this message).

    Any other exception also becomes an ``isError`` result, but with a generic text: its
    message may hold internal detail (paths, hosts), so it goes to the log only.
    """


class ClientCapabilityMissing(Exception):
    """A handler asked the client for something it did not declare it can do (legacy era)."""


class StartTask(Exception):
    """Raised by ``ctx.start_task()`` in a tool that gathers input first: hand off to a task now."""


class InputRequired(Exception):
    """Raised inside a 2026-07-28 handler when client input it asked for is not yet present.

    The boundary turns it into an ``InputRequiredResult`` with a sealed ``requestState``; the
    handler re-runs on the client's retry with the answers gathered so far, so the same
    ``ctx.elicit()`` call then returns the answer.
    """

    def __init__(self, requests: dict[str, dict[str, Any]]) -> None:
        super().__init__(f"client input required: {', '.join(requests)}")
        self.requests = requests
