"""How a request ended, in the few words operators count by: for telemetry and the access log.

``ok``; ``tool_error`` (a tool result with ``isError``); ``error`` with the JSON-RPC code the
client got; ``timeout`` (the request's deadline passed); ``cancelled`` (the client or a shutdown
ended it).  A built-in middleware sees answers (``pipeline.py``); an exception other than those
is a built-in's own failure, which the runtime answers with ``-32603``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from ..protocol.errors import INTERNAL_ERROR, McpError

if TYPE_CHECKING:
    from .middleware import Request

OK, TOOL_ERROR, ERROR, TIMEOUT, CANCELLED = "ok", "tool_error", "error", "timeout", "cancelled"


def of_result(request: Request, result: dict[str, Any]) -> tuple[str, int | None]:
    if request.method == "tools/call" and result.get("isError") is True:
        return TOOL_ERROR, None
    return OK, None


def of_exception(request: Request, exc: BaseException) -> tuple[str, int | None]:
    """(outcome, JSON-RPC code or None) of a request that raised ``exc``."""
    if isinstance(exc, McpError):
        return ERROR, exc.code
    if isinstance(exc, trio.Cancelled):
        return (TIMEOUT if trio.current_time() >= request.deadline else CANCELLED), None
    return ERROR, INTERNAL_ERROR


def error_type(outcome: str, code: int | None) -> str | None:
    """The semantic conventions' ``error.type``: the code as a string, else the outcome (None: ok)."""
    if outcome == OK:
        return None
    return str(code) if code is not None else outcome
