"""The auth gate's glue on HTTP, the 2024-11-05 SSE transport and WebSocket (``mcptrio.auth.Gate``).

* The Protected Resource Metadata is served at its well-known URLs to any origin (CORS), ahead
  of the Host/Origin check and of the token check, the same whatever Host a client sends.
* Every request to the MCP endpoint shows a bearer token first; the gate's challenge answers
  one that does not (401, 400 or 503).
* Before a POST's requests are dispatched, the scopes they need are checked: a token short of
  any is the spec's step-up challenge, ``403`` naming every scope needed (``check_scopes``).
* What the client can come back to (a legacy session, its GET stream) belongs to the principal
  that opened it; anyone else is told it does not exist (``owns``).
* A stream that outlives its token ends when the token expires (``expiry_deadline``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

import trio

from ...auth.errors import AuthError

if TYPE_CHECKING:
    from ...auth.config import AuthConfig
    from ...auth.gate import Gate
    from ...auth.principal import Principal
    from ...protocol.events import IncomingRequest


class Responder(Protocol):
    """Where a refusal or the metadata is written: an HTTP response not yet started."""

    started: bool

    async def respond(self, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None: ...


CORS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET, OPTIONS"),
    (b"access-control-allow-headers", b"mcp-protocol-version, authorization"),
    (b"access-control-max-age", b"86400"),
]


async def serve_metadata(gate: Gate, method: str, sink: Responder) -> None:
    """GET (or HEAD, OPTIONS) of the Protected Resource Metadata."""
    if method == "OPTIONS":
        await sink.respond(204, b"", CORS)
    elif method in ("GET", "HEAD"):
        body = gate.metadata if method == "GET" else b""
        await sink.respond(
            200, body, [(b"content-type", b"application/json"), (b"cache-control", b"public, max-age=3600")] + CORS
        )
    else:
        await sink.respond(405, b"Method Not Allowed", [(b"allow", b"GET, HEAD, OPTIONS")] + CORS)


async def admit(gate: Gate, headers: dict[bytes, bytes], query_string: bytes, sink: Responder) -> Principal | None:
    """The request's principal; or None once its challenge has been answered."""
    try:
        return await gate.authenticate(headers.get(b"authorization"), query_string)
    except AuthError as error:
        await refuse(gate, error, sink)
        return None


async def refuse(gate: Gate, error: AuthError, sink: Responder) -> None:
    if not sink.started:
        status, headers, body = gate.challenge(error)
        await sink.respond(status, body, headers)


def check_scopes(gate: Gate, needed_for: Any, principal: Principal, requests: list[IncomingRequest]) -> None:
    """Raise ``InsufficientScope`` (every scope the requests need) unless the token has them;
    else hand the requests their principal."""
    needed: frozenset[str] = frozenset()
    for request in requests:
        needed |= needed_for(request.method, request.params)
    gate.check_scopes(principal, needed)
    for request in requests:
        request.principal = principal


def owns(binding: str | None, principal: Principal | None) -> bool:
    """Does what was bound to ``binding`` belong to ``principal``?  (Both None: no authorization.)"""
    return binding == (principal.binding if principal is not None else None)


def expiry_deadline(principal: Principal | None) -> float:
    """The Trio-clock deadline of ``principal``'s token (inf when it has none, or no auth)."""
    if principal is None or principal.expires_at is None:
        return float("inf")
    return trio.current_time() + max(0.0, principal.expires_at - time.time())


def resource_check(config: AuthConfig, host: str) -> None:
    """A wildcard bind has no one URL clients use: with authorization on it needs ``public_url``."""
    if config.public_url is None and host in ("0.0.0.0", "::", ""):
        raise ValueError(
            f"authorization on a server bound to {host or 'every address'} needs a public URL "
            "(--public-url https://mcp.example.com/mcp): tokens are checked against it"
        )
