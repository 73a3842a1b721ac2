"""JSON-RPC 2.0 envelopes, the error object, and the typed ``data`` of MCP's own error codes.

Envelopes keep ``params`` and ``result`` as plain dicts: the method decides their type, so they
are structured in a second step (see ``PARAMS_BY_METHOD`` and ``RESULT_BY_METHOD``).  A JSON-RPC
message is told apart by which of ``method``, ``id``, ``error`` it has.
"""

from typing import Any, Literal

import attrs

from ._base import JSONObject, RequestId, null_is_absent
from .capabilities import ClientCapabilities
from .elicitation import ElicitRequestURLParams


@attrs.frozen(kw_only=True)
class Error:
    """A JSON-RPC error object (ParseError, InvalidParamsError, ... are this with a fixed code)."""

    code: int
    message: str
    data: Any = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class JSONRPCRequest:
    """A request, which expects a response."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId
    method: str
    params: JSONObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class JSONRPCNotification:
    """A notification, which expects no response."""

    jsonrpc: Literal["2.0"] = "2.0"
    method: str
    params: JSONObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class JSONRPCResultResponse:
    """A successful response to a request."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId
    result: JSONObject
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class JSONRPCErrorResponse:
    """A failed request; ``id`` is absent when it could not be read (a ``null`` id reads as absent)."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId | None = null_is_absent()
    error: Error
    extra: dict[str, Any] = attrs.Factory(dict)


JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse
JSONRPCMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResultResponse | JSONRPCErrorResponse


# -- the data of MCP's error codes -----------------------------------------------------------


@attrs.frozen(kw_only=True)
class UnsupportedProtocolVersionErrorData:
    """``data`` of -32022: the version the client asked for and the ones the server speaks."""

    requested: str
    supported: list[str]
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class MissingRequiredClientCapabilityErrorData:
    """``data`` of -32021: the client capabilities the request needs."""

    required_capabilities: ClientCapabilities
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class URLElicitationRequiredErrorData:
    """``data`` of the legacy -32042: URL elicitations the user must complete first."""

    elicitations: list[ElicitRequestURLParams]
    extra: dict[str, Any] = attrs.Factory(dict)
