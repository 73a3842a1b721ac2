"""The modern era's answer to a handler that needs client input: stop, and ask in the result."""

from __future__ import annotations

from typing import Any


class InputRequired(Exception):
    """Raised inside a 2026-07-28 handler when client input it asked for is not yet present.

    The worker turns it into an ``InputRequiredResult``; the handler re-runs on the client's retry
    with the answers gathered so far, so the same ``ctx.elicit()`` call then returns the answer.
    """

    def __init__(self, requests: dict[str, dict[str, Any]]) -> None:
        super().__init__(f"client input required: {', '.join(requests)}")
        self.requests = requests


class ClientRequestFailed(Exception):
    """The client answered a server→client request with an error (``code``, ``message``,
    ``data`` are its JSON-RPC error), or not in time (``code`` is None)."""

    def __init__(self, text: str, error: dict[str, Any] | None = None) -> None:
        super().__init__(text)
        error = error or {}
        code = error.get("code")
        self.code: int | None = code if isinstance(code, int) and not isinstance(code, bool) else None
        message = error.get("message")
        self.message: str = message if isinstance(message, str) else text
        self.data = error.get("data")
