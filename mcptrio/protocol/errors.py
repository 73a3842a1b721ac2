"""JSON-RPC and MCP error codes, and the one exception type the core raises for them."""

from __future__ import annotations

from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# Legacy revisions (<= 2025-11-25) only: a resource URI that does not exist.
RESOURCE_NOT_FOUND_LEGACY = -32002
# Reserved MCP range, 2026-07-28.
HEADER_MISMATCH = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
UNSUPPORTED_PROTOCOL_VERSION = -32022
# mcptrio's own, outside JSON-RPC's reserved range as the 2026-07-28 spec asks (basic/index.mdx);
# both are retryable and carry data.retryAfter (seconds).  Numbered after their HTTP statuses.
RATE_LIMITED = -31429  # the client's rate limit is spent (HTTP 429)
UNAVAILABLE = -31503  # the server is at capacity or draining: retry later (HTTP 503)
FORBIDDEN = -31403  # the token lacks a scope the request needs; data.requiredScopes names them all


class McpError(Exception):
    """An error that goes to the client as a JSON-RPC error object.

    Raise it from a handler to choose the code, message and data the client sees.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    @classmethod
    def from_dict(cls, error: Any, message: str = "error") -> McpError:
        """The inverse of ``to_dict``: a JSON-RPC error object (as a peer sent it) raised again.
        ``message`` stands in for a missing one; a missing code is an internal error."""
        error = error if isinstance(error, dict) else {}
        return cls(error.get("code", INTERNAL_ERROR), error.get("message", message), error.get("data"))

    def to_dict(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    def __repr__(self) -> str:
        return f"McpError({self.code}, {self.message!r})"


def invalid_params(message: str, data: Any = None) -> McpError:
    return McpError(INVALID_PARAMS, message, data)


def invalid_request(message: str) -> McpError:
    return McpError(INVALID_REQUEST, message)


def method_not_found(method: str, detail: str = "") -> McpError:
    suffix = f" ({detail})" if detail else ""
    return McpError(METHOD_NOT_FOUND, f"method not found: {method}{suffix}")


def internal_error(message: str = "internal error") -> McpError:
    return McpError(INTERNAL_ERROR, message)


def unavailable(message: str, retry_after: float = 1) -> McpError:
    """Retryable: the server is at capacity or draining (HTTP 503 with ``Retry-After``)."""
    return McpError(UNAVAILABLE, message, {"retryAfter": retry_after})
