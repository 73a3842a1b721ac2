"""One line per MCP request on the ``mcptrio.access`` logger: what, how it ended, how long.

Fields: method, name (the tool or prompt name, or the resource URI: the target, never argument
values), outcome (``outcomes``: ok, tool_error, error, timeout, cancelled) and the JSON-RPC code
of an error, duration_ms, era, version, request id, transport, client address, a session
reference and a principal reference.  The session reference is a short hash of the session id,
which on HTTP works like a credential; the principal reference is the token's subject, never the
token.  Costs one ``isEnabledFor`` check when INFO is off.
"""

from __future__ import annotations

import hashlib
import logging
import time
from typing import TYPE_CHECKING, Any

from . import outcomes

if TYPE_CHECKING:
    from .middleware import CallNext, Request

log = logging.getLogger("mcptrio.access")


def reference(secret: str | None) -> str | None:
    """A stable short reference to ``secret`` that does not reveal it (12 hex digits of SHA-256)."""
    return hashlib.sha256(secret.encode()).hexdigest()[:12] if secret else None


async def access_log(request: Request, call_next: CallNext) -> dict[str, Any]:
    """The middleware (rank ACCESS_LOG, outside the user's)."""
    if not log.isEnabledFor(logging.INFO):
        return await call_next(request)
    started = time.perf_counter()
    outcome: tuple[str, int | None] = (outcomes.CANCELLED, None)
    try:
        result = await call_next(request)
        outcome = outcomes.of_result(request, result)
        return result
    except BaseException as exc:
        outcome = outcomes.of_exception(request, exc)
        raise
    finally:
        principal = request.principal
        fields: dict[str, Any] = {
            "method": request.method,
            "name": request.name,
            "outcome": outcome[0],
            "duration_ms": round((time.perf_counter() - started) * 1000, 3),
            "era": request.era,
            "version": request.protocol_version,
            "id": request.request_id,
            "transport": request.transport,
            "client": request.client_address,
            "session": reference(request.session_id),
            "principal": getattr(principal, "subject", None) if principal is not None else None,
            "upstream": request.state.get("upstream"),  # (a gateway's: the server that answered)
        }
        if outcome[1] is not None:
            fields["code"] = outcome[1]
        log.info(
            "%s %s %s",
            request.method,
            request.name or "-",
            outcome[0],
            extra={"fields": {k: v for k, v in fields.items() if v is not None}},
        )
