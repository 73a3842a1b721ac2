"""A request refused before any handler ran: an HTTP status, headers, and a JSON-RPC error body.

HTTP answers it as a response; the WebSocket transport as the rejection of its upgrade.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...protocol import errors
from ...protocol.errors import McpError
from ...protocol.events import RequestId
from ...protocol.session import error_message


class HttpError(Exception):
    """Answer the HTTP request with this status and a JSON-RPC error body (id when known)."""

    def __init__(
        self,
        status: int,
        error: McpError,
        request_id: RequestId | None = None,
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        super().__init__(error.message)
        self.status = status
        self.error = error
        self.request_id = request_id
        self.headers = headers or []

    def body(self) -> bytes:
        """The JSON-RPC error message that answers the request."""
        return orjson.dumps(error_message(self.request_id, self.error))


def retry_later(
    message: str, request_id: RequestId | None = None, seconds: int = 1, data: dict[str, Any] | None = None
) -> HttpError:
    """503 with ``Retry-After`` and the retryable -31503 (draining, at capacity, state away); ``data``
    adds to the error's data (which limit refused it, say)."""
    error = errors.unavailable(message, seconds)
    if data:
        error.data = {**error.data, **data}
    return HttpError(503, error, request_id, [(b"retry-after", str(seconds).encode())])
